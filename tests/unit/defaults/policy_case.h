/* Runs one table case through a policy function and compares the compact patch, the warnings and
 * the problems (each list joined with "\n") exactly. Every patch is also applied to the input
 * with a strict RFC 6902 add/replace applier, so "applies to the object as given" is tested too,
 * and the function run again on the patched object must not patch again (idempotence). */
#ifndef CW_TEST_POLICY_CASE_H
#define CW_TEST_POLICY_CASE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "defaults/policy.h"
#include "lib/json.h"

typedef int (*policy_fn)(const cw_policy_config *, cw_operation, json_object *, json_object *,
                         cw_decision *, cw_error *);

/* Decodes one RFC 6901 token from *p (advancing it) into tok. */
static void test_next_token(const char **p, char *tok, size_t cap)
{
    size_t n = 0;
    for ((*p)++; **p && **p != '/'; (*p)++) {
        char c = **p;
        if (c == '~') {
            (*p)++;
            c = **p == '0' ? '~' : '/';
        }
        assert_true(n + 1 < cap);
        tok[n++] = c;
    }
    tok[n] = '\0';
}

/* Applies add/replace ops strictly: the parent must exist and be an object; replace needs the
 * member. Returns 0 on success. */
static int test_apply_patch(json_object *doc, json_object *ops)
{
    for (size_t i = 0; i < json_object_array_length(ops); i++) {
        json_object *op = json_object_array_get_idx(ops, i);
        const char *kind = cw_json_path_string(op, "op");
        const char *p = cw_json_path_string(op, "path");
        json_object *cur = doc, *value = cw_json_member(op, "value");
        char tok[512];
        if (!kind || !p || *p != '/')
            return -1;
        test_next_token(&p, tok, sizeof(tok));
        while (*p) {
            json_object *next = NULL;
            if (!json_object_object_get_ex(cur, tok, &next) ||
                !json_object_is_type(next, json_type_object))
                return -1;
            cur = next;
            test_next_token(&p, tok, sizeof(tok));
        }
        if (!json_object_is_type(cur, json_type_object))
            return -1;
        if (strcmp(kind, "replace") == 0 && !json_object_object_get_ex(cur, tok, NULL))
            return -1;
        if (strcmp(kind, "add") != 0 && strcmp(kind, "replace") != 0)
            return -1;
        json_object *copy = NULL;
        assert_int_equal(cw_json_copy(value, &copy), CW_OK);
        json_object_object_add(cur, tok, copy);
    }
    return 0;
}

static void test_expect_list(const cw_strlist *l, const char *want, const char *what,
                             const char *label)
{
    char *got = cw_strlist_join(l, "\n");
    if (strcmp(got, want ? want : "") != 0)
        fail_msg("%s: %s\n got: %s\nwant: %s", label, what, got, want ? want : "");
    free(got);
}

/* Tables write JSON with ' for " to stay readable; this swaps them back (caller frees). */
static char *test_q(const char *s)
{
    char *out = s ? strdup(s) : NULL;
    for (char *p = out; p && *p; p++)
        if (*p == '\'')
            *p = '"';
    return out;
}

static json_object *test_parse(const char *single_quoted)
{
    char *text = test_q(single_quoted);
    json_object *o = text ? json_tokener_parse(text) : NULL;
    free(text);
    return o;
}

/* old_json, obj_json and want_patch use ' for ". */
static void test_policy_case(policy_fn fn, const cw_policy_config *cfg, cw_operation op,
                             const char *old_json, const char *obj_json, const char *want_patch_q,
                             const char *want_warnings, const char *want_problems,
                             const char *label)
{
    json_object *old = test_parse(old_json);
    json_object *obj = test_parse(obj_json);
    char *want_patch = test_q(want_patch_q);
    cw_decision d;
    cw_error err;
    cw_error_init(&err);
    cw_decision_init(&d);
    if (old_json && !old)
        fail_msg("%s: old is not JSON", label);
    if (!obj && strcmp(obj_json, "null") != 0)
        fail_msg("%s: obj is not JSON", label);
    assert_int_equal(fn(cfg, op, old, obj, &d, &err), CW_OK);
    const char *patch = cw_json_compact(d.patch);
    if (strcmp(patch, want_patch ? want_patch : "[]") != 0)
        fail_msg("%s: patch\n got: %s\nwant: %s", label, patch, want_patch ? want_patch : "[]");
    test_expect_list(&d.warnings, want_warnings, "warnings", label);
    test_expect_list(&d.problems, want_problems, "problems", label);
    if (json_object_array_length(d.patch) > 0) {
        if (test_apply_patch(obj, d.patch) != 0)
            fail_msg("%s: patch does not apply to the object", label);
        /* Defaulting is idempotent: the patched object needs no further ops. */
        cw_decision again;
        cw_decision_init(&again);
        assert_int_equal(fn(cfg, op, old, obj, &again, &err), CW_OK);
        if (json_object_array_length(again.patch) != 0)
            fail_msg("%s: second pass patched again: %s", label, cw_json_compact(again.patch));
        cw_decision_free(&again);
    }
    cw_decision_free(&d);
    json_object_put(old);
    json_object_put(obj);
    free(want_patch);
}

#endif
