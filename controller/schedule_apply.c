#include "controller/schedule_apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "controller/core/manager.h"
#include "lib/clock.h"
#include "lib/failpoint.h"
#include "lib/json.h"
#include "lib/log.h"
#include "cron/tz.h"

#define KEY_MAX 600

static const char *velero = "velero.io";

static cw_kube_resource resource(const char *plural, const char *ns)
{
    return (cw_kube_resource){velero, "v1", plural, ns && *ns ? ns : NULL};
}

static int64_t realtime_ms(void *ud)
{
    (void)ud;
    return cw_clock_wall_ms();
}

/* ---- informer plumbing ---- */

/* "namespace/<label value>": how a Schedule and the Backups labelled with it meet. */
static int index_key(char *out, size_t outlen, const char *ns, const char *label)
{
    int n = snprintf(out, outlen, "%s/%s", ns ? ns : "", label);
    return n >= 0 && (size_t)n < outlen;
}

static int schedule_index(void *ud, json_object *obj, char *out, size_t outlen)
{
    (void)ud;
    const char *name = cw_json_path_string(obj, "metadata.name");
    char label[CW_SCHEDCTL_LABEL_MAX + 1];
    if (!name)
        return 0;
    cw_schedctl_label_value(name, label, sizeof(label));
    return index_key(out, outlen, cw_json_path_string(obj, "metadata.namespace"), label);
}

static int backup_index(void *ud, json_object *obj, char *out, size_t outlen)
{
    (void)ud;
    json_object *labels = cw_json_path(obj, "metadata.labels");
    json_object *v = cw_json_member(labels, CW_SCHEDCTL_LABEL);
    if (!json_object_is_type(v, json_type_string))
        return 0;
    return index_key(out, outlen, cw_json_path_string(obj, "metadata.namespace"),
                     json_object_get_string(v));
}

/* What the cache keeps of a Backup: its identity, the schedule label and the phase. */
static json_object *backup_slim(void *ud, json_object *obj)
{
    (void)ud;
    static const char *const meta_keys[] = {"name", "namespace", "resourceVersion", "uid",
                                            "creationTimestamp"};
    json_object *out = json_object_new_object(), *meta = json_object_new_object();
    json_object *labels = json_object_new_object(), *status = json_object_new_object();
    if (!out || !meta || !labels || !status)
        goto oom;
    for (size_t i = 0; i < sizeof(meta_keys) / sizeof(meta_keys[0]); i++) {
        json_object *v = cw_json_path(cw_json_member(obj, "metadata"), meta_keys[i]);
        if (v && json_object_object_add(meta, meta_keys[i], json_object_get(v)))
            goto oom;
    }
    json_object *label = cw_json_member(cw_json_path(obj, "metadata.labels"), CW_SCHEDCTL_LABEL);
    if (label && json_object_object_add(labels, CW_SCHEDCTL_LABEL, json_object_get(label)))
        goto oom;
    json_object *phase = cw_json_path(obj, "status.phase");
    if (phase && json_object_object_add(status, "phase", json_object_get(phase)))
        goto oom;
    json_object_object_add(meta, "labels", labels);
    json_object_object_add(out, "metadata", meta);
    json_object_object_add(out, "status", status);
    return out;
oom:
    json_object_put(out);
    json_object_put(meta);
    json_object_put(labels);
    json_object_put(status);
    return NULL;
}

static int blocks(json_object *backup)
{
    return backup && cw_schedctl_backup_blocks(cw_json_path_string(backup, "status.phase"));
}

/* A Backup stopped holding its schedule back (it left New/InProgress/Queued/ReadyToStart, or went
 * away): wake the Schedule(s) it is labelled with, a due run may go now. Other changes wake
 * nothing: a new Backup only blocks, and waking the schedule on its own fresh Backup would race
 * the Schedule's watch event into a 409. Schedules are found through their own index, as long
 * names are hashed in labels. */
static void on_backup(void *ud, cw_informer_op op, const char *key, json_object *old,
                      json_object *obj)
{
    (void)key;
    cw_schedctl *s = ud;
    char ikey[KEY_MAX];
    cw_strlist keys;
    if (op == CW_INFORMER_ADD || !blocks(old) || blocks(obj))
        return;
    cw_strlist_init(&keys);
    if (backup_index(NULL, old, ikey, sizeof(ikey)) &&
        cw_ctrl_store_index_keys(cw_informer_store(&s->schedules), ikey, &keys) == CW_OK)
        for (size_t i = 0; i < keys.len; i++)
            cw_queue_add(s->o.queue, keys.items[i]);
    cw_strlist_free(&keys);
}

