/* Schedule health as JSON (schema: docs/status.md). Times RFC 3339 in UTC; absent ones null. The
 * volumes (with --volumes) are written one at a time after the rest. */
#include <string.h>

#include "health/render.h"

static json_object *str(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

static json_object *when(int64_t t)
{
    char buf[CW_TZ_RFC3339_MAX];
    if (t == CW_HEALTH_NONE)
        return NULL;
    cw_health_time_str(t, buf, sizeof(buf));
    return str(buf);
}

static json_object *secs(int64_t s)
{
    return s == CW_HEALTH_NONE ? NULL : json_object_new_int64(s);
}

static const char *kind_name(cw_health_kind k)
{
    return k == CW_HEALTH_RECURRINGJOB ? "RecurringJob" : "Schedule";
}

static json_object *missed(const cw_health_result *r)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < r->nmissed; i++) {
        json_object *m = json_object_new_object();
        json_object_object_add(m, "at", when(r->missed[i].at));
        json_object_object_add(m, "reason", str(cw_health_reason_name(r->missed[i].reason)));
        json_object_object_add(m, "excused", json_object_new_boolean(r->missed[i].excused));
        json_object_object_add(m, "detail", str(r->missed[i].detail));
        json_object_array_add(a, m);
    }
    return a;
}

static json_object *schedule(const cw_health_sched_result *sr)
{
    const cw_health_sched *s = sr->sched;
    const cw_health_result *r = &sr->result;
    json_object *o = json_object_new_object(), *x;
    json_object_object_add(o, "kind", str(kind_name(s->kind)));
    json_object_object_add(o, "namespace", str(s->namespace));
    json_object_object_add(o, "name", str(s->name));
    json_object_object_add(o, "task", str(s->task));
    json_object_object_add(o, "cron", str(r->cron));
    json_object_object_add(o, "state", str(cw_health_state_name(r->state)));
    json_object_object_add(o, "healthy", json_object_new_boolean(r->healthy));
    json_object_object_add(o, "error", str(r->error));
    json_object_object_add(o, "lastDue", when(r->last_due));
    json_object_object_add(o, "next", when(r->next));
    json_object_object_add(o, "intervalSeconds", secs(r->interval));
    json_object_object_add(o, "lastStarted", when(r->last_started));
    x = NULL;
    if (r->success_at != CW_HEALTH_NONE) {
        x = json_object_new_object();
        json_object_object_add(x, "at", when(r->success_at));
        json_object_object_add(x, "durationSeconds", secs(r->success_seconds));
        json_object_object_add(x, "run", str(r->success_run));
    }
    json_object_object_add(o, "lastSuccess", x);
    x = NULL;
    if (r->failure_at != CW_HEALTH_NONE) {
        x = json_object_new_object();
        json_object_object_add(x, "at", when(r->failure_at));
        json_object_object_add(x, "run", str(r->failure_run));
        json_object_object_add(x, "reason", str(r->failure_reason));
    }
    json_object_object_add(o, "lastFailure", x);
    json_object_object_add(o, "consecutiveFailures",
                           json_object_new_int64((int64_t)r->consecutive_failures));
    json_object_object_add(o, "missedRuns", json_object_new_int64((int64_t)r->missed_unexcused));
    json_object_object_add(o, "missed", missed(r));
    x = json_object_new_object();
    json_object_object_add(x, "count", json_object_new_int64((int64_t)r->judged));
    json_object_object_add(x, "first", when(r->judged_first));
    json_object_object_add(x, "last", when(r->judged_to));
    json_object_object_add(o, "judged", x);
    json_object_object_add(o, "historyFrom", when(r->history_from));
    x = NULL;
    if (r->running) {
        x = json_object_new_object();
        json_object_object_add(x, "count", json_object_new_int64((int64_t)r->running));
        json_object_object_add(x, "run", str(r->running_run));
        json_object_object_add(x, "since", when(r->running_since));
        json_object_object_add(x, "seconds", secs(r->running_seconds));
        json_object_object_add(x, "stuck", json_object_new_boolean(r->stuck));
    }
    json_object_object_add(o, "running", x);
    json_object_object_add(o, "usualSeconds", secs(r->usual_seconds));
    json_object_object_add(o, "stuckAfterSeconds", secs(r->stuck_after));
    return o;
}

