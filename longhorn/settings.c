#include "longhorn/settings.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "lib/gostr.h"

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

/* One "key=value:effect" or "key:effect" entry, as 1.2's and 1.3's ValidateAndUnmarshalToleration
 * read it (reading 2 or 3). */
static int toleration(int reading, const char *b, const char *e, json_object **out, cw_error *err)
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
    if (eq && reading >= 3 && count(b, colon, '=') != 1) {
        json_object_put(t);
        return cw_error_set(err, CW_EINVAL,
                            "invalid toleration setting %.*s: invalid key/value pair",
                            (int)(colon - b), b);
    }
    if (eq) {
        /* strings.Split(parts[0], "=")[0] and [1]: in 1.2 text after a second '=' is dropped. */
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

/* One entry as 1.4's parseToleration reads it (spaces already removed). */
static int toleration_1_4(const char *b, const char *e, json_object **out, cw_error *err)
{
    const char *colon = memchr(b, ':', (size_t)(e - b));
    /* UnmarshalTolerations wraps with "failed to parse toleration: %s" of the *Toleration it just
     * declared, which is nil on an error: its String() prints "nil". */
    if (count(b, e, ':') != 1)
        return cw_error_set(err, CW_EINVAL,
                            "failed to parse toleration: nil: missing key/value and effect pair");
    if (!is_effect(colon + 1, e))
        return cw_error_set(err, CW_EINVAL, "failed to parse toleration: nil: invalid effect: %.*s",
                            (int)(e - colon - 1), colon + 1);
    json_object *t = json_object_new_object();
    if (!t)
        return cw_error_oom(err);
    size_t eqs = count(b, colon, '=');
    const char *eq = memchr(b, '=', (size_t)(colon - b));
    int rc = CW_OK;
    /* Split(parts[0], "="): one part is a key (Exists), two are key=value (Equal), more leave
     * key, value and operator empty. */
    if (eqs == 0 && colon > b)
        rc = add_str(t, "key", b, colon);
    if (rc == CW_OK && eqs == 1 && eq > b)
        rc = add_str(t, "key", b, eq);
    if (rc == CW_OK && eqs < 2)
        rc = add_cstr(t, "operator", eqs ? "Equal" : "Exists");
    if (rc == CW_OK && eqs == 1 && colon > eq + 1)
        rc = add_str(t, "value", eq + 1, colon);
    if (rc == CW_OK && e > colon + 1)
        rc = add_str(t, "effect", colon + 1, e);
    if (rc != CW_OK) {
        json_object_put(t);
        return cw_error_oom(err);
    }
    *out = t;
    return CW_OK;
}

/* util.GetDistinctTolerations, every minor: a map keyed by the checksum of key, operator, value
 * and effect joined with no separator, so "xEqual:" (key xEqual, Exists) and "x=Exists:" (key x,
 * Equal, value Exists) are one toleration, and the later one is kept. */
static int same_joined(json_object *a, json_object *b)
{
    static const char *const fields[] = {"key", "operator", "value", "effect"};
    char ja[1024], jb[1024];
    size_t la = 0, lb = 0;
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        const char *va = json_object_get_string(cw_json_member(a, fields[i]));
        const char *vb = json_object_get_string(cw_json_member(b, fields[i]));
        la += (size_t)snprintf(ja + la, sizeof(ja) - la, "%s", va ? va : "");
        lb += (size_t)snprintf(jb + lb, sizeof(jb) - lb, "%s", vb ? vb : "");
        if (la >= sizeof(ja) || lb >= sizeof(jb))
            return json_object_equal(a, b); /* longer than any Kubernetes key and value */
    }
    return la == lb && memcmp(ja, jb, la) == 0;
}

/* Adds t to arr, in place of the toleration it is the same as (see same_joined). */
static int add_distinct(json_object *arr, json_object *t)
{
    for (size_t i = 0; i < json_object_array_length(arr); i++)
        if (same_joined(json_object_array_get_idx(arr, i), t))
            return json_object_array_put_idx(arr, i, t) ? CW_ENOMEM : CW_OK;
    return json_object_array_add(arr, t) ? CW_ENOMEM : CW_OK;
}

