/* Helpers shared by the benchmarks: clocks, child processes with peak RSS, percentiles. */
#ifndef CW_BENCH_UTIL_H
#define CW_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

double cw_bench_now(void); /* monotonic seconds */

typedef struct cw_bench_child {
    double seconds;     /* wall time */
    double cpu_seconds; /* user + system CPU (steadier than wall time on a shared machine) */
    long max_rss_kib;
    int status; /* exit code, or -signal */
} cw_bench_child;

/* Runs argv (stdout to /dev/null when quiet) and measures it. */
int cw_bench_run(char *const argv[], int quiet, cw_bench_child *out);

/* The same with stdout and stderr to the given files (NULL: inherited). */
int cw_bench_run_to(char *const argv[], const char *out_path, const char *err_path,
                    cw_bench_child *out);

/* min, median and max of n values (sorts v). */
void cw_bench_spread(double *v, size_t n, double *min, double *median, double *max);

/* Peak RSS of this process so far, KiB. */
long cw_bench_self_rss_kib(void);

/* p in [0,1] over n sorted values. */
double cw_bench_percentile(const double *sorted, size_t n, double p);
void cw_bench_sort(double *v, size_t n);

/* Volume i's legacy spec.recurringJobs items (0-4, deterministic, from a pool of shared specs),
 * as bench_migrate_online seeds them, written at buf; returns the length written. */
size_t cw_bench_legacy_jobs(char *buf, size_t cap, size_t i);

#endif
