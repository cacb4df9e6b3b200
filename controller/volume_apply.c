#include "controller/volume_apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/core/manager.h"
#include "defaults/volume.h"
#include "lib/clock.h"
#include "lib/json.h"
#include "lib/log.h"

/* ---- what the caches keep ---- */

static int is_job_label(const char *k)
{
    /* Longhorn's own test (cw_volume_has_job_label) looks at these prefixes without the slash. */
    return strncmp(k, "recurring-job.longhorn.io", 25) == 0 ||
           strncmp(k, "recurring-job-group.longhorn.io", 31) == 0;
}

/* A Volume as the decision reads it, in as few json-c objects as it takes (10,000 volumes are
 * kept): identity, its job labels (no map without one: the label patch is a merge patch, which
 * keeps whatever other labels the volume has) and spec.recurringJobs when present. */
/* The job labels into metadata m: no map at all when there is none. */
static int copy_job_labels(json_object *m, json_object *labels)
{
    json_object *l = NULL;
    json_object_object_foreach(labels, k, v)
    {
        if (!is_job_label(k))
            continue;
        if (!l && (!(l = json_object_new_object()) || json_object_object_add(m, "labels", l)))
            return CW_ENOMEM;
        json_object_object_add(l, k, json_object_get(v));
    }
    return CW_OK;
}

static json_object *volume_fields(json_object *obj)
{
    static const char *const keys[] = {"name", "namespace", "uid", "resourceVersion"};
    json_object *meta = cw_json_member(obj, "metadata"), *labels = cw_json_member(meta, "labels");
    json_object *o = json_object_new_object(), *m = json_object_new_object(), *legacy = NULL;
    if (!o || !m || json_object_object_add(o, "metadata", m)) {
        json_object_put(o);
        json_object_put(m);
        return NULL;
    }
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        json_object *v = cw_json_member(meta, keys[i]);
        if (v)
            json_object_object_add(m, keys[i], json_object_get(v));
    }
    if (json_object_is_type(labels, json_type_object) && copy_job_labels(m, labels) != CW_OK)
        goto oom;
    if (json_object_object_get_ex(cw_json_member(obj, "spec"), "recurringJobs", &legacy)) {
        json_object *spec = json_object_new_object();
        if (!spec || json_object_object_add(o, "spec", spec))
            goto oom;
        json_object_object_add(spec, "recurringJobs", json_object_get(legacy));
    }
    return o;
oom:
    json_object_put(o);
    return NULL;
}

/* The cache keeps each volume as one JSON string of those fields: 10,000 volumes as json-c trees
 * of three maps each would take some 25 MiB; as text, a tenth of that. Parsed again (a few
 * microseconds) when the volume is reconciled or indexed. */
static json_object *volume_slim(void *ud, json_object *obj)
{
    (void)ud;
    json_object *f = volume_fields(obj);
    json_object *text = f ? json_object_new_string(json_object_to_json_string_ext(
                                f, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE))
                          : NULL;
    json_object_put(f);
    return text;
}

/* A cached volume as the decision reads it (NULL: not JSON, or out of memory). */
static json_object *volume_parse(json_object *cached)
{
    return json_object_is_type(cached, json_type_string)
               ? json_tokener_parse(json_object_get_string(cached))
               : NULL;
}

/* What the decision reads besides the cache: apiVersion and kind (the planner classifies by
 * them), not kept per cached volume. */
static int as_volume(cw_volctl *s, json_object *vol)
{
    if (json_object_object_add(vol, "apiVersion", json_object_new_string(s->vol_api_version)) ||
        json_object_object_add(vol, "kind", json_object_new_string("Volume")))
        return CW_ENOMEM;
    return CW_OK;
}

static json_object *rj_slim(void *ud, json_object *obj)
{
    cw_volctl *s = ud;
    return cw_informer_copy_spec(obj, s->rj_api_version, "RecurringJob");
}

/* Every RecurringJob under its namespace: the plan of a volume sees them all. */
static int rj_index(void *ud, json_object *obj, char *out, size_t outlen)
{
    (void)ud;
    const char *ns = cw_json_path_string(obj, "metadata.namespace");
    int n = snprintf(out, outlen, "%s", ns ? ns : "");
    return n >= 0 && (size_t)n < outlen;
}

