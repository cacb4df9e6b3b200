#include "controller/schedulehealth_apply.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/core/shell.h"
#include "controller/schedulehealth.h"
#include "defaults/kinds.h"
#include "velero/schedule.h"
#include "lib/json.h"
#include "lib/k8sname.h"
#include "lib/log.h"

/* ---- its flags and config ---- */

static const cw_opt opts[] = {
    CW_CTRL_OPT_LONGHORN_NAMESPACE,
    CW_CTRL_OPT_NAMESPACE,
    CW_CTRL_OPT_DEFAULT_GROUP,
    CW_OPT_DUR_AT("schedule-health-window", cw_schedulehealth_config, window, "24h",
                  "schedule-health: fire times judged for missed runs (the last DURATION), as cron "
                  "status --window"),
    CW_OPT_DUR_AT("schedule-health-grace", cw_schedulehealth_config, grace, "0s",
                  "schedule-health: how late a run may start and still count (0: 10% of the "
                  "interval, at least 1m, at most 1h)"),
};

static int config_init(void *p, const cw_ctrl_flags *f, cw_error *err)
{
    cw_schedulehealth_config *c = p;
    int rc =
        cw_ctrl_policy_config_init(c, f, "--longhorn-namespace", f->longhorn_namespace, 0, err);
    if (rc == CW_OK)
        rc = cw_k8sname_check_flag("--namespace", f->namespace, 1, err);
    if (rc != CW_OK)
        return rc;
    c->base.head.aside = f->namespace;
    cw_health_config_init(&c->health);
    c->health.tzdb = &c->base.tzdb;
    c->health.default_group = f->default_group ? f->default_group : "default";
    c->health.window = c->window ? (int64_t)c->window : CW_HEALTH_DEFAULT_WINDOW;
    c->health.grace = (int64_t)c->grace;
    if (c->health.window < 60 || (c->window && (double)c->health.window != c->window))
        return cw_error_set(err, CW_EUSAGE,
                            "--schedule-health-window must be whole seconds, at least 1m");
    if (c->grace < 0 || (double)c->health.grace != c->grace)
        return cw_error_set(err, CW_EUSAGE,
                            "--schedule-health-grace must be whole seconds, 0 or more");
    return CW_OK;
}

/* ---- its state: the model, what it remembers per schedule, its series ---- */

static const char *const sched_labels[] = {"kind", "namespace", "name", NULL};
static const char *const ns_label[] = {"namespace", NULL};

static const struct {
    const char *name, *help;
} gauges[CW_SHCTL_GAUGES] = {
    [CW_SHCTL_LAST_SUCCESS] = {"cronwarden_schedule_last_success_timestamp_seconds",
                               "When the last successful run of a schedule ended (0: none)."},
    [CW_SHCTL_LAST_FAILURE] = {"cronwarden_schedule_last_failure_timestamp_seconds",
                               "When the last failed run of a schedule ended (0: none)."},
    [CW_SHCTL_LAST_MISSED] = {"cronwarden_schedule_last_missed_timestamp_seconds",
                              "The fire time of the newest missed run of a schedule in the "
                              "window, not counting a paused Velero Schedule's (0: none)."},
    [CW_SHCTL_NEXT_RUN] = {"cronwarden_schedule_next_run_timestamp_seconds",
                           "The next fire time of a schedule (0: none: paused, suspended, "
                           "invalid or never firing)."},
    [CW_SHCTL_CONSECUTIVE_FAILURES] = {"cronwarden_schedule_consecutive_failures",
                                       "Failed runs of a schedule since its last success."},
    [CW_SHCTL_RUNNING] = {"cronwarden_schedule_running_seconds",
                          "How long the oldest run in progress of a schedule has run (0: none)."},
    [CW_SHCTL_STUCK_AFTER] = {"cronwarden_schedule_stuck_after_seconds",
                              "The running time from which a run of a schedule is stuck."},
};

