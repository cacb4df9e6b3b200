#include "controller/nonadmin_apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "controller/core/manager.h"
#include "cron/tz.h"
#include "lib/clock.h"
#include "lib/failpoint.h"
#include "lib/json.h"
#include "lib/log.h"

#define KEY_MAX     600
#define ALL         "all"    /* Velero index: every object of the kind (the queue) */
#define ACTIVE      "active" /* NonAdmin index: Created, its Velero object unfinished */
#define WAIT_MS     2000     /* look again while deletions are in progress */
#define CONFLICT_MS 1000

cw_kube_resource cw_nacshell_oadp(const char *plural, const char *ns)
{
    return (cw_kube_resource){"oadp.openshift.io", "v1alpha1", plural, ns};
}

cw_kube_resource cw_nacshell_velero(const char *plural, const char *ns)
{
    return (cw_kube_resource){"velero.io", "v1", plural, ns};
}

static cw_kube_resource own_res(cw_nacshell *s, const char *ns)
{
    return cw_nacshell_oadp(s->kind->plural, ns);
}

/* ---- informer plumbing ---- */

static int obj_index(void *ud, json_object *obj, char *out, size_t outlen)
{
    cw_nacshell *s = ud;
    const char *phase = cw_json_path_string(obj, "status.phase");
    json_object *ref = cw_json_member(cw_json_member(obj, "status"), s->kind->k->ref);
    if (!phase || strcmp(phase, "Created") || cw_nac_finished(ref))
        return 0;
    snprintf(out, outlen, ACTIVE);
    return 1;
}

static int velero_index(void *ud, json_object *obj, char *out, size_t outlen)
{
    (void)ud;
    (void)obj;
    snprintf(out, outlen, ALL);
    return 1;
}

/* What the cache keeps of a Velero object: identity, times, OADP's labels and annotations, and
 * the status (mirrored into the NonAdmin object); not the spec. */
static json_object *velero_slim(void *ud, json_object *obj)
{
    (void)ud;
    json_object *out = NULL;
    if (cw_json_copy(obj, &out) != CW_OK)
        return NULL;
    json_object_object_del(out, "spec");
    json_object *meta = cw_json_member(out, "metadata");
    json_object_object_del(meta, "managedFields");
    return out;
}

/* The NonAdmin object's key a Velero object names in its origin annotations. */
static int origin_key(const cw_nac_kind *k, json_object *b, char *out, size_t outlen)
{
    json_object *ann = cw_json_path(b, "metadata.annotations");
    json_object *ns = cw_json_member(ann, k->ann_namespace);
    json_object *name = cw_json_member(ann, k->ann_name);
    if (!json_object_is_type(ns, json_type_string) || !json_object_is_type(name, json_type_string))
        return 0;
    int n =
        snprintf(out, outlen, "%s/%s", json_object_get_string(ns), json_object_get_string(name));
    return n > 0 && (size_t)n < outlen;
}

/* A Velero object changed: its NonAdmin object looks again. When one finishes or an unfinished one
 * goes away, every active NonAdmin object's queue position may have dropped: all of them look
 * again, found through the cache's index (one look-up, no API call). */
static void on_velero(void *ud, cw_informer_op op, const char *key, json_object *old,
                      json_object *obj)
{
    (void)key;
    cw_nacshell *s = ud;
    char nkey[KEY_MAX];
    if (origin_key(s->kind->k, obj ? obj : old, nkey, sizeof(nkey)))
        cw_queue_add(s->queue, nkey);
    int left = (op == CW_INFORMER_UPDATE && !cw_nac_finished(old) && cw_nac_finished(obj)) ||
               (op == CW_INFORMER_DELETE && !cw_nac_finished(old));
    if (!left)
        return;
    cw_strlist keys;
    cw_strlist_init(&keys);
    if (cw_ctrl_store_index_keys(cw_informer_store(&s->objs), ACTIVE, &keys) == CW_OK)
        for (size_t i = 0; i < keys.len; i++)
            cw_queue_add(s->queue, keys.items[i]);
    cw_strlist_free(&keys);
}

/* ---- writes ---- */

static void count_write(cw_nacshell *s, const char *verb, int rc)
{
    cw_ctrl_count_write(s->m_writes, verb, rc);
}

/* PUT .../status with the object as read and the new status: conditional on its
 * resourceVersion. */
