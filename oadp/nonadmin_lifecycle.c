#include "oadp/nonadmin_lifecycle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/utf8.h"

const cw_nac_kind cw_nac_backup_kind = {
    .velero_kind = "Backup",
    .ref = "veleroBackup",
    .spec = "backupSpec",
    .finalizer = CW_NAB_FINALIZER,
    .label_nacuuid = CW_NAB_LABEL_NACUUID,
    .ann_name = CW_NAB_ANN_NAME,
    .ann_namespace = CW_NAB_ANN_NAMESPACE,
    .accepted_reason = "BackupAccepted",
    .accepted_msg = "backup accepted",
    .invalid_reason = "InvalidBackupSpec",
    .scheduled_reason = "BackupScheduled",
    .scheduled_msg = "Created Velero Backup object",
    .notfound_reason = "VeleroBackupNotFound",
};

const cw_nac_kind cw_nac_restore_kind = {
    .velero_kind = "Restore",
    .ref = "veleroRestore",
    .spec = "restoreSpec",
    .finalizer = CW_NAR_FINALIZER,
    .label_nacuuid = CW_NAR_LABEL_NACUUID,
    .ann_name = CW_NAR_ANN_NAME,
    .ann_namespace = CW_NAR_ANN_NAMESPACE,
    .accepted_reason = "RestoreAccepted",
    .accepted_msg = "restore accepted",
    .invalid_reason = "InvalidRestoreSpec",
    .scheduled_reason = "RestoreScheduled",
    .scheduled_msg = "Created Velero Restore object",
    .notfound_reason = "VeleroRestoreNotFound",
};

void cw_nac_actions_init(cw_nac_actions *a)
{
    memset(a, 0, sizeof(*a));
}

void cw_nac_actions_free(cw_nac_actions *a)
{
    json_object_put(a->status);
    json_object_put(a->finalizers);
    json_object_put(a->create);
    json_object_put(a->dbr);
    memset(a, 0, sizeof(*a));
}

const char *cw_nac_outcome_name(cw_nac_outcome o)
{
    static const char *const names[] = {"none",    "new",       "invalid",  "accepted", "finalizer",
                                        "created", "adopted",   "synced",   "lost",     "deleting",
                                        "purging", "detaching", "released", "refused"};
    return (unsigned)o < sizeof(names) / sizeof(names[0]) ? names[o] : "unknown";
}

/* o.<key> is the string want (keys such as label names hold dots: not a path). */
static int str_is(json_object *o, const char *key, const char *want)
{
    json_object *v = cw_json_member(o, key);
    return json_object_is_type(v, json_type_string) && want &&
           strcmp(json_object_get_string(v), want) == 0;
}

int cw_nac_owns(const cw_nac_kind *k, json_object *velero, const char *ns, const char *name,
                const char *nacuuid)
{
    return cw_nac_origin_is(velero, k->label_nacuuid, k->ann_name, k->ann_namespace, ns, name,
                            nacuuid);
}

/* ---- JSON building blocks ---- */

/* The object at o.<key>, created when absent (or not an object). */
static json_object *child(json_object *o, const char *key)
{
    json_object *c = cw_json_member(o, key);
    if (json_object_is_type(c, json_type_object))
        return c;
    if (!o || !(c = json_object_new_object()) || json_object_object_add(o, key, c)) {
        json_object_put(c);
        return NULL;
    }
    return c;
}

int cw_nac_velero_object(const cw_nac_kind *k, const char *velero_kind, const char *ns,
                         const char *name, const char *nacuuid, const char *oadp, json_object *spec,
                         json_object **out)
{
    json_object *o = json_object_new_object(), *meta, *labels, *ann;
    if (!o || cw_json_set_string(o, "apiVersion", "velero.io/v1") ||
        cw_json_set_string(o, "kind", velero_kind) || !(meta = child(o, "metadata")) ||
        cw_json_set_string(meta, "name", nacuuid) || cw_json_set_string(meta, "namespace", oadp) ||
        !(labels = child(meta, "labels")) || !(ann = child(meta, "annotations")) ||
        cw_json_set_string(labels, CW_NAC_LABEL_OADP, "True") ||
        cw_json_set_string(labels, CW_NAC_LABEL_MANAGED_BY, CW_NAC_MANAGED_BY) ||
        cw_json_set_string(labels, k->label_nacuuid, nacuuid) ||
        cw_json_set_string(ann, k->ann_name, name) ||
        cw_json_set_string(ann, k->ann_namespace, ns) || json_object_object_add(o, "spec", spec)) {
        json_object_put(o);
        json_object_put(spec);
        return CW_ENOMEM;
    }
    *out = o;
    return CW_OK;
}

