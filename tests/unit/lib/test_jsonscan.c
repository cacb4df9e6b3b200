/* lib/jsonscan: the item spans of a Kubernetes List found without parsing the whole text, the
 * envelope parsed with the items elided, and structural errors with their line and column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/jsonscan.h"

typedef struct {
    const char *text;
    int rc;
    int is_list;
    const char *items[4]; /* each span's text */
    const char *kind;     /* the envelope's kind, or NULL */
    const char *message;  /* on failure */
} scan_case;

static const scan_case cases[] = {
    {"{\"kind\":\"List\",\"items\":[{\"a\":1}, [2,3] ,\"s\\\"]\" ,4]}",
     CW_OK,
     1,
     {"{\"a\":1}", "[2,3]", "\"s\\\"]\"", "4"},
     "List",
     NULL},
    {"  [ {\"x\":\"}\"} , null ]  ", CW_OK, 1, {"{\"x\":\"}\"}", "null"}, NULL, NULL},
    {"{\"apiVersion\":\"v1\",\"items\":[],\"kind\":\"VolumeList\"}",
     CW_OK,
     1,
     {NULL},
     "VolumeList",
     NULL},
    /* members before "items" are skipped whatever they hold */
    {"{\"metadata\":{\"items\":[9]},\"items\":[{\"k\":[1,{\"items\":[]}]}],\"kind\":\"L\"}",
     CW_OK,
     1,
     {"{\"k\":[1,{\"items\":[]}]}"},
     "L",
     NULL},
    {"{\"kind\":\"Volume\",\"spec\":{}}", CW_OK, 0, {NULL}, NULL, NULL},
    {"\"just a string\"", CW_OK, 0, {NULL}, NULL, NULL},
    {"{\"items\":[1,]}",
     CW_EINVAL,
     0,
     {NULL},
     NULL,
     "line 1, column 13: trailing ',' in the items array"},
    {"{\"items\":[1 2]}",
     CW_EINVAL,
     0,
     {NULL},
     NULL,
     "line 1, column 13: expected ',' or ']' after an item"},
    {"{\"items\":[,1]}",
     CW_EINVAL,
     0,
     {NULL},
     NULL,
     "line 1, column 11: unexpected ',' in the items array"},
    {"{\"items\":[{\"a\":[1,2}\n",
     CW_EINVAL,
     0,
     {NULL},
     NULL,
     "line 2, column 1: unexpected end of JSON input (unbalanced brackets)"},
    {"[1,\n2]\nx",
     CW_EINVAL,
     0,
     {NULL},
     NULL,
     "line 3, column 1: unexpected text after the JSON value"},
    {"{\"items\":[1],\"kind\":}", CW_EINVAL, 0, {NULL}, NULL, NULL},
};

static void finds_item_spans(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const scan_case *c = &cases[k];
        cw_jsonscan s;
        cw_error err;
        cw_error_init(&err);
        cw_jsonscan_init(&s);
        print_message("case %zu: %s\n", k, c->text);
        assert_int_equal(cw_jsonscan_open(&s, c->text, strlen(c->text), &err), c->rc);
        if (c->rc != CW_OK) {
            if (c->message)
                assert_string_equal(err.message, c->message);
            cw_jsonscan_free(&s);
            continue;
        }
        assert_int_equal(s.is_list, c->is_list);
        size_t n = 0;
        while (n < 4 && c->items[n])
            n++;
        assert_int_equal(s.nspans, n);
        for (size_t i = 0; i < n; i++) {
            size_t len = s.spans[i].end - s.spans[i].start;
            assert_int_equal(len, strlen(c->items[i]));
            assert_memory_equal(c->text + s.spans[i].start, c->items[i], len);
        }
        if (c->kind)
            assert_string_equal(json_object_get_string(json_object_object_get(s.envelope, "kind")),
                                c->kind);
        cw_jsonscan_free(&s);
    }
}

static void parses_a_span_with_positions_in_the_whole_text(void **state)
{
    (void)state;
    const char *text = "{\"items\":[\n  {\"a\": 1},\n  {\"b\" 2}\n]}";
    cw_jsonscan s;
    cw_error err;
    cw_error_init(&err);
    cw_jsonscan_init(&s);
    assert_int_equal(cw_jsonscan_open(&s, text, strlen(text), &err), CW_OK);
    assert_int_equal(s.nspans, 2);
    json_object *o = NULL;
    assert_int_equal(cw_json_parse_span(text, s.spans[0].start, s.spans[0].end, &o, &err), CW_OK);
    assert_int_equal(json_object_get_int(json_object_object_get(o, "a")), 1);
    json_object_put(o);
    assert_int_equal(cw_json_parse_span(text, s.spans[1].start, s.spans[1].end, &o, &err),
                     CW_EINVAL);
    assert_string_equal(err.message,
                        "line 3, column 8: object property name separator ':' expected");
    cw_jsonscan_free(&s);
}

/* cw_jsonscan_parse reuses one tokener: every element parses as alone, also after an error or a
 * value cut short. */
