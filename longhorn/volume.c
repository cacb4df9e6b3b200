#include "longhorn/volume.h"

#include <string.h>

#include "defaults/patch.h"
#include "lib/json.h"

const char *const cw_volume_spec_members[] = {"recurringJobs", "cloneMode", NULL};

/* Longhorn compares against the prefixes without their trailing slash. */
#define JOB_KEY_PREFIX   "recurring-job.longhorn.io"
#define GROUP_KEY_PREFIX "recurring-job-group.longhorn.io"

int cw_volume_is_job_label(const char *key)
{
    return strncmp(key, JOB_KEY_PREFIX, strlen(JOB_KEY_PREFIX)) == 0 ||
           strncmp(key, GROUP_KEY_PREFIX, strlen(GROUP_KEY_PREFIX)) == 0;
}

int cw_volume_has_job_label(json_object *labels)
{
    if (!json_object_is_type(labels, json_type_object))
        return 0;
    json_object_object_foreach(labels, key, val)
    {
        (void)val;
        if (cw_volume_is_job_label(key))
            return 1;
    }
    return 0;
}

int cw_volume_has_legacy_jobs(json_object *volume)
{
    json_object *jobs = cw_json_path(volume, "spec.recurringJobs");
    return json_object_is_type(jobs, json_type_array) && json_object_array_length(jobs) > 0;
}

int cw_volume_linked_clone(json_object *volume)
{
    const char *mode = cw_json_path_string(volume, "spec.cloneMode");
    return mode && strcmp(mode, "linked-clone") == 0;
}

int cw_volume_job_label(cw_buf *out, const char *job)
{
    return cw_buf_printf(out, "%s%s", CW_LABEL_JOB_PREFIX, job);
}

int cw_volume_group_label(cw_buf *out, const char *group)
{
    return cw_buf_printf(out, "%s%s", CW_LABEL_GROUP_PREFIX, group);
}

int cw_volume_selectors(json_object *labels, int legacy, const char *default_group, cw_strlist *out)
{
    int rc = CW_OK;
    if (json_object_is_type(labels, json_type_object)) {
        json_object_object_foreach(labels, k, v)
        {
            if (!json_object_is_type(v, json_type_string) ||
                strcmp(json_object_get_string(v), CW_LABEL_ENABLED) != 0)
                continue;
            if (!strncmp(k, CW_LABEL_JOB_PREFIX, strlen(CW_LABEL_JOB_PREFIX)))
                rc = cw_strlist_addf(out, "j:%s", k + strlen(CW_LABEL_JOB_PREFIX));
            else if (!strncmp(k, CW_LABEL_GROUP_PREFIX, strlen(CW_LABEL_GROUP_PREFIX)))
                rc = cw_strlist_addf(out, "g:%s", k + strlen(CW_LABEL_GROUP_PREFIX));
            if (rc != CW_OK)
                return rc;
        }
    }
    if (!cw_volume_has_job_label(labels) && !legacy && default_group && *default_group &&
        (rc = cw_strlist_addf(out, "g:%s", default_group)) != CW_OK)
        return rc;
    cw_strlist_sort(out);
    return CW_OK;
}

int cw_volume_default(const cw_policy_config *cfg, cw_operation op, json_object *old,
                      json_object *obj, cw_decision *d, cw_error *err)
{
    cw_patch p = {0};
    cw_buf key;
    int rc = CW_OK;
    json_object *meta = cw_json_member(obj, "metadata");
    json_object *labels = cw_json_member(meta, "labels");
    (void)old;
    cw_buf_init(&key);
    if (!d->patch) {
        rc = CW_ENOMEM;
        goto done;
    }
    if ((op != CW_OP_CREATE && op != CW_OP_UPDATE) || !cfg->default_group || !*cfg->default_group ||
        !json_object_is_type(obj, json_type_object) ||
        (meta && !json_object_is_type(meta, json_type_object)) ||
        (labels && !json_object_is_type(labels, json_type_object)) ||
        cw_volume_has_job_label(labels) || cw_volume_has_legacy_jobs(obj) ||
        cw_volume_linked_clone(obj))
        goto done;
    if ((rc = cw_volume_group_label(&key, cfg->default_group)) != CW_OK ||
        (rc = cw_patch_init(&p, d->patch, obj)) != CW_OK)
        goto done;
    rc = cw_patch_set(&p, json_object_new_string(CW_LABEL_ENABLED), "metadata", "labels",
                      cw_buf_str(&key), NULL);
done:
    if (rc == CW_ENOMEM)
        cw_error_set(err, rc, "defaulting Volume: out of memory");
    cw_patch_free(&p);
    cw_buf_free(&key);
    return rc;
}

