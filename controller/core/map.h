/* A string-keyed hash map to borrowed pointers, with removal (lib/strmap has none): the
 * informer's cache and index and the work queue's per-key state. Not thread-safe; callers lock. */
#ifndef CW_CTRL_MAP_H
#define CW_CTRL_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct cw_ctrl_map_entry {
    struct cw_ctrl_map_entry *next;
    uint64_t hash;
    void *value;
    char key[]; /* NUL-terminated copy */
} cw_ctrl_map_entry;

typedef struct cw_ctrl_map {
    cw_ctrl_map_entry **buckets;
    size_t nbuckets; /* power of two, or 0 before the first insert */
    size_t len;
} cw_ctrl_map;

typedef void (*cw_ctrl_map_free_fn)(void *value);
/* Return non-zero to stop the walk. */
typedef int (*cw_ctrl_map_walk_fn)(void *ud, const char *key, void *value);

void cw_ctrl_map_init(cw_ctrl_map *m);
/* Frees the entries; values through free_value when it is not NULL. */
void cw_ctrl_map_free(cw_ctrl_map *m, cw_ctrl_map_free_fn free_value);
/* The value under key, or NULL. */
void *cw_ctrl_map_get(const cw_ctrl_map *m, const char *key);
int cw_ctrl_map_has(const cw_ctrl_map *m, const char *key);
/* Sets key to value. *old (may be NULL) receives the value it replaced, or NULL.
 * CW_OK or CW_ENOMEM (then the map is unchanged). */
int cw_ctrl_map_put(cw_ctrl_map *m, const char *key, void *value, void **old);
/* Removes key; returns its value (NULL when absent). */
void *cw_ctrl_map_del(cw_ctrl_map *m, const char *key);
/* Visits every entry in no particular order; the callback must not change the map. */
void cw_ctrl_map_walk(const cw_ctrl_map *m, cw_ctrl_map_walk_fn fn, void *ud);

#endif
