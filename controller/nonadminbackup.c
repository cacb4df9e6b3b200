#include "controller/nonadminbackup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

#define MSG_ACCEPTED    "backup accepted"
#define MSG_SCHEDULED   "Created Velero Backup object"
#define MSG_DELETE_SPEC "backup accepted for deletion"
#define MSG_DELETE_API  "permanent backup deletion requires setting spec.deleteBackup to true"

void cw_nabctl_actions_init(cw_nabctl_actions *a)
{
    memset(a, 0, sizeof(*a));
}

void cw_nabctl_actions_free(cw_nabctl_actions *a)
{
    json_object_put(a->status);
    json_object_put(a->finalizers);
    json_object_put(a->backup);
    json_object_put(a->dbr);
    memset(a, 0, sizeof(*a));
}

const char *cw_nabctl_outcome_name(cw_nabctl_outcome o)
{
    static const char *const names[] = {"none",    "new",       "invalid", "accepted", "finalizer",
                                        "created", "adopted",   "synced",  "lost",     "deleting",
                                        "purging", "detaching", "released"};
    return (unsigned)o < sizeof(names) / sizeof(names[0]) ? names[o] : "unknown";
}

/* o.<key> is the string want (keys such as label names hold dots: not a path). */
static int str_is(json_object *o, const char *key, const char *want)
{
    json_object *v = cw_json_member(o, key);
    return json_object_is_type(v, json_type_string) && want &&
           strcmp(json_object_get_string(v), want) == 0;
}

int cw_nabctl_owns(json_object *backup, const char *ns, const char *name, const char *nacuuid)
{
    json_object *ann = cw_json_path(backup, "metadata.annotations");
    json_object *labels = cw_json_path(backup, "metadata.labels");
    return backup && str_is(ann, CW_NAB_ANN_NAMESPACE, ns) && str_is(ann, CW_NAB_ANN_NAME, name) &&
           str_is(labels, CW_NAB_LABEL_NACUUID, nacuuid);
}

/* ---- building blocks (each returns CW_OK or CW_ENOMEM) ---- */

static int add_str(json_object *o, const char *key, const char *v)
{
    json_object *s = json_object_new_string(v);
    if (!s || json_object_object_add(o, key, s)) {
        json_object_put(s);
        return CW_ENOMEM;
    }
    return CW_OK;
}

/* The object at o.<key>, created when absent (or not an object). */
static json_object *child(json_object *o, const char *key)
{
    json_object *c = cw_json_member(o, key);
    if (json_object_is_type(c, json_type_object))
        return c;
    if (!(c = json_object_new_object()) || json_object_object_add(o, key, c)) {
        json_object_put(c);
        return NULL;
    }
    return c;
}

/* OADP's labels and annotations of every Velero object made for a NonAdminBackup. */
static int origin_meta(json_object *meta, const char *ns, const char *name, const char *nacuuid)
{
    json_object *labels = child(meta, "labels"), *ann = child(meta, "annotations");
    if (!labels || !ann || add_str(labels, CW_NAC_LABEL_OADP, "True") ||
        add_str(labels, CW_NAC_LABEL_MANAGED_BY, CW_NAC_MANAGED_BY) ||
        add_str(labels, CW_NAB_LABEL_NACUUID, nacuuid) || add_str(ann, CW_NAB_ANN_NAME, name) ||
        add_str(ann, CW_NAB_ANN_NAMESPACE, ns))
        return CW_ENOMEM;
    return CW_OK;
}

static int velero_object(const char *kind, const char *ns, const char *name, const char *nacuuid,
                         const char *oadp, json_object *spec, json_object **out)
{
    json_object *o = json_object_new_object(), *meta = NULL;
    if (!o || add_str(o, "apiVersion", "velero.io/v1") || add_str(o, "kind", kind) ||
        !(meta = child(o, "metadata")) || add_str(meta, "name", nacuuid) ||
        add_str(meta, "namespace", oadp) || origin_meta(meta, ns, name, nacuuid) ||
        json_object_object_add(o, "spec", spec)) {
        json_object_put(o);
        json_object_put(spec);
        return CW_ENOMEM;
    }
    *out = o;
    return CW_OK;
}

/* ---- the decision ---- */

typedef struct step {
    json_object *status; /* working copy of the status */
    int changed;
    int oom;
} step;

