/* The whole audit as JSON (schema: docs/audit.md). */
#include <string.h>

#include "audit/internal.h"

static json_object *str(const char *s)
{
    return json_object_new_string(s ? s : "");
}

static json_object *u64(uint64_t v)
{
    return json_object_new_int64((int64_t)v);
}

static json_object *when(const cw_audit *a, int64_t t)
{
    char buf[CW_TZ_RFC3339_MAX];
    if (t < 0)
        return NULL;
    cw_audit__time(a, t, buf, sizeof(buf));
    return str(buf);
}

static const char *kind_name(cw_audit_kind k)
{
    return k == CW_AUDIT_RECURRINGJOB ? "RecurringJob"
           : k == CW_AUDIT_SCHEDULE   ? "Schedule"
                                      : "LegacyJobs";
}

static json_object *job(const cw_audit *a, const cw_audit_job *j)
{
    json_object *o = json_object_new_object(), *groups = json_object_new_array();
    char label[256];
    cw_audit_job_label(j, label, sizeof(label));
    json_object_object_add(o, "kind", str(kind_name(j->kind)));
    json_object_object_add(o, "label", str(label));
    json_object_object_add(o, "namespace", str(j->namespace));
    json_object_object_add(o, "name", str(j->name));
    json_object_object_add(o, "source", str(j->source));
    json_object_object_add(o, "task", str(j->task));
    json_object_object_add(o, "cron", str(j->cron));
    json_object_object_add(o, "valid", json_object_new_boolean(j->valid));
    if (j->error)
        json_object_object_add(o, "error", str(j->error));
    for (size_t g = 0; g < j->groups.len; g++)
        json_object_array_add(groups, str(j->groups.items[g]));
    json_object_object_add(o, "groups", groups);
    json_object_object_add(o, "volumes", u64(j->volumes));
    json_object_object_add(o, "concurrency", json_object_new_int64(j->concurrency));
    json_object_object_add(o, "operationSeconds", json_object_new_int64(j->duration));
    json_object_object_add(o, "fires", u64(j->fires));
    json_object_object_add(o, "skippedFires", u64(j->skipped));
    json_object_object_add(o, "starts", u64(j->starts));
    json_object_object_add(o, "runSeconds", json_object_new_int64(j->valid ? j->run_seconds : 0));
    json_object_object_add(o, "minIntervalSeconds", json_object_new_int64(j->min_interval));
    json_object_object_add(o, "firstFire", when(a, j->valid ? j->first_fire : -1));
    return o;
}

static json_object *peak(const cw_audit *a, const cw_audit_peak *p)
{
    json_object *o = json_object_new_object(), *jobs = json_object_new_array();
    json_object *tasks = json_object_new_object();
    size_t bin = (size_t)((p->at - a->cfg.from) / a->cfg.step);
    for (size_t t = 0; t < a->tasks.len; t++)
        if (a->task_starts[t * a->nbins + bin])
            json_object_object_add(tasks, a->tasks.items[t],
                                   u64(a->task_starts[t * a->nbins + bin]));
    json_object_object_add(o, "at", when(a, p->at));
    json_object_object_add(o, "starts", u64(p->starts));
    json_object_object_add(o, "running", u64(p->running));
    json_object_object_add(o, "byTask", tasks);
    for (size_t i = 0; i < p->jobs.len; i++) {
        char label[256];
        uint64_t n = cw_audit__split_row(p->jobs.items[i], label, sizeof(label));
        json_object *row = json_object_new_object();
        json_object_object_add(row, "job", str(label));
        json_object_object_add(row, "starts", u64(n));
        json_object_array_add(jobs, row);
    }
    json_object_object_add(o, "jobs", jobs);
    return o;
}

static json_object *series(const uint64_t *v, size_t n)
{
    json_object *arr = json_object_new_array_ext((int)n);
    for (size_t i = 0; i < n; i++)
        json_object_array_add(arr, u64(v[i]));
    return arr;
}

static json_object *inventory(const cw_audit *a)
{
    size_t count[3] = {0};
    for (size_t i = 0; i < a->njobs; i++)
        count[a->jobs[i].kind]++;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "volumes", u64(a->volumes));
    json_object_object_add(o, "recurringJobs", u64(count[CW_AUDIT_RECURRINGJOB]));
    json_object_object_add(o, "legacyJobLines", u64(count[CW_AUDIT_LEGACY]));
    json_object_object_add(o, "schedules", u64(count[CW_AUDIT_SCHEDULE] - a->paused_schedules));
    json_object_object_add(o, "pausedSchedules", u64(a->paused_schedules));
    json_object_object_add(o, "storageClasses", u64(a->nclasses));
    json_object_object_add(o, "ignoredObjects", u64(a->skipped_objects));
    return o;
}

