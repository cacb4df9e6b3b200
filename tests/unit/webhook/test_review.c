/* AdmissionReview codec: decoding (good requests of both versions, the malformed corpus with its
 * documented messages) and encoding (exact response JSON, decoded patch). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>

#include "lib/buf.h"
#include "webhook/review.h"

#define HEAD_V1 "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
#define KIND_RJ                                                                                    \
    "\"kind\":{\"group\":\"longhorn.io\",\"version\":\"v1beta2\",\"kind\":\"RecurringJob\"}"

static void decodes_both_versions(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        cw_review_version version;
        const char *uid, *group, *version_, *kind, *ns, *name, *sub;
        cw_review_operation op;
        int has_object, has_old, dry_run;
    } cases[] = {
        {HEAD_V1 "\"request\":{\"uid\":\"705ab4f5-6393-11e8-b7cc-42010a800002\"," KIND_RJ
                 ",\"name\":\"daily\",\"namespace\":\"longhorn-system\",\"operation\":\"CREATE\","
                 "\"object\":{\"spec\":{}},\"oldObject\":null,\"dryRun\":false}}",
         CW_REVIEW_V1, "705ab4f5-6393-11e8-b7cc-42010a800002", "longhorn.io", "v1beta2",
         "RecurringJob", "longhorn-system", "daily", "", CW_REVIEW_CREATE, 1, 0, 0},
        {"{\"apiVersion\":\"admission.k8s.io/v1beta1\",\"kind\":\"AdmissionReview\",\"request\":{"
         "\"uid\":\"u2\",\"kind\":{\"group\":\"velero.io\",\"version\":\"v1\",\"kind\":"
         "\"Schedule\"},"
         "\"namespace\":\"velero\",\"operation\":\"UPDATE\",\"object\":{},\"oldObject\":{},"
         "\"dryRun\":true}}",
         CW_REVIEW_V1BETA1, "u2", "velero.io", "v1", "Schedule", "velero", "", "", CW_REVIEW_UPDATE,
         1, 1, 1},
        /* core group: group absent; DELETE without object */
        {HEAD_V1 "\"request\":{\"uid\":\"u3\",\"kind\":{\"version\":\"v1\",\"kind\":\"Secret\"},"
                 "\"operation\":\"DELETE\",\"object\":null,\"oldObject\":{}}}",
         CW_REVIEW_V1, "u3", "", "v1", "Secret", "", "", "", CW_REVIEW_DELETE, 0, 1, 0},
        {HEAD_V1 "\"request\":{\"uid\":\"u4\"," KIND_RJ ",\"subResource\":\"status\","
                 "\"operation\":\"UPDATE\",\"object\":{},\"oldObject\":{}}}\n",
         CW_REVIEW_V1, "u4", "longhorn.io", "v1beta2", "RecurringJob", "", "", "status",
         CW_REVIEW_UPDATE, 1, 1, 0},
        {HEAD_V1 "\"request\":{\"uid\":\"u5\"," KIND_RJ ",\"operation\":\"CONNECT\"}}",
         CW_REVIEW_V1, "u5", "longhorn.io", "v1beta2", "RecurringJob", "", "", "",
         CW_REVIEW_CONNECT, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_review_request r;
        cw_error err;
        cw_error_init(&err);
        int rc = cw_review_decode(cases[i].body, strlen(cases[i].body), &r, &err);
        if (rc != CW_OK)
            fail_msg("case %zu: %s", i, err.message);
        assert_int_equal(r.version, cases[i].version);
        assert_string_equal(r.uid, cases[i].uid);
        assert_string_equal(r.group, cases[i].group);
        assert_string_equal(r.kind_version, cases[i].version_);
        assert_string_equal(r.kind, cases[i].kind);
        assert_string_equal(r.namespace_, cases[i].ns);
        assert_string_equal(r.name, cases[i].name);
        assert_string_equal(r.subresource, cases[i].sub);
        assert_int_equal(r.operation, cases[i].op);
        assert_int_equal(r.object != NULL, cases[i].has_object);
        assert_int_equal(r.old_object != NULL, cases[i].has_old);
        assert_int_equal(r.dry_run, cases[i].dry_run);
        cw_review_request_free(&r);
    }
}

/* Builds `depth` nested arrays inside request.object. */
static char *deep_body(int depth)
{
    cw_buf b;
    cw_buf_init(&b);
    cw_buf_puts(&b, HEAD_V1 "\"request\":{\"uid\":\"u\"," KIND_RJ
                            ",\"operation\":\"CREATE\",\"object\":{\"x\":");
    for (int i = 0; i < depth; i++)
        cw_buf_putc(&b, '[');
    for (int i = 0; i < depth; i++)
        cw_buf_putc(&b, ']');
    cw_buf_puts(&b, "}}}");
    return cw_buf_detach(&b);
}