static void set_phase(step *s, const char *phase)
{
    const char *cur = cw_json_path_string(s->status, "phase");
    if (cw_nac_phase_rank(cur) >= cw_nac_phase_rank(phase))
        return; /* only forward */
    if (add_str(s->status, "phase", phase))
        s->oom = 1;
    s->changed = 1;
}

static void set_cond(step *s, const char *type, const char *st, const char *reason, const char *msg,
                     const char *now)
{
    json_object *conds = cw_json_member(s->status, "conditions"), *fresh = NULL;
    json_object **slot = json_object_is_type(conds, json_type_array) ? &conds : &fresh;
    int rc = cw_nac_set_condition(slot, type, st, reason, msg, now);
    if (rc < 0 || (fresh && json_object_object_add(s->status, "conditions", fresh))) {
        s->oom = 1;
        return;
    }
    if (rc > 0)
        s->changed = 1;
}

/* o.<key> := copy of v (an object; {} when v is NULL), when it differs. */
static void set_copy(step *s, json_object *o, const char *key, json_object *v)
{
    json_object *copy = NULL;
    if (!o) {
        s->oom = 1;
        return;
    }
    if (v && json_object_equal(cw_json_member(o, key), v))
        return;
    if (!v && json_object_is_type(cw_json_member(o, key), json_type_object) &&
        json_object_object_length(cw_json_member(o, key)) == 0)
        return;
    if ((v ? cw_json_copy(v, &copy) : ((copy = json_object_new_object()) ? CW_OK : CW_ENOMEM)) !=
            CW_OK ||
        json_object_object_add(o, key, copy)) {
        json_object_put(copy);
        s->oom = 1;
        return;
    }
    s->changed = 1;
}

static void set_queue(step *s, int64_t pos)
{
    json_object *qi = child(s->status, "queueInfo");
    json_object *cur = cw_json_member(qi, "estimatedQueuePosition");
    if (!qi) {
        s->oom = 1;
        return;
    }
    if (json_object_is_type(cur, json_type_int) && json_object_get_int64(cur) == pos)
        return;
    if (json_object_object_add(qi, "estimatedQueuePosition", json_object_new_int64(pos)))
        s->oom = 1;
    s->changed = 1;
}

static int has_finalizer(json_object *nab)
{
    json_object *f = cw_json_path(nab, "metadata.finalizers");
    size_t n = json_object_is_type(f, json_type_array) ? json_object_array_length(f) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(f, i);
        if (json_object_is_type(e, json_type_string) &&
            strcmp(json_object_get_string(e), CW_NAB_FINALIZER) == 0)
            return 1;
    }
    return 0;
}

