/* lib/metrics: exact Prometheus text for counters, gauges and histograms, escaping, series
 * removed, misuse, and concurrent updates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/metrics.h"

static void renders_exact_text(void **state)
{
    (void)state;
    cw_metrics m;
    cw_metric *req, *inflight, *lat;
    cw_error err;
    cw_error_init(&err);
    cw_metrics_init(&m);
    static const char *const labels[] = {"kind", "outcome", NULL};
    static const char *const route[] = {"route", NULL};
    static const double bounds[] = {0.0001, 0.001, 0.5};
    assert_int_equal(cw_metrics_counter(&m, "cw_requests_total", "Requests \\ by \"kind\".\nMore.",
                                        labels, &req, &err),
                     CW_OK);
    assert_int_equal(cw_metrics_gauge(&m, "cw_in_flight", "In flight.", NULL, &inflight, &err),
                     CW_OK);
    assert_int_equal(
        cw_metrics_histogram(&m, "cw_latency_seconds", "Latency.", route, bounds, 3, &lat, &err),
        CW_OK);

    const char *v1[] = {"Volume", "patched"}, *v2[] = {"RecurringJob", "denied"},
               *v3[] = {"a\"b\\c\nd", "x"};
    cw_metrics_add(req, v1, 1);
    cw_metrics_add(req, v1, 2);
    cw_metrics_add(req, v2, 1);
    cw_metrics_add(req, v3, 0.5);
    cw_metrics_add(inflight, NULL, 3);
    cw_metrics_add(inflight, NULL, -1);
    const char *mut[] = {"mutate"};
    cw_metrics_observe(lat, mut, 0.00005);
    cw_metrics_observe(lat, mut, 0.0001); /* on the bound: le is inclusive */
    cw_metrics_observe(lat, mut, 0.3);
    cw_metrics_observe(lat, mut, 7);

    cw_buf out;
    cw_buf_init(&out);
    assert_int_equal(cw_metrics_render(&m, &out), CW_OK);
    assert_string_equal(cw_buf_str(&out),
                        "# HELP cw_requests_total Requests \\\\ by \"kind\".\\nMore.\n"
                        "# TYPE cw_requests_total counter\n"
                        "cw_requests_total{kind=\"RecurringJob\",outcome=\"denied\"} 1\n"
                        "cw_requests_total{kind=\"Volume\",outcome=\"patched\"} 3\n"
                        "cw_requests_total{kind=\"a\\\"b\\\\c\\nd\",outcome=\"x\"} 0.5\n"
                        "# HELP cw_in_flight In flight.\n"
                        "# TYPE cw_in_flight gauge\n"
                        "cw_in_flight 2\n"
                        "# HELP cw_latency_seconds Latency.\n"
                        "# TYPE cw_latency_seconds histogram\n"
                        "cw_latency_seconds_bucket{route=\"mutate\",le=\"0.0001\"} 2\n"
                        "cw_latency_seconds_bucket{route=\"mutate\",le=\"0.001\"} 2\n"
                        "cw_latency_seconds_bucket{route=\"mutate\",le=\"0.5\"} 3\n"
                        "cw_latency_seconds_bucket{route=\"mutate\",le=\"+Inf\"} 4\n"
                        "cw_latency_seconds_sum{route=\"mutate\"} 7.30015\n"
                        "cw_latency_seconds_count{route=\"mutate\"} 4\n");
    assert_true(cw_metrics_value(req, v1) == 3);
    assert_true(cw_metrics_value(lat, mut) == 4);
    assert_true(cw_metrics_value(req, (const char *[]){"none", "none"}) == 0);
    cw_buf_free(&out);
    cw_metrics_free(&m);
}

/* A series removed is gone from the text, the others stay; removing one absent is a no-op. */
static void series_removed(void **state)
{
    (void)state;
    cw_metrics m;
    cw_metric *g;
    cw_error err;
    cw_error_init(&err);
    cw_metrics_init(&m);
    static const char *const labels[] = {"name", NULL};
    assert_int_equal(cw_metrics_gauge(&m, "cw_next", "Next.", labels, &g, &err), CW_OK);
    const char *a[] = {"a"}, *b[] = {"b"}, *c[] = {"c"};
    cw_metrics_set(g, a, 1);
    cw_metrics_set(g, b, 2);
    cw_metrics_set(g, c, 3);
    assert_int_equal(cw_metrics_remove(g, b), 1);
    assert_int_equal(cw_metrics_remove(g, b), 0);
    assert_int_equal(cw_metrics_remove(NULL, b), 0);
    cw_metrics_set(g, c, 4);
    cw_buf out;
    cw_buf_init(&out);
    assert_int_equal(cw_metrics_render(&m, &out), CW_OK);
    assert_string_equal(cw_buf_str(&out), "# HELP cw_next Next.\n"
                                          "# TYPE cw_next gauge\n"
                                          "cw_next{name=\"a\"} 1\n"
                                          "cw_next{name=\"c\"} 4\n");
    cw_buf_free(&out);
    cw_metrics_free(&m);
}

