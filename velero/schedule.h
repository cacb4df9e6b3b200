/* Velero Schedule (velero.io/v1): skipImmediately made explicit at admission, Velero's validation
 * messages, and the pure timing rules the controller needs. Rules: docs/policy.md and
 * docs/compat.md (Velero). */
#ifndef CW_SCHEDULE_H
#define CW_SCHEDULE_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "defaults/policy.h"
#include "cron/cron.h"
#include "lib/error.h"

/* Velero's texts, kept byte for byte (they end up in status.validationErrors). */
#define CW_SCHEDULE_MSG_EMPTY          "Schedule must be a non-empty valid Cron expression"
#define CW_SCHEDULE_MSG_INVALID_PREFIX "invalid schedule: "

/* The label Velero (and cronwarden's controller) put on each Backup of a schedule. */
#define CW_SCHEDULE_NAME_LABEL "velero.io/schedule-name"
#define CW_SCHEDULE_LABEL_MAX  63

/* The value of CW_SCHEDULE_NAME_LABEL for a schedule: the name itself up to 63 characters, else
 * Velero's label.GetValidName (the first 57 characters and 6 hex digits of its SHA-256). out
 * needs CW_SCHEDULE_LABEL_MAX + 1 bytes. */
void cw_schedule_label_value(const char *schedule, char *out, size_t outlen);

/* spec.skipImmediately ← cfg->schedule_skip_immediately when absent (or null), on CREATE and on
 * an UPDATE that unpauses (old spec.paused true → new false or absent), with a warning. */
int cw_schedule_default(const cw_policy_config *cfg, cw_operation op, json_object *old,
                        json_object *obj, cw_decision *d, cw_error *err) CW_MUST_CHECK;
/* Velero's checks (empty → CW_SCHEDULE_MSG_EMPTY; parse failure → "invalid schedule: <robfig
 * message>"), JSON types of schedule/paused/skipImmediately, apiVersion velero.io/v1, and a
 * warning when both day fields are restricted (robfig ORs them, go-cron in newer Velero ANDs). */
int cw_schedule_validate(const cw_policy_config *cfg, cw_operation op, json_object *old,
                         json_object *obj, cw_decision *d, cw_error *err) CW_MUST_CHECK;

/* The value the controller acts on: spec.skipImmediately when true/false, else the server
 * default. CW_EINVAL "spec.skipImmediately: expected boolean, got <type>". */
int cw_schedule_effective_skip(const cw_policy_config *cfg, json_object *schedule, int *out,
                               cw_error *err) CW_MUST_CHECK;

typedef struct cw_schedule_run {
    int64_t base; /* status.lastBackup, else metadata.creationTimestamp; a later lastSkipped wins */
    int64_t next; /* first cron fire strictly after base (valid when fires) */
    int fires;    /* 0: the cron never fires within robfig's five-year horizon */
    int due;      /* fires && now > next */
} cw_schedule_run;

/* Velero's getNextRunTime over unix seconds; last_backup / last_skipped may be NULL. */
void cw_schedule_next_from(const cw_cron *cron, int32_t caller_offset, int64_t created,
                           const int64_t *last_backup, const int64_t *last_skipped, int64_t now,
                           cw_schedule_run *out);
/* Same, reading the RFC 3339 times from the object. caller_offset: seconds east of UTC of the
 * zone a schedule without TZ= prefix runs in (Velero: its process zone, normally UTC).
 * CW_EINVAL names the bad or missing field ("status.lastBackup: invalid RFC 3339 time ..."). */
int cw_schedule_next_run(json_object *schedule, const cw_cron *cron, int32_t caller_offset,
                         int64_t now, cw_schedule_run *out, cw_error *err) CW_MUST_CHECK;

#endif
