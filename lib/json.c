#include "lib/json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cw_json_type_name(json_object *o)
{
    switch (json_object_get_type(o)) {
    case json_type_null:
        return "null";
    case json_type_boolean:
        return "boolean";
    case json_type_double:
        return "number";
    case json_type_int:
        return "integer";
    case json_type_object:
        return "object";
    case json_type_array:
        return "array";
    case json_type_string:
        return "string";
    }
    return "unknown";
}

json_object *cw_json_member(json_object *obj, const char *key)
{
    json_object *v = NULL;
    if (!obj || !json_object_is_type(obj, json_type_object))
        return NULL;
    if (!json_object_object_get_ex(obj, key, &v))
        return NULL;
    return v;
}

json_object *cw_json_path(json_object *obj, const char *dotted)
{
    char key[256];
    const char *p = dotted;
    while (obj && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (n >= sizeof(key))
            return NULL;
        memcpy(key, p, n);
        key[n] = '\0';
        obj = cw_json_member(obj, key);
        p = dot ? dot + 1 : p + n;
    }
    return obj;
}

const char *cw_json_path_string(json_object *obj, const char *dotted)
{
    json_object *v = cw_json_path(obj, dotted);
    return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static int typed(json_object *obj, const char *where, const char *key, json_type want,
                 const char *want_name, json_object **out, cw_error *err)
{
    json_object *v = cw_json_member(obj, key);
    *out = NULL;
    if (!v || json_object_is_type(v, json_type_null))
        return CW_OK;
    if (!json_object_is_type(v, want))
        return cw_error_set(err, CW_EINVAL, "%s%s%s: expected %s, got %s", where ? where : "",
                            where && *where ? "." : "", key, want_name, cw_json_type_name(v));
    *out = v;
    return CW_OK;
}

int cw_json_opt_string(json_object *obj, const char *where, const char *key, const char **out,
                       cw_error *err)
{
    json_object *v;
    int rc = typed(obj, where, key, json_type_string, "string", &v, err);
    *out = v ? json_object_get_string(v) : NULL;
    return rc;
}

int cw_json_opt_int(json_object *obj, const char *where, const char *key, int64_t *out,
                    int *present, cw_error *err)
{
    json_object *v;
    int rc = typed(obj, where, key, json_type_int, "integer", &v, err);
    if (present)
        *present = v != NULL;
    if (v)
        *out = json_object_get_int64(v);
    return rc;
}

int cw_json_opt_bool(json_object *obj, const char *where, const char *key, int *out, int *present,
                     cw_error *err)
{
    json_object *v;
    int rc = typed(obj, where, key, json_type_boolean, "boolean", &v, err);
    if (present)
        *present = v != NULL;
    if (v)
        *out = json_object_get_boolean(v);
    return rc;
}

int cw_json_opt_object(json_object *obj, const char *where, const char *key, json_object **out,
                       cw_error *err)
{
    return typed(obj, where, key, json_type_object, "object", out, err);
}

int cw_json_opt_array(json_object *obj, const char *where, const char *key, json_object **out,
                      cw_error *err)
{
    return typed(obj, where, key, json_type_array, "array", out, err);
}

int cw_jptr_append(cw_buf *b, const char *token)
{
    if (cw_buf_putc(b, '/') != CW_OK)
        return CW_ENOMEM;
    for (const char *p = token; *p; p++) {
        int rc;
        if (*p == '~')
            rc = cw_buf_puts(b, "~0");
        else if (*p == '/')
            rc = cw_buf_puts(b, "~1");
        else
            rc = cw_buf_putc(b, *p);
        if (rc != CW_OK)
            return rc;
    }
    return CW_OK;
}

char *cw_jptr(const char *first, ...)
{
    cw_buf b;
    cw_buf_init(&b);
    va_list ap;
    va_start(ap, first);
    for (const char *t = first; t; t = va_arg(ap, const char *)) {
        if (cw_jptr_append(&b, t) != CW_OK) {
            va_end(ap);
            cw_buf_free(&b);
            return NULL;
        }
    }
    va_end(ap);
    return cw_buf_detach(&b);
}

int cw_jpatch_op(json_object *ops, const char *op, const char *path, json_object *value)
{
    json_object *o = json_object_new_object();
    if (!o) {
        json_object_put(value);
        return CW_ENOMEM;
    }
    json_object_object_add(o, "op", json_object_new_string(op));
    json_object_object_add(o, "path", json_object_new_string(path));
    if (value || strcmp(op, "remove") != 0)
        json_object_object_add(o, "value", value);
    if (json_object_array_add(ops, o) != 0) {
        json_object_put(o);
        return CW_ENOMEM;
    }
    return CW_OK;
}

int cw_json_copy(json_object *src, json_object **out)
{
    *out = NULL;
    if (!src)
        return CW_OK;
    if (json_object_deep_copy(src, out, NULL) != 0)
        return CW_ENOMEM;
    return CW_OK;
}

const char *cw_json_compact(json_object *o)
{
    return json_object_to_json_string_ext(o,
                                          JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

int cw_json_set_string(json_object *obj, const char *key, const char *v)
{
    json_object *s = json_object_new_string(v);
    if (!s || json_object_object_add(obj, key, s)) {
        json_object_put(s);
        return CW_ENOMEM;
    }
    return CW_OK;
}

/* dst's object member key, made when absent; NULL: out of memory or not an object. */
static json_object *child(json_object *dst, const char *key)
{
    json_object *c = cw_json_member(dst, key);
    if (c)
        return json_object_is_type(c, json_type_object) ? c : NULL;
    if (!(c = json_object_new_object()) || json_object_object_add(dst, key, c)) {
        json_object_put(c);
        return NULL;
    }
    return c;
}

/* Copies obj's member at path (cw_json_keep's form) into out. 0: done, or nothing there. */
static int keep_one(json_object *out, json_object *obj, const char *path)
{
    char buf[256], *last = NULL;
    snprintf(buf, sizeof(buf), "%s", path);
    char *bar = strchr(buf, '|');
    if (bar) {
        *bar = '\0';
        last = bar + 1;
    }
    json_object *v = cw_json_path(obj, buf);
    if (last)
        v = cw_json_member(v, last);
    if (!v)
        return 0;
    json_object *dst = out;
    char *seg = buf, *parent;
    for (int in_last = 0;;) {
        char *dot = in_last ? NULL : strchr(seg, '.');
        if (dot) {
            *dot = '\0';
            parent = seg;
            seg = dot + 1;
        } else if (!in_last && last) {
            parent = seg;
            seg = last;
            in_last = 1;
        } else {
            break;
        }
        if (!(dst = child(dst, parent)))
            return -1;
    }
    if (json_object_object_add(dst, seg, json_object_get(v))) {
        json_object_put(v);
        return -1;
    }
    return 0;
}

json_object *cw_json_keep(json_object *obj, const char *const *paths)
{
    json_object *out = json_object_new_object();
    for (size_t i = 0; out && paths[i]; i++)
        if (keep_one(out, obj, paths[i]) != 0) {
            json_object_put(out);
            out = NULL;
        }
    return out;
}

json_object *cw_json_owner_refs(const char *api_version, const char *kind, const char *name,
                                const char *uid, int controller)
{
    json_object *refs = json_object_new_array(), *ref = json_object_new_object();
    if (!refs || !ref || json_object_array_add(refs, ref)) {
        json_object_put(refs);
        json_object_put(ref);
        return NULL;
    }
    if (cw_json_set_string(ref, "apiVersion", api_version) ||
        cw_json_set_string(ref, "kind", kind) || cw_json_set_string(ref, "name", name) ||
        cw_json_set_string(ref, "uid", uid) ||
        (controller && json_object_object_add(ref, "controller", json_object_new_boolean(1)))) {
        json_object_put(refs);
        return NULL;
    }
    return refs;
}
