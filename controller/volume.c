#include "controller/volume.h"

#include <string.h>

#include "defaults/volume.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "migrate/plan.h"

void cw_volctl_actions_init(cw_volctl_actions *a)
{
    memset(a, 0, sizeof(*a));
    cw_strlist_init(&a->problems);
    cw_strlist_init(&a->labels);
}

void cw_volctl_actions_free(cw_volctl_actions *a)
{
    json_object_put(a->jobs);
    json_object_put(a->patch);
    cw_strlist_free(&a->problems);
    cw_strlist_free(&a->labels);
    memset(a, 0, sizeof(*a));
}

const char *cw_volctl_outcome_name(cw_volctl_outcome o)
{
    static const char *const names[] = {"insync", "default_label", "migrated", "refused"};
    return (unsigned)o < sizeof(names) / sizeof(names[0]) ? names[o] : "unknown";
}

/* The webhook's rule decides whether the volume wants the default group; the patch that adds it
 * is a merge patch, conditional on the version the decision saw. */
static int default_label(json_object *vol, const cw_volctl_config *cfg, cw_volctl_actions *out,
                         cw_error *err)
{
    cw_decision d;
    cw_buf key;
    cw_decision_init(&d);
    cw_buf_init(&key);
    int rc = cw_volume_default(cfg->policy, CW_OP_UPDATE, NULL, vol, &d, err);
    if (rc != CW_OK || !d.patch || json_object_array_length(d.patch) == 0)
        goto done;
    json_object *p = json_object_new_object(), *meta = json_object_new_object();
    json_object *labels = json_object_new_object();
    const char *rv = cw_json_path_string(vol, "metadata.resourceVersion");
    if (cw_volume_group_label(&key, cfg->policy->default_group) != CW_OK || !p || !meta ||
        !labels || cw_strlist_add(&out->labels, cw_buf_str(&key)) != CW_OK) {
        json_object_put(p);
        json_object_put(meta);
        json_object_put(labels);
        rc = cw_error_oom(err);
        goto done;
    }
    json_object_object_add(labels, cw_buf_str(&key), json_object_new_string(CW_LABEL_ENABLED));
    json_object_object_add(meta, "resourceVersion", json_object_new_string(rv ? rv : ""));
    json_object_object_add(meta, "labels", labels);
    json_object_object_add(p, "metadata", meta);
    out->patch = p;
    out->outcome = CW_VOLCTL_DEFAULT_LABEL;
done:
    cw_decision_free(&d);
    cw_buf_free(&key);
    return rc;
}

/* MIGRATE: the jobs the volume refers to that the plan creates, and the volume's patch. */
static int migrate(const cw_plan *p, const cw_plan_item *it, cw_volctl_actions *out, cw_error *err)
{
    if (!(out->jobs = json_object_new_array()))
        return cw_error_oom(err);
    for (size_t i = 0; i < it->nrefs; i++) {
        size_t j = it->refs[i].job;
        json_object *rj = NULL;
        if (p->jobs[j].action != CW_ACT_CREATE)
            continue;
        int dup = 0;
        for (size_t k = 0; k < i; k++)
            dup |= it->refs[k].job == j;
        if (dup)
            continue;
        int rc = cw_plan_job_object(p, j, &rj, err);
        if (rc != CW_OK)
            return rc;
        if (json_object_array_add(out->jobs, rj)) {
            json_object_put(rj);
            return cw_error_oom(err);
        }
    }
    for (size_t i = 0; i < it->add_labels.len; i++)
        if (cw_strlist_add(&out->labels, it->add_labels.items[i]) != CW_OK)
            return cw_error_oom(err);
    if (!(out->patch = cw_plan_volume_merge_patch(it)))
        return cw_error_oom(err);
    out->outcome = CW_VOLCTL_MIGRATE;
    return CW_OK;
}

static int refused(const cw_plan *p, const cw_plan_item *it, cw_volctl_actions *out, cw_error *err)
{
    out->outcome = CW_VOLCTL_REFUSED;
    for (size_t i = 0; i < it->problems.len; i++)
        if (cw_strlist_add(&out->problems, it->problems.items[i]) != CW_OK)
            return cw_error_oom(err);
    for (size_t i = 0; i < it->nrefs; i++) {
        const cw_plan_job *j = &p->jobs[it->refs[i].job];
        if (j->action != CW_ACT_CONFLICT || !j->reason)
            continue;
        cw_buf why;
        cw_buf_init(&why);
        cw_buf_printf(&why, "RecurringJob %s %s", j->name, j->reason);
        int rc = cw_buf_error(&why) ? CW_ENOMEM : CW_OK;
        if (rc == CW_OK && !cw_strlist_contains(&out->problems, cw_buf_str(&why)))
            rc = cw_strlist_add(&out->problems, cw_buf_str(&why));
        cw_buf_free(&why);
        if (rc != CW_OK)
            return cw_error_oom(err);
    }
    if (!out->problems.len &&
        cw_strlist_add(&out->problems, it->reason ? it->reason : "cannot be migrated") != CW_OK)
        return cw_error_oom(err);
    return CW_OK;
}

/* Legacy jobs: the migrator's plan of this one volume against the jobs there are. */
static int plan_volume(json_object *vol, json_object *rjs, const cw_volctl_config *cfg,
                       cw_volctl_actions *out, cw_error *err)
{
    cw_plan p;
    const char *pol_group = cfg->policy->default_group;
    cw_plan_config pc = {
        .scheme = cfg->scheme,
        .namespace = cfg->namespace,
        .policy = cfg->policy,
        .default_group = pol_group && *pol_group,
        .rj_api_version = cfg->rj_api_version,
        .scratch_dir = "", /* one volume: its item stays in memory (read-only root filesystem) */
    };
    cw_plan_item item;
    memset(&item, 0, sizeof(item));
    int rc = cw_plan_init(&p, &pc, err);
    if (rc != CW_OK)
        return rc;
    for (size_t i = 0; rc == CW_OK && rjs && i < json_object_array_length(rjs); i++)
        rc = cw_plan_add(&p, json_object_array_get_idx(rjs, i), NULL, err);
    if (rc == CW_OK)
        rc = cw_plan_add(&p, vol, NULL, err);
    if (rc == CW_OK)
        rc = cw_plan_finish(&p, err);
    if (rc != CW_OK)
        goto done;
    long k = cw_plan_find_item(&p, "Volume", cw_json_path_string(vol, "metadata.namespace"),
                               cw_json_path_string(vol, "metadata.name"));
    if (k >= 0 && (rc = cw_plan_item_load(&p, (size_t)k, &item, err)) != CW_OK)
        goto done;
    if (k < 0 || item.action == CW_ACT_NONE)
        out->outcome = CW_VOLCTL_INSYNC;
    else if (item.action == CW_ACT_MIGRATE)
        rc = migrate(&p, &item, out, err);
    else
        rc = refused(&p, &item, out, err);
done:
    cw_plan_item_free(&item);
    cw_plan_free(&p);
    return rc;
}

int cw_volctl_decide(json_object *vol, json_object *rjs, const cw_volctl_config *cfg,
                     cw_volctl_actions *out, cw_error *err)
{
    out->outcome = CW_VOLCTL_INSYNC;
    if (cw_volume_has_legacy_jobs(vol))
        return plan_volume(vol, rjs, cfg, out, err);
    return default_label(vol, cfg, out, err);
}
