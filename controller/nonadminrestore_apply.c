#include "controller/nonadminrestore_apply.h"

#include "controller/core/manager.h"
#include "controller/nonadmin_apply.h"
#include "controller/nonadminrestore.h"
#include "lib/json.h"

/* New or BackingOff: the NonAdminBackup it names, in its own namespace (never another: the name
 * is looked up there and nowhere else). */
static int gather(cw_nacshell *s, json_object *nar, cw_nac_input *in, cw_error *err)
{
    const char *ns = cw_json_path_string(nar, "metadata.namespace");
    json_object *bn = cw_json_path(nar, "spec.restoreSpec.backupName");
    int rank = cw_nac_phase_rank(cw_json_path_string(nar, "status.phase"));
    if (!ns || !json_object_is_type(bn, json_type_string) || !*json_object_get_string(bn) ||
        rank <= 0 || rank >= cw_nac_phase_rank("Created") ||
        cw_json_path(nar, "metadata.deletionTimestamp"))
        return CW_OK;
    cw_kube_resource r = cw_nacshell_oadp("nonadminbackups", ns);
    return cw_nacshell_get(s, &r, json_object_get_string(bn), &in->nab, err);
}

static int decide(cw_nacshell *s, const cw_nac_input *in, cw_nac_actions *out, cw_error *err)
{
    cw_narctl_config cfg = {.oadp_namespace = s->oadp, .enforced = s->enforced};
    return cw_narctl_decide(in, &cfg, out, err);
}

static const cw_nacshell_kind kind = {
    .k = &cw_nac_restore_kind,
    .plural = "nonadminrestores",
    .velero_plural = "restores",
    .name = "nonadminrestore",
    .velero_informer = "nonadmin-velero-restores",
    .writes_metric = "cronwarden_controller_nonadminrestore_writes_total",
    .check_enforced = cw_nar_check_enforced,
    .gather = gather,
    .decide = decide,
};

static int op_create(const cw_reconciler_env *env, void **self, cw_error *err)
{
    int rc = cw_nacshell_create(&kind, env->cfg->enforce_restore_spec, env, self, err);
    return rc == CW_EINVAL ? cw_error_prefix(err, "--enforce-restore-spec") : rc;
}

const cw_reconciler_ops cw_nonadminrestore_reconciler =
    CW_NACSHELL_OPS("nonadminrestore",
                    "runs OADP NonAdminRestores (replaces OADP's non-admin controller: "
                    "DataProtectionApplication spec.nonAdmin.enable false)",
                    op_create);
