/* Planner: feeding (cw_plan_add), resolution (cw_plan_finish) and the per-object decision shared
 * by the report, the manifest writer and the online applier. */
#include "migrate/plan.h"
#include "longhorn/recurringjob.h"
#include "longhorn/volume.h"
#include "lib/buf.h"
#include "lib/gojson.h"
#include "lib/json.h"
#include "lib/yaml.h"
#include "migrate/legacy.h"
#include "migrate/plan_items.h"
#include "lib/grow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cw_plan_action_name(cw_plan_action a)
{
    switch (a) {
    case CW_ACT_NONE:
        return "none";
    case CW_ACT_CREATE:
        return "create";
    case CW_ACT_EXISTS:
        return "exists";
    case CW_ACT_MIGRATE:
        return "migrate";
    case CW_ACT_DELETE:
        return "delete";
    case CW_ACT_KEEP:
        return "keep";
    case CW_ACT_INVALID:
        return "invalid";
    case CW_ACT_CONFLICT:
        return "conflict";
    case CW_ACT_UNUSED:
        return "unused";
    }
    return "unknown";
}

const char *cw_plan_result_name(cw_plan_result r)
{
    switch (r) {
    case CW_RES_PENDING:
        return "pending";
    case CW_RES_DONE:
        return "done";
    case CW_RES_DRYRUN:
        return "dry-run";
    case CW_RES_FAILED:
        return "failed";
    case CW_RES_SKIPPED:
        return "skipped";
    }
    return "unknown";
}

int cw_plan_set_result(cw_plan_result *slot, char **msg_slot, cw_plan_result r, const char *msg)
{
    char *copy = msg ? strdup(msg) : NULL;
    if (msg && !copy)
        return CW_ENOMEM;
    free(*msg_slot);
    *msg_slot = copy;
    *slot = r;
    return CW_OK;
}

int cw_plan_init(cw_plan *p, const cw_plan_config *cfg, cw_error *err)
{
    memset(p, 0, sizeof(*p));
    p->cfg = *cfg;
    cw_strmap_init(&p->job_index);
    int rc = cw_itemstore_init(&p->store, cfg->scratch_dir, err);
    if (rc != CW_OK)
        goto done;
    if (!(p->existing = json_object_new_object()) ||
        (cfg->rj_api_version && !(p->rj_api_version = strdup(cfg->rj_api_version))))
        rc = cw_error_oom(err);
done:
    if (rc != CW_OK)
        cw_plan_free(p); /* callers need not free a plan that did not start */
    return rc;
}

void cw_plan_item_free(cw_plan_item *it)
{
    free(it->strings);
    for (size_t i = 0; i < it->nrefs; i++)
        free(it->refs[i].legacy_name);
    free(it->refs);
    cw_strlist_free(&it->problems);
    cw_strlist_free(&it->present);
    free(it->selector);
    free(it->reason);
    cw_strlist_free(&it->add_labels);
    free(it->new_selector);
    free(it->result_msg);
    memset(it, 0, sizeof(*it));
}

void cw_plan_free(cw_plan *p)
{
    for (size_t i = 0; i < p->njobs; i++) {
        cw_plan_job *j = &p->jobs[i];
        free(j->task);
        free(j->cron);
        json_object_put(j->labels);
        free(j->labels_json);
        free(j->invalid);
        free(j->reason);
        free(j->result_msg);
    }
    free(p->jobs);
    cw_itemstore_free(&p->store);
    for (size_t i = 0; i < p->ncronjobs; i++) {
        cw_plan_cronjob *c = &p->cronjobs[i];
        free(c->namespace);
        free(c->name);
        free(c->volume);
        free(c->api_version);
        free(c->source);
        free(c->reason);
        free(c->result_msg);
    }
    free(p->cronjobs);
    for (size_t i = 0; i < p->nerrors; i++) {
        free(p->errors[i].object);
        free(p->errors[i].source);
        free(p->errors[i].message);
    }
    free(p->errors);
    cw_strmap_free(&p->job_index, NULL);
    json_object_put(p->existing);
    free(p->rj_api_version);
    memset(p, 0, sizeof(*p));
}

int cw_plan_record_error(cw_plan *p, const char *object, const char *source, const char *message)
{
    if (cw_grow((void **)&p->errors, &p->caperrors, p->nerrors, sizeof(*p->errors), 16) != CW_OK)
        return CW_ENOMEM;
    cw_plan_error *e = &p->errors[p->nerrors];
    e->object = strdup(object ? object : "");
    e->source = strdup(source ? source : "");
    e->message = strdup(message ? message : "");
    if (!e->object || !e->source || !e->message) {
        free(e->object);
        free(e->source);
        free(e->message);
        return CW_ENOMEM;
    }
    p->nerrors++;
    return CW_OK;
}

/* ---- classification ---- */

typedef enum { K_OTHER, K_VOLUME, K_STORAGECLASS, K_CONFIGMAP, K_RECURRINGJOB, K_CRONJOB } obj_kind;

static obj_kind classify(const cw_plan *p, json_object *obj, const char **api_version)
{
    const char *av = cw_json_path_string(obj, "apiVersion");
    const char *kind = cw_json_path_string(obj, "kind");
    *api_version = av;
    if (!av || !kind)
        return K_OTHER;
    if (strncmp(av, "longhorn.io/", 12) == 0) {
        if (strcmp(kind, "Volume") == 0)
            return K_VOLUME;
        if (strcmp(kind, "RecurringJob") == 0)
            return K_RECURRINGJOB;
        return K_OTHER;
    }
    if (strcmp(kind, "StorageClass") == 0 && strncmp(av, "storage.k8s.io/", 15) == 0)
        return K_STORAGECLASS;
    if (strcmp(kind, "ConfigMap") == 0 && strcmp(av, "v1") == 0) {
        const char *name = cw_json_path_string(obj, "metadata.name");
        const char *ns = cw_json_path_string(obj, "metadata.namespace");
        if (name && strcmp(name, CW_LONGHORN_SC_CONFIGMAP) == 0 &&
            (!ns || strcmp(ns, p->cfg.namespace) == 0))
            return K_CONFIGMAP;
        return K_OTHER;
    }
    if (strcmp(kind, "CronJob") == 0 && strncmp(av, "batch/", 6) == 0 &&
        cw_json_path_string(cw_json_path(obj, "metadata.labels"), CW_LEGACY_CRONJOB_LABEL))
        return K_CRONJOB;
    return K_OTHER;
}

