#include "controller/core/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

int cw_ctrl_object_key(json_object *obj, char *out, size_t outlen, cw_error *err)
{
    const char *ns = cw_json_path_string(obj, "metadata.namespace");
    const char *name = cw_json_path_string(obj, "metadata.name");
    if (!name || !*name)
        return cw_error_set(err, CW_EINVAL, "object without metadata.name");
    int n =
        ns && *ns ? snprintf(out, outlen, "%s/%s", ns, name) : snprintf(out, outlen, "%s", name);
    if (n < 0 || (size_t)n >= outlen)
        return cw_error_set(err, CW_ELIMIT, "object key longer than %zu bytes", outlen - 1);
    return CW_OK;
}

int cw_ctrl_key_split(const char *key, char *ns, size_t nslen, const char **name)
{
    const char *slash = strchr(key, '/');
    if (!slash || (size_t)(slash - key) >= nslen)
        return 0;
    memcpy(ns, key, (size_t)(slash - key));
    ns[slash - key] = '\0';
    *name = slash + 1;
    return 1;
}

int cw_ctrl_store_init(cw_ctrl_store *s, cw_ctrl_index_fn index_fn, void *index_ud, cw_error *err)
{
    memset(s, 0, sizeof(*s));
    cw_strmap_init(&s->objects);
    cw_strmap_init(&s->index);
    s->index_fn = index_fn;
    s->index_ud = index_ud;
    if (pthread_rwlock_init(&s->lock, NULL) != 0)
        return cw_error_set(err, CW_ENOMEM, "cache: cannot create its lock");
    return CW_OK;
}

static void put_object(void *v)
{
    json_object_put(v);
}

static void free_keys(void *v)
{
    cw_strlist_free(v);
    free(v);
}

void cw_ctrl_store_free(cw_ctrl_store *s)
{
    cw_strmap_free(&s->objects, put_object);
    cw_strmap_free(&s->index, free_keys);
    pthread_rwlock_destroy(&s->lock);
    memset(s, 0, sizeof(*s));
}

/* ---- index maintenance (write-locked) ---- */

static void index_remove(cw_ctrl_store *s, const char *key, json_object *obj)
{
    char ikey[CW_CTRL_KEY_MAX];
    if (!obj || !s->index_fn || !s->index_fn(s->index_ud, obj, ikey, sizeof(ikey)))
        return;
    cw_strlist *keys = cw_strmap_get_s(&s->index, ikey);
    if (!keys)
        return;
    for (size_t i = 0; i < keys->len; i++)
        if (strcmp(keys->items[i], key) == 0) {
            free(keys->items[i]);
            keys->items[i] = keys->items[--keys->len];
            break;
        }
    if (!keys->len)
        free_keys(cw_strmap_del_s(&s->index, ikey));
}

static int index_add(cw_ctrl_store *s, const char *key, json_object *obj)
{
    char ikey[CW_CTRL_KEY_MAX];
    if (!s->index_fn || !s->index_fn(s->index_ud, obj, ikey, sizeof(ikey)))
        return CW_OK;
    cw_strlist *keys = cw_strmap_get_s(&s->index, ikey);
    if (!keys) {
        if (!(keys = malloc(sizeof(*keys))))
            return CW_ENOMEM;
        cw_strlist_init(keys);
        if (cw_strmap_set_s(&s->index, ikey, keys, NULL) != CW_OK) {
            free(keys);
            return CW_ENOMEM;
        }
    }
    return cw_strlist_add(keys, key);
}

int cw_ctrl_store_put(cw_ctrl_store *s, const char *key, json_object *obj, json_object **old)
{
    void *prev = NULL;
    if (old)
        *old = NULL;
    pthread_rwlock_wrlock(&s->lock);
    int rc = cw_strmap_set_s(&s->objects, key, obj, &prev), stored = rc == CW_OK;
    if (stored) {
        index_remove(s, key, prev);
        rc = index_add(s, key, obj); /* on ENOMEM the object is cached but not indexed */
    }
    pthread_rwlock_unlock(&s->lock);
    if (!stored)
        json_object_put(obj); /* the store took ownership, so a failed put frees it */
    if (old)
        *old = prev;
    else
        json_object_put(prev);
    return rc;
}

