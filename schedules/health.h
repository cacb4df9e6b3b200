/* Schedule health (`cronwarden cron status`, the controller's schedule-health reconciler;
 * docs/status.md): did every scheduled backup run and succeed, and is every volume protected?
 * A pure model of objects and "now":
 *   - a schedule is a Longhorn RecurringJob (run by its CronJob, whose Jobs are the runs) or a
 *     Velero Schedule (whose Backups, labelled velero.io/schedule-name, are the runs);
 *   - runs are read into compact records (cw_health_run_from_job / _from_backup) and the JSON is
 *     not kept, so memory grows with runs, not with their objects;
 *   - cw_health_eval judges one schedule: its fire times (cron/ with CRON_TZ, as everywhere in
 *     cronwarden), the run each fire started, the ones missed and why, last success and failure,
 *     consecutive failures, the run in progress against the usual duration;
 *   - volumes: the backup jobs that apply to each (longhorn/volume's selectors), its last
 *     successful backup (backups.longhorn.io, backupvolumes.longhorn.io), unprotected and stale.
 * Two ways in: one schedule at a time (cw_health_sched_* + cw_health_eval: what a reconciler
 * holding its own caches calls per key), or the collector cw_health, fed any objects in any order
 * (add, replace, remove by kind/namespace/name) and evaluated whole or per schedule. */
#ifndef CW_HEALTH_H
#define CW_HEALTH_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cron/cron.h"
#include "cron/tz.h"
#include "lib/error.h"
#include "lib/strlist.h"
#include "lib/strmap.h"

#define CW_HEALTH_NONE           INT64_C(-1) /* a time or duration that is not known or not set */
#define CW_HEALTH_DEFAULT_WINDOW (24 * 3600)
#define CW_HEALTH_DEFAULT_RECENT 10           /* successes the usual duration is taken over */
#define CW_HEALTH_DEFAULT_TTL    (720 * 3600) /* Velero's --default-backup-ttl */
#define CW_HEALTH_UNCOUNTED      INT64_MIN    /* cw_health_count_missed: nothing counted yet */

typedef struct cw_health_config {
    int64_t now;               /* unix seconds */
    int64_t window;            /* fire times judged: (now - window, now]; 0: 24h */
    int64_t grace;             /* > 0: a fixed grace; 0: the rule (cw_health_grace) */
    int32_t zone_offset;       /* seconds east of UTC for crons without CRON_TZ= (0: UTC, what
                                  kube-controller-manager and Velero run in) */
    cw_tzdb *tzdb;             /* borrowed: CRON_TZ= prefixes and CronJob spec.timeZone */
    const char *default_group; /* "default"; "" disables the default group */
    size_t recent;             /* 0: CW_HEALTH_DEFAULT_RECENT */
    int64_t history_from;      /* CW_HEALTH_NONE, or: the caller saw every run started after this
                                  time (a reconciler that remembers Jobs Kubernetes deleted) */
} cw_health_config;

void cw_health_config_init(cw_health_config *c);

/* ---- runs ---- */

typedef enum {
    CW_HEALTH_OUTCOME_RUNNING, /* not finished: Job without Complete/Failed; Backup New, Queued, ...
                                */
    CW_HEALTH_OUTCOME_SUCCEEDED, /* Job Complete; Backup Completed */
    CW_HEALTH_OUTCOME_FAILED,    /* Job Failed; Backup Failed, PartiallyFailed, FailedValidation */
    CW_HEALTH_OUTCOME_OTHER, /* Backup Deleting or a phase this version does not know: started, but
                        its outcome is not counted */
} cw_health_outcome;

typedef struct cw_health_run {
    char *name;
    int64_t fire;     /* the scheduled time the run was made for: a CronJob's Job name or its
                         cronjob-scheduled-timestamp annotation; a Backup's name
                         "<schedule>-<YYYYMMDDhhmmss>" (cronwarden names the run, Velero the
                         submission); NONE for manual Jobs */
    int64_t created;  /* the run's time, when it was started: metadata.creationTimestamp, or the
                         start when that is earlier (a copy: Velero's backup sync), else the fire
                         time (docs/status.md, "The time of a run") */
    int64_t started;  /* Job status.startTime / Backup status.startTimestamp, else created */
    int64_t finished; /* NONE while running */
    cw_health_outcome outcome;
    int manual; /* kubectl create job --from=cronjob/... (not a scheduled run) */
    int blocks; /* OUTCOME_RUNNING in a phase that holds the next run back (every Job; Backup
                   New, Queued, ReadyToStart, InProgress); finished runs held it back
                   from creation to finish */
    int64_t failed_pods; /* Job status.failed: attempts that failed before the outcome */
    char *reason;        /* FAILED: "BackoffLimitExceeded: Job has reached ..." /
                            "PartiallyFailed: 2 errors, 1 warning" */
    char *owner;         /* Job: its CronJob's name; Backup: the velero.io/schedule-name value */
} cw_health_run;

