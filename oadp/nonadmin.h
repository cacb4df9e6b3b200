/* OADP non-admin backups and restores (oadp.openshift.io/v1alpha1 NonAdminBackup,
 * NonAdminRestore): the rules OADP's non-admin controller applies, as pure functions — which
 * spec.backupSpec / spec.restoreSpec a namespace's user may ask for (OADP's messages, with the
 * field paths users write), the Velero specs made from them (with the tenancy rules of
 * oadp/nonadmin_scope.h), the Velero objects' name (nacuuid) and origin, the estimated queue
 * position, and metav1.Condition bookkeeping. Used by oadp/nonadmin{_lifecycle,backup,restore}.c.
 * Rules: docs/controller.md (sections nonadminbackup, nonadminrestore, Tenancy). */
#ifndef CW_NONADMIN_H
#define CW_NONADMIN_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "oadp/nonadmin_scope.h"
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

/* A nacuuid is a DNS-1123 subdomain and label value: at most 63 characters, of which the uuid4
 * takes 36. */
#define CW_NACUUID_MAX 63
#define CW_UUID4_LEN   36

/* What one NonAdmin object may ask for, in bytes of its spec.backupSpec / spec.restoreSpec as
 * compact JSON (cronwarden's serialisation: no whitespace, '/' unescaped, UTF-8 as is). A real
 * BackupSpec (every namespaced kind listed in includedResources, label selectors, a few exec hooks)
 * is 1-6 KiB; 16 KiB leaves room and keeps a tenant's pending objects small in the controller's
 * memory (docs/controller.md, "Memory"). Over it: BackingOff with cw_nac_size_msg, checked before
 * anything is built from the spec, and the spec is not kept. */
#define CW_NAC_SPEC_MAX 16384
/* A namespace's share: the specs of its NonAdmin objects not yet Created (the only ones the
 * controller keeps a spec of), summed per reconciler, at most this many bytes (128 specs at the
 * limit). An object that would take the namespace over it is refused (cw_nac_share_msg) until it
 * is edited again. */
#define CW_NAC_NS_SPEC_MAX (2 * 1024 * 1024)

/* "NonAdminBackup spec.backupSpec is too large: <bytes> bytes, the limit is 16384 bytes (compact
 * JSON)" (restore: NonAdminRestore spec.restoreSpec). *msg is the caller's; CW_OK or CW_ENOMEM. */
int cw_nac_size_msg(int restore, size_t bytes, char **msg);
/* "NonAdminBackup spec.backupSpec is not accepted: the NonAdminBackups of namespace <ns> waiting
 * to be created already hold <held> bytes of specs, its share is 2097152 bytes; edit this one
 * again once fewer are waiting" (restore: NonAdminRestore, NonAdminRestores). */
int cw_nac_share_msg(int restore, const char *ns, size_t held, char **msg);

/* OADP's ValidateBackupSpec, in its order, then what keeps the backup in its namespace
 * (oadp/nonadmin_scope.h: resource filters, hooks, resourcePolicy); the first problem wins.
 * spec is spec.backupSpec (may be NULL), ns the NonAdminBackup's namespace, enforced the
 * administrator's BackupSpec (may be NULL), p the administrator's policy (NULL: allow nothing).
 * *msg (caller frees) is NULL when the spec is acceptable, else OADP's text, e.g.
 * "NonAdminBackup spec.backupSpec.includedNamespaces is restricted, can not contain namespaces
 * other than: shop". A value of the wrong JSON type in a restricted field is refused too. CW_OK
 * or CW_ENOMEM. */
int cw_nab_check_spec(json_object *spec, const char *ns, json_object *enforced,
                      const cw_nac_policy *p, char **msg);
/* The administrator's enforced BackupSpec must not itself set what non-admin users are refused
 * (includedNamespaces, excludedNamespaces, includeClusterResources true,
 * includedClusterScopedResources, volumeSnapshotLocations, storageLocation), nor loosen what every
 * non-admin backup gets (cw_nac_check_enforced_scope), and must be a map. CW_EINVAL names the
 * field. */
int cw_nab_check_enforced(json_object *enforced, cw_error *err);
/* The Velero Backup spec to create: a copy of spec with includedNamespaces [ns], every enforced
 * field the user left unset filled in, then OADP's exclusions (cw_nac_exclude_backup) and the
 * hooks confined to ns (cw_nac_confine_hooks). *out is the caller's. CW_OK or CW_ENOMEM. */
int cw_nab_velero_spec(json_object *spec, const char *ns, json_object *enforced, json_object **out);

/* What a NonAdminRestore's check reads besides its spec. */
typedef struct cw_nar_context {
    const char *ns;         /* the NonAdminRestore's namespace */
    const char *oadp;       /* the OADP namespace (where the Velero Backup is looked for) */
    json_object *nab;       /* the NonAdminBackup spec.backupName names in ns, or NULL */
    json_object *backup;    /* the Velero Backup named by nab's status.veleroBackup.nacuuid in
                               oadp, as read, or NULL when there is none */
    json_object *enforced;  /* the administrator's RestoreSpec, or NULL */
    const cw_nac_policy *p; /* the administrator's policy (NULL: allow nothing) */
} cw_nar_context;