typedef struct sh_state {
    pthread_mutex_t mu; /* everything below: informer threads feed, workers judge */
    cw_health model;
    int model_ok;
    cw_strmap memory;     /* reconcile key -> cw_shctl_memory * */
    cw_strlist volume_ns; /* namespaces with volume series */
    cw_metric *g[CW_SHCTL_GAUGES], *missed, *unprotected, *stale;
} sh_state;

static int register_metrics(cw_metrics *m, sh_state *st, cw_error *err)
{
    int rc = CW_OK;
    for (size_t i = 0; rc == CW_OK && i < CW_SHCTL_GAUGES; i++)
        rc = cw_metrics_gauge(m, gauges[i].name, gauges[i].help, sched_labels, &st->g[i], err);
    if (rc == CW_OK)
        rc = cw_metrics_counter(m, "cronwarden_schedule_missed_runs_total",
                                "Fire times of a schedule that passed their grace without a run "
                                "(not counting a paused Velero Schedule's); each once.",
                                sched_labels, &st->missed, err);
    if (rc == CW_OK)
        rc = cw_metrics_gauge(m, "cronwarden_volumes_unprotected",
                              "Longhorn volumes of a namespace no backup job applies to.", ns_label,
                              &st->unprotected, err);
    if (rc == CW_OK)
        rc = cw_metrics_gauge(m, "cronwarden_volumes_stale",
                              "Longhorn volumes of a namespace without a successful backup "
                              "within twice their shortest backup interval.",
                              ns_label, &st->stale, err);
    return rc;
}

static void fini(void *p)
{
    sh_state *st = p;
    if (!st)
        return;
    if (st->model_ok)
        cw_health_free(&st->model);
    cw_strmap_free(&st->memory, free);
    cw_strlist_free(&st->volume_ns);
    pthread_mutex_destroy(&st->mu);
    free(st);
}

static int init(cw_shell *s, void **state, cw_error *err)
{
    const cw_schedulehealth_config *cfg = s->env.config;
    sh_state *st = calloc(1, sizeof(*st));
    if (!(*state = st))
        return cw_error_oom(err);
    pthread_mutex_init(&st->mu, NULL);
    cw_strmap_init(&st->memory);
    cw_strlist_init(&st->volume_ns);
    int rc = cw_health_init(&st->model, &cfg->health, err);
    st->model_ok = rc == CW_OK;
    if (rc == CW_OK && s->env.metrics)
        rc = register_metrics(s->env.metrics, st, err);
    return rc;
}

/* ---- what it reads: every object into the model, its identity into the cache ---- */

/* What each store-less informer reads: its row of defaults/kinds.h (the kind the model is told,
 * the group its remove is keyed by). */
static const cw_kind_id kind_of[] = {
    [CW_SH_RECURRINGJOBS] = CW_KIND_RECURRINGJOB,
    [CW_SH_CRONJOBS] = CW_KIND_CRONJOB,
    [CW_SH_JOBS] = CW_KIND_JOB,
    [CW_SH_VOLUMES] = CW_KIND_VOLUME,
    [CW_SH_LHBACKUPS] = CW_KIND_LHBACKUP,
    [CW_SH_BACKUPVOLUMES] = CW_KIND_BACKUPVOLUME,
    [CW_SH_SCHEDULES] = CW_KIND_SCHEDULE,
    [CW_SH_BACKUPS] = CW_KIND_BACKUP,
};

/* An object into the model as it came (borrowed: what the informer lends a store-less row, given
 * back unchanged). Items of a LIST may come without apiVersion and kind, which the model reads. */
