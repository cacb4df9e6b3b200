/* bench_cron_status --reconciler: the schedule-health reconciler's first pass over a generated
 * cluster (bench/schedule_health.c). */
#ifndef CW_BENCH_SCHEDULE_HEALTH_H
#define CW_BENCH_SCHEDULE_HEALTH_H

#include <stdint.h>

/* dir: bench_cron_status's generated cluster; now_s: the reconciler's clock. 0 or 1 (failed). */
int cw_bench_schedule_health(const char *dir, int64_t now_s);

#endif