/* metadata.finalizers with ours added (add) or removed. */
static json_object *finalizers(json_object *nab, int add)
{
    json_object *f = cw_json_path(nab, "metadata.finalizers"), *out = json_object_new_array();
    size_t n = json_object_is_type(f, json_type_array) ? json_object_array_length(f) : 0;
    for (size_t i = 0; out && i < n; i++) {
        json_object *e = json_object_array_get_idx(f, i);
        if (json_object_is_type(e, json_type_string) &&
            strcmp(json_object_get_string(e), CW_NAB_FINALIZER) == 0)
            continue;
        json_object_array_add(out, json_object_get(e));
    }
    if (out && add && json_object_array_add(out, json_object_new_string(CW_NAB_FINALIZER))) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

static int delete_backup_flag(json_object *nab)
{
    json_object *v = cw_json_path(nab, "spec.deleteBackup");
    return json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

/* Being deleted: the finalizer goes once the Velero Backup is gone. With spec.deleteBackup the
 * data goes first, through a DeleteBackupRequest; without, only the Velero Backup object (and
 * DeleteBackupRequests that would remove the data) go. */
static int decide_finalize(const cw_nabctl_input *in, const cw_nabctl_config *cfg, step *s,
                           const char *ns, const char *name, cw_nabctl_actions *out)
{
    int purge = delete_backup_flag(in->nab);
    size_t ndbr =
        json_object_is_type(in->dbrs, json_type_array) ? json_object_array_length(in->dbrs) : 0;
    set_phase(s, "Deleting");
    set_cond(s, "Deleting", "True", "DeletionPending", purge ? MSG_DELETE_SPEC : MSG_DELETE_API,
             in->now);
    if (!in->backup) {
        out->outcome = CW_NABCTL_RELEASE;
        return (out->finalizers = finalizers(in->nab, 0)) ? CW_OK : CW_ENOMEM;
    }
    out->wait = 1;
    if (!purge) {
        out->outcome = CW_NABCTL_DETACHING;
        out->delete_backup = 1;
        out->delete_dbrs = ndbr > 0;
        return CW_OK;
    }
    out->outcome = CW_NABCTL_PURGING;
    json_object *dbr = ndbr ? json_object_array_get_idx(in->dbrs, 0) : NULL;
    json_object *rec = child(s->status, "veleroDeleteBackupRequest");
    if (!rec || add_str(rec, "nacuuid", out->nacuuid))
        return CW_ENOMEM;
    if (!dbr) {
        json_object *spec = json_object_new_object();
        if (!spec || add_str(spec, "backupName", out->nacuuid)) {
            json_object_put(spec);
            return CW_ENOMEM;
        }
        int rc = velero_object("DeleteBackupRequest", ns, name, out->nacuuid, cfg->oadp_namespace,
                               spec, &out->dbr);
        if (rc != CW_OK)
            return rc;
    }
    json_object *before = NULL;
    if (cw_json_copy(rec, &before) != CW_OK)
        return CW_ENOMEM;
    if (add_str(rec, "name", dbr ? cw_json_path_string(dbr, "metadata.name") : out->nacuuid) ||
        add_str(rec, "namespace", cfg->oadp_namespace)) {
        json_object_put(before);
        return CW_ENOMEM;
    }
    set_copy(s, rec, "status", cw_json_member(dbr, "status"));
    if (!json_object_equal(before, rec))
        s->changed = 1;
    json_object_put(before);
    return CW_OK;
}

/* New or BackingOff: validate, record the nacuuid, hold a finalizer, create or adopt. */
static int decide_admit(const cw_nabctl_input *in, const cw_nabctl_config *cfg, step *s,
                        const char *ns, const char *name, cw_nabctl_actions *out)
{
    char *msg = NULL;
    json_object *spec = cw_json_path(in->nab, "spec.backupSpec");
    if (cw_nab_check_spec(spec, ns, cfg->enforced, &msg) != CW_OK)
        return CW_ENOMEM;
    if (msg) {
        out->outcome = CW_NABCTL_INVALID;
        set_phase(s, "BackingOff");
        set_cond(s, "Accepted", "False", "InvalidBackupSpec", msg, in->now);
        free(msg);
        return CW_OK;
    }
    set_cond(s, "Accepted", "True", "BackupAccepted", MSG_ACCEPTED, in->now);
    if (!*out->nacuuid) {
        /* Recorded before anything is created: a crash after this write names the same
         * Velero Backup again, never a second one. */
        json_object *vb = child(s->status, "veleroBackup");
        cw_nacuuid_format(ns, name, in->uuid, out->nacuuid, sizeof(out->nacuuid));
        if (!vb || add_str(vb, "nacuuid", out->nacuuid) || add_str(vb, "name", out->nacuuid) ||
            add_str(vb, "namespace", cfg->oadp_namespace))
            return CW_ENOMEM;
        s->changed = 1;
        out->outcome = CW_NABCTL_ACCEPTED;
        return CW_OK;
    }
    if (s->changed) {
        out->outcome = CW_NABCTL_ACCEPTED; /* an edit made it valid: say so first */
        return CW_OK;
    }
    if (!has_finalizer(in->nab)) {
        out->outcome = CW_NABCTL_FINALIZER;
        return (out->finalizers = finalizers(in->nab, 1)) ? CW_OK : CW_ENOMEM;
    }
    if (!in->backup) {
        json_object *vspec = NULL;
        if (cw_nab_velero_spec(spec, ns, cfg->enforced, &vspec) != CW_OK ||
            velero_object("Backup", ns, name, out->nacuuid, cfg->oadp_namespace, vspec,
                          &out->backup) != CW_OK)
            return CW_ENOMEM;
        out->outcome = CW_NABCTL_CREATE;
    } else {
        out->outcome = CW_NABCTL_ADOPT;
    }
    set_phase(s, "Created");
    set_cond(s, "Queued", "True", "BackupScheduled", MSG_SCHEDULED, in->now);
    set_copy(s, child(s->status, "veleroBackup"), "status", cw_json_member(in->backup, "status"));
    set_queue(s, cw_nac_queue_position(in->backup, in->backups));
    return CW_OK;
}

/* Created: mirror the Velero Backup. */
static void decide_sync(const cw_nabctl_input *in, step *s, cw_nabctl_actions *out)
{
    if (!in->backup) {
        char msg[200];
        snprintf(msg, sizeof(msg), "related Velero Backup %s/%s not found",
                 cw_json_path_string(s->status, "veleroBackup.namespace")
                     ? cw_json_path_string(s->status, "veleroBackup.namespace")
                     : "",
                 out->nacuuid);
        out->outcome = CW_NABCTL_LOST;
        set_cond(s, "Accepted", "False", "VeleroBackupNotFound", msg, in->now);
        set_queue(s, 0);
        return;
    }
    out->outcome = CW_NABCTL_SYNC;
    set_cond(s, "Queued", "True", "BackupScheduled", MSG_SCHEDULED, in->now);
    set_copy(s, child(s->status, "veleroBackup"), "status", cw_json_member(in->backup, "status"));
    set_queue(s, cw_nac_queue_position(in->backup, in->backups));
}

int cw_nabctl_decide(const cw_nabctl_input *in, const cw_nabctl_config *cfg, cw_nabctl_actions *out,
                     cw_error *err)
{
    const char *name = cw_json_path_string(in->nab, "metadata.name");
    const char *ns = cw_json_path_string(in->nab, "metadata.namespace");
    const char *phase = cw_json_path_string(in->nab, "status.phase");
    const char *nacuuid = cw_json_path_string(in->nab, "status.veleroBackup.nacuuid");
    step s = {0};
    int rc = CW_OK, rank = cw_nac_phase_rank(phase);

    if (!name || !*name || !ns || !*ns)
        return cw_error_set(err, CW_EINVAL, "metadata.name and metadata.namespace are required");
    if (rank < 0)
        return cw_error_set(err, CW_EINVAL, "status.phase: unknown phase \"%s\"", phase);
    if (nacuuid && strlen(nacuuid) > CW_NACUUID_MAX)
        return cw_error_set(err, CW_EINVAL, "status.veleroBackup.nacuuid: longer than %d",
                            CW_NACUUID_MAX);
    snprintf(out->nacuuid, sizeof(out->nacuuid), "%s", nacuuid ? nacuuid : "");
    json_object *cur = cw_json_member(in->nab, "status");
    if (json_object_is_type(cur, json_type_object) ? cw_json_copy(cur, &s.status) != CW_OK
                                                   : !(s.status = json_object_new_object()))
        goto oom;

    if (cw_json_path(in->nab, "metadata.deletionTimestamp")) {
        if (!has_finalizer(in->nab)) {
            out->outcome = CW_NABCTL_NONE;
            goto finish;
        }
        if (!*out->nacuuid) { /* nothing was ever created */
            out->outcome = CW_NABCTL_RELEASE;
            if (!(out->finalizers = finalizers(in->nab, 0)))
                goto oom;
            goto finish;
        }
        if (decide_finalize(in, cfg, &s, ns, name, out) != CW_OK)
            goto oom;
    } else if (delete_backup_flag(in->nab)) {
        out->outcome = CW_NABCTL_DELETE;
        set_phase(&s, "Deleting");
        set_cond(&s, "Deleting", "True", "DeletionPending", MSG_DELETE_SPEC, in->now);
        out->delete_nars = out->delete_nab = 1;
    } else if (rank == 0) {
        out->outcome = CW_NABCTL_NEW;
        set_phase(&s, "New");
    } else if (rank < cw_nac_phase_rank("Created")) {
        if (decide_admit(in, cfg, &s, ns, name, out) != CW_OK)
            goto oom;
    } else if (rank == cw_nac_phase_rank("Created")) {
        decide_sync(in, &s, out);
    } else {
        out->outcome = CW_NABCTL_NONE; /* Deleting, waiting for the delete to arrive */
        out->delete_nab = 1;
    }
finish:
    if (s.oom)
        goto oom;
    if (s.changed && out->outcome != CW_NABCTL_RELEASE) { /* released: the object goes */
        out->status = s.status;
        s.status = NULL;
    }
    json_object_put(s.status);
    return rc;
oom:
    json_object_put(s.status);
    cw_nabctl_actions_free(out);
    return cw_error_set(err, CW_ENOMEM, "out of memory");
}
