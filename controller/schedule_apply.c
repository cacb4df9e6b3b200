#include "controller/schedule_apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/core/shell.h"
#include "cron/tz.h"
#include "lib/failpoint.h"
#include "lib/json.h"
#include "lib/log.h"

/* ---- its flags and config ---- */

static const cw_opt opts[] = {
    CW_CTRL_OPT_NAMESPACE,
    CW_POLICY_OPT_SKIP_IMMEDIATELY(
        "what an absent spec.skipImmediately means",
        CW_OPT_IN(CW_RECONCILER_AT_CONFIG, cw_schedule_config, skip_immediately)),
};

static int config_init(void *p, const cw_ctrl_flags *f, cw_error *err)
{
    cw_schedule_config *c = p;
    int rc = cw_ctrl_policy_config_init(c, f, "--namespace", f->namespace, 1, err);
    c->base.policy.schedule_skip_immediately = c->skip_immediately;
    c->decide.policy = &c->base.policy;
    return rc;
}

/* ---- what it reads ---- */

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
    cw_shell *s = ud;
    char ikey[CW_CTRL_KEY_MAX];
    cw_strlist keys;
    if (op == CW_INFORMER_ADD || !blocks(old) || blocks(obj))
        return;
    cw_strlist_init(&keys);
    if (backup_index(NULL, old, ikey, sizeof(ikey)) &&
        cw_ctrl_store_index_keys(cw_shell_store(s, CW_SCHEDULE_SCHEDULES), ikey, &keys) == CW_OK)
        for (size_t i = 0; i < keys.len; i++)
            cw_queue_add(s->env.queue, keys.items[i]);
    cw_strlist_free(&keys);
}

/* ---- its state: the run metrics ---- */

typedef struct sched_state {
    cw_metric *m_backups; /* cronwarden_controller_schedule_backups_total{result} */
    cw_metric *m_skips;   /* cronwarden_controller_schedule_skips_total */
} sched_state;

static int init(cw_shell *s, void **state, cw_error *err)
{
    static const char *const result[] = {"result", NULL};
    sched_state *st = calloc(1, sizeof(*st));
    cw_metrics *m = s->env.metrics;
    int rc;
    if (!(*state = st))
        return cw_error_oom(err);
    if (!m)
        return CW_OK;
    rc = cw_metrics_counter(m, "cronwarden_controller_schedule_backups_total",
                            "Backups of due schedules by result (created; exists: the run's Backup "
                            "was there already).",
                            result, &st->m_backups, err);
    return rc != CW_OK ? rc
                       : cw_metrics_counter(m, "cronwarden_controller_schedule_skips_total",
                                            "Runs skipped because skipImmediately was in effect "
                                            "(consumed and reset to false).",
                                            NULL, &st->m_skips, err);
}

static void count(cw_metric *m, const char *result)
{
    const char *v[] = {result};
    if (m)
        cw_metrics_add(m, result ? v : NULL, 1);
}

/* ---- what it does ---- */

/* 409 on create: success when the Backup there is this schedule's (the same run, submitted by an
 * earlier attempt, process or leader), the 409 reported and backed off when it is someone
 * else's. */
static int backup_exists(cw_shell *s, const cw_kube_resource *r, const char *ns,
                         const char *schedule, const char *name, cw_verdict *res, cw_error *err)
{
    json_object *cur = NULL;
    char want[CW_SCHEDCTL_LABEL_MAX + 1];
    cw_schedctl_label_value(schedule, want, sizeof(want));
    int rc = cw_kube_get(s->env.kube, r, name, &cur, err);
    if (rc == CW_OK) {
        json_object *v = cw_json_member(cw_json_path(cur, "metadata.labels"), CW_SCHEDCTL_LABEL);
        if (!json_object_is_type(v, json_type_string) ||
            strcmp(json_object_get_string(v), want) != 0) {
            cw_verdict_backoff(res); /* not ours: the watch brings nothing to decide again on */
            rc = cw_error_set(err, CW_ECONFLICT,
                              "Backup %s/%s exists and is not labelled %s=%s: another object "
                              "holds this run's name",
                              ns, name, CW_SCHEDCTL_LABEL, want);
        }
    } else if (rc == CW_ENOTFOUND) {
        /* Gone between the create and the get (deleted at once): the run was submitted. */
        rc = CW_OK;
    }
    json_object_put(cur);
    return rc;
}

static void log_outcome(const char *key, const cw_schedctl_actions *a)
{
    static const struct {
        const char *msg;
        cw_log_level wrote, quiet; /* the level when something was written, and when not */
    } says[] = {
        [CW_SCHEDCTL_PAUSED] = {"paused", CW_LOG_DEBUG, CW_LOG_DEBUG},
        [CW_SCHEDCTL_INVALID] = {"schedule failed validation", CW_LOG_WARN, CW_LOG_DEBUG},
        [CW_SCHEDCTL_SKIPPED] = {"run skipped (skipImmediately consumed)", CW_LOG_INFO,
                                 CW_LOG_INFO},
        [CW_SCHEDCTL_WAITING] = {"waiting for the next run", CW_LOG_INFO, CW_LOG_DEBUG},
        [CW_SCHEDCTL_SUBMIT] = {"backup submitted", CW_LOG_INFO, CW_LOG_INFO},
        [CW_SCHEDCTL_RECORD] = {"backup of this run exists; recorded it", CW_LOG_INFO, CW_LOG_INFO},
        [CW_SCHEDCTL_BLOCKED] = {"due, waiting for a backup of the schedule to leave "
                                 "New/InProgress/Queued",
                                 CW_LOG_INFO, CW_LOG_INFO},
        [CW_SCHEDCTL_NEVER] = {"schedule never fires", CW_LOG_WARN, CW_LOG_DEBUG},
    };
    char next[CW_TZ_RFC3339_MAX] = "";
    cw_log_level level = a->patch ? says[a->outcome].wrote : says[a->outcome].quiet;
    if (!cw_log_enabled(level))
        return;
    if (a->next_run)
        cw_tz_format_rfc3339(a->next_run, 0, next, sizeof(next));
    char *problems = cw_strlist_join(&a->problems, "; ");
    cw_log(level, says[a->outcome].msg, CW_LS("schedule", key),
           CW_LS("outcome", cw_schedctl_outcome_name(a->outcome)),
           CW_LS("backup", a->backup_name ? a->backup_name : ""), CW_LS("next_run", next),
           CW_LS("validation_errors", problems ? problems : ""));
    free(problems);
}

