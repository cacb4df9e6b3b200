#include "controller/backupqueue_apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/core/events.h"
#include "controller/core/manager.h"
#include "lib/clock.h"
#include "lib/failpoint.h"
#include "lib/json.h"
#include "lib/log.h"

#define KEY_MAX       600
#define CATCHUP_MS    50  /* look again this soon while the cache catches up with our writes */
#define CONFLICT_MS   100 /* after a 409: the fence then waits for the newer version */
#define PREEMPT_EVERY 32  /* renumbering writes between two looks for a freed slot */

static cw_kube_resource backups_res(const char *ns)
{
    return (cw_kube_resource){"velero.io", "v1", "backups", ns && *ns ? ns : NULL};
}

static int64_t realtime_ms(void *ud)
{
    (void)ud;
    return cw_clock_wall_ms();
}

/* ---- informer plumbing ---- */

static int namespace_index(void *ud, json_object *obj, char *out, size_t outlen)
{
    (void)ud;
    const char *ns = cw_json_path_string(obj, "metadata.namespace");
    int n = snprintf(out, outlen, "%s", ns ? ns : "");
    return ns && n > 0 && (size_t)n < outlen;
}

/* Copies src's member at dotted path into dst under key (nothing when absent). 0 on success. */
static int keep(json_object *dst, const char *key, json_object *src, const char *path)
{
    json_object *v = cw_json_path(src, path);
    return v ? json_object_object_add(dst, key, json_object_get(v)) : 0;
}

/* What the cache keeps of a Backup: identity, creation, the namespace lists, phase and
 * position (5,000 Backups stay small, and every decision copies them). */
static json_object *backup_slim(void *ud, json_object *obj)
{
    (void)ud;
    json_object *out = json_object_new_object(), *meta = json_object_new_object();
    json_object *spec = json_object_new_object(), *status = json_object_new_object();
    int bad = !out || !meta || !spec || !status || keep(out, "apiVersion", obj, "apiVersion") ||
              keep(out, "kind", obj, "kind") || keep(meta, "name", obj, "metadata.name") ||
              keep(meta, "namespace", obj, "metadata.namespace") ||
              keep(meta, "uid", obj, "metadata.uid") ||
              keep(meta, "resourceVersion", obj, "metadata.resourceVersion") ||
              keep(meta, "creationTimestamp", obj, "metadata.creationTimestamp") ||
              keep(spec, "includedNamespaces", obj, "spec.includedNamespaces") ||
              keep(spec, "excludedNamespaces", obj, "spec.excludedNamespaces") ||
              keep(status, "phase", obj, "status.phase") ||
              keep(status, "queuePosition", obj, "status.queuePosition");
    if (!bad && !json_object_object_add(out, "metadata", meta)) {
        meta = NULL;
        if (!json_object_object_add(out, "spec", spec)) {
            spec = NULL;
            if (!json_object_object_add(out, "status", status))
                return out;
        }
    }
    json_object_put(out);
    json_object_put(meta);
    json_object_put(spec);
    json_object_put(status);
    return NULL;
}

static json_object *namespace_slim(void *ud, json_object *obj)
{
    (void)ud;
    json_object *out = json_object_new_object(), *meta = json_object_new_object();
    if (out && meta && !keep(meta, "name", obj, "metadata.name") &&
        !keep(meta, "resourceVersion", obj, "metadata.resourceVersion") &&
        !json_object_object_add(out, "metadata", meta))
        return out;
    json_object_put(out);
    json_object_put(meta);
    return NULL;
}

static void queue_namespace_of(cw_bqctl *s, const char *key)
{
    const char *slash = strchr(key, '/');
    char ns[KEY_MAX];
    if (!slash || (size_t)(slash - key) >= sizeof(ns))
        return;
    memcpy(ns, key, (size_t)(slash - key));
    ns[slash - key] = '\0';
    cw_queue_add(s->o.queue, ns);
}

static int same_member(json_object *a, json_object *b, const char *path)
{
    json_object *x = cw_json_path(a, path), *y = cw_json_path(b, path);
    return (!x && !y) || (x && y && json_object_equal(x, y));
}

/* A Backup change that can move the queue: any new Backup (it may be New), a phase, position or
 * namespace list that changed (a Backup leaving InProgress frees a slot; one becoming Queued
 * joins), a running or queued Backup that went away. */
