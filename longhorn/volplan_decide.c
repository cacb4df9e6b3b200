/* One volume decided alone (the Volume reconciler's): a set of its legacy jobs against the
 * RecurringJobs there are, resolved as the planner resolves the cluster's, with no item store,
 * report or sort. */
#include "longhorn/volplan.h"

#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"

void cw_volplan_result_init(cw_volplan_result *r)
{
    memset(r, 0, sizeof(*r));
    cw_strlist_init(&r->labels);
    cw_strlist_init(&r->problems);
}

void cw_volplan_result_free(cw_volplan_result *r)
{
    json_object_put(r->jobs);
    json_object_put(r->patch);
    cw_strlist_free(&r->labels);
    cw_strlist_free(&r->problems);
    memset(r, 0, sizeof(*r));
}

/* MIGRATE: the jobs the volume refers to that are to be created, its labels and patch. */
static int migrate(const cw_lhjobs *t, const cw_volplan *v, const char *rv, cw_volplan_result *out,
                   cw_error *err)
{
    if (!(out->jobs = json_object_new_array()))
        return cw_error_oom(err);
    for (size_t i = 0; i < v->nrefs; i++) { /* refs are distinct (cw_volplan_refer) */
        json_object *rj = NULL;
        if (cw_lhjobs_at(t, v->refs[i].job)->action != CW_ACT_CREATE)
            continue;
        int rc = cw_lhjobs_object(t, v->refs[i].job, &rj, err);
        if (rc != CW_OK)
            return rc;
        if (json_object_array_add(out->jobs, rj)) {
            json_object_put(rj);
            return cw_error_oom(err);
        }
    }
    for (size_t i = 0; i < v->add_labels.len; i++)
        if (cw_strlist_add(&out->labels, v->add_labels.items[i]) != CW_OK)
            return cw_error_oom(err);
    out->patch = cw_volplan_merge_patch(rv, &v->add_labels);
    return out->patch ? CW_OK : cw_error_oom(err);
}

/* Not migrated: the problems as the report says them, and every conflicting job's reason. */
static int refused(const cw_lhjobs *t, const cw_volplan *v, cw_volplan_result *out)
{
    cw_buf why;
    cw_buf_init(&why);
    for (size_t i = 0; i < v->problems.len; i++)
        if (cw_strlist_add(&out->problems, v->problems.items[i]) != CW_OK)
            return CW_ENOMEM;
    for (size_t i = 0; i < v->nrefs; i++) {
        const cw_lhjob *j = cw_lhjobs_at(t, v->refs[i].job);
        if (j->action != CW_ACT_CONFLICT || !j->reason)
            continue;
        cw_buf_reset(&why);
        if (cw_buf_printf(&why, "RecurringJob %s %s", j->name, j->reason) != CW_OK ||
            (!cw_strlist_contains(&out->problems, cw_buf_str(&why)) &&
             cw_strlist_add(&out->problems, cw_buf_str(&why)) != CW_OK)) {
            cw_buf_free(&why);
            return CW_ENOMEM;
        }
    }
    cw_buf_free(&why);
    if (!out->problems.len &&
        cw_strlist_add(&out->problems, v->reason ? v->reason : "cannot be migrated") != CW_OK)
        return CW_ENOMEM;
    return CW_OK;
}

/* The RecurringJobs there are, each under its own apiVersion (else the set's). */
static int add_existing(cw_lhjobs *t, json_object *rjs, cw_error *err)
{
    if (cw_lhjobs_version_seen(t, "longhorn.io/v1beta1") != CW_OK)
        return cw_error_oom(err);
    for (size_t i = 0; rjs && i < json_object_array_length(rjs); i++) {
        json_object *rj = json_object_array_get_idx(rjs, i);
        const char *av = cw_json_path_string(rj, "apiVersion");
        int rc = cw_lhjobs_add_existing(t, rj, av ? av : t->rj_api_version, err);
        if (rc != CW_OK)
            return rc;
    }
    return CW_OK;
}

int cw_volplan_decide(const cw_volplan_config *cfg, json_object *vol, json_object *rjs,
                      cw_volplan_result *out, cw_error *err)
{
    cw_lhjobs t;
    cw_volplan v;
    const char *ns = NULL, *name = NULL, *rv = NULL;
    const cw_lhjobs_config tc = {cfg->scheme, cfg->namespace, cfg->policy, cfg->rj_api_version};
    out->action = CW_ACT_NONE;
    cw_volplan_init(&v);
    int rc = cw_lhjobs_init(&t, &tc, sizeof(cw_lhjob), err);
    if (rc != CW_OK)
        return rc;
    if ((rc = add_existing(&t, rjs, err)) != CW_OK ||
        (rc = cw_legacy_read_meta(vol, "Volume", &ns, &name, &rv, err)) != CW_OK ||
        (rc = cw_volplan_read(&t, vol, 1, &v, err)) != CW_OK ||
        (rc = cw_lhjobs_resolve(&t, err)) != CW_OK)
        goto done;
    if (cw_volplan_finish(&t, &v, cfg->policy ? cfg->policy->default_group : NULL) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    out->action = v.action;
    if (v.action == CW_ACT_MIGRATE)
        rc = migrate(&t, &v, rv ? rv : "", out, err);
    else if (v.action != CW_ACT_NONE && refused(&t, &v, out) != CW_OK)
        rc = cw_error_oom(err);
done:
    cw_volplan_free(&v);
    cw_lhjobs_free(&t);
    return rc;
}
