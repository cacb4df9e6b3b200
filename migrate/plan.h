/* The migration planner: legacy Longhorn recurringJobs (Volume spec, StorageClass parameters, the
 * longhorn-storageclass ConfigMap) in, a deterministic plan out. Pure in its decisions: objects
 * in, decisions out. Objects are fed one at a time (cw_plan_add) so a 100k-volume export never has
 * to be in memory at once, and the items decided about go to the plan's item store
 * (migrate/itemstore: an unlinked file in $TMPDIR, a 24-byte entry each in memory), so neither
 * does the plan; cw_plan_finish resolves names, conflicts and final actions; the same decision
 * functions then rewrite objects for manifests (offline) or build API patches (online). */
#ifndef CW_PLAN_H
#define CW_PLAN_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "defaults/policy.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "longhorn/names.h"
#include "lib/strlist.h"
#include "lib/strmap.h"
#include "longhorn/legacy.h"
#include "longhorn/legacyjob.h"
#include "longhorn/volplan.h"
#include "migrate/itemstore.h"

typedef struct cw_plan_config {
    cw_names_scheme scheme;
    const char *namespace;          /* Longhorn namespace: RecurringJobs, ConfigMap, CronJobs */
    const cw_policy_config *policy; /* max retain, default group ("" or NULL: none) */
    int default_group;              /* 0: --no-default-group */
    const char *rj_api_version;     /* NULL: the newest longhorn.io version seen, else v1beta1 */
    /* Where the items go (migrate/itemstore): NULL for $TMPDIR or /tmp, "" for memory (plans of
     * a few objects). */
    const char *scratch_dir;
} cw_plan_config;

/* What the plan decides for each object (CW_ACT_*: longhorn/legacyjob.h). */
typedef cw_lh_action cw_plan_action;

const char *cw_plan_action_name(cw_plan_action a);

/* What happened to a planned action (online apply, offline write). */
typedef enum {
    CW_RES_PENDING = 0, /* nothing done: audit or --dry-run=client */
    CW_RES_DONE,        /* applied to the cluster or written to the output directory */
    CW_RES_DRYRUN,      /* accepted by the API server with dryRun=All */
    CW_RES_FAILED,      /* see result_msg; a rerun continues */
    CW_RES_SKIPPED,     /* the object vanished or changed; see result_msg */
} cw_plan_result;

const char *cw_plan_result_name(cw_plan_result r);

/* A job of the plan: the RecurringJob a legacy job becomes (its name, spec, action: CREATE,
 * EXISTS, INVALID, CONFLICT or, decided here, UNUSED) and what the plan knows of it besides. */
typedef struct cw_plan_job {
    cw_lhjob rj;      /* first: the plan's job set (longhorn/legacyjob.h) holds these records */
    size_t nsrcs;     /* items (volumes, storage classes, ConfigMap) that want the job */
    size_t src_start; /* after finish: where their sorted indices start in the sources region */
    cw_plan_result result;
    char *result_msg;
} cw_plan_job;

/* A legacy-job reference from a volume or storage class, for the report: job (an index into
 * the plan's jobs), legacy_name (the legacy job's own name). */
typedef cw_volplan_ref cw_plan_ref;

/* Decision for one object holding legacy jobs (Volume, StorageClass, ConfigMap). The plan keeps
 * its items encoded in its item store; this is one read from there (cw_plan_item_load) or made by
 * cw_plan_decide, owned by the caller. */
typedef struct cw_plan_item {
    const char *kind; /* "Volume", "StorageClass" or "ConfigMap": static */
    /* In `strings`, one allocation. */
    const char *namespace, *name, *resource_version, *api_version, *source;
    char *strings;
    cw_plan_ref *refs;
    size_t nrefs;
    cw_strlist problems; /* invalid jobs: "spec.recurringJobs[1] (weekly): spec.cron: ..." */
    cw_strlist present;  /* job/group label keys already "enabled" (volumes) or selector names */
    char *selector;      /* StorageClass: existing recurringJobSelector text or NULL */
    char *reason;
    cw_strlist add_labels; /* after finish: label keys to set to "enabled" (volumes) */
    char *new_selector;    /* after finish: StorageClass/ConfigMap selector value */
    char *result_msg;
    int has_legacy;    /* the legacy field is present (even empty) */
    int any_job_label; /* a recurring-job(-group) label key exists (volumes) */
    cw_plan_action action;
    cw_plan_result result;
} cw_plan_item;

typedef struct cw_plan_cronjob {
    char *namespace, *name, *volume, *api_version, *source;
    cw_plan_action action;
    char *reason;
    cw_plan_result result;
    char *result_msg;
} cw_plan_cronjob;

typedef struct cw_plan_error {
    char *object; /* "Volume longhorn-system/pvc-1" or "" */
    char *source; /* "file: document 2" or "" */
    char *message;
} cw_plan_error;

typedef struct cw_plan {
    cw_plan_config cfg;
    /* Every legacy job fed, as its RecurringJob (records: cw_plan_job, cw_plan_job_at); its
     * rj_api_version is what they are created as. */
    cw_lhjobs jobs;
    /* Volumes, storage classes and the ConfigMap, in input order, in a file: memory holds a few
     * bytes per item (cw_plan_item_load reads one). */
    cw_itemstore store;
    size_t nitems;
    int sorted;         /* order_off and srcs_off are filled (cw_plan_finish) */
    uint64_t order_off; /* item indices (uint32) by (kind, namespace, name) */
    uint64_t srcs_off;  /* per job, its sources' indices (uint32) in that order */
    cw_plan_cronjob *cronjobs;
    size_t ncronjobs, capcronjobs;
    cw_plan_error *errors;
    size_t nerrors, caperrors;
    size_t scanned_volumes, scanned_storageclasses;
    int finish_called; /* cw_plan_finish has run (successfully or not): it runs once */
    int finished;      /* ... and succeeded */
} cw_plan;

