/* cw_review_prune: managedFields of request.object/oldObject blanked in place, everything else
 * (other places, malformed text, escaped keys, deep nesting) left byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "webhook/review.h"

#define AR(req)                                                                                    \
    "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":" req "}"
#define MF       "[{\"manager\":\"kubectl\",\"fieldsV1\":{\"f:spec\":{\"f:x\":{}}},\"n\":-1.5e3}]"
#define MF_BLANK "[]                                                                 "

static void managed_fields_are_blanked(void **state)
{
    (void)state;
    static const struct {
        const char *what, *in, *out;
        size_t blanked;
    } cases[] = {
        {"object and oldObject",
         AR("{\"uid\":\"u\",\"object\":{\"metadata\":{\"name\":\"a\",\"managedFields\":" MF "}},"
            "\"oldObject\":{\"metadata\":{\"managedFields\":" MF ",\"x\":1}}}"),
         AR("{\"uid\":\"u\",\"object\":{\"metadata\":{\"name\":\"a\",\"managedFields\":" MF_BLANK
            "}},\"oldObject\":{\"metadata\":{\"managedFields\":" MF_BLANK ",\"x\":1}}}"),
         130},
        {"whitespace around the value is kept",
         AR("{\"object\" : { \"metadata\" : { \"managedFields\" :\n " MF " } } }"),
         AR("{\"object\" : { \"metadata\" : { \"managedFields\" :\n " MF_BLANK " } } }"), 65},
        {"elsewhere it is data",
         AR("{\"object\":{\"spec\":{\"managedFields\":[1]},\"metadata\":{}}}"),
         AR("{\"object\":{\"spec\":{\"managedFields\":[1]},\"metadata\":{}}}"), 0},
        {"top-level metadata is not the object's",
         "{\"metadata\":{\"managedFields\":[1,2]},\"request\":{}}",
         "{\"metadata\":{\"managedFields\":[1,2]},\"request\":{}}", 0},
        {"an escaped key is left to the parser",
         AR("{\"object\":{\"metadata\":{\"man\\u0061gedFields\":[1,2]}}}"),
         AR("{\"object\":{\"metadata\":{\"man\\u0061gedFields\":[1,2]}}}"), 0},
        {"a short value is not worth it", AR("{\"object\":{\"metadata\":{\"managedFields\":[]}}}"),
         AR("{\"object\":{\"metadata\":{\"managedFields\":[]}}}"), 0},
        {"malformed: trailing comma", AR("{\"object\":{\"metadata\":{\"managedFields\":[1,2],}}}"),
         AR("{\"object\":{\"metadata\":{\"managedFields\":[1,2],}}}"), 0},
        {"malformed: bad escape inside",
         AR("{\"object\":{\"metadata\":{\"managedFields\":[\"\\x\"]}}}"),
         AR("{\"object\":{\"metadata\":{\"managedFields\":[\"\\x\"]}}}"), 0},
        {"malformed: leading zero", AR("{\"object\":{\"metadata\":{\"managedFields\":[01]}}}"),
         AR("{\"object\":{\"metadata\":{\"managedFields\":[01]}}}"), 0},
        {"malformed: control character in a string",
         AR("{\"object\":{\"metadata\":{\"managedFields\":[\"a\tb\"]}}}"),
         AR("{\"object\":{\"metadata\":{\"managedFields\":[\"a\tb\"]}}}"), 0},
        {"malformed: data after the document",
         AR("{\"object\":{\"metadata\":{\"managedFields\":[1,2]}}}") " x",
         AR("{\"object\":{\"metadata\":{\"managedFields\":[1,2]}}}") " x", 0},
        {"malformed: truncated", "{\"request\":{\"object\":{\"metadata\":{\"managedFields\":[1,2]",
         "{\"request\":{\"object\":{\"metadata\":{\"managedFields\":[1,2]", 0},
        {"malformed: NaN", AR("{\"object\":{\"metadata\":{\"managedFields\":[NaN]}}}"),
         AR("{\"object\":{\"metadata\":{\"managedFields\":[NaN]}}}"), 0},
        /* found by fuzzing: the parser's UTF-8 check never sees blanked bytes */
        {"malformed: invalid UTF-8 inside",
         AR("{\"object\":{\"metadata\":{\"managedFields\":[\"\xff\",\"\xed\xa0\x80\"]}}}"),
         AR("{\"object\":{\"metadata\":{\"managedFields\":[\"\xff\",\"\xed\xa0\x80\"]}}}"), 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *buf = strdup(cases[i].in);
        size_t n = cw_review_prune(buf, strlen(buf));
        if (strcmp(buf, cases[i].out) != 0 || n != cases[i].blanked)
            fail_msg("%s: blanked %zu\n got  %s\n want %s", cases[i].what, n, buf, cases[i].out);
        free(buf);
    }
}

static void deep_nesting_is_left_alone(void **state)
{
    (void)state;
    size_t depth = 200;
    size_t len = depth * 2 + 80;
    char *buf = calloc(1, len + 1), *p = buf;
    p += sprintf(p, "{\"request\":{\"object\":{\"metadata\":{\"managedFields\":");
    for (size_t i = 0; i < depth; i++)
        *p++ = '[';
    for (size_t i = 0; i < depth; i++)
        *p++ = ']';
    strcpy(p, "}}}}");
    char *copy = strdup(buf);
    assert_int_equal(cw_review_prune(buf, strlen(buf)), 0);
    assert_string_equal(buf, copy);
    free(copy);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(managed_fields_are_blanked),
        cmocka_unit_test(deep_nesting_is_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
