#include "velero/schedctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "velero/schedule.h"
#include "cron/cron.h"
#include "lib/json.h"
#include "cron/tz.h"

void cw_schedctl_actions_init(cw_schedctl_actions *a)
{
    memset(a, 0, sizeof(*a));
    cw_strlist_init(&a->problems);
}

void cw_schedctl_actions_free(cw_schedctl_actions *a)
{
    json_object_put(a->patch);
    json_object_put(a->backup);
    free(a->backup_name);
    cw_strlist_free(&a->problems);
    memset(a, 0, sizeof(*a));
}

const char *cw_schedctl_outcome_name(cw_schedctl_outcome o)
{
    static const char *const names[] = {"paused",    "invalid",  "skipped", "waiting",
                                        "submitted", "recorded", "blocked", "never"};
    return (unsigned)o < sizeof(names) / sizeof(names[0]) ? names[o] : "unknown";
}

void cw_schedctl_label_value(const char *schedule, char *out, size_t outlen)
{
    cw_schedule_label_value(schedule, out, outlen);
}

int cw_schedctl_backup_name(const char *schedule, int64_t t, char *out, size_t outlen)
{
    char rfc[CW_TZ_RFC3339_MAX];
    if (cw_tz_format_rfc3339(t, 0, rfc, sizeof(rfc)) != CW_OK)
        return CW_EINVAL;
    /* "2026-01-02T03:04:05Z" -> "20260102030405" */
    char stamp[15] = {rfc[0],  rfc[1],  rfc[2],  rfc[3],  rfc[5],  rfc[6],  rfc[8], rfc[9],
                      rfc[11], rfc[12], rfc[14], rfc[15], rfc[17], rfc[18], 0};
    int n = snprintf(out, outlen, "%s-%s", schedule, stamp);
    return n >= 0 && (size_t)n < outlen ? CW_OK : CW_ELIMIT;
}

int cw_schedctl_backup_blocks(const char *phase)
{
    static const char *const blocking[] = {"", "New", "InProgress", "Queued", "ReadyToStart"};
    if (!phase)
        return 1;
    for (size_t i = 0; i < sizeof(blocking) / sizeof(blocking[0]); i++)
        if (strcmp(phase, blocking[i]) == 0)
            return 1;
    return 0;
}

/* ---- building the merge patch ---- */

typedef struct patch {
    json_object *root; /* NULL until the first change */
    const char *rv;
    int oom;
} patch;

/* The object at root.<section>, created on first use. */
static json_object *section(patch *p, const char *key)
{
    if (!p->root) {
        if (!(p->root = json_object_new_object())) {
            p->oom = 1;
            return NULL;
        }
        if (p->rv) {
            json_object *meta = json_object_new_object();
            if (!meta ||
                json_object_object_add(meta, "resourceVersion", json_object_new_string(p->rv)) !=
                    0 ||
                json_object_object_add(p->root, "metadata", meta) != 0)
                p->oom = 1;
        }
    }
    json_object *s = cw_json_member(p->root, key);
    if (!s) {
        s = json_object_new_object();
        if (!s || json_object_object_add(p->root, key, s) != 0) {
            json_object_put(s);
            p->oom = 1;
            return NULL;
        }
    }
    return s;
}

/* Sets root.<sec>.<key> = v (owned; NULL value means JSON null: delete the key). */
static void set(patch *p, const char *sec, const char *key, json_object *v)
{
    json_object *s = section(p, sec);
    if (!s || json_object_object_add(s, key, v) != 0) {
        json_object_put(v);
        p->oom = 1;
    }
}

static json_object *time_value(int64_t t, int *oom)
{
    char s[CW_TZ_RFC3339_MAX];
    if (cw_tz_format_rfc3339(t, 0, s, sizeof(s)) != CW_OK)
        return NULL;
    json_object *v = json_object_new_string(s);
    if (!v)
        *oom = 1;
    return v;
}

/* status.phase := phase when it differs. */
static void want_phase(patch *p, json_object *schedule, const char *phase)
{
    const char *cur = cw_json_path_string(schedule, "status.phase");
    if (!cur || strcmp(cur, phase) != 0)
        set(p, "status", "phase", json_object_new_string(phase));
}