void cw_health_run_free(cw_health_run *r);
/* A batch/v1 Job: outcome from status.conditions (Complete, Failed; SuccessCriteriaMet and
 * FailureTarget as their final forms), else status.succeeded against spec.completions; owner
 * from the controller ownerReference of kind CronJob, else the recurring-job.longhorn.io label;
 * fire from the batch.kubernetes.io/cronjob-scheduled-timestamp annotation, else the name
 * "<cronjob>-<n>" (n minutes since the epoch, or seconds from Kubernetes' first CronJob
 * controller, before 1.21). CW_EINVAL naming the field when a time is not RFC 3339. */
int cw_health_run_from_job(json_object *job, cw_health_run *out, cw_error *err) CW_MUST_CHECK;
/* A velero.io/v1 Backup (docs/status.md has the phase table). */
int cw_health_run_from_backup(json_object *backup, cw_health_run *out, cw_error *err) CW_MUST_CHECK;

/* ---- one schedule ---- */

typedef enum { CW_HEALTH_RECURRINGJOB, CW_HEALTH_SCHEDULE } cw_health_kind;

/* What cw_health_eval needs of one schedule besides its runs. */
typedef struct cw_health_sched {
    cw_health_kind kind;
    char *namespace, *name;
    char *cron;            /* the expression in force: the CronJob's schedule when there is one */
    char *task;            /* RecurringJob spec.task; "velero-backup" */
    char *phase;           /* Velero status.phase ("FailedValidation" makes it invalid), or NULL */
    char *zone;            /* CronJob spec.timeZone, or NULL */
    int64_t created, ttl;  /* creationTimestamp; Velero spec.template.ttl (NONE: 720h) */
    int paused;            /* Velero spec.paused */
    int64_t last_skipped;  /* Velero status.lastSkipped */
    cw_strlist groups;     /* RecurringJob spec.groups */
    int has_cronjob;       /* RecurringJob: its CronJob was found */
    int suspended, forbid; /* CronJob spec.suspend, concurrencyPolicy Forbid (Velero: always) */
    int64_t cronjob_created, starting_deadline;
    int64_t last_schedule; /* CronJob status.lastScheduleTime; Velero status.lastBackup */
    long success_limit, failed_limit; /* CronJob history limits (defaults 3 and 1) */
} cw_health_sched;

void cw_health_sched_init(cw_health_sched *s);
void cw_health_sched_free(cw_health_sched *s);
/* Fill s from the object (its runs are left alone). CW_EINVAL naming the field. */
int cw_health_sched_from_recurringjob(cw_health_sched *s, json_object *rj,
                                      cw_error *err) CW_MUST_CHECK;
int cw_health_sched_set_cronjob(cw_health_sched *s, json_object *cronjob,
                                cw_error *err) CW_MUST_CHECK;
int cw_health_sched_from_schedule(cw_health_sched *s, json_object *schedule,
                                  cw_error *err) CW_MUST_CHECK;

typedef enum {
    CW_HEALTH_MISSED_LATE,            /* a run started, after the grace */
    CW_HEALTH_MISSED_PAUSED,          /* the Velero Schedule is paused (excused) */
    CW_HEALTH_MISSED_SKIPPED,         /* skipped on unpause: skipImmediately (excused) */
    CW_HEALTH_MISSED_SUSPENDED,       /* the CronJob is suspended */
    CW_HEALTH_MISSED_FORBID,          /* the previous run was still running */
    CW_HEALTH_MISSED_NO_CRONJOB,      /* the RecurringJob has no CronJob */
    CW_HEALTH_MISSED_CONTROLLER_DOWN, /* nothing held it back: the controller that starts runs did
                                         not */
} cw_health_reason;

typedef struct cw_health_missed {
    int64_t at; /* the fire time */
    cw_health_reason reason;
    int excused;  /* paused or skipped on unpause: shown, not a problem */
    char *detail; /* the sentence a person reads */
} cw_health_missed;