int cw_schedctl_init(cw_schedctl *s, const cw_schedctl_opts *o, cw_error *err)
{
    static const char *const result[] = {"result", NULL};
    static const char *const verb_result[] = {"verb", "result", NULL};
    int rc;
    memset(s, 0, sizeof(*s));
    s->o = *o;
    if (!s->o.clock)
        s->o.clock = realtime_ms;
    if (s->o.namespace && !*s->o.namespace)
        s->o.namespace = NULL;
    if (!s->o.decide.policy)
        return cw_error_set(err, CW_EINVAL, "schedule reconciler: a policy is required");
    if (s->o.metrics &&
        ((rc = cw_metrics_counter(s->o.metrics, "cronwarden_controller_schedule_backups_total",
                                  "Backups of due schedules by result (created; exists: the "
                                  "run's Backup was there already).",
                                  result, &s->m_backups, err)) ||
         (rc = cw_metrics_counter(s->o.metrics, "cronwarden_controller_schedule_skips_total",
                                  "Runs skipped because skipImmediately was in effect "
                                  "(consumed and reset to false).",
                                  NULL, &s->m_skips, err)) ||
         (rc = cw_metrics_counter(s->o.metrics, "cronwarden_controller_schedule_writes_total",
                                  "API writes by verb (create_backup, patch_schedule) and result "
                                  "(ok, conflict, not_found, error).",
                                  verb_result, &s->m_writes, err))))
        return rc;
    cw_informer_config ic = {
        .name = "schedules",
        .kube = o->kube,
        .resource = resource("schedules", s->o.namespace),
        .page_size = o->page_size,
        .index = schedule_index,
        .queue = o->queue,
        .metrics = o->informer_metrics,
    };
    if ((rc = cw_informer_init(&s->schedules, &ic, err)) != CW_OK)
        return rc;
    s->schedules_ok = 1;
    cw_informer_config bc = {
        .name = "backups",
        .kube = o->kube,
        .resource = resource("backups", s->o.namespace),
        .label_selector = CW_SCHEDCTL_LABEL,
        .page_size = o->page_size,
        .transform = backup_slim,
        .index = backup_index,
        .handler = on_backup,
        .handler_ud = s,
        .metrics = o->informer_metrics,
    };
    if ((rc = cw_informer_init(&s->backups, &bc, err)) != CW_OK)
        return rc;
    s->backups_ok = 1;
    return CW_OK;
}

void cw_schedctl_free(cw_schedctl *s)
{
    /* Backups first: their handler reads the schedule cache. */
    if (s->backups_ok)
        cw_informer_free(&s->backups);
    if (s->schedules_ok)
        cw_informer_free(&s->schedules);
    memset(s, 0, sizeof(*s));
}

int cw_schedctl_start(cw_schedctl *s, cw_error *err)
{
    int rc = cw_informer_start(&s->schedules, err);
    return rc != CW_OK ? rc : cw_informer_start(&s->backups, err);
}

void cw_schedctl_stop(cw_schedctl *s)
{
    cw_informer_stop(&s->backups);
    cw_informer_stop(&s->schedules);
}

int cw_schedctl_synced(cw_schedctl *s)
{
    return cw_informer_synced(&s->schedules) && cw_informer_synced(&s->backups);
}

int cw_schedctl_enqueue_all(cw_schedctl *s)
{
    return cw_informer_enqueue_all(&s->schedules, s->o.queue);
}

/* ---- the reconcile ---- */

static void count_write(cw_schedctl *s, const char *verb, int rc)
{
    cw_ctrl_count_write(s->m_writes, verb, rc);
}

/* 409 on create: success when the Backup there is this schedule's (the same run, submitted by an
 * earlier attempt, process or leader), a conflict to report when it is someone else's. */
