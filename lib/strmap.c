#include "lib/strmap.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "lib/error.h"

void cw_strmap_init(cw_strmap *m)
{
    memset(m, 0, sizeof(*m));
}

void cw_strmap_free(cw_strmap *m, cw_strmap_free_fn free_value)
{
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].key)
            continue;
        if (free_value)
            free_value(m->slots[i].value);
        free(m->slots[i].key);
    }
    free(m->slots);
    cw_strmap_init(m);
}

/* The slot holding key, or the empty slot where it would go. The table is never full. */
static size_t find(const cw_strmap *m, const char *key, size_t keylen, uint64_t h)
{
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        const cw_strmap_slot *s = &m->slots[i];
        if (!s->key || (s->hash == h && s->keylen == keylen && memcmp(s->key, key, keylen) == 0))
            return i;
    }
}

int cw_strmap_get(const cw_strmap *m, const char *key, size_t keylen, void **value)
{
    if (!m->cap)
        return 0;
    const cw_strmap_slot *s = &m->slots[find(m, key, keylen, XXH3_64bits(key, keylen))];
    if (!s->key)
        return 0;
    if (value)
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

/* The slot of key, inserting an entry with a NULL value when it is absent (*added = 1). */
static int slot_of(cw_strmap *m, const char *key, size_t keylen, cw_strmap_slot **out, int *added)
{
    *added = 0;
    if ((m->len + 1) * 4 > m->cap * 3 && grow(m) != CW_OK)
        return CW_ENOMEM;
    uint64_t h = XXH3_64bits(key, keylen);
    cw_strmap_slot *s = &m->slots[find(m, key, keylen, h)];
    if (!s->key) {
        char *k = malloc(keylen + 1);
        if (!k)
            return CW_ENOMEM;
        memcpy(k, key, keylen);
        k[keylen] = '\0';
        *s = (cw_strmap_slot){.key = k, .keylen = keylen, .hash = h};
        m->len++;
        *added = 1;
    }
    *out = s;
    return CW_OK;
}

int cw_strmap_put(cw_strmap *m, const char *key, size_t keylen, void *value, void **existing)
{
    cw_strmap_slot *s;
    int added;
    if (slot_of(m, key, keylen, &s, &added) != CW_OK)
        return CW_ENOMEM;
    if (!added) {
        if (existing)
            *existing = s->value;
        return 0;
    }
    s->value = value;
    return 1;
}

int cw_strmap_set(cw_strmap *m, const char *key, size_t keylen, void *value, void **old)
{
    cw_strmap_slot *s;
    int added;
    if (slot_of(m, key, keylen, &s, &added) != CW_OK)
        return CW_ENOMEM;
    if (old)
        *old = added ? NULL : s->value;
    s->value = value;
    return CW_OK;
}

int cw_strmap_del(cw_strmap *m, const char *key, size_t keylen, void **value)
{
    if (!m->cap)
        return 0;
    size_t mask = m->cap - 1, i = find(m, key, keylen, XXH3_64bits(key, keylen));
    if (!m->slots[i].key)
        return 0;
    if (value)
        *value = m->slots[i].value;
    free(m->slots[i].key);
    /* Backward shift: move each following entry of the run into the hole when its home slot
     * does not lie (cyclically) between the hole and itself. */
    for (size_t j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
        size_t home = (size_t)m->slots[j].hash & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i] = (cw_strmap_slot){0};
    m->len--;
    return 1;
}

void cw_strmap_walk(const cw_strmap *m, cw_strmap_walk_fn fn, void *ud)
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].key && fn(ud, m->slots[i].key, m->slots[i].value))
            return;
}

void *cw_strmap_get_s(const cw_strmap *m, const char *key)
{
    void *v = NULL;
    return cw_strmap_get(m, key, strlen(key), &v) ? v : NULL;
}

int cw_strmap_has_s(const cw_strmap *m, const char *key)
{
    return cw_strmap_get(m, key, strlen(key), NULL);
}

int cw_strmap_set_s(cw_strmap *m, const char *key, void *value, void **old)
{
    return cw_strmap_set(m, key, strlen(key), value, old);
}

void *cw_strmap_del_s(cw_strmap *m, const char *key)
{
    void *v = NULL;
    return cw_strmap_del(m, key, strlen(key), &v) ? v : NULL;
}
