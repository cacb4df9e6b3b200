/* The Velero backup queue's decision (Velero 1.18's backup-queue controller): a pure function of
 * one namespace's Backups (the informer's snapshot), the live Namespaces, the configuration and
 * "now", returning every write that brings the namespace's queue to where it should be. Nothing
 * is remembered between decisions: "running" is counted from the Backups each time.
 *
 *   running  = Backups InProgress or ReadyToStart
 *   queue    = Backups Queued, in order of status.queuePosition (then creation, then name; a
 *              Queued Backup without a position goes last)
 *   for each queued B in order: B is dequeued (-> ReadyToStart, position 0) when
 *     running < concurrency, and B's namespaces (backupqueue_ns.h) overlap no running Backup's
 *     and no queued Backup's ahead of B; a dequeued B counts as running for those behind it. The
 *     first runnable one always goes first (so no Backup ahead of B is itself runnable).
 *   the Backups left Queued are renumbered 1..n in order (only changed positions are written);
 *   Backups with no phase or New -> Queued, positions n+1.. in order of creation (then name).
 *
 * Writes come in the order they are to be made: every dequeue, then the renumbering (ascending),
 * then the new Backups. Each is a merge patch of spec-less status carrying the resourceVersion
 * decided on (the CRD has no status subresource), so it fails with 409 when the Backup moved on.
 * docs/controller.md, section backup-queue. */
#ifndef CW_BQCTL_H
#define CW_BQCTL_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/strlist.h"

typedef struct cw_bqctl_config {
    int64_t concurrency; /* --concurrent-backups; below 1 counts as 1 */
} cw_bqctl_config;

typedef enum {
    CW_BQCTL_DEQUEUE,  /* Queued -> ReadyToStart, queuePosition 0 */
    CW_BQCTL_RENUMBER, /* a Queued Backup's position changes */
    CW_BQCTL_ENQUEUE,  /* no phase or New -> Queued at a position */
} cw_bqctl_kind;

/* Strings are borrowed from the backups array given to cw_bqctl_decide: keep it while the
 * actions are used. A decision builds no JSON (a long queue renumbers thousands of Backups);
 * cw_bqctl_write_patch makes each write's body when it is sent. */
typedef struct cw_bqctl_write {
    cw_bqctl_kind kind;
    const char *name;
    const char *resource_version; /* the version decided on; the patch carries it ("" if none) */
    int64_t position;             /* the new queuePosition (0 for a dequeue) */
    int64_t old_position;         /* what it was (0: none) */
    double waited;                /* DEQUEUE: seconds since the Backup was created */
} cw_bqctl_write;

/* A queued Backup held back by another one whose namespaces overlap. */
typedef struct cw_bqctl_wait {
    const char *name;
    const char *blocker; /* the Backup ahead of it (running, or queued ahead) */
    char *namespace;     /* one namespace they share (owned) */
} cw_bqctl_wait;

typedef struct cw_bqctl_actions {
    cw_bqctl_write *writes;
    size_t nwrites, capwrites;
    size_t ndequeues; /* the first ndequeues writes are the dequeues */
    cw_bqctl_wait *waits;
    size_t nwaits, capwaits;
    size_t queued;      /* Queued once the writes are made */
    size_t running;     /* InProgress + ReadyToStart once the writes are made */
    cw_strlist refused; /* "<backup>: <why>" for Backups whose namespaces could not be read */
} cw_bqctl_actions;

void cw_bqctl_actions_init(cw_bqctl_actions *a);
void cw_bqctl_actions_free(cw_bqctl_actions *a);

/* backups: a JSON array of one namespace's Backups (metadata.name, resourceVersion,
 * creationTimestamp; spec.includedNamespaces/excludedNamespaces; status.phase, queuePosition;
 * NULL: none). namespaces: the live Namespaces' names. now_ms: wall-clock ms (wait times).
 * CW_EINVAL (err names it) for a Backup without metadata.name; CW_ENOMEM. */
int cw_bqctl_decide(json_object *backups, const cw_strlist *namespaces, const cw_bqctl_config *cfg,
                    int64_t now_ms, cw_bqctl_actions *out, cw_error *err) CW_MUST_CHECK;

/* The merge patch of a write into *out (caller's): metadata.resourceVersion, and status.phase
 * (ReadyToStart, Queued; not for a renumbering) and status.queuePosition. CW_ENOMEM. */
int cw_bqctl_write_patch(const cw_bqctl_write *w, json_object **out, cw_error *err) CW_MUST_CHECK;

/* 1 for the phases that count as running: InProgress, ReadyToStart. */
int cw_bqctl_running(const char *phase);
/* 1 for the phases the queue takes in: none yet (absent or ""), New. */
int cw_bqctl_new(const char *phase);
const char *cw_bqctl_kind_name(cw_bqctl_kind k);

#endif