static void on_backup(void *ud, cw_informer_op op, const char *key, json_object *old,
                      json_object *obj)
{
    cw_bqctl *s = ud;
    if (old && cw_bqctl_running(cw_json_path_string(old, "status.phase")) &&
        (!obj || !cw_bqctl_running(cw_json_path_string(obj, "status.phase"))))
        atomic_fetch_add(&s->freed, 1); /* a slot: a renumbering in progress gives way */
    if (op == CW_INFORMER_DELETE) {
        const char *phase = cw_json_path_string(old, "status.phase");
        if (cw_bqctl_running(phase) || (phase && !strcmp(phase, "Queued")))
            queue_namespace_of(s, key);
        return;
    }
    if (op == CW_INFORMER_UPDATE && same_member(old, obj, "status.phase") &&
        same_member(old, obj, "status.queuePosition") && same_member(old, obj, "spec"))
        return;
    queue_namespace_of(s, key);
}

/* A Namespace appeared or went away: the namespaces of wildcard and all-namespace Backups
 * changed, every queue looks again. */
static void on_namespace(void *ud, cw_informer_op op, const char *key, json_object *old,
                         json_object *obj)
{
    (void)key;
    (void)old;
    (void)obj;
    if (op != CW_INFORMER_UPDATE) {
        atomic_fetch_add(&((cw_bqctl *)ud)->freed, 1);
        cw_bqctl_enqueue_all(ud);
    }
}

int cw_bqctl_enqueue_all(cw_bqctl *s)
{
    cw_strlist names;
    int rc;
    cw_strlist_init(&names);
    rc = cw_ctrl_store_index_names(cw_informer_store(&s->backups), &names);
    for (size_t i = 0; rc == CW_OK && i < names.len; i++)
        rc = cw_queue_add(s->o.queue, names.items[i]);
    cw_strlist_free(&names);
    return rc;
}

/* ---- set-up ---- */

static int register_metrics(cw_bqctl *s, cw_error *err)
{
    static const char *const verb_result[] = {"verb", "result", NULL};
    static const char *const ns[] = {"namespace", NULL};
    static const double waits[] = {1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600};
    int rc;
    if (!s->o.metrics)
        return CW_OK;
    if ((rc = cw_metrics_counter(s->o.metrics, "cronwarden_controller_backupqueue_writes_total",
                                 "API writes by verb (dequeue, renumber, enqueue: Backup merge "
                                 "patches; create_event) and result (ok, conflict, not_found, "
                                 "error).",
                                 verb_result, &s->m_writes, err)) ||
        (rc = cw_metrics_gauge(s->o.metrics, "cronwarden_controller_backupqueue_queued",
                               "Backups Queued, per Backup namespace, after the last decision.", ns,
                               &s->m_queued, err)) ||
        (rc = cw_metrics_gauge(s->o.metrics, "cronwarden_controller_backupqueue_running",
                               "Backups InProgress or ReadyToStart, per Backup namespace, after "
                               "the last decision.",
                               ns, &s->m_running, err)) ||
        (rc = cw_metrics_histogram(s->o.metrics, "cronwarden_controller_backupqueue_wait_seconds",
                                   "Time from a Backup's creation to its ReadyToStart.", ns, waits,
                                   sizeof(waits) / sizeof(waits[0]), &s->m_wait, err)))
        return rc;
    return CW_OK;
}

int cw_bqctl_init(cw_bqctl *s, const cw_bqctl_opts *o, cw_error *err)
{
    int rc;
    memset(s, 0, sizeof(*s));
    s->o = *o;
    if (!s->o.clock)
        s->o.clock = realtime_ms;
    if (s->o.namespace && !*s->o.namespace)
        s->o.namespace = NULL;
    if (s->o.resync <= 0)
        s->o.resync = 60;
    if (s->o.decide.concurrency < 1)
        s->o.decide.concurrency = 1;
    atomic_init(&s->freed, 0);
    cw_bqfence_init(&s->mem);
    if ((rc = register_metrics(s, err)) != CW_OK)
        return rc;
    cw_informer_config nc = {
        .name = "namespaces",
        .kube = o->kube,
        .resource = {"", "v1", "namespaces", NULL},
        .page_size = o->page_size,
        .transform = namespace_slim,
        .handler = on_namespace,
        .handler_ud = s,
        .metrics = o->informer_metrics,
    };
    if ((rc = cw_informer_init(&s->namespaces, &nc, err)) != CW_OK)
        return rc;
    s->namespaces_ok = 1;
    cw_informer_config bc = {
        .name = "queue-backups",
        .kube = o->kube,
        .resource = backups_res(s->o.namespace),
        .page_size = o->page_size,
        .transform = backup_slim,
        .index = namespace_index,
        .handler = on_backup,
        .handler_ud = s,
        .metrics = o->informer_metrics,
    };
    if ((rc = cw_informer_init(&s->backups, &bc, err)) != CW_OK)
        return rc;
    s->backups_ok = 1;
    return CW_OK;
}

