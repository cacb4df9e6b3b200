#include "lib/strmap.h"
#include "lib/error.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

void cw_strmap_init(cw_strmap *m)
{
    m->slots = NULL;
    m->cap = 0;
    m->len = 0;
}

void cw_strmap_free(cw_strmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].key);
    free(m->slots);
    cw_strmap_init(m);
}

static size_t find(const cw_strmap *m, const char *key, size_t keylen, uint64_t h)
{
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        const cw_strmap_slot *s = &m->slots[i];
        if (!s->key || (s->hash == h && s->keylen == keylen && memcmp(s->key, key, keylen) == 0))
            return i;
    }
}

int cw_strmap_get(const cw_strmap *m, const char *key, size_t keylen, size_t *value)
{
    if (!m->cap)
        return 0;
    uint64_t h = XXH3_64bits(key, keylen);
    const cw_strmap_slot *s = &m->slots[find(m, key, keylen, h)];
    if (!s->key)
        return 0;
    *value = s->value;
    return 1;
}

static int grow(cw_strmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    cw_strmap_slot *slots = calloc(cap, sizeof(*slots));
    if (!slots)
        return CW_ENOMEM;
    cw_strmap old = *m;
    m->slots = slots;
    m->cap = cap;
    for (size_t i = 0; i < old.cap; i++)
        if (old.slots[i].key)
            m->slots[find(m, old.slots[i].key, old.slots[i].keylen, old.slots[i].hash)] =
                old.slots[i];
    free(old.slots);
    return CW_OK;
}

int cw_strmap_put(cw_strmap *m, const char *key, size_t keylen, size_t value, size_t *existing)
{
    if ((m->len + 1) * 4 > m->cap * 3 && grow(m) != CW_OK)
        return CW_ENOMEM;
    uint64_t h = XXH3_64bits(key, keylen);
    cw_strmap_slot *s = &m->slots[find(m, key, keylen, h)];
    if (s->key) {
        if (existing)
            *existing = s->value;
        return 0;
    }
    char *k = malloc(keylen + 1);
    if (!k)
        return CW_ENOMEM;
    memcpy(k, key, keylen);
    k[keylen] = '\0';
    *s = (cw_strmap_slot){k, keylen, h, value};
    m->len++;
    return 1;
}
