/* The reconcile verdict (controller/core/verdict.h) as the workers settle it
 * (cw_ctrl_workers_finish): for each verdict, said through its helper, what the work queue does
 * with the key — its backoff forgotten or counted, when it is handed out again, if ever — and
 * which series moves: cronwarden_controller_reconciles_total{controller,outcome} (exactly one
 * series, by one), the duration histogram, and the queue's retry count that
 * cronwarden_controller_queue_retries_total reports. The key has failed twice before each row, so
 * a forgotten backoff shows. The queue runs on a fake clock. */
#include "ctrl_test.h"

#include "controller/core/verdict.h"
#include "controller/core/workers.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/metrics.h"

#define T0      30 /* ms: the clock when the key is taken, after its two failures */
#define BASE_MS 10 /* the queue's first backoff; the third failure waits 4 x BASE_MS */

typedef enum { DONE, REQUEUE, BACKOFF, WAIT, HELD, GONE, DONE_THEN_BACKOFF } say_kind;

typedef struct {
    const char *label;
    say_kind say;
    int64_t at_ms;         /* REQUEUE: when (ms on the fake clock) */
    const char *outcome;   /* what the reconciler says (NULL: nothing) */
    int rc;                /* what the reconcile returned with it */
    const char *counted;   /* the outcome label of the one series that moves */
    int failures;          /* the key's failures afterwards */
    int64_t back_in_ms;    /* when the key is handed out again, from T0; -1: never (no timer) */
    unsigned long retries; /* the queue's retries counted */
} row;

static const row rows[] = {
    {"done with an outcome: the backoff forgotten, no timer", DONE, 0, "insync", CW_OK, "insync", 0,
     -1, 0},
    {"done without one: counted ok", DONE, 0, NULL, CW_OK, "ok", 0, -1, 0},
    {"requeue at a time: the backoff forgotten, the key back then", REQUEUE, T0 + 500, "waiting",
     CW_OK, "waiting", 0, 500, 0},
    {"requeue at a time that has passed: at once", REQUEUE, T0 - 5, "preempted", CW_OK, "preempted",
     0, 0, 0},
    {"requeue at 0: no timer, as done", REQUEUE, 0, "paused", CW_OK, "paused", 0, -1, 0},
    {"backoff: a retry after the third failure's backoff, counted error", BACKOFF, 0, NULL,
     CW_EHTTP, "error", 3, 4 * BASE_MS, 1},
    {"backoff after a done: a failure is counted error whatever was said", DONE_THEN_BACKOFF, 0,
     "created", CW_ECONFLICT, "error", 3, 4 * BASE_MS, 1},
    {"wait for a change: the backoff forgotten, no timer, counted error", WAIT, 0, NULL, CW_EINVAL,
     "error", 0, -1, 0},
    {"held with an outcome", HELD, 0, "standing_down", CW_OK, "standing_down", 0, -1, 0},
    {"held without one: counted held", HELD, 0, NULL, CW_OK, "held", 0, -1, 0},
    {"gone with an outcome", GONE, 0, "gone", CW_OK, "gone", 0, -1, 0},
    {"gone without one: counted deleted", GONE, 0, NULL, CW_OK, "deleted", 0, -1, 0},
};

static void say(const row *r, cw_verdict *v)
{
    switch (r->say) {
    case DONE:
        cw_verdict_done(v, r->outcome);
        break;
    case REQUEUE:
        cw_verdict_requeue_at(v, r->at_ms, r->outcome);
        break;
    case BACKOFF:
        cw_verdict_backoff(v);
        break;
    case WAIT:
        cw_verdict_wait(v);
        break;
    case HELD:
        cw_verdict_held(v, r->outcome);
        break;
    case GONE:
        cw_verdict_gone(v, r->outcome);
        break;
    case DONE_THEN_BACKOFF:
        cw_verdict_done(v, r->outcome);
        cw_verdict_backoff(v);
        break;
    }
}

static int64_t fake_now;
static int64_t fake_clock(void *ud)
{
    (void)ud;
    return fake_now;
}

/* The key handed out now, or NULL (the caller frees it). */
static char *take(cw_queue *q, int64_t at)
{
    char *key = NULL;
    fake_now = at;
    return cw_queue_get(q, 0, &key) == CW_OK ? key : NULL;
}

/* Fails k twice, as a worker would (taken, backed off, handed out again), and takes it. */
static void failed_twice(cw_queue *q)
{
    fake_now = 0;
    assert_int_equal(cw_queue_add_rate_limited(q, "ns/k"), CW_OK);
    char *k = take(q, BASE_MS);
    assert_non_null(k);
    cw_queue_done(q, k);
    free(k);
    assert_int_equal(cw_queue_add_rate_limited(q, "ns/k"), CW_OK);
    k = take(q, T0);
    assert_non_null(k);
    free(k);
}

