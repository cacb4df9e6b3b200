#include "controller/core/map.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

/* FNV-1a, 64 bits. */
static uint64_t hash_key(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

void cw_ctrl_map_init(cw_ctrl_map *m)
{
    memset(m, 0, sizeof(*m));
}

void cw_ctrl_map_free(cw_ctrl_map *m, cw_ctrl_map_free_fn free_value)
{
    for (size_t i = 0; i < m->nbuckets; i++) {
        cw_ctrl_map_entry *e = m->buckets[i];
        while (e) {
            cw_ctrl_map_entry *next = e->next;
            if (free_value)
                free_value(e->value);
            free(e);
            e = next;
        }
    }
    free(m->buckets);
    memset(m, 0, sizeof(*m));
}

static cw_ctrl_map_entry **find(const cw_ctrl_map *m, const char *key, uint64_t h)
{
    if (!m->nbuckets)
        return NULL;
    cw_ctrl_map_entry **p = &m->buckets[h & (m->nbuckets - 1)];
    for (; *p; p = &(*p)->next)
        if ((*p)->hash == h && strcmp((*p)->key, key) == 0)
            return p;
    return p; /* the empty link at the end of the chain */
}

void *cw_ctrl_map_get(const cw_ctrl_map *m, const char *key)
{
    cw_ctrl_map_entry **p = find(m, key, hash_key(key));
    return p && *p ? (*p)->value : NULL;
}

int cw_ctrl_map_has(const cw_ctrl_map *m, const char *key)
{
    cw_ctrl_map_entry **p = find(m, key, hash_key(key));
    return p && *p;
}

/* Doubles the table when the load factor passes 1. */
static int grow(cw_ctrl_map *m)
{
    size_t n = m->nbuckets ? m->nbuckets * 2 : 16;
    cw_ctrl_map_entry **b = calloc(n, sizeof(*b));
    if (!b)
        return CW_ENOMEM;
    for (size_t i = 0; i < m->nbuckets; i++) {
        cw_ctrl_map_entry *e = m->buckets[i];
        while (e) {
            cw_ctrl_map_entry *next = e->next;
            e->next = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
            e = next;
        }
    }
    free(m->buckets);
    m->buckets = b;
    m->nbuckets = n;
    return CW_OK;
}

int cw_ctrl_map_put(cw_ctrl_map *m, const char *key, void *value, void **old)
{
    uint64_t h = hash_key(key);
    cw_ctrl_map_entry **p = find(m, key, h);
    if (old)
        *old = NULL;
    if (p && *p) {
        if (old)
            *old = (*p)->value;
        (*p)->value = value;
        return CW_OK;
    }
    if (m->len + 1 > m->nbuckets) {
        if (grow(m) != CW_OK)
            return CW_ENOMEM;
        p = find(m, key, h);
    }
    size_t klen = strlen(key);
    cw_ctrl_map_entry *e = malloc(sizeof(*e) + klen + 1);
    if (!e)
        return CW_ENOMEM;
    e->next = NULL;
    e->hash = h;
    e->value = value;
    memcpy(e->key, key, klen + 1);
    *p = e;
    m->len++;
    return CW_OK;
}

void *cw_ctrl_map_del(cw_ctrl_map *m, const char *key)
{
    cw_ctrl_map_entry **p = find(m, key, hash_key(key));
    if (!p || !*p)
        return NULL;
    cw_ctrl_map_entry *e = *p;
    void *v = e->value;
    *p = e->next;
    free(e);
    m->len--;
    return v;
}

void cw_ctrl_map_walk(const cw_ctrl_map *m, cw_ctrl_map_walk_fn fn, void *ud)
{
    for (size_t i = 0; i < m->nbuckets; i++)
        for (cw_ctrl_map_entry *e = m->buckets[i]; e; e = e->next)
            if (fn(ud, e->key, e->value))
                return;
}
