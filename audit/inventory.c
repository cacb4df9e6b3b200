/* Objects into the audit's inventory: jobs (RecurringJobs, Velero Schedules), each volume's
 * selector set and legacy jobs, StorageClass selectors. The same kind/namespace/name read again
 * replaces what was read before. */
#include "audit/audit.h"

#include <stdlib.h>
#include <string.h>

#include "audit/internal.h"
#include "defaults/kinds.h"
#include "longhorn/volume.h"
#include "lib/buf.h"
#include "lib/grow.h"
#include "lib/json.h"

void cw_audit_config_init(cw_audit_config *c)
{
    *c = (cw_audit_config){
        .window = 168 * 3600,
        .step = 60,
        .max_starts = -1,
        .default_group = "default",
        .peaks = 10,
    };
}

int cw_audit_init(cw_audit *a, const cw_audit_config *cfg, cw_error *err)
{
    memset(a, 0, sizeof(*a));
    a->cfg = *cfg;
    if (a->cfg.step <= 0 || a->cfg.window < a->cfg.step)
        return cw_error_set(err, CW_EINVAL,
                            "the window (%llds) must hold at least one step (%llds)",
                            (long long)a->cfg.window, (long long)a->cfg.step);
    if (!a->cfg.default_group)
        a->cfg.default_group = "";
    if (!a->cfg.peaks)
        a->cfg.peaks = 10;
    cw_strmap_init(&a->job_index);
    cw_strmap_init(&a->volume_sets);
    cw_strmap_init(&a->volume_of);
    cw_strmap_init(&a->legacy_of);
    cw_strlist_init(&a->tasks);
    return CW_OK;
}

static void job_free(cw_audit_job *j)
{
    free(j->namespace);
    free(j->name);
    free(j->source);
    free(j->task);
    free(j->cron);
    free(j->error);
    json_object_put(j->object);
    cw_strlist_free(&j->groups);
    memset(j, 0, sizeof(*j));
}

void cw_audit_free(cw_audit *a)
{
    for (size_t i = 0; i < a->njobs; i++)
        job_free(&a->jobs[i]);
    free(a->jobs);
    for (size_t i = 0; i < a->nclasses; i++) {
        free(a->classes[i].name);
        cw_strlist_free(&a->classes[i].selectors);
    }
    free(a->classes);
    cw_strmap_free(&a->job_index, NULL);
    cw_strmap_free(&a->volume_sets, NULL);
    cw_strmap_free(&a->volume_of, free);
    cw_strmap_free(&a->legacy_of, free);
    free(a->starts);
    free(a->running);
    free(a->task_starts);
    cw_strlist_free(&a->tasks);
    for (size_t i = 0; i < a->npeaks; i++)
        cw_strlist_free(&a->peaks[i].jobs);
    free(a->peaks);
    for (size_t i = 0; i < a->nfindings; i++) {
        free(a->findings[i].kind);
        free(a->findings[i].job);
        free(a->findings[i].message);
    }
    free(a->findings);
    for (size_t i = 0; i < a->nsuggestions; i++)
        free(a->suggestions[i].cron);
    free(a->suggestions);
    memset(a, 0, sizeof(*a));
}

/* The job slot for kind/ns/name: a new one, or the one read before (emptied for reuse). */
static int job_slot(cw_audit *a, const char *kind, const char *ns, const char *name,
                    cw_audit_job **out, cw_error *err)
{
    cw_buf key;
    cw_buf_init(&key);
    void *found = NULL;
    int rc = cw_buf_printf(&key, "%s/%s/%s", kind, ns, name);
    if (rc == CW_OK && cw_strmap_get(&a->job_index, key.data, key.len, &found)) {
        *out = &a->jobs[(uintptr_t)found - 1];
        job_free(*out);
    } else if (rc == CW_OK && (rc = cw_grow((void **)&a->jobs, &a->capjobs, a->njobs,
                                            sizeof(*a->jobs), 16)) == CW_OK) {
        *out = &a->jobs[a->njobs];
        memset(*out, 0, sizeof(**out));
        if (cw_strmap_put(&a->job_index, key.data, key.len, (void *)(uintptr_t)(a->njobs + 1),
                          NULL) < 0)
            rc = CW_ENOMEM;
        else
            a->njobs++;
    }
    cw_buf_free(&key);
    return rc == CW_OK ? CW_OK : cw_error_oom(err);
}

int cw_audit__set_job(cw_audit *a, cw_audit_job *j, cw_audit_kind kind, const char *ns,
                      const char *name, const char *source, const char *task, const char *cron,
                      cw_error *err)
{
    cw_strlist_init(&j->groups);
    j->kind = kind;
    j->namespace = strdup(ns);
    j->name = strdup(name);
    j->source = strdup(source);
    j->task = strdup(task);
    j->cron = strdup(cron);
    j->first_fire = -1;
    if (!j->namespace || !j->name || !j->source || !j->task || !j->cron)
        return cw_error_oom(err);
    cw_error perr;
    cw_error_init(&perr);
    int rc = cw_cron_parse(cron, a->cfg.tzdb, &j->parsed, &perr);
    j->valid = rc == CW_OK;
    if (rc == CW_ENOMEM)
        return cw_error_oom(err);
    if (!j->valid && !(j->error = strdup(perr.message)))
        return cw_error_oom(err);
    return CW_OK;
}

