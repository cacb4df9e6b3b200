/* The load picture of every schedule in a cluster (`cronwarden cron audit`, docs/audit.md): a pure
 * model fed with objects one at a time (RecurringJobs, Volumes, StorageClasses, Velero
 * Schedules; from manifests or a live cluster — the caller reads them), then run over a window
 * of time in steps:
 *   - a RecurringJob fires at its cron's times and starts its selected volumes' operations
 *     `concurrency` at a time, each taking the task's assumed duration (Longhorn's recurring-job
 *     runner); its CronJob has concurrencyPolicy Forbid, so a fire while the previous run is
 *     still going is skipped (a self-overlap finding);
 *   - a volume is selected by its job label, by a group label of one of the job's groups, or,
 *     with no job or group label at all, by the `default` group (longhorn/volume's rule);
 *   - legacy spec.recurringJobs (Longhorn < 1.2) are one CronJob per volume and job: equal
 *     (task, cron) pairs fire together, one volume each;
 *   - a Velero Schedule (not paused) starts one backup per fire.
 * Objects with the same kind, namespace and name replace earlier ones (as kubectl apply would),
 * so a patch file audited after the manifests it patches shows the patched cluster. */
#ifndef CW_AUDIT_H
#define CW_AUDIT_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cron/cron.h"
#include "cron/tz.h"
#include "lib/error.h"
#include "lib/strlist.h"
#include "lib/strmap.h"

typedef enum {
    CW_AUDIT_RECURRINGJOB, /* longhorn.io RecurringJob */
    CW_AUDIT_LEGACY,       /* legacy volume jobs of one (task, cron) */
    CW_AUDIT_SCHEDULE,     /* velero.io Schedule */
} cw_audit_kind;

/* Assumed seconds one operation takes, per task ("snapshot", "backup", ..., "velero-backup"). */
typedef struct cw_audit_duration {
    char *task;
    int64_t seconds;
} cw_audit_duration;

typedef struct cw_audit_config {
    int64_t from;                 /* window start, unix seconds */
    int32_t display_offset;       /* seconds east of UTC for printed times and days */
    int64_t window;               /* seconds; default 168h */
    int64_t step;                 /* seconds; default 60 */
    long max_starts;              /* -1: not given */
    cw_tzdb *tzdb;                /* borrowed: zone prefixes */
    const char *default_group;    /* "default"; "" disables the default group */
    cw_audit_duration *durations; /* borrowed; NULL-task-terminated overrides */
    size_t peaks;                 /* how many peak steps to report; default 10 */
} cw_audit_config;

/* One thing that fires. */
typedef struct cw_audit_job {
    cw_audit_kind kind;
    char *namespace, *name; /* the object (legacy: the first volume's namespace, "<task> <cron>") */
    char *source;           /* where it was read ("file: document 2, items[3]", "live") */
    json_object *object;    /* the object as read (RecurringJob, Schedule); NULL for legacy */
    char *task, *cron;
    cw_cron parsed;
    int valid;
    char *error;        /* robfig's message when the cron does not parse */
    cw_strlist groups;  /* RecurringJob spec.groups */
    long concurrency;   /* volume operations at a time */
    size_t volumes;     /* what one run processes */
    int64_t duration;   /* seconds per operation */
    int64_t step_phase; /* set by the suggester: the minute shift it chose (0: none) */
    /* results of cw_audit_run */
    size_t fires, skipped, starts;
    int64_t run_seconds, min_interval; /* one run's length; the shortest gap between fires */
    int64_t first_fire;                /* -1: none in the window */
    int never;                         /* no fire time at all within robfig's horizon */
} cw_audit_job;

typedef struct cw_audit_finding {
    char *kind;    /* "self-overlap", "dst-skipped", "dst-repeated", "never", "invalid",
                      "no-volumes", "over-max" */
    char *job;     /* display name of the job, or "" */
    int64_t at;    /* a time it concerns, or -1 */
    char *message; /* the sentence a person reads */
} cw_audit_finding;

typedef struct cw_audit_peak {
    int64_t at;       /* step start */
    uint64_t starts;  /* operations started in the step */
    uint64_t running; /* operations in progress during the step */
    cw_strlist jobs;  /* "<job>: <starts>", largest first */
} cw_audit_peak;

