/* A reconciler in its shell (controller/core/shell.h) against scripted API answers, for the
 * shells' unit tests: every request the reconciler makes is compared, in order, with a script of
 * "<METHOD> <path prefix> <status> <body>" lines, which also answers it (no network). The caches
 * are filled by the informers' first LISTs, answered by the script's first lines in the
 * descriptor's informer order (not those of an optional resource not served); later cache states
 * are put in by the test. The clock is fixed. */
#ifndef CW_TEST_SHELL_H
#define CW_TEST_SHELL_H

#include "ctrl_test.h"

#include "controller/core/shell.h"
#include "kube/client.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/metrics.h"
#include "tests/unit/kube/fake_client.h"

#define NOW_MS 1767225600000LL /* 2026-01-01T00:00:00Z */
#define STATUS(code, reason)                                                                       \
    "{\"kind\":\"Status\",\"code\":" #code ",\"reason\":\"" reason "\",\"message\":\"" reason "\"" \
    "}"

typedef struct script {
    const char *const *answers; /* "<METHOD> <path prefix> <status> <body>" */
    size_t n, i;
    char failure[3000];
    char *sent[64]; /* the body of request i (NULL: none), for shell_sent */
} script;

typedef struct shell_fixture {
    script s;
    cw_kube_client *kube;
    cw_queue q;
    cw_metrics metrics;
    cw_shell_metrics sm;
    cw_informer_metrics im;
    cw_shell *shell;
} shell_fixture;

static int scripted(void *ud, const char *method, const char *path, int attempt, cw_kube_fault *f)
{
    (void)attempt;
    script *s = ud;
    static char body[8192];
    char req[1200], want[1200];
    snprintf(req, sizeof(req), "%s %s", method, path);
    f->status = 500;
    if (s->i >= s->n) {
        if (!s->failure[0])
            snprintf(s->failure, sizeof(s->failure), "unexpected request %s", req);
        return 1;
    }
    /* "<METHOD> <path> <status> <body>": the request is what comes before the status. */
    if (s->i < sizeof(s->sent) / sizeof(s->sent[0]) && f->request_body)
        s->sent[s->i] = strndup(f->request_body, f->request_body_len);
    const char *a = s->answers[s->i++];
    const char *sp = strchr(strchr(a, ' ') + 1, ' ');
    snprintf(want, sizeof(want), "%.*s", (int)(sp - a), a);
    snprintf(body, sizeof(body), "%s", strchr(sp + 1, ' ') + 1);
    if (strncmp(req, want, strlen(want)) != 0 && !s->failure[0])
        snprintf(s->failure, sizeof(s->failure), "request %zu: %s\n want: %s...", s->i, req, want);
    f->status = strtol(sp + 1, NULL, 10);
    f->body = body;
    return 1;
}

static int64_t fixed_clock(void *ud)
{
    (void)ud;
    return NOW_MS;
}

/* The reconciler r with config cfg, its caches filled by the script's first LISTs. */
__attribute__((unused)) static void shell_start(shell_fixture *f, const cw_reconciler_ops *r,
                                                const void *cfg, const char *const *answers,
                                                size_t n)
{
    cw_error err;
    cw_error_init(&err);
    memset(f, 0, sizeof(*f));
    f->s.answers = answers;
    f->s.n = n;
    cw_kube_client_opts o;
    cw_kube_client_opts_init(&o);
    o.fault = scripted;
    o.fault_ud = &f->s;
    o.max_attempts = 1;
    f->kube = fake_kube_client(&o, NULL, NULL);
    cw_metrics_init(&f->metrics);
    assert_int_equal(cw_queue_init(&f->q, NULL, &err), CW_OK);
    assert_int_equal(cw_shell_metrics_register(&f->metrics, &f->sm, &err), CW_OK);
    assert_int_equal(cw_informer_metrics_register(&f->metrics, &f->im, &err), CW_OK);
    cw_shell_env env = {
        .kube = f->kube,
        .queue = &f->q,
        .config = cfg,
        .metrics = &f->metrics,
        .shell_metrics = &f->sm,
        .informer_metrics = &f->im,
        .clock = fixed_clock,
    };
    if (cw_shell_new(r, &env, &f->shell, &err) != CW_OK)
        fail_msg("shell: %s", err.message);
    for (size_t i = 0; i < r->ninformers; i++) {
        int listed = 0; /* rows of one resource share its informer: one LIST */
        for (size_t j = 0; j < i; j++)
            listed |= cw_shell_informer(f->shell, j) == cw_shell_informer(f->shell, i);
        if (!listed && !cw_shell_absent(f->shell, i) &&
            cw_informer_relist(cw_shell_informer(f->shell, i), &err) != CW_OK)
            fail_msg("LIST of informer %zu: %s", i, err.message);
    }
    if (f->s.failure[0])
        fail_msg("LISTs: %s", f->s.failure);
}

/* One reconcile of key through the shell: its outcome (the series it counts), when it comes back
 * (requeue_in_ms from NOW_MS; -1: not on a timer), whether it is retried with backoff, and how
 * many requests it made. */
