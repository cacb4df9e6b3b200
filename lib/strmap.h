/* The string-keyed hash map: open addressing with linear probing, XXH3 hashes, keys copied,
 * values borrowed pointers (the planner stores indices as (void *)(uintptr_t)i). Removal shifts
 * the following entries back, so there are no tombstones and lookups stay short under churn (the
 * controller's cache and work queue add and remove keys all day). Not thread-safe: callers lock.
 * Keys are byte strings of a given length; the `_s` forms take NUL-terminated keys. */
#ifndef CW_STRMAP_H
#define CW_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct cw_strmap_slot {
    char *key; /* NULL: empty; a NUL-terminated copy */
    size_t keylen;
    uint64_t hash;
    void *value;
} cw_strmap_slot;

typedef struct cw_strmap {
    cw_strmap_slot *slots;
    size_t cap; /* power of two, or 0 before the first insert */
    size_t len;
} cw_strmap;

typedef void (*cw_strmap_free_fn)(void *value);
/* Return non-zero to stop the walk. */
typedef int (*cw_strmap_walk_fn)(void *ud, const char *key, void *value);

void cw_strmap_init(cw_strmap *m);
/* Frees the keys; values through free_value when it is not NULL. */
void cw_strmap_free(cw_strmap *m, cw_strmap_free_fn free_value);
/* 1 and *value (may be NULL) when key is present, else 0. */
int cw_strmap_get(const cw_strmap *m, const char *key, size_t keylen, void **value);
/* Inserts key -> value unless key is present: 1 inserted, 0 present (*existing, may be NULL,
 * gets its value), CW_ENOMEM (the map is unchanged). */
int cw_strmap_put(cw_strmap *m, const char *key, size_t keylen, void *value, void **existing);
/* Sets key to value, replacing: *old (may be NULL) gets the value replaced, or NULL. CW_OK or
 * CW_ENOMEM (the map is unchanged). */
int cw_strmap_set(cw_strmap *m, const char *key, size_t keylen, void *value, void **old);
/* Removes key: 1 and *value (may be NULL) when it was present, else 0. */
int cw_strmap_del(cw_strmap *m, const char *key, size_t keylen, void **value);
/* Every entry in no particular order; the callback must not change the map. */
void cw_strmap_walk(const cw_strmap *m, cw_strmap_walk_fn fn, void *ud);

/* NUL-terminated keys: the value under key or NULL; whether key is present; set; remove
 * (returning the removed value or NULL). */
void *cw_strmap_get_s(const cw_strmap *m, const char *key);
int cw_strmap_has_s(const cw_strmap *m, const char *key);
int cw_strmap_set_s(cw_strmap *m, const char *key, void *value, void **old);
void *cw_strmap_del_s(cw_strmap *m, const char *key);

#endif
