/* A set of legacy jobs as RecurringJobs: finding (and naming, judging) a tuple's job, the
 * RecurringJob each becomes, and resolving them against each other and what is there. */
#include "longhorn/legacyjob.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gojson.h"
#include "lib/grow.h"
#include "lib/json.h"
#include "longhorn/recurringjob.h"

#define RJ_V1BETA1 "longhorn.io/v1beta1"

int cw_lhjobs_init(cw_lhjobs *t, const cw_lhjobs_config *cfg, size_t esize, cw_error *err)
{
    memset(t, 0, sizeof(*t));
    t->cfg = *cfg;
    t->esize = esize;
    cw_strmap_init(&t->index);
    if (!(t->existing = json_object_new_object()) ||
        (cfg->rj_api_version && cw_lhjobs_set_version(t, cfg->rj_api_version) != CW_OK)) {
        cw_lhjobs_free(t);
        return cw_error_oom(err);
    }
    return CW_OK;
}

void cw_lhjobs_free(cw_lhjobs *t)
{
    for (size_t i = 0; i < t->len; i++) {
        cw_lhjob *j = cw_lhjobs_at(t, i);
        free(j->task);
        free(j->cron);
        json_object_put(j->labels);
        free(j->labels_json);
        free(j->invalid);
        free(j->reason);
    }
    free(t->items);
    cw_strmap_free(&t->index, NULL);
    json_object_put(t->existing);
    free(t->rj_api_version);
    memset(t, 0, sizeof(*t));
}

int cw_lhjobs_set_version(cw_lhjobs *t, const char *api_version)
{
    char *v = strdup(api_version);
    if (!v)
        return CW_ENOMEM;
    free(t->rj_api_version);
    t->rj_api_version = v;
    t->version_fixed = 1;
    return CW_OK;
}

int cw_lhjobs_version_seen(cw_lhjobs *t, const char *av)
{
    if (t->version_fixed || (t->rj_api_version && strcmp(av, t->rj_api_version) <= 0))
        return CW_OK;
    char *v = strdup(av);
    if (!v)
        return CW_ENOMEM;
    free(t->rj_api_version);
    t->rj_api_version = v;
    return CW_OK;
}

int cw_lhjobs_add_existing(cw_lhjobs *t, json_object *obj, const char *av, cw_error *err)
{
    const char *ns = NULL, *name = NULL, *rv = NULL;
    json_object *spec = NULL;
    int rc = cw_legacy_read_meta(obj, "RecurringJob", &ns, &name, &rv, err);
    if (rc != CW_OK)
        return rc;
    if (ns && strcmp(ns, t->cfg.namespace) != 0)
        return CW_OK;
    if ((rc = cw_json_opt_object(obj, "", "spec", &spec, err)) != CW_OK)
        return rc;
    if (cw_lhjobs_version_seen(t, av) != CW_OK)
        return cw_error_oom(err);
    json_object *copy = NULL;
    if (cw_json_copy(spec ? spec : NULL, &copy) != CW_OK)
        return cw_error_oom(err);
    json_object_object_add(t->existing, name, copy ? copy : json_object_new_object());
    return CW_OK;
}

int cw_lhjobs_object(const cw_lhjobs *t, size_t idx, json_object **out, cw_error *err)
{
    const cw_lhjob *j = cw_lhjobs_at(t, idx);
    json_object *o = json_object_new_object(), *meta = json_object_new_object(),
                *spec = json_object_new_object(), *labels = NULL;
    *out = NULL;
    if (!o || !meta || !spec || cw_json_copy(j->labels, &labels) != CW_OK)
        goto nomem;
    const char *av = t->rj_api_version ? t->rj_api_version : RJ_V1BETA1;
    json_object_object_add(o, "apiVersion", json_object_new_string(av));
    json_object_object_add(o, "kind", json_object_new_string("RecurringJob"));
    json_object_object_add(meta, "name", json_object_new_string(j->name));
    json_object_object_add(meta, "namespace", json_object_new_string(t->cfg.namespace));
    json_object_object_add(o, "metadata", meta);
    meta = NULL;
    /* The job's name is metadata.name. spec.name only where the CRD keeps it (v1beta2, whose
     * Longhorn webhook fills it too): Longhorn 1.2's v1beta1 prunes it, and a manifest holding a
     * field the cluster drops never matches what is stored (GitOps tools show it as drift). */
    if (strcmp(av, RJ_V1BETA1) != 0)
        json_object_object_add(spec, "name", json_object_new_string(j->name));
    json_object_object_add(spec, "groups", json_object_new_array());
    json_object_object_add(spec, "task", json_object_new_string(j->task));
    json_object_object_add(spec, "cron", json_object_new_string(j->cron));
    json_object_object_add(spec, "retain", json_object_new_int64(j->retain));
    json_object_object_add(spec, "concurrency", json_object_new_int(10));
    json_object_object_add(spec, "labels", labels ? labels : json_object_new_object());
    json_object_object_add(o, "spec", spec);
    *out = o;
    return CW_OK;
nomem:
    json_object_put(o);
    json_object_put(meta);
    json_object_put(spec);
    json_object_put(labels);
    return cw_error_oom(err);
}