static char *huge_string_body(size_t n, const char *field)
{
    cw_buf b;
    cw_buf_init(&b);
    cw_buf_printf(&b, HEAD_V1 "\"request\":{\"%s\":\"", field);
    for (size_t i = 0; i < n; i++)
        cw_buf_putc(&b, 'a');
    cw_buf_puts(&b, "\"," KIND_RJ ",\"operation\":\"CREATE\",\"object\":{}");
    if (strcmp(field, "uid") != 0)
        cw_buf_puts(&b, ",\"uid\":\"u\"");
    cw_buf_puts(&b, "}}");
    return cw_buf_detach(&b);
}

static void malformed_requests_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        int code;
        const char *message;
    } cases[] = {
        {"", CW_EINVAL, "invalid JSON: empty body"},
        {"   \n", CW_EINVAL, "invalid JSON: unexpected end of input"},
        {HEAD_V1 "\"request\":{\"uid\":\"a\"", CW_EINVAL, "invalid JSON: unexpected end of input"},
        {HEAD_V1 "\"request\":{\"uid\":\"a\",}}", CW_EINVAL,
         "invalid JSON at offset 82: unexpected character"},
        {HEAD_V1 "\"request\":{}} x", CW_EINVAL,
         "invalid JSON: unexpected data after the document at offset 75"},
        {HEAD_V1 "\"request\":{\"uid\":\"a\xff\"}}", CW_EINVAL,
         "invalid JSON: invalid UTF-8 at offset 80"},
        {HEAD_V1 "\"request\":{\"uid\":\"\xc0\xaf\"}}", CW_EINVAL,
         "invalid JSON: invalid UTF-8 at offset 79"}, /* overlong '/' */
        {HEAD_V1 "\"request\":{\"uid\":\"\xed\xa0\x80\"}}", CW_EINVAL,
         "invalid JSON: invalid UTF-8 at offset 79"}, /* UTF-16 surrogate */
        {HEAD_V1 "\"request\":{\"uid\":\"\xf4\x90\x80\x80\"}}", CW_EINVAL,
         "invalid JSON: invalid UTF-8 at offset 79"}, /* above U+10FFFF */
        {HEAD_V1 "\"request\":{\"uid\":\"\xe2\x82\"}}", CW_EINVAL,
         "invalid JSON: invalid UTF-8 at offset 79"}, /* truncated sequence */
        {"null", CW_EINVAL, "AdmissionReview: expected object"},
        {"[]", CW_EINVAL, "AdmissionReview: expected object, got array"},
        {"\"AdmissionReview\"", CW_EINVAL, "AdmissionReview: expected object, got string"},
        {"{\"kind\":\"AdmissionReview\",\"request\":{}}", CW_EINVAL,
         "apiVersion: expected admission.k8s.io/v1 or admission.k8s.io/v1beta1"},
        {"{\"apiVersion\":\"admission.k8s.io/v2\"}", CW_EINVAL,
         "apiVersion: expected admission.k8s.io/v1 or admission.k8s.io/v1beta1"},
        {"{\"apiVersion\":1}", CW_EINVAL, "apiVersion: expected string, got integer"},
        {"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"Review\"}", CW_EINVAL,
         "kind: expected AdmissionReview"},
        {HEAD_V1 "\"response\":{}}", CW_EINVAL, "request: missing"},
        {HEAD_V1 "\"request\":null}", CW_EINVAL, "request: missing"},
        {HEAD_V1 "\"request\":\"x\"}", CW_EINVAL, "request: expected object, got string"},
        {HEAD_V1 "\"request\":{" KIND_RJ ",\"operation\":\"CREATE\",\"object\":{}}}", CW_EINVAL,
         "request.uid: missing"},
        {HEAD_V1 "\"request\":{\"uid\":\"\"}}", CW_EINVAL, "request.uid: missing"},
        {HEAD_V1 "\"request\":{\"uid\":7}}", CW_EINVAL,
         "request.uid: expected string, got integer"},
        {HEAD_V1 "\"request\":{\"uid\":\"a\\u0000b\"}}", CW_EINVAL,
         "request.uid: contains a NUL character"},
        {HEAD_V1 "\"request\":{\"uid\":\"u\"}}", CW_EINVAL, "request.kind: missing"},
        {HEAD_V1 "\"request\":{\"uid\":\"u\",\"kind\":[]}}", CW_EINVAL,
         "request.kind: expected object, got array"},
        {HEAD_V1 "\"request\":{\"uid\":\"u\",\"kind\":{\"group\":\"g\",\"version\":\"v1\"}}}",
         CW_EINVAL, "request.kind.kind: missing"},
        {HEAD_V1 "\"request\":{\"uid\":\"u\",\"kind\":{\"group\":true,\"version\":\"v1\","
                 "\"kind\":\"K\"}}}",
         CW_EINVAL, "request.kind.group: expected string, got boolean"},
        {HEAD_V1 "\"request\":{\"uid\":\"u\"," KIND_RJ ",\"operation\":\"PATCH\"}}", CW_EINVAL,
         "request.operation: expected CREATE, UPDATE, DELETE or CONNECT"},
        {HEAD_V1 "\"request\":{\"uid\":\"u\"," KIND_RJ "}}", CW_EINVAL,
         "request.operation: expected CREATE, UPDATE, DELETE or CONNECT"},
        {HEAD_V1 "\"request\":{\"uid\":\"u\"," KIND_RJ ",\"operation\":\"CREATE\"}}", CW_EINVAL,
         "request.object: missing"},
        {HEAD_V1 "\"request\":{\"uid\":\"u\"," KIND_RJ ",\"operation\":\"CREATE\",\"object\":[]}}",
         CW_EINVAL, "request.object: expected object, got array"},
        {HEAD_V1 "\"request\":{\"uid\":\"u\"," KIND_RJ ",\"operation\":\"UPDATE\",\"object\":{}}}",
         CW_EINVAL, "request.oldObject: missing"},
        {HEAD_V1 "\"request\":{\"uid\":\"u\"," KIND_RJ ",\"operation\":\"CREATE\",\"object\":{},"
                 "\"dryRun\":\"yes\"}}",
         CW_EINVAL, "request.dryRun: expected boolean, got string"},
        {HEAD_V1 "\"request\":{\"uid\":\"u\"," KIND_RJ ",\"operation\":\"CREATE\",\"object\":{},"
                 "\"namespace\":[\"a\"]}}",
         CW_EINVAL, "request.namespace: expected string, got array"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_review_request r;
        cw_error err;
        cw_error_init(&err);
        int rc = cw_review_decode(cases[i].body, strlen(cases[i].body), &r, &err);
        if (rc != cases[i].code || strcmp(err.message, cases[i].message) != 0)
            fail_msg("case %zu: got %d \"%s\", want \"%s\"", i, rc, err.message, cases[i].message);
        assert_null(r.root);
    }
}

