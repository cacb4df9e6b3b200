#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/json.h"
#include "lib/yaml.h"

/* Each YAML text must read as exactly this JSON (first document). */
static void scalars_resolve_like_kubernetes(void **state)
{
    (void)state;
    static const struct {
        const char *yaml, *json;
    } cases[] = {
        {"a: 1", "{\"a\":1}"},
        {"a: -12", "{\"a\":-12}"},
        {"a: +7", "{\"a\":7}"},
        {"a: 0x1F", "{\"a\":31}"},
        {"a: 0o17", "{\"a\":15}"},
        {"a: 017", "{\"a\":15}"},
        {"a: 0b101", "{\"a\":5}"},
        {"a: 1_000", "{\"a\":1000}"},
        {"a: 1.5", "{\"a\":1.5}"},
        {"a: 1e3", "{\"a\":1e3}"},
        {"a: 09", "{\"a\":9.0}"},
        {"a: .5", "{\"a\":0.5}"},
        {"a: yes", "{\"a\":true}"},
        {"a: Off", "{\"a\":false}"},
        {"a: y", "{\"a\":true}"},
        {"a: ~", "{\"a\":null}"},
        {"a:", "{\"a\":null}"},
        {"a: \"1\"", "{\"a\":\"1\"}"},
        {"a: '1'", "{\"a\":\"1\"}"},
        {"a: !!str 1", "{\"a\":\"1\"}"},
        {"a: enabled", "{\"a\":\"enabled\"}"},
        {"a: '*/1 * * * *'", "{\"a\":\"*\\/1 * * * *\"}"},
        {"a: 0 */2 * * *", "{\"a\":\"0 *\\/2 * * *\"}"},
        {"a: 2021-06-01T00:00:00Z", "{\"a\":\"2021-06-01T00:00:00Z\"}"},
        {"a: 18446744073709551615", "{\"a\":18446744073709551615}"},
        {"a: 1.2.3", "{\"a\":\"1.2.3\"}"},
        {"a: [1, b, {c: d}]", "{\"a\":[1,\"b\",{\"c\":\"d\"}]}"},
        {"a: |\n  x\n  y\n", "{\"a\":\"x\\ny\\n\"}"},
        {"{\"kind\": \"List\", \"items\": []}", "{\"kind\":\"List\",\"items\":[]}"},
        {"base: &b {x: 1, y: 2}\nder:\n  <<: *b\n  y: 3\n",
         "{\"base\":{\"x\":1,\"y\":2},\"der\":{\"y\":3,\"x\":1}}"},
        {"a: &x hello\nb: *x", "{\"a\":\"hello\",\"b\":\"hello\"}"},
        {"- a\n- b", "[\"a\",\"b\"]"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_yaml_docs docs;
        cw_yaml_docs_init(&docs);
        cw_error err;
        cw_error_init(&err);
        int rc = cw_yaml_parse(cases[i].yaml, strlen(cases[i].yaml), NULL, &docs, &err);
        if (rc != CW_OK)
            fail_msg("case %zu (%s): %s", i, cases[i].yaml, err.message);
        assert_int_equal(docs.len, 1);
        const char *got =
            json_object_to_json_string_ext(docs.items[0].value, JSON_C_TO_STRING_PLAIN);
        if (strcmp(got, cases[i].json) != 0)
            fail_msg("case %zu (%s): got %s want %s", i, cases[i].yaml, got, cases[i].json);
        cw_yaml_docs_free(&docs);
    }
}

static void errors_name_line_and_column(void **state)
{
    (void)state;
    static const struct {
        const char *yaml, *msg;
    } cases[] = {
        {"a: 1\na: 2\n", "line 2, column 1: duplicate mapping key \"a\""},
        {"a: [1, 2\n",
         "line 2, column 1: did not find expected ',' or ']' while parsing a flow sequence"},
        {"a: *nope\n", "line 1, column 4: unknown anchor 'nope' referenced"},
        {"a: .inf\n", "line 1, column 4: value '.inf' cannot be represented in JSON"},
        {"? [a]\n: 1\n", "line 1, column 3: mapping keys must be scalars"},
        {"a: !!int abc\n", "line 1, column 4: cannot decode 'abc' with the given tag"},
        {"a:\tb: c\n", "line 1, column 5: mapping values are not allowed in this context"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_yaml_docs docs;
        cw_yaml_docs_init(&docs);
        cw_error err;
        cw_error_init(&err);
        int rc = cw_yaml_parse(cases[i].yaml, strlen(cases[i].yaml), NULL, &docs, &err);
        assert_int_not_equal(rc, CW_OK);
        if (strcmp(err.message, cases[i].msg) != 0)
            fail_msg("case %zu: got '%s' want '%s'", i, err.message, cases[i].msg);
        assert_int_equal(docs.len, 0);
    }
}

static void limits_stop_depth_and_alias_bombs(void **state)
{
    (void)state;
    cw_yaml_limits lim = {8, 1000};
    cw_yaml_docs docs;
    cw_yaml_docs_init(&docs);
    cw_error err;
    cw_error_init(&err);
    const char *deep = "a: [[[[[[[[[[1]]]]]]]]]]";
    assert_int_equal(cw_yaml_parse(deep, strlen(deep), &lim, &docs, &err), CW_ELIMIT);
    assert_string_equal(err.message, "line 1, column 11: nesting deeper than 8 levels");
    const char *bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                       "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n";
    assert_int_equal(cw_yaml_parse(bomb, strlen(bomb), &lim, &docs, &err), CW_ELIMIT);
    assert_non_null(strstr(err.message, "document too large: more than 1000 nodes"));
    /* Under the default limits a 430-byte bomb took 13 s and 4.9 GB before failing (found while
     * triaging fuzz_manifests); now go-yaml's share-of-aliases rule stops it, as kubectl does. */
    cw_buf big;
    cw_buf_init(&big);
    cw_buf_puts(&big, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i <= 8; i++) {
        cw_buf_printf(&big, "a%d: &a%d [", i, i);
        for (int k = 0; k < 10; k++)
            cw_buf_printf(&big, "%s*a%d", k ? ", " : "", i - 1);
        cw_buf_puts(&big, "]\n");
    }
    assert_int_equal(cw_yaml_parse(big.data, big.len, NULL, &docs, &err), CW_ELIMIT);
    assert_string_equal(err.message, "line 4, column 20: document contains excessive aliasing");
    assert_int_equal(docs.len, 0);
    cw_buf_free(&big);
    /* Anchors used as they are meant to be are fine. */
    const char *reuse = "base: &b {a: 1, b: [x, y]}\none: *b\ntwo: *b\nthree: {<<: *b, c: 3}\n";
    assert_int_equal(cw_yaml_parse(reuse, strlen(reuse), NULL, &docs, &err), CW_OK);
    assert_int_equal(docs.len, 1);
    cw_yaml_docs_free(&docs);
}

/* Document spans tile the input so unchanged documents can be copied byte for byte. */
static void document_spans_tile_the_input(void **state)
{
    (void)state;
    const char *text = "# head comment\na: 1\n---\n# über\nb: 2\n---\nc: 3\n...\n";
    cw_yaml_docs docs;
    cw_yaml_docs_init(&docs);
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_yaml_parse(text, strlen(text), NULL, &docs, &err), CW_OK);
    assert_int_equal(docs.len, 3);
    assert_int_equal(docs.items[0].start, 0);
    for (size_t i = 1; i < docs.len; i++)
        assert_int_equal(docs.items[i].start, docs.items[i - 1].end);
    assert_int_equal(docs.items[2].end, strlen(text));
    char span[64];
    size_t n = docs.items[1].end - docs.items[1].start;
    memcpy(span, text + docs.items[1].start, n);
    span[n] = '\0';
    assert_string_equal(span, "---\n# über\nb: 2\n");
    assert_int_equal(docs.items[0].explicit_start, 0);
    assert_int_equal(docs.items[1].explicit_start, 1);
    assert_int_equal(docs.items[1].line, 3);
    cw_yaml_docs_free(&docs);
}

/* Emitted YAML reads back to the same JSON, and ambiguous strings are quoted. */
static void emitter_round_trips(void **state)
{
    (void)state;
    static const struct {
        const char *json, *yaml;
    } cases[] = {
        {"{\"a\":\"true\",\"b\":true,\"c\":\"10\",\"d\":10,\"e\":\"\",\"f\":null}",
         "a: \"true\"\nb: true\nc: \"10\"\nd: 10\ne: \"\"\nf: null\n"},
        {"{\"labels\":{\"recurring-job.longhorn.io/snapshot-1-a-b\":\"enabled\"}}",
         "labels:\n  recurring-job.longhorn.io/snapshot-1-a-b: enabled\n"},
        {"{\"x\":[{\"name\":\"a\"},\"b\"]}", "x:\n- name: a\n- b\n"},
        {"{\"cfg\":\"kind: StorageClass\\nparameters:\\n  a: b\\n\"}",
         "cfg: |\n  kind: StorageClass\n  parameters:\n    a: b\n"},
        {"{\"cron\":\"*/5 * * * *\",\"on\":\"no\"}", "cron: '*/5 * * * *'\n\"on\": \"no\"\n"},
        /* YAML 1.1 readers (PyYAML) take these for numbers, null or booleans */
        {"{\"a\":\"1:20\",\"b\":\"190:20:30.15\",\"c\":\"=\",\"d\":\"y\",\"e\":\"~\",\"f\":"
         "\"Off\"}",
         "a: \"1:20\"\nb: \"190:20:30.15\"\nc: \"=\"\nd: \"y\"\ne: \"~\"\nf: \"Off\"\n"},
        /* and these stay plain: a time of day with 60 minutes, a port list, text */
        {"{\"a\":\"1:60\",\"b\":\"10:20:x\",\"c\":\"a:1\"}", "a: 1:60\nb: 10:20:x\nc: a:1\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_object *v = json_tokener_parse(cases[i].json);
        cw_buf out;
        cw_buf_init(&out);
        cw_error err;
        cw_error_init(&err);
        assert_int_equal(cw_yaml_emit(v, &out, &err), CW_OK);
        if (strcmp(cw_buf_str(&out), cases[i].yaml) != 0)
            fail_msg("case %zu: got\n%s\nwant\n%s", i, cw_buf_str(&out), cases[i].yaml);
        cw_yaml_docs docs;
        cw_yaml_docs_init(&docs);
        assert_int_equal(cw_yaml_parse(out.data, out.len, NULL, &docs, &err), CW_OK);
        assert_true(json_object_equal(docs.items[0].value, v));
        cw_yaml_docs_free(&docs);
        cw_buf_free(&out);
        json_object_put(v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scalars_resolve_like_kubernetes),
        cmocka_unit_test(errors_name_line_and_column),
        cmocka_unit_test(limits_stop_depth_and_alias_bombs),
        cmocka_unit_test(document_spans_tile_the_input),
        cmocka_unit_test(emitter_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
