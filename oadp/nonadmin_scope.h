/* What keeps a non-admin backup or restore inside its namespace, besides OADP's spec checks
 * (oadp/nonadmin.h): the kinds every Velero Backup and Restore made for a NonAdminBackup or
 * NonAdminRestore excludes, hooks held to the user's namespace (and init-container restore hooks
 * refused unless the administrator allows them), resource policies and modifiers only from the
 * administrator's list, and the administrator's options for all of it. Pure functions; the
 * reasons, field by field, are in docs/controller.md ("Tenancy"). */
#ifndef CW_NONADMIN_SCOPE_H
#define CW_NONADMIN_SCOPE_H

#include <json-c/json.h>

#include "lib/error.h"
#include "lib/strlist.h"

/* The administrator's say over what non-admin users may ask Velero for. Zeroed, it allows
 * nothing: no init-container restore hooks, no resource policy or modifier. */
typedef struct cw_nac_policy {
    /* --allow-restore-init-hooks: NonAdminRestores may carry init-container restore hooks
     * (spec.restoreSpec.hooks.resources[].postHooks[].init), which Velero adds to the restored
     * pods of the user's namespace and creates under its own identity. */
    int allow_restore_init_hooks;
    /* --allowed-resource-policies: the ConfigMaps of the OADP namespace that
     * spec.backupSpec.resourcePolicy and spec.restoreSpec.resourceModifier may name (borrowed;
     * NULL or empty: none). */
    const cw_strlist *allowed_resource_policies;
} cw_nac_policy;

/* Every name on the list is a ConfigMap name (a DNS-1123 subdomain); CW_EINVAL names the first
 * that is not (a comma inside one: the flag is repeated, not comma-separated). */
int cw_nac_policy_check(const cw_nac_policy *p, cw_error *err);

/* OADP's lists (internal/controller/nonadminbackup_controller.go alwaysExcluded*Resources,
 * nonadminrestore_controller.go), in its order, NULL-terminated: the non-admin kinds, then the
 * cluster-scoped kinds Velero's item actions would add to a namespace's backup; a restore also
 * excludes the last list. */
extern const char *const cw_nac_excluded_namespaced[];
extern const char *const cw_nac_excluded_cluster[];
extern const char *const cw_nac_excluded_restore[];

/* The Velero Backup spec vspec (an object) gets the exclusions in the filter style it uses, as
 * OADP does: when any of includedClusterScopedResources, excludedClusterScopedResources,
 * includedNamespaceScopedResources, excludedNamespaceScopedResources is set, the non-admin kinds go
 * to excludedNamespaceScopedResources and the cluster kinds to excludedClusterScopedResources;
 * otherwise both to excludedResources (Velero refuses a Backup that mixes the two styles). Names
 * already listed are not repeated. CW_OK or CW_ENOMEM. */
int cw_nac_exclude_backup(json_object *vspec);
/* The Velero Restore spec: excludedResources gets all three lists. */
int cw_nac_exclude_restore(json_object *vspec);
/* Every hooks.resources[] entry of vspec gets includedNamespaces [ns]: the hooks name the user's
 * namespace and nothing else (the Velero object holds that namespace only, so what a hook selects
 * does not change). CW_OK or CW_ENOMEM. */
int cw_nac_confine_hooks(json_object *vspec, const char *ns);

/* The checks below look at a user's spec; `what` is the field path of the spec in OADP's message
 * form ("NonAdminBackup spec.backupSpec", "NonAdminRestore spec.restoreSpec"). Each sets *msg
 * (caller frees) to the user's message, or leaves it NULL when the spec passes. CW_OK or
 * CW_ENOMEM. */

/* hooks (may be NULL): every hooks.resources[] entry's includedNamespaces and excludedNamespaces
 * name ns alone (or nothing); a restore's postHooks[].init only when p allows it. */
int cw_nac_check_hooks(json_object *hooks, const char *what, const char *ns, int restore,
                       const cw_nac_policy *p, char **msg);
/* field (resourcePolicy, resourceModifier) of spec: absent, or a ConfigMap reference (kind
 * configmap in any case, as Velero compares) naming one of p's allowed ConfigMaps or the one the
 * administrator's enforced spec names. */
int cw_nac_check_policy_ref(json_object *spec, json_object *enforced, const char *field,
                            const char *what, const cw_nac_policy *p, char **msg);
/* The resource filters: the lists the exclusions are added to (excludedResources; for a backup
 * also excludedClusterScopedResources and excludedNamespaceScopedResources) are lists, and
 * includedResources (a backup's includedNamespaceScopedResources too) names none of the kinds a
 * backup (restore: 1) always excludes: Velero would fail its validation (a name both included and
 * excluded). */
int cw_nac_check_resources(json_object *spec, const char *what, int restore, char **msg);

/* The same rules for an administrator's enforced spec: CW_EINVAL, err naming the field, when its
 * hooks name namespaces (or are not the shape Velero's are) or its resource filters fail
 * cw_nac_check_resources (users is "backups" or "restores"). Its init-container restore hooks and
 * resource policies are the administrator's own and pass. */
int cw_nac_check_enforced_scope(json_object *enforced, const char *users, int restore,
                                cw_error *err);

/* *msg := the formatted text (caller frees). CW_OK or CW_ENOMEM. Shared by oadp/nonadmin*.c. */
int cw_nac_msgf(char **msg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
