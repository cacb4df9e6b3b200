#include "longhorn/volctl.h"

#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "longhorn/volplan.h"
#include "longhorn/volume.h"

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

/* Legacy jobs: the migrator's decision of this one volume against the jobs there are. */
static int plan_volume(json_object *vol, json_object *rjs, const cw_volctl_config *cfg,
                       cw_volctl_actions *out, cw_error *err)
{
    cw_volplan_config pc = {
        .scheme = cfg->scheme,
        .namespace = cfg->namespace,
        .policy = cfg->policy,
        .rj_api_version = cfg->rj_api_version,
    };
    cw_volplan_result r;
    cw_volplan_result_init(&r);
    int rc = cw_volplan_decide(&pc, vol, rjs, &r, err);
    if (rc == CW_OK && r.action != CW_ACT_NONE) {
        out->outcome = r.action == CW_ACT_MIGRATE ? CW_VOLCTL_MIGRATE : CW_VOLCTL_REFUSED;
        out->jobs = r.jobs;
        out->patch = r.patch;
        r.jobs = r.patch = NULL;
        cw_strlist_free(&out->labels);
        cw_strlist_free(&out->problems);
        out->labels = r.labels;
        out->problems = r.problems;
        cw_strlist_init(&r.labels);
        cw_strlist_init(&r.problems);
    }
    cw_volplan_result_free(&r);
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