static int backup_exists(cw_schedctl *s, const cw_kube_resource *r, const char *ns,
                         const char *schedule, const char *name, cw_error *err)
{
    json_object *cur = NULL;
    char want[CW_SCHEDCTL_LABEL_MAX + 1];
    cw_schedctl_label_value(schedule, want, sizeof(want));
    int rc = cw_kube_get(s->o.kube, r, name, &cur, err);
    if (rc == CW_OK) {
        json_object *v = cw_json_member(cw_json_path(cur, "metadata.labels"), CW_SCHEDCTL_LABEL);
        if (!json_object_is_type(v, json_type_string) ||
            strcmp(json_object_get_string(v), want) != 0)
            rc = cw_error_set(err, CW_ECONFLICT,
                              "Backup %s/%s exists and is not labelled %s=%s: another object "
                              "holds this run's name",
                              ns, name, CW_SCHEDCTL_LABEL, want);
    } else if (rc == CW_ENOTFOUND) {
        /* Gone between the create and the get (deleted at once): the run was submitted. */
        rc = CW_OK;
    }
    json_object_put(cur);
    return rc;
}

static void log_outcome(const char *key, const cw_schedctl_actions *a)
{
    char next[CW_TZ_RFC3339_MAX] = "";
    if (a->next_run)
        cw_tz_format_rfc3339(a->next_run, 0, next, sizeof(next));
    cw_log_level level = CW_LOG_INFO;
    const char *msg;
    switch (a->outcome) {
    case CW_SCHEDCTL_SUBMIT:
        msg = "backup submitted";
        break;
    case CW_SCHEDCTL_RECORD:
        msg = "backup of this run exists; recorded it";
        break;
    case CW_SCHEDCTL_SKIPPED:
        msg = "run skipped (skipImmediately consumed)";
        break;
    case CW_SCHEDCTL_INVALID:
        msg = "schedule failed validation";
        level = a->patch ? CW_LOG_WARN : CW_LOG_DEBUG;
        break;
    case CW_SCHEDCTL_BLOCKED:
        msg = "due, waiting for a backup of the schedule to leave New/InProgress/Queued";
        break;
    case CW_SCHEDCTL_NEVER:
        msg = "schedule never fires";
        level = a->patch ? CW_LOG_WARN : CW_LOG_DEBUG;
        break;
    case CW_SCHEDCTL_PAUSED:
        msg = "paused";
        level = CW_LOG_DEBUG;
        break;
    default:
        msg = "waiting for the next run";
        level = a->patch ? CW_LOG_INFO : CW_LOG_DEBUG;
        break;
    }
    if (!cw_log_enabled(level))
        return;
    char *problems = cw_strlist_join(&a->problems, "; ");
    cw_log(level, msg, CW_LS("schedule", key),
           CW_LS("outcome", cw_schedctl_outcome_name(a->outcome)),
           CW_LS("backup", a->backup_name ? a->backup_name : ""), CW_LS("next_run", next),
           CW_LS("validation_errors", problems ? problems : ""));
    free(problems);
}