__attribute__((unused)) static void shell_reconcile(shell_fixture *f, const char *key,
                                                    const char *outcome, int64_t requeue_in_ms,
                                                    int retry, size_t requests, const char *label)
{
    cw_verdict v = {0};
    cw_error err;
    cw_error_init(&err);
    size_t before = f->s.i;
    int rc = cw_shell_reconcile(f->shell, key, &v, &err);
    if (f->s.failure[0])
        fail_msg("%s: %s", label, f->s.failure);
    int64_t want_at = requeue_in_ms < 0 ? 0 : NOW_MS + requeue_in_ms;
    const char *got = cw_verdict_outcome(&v);
    int64_t at = v.kind == CW_VERDICT_REQUEUE ? v.at_ms : 0;
    int retried = v.kind == CW_VERDICT_BACKOFF;
    if (strcmp(got, outcome) || at != want_at || retried != retry || f->s.i - before != requests ||
        (rc != CW_OK) != !strcmp(outcome, "error"))
        fail_msg("%s: outcome %s, requeue in %lld ms, retry %d, %zu requests (%s); want %s, %lld, "
                 "%d, %zu",
                 label, got, at ? (long long)(at - NOW_MS) : -1LL, retried, f->s.i - before,
                 err.message, outcome, (long long)requeue_in_ms, retry, requests);
}

/* The watch brings obj (JSON with ' for ") into informer i's cache. */
__attribute__((unused)) static void shell_cached(shell_fixture *f, size_t i, const char *obj)
{
    json_object *o = tjson(obj);
    char key[CW_CTRL_KEY_MAX];
    cw_error err;
    assert_int_equal(cw_ctrl_object_key(o, key, sizeof(key), &err), CW_OK);
    assert_int_equal(cw_ctrl_store_put(cw_shell_store(f->shell, i), key, o, NULL), CW_OK);
}

/* The watch brings the longhorn-manager DaemonSet, now running `image`, into informer i (a Longhorn
 * reconciler's); then a resync (enqueue_all) looks at everything. */
__attribute__((unused)) static void shell_manager_runs(shell_fixture *f, size_t i,
                                                       const char *image)
{
    char ds[512];
    snprintf(ds, sizeof(ds),
             "{'metadata':{'name':'longhorn-manager','namespace':'longhorn-system',"
             "'resourceVersion':'2'},'spec':{'template':{'spec':{'containers':[{'name':"
             "'longhorn-manager','image':'%s'}]}}}}",
             image);
    shell_cached(f, i, ds);
    assert_int_equal(cw_shell_enqueue_all(f->shell), CW_OK);
}

/* The value of a metrics series, as the exposition prints it ("name{l=\"v\"}"). An absent series
 * fails the test: a 0 expected of it must not pass because the series is not there (use
 * shell_has_series to check that one is gone). */
__attribute__((unused)) static int shell_has_series(shell_fixture *f, const char *series,
                                                    double *value)
{
    cw_buf b;
    int found = 0;
    cw_buf_init(&b);
    assert_int_equal(cw_metrics_render(&f->metrics, &b), CW_OK);
    for (const char *p = cw_buf_str(&b); p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = strlen(series);
        if (!strncmp(p, series, len) && p[len] == ' ') {
            found = 1;
            if (value)
                *value = strtod(p + len + 1, NULL);
        }
        p = nl ? nl + 1 : NULL;
    }
    cw_buf_free(&b);
    return found;
}

__attribute__((unused)) static double shell_metric(shell_fixture *f, const char *series)
{
    double v = 0;
    if (!shell_has_series(f, series, &v))
        fail_msg("series %s is not exposed", series);
    return v;
}

/* Each series of the metrics (name{labels}) has its value, or is not there at all (absent: a
 * counter never counted, an info series replaced). */
typedef struct shell_series {
    const char *series;
    double value;
    int absent;
} shell_series;
#define SHELL_ABSENT(series_)                                                                      \
    {                                                                                              \
        (series_), 0, 1                                                                            \
    }

__attribute__((unused)) static void shell_expect(shell_fixture *f, const shell_series *want,
                                                 size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double v = 0;
        int has = shell_has_series(f, want[i].series, &v);
        if (want[i].absent && has)
            fail_msg("%s: %g, want no such series", want[i].series, v);
        if (!want[i].absent && !has)
            fail_msg("%s: not exposed, want %g", want[i].series, want[i].value);
        if (!want[i].absent && v != want[i].value)
            fail_msg("%s: %g, want %g", want[i].series, v, want[i].value);
    }
}

/* What request i of the script (0: its first line) sent, parsed (the caller's; NULL: no body). */
__attribute__((unused)) static json_object *shell_sent(shell_fixture *f, size_t i)
{
    if (i >= sizeof(f->s.sent) / sizeof(f->s.sent[0]) || !f->s.sent[i])
        return NULL;
    json_object *o = json_tokener_parse(f->s.sent[i]);
    if (!o)
        fail_msg("request %zu sent no JSON: %s", i, f->s.sent[i]);
    return o;
}

__attribute__((unused)) static void shell_finish(shell_fixture *f)
{
    for (size_t i = 0; i < sizeof(f->s.sent) / sizeof(f->s.sent[0]); i++)
        free(f->s.sent[i]);
    if (f->s.i != f->s.n)
        fail_msg("%zu of %zu scripted answers used; next: %s", f->s.i, f->s.n,
                 f->s.answers[f->s.i]);
    cw_shell_free(f->shell);
    cw_queue_free(&f->q);
    cw_metrics_free(&f->metrics);
    cw_kube_client_free(f->kube);
}

/* main() of a shell test: the tests given, with logging off (failures log on purpose). */
#define SHELL_TEST_MAIN(...)                                                                       \
    int main(void)                                                                                 \
    {                                                                                              \
        const struct CMUnitTest tests_[] = {__VA_ARGS__};                                          \
        cw_log_configure(CW_LOG_OFF, CW_LOG_TEXT, stderr);                                         \
        return cmocka_run_group_tests(tests_, NULL, NULL);                                         \
    }

#define LIST(...)                                                                                  \
    "{\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"100\"},\"items\":[" __VA_ARGS__ "]}"

#endif
