/* Schedules: a RecurringJob (and its CronJob) or a Velero Schedule read into what the judgement
 * needs; the cron parsed with its zone. */
#include "schedules/internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/gostr.h"
#include "lib/json.h"

#define LONGHORN_JOB_LABEL "recurring-job.longhorn.io"

void cw_health_config_init(cw_health_config *c)
{
    *c = (cw_health_config){.window = CW_HEALTH_DEFAULT_WINDOW,
                            .default_group = "default",
                            .recent = CW_HEALTH_DEFAULT_RECENT,
                            .history_from = CW_HEALTH_NONE};
}

void cw_health_sched_init(cw_health_sched *s)
{
    memset(s, 0, sizeof(*s));
    cw_strlist_init(&s->groups);
    s->created = s->ttl = s->last_skipped = CW_HEALTH_NONE;
    s->cronjob_created = s->last_schedule = s->starting_deadline = CW_HEALTH_NONE;
    s->success_limit = 3;
    s->failed_limit = 1;
}

void cw_health_sched_free(cw_health_sched *s)
{
    free(s->namespace);
    free(s->name);
    free(s->cron);
    free(s->task);
    free(s->phase);
    free(s->zone);
    cw_strlist_free(&s->groups);
    cw_health_sched_init(s);
}

static int identity(cw_health_sched *s, json_object *obj, cw_error *err)
{
    json_object *meta = cw_json_member(obj, "metadata");
    const char *name = cw_json_path_string(meta, "name");
    const char *ns = cw_json_path_string(meta, "namespace");
    if (!name)
        return cw_error_set(err, CW_EINVAL, "metadata.name: missing");
    free(s->namespace);
    free(s->name);
    if (!cw_health__dup(&s->namespace, ns ? ns : "") || !cw_health__dup(&s->name, name))
        return cw_error_oom(err);
    return cw_health__time(meta, "metadata", "creationTimestamp", &s->created, err);
}

static int set_string(char **dst, const char *v, cw_error *err)
{
    free(*dst);
    return cw_health__dup(dst, v) ? CW_OK : cw_error_oom(err);
}

int cw_health_sched_from_recurringjob(cw_health_sched *s, json_object *rj, cw_error *err)
{
    json_object *spec = NULL, *groups = NULL;
    const char *task = NULL, *cron = NULL;
    int rc;
    s->kind = CW_HEALTH_RECURRINGJOB;
    if ((rc = identity(s, rj, err)) || (rc = cw_json_opt_object(rj, NULL, "spec", &spec, err)) ||
        (rc = cw_json_opt_string(spec, "spec", "task", &task, err)) ||
        (rc = cw_json_opt_string(spec, "spec", "cron", &cron, err)) ||
        (rc = cw_json_opt_array(spec, "spec", "groups", &groups, err)) ||
        (rc = set_string(&s->task, task ? task : "", err)) ||
        (rc = set_string(&s->cron, cron ? cron : "", err)))
        return rc;
    cw_strlist_clear(&s->groups);
    for (size_t i = 0; groups && i < json_object_array_length(groups); i++) {
        json_object *g = json_object_array_get_idx(groups, i);
        if (json_object_is_type(g, json_type_string) &&
            cw_strlist_add(&s->groups, json_object_get_string(g)) != CW_OK)
            return cw_error_oom(err);
    }
    return CW_OK;
}

void cw_health__cronjob_free(cw_health_cronjob *c)
{
    free(c->name);
    free(c->recurringjob);
    free(c->schedule);
    free(c->zone);
    memset(c, 0, sizeof(*c));
}

/* The RecurringJob a CronJob runs: Longhorn's label (how Longhorn finds it), else its
 * ownerReference of kind RecurringJob. NULL: not one of Longhorn's. */
