#include "controller/nonadmin_apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "controller/nonadmin_keep.h"
#include "cron/tz.h"
#include "lib/failpoint.h"
#include "lib/json.h"
#include "lib/k8sname.h"
#include "lib/log.h"
#include "lib/yaml.h"

#define ALL     "all"    /* Velero index: every object of the kind (the queue) */
#define ACTIVE  "active" /* NonAdmin index: Created, its Velero object unfinished */
#define WAIT_MS 2000     /* look again while deletions are in progress */

cw_kube_resource cw_nacshell_oadp(const char *plural, const char *ns)
{
    return (cw_kube_resource){"oadp.openshift.io", "v1alpha1", plural, ns};
}

cw_kube_resource cw_nacshell_velero(const char *plural, const char *ns)
{
    return (cw_kube_resource){"velero.io", "v1", plural, ns};
}

static const cw_nonadmin_config *config(const cw_shell *s)
{
    return s->env.config;
}

static cw_kube_resource own_res(const cw_shell *s, const char *ns)
{
    return cw_shell_resource(s, CW_NACSHELL_OBJS, ns);
}

/* ---- its config ---- */

void cw_nacshell_config_fini(void *p)
{
    json_object_put(((cw_nonadmin_config *)p)->enforced);
}

/* An administrator's enforced Velero spec: one YAML document holding a map the kind accepts. */
static int load_enforced(const cw_nacshell_kind *kind, const char *path, json_object **out,
                         cw_error *err)
{
    cw_yaml_docs docs;
    cw_yaml_docs_init(&docs);
    int rc = cw_yaml_parse_file(path, &docs, err);
    if (rc == CW_OK &&
        (docs.len != 1 || !json_object_is_type(docs.items[0].value, json_type_object)))
        rc = cw_error_set(err, CW_EUSAGE, "%s: expected one YAML document holding a map", path);
    if (rc == CW_OK)
        rc = kind->check_enforced(*out = json_object_get(docs.items[0].value), err);
    cw_yaml_docs_free(&docs);
    if (rc != CW_OK)
        cw_error_prefix(err, "%s", kind->flag);
    return rc == CW_OK ? CW_OK : CW_EUSAGE;
}

int cw_nacshell_config(const cw_nacshell_kind *kind, void *p, const cw_ctrl_flags *f, cw_error *err)
{
    cw_nonadmin_config *c = p;
    c->kind = kind;
    c->head.home = f->oadp_namespace;
    c->policy.allowed_resource_policies = &f->allowed_resource_policies;
    int rc = cw_k8sname_check_flag("--oadp-namespace", f->oadp_namespace, 0, err);
    if (rc == CW_OK && cw_nac_policy_check(&c->policy, err) != CW_OK) {
        cw_error_prefix(err, "--allowed-resource-policies");
        return CW_EUSAGE;
    }
    if (rc == CW_OK && c->enforce_file && *c->enforce_file)
        rc = load_enforced(kind, c->enforce_file, &c->enforced, err);
    return rc;
}

/* ---- what it reads ---- */

int cw_nacshell_obj_index(void *ud, json_object *obj, char *out, size_t outlen)
{
    const char *phase = cw_json_path_string(obj, "status.phase");
    json_object *ref = cw_json_member(cw_json_member(obj, "status"), config(ud)->kind->k->ref);
    if (!phase || strcmp(phase, "Created") || cw_nac_finished(ref))
        return 0;
    snprintf(out, outlen, ACTIVE);
    return 1;
}

int cw_nacshell_velero_index(void *ud, json_object *obj, char *out, size_t outlen)
{
    (void)ud;
    (void)obj;
    snprintf(out, outlen, ALL);
    return 1;
}

const char *const cw_nacshell_velero_prune[] = {"spec", NULL};

/* What the cache keeps of a Velero object: identity, times, OADP's labels and annotations, and
 * the status (mirrored into the NonAdmin object); not the spec (which the informer did not
 * parse: cw_nacshell_velero_prune). */
json_object *cw_nacshell_velero_slim(void *ud, json_object *obj)
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

