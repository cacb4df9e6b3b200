/* The RecurringJob reconciler (`--controllers recurringjob`): Longhorn's runtime for its
 * RecurringJobs, a CronJob each, as Longhorn 1.2.6's manager makes them
 * (controller/recurringjob.h). Informers, all in the Longhorn namespace: RecurringJobs; CronJobs
 * labelled longhorn.io/managed-by=longhorn-manager and recurring-job.longhorn.io (kept as name,
 * labels, annotation); Settings (name and value); the longhorn-manager DaemonSet (its image). Work
 * keys are "<namespace>/<RecurringJob name>", also for a CronJob whose job is gone. Writes: create,
 * conditional update (GET + PUT with its resourceVersion), delete; a Warning Event on a
 * RecurringJob the policy refuses. */
#ifndef CW_RJCTL_APPLY_H
#define CW_RJCTL_APPLY_H

#include "controller/core/events.h"
#include "controller/core/informer.h"
#include "controller/core/reconciler.h"
#include "controller/recurringjob.h"

typedef struct cw_rjctl_opts {
    cw_kube_client *kube;                /* borrowed */
    const char *namespace;               /* Longhorn's namespace */
    cw_queue *queue;                     /* borrowed */
    const cw_policy_config *policy;      /* borrowed */
    const char *image;                   /* --job-image: used when no DaemonSet says otherwise */
    const char *service_account;         /* NULL: longhorn-service-account */
    const char *manager_url;             /* NULL: Longhorn's */
    const char *rj_version, *cj_version; /* served versions ("v1beta2", "v1beta1") */
    cw_metrics *metrics;                 /* borrowed; may be NULL */
    const cw_informer_metrics *informer_metrics;
    long page_size;
} cw_rjctl_opts;

typedef struct cw_rjctl {
    cw_rjctl_opts o;
    char rj_version[32], cj_version[32]; /* the opts' versions point here */
    char cj_api_version[48], rj_api_version[48];
    cw_informer rjs, cronjobs, settings, managers;
    int ninformers; /* initialised, in the order above */
    cw_ctrl_events events;
    cw_metric *m_writes; /* cronwarden_controller_recurringjob_writes_total{verb,result} */
} cw_rjctl;

int cw_rjctl_init(cw_rjctl *s, const cw_rjctl_opts *o, cw_error *err) CW_MUST_CHECK;
void cw_rjctl_free(cw_rjctl *s);
int cw_rjctl_reconcile(void *ud, const char *key, cw_ctrl_result *res, cw_error *err) CW_MUST_CHECK;

extern const cw_reconciler_ops cw_recurringjob_reconciler;

#endif
