/* The Volume reconciler (`--controllers volume`): keeps Longhorn Volumes labelled for their
 * recurring jobs at runtime (longhorn/volctl.h) — the default group on a volume left without job
 * labels, and legacy spec.recurringJobs migrated as `cronwarden migrate` migrates them, for volumes
 * written while the webhook was not there; for a Longhorn it does not know it stands down
 * (controller/longhorn_watch.h). Informers, in the Longhorn namespace: Volumes (kept as identity,
 * job labels, spec.recurringJobs and spec.cloneMode), RecurringJobs and the longhorn-manager
 * DaemonSet (which Longhorn runs). Writes: RecurringJobs created,
 * then one merge patch of the volume carrying its resourceVersion (409: decide again on the newer
 * version); Events on the volume. */
#ifndef CW_VOLCTL_APPLY_H
#define CW_VOLCTL_APPLY_H

#include "controller/core/reconciler.h"
#include "controller/flags.h"
#include "longhorn/version.h"
#include "longhorn/volctl.h"

/* Its config: its flag's value (--name-scheme) and what config_init derives from it and the shared
 * --longhorn-namespace, --longhorn-version, --default-group, --max-retain. */
typedef struct cw_volume_config {
    cw_ctrl_policy_config base; /* home: Longhorn's namespace; the policy */
    cw_lh_identity longhorn;    /* --longhorn-version (source CW_LH_SOURCE_NONE: auto) */
    char *name_scheme;          /* --name-scheme, as decide.scheme */
    cw_volctl_config decide;    /* .policy points at base.policy; rj_api_version: per reconcile */
} cw_volume_config;

/* Informers, in this order. */
enum { CW_VOLUME_VOLUMES, CW_VOLUME_RECURRINGJOBS, CW_VOLUME_MANAGERS };

extern const cw_reconciler_ops cw_volume_reconciler;

#endif
