/* Monotonic time for timeouts, rates and backoff (never the wall clock, which can jump); the wall
 * clock only where times are wall-clock by nature (cron runs, the work queue's timers). */
#ifndef CW_CLOCK_H
#define CW_CLOCK_H

#include <stdint.h>

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double cw_clock_mono(void);
/* Milliseconds since the epoch (CLOCK_REALTIME). */
int64_t cw_clock_wall_ms(void);

#endif