static void parses_elements_with_one_tokener(void **state)
{
    (void)state;
    const char *text = "[{\"a\": 1}, {\"b\" 2}, {\"c\": [1, 2]}, 7, {\"d\":1,\"d\":2}, \"x\"]";
    static const struct {
        const char *json;    /* the element as json-c prints it, or NULL */
        const char *message; /* or the error */
    } want[] = {
        {"{ \"a\": 1 }", NULL},
        {NULL, "line 1, column 17: object property name separator ':' expected"},
        {"{ \"c\": [ 1, 2 ] }", NULL},
        {"7", NULL},
        {NULL, "line 1, column 46: duplicate key \"d\""},
        {"\"x\"", NULL},
    };
    cw_jsonscan s;
    cw_error err;
    cw_error_init(&err);
    cw_jsonscan_init(&s);
    assert_int_equal(cw_jsonscan_open(&s, text, strlen(text), &err), CW_OK);
    assert_int_equal(s.nspans, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < s.nspans; i++) {
        json_object *o = NULL;
        int rc = cw_jsonscan_parse(&s, text, i, &o, &err);
        print_message("element %zu\n", i);
        if (want[i].json) {
            assert_int_equal(rc, CW_OK);
            assert_string_equal(json_object_to_json_string(o), want[i].json);
            json_object_put(o);
        } else {
            assert_int_equal(rc, CW_EINVAL);
            assert_null(o);
            assert_string_equal(err.message, want[i].message);
        }
    }
    cw_jsonscan_free(&s);
}

/* Keys must differ within an object, as Kubernetes' strict decoding (and the YAML reader) wants;
 * json-c alone would keep the last silently. */
static void refuses_duplicate_keys(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *message; /* NULL: accepted */
    } dups[] = {
        {"{\"a\":1,\"b\":{\"a\":2},\"A\":3}", NULL},
        {"[{\"a\":1},{\"a\":2}]", NULL},
        {"{\"a\":1,\"a\":2}", "line 1, column 8: duplicate key \"a\""},
        {"{\"m\":{\"x\":[{\"k\":1,\n \"k\":1}]}}", "line 2, column 2: duplicate key \"k\""},
        {"{\"x\":1,\"\\u0078\":2}", "line 1, column 8: duplicate key \"x\""},
        {"{\"s\":\"{\\\"a\\\":1,\\\"a\\\":2}\"}", NULL}, /* inside a string: text */
    };
    for (size_t k = 0; k < sizeof(dups) / sizeof(dups[0]); k++) {
        json_object *o = NULL;
        cw_error err;
        cw_error_init(&err);
        const char *t = dups[k].text;
        int rc = cw_json_parse_span(t, 0, strlen(t), &o, &err);
        print_message("case %zu: %s\n", k, t);
        if (!dups[k].message) {
            assert_int_equal(rc, CW_OK);
            json_object_put(o);
            continue;
        }
        assert_int_equal(rc, CW_EINVAL);
        assert_null(o);
        assert_string_equal(err.message, dups[k].message);
    }
}

/* Objects past the inline key slots (32) keep their keys in a map: the same answers there, and
 * across the switch. Text: {"k0":0,"k1":1,...,"k<n-1>":<n-1>} then one more key, raw. */
static void refuses_duplicate_keys_in_large_objects(void **state)
{
    (void)state;
    static const struct {
        int nkeys;
        const char *extra;   /* the last key's raw text, or NULL */
        const char *message; /* NULL: accepted */
    } big[] = {
        {32, NULL, NULL},
        {33, NULL, NULL},
        {40, NULL, NULL},
        {2, "\\u006b1", "line 1, column 16: duplicate key \"k1\""},
        {3, "k1\\u0000x", "line 1, column 23: duplicate key \"k1\""}, /* json-c stops at NUL */
        {32, "k0", "line 1, column 270: duplicate key \"k0\""},       /* the 33rd key */
        {35, "\\u006b7", "line 1, column 297: duplicate key \"k7\""},
        {35, "k5\\u0000x", "line 1, column 297: duplicate key \"k5\""},
        {39, "k3", "line 1, column 333: duplicate key \"k3\""},
    };
    for (size_t c = 0; c < sizeof(big) / sizeof(big[0]); c++) {
        char t[1024];
        size_t n = 0;
        int i;
        for (i = 0; i < big[c].nkeys; i++)
            n += (size_t)snprintf(t + n, sizeof(t) - n, "%s\"k%d\":%d", i ? "," : "{", i, i);
        if (big[c].extra)
            n += (size_t)snprintf(t + n, sizeof(t) - n, ",\"%s\":%d", big[c].extra, i);
        n += (size_t)snprintf(t + n, sizeof(t) - n, "}");
        json_object *o = NULL;
        cw_error err;
        cw_error_init(&err);
        int rc = cw_json_parse_span(t, 0, n, &o, &err);
        print_message("case %zu: %s\n", c, t);
        if (!big[c].message) {
            assert_int_equal(rc, CW_OK);
            assert_int_equal(json_object_object_length(o), big[c].nkeys);
            json_object_put(o);
            continue;
        }
        assert_int_equal(rc, CW_EINVAL);
        assert_null(o);
        assert_string_equal(err.message, big[c].message);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_item_spans),
        cmocka_unit_test(parses_a_span_with_positions_in_the_whole_text),
        cmocka_unit_test(parses_elements_with_one_tokener),
        cmocka_unit_test(refuses_duplicate_keys),
        cmocka_unit_test(refuses_duplicate_keys_in_large_objects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