/* A new cron for a job that makes the peaks (cw_audit_suggest). */
typedef struct cw_audit_suggestion {
    size_t job; /* index into jobs */
    int shift;  /* minutes, within the hour */
    char *cron; /* the new expression */
} cw_audit_suggestion;

typedef struct cw_audit_storageclass {
    char *name;
    cw_strlist selectors; /* "job:<name>" / "group:<name>": what new volumes of the class join */
} cw_audit_storageclass;

typedef struct cw_audit {
    cw_audit_config cfg;
    cw_audit_job *jobs;
    size_t njobs, capjobs;
    cw_strmap job_index; /* "<kind>/<ns>/<name>" -> index + 1 */
    /* volumes, by the set of selectors they carry ("j:<job>\n", "g:<group>\n", sorted): how
     * many volumes carry each set. */
    cw_strmap volume_sets; /* signature -> count */
    cw_strmap volume_of;   /* "<ns>/<name>" -> strdup'ed signature */
    cw_strmap legacy_of;   /* "<ns>/<name>" -> strdup'ed "<task>\n<cron>\n..." legacy list */
    size_t volumes;
    cw_audit_storageclass *classes;
    size_t nclasses, capclasses;
    size_t skipped_objects, paused_schedules;
    /* results */
    size_t nbins;
    uint64_t *starts, *running;
    cw_strlist tasks;      /* every task of a valid job, sorted ("backup", ..., "velero-backup") */
    uint64_t *task_starts; /* tasks.len rows of nbins: starts by task */
    cw_audit_peak *peaks;
    size_t npeaks;
    cw_audit_finding *findings;
    size_t nfindings, capfindings;
    uint64_t max_starts_seen, max_running_seen;
    /* cw_audit_suggest */
    cw_audit_suggestion *suggestions;
    size_t nsuggestions;
    int suggested;
    uint64_t target, peak_after;
} cw_audit;

void cw_audit_config_init(cw_audit_config *c);
int cw_audit_init(cw_audit *a, const cw_audit_config *cfg, cw_error *err) CW_MUST_CHECK;
void cw_audit_free(cw_audit *a);

/* Takes one object (borrowed); kinds the audit does not read are counted and ignored. source
 * names where it came from. CW_EINVAL with a message naming source for an object of a known kind
 * whose fields have the wrong types. */
int cw_audit_add(cw_audit *a, json_object *obj, const char *source, cw_error *err) CW_MUST_CHECK;

/* Resolves the selections, then simulates the window: bins, per-job figures, peaks, findings. */
int cw_audit_run(cw_audit *a, cw_error *err) CW_MUST_CHECK;

/* After cw_audit_run: new crons for the jobs that make the peaks (RecurringJobs and Schedules
 * whose minute field can move), each keeping its frequency, hour and days and moving its minutes
 * by the same amount within the hour, chosen greedily, biggest jobs first, so that the most
 * starts in a step falls to target (0: as low as it goes). Among equally good minutes a job
 * keeps its own, else takes the first in an order given by a stable hash of its name (as
 * Jenkins' H), so reruns suggest the same. The audit's own figures stay those of the input;
 * peak_after is the busiest step with the suggestions applied. */
int cw_audit_suggest(cw_audit *a, uint64_t target, cw_error *err) CW_MUST_CHECK;
/* The changed objects: for manifests, each RecurringJob/Schedule as read with its new cron
 * (YAML documents for kubectl apply); live, one `kubectl patch --type merge` line each. */
int cw_audit_write_patch(const cw_audit *a, int live, FILE *f, cw_error *err) CW_MUST_CHECK;

/* The seconds one operation of task takes (the overrides, else snapshot-like 1m, backup 10m). */
int64_t cw_audit_task_duration(const cw_audit_config *cfg, const char *task);
/* "recurringjob longhorn-system/snap", "legacy snapshot '0 2 * * *' (3 volumes)",
 * "schedule velero/nightly" into out. */
void cw_audit_job_label(const cw_audit_job *j, char *out, size_t len);

/* Reports (audit/render_*.c). Each writes to f; CW_EIO when writing fails. */
int cw_audit_render_text(const cw_audit *a, FILE *f, cw_error *err) CW_MUST_CHECK;
int cw_audit_render_json(const cw_audit *a, FILE *f, cw_error *err) CW_MUST_CHECK;
int cw_audit_render_svg(const cw_audit *a, FILE *f, cw_error *err) CW_MUST_CHECK;

#endif
