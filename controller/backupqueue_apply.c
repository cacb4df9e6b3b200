#include "controller/backupqueue_apply.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/backupqueue_fence.h"
#include "controller/core/events.h"
#include "controller/core/shell.h"
#include "controller/flags.h"
#include "lib/failpoint.h"
#include "lib/gostr.h"
#include "lib/json.h"
#include "lib/k8sname.h"
#include "lib/log.h"

#define PREEMPT_EVERY 32 /* renumbering writes between two looks for a freed slot */
#define CATCHUP_MS    50 /* look again this soon while the cache catches up with our writes */

/* ---- its flags and config ---- */

static const cw_opt opts[] = {
    CW_CTRL_OPT_NAMESPACE,
    CW_OPT_NUM_AT("concurrent-backups", cw_backupqueue_config, concurrent, "1", 1, 10000,
                  "backup-queue: Velero's --concurrent-backups, at most N Backups InProgress or "
                  "ReadyToStart at once (per Backup namespace)"),
    CW_OPT_DUR_AT("queue-resync", cw_backupqueue_config, resync, "1m",
                  "backup-queue: decide every queue again this often, besides on changes"),
};

static int config_init(void *p, const cw_ctrl_flags *f, cw_error *err)
{
    cw_backupqueue_config *c = p;
    int rc = cw_k8sname_check_flag("--namespace", f->namespace, 1, err);
    if (rc != CW_OK)
        return rc;
    if (c->resync < 1)
        return cw_error_set(err, CW_EUSAGE, "--queue-resync must be at least 1s");
    c->head.home = f->namespace;
    c->decide.concurrency = c->concurrent;
    return CW_OK;
}

/* ---- its state ---- */

typedef struct bq_state {
    cw_bqfence mem;       /* the fence, the Waiting Events posted (backupqueue_fence.h) */
    atomic_ulong freed;   /* Backups that left InProgress/ReadyToStart, Namespace changes: a
                             renumbering in progress stops for a new decision when it moves */
    cw_metric *m_queued;  /* cronwarden_controller_backupqueue_queued{namespace} */
    cw_metric *m_running; /* cronwarden_controller_backupqueue_running{namespace} */
    cw_metric *m_wait;    /* cronwarden_controller_backupqueue_wait_seconds{namespace} */
} bq_state;

static int init(cw_shell *s, void **state, cw_error *err)
{
    static const char *const ns[] = {"namespace", NULL};
    static const double waits[] = {1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600};
    bq_state *q = calloc(1, sizeof(*q));
    cw_metrics *m = s->env.metrics;
    int rc;
    if (!(*state = q))
        return cw_error_oom(err);
    cw_bqfence_init(&q->mem);
    atomic_init(&q->freed, 0);
    if (m &&
        ((rc = cw_metrics_gauge(m, "cronwarden_controller_backupqueue_queued",
                                "Backups Queued, per Backup namespace, after the last "
                                "decision.",
                                ns, &q->m_queued, err)) ||
         (rc = cw_metrics_gauge(m, "cronwarden_controller_backupqueue_running",
                                "Backups InProgress or ReadyToStart, per Backup namespace, "
                                "after the last decision.",
                                ns, &q->m_running, err)) ||
         (rc = cw_metrics_histogram(m, "cronwarden_controller_backupqueue_wait_seconds",
                                    "Time from a Backup's creation to its ReadyToStart.", ns, waits,
                                    sizeof(waits) / sizeof(waits[0]), &q->m_wait, err))))
        return rc;
    return CW_OK;
}

static void fini(void *state)
{
    bq_state *q = state;
    cw_bqfence_free(&q->mem);
    free(q);
}

/* ---- what it reads ---- */

static int namespace_index(void *ud, json_object *obj, char *out, size_t outlen)
{
    (void)ud;
    const char *ns = cw_json_path_string(obj, "metadata.namespace");
    int n = snprintf(out, outlen, "%s", ns ? ns : "");
    return ns && n > 0 && (size_t)n < outlen;
}

/* Every namespace that has Backups (a new leader term, the resync). */
static int enqueue_all(cw_shell *s)
{
    cw_strlist names;
    int rc;
    cw_strlist_init(&names);
    rc = cw_ctrl_store_index_names(cw_shell_store(s, CW_BACKUPQUEUE_BACKUPS), &names);
    for (size_t i = 0; rc == CW_OK && i < names.len; i++)
        rc = cw_queue_add(s->env.queue, names.items[i]);
    cw_strlist_free(&names);
    return rc;
}

