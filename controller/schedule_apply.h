/* The Velero Schedule reconciler: its two informers (Schedules, and Backups labelled with
 * velero.io/schedule-name, kept as name + phase only) and the thin I/O shell around
 * cw_schedctl_decide: read both caches, decide, create the Backup (409 on a Backup of this
 * schedule's run is success), patch the Schedule's spec and status together (merge patch
 * conditional on resourceVersion: the CRD has no status subresource), ask for the next timer. */
#ifndef CW_SCHEDCTL_APPLY_H
#define CW_SCHEDCTL_APPLY_H

#include "controller/core/informer.h"
#include "controller/core/queue.h"
#include "controller/core/reconciler.h"
#include "controller/schedule.h"
#include "controller/core/workers.h"
#include "kube/client.h"
#include "lib/metrics.h"

typedef struct cw_schedctl_opts {
    cw_kube_client *kube;      /* borrowed */
    const char *namespace;     /* NULL or "": every namespace */
    cw_queue *queue;           /* borrowed: schedule keys go here */
    cw_schedctl_config decide; /* policy (borrowed), zone offset, blocked recheck */
    cw_metrics *metrics;       /* borrowed: the reconciler's families are registered here */
    const cw_informer_metrics *informer_metrics; /* may be NULL */
    long page_size;                              /* LIST page size; 0: 100 */
    cw_queue_clock_fn clock;                     /* wall-clock ms; NULL: CLOCK_REALTIME */
    void *clock_ud;
} cw_schedctl_opts;

typedef struct cw_schedctl {
    cw_schedctl_opts o;
    cw_informer schedules, backups;
    int schedules_ok, backups_ok;
    cw_metric *m_backups; /* cronwarden_controller_schedule_backups_total{result} */
    cw_metric *m_skips;   /* cronwarden_controller_schedule_skips_total */
    cw_metric *m_writes;  /* cronwarden_controller_schedule_writes_total{verb,result} */
} cw_schedctl;

int cw_schedctl_init(cw_schedctl *s, const cw_schedctl_opts *o, cw_error *err) CW_MUST_CHECK;
void cw_schedctl_free(cw_schedctl *s);
int cw_schedctl_start(cw_schedctl *s, cw_error *err) CW_MUST_CHECK;
void cw_schedctl_stop(cw_schedctl *s);
/* Both caches filled by their first LIST. */
int cw_schedctl_synced(cw_schedctl *s);
/* Adds every cached Schedule to the queue (a new leader term, the periodic resync). */
int cw_schedctl_enqueue_all(cw_schedctl *s);
/* The reconcile of one "namespace/name" key (a cw_ctrl_reconcile_fn; ud is the cw_schedctl). */
int cw_schedctl_reconcile(void *ud, const char *key, cw_ctrl_result *res,
                          cw_error *err) CW_MUST_CHECK;

/* The reconciler `--controllers schedule` runs (controller/reconcilers.c). */
extern const cw_reconciler_ops cw_schedule_reconciler;

#endif
