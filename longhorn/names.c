#include "longhorn/names.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "lib/buf.h"
#include "lib/gojson.h"
#include "lib/json.h"

#define FALLBACK_PREFIX_MAX (CW_NAMES_MAX - 17) /* "-" + 16 hex digits */

int cw_names_scheme_parse(const char *s, cw_names_scheme *out, cw_error *err)
{
    if (s && strcmp(s, "xxh32") == 0)
        *out = CW_NAMES_XXH32;
    else if (s && strcmp(s, "longhorn") == 0)
        *out = CW_NAMES_LONGHORN;
    else
        return cw_error_set(err, CW_EINVAL,
                            "unknown name scheme \"%s\" (expected xxh32 or longhorn)", s ? s : "");
    return CW_OK;
}

const char *cw_names_scheme_name(cw_names_scheme scheme)
{
    return scheme == CW_NAMES_LONGHORN ? "longhorn" : "xxh32";
}

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

static int lead_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

int cw_names_pattern_ok(const char *name)
{
    if (!name || !lead_char(name[0]) || name[1] == '\0')
        return 0;
    for (size_t i = 1; name[i]; i++)
        if (!name_char(name[i]))
            return 0;
    return 1;
}

int cw_names_valid(const char *name)
{
    return cw_names_pattern_ok(name) && strlen(name) <= CW_NAMES_MAX;
}

uint32_t cw_names_fnv1a32(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

static int put_hash(cw_buf *b, cw_names_scheme scheme, const char *s, size_t len)
{
    if (scheme == CW_NAMES_LONGHORN)
        return cw_buf_printf(b, "%" PRIx32, cw_names_fnv1a32(s, len));
    return cw_buf_printf(b, "%08" PRIx32, (uint32_t)XXH32(s, len, 0));
}

/* Appends v (owned) to arr; v may be NULL only for a JSON null. */
static int push(json_object *arr, json_object *v, int may_be_null)
{
    if (!v && !may_be_null)
        return CW_ENOMEM;
    if (json_object_array_add(arr, v) != 0) {
        json_object_put(v);
        return CW_ENOMEM;
    }
    return CW_OK;
}

/* The fallback: a prefix plus a 64-bit hash of the whole tuple. */
static int fallback(const char *task, int64_t retain, const char *cron, json_object *labels,
                    char out[CW_NAMES_MAX + 1])
{
    cw_buf t;
    int rc;
    size_t tn = strlen(task);
    json_object *tuple = json_object_new_array();
    cw_buf_init(&t);
    if (!tuple)
        return CW_ENOMEM;
    /* Borrowed labels: take a reference that the array's put drops again. */
    if ((rc = push(tuple, json_object_new_string(task), 0)) != CW_OK ||
        (rc = push(tuple, json_object_new_int64(retain), 0)) != CW_OK ||
        (rc = push(tuple, json_object_new_string(cron), 0)) != CW_OK ||
        (rc = push(tuple, json_object_get(labels), 1)) != CW_OK ||
        (rc = cw_gojson_write(tuple, &t)) != CW_OK)
        goto done;
    int prefix_ok = tn > 0 && tn <= FALLBACK_PREFIX_MAX && lead_char(task[0]);
    for (size_t i = 1; prefix_ok && i < tn; i++)
        prefix_ok = name_char(task[i]);
    snprintf(out, CW_NAMES_MAX + 1, "%s-%016" PRIx64, prefix_ok ? task : "job",
             (uint64_t)XXH64(t.data, t.len, 0));
done:
    json_object_put(tuple);
    cw_buf_free(&t);
    return rc;
}

int cw_names_job(cw_names_scheme scheme, const char *task, int64_t retain, const char *cron,
                 json_object *labels, char out[CW_NAMES_MAX + 1], cw_error *err)
{
    cw_buf name, lj;
    int rc;
    cw_buf_init(&name);
    cw_buf_init(&lj);
    out[0] = '\0';
    task = task ? task : "";
    cron = cron ? cron : "";
    if (labels && !json_object_is_type(labels, json_type_null) &&
        !json_object_is_type(labels, json_type_object)) {
        rc = cw_error_set(err, CW_EINVAL, "labels: expected object, got %s",
                          cw_json_type_name(labels));
        goto done;
    }
    rc = cw_gojson_write(labels, &lj);
    if (rc == CW_EINVAL || rc == CW_ELIMIT) {
        cw_error_set(err, rc, "labels: cannot be serialised as Go would (NaN, Inf or too deep)");
        goto done;
    }
    if (rc != CW_OK || (rc = cw_buf_printf(&name, "%s-%" PRId64 "-", task, retain)) != CW_OK ||
        (rc = put_hash(&name, scheme, cron, strlen(cron))) != CW_OK ||
        (rc = cw_buf_putc(&name, '-')) != CW_OK ||
        (rc = put_hash(&name, scheme, lj.data, lj.len)) != CW_OK)
        goto done;
    if (cw_names_valid(name.data))
        memcpy(out, name.data, name.len + 1);
    else
        rc = fallback(task, retain, cron, labels, out);
done:
    if (rc == CW_ENOMEM)
        cw_error_set(err, rc, "out of memory while naming a recurring job");
    cw_buf_free(&name);
    cw_buf_free(&lj);
    return rc;
}