static const char *kind_name(obj_kind k)
{
    switch (k) {
    case K_VOLUME:
        return "Volume";
    case K_STORAGECLASS:
        return "StorageClass";
    case K_CONFIGMAP:
        return "ConfigMap";
    case K_RECURRINGJOB:
        return "RecurringJob";
    case K_CRONJOB:
        return "CronJob";
    default:
        return "object";
    }
}

/* metadata.name (required) and metadata.namespace, type-checked. */
static int read_meta(json_object *obj, obj_kind k, const char **ns, const char **name,
                     const char **rv, cw_error *err)
{
    json_object *meta = NULL;
    int rc = cw_json_opt_object(obj, "", "metadata", &meta, err);
    if (rc != CW_OK)
        return rc;
    if (!meta)
        return cw_error_set(err, CW_EINVAL, "%s without metadata.name", kind_name(k));
    if ((rc = cw_json_opt_string(meta, "metadata", "name", name, err)) != CW_OK ||
        (rc = cw_json_opt_string(meta, "metadata", "namespace", ns, err)) != CW_OK ||
        (rc = cw_json_opt_string(meta, "metadata", "resourceVersion", rv, err)) != CW_OK)
        return rc;
    if (!*name || !**name)
        return cw_error_set(err, CW_EINVAL, "%s without metadata.name", kind_name(k));
    return CW_OK;
}

/* ---- jobs ---- */

/* Strips the "spec." of policy problems: legacy jobs have no spec level. */
static const char *legacy_field(const char *problem)
{
    return strncmp(problem, "spec.", 5) == 0 ? problem + 5 : problem;
}

/* Why a legacy job cannot become a RecurringJob (NULL when it can): the policy's validation of
 * the object the plan would create, and its defaulting must not change task/cron/retain/labels
 * (the created object would then differ from the plan and a rerun would see a conflict). */
static int judge_job(const cw_plan *p, cw_plan_job *j, cw_error *err)
{
    int rc = CW_OK;
    json_object *rj = NULL;
    cw_decision d;
    cw_decision_init(&d);
    cw_strlist why;
    cw_strlist_init(&why);
    if ((rc = cw_plan_job_object(p, (size_t)(j - p->jobs), &rj, err)) != CW_OK)
        goto done;
    if ((rc = cw_recurringjob_validate(p->cfg.policy, CW_OP_CREATE, NULL, rj, &d, err)) != CW_OK)
        goto done;
    for (size_t i = 0; i < d.problems.len; i++)
        if (cw_strlist_add(&why, legacy_field(d.problems.items[i])) != CW_OK)
            goto nomem;
    cw_decision_free(&d);
    cw_decision_init(&d);
    if ((rc = cw_recurringjob_default(p->cfg.policy, CW_OP_CREATE, NULL, rj, &d, err)) != CW_OK)
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

/* Finds or (when `insert`) adds the job for a legacy job tuple; *idx = -1 when unknown. */
static int lookup_job(cw_plan *p, const cw_legacy_job *lj, int insert, long *idx, cw_error *err)
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
    if (cw_strmap_get(&p->job_index, key.data, key.len, &found)) {
        *idx = (long)(uintptr_t)found;
        goto done;
    }
    if (!insert)
        goto done;
    if (cw_grow((void **)&p->jobs, &p->capjobs, p->njobs, sizeof(*p->jobs), 16) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    cw_plan_job *j = &p->jobs[p->njobs];
    memset(j, 0, sizeof(*j));
    j->task = strdup(task);
    j->cron = strdup(cron);
    j->retain = lj->retain;
    j->labels_json = cw_buf_detach(&labels);
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
        rc = cw_error_oom(err);
        goto done;
    }
    p->njobs++;
    if ((rc = cw_names_job(p->cfg.scheme, task, lj->retain, cron, lj->labels, j->name, err)) !=
            CW_OK ||
        (rc = judge_job(p, j, err)) != CW_OK)
        goto done;
    if (cw_strmap_put(&p->job_index, key.data, key.len, (void *)(uintptr_t)(p->njobs - 1), NULL) <
        0) {
        rc = cw_error_oom(err);
        goto done;
    }
    *idx = (long)(p->njobs - 1);
done:
    cw_buf_free(&key);
    cw_buf_free(&labels);
    return rc;
}

/* ---- items (volumes, storage classes, the ConfigMap) ---- */

/* Volume labels: which job/group labels are already enabled, and whether any exists. */
static int read_volume_labels(json_object *vol, cw_plan_item *it, cw_error *err)
{
    json_object *meta = cw_json_member(vol, "metadata"), *labels = NULL;
    int rc = cw_json_opt_object(meta, "metadata", "labels", &labels, err);
    if (rc != CW_OK || !labels)
        return rc;
    it->any_job_label = cw_volume_has_job_label(labels);
    json_object_object_foreach(labels, k, v)
    {
        if (!json_object_is_type(v, json_type_string))
            return cw_error_set(err, CW_EINVAL, "metadata.labels.%s: expected string, got %s", k,
                                cw_json_type_name(v));
        if (cw_volume_is_job_label(k) && strcmp(json_object_get_string(v), CW_LABEL_ENABLED) == 0 &&
            cw_strlist_add(&it->present, k) != CW_OK)
            return cw_error_oom(err);
    }
    return CW_OK;
}

