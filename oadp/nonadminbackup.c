#include "oadp/nonadminbackup.h"

#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

#define MSG_DELETE_SPEC "backup accepted for deletion"
#define MSG_DELETE_API  "permanent backup deletion requires setting spec.deleteBackup to true"

static const cw_nac_kind *const K = &cw_nac_backup_kind;

static int delete_backup_flag(json_object *nab)
{
    json_object *v = cw_json_path(nab, "spec.deleteBackup");
    return json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

/* Being deleted: the finalizer goes once the Velero Backup is gone. With spec.deleteBackup the
 * data goes first, through a DeleteBackupRequest; without, only the Velero Backup object (and
 * DeleteBackupRequests that would remove the data) go. */
static int decide_finalize(const cw_nac_input *in, const cw_nabctl_config *cfg, cw_nac_step *s,
                           cw_nac_actions *out)
{
    const char *ns = cw_json_path_string(in->obj, "metadata.namespace");
    const char *name = cw_json_path_string(in->obj, "metadata.name");
    int purge = delete_backup_flag(in->obj);
    size_t ndbr =
        json_object_is_type(in->dbrs, json_type_array) ? json_object_array_length(in->dbrs) : 0;
    cw_nac_step_phase(s, "Deleting");
    cw_nac_step_cond(s, "Deleting", "True", "DeletionPending",
                     purge ? MSG_DELETE_SPEC : MSG_DELETE_API, in->now);
    if (!in->velero) {
        out->outcome = CW_NAC_RELEASE;
        return (out->finalizers = cw_nac_finalizers(in->obj, K->finalizer, 0)) ? CW_OK : CW_ENOMEM;
    }
    out->wait = 1;
    if (!purge) {
        out->outcome = CW_NAC_DETACHING;
        out->delete_velero = 1;
        out->delete_dbrs = ndbr > 0;
        return CW_OK;
    }
    out->outcome = CW_NAC_PURGING;
    json_object *dbr = ndbr ? json_object_array_get_idx(in->dbrs, 0) : NULL;
    if (!dbr) {
        json_object *spec = json_object_new_object();
        if (!spec ||
            json_object_object_add(spec, "backupName", json_object_new_string(out->nacuuid))) {
            json_object_put(spec);
            return CW_ENOMEM;
        }
        if (cw_nac_velero_object(K, "DeleteBackupRequest", ns, name, out->nacuuid,
                                 cfg->oadp_namespace, spec, &out->dbr) != CW_OK)
            return CW_ENOMEM;
    }
    json_object *rec = cw_nac_step_child(s, s->status, "veleroDeleteBackupRequest");
    const char *dbr_name = dbr ? cw_json_path_string(dbr, "metadata.name") : NULL;
    cw_nac_step_str(s, rec, "nacuuid", out->nacuuid);
    cw_nac_step_str(s, rec, "name", dbr_name ? dbr_name : out->nacuuid);
    cw_nac_step_str(s, rec, "namespace", cfg->oadp_namespace);
    cw_nac_step_copy(s, rec, "status", cw_json_member(dbr, "status"));
    return CW_OK;
}

int cw_nabctl_decide(const cw_nac_input *in, const cw_nabctl_config *cfg, cw_nac_actions *out,
                     cw_error *err)
{
    const char *ns = cw_json_path_string(in->obj, "metadata.namespace");
    int rank, rc;
    cw_nac_step s;
    if ((rc = cw_nac_step_init(&s, in->obj, K->ref, out, &rank, err)) != CW_OK)
        return rc;

    if (cw_json_path(in->obj, "metadata.deletionTimestamp")) {
        if (!cw_nac_has_finalizer(in->obj, K->finalizer)) {
            out->outcome = CW_NAC_NONE;
        } else if (!*out->nacuuid) { /* nothing was ever created */
            out->outcome = CW_NAC_RELEASE;
            if (!(out->finalizers = cw_nac_finalizers(in->obj, K->finalizer, 0)))
                s.oom = 1;
        } else if (decide_finalize(in, cfg, &s, out) != CW_OK) {
            s.oom = 1;
        }
    } else if (delete_backup_flag(in->obj)) {
        out->outcome = CW_NAC_DELETE;
        cw_nac_step_phase(&s, "Deleting");
        cw_nac_step_cond(&s, "Deleting", "True", "DeletionPending", MSG_DELETE_SPEC, in->now);
        out->delete_nars = out->delete_self = 1;
    } else if (rank == 0) {
        out->outcome = CW_NAC_NEW;
        cw_nac_step_phase(&s, "New");
    } else if (rank < cw_nac_phase_rank("Created")) {
        json_object *spec = cw_json_path(in->obj, "spec.backupSpec"), *vspec = NULL;
        char *msg = NULL;
        /* A spec the cache did not keep (too large, over the namespace's share) is refused
         * before anything is built from it. */
        if ((in->refused
                 ? !(msg = strdup(in->refused))
                 : cw_nab_check_spec(spec, ns, cfg->enforced, &cfg->policy, &msg) != CW_OK) ||
            (!msg && cw_nab_velero_spec(spec, ns, cfg->enforced, &vspec) != CW_OK) ||
            cw_nac_admit(K, in, cfg->oadp_namespace, msg, vspec, &s, out) != CW_OK)
            s.oom = 1;
        free(msg);
    } else if (rank == cw_nac_phase_rank("Created")) {
        cw_nac_sync(K, in, &s, out);
    } else {
        out->outcome = CW_NAC_NONE; /* Deleting, waiting for the delete to arrive */
        out->delete_self = 1;
    }
    return cw_nac_step_finish(&s, out, err);
}
