#include "controller/nonadminbackup_apply.h"

#include <stdio.h>

#include "controller/core/manager.h"
#include "controller/nonadmin_apply.h"
#include "controller/nonadminbackup.h"
#include "lib/json.h"

/* While being deleted: the DeleteBackupRequests of its Velero Backup (live: deletion is rare and
 * must see what exists now). */
static int gather(cw_nacshell *s, json_object *nab, cw_nac_input *in, cw_error *err)
{
    const char *nacuuid = cw_json_path_string(nab, "status.veleroBackup.nacuuid");
    char sel[128];
    if (!nacuuid || !*nacuuid || !cw_json_path(nab, "metadata.deletionTimestamp"))
        return CW_OK;
    cw_kube_resource r = cw_nacshell_velero("deletebackuprequests", s->oadp);
    snprintf(sel, sizeof(sel), "%s=%s", CW_NAB_LABEL_NACUUID, nacuuid);
    return cw_nacshell_list(s, &r, sel, &in->dbrs, err);
}

static int decide(cw_nacshell *s, const cw_nac_input *in, cw_nac_actions *out, cw_error *err)
{
    cw_nabctl_config cfg = {.oadp_namespace = s->oadp, .enforced = s->enforced};
    return cw_nabctl_decide(in, &cfg, out, err);
}

static const cw_nacshell_kind kind = {
    .k = &cw_nac_backup_kind,
    .plural = "nonadminbackups",
    .velero_plural = "backups",
    .name = "nonadminbackup",
    .velero_informer = "nonadmin-velero-backups",
    .writes_metric = "cronwarden_controller_nonadminbackup_writes_total",
    .check_enforced = cw_nab_check_enforced,
    .gather = gather,
    .decide = decide,
};

static int op_create(const cw_reconciler_env *env, void **self, cw_error *err)
{
    int rc = cw_nacshell_create(&kind, env->cfg->enforce_backup_spec, env, self, err);
    return rc == CW_EINVAL ? cw_error_prefix(err, "--enforce-backup-spec") : rc;
}

const cw_reconciler_ops cw_nonadminbackup_reconciler =
    CW_NACSHELL_OPS("nonadminbackup",
                    "runs OADP NonAdminBackups (replaces OADP's non-admin controller: "
                    "DataProtectionApplication spec.nonAdmin.enable false)",
                    op_create);
