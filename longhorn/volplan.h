/* One volume's migration: its legacy spec.recurringJobs into RecurringJobs (a set of
 * longhorn/legacyjob.h) and job labels. The migration planner decides every volume with these
 * functions over the set of the whole cluster (cw_volplan_read as it is fed, cw_volplan_finish
 * once the set is resolved); the Volume reconciler decides one with cw_volplan_decide, against
 * the RecurringJobs there are. The planner reads the legacy jobs of a StorageClass into the same
 * record (cw_volplan_refer, cw_volplan_verdict). Pure. */
#ifndef CW_VOLPLAN_H
#define CW_VOLPLAN_H

#include <json-c/json.h>
#include <stddef.h>

#include "lib/error.h"
#include "lib/strlist.h"
#include "longhorn/legacy.h"
#include "longhorn/legacyjob.h"

/* A legacy-job reference of the object. */
typedef struct cw_volplan_ref {
    size_t job;        /* index into the set */
    char *legacy_name; /* the legacy job's own name */
} cw_volplan_ref;

/* What an object holding legacy jobs refers to and what is decided for it. */
typedef struct cw_volplan {
    cw_volplan_ref *refs; /* distinct jobs */
    size_t nrefs;
    cw_strlist problems;   /* invalid jobs: "spec.recurringJobs[1] (weekly): spec.cron: ..." */
    cw_strlist present;    /* job/group label keys already "enabled" (a StorageClass: selector) */
    int has_legacy;        /* the legacy field is present (even empty) */
    int any_job_label;     /* a recurring-job(-group) label key exists */
    cw_lh_action action;   /* after the verdict: NONE, INVALID, CONFLICT or MIGRATE */
    char *reason;          /* INVALID, CONFLICT */
    cw_strlist add_labels; /* after cw_volplan_finish: label keys to set to "enabled" */
} cw_volplan;

void cw_volplan_init(cw_volplan *v);
void cw_volplan_free(cw_volplan *v);

/* A volume's legacy jobs, found (or, `insert`, added) in t, and its job labels. CW_EINVAL naming
 * the field of a malformed volume or job; CW_ENOMEM. */
int cw_volplan_read(cw_lhjobs *t, json_object *vol, int insert, cw_volplan *v,
                    cw_error *err) CW_MUST_CHECK;
/* The decoded legacy jobs found at `field` ("spec.recurringJobs") into v's references; a job
 * that is invalid, or not in t when not `insert`, is a problem of v. */
int cw_volplan_refer(cw_lhjobs *t, const cw_legacy_jobs *lj, const char *field, int insert,
                     cw_volplan *v, cw_error *err) CW_MUST_CHECK;
/* After cw_lhjobs_resolve: NONE (no legacy field), INVALID (problems), CONFLICT (a job in
 * conflict) or MIGRATE. CW_ENOMEM. */
int cw_volplan_verdict(const cw_lhjobs *t, cw_volplan *v);
/* The verdict and, MIGRATE, the labels to add: each job's, or the default `group` (NULL or "":
 * none) for a volume left with no job or group label at all. CW_ENOMEM. */
int cw_volplan_finish(const cw_lhjobs *t, cw_volplan *v, const char *group);

/* The merge patch of a migrated volume: its new job labels, spec.recurringJobs removed,
 * metadata.resourceVersion so that it answers 409 when the volume moved on. NULL: no memory. */
json_object *cw_volplan_merge_patch(const char *resource_version, const cw_strlist *add_labels);

typedef struct cw_volplan_config {
    cw_names_scheme scheme;         /* names of migrated jobs */
    const char *namespace;          /* Longhorn's: where the RecurringJobs are */
    const cw_policy_config *policy; /* max retain; default_group ("" or NULL: none) */
    const char *rj_api_version;     /* RecurringJobs to create (NULL: the newest seen, v1beta1) */
} cw_volplan_config;

typedef struct cw_volplan_result {
    cw_lh_action action; /* NONE (no legacy jobs), MIGRATE, INVALID or CONFLICT */
    json_object *jobs;   /* MIGRATE: the RecurringJobs to create first (array, may be empty) */
    json_object *patch;  /* MIGRATE: the volume's merge patch (cw_volplan_merge_patch) */
    cw_strlist labels;   /* MIGRATE: the label keys the patch sets */
    cw_strlist problems; /* INVALID, CONFLICT: why, as the migrate report says it */
} cw_volplan_result;

void cw_volplan_result_init(cw_volplan_result *r);
void cw_volplan_result_free(cw_volplan_result *r);
/* One volume decided exactly as the planner of the cluster decides it (names by cfg->scheme,
 * RecurringJobs there reused, name conflicts and invalid jobs refused). vol: metadata (name,
 * namespace, resourceVersion, labels) and spec.recurringJobs; rjs: a JSON array of the
 * RecurringJobs of cfg->namespace (NULL: none). CW_EINVAL naming the field of a malformed volume
 * or job; CW_ENOMEM. */
int cw_volplan_decide(const cw_volplan_config *cfg, json_object *vol, json_object *rjs,
                      cw_volplan_result *out, cw_error *err) CW_MUST_CHECK;

#endif
