/* The hand-over from a legacy per-volume CronJob to the RecurringJob's new CronJob, decided from
 * the legacy CronJob as the apiserver returns it. Kubernetes' CronJob controller starts a new
 * CronJob's first Job at the first fire time after its creationTimestamp, so the fire times up to
 * the hand-over instant (when every new CronJob exists) are the legacy CronJob's to run: deleting
 * it before its controller started the last of them (it looks every 10 s up to 1.20, at the fire
 * time from 1.21) loses that run, and its foreground deletion takes a running Job along. */
#ifndef CW_HANDOVER_H
#define CW_HANDOVER_H

#include <json-c/json.h>
#include <stdint.h>

#include "lib/error.h"

typedef enum {
    CW_HANDOVER_DONE,    /* nothing due at the hand-over is left unstarted, no Job runs */
    CW_HANDOVER_DUE,     /* a fire time at or before the hand-over has not been started */
    CW_HANDOVER_RUNNING, /* a Job of it is still active (status.active) */
} cw_handover_state;

/* The state of `cronjob` (batch/v1 or v1beta1) at `handover` (unix seconds): a suspended CronJob
 * runs nothing and is DONE; else the first fire time after status.lastScheduleTime (or after
 * metadata.creationTimestamp when it never ran), as the CronJob controller computes it in UTC,
 * goes into *due and is DUE when it is not after `handover`. A schedule or time that cannot be
 * read: CW_EINVAL with the field named. */
int cw_handover_check(json_object *cronjob, int64_t handover, cw_handover_state *state,
                      int64_t *due, cw_error *err) CW_MUST_CHECK;

#endif