static int put_status(cw_nacshell *s, json_object *nab, json_object *status, cw_error *err)
{
    json_object *body = NULL;
    cw_buf path;
    cw_buf_init(&path);
    cw_kube_resource r = own_res(s, cw_json_path_string(nab, "metadata.namespace"));
    int rc = cw_json_copy(nab, &body);
    if (rc == CW_OK && json_object_object_add(body, "status", json_object_get(status))) {
        json_object_put(status); /* the reference taken for the body */
        rc = CW_ENOMEM;
    }
    if (rc == CW_OK)
        rc = cw_kube_path(&path, &r, cw_json_path_string(nab, "metadata.name"), "status", err);
    else
        cw_error_oom(err);
    if (rc == CW_OK)
        rc = cw_kube_request(s->kube, "PUT", cw_buf_str(&path), NULL, body, NULL, err);
    count_write(s, "update_status", rc);
    json_object_put(body);
    cw_buf_free(&path);
    return rc;
}

static int patch_finalizers(cw_nacshell *s, json_object *nab, json_object *fins, cw_error *err)
{
    json_object *p = json_object_new_object(), *meta = json_object_new_object();
    cw_kube_resource r = own_res(s, cw_json_path_string(nab, "metadata.namespace"));
    int rc = CW_ENOMEM;
    if (p && meta && !json_object_object_add(p, "metadata", meta)) {
        meta = NULL;
        json_object *m = cw_json_member(p, "metadata");
        json_object_object_add(
            m, "resourceVersion",
            json_object_new_string(cw_json_path_string(nab, "metadata.resourceVersion")));
        json_object_object_add(m, "finalizers", json_object_get(fins));
        rc = cw_kube_patch(s->kube, &r, cw_json_path_string(nab, "metadata.name"),
                           CW_KUBE_PATCH_MERGE, p, NULL, NULL, err);
    } else {
        cw_error_oom(err);
    }
    count_write(s, "patch_finalizers", rc);
    json_object_put(p);
    json_object_put(meta);
    return rc;
}

/* DELETE; already gone counts as done. */
static int delete_one(cw_nacshell *s, const char *verb, const cw_kube_resource *r, const char *name,
                      const char *uid, cw_error *err)
{
    cw_kube_delete_opts d;
    cw_kube_delete_opts_init(&d);
    d.uid = uid;
    int rc = cw_kube_delete(s->kube, r, name, &d, NULL, err);
    count_write(s, verb, rc);
    return rc == CW_ENOTFOUND ? CW_OK : rc;
}

typedef struct collect {
    json_object *items;
} collect;

static int collect_page(void *ud, const cw_kube_page *page, cw_error *err)
{
    collect *c = ud;
    (void)err;
    if (page->restarted) {
        json_object_put(c->items);
        c->items = NULL;
    }
    if (!c->items && !(c->items = json_object_new_array()))
        return cw_error_oom(err);
    for (size_t i = 0; i < json_object_array_length(page->items); i++)
        json_object_array_add(c->items, json_object_get(json_object_array_get_idx(page->items, i)));
    return 0;
}

/* The objects of r with the label selector, as a JSON array (caller's). */
int cw_nacshell_list(cw_nacshell *s, const cw_kube_resource *r, const char *selector,
                     json_object **out, cw_error *err)
{
    cw_kube_list_opts lo;
    collect c = {0};
    cw_kube_list_opts_init(&lo);
    lo.label_selector = selector;
    int rc = cw_kube_list(s->kube, r, &lo, collect_page, &c, err);
    if (rc == CW_OK && !c.items && !(c.items = json_object_new_array()))
        rc = cw_error_oom(err);
    if (rc != CW_OK) {
        json_object_put(c.items);
        return rc;
    }
    *out = c.items;
    return CW_OK;
}

/* The NonAdminRestores of the namespace made from this NonAdminBackup (spec.restoreSpec.backupName
 * names it), deleted. */