static void limits_are_enforced(void **state)
{
    (void)state;
    cw_review_request r;
    cw_error err;
    static const struct {
        int depth;
        int code;
        const char *message;
    } depths[] = {
        {61, CW_OK, ""}, /* AdmissionReview, request, object + 61 arrays = 64 levels */
        {62, CW_ELIMIT, "invalid JSON: nesting deeper than 64 levels"},
        {100000, CW_ELIMIT, "invalid JSON: nesting deeper than 64 levels"},
    };
    for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
        char *body = deep_body(depths[i].depth);
        cw_error_init(&err);
        int rc = cw_review_decode(body, strlen(body), &r, &err);
        if (rc != depths[i].code || strcmp(err.message, depths[i].message) != 0)
            fail_msg("depth %d: got %d \"%s\"", depths[i].depth, rc, err.message);
        cw_review_request_free(&r);
        free(body);
    }

    static const struct {
        size_t n;
        const char *field;
        int code;
        const char *message;
    } strings[] = {
        {CW_REVIEW_MAX_STRING, "note", CW_OK, ""},
        {CW_REVIEW_MAX_STRING + 1, "note", CW_ELIMIT,
         "a string value is longer than 1048576 bytes"},
        {129, "uid", CW_ELIMIT, "request.uid: longer than 128 bytes"},
        {128, "uid", CW_OK, ""},
        {254, "name", CW_ELIMIT, "request.name: longer than 253 bytes"},
        {254, "namespace", CW_ELIMIT, "request.namespace: longer than 253 bytes"},
    };
    for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
        char *body = huge_string_body(strings[i].n, strings[i].field);
        cw_error_init(&err);
        int rc = cw_review_decode(body, strlen(body), &r, &err);
        if (rc != strings[i].code || strcmp(err.message, strings[i].message) != 0)
            fail_msg("string %zu: got %d \"%s\"", i, rc, err.message);
        cw_review_request_free(&r);
        free(body);
    }
}

