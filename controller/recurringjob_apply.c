#include "controller/recurringjob_apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/core/manager.h"
#include "controller/longhorn_settings.h"
#include "lib/clock.h"
#include "lib/json.h"
#include "lib/log.h"

#define KEY_MAX  600
#define SELECTOR CW_RJCTL_MANAGED_BY "=" CW_RJCTL_MANAGED_BY_VALUE "," CW_RJCTL_LABEL

/* ---- what the caches keep ---- */

static int copy_member(json_object *to, json_object *from, const char *key)
{
    json_object *v = cw_json_member(from, key);
    return !v || json_object_object_add(to, key, json_object_get(v)) == 0;
}

/* metadata: name, namespace, uid, resourceVersion, and the given label/annotation keys. */
static json_object *slim_meta(json_object *obj, const char *const *labels, const char *annotation)
{
    static const char *const keys[] = {"name", "namespace", "uid", "resourceVersion"};
    json_object *meta = cw_json_member(obj, "metadata"), *m = json_object_new_object();
    json_object *l = json_object_new_object(), *a = json_object_new_object();
    int ok = m && l && a;
    for (size_t i = 0; ok && i < sizeof(keys) / sizeof(keys[0]); i++)
        ok = copy_member(m, meta, keys[i]);
    for (size_t i = 0; ok && labels && labels[i]; i++)
        ok = copy_member(l, cw_json_member(meta, "labels"), labels[i]);
    ok = ok && (!annotation || copy_member(a, cw_json_member(meta, "annotations"), annotation));
    if (ok && json_object_object_add(m, "labels", l) == 0) {
        l = NULL;
        if (json_object_object_add(m, "annotations", a) == 0)
            return m;
        a = NULL;
    }
    json_object_put(m);
    json_object_put(l);
    json_object_put(a);
    return NULL;
}

static json_object *wrap(json_object *meta)
{
    json_object *o = meta ? json_object_new_object() : NULL;
    if (o && json_object_object_add(o, "metadata", meta) == 0)
        return o;
    json_object_put(meta);
    json_object_put(o);
    return NULL;
}

static json_object *cronjob_slim(void *ud, json_object *obj)
{
    (void)ud;
    static const char *const labels[] = {CW_RJCTL_MANAGED_BY, CW_RJCTL_LABEL, NULL};
    return wrap(slim_meta(obj, labels, CW_RJCTL_ANNOTATION));
}

