/* The informer's cache: objects by "namespace/name" (or "name" when cluster-scoped), plus one
 * optional secondary index (index key -> object keys), e.g. Backups by "namespace/schedule".
 * Thread-safe (a read-write lock). Stored objects are never handed out: readers get deep copies,
 * because json-c's reference counts are not atomic. */
#ifndef CW_CTRL_STORE_H
#define CW_CTRL_STORE_H

#include <json-c/json.h>
#include <pthread.h>

#include "lib/strmap.h"
#include "lib/error.h"
#include "lib/strlist.h"

/* The index key of obj into out (outlen bytes); return 0 when obj is not indexed. */
typedef int (*cw_ctrl_index_fn)(void *ud, json_object *obj, char *out, size_t outlen);

typedef struct cw_ctrl_store {
    pthread_rwlock_t lock;
    cw_strmap objects; /* key -> json_object * (owned) */
    cw_strmap index;   /* index key -> cw_strlist * of object keys */
    cw_ctrl_index_fn index_fn;
    void *index_ud;
} cw_ctrl_store;

/* Room for any work or cache key: "namespace/name" (253 + 1 + 253 and a NUL), or an index key. */
#define CW_CTRL_KEY_MAX 600

/* "namespace/name" split: the namespace into ns (nslen bytes), *name pointing into key. 0 when
 * key has no '/' or the namespace does not fit. */
int cw_ctrl_key_split(const char *key, char *ns, size_t nslen, const char **name);

/* The cache key of an object: "namespace/name", or "name" without a namespace. CW_EINVAL when
 * metadata.name is missing, CW_ELIMIT when it does not fit. */
int cw_ctrl_object_key(json_object *obj, char *out, size_t outlen, cw_error *err) CW_MUST_CHECK;

/* index_fn may be NULL (no index). */
int cw_ctrl_store_init(cw_ctrl_store *s, cw_ctrl_index_fn index_fn, void *index_ud,
                       cw_error *err) CW_MUST_CHECK;
void cw_ctrl_store_free(cw_ctrl_store *s);
/* Stores obj (ownership passes to the store, also on failure) under key. *old (may be NULL)
 * receives the object it replaced (caller's), or NULL. */
int cw_ctrl_store_put(cw_ctrl_store *s, const char *key, json_object *obj, json_object **old);
/* Removes key; *old (may be NULL) receives the removed object (caller's), or NULL. Returns CW_OK
 * or CW_ENOTFOUND. */
int cw_ctrl_store_delete(cw_ctrl_store *s, const char *key, json_object **old);
/* A deep copy of the object under key: CW_OK, CW_ENOTFOUND or CW_ENOMEM. */
int cw_ctrl_store_get(cw_ctrl_store *s, const char *key, json_object **copy);
/* The metadata.resourceVersion stored under key, copied into out ("" when absent). Returns 1
 * when the key is present. */
int cw_ctrl_store_version(cw_ctrl_store *s, const char *key, char *out, size_t outlen);
/* Deep copies of every object under index key `ikey`, as a new JSON array sorted by key. */
int cw_ctrl_store_by_index(cw_ctrl_store *s, const char *ikey, json_object **array);
/* Object keys under index key `ikey` (appended to out, sorted). */
int cw_ctrl_store_index_keys(cw_ctrl_store *s, const char *ikey, cw_strlist *out);
/* Every index key that has objects (appended to out, sorted): e.g. the namespaces with Backups. */
int cw_ctrl_store_index_names(cw_ctrl_store *s, cw_strlist *out);
/* Every key of m (appended to out, sorted); the caller holds m's lock. */
int cw_ctrl_map_keys(const cw_strmap *m, cw_strlist *out);
/* Every object key (appended to out, sorted). */
int cw_ctrl_store_keys(cw_ctrl_store *s, cw_strlist *out);
size_t cw_ctrl_store_len(cw_ctrl_store *s);

#endif
