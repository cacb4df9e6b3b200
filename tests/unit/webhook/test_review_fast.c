/* The fast AdmissionReview decode (webhook/review_fast.c) against the reference, every byte
 * through json-c (cw_webhook_admit_reference): for each case, both routes, both answers must be
 * identical — status, body, outcome, kind — and the fast path must take exactly the bodies the
 * table says it takes. Besides the table: every body of the fuzz corpus and of bench/webhook. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cron/tz.h"
#include "lib/buf.h"
#include "webhook/admit.h"

#define HEAD "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
#define RJ   "\"kind\":{\"group\":\"longhorn.io\",\"version\":\"v1beta2\",\"kind\":\"RecurringJob\"}"
#define VOL  "\"kind\":{\"group\":\"longhorn.io\",\"version\":\"v1beta2\",\"kind\":\"Volume\"}"
#define RJOBJ                                                                                      \
    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"RecurringJob\",\"metadata\":{\"name\":"    \
    "\"daily\"},\"spec\":{\"task\":\"snapshot\",\"cron\":\"0 1 * * *\",\"retain\":3}}"

static cw_tzdb tzdb;
static cw_policy_config policy;

static int setup(void **state)
{
    (void)state;
    cw_error err;
    cw_error_init(&err);
    if (cw_tzdb_init(&tzdb, NULL, &err) != CW_OK || cw_policy_config_init(&policy) != CW_OK)
        return -1;
    policy.tzdb = &tzdb;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cw_policy_config_free(&policy);
    cw_tzdb_free(&tzdb);
    return 0;
}

/* Both routes: the fast answer equals the reference's; returns whether the fast path took it. */
static int same_answer(const char *what, const char *body, size_t len)
{
    int handled = 0;
    cw_review_request r;
    cw_error err;
    cw_error_init(&err);
    int rc = cw_review_decode_fast(body, len, &r, &handled, &err);
    assert_true(rc == CW_OK || handled);
    cw_review_request_free(&r);
    for (int route = 0; route < 2; route++) {
        cw_webhook_result ref, fast;
        cw_webhook_result_init(&ref);
        cw_webhook_result_init(&fast);
        char *copy = malloc(len + 1);
        assert_non_null(copy);
        memcpy(copy, body, len);
        int rrc = cw_webhook_admit_reference(&policy, (cw_webhook_route)route, body, len, &ref);
        int frc = cw_webhook_admit(&policy, (cw_webhook_route)route, copy, len, &fast);
        if (rrc != frc || ref.status != fast.status || ref.body.len != fast.body.len ||
            memcmp(ref.body.data, fast.body.data, ref.body.len) != 0 ||
            strcmp(ref.outcome, fast.outcome) != 0 || strcmp(ref.kind_label, fast.kind_label) != 0)
            fail_msg("%s (route %d): reference %u %.*s, fast %u %.*s", what, route, ref.status,
                     (int)ref.body.len, ref.body.data, fast.status, (int)fast.body.len,
                     fast.body.data);
        cw_webhook_result_free(&ref);
        cw_webhook_result_free(&fast);
        free(copy);
    }
    return handled;
}

