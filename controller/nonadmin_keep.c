#include "controller/nonadmin_keep.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "controller/core/store.h"
#include "lib/json.h"

/* The kept object's own members: never a Kubernetes field name (those have no '/'). */
#define TEXT    "cronwarden.io/spec"       /* the large member's compact JSON text */
#define TOOBIG  "cronwarden.io/spec-bytes" /* not kept: its size, over CW_NAC_SPEC_MAX */
#define NOSHARE "cronwarden.io/spec-held"  /* not kept: what its namespace held then */

/* What the decisions read of metadata (oadp/nonadmin*.c, the shell's writes and Events). */
static const char *const meta_kept[] = {"name",
                                        "namespace",
                                        "uid",
                                        "resourceVersion",
                                        "generation",
                                        "creationTimestamp",
                                        "deletionTimestamp",
                                        "finalizers",
                                        NULL};

int cw_nac_share_init(cw_nac_share *sh, cw_error *err)
{
    cw_strmap_init(&sh->held);
    cw_strmap_init(&sh->ns);
    if (pthread_mutex_init(&sh->mu, NULL) != 0)
        return cw_error_oom(err);
    return CW_OK;
}

void cw_nac_share_free(cw_nac_share *sh)
{
    cw_strmap_free(&sh->held, NULL);
    cw_strmap_free(&sh->ns, NULL);
    pthread_mutex_destroy(&sh->mu);
}

static size_t held_locked(cw_nac_share *sh, const char *ns)
{
    return (size_t)(uintptr_t)cw_strmap_get_s(&sh->ns, ns);
}

size_t cw_nac_share_held(cw_nac_share *sh, const char *ns)
{
    pthread_mutex_lock(&sh->mu);
    size_t n = held_locked(sh, ns);
    pthread_mutex_unlock(&sh->mu);
    return n;
}

/* key's bytes out of its namespace's sum (mu held). */
static void release_locked(cw_nac_share *sh, const char *key)
{
    char ns[CW_CTRL_KEY_MAX];
    const char *name;
    size_t had = (size_t)(uintptr_t)cw_strmap_del_s(&sh->held, key);
    if (!had || !cw_ctrl_key_split(key, ns, sizeof(ns), &name))
        return;
    size_t left = held_locked(sh, ns) - had;
    if (left)
        cw_strmap_set_s(&sh->ns, ns, (void *)(uintptr_t)left, NULL);
    else
        cw_strmap_del_s(&sh->ns, ns);
}

void cw_nac_share_release(cw_nac_share *sh, const char *key)
{
    pthread_mutex_lock(&sh->mu);
    release_locked(sh, key);
    pthread_mutex_unlock(&sh->mu);
}

/* Takes n bytes for key in ns, replacing what key held: 1 taken, 0 over the share (key then
 * holds nothing), CW_ENOMEM. *held: what ns held besides key. */
static int take(cw_nac_share *sh, const char *key, const char *ns, size_t n, size_t *held)
{
    int rc = 1;
    pthread_mutex_lock(&sh->mu);
    release_locked(sh, key);
    *held = held_locked(sh, ns);
    if (n == 0) {
        rc = 1;
    } else if (*held + n > CW_NAC_NS_SPEC_MAX) {
        rc = 0;
    } else if (cw_strmap_set_s(&sh->held, key, (void *)(uintptr_t)n, NULL) != CW_OK) {
        rc = CW_ENOMEM;
    } else if (cw_strmap_set_s(&sh->ns, ns, (void *)(uintptr_t)(*held + n), NULL) != CW_OK) {
        cw_strmap_del_s(&sh->held, key);
        rc = CW_ENOMEM;
    }
    pthread_mutex_unlock(&sh->mu);
    return rc;
}

/* o.<key> := v shared (when v is there). */
static int share_member(json_object *o, const char *key, json_object *v)
{
    return !v || json_object_object_add(o, key, json_object_get(v)) == 0;
}

static int add_int(json_object *o, const char *key, size_t v)
{
    json_object *n = json_object_new_int64((int64_t)v);
    if (n && json_object_object_add(o, key, n) == 0)
        return 1;
    json_object_put(n);
    return 0;
}

/* Its spec's large member is read only while the object waits to be created. */
static int spec_read(json_object *obj)
{
    int rank = cw_nac_phase_rank(cw_json_path_string(obj, "status.phase"));
    return rank < cw_nac_phase_rank("Created") && !cw_json_path(obj, "metadata.deletionTimestamp");
}

/* The large member as text, or why it is not kept. 1 done, 0 out of memory. The informer hands it
 * over as the API server sent it (CW_NACSHELL_OBJS' prune): a string of its compact text, or over
 * the limit its length; an object (a caller without the prune: tests) is written as json-c writes
 * it. */