/* Existing recurringJobSelector entries of a StorageClass ("name\x1fisGroup" in present). */
static int read_selector(json_object *sc, cw_plan_item *it)
{
    const char *sel = cw_json_path_string(cw_json_member(sc, "parameters"), "recurringJobSelector");
    if (!sel)
        return CW_OK;
    if (!(it->selector = strdup(sel)))
        return CW_ENOMEM;
    json_object *arr = json_tokener_parse(sel);
    int rc = CW_OK;
    if (!json_object_is_type(arr, json_type_array)) {
        rc = cw_strlist_addf(&it->problems,
                             "parameters.recurringJobSelector: expected a JSON array of "
                             "{\"name\", \"isGroup\"}, got %s",
                             arr ? cw_json_type_name(arr) : "invalid JSON");
        goto done;
    }
    for (size_t i = 0; i < json_object_array_length(arr); i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        const char *name = cw_json_path_string(e, "name");
        json_object *g = cw_json_member(e, "isGroup");
        if (!name || (g && !json_object_is_type(g, json_type_boolean))) {
            rc =
                cw_strlist_addf(&it->problems,
                                "parameters.recurringJobSelector[%zu]: expected {\"name\": string, "
                                "\"isGroup\": bool}",
                                i);
            goto done;
        }
        if ((rc = cw_strlist_addf(&it->present, "%s\x1f%d", name,
                                  g ? json_object_get_boolean(g) : 0)) != CW_OK)
            goto done;
    }
done:
    json_object_put(arr);
    return rc;
}

/* Decodes the legacy jobs of a Volume, StorageClass or ConfigMap into `it`. Type errors in a
 * Volume are input errors (returned); problems inside StorageClass parameter text are recorded
 * as problems (the object is then left alone). */
static int decode_item(cw_plan *p, json_object *obj, obj_kind k, int insert, cw_plan_item *it,
                       cw_error *err)
{
    int rc = CW_OK;
    cw_legacy_jobs lj;
    cw_legacy_jobs_init(&lj);
    json_object *sc = NULL;
    cw_error perr;
    cw_error_init(&perr);

    if (k == K_VOLUME) {
        if ((rc = cw_legacy_decode_volume(obj, &lj, err)) != CW_OK ||
            (rc = read_volume_labels(obj, it, err)) != CW_OK)
            goto done;
    } else {
        if (k == K_CONFIGMAP) {
            if ((rc = cw_legacy_configmap_storageclass(obj, &sc, &perr)) != CW_OK) {
                it->has_legacy = 1;
                rc = cw_strlist_add(&it->problems, perr.message) ? cw_error_oom(err) : CW_OK;
                goto done;
            }
        } else {
            sc = json_object_get(obj);
        }
        if (!sc)
            goto done;
        if (cw_legacy_decode_storageclass(sc, &lj, &perr) != CW_OK) {
            it->has_legacy = 1;
            rc = cw_strlist_add(&it->problems, perr.message) ? cw_error_oom(err) : CW_OK;
            goto done;
        }
        if (lj.present && read_selector(sc, it) != CW_OK) {
            rc = cw_error_oom(err);
            goto done;
        }
    }
    it->has_legacy = lj.present;
    if (lj.len && !(it->refs = calloc(lj.len, sizeof(*it->refs)))) {
        rc = cw_error_oom(err);
        goto done;
    }
    const char *field = k == K_VOLUME ? "spec.recurringJobs" : "parameters.recurringJobs";
    for (size_t i = 0; i < lj.len; i++) {
        long idx;
        if ((rc = lookup_job(p, &lj.items[i], insert, &idx, err)) != CW_OK)
            goto done;
        const char *lname = lj.items[i].name ? lj.items[i].name : "";
        if (idx < 0) {
            rc = cw_strlist_addf(&it->problems,
                                 "%s[%zu] (%s) is not in the plan: the object changed since "
                                 "planning; run migrate again",
                                 field, i, lname);
            if (rc != CW_OK)
                goto done;
            continue;
        }
        cw_plan_job *j = &p->jobs[idx];
        if (j->invalid && cw_strlist_addf(&it->problems, "%s[%zu] (%s): %s", field, i, lname,
                                          j->invalid) != CW_OK) {
            rc = cw_error_oom(err);
            goto done;
        }
        /* The same job twice on one object is one reference. */
        size_t r;
        for (r = 0; r < it->nrefs && it->refs[r].job != (size_t)idx; r++)
            ;
        if (r < it->nrefs)
            continue;
        it->refs[it->nrefs].job = (size_t)idx;
        if (!(it->refs[it->nrefs].legacy_name = strdup(lname))) {
            rc = cw_error_oom(err);
            goto done;
        }
        it->nrefs++;
    }
done:
    json_object_put(sc);
    cw_legacy_jobs_free(&lj);
    return rc;
}

/* Copies `s` to *at and moves *at past it. */
static const char *pack(char **at, const char *s)
{
    size_t n = strlen(s) + 1;
    char *out = memcpy(*at, s, n);
    *at += n;
    return out;
}

/* An item's identity in one allocation. */
static int fill_identity(cw_plan_item *it, obj_kind k, const char *av, const char *ns,
                         const char *name, const char *rv, const char *source)
{
    ns = ns ? ns : "";
    rv = rv ? rv : "";
    source = source ? source : "";
    it->kind = kind_name(k);
    size_t n = strlen(name) + strlen(rv) + strlen(ns) + strlen(av) + strlen(source) + 5;
    char *at = it->strings = malloc(n);
    if (!at)
        return CW_ENOMEM;
    it->name = pack(&at, name);
    it->resource_version = pack(&at, rv);
    it->namespace = pack(&at, ns);
    it->api_version = pack(&at, av);
    it->source = pack(&at, source);
    return CW_OK;
}