static void table(void **state)
{
    (void)state;
    static const struct {
        const char *name, *body;
        int handled;
    } cases[] = {
        {"create",
         HEAD "\"request\":{\"uid\":\"u1\"," RJ ",\"operation\":\"CREATE\",\"object\":" RJOBJ
              ",\"userInfo\":{\"username\":\"x\",\"groups\":[\"a\",\"b\"]}}}",
         1},
        {"invalid cron denied",
         HEAD "\"request\":{\"uid\":\"u2\"," RJ ",\"operation\":\"CREATE\",\"object\":{\"spec\":{"
              "\"task\":\"snapshot\",\"cron\":\"61 * * * *\"}}}}",
         1},
        {"update with oldObject",
         HEAD "\"request\":{\"uid\":\"u3\"," RJ ",\"operation\":\"UPDATE\",\"object\":" RJOBJ
              ",\"oldObject\":" RJOBJ "}}",
         1},
        {"volume labels and skipped managedFields",
         HEAD "\"request\":{\"uid\":\"u4\"," VOL ",\"operation\":\"CREATE\",\"object\":{"
              "\"metadata\":{\"name\":\"v\",\"labels\":{\"a\":\"b\"},\"managedFields\":[{\"f\":"
              "{\"x\":[1,2.5e3,-0,true,null]}}]},\"spec\":{},\"status\":{\"state\":\"x\"}}}}",
         1},
        {"duplicate request: the last wins, whole",
         HEAD "\"request\":{\"uid\":\"first\"," RJ ",\"operation\":\"CREATE\",\"object\":" RJOBJ
              "},\"request\":{\"uid\":\"second\",\"kind\":{\"version\":\"v1\",\"kind\":\"Pod\"},"
              "\"operation\":\"DELETE\"}}",
         1},
        {"duplicate spec inside the object",
         HEAD "\"request\":{\"uid\":\"u5\"," RJ ",\"operation\":\"CREATE\",\"object\":{\"spec\":{"
              "\"task\":\"backup\"},\"spec\":{\"cron\":\"* * * * *\",\"task\":\"snapshot\"}}}}",
         1},
        {"missing uid: the decoder's own message",
         HEAD "\"request\":{" RJ ",\"operation\":\"CREATE\",\"object\":{}}}", 1},
        {"object of the wrong type",
         HEAD "\"request\":{\"uid\":\"u6\"," RJ ",\"operation\":\"CREATE\",\"object\":[1]}}", 1},
        {"metadata of the wrong type",
         HEAD "\"request\":{\"uid\":\"u7\"," VOL ",\"operation\":\"CREATE\",\"object\":{"
              "\"metadata\":7}}}",
         1},
        {"number at the end of a member",
         HEAD "\"request\":{\"uid\":\"u8\"," RJ ",\"operation\":\"CREATE\",\"object\":{\"spec\":{"
              "\"retain\":12}},\"dryRun\":false}}",
         1},
        {"null object on DELETE",
         HEAD "\"request\":{\"uid\":\"u9\"," RJ
              ",\"operation\":\"DELETE\",\"object\":null,\"oldObject\":"
              "null}}",
         1},
        {"escaped uid value",
         HEAD "\"request\":{\"uid\":\"a\\u00e9\\\"b\"," RJ ",\"operation\":\"CREATE\",\"object\":"
              "{}}}",
         1},
        {"escaped key where names matter: the full decode",
         HEAD "\"request\":{\"u\\u0069d\":\"u10\"," RJ ",\"operation\":\"CREATE\",\"object\":{}}}",
         0},
        {"escaped key in a skipped part is fine",
         HEAD "\"request\":{\"uid\":\"u11\"," RJ ",\"operation\":\"CREATE\",\"object\":{},"
              "\"userInfo\":{\"extra\":{\"k\\u0065y\":[\"v\"]}}}}",
         1},
        {"syntax error: the full decode", HEAD "\"request\":{\"uid\":\"u12\",}}", 0},
        {"syntax error in a skipped part",
         HEAD "\"request\":{\"uid\":\"u13\"," RJ ",\"operation\":\"CREATE\",\"object\":{},"
              "\"options\":{\"a\":tru}}}",
         0},
        {"not an object", "[1,2]", 0},
        {"empty", "", 0},
        {"trailing data", HEAD "\"request\":{}} x", 0},
        {"whitespace around",
         " \n" HEAD "\"request\":{\"uid\":\"u14\"," RJ ",\"operation\":\"CONNECT\"}}\r\n", 1},
        {"invalid UTF-8", HEAD "\"request\":{\"uid\":\"\xff\"}}", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int handled = same_answer(cases[i].name, cases[i].body, strlen(cases[i].body));
        if (handled != cases[i].handled)
            fail_msg("%s: fast path %s", cases[i].name, handled ? "took it" : "left it");
    }
}

/* Nesting: up to the limit the answers agree, whichever path takes them. */
static void nesting(void **state)
{
    (void)state;
    for (int depth = 55; depth <= 70; depth++) {
        cw_buf b;
        cw_buf_init(&b);
        assert_int_equal(cw_buf_puts(&b, HEAD "\"request\":{\"uid\":\"d\"," RJ
                                              ",\"operation\":\"CREATE\",\"object\":{},\"x\":"),
                         CW_OK);
        for (int i = 0; i < depth; i++)
            assert_int_equal(cw_buf_putc(&b, '['), CW_OK);
        for (int i = 0; i < depth; i++)
            assert_int_equal(cw_buf_putc(&b, ']'), CW_OK);
        assert_int_equal(cw_buf_puts(&b, "}}"), CW_OK);
        char what[32];
        snprintf(what, sizeof(what), "depth %d", depth);
        int handled = same_answer(what, b.data, b.len);
        /* the review and its request hold the arrays: two levels */
        assert_int_equal(handled, depth + 2 <= CW_REVIEW_MAX_DEPTH - 2);
        cw_buf_free(&b);
    }
}

static int read_file(const char *path, char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    cw_buf b;
    cw_buf_init(&b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        assert_int_equal(cw_buf_append(&b, chunk, n), CW_OK);
    fclose(f);
    *data = b.data ? b.data : strdup("");
    *len = b.len;
    return 0;
}

/* Every file in dir; returns how many the fast path took. */
static size_t directory(const char *dir, size_t *files)
{
    const char *src = getenv("CW_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", src ? src : ".", dir);
    DIR *d = opendir(path);
    if (!d)
        fail_msg("cannot open %s", path);
    size_t taken = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char file[8192];
        snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
        char *data = NULL;
        size_t len = 0;
        assert_int_equal(read_file(file, &data, &len), 0);
        taken += (size_t)same_answer(file, data, len);
        (*files)++;
        free(data);
    }
    closedir(d);
    return taken;
}

static void corpora(void **state)
{
    (void)state;
    size_t files = 0;
    directory("tests/fuzz/corpus/fuzz_admission", &files);
    assert_true(files >= 50);
    /* The benchmark's realistic reviews (managedFields, userInfo, ...) all take the fast path. */
    size_t bench = 0;
    assert_int_equal(directory("bench/webhook", &bench), 3);
    assert_int_equal(bench, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table),
        cmocka_unit_test(nesting),
        cmocka_unit_test(corpora),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
