/* The OADP NonAdminBackup reconciler's decision: a pure function of the NonAdminBackup, its Velero
 * Backup, the Velero Backups of the OADP namespace, its DeleteBackupRequests, the configuration
 * and "now", returning the one step to take. Rules from defaults/nonadmin.h; contract in
 * docs/controller.md (section nonadminbackup). One step per reconcile, each written before the
 * next is decided (the watch event of the write brings the key back):
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

#include <json-c/json.h>
#include <stdint.h>

#include "defaults/nonadmin.h"
#include "lib/error.h"

typedef struct cw_nabctl_config {
    const char *oadp_namespace; /* where Velero objects live */
    json_object *enforced;      /* the administrator's BackupSpec (borrowed; NULL: none) */
} cw_nabctl_config;

typedef enum {
    CW_NABCTL_NONE,      /* no finalizer and being deleted, or nothing to do */
    CW_NABCTL_NEW,       /* first sight */
    CW_NABCTL_INVALID,   /* spec refused */
    CW_NABCTL_ACCEPTED,  /* nacuuid recorded */
    CW_NABCTL_FINALIZER, /* finalizer added */
    CW_NABCTL_CREATE,    /* Velero Backup to create */
    CW_NABCTL_ADOPT,     /* Velero Backup found with the recorded nacuuid */
    CW_NABCTL_SYNC,      /* Created: status mirrored */
    CW_NABCTL_LOST,      /* Created, Velero Backup gone */
    CW_NABCTL_DELETE,    /* spec.deleteBackup: delete the NonAdminBackup */
    CW_NABCTL_PURGING,   /* being deleted with deleteBackup: DeleteBackupRequest, waiting */
    CW_NABCTL_DETACHING, /* being deleted directly: Velero Backup object going */
    CW_NABCTL_RELEASE,   /* the Velero Backup is gone: finalizer removed */
} cw_nabctl_outcome;

typedef struct cw_nabctl_actions {
    cw_nabctl_outcome outcome;
    json_object *status;     /* the whole new status to PUT through /status; NULL: none */
    json_object *finalizers; /* the new metadata.finalizers to patch; NULL: none */
    json_object *backup;     /* the Velero Backup to create; NULL: none */
    json_object *dbr;        /* the DeleteBackupRequest to create; NULL: none */
    int delete_backup;       /* delete the Velero Backup object (not its data) */
    int delete_dbrs;         /* delete every DeleteBackupRequest given */
    int delete_nars;         /* delete the NonAdminRestores made from this backup */
    int delete_nab;          /* DELETE the NonAdminBackup (its finalizer holds it) */
    int wait;                /* look again in a few seconds (deletions in progress) */
    char nacuuid[CW_NACUUID_MAX + 1];
} cw_nabctl_actions;

void cw_nabctl_actions_init(cw_nabctl_actions *a);
void cw_nabctl_actions_free(cw_nabctl_actions *a);

typedef struct cw_nabctl_input {
    json_object *nab;     /* the NonAdminBackup as stored */
    json_object *backup;  /* its Velero Backup (named nacuuid and carrying this NAB's origin
                             annotations), or NULL when there is none */
    json_object *backups; /* JSON array: the Velero Backups of the OADP namespace (queue) */
    json_object *dbrs;    /* JSON array: DeleteBackupRequests labelled with the nacuuid */
    const char *now;      /* RFC 3339 */
    const char *uuid;     /* a fresh uuid4, used only when a nacuuid is generated */
} cw_nabctl_input;

/* CW_EINVAL (err names the field) for an object it cannot act on (no name or namespace, an
 * unknown phase); CW_ENOMEM. */
int cw_nabctl_decide(const cw_nabctl_input *in, const cw_nabctl_config *cfg, cw_nabctl_actions *out,
                     cw_error *err);
const char *cw_nabctl_outcome_name(cw_nabctl_outcome o);
/* 1 when the Velero Backup belongs to the NonAdminBackup ns/name: its origin annotations and its
 * nacuuid label say so. Anything else with the recorded name is never adopted, mirrored or
 * deleted. */
int cw_nabctl_owns(json_object *backup, const char *ns, const char *name, const char *nacuuid);

#endif