static json_object *volume(const cw_health_volume_result *v)
{
    json_object *o = json_object_new_object(), *jobs = json_object_new_array();
    json_object_object_add(o, "namespace", str(v->namespace));
    json_object_object_add(o, "name", str(v->name));
    json_object_object_add(o, "state",
                           str(v->unprotected ? "Unprotected"
                               : v->stale     ? "Stale"
                                              : "Protected"));
    for (size_t i = 0; i < v->jobs->len; i++) {
        json_object *j = json_object_new_object();
        json_object_object_add(j, "name", str(v->jobs->items[i]));
        json_object_object_add(j, "via", str(v->via->items[i]));
        json_object_array_add(jobs, j);
    }
    json_object_object_add(o, "backupJobs", jobs);
    json_object_object_add(o, "lastBackup", when(v->last_backup));
    json_object_object_add(o, "intervalSeconds", secs(v->interval));
    json_object_object_add(o, "unprotected", json_object_new_boolean(v->unprotected));
    json_object_object_add(o, "stale", json_object_new_boolean(v->stale));
    json_object_object_add(o, "neverBackedUp", json_object_new_boolean(v->never));
    return o;
}

#define FLAGS (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/* One volume, written as it would stand in the root's "volumes" array (two levels in): the
 * volumes are written one at a time, so 10,000 of them do not make a tree in memory. */
static int volume_out(const cw_health_volume_result *v, int first, FILE *f)
{
    json_object *o = volume(v);
    const char *text = json_object_to_json_string_ext(o, FLAGS);
    int rc = text && fputs(first ? "\n    " : ",\n    ", f) >= 0 ? CW_OK : CW_EIO;
    for (const char *p = text, *nl; rc == CW_OK && p && *p; p = nl ? nl + 1 : p + strlen(p)) {
        size_t n = (nl = strchr(p, '\n')) ? (size_t)(nl - p) : strlen(p);
        if (fwrite(p, 1, n, f) != n || (nl && fputs("\n    ", f) == EOF))
            rc = CW_EIO;
    }
    json_object_put(o);
    return rc;
}

int cw_health_render_json(const cw_health *h, int volumes, FILE *f, cw_error *err)
{
    json_object *root = json_object_new_object(), *sum = json_object_new_object();
    json_object *scheds = json_object_new_array(), *ns = json_object_new_array();
    size_t nvol = 0;
    json_object_object_add(root, "kind", str("ScheduleStatus"));
    json_object_object_add(root, "now", when(h->cfg.now));
    json_object_object_add(root, "windowSeconds", json_object_new_int64(h->cfg.window));
    json_object_object_add(root, "healthy",
                           json_object_new_boolean(!h->unhealthy && !h->unprotected && !h->stale));
    for (size_t i = 0; i < h->ncounts; i++) {
        json_object *c = json_object_new_object();
        json_object_object_add(c, "namespace", str(h->counts[i].namespace));
        json_object_object_add(c, "volumes", json_object_new_int64((int64_t)h->counts[i].volumes));
        json_object_object_add(c, "unprotected",
                               json_object_new_int64((int64_t)h->counts[i].unprotected));
        json_object_object_add(c, "stale", json_object_new_int64((int64_t)h->counts[i].stale));
        json_object_array_add(ns, c);
        nvol += h->counts[i].volumes;
    }
    json_object_object_add(sum, "schedules", json_object_new_int64((int64_t)h->nresults));
    json_object_object_add(sum, "unhealthy", json_object_new_int64((int64_t)h->unhealthy));
    json_object_object_add(sum, "volumes", json_object_new_int64((int64_t)nvol));
    json_object_object_add(sum, "unprotected", json_object_new_int64((int64_t)h->unprotected));
    json_object_object_add(sum, "stale", json_object_new_int64((int64_t)h->stale));
    json_object_object_add(root, "summary", sum);
    for (size_t i = 0; i < h->nresults; i++)
        json_object_array_add(scheds, schedule(&h->results[i]));
    json_object_object_add(root, "schedules", scheds);
    json_object_object_add(root, "namespaces", ns);
    const char *text = json_object_to_json_string_ext(root, FLAGS);
    size_t len = text ? strlen(text) : 0;
    int rc = CW_OK;
    if (!volumes)
        rc = text && fprintf(f, "%s\n", text) >= 0 ? CW_OK : CW_EIO;
    else if (len < 2 || strcmp(text + len - 2, "\n}")) /* json-c ends an object so */
        rc = CW_EIO;
    else if (fprintf(f, "%.*s,\n  \"volumes\": [", (int)(len - 2), text) < 0)
        rc = CW_EIO;
    for (size_t i = 0; volumes && rc == CW_OK && i < h->nvols; i++)
        rc = volume_out(&h->vols[i], i == 0, f);
    if (volumes && rc == CW_OK && fprintf(f, "\n  ]\n}\n") < 0)
        rc = CW_EIO;
    json_object_put(root);
    return rc == CW_OK ? CW_OK : cw_error_set(err, CW_EIO, "writing the report failed");
}