static int keep_spec(const cw_nac_kind *k, json_object *obj, json_object *out, cw_nac_share *sh)
{
    char key[CW_CTRL_KEY_MAX];
    json_object *big = cw_json_member(cw_json_member(obj, "spec"), k->spec);
    const char *ns = cw_json_path_string(obj, "metadata.namespace");
    int read = big && spec_read(obj), sent_over = read && json_object_is_type(big, json_type_int);
    int sent_text = read && json_object_is_type(big, json_type_string);
    const char *text = !read || sent_over ? NULL
                       : sent_text        ? json_object_get_string(big)
                                          : cw_json_compact(big);
    size_t n = sent_over   ? (size_t)json_object_get_int64(big)
               : sent_text ? (size_t)json_object_get_string_len(big)
               : text      ? strlen(text)
                           : 0;
    size_t held = 0;
    cw_error err;
    if (cw_ctrl_object_key(obj, key, sizeof(key), &err) != CW_OK || !ns)
        return 1; /* the informer ignores it */
    if (n > CW_NAC_SPEC_MAX) {
        cw_nac_share_release(sh, key);
        return add_int(out, TOOBIG, n);
    }
    int rc = take(sh, key, ns, n, &held);
    if (rc < 0)
        return 0;
    if (rc == 0)
        return add_int(out, NOSHARE, held);
    json_object *t = sent_text ? json_object_get(big)
                     : text    ? json_object_new_string_len(text, (int)n)
                               : NULL;
    if (text && (!t || json_object_object_add(out, TEXT, t))) {
        json_object_put(t);
        cw_nac_share_release(sh, key);
        return 0;
    }
    return 1;
}

json_object *cw_nac_keep(const cw_nac_kind *k, json_object *obj, cw_nac_share *sh)
{
    json_object *out = json_object_new_object(), *meta = json_object_new_object();
    json_object *spec = json_object_new_object(), *m = cw_json_member(obj, "metadata");
    if (!out || !meta || !spec || json_object_object_add(out, "metadata", meta)) {
        json_object_put(meta);
        json_object_put(spec);
        goto fail;
    }
    if (json_object_object_add(out, "spec", spec)) {
        json_object_put(spec);
        goto fail;
    }
    for (size_t i = 0; meta_kept[i]; i++)
        if (!share_member(meta, meta_kept[i], cw_json_member(m, meta_kept[i])))
            goto fail;
    json_object *given = cw_json_member(obj, "spec");
    if (json_object_is_type(given, json_type_object)) {
        json_object_object_foreach(given, key, v)
        {
            if (strcmp(key, k->spec) && !share_member(spec, key, v))
                goto fail;
        }
    }
    if (!share_member(out, "apiVersion", cw_json_member(obj, "apiVersion")) ||
        !share_member(out, "kind", cw_json_member(obj, "kind")) ||
        !share_member(out, "status", cw_json_member(obj, "status")) || !keep_spec(k, obj, out, sh))
        goto fail;
    return out;
fail:
    json_object_put(out);
    return NULL;
}

/* The decision's message for an object whose spec was not kept, or NULL. */
static int refusal(const cw_nac_kind *k, json_object *kept, char **refused)
{
    int restore = strcmp(k->velero_kind, "Restore") == 0;
    json_object *big = cw_json_member(kept, TOOBIG), *held = cw_json_member(kept, NOSHARE);
    *refused = NULL;
    if (big)
        return cw_nac_size_msg(restore, (size_t)json_object_get_int64(big), refused);
    if (held)
        return cw_nac_share_msg(restore, cw_json_path_string(kept, "metadata.namespace"),
                                (size_t)json_object_get_int64(held), refused);
    return CW_OK;
}

/* The text the projection made, parsed as deep as the API client parses (kube/: 512). */
static int parse_text(json_object *text, json_object **out)
{
    json_tokener *tok = json_tokener_new_ex(512);
    if (!tok)
        return CW_ENOMEM;
    *out =
        json_tokener_parse_ex(tok, json_object_get_string(text), json_object_get_string_len(text));
    int ok = json_tokener_get_error(tok) == json_tokener_success;
    json_tokener_free(tok);
    if (!ok) {
        json_object_put(*out);
        *out = NULL;
        return CW_EINVAL;
    }
    return CW_OK;
}

int cw_nac_kept_read(const cw_nac_kind *k, json_object *kept, json_object **out, char **refused,
                     cw_error *err)
{
    json_object *o = json_object_new_object(), *spec = json_object_new_object(), *big = NULL;
    json_object *text = cw_json_member(kept, TEXT);
    *out = NULL;
    if (!o || !spec || json_object_object_add(o, "spec", spec)) {
        json_object_put(spec);
        goto oom;
    }
    json_object_object_foreach(kept, key, v)
    {
        if (strcmp(key, "spec") && !strchr(key, '/') && !share_member(o, key, v))
            goto oom;
    }
    json_object_object_foreach(cw_json_member(kept, "spec"), skey, sv)
    {
        if (!share_member(spec, skey, sv))
            goto oom;
    }
    if (text && parse_text(text, &big) != CW_OK) {
        json_object_put(o);
        return cw_error_set(err, CW_EINVAL, "%s: the cached spec text does not parse", k->spec);
    }
    if (text) {
        if (json_object_object_add(spec, k->spec, big)) {
            json_object_put(big);
            goto oom;
        }
    }
    if (refusal(k, kept, refused) != CW_OK)
        goto oom;
    *out = o;
    return CW_OK;
oom:
    json_object_put(o);
    return cw_error_oom(err);
}
