/* A string-keyed hash map to size_t values (open addressing, keys copied). Used where the
 * planner needs O(1) lookups over hundreds of thousands of objects. */
#ifndef CW_STRMAP_H
#define CW_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct cw_strmap_slot {
    char *key; /* NULL: empty */
    size_t keylen;
    uint64_t hash;
    size_t value;
} cw_strmap_slot;

typedef struct cw_strmap {
    cw_strmap_slot *slots;
    size_t cap; /* power of two */
    size_t len;
} cw_strmap;

void cw_strmap_init(cw_strmap *m);
void cw_strmap_free(cw_strmap *m);
/* Finds key; returns 1 and *value when present. */
int cw_strmap_get(const cw_strmap *m, const char *key, size_t keylen, size_t *value);
/* Inserts key -> value unless present. Returns 1 when inserted, 0 when it existed (then *existing
 * holds its value), CW_ENOMEM on failure. */
int cw_strmap_put(cw_strmap *m, const char *key, size_t keylen, size_t value, size_t *existing);

#endif
