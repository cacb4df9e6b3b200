/* N worker threads taking keys from a work queue and reconciling them, only while the gate
 * (leader and caches synced) is open. A key is in one worker's hands at a time (the queue sees to
 * it). After a reconcile its verdict (controller/core/verdict.h) is counted and settles the key in
 * the queue; a failure is logged. */
#ifndef CW_CTRL_WORKERS_H
#define CW_CTRL_WORKERS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "controller/core/queue.h"
#include "controller/core/verdict.h"
#include "lib/error.h"
#include "lib/metrics.h"

/* One key: CW_OK, or the failure (its verdict backoff or wait), with the verdict in *v (zeroed
 * before the call). */
typedef int (*cw_ctrl_reconcile_fn)(void *ud, const char *key, cw_verdict *v, cw_error *err);
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
/* What a worker does after each key: counts the reconcile in m_reconciles{controller,outcome}
 * (cw_verdict_outcome) and its time in m_duration, logs a failure (rc, err), and settles key in
 * the queue (cw_verdict_settle). took: seconds. */
void cw_ctrl_workers_finish(const cw_ctrl_workers_config *c, const char *key, int rc,
                            const cw_verdict *v, double took, const cw_error *err);

#endif