static const char *cronjob_recurringjob(json_object *cj)
{
    const char *l = cw_health__key(cw_json_path(cj, "metadata.labels"), LONGHORN_JOB_LABEL);
    if (l)
        return l;
    json_object *refs = cw_json_path(cj, "metadata.ownerReferences");
    for (size_t i = 0;
         json_object_is_type(refs, json_type_array) && i < json_object_array_length(refs); i++) {
        json_object *ref = json_object_array_get_idx(refs, i);
        const char *kind = cw_json_path_string(ref, "kind"),
                   *api = cw_json_path_string(ref, "apiVersion");
        if (kind && api && !strcmp(kind, "RecurringJob") && !strncmp(api, "longhorn.io/", 12))
            return cw_json_path_string(ref, "name");
    }
    return NULL;
}

int cw_health__read_cronjob(json_object *cj, cw_health_cronjob *out, cw_error *err)
{
    json_object *spec = NULL, *status = NULL;
    const char *sched = NULL, *zone = NULL, *policy = NULL;
    int64_t succ = 3, failed = 1, deadline = 0;
    int present_s, present_f, present_d, rc;
    memset(out, 0, sizeof(*out));
    if ((rc = cw_json_opt_object(cj, NULL, "spec", &spec, err)) ||
        (rc = cw_json_opt_object(cj, NULL, "status", &status, err)) ||
        (rc = cw_json_opt_string(spec, "spec", "schedule", &sched, err)) ||
        (rc = cw_json_opt_string(spec, "spec", "timeZone", &zone, err)) ||
        (rc = cw_json_opt_string(spec, "spec", "concurrencyPolicy", &policy, err)) ||
        (rc = cw_json_opt_bool(spec, "spec", "suspend", &out->suspended, NULL, err)) ||
        (rc =
             cw_json_opt_int(spec, "spec", "successfulJobsHistoryLimit", &succ, &present_s, err)) ||
        (rc = cw_json_opt_int(spec, "spec", "failedJobsHistoryLimit", &failed, &present_f, err)) ||
        (rc = cw_json_opt_int(spec, "spec", "startingDeadlineSeconds", &deadline, &present_d,
                              err)) ||
        (rc = cw_health__time(cw_json_member(cj, "metadata"), "metadata", "creationTimestamp",
                              &out->created, err)) ||
        (rc = cw_health__time(status, "status", "lastScheduleTime", &out->last_schedule, err)))
        return rc;
    out->forbid = policy && !strcmp(policy, "Forbid");
    out->success_limit = (long)succ;
    out->failed_limit = (long)failed;
    out->starting_deadline = present_d ? deadline : CW_HEALTH_NONE;
    if (!cw_health__dup(&out->name, cw_json_path_string(cj, "metadata.name")) ||
        !cw_health__dup(&out->recurringjob, cronjob_recurringjob(cj)) ||
        !cw_health__dup(&out->schedule, sched ? sched : "") || !cw_health__dup(&out->zone, zone)) {
        cw_health__cronjob_free(out);
        return cw_error_oom(err);
    }
    return CW_OK;
}

void cw_health__apply_cronjob(cw_health_sched *s, const cw_health_cronjob *c)
{
    s->has_cronjob = 1;
    s->cron = c->schedule;
    s->zone = c->zone;
    s->suspended = c->suspended;
    s->forbid = c->forbid;
    s->cronjob_created = c->created;
    s->last_schedule = c->last_schedule;
    s->starting_deadline = c->starting_deadline;
    s->success_limit = c->success_limit;
    s->failed_limit = c->failed_limit;
}

int cw_health_sched_set_cronjob(cw_health_sched *s, json_object *cronjob, cw_error *err)
{
    cw_health_cronjob c;
    int rc = cw_health__read_cronjob(cronjob, &c, err);
    if (rc != CW_OK)
        return cw_error_prefix(err, "CronJob");
    char *cron = c.schedule, *zone = c.zone;
    c.schedule = c.zone = NULL;
    cw_health__cronjob_free(&c);
    free(s->cron);
    free(s->zone);
    c.schedule = cron;
    c.zone = zone;
    cw_health__apply_cronjob(s, &c); /* s now owns cron and zone */
    return CW_OK;
}

