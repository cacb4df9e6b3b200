#include "controller/recurringjob_apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/core/shell.h"
#include "longhorn/settings.h"
#include "controller/longhorn_watch.h"
#include "lib/json.h"
#include "lib/log.h"

#define SELECTOR CW_RJCTL_MANAGED_BY "=" CW_RJCTL_MANAGED_BY_VALUE "," CW_RJCTL_LABEL

/* ---- its flags and config ---- */

static const cw_opt opts[] = {
    CW_CTRL_OPT_LONGHORN_NAMESPACE,
    CW_CTRL_OPT_LONGHORN_VERSION,
    CW_OPT_STR_AT(
        "job-image", "IMAGE", cw_recurringjob_config, image, "",
        "recurringjob: the image CronJobs run when no longhorn-manager DaemonSet runs the "
        "Longhorn written as (none, or another version forced by --longhorn-version)"),
    CW_OPT_STR_AT("job-service-account", "NAME", cw_recurringjob_config, service_account,
                  CW_RJCTL_SERVICE_ACCOUNT,
                  "recurringjob: the service account CronJobs run as when the longhorn-manager "
                  "DaemonSet (of the Longhorn written as) names none (Longhorn's)"),
    CW_OPT_STR_AT("manager-url", "URL", cw_recurringjob_config, manager_url, CW_RJCTL_MANAGER_URL,
                  "recurringjob: the Longhorn manager URL CronJobs call (Longhorn's)"),
    CW_CTRL_OPT_MAX_RETAIN,
};

static int config_init(void *p, const cw_ctrl_flags *f, cw_error *err)
{
    cw_recurringjob_config *c = p;
    c->job.policy = &c->base.policy;
    c->job.service_account = c->service_account;
    c->job.manager_url = c->manager_url;
    int rc = cw_lh_parse_version_flag(f->longhorn_version, &c->longhorn, err);
    if (rc == CW_OK)
        rc =
            cw_ctrl_policy_config_init(c, f, "--longhorn-namespace", f->longhorn_namespace, 0, err);
    return rc == CW_EINVAL ? CW_EUSAGE : rc;
}

/* Its state: which Longhorn runs (controller/longhorn_watch.h). */
static int init(cw_shell *s, void **state, cw_error *err)
{
    const cw_recurringjob_config *c = s->env.config;
    return cw_lh_watch_new(s, CW_LH_RECONCILER_RECURRINGJOB, CW_RJ_MANAGERS, CW_RJ_RECURRINGJOBS,
                           &c->longhorn, state, err);
}

/* ---- what it reads ---- */

/* The RecurringJob as the decision reads it: everything but status and managedFields, with the
 * apiVersion that a LIST's items may lack. */
static json_object *rj_slim(void *ud, json_object *obj)
{
    return cw_informer_copy_spec(obj, cw_shell_api_version(ud, CW_RJ_RECURRINGJOBS),
                                 "RecurringJob");
}

/* "namespace/<recurring-job.longhorn.io label>": how a CronJob finds its job's key. */
static int cronjob_index(void *ud, json_object *obj, char *out, size_t outlen)
{
    (void)ud;
    json_object *v = cw_json_member(cw_json_path(obj, "metadata.labels"), CW_RJCTL_LABEL);
    if (!json_object_is_type(v, json_type_string))
        return 0;
    int n = snprintf(out, outlen, "%s/%s", cw_json_path_string(obj, "metadata.namespace"),
                     json_object_get_string(v));
    return n > 0 && (size_t)n < outlen;
}

static void on_cronjob(void *ud, cw_informer_op op, const char *key, json_object *old,
                       json_object *obj)
{
    (void)op;
    (void)key;
    cw_shell *s = ud;
    char k[CW_CTRL_KEY_MAX];
    if (old && cronjob_index(NULL, old, k, sizeof(k)))
        cw_queue_add(s->env.queue, k);
    if (obj && cronjob_index(NULL, obj, k, sizeof(k)))
        cw_queue_add(s->env.queue, k);
}