/* ---- the status of one step ---- */

int cw_nac_step_init(cw_nac_step *s, json_object *obj, const char *ref, cw_nac_actions *out,
                     int *rank, cw_error *err)
{
    char path[64];
    const char *name = cw_json_path_string(obj, "metadata.name");
    const char *ns = cw_json_path_string(obj, "metadata.namespace");
    const char *phase = cw_json_path_string(obj, "status.phase");
    snprintf(path, sizeof(path), "status.%s.nacuuid", ref);
    const char *nacuuid = cw_json_path_string(obj, path);
    memset(s, 0, sizeof(*s));
    if (!name || !*name || !ns || !*ns)
        return cw_error_set(err, CW_EINVAL, "metadata.name and metadata.namespace are required");
    if ((*rank = cw_nac_phase_rank(phase)) < 0)
        return cw_error_set(err, CW_EINVAL, "status.phase: unknown phase \"%s\"", phase);
    if (nacuuid && strlen(nacuuid) > CW_NACUUID_MAX)
        return cw_error_set(err, CW_EINVAL, "%s: longer than %d", path, CW_NACUUID_MAX);
    snprintf(out->nacuuid, sizeof(out->nacuuid), "%s", nacuuid ? nacuuid : "");
    json_object *cur = cw_json_member(obj, "status");
    if (json_object_is_type(cur, json_type_object) ? cw_json_copy(cur, &s->status) != CW_OK
                                                   : !(s->status = json_object_new_object()))
        return cw_error_oom(err);
    return CW_OK;
}

int cw_nac_step_finish(cw_nac_step *s, cw_nac_actions *out, cw_error *err)
{
    if (s->oom) {
        json_object_put(s->status);
        cw_nac_actions_free(out);
        return cw_error_oom(err);
    }
    if (s->changed && out->outcome != CW_NAC_RELEASE) { /* released: the object goes */
        out->status = s->status;
        s->status = NULL;
    }
    json_object_put(s->status);
    s->status = NULL;
    return CW_OK;
}

json_object *cw_nac_step_child(cw_nac_step *s, json_object *o, const char *key)
{
    json_object *c = child(o, key);
    if (!c)
        s->oom = 1;
    return c;
}

void cw_nac_step_str(cw_nac_step *s, json_object *o, const char *key, const char *v)
{
    if (!o || str_is(o, key, v))
        return;
    if (cw_json_set_string(o, key, v))
        s->oom = 1;
    s->changed = 1;
}

void cw_nac_step_phase(cw_nac_step *s, const char *phase)
{
    if (cw_nac_phase_rank(cw_json_path_string(s->status, "phase")) < cw_nac_phase_rank(phase))
        cw_nac_step_str(s, s->status, "phase", phase);
}

static void step_cond_gen(cw_nac_step *s, const char *type, const char *st, const char *reason,
                          const char *msg, const char *now, int64_t gen)
{
    json_object *conds = cw_json_member(s->status, "conditions"), *fresh = NULL;
    json_object **slot = json_object_is_type(conds, json_type_array) ? &conds : &fresh;
    int rc = cw_nac_set_condition_gen(slot, type, st, reason, msg, now, gen);
    if (rc < 0 || (fresh && json_object_object_add(s->status, "conditions", fresh))) {
        s->oom = 1;
        return;
    }
    if (rc > 0)
        s->changed = 1;
}

void cw_nac_step_cond(cw_nac_step *s, const char *type, const char *st, const char *reason,
                      const char *msg, const char *now)
{
    step_cond_gen(s, type, st, reason, msg, now, 0);
}