static char *b64_decode(const char *in)
{
    size_t n = strlen(in);
    char *out = calloc(1, n + 1);
    int len = EVP_DecodeBlock((unsigned char *)out, (const unsigned char *)in, (int)n);
    if (len < 0)
        fail_msg("not base64: %s", in);
    len -= (n > 0 && in[n - 1] == '=') + (n > 1 && in[n - 2] == '=');
    out[len] = '\0';
    return out;
}

static void encodes_exact_responses(void **state)
{
    (void)state;
    const char *v1 =
        HEAD_V1 "\"request\":{\"uid\":\"u-1\"," KIND_RJ ",\"operation\":\"CREATE\",\"object\":{}}}";
    const char *v1beta1 =
        "{\"apiVersion\":\"admission.k8s.io/v1beta1\",\"kind\":\"AdmissionReview\","
        "\"request\":{\"uid\":\"a\\\"b/c\"," KIND_RJ ",\"operation\":\"CREATE\",\"object\":{}}}";
    const char *patch = "[{\"op\":\"add\",\"path\":\"/spec/concurrency\",\"value\":10},"
                        "{\"op\":\"add\",\"path\":\"/metadata/labels/a~1b\",\"value\":\"x/y\"}]";
    static const char *warn_items[] = {"spec.retain: 0 changed to 1", "second \"quoted\""};
    cw_strlist warnings = {.items = (char **)warn_items, .len = 2, .cap = 2};
    cw_strlist none = {0};

    static const struct {
        int v1beta1;
        int allowed;
        int with_patch, empty_patch, with_warnings;
        int code;
        const char *reason, *message;
        const char *want;
        const char *want_patch; /* decoded, NULL: none */
    } cases[] = {
        {0, 1, 0, 0, 0, 0, NULL, NULL, HEAD_V1 "\"response\":{\"uid\":\"u-1\",\"allowed\":true}}",
         NULL},
        {0, 1, 0, 1, 0, 0, NULL, NULL, HEAD_V1 "\"response\":{\"uid\":\"u-1\",\"allowed\":true}}",
         NULL},
        {0, 1, 1, 0, 1, 0, NULL, NULL,
         HEAD_V1 "\"response\":{\"uid\":\"u-1\",\"allowed\":true,\"patchType\":\"JSONPatch\","
                 "\"patch\":\"W3sib3AiOiJhZGQiLCJwYXRoIjoiL3NwZWMvY29uY3VycmVuY3kiLCJ2YWx1ZSI6MTB9"
                 "LHsib3AiOiJhZGQiLCJwYXRoIjoiL21ldGFkYXRhL2xhYmVscy9hfjFiIiwidmFsdWUiOiJ4L3kifV0"
                 "=\",\"warnings\":[\"spec.retain: 0 changed to 1\",\"second \\\"quoted\\\"\"]}}",
         "[{\"op\":\"add\",\"path\":\"/spec/concurrency\",\"value\":10},"
         "{\"op\":\"add\",\"path\":\"/metadata/labels/a~1b\",\"value\":\"x/y\"}]"},
        /* a denial never carries a patch, keeps warnings, defaults to 403 Forbidden */
        {0, 0, 1, 0, 1, 0, NULL, "spec.cron: must not be empty",
         HEAD_V1 "\"response\":{\"uid\":\"u-1\",\"allowed\":false,\"status\":{\"code\":403,"
                 "\"message\":\"spec.cron: must not be empty\",\"reason\":\"Forbidden\"},"
                 "\"warnings\":[\"spec.retain: 0 changed to 1\",\"second \\\"quoted\\\"\"]}}",
         NULL},
        {0, 0, 0, 0, 0, 422, "Invalid", "x",
         HEAD_V1 "\"response\":{\"uid\":\"u-1\",\"allowed\":false,\"status\":{\"code\":422,"
                 "\"message\":\"x\",\"reason\":\"Invalid\"}}}",
         NULL},
        /* v1beta1 is answered in v1beta1; the uid comes back byte for byte */
        {1, 1, 1, 0, 0, 0, NULL, NULL,
         "{\"apiVersion\":\"admission.k8s.io/v1beta1\",\"kind\":\"AdmissionReview\",\"response\":{"
         "\"uid\":\"a\\\"b/c\",\"allowed\":true,\"patchType\":\"JSONPatch\",\"patch\":\"W3sib3AiOiJ"
         "hZGQiLCJwYXRoIjoiL3NwZWMvY29uY3VycmVuY3kiLCJ2YWx1ZSI6MTB9LHsib3AiOiJhZGQiLCJwYXRoIjoiL2"
         "1ldGFkYXRhL2xhYmVscy9hfjFiIiwidmFsdWUiOiJ4L3kifV0=\"}}",
         "[{\"op\":\"add\",\"path\":\"/spec/concurrency\",\"value\":10},"
         "{\"op\":\"add\",\"path\":\"/metadata/labels/a~1b\",\"value\":\"x/y\"}]"},
        {1, 0, 0, 0, 0, 0, NULL, "denied",
         "{\"apiVersion\":\"admission.k8s.io/v1beta1\",\"kind\":\"AdmissionReview\",\"response\":{"
         "\"uid\":\"a\\\"b/c\",\"allowed\":false,\"status\":{\"code\":403,\"message\":\"denied\","
         "\"reason\":\"Forbidden\"}}}",
         NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_review_request r;
        cw_error err;
        cw_buf out;
        cw_buf_init(&out);
        cw_error_init(&err);
        const char *body = cases[i].v1beta1 ? v1beta1 : v1;
        assert_int_equal(cw_review_decode(body, strlen(body), &r, &err), CW_OK);
        json_object *p = cases[i].with_patch    ? json_tokener_parse(patch)
                         : cases[i].empty_patch ? json_object_new_array()
                                                : NULL;
        cw_review_response resp = {.allowed = cases[i].allowed,
                                   .patch = p,
                                   .warnings = cases[i].with_warnings ? &warnings : &none,
                                   .code = cases[i].code,
                                   .reason = cases[i].reason,
                                   .message = cases[i].message};
        assert_int_equal(cw_review_encode(&r, &resp, &out, &err), CW_OK);
        if (strcmp(cw_buf_str(&out), cases[i].want) != 0)
            fail_msg("case %zu:\n got  %s\n want %s", i, cw_buf_str(&out), cases[i].want);
        json_object *doc = json_tokener_parse(cw_buf_str(&out));
        json_object *b64 = NULL, *resp_obj = NULL;
        json_object_object_get_ex(doc, "response", &resp_obj);
        json_object_object_get_ex(resp_obj, "patch", &b64);
        if (cases[i].want_patch) {
            char *decoded = b64_decode(json_object_get_string(b64));
            assert_string_equal(decoded, cases[i].want_patch);
            free(decoded);
        } else {
            assert_null(b64);
        }
        json_object_put(doc);
        json_object_put(p);
        cw_buf_free(&out);
        cw_review_request_free(&r);
    }
}

/* Strings in the answer are escaped exactly as json-c would print them. */
static void strings_escape_like_json_c(void **state)
{
    (void)state;
    static const char *strings[] = {
        "plain",
        "a\"b\\c",
        "line\nbreak\r\ttab",
        "\x01\x1f\x7f",
        "\b\f",
        "/path/x",
        "\xc3\xbc"
        "n\xc3\xaf"
        "c\xc3\xb8"
        "d\xc3\xa9 \xe2\x80\xa8",
        "<name>&",
        "",
    };
    const char *body =
        HEAD_V1 "\"request\":{\"uid\":\"u\"," KIND_RJ ",\"operation\":\"CREATE\",\"object\":{}}}";
    for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
        cw_review_request r;
        cw_error err;
        cw_buf out;
        cw_buf_init(&out);
        cw_error_init(&err);
        assert_int_equal(cw_review_decode(body, strlen(body), &r, &err), CW_OK);
        cw_strlist w = {.items = (char **)&strings[i], .len = 1, .cap = 1};
        cw_review_response resp = {.allowed = 0, .warnings = &w, .message = strings[i]};
        assert_int_equal(cw_review_encode(&r, &resp, &out, &err), CW_OK);
        json_object *js = json_object_new_string(strings[i]);
        cw_buf want;
        cw_buf_init(&want);
        const char *q = json_object_to_json_string_ext(js, JSON_C_TO_STRING_NOSLASHESCAPE);
        cw_buf_printf(&want,
                      HEAD_V1
                      "\"response\":{\"uid\":\"u\",\"allowed\":false,\"status\":{\"code\":403,"
                      "\"message\":%s,\"reason\":\"Forbidden\"},\"warnings\":[%s]}}",
                      q, q);
        assert_string_equal(cw_buf_str(&out), cw_buf_str(&want));
        json_object_put(js);
        cw_buf_free(&want);
        cw_buf_free(&out);
        cw_review_request_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decodes_both_versions),
        cmocka_unit_test(malformed_requests_are_refused),
        cmocka_unit_test(limits_are_enforced),
        cmocka_unit_test(encodes_exact_responses),
        cmocka_unit_test(strings_escape_like_json_c),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