int cw_plan_init(cw_plan *p, const cw_plan_config *cfg, cw_error *err) CW_MUST_CHECK;
void cw_plan_free(cw_plan *p);

/* Job j (< p->jobs.len). */
cw_plan_job *cw_plan_job_at(const cw_plan *p, size_t j);

/* Feeds one object. Unrelated objects are ignored. A related object that is malformed (a field of
 * the wrong type, no name) fails with CW_EINVAL naming the field; the caller decides whether that
 * is fatal (offline) or recorded with cw_plan_record_error (online). `source` may be NULL. Only
 * before cw_plan_finish (after it: CW_EINVAL). */
int cw_plan_add(cw_plan *p, json_object *obj, const char *source, cw_error *err) CW_MUST_CHECK;
int cw_plan_record_error(cw_plan *p, const char *object, const char *source, const char *message);

/* Resolves names, existing RecurringJobs, conflicts and every object's final action. Once per
 * plan: a second call, like a cw_plan_add after the first, fails with CW_EINVAL and changes
 * nothing (the plan's decisions are its first finish's; a failed finish leaves a plan that can
 * only be freed). */
int cw_plan_finish(cw_plan *p, cw_error *err) CW_MUST_CHECK;

/* Index of a Volume/StorageClass/ConfigMap item, or -1. */
long cw_plan_find_item(const cw_plan *p, const char *kind, const char *ns, const char *name);

/* Item i (< p->nitems) read from the store into `it` (caller frees with cw_plan_item_free). */
int cw_plan_item_load(const cw_plan *p, size_t i, cw_plan_item *it, cw_error *err) CW_MUST_CHECK;
/* Writes `it` back as item i (its action and result too). */
int cw_plan_item_store(cw_plan *p, size_t i, const cw_plan_item *it, cw_error *err) CW_MUST_CHECK;
/* Item i's kind ("Volume", ...: static), action and result without reading it. */
const char *cw_plan_item_kind(const cw_plan *p, size_t i);
cw_plan_action cw_plan_item_action(const cw_plan *p, size_t i);
cw_plan_result cw_plan_item_result(const cw_plan *p, size_t i);
/* Records item i's result (message copied; NULL for none). */
int cw_plan_item_set_result(cw_plan *p, size_t i, cw_plan_result r, const char *msg,
                            cw_error *err) CW_MUST_CHECK;

/* The RecurringJob object to create for job j (apiVersion, metadata, spec). Caller owns it. */
int cw_plan_job_object(const cw_plan *p, size_t j, json_object **out, cw_error *err) CW_MUST_CHECK;

/* Re-decides a (re-read) object against the finished plan: fills `item` (caller frees with
 * cw_plan_item_free). Used after a 409 or when rewriting manifests. Objects holding legacy jobs
 * that the plan has never seen come back CW_ACT_CONFLICT with reason "changed since planning". */
int cw_plan_decide(const cw_plan *p, json_object *obj, cw_plan_item *item,
                   cw_error *err) CW_MUST_CHECK;
void cw_plan_item_free(cw_plan_item *item);

/* Applies a MIGRATE decision to an object in place (labels, legacy field, selector). */
int cw_plan_apply_item(const cw_plan_item *item, json_object *obj, cw_error *err) CW_MUST_CHECK;
/* RFC 6902 ops for a MIGRATE decision on a Volume, guarded by a test of resourceVersion. */
int cw_plan_volume_patch(const cw_plan_item *item, json_object *vol, json_object **ops,
                         cw_error *err) CW_MUST_CHECK;

/* The merge patch for a MIGRATE decision on a Volume: the new job labels, spec.recurringJobs
 * removed, metadata.resourceVersion so that it answers 409 when the volume moved on. NULL when out
 * of memory. */
json_object *cw_plan_volume_merge_patch(const cw_plan_item *item);

/* The RecurringJob apiVersion the plan creates ("longhorn.io/v1beta2"), e.g. from discovery. */
int cw_plan_set_rj_api_version(cw_plan *p, const char *api_version);
/* 1 when an existing RecurringJob spec has job j's task, cron, retain and labels; otherwise 0
 * and the differences appended to diff ("cron \"x\" (want \"y\")"). */
int cw_plan_job_matches(const cw_plan *p, size_t j, json_object *spec, cw_buf *diff);

/* Records a result (message copied; NULL for none). */
int cw_plan_set_result(cw_plan_result *slot, char **msg_slot, cw_plan_result r, const char *msg);

/* Sorted views for reports: indices ordered by (namespace, name) / job name. Caller frees; NULL
 * when out of memory. */
size_t *cw_plan_sorted_jobs(const cw_plan *p, size_t *n);
size_t *cw_plan_sorted_cronjobs(const cw_plan *p, size_t *n);
/* The `kind` items' indices in (namespace, name) order into *out (n of them; caller frees). They
 * are read from the item file: a read that fails returns its error (CW_EIO, "cannot read the
 * plan's item file in /tmp: Input/output error"), as does running out of memory (CW_ENOMEM); *out
 * is then NULL. */
int cw_plan_sorted_items(const cw_plan *p, const char *kind, size_t **out, size_t *n,
                         cw_error *err) CW_MUST_CHECK;
/* Job j's j->nsrcs sources (indices into items) in (kind, namespace, name) order, whatever order
 * the inputs came in, into *out (caller frees); errors as cw_plan_sorted_items. */
int cw_plan_sorted_sources(const cw_plan *p, const cw_plan_job *j, size_t **out,
                           cw_error *err) CW_MUST_CHECK;

#endif