static void feed(cw_shell *s, json_object *obj, size_t inf)
{
    sh_state *st = s->state;
    const char *ns = cw_json_path_string(obj, "metadata.namespace");
    const char *name = cw_json_path_string(obj, "metadata.name");
    int add_api = !cw_json_path_string(obj, "apiVersion"),
        add_kind = !cw_json_path_string(obj, "kind");
    cw_error err;
    cw_error_init(&err);
    if (add_api)
        json_object_object_add(obj, "apiVersion",
                               json_object_new_string(cw_shell_api_version(s, inf)));
    if (add_kind)
        json_object_object_add(obj, "kind", json_object_new_string(cw_kinds[kind_of[inf]].kind));
    pthread_mutex_lock(&st->mu);
    if (cw_health_add(&st->model, obj, cw_kinds[kind_of[inf]].kind, &err) != CW_OK)
        cw_log(CW_LOG_WARN, "cannot judge this object", CW_LS("controller", s->r->name),
               CW_LS("object", name ? name : ""), CW_LS("namespace", ns ? ns : ""),
               CW_LS("error", err.message));
    pthread_mutex_unlock(&st->mu);
    if (add_api)
        json_object_object_del(obj, "apiVersion");
    if (add_kind)
        json_object_object_del(obj, "kind");
}

/* The schedule a Job or Backup belongs to, as the model filed it. Called with the lock held. */
static int owner_key(sh_state *st, size_t inf, const char *ns, const char *name, char *out,
                     size_t len)
{
    char owner[CW_CTRL_KEY_MAX];
    if (!cw_health_run_owner(&st->model,
                             inf == CW_SH_JOBS ? CW_HEALTH_RUN_JOB : CW_HEALTH_RUN_BACKUP, ns, name,
                             owner, sizeof(owner)))
        return 0;
    /* a Job: its CronJob, named as its RecurringJob; a Backup: its Schedule, the model says */
    return snprintf(out, len, "%s/%s/%s", inf == CW_SH_JOBS ? "RecurringJob" : "Schedule", ns,
                    owner) < (int)len;
}

/* A change: a deletion leaves the model; the schedule (or the volume counts) it concerns is
 * queued. key is the cache's "<ns>/<name>". */
static void changed(cw_shell *s, size_t inf, cw_informer_op op, const char *key)
{
    sh_state *st = s->state;
    char ns[256], wake[CW_CTRL_KEY_MAX] = "";
    const char *name;
    int volumes = inf == CW_SH_RECURRINGJOBS || inf == CW_SH_VOLUMES || inf == CW_SH_LHBACKUPS ||
                  inf == CW_SH_BACKUPVOLUMES;
    if (!cw_ctrl_key_split(key, ns, sizeof(ns), &name))
        return;
    pthread_mutex_lock(&st->mu);
    if (inf == CW_SH_RECURRINGJOBS || inf == CW_SH_CRONJOBS)
        snprintf(wake, sizeof(wake), "RecurringJob/%s", key);
    else if (inf == CW_SH_SCHEDULES)
        snprintf(wake, sizeof(wake), "Schedule/%s", key);
    else if ((inf == CW_SH_JOBS || inf == CW_SH_BACKUPS) &&
             !owner_key(st, inf, ns, name, wake, sizeof(wake)))
        wake[0] = '\0';
    if (op == CW_INFORMER_DELETE) {
        cw_health_remove(&st->model, cw_kinds[kind_of[inf]].group, cw_kinds[kind_of[inf]].kind, ns,
                         name);
    }
    pthread_mutex_unlock(&st->mu);
    if (*wake)
        cw_queue_add(s->env.queue, wake);
    if (volumes)
        cw_queue_add(s->env.queue, CW_SH_VOLUMES_KEY);
}

/* A store-less row's handler: the object into the model, then the change. */
#define INFORMER_FN(on_, inf)                                                                      \
    static void on_(void *ud, cw_informer_op op, const char *key, json_object *old,                \
                    json_object *obj)                                                              \
    {                                                                                              \
        (void)old;                                                                                 \
        if (obj)                                                                                   \
            feed(ud, obj, inf);                                                                    \
        changed(ud, inf, op, key);                                                                 \
    }