static void misuse_is_refused(void **state)
{
    (void)state;
    cw_metrics m;
    cw_metric *c, *g;
    cw_error err;
    cw_error_init(&err);
    cw_metrics_init(&m);
    static const struct {
        const char *name;
        const char *label;
        int code;
        const char *message;
    } cases[] = {
        {"ok_total", NULL, CW_OK, ""},
        {"ok_total", NULL, CW_ECONFLICT, "metric 'ok_total' is already registered"},
        {"9starts_with_digit", NULL, CW_EINVAL, "metric name '9starts_with_digit' is not valid"},
        {"has-dash", NULL, CW_EINVAL, "metric name 'has-dash' is not valid"},
        {"bad_label_total", "a:b", CW_EINVAL,
         "bad_label_total: label 'a:b' is not valid or one too many"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *labels[] = {cases[i].label, NULL};
        cw_error_init(&err);
        int rc = cw_metrics_counter(&m, cases[i].name, "h", labels, &c, &err);
        assert_int_equal(rc, cases[i].code);
        assert_string_equal(err.message, cases[i].message);
    }
    static const double unordered[] = {1, 0.5};
    assert_int_equal(cw_metrics_histogram(&m, "h_seconds", "h", NULL, unordered, 2, &g, &err),
                     CW_EINVAL);
    assert_string_equal(err.message, "h_seconds: bucket bounds must increase");
    assert_int_equal(cw_metrics_gauge(&m, "g", "g", NULL, &g, &err), CW_OK);
    assert_int_equal(cw_metrics_counter(&m, "c_total", "c", NULL, &c, &err), CW_OK);
    assert_int_equal(cw_metrics_add(c, NULL, -1), CW_EINVAL); /* counters only go up */
    assert_int_equal(cw_metrics_set(c, NULL, 1), CW_EINVAL);  /* not a gauge */
    assert_int_equal(cw_metrics_observe(g, NULL, 1), CW_EINVAL);
    assert_int_equal(cw_metrics_set(g, NULL, 1767225600), CW_OK);
    /* A family found by its name (shared by two parts of a process); none under another name. */
    assert_ptr_equal(cw_metrics_find(&m, "g"), g);
    assert_ptr_equal(cw_metrics_find(&m, "c_total"), c);
    assert_null(cw_metrics_find(&m, "g_total"));
    assert_null(cw_metrics_find(&m, ""));
    cw_buf out;
    cw_buf_init(&out);
    cw_metrics_render(&m, &out);
    assert_non_null(strstr(cw_buf_str(&out), "\ng 1767225600\n"));
    cw_buf_free(&out);
    cw_metrics_free(&m);
}

typedef struct {
    cw_metric *c, *h;
} pair;

static void *hammer(void *arg)
{
    pair *p = arg;
    const char *v[] = {"x"};
    for (int i = 0; i < 20000; i++) {
        cw_metrics_add(p->c, v, 1);
        cw_metrics_observe(p->h, v, 0.001);
    }
    return NULL;
}

static void concurrent_updates_add_up(void **state)
{
    (void)state;
    cw_metrics m;
    pair p;
    cw_error err;
    static const char *const labels[] = {"l", NULL};
    static const double bounds[] = {0.01};
    cw_metrics_init(&m);
    assert_int_equal(cw_metrics_counter(&m, "n_total", "n", labels, &p.c, &err), CW_OK);
    assert_int_equal(cw_metrics_histogram(&m, "d_seconds", "d", labels, bounds, 1, &p.h, &err),
                     CW_OK);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, hammer, &p);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    const char *v[] = {"x"};
    assert_true(cw_metrics_value(p.c, v) == 80000);
    assert_true(cw_metrics_value(p.h, v) == 80000);
    cw_metrics_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(renders_exact_text),
        cmocka_unit_test(series_removed),
        cmocka_unit_test(misuse_is_refused),
        cmocka_unit_test(concurrent_updates_add_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