static int same_errors(json_object *cur, const cw_strlist *want)
{
    if (!json_object_is_type(cur, json_type_array) || json_object_array_length(cur) != want->len)
        return 0;
    for (size_t i = 0; i < want->len; i++) {
        json_object *e = json_object_array_get_idx(cur, i);
        if (!json_object_is_type(e, json_type_string) ||
            strcmp(json_object_get_string(e), want->items[i]) != 0)
            return 0;
    }
    return 1;
}

/* ---- the Backup ---- */

/* Copies the string members of `from` (when it is an object) into `to`, except `skip`. */
static int copy_strings(json_object *from, json_object *to, const char *skip)
{
    if (!json_object_is_type(from, json_type_object))
        return CW_OK;
    json_object_object_foreach(from, k, v)
    {
        if (!json_object_is_type(v, json_type_string) || (skip && strcmp(k, skip) == 0))
            continue;
        if (json_object_object_add(to, k, json_object_new_string(json_object_get_string(v))))
            return CW_ENOMEM;
    }
    return CW_OK;
}

/* Velero's getBackup / FromSchedule: spec = spec.template; labels = the template's
 * metadata.labels when it has that map, else the Schedule's own labels, plus the schedule label;
 * the Schedule's annotations (but kubectl's last-applied-configuration, which describes the
 * Schedule); an owner reference when spec.useOwnerReferencesInBackup is true. */
static int make_backup(json_object *schedule, const char *ns, const char *name,
                       const char *backup_name, json_object **out)
{
    json_object *b = json_object_new_object(), *meta = json_object_new_object();
    json_object *labels = json_object_new_object(), *spec = NULL, *annotations = NULL;
    json_object *tmpl = cw_json_path(schedule, "spec.template");
    char label[CW_SCHEDCTL_LABEL_MAX + 1];
    int rc = CW_ENOMEM;
    *out = NULL;
    if (!b || !meta || !labels)
        goto done;
    if (json_object_is_type(tmpl, json_type_object)) {
        if (cw_json_copy(tmpl, &spec) != CW_OK)
            goto done;
    } else if (!(spec = json_object_new_object())) {
        goto done;
    }
    json_object *tlabels = cw_json_path(spec, "metadata.labels");
    if (copy_strings(json_object_is_type(tlabels, json_type_object)
                         ? tlabels
                         : cw_json_path(schedule, "metadata.labels"),
                     labels, NULL) != CW_OK)
        goto done;
    json_object *sann = cw_json_path(schedule, "metadata.annotations");
    if (json_object_is_type(sann, json_type_object)) {
        if (!(annotations = json_object_new_object()) ||
            copy_strings(sann, annotations, "kubectl.kubernetes.io/last-applied-configuration") !=
                CW_OK)
            goto done;
        if (json_object_object_length(annotations)) {
            json_object_object_add(meta, "annotations", annotations);
            annotations = NULL;
        }
    }
    cw_schedctl_label_value(name, label, sizeof(label));
    if (json_object_object_add(labels, CW_SCHEDCTL_LABEL, json_object_new_string(label)) ||
        json_object_object_add(meta, "name", json_object_new_string(backup_name)) ||
        (ns && json_object_object_add(meta, "namespace", json_object_new_string(ns))))
        goto done;
    json_object_object_add(meta, "labels", labels);
    labels = NULL;
    json_object *use_owner = cw_json_path(schedule, "spec.useOwnerReferencesInBackup");
    const char *uid = cw_json_path_string(schedule, "metadata.uid");
    if (json_object_is_type(use_owner, json_type_boolean) && json_object_get_boolean(use_owner) &&
        uid) {
        json_object *refs = cw_json_owner_refs("velero.io/v1", "Schedule", name, uid, 1);
        if (!refs || json_object_object_add(meta, "ownerReferences", refs)) {
            json_object_put(refs);
            goto done;
        }
    }
    json_object_object_add(b, "apiVersion", json_object_new_string("velero.io/v1"));
    json_object_object_add(b, "kind", json_object_new_string("Backup"));
    json_object_object_add(b, "metadata", meta);
    meta = NULL;
    json_object_object_add(b, "spec", spec);
    spec = NULL;
    *out = b;
    b = NULL;
    rc = CW_OK;
done:
    json_object_put(b);
    json_object_put(meta);
    json_object_put(labels);
    json_object_put(spec);
    json_object_put(annotations);
    return rc;
}

