/* What the backup-queue reconciler remembers between reconciles, none of it used to decide:
 *   - the read-your-writes fence: each Backup this process wrote, with the resourceVersion it had
 *     before the write, until the informer's cache holds another version (the write's, or a later
 *     one). A namespace is not decided again while one of its Backups is fenced, so a decision
 *     never counts "running" from a cache that has not seen this process's own release. A 409
 *     fences the Backup the same way (the server holds a newer version).
 *   - the blocker each queued Backup's last Waiting Event named (one Event per blocker).
 * Keys are "namespace/name". Thread-safe (one mutex); the workers of different namespaces share
 * it. */
#ifndef CW_BQFENCE_H
#define CW_BQFENCE_H

#include <pthread.h>
#include <stddef.h>

#include "controller/core/store.h"
#include "lib/error.h"
#include "lib/strmap.h"

typedef struct cw_bqfence {
    pthread_mutex_t mu;
    cw_strmap fence;  /* "ns/name" -> the resourceVersion before this process wrote it (owned) */
    cw_strmap posted; /* "ns/name" -> the blocker its last Waiting Event named (owned) */
} cw_bqfence;

void cw_bqfence_init(cw_bqfence *s);
void cw_bqfence_free(cw_bqfence *s);
/* How many Backups of ns the cache still holds at the version they had before this process
 * wrote them; the others leave the fence (also those gone from the cache). */
size_t cw_bqfence_pending(cw_bqfence *s, cw_ctrl_store *cache, const char *ns);
/* Fences ns/name at rv (the version decided on) before it is written. CW_ENOMEM. */
int cw_bqfence_set(cw_bqfence *s, const char *ns, const char *name, const char *rv);
/* The write failed without changing the Backup: nothing to wait for. */
void cw_bqfence_drop(cw_bqfence *s, const char *ns, const char *name);
/* 1 when no Waiting Event named this blocker for ns/name yet (and records it). */
int cw_bqfence_first_wait(cw_bqfence *s, const char *ns, const char *name, const char *blocker);
/* Forgets the Waiting Events of ns's Backups that are no longer Queued (by_name: name -> the
 * Backup in the current snapshot). */
void cw_bqfence_prune(cw_bqfence *s, const char *ns, const cw_strmap *by_name);

#endif
