#include "controller/recurringjob_apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/core/shell.h"
#include "controller/longhorn_settings.h"
#include "lib/json.h"
#include "lib/log.h"

#define SELECTOR CW_RJCTL_MANAGED_BY "=" CW_RJCTL_MANAGED_BY_VALUE "," CW_RJCTL_LABEL

/* ---- its flags and config ---- */

static struct {
    char *image, *service_account, *manager_url;
} flag;

static const cw_opt opts[] = {
    CW_CTRL_OPT_LONGHORN_NAMESPACE,
    CW_OPT_STR("job-image", "IMAGE", &flag.image, "",
               "recurringjob: the image CronJobs run when the namespace has no longhorn-manager "
               "DaemonSet to take it from"),
    CW_OPT_STR("job-service-account", "NAME", &flag.service_account, CW_RJCTL_SERVICE_ACCOUNT,
               "recurringjob: the service account CronJobs run as (Longhorn's)"),
    CW_OPT_STR("manager-url", "URL", &flag.manager_url, CW_RJCTL_MANAGER_URL,
               "recurringjob: the Longhorn manager URL CronJobs call (Longhorn's)"),
    CW_CTRL_OPT_MAX_RETAIN,
};

static int config_init(void *p, cw_error *err)
{
    cw_recurringjob_config *c = p;
    c->image = flag.image;
    c->job.policy = &c->base.policy;
    c->job.service_account = flag.service_account;
    c->job.manager_url = flag.manager_url;
    return cw_ctrl_policy_config_init(c, "--longhorn-namespace", cw_ctrl_flag.longhorn_namespace, 0,
                                      err);
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

/* A Setting or the manager's image changed: every job's CronJob may change. */
static void on_config(void *ud, cw_informer_op op, const char *key, json_object *old,
                      json_object *obj)
{
    (void)op;
    (void)key;
    (void)old;
    (void)obj;
    cw_shell *s = ud;
    cw_informer_enqueue_all(cw_shell_informer(s, CW_RJ_RECURRINGJOBS), s->env.queue);
}

/* Every job, and every job name a CronJob is still labelled with (its job may be gone). */
static int enqueue_all(cw_shell *s)
{
    cw_strlist keys;
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

/* What a CronJob is made of in a namespace: the config's part, the manager's image (else
 * --job-image), the Settings (absent: Longhorn's default ""), the discovered versions. The strings
 * point into the cached objects held here. */
typedef struct {
    cw_rjctl_config cfg;
    json_object *held[4]; /* the DaemonSet and the three Settings, as cached (or NULL) */
} job_env;

static void job_env_free(job_env *e)
{
    for (size_t i = 0; i < 4; i++)
        json_object_put(e->held[i]);
    json_object_put(e->cfg.tolerations);
    json_object_put(e->cfg.node_selector);
}

/* Member `field` of object ns/name of informer i (NULL: not there), held in e->held[slot]. */
static const char *held(cw_shell *s, job_env *e, int slot, size_t i, const char *ns,
                        const char *name, const char *field)
{
    char key[CW_CTRL_KEY_MAX];
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    if (cw_ctrl_store_get(cw_shell_store(s, i), key, &e->held[slot]) != CW_OK)
        e->held[slot] = NULL;
    return json_object_get_string(cw_json_member(e->held[slot], field));
}

static int job_env_read(cw_shell *s, const char *ns, job_env *e, cw_error *err)
{
    const cw_recurringjob_config *c = s->env.config;
    memset(e, 0, sizeof(*e));
    e->cfg = c->job;
    json_object *pick = NULL; /* the longhorn-manager container, or the first one */
    held(s, e, 0, CW_RJ_MANAGERS, ns, CW_RJCTL_MANAGER_DAEMONSET, "spec");
    json_object *cs = cw_json_path(e->held[0], "spec.template.spec.containers");
    for (size_t i = 0; json_object_is_type(cs, json_type_array) && i < json_object_array_length(cs);
         i++) {
        const char *n = cw_json_path_string(json_object_array_get_idx(cs, i), "name");
        if (!pick || (n && strcmp(n, CW_RJCTL_MANAGER_DAEMONSET) == 0))
            pick = json_object_array_get_idx(cs, i);
    }
    const char *img = cw_json_path_string(pick, "image");
    e->cfg.image = img && *img ? img : c->image && *c->image ? c->image : NULL;
    if (!e->cfg.image)
        return cw_error_set(err, CW_EINVAL,
                            "no image for the CronJob: DaemonSet %s/%s is not there and "
                            "--job-image is not set",
                            ns, CW_RJCTL_MANAGER_DAEMONSET);
    e->cfg.priority_class = held(s, e, 1, CW_RJ_SETTINGS, ns, CW_LH_SETTING_PRIORITY, "value");
    const char *tol = held(s, e, 2, CW_RJ_SETTINGS, ns, CW_LH_SETTING_TOLERATION, "value");
    const char *sel = held(s, e, 3, CW_RJ_SETTINGS, ns, CW_LH_SETTING_NODE_SELECTOR, "value");
    int rc = cw_lh_parse_tolerations(tol, &e->cfg.tolerations, err);
    if (rc == CW_OK)
        rc = cw_lh_parse_node_selector(sel, &e->cfg.node_selector, err);
    e->cfg.cronjob_api_version = cw_shell_api_version(s, CW_RJ_CRONJOBS);
    e->cfg.rj_api_version = cw_shell_api_version(s, CW_RJ_RECURRINGJOBS);
    return rc;
}

/* ---- writes ---- */

/* Replaces what Longhorn's update replaces (spec, the labels and annotation it owns, its owner
 * reference) in the live object, keeping everything else of it; PUT with its resourceVersion.
 * Not while another writer keeps undoing it (a write war). */
static int update_cronjob(cw_shell *s, json_object *rj, const cw_kube_resource *r, const char *name,
                          json_object *want, cw_error *err)
{
    json_object *cur = NULL, *written = NULL;
    int rc = cw_kube_get(s->env.kube, r, name, &cur, err);
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
    if (rc == CW_OK)
        cw_shell_war_wrote(s, r, written, want);
    json_object_put(cur);
    json_object_put(written);
    return rc;
}

static int create_cronjob(cw_shell *s, json_object *rj, const cw_kube_resource *r,
                          json_object *want, cw_error *err)
{
    const char *name = cw_json_path_string(want, "metadata.name");
    json_object *written = NULL;
    int rc = cw_shell_create(s, "create_cronjob", rj, r, want, &written, err);
    if (rc == CW_OK)
        cw_shell_war_wrote(s, r, written, want);
    json_object_put(written);
    if (rc != CW_ECONFLICT)
        return rc;
    /* Not labelled for the job (the cache would have it): someone else's object. Retried with
     * backoff, not decided again at once: the watch brings nothing. */
    char msg[600];
    snprintf(msg, sizeof(msg),
             "CronJob %s exists without the labels %s=%s and %s: it is not this job's, so no "
             "CronJob runs the job; rename or delete that CronJob",
             name, CW_RJCTL_MANAGED_BY, CW_RJCTL_MANAGED_BY_VALUE, CW_RJCTL_LABEL);
    cw_shell_event_once(s, rj, "Warning", "CronJobNameTaken", msg);
    return cw_error_set(err, CW_EHTTP, "%s", msg);
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

static int reconcile(cw_shell *s, const char *key, cw_ctrl_result *res, cw_error *err)
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
    rc = cw_ctrl_store_get(cw_shell_store(s, CW_RJ_RECURRINGJOBS), key, &rj);
    if (rc == CW_OK || rc == CW_ENOTFOUND)
        rc = cw_ctrl_store_by_index(cw_shell_store(s, CW_RJ_CRONJOBS), key, &cjs);
    if (rc != CW_OK)
        goto done;
    if (rj && (rc = job_env_read(s, ns, &env, err)) != CW_OK) {
        res->retry = 1; /* a Setting or the DaemonSet changing queues every job again */
        goto done;
    }
    if ((rc = cw_rjctl_decide(rj, name, cjs, &env.cfg, &a, err)) != CW_OK)
        goto done;
    res->outcome = cw_rjctl_outcome_name(a.outcome);
    delete_extra(s, rj, &r, &a.delete);
    if (a.outcome == CW_RJCTL_INVALID) {
        char *why = cw_strlist_join(&a.problems, "; ");
        if (cw_shell_event_once(s, rj, "Warning", "InvalidRecurringJob", why ? why : "invalid"))
            cw_log(CW_LOG_WARN, "RecurringJob refused by the policy: no CronJob written",
                   CW_LS("recurringjob", key), CW_LS("problems", why ? why : ""));
        free(why);
    } else if (a.outcome == CW_RJCTL_CREATE || a.outcome == CW_RJCTL_UPDATE) {
        rc = a.outcome == CW_RJCTL_CREATE
                 ? create_cronjob(s, rj, &r, a.cronjob, err)
                 : update_cronjob(s, rj, &r, a.update_name, a.cronjob, err);
        if (rc == CW_OK)
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
                        .handler = on_config},
    [CW_RJ_MANAGERS] = {CW_INFORMER_RESOURCE("daemonsets", "apps", "v1", "daemonsets"),
                        .field_selector = "metadata.name=" CW_RJCTL_MANAGER_DAEMONSET,
                        .keep = (const char *const[]){"metadata.name", "metadata.namespace",
                                                      "metadata.resourceVersion",
                                                      "spec.template.spec.containers", NULL},
                        .handler = on_config},
};

const cw_reconciler_ops cw_recurringjob_reconciler = {
    CW_RECONCILER_NAMED("recurringjob", "RecurringJob",
                        "create_cronjob, update_cronjob, delete_cronjob"),
    .summary = "a CronJob for every Longhorn RecurringJob, as Longhorn's manager makes it (safe "
               "next to Longhorn's manager: identical CronJobs, which it adopts)",
    .default_enabled = 1,
    CW_RECONCILER_TABLES(opts, informers),
    CW_RECONCILER_CONFIG(cw_recurringjob_config, config_init, cw_ctrl_policy_config_fini),
    .enqueue_all = enqueue_all,
    .reconcile = reconcile,
};
