/* Expected bytes come from Go: go1.19.8 json.Marshal of the same values (see gojson_floats.inc
 * for the float generator; the string table was printed the same way from a []string). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "lib/error.h"
#include "lib/gojson.h"

static void strings_escape_like_go(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        size_t len;
        const char *want;
    } cases[] = {
        {"", 0, "\"\""},
        {"plain", 5, "\"plain\""},
        {"a/b", 3, "\"a/b\""}, /* '/' is not escaped */
        {"\"q\" \\", 5, "\"\\\"q\\\" \\\\\""},
        {"<tag>&amp;", 10, "\"\\u003ctag\\u003e\\u0026amp;\""},
        {"line\nfeed\rret\ttab", 17, "\"line\\nfeed\\rret\\ttab\""},
        /* NUL inside, \b and \f as \u00XX (Go < 1.22), DEL raw */
        {"\x00\x01\x08\x0c\x1f\x7f", 6, "\"\\u0000\\u0001\\u0008\\u000c\\u001f\x7f\""},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14,
         "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""},
        {"\xe2\x80\xa8\xe2\x80\xa9", 6, "\"\\u2028\\u2029\""},
        {"bad\xff"
         "byte",
         8, "\"bad\\ufffdbyte\""},
        {"\xc0\x80", 2, "\"\\ufffd\\ufffd\""},                       /* overlong NUL */
        {"\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\""},            /* UTF-8 encoded surrogate */
        {"\xe2\x82", 2, "\"\\ufffd\\ufffd\""},                       /* truncated */
        {"\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* above U+10FFFF */
        {"\xef\xbf\xbd", 3, "\"\xef\xbf\xbd\""},                     /* a real U+FFFD stays raw */
        {"\x80"
         "abc",
         4, "\"\\ufffdabc\""},
        {"\xf0\x9f\x98", 3, "\"\\ufffd\\ufffd\\ufffd\""},
        {"a\xc3", 2, "\"a\\ufffd\""},
        {"\xe0\x9f\xbf", 3, "\"\\ufffd\\ufffd\\ufffd\""},
        {"\xf0\x8f\xbf\xbf", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\""},
        {"\xdf\xbf\xe0\xa0\x80\xf4\x8f\xbf\xbf", 9, "\"\xdf\xbf\xe0\xa0\x80\xf4\x8f\xbf\xbf\""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_buf b;
        cw_buf_init(&b);
        assert_int_equal(cw_gojson_write_string(&b, cases[i].in, cases[i].len), CW_OK);
        assert_string_equal(cw_buf_str(&b), cases[i].want);
        cw_buf_free(&b);
        /* The same bytes as a json-c string value. */
        json_object *s = json_object_new_string_len(cases[i].in, (int)cases[i].len);
        cw_buf_init(&b);
        assert_int_equal(cw_gojson_write(s, &b), CW_OK);
        assert_string_equal(cw_buf_str(&b), cases[i].want);
        cw_buf_free(&b);
        json_object_put(s);
    }
}

/* map[string]string labels as Longhorn hashes them: nil and empty differ. */
static void label_maps_serialise_like_go(void **state)
{
    (void)state;
    static const struct {
        const char *json; /* NULL: no labels at all */
        const char *want;
    } cases[] = {
        {NULL, "null"},
        {"null", "null"},
        {"{}", "{}"},
        {"{\"b\":\"2\",\"a\":\"1\",\"B\":\"3\",\"a/b\":\"x\",\"\xc3\xa9\":\"y\",\"_\":\"z\"}",
         "{\"B\":\"3\",\"_\":\"z\",\"a\":\"1\",\"a/b\":\"x\",\"b\":\"2\",\"\xc3\xa9\":\"y\"}"},
        {"{\"team\":\"<ops>&co\",\"env\":\"prod\"}",
         "{\"env\":\"prod\",\"team\":\"\\u003cops\\u003e\\u0026co\"}"},
        {"{\"k\":\"line\\nnext\\u2028\"}", "{\"k\":\"line\\nnext\\u2028\"}"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_object *o = cases[i].json ? json_tokener_parse(cases[i].json) : NULL;
        cw_buf b;
        cw_buf_init(&b);
        assert_int_equal(cw_gojson_write(o, &b), CW_OK);
        assert_string_equal(cw_buf_str(&b), cases[i].want);
        cw_buf_free(&b);
        json_object_put(o);
    }
}

static void nested_values_serialise_like_go(void **state)
{
    (void)state;
    static const struct {
        const char *json, *want;
    } cases[] = {
        {"{\"z\":[1,2.5,true,null,{\"y\":\"\\u2028\",\"x\":-0.0}],\"a\":{}}",
         "{\"a\":{},\"z\":[1,2.5,true,null,{\"x\":-0,\"y\":\"\\u2028\"}]}"},
        {"[]", "[]"},
        {"[[],{},\"\"]", "[[],{},\"\"]"},
        {"false", "false"},
        {"-9223372036854775808", "-9223372036854775808"},
        {"9223372036854775807", "9223372036854775807"},
        {"18446744073709551615", "18446744073709551615"},
        {"1.0", "1"},
        {"1e21", "1e+21"},
        {"{ \"spaced\" : [ 1 , 2 ] }", "{\"spaced\":[1,2]}"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_object *o = json_tokener_parse(cases[i].json);
        cw_buf b;
        cw_buf_init(&b);
        assert_int_equal(cw_gojson_write(o, &b), CW_OK);
        assert_string_equal(cw_buf_str(&b), cases[i].want);
        cw_buf_free(&b);
        json_object_put(o);
    }
}

static const struct {
    uint64_t bits;
    const char *want;
} float_cases[] = {
#include "gojson_floats.inc"
};

static void doubles_format_like_go(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(float_cases) / sizeof(float_cases[0]); i++) {
        double d;
        memcpy(&d, &float_cases[i].bits, sizeof(d));
        json_object *o = json_object_new_double(d);
        cw_buf b;
        cw_buf_init(&b);
        assert_int_equal(cw_gojson_write(o, &b), CW_OK);
        if (strcmp(cw_buf_str(&b), float_cases[i].want) != 0)
            fail_msg("bits %016llx: got %s, want %s", (unsigned long long)float_cases[i].bits,
                     cw_buf_str(&b), float_cases[i].want);
        cw_buf_free(&b);
        json_object_put(o);
    }
}

static void unsupported_values_fail(void **state)
{
    (void)state;
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_object *o = json_object_new_array();
        json_object_array_add(o, json_object_new_double(bad[i]));
        cw_buf b;
        cw_buf_init(&b);
        assert_int_equal(cw_gojson_write(o, &b), CW_EINVAL);
        cw_buf_free(&b);
        json_object_put(o);
    }
    /* Nesting beyond the limit is refused rather than recursing without bound. */
    json_object *root = json_object_new_array(), *cur = root;
    for (int i = 0; i < CW_GOJSON_MAX_DEPTH + 1; i++) {
        json_object *next = json_object_new_array();
        json_object_array_add(cur, next);
        cur = next;
    }
    cw_buf b;
    cw_buf_init(&b);
    assert_int_equal(cw_gojson_write(root, &b), CW_ELIMIT);
    cw_buf_free(&b);
    json_object_put(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strings_escape_like_go),
        cmocka_unit_test(label_maps_serialise_like_go),
        cmocka_unit_test(nested_values_serialise_like_go),
        cmocka_unit_test(doubles_format_like_go),
        cmocka_unit_test(unsupported_values_fail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
