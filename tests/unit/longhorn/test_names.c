/* Expected names were computed independently of this code: a pure-Python XXH32/XXH64/FNV-1a
 * written from the specifications (checked against the published vectors XXH32("abc") = 32d153ff,
 * XXH64("abc") = 44bc2cf5ad770999, and Longhorn's example below), with the label JSON checked
 * against Go's json.Marshal. The first row is Longhorn's published example (every minute,
 * retain 1, task snapshot, no labels → snapshot-1-97893a05-77074ba4). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "longhorn/names.h"

#define RETAIN_MAX INT64_C(9223372036854775807)

static void names_match_reference(void **state)
{
    (void)state;
    static const struct {
        cw_names_scheme scheme;
        const char *task;
        int64_t retain;
        const char *cron;
        const char *labels; /* JSON text, NULL: no labels key */
        const char *want;
    } cases[] = {
        /* longhorn: FNV-1a, no padding — Longhorn 1.2's upgrade names */
        {CW_NAMES_LONGHORN, "snapshot", 1, "*/1 * * * *", NULL, "snapshot-1-97893a05-77074ba4"},
        {CW_NAMES_LONGHORN, "snapshot", 1, "*/1 * * * *", "null", "snapshot-1-97893a05-77074ba4"},
        {CW_NAMES_LONGHORN, "snapshot", 1, "*/1 * * * *", "{}", "snapshot-1-97893a05-5465b825"},
        {CW_NAMES_LONGHORN, "backup", 5, "0 2 * * *", "{}", "backup-5-c9964a87-5465b825"},
        /* key order in the input does not matter: Go sorts map keys */
        {CW_NAMES_LONGHORN, "backup", 3, "0 0 * * *", "{\"interval\":\"daily\",\"env\":\"prod\"}",
         "backup-3-c29f3d7d-9bf0eb31"},
        {CW_NAMES_LONGHORN, "backup", 3, "0 0 * * *", "{\"env\":\"prod\",\"interval\":\"daily\"}",
         "backup-3-c29f3d7d-9bf0eb31"},
        /* fnv("0 10 * * *") = 04aa58ea, printed without the leading zero */
        {CW_NAMES_LONGHORN, "snapshot", 2, "0 10 * * *", NULL, "snapshot-2-4aa58ea-77074ba4"},
        /* HTML-safe escaping is part of the hashed bytes */
        {CW_NAMES_LONGHORN, "backup", 1, "0 0 * * *", "{\"team\":\"<ops>&co\"}",
         "backup-1-c29f3d7d-dff4f79b"},
        {CW_NAMES_LONGHORN, "snapshot", -1, "@daily", NULL, "snapshot--1-44f56c94-77074ba4"},
        /* fallbacks: too long, odd task text */
        {CW_NAMES_LONGHORN, "snapshot", RETAIN_MAX, "0 0 * * *", NULL, "snapshot-f277f53809f057db"},
        {CW_NAMES_LONGHORN, "Snapshot", 1, "0 0 * * *", NULL, "job-97d8c400b88448db"},
        {CW_NAMES_LONGHORN, "", 1, "0 0 * * *", NULL, "job-761a3ce3a5864c4f"},
        {CW_NAMES_LONGHORN, "snapshot-force-create", 1, "0 0 * * *", NULL,
         "snapshot-force-create-9a3d3a1678223326"},
        /* xxh32: zero-padded */
        {CW_NAMES_XXH32, "snapshot", 1, "*/1 * * * *", NULL, "snapshot-1-03489650-8a390c6d"},
        {CW_NAMES_XXH32, "snapshot", 1, "*/1 * * * *", "{}", "snapshot-1-03489650-18473489"},
        {CW_NAMES_XXH32, "backup", 3, "0 0 * * *", "{\"interval\":\"daily\",\"env\":\"prod\"}",
         "backup-3-96de8910-ee5b1c35"},
        {CW_NAMES_XXH32, "snapshot", 7, "12 14 * * *", NULL, "snapshot-7-00996ce7-8a390c6d"},
        {CW_NAMES_XXH32, "backup", 1, "0 0 * * *", "{\"team\":\"<ops>&co\"}",
         "backup-1-96de8910-f126b644"},
        {CW_NAMES_XXH32, "backup", 3, "0 0 * * *", "{\"k\":\"caf\xc3\xa9 \xe2\x80\xa8\"}",
         "backup-3-96de8910-91c50041"},
        /* exactly 40 characters is still the primary form; 41 falls back */
        {CW_NAMES_XXH32, "backup-force-create", 10, "0 0 * * *", NULL,
         "backup-force-create-10-96de8910-8a390c6d"},
        {CW_NAMES_XXH32, "backup-force-create", 100, "0 0 * * *", NULL,
         "backup-force-create-a71225ff05269fd4"},
        {CW_NAMES_XXH32, "snapshot-force-create", 1, "0 0 * * *", NULL,
         "snapshot-force-create-9a3d3a1678223326"},
        {CW_NAMES_XXH32, "snapshot", RETAIN_MAX, "0 0 * * *", NULL, "snapshot-f277f53809f057db"},
        {CW_NAMES_XXH32, "snap shot", 1, "0 0 * * *", NULL, "job-6f56d5646a117758"},
        /* a valid task longer than 23 characters cannot be the prefix */
        {CW_NAMES_XXH32, "snapshot-force-create-and-more", 1, "0 0 * * *", NULL,
         "job-007832dec05958ac"},
        {CW_NAMES_XXH32, "a", 123456789012345678, "0 0 * * *", NULL,
         "a-123456789012345678-96de8910-8a390c6d"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_object *labels = cases[i].labels ? json_tokener_parse(cases[i].labels) : NULL;
        char out[CW_NAMES_MAX + 1];
        cw_error err;
        cw_error_init(&err);
        assert_int_equal(cw_names_job(cases[i].scheme, cases[i].task, cases[i].retain,
                                      cases[i].cron, labels, out, &err),
                         CW_OK);
        if (strcmp(out, cases[i].want) != 0)
            fail_msg("case %zu: got %s, want %s", i, out, cases[i].want);
        assert_true(cw_names_valid(out));
        json_object_put(labels);
    }
}

