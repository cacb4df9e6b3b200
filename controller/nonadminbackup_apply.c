#include "controller/nonadminbackup_apply.h"

#include <stdio.h>

#include "controller/nonadmin_apply.h"
#include "oadp/nonadminbackup.h"
#include "lib/json.h"

/* While being deleted: the DeleteBackupRequests of its Velero Backup (live: deletion is rare and
 * must see what exists now). */
static int gather(cw_shell *s, json_object *nab, cw_nac_input *in, cw_error *err)
{
    const cw_nonadmin_config *cfg = s->env.config;
    const char *nacuuid = cw_json_path_string(nab, "status.veleroBackup.nacuuid");
    char sel[128];
    if (!cw_json_path(nab, "metadata.deletionTimestamp") ||
        !cw_nacuuid_for(cw_json_path_string(nab, "metadata.namespace"),
                        cw_json_path_string(nab, "metadata.name"), nacuuid))
        return CW_OK;
    cw_kube_resource r = cw_nacshell_velero("deletebackuprequests", cfg->head.home);
    snprintf(sel, sizeof(sel), "%s=%s", CW_NAB_LABEL_NACUUID, nacuuid);
    return cw_kube_list_items(s->env.kube, &r, sel, &in->dbrs, err);
}

static int decide(const cw_nonadmin_config *c, const cw_nac_input *in, cw_nac_actions *out,
                  cw_error *err)
{
    cw_nabctl_config cfg = {
        .oadp_namespace = c->head.home, .enforced = c->enforced, .policy = c->policy};
    return cw_nabctl_decide(in, &cfg, out, err);
}

static const cw_opt opts[] = {
    CW_CTRL_OPT_OADP_NAMESPACE,
    CW_OPT_STR_AT("enforce-backup-spec", "FILE", cw_nonadmin_config, enforce_file, "",
                  "nonadminbackup: a Velero BackupSpec (YAML) whose fields non-admin backups may "
                  "leave unset (they are filled in) or set to the same value"),
    CW_CTRL_OPT_ALLOWED_RESOURCE_POLICIES,
};

static const cw_nacshell_kind kind = {
    .k = &cw_nac_backup_kind,
    .name = "nonadminbackup",
    .flag = "--enforce-backup-spec",
    .check_enforced = cw_nab_check_enforced,
    .gather = gather,
    .decide = decide,
};

static int config_init(void *cfg, const cw_ctrl_flags *f, cw_error *err)
{
    return cw_nacshell_config(&kind, cfg, f, err);
}

static const char *const prune[] = {"spec.backupSpec", NULL};

static const cw_informer_def informers[] = {
    [CW_NACSHELL_OBJS] = {CW_INFORMER_RESOURCE("nonadminbackups", "oadp.openshift.io", "v1alpha1",
                                               "nonadminbackups"),
                          CW_NACSHELL_OBJS_ROW(prune)},
    [CW_NACSHELL_VELERO] = {CW_INFORMER_RESOURCE("nonadmin-velero-backups", "velero.io", "v1",
                                                 "backups"),
                            CW_NACSHELL_VELERO_ROW},
};

/* Off by default: it replaces OADP's own non-admin controller. */
const cw_reconciler_ops cw_nonadminbackup_reconciler = {
    CW_RECONCILER_NAMED("nonadminbackup", "nonadminbackup", CW_NACSHELL_VERBS),
    .summary = "runs OADP NonAdminBackups (replaces OADP's non-admin controller: "
               "DataProtectionApplication spec.nonAdmin.enable false)",
    CW_RECONCILER_TABLES(opts, informers),
    CW_RECONCILER_CONFIG(cw_nonadmin_config, config_init, cw_nacshell_config_fini),
    CW_RECONCILER_STATE(cw_nacshell_init, cw_nacshell_fini),
    .reconcile = cw_nacshell_reconcile,
};