INFORMER_FN(on_recurringjob, CW_SH_RECURRINGJOBS)
INFORMER_FN(on_cronjob, CW_SH_CRONJOBS)
INFORMER_FN(on_job, CW_SH_JOBS)
INFORMER_FN(on_volume, CW_SH_VOLUMES)
INFORMER_FN(on_lhbackup, CW_SH_LHBACKUPS)
INFORMER_FN(on_backupvolume, CW_SH_BACKUPVOLUMES)
INFORMER_FN(on_schedule, CW_SH_SCHEDULES)
INFORMER_FN(on_backup, CW_SH_BACKUPS)

/* The identity rows only cache: their informer's store-less row says what changed. */
static void cached(void *ud, cw_informer_op op, const char *key, json_object *old, json_object *obj)
{
    (void)ud, (void)op, (void)key, (void)old, (void)obj;
}

/* ---- what it does ---- */

static int enqueue_all(cw_shell *s)
{
    static const struct {
        size_t inf;
        const char *kind;
    } scheds[] = {{CW_SH_RJ_IDS, "RecurringJob"}, {CW_SH_SCHEDULE_IDS, "Schedule"}};
    int rc = cw_queue_add(s->env.queue, CW_SH_VOLUMES_KEY);
    for (size_t k = 0; rc == CW_OK && k < 2; k++) {
        cw_strlist keys;
        cw_strlist_init(&keys);
        rc = cw_ctrl_store_keys(cw_shell_store(s, scheds[k].inf), &keys);
        for (size_t i = 0; rc == CW_OK && i < keys.len; i++) {
            char key[CW_CTRL_KEY_MAX];
            snprintf(key, sizeof(key), "%s/%s", scheds[k].kind, keys.items[i]);
            rc = cw_queue_add(s->env.queue, key);
        }
        cw_strlist_free(&keys);
    }
    return rc;
}

/* The per-namespace volume counts; namespaces without volumes lose their series. */
static int reconcile_volumes(cw_shell *s, cw_verdict *res, cw_error *err)
{
    sh_state *st = s->state;
    cw_health_ns_count *counts = NULL;
    size_t n = 0;
    int64_t now = cw_shell_now_ms(s) / 1000;
    cw_strlist seen;
    cw_strlist_init(&seen);
    pthread_mutex_lock(&st->mu);
    int rc = cw_health_volume_counts(&st->model, now, &counts, &n, err);
    for (size_t i = 0; rc == CW_OK && i < n; i++) {
        const char *v[] = {counts[i].namespace};
        cw_metrics_set(st->unprotected, v, (double)counts[i].unprotected);
        cw_metrics_set(st->stale, v, (double)counts[i].stale);
        rc = cw_strlist_add(&seen, counts[i].namespace);
    }
    for (size_t i = 0; rc == CW_OK && i < st->volume_ns.len; i++) {
        const char *v[] = {st->volume_ns.items[i]};
        if (!cw_strlist_contains(&seen, st->volume_ns.items[i])) {
            cw_metrics_remove(st->unprotected, v);
            cw_metrics_remove(st->stale, v);
        }
    }
    if (rc == CW_OK) {
        cw_strlist_free(&st->volume_ns);
        st->volume_ns = seen;
        cw_strlist_init(&seen);
    }
    pthread_mutex_unlock(&st->mu);
    cw_health_counts_free(counts, n);
    cw_strlist_free(&seen);
    if (rc != CW_OK)
        return rc == CW_ENOMEM && !err->message[0] ? cw_error_oom(err) : rc;
    cw_verdict_requeue_at(res, (now + 60) * 1000, "volumes"); /* stale comes with time */
    return CW_OK;
}

/* A schedule gone: its series and memory go. Called with the lock held. */
static void forget(sh_state *st, const char *key, const char *const *labels)
{
    for (size_t i = 0; i < CW_SHCTL_GAUGES; i++)
        cw_metrics_remove(st->g[i], labels);
    cw_metrics_remove(st->missed, labels);
    free(cw_strmap_del_s(&st->memory, key));
}