static int check_object(json_object *obj, int legacy_ok, cw_strlist *problems)
{
    json_object *meta = cw_json_member(obj, "metadata");
    json_object *labels = cw_json_member(meta, "labels");
    json_object *spec = cw_json_member(obj, "spec");
    json_object *jobs = cw_json_member(spec, "recurringJobs");
    int rc = CW_OK;
    if (!json_object_is_type(obj, json_type_object))
        return cw_policy_problem(problems, NULL, "object", "expected object, got %s",
                                 cw_json_type_name(obj));
    if (meta && !json_object_is_type(meta, json_type_object))
        rc = cw_policy_problem(problems, NULL, "metadata", "expected object, got %s",
                               cw_json_type_name(meta));
    else if (labels && !json_object_is_type(labels, json_type_object))
        rc = cw_policy_problem(problems, "metadata", "labels", "expected object, got %s",
                               cw_json_type_name(labels));
    if (rc != CW_OK)
        return rc;
    if (spec && !json_object_is_type(spec, json_type_object))
        return cw_policy_problem(problems, NULL, "spec", "expected object, got %s",
                                 cw_json_type_name(spec));
    if (jobs && !json_object_is_type(jobs, json_type_array))
        return cw_policy_problem(problems, "spec", "recurringJobs", "expected array, got %s",
                                 cw_json_type_name(jobs));
    if (!legacy_ok && cw_volume_has_legacy_jobs(obj))
        return cw_policy_problem(
            problems, "spec", "recurringJobs",
            "legacy per-volume recurring jobs are not accepted (Longhorn 1.2 replaced them and 1.5 "
            "removed the field); create RecurringJob objects and label the volume "
            "\"" CW_LABEL_JOB_PREFIX "<name>: " CW_LABEL_ENABLED "\" (or "
            "\"" CW_LABEL_GROUP_PREFIX "<group>: " CW_LABEL_ENABLED "\") instead; for manifests, "
            "\"cronwarden migrate --from-file <file>\" does this");
    return CW_OK;
}

int cw_volume_validate(const cw_policy_config *cfg, cw_operation op, json_object *old,
                       json_object *obj, cw_decision *d, cw_error *err)
{
    int rc = CW_OK;
    (void)cfg;
    if (!d->patch) {
        rc = CW_ENOMEM;
        goto done;
    }
    if (op != CW_OP_CREATE && op != CW_OP_UPDATE)
        goto done;
    /* Only a change of legacy jobs is a reason to deny: an unchanged stored list must not block
     * Longhorn's own updates (attach, detach, finalizers) of a volume that waits for migration. */
    int kept = op == CW_OP_UPDATE && cw_volume_has_legacy_jobs(old) &&
               json_object_equal(cw_json_path(old, "spec.recurringJobs"),
                                 cw_json_path(obj, "spec.recurringJobs"));
    rc = check_object(obj, kept, &d->problems);
    if (rc == CW_OK && kept)
        rc = cw_strlist_add(&d->warnings, "spec.recurringJobs: legacy recurring jobs are not "
                                          "migrated yet; run \"cronwarden migrate\"");
done:
    if (rc != CW_OK)
        cw_error_set(err, rc, "validating Volume: out of memory");
    return rc;
}