/* Strips the "spec." of policy problems: legacy jobs have no spec level. */
static const char *legacy_field(const char *problem)
{
    return strncmp(problem, "spec.", 5) == 0 ? problem + 5 : problem;
}

/* Why a legacy job cannot become a RecurringJob (NULL when it can): the policy's validation of
 * the object that would be created, and its defaulting must not change task/cron/retain/labels
 * (the created object would then differ from the plan and a rerun would see a conflict). */
static int judge(const cw_lhjobs *t, size_t idx, cw_error *err)
{
    cw_lhjob *j = cw_lhjobs_at(t, idx);
    int rc = CW_OK;
    json_object *rj = NULL;
    cw_decision d;
    cw_decision_init(&d);
    cw_strlist why;
    cw_strlist_init(&why);
    if ((rc = cw_lhjobs_object(t, idx, &rj, err)) != CW_OK)
        goto done;
    if ((rc = cw_recurringjob_validate(t->cfg.policy, CW_OP_CREATE, NULL, rj, &d, err)) != CW_OK)
        goto done;
    for (size_t i = 0; i < d.problems.len; i++)
        if (cw_strlist_add(&why, legacy_field(d.problems.items[i])) != CW_OK)
            goto nomem;
    cw_decision_free(&d);
    cw_decision_init(&d);
    if ((rc = cw_recurringjob_default(t->cfg.policy, CW_OP_CREATE, NULL, rj, &d, err)) != CW_OK)
        goto done;
    for (size_t i = 0; d.patch && i < json_object_array_length(d.patch); i++) {
        json_object *op = json_object_array_get_idx(d.patch, i);
        const char *path = cw_json_path_string(op, "path");
        if (path && strcmp(path, "/spec/retain") == 0 &&
            cw_strlist_addf(
                &why, "retain: %" PRId64 " would be changed to %s by defaulting (task %s)",
                j->retain, cw_json_compact(cw_json_member(op, "value")), j->task) != CW_OK)
            goto nomem;
    }
    if (why.len && !(j->invalid = cw_strlist_join(&why, "; ")))
        goto nomem;
    goto done;
nomem:
    rc = cw_error_oom(err);
done:
    json_object_put(rj);
    cw_decision_free(&d);
    cw_strlist_free(&why);
    return rc;
}

/* A new job for the tuple (labels: its Go encoding, taken), zeroed past its cw_lhjob. */
static int append(cw_lhjobs *t, const cw_legacy_job *lj, cw_buf *labels, cw_error *err)
{
    if (cw_grow(&t->items, &t->cap, t->len, t->esize, 16) != CW_OK)
        return cw_error_oom(err);
    cw_lhjob *j = cw_lhjobs_at(t, t->len);
    memset(j, 0, t->esize);
    j->task = strdup(lj->task ? lj->task : "");
    j->cron = strdup(lj->cron ? lj->cron : "");
    j->retain = lj->retain;
    j->labels_json = cw_buf_detach(labels);
    /* Labels kept in their canonical (sorted) form, whatever order the first source had. */
    if (lj->labels && j->labels_json && !(j->labels = json_tokener_parse(j->labels_json))) {
        free(j->task);
        j->task = NULL;
    }
    if (!j->task || !j->cron || !j->labels_json) {
        free(j->task);
        free(j->cron);
        free(j->labels_json);
        json_object_put(j->labels);
        return cw_error_oom(err);
    }
    t->len++;
    return CW_OK;
}

int cw_lhjobs_find(cw_lhjobs *t, const cw_legacy_job *lj, int insert, long *idx, cw_error *err)
{
    int rc = CW_OK;
    cw_buf key, labels;
    cw_buf_init(&key);
    cw_buf_init(&labels);
    *idx = -1;
    if (cw_gojson_write(lj->labels, &labels) != CW_OK) {
        rc = cw_error_set(err, CW_EINVAL, "labels cannot be serialised");
        goto done;
    }
    const char *task = lj->task ? lj->task : "", *cron = lj->cron ? lj->cron : "";
    if (cw_buf_puts(&key, task) || cw_buf_putc(&key, '\0') ||
        cw_buf_printf(&key, "%" PRId64, lj->retain) || cw_buf_putc(&key, '\0') ||
        cw_buf_puts(&key, cron) || cw_buf_putc(&key, '\0') ||
        cw_buf_append(&key, labels.data, labels.len)) {
        rc = cw_error_oom(err);
        goto done;
    }
    void *found;
    if (cw_strmap_get(&t->index, key.data, key.len, &found)) {
        *idx = (long)(uintptr_t)found;
        goto done;
    }
    if (!insert || (rc = append(t, lj, &labels, err)) != CW_OK)
        goto done;
    if ((rc = cw_names_job(t->cfg.scheme, task, lj->retain, cron, lj->labels,
                           cw_lhjobs_at(t, t->len - 1)->name, err)) != CW_OK ||
        (rc = judge(t, t->len - 1, err)) != CW_OK)
        goto done;
    if (cw_strmap_put(&t->index, key.data, key.len, (void *)(uintptr_t)(t->len - 1), NULL) < 0) {
        rc = cw_error_oom(err);
        goto done;
    }
    *idx = (long)(t->len - 1);
done:
    cw_buf_free(&key);
    cw_buf_free(&labels);
    return rc;
}

