/* Pure parts of kube: API paths and query escaping, Retry-After, backoff bounds, the token
 * bucket, which failures are retried, and error messages from Status bodies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/internal.h"
#include "kube/path.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void paths_for_core_group_and_scope(void **state)
{
    (void)state;
    static const struct {
        cw_kube_resource r;
        const char *name, *sub, *want;
        int rc;
    } cases[] = {
        {{NULL, "v1", "configmaps", "default"},
         NULL,
         NULL,
         "/api/v1/namespaces/default/configmaps",
         CW_OK},
        {{"", "v1", "namespaces", NULL},
         "kube-system",
         NULL,
         "/api/v1/namespaces/kube-system",
         CW_OK},
        {{"longhorn.io", "v1beta2", "volumes", "longhorn-system"},
         "pvc-1",
         NULL,
         "/apis/longhorn.io/v1beta2/namespaces/longhorn-system/volumes/pvc-1",
         CW_OK},
        {{"storage.k8s.io", "v1", "storageclasses", ""},
         "longhorn",
         NULL,
         "/apis/storage.k8s.io/v1/storageclasses/longhorn",
         CW_OK},
        {{"longhorn.io", "v1beta1", "volumes", "ns"},
         "v",
         "status",
         "/apis/longhorn.io/v1beta1/namespaces/ns/volumes/v/status",
         CW_OK},
        {{"velero.io", "v1", "schedules", NULL}, NULL, NULL, "/apis/velero.io/v1/schedules", CW_OK},
        /* Escaping: names cannot hold these, but a path must never be rewritten by them. */
        {{NULL, "v1", "configmaps", "a b"},
         "x/y?z",
         NULL,
         "/api/v1/namespaces/a%20b/configmaps/x%2Fy%3Fz",
         CW_OK},
        {{NULL, "v1", "configmaps", "ns"}, "..", NULL, NULL, CW_EINVAL},
        {{NULL, "v1", "configmaps", "ns"}, "", NULL, NULL, CW_EINVAL},
        {{NULL, NULL, "configmaps", "ns"}, "a", NULL, NULL, CW_EINVAL},
        {{NULL, "v1", NULL, "ns"}, "a", NULL, NULL, CW_EINVAL},
    };
    for (size_t i = 0; i < N(cases); i++) {
        cw_buf b;
        cw_error err;
        cw_buf_init(&b);
        cw_error_init(&err);
        int rc = cw_kube_path(&b, &cases[i].r, cases[i].name, cases[i].sub, &err);
        if (rc != cases[i].rc)
            fail_msg("case %zu: rc %d (%s)", i, rc, err.message);
        if (rc == CW_OK && strcmp(cw_buf_str(&b), cases[i].want) != 0)
            fail_msg("case %zu: got %s want %s", i, cw_buf_str(&b), cases[i].want);
        cw_buf_free(&b);
    }
}

static void query_values_are_escaped(void **state)
{
    (void)state;
    cw_buf b;
    cw_error err;
    cw_buf_init(&b);
    cw_buf_puts(&b, "/api/v1/configmaps");
    assert_int_equal(cw_kube_query(&b, "labelSelector", "app in (a,b),tier!=x", &err), CW_OK);
    assert_int_equal(cw_kube_query(&b, "continue", "eyJ2Ijoi+/=", &err), CW_OK);
    assert_int_equal(cw_kube_query(&b, "limit", "500", &err), CW_OK);
    assert_string_equal(cw_buf_str(&b), "/api/v1/configmaps?labelSelector=app%20in%20%28a%2Cb%29%"
                                        "2Ctier%21%3Dx&continue=eyJ2Ijoi%2B%2F%3D&limit=500");
    cw_buf_free(&b);
}