/* ---- timing ---- */

/* The schedule as it will be once the patch is applied (only the fields the timing reads), and
 * its next run from there: the same cw_schedule_next_run, never a second copy of the rule. */
static int next_after(json_object *schedule, json_object *status_patch, const cw_cron *cron,
                      int32_t offset, int64_t now_ceil, cw_schedule_run *run, cw_error *err)
{
    json_object *copy = NULL, *status;
    int rc;
    if ((rc = cw_json_copy(schedule, &copy)) != CW_OK)
        return cw_error_oom(err);
    if (!json_object_is_type(status = cw_json_member(copy, "status"), json_type_object)) {
        status = json_object_new_object();
        json_object_object_add(copy, "status", status);
    }
    if (json_object_is_type(status_patch, json_type_object)) {
        json_object_object_foreach(status_patch, k, v)
        {
            json_object_object_add(status, k, v ? json_object_get(v) : NULL);
        }
    }
    rc = cw_schedule_next_run(copy, cron, offset, now_ceil, run, err);
    json_object_put(copy);
    return rc;
}

static int64_t requeue_for(const cw_schedule_run *run)
{
    /* Due once now is strictly after the fire time: one millisecond past it. */
    return run->fires ? run->next * 1000 + 1 : 0;
}

/* ---- the decision ---- */

