/* Legacy Longhorn recurring jobs as the RecurringJobs they become. A set holds one job per
 * distinct (task, retain, cron, labels) tuple of the legacy lists it is asked about, named by the
 * chosen scheme (defaults/names.h) and judged by the RecurringJob rules (longhorn/recurringjob.h);
 * resolving it decides each job against the RecurringJobs already there (reused, or a conflict)
 * and against the other jobs (two tuples, one name). The migration planner keeps one set for the
 * whole cluster, the one-volume decision (longhorn/volplan.h) one for a volume. Pure. */
#ifndef CW_LEGACYJOB_H
#define CW_LEGACYJOB_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "longhorn/names.h"
#include "defaults/policy.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/strmap.h"
#include "longhorn/legacy.h"

/* What a migration decides for each object (the planner's reports name them). */
typedef enum {
    CW_ACT_NONE = 0, /* nothing to do (already migrated, or unrelated) */
    CW_ACT_CREATE,   /* RecurringJob to create */
    CW_ACT_EXISTS,   /* RecurringJob already there with the same spec */
    CW_ACT_MIGRATE,  /* Volume / StorageClass / ConfigMap to rewrite */
    CW_ACT_DELETE,   /* legacy CronJob to delete */
    CW_ACT_KEEP,     /* legacy CronJob kept (its volume is not migrated, or unknown) */
    CW_ACT_INVALID,  /* left untouched: a legacy job is invalid */
    CW_ACT_CONFLICT, /* left untouched: a RecurringJob name conflict */
    CW_ACT_UNUSED,   /* RecurringJob only wanted by objects that cannot be migrated */
} cw_lh_action;

typedef struct cw_lhjob {
    char name[CW_NAMES_MAX + 1];
    char *task, *cron;
    int64_t retain;
    json_object *labels; /* owned; NULL when the legacy job had none */
    char *labels_json;   /* Go encoding used for the name */
    char *invalid;       /* why the job cannot become a RecurringJob, or NULL */
    cw_lh_action action; /* after cw_lhjobs_resolve: CREATE, EXISTS, INVALID or CONFLICT */
    char *reason;        /* conflict reason (or the owner's, e.g. the planner's "unused") */
} cw_lhjob;

typedef struct cw_lhjobs_config {
    cw_names_scheme scheme;
    const char *namespace;          /* Longhorn's: where the RecurringJobs are */
    const cw_policy_config *policy; /* max retain */
    const char *rj_api_version;     /* NULL: the newest longhorn.io version seen */
} cw_lhjobs_config;

typedef struct cw_lhjobs {
    cw_lhjobs_config cfg;
    char *rj_api_version; /* what the jobs are created as; NULL until one is known */
    int version_fixed;    /* cfg.rj_api_version or cw_lhjobs_set_version: versions seen ignored */
    /* The jobs: len records of esize bytes, each beginning with its cw_lhjob (an owner keeps its
     * own per-job data after it). */
    void *items;
    size_t esize, len, cap;
    cw_strmap index;       /* tuple key -> job */
    json_object *existing; /* name -> the spec of a RecurringJob of cfg.namespace there is */
} cw_lhjobs;

/* esize: sizeof a record that begins with a cw_lhjob (sizeof(cw_lhjob) for none). */
int cw_lhjobs_init(cw_lhjobs *t, const cw_lhjobs_config *cfg, size_t esize,
                   cw_error *err) CW_MUST_CHECK;
void cw_lhjobs_free(cw_lhjobs *t);

static inline cw_lhjob *cw_lhjobs_at(const cw_lhjobs *t, size_t i)
{
    return (cw_lhjob *)((char *)t->items + i * t->esize);
}

/* A longhorn.io apiVersion seen (a Volume's, a RecurringJob's): the newest is what jobs are
 * created as, unless the version is fixed. CW_ENOMEM. */
int cw_lhjobs_version_seen(cw_lhjobs *t, const char *api_version);
/* The version jobs are created as, from now on, whatever is seen. CW_ENOMEM. */
int cw_lhjobs_set_version(cw_lhjobs *t, const char *api_version);

/* A RecurringJob there is (apiVersion av): its spec is what a job of its name is compared with.
 * One of another namespace is ignored; CW_EINVAL naming the field of a malformed one. */
int cw_lhjobs_add_existing(cw_lhjobs *t, json_object *rj, const char *av,
                           cw_error *err) CW_MUST_CHECK;

/* The job of a legacy job's tuple into *idx; when it is new and `insert`, added (named and
 * judged), else *idx = -1. CW_EINVAL when its labels cannot be encoded, CW_ENOMEM. */
int cw_lhjobs_find(cw_lhjobs *t, const cw_legacy_job *lj, int insert, long *idx,
                   cw_error *err) CW_MUST_CHECK;

/* Every job's action: invalid, a name two jobs share, created, or an existing RecurringJob with
 * the same spec (reused) or another one (a conflict). Once, after the last find that inserts. */
int cw_lhjobs_resolve(cw_lhjobs *t, cw_error *err) CW_MUST_CHECK;

/* The RecurringJob object to create for job i (apiVersion, metadata, spec). Caller owns it. */
int cw_lhjobs_object(const cw_lhjobs *t, size_t i, json_object **out, cw_error *err) CW_MUST_CHECK;

/* 1 when an existing RecurringJob spec has j's task, cron, retain and labels; otherwise 0 and
 * the differences appended to diff ("cron \"x\" (want \"y\")"). */
int cw_lhjob_matches(const cw_lhjob *j, json_object *spec, cw_buf *diff);

#endif
