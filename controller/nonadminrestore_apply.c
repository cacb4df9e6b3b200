#include "controller/nonadminrestore_apply.h"

#include "controller/nonadmin_apply.h"
#include "oadp/nonadminrestore.h"
#include "lib/json.h"

static int allow_init_hooks; /* --allow-restore-init-hooks */

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

CW_NACSHELL_RECONCILER(cw_nonadminrestore_reconciler, "restore", "Restore", &cw_nac_restore_kind,
                       cw_nar_check_enforced, gather, decide, &allow_init_hooks,
                       CW_OPT_FLAG("allow-restore-init-hooks", &allow_init_hooks, "false",
                                   "nonadminrestore: NonAdminRestores may carry init-container "
                                   "restore hooks, which Velero adds to restored pods and creates "
                                   "under its own identity"));
