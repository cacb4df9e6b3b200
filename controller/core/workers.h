/* N worker threads taking keys from a work queue and reconciling them, only while the gate
 * (leader and caches synced) is open. A key is in one worker's hands at a time (the queue sees to
 * it). After a reconcile: failure with retry -> again after the key's backoff; otherwise the
 * backoff is forgotten and the key comes back at the requested time, if any. */
#ifndef CW_CTRL_WORKERS_H
#define CW_CTRL_WORKERS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "controller/core/queue.h"
#include "lib/error.h"
#include "lib/metrics.h"

typedef struct cw_ctrl_result {
    int64_t requeue_at_ms; /* wall-clock ms to reconcile the key again; 0: not on a timer */
    int retry;             /* 1: the attempt failed and is worth repeating after a backoff */
    const char *outcome;   /* metrics label of what happened ("submitted", ...); NULL: "error"
                              when the reconcile failed, else "ok" */
} cw_ctrl_result;

typedef int (*cw_ctrl_reconcile_fn)(void *ud, const char *key, cw_ctrl_result *res, cw_error *err);
/* 1 when workers may take keys (leading and caches synced). */
typedef int (*cw_ctrl_gate_fn)(void *ud);

typedef struct cw_ctrl_workers_config {
    const char *name; /* "schedule": logs and the metrics' controller label */
    size_t count;     /* threads; 0: 1 */
    cw_queue *queue;  /* borrowed */
    cw_ctrl_reconcile_fn reconcile;
    void *ud;
    cw_ctrl_gate_fn gate; /* NULL: always open */
    void *gate_ud;
    cw_metric *m_reconciles; /* counter {controller,outcome} (may be NULL) */
    cw_metric *m_duration;   /* histogram {controller} (may be NULL) */
} cw_ctrl_workers_config;

typedef struct cw_ctrl_workers {
    cw_ctrl_workers_config cfg;
    pthread_t *threads;
    size_t started;
    atomic_int stop;
    atomic_int busy; /* reconciles in progress */
} cw_ctrl_workers;

void cw_ctrl_workers_init(cw_ctrl_workers *w);
int cw_ctrl_workers_start(cw_ctrl_workers *w, const cw_ctrl_workers_config *cfg,
                          cw_error *err) CW_MUST_CHECK;
/* Lets the reconciles in progress finish, then joins the threads. Shuts the queue down. */
void cw_ctrl_workers_stop(cw_ctrl_workers *w);
void cw_ctrl_workers_free(cw_ctrl_workers *w);
/* Applies a reconcile's result to the queue (what a worker does after each key). */
void cw_ctrl_workers_settle(cw_queue *q, const char *key, int rc, const cw_ctrl_result *res);

#endif
