/* The kinds of object the schedule readers read — `cron audit` (audit/), `cron status` (health/)
 * and the schedule-health reconciler (controller/schedulehealth_apply) — one row each: its kind,
 * API group and resource, where it lives, the label a reader selects it by, and who reads it.
 * A reader finds an object's row by its apiVersion and kind and dispatches on the row's id; the
 * live readers LIST the rows they read, in the table's order. */
#ifndef CW_KINDS_H
#define CW_KINDS_H

typedef enum {
    CW_KIND_RECURRINGJOB, /* longhorn.io RecurringJob */
    CW_KIND_CRONJOB,      /* batch CronJob (a RecurringJob's) */
    CW_KIND_JOB,          /* batch Job (a RecurringJob's run) */
    CW_KIND_VOLUME,       /* longhorn.io Volume */
    CW_KIND_BACKUPVOLUME, /* longhorn.io BackupVolume */
    CW_KIND_LHBACKUP,     /* longhorn.io Backup */
    CW_KIND_STORAGECLASS, /* storage.k8s.io StorageClass */
    CW_KIND_SCHEDULE,     /* velero.io Schedule */
    CW_KIND_BACKUP,       /* velero.io Backup (a Schedule's run) */
    CW_KIND_COUNT
} cw_kind_id;

/* Who reads a kind (cw_kind.readers). */
enum { CW_READ_AUDIT = 1, CW_READ_STATUS = 2, CW_READ_SCHEDHEALTH = 4 };

/* Where a kind lives: the reader's namespace (Longhorn's, --namespace), Velero's
 * (--velero-namespace), or the cluster (no namespace). */
typedef enum { CW_KIND_HOME, CW_KIND_VELERO, CW_KIND_CLUSTER } cw_kind_where;

typedef struct cw_kind {
    cw_kind_id id;
    const char *kind, *group, *resource;
    cw_kind_where where;
    const char *selector; /* the label a reader LISTs it by (a Schedule's Backups), or NULL */
    unsigned readers;     /* CW_READ_* */
} cw_kind;

/* Indexed by cw_kind_id. */
extern const cw_kind cw_kinds[CW_KIND_COUNT];

/* The row of an object of api_version ("<group>/<version>") and kind read by reader (a CW_READ_*),
 * or NULL: another kind, another group, a core/v1 object, a NULL argument, or one reader does not
 * read. */
const cw_kind *cw_kind_of(const char *api_version, const char *kind, unsigned reader);
/* The same by API group ("longhorn.io", "batch", ...) rather than apiVersion. */
const cw_kind *cw_kind_of_group(const char *group, const char *kind, unsigned reader);

#endif