/* A RecurringJob appeared, changed or went: a volume refused for a name conflict, or waiting for
 * a job created a moment ago, may go on. Only volumes with legacy jobs care. */
static int wake_legacy(void *ud, const char *key, void *value)
{
    cw_volctl *s = ud;
    (void)value;
    cw_queue_add(s->queue, key);
    return 0;
}

static void on_rj(void *ud, cw_informer_op op, const char *key, json_object *old, json_object *obj)
{
    (void)op;
    (void)key;
    (void)old;
    (void)obj;
    cw_volctl *s = ud;
    cw_strlist keys;
    cw_strlist_init(&keys);
    if (cw_ctrl_store_index_keys(cw_informer_store(&s->volumes), "legacy", &keys) == CW_OK)
        for (size_t i = 0; i < keys.len; i++)
            wake_legacy(s, keys.items[i], NULL);
    cw_strlist_free(&keys);
}

/* Volumes that still carry legacy jobs, under one index key. */
static int volume_index(void *ud, json_object *obj, char *out, size_t outlen)
{
    (void)ud;
    json_object *vol = volume_parse(obj);
    int legacy = cw_volume_has_legacy_jobs(vol);
    json_object_put(vol);
    if (legacy)
        snprintf(out, outlen, "legacy");
    return legacy;
}

/* ---- the reconcile ---- */

static void count(cw_volctl *s, const char *verb, int rc)
{
    cw_ctrl_count_write(s->m_writes, verb, rc);
}

/* Creates the plan's new RecurringJobs. 409: one appeared since the cache was read; the watch
 * brings it and the next decision reuses it or reports the conflict. */
static int create_jobs(cw_volctl *s, json_object *jobs, cw_error *err)
{
    cw_kube_resource r = {"longhorn.io", s->rj_version, "recurringjobs", s->namespace};
    cw_kube_write_opts w;
    cw_kube_write_opts_init(&w);
    w.field_manager = "cronwarden";
    for (size_t i = 0; i < json_object_array_length(jobs); i++) {
        json_object *rj = json_object_array_get_idx(jobs, i);
        int rc = cw_kube_create(s->kube, &r, rj, &w, NULL, err);
        count(s, "create_recurringjob", rc);
        if (rc != CW_OK) {
            cw_error_prefix(err, "creating RecurringJob %s",
                            cw_json_path_string(rj, "metadata.name"));
            return rc;
        }
        cw_log(CW_LOG_INFO, "RecurringJob created for a volume's legacy jobs",
               CW_LS("recurringjob", cw_json_path_string(rj, "metadata.name")),
               CW_LS("cron", cw_json_path_string(rj, "spec.cron")));
    }
    return CW_OK;
}

static void report(cw_volctl *s, json_object *vol, const cw_volctl_actions *a)
{
    char *what = cw_strlist_join(a->outcome == CW_VOLCTL_REFUSED ? &a->problems : &a->labels,
                                 a->outcome == CW_VOLCTL_REFUSED ? "; " : ", ");
    char msg[2048];
    const char *name = cw_json_path_string(vol, "metadata.name");
    if (a->outcome == CW_VOLCTL_REFUSED) {
        snprintf(msg, sizeof(msg), "legacy spec.recurringJobs left as they are: %s",
                 what ? what : "");
        if (cw_ctrl_event_once(&s->events, vol, "Warning", "LegacyRecurringJobsNotMigrated", msg))
            cw_log(CW_LOG_WARN, "volume's legacy jobs cannot be migrated", CW_LS("volume", name),
                   CW_LS("problems", what ? what : ""));
    } else if (a->outcome == CW_VOLCTL_MIGRATE) {
        snprintf(msg, sizeof(msg), "legacy spec.recurringJobs migrated to labels %s",
                 what ? what : "");
        cw_ctrl_event_once(&s->events, vol, "Normal", "LegacyRecurringJobsMigrated", msg);
        cw_log(CW_LOG_INFO, "volume's legacy jobs migrated", CW_LS("volume", name),
               CW_LS("labels", what ? what : ""));
    } else {
        cw_log(CW_LOG_INFO, "volume labelled with the default group", CW_LS("volume", name),
               CW_LS("label", what ? what : ""));
    }
    free(what);
}

