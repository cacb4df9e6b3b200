/* OADP non-admin backups (oadp.openshift.io/v1alpha1 NonAdminBackup): the rules OADP's non-admin
 * controller applies, as pure functions — which spec.backupSpec a namespace's user may ask for
 * (OADP's messages, byte for byte), the Velero Backup's name (nacuuid), the estimated queue
 * position, and metav1.Condition bookkeeping. Used by controller/nonadminbackup.c. Rules:
 * docs/controller.md (section nonadminbackup). */
#ifndef CW_NONADMIN_H
#define CW_NONADMIN_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

/* OADP's names, kept byte for byte. */
#define CW_NAB_FINALIZER        "nonadminbackup.oadp.openshift.io/finalizer"
#define CW_NAB_LABEL_NACUUID    "openshift.io/oadp-nab-origin-nacuuid"
#define CW_NAC_LABEL_OADP       "openshift.io/oadp"
#define CW_NAC_LABEL_MANAGED_BY "app.kubernetes.io/managed-by"
#define CW_NAC_MANAGED_BY       "oadp-nac-controller"
#define CW_NAB_ANN_NAME         "openshift.io/oadp-nab-origin-name"
#define CW_NAB_ANN_NAMESPACE    "openshift.io/oadp-nab-origin-namespace"
#define CW_NAR_FINALIZER        "nonadminrestore.oadp.openshift.io/finalizer"
#define CW_NAR_LABEL_NACUUID    "openshift.io/oadp-nar-origin-nacuuid"
#define CW_NAR_ANN_NAME         "openshift.io/oadp-nar-origin-name"
#define CW_NAR_ANN_NAMESPACE    "openshift.io/oadp-nar-origin-namespace"

/* A nacuuid is a DNS-1123 label: at most 63 characters, of which the uuid4 takes 36. */
#define CW_NACUUID_MAX 63
#define CW_UUID4_LEN   36

/* OADP's ValidateBackupSpec, in its order; the first problem wins. spec is spec.backupSpec (may be
 * NULL), ns the NonAdminBackup's namespace, enforced the administrator's BackupSpec (may be NULL).
 * *msg (caller frees) is NULL when the spec is acceptable, else OADP's text, e.g.
 * "NonAdminBackup spec.backupSpec.includedNamespaces is restricted, can not contain namespaces
 * other than: shop". A value of the wrong JSON type in a restricted field is refused too. CW_OK
 * or CW_ENOMEM. */
int cw_nab_check_spec(json_object *spec, const char *ns, json_object *enforced, char **msg);
/* The administrator's enforced BackupSpec must not itself set what non-admin users are refused
 * (includedNamespaces, excludedNamespaces, includeClusterResources true,
 * includedClusterScopedResources, volumeSnapshotLocations, storageLocation) and must be a map.
 * CW_EINVAL names the field. */
int cw_nab_check_enforced(json_object *enforced, cw_error *err);
/* The Velero Backup spec to create: a copy of spec with includedNamespaces [ns] and every enforced
 * field the user left unset filled in. *out is the caller's. CW_OK or CW_ENOMEM. */
int cw_nab_velero_spec(json_object *spec, const char *ns, json_object *enforced, json_object **out);

/* OADP's ValidateRestoreSpec: spec is spec.restoreSpec (may be NULL); nab the NonAdminBackup of
 * the same namespace that spec.backupName names (NULL: there is none). scheduleName,
 * includedNamespaces, excludedNamespaces and namespaceMapping must be absent; backupName must be
 * set and name a NonAdminBackup in phase Created with a recorded nacuuid ("NonAdminRestore
 * spec.restoreSpec.backupName is invalid: NonAdminBackup is not ready to be restored"); enforced
 * fields as for backups. *msg as cw_nab_check_spec. */
int cw_nar_check_spec(json_object *spec, json_object *nab, json_object *enforced, char **msg);
/* As cw_nab_check_enforced, for a RestoreSpec (scheduleName, backupName, includedNamespaces,
 * excludedNamespaces, namespaceMapping cannot be enforced). */
int cw_nar_check_enforced(json_object *enforced, cw_error *err);
/* The Velero Restore spec: a copy of spec with backupName the NonAdminBackup's Velero Backup
 * (its nacuuid) and the enforced fields the user left unset. */
int cw_nar_velero_spec(json_object *spec, const char *backup, json_object *enforced,
                       json_object **out);

/* OADP's GenerateNacObjectUUID given the uuid: "<ns>-<name>-<uuid>" within 63 characters; the
 * name part is shortened first, then the namespace (and the name dropped); the uuid stays whole.
 * out needs CW_NACUUID_MAX + 1 bytes. */
void cw_nacuuid_format(const char *ns, const char *name, const char *uuid, char *out,
                       size_t outlen);
/* A random (version 4) UUID from OpenSSL's RAND_bytes into out (37 bytes). CW_EIO when the
 * generator fails. */
int cw_uuid4(char *out, size_t outlen, cw_error *err);

/* The Velero Backup (or Restore) is done: it has a status.completionTimestamp. */
int cw_nac_finished(json_object *velero);
/* status.queueInfo.estimatedQueuePosition of the NonAdmin object whose Velero object is target
 * (NULL: not created yet): 0 when target is missing or finished; the backup queue's own
 * status.queuePosition when target is Queued and carries one (> 0); else 1 + the unfinished
 * objects of `all` (a JSON array of the Velero objects of the OADP namespace; target may be among
 * them) created strictly earlier than target. Times compare as RFC 3339 seconds; an object without
 * a readable creationTimestamp is not counted. */
int64_t cw_nac_queue_position(json_object *target, json_object *all);

/* metav1 SetStatusCondition on the array conds (created when NULL, *conds is then the caller's):
 * adds the condition, or updates status/reason/message of the one of this type, changing
 * lastTransitionTime (to now, RFC 3339) only when status changed. Returns 1 when conds changed,
 * 0 when it already said this, CW_ENOMEM. */
int cw_nac_set_condition(json_object **conds, const char *type, const char *status,
                         const char *reason, const char *message, const char *now);
/* The condition of this type in conds, or NULL. */
json_object *cw_nac_condition(json_object *conds, const char *type);

/* Phases in their only order: "" < New < BackingOff < Created < Deleting. -1 for unknown text. */
int cw_nac_phase_rank(const char *phase);

#endif