int cw_nacshell_init(cw_shell *s, void **state, cw_error *err)
{
    (void)s;
    cw_nac_share *sh = calloc(1, sizeof(*sh));
    if (!sh)
        return cw_error_oom(err);
    if (cw_nac_share_init(sh, err) != CW_OK) {
        free(sh);
        return err->code;
    }
    *state = sh;
    return CW_OK;
}

void cw_nacshell_fini(void *state)
{
    if (state)
        cw_nac_share_free(state);
    free(state);
}

json_object *cw_nacshell_obj_keep(void *ud, json_object *obj)
{
    cw_shell *s = ud;
    return cw_nac_keep(config(s)->kind->k, obj, s->state);
}

void cw_nacshell_on_obj(void *ud, cw_informer_op op, const char *key, json_object *old,
                        json_object *obj)
{
    (void)old;
    (void)obj;
    cw_shell *s = ud;
    if (op == CW_INFORMER_DELETE)
        cw_nac_share_release(s->state, key);
    if (cw_queue_add(s->env.queue, key) != CW_OK)
        cw_log(CW_LOG_ERROR, "out of memory queueing a key", CW_LS("controller", s->r->name),
               CW_LS("key", key));
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
void cw_nacshell_on_velero(void *ud, cw_informer_op op, const char *key, json_object *old,
                           json_object *obj)
{
    (void)key;
    cw_shell *s = ud;
    char nkey[CW_CTRL_KEY_MAX];
    if (origin_key(config(s)->kind->k, obj ? obj : old, nkey, sizeof(nkey)))
        cw_queue_add(s->env.queue, nkey);
    int left = (op == CW_INFORMER_UPDATE && !cw_nac_finished(old) && cw_nac_finished(obj)) ||
               (op == CW_INFORMER_DELETE && !cw_nac_finished(old));
    if (!left)
        return;
    cw_strlist keys;
    cw_strlist_init(&keys);
    if (cw_ctrl_store_index_keys(cw_shell_store(s, CW_NACSHELL_OBJS), ACTIVE, &keys) == CW_OK)
        for (size_t i = 0; i < keys.len; i++)
            cw_queue_add(s->env.queue, keys.items[i]);
    cw_strlist_free(&keys);
}

int cw_nacshell_get(cw_shell *s, const cw_kube_resource *r, const char *name, json_object **out,
                    cw_error *err)
{
    int rc = cw_kube_get(s->env.kube, r, name, out, err);
    if (rc == CW_ENOTFOUND) {
        *out = NULL;
        rc = CW_OK;
    }
    return rc;
}

/* The Velero object of the recorded nacuuid: from the cache, or from the API when the cache does
 * not have it (yet). One with that name that is not this object's is never used. */
static int find_velero(cw_shell *s, const char *ns, const char *name, const char *nacuuid,
                       json_object **out, cw_error *err)
{
    const cw_nonadmin_config *cfg = config(s);
    char key[CW_CTRL_KEY_MAX];
    *out = NULL;
    snprintf(key, sizeof(key), "%s/%s", cfg->head.home, nacuuid);
    int rc = cw_ctrl_store_get(cw_shell_store(s, CW_NACSHELL_VELERO), key, out);
    if (rc == CW_ENOTFOUND) {
        cw_kube_resource r = cw_shell_resource(s, CW_NACSHELL_VELERO, cfg->head.home);
        rc = cw_nacshell_get(s, &r, nacuuid, out, err);
    }
    if (rc != CW_OK || !*out)
        return rc;
    if (!cw_nac_owns(cfg->kind->k, *out, ns, name, nacuuid)) {
        json_object_put(*out);
        *out = NULL;
        return cw_error_set(err, CW_EINVAL,
                            "Velero %s %s/%s exists and does not carry this object's origin "
                            "labels and annotations: not adopted",
                            cfg->kind->k->velero_kind, cfg->head.home, nacuuid);
    }
    return CW_OK;
}

/* ---- writes ---- */

/* PUT .../status with the object as read and the new status: conditional on its
 * resourceVersion. */
static int put_status(cw_shell *s, json_object *nab, json_object *status, cw_error *err)
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
        rc = cw_shell_request(s, "update_status", nab, "PUT", cw_buf_str(&path), body, err);
    json_object_put(body);
    cw_buf_free(&path);
    return rc;
}

