/* Planner: feeding (cw_plan_add), resolution (cw_plan_finish) and the per-object decision shared
 * by the report, the manifest writer and the online applier. What is plan-wide stays here: the
 * set of every job fed (longhorn/legacyjob.h), StorageClasses and the ConfigMap, legacy CronJobs,
 * the items' store and orders. Each volume is decided as the Volume reconciler decides one,
 * by longhorn/volplan.h. */
#include "migrate/plan.h"
#include "lib/buf.h"
#include "lib/gojson.h"
#include "lib/grow.h"
#include "lib/json.h"
#include "migrate/plan_items.h"

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
    const cw_lhjobs_config jc = {cfg->scheme, cfg->namespace, cfg->policy, cfg->rj_api_version};
    int rc = cw_itemstore_init(&p->store, cfg->scratch_dir, err);
    if (rc == CW_OK)
        rc = cw_lhjobs_init(&p->jobs, &jc, sizeof(cw_plan_job), err);
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

cw_plan_job *cw_plan_job_at(const cw_plan *p, size_t j)
{
    return (cw_plan_job *)cw_lhjobs_at(&p->jobs, j);
}

void cw_plan_free(cw_plan *p)
{
    for (size_t i = 0; i < p->jobs.len; i++)
        free(cw_plan_job_at(p, i)->result_msg);
    cw_lhjobs_free(&p->jobs);
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

/* metadata.name (required), metadata.namespace and resourceVersion, type-checked. */
static int read_meta(json_object *obj, obj_kind k, const char **ns, const char **name,
                     const char **rv, cw_error *err)
{
    return cw_legacy_read_meta(obj, kind_name(k), ns, name, rv, err);
}

/* ---- items (volumes, storage classes, the ConfigMap) ---- */

#define SWAP(a, b)                                                                                 \
    do {                                                                                           \
        __typeof__(a) tmp_ = (a);                                                                  \
        (a) = (b);                                                                                 \
        (b) = tmp_;                                                                                \
    } while (0)

/* An item's legacy-job fields and v's exchanged: into an empty v, where longhorn/volplan decides
 * them, and then back into the item (nothing copied, nothing freed). */
static void exchange(cw_plan_item *it, cw_volplan *v)
{
    SWAP(it->refs, v->refs);
    SWAP(it->nrefs, v->nrefs);
    SWAP(it->problems, v->problems);
    SWAP(it->present, v->present);
    SWAP(it->has_legacy, v->has_legacy);
    SWAP(it->any_job_label, v->any_job_label);
    SWAP(it->action, v->action);
    SWAP(it->reason, v->reason);
    SWAP(it->add_labels, v->add_labels);
}

/* Existing recurringJobSelector entries of a StorageClass ("name\x1fisGroup" in v->present). */
static int read_selector(json_object *sc, cw_plan_item *it, cw_volplan *v)
{
    const char *sel = cw_json_path_string(cw_json_member(sc, "parameters"), "recurringJobSelector");
    if (!sel)
        return CW_OK;
    if (!(it->selector = strdup(sel)))
        return CW_ENOMEM;
    json_object *arr = json_tokener_parse(sel);
    int rc = CW_OK;
    if (!json_object_is_type(arr, json_type_array)) {
        rc = cw_strlist_addf(&v->problems,
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
                cw_strlist_addf(&v->problems,
                                "parameters.recurringJobSelector[%zu]: expected {\"name\": string, "
                                "\"isGroup\": bool}",
                                i);
            goto done;
        }
        if ((rc = cw_strlist_addf(&v->present, "%s\x1f%d", name,
                                  g ? json_object_get_boolean(g) : 0)) != CW_OK)
            goto done;
    }
done:
    json_object_put(arr);
    return rc;
}

/* The legacy jobs of a StorageClass, or of the one the ConfigMap holds, into v. Problems inside
 * the parameter text are recorded as problems (the object is then left alone). */
static int decode_storageclass(cw_plan *p, json_object *obj, obj_kind k, int insert,
                               cw_plan_item *it, cw_volplan *v, cw_error *err)
{
    int rc = CW_OK;
    cw_legacy_jobs lj;
    cw_legacy_jobs_init(&lj);
    json_object *sc = NULL;
    cw_error perr;
    cw_error_init(&perr);
    if (k == K_CONFIGMAP) {
        if (cw_legacy_configmap_storageclass(obj, &sc, &perr) != CW_OK)
            goto problem;
    } else {
        sc = json_object_get(obj);
    }
    if (!sc)
        goto done;
    if (cw_legacy_decode_storageclass(sc, &lj, &perr) != CW_OK)
        goto problem;
    if (lj.present && read_selector(sc, it, v) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    rc = cw_volplan_refer(&p->jobs, &lj, "parameters.recurringJobs", insert, v, err);
    goto done;
problem:
    v->has_legacy = 1;
    rc = cw_strlist_add(&v->problems, perr.message) ? cw_error_oom(err) : CW_OK;
done:
    json_object_put(sc);
    cw_legacy_jobs_free(&lj);
    return rc;
}

/* Decodes the legacy jobs of a Volume, StorageClass or ConfigMap into `it`: a Volume's as the
 * one-volume decision reads them (type errors are input errors, returned). */
static int decode_item(cw_plan *p, json_object *obj, obj_kind k, int insert, cw_plan_item *it,
                       cw_error *err)
{
    cw_volplan v;
    cw_volplan_init(&v);
    exchange(it, &v);
    int rc = k == K_VOLUME ? cw_volplan_read(&p->jobs, obj, insert, &v, err)
                           : decode_storageclass(p, obj, k, insert, it, &v, err);
    exchange(it, &v);
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
        cw_plan_job_at(p, it.refs[r].job)->nsrcs++;
done:
    cw_plan_item_free(&it);
    return rc;
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
        if (cw_lhjobs_version_seen(&p->jobs, av) != CW_OK)
            return cw_error_oom(err);
        /* fallthrough */
    case K_STORAGECLASS:
    case K_CONFIGMAP:
        return add_item(p, obj, k, av, source, err);
    case K_RECURRINGJOB:
        return cw_lhjobs_add_existing(&p->jobs, obj, av, err);
    case K_CRONJOB:
        return add_cronjob(p, obj, av, source, err);
    case K_OTHER:
        return CW_OK;
    }
    return CW_OK;
}

/* ---- resolution ---- */

int cw_plan_job_object(const cw_plan *p, size_t j, json_object **out, cw_error *err)
{
    return cw_lhjobs_object(&p->jobs, j, out, err);
}

int cw_plan_job_matches(const cw_plan *p, size_t j, json_object *spec, cw_buf *diff)
{
    return cw_lhjob_matches(&cw_plan_job_at(p, j)->rj, spec, diff);
}

int cw_plan_set_rj_api_version(cw_plan *p, const char *api_version)
{
    if (cw_lhjobs_set_version(&p->jobs, api_version) != CW_OK)
        return CW_ENOMEM;
    p->cfg.rj_api_version = p->jobs.rj_api_version;
    return CW_OK;
}

/* A StorageClass's new recurringJobSelector: the entries it had, then its jobs. */
static int selector_json(const cw_plan *p, const cw_volplan *it, char **out)
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
        const char *name = cw_plan_job_at(p, it->refs[r].job)->rj.name;
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

/* The final action of an item given the resolved jobs: a Volume's as the one-volume decision
 * makes it; a StorageClass's (or the ConfigMap's) new selector. */
static int finalize_item(const cw_plan *p, cw_plan_item *it)
{
    const char *group = p->cfg.default_group && p->cfg.policy ? p->cfg.policy->default_group : NULL;
    cw_volplan v;
    free(it->new_selector);
    it->new_selector = NULL;
    cw_volplan_init(&v);
    exchange(it, &v);
    int rc;
    if (strcmp(it->kind, "Volume") == 0)
        rc = cw_volplan_finish(&p->jobs, &v, group);
    else if ((rc = cw_volplan_verdict(&p->jobs, &v)) == CW_OK && v.action == CW_ACT_MIGRATE)
        rc = selector_json(p, &v, &it->new_selector);
    exchange(it, &v);
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

int cw_plan_finish(cw_plan *p, cw_error *err)
{
    int rc = CW_OK;
    unsigned char *needed = NULL;
    /* Once per plan, even after a failure: a second run would decide again over decided jobs
     * and items and add a second set of orders to the item file. */
    if (p->finish_called)
        return cw_error_set(err, CW_EINVAL, "the plan is already finished: it is finished once");
    p->finish_called = 1;
    if (cw_lhjobs_version_seen(&p->jobs, "longhorn.io/v1beta1") != CW_OK)
        return cw_error_oom(err);

    /* 1. Jobs: invalid, name collisions, existing objects. */
    if ((rc = cw_lhjobs_resolve(&p->jobs, err)) != CW_OK)
        return rc;

    /* 2. Items (read, decided, written back), then which new jobs are actually needed: those of
     * a source that is migrated. */
    if (p->jobs.len && !(needed = calloc(p->jobs.len, 1))) {
        rc = cw_error_oom(err);
        goto done;
    }
    for (size_t i = 0; i < p->nitems; i++)
        if ((rc = finalize_stored(p, i, needed, err)) != CW_OK)
            goto done;
    for (size_t i = 0; i < p->jobs.len; i++) {
        cw_lhjob *j = &cw_plan_job_at(p, i)->rj;
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

/* ---- sorted views (items: migrate/plan_items.c) ---- */

static int cmp_nsname(const char *ans, const char *an, const char *bns, const char *bn)
{
    int c = strcmp(ans, bns);
    return c ? c : strcmp(an, bn);
}

static int cmp_jobs(const void *a, const void *b, void *ud)
{
    const cw_plan *p = ud;
    return strcmp(cw_plan_job_at(p, *(const size_t *)a)->rj.name,
                  cw_plan_job_at(p, *(const size_t *)b)->rj.name);
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
    size_t *idx = malloc((p->jobs.len + 1) * sizeof(*idx));
    *n = 0;
    if (!idx)
        return NULL;
    for (size_t i = 0; i < p->jobs.len; i++)
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