static json_object *setting_slim(void *ud, json_object *obj)
{
    (void)ud;
    json_object *o = wrap(slim_meta(obj, NULL, NULL));
    if (o && !copy_member(o, obj, "value")) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* The longhorn-manager container's image, or the first container's. */
static json_object *manager_slim(void *ud, json_object *obj)
{
    (void)ud;
    json_object *cs = cw_json_path(obj, "spec.template.spec.containers"), *pick = NULL;
    for (size_t i = 0; json_object_is_type(cs, json_type_array) && i < json_object_array_length(cs);
         i++) {
        json_object *c = json_object_array_get_idx(cs, i);
        const char *n = cw_json_path_string(c, "name");
        if (!pick || (n && strcmp(n, CW_RJCTL_MANAGER_DAEMONSET) == 0))
            pick = c;
    }
    json_object *o = wrap(slim_meta(obj, NULL, NULL));
    if (o && !copy_member(o, pick, "image")) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* The RecurringJob as the decision reads it: everything but status and managedFields, with the
 * apiVersion that a LIST's items may lack. */
static json_object *rj_slim(void *ud, json_object *obj)
{
    cw_rjctl *s = ud;
    return cw_informer_copy_spec(obj, s->rj_api_version, "RecurringJob");
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
    cw_rjctl *s = ud;
    char k[KEY_MAX];
    if (old && cronjob_index(NULL, old, k, sizeof(k)))
        cw_queue_add(s->o.queue, k);
    if (obj && cronjob_index(NULL, obj, k, sizeof(k)))
        cw_queue_add(s->o.queue, k);
}

/* A Setting or the manager's image changed: every job's CronJob may change. */
static void on_config(void *ud, cw_informer_op op, const char *key, json_object *old,
                      json_object *obj)
{
    (void)op;
    (void)key;
    (void)old;
    (void)obj;
    cw_rjctl *s = ud;
    cw_informer_enqueue_all(&s->rjs, s->o.queue);
}

/* ---- setup ---- */

static cw_informer *informer(cw_rjctl *s, int i)
{
    cw_informer *infs[] = {&s->rjs, &s->cronjobs, &s->settings, &s->managers};
    return infs[i];
}

int cw_rjctl_init(cw_rjctl *s, const cw_rjctl_opts *o, cw_error *err)
{
    static const char *const verb_result[] = {"verb", "result", NULL};
    int rc;
    memset(s, 0, sizeof(*s));
    s->o = *o;
    snprintf(s->rj_version, sizeof(s->rj_version), "%s", o->rj_version);
    snprintf(s->cj_version, sizeof(s->cj_version), "%s", o->cj_version);
    s->o.rj_version = s->rj_version;
    s->o.cj_version = s->cj_version;
    o = &s->o;
    snprintf(s->cj_api_version, sizeof(s->cj_api_version), "batch/%s", o->cj_version);
    snprintf(s->rj_api_version, sizeof(s->rj_api_version), "longhorn.io/%s", o->rj_version);
    if ((rc = cw_ctrl_events_init(&s->events, o->kube, err)) != CW_OK)
        return rc;
    if (o->metrics &&
        (rc = cw_metrics_counter(o->metrics, "cronwarden_controller_recurringjob_writes_total",
                                 "API writes of the recurringjob reconciler by verb "
                                 "(create_cronjob, update_cronjob, delete_cronjob) and result "
                                 "(ok, conflict, not_found, error).",
                                 verb_result, &s->m_writes, err)) != CW_OK)
        return rc;
    const cw_informer_config cfgs[] = {
        {.name = "recurringjobs",
         .resource = {"longhorn.io", o->rj_version, "recurringjobs", o->namespace},
         .transform = rj_slim,
         .transform_ud = s,
         .queue = o->queue},
        {.name = "cronjobs",
         .resource = {"batch", o->cj_version, "cronjobs", o->namespace},
         .label_selector = SELECTOR,
         .transform = cronjob_slim,
         .index = cronjob_index,
         .handler = on_cronjob,
         .handler_ud = s},
        {.name = "settings",
         .resource = {"longhorn.io", o->rj_version, "settings", o->namespace},
         .transform = setting_slim,
         .handler = on_config,
         .handler_ud = s},
        {.name = "daemonsets",
         .resource = {"apps", "v1", "daemonsets", o->namespace},
         .field_selector = "metadata.name=" CW_RJCTL_MANAGER_DAEMONSET,
         .transform = manager_slim,
         .handler = on_config,
         .handler_ud = s},
    };
    for (size_t i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++) {
        cw_informer_config c = cfgs[i];
        c.kube = o->kube;
        c.page_size = o->page_size;
        c.metrics = o->informer_metrics;
        if ((rc = cw_informer_init(informer(s, (int)i), &c, err)) != CW_OK)
            return rc;
        s->ninformers++;
    }
    return CW_OK;
}

void cw_rjctl_free(cw_rjctl *s)
{
    /* Handlers of the later ones read the first one's cache: free them first. */
    for (int i = s->ninformers - 1; i >= 0; i--)
        cw_informer_free(informer(s, i));
    cw_ctrl_events_free(&s->events);
    memset(s, 0, sizeof(*s));
}

/* ---- the reconcile ---- */

/* The value of Setting `name` in ns (NULL: not set, Longhorn's default ""); caller frees. */
static char *setting(cw_rjctl *s, const char *ns, const char *name)
{
    char key[KEY_MAX];
    json_object *o = NULL;
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    if (cw_ctrl_store_get(cw_informer_store(&s->settings), key, &o) != CW_OK)
        return NULL;
    const char *v = json_object_get_string(cw_json_member(o, "value"));
    char *out = v ? strdup(v) : NULL;
    json_object_put(o);
    return out;
}

typedef struct {
    cw_rjctl_config cfg;
    char *image, *priority, *tolerations, *selector;
} job_env;

static void job_env_free(job_env *e)
{
    free(e->image);
    free(e->priority);
    free(e->tolerations);
    free(e->selector);
    json_object_put(e->cfg.tolerations);
    json_object_put(e->cfg.node_selector);
}

/* What the CronJob is made of in namespace ns: the manager's image (else --job-image), the
 * Settings, the flags. */
static int job_env_read(cw_rjctl *s, const char *ns, job_env *e, cw_error *err)
{
    char key[KEY_MAX];
    json_object *ds = NULL;
    memset(e, 0, sizeof(*e));
    snprintf(key, sizeof(key), "%s/%s", ns, CW_RJCTL_MANAGER_DAEMONSET);
    if (cw_ctrl_store_get(cw_informer_store(&s->managers), key, &ds) == CW_OK) {
        const char *img = json_object_get_string(cw_json_member(ds, "image"));
        e->image = img && *img ? strdup(img) : NULL;
        json_object_put(ds);
    }
    if (!e->image && s->o.image && *s->o.image)
        e->image = strdup(s->o.image);
    if (!e->image)
        return cw_error_set(err, CW_EINVAL,
                            "no image for the CronJob: DaemonSet %s/%s is not there and "
                            "--job-image is not set",
                            ns, CW_RJCTL_MANAGER_DAEMONSET);
    e->priority = setting(s, ns, CW_LH_SETTING_PRIORITY);
    e->tolerations = setting(s, ns, CW_LH_SETTING_TOLERATION);
    e->selector = setting(s, ns, CW_LH_SETTING_NODE_SELECTOR);
    int rc = cw_lh_parse_tolerations(e->tolerations, &e->cfg.tolerations, err);
    if (rc == CW_OK)
        rc = cw_lh_parse_node_selector(e->selector, &e->cfg.node_selector, err);
    e->cfg.policy = s->o.policy;
    e->cfg.image = e->image;
    e->cfg.service_account = s->o.service_account;
    e->cfg.manager_url = s->o.manager_url;
    e->cfg.priority_class = e->priority;
    e->cfg.cronjob_api_version = s->cj_api_version;
    e->cfg.rj_api_version = s->rj_api_version;
    return rc;
}

/* Replaces what Longhorn's update replaces (spec, the labels and annotation it owns, its owner
 * reference) in the live object, keeping everything else of it; PUT with its resourceVersion. */
static int update_cronjob(cw_rjctl *s, const cw_kube_resource *r, const char *name,
                          json_object *want, cw_error *err)
{
    json_object *cur = NULL;
    int rc = cw_kube_get(s->o.kube, r, name, &cur, err);
    if (rc != CW_OK)
        return rc;
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
    rc = cw_kube_update(s->o.kube, r, name, cur, NULL, NULL, err);
    json_object_put(cur);
    return rc;
}

static void delete_extra(cw_rjctl *s, const cw_kube_resource *r, const cw_strlist *names)
{
    for (size_t i = 0; i < names->len; i++) {
        cw_error err;
        cw_error_init(&err);
        cw_kube_delete_opts d;
        cw_kube_delete_opts_init(&d);
        d.propagation = "Background";
        int rc = cw_kube_delete(s->o.kube, r, names->items[i], &d, NULL, &err);
        cw_ctrl_count_write(s->m_writes, "delete_cronjob", rc);
        if (rc == CW_OK)
            cw_log(CW_LOG_INFO,
                   "CronJob deleted: its RecurringJob is gone, or another CronJob "
                   "is the job's",
                   CW_LS("namespace", r->namespace), CW_LS("cronjob", names->items[i]));
        else if (rc != CW_ENOTFOUND)
            cw_log(CW_LOG_WARN, "could not delete a CronJob", CW_LS("cronjob", names->items[i]),
                   CW_LS("error", err.message));
    }
}

static int split_key(const char *key, char *ns, size_t nslen, const char **name)
{
    const char *slash = strchr(key, '/');
    if (!slash || (size_t)(slash - key) >= nslen)
        return 0;
    memcpy(ns, key, (size_t)(slash - key));
    ns[slash - key] = 0;
    *name = slash + 1;
    return 1;
}

static int write_cronjob(cw_rjctl *s, const cw_kube_resource *r, const cw_rjctl_actions *a,
                         json_object *rj, cw_error *err)
{
    const char *name = cw_json_path_string(a->cronjob, "metadata.name");
    int rc;
    if (a->outcome == CW_RJCTL_CREATE) {
        rc = cw_kube_create(s->o.kube, r, a->cronjob, NULL, NULL, err);
        cw_ctrl_count_write(s->m_writes, "create_cronjob", rc);
        if (rc == CW_ECONFLICT) {
            /* Not labelled for the job (the cache would have it): someone else's object. */
            char msg[600];
            snprintf(msg, sizeof(msg),
                     "CronJob %s exists without the labels %s=%s and %s: it is not this job's, "
                     "so no CronJob runs the job; rename or delete that CronJob",
                     name, CW_RJCTL_MANAGED_BY, CW_RJCTL_MANAGED_BY_VALUE, CW_RJCTL_LABEL);
            cw_ctrl_event_once(&s->events, rj, "Warning", "CronJobNameTaken", msg);
            cw_error_set(err, CW_ECONFLICT, "%s", msg);
        }
    } else {
        rc = update_cronjob(s, r, a->update_name, a->cronjob, err);
        cw_ctrl_count_write(s->m_writes, "update_cronjob", rc);
    }
    if (rc == CW_OK)
        cw_log(CW_LOG_INFO, a->outcome == CW_RJCTL_CREATE ? "CronJob created" : "CronJob updated",
               CW_LS("namespace", r->namespace), CW_LS("recurringjob", name),
               CW_LS("schedule", cw_json_path_string(a->cronjob, "spec.schedule")));
    return rc;
}

int cw_rjctl_reconcile(void *ud, const char *key, cw_ctrl_result *res, cw_error *err)
{
    cw_rjctl *s = ud;
    json_object *rj = NULL, *cjs = NULL;
    cw_rjctl_actions a;
    job_env env;
    char ns[256];
    const char *name;
    int rc;
    cw_rjctl_actions_init(&a);
    memset(&env, 0, sizeof(env));
    if (!split_key(key, ns, sizeof(ns), &name)) {
        rc = cw_error_set(err, CW_EINVAL, "bad work key %s", key);
        goto done;
    }
    cw_kube_resource r = {"batch", s->o.cj_version, "cronjobs", ns};
    rc = cw_ctrl_store_get(cw_informer_store(&s->rjs), key, &rj);
    if (rc == CW_OK || rc == CW_ENOTFOUND)
        rc = cw_ctrl_store_by_index(cw_informer_store(&s->cronjobs), key, &cjs);
    if (rc != CW_OK) {
        res->retry = 1;
        cw_error_set(err, rc, "%s: out of memory", key);
        goto done;
    }
    if (rj && (rc = job_env_read(s, ns, &env, err)) != CW_OK) {
        res->retry = 1; /* a Setting or the DaemonSet changing queues every job again */
        cw_error_prefix(err, "RecurringJob %s", key);
        goto done;
    }
    if ((rc = cw_rjctl_decide(rj, name, cjs, &env.cfg, &a, err)) != CW_OK) {
        res->retry = rc != CW_EINVAL;
        cw_error_prefix(err, "RecurringJob %s", key);
        goto done;
    }
    res->outcome = cw_rjctl_outcome_name(a.outcome);
    delete_extra(s, &r, &a.delete);
    if (a.outcome == CW_RJCTL_INVALID) {
        char *why = cw_strlist_join(&a.problems, "; ");
        if (cw_ctrl_event_once(&s->events, rj, "Warning", "InvalidRecurringJob",
                               why ? why : "invalid"))
            cw_log(CW_LOG_WARN, "RecurringJob refused by the policy: no CronJob written",
                   CW_LS("recurringjob", key), CW_LS("problems", why ? why : ""));
        free(why);
    } else if (a.outcome == CW_RJCTL_CREATE || a.outcome == CW_RJCTL_UPDATE) {
        rc = write_cronjob(s, &r, &a, rj, err);
        if (rc == CW_ECONFLICT && a.outcome == CW_RJCTL_UPDATE) {
            /* The CronJob moved on: its watch event brings the new version; decide then. */
            res->outcome = "conflict";
            res->requeue_at_ms = cw_clock_wall_ms() + 1000;
            rc = CW_OK;
        } else if (rc == CW_ENOTFOUND) {
            res->outcome = "conflict"; /* deleted meanwhile: the watch event queues it again */
            rc = CW_OK;
        } else if (rc != CW_OK) {
            res->retry = 1;
            cw_error_prefix(err, "RecurringJob %s", key);
        }
    }
done:
    job_env_free(&env);
    cw_rjctl_actions_free(&a);
    json_object_put(rj);
    json_object_put(cjs);
    return rc;
}

/* ---- the reconciler as the manager sees it ---- */

static int op_create(const cw_reconciler_env *env, void **self, cw_error *err)
{
    const cw_ctrl_config *cfg = env->cfg;
    const char *ns = cfg->longhorn_namespace && *cfg->longhorn_namespace ? cfg->longhorn_namespace
                                                                         : "longhorn-system";
    char rjv[32], cjv[32];
    int rc = cw_kube_pick_version(cfg->kube, "longhorn.io", "recurringjobs", rjv, sizeof(rjv), err);
    if (rc == CW_OK)
        rc = cw_kube_pick_version(cfg->kube, "batch", "cronjobs", cjv, sizeof(cjv), err);
    if (rc != CW_OK) {
        cw_error_prefix(err, "recurringjob reconciler");
        return rc;
    }
    cw_rjctl *s = calloc(1, sizeof(*s));
    if (!s)
        return cw_error_oom(err);
    *self = s;
    cw_rjctl_opts o = {
        .kube = cfg->kube,
        .namespace = ns,
        .queue = env->queue,
        .policy = cfg->policy,
        .image = cfg->job_image,
        .service_account = cfg->job_service_account,
        .manager_url = cfg->manager_url,
        .rj_version = rjv,
        .cj_version = cjv,
        .metrics = env->metrics,
        .informer_metrics = env->informer_metrics,
        .page_size = cfg->page_size,
    };
    return cw_rjctl_init(s, &o, err);
}

static int op_start(void *self, cw_error *err)
{
    cw_rjctl *s = self;
    int rc = CW_OK;
    for (int i = 0; rc == CW_OK && i < s->ninformers; i++)
        rc = cw_informer_start(informer(s, i), err);
    return rc;
}

static int op_synced(void *self, char *why, size_t whylen)
{
    cw_rjctl *s = self;
    cw_informer *infs[] = {&s->rjs, &s->cronjobs, &s->settings, &s->managers};
    return cw_informers_synced(infs, 4, why, whylen);
}

/* Every job, and every job name a CronJob is still labelled with (its job may be gone). */
static int op_enqueue_all(void *self)
{
    cw_rjctl *s = self;
    cw_strlist keys;
    cw_strlist_init(&keys);
    int rc = cw_informer_enqueue_all(&s->rjs, s->o.queue);
    if (rc == CW_OK)
        rc = cw_ctrl_store_index_names(cw_informer_store(&s->cronjobs), &keys);
    for (size_t i = 0; rc == CW_OK && i < keys.len; i++)
        rc = cw_queue_add(s->o.queue, keys.items[i]);
    cw_strlist_free(&keys);
    return rc;
}

static void op_stop(void *self)
{
    cw_rjctl *s = self;
    for (int i = s->ninformers - 1; i >= 0; i--)
        cw_informer_stop(informer(s, i));
}

static void op_destroy(void *self)
{
    if (self)
        cw_rjctl_free(self);
    free(self);
}

const cw_reconciler_ops cw_recurringjob_reconciler = {
    .name = "recurringjob",
    .summary = "a CronJob for every Longhorn RecurringJob, as Longhorn's manager makes it (safe "
               "next to Longhorn's manager: identical CronJobs, which it adopts)",
    .default_enabled = 1,
    .create = op_create,
    .start = op_start,
    .synced = op_synced,
    .enqueue_all = op_enqueue_all,
    .reconcile = cw_rjctl_reconcile,
    .stop = op_stop,
    .destroy = op_destroy,
};