static void export(sh_state *st, const char *const *labels, const cw_shctl_actions *a)
{
    for (size_t i = 0; i < CW_SHCTL_GAUGES; i++)
        cw_metrics_set(st->g[i], labels, a->gauges[i]);
    cw_metrics_add(st->missed, labels, a->missed_new); /* + 0 makes the series */
}

static void post(cw_shell *s, const char *key, size_t inf, const char *ns, const char *name,
                 const cw_shctl_actions *a)
{
    char okey[CW_CTRL_KEY_MAX];
    json_object *obj = NULL;
    if (!a->nevents)
        return;
    snprintf(okey, sizeof(okey), "%s/%s", ns, name);
    if (cw_ctrl_store_get(cw_shell_store(s, inf), okey, &obj) != CW_OK)
        return; /* gone meanwhile: said by nobody */
    for (size_t i = 0; i < a->nevents; i++)
        if (cw_shell_event(s, obj,
                           &(cw_event){.type = "Warning",
                                       .reason = a->events[i].reason,
                                       .message = a->events[i].message,
                                       .kind = CW_EVENT_OCCURRENCE,
                                       .id = a->events[i].id}))
            cw_log(CW_LOG_INFO, "said", CW_LS("schedule", key),
                   CW_LS("reason", a->events[i].reason), CW_LS("message", a->events[i].message));
    json_object_put(obj);
}

/* "RecurringJob/<ns>/<name>" or "Schedule/<ns>/<name>". */
static int parse_key(const char *key, cw_health_kind *kind, char *ns, size_t nslen,
                     const char **name)
{
    const char *rest;
    if (!strncmp(key, "RecurringJob/", 13))
        *kind = CW_HEALTH_RECURRINGJOB, rest = key + 13;
    else if (!strncmp(key, "Schedule/", 9))
        *kind = CW_HEALTH_SCHEDULE, rest = key + 9;
    else
        return 0;
    return cw_ctrl_key_split(rest, ns, nslen, name);
}

static int reconcile(cw_shell *s, const char *key, cw_verdict *res, cw_error *err)
{
    const cw_schedulehealth_config *cfg = s->env.config;
    sh_state *st = s->state;
    cw_health_kind kind;
    char ns[256];
    const char *name;
    cw_health_result r;
    cw_shctl_actions a;
    if (!strcmp(key, CW_SH_VOLUMES_KEY))
        return reconcile_volumes(s, res, err);
    if (!parse_key(key, &kind, ns, sizeof(ns), &name))
        return cw_error_set(err, CW_EINVAL, "not a schedule key");
    const char *labels[] = {kind == CW_HEALTH_RECURRINGJOB ? "RecurringJob" : "Schedule", ns, name};
    cw_shctl_actions_init(&a);
    int64_t now = cw_shell_now_ms(s) / 1000;
    pthread_mutex_lock(&st->mu);
    int rc = cw_health_eval_one(&st->model, kind, ns, name, now, &r, err);
    if (rc == CW_ENOTFOUND) {
        forget(st, key, labels);
        pthread_mutex_unlock(&st->mu);
        cw_verdict_gone(res, "gone");
        return CW_OK;
    }
    cw_shctl_memory *mem = rc == CW_OK ? cw_strmap_get_s(&st->memory, key) : NULL;
    if (rc == CW_OK && !mem) {
        if (!(mem = malloc(sizeof(*mem))) ||
            cw_strmap_set_s(&st->memory, key, mem, NULL) != CW_OK) {
            free(mem);
            mem = NULL;
            rc = cw_error_oom(err);
        } else {
            cw_shctl_memory_init(mem);
        }
    }
    if (rc == CW_OK && (rc = cw_shctl_decide(&cfg->health, now, &r, mem, &a, err)) == CW_OK)
        export(st, labels, &a);
    pthread_mutex_unlock(&st->mu);
    if (rc == CW_OK) {
        post(s, key, kind == CW_HEALTH_RECURRINGJOB ? CW_SH_RJ_IDS : CW_SH_SCHEDULE_IDS, ns, name,
             &a);
        cw_verdict_requeue_at(res, a.recheck_at * 1000, cw_health_state_name(r.state));
        cw_health_result_free(&r);
    }
    cw_shctl_actions_free(&a);
    return rc;
}

