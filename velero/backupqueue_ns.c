#include "velero/backupqueue_ns.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

int cw_bq_pattern_has_wildcard(const char *p)
{
    return strpbrk(p, "*?[") != NULL;
}

/* The end of the class opening at p ('['): the ']' that closes it, or NULL. */
static const char *class_end(const char *p)
{
    const char *q = p + 1;
    if (*q == ']')
        return NULL; /* "[]" is no class */
    for (; *q; q++)
        if (*q == ']')
            return q;
    return NULL;
}

int cw_bq_pattern_refused(const char *p)
{
    if (strstr(p, "**") || strpbrk(p, "|(){}!,"))
        return 1;
    for (const char *q = p; *q; q++)
        if (*q == '[') {
            const char *e = class_end(q);
            if (!e)
                return 1;
            q = e;
        }
    return 0;
}

/* 1 when c is in the class [first, end). */
static int in_class(const char *first, const char *end, char c)
{
    for (const char *q = first; q < end; q++) {
        if (q + 2 < end && q[1] == '-') {
            if (c >= q[0] && c <= q[2])
                return 1;
            q += 2;
        } else if (*q == c) {
            return 1;
        }
    }
    return 0;
}

int cw_bq_glob_match(const char *p, const char *s)
{
    /* Iterative with one backtrack point: the last `*` and where it started matching. */
    const char *star = NULL, *resume = NULL;
    while (*s) {
        if (*p == '*') {
            star = ++p;
            resume = s;
            continue;
        }
        if (*p == '[') {
            const char *e = class_end(p);
            if (e && in_class(p + 1, e, *s)) {
                p = e + 1;
                s++;
                continue;
            }
        } else if (*p && (*p == '?' || *p == *s)) {
            p++;
            s++;
            continue;
        }
        if (!star)
            return 0;
        p = star;
        s = ++resume;
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

/* The list at spec.<field> into *list (borrowed; NULL when absent or null); 0 when it is not a
 * list of strings. */
static int string_list(json_object *backup, const char *field, json_object **list)
{
    *list = cw_json_member(cw_json_member(backup, "spec"), field);
    if (!*list)
        return 1;
    if (!json_object_is_type(*list, json_type_array))
        return 0;
    for (size_t i = 0; i < json_object_array_length(*list); i++)
        if (!json_object_is_type(json_object_array_get_idx(*list, i), json_type_string))
            return 0;
    return 1;
}

/* The first refused pattern of list, or NULL. */
static const char *first_refused(json_object *list)
{
    for (size_t i = 0; list && i < json_object_array_length(list); i++) {
        const char *p = json_object_get_string(json_object_array_get_idx(list, i));
        if (cw_bq_pattern_refused(p))
            return p;
    }
    return NULL;
}

static int matches_any(json_object *list, const char *ns)
{
    for (size_t i = 0; list && i < json_object_array_length(list); i++) {
        const char *p = json_object_get_string(json_object_array_get_idx(list, i));
        if (cw_bq_glob_match(p, ns))
            return 1;
    }
    return 0;
}

/* Includes that cover every namespace: none, or "*". */
static int includes_all(json_object *inc)
{
    size_t n = inc ? json_object_array_length(inc) : 0;
    if (!n)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(json_object_get_string(json_object_array_get_idx(inc, i)), "*"))
            return 1;
    return 0;
}

static int add_unless_excluded(cw_strlist *out, json_object *exc, const char *ns)
{
    if (!*ns || matches_any(exc, ns))
        return CW_OK;
    return cw_strlist_add(out, ns);
}

/* Sorts l and drops repeats (two patterns may match the same namespace). */
static void sort_unique(cw_strlist *l)
{
    size_t w = 0;
    cw_strlist_sort(l);
    for (size_t r = 0; r < l->len; r++) {
        if (w && !strcmp(l->items[w - 1], l->items[r])) {
            free(l->items[r]);
            continue;
        }
        l->items[w++] = l->items[r];
    }
    l->len = w;
}

int cw_bq_backup_namespaces(json_object *backup, const cw_strlist *live, cw_strlist *out,
                            char *refused, size_t refusedlen, cw_error *err)
{
    json_object *inc, *exc;
    const char *bad;
    int rc = CW_OK;
    if (refused && refusedlen)
        refused[0] = '\0';
    if (!string_list(backup, "includedNamespaces", &inc) ||
        !string_list(backup, "excludedNamespaces", &exc)) {
        if (refused)
            snprintf(refused, refusedlen,
                     "spec.includedNamespaces/excludedNamespaces: not a "
                     "list of strings");
        return CW_OK;
    }
    if ((bad = first_refused(inc)) || (bad = first_refused(exc))) {
        if (refused)
            snprintf(refused, refusedlen, "namespace pattern \"%.100s\" is not supported", bad);
        return CW_OK;
    }
    if (includes_all(inc)) {
        for (size_t i = 0; i < live->len && rc == CW_OK; i++)
            rc = add_unless_excluded(out, exc, live->items[i]);
    } else {
        for (size_t i = 0; i < json_object_array_length(inc) && rc == CW_OK; i++) {
            const char *p = json_object_get_string(json_object_array_get_idx(inc, i));
            if (!cw_bq_pattern_has_wildcard(p)) {
                rc = add_unless_excluded(out, exc, p);
                continue;
            }
            for (size_t j = 0; j < live->len && rc == CW_OK; j++)
                if (cw_bq_glob_match(p, live->items[j]))
                    rc = add_unless_excluded(out, exc, live->items[j]);
        }
    }
    if (rc != CW_OK)
        return cw_error_oom(err);
    sort_unique(out);
    return CW_OK;
}