static int delete_restores(cw_nacshell *s, const char *ns, const char *name, cw_error *err)
{
    cw_kube_resource r = cw_nacshell_oadp("nonadminrestores", ns);
    json_object *nars = NULL;
    int rc = cw_nacshell_list(s, &r, NULL, &nars, err);
    if (rc == CW_ENOTFOUND) /* no NonAdminRestore CRD on this cluster: none to delete */
        return CW_OK;
    for (size_t i = 0; rc == CW_OK && i < json_object_array_length(nars); i++) {
        json_object *nar = json_object_array_get_idx(nars, i);
        const char *bn = cw_json_path_string(nar, "spec.restoreSpec.backupName");
        if (bn && strcmp(bn, name) == 0)
            rc = delete_one(s, "delete_nonadminrestore", &r,
                            cw_json_path_string(nar, "metadata.name"),
                            cw_json_path_string(nar, "metadata.uid"), err);
    }
    json_object_put(nars);
    return rc;
}

/* The Velero object of the recorded nacuuid: from the cache, or from the API when the cache does
 * not have it (yet). One with that name that is not this object's is never used. */
static int find_velero(cw_nacshell *s, const char *ns, const char *name, const char *nacuuid,
                       json_object **out, cw_error *err)
{
    char key[KEY_MAX];
    *out = NULL;
    snprintf(key, sizeof(key), "%s/%s", s->oadp, nacuuid);
    int rc = cw_ctrl_store_get(cw_informer_store(&s->velero), key, out);
    if (rc == CW_ENOTFOUND) {
        cw_kube_resource r = cw_nacshell_velero(s->kind->velero_plural, s->oadp);
        rc = cw_kube_get(s->kube, &r, nacuuid, out, err);
    }
    if (rc == CW_ENOTFOUND) {
        *out = NULL;
        return CW_OK;
    }
    if (rc != CW_OK)
        return rc;
    if (!cw_nac_owns(s->kind->k, *out, ns, name, nacuuid)) {
        json_object_put(*out);
        *out = NULL;
        return cw_error_set(err, CW_EINVAL,
                            "Velero %s %s/%s exists and does not carry this object's origin "
                            "labels and annotations: not adopted",
                            s->kind->k->velero_kind, s->oadp, nacuuid);
    }
    return CW_OK;
}

int cw_nacshell_get(cw_nacshell *s, const cw_kube_resource *r, const char *name, json_object **out,
                    cw_error *err)
{
    int rc = cw_kube_get(s->kube, r, name, out, err);
    if (rc == CW_ENOTFOUND) {
        *out = NULL;
        rc = CW_OK;
    }
    return rc;
}

static int create_velero(cw_nacshell *s, const char *plural, const char *verb, json_object *obj,
                         cw_error *err)
{
    cw_kube_resource r = cw_nacshell_velero(plural, s->oadp);
    int rc = cw_kube_create(s->kube, &r, obj, NULL, NULL, err);
    count_write(s, verb, rc);
    return rc;
}

/* ---- the reconcile ---- */

static void now_rfc3339(char *out, size_t len)
{
    cw_tz_format_rfc3339((int64_t)time(NULL), 0, out, len);
}

static int delete_dbrs(cw_nacshell *s, json_object *dbrs, cw_error *err)
{
    cw_kube_resource r = cw_nacshell_velero("deletebackuprequests", s->oadp);
    int rc = CW_OK;
    size_t n = json_object_is_type(dbrs, json_type_array) ? json_object_array_length(dbrs) : 0;
    for (size_t i = 0; rc == CW_OK && i < n; i++) {
        json_object *d = json_object_array_get_idx(dbrs, i);
        rc =
            delete_one(s, "delete_deletebackuprequest", &r, cw_json_path_string(d, "metadata.name"),
                       cw_json_path_string(d, "metadata.uid"), err);
    }
    return rc;
}

/* The writes of one decision, in order; a 409 anywhere ends the reconcile (the watch brings the
 * newer version). */