static void retry_after_forms(void **state)
{
    (void)state;
    time_t now = 1445412480; /* Wed, 21 Oct 2015 07:28:00 GMT */
    static const struct {
        const char *in;
        int rc;
        double want;
    } cases[] = {
        {"0", CW_OK, 0},
        {"1", CW_OK, 1},
        {" 120 ", CW_OK, 120},
        {"99999999999999", CW_OK, 86400},
        {"Wed, 21 Oct 2015 07:28:10 GMT", CW_OK, 10},
        {"Wed, 21 Oct 2015 07:27:00 GMT", CW_OK, 0}, /* in the past */
        {"", CW_EINVAL, 0},
        {"-1", CW_EINVAL, 0},
        {"1.5", CW_EINVAL, 0},
        {"soon", CW_EINVAL, 0},
    };
    for (size_t i = 0; i < N(cases); i++) {
        double got = -1;
        int rc = cw_kube_parse_retry_after(cases[i].in, now, &got);
        if (rc != cases[i].rc)
            fail_msg("\"%s\": rc %d want %d", cases[i].in, rc, cases[i].rc);
        if (rc == CW_OK && fabs(got - cases[i].want) > 1e-9)
            fail_msg("\"%s\": %g want %g", cases[i].in, got, cases[i].want);
    }
    double d;
    assert_int_equal(cw_kube_parse_retry_after(NULL, now, &d), CW_EINVAL);
}

static void backoff_is_full_jitter_within_bounds(void **state)
{
    (void)state;
    /* retry n sleeps in [0, min(cap, base * 2^(n-1))) */
    static const struct {
        int retry;
        double base, cap, u, want;
    } cases[] = {
        {1, 0.2, 10, 0.0, 0.0},  {1, 0.2, 10, 0.5, 0.1},
        {2, 0.2, 10, 0.5, 0.2},  {3, 0.2, 10, 1.0, 0.8 * 0.999999},
        {10, 0.2, 10, 0.5, 5.0}, {100, 0.2, 10, 0.5, 5.0},
        {0, 0.2, 10, 0.5, 0.1},
    };
    for (size_t i = 0; i < N(cases); i++) {
        double got = cw_kube_backoff(cases[i].retry, cases[i].base, cases[i].cap, cases[i].u);
        if (fabs(got - cases[i].want) > 1e-9)
            fail_msg("case %zu: %g want %g", i, got, cases[i].want);
    }
    unsigned long long rng = 42;
    for (int retry = 1; retry <= 12; retry++) {
        double ceiling = fmin(10, 0.2 * pow(2, retry - 1));
        double lo = 1e9, hi = -1;
        for (int k = 0; k < 2000; k++) {
            double d = cw_kube_backoff(retry, 0.2, 10, cw_kube_rand(&rng));
            assert_true(d >= 0 && d < ceiling);
            lo = fmin(lo, d);
            hi = fmax(hi, d);
        }
        /* full jitter spreads over the whole range */
        assert_true(lo < ceiling * 0.05);
        assert_true(hi > ceiling * 0.95);
    }
}

static void token_bucket_allows_burst_then_qps(void **state)
{
    (void)state;
    cw_kube_bucket b;
    cw_kube_bucket_init(&b, 10, 3, 100.0);
    assert_true(cw_kube_bucket_reserve(&b, 100.0) == 0);
    assert_true(cw_kube_bucket_reserve(&b, 100.0) == 0);
    assert_true(cw_kube_bucket_reserve(&b, 100.0) == 0);
    /* the bucket is empty: the 4th waits 0.1 s, the 5th 0.2 s (reservations queue up) */
    assert_true(fabs(cw_kube_bucket_reserve(&b, 100.0) - 0.1) < 1e-9);
    assert_true(fabs(cw_kube_bucket_reserve(&b, 100.0) - 0.2) < 1e-9);
    /* after a second of quiet it is full again, never more than burst */
    assert_true(cw_kube_bucket_reserve(&b, 102.0) == 0);
    assert_true(cw_kube_bucket_reserve(&b, 102.0) == 0);
    assert_true(cw_kube_bucket_reserve(&b, 102.0) == 0);
    assert_true(cw_kube_bucket_reserve(&b, 102.0) > 0);
    cw_kube_bucket_init(&b, 0, 1, 0);
    for (int i = 0; i < 1000; i++)
        assert_true(cw_kube_bucket_reserve(&b, 0) == 0);
}

