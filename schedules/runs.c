/* Runs: a CronJob's Job or a Velero Schedule's Backup read into a compact record (the JSON is
 * not kept). How each status maps to an outcome is docs/status.md's table. */
#include "schedules/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "velero/schedule.h"
#include "lib/json.h"

#define SCHEDULED_ANNOTATION "batch.kubernetes.io/cronjob-scheduled-timestamp"
#define MANUAL_ANNOTATION    "cronjob.kubernetes.io/instantiate"
#define LONGHORN_JOB_LABEL   "recurring-job.longhorn.io"

const char *cw_health__key(json_object *map, const char *key)
{
    json_object *v = cw_json_member(map, key);
    return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

int cw_health__dup(char **dst, const char *s)
{
    *dst = s ? strdup(s) : NULL;
    return !s || *dst;
}

int cw_health__time(json_object *obj, const char *where, const char *key, int64_t *out,
                    cw_error *err)
{
    const char *s = NULL;
    int32_t off;
    *out = CW_HEALTH_NONE;
    int rc = cw_json_opt_string(obj, where, key, &s, err);
    if (rc != CW_OK || !s || !*s)
        return rc;
    if (cw_tz_parse_rfc3339(s, out, &off, err) != CW_OK) {
        *out = CW_HEALTH_NONE;
        return cw_error_prefix(err, "%s%s%s", where ? where : "", where ? "." : "", key);
    }
    return CW_OK;
}

void cw_health_run_free(cw_health_run *r)
{
    free(r->name);
    free(r->reason);
    free(r->owner);
    memset(r, 0, sizeof(*r));
}

static void run_init(cw_health_run *r)
{
    *r = (cw_health_run){.fire = CW_HEALTH_NONE,
                         .created = CW_HEALTH_NONE,
                         .started = CW_HEALTH_NONE,
                         .finished = CW_HEALTH_NONE};
}

/* The run's time (docs/status.md, "The time of a run"): its object's creation, unless the start
 * its controller recorded is earlier. A run cannot start before its object exists, so an earlier
 * start means the object is a copy made after the run: a Backup that Velero's backup sync made
 * from the storage location (a rebuilt cluster, or a second one sharing the location) has a new
 * creationTimestamp and the original status.startTimestamp. The start is not taken otherwise: it
 * comes after the submission by the time the run waited (Velero 1.18's queue, a Job controller
 * behind), which is not the schedule's lateness, and Velero's @every chain restarts at the
 * submission (status.lastBackup, the object's creation), not at the start. Without either, the
 * time the run was made for (fallback; NONE when unknown). Then started := created when unset. */
static void run_times(cw_health_run *r, int64_t fallback)
{
    if (r->created == CW_HEALTH_NONE || (r->started != CW_HEALTH_NONE && r->started < r->created))
        r->created = r->started;
    if (r->created == CW_HEALTH_NONE)
        r->created = fallback;
    if (r->started == CW_HEALTH_NONE)
        r->started = r->created;
}

/* The owning CronJob's name: the controller ownerReference of kind CronJob (what Kubernetes'
 * CronJob controller matches), else Longhorn's label (how Longhorn finds its CronJob's runs). */
static const char *job_owner(json_object *job)
{
    json_object *refs = cw_json_path(job, "metadata.ownerReferences");
    for (size_t i = 0;
         json_object_is_type(refs, json_type_array) && i < json_object_array_length(refs); i++) {
        json_object *ref = json_object_array_get_idx(refs, i);
        const char *kind = cw_json_path_string(ref, "kind");
        if (kind && !strcmp(kind, "CronJob") && cw_json_path_string(ref, "name"))
            return cw_json_path_string(ref, "name");
    }
    json_object *labels = cw_json_path(job, "metadata.labels");
    return cw_health__key(labels, LONGHORN_JOB_LABEL);
}

/* "<cronjob>-<n>": minutes since the epoch (Kubernetes >= 1.21), or seconds (the CronJob
 * controller before it; 10 digits where minutes have 8). */
static int64_t fire_from_name(const char *name, const char *owner)
{
    size_t n = owner ? strlen(owner) : 0;
    if (!owner || strncmp(name, owner, n) || name[n] != '-' || !name[n + 1])
        return CW_HEALTH_NONE;
    int64_t v = 0;
    for (const char *p = name + n + 1; *p; p++) {
        if (*p < '0' || *p > '9' || v > INT64_MAX / 100)
            return CW_HEALTH_NONE;
        v = v * 10 + (*p - '0');
    }
    return v >= 1000000000 ? v : v * 60;
}

/* The condition of `type` whose status is "True", or NULL. */
static json_object *true_condition(json_object *conds, const char *type)
{
    for (size_t i = 0;
         json_object_is_type(conds, json_type_array) && i < json_object_array_length(conds); i++) {
        json_object *c = json_object_array_get_idx(conds, i);
        const char *t = cw_json_path_string(c, "type"), *st = cw_json_path_string(c, "status");
        if (t && st && !strcmp(t, type) && !strcmp(st, "True"))
            return c;
    }
    return NULL;
}

static int job_outcome(json_object *job, cw_health_run *r, cw_error *err)
{
    json_object *status = cw_json_member(job, "status"),
                *conds = cw_json_member(status, "conditions");
    json_object *done = NULL;
    int64_t at = CW_HEALTH_NONE, succeeded = 0, completions = 1, tmp;
    int present, rc;
    if ((rc = cw_health__time(status, "status", "completionTime", &r->finished, err)) ||
        (rc = cw_json_opt_int(status, "status", "succeeded", &succeeded, &present, err)) ||
        (rc = cw_json_opt_int(status, "status", "failed", &r->failed_pods, &present, err)) ||
        (rc = cw_json_opt_int(cw_json_member(job, "spec"), "spec", "completions", &tmp, &present,
                              err)))
        return rc;
    if (present && tmp > 0)
        completions = tmp;
    if ((done = true_condition(conds, "Complete")) ||
        (done = true_condition(conds, "SuccessCriteriaMet")))
        r->outcome = CW_HEALTH_OUTCOME_SUCCEEDED;
    else if ((done = true_condition(conds, "Failed")) ||
             (done = true_condition(conds, "FailureTarget")))
        r->outcome = CW_HEALTH_OUTCOME_FAILED;
    else if (succeeded >= completions)
        r->outcome = CW_HEALTH_OUTCOME_SUCCEEDED; /* a status written before conditions were */
    else {
        r->outcome = CW_HEALTH_OUTCOME_RUNNING;
        r->blocks = 1; /* a Job is "active" to the CronJob controller until it finishes */
        r->finished = CW_HEALTH_NONE;
        return CW_OK;
    }
    if (done && (rc = cw_health__time(done, "status.conditions[]", "lastTransitionTime", &at,
                                      err)) != CW_OK)
        return rc;
    if (r->finished == CW_HEALTH_NONE || r->outcome == CW_HEALTH_OUTCOME_FAILED)
        r->finished = at != CW_HEALTH_NONE ? at : r->finished;
    if (r->finished == CW_HEALTH_NONE)
        r->finished = r->started;
    if (r->outcome == CW_HEALTH_OUTCOME_FAILED) {
        const char *reason = cw_json_path_string(done, "reason");
        const char *msg = cw_json_path_string(done, "message");
        cw_buf b;
        cw_buf_init(&b);
        cw_buf_printf(&b, "%s%s%s", reason && *reason ? reason : "Failed", msg && *msg ? ": " : "",
                      msg && *msg ? msg : "");
        if (cw_buf_error(&b) || !(r->reason = cw_buf_detach(&b))) {
            cw_buf_free(&b);
            return cw_error_oom(err);
        }
    }
    return CW_OK;
}

int cw_health_run_from_job(json_object *job, cw_health_run *out, cw_error *err)
{
    json_object *meta = cw_json_member(job, "metadata");
    json_object *ann = cw_json_member(meta, "annotations");
    const char *name = cw_json_path_string(meta, "name"), *owner = job_owner(job);
    const char *manual = cw_health__key(ann, MANUAL_ANNOTATION);
    int rc;
    run_init(out);
    if (!name)
        return cw_error_set(err, CW_EINVAL, "metadata.name: missing");
    if (!cw_health__dup(&out->name, name) || !cw_health__dup(&out->owner, owner))
        goto oom;
    out->manual = manual && !strcmp(manual, "manual");
    if ((rc = cw_health__time(meta, "metadata", "creationTimestamp", &out->created, err)) ||
        (rc = cw_health__time(cw_json_member(job, "status"), "status", "startTime", &out->started,
                              err)) ||
        (rc = cw_health__time(ann, "metadata.annotations", SCHEDULED_ANNOTATION, &out->fire, err)))
        goto fail;
    if (out->fire == CW_HEALTH_NONE && !out->manual)
        out->fire = fire_from_name(name, owner);
    run_times(out, out->fire);
    if ((rc = job_outcome(job, out, err)) != CW_OK)
        goto fail;
    return CW_OK;
oom:
    rc = cw_error_oom(err);
fail:
    cw_health_run_free(out);
    return rc;
}

/* "<schedule>-<YYYYMMDDhhmmss>": the run time in the name (cronwarden's controller names a Backup
 * after its scheduled run; Velero's after its submission, which rarely is a fire time). */
static int64_t fire_from_backup_name(const char *name)
{
    size_t n = strlen(name);
    char rfc[32];
    int64_t t;
    int32_t off;
    cw_error err;
    if (n < 16 || name[n - 15] != '-' || strspn(name + n - 14, "0123456789") != 14)
        return CW_HEALTH_NONE;
    const char *d = name + n - 14;
    snprintf(rfc, sizeof(rfc), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", d, d + 4, d + 6, d + 8, d + 10,
             d + 12);
    return cw_tz_parse_rfc3339(rfc, &t, &off, &err) == CW_OK ? t : CW_HEALTH_NONE;
}

/* Velero's Backup phases (pkg/apis/velero/v1/backup_types.go up to 1.18), docs/status.md. */
static const struct {
    const char *phase;
    cw_health_outcome outcome;
    int blocks; /* Velero's schedule controller (and cronwarden's) hold the next run back */
} phases[] = {
    {"", CW_HEALTH_OUTCOME_RUNNING, 1},
    {"New", CW_HEALTH_OUTCOME_RUNNING, 1},
    {"Queued", CW_HEALTH_OUTCOME_RUNNING, 1},
    {"ReadyToStart", CW_HEALTH_OUTCOME_RUNNING, 1},
    {"InProgress", CW_HEALTH_OUTCOME_RUNNING, 1},
    {"WaitingForPluginOperations", CW_HEALTH_OUTCOME_RUNNING, 0},
    {"WaitingForPluginOperationsPartiallyFailed", CW_HEALTH_OUTCOME_RUNNING, 0},
    {"Finalizing", CW_HEALTH_OUTCOME_RUNNING, 0},
    {"FinalizingPartiallyFailed", CW_HEALTH_OUTCOME_RUNNING, 0},
    {"Completed", CW_HEALTH_OUTCOME_SUCCEEDED, 0},
    {"PartiallyFailed", CW_HEALTH_OUTCOME_FAILED, 0},
    {"Failed", CW_HEALTH_OUTCOME_FAILED, 0},
    {"FailedValidation", CW_HEALTH_OUTCOME_FAILED, 0},
    {"Deleting", CW_HEALTH_OUTCOME_OTHER, 0},
};

/* "Failed: <failureReason>", "PartiallyFailed: 2 errors, 1 warning", "FailedValidation: <errors>"
 */
static int backup_reason(json_object *status, const char *phase, cw_health_run *r, cw_error *err)
{
    int64_t errors = 0, warnings = 0;
    int present, rc;
    if ((rc = cw_json_opt_int(status, "status", "errors", &errors, &present, err)) ||
        (rc = cw_json_opt_int(status, "status", "warnings", &warnings, &present, err)))
        return rc;
    const char *why = cw_json_path_string(status, "failureReason");
    json_object *verrs = cw_json_member(status, "validationErrors");
    cw_buf b;
    cw_buf_init(&b);
    cw_buf_puts(&b, phase);
    if (why && *why)
        cw_buf_printf(&b, ": %s", why);
    else if (!strcmp(phase, "PartiallyFailed") || errors > 0)
        cw_buf_printf(&b, ": %lld error%s, %lld warning%s", (long long)errors,
                      errors == 1 ? "" : "s", (long long)warnings, warnings == 1 ? "" : "s");
    for (size_t i = 0;
         json_object_is_type(verrs, json_type_array) && i < json_object_array_length(verrs); i++) {
        const char *e = json_object_get_string(json_object_array_get_idx(verrs, i));
        cw_buf_printf(&b, "%s%s", i ? "; " : ": ", e ? e : "");
    }
    if (cw_buf_error(&b) || !(r->reason = cw_buf_detach(&b))) {
        cw_buf_free(&b);
        return cw_error_oom(err);
    }
    return CW_OK;
}

int cw_health_run_from_backup(json_object *backup, cw_health_run *out, cw_error *err)
{
    json_object *meta = cw_json_member(backup, "metadata"), *status = NULL;
    const char *name = cw_json_path_string(meta, "name"), *phase = NULL;
    const char *owner = cw_health__key(cw_json_member(meta, "labels"), CW_SCHEDULE_NAME_LABEL);
    int rc;
    run_init(out);
    if (!name)
        return cw_error_set(err, CW_EINVAL, "metadata.name: missing");
    if (!cw_health__dup(&out->name, name) || !cw_health__dup(&out->owner, owner)) {
        rc = cw_error_oom(err);
        goto fail;
    }
    if ((rc = cw_json_opt_object(backup, NULL, "status", &status, err)) ||
        (rc = cw_json_opt_string(status, "status", "phase", &phase, err)) ||
        (rc = cw_health__time(meta, "metadata", "creationTimestamp", &out->created, err)) ||
        (rc = cw_health__time(status, "status", "startTimestamp", &out->started, err)) ||
        (rc = cw_health__time(status, "status", "completionTimestamp", &out->finished, err)))
        goto fail;
    if (!phase)
        phase = "";
    size_t i;
    for (i = 0; i < sizeof(phases) / sizeof(phases[0]) && strcmp(phases[i].phase, phase); i++)
        ;
    out->outcome =
        i < sizeof(phases) / sizeof(phases[0]) ? phases[i].outcome : CW_HEALTH_OUTCOME_OTHER;
    out->blocks = i < sizeof(phases) / sizeof(phases[0]) && phases[i].blocks;
    out->fire = fire_from_backup_name(name);
    run_times(out, out->fire);
    if (out->outcome == CW_HEALTH_OUTCOME_RUNNING || out->outcome == CW_HEALTH_OUTCOME_OTHER)
        out->finished = CW_HEALTH_NONE;
    else if (out->finished == CW_HEALTH_NONE)
        out->finished = out->started; /* FailedValidation never starts nor completes */
    if (out->outcome == CW_HEALTH_OUTCOME_FAILED &&
        (rc = backup_reason(status, phase, out, err)) != CW_OK)
        goto fail;
    return CW_OK;
fail:
    cw_health_run_free(out);
    return rc;
}