/* Longhorn's and Velero's kinds are optional: a cluster without one has none of that half to
 * report. Every row is store-less: the model is the reconciler's own. */
#define INFORMER(name_, group_, version_, resource_, scope_, on_, optional_)                       \
    {                                                                                              \
        CW_INFORMER_RESOURCE(name_, group_, version_, resource_),                                  \
            .scope = (scope_), .storeless = 1, .handler = (on_), .optional = (optional_)           \
    }
/* A schedule's identity (the object its Events are about), beside its store-less row. */
#define IDENTITY_OF(row_, name_, group_, resource_, scope_)                                        \
    {                                                                                              \
        CW_INFORMER_RESOURCE(name_, group_, NULL, resource_),                                      \
            .version_of = 1 + (row_), .scope = (scope_), .keep = identity, .handler = cached,      \
            .optional = 1                                                                          \
    }

static const char *const identity[] = {"apiVersion",
                                       "kind",
                                       "metadata.name",
                                       "metadata.namespace",
                                       "metadata.uid",
                                       "metadata.resourceVersion",
                                       NULL};

static const cw_informer_def informers[] = {
    [CW_SH_RECURRINGJOBS] = INFORMER("recurringjobs", "longhorn.io", NULL, "recurringjobs",
                                     CW_SHELL_HOME, on_recurringjob, 1),
    [CW_SH_CRONJOBS] =
        INFORMER("cronjobs", "batch", NULL, "cronjobs", CW_SHELL_HOME, on_cronjob, 0),
    [CW_SH_JOBS] = INFORMER("jobs", "batch", "v1", "jobs", CW_SHELL_HOME, on_job, 0),
    [CW_SH_VOLUMES] =
        INFORMER("volumes", "longhorn.io", NULL, "volumes", CW_SHELL_HOME, on_volume, 1),
    [CW_SH_LHBACKUPS] =
        INFORMER("longhorn-backups", "longhorn.io", NULL, "backups", CW_SHELL_HOME, on_lhbackup, 1),
    [CW_SH_BACKUPVOLUMES] = INFORMER("backupvolumes", "longhorn.io", NULL, "backupvolumes",
                                     CW_SHELL_HOME, on_backupvolume, 1),
    [CW_SH_SCHEDULES] =
        INFORMER("schedules", "velero.io", NULL, "schedules", CW_SHELL_ASIDE, on_schedule, 1),
    [CW_SH_BACKUPS] = {CW_INFORMER_RESOURCE("backups", "velero.io", NULL, "backups"),
                       .scope = CW_SHELL_ASIDE, .label_selector = CW_SCHEDULE_NAME_LABEL,
                       .storeless = 1, .handler = on_backup, .optional = 1},
    [CW_SH_RJ_IDS] = IDENTITY_OF(CW_SH_RECURRINGJOBS, "recurringjobs", "longhorn.io",
                                 "recurringjobs", CW_SHELL_HOME),
    [CW_SH_SCHEDULE_IDS] =
        IDENTITY_OF(CW_SH_SCHEDULES, "schedules", "velero.io", "schedules", CW_SHELL_ASIDE),
};

const cw_reconciler_ops cw_schedulehealth_reconciler = {
    CW_RECONCILER_NAMED("schedule-health", "schedule", ""),
    .summary = "watches Longhorn RecurringJobs and Velero Schedules: metrics of their runs "
               "(missed, failed, stuck) and volumes unprotected or stale, Warning Events per "
               "missed or failed run (reads only)",
    .default_enabled = 1,
    CW_RECONCILER_TABLES(opts, informers),
    CW_RECONCILER_CONFIG(cw_schedulehealth_config, config_init, cw_ctrl_policy_config_fini),
    CW_RECONCILER_STATE(init, fini),
    .enqueue_all = enqueue_all,
    .reconcile = reconcile,
};
