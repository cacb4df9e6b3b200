/* The Velero Schedule reconciler's decision: a pure function of the Schedule, the Backups of that
 * schedule, the configuration and "now", returning what to write. Every rule it applies comes from
 * velero/schedule.h (cw_schedule_validate, cw_schedule_effective_skip, cw_schedule_next_run);
 * this file only orders them and shapes the writes. Contract: docs/compat.md (Velero),
 * docs/controller.md.
 *
 *   paused                         -> nothing (not even status), no timer
 *   invalid (Velero's messages)    -> status.phase FailedValidation + validationErrors
 *   effective skipImmediately true -> spec.skipImmediately false (not absent) + status.lastSkipped
 *   not due                        -> timer at the next run
 *   due, the run's Backup exists   -> status.lastBackup only (a crash came between the two writes)
 *   due, a Backup of the schedule New (or no phase yet), InProgress, Queued or ReadyToStart
 *                                  -> nothing; look again when that Backup changes
 *   due                            -> create Backup <schedule>-<run time, UTC YYYYMMDDhhmmss>, then
 *                                     status.lastBackup = now; timer at the run after
 * The Backup's name carries the scheduled time of the run (the first fire time after the last
 * recorded run), so retries, restarts and a new leader all name the same run the same way and
 * a second create answers 409. Missed runs are not caught up: one Backup, then the next fire time
 * after now. */
#ifndef CW_SCHEDCTL_H
#define CW_SCHEDCTL_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "defaults/policy.h"
#include "lib/error.h"
#include "lib/strlist.h"

#define CW_SCHEDCTL_LABEL     "velero.io/schedule-name"
#define CW_SCHEDCTL_NAME_MAX  253
#define CW_SCHEDCTL_LABEL_MAX 63

typedef struct cw_schedctl_config {
    const cw_policy_config *policy; /* schedule_skip_immediately (Velero's server default), tzdb */
    int32_t zone_offset;    /* seconds east of UTC for crons without TZ= (Velero: its process zone,
                               UTC in its image) */
    double blocked_recheck; /* seconds: look again this soon while a Backup blocks (the Backup
                               watch normally wakes the schedule first); 0: 60 */
} cw_schedctl_config;

typedef enum {
    CW_SCHEDCTL_PAUSED,
    CW_SCHEDCTL_INVALID,
    CW_SCHEDCTL_SKIPPED,
    CW_SCHEDCTL_WAITING,
    CW_SCHEDCTL_SUBMIT,
    CW_SCHEDCTL_RECORD,
    CW_SCHEDCTL_BLOCKED,
    CW_SCHEDCTL_NEVER, /* the cron has no fire time within robfig's five-year horizon */
} cw_schedctl_outcome;

typedef struct cw_schedctl_actions {
    cw_schedctl_outcome outcome;
    /* Merge patch of the Schedule (spec and status together: the CRD has no status subresource),
     * carrying metadata.resourceVersion so that it fails with 409 when the Schedule moved on.
     * NULL: nothing to write. */
    json_object *patch;
    json_object *backup;   /* SUBMIT: the Backup to create before the patch; else NULL */
    char *backup_name;     /* SUBMIT, RECORD: the run's Backup; BLOCKED: the blocking one */
    int64_t next_run;      /* unix seconds: the due run, or the next one (0: none) */
    int64_t requeue_at_ms; /* wall-clock ms to reconcile again (0: only on a change) */
    cw_strlist problems;   /* INVALID: the validation errors */
} cw_schedctl_actions;

void cw_schedctl_actions_init(cw_schedctl_actions *a);
void cw_schedctl_actions_free(cw_schedctl_actions *a);

/* schedule: the Schedule as stored; backups: a JSON array of the Backups labelled with this
 * schedule (at least metadata.name and status.phase; NULL: none); now_ms: wall-clock ms.
 * CW_EINVAL (err names the field) when the object cannot be acted on: no metadata.name, a status
 * time that is not RFC 3339, no creationTimestamp before the first Backup. CW_ENOMEM, or CW_EIO
 * when a zone file could not be read. */
int cw_schedctl_decide(json_object *schedule, json_object *backups, const cw_schedctl_config *cfg,
                       int64_t now_ms, cw_schedctl_actions *out, cw_error *err) CW_MUST_CHECK;

const char *cw_schedctl_outcome_name(cw_schedctl_outcome o);
/* The value of CW_SCHEDCTL_LABEL for a schedule: the name itself up to 63 characters, else
 * Velero's label.GetValidName (the first 57 characters and 6 hex digits of its SHA-256). out
 * needs CW_SCHEDCTL_LABEL_MAX + 1 bytes. */
void cw_schedctl_label_value(const char *schedule, char *out, size_t outlen);
/* "<schedule>-<YYYYMMDDhhmmss>" of unix time t in UTC. CW_EINVAL when t is outside 0000-9999. */
int cw_schedctl_backup_name(const char *schedule, int64_t t, char *out, size_t outlen);
/* 1 for the phases during which Velero's own check, and cronwarden's, hold a new run back:
 * none yet (a Backup Velero has not picked up), New, InProgress, Queued, ReadyToStart. */
int cw_schedctl_backup_blocks(const char *phase);

#endif