/* A Setting changed: every job's CronJob may change. */
static void on_setting(void *ud, cw_informer_op op, const char *key, json_object *old,
                       json_object *obj)
{
    (void)op;
    (void)key;
    (void)old;
    (void)obj;
    cw_shell *s = ud;
    cw_informer_enqueue_all(cw_shell_informer(s, CW_RJ_RECURRINGJOBS), s->env.queue);
}

/* Which Longhorn runs, again (a new term, a resync); then every job, and every job name a CronJob
 * is still labelled with (its job may be gone). */
static int enqueue_all(cw_shell *s)
{
    cw_strlist keys;
    cw_lh_watch_refresh(s);
    cw_strlist_init(&keys);
    int rc = cw_informer_enqueue_all(cw_shell_informer(s, CW_RJ_RECURRINGJOBS), s->env.queue);
    if (rc == CW_OK)
        rc = cw_ctrl_store_index_names(cw_shell_store(s, CW_RJ_CRONJOBS), &keys);
    for (size_t i = 0; rc == CW_OK && i < keys.len; i++)
        rc = cw_queue_add(s->env.queue, keys.items[i]);
    cw_strlist_free(&keys);
    return rc;
}

/* ---- what a CronJob is made of ---- */

/* What a CronJob is made of in a namespace: the config's part, the Longhorn minor and its
 * manager's image (else --job-image) and service account (else --job-service-account), the
 * Settings as that minor reads them (absent: Longhorn's defaults), the discovered versions. */
typedef struct {
    cw_rjctl_config cfg;
    cw_lh_target target;
    cw_rjctl_settings settings;
} job_env;

static void job_env_free(job_env *e)
{
    cw_lh_target_free(&e->target);
    cw_rjctl_settings_free(&e->settings);
}

/* The values of the Settings any minor reads for a CronJob, as {name: value} (absent ones left
 * out); NULL: out of memory. */
static json_object *settings_values(cw_shell *s, const char *ns)
{
    size_t n;
    const cw_lh_setting_def *defs = cw_lh_setting_defs(&n);
    json_object *values = json_object_new_object();
    for (size_t i = 0; values && i < n; i++) {
        char key[CW_CTRL_KEY_MAX];
        json_object *st = NULL;
        snprintf(key, sizeof(key), "%s/%s", ns, defs[i].name);
        if (cw_ctrl_store_get(cw_shell_store(s, CW_RJ_SETTINGS), key, &st) != CW_OK || !st)
            continue;
        json_object *v = cw_json_member(st, "value");
        if (json_object_is_type(v, json_type_string))
            json_object_object_add(values, defs[i].name, json_object_get(v));
        json_object_put(st);
    }
    return values;
}

/* e->target must hold the minor (non-NULL profile). */
static int job_env_read(cw_shell *s, const char *ns, job_env *e, cw_error *err)
{
    const cw_recurringjob_config *c = s->env.config;
    e->cfg = c->job;
    e->cfg.image = e->target.job_image     ? e->target.job_image
                   : c->image && *c->image ? c->image
                                           : NULL;
    if (!e->cfg.image)
        return cw_error_set(err, CW_EINVAL,
                            "no image for the CronJob: DaemonSet %s/%s does not run Longhorn %s "
                            "(absent, or another version) and --job-image is not set",
                            ns, CW_RJCTL_MANAGER_DAEMONSET, e->target.profile->release);
    if (e->target.service_account)
        e->cfg.service_account = e->target.service_account;
    json_object *values = settings_values(s, ns);
    int rc = values ? cw_rjctl_settings_read(e->target.profile, values, &e->settings, err)
                    : cw_error_oom(err);
    json_object_put(values);
    if (rc != CW_OK)
        return rc;
    cw_rjctl_config_use(&e->cfg, e->target.profile, &e->settings);
    e->cfg.cronjob_api_version = cw_shell_api_version(s, CW_RJ_CRONJOBS);
    e->cfg.rj_api_version = cw_shell_api_version(s, CW_RJ_RECURRINGJOBS);
    return CW_OK;
}

/* ---- writes ---- */