static int add_recurringjob(cw_audit *a, json_object *obj, const char *ns, const char *name,
                            const char *source, cw_error *err)
{
    json_object *spec = NULL, *groups = NULL;
    const char *task = NULL, *cron = NULL;
    int64_t concurrency = 0;
    int present = 0, rc;
    if ((rc = cw_json_opt_object(obj, NULL, "spec", &spec, err)) ||
        (rc = cw_json_opt_string(spec, "spec", "task", &task, err)) ||
        (rc = cw_json_opt_string(spec, "spec", "cron", &cron, err)) ||
        (rc = cw_json_opt_int(spec, "spec", "concurrency", &concurrency, &present, err)) ||
        (rc = cw_json_opt_array(spec, "spec", "groups", &groups, err)))
        return cw_error_prefix(err, "%s", source);
    cw_audit_job *j;
    if ((rc = job_slot(a, "RecurringJob", ns, name, &j, err)) != CW_OK ||
        (rc = cw_audit__set_job(a, j, CW_AUDIT_RECURRINGJOB, ns, name, source, task ? task : "",
                                cron ? cron : "", err)) != CW_OK)
        return rc;
    j->concurrency = concurrency > 0 ? (long)concurrency : 10; /* Longhorn's default: 0 -> 10 */
    j->object = json_object_get(obj);
    for (size_t i = 0; groups && i < json_object_array_length(groups); i++) {
        json_object *g = json_object_array_get_idx(groups, i);
        if (json_object_is_type(g, json_type_string) &&
            cw_strlist_add(&j->groups, json_object_get_string(g)) != CW_OK)
            return cw_error_oom(err);
    }
    return CW_OK;
}

static int add_schedule(cw_audit *a, json_object *obj, const char *ns, const char *name,
                        const char *source, cw_error *err)
{
    json_object *spec = NULL;
    const char *cron = NULL;
    int paused = 0, present = 0, rc;
    if ((rc = cw_json_opt_object(obj, NULL, "spec", &spec, err)) ||
        (rc = cw_json_opt_string(spec, "spec", "schedule", &cron, err)) ||
        (rc = cw_json_opt_bool(spec, "spec", "paused", &paused, &present, err)))
        return cw_error_prefix(err, "%s", source);
    cw_audit_job *j;
    if ((rc = job_slot(a, "Schedule", ns, name, &j, err)) != CW_OK ||
        (rc = cw_audit__set_job(a, j, CW_AUDIT_SCHEDULE, ns, name, source, "velero-backup",
                                cron ? cron : "", err)) != CW_OK)
        return rc;
    j->concurrency = 1;
    j->volumes = 1;
    j->object = json_object_get(obj);
    if (paused) { /* read so that a later unpaused copy replaces it, then left out */
        j->valid = 0;
        free(j->error);
        if (!(j->error = strdup("paused")))
            return cw_error_oom(err);
    }
    return CW_OK;
}

/* "\nj:<job>\ng:<group>\n...": the volume's selectors (longhorn/volume's rule), sorted, so that
 * signatures compare as sets. */
static int volume_signature(const cw_audit *a, json_object *labels, json_object *legacy,
                            cw_buf *sig)
{
    cw_strlist sel;
    cw_strlist_init(&sel);
    int rc = cw_volume_selectors(labels, legacy != NULL, a->cfg.default_group, &sel);
    if (rc == CW_OK)
        rc = cw_buf_putc(sig, '\n');
    for (size_t i = 0; rc == CW_OK && i < sel.len; i++)
        rc = cw_buf_printf(sig, "%s\n", sel.items[i]);
    cw_strlist_free(&sel);
    return rc;
}

/* "<task>\n<cron>\n" for each well-formed legacy job, in order. */
static int legacy_list(json_object *legacy, cw_buf *out)
{
    int rc = CW_OK;
    for (size_t i = 0; legacy && rc == CW_OK && i < json_object_array_length(legacy); i++) {
        json_object *job = json_object_array_get_idx(legacy, i);
        const char *task = cw_json_path_string(job, "task"),
                   *cron = cw_json_path_string(job, "cron");
        if (task && cron && !strchr(task, '\n') && !strchr(cron, '\n'))
            rc = cw_buf_printf(out, "%s\n%s\n", task, cron);
    }
    return rc;
}

