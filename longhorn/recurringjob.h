/* Longhorn RecurringJob (longhorn.io/v1beta1, v1beta2): defaulting and validation, plus the
 * smaller rules the migrate planner reuses for legacy jobs. Rules and messages: docs/policy.md.
 *
 * Decision on names: Longhorn's mutating webhook lower-cases an upper-case metadata.name and cuts
 * one over 40 characters (adding a hash). cronwarden does not rename: a rename at admission makes
 * the stored name differ from what the user applied (kubectl apply then creates a second object,
 * GitOps tools loop) and labels written against the given name silently miss. CREATE is denied
 * with a message naming the rule and, when lower-casing is all it takes, the name to use. */
#ifndef CW_RECURRINGJOB_H
#define CW_RECURRINGJOB_H

#include <json-c/json.h>
#include <stdint.h>

#include "defaults/policy.h"
#include "lib/error.h"
#include "lib/strlist.h"

#define CW_RECURRINGJOB_CONCURRENCY_DEFAULT 10
/* All tasks of the newest Longhorn (1.9+), as listed in messages. */
#define CW_RECURRINGJOB_TASKS                                                                      \
    "snapshot, snapshot-force-create, snapshot-cleanup, snapshot-delete, backup, "                 \
    "backup-force-create, filesystem-trim, system-backup"
#define CW_RECURRINGJOB_PARAM_FULL_BACKUP_INTERVAL "full-backup-interval"
#define CW_RECURRINGJOB_PARAM_VOLUME_BACKUP_POLICY "volume-backup-policy"

typedef enum {
    CW_RECURRINGJOB_V1BETA1, /* Longhorn 1.2: no spec.parameters */
    CW_RECURRINGJOB_V1BETA2, /* Longhorn 1.3+ (parameters from 1.7) */
} cw_recurringjob_version;

/* Version from "longhorn.io/v1beta1" / "longhorn.io/v1beta2"; NULL (no apiVersion, e.g. a spec
 * the planner is building) reads as v1beta2. Other text: CW_EINVAL. */
int cw_recurringjob_version_parse(const char *api_version, cw_recurringjob_version *out);

/* 1 for one of CW_RECURRINGJOB_TASKS. */
int cw_recurringjob_task_known(const char *task);
/* The first Longhorn minor whose manager has the task (1.<n>: 2 for snapshot and backup; 3 for
 * snapshot-force-create, snapshot-cleanup, snapshot-delete, backup-force-create; 5 for
 * filesystem-trim; 9 for system-backup: RecurringJobType in each tag's
 * k8s/pkg/apis/longhorn/.../recurringjob.go); 0 for an unknown task. */
int cw_recurringjob_task_since(const char *task);
/* The tasks Longhorn 1.<minor> (its newest release) has, comma-separated, into buf (for
 * messages). */
void cw_recurringjob_tasks_of(int minor, char *buf, size_t cap);
/* The same for Longhorn 1.<minor>.<patch> (patch < 0: the newest): the CRD's task enum of each
 * release range (v1.3.0-v1.3.2 and v1.4.0: snapshot, backup; v1.4.1 adds snapshot-cleanup and
 * snapshot-delete; v1.3.3 and v1.4.2 have the force-create tasks too). */
void cw_recurringjob_tasks_of_release(int minor, int patch, char *buf, size_t cap);
/* 1 when Longhorn 1.<minor>.<patch> (patch < 0: the newest release of the minor) has the task. */
int cw_recurringjob_task_in(const char *task, int minor, int patch);
/* The first patch release of 1.<minor> that has the task; -1 when none does. */
int cw_recurringjob_task_first_patch(const char *task, int minor);
/* 1 for the tasks that take parameters: backup, backup-force-create, system-backup. */
int cw_recurringjob_task_takes_parameters(const char *task);
/* Longhorn's retain defaulting: snapshot-cleanup and filesystem-trim → 0; snapshot-delete
 * negative → 0; every other task (unknown ones too) below 1 → 1; otherwise unchanged. */
int64_t cw_recurringjob_default_retain(const char *task, int64_t retain);

/* A group's rule is cw_policy_group_problem (defaults/policy.h): the policy's default_group is
 * checked by it too. */
/* A flag naming a group (--default-group), one wording in every command: CW_EUSAGE
 * "<flag> \"<group>\" <why>"; empty or NULL (none) passes. */
int cw_recurringjob_check_group_flag(const char *flag, const char *group, cw_error *err);

/* The checks below append "<where>.<field>: <reason>" problems; they return CW_OK or CW_ENOMEM.
 * `where` is the location of the checked object ("spec", "spec.recurringJobs[2]"). */

/* metadata.name rules (checked on CREATE): non-empty, Longhorn's pattern, at most 40 characters,
 * and usable in the volume label recurring-job.longhorn.io/<name>. */
int cw_recurringjob_check_name(json_object *name, const char *where, cw_strlist *problems);
/* A labels map (RecurringJob spec.labels or a legacy job's labels): keys are Kubernetes qualified
 * names, values non-empty strings. NULL and JSON null are fine. */
int cw_recurringjob_check_labels(json_object *labels, const char *where, cw_strlist *problems);
/* A RecurringJob spec: task, cron non-empty; known task; cron parses (robfig); groups; labels;
 * retain <= cfg->max_retain; parameters (v1beta2 only; on backup and backup-force-create from
 * Longhorn 1.7, the keys of the cluster's release range and their values). What Longhorn's webhook
 * accepts (a negative concurrency or full-backup-interval, parameters on other tasks) is no
 * problem here: cw_recurringjob_validate warns about it. spec.name may be absent (Longhorn 1.2's
 * CRD prunes it; the job's name is meta_name); a non-empty one must equal meta_name (NULL: not
 * compared). JSON type errors are problems too. */
int cw_recurringjob_check_spec(const cw_policy_config *cfg, cw_recurringjob_version version,
                               json_object *spec, const char *meta_name, const char *where,
                               cw_strlist *problems);
/* A legacy job ({name, task, cron, retain, labels} from Volume spec.recurringJobs or a
 * StorageClass recurringJobs parameter) that is to become a RecurringJob: known task, cron parses,
 * 1 <= retain <= cfg->max_retain, labels as above, name (unused for naming) a string if present. */
int cw_recurringjob_check_legacy(const cw_policy_config *cfg, json_object *job, const char *where,
                                 cw_strlist *problems);

/* The controller's rules (what Longhorn's controller would not turn into a CronJob it runs): the
 * object and spec shapes and apiVersion, task and cron non-empty strings, the task known to the
 * cluster's release (cfg->longhorn_minor/_patch), the cron parsing. Nothing else: Longhorn's
 * newCronJob reads only metadata.name and spec.cron, so names, spec.name, groups, labels,
 * retain, concurrency and parameters are its webhook's to refuse, not its controller's. The
 * zone prefix is not looked at (the API server says whether Kubernetes takes it). */
int cw_recurringjob_check_runnable(const cw_policy_config *cfg, json_object *obj,
                                   cw_strlist *problems);

/* Admission-shaped entry points (see policy.h for the contract). */
int cw_recurringjob_default(const cw_policy_config *cfg, cw_operation op, json_object *old,
                            json_object *obj, cw_decision *d, cw_error *err) CW_MUST_CHECK;
int cw_recurringjob_validate(const cw_policy_config *cfg, cw_operation op, json_object *old,
                             json_object *obj, cw_decision *d, cw_error *err) CW_MUST_CHECK;

#endif
