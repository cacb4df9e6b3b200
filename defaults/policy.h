/* Types shared by the policy functions in defaults/: configuration, admission operation and the
 * decision (patch ops, warnings, problems). Every rule lives in exactly one file of defaults/;
 * the webhook, the migrate planner and the controller all call these. Rules: docs/policy.md.
 *
 * Contract of every cw_<kind>_default / cw_<kind>_validate:
 *   - pure: reads cfg, old and obj, appends to the decision, touches nothing else;
 *   - returns CW_OK unless something internal failed (CW_ENOMEM); everything wrong with the object
 *     itself, including JSON types, is a problem in decision->problems ("<field>: <reason>");
 *   - patch ops apply, in order, to obj as given (missing parents are added as objects).
 *   CW_OP_DELETE and CW_OP_CONNECT decide nothing for any kind. */
#ifndef CW_POLICY_H
#define CW_POLICY_H

#include <json-c/json.h>

#include "lib/error.h"
#include "lib/strlist.h"
#include "cron/tz.h"

#define CW_POLICY_MAX_RETAIN_DEFAULT 100 /* Longhorn setting recurring-job-max-retention */
#define CW_POLICY_MAX_RETAIN_LIMIT   250 /* the setting's allowed range is 1..250 */
#define CW_POLICY_DEFAULT_GROUP      "default"

/* Label keys Longhorn selects volumes by; values are CW_LABEL_ENABLED. */
#define CW_LABEL_JOB_PREFIX   "recurring-job.longhorn.io/"
#define CW_LABEL_GROUP_PREFIX "recurring-job-group.longhorn.io/"
#define CW_LABEL_ENABLED      "enabled"

typedef struct cw_policy_config {
    int max_retain;                /* 1..250, default 100 */
    char *default_group;           /* owned; "default"; NULL or "" disables the volume default */
    int schedule_skip_immediately; /* Velero's --schedule-skip-immediately, default 0 */
    cw_tzdb *tzdb; /* borrowed; resolves TZ=/CRON_TZ= cron prefixes (NULL: such prefixes fail) */
    /* The Longhorn minor the cluster runs (1.<longhorn_minor>): a RecurringJob task its manager
     * does not have is refused. 0: not known, every task of the newest Longhorn is accepted. */
    int longhorn_minor;
    /* Its patch release (1.<longhorn_minor>.<longhorn_patch>), which the tasks depend on
     * (v1.3.3, v1.4.1, v1.4.2 add some). -1: not known, the minor's newest release. */
    int longhorn_patch;
    /* 1: a TZ=/CRON_TZ= prefix in a RecurringJob's cron is neither refused nor warned about (the
     * controller: Longhorn's controller copies spec.cron into the CronJob as it is, and so does
     * cronwarden's; whether Kubernetes takes it is the API server's to say). 0: the rule of
     * docs/policy.md (refused when longhorn_minor >= 3, else a warning). */
    int cron_zone_ok;
} cw_policy_config;

/* Sets the defaults above (default_group is copied: CW_ENOMEM possible). */
int cw_policy_config_init(cw_policy_config *cfg);
void cw_policy_config_free(cw_policy_config *cfg);
/* The defaults with the system's zone database (cfg->tzdb points at *tzdb); on failure nothing is
 * left to free. */
int cw_policy_config_init_tzdb(cw_policy_config *cfg, cw_tzdb *tzdb, cw_error *err) CW_MUST_CHECK;
void cw_policy_config_free_tzdb(cw_policy_config *cfg, cw_tzdb *tzdb);
/* Replaces default_group with a copy of group (NULL or "" disables). */
int cw_policy_config_set_default_group(cw_policy_config *cfg, const char *group,
                                       cw_error *err) CW_MUST_CHECK;
/* Reason a group is unusable (NULL when fine): it must match ^[a-zA-Z0-9][a-zA-Z0-9_.-]+$ and
 * form a valid label key recurring-job-group.longhorn.io/<group>. Static text. Here, not in
 * longhorn/recurringjob.h, because default_group above is checked by it. */
const char *cw_policy_group_problem(const char *group);
/* CW_EINVAL with the first out-of-range value, e.g. "max-retain: 300 is outside 1..250". */
int cw_policy_config_validate(const cw_policy_config *cfg, cw_error *err) CW_MUST_CHECK;

typedef enum { CW_OP_CREATE, CW_OP_UPDATE, CW_OP_DELETE, CW_OP_CONNECT } cw_operation;

/* AdmissionReview spelling: "CREATE", "UPDATE", "DELETE", "CONNECT". */
int cw_operation_parse(const char *s, cw_operation *out, cw_error *err) CW_MUST_CHECK;
const char *cw_operation_name(cw_operation op);

typedef struct cw_decision {
    json_object *patch;  /* RFC 6902 ops array; NULL only if init could not allocate it */
    cw_strlist warnings; /* admitted, but the user should know */
    cw_strlist problems; /* non-empty = deny */
} cw_decision;

/* When the patch array cannot be allocated it stays NULL and every policy function given this
 * decision returns CW_ENOMEM, so callers need no extra check. */
void cw_decision_init(cw_decision *d);
void cw_decision_free(cw_decision *d);
int cw_decision_denied(const cw_decision *d);
/* All problems in one message, joined by "; " ("" when none). Caller frees; NULL on ENOMEM. */
char *cw_decision_message(const cw_decision *d);

/* Adds the problems `now` found to d. Those also in `before` (the stored object's problems on
 * UPDATE; NULL otherwise) become warnings instead: an object stored before a rule existed, or
 * before a setting changed, can still be updated — Longhorn removes finalizers and Velero writes
 * Schedule status through UPDATE — while any new or changed violation is denied. */
int cw_decision_add_problems(cw_decision *d, const cw_strlist *now, const cw_strlist *before);

/* Appends "<where>.<field>: <text>" (just "<field>: " when where is empty, "<where>: " when field
 * is NULL). Returns CW_OK or CW_ENOMEM. */
int cw_policy_problem(cw_strlist *problems, const char *where, const char *field, const char *fmt,
                      ...) __attribute__((format(printf, 4, 5)));
/* Same for a map key or array index: "<where>.<field>[<item>]: <text>". */
int cw_policy_item_problem(cw_strlist *problems, const char *where, const char *field,
                           const char *item, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