static int remember(cw_strmap *m, const char *key, const char *value, cw_error *err)
{
    char *copy = strdup(value), *old = NULL;
    if (!copy || cw_strmap_set_s(m, key, copy, (void **)&old) != CW_OK) {
        free(copy);
        return cw_error_oom(err);
    }
    free(old);
    return CW_OK;
}

static int add_volume(cw_audit *a, json_object *obj, const char *ns, const char *name,
                      const char *source, cw_error *err)
{
    json_object *legacy = cw_json_path(obj, "spec.recurringJobs");
    if (legacy && !json_object_is_type(legacy, json_type_array))
        return cw_error_set(err, CW_EINVAL, "%s: spec.recurringJobs: expected array, got %s",
                            source, cw_json_type_name(legacy));
    if (legacy && !json_object_array_length(legacy))
        legacy = NULL;
    cw_buf key, sig, jobs;
    cw_buf_init(&key);
    cw_buf_init(&sig);
    cw_buf_init(&jobs);
    int rc = cw_buf_printf(&key, "%s/%s", ns, name);
    if (rc == CW_OK)
        rc = volume_signature(a, cw_json_path(obj, "metadata.labels"), legacy, &sig);
    if (rc == CW_OK)
        rc = legacy_list(legacy, &jobs);
    if (rc != CW_OK)
        rc = cw_error_oom(err);
    if (rc == CW_OK && !cw_strmap_has_s(&a->volume_of, key.data))
        a->volumes++;
    if (rc == CW_OK)
        rc = remember(&a->volume_of, key.data, sig.data, err);
    if (rc == CW_OK && jobs.len)
        rc = remember(&a->legacy_of, key.data, jobs.data, err);
    else if (rc == CW_OK)
        free(cw_strmap_del_s(&a->legacy_of, key.data)); /* a newer copy without legacy jobs */
    cw_buf_free(&key);
    cw_buf_free(&sig);
    cw_buf_free(&jobs);
    return rc;
}

/* recurringJobSelector: a JSON array of {"name", "isGroup"} in a string parameter. */
static int add_storageclass(cw_audit *a, json_object *obj, const char *name, cw_error *err)
{
    const char *provisioner = cw_json_path_string(obj, "provisioner");
    if (!provisioner || strcmp(provisioner, "driver.longhorn.io")) {
        a->skipped_objects++; /* another driver's class: none of Longhorn's jobs */
        return CW_OK;
    }
    size_t i;
    for (i = 0; i < a->nclasses && strcmp(a->classes[i].name, name); i++)
        ;
    if (i == a->nclasses) {
        if (cw_grow((void **)&a->classes, &a->capclasses, a->nclasses, sizeof(*a->classes), 4))
            return cw_error_oom(err);
        a->classes[i] = (cw_audit_storageclass){.name = strdup(name)};
        cw_strlist_init(&a->classes[i].selectors);
        if (!a->classes[i].name)
            return cw_error_oom(err);
        a->nclasses++;
    }
    cw_audit_storageclass *sc = &a->classes[i];
    cw_strlist_clear(&sc->selectors);
    const char *text = cw_json_path_string(obj, "parameters.recurringJobSelector");
    json_object *sel = text ? json_tokener_parse(text) : NULL;
    int rc = CW_OK;
    for (size_t k = 0; rc == CW_OK && json_object_is_type(sel, json_type_array) &&
                       k < json_object_array_length(sel);
         k++) {
        json_object *e = json_object_array_get_idx(sel, k);
        const char *n = cw_json_path_string(e, "name");
        json_object *g = cw_json_member(e, "isGroup");
        if (n)
            rc = cw_strlist_addf(&sc->selectors, "%s:%s",
                                 json_object_get_boolean(g) ? "group" : "job", n);
    }
    json_object_put(sel);
    return rc == CW_OK ? CW_OK : cw_error_oom(err);
}

int cw_audit_add(cw_audit *a, json_object *obj, const char *source, cw_error *err)
{
    const char *kind = cw_json_path_string(obj, "kind");
    const char *api = cw_json_path_string(obj, "apiVersion");
    const char *name = cw_json_path_string(obj, "metadata.name");
    const char *ns = cw_json_path_string(obj, "metadata.namespace");
    if (!kind || !api || !name) {
        a->skipped_objects++;
        return CW_OK;
    }
    if (!ns)
        ns = "";
    const cw_kind *k = cw_kind_of(api, kind, CW_READ_AUDIT);
    switch (k ? k->id : CW_KIND_COUNT) {
    case CW_KIND_RECURRINGJOB:
        return add_recurringjob(a, obj, ns, name, source, err);
    case CW_KIND_VOLUME:
        return add_volume(a, obj, ns, name, source, err);
    case CW_KIND_SCHEDULE:
        return add_schedule(a, obj, ns, name, source, err);
    case CW_KIND_STORAGECLASS:
        return add_storageclass(a, obj, name, err);
    default:
        a->skipped_objects++;
        return CW_OK;
    }
}