int cw_schedctl_reconcile(void *ud, const char *key, cw_ctrl_result *res, cw_error *err)
{
    cw_schedctl *s = ud;
    json_object *sched = NULL, *backups = NULL;
    cw_schedctl_actions a;
    char ikey[KEY_MAX];
    int rc;
    cw_schedctl_actions_init(&a);

    rc = cw_ctrl_store_get(cw_informer_store(&s->schedules), key, &sched);
    if (rc == CW_ENOTFOUND) {
        res->outcome = "deleted";
        rc = CW_OK;
        goto done;
    }
    if (rc != CW_OK) {
        res->retry = 1;
        cw_error_set(err, rc, "%s: out of memory", key);
        goto done;
    }
    const char *name = cw_json_path_string(sched, "metadata.name");
    const char *ns = cw_json_path_string(sched, "metadata.namespace");
    if (schedule_index(NULL, sched, ikey, sizeof(ikey)) &&
        (rc = cw_ctrl_store_by_index(cw_informer_store(&s->backups), ikey, &backups)) != CW_OK) {
        res->retry = 1;
        cw_error_set(err, rc, "%s: out of memory", key);
        goto done;
    }
    if ((rc = cw_schedctl_decide(sched, backups, &s->o.decide, s->o.clock(s->o.clock_ud), &a,
                                 err)) != CW_OK) {
        res->retry = rc != CW_EINVAL; /* an object we cannot act on waits for its next change */
        cw_error_prefix(err, "Schedule %s", key);
        goto done;
    }
    res->outcome = cw_schedctl_outcome_name(a.outcome);

    if (a.backup) {
        cw_kube_resource r = resource("backups", ns);
        rc = cw_kube_create(s->o.kube, &r, a.backup, NULL, NULL, err);
        count_write(s, "create_backup", rc);
        const char *created[] = {"created"}, *existed[] = {"exists"};
        if (rc == CW_ECONFLICT &&
            (rc = backup_exists(s, &r, ns, name, a.backup_name, err)) == CW_OK) {
            if (s->m_backups)
                cw_metrics_add(s->m_backups, existed, 1);
            res->outcome = cw_schedctl_outcome_name(CW_SCHEDCTL_RECORD);
        } else if (rc == CW_OK && s->m_backups) {
            cw_metrics_add(s->m_backups, created, 1);
        }
        if (rc == CW_OK)
            cw_failpoint("schedule-backup-created"); /* e2e: a crash before the status write */
        if (rc != CW_OK) {
            /* Also 403 and 422: logged with backoff (up to 5 minutes) until someone fixes
             * RBAC or the object; the run stays due meanwhile. */
            res->retry = 1;
            cw_error_prefix(err, "Schedule %s: submitting Backup %s", key, a.backup_name);
            goto done;
        }
    }
    if (a.patch) {
        cw_kube_resource r = resource("schedules", ns);
        rc = cw_kube_patch(s->o.kube, &r, name, CW_KUBE_PATCH_MERGE, a.patch, NULL, NULL, err);
        count_write(s, "patch_schedule", rc);
        if (rc == CW_ENOTFOUND) {
            rc = CW_OK; /* deleted meanwhile: nothing left to do */
            res->outcome = "deleted";
            goto done;
        }
        if (rc == CW_ECONFLICT) {
            /* The cache is behind the Schedule: its watch event brings the new version and
             * queues the key again (while this reconcile runs, or just after); decide then. */
            cw_log(CW_LOG_DEBUG, "schedule changed meanwhile; deciding again",
                   CW_LS("schedule", key), CW_LS("error", err->message));
            res->outcome = "conflict";
            res->requeue_at_ms = s->o.clock(s->o.clock_ud) + 1000;
            rc = CW_OK;
            goto done;
        }
        if (rc != CW_OK) {
            res->retry = 1;
            cw_error_prefix(err, "Schedule %s: writing spec and status", key);
            goto done;
        }
    }
    if (a.outcome == CW_SCHEDCTL_SKIPPED && s->m_skips)
        cw_metrics_add(s->m_skips, NULL, 1);
    log_outcome(key, &a);
    res->requeue_at_ms = a.requeue_at_ms;
done:
    cw_schedctl_actions_free(&a);
    json_object_put(sched);
    json_object_put(backups);
    return rc;
}

/* ---- the reconciler as the manager sees it (controller/core/reconciler.h) ---- */

static int op_create(const cw_reconciler_env *env, void **self, cw_error *err)
{
    cw_schedctl *s = calloc(1, sizeof(*s));
    if (!s)
        return cw_error_oom(err);
    *self = s;
    cw_schedctl_opts so = {
        .kube = env->cfg->kube,
        .namespace = env->cfg->namespace,
        .queue = env->queue,
        .decide = {.policy = env->cfg->policy, .zone_offset = env->cfg->zone_offset},
        .metrics = env->metrics,
        .informer_metrics = env->informer_metrics,
        .page_size = env->cfg->page_size,
    };
    return cw_schedctl_init(s, &so, err);
}

static int op_start(void *self, cw_error *err)
{
    return cw_schedctl_start(self, err);
}

static int op_synced(void *self, char *why, size_t whylen)
{
    cw_schedctl *s = self;
    cw_informer *infs[] = {&s->schedules, &s->backups};
    return cw_informers_synced(infs, 2, why, whylen);
}

static int op_enqueue_all(void *self)
{
    return cw_schedctl_enqueue_all(self);
}

static void op_stop(void *self)
{
    cw_schedctl_stop(self);
}

static void op_destroy(void *self)
{
    if (self)
        cw_schedctl_free(self);
    free(self);
}

const cw_reconciler_ops cw_schedule_reconciler = {
    .name = "schedule",
    .summary = "runs Velero Schedules (replaces Velero's schedule controller: start Velero with "
               "--disable-controllers=schedule)",
    .default_enabled = 0,
    .create = op_create,
    .start = op_start,
    .synced = op_synced,
    .enqueue_all = op_enqueue_all,
    .reconcile = cw_schedctl_reconcile,
    .stop = op_stop,
    .destroy = op_destroy,
};