static int apply(cw_nacshell *s, const cw_nac_input *in, const cw_nac_actions *a, cw_error *err)
{
    const char *ns = cw_json_path_string(in->obj, "metadata.namespace");
    const char *name = cw_json_path_string(in->obj, "metadata.name");
    char point[64];
    int rc = CW_OK;
    if (a->create) {
        snprintf(point, sizeof(point), "%s-create", s->kind->name);
        cw_failpoint(point); /* e2e: nacuuid recorded, nothing created */
        rc = create_velero(s, s->kind->velero_plural, "create_velero", a->create, err);
        if (rc == CW_ECONFLICT) {
            /* Created by an earlier attempt: ours only when it carries our origin. */
            json_object *cur = NULL;
            rc = find_velero(s, ns, name, a->nacuuid, &cur, err);
            json_object_put(cur);
        }
        if (rc != CW_OK)
            return rc;
        snprintf(point, sizeof(point), "%s-created", s->kind->name);
        cw_failpoint(point); /* e2e: created, status not written */
    }
    if (a->status && (rc = put_status(s, in->obj, a->status, err)) != CW_OK)
        return rc;
    if (a->finalizers && (rc = patch_finalizers(s, in->obj, a->finalizers, err)) != CW_OK)
        return rc;
    if (a->delete_nars && (rc = delete_restores(s, ns, name, err)) != CW_OK)
        return rc;
    if (a->delete_self) {
        cw_kube_resource r = own_res(s, ns);
        if ((rc = delete_one(s, "delete_self", &r, name,
                             cw_json_path_string(in->obj, "metadata.uid"), err)) != CW_OK)
            return rc;
    }
    if (a->dbr && (rc = create_velero(s, "deletebackuprequests", "create_deletebackuprequest",
                                      a->dbr, err)) == CW_ECONFLICT)
        rc = CW_OK; /* the one an earlier attempt made */
    if (rc != CW_OK)
        return rc;
    if (a->delete_velero) {
        cw_kube_resource r = cw_nacshell_velero(s->kind->velero_plural, s->oadp);
        if ((rc = delete_one(s, "delete_velero", &r, a->nacuuid, NULL, err)) != CW_OK)
            return rc;
    }
    if (a->delete_dbrs)
        rc = delete_dbrs(s, in->dbrs, err);
    return rc;
}

int cw_nacshell_reconcile(void *ud, const char *key, cw_ctrl_result *res, cw_error *err)
{
    cw_nacshell *s = ud;
    cw_nac_input in = {0};
    cw_nac_actions a;
    char now[CW_TZ_RFC3339_MAX], uuid[CW_UUID4_LEN + 1] = "", path[64];
    int rc;
    cw_nac_actions_init(&a);

    rc = cw_ctrl_store_get(cw_informer_store(&s->objs), key, &in.obj);
    if (rc == CW_ENOTFOUND) {
        res->outcome = "deleted";
        rc = CW_OK;
        goto done;
    }
    if (rc != CW_OK) {
        res->retry = 1;
        cw_error_set(err, rc, "%s: out of memory", key);
        goto done;
    }
    const char *ns = cw_json_path_string(in.obj, "metadata.namespace");
    const char *name = cw_json_path_string(in.obj, "metadata.name");
    snprintf(path, sizeof(path), "status.%s.nacuuid", s->kind->k->ref);
    const char *nacuuid = cw_json_path_string(in.obj, path);
    if (ns && name && nacuuid && *nacuuid &&
        (rc = find_velero(s, ns, name, nacuuid, &in.velero, err)) != CW_OK)
        goto fail;
    if ((rc = cw_ctrl_store_by_index(cw_informer_store(&s->velero), ALL, &in.all)) != CW_OK ||
        (s->kind->gather && (rc = s->kind->gather(s, in.obj, &in, err)) != CW_OK))
        goto fail;
    if (!nacuuid && (rc = cw_uuid4(uuid, sizeof(uuid), err)) != CW_OK)
        goto fail;
    now_rfc3339(now, sizeof(now));
    in.now = now;
    in.uuid = uuid;
    if ((rc = s->kind->decide(s, &in, &a, err)) != CW_OK) {
        res->retry = rc != CW_EINVAL;
        cw_error_prefix(err, "%s %s", s->kind->name, key);
        goto done;
    }
    res->outcome = cw_nac_outcome_name(a.outcome);
    rc = apply(s, &in, &a, err);
    if (rc == CW_ECONFLICT) {
        cw_log(CW_LOG_DEBUG, "changed meanwhile; deciding again", CW_LS(s->kind->name, key),
               CW_LS("error", err->message));
        res->outcome = "conflict";
        res->requeue_at_ms = cw_clock_wall_ms() + CONFLICT_MS;
        rc = CW_OK;
        goto done;
    }
    if (rc == CW_ENOTFOUND) { /* deleted meanwhile */
        res->outcome = "deleted";
        rc = CW_OK;
        goto done;
    }
    if (rc != CW_OK)
        goto fail;
    if (a.status || a.finalizers || a.create || a.dbr || a.delete_self)
        cw_log(CW_LOG_INFO, "reconciled", CW_LS(s->kind->name, key), CW_LS("outcome", res->outcome),
               CW_LS("nacuuid", a.nacuuid),
               CW_LS("phase", a.status ? cw_json_path_string(a.status, "phase") : ""));
    else
        cw_log(CW_LOG_DEBUG, "up to date", CW_LS(s->kind->name, key),
               CW_LS("outcome", res->outcome));
    if (a.wait)
        res->requeue_at_ms = cw_clock_wall_ms() + WAIT_MS;
    goto done;
fail:
    res->retry = 1;
    cw_error_prefix(err, "%s %s", s->kind->name, key);
done:
    cw_nac_actions_free(&a);
    json_object_put(in.obj);
    json_object_put(in.velero);
    json_object_put(in.all);
    json_object_put(in.dbrs);
    json_object_put(in.nab);
    return rc;
}

