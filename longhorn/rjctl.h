/* The RecurringJob reconciler's decision: a pure function of one Longhorn RecurringJob (or its
 * absence), the CronJobs labelled for it and the configuration, returning what to write. The
 * CronJob is the one the cluster's Longhorn minor's manager makes (newCronJob in
 * controller/recurring_job_controller.go at that minor's tag; the per-minor table is
 * longhorn/version.h, the facts docs/compat.md), and its annotation
 * longhorn.io/last-applied-cronjob-spec is byte for byte Go's encoding/json of the spec as that
 * manager marshals it, so Longhorn's manager, which compares that annotation as a string, adopts
 * cronwarden's CronJobs without rewriting them. It refuses only what Longhorn's controller would
 * not turn into a CronJob that runs (cw_recurringjob_check_runnable): the webhook's other rules
 * are the webhook's; the job's name is its metadata.name (Longhorn 1.2's CRD prunes spec.name,
 * and no manager reads it).
 *
 *   no task or cron, a cron that does not parse -> nothing written (an existing CronJob keeps its
 *   (the API server would refuse the schedule),    last good schedule); a Warning Event
 *   or a task that Longhorn release lacks
 *     (parameters, concurrency, retain, labels, groups, spec.name, the name's length and a
 *     TZ=/CRON_TZ= prefix are not: Longhorn's controller writes the CronJob whatever they say,
 *     and so does this one; a CronJob the API server refuses is reported by the apply side)
 *   no CronJob labelled for it                  -> create
 *   its CronJob's annotation differs            -> update (spec, annotation, labels, owner)
 *   its CronJob's annotation is the desired one -> nothing (extra fields are not fought over)
 *   other CronJobs labelled for it (managed by longhorn-manager) -> delete them
 *   RecurringJob gone, CronJobs still labelled  -> delete them (GC does too, through the owner) */
#ifndef CW_RJCTL_H
#define CW_RJCTL_H

#include <json-c/json.h>

#include <stdint.h>

#include "longhorn/settings.h"
#include "longhorn/version.h"
#include "defaults/policy.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/strlist.h"

#define CW_RJCTL_LABEL            "recurring-job.longhorn.io"
#define CW_RJCTL_MANAGED_BY       "longhorn.io/managed-by"
#define CW_RJCTL_MANAGED_BY_VALUE "longhorn-manager"
#define CW_RJCTL_ANNOTATION       "longhorn.io/last-applied-cronjob-spec"
/* Longhorn 1.2.6: types.EngineBinaryDirectoryOnHost, types.GetDefaultManagerURL(). */
#define CW_RJCTL_ENGINE_BINARIES   "/var/lib/longhorn/engine-binaries/"
#define CW_RJCTL_MANAGER_URL       "http://longhorn-backend:9500/v1"
#define CW_RJCTL_SERVICE_ACCOUNT   "longhorn-service-account"
#define CW_RJCTL_MANAGER_DAEMONSET CW_LH_MANAGER_NAME

typedef struct cw_rjctl_config {
    const cw_policy_config *policy;  /* the webhook's rules */
    const char *image;               /* the longhorn-manager image the job runs */
    const char *service_account;     /* NULL: longhorn-service-account */
    const char *manager_url;         /* NULL: http://longhorn-backend:9500/v1 */
    json_object *tolerations;        /* cw_lh_parse_tolerations_as; NULL: none */
    json_object *node_selector;      /* cw_lh_parse_node_selector_as; NULL: none */
    const char *priority_class;      /* NULL or "": none */
    const char *cronjob_api_version; /* "batch/v1" or "batch/v1beta1" (discovery): the object's
                                        version; the spec's bytes are the profile's either way */
    const char *rj_api_version;      /* without a profile: the ownerReference's, when the cached
                                        object has none */
    /* The Longhorn minor to write as (cw_lh_decide). NULL: Longhorn 1.2.6's CronJob with the
     * cached object's apiVersion as owner, what cronwarden wrote before it knew versions. */
    const cw_lh_profile *profile;
    const char *registry_secret; /* 1.3+: imagePullSecrets [{name}]; NULL or "": none */
    int32_t successful_history;  /* 1.4+: successfulJobsHistoryLimit (a Setting, default 1) */
    int32_t failed_history;      /* 1.4+: failedJobsHistoryLimit (a Setting, default 1) */
} cw_rjctl_config;

