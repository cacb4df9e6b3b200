/* The backup-queue reconciler (`--controllers backup-queue`): its informers (Backups of Velero's
 * namespace, kept without the parts the queue does not read, indexed by namespace; Namespaces,
 * names only) around cw_bqctl_decide. The work-queue key is a Backup namespace (Velero's
 * namespace): one worker decides for all of its Backups at a time, from one snapshot of the cache,
 * and makes the writes in the decided order, each a merge patch conditional on the resourceVersion
 * decided on.
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

#include "velero/backupqueue.h"
#include "controller/core/reconciler.h"

/* Its config: its flags' values (--concurrent-backups, --queue-resync) and what config_init
 * derives from them and the shared --namespace. */
typedef struct cw_backupqueue_config {
    cw_reconciler_config head; /* home: Velero's namespace (--namespace; "": every one) */
    long long concurrent;      /* --concurrent-backups, as decide's */
    cw_bqctl_config decide;
    double resync; /* --queue-resync, seconds: each namespace decided again this often */
} cw_backupqueue_config;

/* Informers, in this order. */
enum { CW_BACKUPQUEUE_BACKUPS, CW_BACKUPQUEUE_NAMESPACES };

extern const cw_reconciler_ops cw_backupqueue_reconciler;

#endif
