/* The Volume reconciler (`--controllers volume`): keeps Longhorn Volumes labelled for their
 * recurring jobs at runtime (controller/volume.h) — the default group on a volume left without job
 * labels, and legacy spec.recurringJobs migrated as `cronwarden migrate` migrates them, for volumes
 * written while the webhook was not there. Informers, in the Longhorn namespace: Volumes (kept as
 * identity, job labels and spec.recurringJobs) and RecurringJobs. Writes: RecurringJobs created,
 * then one merge patch of the volume carrying its resourceVersion (409: decide again on the newer
 * version); Events on the volume. */
#ifndef CW_VOLCTL_APPLY_H
#define CW_VOLCTL_APPLY_H

#include "controller/core/events.h"
#include "controller/core/informer.h"
#include "controller/core/reconciler.h"
#include "controller/volume.h"

typedef struct cw_volctl {
    cw_kube_client *kube; /* borrowed */
    cw_queue *queue;      /* borrowed */
    cw_volctl_config cfg;
    char namespace[256], vol_version[32], rj_version[32], rj_api_version[48], vol_api_version[48];
    cw_informer volumes, rjs;
    int ninformers;
    cw_ctrl_events events;
    cw_metric *m_writes; /* cronwarden_controller_volume_writes_total{verb,result} */
} cw_volctl;

int cw_volctl_reconcile(void *ud, const char *key, cw_ctrl_result *res,
                        cw_error *err) CW_MUST_CHECK;

extern const cw_reconciler_ops cw_volume_reconciler;

#endif
