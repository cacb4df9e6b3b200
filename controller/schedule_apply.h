/* The Velero Schedule reconciler (`--controllers schedule`): Schedules, and Backups labelled with
 * velero.io/schedule-name (kept as name + phase only), in Velero's namespace (--namespace). Each
 * reconcile decides with cw_schedctl_decide, creates the run's Backup (409 on a Backup of this
 * schedule's run is success) and patches the Schedule's spec and status together (merge patch
 * conditional on resourceVersion: the CRD has no status subresource), then asks for the next
 * timer. docs/controller.md. */
#ifndef CW_SCHEDCTL_APPLY_H
#define CW_SCHEDCTL_APPLY_H

#include "controller/core/reconciler.h"
#include "controller/flags.h"
#include "velero/schedctl.h"

/* Its config: its flag's value (--schedule-skip-immediately) and what config_init derives from it
 * and the shared --namespace. */
typedef struct cw_schedule_config {
    cw_ctrl_policy_config base; /* home: Velero's namespace (--namespace; "": every one) */
    int skip_immediately;       /* --schedule-skip-immediately, as base.policy's */
    cw_schedctl_config decide;  /* .policy points at base.policy */
} cw_schedule_config;

/* Informers, in this order. */
enum { CW_SCHEDULE_SCHEDULES, CW_SCHEDULE_BACKUPS };

extern const cw_reconciler_ops cw_schedule_reconciler;

#endif