static json_object *suggestions(const cw_audit *a)
{
    json_object *o = json_object_new_object(), *changes = json_object_new_array();
    json_object_object_add(o, "target", a->target ? u64(a->target) : NULL);
    json_object_object_add(o, "peakBefore", u64(a->max_starts_seen));
    json_object_object_add(o, "peakAfter", u64(a->peak_after));
    for (size_t i = 0; i < a->nsuggestions; i++) {
        const cw_audit_job *j = &a->jobs[a->suggestions[i].job];
        json_object *c = json_object_new_object();
        char label[256];
        cw_audit_job_label(j, label, sizeof(label));
        json_object_object_add(c, "job", str(label));
        json_object_object_add(c, "kind", str(kind_name(j->kind)));
        json_object_object_add(c, "namespace", str(j->namespace));
        json_object_object_add(c, "name", str(j->name));
        json_object_object_add(c, "from", str(j->cron));
        json_object_object_add(c, "to", str(a->suggestions[i].cron));
        json_object_object_add(c, "shiftMinutes", json_object_new_int(a->suggestions[i].shift));
        json_object_array_add(changes, c);
    }
    json_object_object_add(o, "changes", changes);
    return o;
}

static json_object *build(const cw_audit *a, const cw_audit_hours *h)
{
    json_object *root = json_object_new_object(), *win = json_object_new_object();
    json_object_object_add(win, "from", when(a, a->cfg.from));
    json_object_object_add(win, "to", when(a, a->cfg.from + a->cfg.window));
    json_object_object_add(win, "stepSeconds", json_object_new_int64(a->cfg.step));
    json_object_object_add(win, "steps", u64(a->nbins));
    json_object_object_add(root, "window", win);
    if (a->cfg.max_starts >= 0)
        json_object_object_add(root, "maxStartsLimit", json_object_new_int64(a->cfg.max_starts));
    json_object_object_add(root, "inventory", inventory(a));
    json_object_object_add(root, "maxStarts", u64(a->max_starts_seen));
    json_object_object_add(root, "maxRunning", u64(a->max_running_seen));
    json_object *peaks = json_object_new_array(), *jobs = json_object_new_array();
    json_object *findings = json_object_new_array(), *classes = json_object_new_array();
    for (size_t p = 0; p < a->npeaks; p++)
        json_object_array_add(peaks, peak(a, &a->peaks[p]));
    for (size_t i = 0; i < a->njobs; i++)
        json_object_array_add(jobs, job(a, &a->jobs[i]));
    for (size_t i = 0; i < a->nfindings; i++) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "kind", str(a->findings[i].kind));
        json_object_object_add(o, "job", str(a->findings[i].job));
        json_object_object_add(o, "at", when(a, a->findings[i].at));
        json_object_object_add(o, "message", str(a->findings[i].message));
        json_object_array_add(findings, o);
    }
    for (size_t i = 0; i < a->nclasses; i++) {
        json_object *o = json_object_new_object(), *sel = json_object_new_array();
        json_object_object_add(o, "name", str(a->classes[i].name));
        for (size_t k = 0; k < a->classes[i].selectors.len; k++)
            json_object_array_add(sel, str(a->classes[i].selectors.items[k]));
        json_object_object_add(o, "newVolumesJoin", sel);
        json_object_array_add(classes, o);
    }
    json_object_object_add(root, "peaks", peaks);
    json_object_object_add(root, "jobs", jobs);
    json_object_object_add(root, "findings", findings);
    json_object_object_add(root, "storageClasses", classes);
    if (a->suggested)
        json_object_object_add(root, "suggestions", suggestions(a));
    json_object *hours = json_object_new_object();
    json_object_object_add(hours, "first", when(a, h->first));
    json_object_object_add(hours, "starts", series(h->starts, h->n));
    json_object_object_add(hours, "maxRunning", series(h->running, h->n));
    json_object_object_add(root, "hours", hours);
    json_object *steps = json_object_new_object();
    json_object_object_add(steps, "starts", series(a->starts, a->nbins));
    json_object_object_add(steps, "running", series(a->running, a->nbins));
    json_object *tasks = json_object_new_object();
    for (size_t t = 0; t < a->tasks.len; t++)
        json_object_object_add(tasks, a->tasks.items[t],
                               series(a->task_starts + t * a->nbins, a->nbins));
    json_object_object_add(steps, "startsByTask", tasks);
    json_object_object_add(root, "steps", steps);
    return root;
}

int cw_audit_render_json(const cw_audit *a, FILE *f, cw_error *err)
{
    cw_audit_hours h;
    if (cw_audit__hours(a, &h) != CW_OK)
        return cw_error_oom(err);
    json_object *root = build(a, &h);
    const char *text = json_object_to_json_string_ext(
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = text && fprintf(f, "%s\n", text) >= 0
                 ? CW_OK
                 : cw_error_set(err, CW_EIO, "writing the report failed");
    json_object_put(root);
    cw_audit__hours_free(&h);
    return rc;
}
