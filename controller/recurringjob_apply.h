/* The RecurringJob reconciler (`--controllers recurringjob`): Longhorn's runtime for its
 * RecurringJobs, a CronJob each, as the cluster's Longhorn minor's manager makes it
 * (longhorn/rjctl.h), or none at all for a Longhorn it does not know (it stands down:
 * controller/longhorn_watch.h). Informers, all in the Longhorn namespace: RecurringJobs; CronJobs
 * labelled longhorn.io/managed-by=longhorn-manager and recurring-job.longhorn.io (kept as name,
 * labels, annotation); Settings (name and value); the longhorn-manager DaemonSet (its image and
 * arguments: the version, the jobs' image and service account). Work keys are
 * "<namespace>/<RecurringJob name>", also for a CronJob whose job is gone. Writes: create,
 * conditional update (GET + PUT with its resourceVersion, guarded against a write war), delete; a
 * Warning Event on a RecurringJob the policy refuses. */
#ifndef CW_RJCTL_APPLY_H
#define CW_RJCTL_APPLY_H

#include "controller/core/reconciler.h"
#include "controller/flags.h"
#include "longhorn/rjctl.h"

/* Its config: its flags' values (--job-image, --job-service-account, --manager-url) and what
 * config_init derives from them and the shared --longhorn-namespace, --longhorn-version,
 * --max-retain. */
typedef struct cw_recurringjob_config {
    cw_ctrl_policy_config base; /* home: Longhorn's namespace; the policy */
    cw_lh_identity longhorn;    /* --longhorn-version (source CW_LH_SOURCE_NONE: auto) */
    char *image;                /* --job-image: used when no DaemonSet says otherwise ("": none) */
    char *service_account;      /* --job-service-account, job's */
    char *manager_url;          /* --manager-url, job's */
    cw_rjctl_config job;        /* policy, service account, manager URL; the rest per reconcile */
} cw_recurringjob_config;

/* Informers, in this order. */
enum { CW_RJ_RECURRINGJOBS, CW_RJ_CRONJOBS, CW_RJ_SETTINGS, CW_RJ_MANAGERS };

extern const cw_reconciler_ops cw_recurringjob_reconciler;

#endif
