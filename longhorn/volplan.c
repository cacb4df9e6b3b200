/* One volume's migration: reading its legacy jobs and labels, the verdict once the set of jobs
 * is resolved, the labels it gets, its merge patch. The one-call decision: volplan_decide.c. */
#include "longhorn/volplan.h"

#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "longhorn/volume.h"

void cw_volplan_init(cw_volplan *v)
{
    memset(v, 0, sizeof(*v));
    cw_strlist_init(&v->problems);
    cw_strlist_init(&v->present);
    cw_strlist_init(&v->add_labels);
}

void cw_volplan_free(cw_volplan *v)
{
    for (size_t i = 0; i < v->nrefs; i++)
        free(v->refs[i].legacy_name);
    free(v->refs);
    cw_strlist_free(&v->problems);
    cw_strlist_free(&v->present);
    free(v->reason);
    cw_strlist_free(&v->add_labels);
    cw_volplan_init(v);
}

/* Volume labels: which job/group labels are already enabled, and whether any exists. */
static int read_labels(json_object *vol, cw_volplan *v, cw_error *err)
{
    json_object *meta = cw_json_member(vol, "metadata"), *labels = NULL;
    int rc = cw_json_opt_object(meta, "metadata", "labels", &labels, err);
    if (rc != CW_OK || !labels)
        return rc;
    v->any_job_label = cw_volume_has_job_label(labels);
    json_object_object_foreach(labels, k, val)
    {
        if (!json_object_is_type(val, json_type_string))
            return cw_error_set(err, CW_EINVAL, "metadata.labels.%s: expected string, got %s", k,
                                cw_json_type_name(val));
        if (cw_volume_is_job_label(k) &&
            strcmp(json_object_get_string(val), CW_LABEL_ENABLED) == 0 &&
            cw_strlist_add(&v->present, k) != CW_OK)
            return cw_error_oom(err);
    }
    return CW_OK;
}

/* Job idx as v's next reference, unless v has it already (the same job twice is one). */
static int add_ref(cw_volplan *v, size_t idx, const char *lname)
{
    for (size_t r = 0; r < v->nrefs; r++)
        if (v->refs[r].job == idx)
            return CW_OK;
    if (!(v->refs[v->nrefs].legacy_name = strdup(lname)))
        return CW_ENOMEM;
    v->refs[v->nrefs++].job = idx;
    return CW_OK;
}

int cw_volplan_refer(cw_lhjobs *t, const cw_legacy_jobs *lj, const char *field, int insert,
                     cw_volplan *v, cw_error *err)
{
    int rc = CW_OK;
    v->has_legacy = lj->present;
    if (lj->len && !(v->refs = calloc(lj->len, sizeof(*v->refs))))
        return cw_error_oom(err);
    for (size_t i = 0; i < lj->len; i++) {
        long idx;
        if ((rc = cw_lhjobs_find(t, &lj->items[i], insert, &idx, err)) != CW_OK)
            return rc;
        const char *lname = lj->items[i].name ? lj->items[i].name : "";
        if (idx < 0) {
            rc = cw_strlist_addf(&v->problems,
                                 "%s[%zu] (%s) is not in the plan: the object changed since "
                                 "planning; run migrate again",
                                 field, i, lname);
            if (rc != CW_OK)
                return rc;
            continue;
        }
        const cw_lhjob *j = cw_lhjobs_at(t, (size_t)idx);
        if ((j->invalid && cw_strlist_addf(&v->problems, "%s[%zu] (%s): %s", field, i, lname,
                                           j->invalid) != CW_OK) ||
            add_ref(v, (size_t)idx, lname) != CW_OK)
            return cw_error_oom(err);
    }
    return CW_OK;
}

int cw_volplan_read(cw_lhjobs *t, json_object *vol, int insert, cw_volplan *v, cw_error *err)
{
    cw_legacy_jobs lj;
    cw_legacy_jobs_init(&lj);
    int rc = cw_legacy_decode_volume(vol, &lj, err);
    if (rc == CW_OK && (rc = read_labels(vol, v, err)) == CW_OK)
        rc = cw_volplan_refer(t, &lj, "spec.recurringJobs", insert, v, err);
    cw_legacy_jobs_free(&lj);
    return rc;
}

int cw_volplan_verdict(const cw_lhjobs *t, cw_volplan *v)
{
    free(v->reason);
    v->reason = NULL;
    cw_strlist_clear(&v->add_labels);
    if (!v->has_legacy) {
        v->action = CW_ACT_NONE;
        return CW_OK;
    }
    if (v->problems.len) {
        v->action = CW_ACT_INVALID;
        v->reason = cw_strlist_join(&v->problems, "; ");
        return v->reason ? CW_OK : CW_ENOMEM;
    }
    for (size_t r = 0; r < v->nrefs; r++) {
        const cw_lhjob *j = cw_lhjobs_at(t, v->refs[r].job);
        if (j->action == CW_ACT_CONFLICT) {
            v->action = CW_ACT_CONFLICT;
            cw_buf b;
            cw_buf_init(&b);
            if (cw_buf_printf(&b, "RecurringJob %s: %s", j->name, j->reason) != CW_OK)
                return CW_ENOMEM;
            v->reason = cw_buf_detach(&b);
            return v->reason ? CW_OK : CW_ENOMEM;
        }
    }
    v->action = CW_ACT_MIGRATE;
    return CW_OK;
}

int cw_volplan_finish(const cw_lhjobs *t, cw_volplan *v, const char *group)
{
    int rc = cw_volplan_verdict(t, v);
    if (rc != CW_OK || v->action != CW_ACT_MIGRATE)
        return rc;
    cw_buf key;
    cw_buf_init(&key);
    for (size_t r = 0; r < v->nrefs && rc == CW_OK; r++) {
        cw_buf_reset(&key);
        rc = cw_volume_job_label(&key, cw_lhjobs_at(t, v->refs[r].job)->name);
        if (rc == CW_OK && !cw_strlist_contains(&v->present, key.data))
            rc = cw_strlist_add(&v->add_labels, key.data);
    }
    /* The volume would end with no job or group label: the policy's default-group rule. */
    if (rc == CW_OK && group && *group && !v->any_job_label && v->nrefs == 0) {
        cw_buf_reset(&key);
        rc = cw_volume_group_label(&key, group);
        if (rc == CW_OK)
            rc = cw_strlist_add(&v->add_labels, key.data);
    }
    cw_buf_free(&key);
    return rc;
}

json_object *cw_volplan_merge_patch(const char *resource_version, const cw_strlist *add_labels)
{
    json_object *patch = json_object_new_object(), *meta = json_object_new_object(),
                *labels = json_object_new_object(), *spec = json_object_new_object();
    if (!patch || !meta || !labels || !spec) {
        json_object_put(patch);
        json_object_put(meta);
        json_object_put(labels);
        json_object_put(spec);
        return NULL;
    }
    json_object_object_add(meta, "resourceVersion", json_object_new_string(resource_version));
    for (size_t i = 0; i < add_labels->len; i++)
        json_object_object_add(labels, add_labels->items[i],
                               json_object_new_string(CW_LABEL_ENABLED));
    if (add_labels->len)
        json_object_object_add(meta, "labels", labels);
    else
        json_object_put(labels);
    json_object_object_add(patch, "metadata", meta);
    json_object_object_add(spec, "recurringJobs", NULL);
    json_object_object_add(patch, "spec", spec);
    return patch;
}