static void schemes_parse(void **state)
{
    (void)state;
    cw_names_scheme s = CW_NAMES_LONGHORN;
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_names_scheme_parse("xxh32", &s, &err), CW_OK);
    assert_int_equal(s, CW_NAMES_XXH32);
    assert_string_equal(cw_names_scheme_name(s), "xxh32");
    assert_int_equal(cw_names_scheme_parse("longhorn", &s, &err), CW_OK);
    assert_int_equal(s, CW_NAMES_LONGHORN);
    assert_string_equal(cw_names_scheme_name(s), "longhorn");
    assert_int_equal(cw_names_scheme_parse("fnv", &s, &err), CW_EINVAL);
    assert_string_equal(err.message, "unknown name scheme \"fnv\" (expected xxh32 or longhorn)");
    assert_int_equal(cw_names_scheme_parse(NULL, &s, &err), CW_EINVAL);
}

static void validity_rule(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int valid;
    } cases[] = {
        {"snapshot-1-97893a05-77074ba4", 1},
        {"a1", 1},
        {"0.x_y-z", 1},
        {"a-", 1}, /* Longhorn's rule allows it (label validity is checked by defaults/) */
        {"a", 0},  /* at least two characters */
        {"", 0},
        {"-ab", 0},
        {"_ab", 0},
        {"Ab", 0},
        {"a b", 0},
        {"a/b", 0},
        {"abcdefghij-abcdefghij-abcdefghij-abcdefg", 1},  /* 40 */
        {"abcdefghij-abcdefghij-abcdefghij-abcdefgh", 0}, /* 41 */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (cw_names_valid(cases[i].name) != cases[i].valid)
            fail_msg("%s: want %d", cases[i].name, cases[i].valid);
    assert_false(cw_names_valid(NULL));
}

static void labels_must_be_an_object(void **state)
{
    (void)state;
    json_object *labels = json_tokener_parse("[\"a\"]");
    char out[CW_NAMES_MAX + 1] = "x";
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_names_job(CW_NAMES_XXH32, "backup", 1, "0 0 * * *", labels, out, &err),
                     CW_EINVAL);
    assert_string_equal(err.message, "labels: expected object, got array");
    assert_string_equal(out, "");
    json_object_put(labels);
    assert_int_equal(cw_names_fnv1a32("", 0), 0x811c9dc5u);
    assert_int_equal(cw_names_fnv1a32("*/1 * * * *", 11), 0x97893a05u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_match_reference),
        cmocka_unit_test(schemes_parse),
        cmocka_unit_test(validity_rule),
        cmocka_unit_test(labels_must_be_an_object),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