int cw_lhjob_matches(const cw_lhjob *j, json_object *spec, cw_buf *diff)
{
    const char *task = cw_json_path_string(spec, "task");
    const char *cron = cw_json_path_string(spec, "cron");
    json_object *retain = cw_json_member(spec, "retain");
    json_object *labels = cw_json_member(spec, "labels");
    int same = 1;
    if (!task || strcmp(task, j->task) != 0) {
        cw_buf_printf(diff, "%stask \"%s\" (want \"%s\")", same ? "" : ", ", task ? task : "",
                      j->task);
        same = 0;
    }
    if (!cron || strcmp(cron, j->cron) != 0) {
        cw_buf_printf(diff, "%scron \"%s\" (want \"%s\")", same ? "" : ", ", cron ? cron : "",
                      j->cron);
        same = 0;
    }
    if (!json_object_is_type(retain, json_type_int) || json_object_get_int64(retain) != j->retain) {
        cw_buf_printf(diff, "%sretain %s (want %" PRId64 ")", same ? "" : ", ",
                      retain ? json_object_get_string(retain) : "unset", j->retain);
        same = 0;
    }
    /* Absent, null and {} labels mean the same to Longhorn. */
    int l_empty =
        !labels || json_object_is_type(labels, json_type_null) ||
        (json_object_is_type(labels, json_type_object) && json_object_object_length(labels) == 0);
    int j_empty = !j->labels || json_object_object_length(j->labels) == 0;
    if (!(l_empty && j_empty) && (l_empty || j_empty || !json_object_equal(labels, j->labels))) {
        cw_buf_printf(diff, "%slabels %s (want %s)", same ? "" : ", ",
                      labels ? cw_json_compact(labels) : "unset", j->labels_json);
        same = 0;
    }
    return same;
}

/* Jobs that get the same name from different tuples: both conflicts. */
static int collisions(cw_lhjobs *t, cw_error *err)
{
    cw_strmap names;
    cw_strmap_init(&names);
    int rc = CW_OK;
    for (size_t i = 0; i < t->len; i++) {
        void *other;
        cw_lhjob *b = cw_lhjobs_at(t, i);
        int put = cw_strmap_put(&names, b->name, strlen(b->name), (void *)(uintptr_t)i, &other);
        if (put < 0) {
            rc = cw_error_oom(err);
            break;
        }
        if (put != 0)
            continue;
        cw_lhjob *a = cw_lhjobs_at(t, (uintptr_t)other);
        cw_buf why;
        cw_buf_init(&why);
        cw_buf_printf(&why,
                      "two different legacy jobs get this name (task %s cron \"%s\" "
                      "retain %" PRId64 " labels %s, and task %s cron \"%s\" retain %" PRId64
                      " labels %s); use --name-scheme=xxh32 or rename one",
                      a->task, a->cron, a->retain, a->labels_json, b->task, b->cron, b->retain,
                      b->labels_json);
        for (cw_lhjob *j = a; j; j = j == a ? b : NULL) {
            j->action = CW_ACT_CONFLICT;
            free(j->reason);
            j->reason = strdup(cw_buf_str(&why));
        }
        cw_buf_free(&why);
    }
    cw_strmap_free(&names, NULL);
    return rc;
}

int cw_lhjobs_resolve(cw_lhjobs *t, cw_error *err)
{
    int rc = collisions(t, err);
    if (rc != CW_OK)
        return rc;
    for (size_t i = 0; i < t->len; i++) {
        cw_lhjob *j = cw_lhjobs_at(t, i);
        if (j->action == CW_ACT_CONFLICT)
            continue;
        if (j->invalid) {
            j->action = CW_ACT_INVALID;
            continue;
        }
        json_object *spec = cw_json_member(t->existing, j->name);
        if (!spec) {
            j->action = CW_ACT_CREATE;
            continue;
        }
        cw_buf diff;
        cw_buf_init(&diff);
        if (cw_lhjob_matches(j, spec, &diff)) {
            j->action = CW_ACT_EXISTS;
        } else {
            j->action = CW_ACT_CONFLICT;
            cw_buf b;
            cw_buf_init(&b);
            cw_buf_printf(&b, "already exists in %s with a different spec: %s", t->cfg.namespace,
                          cw_buf_str(&diff));
            j->reason = cw_buf_detach(&b);
        }
        cw_buf_free(&diff);
    }
    return CW_OK;
}