/* ---- the reconciler as the manager sees it (controller/core/reconciler.h) ---- */

int cw_nacshell_create(const cw_nacshell_kind *kind, json_object *enforced,
                       const cw_reconciler_env *env, void **self, cw_error *err)
{
    static const char *const verb_result[] = {"verb", "result", NULL};
    cw_nacshell *s = calloc(1, sizeof(*s));
    char help[200];
    int rc;
    if (!s)
        return cw_error_oom(err);
    *self = s;
    s->kind = kind;
    s->kube = env->cfg->kube;
    s->queue = env->queue;
    s->oadp = env->cfg->oadp_namespace && *env->cfg->oadp_namespace ? env->cfg->oadp_namespace
                                                                    : "openshift-adp";
    s->enforced = enforced;
    if ((rc = kind->check_enforced(enforced, err)) != CW_OK)
        return rc;
    snprintf(help, sizeof(help),
             "API writes of the %s reconciler by verb and result (ok, conflict, not_found, "
             "error).",
             kind->name);
    if (env->metrics && (rc = cw_metrics_counter(env->metrics, kind->writes_metric, help,
                                                 verb_result, &s->m_writes, err)) != CW_OK)
        return rc;
    cw_informer_config oc = {
        .name = kind->plural,
        .kube = s->kube,
        .resource = own_res(s, NULL),
        .page_size = env->cfg->page_size,
        .index = obj_index,
        .index_ud = s,
        .queue = env->queue,
        .metrics = env->informer_metrics,
    };
    if ((rc = cw_informer_init(&s->objs, &oc, err)) != CW_OK)
        return rc;
    s->objs_ok = 1;
    cw_informer_config vc = {
        .name = kind->velero_informer,
        .kube = s->kube,
        .resource = cw_nacshell_velero(kind->velero_plural, s->oadp),
        .page_size = env->cfg->page_size,
        .transform = velero_slim,
        .index = velero_index,
        .handler = on_velero,
        .handler_ud = s,
        .metrics = env->informer_metrics,
    };
    if ((rc = cw_informer_init(&s->velero, &vc, err)) != CW_OK)
        return rc;
    s->velero_ok = 1;
    return CW_OK;
}

int cw_nacshell_start(void *self, cw_error *err)
{
    cw_nacshell *s = self;
    int rc = cw_informer_start(&s->objs, err);
    return rc != CW_OK ? rc : cw_informer_start(&s->velero, err);
}

int cw_nacshell_synced(void *self, char *why, size_t whylen)
{
    cw_nacshell *s = self;
    cw_informer *infs[] = {&s->objs, &s->velero};
    return cw_informers_synced(infs, 2, why, whylen);
}

int cw_nacshell_enqueue_all(void *self)
{
    cw_nacshell *s = self;
    return cw_informer_enqueue_all(&s->objs, s->queue);
}

void cw_nacshell_stop(void *self)
{
    cw_nacshell *s = self;
    cw_informer_stop(&s->velero);
    cw_informer_stop(&s->objs);
}

void cw_nacshell_destroy(void *self)
{
    cw_nacshell *s = self;
    if (!s)
        return;
    /* The Velero objects first: their handler reads the other cache. */
    if (s->velero_ok)
        cw_informer_free(&s->velero);
    if (s->objs_ok)
        cw_informer_free(&s->objs);
    free(s);
}