void cw_bqctl_free(cw_bqctl *s)
{
    /* Namespaces first: their handler reads the Backup cache. */
    if (s->namespaces_ok)
        cw_informer_free(&s->namespaces);
    if (s->backups_ok)
        cw_informer_free(&s->backups);
    cw_bqfence_free(&s->mem);
    memset(s, 0, sizeof(*s));
}

int cw_bqctl_start(cw_bqctl *s, cw_error *err)
{
    int rc = cw_informer_start(&s->backups, err);
    return rc != CW_OK ? rc : cw_informer_start(&s->namespaces, err);
}

void cw_bqctl_stop(cw_bqctl *s)
{
    cw_informer_stop(&s->namespaces);
    cw_informer_stop(&s->backups);
}

/* ---- the reconcile ---- */

static void count_write(cw_bqctl *s, const char *verb, int rc)
{
    cw_ctrl_count_write(s->m_writes, verb, rc);
}

static void post_event(cw_bqctl *s, json_object *backup, const char *reason, const char *message)
{
    cw_error err;
    cw_error_init(&err);
    int rc = cw_ctrl_event_post(s->o.kube, backup, "Normal", reason, message,
                                s->o.clock(s->o.clock_ud), &err);
    count_write(s, "create_event", rc);
    if (rc != CW_OK)
        cw_log(CW_LOG_WARN, "could not post an Event", CW_LS("reason", reason),
               CW_LS("backup", cw_json_path_string(backup, "metadata.name")),
               CW_LS("error", err.message));
}

/* "1h2m3s" as Go prints a duration rounded to the second. */
static void format_wait(double seconds, char *out, size_t outlen)
{
    long long s = (long long)(seconds + 0.5), h = s / 3600, m = s / 60 % 60;
    if (h)
        snprintf(out, outlen, "%lldh%lldm%llds", h, m, s % 60);
    else if (m)
        snprintf(out, outlen, "%lldm%llds", m, s % 60);
    else
        snprintf(out, outlen, "%llds", s);
}

/* One write of the decision and what goes with it (Event, metrics, log). */
static int apply_write(cw_bqctl *s, const char *ns, const cw_bqctl_write *w,
                       const cw_strmap *by_name, cw_error *err)
{
    cw_kube_resource r = backups_res(ns);
    const char *verb = cw_bqctl_kind_name(w->kind);
    char msg[256], waited[48];
    int rc;
    json_object *patch = NULL;
    if ((rc = cw_bqctl_write_patch(w, &patch, err)) != CW_OK)
        return rc;
    if ((rc = cw_bqfence_set(&s->mem, ns, w->name, w->resource_version)) != CW_OK) {
        json_object_put(patch);
        return cw_error_oom(err);
    }
    rc = cw_kube_patch(s->o.kube, &r, w->name, CW_KUBE_PATCH_MERGE, patch, NULL, NULL, err);
    json_object_put(patch);
    count_write(s, verb, rc);
    if (rc != CW_OK && rc != CW_ECONFLICT)
        cw_bqfence_drop(&s->mem, ns,
                        w->name); /* nothing changed that the cache must catch up with */
    if (rc != CW_OK)
        return cw_error_prefix(err, "Backup %s/%s: %s", ns, w->name, verb);
    json_object *b = cw_strmap_get_s(by_name, w->name);
    const char *lv[] = {ns};
    switch (w->kind) {
    case CW_BQCTL_DEQUEUE:
        format_wait(w->waited, waited, sizeof(waited));
        snprintf(msg, sizeof(msg), "Backup is ready to start after waiting %s in the queue",
                 waited);
        if (s->m_wait)
            cw_metrics_observe(s->m_wait, lv, w->waited);
        cw_log(CW_LOG_INFO, "backup ready to start", CW_LS("backup", w->name),
               CW_LS("namespace", ns), CW_LD("waited_s", w->waited));
        post_event(s, b, "ReadyToStart", msg);
        break;
    case CW_BQCTL_ENQUEUE:
        snprintf(msg, sizeof(msg), "Backup is queued at position %lld", (long long)w->position);
        cw_log(CW_LOG_INFO, "backup queued", CW_LS("backup", w->name), CW_LS("namespace", ns),
               CW_LI("position", w->position));
        post_event(s, b, "Queued", msg);
        break;
    default:
        cw_log(CW_LOG_DEBUG, "queue position", CW_LS("backup", w->name), CW_LS("namespace", ns),
               CW_LI("from", w->old_position), CW_LI("to", w->position));
        break;
    }
    return CW_OK;
}

