#include "defaults/patch.h"

#include <stdarg.h>

#include "lib/buf.h"
#include "lib/error.h"
#include "lib/json.h"

#define MAX_TOKENS 8

int cw_patch_init(cw_patch *p, json_object *ops, json_object *doc)
{
    p->ops = ops;
    p->work = NULL;
    if (!ops)
        return CW_ENOMEM;
    return cw_json_copy(doc, &p->work);
}

void cw_patch_free(cw_patch *p)
{
    json_object_put(p->work);
    p->work = NULL;
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
    json_object *cur = p->work, *wrapped = value;
    int rc = CW_OK;
    size_t i = 0;
    if (!value) /* a json_object_new_* that failed */
        return CW_ENOMEM;
    if (n == 0 || !json_object_is_type(cur, json_type_object)) {
        rc = CW_EINVAL;
        goto done;
    }
    /* Walk the existing parents. */
    for (; i + 1 < n; i++) {
        json_object *next = cw_json_member(cur, tok[i]);
        if (!next)
            break;
        if (!json_object_is_type(next, json_type_object)) {
            rc = CW_EINVAL;
            goto done;
        }
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
