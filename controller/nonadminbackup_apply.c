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

/* No flags of its own besides the shared ones (the last, empty argument). */
CW_NACSHELL_RECONCILER(cw_nonadminbackup_reconciler, "backup", "Backup", &cw_nac_backup_kind,
                       cw_nab_check_enforced, gather, decide, NULL, );