/* The run's Backup: created, or found there (a crash came between the create and the status
 * write: *recorded 1). */
static int submit(cw_shell *s, json_object *sched, const cw_schedctl_actions *a, int *recorded,
                  cw_verdict *res, cw_error *err)
{
    sched_state *st = s->state;
    const char *ns = cw_json_path_string(sched, "metadata.namespace");
    cw_kube_resource r = cw_shell_resource(s, CW_SCHEDULE_BACKUPS, ns);
    int rc = cw_shell_create(s, "create_backup", sched, &r, a->backup, NULL, err);
    if (rc == CW_ECONFLICT &&
        (rc = backup_exists(s, &r, ns, cw_json_path_string(sched, "metadata.name"), a->backup_name,
                            res, err)) == CW_OK) {
        count(st->m_backups, "exists");
        *recorded = 1;
    } else if (rc == CW_OK) {
        count(st->m_backups, "created");
    }
    if (rc == CW_OK)
        cw_failpoint("schedule-backup-created"); /* e2e: a crash before the status write */
    else /* 403 and 422 too: retried (up to 5 minutes apart); the run stays due meanwhile */
        cw_error_prefix(err, "submitting Backup %s", a->backup_name);
    return rc;
}

static int reconcile(cw_shell *s, const char *key, cw_verdict *res, cw_error *err)
{
    const cw_schedule_config *cfg = s->env.config;
    json_object *sched = NULL, *backups = NULL;
    cw_schedctl_actions a;
    char ikey[CW_CTRL_KEY_MAX];
    int rc, recorded = 0;
    cw_schedctl_actions_init(&a);
    rc = cw_ctrl_store_get(cw_shell_store(s, CW_SCHEDULE_SCHEDULES), key, &sched);
    if (rc == CW_OK && schedule_index(NULL, sched, ikey, sizeof(ikey)))
        rc = cw_ctrl_store_by_index(cw_shell_store(s, CW_SCHEDULE_BACKUPS), ikey, &backups);
    if (rc == CW_OK)
        rc = cw_schedctl_decide(sched, backups, &cfg->decide, cw_shell_now_ms(s), &a, err);
    if (rc != CW_OK)
        goto done;
    if (a.backup && (rc = submit(s, sched, &a, &recorded, res, err)) != CW_OK)
        goto done;
    if (a.patch) {
        cw_kube_resource r = cw_shell_resource(s, CW_SCHEDULE_SCHEDULES,
                                               cw_json_path_string(sched, "metadata.namespace"));
        rc = cw_shell_patch(s, "patch_schedule", sched, &r,
                            cw_json_path_string(sched, "metadata.name"), a.patch, err);
        if (rc != CW_OK && rc != CW_ECONFLICT && rc != CW_ENOTFOUND)
            cw_error_prefix(err, "writing spec and status");
        if (rc != CW_OK)
            goto done;
    }
    if (a.outcome == CW_SCHEDCTL_SKIPPED)
        count(((sched_state *)s->state)->m_skips, NULL);
    log_outcome(key, &a);
    cw_verdict_requeue_at(res, a.requeue_at_ms,
                          cw_schedctl_outcome_name(recorded ? CW_SCHEDCTL_RECORD : a.outcome));
done:
    cw_schedctl_actions_free(&a);
    json_object_put(sched);
    json_object_put(backups);
    return rc;
}

static const cw_informer_def informers[] = {
    [CW_SCHEDULE_SCHEDULES] = {CW_INFORMER_RESOURCE("schedules", "velero.io", "v1", "schedules"),
                               .index = schedule_index},
    [CW_SCHEDULE_BACKUPS] = {CW_INFORMER_RESOURCE("backups", "velero.io", "v1", "backups"),
                             .label_selector = CW_SCHEDCTL_LABEL,
                             /* identity, the schedule label, the phase */
                             .keep =
                                 (const char *const[]){"metadata.name", "metadata.namespace",
                                                       "metadata.resourceVersion", "metadata.uid",
                                                       "metadata.creationTimestamp",
                                                       "metadata.labels|" CW_SCHEDCTL_LABEL,
                                                       "status.phase", NULL},
                             .index = backup_index, .handler = on_backup},
};

const cw_reconciler_ops cw_schedule_reconciler = {
    CW_RECONCILER_NAMED("schedule", "Schedule", "create_backup, patch_schedule"),
    .summary = "runs Velero Schedules (replaces Velero's schedule controller: start Velero with "
               "--disable-controllers=schedule)",
    CW_RECONCILER_TABLES(opts, informers),
    CW_RECONCILER_CONFIG(cw_schedule_config, config_init, cw_ctrl_policy_config_fini),
    CW_RECONCILER_STATE(init, free),
    .reconcile = reconcile,
};
