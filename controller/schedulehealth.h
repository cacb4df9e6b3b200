/* The schedule-health reconciler's decision (its shell: controller/schedulehealth_apply.c): what
 * one schedule's judgement (schedules/health.h, cw_health_result at "now") makes of
 *   - its series (docs/status.md, "Metrics": the contract the alerts of deploy/monitoring read),
 *     among them the fire time of its newest missed run, which the alert compares with its last
 *     success (a run that succeeds after the fire time resolves it, however soon);
 *   - its Warning Events: one per missed run (a fire time its grace has passed without a run, not
 *     excused) and one per failed run, each named after its run (CW_EVENT_OCCURRENCE), so the
 *     same run is never said twice, by this process or a restarted one;
 *   - when to look again without any object changing: when the next fire time's grace ends (a run
 *     missed), when a run in progress becomes stuck, at least hourly.
 * What it remembers of a schedule between two looks is the caller's (cw_shctl_memory). */
#ifndef CW_SHCTL_H
#define CW_SHCTL_H

#include <stddef.h>
#include <stdint.h>

#include "schedules/health.h"
#include "lib/error.h"

#define CW_SHCTL_REASON_MISSED "ScheduleMissedRun"
#define CW_SHCTL_REASON_FAILED "ScheduleRunFailed"
#define CW_SHCTL_RECHECK_MAX   3600 /* seconds: a schedule is looked at again at least this often */

/* What the reconciler remembers of one schedule (process memory: a restart begins again). */
typedef struct cw_shctl_memory {
    int64_t counted;      /* cw_health_count_missed's mark (CW_HEALTH_UNCOUNTED at first) */
    int64_t failure_seen; /* the end of the failed run last said (CW_HEALTH_NONE: none yet) */
} cw_shctl_memory;

void cw_shctl_memory_init(cw_shctl_memory *m);

/* The gauges of a schedule, in the order of cw_shctl_actions.gauges. */
enum {
    CW_SHCTL_LAST_SUCCESS,         /* cronwarden_schedule_last_success_timestamp_seconds */
    CW_SHCTL_LAST_FAILURE,         /* ..._last_failure_timestamp_seconds */
    CW_SHCTL_LAST_MISSED,          /* ..._last_missed_timestamp_seconds */
    CW_SHCTL_NEXT_RUN,             /* ..._next_run_timestamp_seconds */
    CW_SHCTL_CONSECUTIVE_FAILURES, /* ..._consecutive_failures */
    CW_SHCTL_RUNNING,              /* ..._running_seconds */
    CW_SHCTL_STUCK_AFTER,          /* ..._stuck_after_seconds */
    CW_SHCTL_GAUGES
};

typedef struct cw_shctl_event {
    const char *reason; /* CW_SHCTL_REASON_* */
    char *message;
    uint64_t id; /* names the run: its fire time (missed) or end (failed) in ns, + 1 for failed */
} cw_shctl_event;

typedef struct cw_shctl_actions {
    double gauges[CW_SHCTL_GAUGES]; /* times in unix seconds; 0: none */
    double missed_new;              /* to add to cronwarden_schedule_missed_runs_total */
    cw_shctl_event *events;         /* Warning Events to post, oldest first */
    size_t nevents;
    int64_t recheck_at; /* unix seconds: look again then */
} cw_shctl_actions;

void cw_shctl_actions_init(cw_shctl_actions *a);
void cw_shctl_actions_free(cw_shctl_actions *a);

/* One schedule's actions from its result r (judged with cfg at now, unix seconds); mem moves on
 * (its missed runs counted, its failed run said). First look (mem as initialised, e.g. after a
 * restart): only what came after the last success counts and is said: what came before it is
 * resolved. CW_ENOMEM only. */
int cw_shctl_decide(const cw_health_config *cfg, int64_t now, const cw_health_result *r,
                    cw_shctl_memory *mem, cw_shctl_actions *out, cw_error *err) CW_MUST_CHECK;

#endif