static void queue_namespace_of(cw_shell *s, const char *key)
{
    char ns[CW_CTRL_KEY_MAX];
    const char *name;
    if (cw_ctrl_key_split(key, ns, sizeof(ns), &name))
        cw_queue_add(s->env.queue, ns);
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
    cw_shell *s = ud;
    bq_state *q = s->state;
    if (old && cw_bqctl_running(cw_json_path_string(old, "status.phase")) &&
        (!obj || !cw_bqctl_running(cw_json_path_string(obj, "status.phase"))))
        atomic_fetch_add(&q->freed, 1); /* a slot: a renumbering in progress gives way */
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
    cw_shell *s = ud;
    if (op != CW_INFORMER_UPDATE) {
        atomic_fetch_add(&((bq_state *)s->state)->freed, 1);
        enqueue_all(s);
    }
}

/* ---- what it does ---- */

/* A step in a Backup's life, said every time (counted as the write create_event). */
static void post_event(cw_shell *s, json_object *backup, const char *reason, const char *message)
{
    cw_shell_event(
        s, backup,
        &(cw_event){.type = "Normal", .reason = reason, .message = message, .kind = CW_EVENT_STEP});
}

/* One write of the decision and what goes with it (Event, metrics, log). */
static int apply_write(cw_shell *s, const char *ns, const cw_bqctl_write *w,
                       const cw_strmap *by_name, cw_error *err)
{
    bq_state *q = s->state;
    cw_kube_resource r = cw_shell_resource(s, CW_BACKUPQUEUE_BACKUPS, ns);
    json_object *b = cw_strmap_get_s(by_name, w->name);
    const char *verb = cw_bqctl_kind_name(w->kind);
    char msg[256], waited[48];
    int rc;
    json_object *patch = NULL;
    if ((rc = cw_bqctl_write_patch(w, &patch, err)) != CW_OK)
        return rc;
    if ((rc = cw_bqfence_set(&q->mem, ns, w->name, w->resource_version)) != CW_OK) {
        json_object_put(patch);
        return cw_error_oom(err);
    }
    rc = cw_shell_patch(s, verb, b, &r, w->name, patch, err);
    json_object_put(patch);
    if (rc != CW_OK && rc != CW_ECONFLICT) /* nothing changed that the cache must catch up with */
        cw_bqfence_drop(&q->mem, ns, w->name);
    if (rc != CW_OK)
        return cw_error_prefix(err, "Backup %s/%s: %s", ns, w->name, verb);
    const char *lv[] = {ns};
    switch (w->kind) {
    case CW_BQCTL_DEQUEUE:
        cw_go_format_seconds(w->waited, waited, sizeof(waited));
        snprintf(msg, sizeof(msg), "Backup is ready to start after waiting %s in the queue",
                 waited);
        if (q->m_wait)
            cw_metrics_observe(q->m_wait, lv, w->waited);
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

static void post_waits(cw_shell *s, const char *ns, const cw_bqctl_actions *a,
                       const cw_strmap *by_name)
{
    for (size_t i = 0; i < a->nwaits; i++) {
        const cw_bqctl_wait *w = &a->waits[i];
        char msg[512];
        if (!cw_bqfence_first_wait(&((bq_state *)s->state)->mem, ns, w->name, w->blocker))
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

static int reconcile(cw_shell *s, const char *key, cw_verdict *res, cw_error *err)
{
    const cw_backupqueue_config *cfg = s->env.config;
    bq_state *q = s->state;
    json_object *backups = NULL;
    cw_strlist live;
    cw_strmap by_name;
    cw_bqctl_actions a;
    int64_t now = cw_shell_now_ms(s);
    int rc = CW_OK;
    cw_strlist_init(&live);
    cw_strmap_init(&by_name);
    cw_bqctl_actions_init(&a);

    unsigned long freed = atomic_load(&q->freed); /* before the snapshot */
    if (cw_bqfence_pending(&q->mem, cw_shell_store(s, CW_BACKUPQUEUE_BACKUPS), key)) {
        cw_verdict_requeue_at(res, now + CATCHUP_MS, "catching-up");
        goto done;
    }
    /* One snapshot: the namespace's Backups are copied under one read lock. */
    if ((rc = cw_ctrl_store_by_index(cw_shell_store(s, CW_BACKUPQUEUE_BACKUPS), key, &backups)) !=
            CW_OK ||
        (rc = cw_ctrl_store_keys(cw_shell_store(s, CW_BACKUPQUEUE_NAMESPACES), &live)) != CW_OK ||
        (rc = index_names(backups, &by_name)) != CW_OK ||
        (rc = cw_bqctl_decide(backups, &live, &cfg->decide, now, &a, err)) != CW_OK)
        goto done;
    for (size_t i = 0; i < a.refused.len; i++)
        cw_log(CW_LOG_DEBUG, "backup covers no namespace", CW_LS("namespace", key),
               CW_LS("backup", a.refused.items[i]));
    for (size_t i = 0; i < a.nwrites; i++) {
        if (i > a.ndequeues && (i - a.ndequeues) % PREEMPT_EVERY == 0 &&
            atomic_load(&q->freed) != freed) {
            /* A slot came free while a long queue is renumbered: decide again now, so the next
             * release does not wait for thousands of position writes (the rest are written by
             * that decision, which writes what still differs). */
            cw_verdict_requeue_at(res, now, "preempted");
            goto done;
        }
        rc = apply_write(s, key, &a.writes[i], &by_name, err);
        if (rc == CW_OK && i + 1 == a.ndequeues)
            cw_failpoint("backupqueue-dequeued"); /* e2e: a crash before the renumbering */
        if (rc == CW_ENOTFOUND) {
            rc = CW_OK; /* that Backup is gone: its watch event brings the key back */
            continue;
        }
        if (rc != CW_OK) /* a 409: decided again from a snapshot that has its new version */
            goto done;
    }
    post_waits(s, key, &a, &by_name);
    cw_bqfence_prune(&q->mem, key, &by_name);
    const char *lv[] = {key};
    if (q->m_queued)
        cw_metrics_set(q->m_queued, lv, (double)a.queued);
    if (q->m_running)
        cw_metrics_set(q->m_running, lv, (double)a.running);
    if (!a.nwrites)
        cw_log(CW_LOG_DEBUG, "backup queue up to date", CW_LS("namespace", key),
               CW_LI("queued", a.queued), CW_LI("running", a.running));
    /* Velero's periodic look at every queue, per namespace (restarts, missed events). */
    cw_verdict_requeue_at(res, now + (int64_t)(cfg->resync * 1000), outcome_of(&a));
done:
    cw_bqctl_actions_free(&a);
    cw_strmap_free(&by_name, NULL);
    cw_strlist_free(&live);
    json_object_put(backups);
    return rc;
}

static const cw_informer_def informers[] = {
    [CW_BACKUPQUEUE_BACKUPS] = {CW_INFORMER_RESOURCE("queue-backups", "velero.io", "v1", "backups"),
                                /* 5,000 Backups stay small, and every decision copies them */
                                .keep =
                                    (const char *const[]){
                                        "apiVersion", "kind", "metadata.name", "metadata.namespace",
                                        "metadata.uid", "metadata.resourceVersion",
                                        "metadata.creationTimestamp", "spec.includedNamespaces",
                                        "spec.excludedNamespaces", "status.phase",
                                        "status.queuePosition", NULL},
                                .index = namespace_index, .handler = on_backup},
    [CW_BACKUPQUEUE_NAMESPACES] = {CW_INFORMER_RESOURCE("namespaces", "", "v1", "namespaces"),
                                   .scope = CW_SHELL_ALL,
                                   .keep = (const char *const[]){"metadata.name",
                                                                 "metadata.resourceVersion", NULL},
                                   .handler = on_namespace},
};

const cw_reconciler_ops cw_backupqueue_reconciler = {
    CW_RECONCILER_NAMED("backup-queue", "backup queue",
                        "dequeue, renumber, enqueue: Backup merge patches; create_event"),
    .summary = "runs Velero's backup queue: New -> Queued -> ReadyToStart, at most "
               "--concurrent-backups at once (replaces Velero's backup-queue controller: start "
               "Velero with --disable-controllers=backup-queue)",
    CW_RECONCILER_TABLES(opts, informers),
    CW_RECONCILER_CONFIG(cw_backupqueue_config, config_init, NULL),
    CW_RECONCILER_STATE(init, fini),
    .enqueue_all = enqueue_all,
    .reconcile = reconcile,
    .conflict_ms = 100, /* the fence then waits for the newer version */
};
