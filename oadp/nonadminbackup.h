/* The OADP NonAdminBackup reconciler's decision: a pure function of the NonAdminBackup, its Velero
 * Backup, the Velero Backups of the OADP namespace, its DeleteBackupRequests, the configuration
 * and "now", returning the one step to take. Rules from oadp/nonadmin.h and
 * oadp/nonadmin_scope.h (the Velero Backup made: includedNamespaces [ns], OADP's exclusions,
 * hooks held to ns), the lifecycle shared with NonAdminRestore from oadp/nonadmin_lifecycle.h;
 * contract in docs/controller.md (sections nonadminbackup, Tenancy). One step per reconcile, each
 * written before the next is decided (the watch event of the write brings the key back):
 *
 *   no phase                          -> status.phase New
 *   New/BackingOff, spec refused      -> BackingOff, Accepted=False InvalidBackupSpec <message>
 *   New/BackingOff, no nacuuid        -> Accepted=True BackupAccepted, status.veleroBackup
 *                                        {nacuuid, name, namespace} (recorded BEFORE the create)
 *   ... no finalizer                  -> add the finalizer
 *   ... Velero Backup missing         -> create it, then Created + Queued=True BackupScheduled
 *   ... Velero Backup there           -> adopt it (a crash came after the create): Created
 *   Created                           -> mirror veleroBackup.status and queueInfo; a Velero
 *                                        Backup gone -> Accepted=False VeleroBackupNotFound
 *   spec.deleteBackup                 -> Deleting, Deleting=True "backup accepted for deletion",
 *                                        delete its NonAdminRestores and the NonAdminBackup
 *   being deleted, deleteBackup       -> a DeleteBackupRequest (recorded in status); the finalizer
 *                                        goes once the Velero Backup is gone
 *   being deleted (a direct delete)   -> Deleting=True "permanent backup deletion requires ...",
 *                                        delete the Velero Backup object and its
 *                                        DeleteBackupRequests; the finalizer goes once it is gone
 * Phases only move forward (New < BackingOff < Created < Deleting). */
#ifndef CW_NABCTL_H
#define CW_NABCTL_H

#include "oadp/nonadmin_lifecycle.h"

typedef struct cw_nabctl_config {
    const char *oadp_namespace; /* where Velero objects live */
    json_object *enforced;      /* the administrator's BackupSpec (borrowed; NULL: none) */
    cw_nac_policy policy;       /* resource policies the administrator allows (zeroed: none) */
} cw_nabctl_config;

/* in->obj is the NonAdminBackup, in->velero its Velero Backup, in->all the OADP namespace's
 * Velero Backups, in->dbrs its DeleteBackupRequests. CW_EINVAL (err names the field) for an
 * object it cannot act on (no name or namespace, an unknown phase); CW_ENOMEM. */
int cw_nabctl_decide(const cw_nac_input *in, const cw_nabctl_config *cfg, cw_nac_actions *out,
                     cw_error *err);

#endif