int cw_volctl_reconcile(void *ud, const char *key, cw_ctrl_result *res, cw_error *err)
{
    cw_volctl *s = ud;
    json_object *vol = NULL, *rjs = NULL;
    cw_volctl_actions a;
    int rc;
    cw_volctl_actions_init(&a);
    json_object *cached = NULL;
    rc = cw_ctrl_store_get(cw_informer_store(&s->volumes), key, &cached);
    if (rc == CW_ENOTFOUND) {
        res->outcome = "deleted";
        rc = CW_OK;
        goto done;
    }
    if (rc == CW_OK && !(vol = volume_parse(cached)))
        rc = CW_ENOMEM;
    json_object_put(cached);
    if (rc == CW_OK)
        rc = as_volume(s, vol);
    if (rc == CW_OK && cw_volume_has_legacy_jobs(vol))
        rc = cw_ctrl_store_by_index(cw_informer_store(&s->rjs), s->namespace, &rjs);
    if (rc != CW_OK) {
        res->retry = 1;
        cw_error_set(err, rc, "%s: out of memory", key);
        goto done;
    }
    if ((rc = cw_volctl_decide(vol, rjs, &s->cfg, &a, err)) != CW_OK) {
        res->retry = rc != CW_EINVAL; /* a malformed volume waits for its next change */
        cw_error_prefix(err, "Volume %s", key);
        goto done;
    }
    res->outcome = cw_volctl_outcome_name(a.outcome);
    if (a.outcome == CW_VOLCTL_MIGRATE && (rc = create_jobs(s, a.jobs, err)) != CW_OK)
        goto failed;
    if (a.patch) {
        cw_kube_resource r = {"longhorn.io", s->vol_version, "volumes", s->namespace};
        rc = cw_kube_patch(s->kube, &r, cw_json_path_string(vol, "metadata.name"),
                           CW_KUBE_PATCH_MERGE, a.patch, NULL, NULL, err);
        count(s, a.outcome == CW_VOLCTL_MIGRATE ? "migrate_volume" : "label_volume", rc);
        if (rc != CW_OK)
            goto failed;
    }
    if (a.outcome != CW_VOLCTL_INSYNC)
        report(s, vol, &a);
    goto done;
failed:
    if (rc == CW_ECONFLICT || rc == CW_ENOTFOUND) {
        /* The volume (or a job) moved on; its watch event queues it again, the timer is a
         * safety net. Nothing was written to a volume whose version the decision did not see. */
        cw_log(CW_LOG_DEBUG, "changed meanwhile; deciding again", CW_LS("volume", key),
               CW_LS("error", err->message));
        res->outcome = "conflict";
        res->requeue_at_ms = cw_clock_wall_ms() + 1000;
        rc = CW_OK;
    } else {
        res->retry = 1;
        cw_error_prefix(err, "Volume %s", key);
    }
done:
    cw_volctl_actions_free(&a);
    json_object_put(vol);
    json_object_put(rjs);
    return rc;
}

/* ---- the reconciler as the manager sees it ---- */