/* Replaces what Longhorn's update replaces (spec, the labels and annotation it owns, its owner
 * reference) in the live object, keeping everything else of it; PUT with its resourceVersion.
 * Not when the live object says `want` already (the cache was behind: *wrote 0), nor while
 * another writer keeps undoing it (a write war). */
static int update_cronjob(cw_shell *s, json_object *rj, const cw_kube_resource *r, const char *name,
                          json_object *want, int *wrote, cw_error *err)
{
    json_object *cur = NULL, *written = NULL;
    *wrote = 0;
    int rc = cw_kube_get(s->env.kube, r, name, &cur, err);
    if (rc == CW_OK && cw_rjctl_in_sync(cur, want)) {
        json_object_put(cur);
        return CW_OK;
    }
    if (rc == CW_OK)
        rc = cw_shell_war_check(s, r, cur, want, err);
    if (rc != CW_OK) {
        json_object_put(cur);
        return rc;
    }
    json_object *meta = cw_json_member(cur, "metadata"), *wmeta = cw_json_member(want, "metadata");
    const char *sections[] = {"labels", "annotations"};
    for (size_t i = 0; i < 2; i++) {
        json_object *dst = cw_json_member(meta, sections[i]);
        if (!json_object_is_type(dst, json_type_object)) {
            dst = json_object_new_object();
            json_object_object_add(meta, sections[i], dst);
        }
        json_object_object_foreach(cw_json_member(wmeta, sections[i]), k, v)
            json_object_object_add(dst, k, json_object_get(v));
    }
    json_object_object_add(meta, "ownerReferences",
                           json_object_get(cw_json_member(wmeta, "ownerReferences")));
    json_object_object_add(cur, "spec", json_object_get(cw_json_member(want, "spec")));
    rc = cw_shell_update(s, "update_cronjob", rj, r, name, cur, &written, err);
    if (rc == CW_OK) {
        cw_shell_war_wrote(s, r, written, want);
        *wrote = 1;
    }
    json_object_put(cur);
    json_object_put(written);
    return rc;
}

static int create_cronjob(cw_shell *s, json_object *rj, const cw_kube_resource *r,
                          json_object *want, cw_verdict *res, cw_error *err)
{
    const char *name = cw_json_path_string(want, "metadata.name");
    json_object *written = NULL;
    int rc = cw_shell_create(s, "create_cronjob", rj, r, want, &written, err);
    if (rc == CW_OK)
        cw_shell_war_wrote(s, r, written, want);
    json_object_put(written);
    if (rc != CW_ECONFLICT)
        return rc;
    /* Not labelled for the job (the cache would have it): someone else's object. Backed off,
     * not decided again at once: the watch brings nothing. */
    char msg[600];
    snprintf(msg, sizeof(msg),
             "CronJob %s exists without the labels %s=%s and %s: it is not this job's, so no "
             "CronJob runs the job; rename or delete that CronJob",
             name, CW_RJCTL_MANAGED_BY, CW_RJCTL_MANAGED_BY_VALUE, CW_RJCTL_LABEL);
    cw_shell_event(s, rj,
                   &(cw_event){.type = "Warning", .reason = "CronJobNameTaken", .message = msg});
    cw_verdict_backoff(res);
    return cw_error_set(err, CW_ECONFLICT, "%s", msg);
}

/* The API server's own words in a kube/ error message: what follows the status line. */
static const char *status_text(const char *message)
{
    static const char line[] = ": 422 Unprocessable Entity: ";
    const char *p = strstr(message, line);
    return p ? p + sizeof(line) - 1 : message;
}

/* The API server refused the CronJob (422): the same CronJob would be refused again, so it is
 * not retried with backoff; it is written again when the job, a Setting or the DaemonSet
 * changes, and at every resync. Said on the RecurringJob once per message (a Warning Event
 * CronJobRefused), logged every time, counted as writes_total{result="invalid"} by the shell.
 * A schedule that holds TZ is what Kubernetes 1.29 and later refuse to create (docs/compat.md):
 * the Event says so. */