typedef enum {
    CW_HEALTH_STATE_OK,         /* the last finished run succeeded, nothing missed */
    CW_HEALTH_STATE_WAITING,    /* nothing due yet and no run */
    CW_HEALTH_STATE_RUNNING,    /* a run in progress, within its usual duration */
    CW_HEALTH_STATE_PAUSED,     /* a paused Velero Schedule */
    CW_HEALTH_STATE_MISSED,     /* a fire time in the window without a run (not excused) */
    CW_HEALTH_STATE_FAILING,    /* the last finished run failed */
    CW_HEALTH_STATE_STUCK,      /* a run far past its usual duration */
    CW_HEALTH_STATE_SUSPENDED,  /* a suspended CronJob (Longhorn never suspends its own) */
    CW_HEALTH_STATE_NO_CRONJOB, /* a RecurringJob without its CronJob */
    CW_HEALTH_STATE_INVALID, /* the cron does not parse, never fires, or Velero FailedValidation */
} cw_health_state;

typedef struct cw_health_result {
    cw_health_state state;
    char *cron; /* the expression judged (the CronJob's when there is one) */
    int healthy;
    char *error;            /* INVALID: why */
    int64_t interval;       /* seconds between the last two due fire times (or the next two) */
    int64_t last_due, next; /* the latest fire time <= now; the first > now (NONE while
                               paused, suspended or never) */
    int64_t judged_from;    /* fire times after this (window, creation) were judged... */
    int64_t judged_first, judged_to; /* the oldest and newest fire time judged */
    size_t judged;                   /* fire times judged (their grace has passed) */
    int64_t history_from; /* runs are complete from here on, before it they may be gone (Job
                             history limits, Backup TTL); NONE: complete */
    int64_t last_started; /* the newest run's time (cw_health_run.created) */
    int64_t success_at, success_seconds; /* last success: finished, finished - started */
    char *success_run;
    int64_t failure_at;
    char *failure_run, *failure_reason;
    size_t consecutive_failures; /* failed runs since the last success, newest first */
    cw_health_missed *missed;    /* judged fire times without a run on time, oldest first */
    size_t nmissed, missed_unexcused;
    size_t running;                         /* runs not finished */
    int64_t running_since, running_seconds; /* the oldest of them (started) */
    char *running_run;
    int64_t usual_seconds; /* p90 of the last `recent` successful runs' durations */
    int stuck;
    int64_t stuck_after; /* the running time from which a run is stuck */
} cw_health_result;

void cw_health_result_free(cw_health_result *r);
const char *cw_health_state_name(cw_health_state s);
const char *cw_health_reason_name(cw_health_reason r);

/* The grace of fire time `at` whose next fire time is `next`: 10 % of the interval, at least one
 * minute (Velero looks at its schedules once a minute; Kubernetes before 1.21 at CronJobs every
 * 10 s), at most an hour, never more than the interval; cfg->grace when set. */
int64_t cw_health_grace(const cw_health_config *cfg, int64_t at, int64_t next);

/* Judges one schedule with its runs (the Jobs of its CronJob, or the Backups labelled with it;
 * reordered: sorted by their time, cw_health_run.created) at cfg->now. CW_ENOMEM only: a cron that
 * does not parse or never fires is a result (INVALID), not an error. */
int cw_health_eval(const cw_health_config *cfg, const cw_health_sched *s, cw_health_run *runs,
                   size_t nruns, cw_health_result *out, cw_error *err) CW_MUST_CHECK;

/* For a counter of missed runs (the reconciler's cronwarden_schedule_missed_runs_total): how
 * many not-excused missed runs of r come after *counted, a fire time; *counted moves to the
 * newest judged fire time. On the first pass (*counted == CW_HEALTH_UNCOUNTED) only those after
 * the last success count: what came before it is resolved history, and a restarted controller
 * must not raise it again. */
size_t cw_health_count_missed(const cw_health_result *r, int64_t *counted);

/* ---- the collector ---- */

typedef struct cw_health_volume_result {
    const char *namespace, *name;
    const cw_strlist *jobs; /* the backup jobs that apply (shared by volumes with the same
                               labels); legacy ones as "legacy '<cron>'" */
    const cw_strlist *via;  /* per job: "label", "group <g>" (the default group too), "legacy" */
    int64_t last_backup;    /* NONE: never backed up */
    int64_t interval;       /* the shortest interval of the jobs (NONE: no job fires) */
    int unprotected, stale, never;
    int64_t created; /* the volume's creation: "since" for one never backed up */
} cw_health_volume_result;

typedef struct cw_health_ns_count {
    char *namespace;
    size_t volumes, unprotected, stale;
} cw_health_ns_count;

typedef struct cw_health_sched_result {
    cw_health_sched *sched;
    cw_health_result result;
} cw_health_sched_result;