static int patch_finalizers(cw_shell *s, json_object *nab, json_object *fins, cw_error *err)
{
    json_object *p = json_object_new_object(), *m = json_object_new_object();
    cw_kube_resource r = own_res(s, cw_json_path_string(nab, "metadata.namespace"));
    if (!p || !m || json_object_object_add(p, "metadata", m)) {
        json_object_put(p);
        json_object_put(m);
        return cw_error_oom(err);
    }
    json_object_object_add(
        m, "resourceVersion",
        json_object_new_string(cw_json_path_string(nab, "metadata.resourceVersion")));
    json_object_object_add(m, "finalizers", json_object_get(fins));
    int rc = cw_shell_patch(s, "patch_finalizers", nab, &r,
                            cw_json_path_string(nab, "metadata.name"), p, err);
    json_object_put(p);
    return rc;
}

/* DELETE; already gone counts as done. */
static int delete_one(cw_shell *s, const char *verb, json_object *about, const cw_kube_resource *r,
                      const char *name, const char *uid, cw_error *err)
{
    cw_kube_delete_opts d;
    cw_kube_delete_opts_init(&d);
    d.uid = uid;
    int rc = cw_shell_delete(s, verb, about, r, name, &d, err);
    return rc == CW_ENOTFOUND ? CW_OK : rc;
}

/* The NonAdminRestores of the namespace made from this NonAdminBackup (spec.restoreSpec.backupName
 * names it), deleted. */
static int delete_restores(cw_shell *s, json_object *nab, const char *ns, const char *name,
                           cw_error *err)
{
    cw_kube_resource r = cw_nacshell_oadp("nonadminrestores", ns);
    json_object *nars = NULL;
    int rc = cw_kube_list_items(s->env.kube, &r, NULL, &nars, err);
    if (rc == CW_ENOTFOUND) /* no NonAdminRestore CRD on this cluster: none to delete */
        return CW_OK;
    for (size_t i = 0; rc == CW_OK && i < json_object_array_length(nars); i++) {
        json_object *nar = json_object_array_get_idx(nars, i);
        json_object *bn = cw_json_path(nar, "spec.restoreSpec.backupName");
        if (cw_nar_backup_addressable(bn) && strcmp(json_object_get_string(bn), name) == 0)
            rc = delete_one(s, "delete_nonadminrestore", nab, &r,
                            cw_json_path_string(nar, "metadata.name"),
                            cw_json_path_string(nar, "metadata.uid"), err);
    }
    json_object_put(nars);
    return rc;
}

static int delete_dbrs(cw_shell *s, json_object *nab, json_object *dbrs, cw_error *err)
{
    cw_kube_resource r = cw_nacshell_velero("deletebackuprequests", config(s)->head.home);
    int rc = CW_OK;
    size_t n = json_object_is_type(dbrs, json_type_array) ? json_object_array_length(dbrs) : 0;
    for (size_t i = 0; rc == CW_OK && i < n; i++) {
        json_object *d = json_object_array_get_idx(dbrs, i);
        rc = delete_one(s, "delete_deletebackuprequest", nab, &r,
                        cw_json_path_string(d, "metadata.name"),
                        cw_json_path_string(d, "metadata.uid"), err);
    }
    return rc;
}

/* The API server refused the Velero object the decision made (422: Velero's CRD schema, e.g. an
 * enforced field of the wrong type, or a name it cannot hold). Retrying would be refused forever:
 * the NonAdmin object says so instead (BackingOff with the server's message, cw_nac_refused) and
 * waits for its spec to be edited. */