static void post_waits(cw_bqctl *s, const char *ns, const cw_bqctl_actions *a,
                       const cw_strmap *by_name)
{
    for (size_t i = 0; i < a->nwaits; i++) {
        const cw_bqctl_wait *w = &a->waits[i];
        char msg[512];
        if (!cw_bqfence_first_wait(&s->mem, ns, w->name, w->blocker))
            continue;
        snprintf(msg, sizeof(msg),
                 "Backup waits for Backup %s: both include namespace %s (Backups whose "
                 "namespaces overlap never run together)",
                 w->blocker, w->namespace);
        cw_log(CW_LOG_INFO, "backup waits", CW_LS("backup", w->name), CW_LS("namespace", ns),
               CW_LS("blocker", w->blocker), CW_LS("overlap", w->namespace));
        post_event(s, cw_strmap_get_s(by_name, w->name), "Waiting", msg);
    }
}

static int index_names(json_object *backups, cw_strmap *out)
{
    for (size_t i = 0; backups && i < json_object_array_length(backups); i++) {
        json_object *b = json_object_array_get_idx(backups, i);
        const char *name = cw_json_path_string(b, "metadata.name");
        if (name && cw_strmap_set_s(out, name, b, NULL) != CW_OK)
            return CW_ENOMEM;
    }
    return CW_OK;
}

static const char *outcome_of(const cw_bqctl_actions *a)
{
    if (a->ndequeues)
        return "dequeued";
    for (size_t i = 0; i < a->nwrites; i++)
        if (a->writes[i].kind == CW_BQCTL_ENQUEUE)
            return "queued";
    return a->nwrites ? "renumbered" : "idle";
}

