/* The I/O shell the NonAdminBackup and NonAdminRestore reconcilers share: two informers (the
 * NonAdmin objects in every namespace; the Velero objects of their kind in the OADP namespace,
 * without their spec) and one reconcile: read the caches (and the API where a cache may lag: the
 * Velero object named by a recorded nacuuid), gather what the kind needs, decide, write in the
 * order the decision needs, every write conditional. Each reconciler (nonadminbackup_apply.c,
 * nonadminrestore_apply.c) is a cw_nacshell_kind and its cw_reconciler_ops. docs/controller.md. */
#ifndef CW_NACSHELL_H
#define CW_NACSHELL_H

#include "controller/core/informer.h"
#include "controller/core/reconciler.h"
#include "controller/nonadmin.h"
#include "kube/client.h"
#include "lib/metrics.h"

typedef struct cw_nacshell cw_nacshell;

typedef struct cw_nacshell_kind {
    const cw_nac_kind *k;
    const char *plural;        /* "nonadminbackups" */
    const char *velero_plural; /* "backups" */
    const char *name;          /* "nonadminbackup": logs, metrics, failpoints (<name>-create) */
    const char *velero_informer;
    const char *writes_metric; /* cronwarden_controller_<name>_writes_total */
    /* The administrator's enforced spec is acceptable (CW_EINVAL naming the field). */
    int (*check_enforced)(json_object *enforced, cw_error *err);
    /* Fills what the kind reads besides the caches (in->dbrs, in->nab; the caller frees them). */
    int (*gather)(cw_nacshell *s, json_object *obj, cw_nac_input *in, cw_error *err);
    int (*decide)(cw_nacshell *s, const cw_nac_input *in, cw_nac_actions *out, cw_error *err);
} cw_nacshell_kind;

struct cw_nacshell {
    const cw_nacshell_kind *kind;
    cw_kube_client *kube;
    cw_queue *queue;
    const char *oadp;      /* the OADP namespace */
    json_object *enforced; /* borrowed; NULL: none */
    cw_informer objs, velero;
    int objs_ok, velero_ok;
    cw_metric *m_writes; /* {verb,result} */
};

/* The manager's hooks (controller/core/reconciler.h), for a kind. */
int cw_nacshell_create(const cw_nacshell_kind *kind, json_object *enforced,
                       const cw_reconciler_env *env, void **self, cw_error *err);
int cw_nacshell_start(void *self, cw_error *err);
int cw_nacshell_synced(void *self, char *why, size_t whylen);
int cw_nacshell_enqueue_all(void *self);
int cw_nacshell_reconcile(void *ud, const char *key, cw_ctrl_result *res, cw_error *err);
void cw_nacshell_stop(void *self);
void cw_nacshell_destroy(void *self);

/* The cw_reconciler_ops of a NonAdmin kind: its name, summary and create (which calls
 * cw_nacshell_create with the kind and its enforced spec); off by default (they replace OADP's own
 * non-admin controller). */
#define CW_NACSHELL_OPS(name_, summary_, create_)                                                  \
    {                                                                                              \
        .name = (name_), .summary = (summary_), .default_enabled = 0, .create = (create_),         \
        .start = cw_nacshell_start, .synced = cw_nacshell_synced,                                  \
        .enqueue_all = cw_nacshell_enqueue_all, .reconcile = cw_nacshell_reconcile,                \
        .stop = cw_nacshell_stop, .destroy = cw_nacshell_destroy,                                  \
    }

/* Helpers for the kinds' gather: the objects of r with a label selector (NULL: all) as a JSON
 * array (caller's); one object, NULL when it is not there. */
int cw_nacshell_list(cw_nacshell *s, const cw_kube_resource *r, const char *selector,
                     json_object **out, cw_error *err);
int cw_nacshell_get(cw_nacshell *s, const cw_kube_resource *r, const char *name, json_object **out,
                    cw_error *err);
cw_kube_resource cw_nacshell_velero(const char *plural, const char *ns);
cw_kube_resource cw_nacshell_oadp(const char *plural, const char *ns);

#endif