int cw_lh_parse_tolerations_as(int reading, const char *setting, json_object **out, cw_error *err)
{
    const char *src = setting ? setting : "";
    char *nospace = NULL;
    json_object *arr = json_object_new_array();
    int rc = CW_OK;
    *out = NULL;
    if (!arr || !(nospace = malloc(strlen(src) + 1))) {
        rc = cw_error_oom(err);
        goto done;
    }
    /* 1.4: strings.ReplaceAll(setting, " ", ""); 1.2 and 1.3 trim the setting and each entry. */
    char *w = nospace;
    for (const char *r = src; *r; r++)
        if (reading < 4 || *r != ' ')
            *w++ = *r;
    *w = '\0';
    const char *b = nospace, *e = w;
    trim(&b, &e);
    for (int more = b < e; more && rc == CW_OK;) {
        const char *semi = memchr(b, ';', (size_t)(e - b)), *end = semi ? semi : e;
        json_object *t = NULL;
        rc = reading >= 4 ? toleration_1_4(b, end, &t, err) : toleration(reading, b, end, &t, err);
        more = semi != NULL;
        b = semi ? semi + 1 : e;
        if (rc != CW_OK)
            cw_error_prefix(err, "Setting %s", CW_LH_SETTING_TOLERATION);
        else if (add_distinct(arr, t) != CW_OK) {
            json_object_put(t);
            rc = cw_error_oom(err);
        }
    }
    if (rc == CW_OK) {
        *out = arr;
        arr = NULL;
    }
done:
    json_object_put(arr);
    free(nospace);
    return rc;
}

int cw_lh_parse_node_selector_as(int reading, const char *setting, json_object **out, cw_error *err)
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
                                "%.*s: should contain the %s ':'",
                                CW_LH_SETTING_NODE_SELECTOR, (int)(le - lb), lb,
                                reading >= 4 ? "separator" : "seprator");
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

/* ---- which Settings, and the integers ---- */

static const cw_lh_setting_def defs[] = {
    {CW_LH_SETTING_TOLERATION, "", 2},  {CW_LH_SETTING_NODE_SELECTOR, "", 2},
    {CW_LH_SETTING_PRIORITY, "", 2},    {CW_LH_SETTING_REGISTRY, "", 3},
    {CW_LH_SETTING_HISTORY_OK, "1", 4}, {CW_LH_SETTING_HISTORY_FAILED, "1", 4},
};

const cw_lh_setting_def *cw_lh_setting_defs(size_t *n)
{
    *n = sizeof(defs) / sizeof(defs[0]);
    return defs;
}

int cw_lh_setting_read_by(const char *name, int minor)
{
    for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
        if (strcmp(defs[i].name, name) == 0)
            return minor >= defs[i].since;
    return 0;
}

int cw_lh_parse_history_limit(int minor, const char *name, const char *value, int32_t *out,
                              cw_error *err)
{
    int64_t v = 1;
    int rc = value ? cw_go_atoi(value, strlen(value), &v) : CW_GO_ATOI_OK;
    if (rc != CW_GO_ATOI_OK) {
        cw_buf q;
        cw_buf_init(&q);
        /* 1.4 names the Go constant, 1.5+ the Setting (newCronJob's errors.Wrapf). */
        const char *what = name;
        if (minor < 5)
            what = strcmp(name, CW_LH_SETTING_HISTORY_FAILED) == 0
                       ? "RecurringFailedJobsHistoryLimit"
                       : "RecurringSuccessfulJobsHistoryLimit";
        /* strconv.NumError: parsing <strconv.Quote(value)>: ... */
        if (cw_go_quote(&q, value, strlen(value)) != CW_OK || cw_buf_error(&q)) {
            cw_buf_free(&q);
            return cw_error_oom(err);
        }
        cw_error_set(
            err, CW_EINVAL, "failed to get setting of %s: strconv.ParseInt: parsing %s: %s", what,
            cw_buf_str(&q), rc == CW_GO_ATOI_RANGE ? "value out of range" : "invalid syntax");
        cw_buf_free(&q);
        return CW_EINVAL;
    }
    *out = (int32_t)(uint32_t)(uint64_t)v; /* Go's int32(v): the low 32 bits */
    return CW_OK;
}