/* spec.restoreSpec.backupName (bn) can name a NonAdminBackup: a string that is a Kubernetes object
 * name (a DNS-1123 subdomain of at most 253 characters, no NUL in it). Anything else names no
 * object: it is never put in a request path (a '?', '%', "..", '/' or an upper-case letter there
 * would make the GET answer 400 or 404, or no URL at all), and cw_nar_check_spec answers it. */
int cw_nar_backup_addressable(json_object *bn);

/* OADP's ValidateRestoreSpec and the tenancy rules: spec is spec.restoreSpec (may be NULL).
 * scheduleName, includedNamespaces, excludedNamespaces and namespaceMapping must be absent;
 * backupName must be set ("NonAdminRestore spec.restoreSpec.backupName is not set"), be an
 * object name (cw_nar_backup_addressable; else OADP's NotFound answer, "NonAdminRestore
 * spec.restoreSpec.backupName is invalid: NonAdminBackup.oadp.openshift.io \"<name>\" not found",
 * the name as Go's %q writes it), and name a NonAdminBackup in phase Created with a recorded
 * nacuuid
 * ("NonAdminRestore spec.restoreSpec.backupName is invalid: NonAdminBackup is not ready to be
 * restored") whose Velero Backup exists and carries that NonAdminBackup's origin (its nacuuid
 * label and origin annotations: a status written by someone else cannot point a restore at
 * another namespace's backup); includeClusterResources only false; enforced fields as for
 * backups; then resource filters, hooks and resourceModifier (oadp/nonadmin_scope.h). *msg as
 * cw_nab_check_spec. */
int cw_nar_check_spec(json_object *spec, const cw_nar_context *c, char **msg);
/* As cw_nab_check_enforced, for a RestoreSpec (scheduleName, backupName, includedNamespaces,
 * excludedNamespaces, namespaceMapping and includeClusterResources true cannot be enforced). */
int cw_nar_check_enforced(json_object *enforced, cw_error *err);
/* The Velero Restore spec: a copy of spec with backupName the NonAdminBackup's Velero Backup (its
 * nacuuid), includedNamespaces [ns], the enforced fields the user left unset, the exclusions
 * (cw_nac_exclude_restore) and the hooks confined to ns. */
int cw_nar_velero_spec(json_object *spec, const char *ns, const char *backup, json_object *enforced,
                       json_object **out);

/* The Velero object carries the origin of the NonAdmin object ns/name: label label_nacuuid equal
 * to nacuuid, annotations ann_name = name and ann_namespace = ns. */
int cw_nac_origin_is(json_object *velero, const char *label_nacuuid, const char *ann_name,
                     const char *ann_namespace, const char *ns, const char *name,
                     const char *nacuuid);

/* OADP's GenerateNacObjectUUID given the uuid: "<ns>-<name>-<uuid>" when it fits in 63
 * characters; else the name is cut to what is left after "<ns>-" and "-<uuid>", or, when the
 * namespace is longer than 25 characters (or leaves no room), "<ns cut to 25>-<uuid>". Unlike
 * OADP, a part ends where it is cut only on a letter or digit ('.' and '-' there are dropped: a
 * NonAdminBackup "aaaaaaaaaaaaaaaaaa.b" in team-a would give "team-a-aaaaaaaaaaaaaaaaaa.-<uuid>",
 * which is no Kubernetes name), and bytes a name cannot hold become '-' ('.' only between letters
 * and digits), so the result is always a valid name and label value (cw_nacuuid_valid). out needs
 * CW_NACUUID_MAX + 1 bytes. */
void cw_nacuuid_format(const char *ns, const char *name, const char *uuid, char *out,
                       size_t outlen);
/* s can name the Velero objects and be the nacuuid label's value: a DNS-1123 subdomain of at most
 * 63 characters. */
int cw_nacuuid_valid(const char *s);
/* nacuuid is one made for the NonAdmin object ns/name: a valid name (cw_nacuuid_valid) that ends
 * in a uuid (8-4-4-4-12 lower-case hex) and is what cw_nacuuid_format, or OADP's own cut (a part
 * may end in '.' or '-'), makes of ns, name and that uuid. A recorded nacuuid is a status field
 * anyone with rights on the /status subresource can write: one that is not this object's would
 * have cronwarden create a Velero object under a name of that writer's choosing in the OADP
 * namespace (e.g. the name of a Backup an administrator's Schedule makes next), so it is never
 * used. */
int cw_nacuuid_for(const char *ns, const char *name, const char *nacuuid);
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
/* The same with observedGeneration: gen > 0 sets it, 0 removes it (as metav1 omits a zero). */
int cw_nac_set_condition_gen(json_object **conds, const char *type, const char *status,
                             const char *reason, const char *message, const char *now, int64_t gen);
/* The condition of this type in conds, or NULL. */
json_object *cw_nac_condition(json_object *conds, const char *type);

/* Phases in their only order: "" < New < BackingOff < Created < Deleting. -1 for unknown text. */
int cw_nac_phase_rank(const char *phase);

#endif