void cw_nac_step_copy(cw_nac_step *s, json_object *o, const char *key, json_object *v)
{
    json_object *cur = cw_json_member(o, key), *copy = NULL;
    if (!o) {
        s->oom = 1;
        return;
    }
    if (v ? json_object_equal(cur, v)
          : json_object_is_type(cur, json_type_object) && json_object_object_length(cur) == 0)
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

void cw_nac_step_queue(cw_nac_step *s, int64_t pos)
{
    json_object *qi = cw_nac_step_child(s, s->status, "queueInfo");
    json_object *cur = cw_json_member(qi, "estimatedQueuePosition");
    if (!qi || (json_object_is_type(cur, json_type_int) && json_object_get_int64(cur) == pos))
        return;
    if (json_object_object_add(qi, "estimatedQueuePosition", json_object_new_int64(pos)))
        s->oom = 1;
    s->changed = 1;
}

/* ---- finalizers ---- */

static int is_str(json_object *e, const char *want)
{
    return json_object_is_type(e, json_type_string) && strcmp(json_object_get_string(e), want) == 0;
}

int cw_nac_has_finalizer(json_object *obj, const char *finalizer)
{
    json_object *f = cw_json_path(obj, "metadata.finalizers");
    size_t n = json_object_is_type(f, json_type_array) ? json_object_array_length(f) : 0;
    for (size_t i = 0; i < n; i++)
        if (is_str(json_object_array_get_idx(f, i), finalizer))
            return 1;
    return 0;
}

json_object *cw_nac_finalizers(json_object *obj, const char *finalizer, int add)
{
    json_object *f = cw_json_path(obj, "metadata.finalizers"), *out = json_object_new_array();
    size_t n = json_object_is_type(f, json_type_array) ? json_object_array_length(f) : 0;
    for (size_t i = 0; out && i < n; i++) {
        json_object *e = json_object_array_get_idx(f, i);
        if (!is_str(e, finalizer))
            json_object_array_add(out, json_object_get(e));
    }
    if (out && add && json_object_array_add(out, json_object_new_string(finalizer))) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

/* ---- the common lifecycle ---- */

static int64_t generation(json_object *obj)
{
    json_object *g = cw_json_path(obj, "metadata.generation");
    return json_object_is_type(g, json_type_int) ? json_object_get_int64(g) : 0;
}

/* The API server refused the Velero object made from this generation of the spec
 * (cw_nac_refused recorded it in the Accepted condition). */
static int refused_here(const cw_nac_kind *k, json_object *obj)
{
    json_object *c = cw_nac_condition(cw_json_path(obj, "status.conditions"), "Accepted");
    json_object *g = cw_json_member(c, "observedGeneration");
    int64_t gen = generation(obj);
    return c && str_is(c, "status", "False") && str_is(c, "reason", k->invalid_reason) && gen > 0 &&
           json_object_is_type(g, json_type_int) && json_object_get_int64(g) == gen;
}

/* status.<ref>.status := the Velero object's status as the NonAdmin CRD OADP ships can hold it
 * (docs/compat.md): its Backup status schema is Velero 1.14's, without Velero 1.18's
 * queuePosition (status.queueInfo carries it; kept, the apiserver would prune it and every
 * reconcile would write it again) and without the phases Queued and ReadyToStart in its enum (the
 * apiserver would refuse the whole status): they read New, which they are to Velero 1.14. */
static void mirror_status(const cw_nac_kind *k, json_object *velero, cw_nac_step *s)
{
    json_object *st = cw_json_member(velero, "status"), *copy = NULL;
    const char *phase = cw_json_path_string(st, "phase");
    if (strcmp(k->velero_kind, "Backup") || !json_object_is_type(st, json_type_object) ||
        (!cw_json_member(st, "queuePosition") &&
         (!phase || (strcmp(phase, "Queued") && strcmp(phase, "ReadyToStart"))))) {
        cw_nac_step_copy(s, cw_nac_step_child(s, s->status, k->ref), "status", st);
        return;
    }
    if (cw_json_copy(st, &copy) != CW_OK) {
        s->oom = 1;
        return;
    }
    json_object_object_del(copy, "queuePosition");
    if (phase && (!strcmp(phase, "Queued") || !strcmp(phase, "ReadyToStart")) &&
        cw_json_set_string(copy, "phase", "New"))
        s->oom = 1;
    cw_nac_step_copy(s, cw_nac_step_child(s, s->status, k->ref), "status", copy);
    json_object_put(copy);
}

int cw_nac_admit(const cw_nac_kind *k, const cw_nac_input *in, const char *oadp, const char *msg,
                 json_object *spec, cw_nac_step *s, cw_nac_actions *out)
{
    const char *ns = cw_json_path_string(in->obj, "metadata.namespace");
    const char *name = cw_json_path_string(in->obj, "metadata.name");
    if (msg) {
        json_object_put(spec);
        out->outcome = CW_NAC_INVALID;
        cw_nac_step_phase(s, "BackingOff");
        cw_nac_step_cond(s, "Accepted", "False", k->invalid_reason, msg, in->now);
        return CW_OK;
    }
    if (refused_here(k, in->obj)) {
        json_object_put(spec);
        out->outcome = CW_NAC_INVALID; /* Velero refused this spec: wait for an edit */
        return CW_OK;
    }
    cw_nac_step_cond(s, "Accepted", "True", k->accepted_reason, k->accepted_msg, in->now);
    /* A recorded nacuuid not made for this object (an older version's invalid cut, or a status
     * someone else wrote) names nothing of ours: a new one is recorded. */
    if (*out->nacuuid && !in->velero && !cw_nacuuid_for(ns, name, out->nacuuid))
        *out->nacuuid = '\0';
    if (!*out->nacuuid) {
        /* Recorded before anything is created: a crash after this write names the same Velero
         * object again, never a second one. */
        json_object *ref = cw_nac_step_child(s, s->status, k->ref);
        cw_nacuuid_format(ns, name, in->uuid, out->nacuuid, sizeof(out->nacuuid));
        cw_nac_step_str(s, ref, "nacuuid", out->nacuuid);
        cw_nac_step_str(s, ref, "name", out->nacuuid);
        cw_nac_step_str(s, ref, "namespace", oadp);
        out->outcome = CW_NAC_ACCEPTED;
        json_object_put(spec);
        return CW_OK;
    }
    if (s->changed) {
        out->outcome = CW_NAC_ACCEPTED; /* an edit made it valid: say so first */
        json_object_put(spec);
        return CW_OK;
    }
    if (!cw_nac_has_finalizer(in->obj, k->finalizer)) {
        out->outcome = CW_NAC_FINALIZER;
        json_object_put(spec);
        return (out->finalizers = cw_nac_finalizers(in->obj, k->finalizer, 1)) ? CW_OK : CW_ENOMEM;
    }
    if (!in->velero) {
        if (cw_nac_velero_object(k, k->velero_kind, ns, name, out->nacuuid, oadp, spec,
                                 &out->create) != CW_OK)
            return CW_ENOMEM;
        out->outcome = CW_NAC_CREATE;
    } else {
        json_object_put(spec);
        out->outcome = CW_NAC_ADOPT;
    }
    cw_nac_step_phase(s, "Created");
    cw_nac_step_cond(s, "Queued", "True", k->scheduled_reason, k->scheduled_msg, in->now);
    mirror_status(k, in->velero, s);
    cw_nac_step_queue(s, cw_nac_queue_position(in->velero, in->all));
    return CW_OK;
}

void cw_nac_sync(const cw_nac_kind *k, const cw_nac_input *in, cw_nac_step *s, cw_nac_actions *out)
{
    if (!in->velero) {
        char msg[200];
        json_object *ref = cw_json_member(s->status, k->ref);
        const char *where = cw_json_path_string(ref, "namespace");
        snprintf(msg, sizeof(msg), "related Velero %s %s/%s not found", k->velero_kind,
                 where ? where : "", out->nacuuid);
        out->outcome = CW_NAC_LOST;
        cw_nac_step_cond(s, "Accepted", "False", k->notfound_reason, msg, in->now);
        cw_nac_step_queue(s, 0);
        return;
    }
    out->outcome = CW_NAC_SYNC;
    cw_nac_step_cond(s, "Queued", "True", k->scheduled_reason, k->scheduled_msg, in->now);
    mirror_status(k, in->velero, s);
    cw_nac_step_queue(s, cw_nac_queue_position(in->velero, in->all));
}

/* At most outlen - 1 bytes of in as well-formed UTF-8 (a status must be valid JSON text for the
 * API server): whole sequences only, a byte that starts none as '?'. */
static void utf8_copy(const char *in, char *out, size_t outlen)
{
    size_t o = 0, n = strlen(in);
    for (size_t i = 0; i < n;) {
        size_t w = cw_utf8_seq_len((const unsigned char *)in + i, n - i);
        if (o + (w ? w : 1) >= outlen)
            break;
        if (w)
            memcpy(out + o, in + i, w);
        else
            out[o] = '?';
        o += w ? w : 1;
        i += w ? w : 1;
    }
    out[o] = '\0';
}

/* The API server's own words in a kube/ error message: what follows the status line. */
static const char *status_text(const char *message)
{
    static const char line[] = ": 422 Unprocessable Entity: ";
    const char *p = message ? strstr(message, line) : NULL;
    return p ? p + sizeof(line) - 1 : message ? message : "";
}

int cw_nac_refused(const cw_nac_kind *k, const cw_nac_input *in, const char *message,
                   cw_nac_actions *out, cw_error *err)
{
    char text[1024];
    int rank, rc;
    cw_nac_step s;
    if ((rc = cw_nac_step_init(&s, in->obj, k->ref, out, &rank, err)) != CW_OK)
        return rc;
    utf8_copy(status_text(message), text, sizeof(text));
    if (!*text)
        snprintf(text, sizeof(text), "the API server refused the Velero %s", k->velero_kind);
    out->outcome = CW_NAC_REFUSED;
    cw_nac_step_phase(&s, "BackingOff");
    step_cond_gen(&s, "Accepted", "False", k->invalid_reason, text, in->now, generation(in->obj));
    if (cw_json_member(s.status, k->ref)) {
        json_object_object_del(s.status, k->ref);
        s.changed = 1;
    }
    out->nacuuid[0] = '\0';
    return cw_nac_step_finish(&s, out, err);
}
