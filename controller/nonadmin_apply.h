/* What the NonAdminBackup and NonAdminRestore reconcilers share: two informers (the NonAdmin
 * objects in every namespace; the Velero objects of their kind in the OADP namespace, without
 * their spec) and one reconcile: read the caches (and the API where a cache may lag: the Velero
 * object named by a recorded nacuuid), gather what the kind needs, decide, write in the order the
 * decision needs, every write conditional. Each reconciler (nonadminbackup_apply.c,
 * nonadminrestore_apply.c) is a cw_nacshell_kind and the descriptor CW_NACSHELL_OPS makes of it.
 * docs/controller.md. */
#ifndef CW_NACSHELL_H
#define CW_NACSHELL_H

#include "controller/core/reconciler.h"
#include "controller/core/shell.h"
#include "controller/flags.h"
#include "oadp/nonadmin_lifecycle.h"
#include "controller/nonadmin_keep.h"

typedef struct cw_nacshell_kind cw_nacshell_kind;

/* A NonAdmin reconciler's config: its kind, --oadp-namespace, its --enforce-*-spec, and the
 * administrator's policy (--allowed-resource-policies; a restore's --allow-restore-init-hooks). */
typedef struct cw_nonadmin_config {
    cw_reconciler_config head; /* home: the OADP namespace */
    const cw_nacshell_kind *kind;
    json_object *enforced; /* the administrator's enforced spec (owned), or NULL */
    cw_nac_policy policy;  /* its list borrowed from the flags */
} cw_nonadmin_config;

struct cw_nacshell_kind {
    const cw_nac_kind *k;
    const char *name;            /* "nonadminbackup": logs, failpoints (<name>-create) */
    const char *flag;            /* "--enforce-backup-spec" */
    char **spec_file;            /* its value */
    const int *allow_init_hooks; /* --allow-restore-init-hooks' value; NULL: not its flag */
    /* The administrator's enforced spec is acceptable (CW_EINVAL naming the field). */
    int (*check_enforced)(json_object *enforced, cw_error *err);
    /* Fills what the kind reads besides the caches (in->dbrs, in->nab; the caller frees them). */
    int (*gather)(cw_shell *s, json_object *obj, cw_nac_input *in, cw_error *err);
    int (*decide)(const cw_nonadmin_config *cfg, const cw_nac_input *in, cw_nac_actions *out,
                  cw_error *err);
};

/* Informers, in this order. */
enum { CW_NACSHELL_OBJS, CW_NACSHELL_VELERO };

/* The descriptor's parts (controller/core/reconciler.h) every NonAdmin kind shares. */
int cw_nacshell_config(const cw_nacshell_kind *kind, void *cfg, cw_error *err);
void cw_nacshell_config_fini(void *cfg);
int cw_nacshell_reconcile(cw_shell *s, const char *key, cw_verdict *res, cw_error *err);
int cw_nacshell_obj_index(void *ud, json_object *obj, char *out, size_t outlen);
int cw_nacshell_velero_index(void *ud, json_object *obj, char *out, size_t outlen);
json_object *cw_nacshell_velero_slim(void *ud, json_object *obj);
/* The Velero objects' spec, a copy of a tenant's: never parsed (its length comes instead). */
extern const char *const cw_nacshell_velero_prune[];
/* The NonAdmin objects' cache: cw_nac_keep's projection, counted in the reconciler's state (a
 * cw_nac_share); a deleted object's bytes given back, its key queued. */
json_object *cw_nacshell_obj_keep(void *ud, json_object *obj);
void cw_nacshell_on_obj(void *ud, cw_informer_op op, const char *key, json_object *old,
                        json_object *obj);
int cw_nacshell_init(cw_shell *s, void **state, cw_error *err);
void cw_nacshell_fini(void *state);
void cw_nacshell_on_velero(void *ud, cw_informer_op op, const char *key, json_object *old,
                           json_object *obj);

/* Defines the descriptor `var_` of the NonAdmin kind for Velero's kind_ ("backup", and in
 * capitals "Backup"): reconciler "nonadmin<kind>" of NonAdmin<Kind>s, its Velero <kind>s, its flags
 * (--oadp-namespace, --enforce-<kind>-spec, --allowed-resource-policies, then own_row_: one row of
 * its own, or nothing), its functions; init_hooks_: the target of its --allow-restore-init-hooks
 * row, or NULL. Off by default: it replaces OADP's own non-admin
 * controller. */
