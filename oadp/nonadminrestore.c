#include "oadp/nonadminrestore.h"

#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

static const cw_nac_kind *const K = &cw_nac_restore_kind;

int cw_narctl_decide(const cw_nac_input *in, const cw_narctl_config *cfg, cw_nac_actions *out,
                     cw_error *err)
{
    int rank, rc;
    cw_nac_step s;
    if ((rc = cw_nac_step_init(&s, in->obj, K->ref, out, &rank, err)) != CW_OK)
        return rc;

    if (cw_json_path(in->obj, "metadata.deletionTimestamp")) {
        if (!cw_nac_has_finalizer(in->obj, K->finalizer)) {
            out->outcome = CW_NAC_NONE;
        } else if (!*out->nacuuid || !in->velero) {
            out->outcome = CW_NAC_RELEASE;
            if (!(out->finalizers = cw_nac_finalizers(in->obj, K->finalizer, 0)))
                s.oom = 1;
        } else {
            out->outcome = CW_NAC_DETACHING;
            cw_nac_step_phase(&s, "Deleting");
            cw_nac_step_cond(&s, "Deleting", "True", "DeletionPending",
                             "restore accepted for deletion", in->now);
            out->delete_velero = out->wait = 1;
        }
    } else if (rank == 0) {
        out->outcome = CW_NAC_NEW;
        cw_nac_step_phase(&s, "New");
    } else if (rank < cw_nac_phase_rank("Created")) {
        json_object *spec = cw_json_path(in->obj, "spec.restoreSpec"), *vspec = NULL;
        const char *ns = cw_json_path_string(in->obj, "metadata.namespace");
        cw_nar_context c = {.ns = ns,
                            .oadp = cfg->oadp_namespace,
                            .nab = in->nab,
                            .backup = in->backup,
                            .enforced = cfg->enforced,
                            .p = &cfg->policy};
        char *msg = NULL;
        if ((in->refused ? !(msg = strdup(in->refused))
                         : cw_nar_check_spec(spec, &c, &msg) != CW_OK) ||
            (!msg && cw_nar_velero_spec(spec, ns,
                                        cw_json_path_string(in->nab, "status.veleroBackup.nacuuid"),
                                        cfg->enforced, &vspec) != CW_OK) ||
            cw_nac_admit(K, in, cfg->oadp_namespace, msg, vspec, &s, out) != CW_OK)
            s.oom = 1;
        free(msg);
    } else if (rank == cw_nac_phase_rank("Created")) {
        cw_nac_sync(K, in, &s, out);
    } else {
        out->outcome = CW_NAC_NONE; /* Deleting: the delete is under way */
    }
    return cw_nac_step_finish(&s, out, err);
}