/* Decodes the object into a new item and appends it to the store. As before the store, an item
 * whose decoding failed stays in the plan as far as it got, but no job counts it as a source. */
static int add_item(cw_plan *p, json_object *obj, obj_kind k, const char *av, const char *source,
                    cw_error *err)
{
    const char *ns = NULL, *name = NULL, *rv = NULL;
    int rc = read_meta(obj, k, &ns, &name, &rv, err);
    cw_plan_item it;
    memset(&it, 0, sizeof(it));
    if (rc != CW_OK)
        return rc;
    if (k == K_STORAGECLASS) {
        const char *prov = cw_json_path_string(obj, "provisioner");
        if (!prov || strcmp(prov, CW_LONGHORN_PROVISIONER) != 0)
            return CW_OK;
        ns = NULL;
    }
    if (k == K_VOLUME)
        p->scanned_volumes++;
    else
        p->scanned_storageclasses++;
    long prev = cw_plan_find_item(p, kind_name(k), ns, name);
    if (prev >= 0) {
        if ((rc = cw_plan_item_load(p, (size_t)prev, &it, err)) == CW_OK)
            rc = cw_error_set(err, CW_EINVAL, "%s %s%s%s appears twice (also in %s)", kind_name(k),
                              ns ? ns : "", ns ? "/" : "", name, it.source);
        goto done;
    }
    if (fill_identity(&it, k, av, ns, name, rv, source) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    rc = decode_item(p, obj, k, 1, &it, err);
    cw_error aerr;
    cw_error_init(&aerr);
    int added = cw_plan_item_append(p, &it, rc == CW_OK, rc == CW_OK ? err : &aerr);
    if (rc != CW_OK || (rc = added) != CW_OK)
        goto done;
    for (size_t r = 0; r < it.nrefs; r++)
        p->jobs[it.refs[r].job].nsrcs++;
done:
    cw_plan_item_free(&it);
    return rc;
}

static int add_existing_job(cw_plan *p, json_object *obj, const char *av, cw_error *err)
{
    const char *ns = NULL, *name = NULL, *rv = NULL;
    json_object *spec = NULL;
    int rc = read_meta(obj, K_RECURRINGJOB, &ns, &name, &rv, err);
    if (rc != CW_OK)
        return rc;
    if (ns && strcmp(ns, p->cfg.namespace) != 0)
        return CW_OK;
    if ((rc = cw_json_opt_object(obj, "", "spec", &spec, err)) != CW_OK)
        return rc;
    if (!p->cfg.rj_api_version && (!p->rj_api_version || strcmp(av, p->rj_api_version) > 0)) {
        free(p->rj_api_version);
        if (!(p->rj_api_version = strdup(av)))
            return cw_error_oom(err);
    }
    json_object *copy = NULL;
    if (cw_json_copy(spec ? spec : NULL, &copy) != CW_OK)
        return cw_error_oom(err);
    json_object_object_add(p->existing, name, copy ? copy : json_object_new_object());
    return CW_OK;
}

static int add_cronjob(cw_plan *p, json_object *obj, const char *av, const char *source,
                       cw_error *err)
{
    const char *ns = NULL, *name = NULL, *rv = NULL;
    int rc = read_meta(obj, K_CRONJOB, &ns, &name, &rv, err);
    if (rc != CW_OK)
        return rc;
    /* Already being deleted (a foreground deletion waits for the garbage collector). */
    if (cw_json_path(obj, "metadata.deletionTimestamp"))
        return CW_OK;
    if (cw_grow((void **)&p->cronjobs, &p->capcronjobs, p->ncronjobs, sizeof(*p->cronjobs), 16) !=
        CW_OK)
        return cw_error_oom(err);
    cw_plan_cronjob *c = &p->cronjobs[p->ncronjobs];
    memset(c, 0, sizeof(*c));
    p->ncronjobs++;
    c->namespace = strdup(ns ? ns : "");
    c->name = strdup(name);
    c->volume =
        strdup(cw_json_path_string(cw_json_path(obj, "metadata.labels"), CW_LEGACY_CRONJOB_LABEL));
    c->api_version = strdup(av);
    c->source = strdup(source ? source : "");
    if (!c->namespace || !c->name || !c->volume || !c->api_version || !c->source)
        return cw_error_oom(err);
    return CW_OK;
}

int cw_plan_add(cw_plan *p, json_object *obj, const char *source, cw_error *err)
{
    const char *av = NULL;
    if (p->finish_called)
        return cw_error_set(err, CW_EINVAL,
                            "the plan is already finished: no object can be added to it");
    if (!json_object_is_type(obj, json_type_object))
        return CW_OK;
    obj_kind k = classify(p, obj, &av);
    switch (k) {
    case K_VOLUME:
        if (!p->cfg.rj_api_version && (!p->rj_api_version || strcmp(av, p->rj_api_version) > 0)) {
            free(p->rj_api_version);
            if (!(p->rj_api_version = strdup(av)))
                return cw_error_oom(err);
        }
        /* fallthrough */
    case K_STORAGECLASS:
    case K_CONFIGMAP:
        return add_item(p, obj, k, av, source, err);
    case K_RECURRINGJOB:
        return add_existing_job(p, obj, av, err);
    case K_CRONJOB:
        return add_cronjob(p, obj, av, source, err);
    case K_OTHER:
        return CW_OK;
    }
    return CW_OK;
}

/* ---- resolution ---- */

int cw_plan_job_object(const cw_plan *p, size_t idx, json_object **out, cw_error *err)
{
    const cw_plan_job *j = &p->jobs[idx];
    json_object *o = json_object_new_object(), *meta = json_object_new_object(),
                *spec = json_object_new_object(), *labels = NULL;
    *out = NULL;
    if (!o || !meta || !spec || cw_json_copy(j->labels, &labels) != CW_OK)
        goto nomem;
    const char *av = p->rj_api_version ? p->rj_api_version : "longhorn.io/v1beta1";
    json_object_object_add(o, "apiVersion", json_object_new_string(av));
    json_object_object_add(o, "kind", json_object_new_string("RecurringJob"));
    json_object_object_add(meta, "name", json_object_new_string(j->name));
    json_object_object_add(meta, "namespace", json_object_new_string(p->cfg.namespace));
    json_object_object_add(o, "metadata", meta);
    meta = NULL;
    /* The job's name is metadata.name. spec.name only where the CRD keeps it (v1beta2, whose
     * Longhorn webhook fills it too): Longhorn 1.2's v1beta1 prunes it, and a manifest holding a
     * field the cluster drops never matches what is stored (GitOps tools show it as drift). */
    if (strcmp(av, "longhorn.io/v1beta1") != 0)
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

/* Compares an existing RecurringJob spec with a planned job; appends the differences. */
static int same_spec(json_object *spec, const cw_plan_job *j, cw_buf *diff)
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

int cw_plan_job_matches(const cw_plan *p, size_t j, json_object *spec, cw_buf *diff)
{
    return same_spec(spec, &p->jobs[j], diff);
}

int cw_plan_set_rj_api_version(cw_plan *p, const char *api_version)
{
    char *v = strdup(api_version);
    if (!v)
        return CW_ENOMEM;
    free(p->rj_api_version);
    p->rj_api_version = v;
    p->cfg.rj_api_version = p->rj_api_version;
    return CW_OK;
}

static int selector_json(const cw_plan *p, const cw_plan_item *it, char **out)
{
    cw_buf b;
    cw_buf_init(&b);
    int rc = cw_buf_putc(&b, '[');
    size_t n = 0;
    for (size_t i = 0; i < it->present.len && rc == CW_OK; i++) {
        const char *e = it->present.items[i];
        const char *sep = strchr(e, '\x1f');
        rc = cw_buf_puts(&b, n++ ? ",{\"name\":" : "{\"name\":");
        if (rc == CW_OK)
            rc = cw_gojson_write_string(&b, e, (size_t)(sep - e));
        if (rc == CW_OK)
            rc = cw_buf_printf(&b, ",\"isGroup\":%s}", sep[1] == '1' ? "true" : "false");
    }
    for (size_t r = 0; r < it->nrefs && rc == CW_OK; r++) {
        const char *name = p->jobs[it->refs[r].job].name;
        char entry[CW_NAMES_MAX + 4];
        snprintf(entry, sizeof(entry), "%s\x1f%d", name, 0);
        if (cw_strlist_contains(&it->present, entry))
            continue;
        rc = cw_buf_puts(&b, n++ ? ",{\"name\":" : "{\"name\":");
        if (rc == CW_OK)
            rc = cw_gojson_write_string(&b, name, strlen(name));
        if (rc == CW_OK)
            rc = cw_buf_puts(&b, ",\"isGroup\":false}");
    }
    if (rc == CW_OK)
        rc = cw_buf_putc(&b, ']');
    if (rc != CW_OK || n == 0) {
        cw_buf_free(&b);
        *out = NULL;
        return rc;
    }
    *out = cw_buf_detach(&b);
    return *out ? CW_OK : CW_ENOMEM;
}

/* The final action of an item given the resolved jobs. */
static int finalize_item(const cw_plan *p, cw_plan_item *it)
{
    free(it->reason);
    it->reason = NULL;
    free(it->new_selector);
    it->new_selector = NULL;
    cw_strlist_clear(&it->add_labels);
    if (!it->has_legacy) {
        it->action = CW_ACT_NONE;
        return CW_OK;
    }
    if (it->problems.len) {
        it->action = CW_ACT_INVALID;
        it->reason = cw_strlist_join(&it->problems, "; ");
        return it->reason ? CW_OK : CW_ENOMEM;
    }
    for (size_t r = 0; r < it->nrefs; r++) {
        const cw_plan_job *j = &p->jobs[it->refs[r].job];
        if (j->action == CW_ACT_CONFLICT) {
            it->action = CW_ACT_CONFLICT;
            cw_buf b;
            cw_buf_init(&b);
            if (cw_buf_printf(&b, "RecurringJob %s: %s", j->name, j->reason) != CW_OK)
                return CW_ENOMEM;
            it->reason = cw_buf_detach(&b);
            return it->reason ? CW_OK : CW_ENOMEM;
        }
    }
    it->action = CW_ACT_MIGRATE;
    if (strcmp(it->kind, "Volume") != 0)
        return selector_json(p, it, &it->new_selector);
    int rc = CW_OK;
    cw_buf key;
    cw_buf_init(&key);
    for (size_t r = 0; r < it->nrefs && rc == CW_OK; r++) {
        cw_buf_reset(&key);
        rc = cw_volume_job_label(&key, p->jobs[it->refs[r].job].name);
        if (rc == CW_OK && !cw_strlist_contains(&it->present, key.data))
            rc = cw_strlist_add(&it->add_labels, key.data);
    }
    /* The volume would end with no job or group label: the policy's default-group rule. */
    const char *group = p->cfg.policy ? p->cfg.policy->default_group : NULL;
    if (rc == CW_OK && p->cfg.default_group && group && *group && !it->any_job_label &&
        it->nrefs == 0) {
        cw_buf_reset(&key);
        rc = cw_volume_group_label(&key, group);
        if (rc == CW_OK)
            rc = cw_strlist_add(&it->add_labels, key.data);
    }
    cw_buf_free(&key);
    return rc;
}

/* Item i read, decided and written back; the jobs a migrated item wants are marked needed. */
static int finalize_stored(cw_plan *p, size_t i, unsigned char *needed, cw_error *err)
{
    cw_plan_item it;
    int rc = cw_plan_item_load(p, i, &it, err);
    if (rc != CW_OK)
        return rc;
    if (finalize_item(p, &it) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    if (it.action == CW_ACT_MIGRATE && cw_plan_item_counted(p, i))
        for (size_t r = 0; r < it.nrefs; r++)
            needed[it.refs[r].job] = 1;
    rc = cw_plan_item_store(p, i, &it, err);
done:
    cw_plan_item_free(&it);
    return rc;
}

/* Every job's action: invalid, a name two jobs share, created, or an existing RecurringJob with the
 * same spec (reused) or another one (a conflict). */
static int resolve_jobs(cw_plan *p, cw_error *err)
{
    cw_strmap names;
    cw_strmap_init(&names);
    int rc = CW_OK;
    for (size_t i = 0; i < p->njobs; i++) {
        void *other;
        int put = cw_strmap_put(&names, p->jobs[i].name, strlen(p->jobs[i].name),
                                (void *)(uintptr_t)i, &other);
        if (put < 0) {
            rc = cw_error_oom(err);
            goto done;
        }
        if (put == 0) {
            cw_plan_job *a = &p->jobs[(uintptr_t)other], *b = &p->jobs[i];
            cw_buf why;
            cw_buf_init(&why);
            cw_buf_printf(&why,
                          "two different legacy jobs get this name (task %s cron \"%s\" "
                          "retain %" PRId64 " labels %s, and task %s cron \"%s\" retain %" PRId64
                          " labels %s); use --name-scheme=xxh32 or rename one",
                          a->task, a->cron, a->retain, a->labels_json, b->task, b->cron, b->retain,
                          b->labels_json);
            for (cw_plan_job *j = a; j; j = j == a ? b : NULL) {
                j->action = CW_ACT_CONFLICT;
                free(j->reason);
                j->reason = strdup(cw_buf_str(&why));
            }
            cw_buf_free(&why);
        }
    }
    for (size_t i = 0; i < p->njobs; i++) {
        cw_plan_job *j = &p->jobs[i];
        if (j->action == CW_ACT_CONFLICT)
            continue;
        if (j->invalid) {
            j->action = CW_ACT_INVALID;
            continue;
        }
        json_object *spec = cw_json_member(p->existing, j->name);
        if (!spec) {
            j->action = CW_ACT_CREATE;
            continue;
        }
        cw_buf diff;
        cw_buf_init(&diff);
        if (same_spec(spec, j, &diff)) {
            j->action = CW_ACT_EXISTS;
        } else {
            j->action = CW_ACT_CONFLICT;
            cw_buf b;
            cw_buf_init(&b);
            cw_buf_printf(&b, "already exists in %s with a different spec: %s", p->cfg.namespace,
                          cw_buf_str(&diff));
            j->reason = cw_buf_detach(&b);
        }
        cw_buf_free(&diff);
    }
done:
    cw_strmap_free(&names, NULL);
    return rc;
}

int cw_plan_finish(cw_plan *p, cw_error *err)
{
    int rc = CW_OK;
    unsigned char *needed = NULL;
    /* Once per plan, even after a failure: a second run would decide again over decided jobs
     * and items and add a second set of orders to the item file. */
    if (p->finish_called)
        return cw_error_set(err, CW_EINVAL, "the plan is already finished: it is finished once");
    p->finish_called = 1;
    if (!p->rj_api_version && !(p->rj_api_version = strdup("longhorn.io/v1beta1")))
        return cw_error_oom(err);

    /* 1. Jobs: invalid, name collisions, existing objects. */
    if ((rc = resolve_jobs(p, err)) != CW_OK)
        return rc;

    /* 2. Items (read, decided, written back), then which new jobs are actually needed: those of
     * a source that is migrated. */
    if (p->njobs && !(needed = calloc(p->njobs, 1))) {
        rc = cw_error_oom(err);
        goto done;
    }
    for (size_t i = 0; i < p->nitems; i++)
        if ((rc = finalize_stored(p, i, needed, err)) != CW_OK)
            goto done;
    for (size_t i = 0; i < p->njobs; i++) {
        cw_plan_job *j = &p->jobs[i];
        if (j->action != CW_ACT_CREATE)
            continue;
        if (!needed[i]) {
            j->action = CW_ACT_UNUSED;
            j->reason = strdup("only wanted by objects that are not migrated");
        }
    }

    /* 3. Legacy CronJobs: deleted once their volume has no legacy jobs left to run. */
    for (size_t i = 0; i < p->ncronjobs; i++) {
        cw_plan_cronjob *c = &p->cronjobs[i];
        long v = cw_plan_find_item(p, "Volume", c->namespace, c->volume);
        cw_plan_action va = v >= 0 ? cw_plan_item_action(p, (size_t)v) : CW_ACT_NONE;
        if (v < 0) {
            c->action = CW_ACT_KEEP;
            c->reason = strdup("its volume is not among the inputs; left alone");
        } else if (va == CW_ACT_MIGRATE || va == CW_ACT_NONE) {
            c->action = CW_ACT_DELETE;
        } else {
            c->action = CW_ACT_KEEP;
            c->reason = strdup("its volume is not migrated; it keeps running the legacy job");
        }
    }
    /* 4. The report's orders, in the item file. */
    if ((rc = cw_plan_sort_items(p, err)) != CW_OK)
        goto done;
    p->finished = 1;
done:
    free(needed);
    return rc;
}

int cw_plan_decide(const cw_plan *p, json_object *obj, cw_plan_item *it, cw_error *err)
{
    const char *av = NULL, *ns = NULL, *name = NULL, *rv = NULL;
    memset(it, 0, sizeof(*it));
    obj_kind k = classify(p, obj, &av);
    if (k != K_VOLUME && k != K_STORAGECLASS && k != K_CONFIGMAP)
        return CW_OK;
    if (k == K_STORAGECLASS) {
        const char *prov = cw_json_path_string(obj, "provisioner");
        if (!prov || strcmp(prov, CW_LONGHORN_PROVISIONER) != 0)
            return CW_OK;
    }
    int rc = read_meta(obj, k, &ns, &name, &rv, err);
    if (rc != CW_OK)
        return rc;
    if (fill_identity(it, k, av, k == K_STORAGECLASS ? NULL : ns, name, rv, "") != CW_OK)
        return cw_error_oom(err);
    /* insert = 0: lookups only, the plan is not modified. */
    if ((rc = decode_item((cw_plan *)p, obj, k, 0, it, err)) != CW_OK)
        return rc;
    return finalize_item(p, it) == CW_OK ? CW_OK : cw_error_oom(err);
}

/* ---- applying a decision ---- */

static int apply_storageclass(const cw_plan_item *it, json_object *sc)
{
    json_object *params = cw_json_member(sc, "parameters");
    if (!json_object_is_type(params, json_type_object))
        return CW_OK;
    json_object_object_del(params, "recurringJobs");
    if (it->new_selector)
        json_object_object_add(params, "recurringJobSelector",
                               json_object_new_string(it->new_selector));
    return CW_OK;
}

int cw_plan_apply_item(const cw_plan_item *it, json_object *obj, cw_error *err)
{
    if (it->action != CW_ACT_MIGRATE)
        return CW_OK;
    if (strcmp(it->kind, "StorageClass") == 0)
        return apply_storageclass(it, obj);
    if (strcmp(it->kind, "ConfigMap") == 0) {
        json_object *sc = NULL;
        cw_buf text;
        cw_buf_init(&text);
        int rc = cw_legacy_configmap_storageclass(obj, &sc, err);
        if (rc == CW_OK && sc && (rc = apply_storageclass(it, sc)) == CW_OK &&
            (rc = cw_yaml_emit(sc, &text, err)) == CW_OK)
            json_object_object_add(cw_json_member(obj, "data"), CW_LONGHORN_SC_KEY,
                                   json_object_new_string(cw_buf_str(&text)));
        json_object_put(sc);
        cw_buf_free(&text);
        return rc;
    }
    json_object *meta = cw_json_member(obj, "metadata");
    json_object *labels = cw_json_member(meta, "labels");
    if (!json_object_is_type(labels, json_type_object)) {
        labels = json_object_new_object();
        if (!labels)
            return cw_error_oom(err);
        json_object_object_add(meta, "labels", labels);
    }
    for (size_t i = 0; i < it->add_labels.len; i++)
        json_object_object_add(labels, it->add_labels.items[i],
                               json_object_new_string(CW_LABEL_ENABLED));
    json_object_object_del(cw_json_member(obj, "spec"), "recurringJobs");
    return CW_OK;
}

int cw_plan_volume_patch(const cw_plan_item *it, json_object *vol, json_object **ops, cw_error *err)
{
    int rc = CW_OK;
    char *path = NULL;
    json_object *arr = json_object_new_array();
    *ops = NULL;
    if (!arr)
        return cw_error_oom(err);
    if (it->resource_version && *it->resource_version &&
        (rc = cw_jpatch_op(arr, "test", "/metadata/resourceVersion",
                           json_object_new_string(it->resource_version))) != CW_OK)
        goto nomem;
    json_object *labels = cw_json_path(vol, "metadata.labels");
    if (!json_object_is_type(labels, json_type_object)) {
        json_object *all = json_object_new_object();
        for (size_t i = 0; all && i < it->add_labels.len; i++)
            json_object_object_add(all, it->add_labels.items[i],
                                   json_object_new_string(CW_LABEL_ENABLED));
        if (it->add_labels.len && cw_jpatch_op(arr, "add", "/metadata/labels", all) != CW_OK)
            goto nomem;
        if (!it->add_labels.len)
            json_object_put(all);
    } else {
        for (size_t i = 0; i < it->add_labels.len; i++) {
            if (!(path = cw_jptr("metadata", "labels", it->add_labels.items[i], NULL)) ||
                cw_jpatch_op(arr, "add", path, json_object_new_string(CW_LABEL_ENABLED)) != CW_OK)
                goto nomem;
            free(path);
            path = NULL;
        }
    }
    if (cw_json_path(vol, "spec") &&
        json_object_object_get_ex(cw_json_member(vol, "spec"), "recurringJobs", NULL) &&
        cw_jpatch_op(arr, "remove", "/spec/recurringJobs", NULL) != CW_OK)
        goto nomem;
    *ops = arr;
    return CW_OK;
nomem:
    free(path);
    json_object_put(arr);
    return cw_error_oom(err);
}

json_object *cw_plan_volume_merge_patch(const cw_plan_item *it)
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
    json_object_object_add(meta, "resourceVersion", json_object_new_string(it->resource_version));
    for (size_t i = 0; i < it->add_labels.len; i++)
        json_object_object_add(labels, it->add_labels.items[i],
                               json_object_new_string(CW_LABEL_ENABLED));
    if (it->add_labels.len)
        json_object_object_add(meta, "labels", labels);
    else
        json_object_put(labels);
    json_object_object_add(patch, "metadata", meta);
    json_object_object_add(spec, "recurringJobs", NULL);
    json_object_object_add(patch, "spec", spec);
    return patch;
}

/* ---- sorted views (items: migrate/plan_items.c) ---- */

static int cmp_nsname(const char *ans, const char *an, const char *bns, const char *bn)
{
    int c = strcmp(ans, bns);
    return c ? c : strcmp(an, bn);
}

static int cmp_jobs(const void *a, const void *b, void *ud)
{
    const cw_plan *p = ud;
    return strcmp(p->jobs[*(const size_t *)a].name, p->jobs[*(const size_t *)b].name);
}

static int cmp_cronjobs(const void *a, const void *b, void *ud)
{
    const cw_plan *p = ud;
    const cw_plan_cronjob *x = &p->cronjobs[*(const size_t *)a];
    const cw_plan_cronjob *y = &p->cronjobs[*(const size_t *)b];
    return cmp_nsname(x->namespace, x->name, y->namespace, y->name);
}

size_t *cw_plan_sorted_jobs(const cw_plan *p, size_t *n)
{
    size_t *idx = malloc((p->njobs + 1) * sizeof(*idx));
    *n = 0;
    if (!idx)
        return NULL;
    for (size_t i = 0; i < p->njobs; i++)
        idx[(*n)++] = i;
    qsort_r(idx, *n, sizeof(*idx), cmp_jobs, (void *)p);
    return idx;
}

size_t *cw_plan_sorted_cronjobs(const cw_plan *p, size_t *n)
{
    size_t *idx = malloc((p->ncronjobs + 1) * sizeof(*idx));
    *n = 0;
    if (!idx)
        return NULL;
    for (size_t i = 0; i < p->ncronjobs; i++)
        idx[(*n)++] = i;
    qsort_r(idx, *n, sizeof(*idx), cmp_cronjobs, (void *)p);
    return idx;
}

/* ---- one volume (the controller's) ---- */

void cw_plan_volume_result_init(cw_plan_volume_result *r)
{
    memset(r, 0, sizeof(*r));
    cw_strlist_init(&r->labels);
    cw_strlist_init(&r->problems);
}

void cw_plan_volume_result_free(cw_plan_volume_result *r)
{
    json_object_put(r->jobs);
    json_object_put(r->patch);
    cw_strlist_free(&r->labels);
    cw_strlist_free(&r->problems);
    memset(r, 0, sizeof(*r));
}

/* MIGRATE: the jobs the volume refers to that are to be created, its labels and patch. */
static int volume_migrate(const cw_plan *p, const cw_plan_item *it, cw_plan_volume_result *out,
                          cw_error *err)
{
    if (!(out->jobs = json_object_new_array()))
        return cw_error_oom(err);
    for (size_t i = 0; i < it->nrefs; i++) { /* refs are distinct (decode_item) */
        json_object *rj = NULL;
        if (p->jobs[it->refs[i].job].action != CW_ACT_CREATE)
            continue;
        int rc = cw_plan_job_object(p, it->refs[i].job, &rj, err);
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
    return (out->patch = cw_plan_volume_merge_patch(it)) ? CW_OK : cw_error_oom(err);
}

/* Not migrated: the problems as the report says them, and every conflicting job's reason. */
static int volume_refused(const cw_plan *p, const cw_plan_item *it, cw_plan_volume_result *out)
{
    cw_buf why;
    cw_buf_init(&why);
    for (size_t i = 0; i < it->problems.len; i++)
        if (cw_strlist_add(&out->problems, it->problems.items[i]) != CW_OK)
            return CW_ENOMEM;
    for (size_t i = 0; i < it->nrefs; i++) {
        const cw_plan_job *j = &p->jobs[it->refs[i].job];
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
        cw_strlist_add(&out->problems, it->reason ? it->reason : "cannot be migrated") != CW_OK)
        return CW_ENOMEM;
    return CW_OK;
}

int cw_plan_volume(const cw_plan_config *cfg, json_object *vol, json_object *rjs,
                   cw_plan_volume_result *out, cw_error *err)
{
    cw_plan p;
    cw_plan_item it;
    const char *ns = NULL, *name = NULL, *rv = NULL;
    int rc;
    memset(&p, 0, sizeof(p));
    memset(&it, 0, sizeof(it));
    p.cfg = *cfg;
    p.store.fd = -1;
    out->action = CW_ACT_NONE;
    cw_strmap_init(&p.job_index);
    if (!(p.existing = json_object_new_object()) ||
        !(p.rj_api_version =
              strdup(cfg->rj_api_version ? cfg->rj_api_version : "longhorn.io/v1beta1"))) {
        rc = cw_error_oom(err);
        goto done;
    }
    for (size_t i = 0; rjs && i < json_object_array_length(rjs); i++) {
        json_object *rj = json_object_array_get_idx(rjs, i);
        const char *av = cw_json_path_string(rj, "apiVersion");
        if ((rc = add_existing_job(&p, rj, av ? av : p.rj_api_version, err)) != CW_OK)
            goto done;
    }
    if ((rc = read_meta(vol, K_VOLUME, &ns, &name, &rv, err)) != CW_OK)
        goto done;
    if (fill_identity(&it, K_VOLUME, "", ns, name, rv, "") != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    if ((rc = decode_item(&p, vol, K_VOLUME, 1, &it, err)) != CW_OK ||
        (rc = resolve_jobs(&p, err)) != CW_OK)
        goto done;
    if (finalize_item(&p, &it) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    out->action = it.action;
    if (it.action == CW_ACT_MIGRATE)
        rc = volume_migrate(&p, &it, out, err);
    else if (it.action != CW_ACT_NONE && volume_refused(&p, &it, out) != CW_OK)
        rc = cw_error_oom(err);
done:
    cw_plan_item_free(&it);
    cw_plan_free(&p);
    return rc;
}