#define CW_NACSHELL_RECONCILER(var_, kind_, Kind_, k_, check_, gather_, decide_, init_hooks_,      \
                               own_row_)                                                           \
    static char *var_##_file;                                                                      \
    static const cw_opt var_##_opts[] = {                                                          \
        CW_CTRL_OPT_OADP_NAMESPACE,                                                                \
        CW_OPT_STR("enforce-" kind_ "-spec", "FILE", &var_##_file, "",                             \
                   "nonadmin" kind_ ": a Velero " Kind_                                            \
                   "Spec (YAML) whose fields non-admin " kind_                                     \
                   "s may leave unset (they are filled in) or set to the same value"),             \
        CW_CTRL_OPT_ALLOWED_RESOURCE_POLICIES, own_row_};                                          \
    static const cw_nacshell_kind var_##_kind = {.k = (k_),                                        \
                                                 .name = "nonadmin" kind_,                         \
                                                 .flag = "--enforce-" kind_ "-spec",               \
                                                 .spec_file = &var_##_file,                        \
                                                 .allow_init_hooks = (init_hooks_),                \
                                                 .check_enforced = (check_),                       \
                                                 .gather = (gather_),                              \
                                                 .decide = (decide_)};                             \
    static int var_##_config(void *cfg, cw_error *err)                                             \
    {                                                                                              \
        return cw_nacshell_config(&var_##_kind, cfg, err);                                         \
    }                                                                                              \
    static const char *const var_##_prune[] = {"spec." kind_ "Spec", NULL};                        \
    static const cw_informer_def var_##_informers[] = {                                            \
        [CW_NACSHELL_OBJS] = {CW_INFORMER_RESOURCE("nonadmin" kind_ "s", "oadp.openshift.io",      \
                                                   "v1alpha1", "nonadmin" kind_ "s"),              \
                              .scope = CW_SHELL_ALL, .transform = cw_nacshell_obj_keep,            \
                              .prune = var_##_prune, .prune_over = CW_NAC_SPEC_MAX,                \
                              .page_size = CW_NACSHELL_PAGE, .index = cw_nacshell_obj_index,       \
                              .handler = cw_nacshell_on_obj},                                      \
        [CW_NACSHELL_VELERO] = {CW_INFORMER_RESOURCE("nonadmin-velero-" kind_ "s", "velero.io",    \
                                                     "v1", kind_ "s"),                             \
                                .transform = cw_nacshell_velero_slim,                              \
                                .prune = cw_nacshell_velero_prune, .prune_over = 0,                \
                                .index = cw_nacshell_velero_index,                                 \
                                .handler = cw_nacshell_on_velero},                                 \
    };                                                                                             \
    const cw_reconciler_ops var_ = {                                                               \
        CW_RECONCILER_NAMED("nonadmin" kind_, "nonadmin" kind_,                                    \
                            "update_status, patch_finalizers, create_velero, delete_velero, "      \
                            "delete_self, delete_nonadminrestore, create_deletebackuprequest, "    \
                            "delete_deletebackuprequest"),                                         \
        .summary = "runs OADP NonAdmin" Kind_ "s (replaces OADP's non-admin controller: "          \
                   "DataProtectionApplication spec.nonAdmin.enable false)",                        \
        CW_RECONCILER_TABLES(var_##_opts, var_##_informers),                                       \
        CW_RECONCILER_CONFIG(cw_nonadmin_config, var_##_config, cw_nacshell_config_fini),          \
        CW_RECONCILER_STATE(cw_nacshell_init, cw_nacshell_fini),                                   \
        .reconcile = cw_nacshell_reconcile}

/* For the kinds' gather: one object, NULL when it is not there. */
int cw_nacshell_get(cw_shell *s, const cw_kube_resource *r, const char *name, json_object **out,
                    cw_error *err);
cw_kube_resource cw_nacshell_velero(const char *plural, const char *ns);
cw_kube_resource cw_nacshell_oadp(const char *plural, const char *ns);

#endif
