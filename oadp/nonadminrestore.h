/* The OADP NonAdminRestore reconciler's decision: a pure function of the NonAdminRestore, its
 * Velero Restore, the Velero Restores of the OADP namespace, the NonAdminBackup it names and that
 * one's Velero Backup, the configuration and "now". The lifecycle is NonAdminBackup's
 * (oadp/nonadmin_lifecycle.h) with OADP's restore rules and the tenancy rules (oadp/nonadmin.h,
 * oadp/nonadmin_scope.h) and names; docs/controller.md (sections nonadminrestore, Tenancy):
 *
 *   no phase                          -> status.phase New
 *   New/BackingOff, spec refused      -> BackingOff, Accepted=False InvalidRestoreSpec <message>
 *                                        (also when the NonAdminBackup is not Created, or its
 *                                        Velero Backup is missing or not its own)
 *   New/BackingOff, no nacuuid        -> Accepted=True RestoreAccepted, status.veleroRestore
 *                                        {nacuuid, name, namespace} (recorded BEFORE the create)
 *   ... no finalizer                  -> add the finalizer
 *   ... Velero Restore missing        -> create it (backupName: the NonAdminBackup's Velero
 *                                        Backup), then Created + Queued=True RestoreScheduled
 *   ... Velero Restore there          -> adopt it: Created
 *   Created                           -> mirror veleroRestore.status and queueInfo; a Velero
 *                                        Restore gone -> Accepted=False VeleroRestoreNotFound
 *   being deleted                     -> Deleting, Deleting=True "restore accepted for deletion";
 *                                        delete the Velero Restore; the finalizer goes once it is
 *                                        gone */
#ifndef CW_NARCTL_H
#define CW_NARCTL_H

#include "oadp/nonadmin_lifecycle.h"

typedef struct cw_narctl_config {
    const char *oadp_namespace;
    json_object *enforced; /* the administrator's RestoreSpec (borrowed; NULL: none) */
    cw_nac_policy policy;  /* init-container hooks and resource modifiers the administrator
                              allows (zeroed: none) */
} cw_narctl_config;

/* in->obj is the NonAdminRestore, in->velero its Velero Restore, in->all the OADP namespace's
 * Velero Restores, in->nab the NonAdminBackup named by spec.restoreSpec.backupName in the same
 * namespace (NULL: none), in->backup the Velero Backup its status.veleroBackup.nacuuid names
 * (NULL: none; no Restore is made without it). Errors as cw_nabctl_decide. The Velero Restore
 * made: includedNamespaces [ns], the exclusions, hooks held to ns (cw_nar_velero_spec). */
int cw_narctl_decide(const cw_nac_input *in, const cw_narctl_config *cfg, cw_nac_actions *out,
                     cw_error *err);

#endif
