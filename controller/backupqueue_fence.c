#include "controller/backupqueue_fence.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/strlist.h"

#define KEY_MAX 600

void cw_bqfence_init(cw_bqfence *s)
{
    pthread_mutex_init(&s->mu, NULL);
    cw_strmap_init(&s->fence);
    cw_strmap_init(&s->posted);
}

void cw_bqfence_free(cw_bqfence *s)
{
    cw_strmap_free(&s->fence, free);
    cw_strmap_free(&s->posted, free);
    pthread_mutex_destroy(&s->mu);
}

typedef struct prefix_walk {
    const char *ns;
    size_t nslen;
    cw_strlist *keys;
} prefix_walk;

static int collect_prefixed(void *ud, const char *key, void *value)
{
    (void)value;
    prefix_walk *w = ud;
    if (!strncmp(key, w->ns, w->nslen) && key[w->nslen] == '/')
        cw_strlist_add(w->keys, key);
    return 0;
}

/* The keys of map that belong to namespace ns (caller holds mu). */
static int keys_of(cw_strmap *map, const char *ns, cw_strlist *out)
{
    prefix_walk w = {ns, strlen(ns), out};
    cw_strmap_walk(map, collect_prefixed, &w);
    return cw_strlist_error(out);
}

/* How many Backups of ns the cache still holds at the version they had before this process
 * wrote them; the others leave the fence. */
size_t cw_bqfence_pending(cw_bqfence *s, cw_ctrl_store *cache, const char *ns)
{
    cw_strlist keys;
    size_t pending = 0;
    cw_strlist_init(&keys);
    pthread_mutex_lock(&s->mu);
    if (keys_of(&s->fence, ns, &keys) != CW_OK) {
        pending = 1; /* out of memory: decide later rather than from a stale cache */
        goto done;
    }
    for (size_t i = 0; i < keys.len; i++) {
        char have[128];
        const char *before = cw_strmap_get_s(&s->fence, keys.items[i]);
        if (cw_ctrl_store_version(cache, keys.items[i], have, sizeof(have)) &&
            !strcmp(have, before)) {
            pending++;
            continue;
        }
        free(cw_strmap_del_s(&s->fence, keys.items[i]));
    }
done:
    pthread_mutex_unlock(&s->mu);
    cw_strlist_free(&keys);
    return pending;
}

int cw_bqfence_set(cw_bqfence *s, const char *ns, const char *name, const char *rv)
{
    char key[KEY_MAX];
    void *old = NULL;
    char *copy = strdup(rv);
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    pthread_mutex_lock(&s->mu);
    int rc = copy ? cw_strmap_set_s(&s->fence, key, copy, &old) : CW_ENOMEM;
    pthread_mutex_unlock(&s->mu);
    free(old);
    if (rc != CW_OK)
        free(copy);
    return rc;
}

void cw_bqfence_drop(cw_bqfence *s, const char *ns, const char *name)
{
    char key[KEY_MAX];
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    pthread_mutex_lock(&s->mu);
    free(cw_strmap_del_s(&s->fence, key));
    pthread_mutex_unlock(&s->mu);
}

/* 1 when no Waiting Event named this blocker for this Backup yet (and records it). */
int cw_bqfence_first_wait(cw_bqfence *s, const char *ns, const char *name, const char *blocker)
{
    char key[KEY_MAX];
    int fresh = 0;
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    pthread_mutex_lock(&s->mu);
    const char *had = cw_strmap_get_s(&s->posted, key);
    if (!had || strcmp(had, blocker)) {
        char *copy = strdup(blocker);
        void *old = NULL;
        if (copy && cw_strmap_set_s(&s->posted, key, copy, &old) == CW_OK) {
            free(old);
            fresh = 1;
        } else {
            free(copy);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return fresh;
}

/* Forgets the Waiting Events of ns's Backups that are no longer Queued. */
void cw_bqfence_prune(cw_bqfence *s, const char *ns, const cw_strmap *by_name)
{
    cw_strlist keys;
    cw_strlist_init(&keys);
    pthread_mutex_lock(&s->mu);
    if (keys_of(&s->posted, ns, &keys) == CW_OK)
        for (size_t i = 0; i < keys.len; i++) {
            json_object *b = cw_strmap_get_s(by_name, keys.items[i] + strlen(ns) + 1);
            const char *phase = cw_json_path_string(b, "status.phase");
            if (!phase || strcmp(phase, "Queued"))
                free(cw_strmap_del_s(&s->posted, keys.items[i]));
        }
    pthread_mutex_unlock(&s->mu);
    cw_strlist_free(&keys);
}
