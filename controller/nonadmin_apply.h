/* What the NonAdminBackup and NonAdminRestore reconcilers share: two informers (the NonAdmin
 * objects in every namespace; the Velero objects of their kind in the OADP namespace, without
 * their spec) and one reconcile: read the caches (and the API where a cache may lag: the Velero
 * object named by a recorded nacuuid), gather what the kind needs, decide, write in the order the
 * decision needs, every write conditional. Each reconciler (nonadminbackup_apply.c,
 * nonadminrestore_apply.c) is a cw_nacshell_kind and a plain descriptor over these parts.
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
 * administrator's policy (--allowed-resource-policies; a restore's --allow-restore-init-hooks,
 * parsed into policy). */
typedef struct cw_nonadmin_config {
    cw_reconciler_config head; /* home: the OADP namespace */
    const cw_nacshell_kind *kind;
    char *enforce_file;    /* its --enforce-*-spec ("": none) */
    json_object *enforced; /* the administrator's enforced spec (owned), or NULL */
    cw_nac_policy policy;  /* its list borrowed from the shared flags */
} cw_nonadmin_config;

struct cw_nacshell_kind {
    const cw_nac_kind *k;
    const char *name; /* "nonadminbackup": logs, failpoints (<name>-create) */
    const char *flag; /* "--enforce-backup-spec" (its value: the config's enforce_file) */
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
int cw_nacshell_config(const cw_nacshell_kind *kind, void *cfg, const cw_ctrl_flags *f,
                       cw_error *err);
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

/* The descriptor's shared fields, for each kind's plain cw_reconciler_ops and informer rows
 * (controller/nonadminbackup_apply.c, nonadminrestore_apply.c): its write verbs; the row of its
 * NonAdmin objects (every namespace, kept by cw_nac_keep, prune_ their tenant's spec) and of its
 * Velero objects (the OADP namespace, without their spec). */
#define CW_NACSHELL_VERBS                                                                          \
    "update_status, patch_finalizers, create_velero, delete_velero, delete_self, "                 \
    "delete_nonadminrestore, create_deletebackuprequest, delete_deletebackuprequest"
#define CW_NACSHELL_OBJS_ROW(prune_)                                                               \
    .scope = CW_SHELL_ALL, .transform = cw_nacshell_obj_keep, .prune = (prune_),                   \
    .prune_over = CW_NAC_SPEC_MAX, .page_size = CW_NACSHELL_PAGE, .index = cw_nacshell_obj_index,  \
    .handler = cw_nacshell_on_obj
#define CW_NACSHELL_VELERO_ROW                                                                     \
    .transform = cw_nacshell_velero_slim, .prune = cw_nacshell_velero_prune, .prune_over = 0,      \
    .index = cw_nacshell_velero_index, .handler = cw_nacshell_on_velero

/* For the kinds' gather: one object, NULL when it is not there. */
int cw_nacshell_get(cw_shell *s, const cw_kube_resource *r, const char *name, json_object **out,
                    cw_error *err);
cw_kube_resource cw_nacshell_velero(const char *plural, const char *ns);
cw_kube_resource cw_nacshell_oadp(const char *plural, const char *ns);

#endif
