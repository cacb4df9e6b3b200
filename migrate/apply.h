/* The online half of migrate: gathers the cluster's objects into the planner (paged, streaming),
 * then applies the plan in the order that can never lose a schedule or a StorageClass:
 *   RecurringJobs created -> each ready -> volumes patched (conditional on resourceVersion)
 *   -> StorageClasses re-created through a backup ConfigMap -> the ConfigMap -> legacy CronJobs.
 * Every write can be sent with dryRun=All. Results land in the plan for the report. */
#ifndef CW_APPLY_H
#define CW_APPLY_H

#include "kube/client.h"
#include "kube/lease.h"
#include "migrate/plan.h"
#include "migrate/progress.h"

#define CW_SC_BACKUP_CONFIGMAP "cronwarden-storageclass-backup"

typedef struct cw_apply_config {
    const char *namespace;
    long page_size;
    size_t parallel;
    int dry_run;             /* server dry run: every write with dryRun=All */
    int read_only;           /* client dry run: no write at all (not even StorageClass recovery) */
    int wait_for_controller; /* a RecurringJob is ready once Longhorn made its CronJob */
    double wait_timeout;     /* seconds per RecurringJob; on timeout warn and carry on */
    cw_lease *lease;         /* writes stop when it is lost (may be NULL) */
    cw_progress *progress;
} cw_apply_config;

typedef struct cw_apply {
    cw_apply_config cfg;
    cw_kube_client *kube;
    char longhorn_version[32]; /* served version used for volumes */
    char rj_version[32];       /* served version used for recurringjobs */
    char cronjob_version[32];  /* batch/v1 or batch/v1beta1 */
} cw_apply;

/* Discovery: which versions the cluster serves. Errors name what is missing. */
int cw_apply_discover(cw_apply *a, cw_kube_client *kube, const cw_apply_config *cfg,
                      cw_error *err) CW_MUST_CHECK;
/* Restores or finishes StorageClasses a crashed run left in the backup ConfigMap. */
int cw_apply_recover_storageclasses(cw_apply *a, cw_error *err) CW_MUST_CHECK;
/* Lists everything the planner needs into p (which must be fresh) and finishes the plan. */
int cw_apply_gather(cw_apply *a, cw_plan *p, cw_error *err) CW_MUST_CHECK;
/* Write options for this run: dryRun=All in a server dry run, fieldManager cronwarden. */
void cw_apply_write_opts(const cw_apply *a, cw_kube_write_opts *w);

/* The RecurringJob an item needs that this run did not create (or NULL): such an item may not be
 * written, or it would point at a job that does not exist. */
const cw_plan_job *cw_apply_missing_job(const cw_plan *p, const cw_plan_item *it);

/* Batches of legacy CronJobs for one deletecollection each: idx holds m CronJob indices ordered by
 * (namespace, volume); a batch ends where the namespace changes or where the next volume would
 * make it hold more than max_volumes volumes or max_bytes of names (a volume is never split).
 * Batch b is idx[start[b]] .. idx[start[b + 1] - 1]; start needs m + 1 slots. Returns the count. */
size_t cw_apply_cronjob_batches(const cw_plan *p, const size_t *idx, size_t m, size_t max_volumes,
                                size_t max_bytes, size_t *start);

/* Applies a finished plan; per-object results go into the plan. Returns CW_OK unless the run had
 * to stop (lease lost, internal error). */
int cw_apply_run(cw_apply *a, cw_plan *p, cw_error *err) CW_MUST_CHECK;

#endif