/* spec.template.ttl: a Go duration ("720h0m0s"); NONE when absent. */
static int read_ttl(json_object *spec, int64_t *out, cw_error *err)
{
    json_object *tmpl = NULL;
    const char *ttl = NULL;
    int rc;
    *out = CW_HEALTH_NONE;
    if ((rc = cw_json_opt_object(spec, "spec", "template", &tmpl, err)) ||
        (rc = cw_json_opt_string(tmpl, "spec.template", "ttl", &ttl, err)) || !ttl || !*ttl)
        return rc;
    int64_t ns = 0;
    cw_buf msg;
    cw_buf_init(&msg);
    rc = cw_go_parse_duration(ttl, strlen(ttl), &ns, &msg);
    if (rc == CW_OK && ns >= 0)
        *out = ns / 1000000000;
    else
        rc = cw_error_set(err, CW_EINVAL, "spec.template.ttl: %s",
                          msg.len ? cw_buf_str(&msg) : "negative duration");
    cw_buf_free(&msg);
    return rc;
}

int cw_health_sched_from_schedule(cw_health_sched *s, json_object *schedule, cw_error *err)
{
    json_object *spec = NULL, *status = NULL;
    const char *cron = NULL, *phase = NULL;
    int rc;
    s->kind = CW_HEALTH_SCHEDULE;
    s->forbid = 1; /* a schedule's Backups never overlap (Velero and cronwarden both hold back) */
    if ((rc = identity(s, schedule, err)) ||
        (rc = cw_json_opt_object(schedule, NULL, "spec", &spec, err)) ||
        (rc = cw_json_opt_object(schedule, NULL, "status", &status, err)) ||
        (rc = cw_json_opt_string(spec, "spec", "schedule", &cron, err)) ||
        (rc = cw_json_opt_bool(spec, "spec", "paused", &s->paused, NULL, err)) ||
        (rc = cw_json_opt_string(status, "status", "phase", &phase, err)) ||
        (rc = cw_health__time(status, "status", "lastSkipped", &s->last_skipped, err)) ||
        (rc = cw_health__time(status, "status", "lastBackup", &s->last_schedule, err)) ||
        (rc = read_ttl(spec, &s->ttl, err)) || (rc = set_string(&s->cron, cron ? cron : "", err)) ||
        (rc = set_string(&s->task, "velero-backup", err)) ||
        (rc = set_string(&s->phase, phase, err)))
        return rc;
    return CW_OK;
}

int cw_health__parse(const cw_health_config *cfg, const cw_health_sched *s, cw_health_cron *c,
                     cw_error *err)
{
    memset(c, 0, sizeof(*c));
    c->offset = cfg->zone_offset;
    if (s->kind == CW_HEALTH_SCHEDULE && s->phase && !strcmp(s->phase, "FailedValidation"))
        return cw_error_set(err, CW_EINVAL, "Velero refused it (status.phase FailedValidation)");
    if (!s->cron || !*s->cron)
        return cw_error_set(err, CW_EINVAL, "no cron");
    int rc = cw_cron_parse(s->cron, cfg->tzdb, &c->parsed, err);
    if (rc != CW_OK)
        return rc;
    c->every = c->parsed.every > 0;
    if (s->zone && *s->zone && !c->parsed.zone && !c->every) {
        /* CronJob spec.timeZone (Kubernetes 1.25+): the zone of a schedule without prefix */
        const cw_tz *z = NULL;
        if ((rc = cw_tzdb_load(cfg->tzdb, s->zone, &z, err)) != CW_OK)
            return cw_error_prefix(err, "spec.timeZone");
        if (z)
            c->parsed.zone = z;
    }
    int64_t next;
    if (!c->every && !cw_cron_next(&c->parsed, cfg->now, c->offset, &next) &&
        !cw_cron_next(&c->parsed, cfg->now - 5 * 366 * 86400LL, c->offset, &next))
        return cw_error_set(err, CW_EINVAL, "the cron never fires");
    return CW_OK;
}
