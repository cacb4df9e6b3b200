/* The planner's item store: one serialized record per planned object in an unlinked temporary
 * file, and in memory only a compact entry per record (key hash, file offset, length and three
 * small tags), so that a 100,000-volume plan holds a few bytes per volume, not the volumes.
 *
 * The file lives in $TMPDIR (default /tmp) and vanishes with the process. Records are opaque
 * bytes here; migrate/plan_items.c encodes cw_plan_item into them. A record rewritten with more
 * bytes moves to the end of the file (the old bytes stay as garbage: a plan rewrites each item a
 * few times at most). Raw regions (cw_itemstore_reserve) hold other scratch data such as sort
 * runs. The record calls take the store's mutex: the online applier loads and stores from a
 * pool. Lookups (cw_itemstore_find) and the scratch regions are for one thread at a time. */
#ifndef CW_ITEMSTORE_H
#define CW_ITEMSTORE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/error.h"

typedef struct cw_itemstore_entry {
    uint64_t hash;  /* of the record's key (the caller's choice of key) */
    uint64_t off;   /* where the record's bytes are in the file */
    uint32_t len;   /* how many */
    uint8_t tag;    /* caller's small values kept in memory (kind, action, result) */
    uint8_t action; /* ... so that counting and filtering need no read */
    uint8_t result;
    uint8_t flags; /* the caller's bits */
} cw_itemstore_entry;

typedef struct cw_itemstore {
    int fd;       /* -1: the records are in `mem` */
    cw_buf mem;   /* the "file" of a store kept in memory (a plan of one object) */
    char *dir;    /* for error messages */
    uint64_t end; /* file size: where the next appended bytes go */
    cw_itemstore_entry *entries;
    size_t n, cap;
    /* Record indices ordered by hash: [0, nsorted) covers records [0, nsorted); newer records
     * (the tail) are scanned until there are enough of them to merge in. */
    uint32_t *by_hash;
    size_t nsorted, capsorted;
    /* Allocated: a plan (and its store) is copied by value when gather swaps in a fresh one, and a
     * pthread mutex must not be copied. */
    pthread_mutex_t *mu;
} cw_itemstore;

/* dir NULL: $TMPDIR, else /tmp. Fails with a message naming the directory when no file can be
 * created there. dir "": the bytes stay in memory (for plans of a few objects, such as the
 * controller's, which runs with a read-only root filesystem and no scratch directory). */
int cw_itemstore_init(cw_itemstore *s, const char *dir, cw_error *err) CW_MUST_CHECK;
void cw_itemstore_free(cw_itemstore *s);

/* The 64-bit hash cw_itemstore uses for keys (XXH64, seed 0). */
uint64_t cw_itemstore_hash(const void *key, size_t len);

/* Appends a record; its index is the number of records before it. */
int cw_itemstore_add(cw_itemstore *s, uint64_t hash, uint8_t tag, const void *data, size_t len,
                     cw_error *err) CW_MUST_CHECK;
/* Replaces record i's bytes. */
int cw_itemstore_put(cw_itemstore *s, size_t i, const void *data, size_t len,
                     cw_error *err) CW_MUST_CHECK;
/* Record i's bytes into out (reset first). */
int cw_itemstore_get(cw_itemstore *s, size_t i, cw_buf *out, cw_error *err) CW_MUST_CHECK;

/* Record i's in-memory entry (a copy: the array may move while records are added). */
cw_itemstore_entry cw_itemstore_entry_at(cw_itemstore *s, size_t i);
void cw_itemstore_set_tags(cw_itemstore *s, size_t i, uint8_t action, uint8_t result,
                           uint8_t flags);

/* The first record with this hash for which match(ud, i) says 1, or -1. match may call
 * cw_itemstore_get. Not concurrently with cw_itemstore_add (the planner adds, then looks up). */
long cw_itemstore_find(cw_itemstore *s, uint64_t hash, int (*match)(void *ud, size_t i), void *ud);

/* Scratch bytes in the same file, outside any record. */
int cw_itemstore_reserve(cw_itemstore *s, uint64_t len, uint64_t *off, cw_error *err) CW_MUST_CHECK;
int cw_itemstore_write_at(cw_itemstore *s, uint64_t off, const void *data, size_t len,
                          cw_error *err) CW_MUST_CHECK;
int cw_itemstore_read_at(cw_itemstore *s, uint64_t off, void *data, size_t len,
                         cw_error *err) CW_MUST_CHECK;

#endif