static void refused(cw_shell *s, json_object *rj, const char *ns, const char *name,
                    const char *verb, json_object *want, const cw_error *err)
{
    const char *schedule = cw_json_path_string(want, "spec.schedule");
    int tz = schedule && strstr(schedule, "TZ");
    char msg[1400];
    snprintf(msg, sizeof(msg),
             "the API server refused to %s CronJob %s, so no CronJob runs this "
             "job: %s%s",
             verb, cw_json_path_string(want, "metadata.name"), status_text(err->message),
             tz ? " (Kubernetes 1.29 and later refuse to create a CronJob whose schedule holds TZ "
                  "or CRON_TZ, Longhorn's manager's as well: write spec.cron without the "
                  "time zone prefix, in kube-controller-manager's time zone, usually UTC)"
                : "");
    cw_shell_event(s, rj,
                   &(cw_event){.type = "Warning", .reason = "CronJobRefused", .message = msg});
    cw_log(CW_LOG_WARN, "the API server refused the CronJob; written again when the job changes",
           CW_LS("namespace", ns), CW_LS("recurringjob", name), CW_LS("verb", verb),
           CW_LS("schedule", schedule ? schedule : ""), CW_LS("error", err->message));
}

/* Extra CronJobs, and those of a job that is gone: deleted; a failure is logged, the next change
 * or resync tries again. */
static void delete_extra(cw_shell *s, json_object *rj, const cw_kube_resource *r,
                         const cw_strlist *names)
{
    for (size_t i = 0; i < names->len; i++) {
        cw_error err;
        cw_error_init(&err);
        cw_kube_delete_opts d;
        cw_kube_delete_opts_init(&d);
        d.propagation = "Background";
        int rc = cw_shell_delete(s, "delete_cronjob", rj, r, names->items[i], &d, &err);
        if (rc == CW_OK)
            cw_log(CW_LOG_INFO,
                   "CronJob deleted: its RecurringJob is gone, or another CronJob is the job's",
                   CW_LS("namespace", r->namespace), CW_LS("cronjob", names->items[i]));
        else if (rc != CW_ENOTFOUND)
            cw_log(CW_LOG_WARN, "could not delete a CronJob", CW_LS("cronjob", names->items[i]),
                   CW_LS("error", err.message));
    }
}

/* ---- what it does ---- */