int cw_bqctl_reconcile(void *ud, const char *key, cw_ctrl_result *res, cw_error *err)
{
    cw_bqctl *s = ud;
    json_object *backups = NULL;
    cw_strlist live;
    cw_strmap by_name;
    cw_bqctl_actions a;
    int64_t now = s->o.clock(s->o.clock_ud);
    int rc = CW_OK;
    cw_strlist_init(&live);
    cw_strmap_init(&by_name);
    cw_bqctl_actions_init(&a);

    unsigned long freed = atomic_load(&s->freed); /* before the snapshot */
    if (cw_bqfence_pending(&s->mem, cw_informer_store(&s->backups), key)) {
        res->outcome = "catching-up";
        res->requeue_at_ms = now + CATCHUP_MS;
        goto done;
    }
    /* One snapshot: the namespace's Backups are copied under one read lock. */
    if ((rc = cw_ctrl_store_by_index(cw_informer_store(&s->backups), key, &backups)) != CW_OK ||
        (rc = cw_ctrl_store_keys(cw_informer_store(&s->namespaces), &live)) != CW_OK ||
        (rc = index_names(backups, &by_name)) != CW_OK) {
        res->retry = 1;
        rc = cw_error_set(err, rc, "backup queue %s: out of memory", key);
        goto done;
    }
    if ((rc = cw_bqctl_decide(backups, &live, &s->o.decide, now, &a, err)) != CW_OK) {
        res->retry = rc != CW_EINVAL;
        cw_error_prefix(err, "backup queue %s", key);
        goto done;
    }
    for (size_t i = 0; i < a.refused.len; i++)
        cw_log(CW_LOG_DEBUG, "backup covers no namespace", CW_LS("namespace", key),
               CW_LS("backup", a.refused.items[i]));
    res->outcome = outcome_of(&a);
    for (size_t i = 0; i < a.nwrites; i++) {
        if (i > a.ndequeues && (i - a.ndequeues) % PREEMPT_EVERY == 0 &&
            atomic_load(&s->freed) != freed) {
            /* A slot came free while a long queue is renumbered: decide again now, so the next
             * release does not wait for thousands of position writes (the rest are written by
             * that decision, which writes what still differs). */
            res->outcome = "preempted";
            res->requeue_at_ms = now;
            goto done;
        }
        rc = apply_write(s, key, &a.writes[i], &by_name, err);
        if (rc == CW_OK && i + 1 == a.ndequeues)
            cw_failpoint("backupqueue-dequeued"); /* e2e: a crash before the renumbering */
        if (rc == CW_ENOTFOUND) {
            rc = CW_OK; /* deleted meanwhile: its watch event brings the key back */
            continue;
        }
        if (rc == CW_ECONFLICT) {
            /* The Backup moved on: decide again from a snapshot that has its new version. */
            cw_log(CW_LOG_DEBUG, "backup changed meanwhile; deciding again",
                   CW_LS("namespace", key), CW_LS("error", err->message));
            res->outcome = "conflict";
            res->requeue_at_ms = now + CONFLICT_MS;
            rc = CW_OK;
            goto done;
        }
        if (rc != CW_OK) {
            res->retry = 1; /* also 403 and 422: with backoff until RBAC or the object is fixed */
            res->outcome = NULL; /* counted as "error" */
            goto done;
        }
    }
    post_waits(s, key, &a, &by_name);
    cw_bqfence_prune(&s->mem, key, &by_name);
    const char *lv[] = {key};
    if (s->m_queued)
        cw_metrics_set(s->m_queued, lv, (double)a.queued);
    if (s->m_running)
        cw_metrics_set(s->m_running, lv, (double)a.running);
    if (!a.nwrites)
        cw_log(CW_LOG_DEBUG, "backup queue up to date", CW_LS("namespace", key),
               CW_LI("queued", a.queued), CW_LI("running", a.running));
    /* Velero's periodic look at every queue, per namespace (restarts, missed events). */
    res->requeue_at_ms = now + (int64_t)(s->o.resync * 1000);
done:
    cw_bqctl_actions_free(&a);
    cw_strmap_free(&by_name, NULL);
    cw_strlist_free(&live);
    json_object_put(backups);
    return rc;
}

/* ---- the reconciler as the manager sees it (controller/core/reconciler.h) ---- */

static int op_create(const cw_reconciler_env *env, void **self, cw_error *err)
{
    cw_bqctl *s = calloc(1, sizeof(*s));
    if (!s)
        return cw_error_oom(err);
    *self = s;
    cw_bqctl_opts o = {
        .kube = env->cfg->kube,
        .namespace = env->cfg->namespace,
        .queue = env->queue,
        .decide = {.concurrency = env->cfg->concurrent_backups},
        .resync = env->cfg->queue_resync,
        .metrics = env->metrics,
        .informer_metrics = env->informer_metrics,
        .page_size = env->cfg->page_size,
    };
    return cw_bqctl_init(s, &o, err);
}

static int op_start(void *self, cw_error *err)
{
    return cw_bqctl_start(self, err);
}

static int op_synced(void *self, char *why, size_t whylen)
{
    cw_bqctl *s = self;
    cw_informer *infs[] = {&s->backups, &s->namespaces};
    return cw_informers_synced(infs, 2, why, whylen);
}

static int op_enqueue_all(void *self)
{
    return cw_bqctl_enqueue_all(self);
}

static void op_stop(void *self)
{
    cw_bqctl_stop(self);
}

static void op_destroy(void *self)
{
    if (self)
        cw_bqctl_free(self);
    free(self);
}

const cw_reconciler_ops cw_backupqueue_reconciler = {
    .name = "backup-queue",
    .summary = "runs Velero's backup queue: New -> Queued -> ReadyToStart, at most "
               "--concurrent-backups at once (replaces Velero's backup-queue controller: start "
               "Velero with --disable-controllers=backup-queue)",
    .default_enabled = 0,
    .create = op_create,
    .start = op_start,
    .synced = op_synced,
    .enqueue_all = op_enqueue_all,
    .reconcile = cw_bqctl_reconcile,
    .stop = op_stop,
    .destroy = op_destroy,
};
