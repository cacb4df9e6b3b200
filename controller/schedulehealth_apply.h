/* The schedule-health reconciler (`--controllers schedule-health`, on by default: it only reads
 * and posts Events): the schedule-health model (schedules/health.h) fed by its informers, judged
 * per schedule on every change and on a timer (controller/schedulehealth.h), exported as the
 * metrics of docs/status.md with one Warning Event per missed or failed run on the schedule.
 * Informers: Longhorn's RecurringJobs, CronJobs, Jobs, Volumes, Backups and BackupVolumes in
 * --longhorn-namespace; Velero's Schedules and Backups (labelled with a schedule) in --namespace.
 * Longhorn's and Velero's resources are optional: a cluster without one has nothing of it to
 * report. Its informer rows are store-less (controller/core/reconciler.h): every object goes
 * whole into the model, which keeps compact records (memory grows with runs, not with their
 * objects); two more rows on the RecurringJob and Schedule informers cache the schedules'
 * identities (what their Events are about).
 * Keys: "RecurringJob/<ns>/<name>", "Schedule/<ns>/<name>" and "volumes" (the per-namespace volume
 * counts). */
#ifndef CW_SCHEDULEHEALTH_APPLY_H
#define CW_SCHEDULEHEALTH_APPLY_H

#include "controller/core/reconciler.h"
#include "controller/flags.h"
#include "schedules/health.h"

/* Its config: its flags' values (--schedule-health-window, --schedule-health-grace) and what
 * config_init derives from them and the shared --longhorn-namespace, --namespace,
 * --default-group. */
typedef struct cw_schedulehealth_config {
    cw_ctrl_policy_config base; /* home: Longhorn's namespace; aside: Velero's; the zones */
    double window, grace;       /* the flags, seconds: as health's */
    cw_health_config health;    /* the model's; now comes per reconcile, as an argument */
} cw_schedulehealth_config;

/* Informers, in this order. */
enum {
    CW_SH_RECURRINGJOBS,
    CW_SH_CRONJOBS,
    CW_SH_JOBS,
    CW_SH_VOLUMES,
    CW_SH_LHBACKUPS,
    CW_SH_BACKUPVOLUMES,
    CW_SH_SCHEDULES,
    CW_SH_BACKUPS,
    CW_SH_RJ_IDS, /* the RecurringJobs' identities (the same informer as CW_SH_RECURRINGJOBS) */
    CW_SH_SCHEDULE_IDS, /* the Schedules' identities (the same informer as CW_SH_SCHEDULES) */
};

#define CW_SH_VOLUMES_KEY "volumes"

extern const cw_reconciler_ops cw_schedulehealth_reconciler;

#endif