static int reconcile(cw_shell *s, const char *key, cw_verdict *res, cw_error *err)
{
    json_object *rj = NULL, *cjs = NULL;
    cw_rjctl_actions a;
    job_env env;
    char ns[256];
    const char *name;
    int rc;
    cw_rjctl_actions_init(&a);
    memset(&env, 0, sizeof(env));
    if (!cw_ctrl_key_split(key, ns, sizeof(ns), &name)) {
        rc = cw_error_set(err, CW_EINVAL, "bad work key");
        goto done;
    }
    cw_kube_resource r = cw_shell_resource(s, CW_RJ_CRONJOBS, ns);
    if ((rc = cw_lh_watch_target(s->state, s, &env.target, err)) != CW_OK) {
        cw_verdict_backoff(res);
        goto done;
    }
    if (!env.target.profile) { /* standing down: which Longhorn runs is not known */
        cw_verdict_held(res, "standing_down");
        goto done;
    }
    rc = cw_ctrl_store_get(cw_shell_store(s, CW_RJ_RECURRINGJOBS), key, &rj);
    if (rc == CW_OK || rc == CW_ENOTFOUND)
        rc = cw_ctrl_store_by_index(cw_shell_store(s, CW_RJ_CRONJOBS), key, &cjs);
    if (rc != CW_OK)
        goto done;
    if (rj && (rc = job_env_read(s, ns, &env, err)) != CW_OK) {
        cw_verdict_backoff(res); /* a Setting or the DaemonSet changing queues every job again */
        goto done;
    }
    if ((rc = cw_rjctl_decide(rj, name, cjs, &env.cfg, &a, err)) != CW_OK)
        goto done;
    cw_verdict_done(res, cw_rjctl_outcome_name(a.outcome));
    delete_extra(s, rj, &r, &a.delete);
    if (a.outcome == CW_RJCTL_INVALID) {
        char *why = cw_strlist_join(&a.problems, "; ");
        if (cw_shell_event(s, rj,
                           &(cw_event){.type = "Warning",
                                       .reason = "InvalidRecurringJob",
                                       .message = why ? why : "invalid"}))
            cw_log(CW_LOG_WARN, "RecurringJob refused by the policy: no CronJob written",
                   CW_LS("recurringjob", key), CW_LS("problems", why ? why : ""));
        free(why);
    } else if (a.outcome == CW_RJCTL_CREATE || a.outcome == CW_RJCTL_UPDATE) {
        int wrote = 1;
        rc = a.outcome == CW_RJCTL_CREATE
                 ? create_cronjob(s, rj, &r, a.cronjob, res, err)
                 : update_cronjob(s, rj, &r, a.update_name, a.cronjob, &wrote, err);
        if (rc == CW_EHTTP && err->http_status == 422) {
            refused(s, rj, ns, name, a.outcome == CW_RJCTL_CREATE ? "create" : "update", a.cronjob,
                    err);
            cw_error_init(err);
            rc = CW_OK;
            cw_verdict_done(res, "refused");
        } else if (rc == CW_OK && !wrote)
            cw_verdict_done(res, cw_rjctl_outcome_name(CW_RJCTL_INSYNC)); /* the cache was behind */
        else if (rc == CW_OK)
            cw_log(CW_LOG_INFO,
                   a.outcome == CW_RJCTL_CREATE ? "CronJob created" : "CronJob updated",
                   CW_LS("namespace", ns), CW_LS("recurringjob", name),
                   CW_LS("schedule", cw_json_path_string(a.cronjob, "spec.schedule")));
    }
done:
    job_env_free(&env);
    cw_rjctl_actions_free(&a);
    json_object_put(rj);
    json_object_put(cjs);
    return rc;
}

static const cw_informer_def informers[] = {
    [CW_RJ_RECURRINGJOBS] = {CW_INFORMER_RESOURCE("recurringjobs", "longhorn.io", NULL,
                                                  "recurringjobs"),
                             .transform = rj_slim},
    [CW_RJ_CRONJOBS] = {CW_INFORMER_RESOURCE("cronjobs", "batch", NULL, "cronjobs"),
                        .label_selector = SELECTOR,
                        .keep = (const char *const[]){"metadata.name", "metadata.namespace",
                                                      "metadata.uid", "metadata.resourceVersion",
                                                      "metadata.labels|" CW_RJCTL_MANAGED_BY,
                                                      "metadata.labels|" CW_RJCTL_LABEL,
                                                      "metadata.annotations|" CW_RJCTL_ANNOTATION,
                                                      NULL},
                        .index = cronjob_index, .handler = on_cronjob},
    [CW_RJ_SETTINGS] = {CW_INFORMER_RESOURCE("settings", "longhorn.io", NULL, "settings"),
                        .version_of = 1 + CW_RJ_RECURRINGJOBS,
                        .keep = (const char *const[]){"metadata.name", "metadata.namespace",
                                                      "metadata.resourceVersion", "value", NULL},
                        .handler = on_setting},
    [CW_RJ_MANAGERS] = CW_LH_MANAGER_INFORMER,
};

const cw_reconciler_ops cw_recurringjob_reconciler = {
    CW_RECONCILER_NAMED("recurringjob", "RecurringJob",
                        "create_cronjob, update_cronjob, delete_cronjob"),
    .summary = "a CronJob for every Longhorn RecurringJob, as the cluster's Longhorn minor makes "
               "it (safe next to Longhorn's manager: identical CronJobs, which it adopts; for a "
               "Longhorn it does not know it stands down)",
    .default_enabled = 1,
    CW_RECONCILER_TABLES(opts, informers),
    CW_RECONCILER_CONFIG(cw_recurringjob_config, config_init, cw_ctrl_policy_config_fini),
    CW_RECONCILER_STATE(init, cw_lh_watch_delete),
    .enqueue_all = enqueue_all,
    .reconcile = reconcile,
};
