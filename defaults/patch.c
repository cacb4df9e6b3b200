#include "defaults/patch.h"

#include <stdarg.h>

#include "lib/buf.h"
#include "lib/error.h"
#include "lib/json.h"

#define MAX_TOKENS 8

int cw_patch_init(cw_patch *p, json_object *ops, json_object *doc)
{
    p->ops = ops;
    p->doc = doc;
    p->work = NULL;
    p->nowned = 0;
    return ops ? CW_OK : CW_ENOMEM;
}

void cw_patch_free(cw_patch *p)
{
    json_object_put(p->work);
    p->work = NULL;
    p->nowned = 0;
}

/* A new object holding the same members (shared, reference-counted). */
static json_object *shallow_copy(json_object *o)
{
    json_object *c = json_object_new_object();
    if (!c)
        return NULL;
    json_object_object_foreach(o, k, v)
    {
        if (json_object_object_add(c, k, json_object_get(v)) != 0) {
            json_object_put(c);
            return NULL;
        }
    }
    return c;
}

static int is_owned(const cw_patch *p, json_object *o)
{
    for (size_t i = 0; i < p->nowned; i++)
        if (p->owned[i] == o)
            return 1;
    return 0;
}

static int own(cw_patch *p, json_object *o)
{
    if (p->nowned == CW_PATCH_MAX_OWNED)
        return CW_ELIMIT;
    p->owned[p->nowned++] = o;
    return CW_OK;
}

/* The member `key` of the private object `parent`, made private too (copied on first write). */
static int private_member(cw_patch *p, json_object *parent, const char *key, json_object **out)
{
    json_object *child = cw_json_member(parent, key);
    *out = child;
    if (!child || is_owned(p, child))
        return CW_OK;
    json_object *copy = shallow_copy(child);
    if (!copy || json_object_object_add(parent, key, copy) != 0) {
        json_object_put(copy);
        return CW_ENOMEM;
    }
    *out = copy;
    return own(p, copy);
}

static size_t collect(const char *tok[MAX_TOKENS], const char *first, va_list ap)
{
    size_t n = 0;
    for (const char *t = first; t && n < MAX_TOKENS; t = va_arg(ap, const char *))
        tok[n++] = t;
    return n;
}

int cw_patch_set(cw_patch *p, json_object *value, const char *first, ...)
{
    const char *tok[MAX_TOKENS];
    va_list ap;
    va_start(ap, first);
    size_t n = collect(tok, first, ap);
    va_end(ap);
    cw_buf path;
    cw_buf_init(&path);
    json_object *cur, *wrapped = value;
    int rc = CW_OK;
    size_t i = 0;
    if (!value) /* a json_object_new_* that failed */
        return CW_ENOMEM;
    if (n == 0 || !json_object_is_type(p->doc, json_type_object)) {
        rc = CW_EINVAL;
        goto done;
    }
    /* Type-check the existing parents before copying anything. */
    cur = p->work ? p->work : p->doc;
    for (size_t k = 0; k + 1 < n; k++) {
        json_object *next = cw_json_member(cur, tok[k]);
        if (!next)
            break;
        if (!json_object_is_type(next, json_type_object)) {
            rc = CW_EINVAL;
            goto done;
        }
        cur = next;
    }
    if (!p->work) {
        if (!(p->work = shallow_copy(p->doc)) || own(p, p->work) != CW_OK) {
            rc = CW_ENOMEM;
            goto done;
        }
    }
    /* Walk the existing parents, making each private to the view. */
    cur = p->work;
    for (; i + 1 < n; i++) {
        json_object *next = NULL;
        if ((rc = private_member(p, cur, tok[i], &next)) != CW_OK)
            goto done;
        if (!next)
            break;
        cur = next;
    }
    /* Wrap the value in the missing parents tok[i+1..n-2], innermost first. */
    for (size_t j = n - 1; j > i; j--) {
        json_object *o = json_object_new_object();
        if (!o || json_object_object_add(o, tok[j], wrapped) != 0) {
            json_object_put(o);
            rc = CW_ENOMEM;
            goto done;
        }
        wrapped = o;
    }
    for (size_t j = 0; j <= i; j++)
        if ((rc = cw_jptr_append(&path, tok[j])) != CW_OK)
            goto done;
    /* A member holding null exists too: replace it. */
    const char *op = json_object_object_get_ex(cur, tok[i], NULL) ? "replace" : "add";
    /* The working copy gets its own deep copy: later ops change it, never an earlier op. */
    json_object *mirror = NULL;
    if ((rc = cw_json_copy(wrapped, &mirror)) != CW_OK)
        goto done;
    if (json_object_object_add(cur, tok[i], mirror) != 0) {
        json_object_put(mirror);
        rc = CW_ENOMEM;
        goto done;
    }
    rc = cw_jpatch_op(p->ops, op, cw_buf_str(&path), wrapped);
    wrapped = NULL;
done:
    if (rc != CW_OK)
        json_object_put(wrapped);
    cw_buf_free(&path);
    return rc;
}