/* The series of name (text before '{') that the exposition prints, one line each, in buf. */
static void series_of(cw_metrics *m, const char *name, char *buf, size_t len)
{
    cw_buf b;
    cw_buf_init(&b);
    assert_int_equal(cw_metrics_render(m, &b), CW_OK);
    buf[0] = 0;
    for (const char *p = cw_buf_str(&b); p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (!strncmp(p, name, strlen(name)) && p[strlen(name)] == '{')
            snprintf(buf + strlen(buf), len - strlen(buf), "%.*s\n", (int)n, p);
        p = nl ? nl + 1 : NULL;
    }
    cw_buf_free(&b);
}

/* A worker's world: the queue on the fake clock, the two families the workers move. */
typedef struct world {
    cw_queue q;
    cw_metrics m;
    cw_ctrl_workers_config c;
} world;

static void world_init(world *w)
{
    static const char *const ctl_outcome[] = {"controller", "outcome", NULL};
    static const char *const ctl[] = {"controller", NULL};
    static const double buckets[] = {1};
    cw_queue_opts o;
    cw_error err;
    cw_queue_opts_init(&o);
    o.base_delay = BASE_MS / 1000.0;
    o.clock = fake_clock;
    cw_metrics_init(&w->m);
    memset(&w->c, 0, sizeof(w->c));
    w->c.name = "toy";
    w->c.queue = &w->q;
    assert_int_equal(cw_queue_init(&w->q, &o, &err), CW_OK);
    assert_int_equal(cw_metrics_counter(&w->m, "cronwarden_controller_reconciles_total", "h",
                                        ctl_outcome, &w->c.m_reconciles, &err),
                     CW_OK);
    assert_int_equal(cw_metrics_histogram(&w->m, "cronwarden_controller_reconcile_duration_seconds",
                                          "h", ctl, buckets, 1, &w->c.m_duration, &err),
                     CW_OK);
}

static void world_free(world *w)
{
    cw_queue_free(&w->q);
    cw_metrics_free(&w->m);
}

/* The series that moved: exactly one reconcile counted, under r->counted, and timed. */
static void check_series(const row *r, world *w)
{
    char got[1024], want[1024];
    series_of(&w->m, "cronwarden_controller_reconciles_total", got, sizeof(got));
    snprintf(want, sizeof(want),
             "cronwarden_controller_reconciles_total{controller=\"toy\",outcome=\"%s\"} 1\n",
             r->counted);
    if (strcmp(got, want))
        fail_msg("%s: counted\n%s want\n%s", r->label, got, want);
    series_of(&w->m, "cronwarden_controller_reconcile_duration_seconds_count", got, sizeof(got));
    if (strcmp(got,
               "cronwarden_controller_reconcile_duration_seconds_count{controller=\"toy\"} 1\n"))
        fail_msg("%s: duration %s", r->label, got);
}

/* When the key is handed out again: not a millisecond early, and then (never: not in a day). */
static void check_back(const row *r, world *w)
{
    int64_t back = r->back_in_ms < 0 ? 24 * 3600 * 1000 : r->back_in_ms;
    char *early = back > 0 ? take(&w->q, T0 + back - 1) : NULL, *then = take(&w->q, T0 + back);
    if (early || (r->back_in_ms >= 0) != (then != NULL))
        fail_msg("%s: handed out %s at %lld ms and %s at %lld; want it at %lld ms", r->label,
                 early ? "already" : "not", (long long)(back - 1), then ? "again" : "not",
                 (long long)back, (long long)r->back_in_ms);
    free(early);
    free(then);
}

static void check_row(const row *r)
{
    world w;
    cw_error err;
    cw_verdict v = {0};
    cw_queue_stats before, after;
    cw_error_init(&err);
    world_init(&w);
    failed_twice(&w.q);
    cw_queue_get_stats(&w.q, &before);
    say(r, &v);
    if (r->rc != CW_OK)
        cw_error_set(&err, r->rc, "the reconcile failed");
    cw_ctrl_workers_finish(&w.c, "ns/k", r->rc, &v, 0.002, &err);
    cw_queue_done(&w.q, "ns/k");
    check_series(r, &w);
    cw_queue_get_stats(&w.q, &after);
    if (cw_queue_failures(&w.q, "ns/k") != r->failures ||
        after.retries - before.retries != r->retries)
        fail_msg("%s: %d failures, %llu retries; want %d, %lu", r->label,
                 cw_queue_failures(&w.q, "ns/k"), after.retries - before.retries, r->failures,
                 r->retries);
    check_back(r, &w);
    world_free(&w);
}

static void settles_every_verdict(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(rows); i++)
        check_row(&rows[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(settles_every_verdict),
    };
    cw_log_configure(CW_LOG_OFF, CW_LOG_TEXT, stderr);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