static int op_create(const cw_reconciler_env *env, void **self, cw_error *err)
{
    static const char *const verb_result[] = {"verb", "result", NULL};
    const cw_ctrl_config *cfg = env->cfg;
    cw_volctl *s = calloc(1, sizeof(*s));
    int rc;
    if (!s)
        return cw_error_oom(err);
    *self = s;
    s->kube = cfg->kube;
    s->queue = env->queue;
    snprintf(s->namespace, sizeof(s->namespace), "%s",
             cfg->longhorn_namespace && *cfg->longhorn_namespace ? cfg->longhorn_namespace
                                                                 : "longhorn-system");
    if ((rc = cw_kube_pick_version(cfg->kube, "longhorn.io", "volumes", s->vol_version,
                                   sizeof(s->vol_version), err)) != CW_OK ||
        (rc = cw_kube_pick_version(cfg->kube, "longhorn.io", "recurringjobs", s->rj_version,
                                   sizeof(s->rj_version), err)) != CW_OK) {
        cw_error_prefix(err, "volume reconciler");
        return rc;
    }
    snprintf(s->vol_api_version, sizeof(s->vol_api_version), "longhorn.io/%s", s->vol_version);
    snprintf(s->rj_api_version, sizeof(s->rj_api_version), "longhorn.io/%s", s->rj_version);
    s->cfg = (cw_volctl_config){
        .policy = cfg->policy,
        .scheme = (cw_names_scheme)cfg->name_scheme,
        .namespace = s->namespace,
        .rj_api_version = s->rj_api_version,
    };
    if ((rc = cw_ctrl_events_init(&s->events, cfg->kube, err)) != CW_OK)
        return rc;
    if (env->metrics &&
        (rc = cw_metrics_counter(env->metrics, "cronwarden_controller_volume_writes_total",
                                 "API writes of the volume reconciler by verb "
                                 "(create_recurringjob, label_volume, migrate_volume) and result "
                                 "(ok, conflict, not_found, error).",
                                 verb_result, &s->m_writes, err)) != CW_OK)
        return rc;
    cw_informer_config vc = {
        .name = "volumes",
        .kube = cfg->kube,
        .resource = {"longhorn.io", s->vol_version, "volumes", s->namespace},
        .page_size = cfg->page_size,
        .transform = volume_slim,
        .transform_ud = s,
        .index = volume_index,
        .queue = env->queue,
        .metrics = env->informer_metrics,
    };
    cw_informer_config rc_ = {
        .name = "recurringjobs",
        .kube = cfg->kube,
        .resource = {"longhorn.io", s->rj_version, "recurringjobs", s->namespace},
        .page_size = cfg->page_size,
        .transform = rj_slim,
        .transform_ud = s,
        .index = rj_index,
        .handler = on_rj,
        .handler_ud = s,
        .metrics = env->informer_metrics,
    };
    if ((rc = cw_informer_init(&s->volumes, &vc, err)) != CW_OK)
        return rc;
    s->ninformers = 1;
    if ((rc = cw_informer_init(&s->rjs, &rc_, err)) != CW_OK)
        return rc;
    s->ninformers = 2;
    return CW_OK;
}

static int op_start(void *self, cw_error *err)
{
    cw_volctl *s = self;
    int rc = cw_informer_start(&s->volumes, err);
    return rc != CW_OK ? rc : cw_informer_start(&s->rjs, err);
}

static int op_synced(void *self, char *why, size_t whylen)
{
    cw_volctl *s = self;
    cw_informer *infs[] = {&s->volumes, &s->rjs};
    return cw_informers_synced(infs, 2, why, whylen);
}

static int op_enqueue_all(void *self)
{
    cw_volctl *s = self;
    return cw_informer_enqueue_all(&s->volumes, s->queue);
}

static void op_stop(void *self)
{
    cw_volctl *s = self;
    if (s->ninformers > 1)
        cw_informer_stop(&s->rjs);
    if (s->ninformers > 0)
        cw_informer_stop(&s->volumes);
}

static void op_destroy(void *self)
{
    cw_volctl *s = self;
    if (!s)
        return;
    /* The job informer's handler reads the volume cache: free it first. */
    if (s->ninformers > 1)
        cw_informer_free(&s->rjs);
    if (s->ninformers > 0)
        cw_informer_free(&s->volumes);
    cw_ctrl_events_free(&s->events);
    free(s);
}

const cw_reconciler_ops cw_volume_reconciler = {
    .name = "volume",
    .summary = "Longhorn Volumes keep their job labels: the default group, legacy "
               "spec.recurringJobs migrated (Longhorn's manager applies the same default)",
    .default_enabled = 1,
    .create = op_create,
    .start = op_start,
    .synced = op_synced,
    .enqueue_all = op_enqueue_all,
    .reconcile = cw_volctl_reconcile,
    .stop = op_stop,
    .destroy = op_destroy,
};