int cw_ctrl_store_delete(cw_ctrl_store *s, const char *key, json_object **old)
{
    if (old)
        *old = NULL;
    pthread_rwlock_wrlock(&s->lock);
    json_object *prev = cw_strmap_del_s(&s->objects, key);
    index_remove(s, key, prev);
    pthread_rwlock_unlock(&s->lock);
    if (!prev)
        return CW_ENOTFOUND;
    if (old)
        *old = prev;
    else
        json_object_put(prev);
    return CW_OK;
}

int cw_ctrl_store_get(cw_ctrl_store *s, const char *key, json_object **copy)
{
    *copy = NULL;
    pthread_rwlock_rdlock(&s->lock);
    json_object *obj = cw_strmap_get_s(&s->objects, key);
    int rc = obj ? cw_json_copy(obj, copy) : CW_ENOTFOUND;
    pthread_rwlock_unlock(&s->lock);
    return rc;
}

int cw_ctrl_store_version(cw_ctrl_store *s, const char *key, char *out, size_t outlen)
{
    pthread_rwlock_rdlock(&s->lock);
    json_object *obj = cw_strmap_get_s(&s->objects, key);
    const char *rv = obj ? cw_json_path_string(obj, "metadata.resourceVersion") : NULL;
    snprintf(out, outlen, "%s", rv ? rv : "");
    pthread_rwlock_unlock(&s->lock);
    return obj != NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cw_ctrl_store_by_index(cw_ctrl_store *s, const char *ikey, json_object **array)
{
    int rc = CW_OK;
    cw_strlist keys;
    cw_strlist_init(&keys);
    *array = json_object_new_array();
    if (!*array)
        return CW_ENOMEM;
    pthread_rwlock_rdlock(&s->lock);
    cw_strlist *l = cw_strmap_get_s(&s->index, ikey);
    for (size_t i = 0; l && i < l->len && rc == CW_OK; i++)
        rc = cw_strlist_add(&keys, l->items[i]);
    if (rc == CW_OK && keys.len)
        qsort(keys.items, keys.len, sizeof(char *), cmp_str);
    for (size_t i = 0; rc == CW_OK && i < keys.len; i++) {
        json_object *copy = NULL;
        rc = cw_json_copy(cw_strmap_get_s(&s->objects, keys.items[i]), &copy);
        if (rc == CW_OK && json_object_array_add(*array, copy) != 0) {
            json_object_put(copy);
            rc = CW_ENOMEM;
        }
    }
    pthread_rwlock_unlock(&s->lock);
    cw_strlist_free(&keys);
    if (rc != CW_OK) {
        json_object_put(*array);
        *array = NULL;
    }
    return rc;
}

int cw_ctrl_store_index_keys(cw_ctrl_store *s, const char *ikey, cw_strlist *out)
{
    int rc = CW_OK;
    size_t from = out->len;
    pthread_rwlock_rdlock(&s->lock);
    cw_strlist *l = cw_strmap_get_s(&s->index, ikey);
    for (size_t i = 0; l && i < l->len && rc == CW_OK; i++)
        rc = cw_strlist_add(out, l->items[i]);
    pthread_rwlock_unlock(&s->lock);
    if (out->len - from > 1)
        qsort(out->items + from, out->len - from, sizeof(char *), cmp_str);
    return rc;
}

static int add_key(void *ud, const char *key, void *value)
{
    (void)value;
    return cw_strlist_add(ud, key) != CW_OK;
}

int cw_ctrl_map_keys(const cw_strmap *m, cw_strlist *out)
{
    size_t from = out->len, want = from + m->len;
    cw_strmap_walk(m, add_key, out);
    if (out->len - from > 1)
        qsort(out->items + from, out->len - from, sizeof(char *), cmp_str);
    return out->len == want ? CW_OK : CW_ENOMEM;
}

static int keys_of(cw_ctrl_store *s, cw_strmap *m, cw_strlist *out)
{
    pthread_rwlock_rdlock(&s->lock);
    int rc = cw_ctrl_map_keys(m, out);
    pthread_rwlock_unlock(&s->lock);
    return rc;
}

int cw_ctrl_store_keys(cw_ctrl_store *s, cw_strlist *out)
{
    return keys_of(s, &s->objects, out);
}

int cw_ctrl_store_index_names(cw_ctrl_store *s, cw_strlist *out)
{
    return keys_of(s, &s->index, out);
}

size_t cw_ctrl_store_len(cw_ctrl_store *s)
{
    pthread_rwlock_rdlock(&s->lock);
    size_t n = s->objects.len;
    pthread_rwlock_unlock(&s->lock);
    return n;
}