typedef struct cw_health {
    cw_health_config cfg;
    cw_strmap scheds;   /* "R/<ns>/<name>", "S/<ns>/<name>" -> cw_health_sched * (no runs) */
    cw_strmap cronjobs; /* "<ns>/<recurring job>" -> cronjob record */
    cw_strmap runs;     /* "J/<ns>/<cronjob>", "B/<ns>/<label value>" -> run group */
    cw_strmap run_of;   /* "J/<ns>/<job>", "B/<ns>/<backup>" -> the group's key (strdup) */
    cw_strmap labels;   /* "<ns>/<label value>" -> name (strdup), of a Schedule whose
                           velero.io/schedule-name value is not its name (a long one, hashed) */
    cw_strmap volumes;  /* "<ns>/<name>" -> volume record */
    cw_strmap backups;  /* "L/<ns>/<backup>", "V/<ns>/<backupvolume>" -> backup record */
    cw_strmap sigs;     /* interned selector signatures, counted */
    cw_strmap sigcache; /* per cw_health_eval_all: "<ns>\n<signature>" -> the jobs it selects */
    size_t ignored;     /* objects of kinds the model does not read */
    /* results of cw_health_eval_all */
    cw_health_sched_result *results;
    size_t nresults;
    cw_health_volume_result *vols;
    size_t nvols;
    cw_health_ns_count *counts;
    size_t ncounts;
    size_t unhealthy, unprotected, stale;
} cw_health;

int cw_health_init(cw_health *h, const cw_health_config *cfg, cw_error *err) CW_MUST_CHECK;
void cw_health_free(cw_health *h);
/* Takes one object (borrowed): RecurringJob, CronJob, Job, Volume, Backup and BackupVolume of
 * longhorn.io; Schedule and Backup of velero.io; other kinds are counted and ignored. The same
 * kind, namespace and name again replaces what was read. CW_EINVAL naming source and field for
 * an object of a known kind with fields of the wrong type. */
int cw_health_add(cw_health *h, json_object *obj, const char *source, cw_error *err) CW_MUST_CHECK;
/* Member paths no object the model takes is read at: a Job's Pod template spec and a CronJob's
 * whole job template (most of a Job's bytes). A reader may hand them over as null without
 * building them (cron status from files: cw_cmd_feed_files). NULL-terminated. */
extern const char *const cw_health_unread[];
/* Forgets an object (a watch's DELETED): kind as in the object ("Job", "Backup", ...), api its
 * group ("batch", "velero.io", "longhorn.io"). Unknown objects are no-ops. */
void cw_health_remove(cw_health *h, const char *api, const char *kind, const char *ns,
                      const char *name);
/* Judges one schedule (kind RecurringJob or Schedule) with its CronJob and runs as collected, at
 * now (unix seconds; the collector's clock from then on). CW_ENOTFOUND when it was not added. */
int cw_health_eval_one(cw_health *h, cw_health_kind kind, const char *ns, const char *name,
                       int64_t now, cw_health_result *out, cw_error *err) CW_MUST_CHECK;
/* Whose run a collected Job or Velero Backup is: its CronJob's name (a RecurringJob's CronJob has
 * the RecurringJob's name), or the name of the Schedule whose velero.io/schedule-name value the
 * Backup carries (that value itself when no collected Schedule has it), into out. 0 when the run
 * was not collected or belongs to no schedule. */
typedef enum { CW_HEALTH_RUN_JOB, CW_HEALTH_RUN_BACKUP } cw_health_run_kind;
int cw_health_run_owner(const cw_health *h, cw_health_run_kind kind, const char *ns,
                        const char *name, char *out, size_t len);
/* Judges everything: results (sorted by kind, namespace, name), volumes (sorted by namespace,
 * name; with_volumes 0 keeps only the counts), per-namespace counts. Replaces earlier results. */
int cw_health_eval_all(cw_health *h, int with_volumes, cw_error *err) CW_MUST_CHECK;
/* The per-namespace counts alone (a reconciler's gauges) at now (unix seconds; the collector's
 * clock from then on), into counts (caller frees with cw_health_counts_free). */
int cw_health_volume_counts(cw_health *h, int64_t now, cw_health_ns_count **counts, size_t *n,
                            cw_error *err) CW_MUST_CHECK;
void cw_health_counts_free(cw_health_ns_count *counts, size_t n);

/* For sentences and reports: "37m", "2h5m", "3d4h", a duration in its largest two units; a time
 * in RFC 3339, UTC ("-" for CW_HEALTH_NONE). */
void cw_health_duration(int64_t seconds, char *out, size_t len);
void cw_health_time_str(int64_t t, char *out, size_t len);

#endif