static int refuse(cw_shell *s, const cw_nac_input *in, cw_nac_actions *a, cw_error *err)
{
    char message[sizeof(err->message)];
    cw_nac_actions r;
    snprintf(message, sizeof(message), "%s", err->message);
    cw_error_init(err);
    cw_nac_actions_init(&r);
    int rc = cw_nac_refused(config(s)->kind->k, in, message, &r, err);
    if (rc == CW_OK && r.status)
        rc = put_status(s, in->obj, r.status, err);
    if (rc == CW_OK) {
        a->outcome = CW_NAC_REFUSED;
        json_object_put(a->status); /* what was written instead, for the log */
        a->status = r.status;
        r.status = NULL;
        cw_log(CW_LOG_WARN, "the API server refused the Velero object",
               CW_LS("controller", config(s)->kind->name), CW_LS("nacuuid", a->nacuuid),
               CW_LS("error", message));
    }
    cw_nac_actions_free(&r);
    return rc;
}

/* The Velero object the decision made; 409: made by an earlier attempt, ours only when it
 * carries our origin; 422: refused (above). */
static int create_velero(cw_shell *s, const cw_nac_input *in, cw_nac_actions *a, cw_error *err)
{
    const cw_nonadmin_config *cfg = config(s);
    cw_kube_resource r = cw_shell_resource(s, CW_NACSHELL_VELERO, cfg->head.home);
    char point[64];
    snprintf(point, sizeof(point), "%s-create", cfg->kind->name);
    cw_failpoint(point); /* e2e: nacuuid recorded, nothing created */
    int rc = cw_shell_create(s, "create_velero", in->obj, &r, a->create, NULL, err);
    if (rc == CW_EHTTP && err->http_status == 422)
        return refuse(s, in, a, err);
    if (rc == CW_ECONFLICT) {
        json_object *cur = NULL;
        rc = find_velero(s, cw_json_path_string(in->obj, "metadata.namespace"),
                         cw_json_path_string(in->obj, "metadata.name"), a->nacuuid, &cur, err);
        json_object_put(cur);
    }
    snprintf(point, sizeof(point), "%s-created", cfg->kind->name);
    if (rc == CW_OK)
        cw_failpoint(point); /* e2e: created, status not written */
    return rc;
}

/* The writes of one decision, in order; a 409 anywhere ends the reconcile (the watch brings the
 * newer version), and so does a refused create (its outcome becomes CW_NAC_REFUSED). */
static int apply(cw_shell *s, const cw_nac_input *in, cw_nac_actions *a, cw_error *err)
{
    const cw_nonadmin_config *cfg = config(s);
    json_object *obj = in->obj;
    const char *ns = cw_json_path_string(obj, "metadata.namespace");
    const char *name = cw_json_path_string(obj, "metadata.name");
    cw_kube_resource r;
    int rc = CW_OK;
    if (a->create && ((rc = create_velero(s, in, a, err)) != CW_OK || a->outcome == CW_NAC_REFUSED))
        return rc;
    if ((a->status && (rc = put_status(s, obj, a->status, err)) != CW_OK) ||
        (a->finalizers && (rc = patch_finalizers(s, obj, a->finalizers, err)) != CW_OK) ||
        (a->delete_nars && (rc = delete_restores(s, obj, ns, name, err)) != CW_OK))
        return rc;
    if (a->delete_self) {
        r = own_res(s, ns);
        if ((rc = delete_one(s, "delete_self", obj, &r, name,
                             cw_json_path_string(obj, "metadata.uid"), err)) != CW_OK)
            return rc;
    }
    r = cw_nacshell_velero("deletebackuprequests", cfg->head.home);
    if (a->dbr && (rc = cw_shell_create(s, "create_deletebackuprequest", obj, &r, a->dbr, NULL,
                                        err)) == CW_ECONFLICT)
        rc = CW_OK; /* the one an earlier attempt made */
    if (rc != CW_OK)
        return rc;
    r = cw_shell_resource(s, CW_NACSHELL_VELERO, cfg->head.home);
    if (a->delete_velero &&
        (rc = delete_one(s, "delete_velero", obj, &r, a->nacuuid, NULL, err)) != CW_OK)
        return rc;
    return a->delete_dbrs ? delete_dbrs(s, obj, in->dbrs, err) : CW_OK;
}

