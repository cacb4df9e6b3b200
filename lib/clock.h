/* Monotonic time for timeouts, rates and backoff (never the wall clock, which can jump). */
#ifndef CW_CLOCK_H
#define CW_CLOCK_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double cw_clock_mono(void);

#endif