/* The client-side limit once the server is known: explicit settings win; with qps_auto the server's
 * API Priority and Fairness replaces it, and without APF qps and burst hold. */
static void limit_follows_api_priority_and_fairness(void **state)
{
    (void)state;
    static const struct {
        double qps;
        int burst, qps_auto, apf;
        double want_qps;
        int want_burst;
        const char *want_why;
    } cases[] = {
        /* migrate without --qps: qps 1000, burst 1000 are the no-APF fallback */
        {1000, 1000, 1, 1, 0, 1000,
         "none: the server has API Priority and Fairness (bounded by concurrency and the server's "
         "429 + Retry-After)"},
        {1000, 1000, 1, 0, 1000, 1000, "the server has no API Priority and Fairness"},
        /* migrate --qps 50 --burst 5: held whatever the server */
        {50, 5, 0, 1, 50, 5, "set explicitly"},
        {50, 5, 0, 0, 50, 5, "set explicitly"},
        /* migrate --qps -1 (or 0): no client-side limit at all */
        {-1, 1000, 0, 1, -1, 1000, "none set"},
        {-1, 1000, 0, 0, -1, 1000, "none set"},
        {0, 1000, 0, 0, 0, 1000, "none set"},
        /* an auto fallback of no limit stays no limit */
        {0, 1000, 1, 0, 0, 1000, "none set"},
        /* the library's defaults (controller, webhook): fixed 100/200 */
        {100, 200, 0, 1, 100, 200, "set explicitly"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        cw_kube_client_opts o;
        cw_kube_client_opts_init(&o);
        o.qps = cases[i].qps;
        o.burst = cases[i].burst;
        o.qps_auto = cases[i].qps_auto;
        cw_kube_limit lim;
        cw_kube_choose_limit(&o, cases[i].apf, &lim);
        if (lim.qps != cases[i].want_qps || lim.burst != cases[i].want_burst ||
            strcmp(lim.why, cases[i].want_why) != 0)
            fail_msg("case %zu: got qps %g burst %d (%s)", i, lim.qps, lim.burst, lim.why);
    }
}

static void what_is_retried(void **state)
{
    (void)state;
    static const long retried[] = {429, 500, 502, 503, 504};
    static const long final[] = {200, 400, 401, 403, 404, 409, 410, 422};
    for (size_t i = 0; i < N(retried); i++)
        assert_true(cw_kube_status_retryable(retried[i]));
    for (size_t i = 0; i < N(final); i++)
        assert_false(cw_kube_status_retryable(final[i]));
    assert_true(cw_kube_curl_retryable(CURLE_COULDNT_CONNECT));
    assert_true(cw_kube_curl_retryable(CURLE_RECV_ERROR));
    assert_true(cw_kube_curl_retryable(CURLE_OPERATION_TIMEDOUT));
    assert_true(cw_kube_curl_retryable(CURLE_GOT_NOTHING));
    assert_false(cw_kube_curl_retryable(CURLE_PEER_FAILED_VERIFICATION));
    assert_false(cw_kube_curl_retryable(CURLE_SSL_CERTPROBLEM));
    assert_false(cw_kube_curl_retryable(CURLE_URL_MALFORMAT));
}

static void errors_carry_the_status_message(void **state)
{
    (void)state;
    static const struct {
        long status;
        const char *body;
        int code;
        const char *want;
    } cases[] = {
        {403,
         "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
         "\"message\":\"volumes.longhorn.io \\\"y\\\" is forbidden: User \\\"nobody\\\" cannot get "
         "resource \\\"volumes\\\" in API group \\\"longhorn.io\\\" in the namespace \\\"x\\\"\","
         "\"reason\":\"Forbidden\",\"details\":{\"name\":\"y\",\"group\":\"longhorn.io\","
         "\"kind\":\"volumes\"},\"code\":403}",
         CW_EHTTP,
         "GET https://h/apis/longhorn.io/v1beta1/namespaces/x/volumes/y: 403 Forbidden: "
         "volumes.longhorn.io \"y\" is forbidden: User \"nobody\" cannot get resource \"volumes\" "
         "in API group \"longhorn.io\" in the namespace \"x\""},
        {404, "{\"kind\":\"Status\",\"message\":\"configmaps \\\"c\\\" not found\",\"code\":404}",
         CW_ENOTFOUND,
         "GET https://h/apis/longhorn.io/v1beta1/namespaces/x/volumes/y: 404 Not Found: "
         "configmaps \"c\" not found"},
        {409, "{\"kind\":\"Status\",\"message\":\"Operation cannot be fulfilled\",\"code\":409}",
         CW_ECONFLICT,
         "GET https://h/apis/longhorn.io/v1beta1/namespaces/x/volumes/y: 409 Conflict: "
         "Operation cannot be fulfilled"},
        {422, "{\"kind\":\"Status\",\"message\":\"\",\"reason\":\"Invalid\"}", CW_EHTTP,
         "GET https://h/apis/longhorn.io/v1beta1/namespaces/x/volumes/y: 422 Unprocessable "
         "Entity: Invalid"},
        {404, "404 page not found\nmore\n", CW_ENOTFOUND,
         "GET https://h/apis/longhorn.io/v1beta1/namespaces/x/volumes/y: 404 Not Found: 404 page "
         "not found"},
        {503, "", CW_EHTTP,
         "GET https://h/apis/longhorn.io/v1beta1/namespaces/x/volumes/y: 503 Service Unavailable"},
        {418, "{\"message\":\"tab\\there\"}", CW_EHTTP,
         "GET https://h/apis/longhorn.io/v1beta1/namespaces/x/volumes/y: 418 Client Error: tab "
         "here"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        cw_error err;
        cw_error_init(&err);
        int rc = cw_kube_http_error(&err, "GET",
                                    "https://h/apis/longhorn.io/v1beta1/namespaces/x/volumes/y",
                                    cases[i].status, cases[i].body, strlen(cases[i].body));
        assert_int_equal(rc, cases[i].code);
        assert_int_equal(err.code, cases[i].code);
        assert_int_equal(err.http_status, cases[i].status);
        if (strcmp(err.message, cases[i].want) != 0)
            fail_msg("case %zu:\n got %s\nwant %s", i, err.message, cases[i].want);
    }
    /* A huge message is cut, not the buffer overrun. */
    char big[5000];
    memset(big, 'm', sizeof(big));
    memcpy(big, "{\"message\":\"", 12);
    memcpy(big + sizeof(big) - 3, "\"}", 3);
    char out[600];
    cw_kube_body_message(big, strlen(big), out, sizeof(out));
    assert_true(strlen(out) < 600);
    assert_non_null(strstr(out, "..."));
}

static void json_parse_rejects_garbage(void **state)
{
    (void)state;
    json_object *o = NULL;
    cw_error err;
    assert_int_equal(cw_kube_parse_json("{\"a\":1}\n", 8, &o, &err), CW_OK);
    json_object_put(o);
    assert_int_equal(cw_kube_parse_json("{\"a\":1} x", 9, &o, &err), CW_EINVAL);
    assert_non_null(strstr(err.message, "trailing data"));
    assert_int_equal(cw_kube_parse_json("{\"a\":", 5, &o, &err), CW_EINVAL);
    assert_non_null(strstr(err.message, "not complete"));
    /* deeper than json-c's default 32 levels (CRD schemas are) */
    char deep[200];
    memset(deep, '[', 60);
    memset(deep + 60, ']', 60);
    assert_int_equal(cw_kube_parse_json(deep, 120, &o, &err), CW_OK);
    json_object_put(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paths_for_core_group_and_scope),
        cmocka_unit_test(query_values_are_escaped),
        cmocka_unit_test(retry_after_forms),
        cmocka_unit_test(backoff_is_full_jitter_within_bounds),
        cmocka_unit_test(token_bucket_allows_burst_then_qps),
        cmocka_unit_test(limit_follows_api_priority_and_fairness),
        cmocka_unit_test(what_is_retried),
        cmocka_unit_test(errors_carry_the_status_message),
        cmocka_unit_test(json_parse_rejects_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