/* ---- the reconcile ---- */

static void now_rfc3339(char *out, size_t len)
{
    cw_tz_format_rfc3339((int64_t)time(NULL), 0, out, len);
}

static void log_result(const cw_nonadmin_config *cfg, const char *key, const cw_nac_actions *a,
                       const char *outcome)
{
    if (a->status || a->finalizers || a->create || a->dbr || a->delete_self)
        cw_log(CW_LOG_INFO, "reconciled", CW_LS(cfg->kind->name, key), CW_LS("outcome", outcome),
               CW_LS("nacuuid", a->nacuuid),
               CW_LS("phase", a->status ? cw_json_path_string(a->status, "phase") : ""));
    else
        cw_log(CW_LOG_DEBUG, "up to date", CW_LS(cfg->kind->name, key), CW_LS("outcome", outcome));
}

int cw_nacshell_reconcile(cw_shell *s, const char *key, cw_verdict *res, cw_error *err)
{
    const cw_nonadmin_config *cfg = config(s);
    cw_nac_input in = {0};
    cw_nac_actions a;
    char now[CW_TZ_RFC3339_MAX], uuid[CW_UUID4_LEN + 1] = "", path[64], *refused = NULL;
    json_object *kept = NULL; /* as the cache holds it (controller/nonadmin_keep.h) */
    int rc;
    cw_nac_actions_init(&a);
    if ((rc = cw_ctrl_store_get(cw_shell_store(s, CW_NACSHELL_OBJS), key, &kept)) != CW_OK ||
        (rc = cw_nac_kept_read(cfg->kind->k, kept, &in.obj, &refused, err)) != CW_OK)
        goto done;
    in.refused = refused;
    const char *ns = cw_json_path_string(in.obj, "metadata.namespace");
    const char *name = cw_json_path_string(in.obj, "metadata.name");
    snprintf(path, sizeof(path), "status.%s.nacuuid", cfg->kind->k->ref);
    const char *nacuuid = cw_json_path_string(in.obj, path);
    /* Only a nacuuid made for this object is looked for (cw_nacuuid_for): a status is not
     * trusted to name the Velero object. */
    if (ns && name && cw_nacuuid_for(ns, name, nacuuid) &&
        (rc = find_velero(s, ns, name, nacuuid, &in.velero, err)) != CW_OK) {
        cw_verdict_backoff(res); /* a stranger's object under the name: again after a backoff */
        goto done;
    }
    if ((rc = cw_ctrl_store_by_index(cw_shell_store(s, CW_NACSHELL_VELERO), ALL, &in.all)) !=
            CW_OK ||
        (cfg->kind->gather && (rc = cfg->kind->gather(s, in.obj, &in, err)) != CW_OK) ||
        (rc = cw_uuid4(uuid, sizeof(uuid), err)) != CW_OK) /* a new nacuuid may be due */
        goto done;
    now_rfc3339(now, sizeof(now));
    in.now = now;
    in.uuid = uuid;
    if ((rc = cfg->kind->decide(cfg, &in, &a, err)) != CW_OK)
        goto done;
    if ((rc = apply(s, &in, &a, err)) != CW_OK) {
        if (rc == CW_EINVAL) /* a stranger's Velero object: as above */
            cw_verdict_backoff(res);
        goto done;
    }
    const char *outcome = cw_nac_outcome_name(a.outcome); /* a refused create changed it */
    log_result(cfg, key, &a, outcome);
    cw_verdict_requeue_at(res, a.wait ? cw_shell_now_ms(s) + WAIT_MS : 0, outcome);
done:
    cw_nac_actions_free(&a);
    free(refused);
    json_object_put(kept);
    json_object_put(in.obj);
    json_object_put(in.velero);
    json_object_put(in.all);
    json_object_put(in.dbrs);
    json_object_put(in.nab);
    json_object_put(in.backup);
    return rc;
}
