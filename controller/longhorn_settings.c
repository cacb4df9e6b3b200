#include "controller/longhorn_settings.h"

#include <stdlib.h>
#include <string.h>

/* Go's strings.Trim(s, " "): spaces only, not tabs. [*b, *e) is the trimmed span. */
static void trim(const char **b, const char **e)
{
    while (*b < *e && **b == ' ')
        (*b)++;
    while (*e > *b && (*e)[-1] == ' ')
        (*e)--;
}

static size_t count(const char *b, const char *e, char c)
{
    size_t n = 0;
    for (; b < e; b++)
        n += *b == c;
    return n;
}

static int add_str(json_object *obj, const char *key, const char *b, const char *e)
{
    json_object *v = json_object_new_string_len(b, (int)(e - b));
    return v && json_object_object_add(obj, key, v) == 0 ? CW_OK : CW_ENOMEM;
}

static int add_cstr(json_object *obj, const char *key, const char *s)
{
    return add_str(obj, key, s, s + strlen(s));
}

static int is_effect(const char *b, const char *e)
{
    static const char *const ok[] = {"NoExecute", "NoSchedule", "PreferNoSchedule", ""};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        if ((size_t)(e - b) == strlen(ok[i]) && memcmp(b, ok[i], (size_t)(e - b)) == 0)
            return 1;
    return 0;
}

/* One "key=value:effect" or "key:effect" entry, as ValidateAndUnmarshalToleration reads it. */
static int toleration(const char *b, const char *e, json_object **out, cw_error *err)
{
    trim(&b, &e);
    const char *colon = memchr(b, ':', (size_t)(e - b));
    if (count(b, e, ':') != 1)
        return cw_error_set(err, CW_EINVAL,
                            "invalid toleration setting %.*s: should contain both effect and "
                            "key/value pair",
                            (int)(e - b), b);
    const char *eb = colon + 1, *ee = e;
    trim(&eb, &ee);
    if (!is_effect(eb, ee))
        return cw_error_set(err, CW_EINVAL, "invalid toleration setting %.*s: invalid effect",
                            (int)(e - colon - 1), colon + 1);
    json_object *t = json_object_new_object();
    if (!t)
        return cw_error_oom(err);
    const char *kb = b, *ke = colon, *eq = memchr(b, '=', (size_t)(colon - b));
    int rc;
    if (eq) {
        /* strings.Split(parts[0], "=")[0] and [1]: text after a second '=' is dropped. */
        const char *vb = eq + 1, *ve = memchr(vb, '=', (size_t)(colon - vb));
        ve = ve ? ve : colon;
        ke = eq;
        trim(&kb, &ke);
        trim(&vb, &ve);
        rc = ke > kb ? add_str(t, "key", kb, ke) : CW_OK;
        if (rc == CW_OK)
            rc = add_cstr(t, "operator", "Equal");
        if (rc == CW_OK && ve > vb)
            rc = add_str(t, "value", vb, ve);
    } else {
        trim(&kb, &ke);
        rc = ke > kb ? add_str(t, "key", kb, ke) : CW_OK;
        if (rc == CW_OK)
            rc = add_cstr(t, "operator", "Exists");
    }
    if (rc == CW_OK && ee > eb)
        rc = add_str(t, "effect", eb, ee);
    if (rc != CW_OK) {
        json_object_put(t);
        return cw_error_oom(err);
    }
    *out = t;
    return CW_OK;
}

static int contains(json_object *arr, json_object *t)
{
    for (size_t i = 0; i < json_object_array_length(arr); i++)
        if (json_object_equal(json_object_array_get_idx(arr, i), t))
            return 1;
    return 0;
}

int cw_lh_parse_tolerations(const char *setting, json_object **out, cw_error *err)
{
    const char *b = setting ? setting : "", *e = b + strlen(b);
    json_object *arr = json_object_new_array();
    *out = NULL;
    if (!arr)
        return cw_error_oom(err);
    trim(&b, &e);
    for (int more = b < e; more;) {
        const char *semi = memchr(b, ';', (size_t)(e - b));
        const char *end = semi ? semi : e;
        json_object *t = NULL;
        int rc = toleration(b, end, &t, err);
        more = semi != NULL;
        b = semi ? semi + 1 : e;
        if (rc != CW_OK) {
            json_object_put(arr);
            cw_error_prefix(err, "Setting %s", CW_LH_SETTING_TOLERATION);
            return rc;
        }
        if (contains(arr, t))
            json_object_put(t);
        else if (json_object_array_add(arr, t)) {
            json_object_put(t);
            json_object_put(arr);
            return cw_error_oom(err);
        }
    }
    *out = arr;
    return CW_OK;
}

int cw_lh_parse_node_selector(const char *setting, json_object **out, cw_error *err)
{
    const char *b = setting ? setting : "", *e = b + strlen(b);
    json_object *sel = json_object_new_object();
    *out = NULL;
    if (!sel)
        return cw_error_oom(err);
    trim(&b, &e);
    for (int more = b < e; more;) {
        const char *semi = memchr(b, ';', (size_t)(e - b));
        const char *lb = b, *le = semi ? semi : e;
        more = semi != NULL;
        b = semi ? semi + 1 : e;
        trim(&lb, &le);
        if (count(lb, le, ':') != 1) {
            json_object_put(sel);
            return cw_error_set(err, CW_EINVAL,
                                "Setting %s: Error while unmarshal node selector: invalid label "
                                "%.*s: should contain the seprator ':'",
                                CW_LH_SETTING_NODE_SELECTOR, (int)(le - lb), lb);
        }
        const char *colon = memchr(lb, ':', (size_t)(le - lb));
        const char *kb = lb, *ke = colon, *vb = colon + 1, *ve = le;
        trim(&kb, &ke);
        trim(&vb, &ve);
        char *key = strndup(kb, (size_t)(ke - kb));
        int rc = key ? add_str(sel, key, vb, ve) : CW_ENOMEM;
        free(key);
        if (rc != CW_OK) {
            json_object_put(sel);
            return cw_error_oom(err);
        }
    }
    *out = sel;
    return CW_OK;
}