/* The Settings of a Longhorn namespace as Longhorn 1.<p->minor> reads them for its CronJobs. */
typedef struct cw_rjctl_settings {
    json_object *tolerations;   /* cw_lh_parse_tolerations_as */
    json_object *node_selector; /* cw_lh_parse_node_selector_as */
    char *priority_class;
    char *registry_secret;
    int32_t successful_history, failed_history;
} cw_rjctl_settings;

void cw_rjctl_settings_free(cw_rjctl_settings *s);
/* p: the minor (non-NULL); values: a JSON object Setting name -> value (a string) of the Settings
 * there are (NULL: none);
 * an absent one has Longhorn's default, one that minor does not read is ignored. CW_EINVAL with
 * the first malformed Setting's message in the order that manager reads them (history limits,
 * taint-toleration, priority-class, node selector, registry-secret), CW_ENOMEM. */
int cw_rjctl_settings_read(const cw_lh_profile *p, json_object *values, cw_rjctl_settings *out,
                           cw_error *err) CW_MUST_CHECK;
/* Points cfg at p and s (both must outlive cfg's use). */
void cw_rjctl_config_use(cw_rjctl_config *cfg, const cw_lh_profile *p, const cw_rjctl_settings *s);

typedef enum {
    CW_RJCTL_INSYNC,  /* nothing to write */
    CW_RJCTL_CREATE,  /* create `cronjob` */
    CW_RJCTL_UPDATE,  /* replace spec, annotation, labels and owner of `update_name` */
    CW_RJCTL_INVALID, /* problems; no CronJob written */
    CW_RJCTL_GONE,    /* the RecurringJob is gone; `delete` lists its CronJobs */
} cw_rjctl_outcome;

typedef struct cw_rjctl_actions {
    cw_rjctl_outcome outcome;
    json_object *cronjob; /* CREATE, UPDATE: the desired CronJob (apiVersion, kind, metadata,
                             spec) */
    char *update_name;    /* UPDATE: the CronJob to rewrite */
    cw_strlist delete;    /* CronJob names to delete (extra ones, or all when GONE) */
    cw_strlist problems;  /* INVALID: "<field>: <reason>" */
} cw_rjctl_actions;

void cw_rjctl_actions_init(cw_rjctl_actions *a);
void cw_rjctl_actions_free(cw_rjctl_actions *a);
const char *cw_rjctl_outcome_name(cw_rjctl_outcome o);

/* Appends Go's encoding/json of the CronJob spec cfg->profile's manager (NULL: 1.2.6's) writes
 * for the RecurringJob called name with cron `cron` (struct fields in the order of that release's
 * vendored Kubernetes types, maps sorted, empty fields left out as omitempty and omitzero leave
 * them). */
int cw_rjctl_spec_json(const cw_rjctl_config *cfg, const char *name, const char *cron,
                       cw_buf *out) CW_MUST_CHECK;
/* The whole CronJob for the RecurringJob rj (metadata.name, .namespace, .uid, apiVersion,
 * spec.cron; spec.name is not read): labels, ownerReference, annotation, spec. */
int cw_rjctl_cronjob(const cw_rjctl_config *cfg, json_object *rj, json_object **out,
                     cw_error *err) CW_MUST_CHECK;

/* 1 when the CronJob's longhorn.io/last-applied-cronjob-spec says the spec `want` (a CronJob
 * cw_rjctl_cronjob made) says: the same bytes, or the same spec up to the order of its
 * tolerations (Longhorn writes them from a Go map). What Longhorn's manager compares, and the
 * decision's INSYNC; the shell asks again of the live object before it rewrites it. */
int cw_rjctl_in_sync(json_object *cronjob, json_object *want);

/* rj: the RecurringJob as cached, NULL when it is gone; name: its name (the work key's);
 * cronjobs: a JSON array of the CronJobs labelled recurring-job.longhorn.io=<name> (at least
 * metadata.name, .labels, .annotations; NULL: none). INVALID: cw_recurringjob_check_runnable's
 * problems; with a profile, a task that release's manager does not have is one (Longhorn 1.2
 * would run any task but backup as a snapshot).
 * CW_ENOMEM, or CW_EINVAL when rj has no name or uid. */
int cw_rjctl_decide(json_object *rj, const char *name, json_object *cronjobs,
                    const cw_rjctl_config *cfg, cw_rjctl_actions *out, cw_error *err) CW_MUST_CHECK;

#endif
