/* The backup-queue reconciler: its informers (Backups, kept without the parts the queue does not
 * read, indexed by namespace; Namespaces, names only) and the thin I/O shell around
 * cw_bqctl_decide. The work-queue key is a Backup namespace (Velero's namespace): one worker
 * decides for all of its Backups at a time, from one snapshot of the cache, and makes the writes
 * in the decided order, each a merge patch conditional on the resourceVersion decided on.
 *
 * Read-your-writes fence: a Backup written is remembered with the version it had before the write
 * until the cache holds another version (the write's, or a later one); until then the namespace
 * is not decided again, so a decision never counts "running" from a cache that has not seen this
 * process's own dequeue. The fence only delays; it is never consulted for what to decide, and a
 * new process starts without one from a freshly listed cache. A 409 fences the Backup the same
 * way (the server holds a newer version), so the next decision is made from a fresh snapshot.
 *
 * Releases come before renumbering, and a long renumbering gives way: when a slot comes free
 * meanwhile, the reconcile stops and decides again at once (the remaining positions are written
 * by that decision). */
#ifndef CW_BQCTL_APPLY_H
#define CW_BQCTL_APPLY_H

#include <pthread.h>
#include <stdatomic.h>

#include "controller/backupqueue.h"
#include "controller/backupqueue_fence.h"
#include "controller/core/informer.h"
#include "controller/core/queue.h"
#include "controller/core/reconciler.h"
#include "controller/core/workers.h"
#include "kube/client.h"
#include "lib/metrics.h"
#include "lib/strmap.h"

typedef struct cw_bqctl_opts {
    cw_kube_client *kube;   /* borrowed */
    const char *namespace;  /* Velero's namespace; NULL or "": every namespace */
    cw_queue *queue;        /* borrowed: namespace keys go here */
    cw_bqctl_config decide; /* --concurrent-backups */
    double resync;          /* --queue-resync, seconds: each namespace decided again this often */
    cw_metrics *metrics;    /* borrowed: the reconciler's families are registered here */
    const cw_informer_metrics *informer_metrics; /* may be NULL */
    long page_size;                              /* LIST page size; 0: 500 */
    cw_queue_clock_fn clock;                     /* wall-clock ms; NULL: CLOCK_REALTIME */
    void *clock_ud;
} cw_bqctl_opts;

typedef struct cw_bqctl {
    cw_bqctl_opts o;
    cw_informer backups, namespaces;
    int backups_ok, namespaces_ok;
    cw_bqfence mem;       /* the fence, the Waiting Events posted (backupqueue_fence.h) */
    atomic_ulong freed;   /* Backups that left InProgress/ReadyToStart, Namespace changes: a
                             renumbering in progress stops for a new decision when it moves */
    cw_metric *m_writes;  /* cronwarden_controller_backupqueue_writes_total{verb,result} */
    cw_metric *m_queued;  /* cronwarden_controller_backupqueue_queued{namespace} */
    cw_metric *m_running; /* cronwarden_controller_backupqueue_running{namespace} */
    cw_metric *m_wait;    /* cronwarden_controller_backupqueue_wait_seconds{namespace} */
} cw_bqctl;

int cw_bqctl_init(cw_bqctl *s, const cw_bqctl_opts *o, cw_error *err) CW_MUST_CHECK;
void cw_bqctl_free(cw_bqctl *s);
int cw_bqctl_start(cw_bqctl *s, cw_error *err) CW_MUST_CHECK;
void cw_bqctl_stop(cw_bqctl *s);
/* Adds every namespace that has Backups to the queue (a new leader term, the resync). */
int cw_bqctl_enqueue_all(cw_bqctl *s);
/* The reconcile of one namespace key (a cw_ctrl_reconcile_fn; ud is the cw_bqctl). */
int cw_bqctl_reconcile(void *ud, const char *key, cw_ctrl_result *res, cw_error *err) CW_MUST_CHECK;

/* The reconciler `--controllers backup-queue` runs (controller/reconcilers.c). */
extern const cw_reconciler_ops cw_backupqueue_reconciler;

#endif
