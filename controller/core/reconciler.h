/* What a reconciler is to the controller's machinery. Each reconciler (controller/<kind>_apply.c)
 * exports one cw_reconciler_ops; controller/reconcilers.c lists them, and `--controllers` picks
 * the ones a process runs. For each enabled reconciler the manager makes a work queue and a worker
 * pool of its own (so one reconciler's backlog never delays another's), gates the workers on
 * leadership and on the reconciler's own caches, and calls enqueue_all at every new leader term
 * and every resync. A reconciler that is not enabled is never created: it watches nothing. */
#ifndef CW_CTRL_RECONCILER_H
#define CW_CTRL_RECONCILER_H

#include <stddef.h>

#include "controller/core/informer.h"
#include "controller/core/queue.h"
#include "controller/core/workers.h"
#include "lib/error.h"
#include "lib/metrics.h"

struct cw_ctrl_config;

/* What the manager hands a reconciler when it creates it; everything is borrowed and outlives
 * the reconciler. */
typedef struct cw_reconciler_env {
    const struct cw_ctrl_config *cfg;            /* the process configuration */
    cw_queue *queue;                             /* this reconciler's own work queue */
    cw_metrics *metrics;                         /* register the reconciler's families here */
    const cw_informer_metrics *informer_metrics; /* for its informers */
} cw_reconciler_env;

typedef struct cw_reconciler_ops {
    const char *name; /* `--controllers` name, logs, metrics' controller label */
    const char
        *summary; /* one line: what it keeps right and which upstream controller it replaces */
    int default_enabled; /* 1: runs when --controllers is not given (it fights no upstream
                            controller) */
    int (*create)(const cw_reconciler_env *env, void **self, cw_error *err);
    int (*start)(void *self, cw_error *err); /* its informers */
    /* 1 when its caches are filled; else 0 with why (for /readyz). */
    int (*synced)(void *self, char *why, size_t whylen);
    int (*enqueue_all)(void *self); /* every key it owns, once */
    cw_ctrl_reconcile_fn reconcile; /* ud is self */
    void (*tick)(void *self);       /* may be NULL: housekeeping about once a second */
    void (*stop)(void *self);       /* its informers; the workers are already stopped */
    void (*destroy)(void *self);    /* frees what create made; self may be NULL */
} cw_reconciler_ops;

/* Every reconciler this binary has, NULL-terminated (controller/reconcilers.c). */
extern const cw_reconciler_ops *const cw_reconcilers[];

#define CW_RECONCILERS_MAX 16

/* The reconcilers of `all` (NULL-terminated; the process passes cw_reconcilers) that `spec`
 * selects, in their order, into out (room for
 * CW_RECONCILERS_MAX), *n set to their number. spec is kube-controller-manager's form: a comma
 * list of names, `*` for all of them, `-name` to leave one out; NULL or "" means the defaults.
 * Unknown names and an empty result are CW_EINVAL with a message naming the known ones. */
int cw_reconcilers_select(const cw_reconciler_ops *const *all, const char *spec,
                          const cw_reconciler_ops **out, size_t *n, cw_error *err) CW_MUST_CHECK;
/* "schedule, recurringjob, ..." (every name, in order) into buf. */
void cw_reconcilers_names(const cw_reconciler_ops *const *all, char *buf, size_t len,
                          int defaults_only);

#endif
