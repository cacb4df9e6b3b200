/* The Volume reconciler (`--controllers volume`): keeps Longhorn Volumes labelled for their
 * recurring jobs at runtime (controller/volume.h) — the default group on a volume left without job
 * labels, and legacy spec.recurringJobs migrated as `cronwarden migrate` migrates them, for volumes
 * written while the webhook was not there. Informers, in the Longhorn namespace: Volumes (kept as
 * identity, job labels and spec.recurringJobs) and RecurringJobs. Writes: RecurringJobs created,
 * then one merge patch of the volume carrying its resourceVersion (409: decide again on the newer
 * version); Events on the volume. */
#ifndef CW_VOLCTL_APPLY_H
#define CW_VOLCTL_APPLY_H

#include "controller/core/reconciler.h"
#include "controller/flags.h"
#include "controller/volume.h"

/* Its config (config_init from --longhorn-namespace, --default-group, --name-scheme,
 * --max-retain). */
typedef struct cw_volume_config {
    cw_ctrl_policy_config base; /* home: Longhorn's namespace; the policy */
    cw_volctl_config decide;    /* .policy points at base.policy; rj_api_version: per reconcile */
} cw_volume_config;

/* Informers, in this order. */
enum { CW_VOLUME_VOLUMES, CW_VOLUME_RECURRINGJOBS };

extern const cw_reconciler_ops cw_volume_reconciler;

#endif
