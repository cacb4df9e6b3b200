#include "controller/nonadminrestore_apply.h"

#include "controller/nonadmin_apply.h"
#include "oadp/nonadminrestore.h"
#include "lib/json.h"

/* New or BackingOff: the NonAdminBackup it names, in its own namespace (never another: the name
 * is looked up there and nowhere else), and the Velero Backup that NonAdminBackup's status names,
 * read live from the OADP namespace (the decision checks its origin: a status is not trusted). A
 * backupName that is no object name is never asked for (the decision answers it). */
static int gather(cw_shell *s, json_object *nar, cw_nac_input *in, cw_error *err)
{
    const cw_nonadmin_config *cfg = s->env.config;
    const char *ns = cw_json_path_string(nar, "metadata.namespace");
    json_object *bn = cw_json_path(nar, "spec.restoreSpec.backupName");
    int rank = cw_nac_phase_rank(cw_json_path_string(nar, "status.phase"));
    if (!ns || !cw_nar_backup_addressable(bn) || rank <= 0 ||
        rank >= cw_nac_phase_rank("Created") || cw_json_path(nar, "metadata.deletionTimestamp"))
        return CW_OK;
    cw_kube_resource r = cw_nacshell_oadp("nonadminbackups", ns);
    int rc = cw_nacshell_get(s, &r, json_object_get_string(bn), &in->nab, err);
    const char *nacuuid = cw_json_path_string(in->nab, "status.veleroBackup.nacuuid");
    if (rc != CW_OK || !cw_nacuuid_for(ns, json_object_get_string(bn), nacuuid))
        return rc;
    r = cw_nacshell_velero("backups", cfg->head.home);
    return cw_nacshell_get(s, &r, nacuuid, &in->backup, err);
}

static int decide(const cw_nonadmin_config *c, const cw_nac_input *in, cw_nac_actions *out,
                  cw_error *err)
{
    cw_narctl_config cfg = {
        .oadp_namespace = c->head.home, .enforced = c->enforced, .policy = c->policy};
    return cw_narctl_decide(in, &cfg, out, err);
}

static const cw_opt opts[] = {
    CW_CTRL_OPT_OADP_NAMESPACE,
    CW_OPT_STR_AT(
        "enforce-restore-spec", "FILE", cw_nonadmin_config, enforce_file, "",
        "nonadminrestore: a Velero RestoreSpec (YAML) whose fields non-admin restores may "
        "leave unset (they are filled in) or set to the same value"),
    CW_CTRL_OPT_ALLOWED_RESOURCE_POLICIES,
    CW_OPT_FLAG_AT("allow-restore-init-hooks", cw_nonadmin_config, policy.allow_restore_init_hooks,
                   "false",
                   "nonadminrestore: NonAdminRestores may carry init-container restore hooks, "
                   "which Velero adds to restored pods and creates under its own identity"),
};

static const cw_nacshell_kind kind = {
    .k = &cw_nac_restore_kind,
    .name = "nonadminrestore",
    .flag = "--enforce-restore-spec",
    .check_enforced = cw_nar_check_enforced,
    .gather = gather,
    .decide = decide,
};

static int config_init(void *cfg, const cw_ctrl_flags *f, cw_error *err)
{
    return cw_nacshell_config(&kind, cfg, f, err);
}

static const char *const prune[] = {"spec.restoreSpec", NULL};

static const cw_informer_def informers[] = {
    [CW_NACSHELL_OBJS] = {CW_INFORMER_RESOURCE("nonadminrestores", "oadp.openshift.io", "v1alpha1",
                                               "nonadminrestores"),
                          CW_NACSHELL_OBJS_ROW(prune)},
    [CW_NACSHELL_VELERO] = {CW_INFORMER_RESOURCE("nonadmin-velero-restores", "velero.io", "v1",
                                                 "restores"),
                            CW_NACSHELL_VELERO_ROW},
};

/* Off by default: it replaces OADP's own non-admin controller. */
const cw_reconciler_ops cw_nonadminrestore_reconciler = {
    CW_RECONCILER_NAMED("nonadminrestore", "nonadminrestore", CW_NACSHELL_VERBS),
    .summary = "runs OADP NonAdminRestores (replaces OADP's non-admin controller: "
               "DataProtectionApplication spec.nonAdmin.enable false)",
    CW_RECONCILER_TABLES(opts, informers),
    CW_RECONCILER_CONFIG(cw_nonadmin_config, config_init, cw_nacshell_config_fini),
    CW_RECONCILER_STATE(cw_nacshell_init, cw_nacshell_fini),
    .reconcile = cw_nacshell_reconcile,
};