int cw_schedctl_decide(json_object *schedule, json_object *backups, const cw_schedctl_config *cfg,
                       int64_t now_ms, cw_schedctl_actions *out, cw_error *err)
{
    cw_decision d;
    cw_cron cron;
    cw_schedule_run run;
    patch p = {.rv = cw_json_path_string(schedule, "metadata.resourceVersion")};
    const char *name = cw_json_path_string(schedule, "metadata.name");
    const char *ns = cw_json_path_string(schedule, "metadata.namespace");
    int64_t now_s = now_ms >= 0 ? now_ms / 1000 : -((-now_ms + 999) / 1000);
    int64_t now_ceil = now_s + (now_ms - now_s * 1000 > 0);
    double recheck = cfg->blocked_recheck > 0 ? cfg->blocked_recheck : 60;
    int rc = CW_OK, skip = 0;
    cw_decision_init(&d);

    if (!name || !*name) {
        rc = cw_error_set(err, CW_EINVAL, "metadata.name: missing");
        goto done;
    }
    json_object *paused = cw_json_path(schedule, "spec.paused");
    if (json_object_is_type(paused, json_type_boolean) && json_object_get_boolean(paused)) {
        out->outcome = CW_SCHEDCTL_PAUSED;
        goto done;
    }

    /* Validation: Velero's messages, from the policy. */
    if ((rc = cw_schedule_validate(cfg->policy, CW_OP_CREATE, NULL, schedule, &d, err)) != CW_OK)
        goto done;
    if (d.problems.len) {
        out->outcome = CW_SCHEDCTL_INVALID;
        for (size_t i = 0; i < d.problems.len; i++)
            if ((rc = cw_strlist_add(&out->problems, d.problems.items[i])) != CW_OK)
                goto oom;
        want_phase(&p, schedule, "FailedValidation");
        if (!same_errors(cw_json_path(schedule, "status.validationErrors"), &out->problems)) {
            json_object *arr = json_object_new_array();
            for (size_t i = 0; arr && i < out->problems.len; i++)
                json_object_array_add(arr, json_object_new_string(out->problems.items[i]));
            if (!arr)
                p.oom = 1;
            set(&p, "status", "validationErrors", arr);
        }
        goto finish;
    }
    if ((rc = cw_cron_parse(cw_json_path_string(schedule, "spec.schedule"), cfg->policy->tzdb,
                            &cron, err)) != CW_OK) {
        cw_error_prefix(err, "spec.schedule");
        if (rc == CW_EINVAL)
            rc = CW_EIO; /* validated a moment ago: only the zone files can have changed */
        goto done;
    }
    want_phase(&p, schedule, "Enabled");
    json_object *errs = cw_json_path(schedule, "status.validationErrors");
    if (errs && !json_object_is_type(errs, json_type_null))
        set(&p, "status", "validationErrors", NULL);

    /* skipImmediately: consumed and reset to false (not absent: absent would follow a true server
     * default again and skip forever). */
    if ((rc = cw_schedule_effective_skip(cfg->policy, schedule, &skip, err)) != CW_OK)
        goto done;
    if (skip) {
        out->outcome = CW_SCHEDCTL_SKIPPED;
        set(&p, "spec", "skipImmediately", json_object_new_boolean(0));
        set(&p, "status", "lastSkipped", time_value(now_s, &p.oom));
        if (p.oom)
            goto oom;
        if ((rc = next_after(schedule, cw_json_member(p.root, "status"), &cron, cfg->zone_offset,
                             now_ceil, &run, err)) != CW_OK)
            goto done;
        out->next_run = run.fires ? run.next : 0;
        out->requeue_at_ms = requeue_for(&run);
        goto finish;
    }

    if ((rc = cw_schedule_next_run(schedule, &cron, cfg->zone_offset, now_ceil, &run, err)) !=
        CW_OK)
        goto done;
    if (!run.fires) {
        out->outcome = CW_SCHEDCTL_NEVER;
        goto finish;
    }
    out->next_run = run.next;
    if (!run.due) {
        out->outcome = CW_SCHEDCTL_WAITING;
        out->requeue_at_ms = requeue_for(&run);
        goto finish;
    }

    /* Due. The run's own Backup may exist already (created, then the status write was lost). */
    char bname[CW_SCHEDCTL_NAME_MAX + 64];
    if ((rc = cw_schedctl_backup_name(name, run.next, bname, sizeof(bname))) != CW_OK) {
        rc = cw_error_set(err, CW_EINVAL, "metadata.name: too long for a Backup name");
        goto done;
    }
    size_t nb =
        json_object_is_type(backups, json_type_array) ? json_object_array_length(backups) : 0;
    const char *blocker = NULL;
    int exists = 0;
    for (size_t i = 0; i < nb; i++) {
        json_object *b = json_object_array_get_idx(backups, i);
        const char *bn = cw_json_path_string(b, "metadata.name");
        if (bn && strcmp(bn, bname) == 0)
            exists = 1;
        else if (!blocker && bn &&
                 cw_schedctl_backup_blocks(cw_json_path_string(b, "status.phase")))
            blocker = bn;
    }
    if (!exists && blocker) {
        out->outcome = CW_SCHEDCTL_BLOCKED;
        if (!(out->backup_name = strdup(blocker)))
            goto oom;
        out->requeue_at_ms = now_ms + (int64_t)(recheck * 1000);
        goto finish;
    }
    out->outcome = exists ? CW_SCHEDCTL_RECORD : CW_SCHEDCTL_SUBMIT;
    if (!(out->backup_name = strdup(bname)))
        goto oom;
    if (!exists && (rc = make_backup(schedule, ns, name, bname, &out->backup)) != CW_OK)
        goto oom;
    set(&p, "status", "lastBackup", time_value(now_s, &p.oom));
    if (p.oom)
        goto oom;
    cw_schedule_run after;
    if ((rc = next_after(schedule, cw_json_member(p.root, "status"), &cron, cfg->zone_offset,
                         now_ceil, &after, err)) != CW_OK)
        goto done;
    out->requeue_at_ms = requeue_for(&after);

finish:
    if (p.oom)
        goto oom;
    out->patch = p.root;
    p.root = NULL;
    rc = CW_OK;
    goto done;
oom:
    rc = cw_error_set(err, CW_ENOMEM, "deciding about a Schedule: out of memory");
done:
    json_object_put(p.root);
    cw_decision_free(&d);
    return rc;
}
