/* The work queue (controller/core/queue.c): scripted tables of operations against a fake wall
 * clock, each step with its exact expected result, plus real-clock and multi-threaded checks. */
#include "ctrl_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "controller/core/queue.h"
#include "lib/clock.h"

typedef enum { ADD, AT, AFTER_RL, FORGET, GET, DONE, CLOCK, FAILS, STATS, SHUTDOWN } op_kind;

typedef struct {
    op_kind op;
    const char *key; /* GET: the key expected, or NULL for "nothing ready" */
    int64_t arg;     /* AT: ms; CLOCK: ms; FAILS: count; STATS: ready*100 + delayed*10 + busy */
} step;

typedef struct {
    const char *label;
    step steps[24];
} script;

#define END                                                                                        \
    {                                                                                              \
        0, NULL, -1                                                                                \
    }

static const script scripts[] = {
    {"dedupe: a key waits once however often it is added",
     {{ADD, "a", 0},
      {ADD, "b", 0},
      {ADD, "a", 0},
      {STATS, NULL, 200},
      {GET, "a", 0},
      {GET, "b", 0},
      {GET, NULL, 0},
      END}},
    {"a key in a worker's hands is not handed out again; added meanwhile, it comes back after done",
     {{ADD, "a", 0},
      {GET, "a", 0},
      {ADD, "a", 0},
      {STATS, NULL, 1},
      {GET, NULL, 0},
      {DONE, "a", 0},
      {STATS, NULL, 100},
      {GET, "a", 0},
      {DONE, "a", 0},
      {GET, NULL, 0},
      END}},
    {"not added meanwhile: done drops it",
     {{ADD, "a", 0}, {GET, "a", 0}, {DONE, "a", 0}, {STATS, NULL, 0}, {GET, NULL, 0}, END}},
    {"timers fire in time order, equal times in the order they were set",
     {{CLOCK, NULL, 0},
      {AT, "c", 300},
      {AT, "a", 100},
      {AT, "b", 200},
      {AT, "d", 200},
      {STATS, NULL, 40},
      {CLOCK, NULL, 99},
      {GET, NULL, 0},
      {CLOCK, NULL, 100},
      {GET, "a", 0},
      {CLOCK, NULL, 250},
      {GET, "b", 0},
      {GET, "d", 0},
      {GET, NULL, 0},
      {CLOCK, NULL, 300},
      {GET, "c", 0},
      {STATS, NULL, 4},
      END}},
    {"the earliest requested time wins; a later one is dropped",
     {{CLOCK, NULL, 0},
      {AT, "a", 500},
      {AT, "a", 200},
      {AT, "a", 900},
      {STATS, NULL, 10},
      {CLOCK, NULL, 200},
      {GET, "a", 0},
      {DONE, "a", 0},
      {CLOCK, NULL, 500},
      {GET, NULL, 0},
      {CLOCK, NULL, 900},
      {GET, NULL, 0},
      {STATS, NULL, 0},
      END}},
    {"a time that is not in the future means now",
     {{CLOCK, NULL, 1000}, {AT, "a", 1000}, {AT, "b", 10}, {GET, "a", 0}, {GET, "b", 0}, END}},
    {"a timer for a key already waiting adds nothing; one firing while it is processed requeues it",
     {{CLOCK, NULL, 0},
      {ADD, "a", 0},
      {AT, "a", 50},
      {GET, "a", 0},
      {CLOCK, NULL, 60},
      {GET, NULL, 0},
      {DONE, "a", 0},
      {GET, "a", 0},
      {DONE, "a", 0},
      {GET, NULL, 0},
      END}},
    {"backoff doubles per failure up to the cap; forget starts over",
     {{CLOCK, NULL, 0},   {AFTER_RL, "a", 0}, {FAILS, "a", 1},    {CLOCK, NULL, 9},
      {GET, NULL, 0},     {CLOCK, NULL, 10},  {GET, "a", 0},      {DONE, "a", 0},
      {AFTER_RL, "a", 0}, {CLOCK, NULL, 29},  {GET, NULL, 0},     {CLOCK, NULL, 30},
      {GET, "a", 0},      {DONE, "a", 0},     {AFTER_RL, "a", 0}, {AFTER_RL, "a", 0},
      {AFTER_RL, "a", 0}, {FAILS, "a", 5},    {CLOCK, NULL, 70},  {GET, "a", 0},
      {DONE, "a", 0},     {FORGET, "a", 0},   {FAILS, "a", 0},    END}},
    {"after shutdown: nothing is added or handed out",
     {{ADD, "a", 0}, {SHUTDOWN, NULL, 0}, {ADD, "b", 0}, {GET, "-shutdown", 0}, END}},
};

static int64_t fake_now;
static int64_t fake_clock(void *ud)
{
    (void)ud;
    return fake_now;
}

static void run_script(const script *s)
{
    cw_queue q;
    cw_queue_opts o;
    cw_error err;
    cw_queue_opts_init(&o);
    o.base_delay = 0.010;
    o.max_delay = 0.040;
    o.clock = fake_clock;
    fake_now = 0;
    assert_int_equal(cw_queue_init(&q, &o, &err), CW_OK);
    for (size_t i = 0; s->steps[i].arg != -1; i++) {
        const step *st = &s->steps[i];
        char *key = NULL;
        cw_queue_stats stats;
        int rc;
        switch (st->op) {
        case ADD:
            assert_int_equal(cw_queue_add(&q, st->key), CW_OK);
            break;
        case AT:
            assert_int_equal(cw_queue_add_at(&q, st->key, st->arg), CW_OK);
            break;
        case AFTER_RL:
            assert_int_equal(cw_queue_add_rate_limited(&q, st->key), CW_OK);
            break;
        case FORGET:
            cw_queue_forget(&q, st->key);
            break;
        case DONE:
            cw_queue_done(&q, st->key);
            break;
        case CLOCK:
            fake_now = st->arg;
            break;
        case SHUTDOWN:
            cw_queue_shutdown(&q);
            break;
        case FAILS:
            if (cw_queue_failures(&q, st->key) != st->arg)
                fail_msg("%s: step %zu: failures %d, want %lld", s->label, i,
                         cw_queue_failures(&q, st->key), (long long)st->arg);
            break;
        case STATS:
            cw_queue_get_stats(&q, &stats);
            if ((int64_t)(stats.ready * 100 + stats.delayed * 10 + stats.processing) != st->arg)
                fail_msg("%s: step %zu: ready %zu delayed %zu processing %zu, want %03lld",
                         s->label, i, stats.ready, stats.delayed, stats.processing,
                         (long long)st->arg);
            break;
        case GET:
            rc = cw_queue_get(&q, 0, &key);
            if (st->key && strcmp(st->key, "-shutdown") == 0) {
                if (rc != CW_QUEUE_SHUTDOWN)
                    fail_msg("%s: step %zu: rc %d, want shutdown", s->label, i, rc);
            } else if (st->key && (rc != CW_OK || strcmp(key, st->key) != 0)) {
                fail_msg("%s: step %zu: got %s (rc %d), want %s", s->label, i, key ? key : "-", rc,
                         st->key);
            } else if (!st->key && rc != CW_QUEUE_EMPTY) {
                fail_msg("%s: step %zu: got %s (rc %d), want nothing", s->label, i, key ? key : "-",
                         rc);
            }
            free(key);
            break;
        }
    }
    cw_queue_free(&q);
}

static void scripted(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(scripts); i++)
        run_script(&scripts[i]);
}

/* With the real clock, a waiting get wakes for a timer, and shutdown wakes waiters at once. */
static void real_clock_wakeups(void **state)
{
    (void)state;
    cw_queue q;
    cw_error err;
    char *key = NULL;
    assert_int_equal(cw_queue_init(&q, NULL, &err), CW_OK);
    double t0 = cw_clock_mono();
    assert_int_equal(cw_queue_add_after(&q, "a", 0.15), CW_OK);
    assert_int_equal(cw_queue_get(&q, 2.0, &key), CW_OK);
    double took = cw_clock_mono() - t0;
    assert_string_equal(key, "a");
    if (took < 0.14 || took > 0.6)
        fail_msg("timer of 150 ms woke the waiter after %.3f s", took);
    free(key);
    cw_queue_done(&q, "a");
    t0 = cw_clock_mono();
    assert_int_equal(cw_queue_get(&q, 0.1, &key), CW_QUEUE_EMPTY);
    assert_true(cw_clock_mono() - t0 >= 0.09);
    cw_queue_shutdown(&q);
    assert_int_equal(cw_queue_get(&q, 5.0, &key), CW_QUEUE_SHUTDOWN);
    cw_queue_free(&q);
}

/* Four workers, 20 keys added 2000 times from two producers: no key is ever in two workers'
 * hands, and every key is processed after its last add. */
#define KEYS 20
typedef struct {
    cw_queue *q;
    atomic_int holding[KEYS];
    atomic_int processed[KEYS];
    atomic_int overlap;
    atomic_int producing;
} shared;

static void *producer(void *arg)
{
    shared *s = arg;
    char key[16];
    for (int i = 0; i < 2000; i++) {
        snprintf(key, sizeof(key), "k%d", i % KEYS);
        cw_queue_add(s->q, key);
    }
    atomic_fetch_sub(&s->producing, 1);
    return NULL;
}

static void *worker(void *arg)
{
    shared *s = arg;
    for (;;) {
        char *key = NULL;
        int rc = cw_queue_get(s->q, 0.05, &key);
        if (rc == CW_QUEUE_SHUTDOWN)
            break;
        if (rc != CW_OK)
            continue;
        int k = atoi(key + 1);
        if (atomic_fetch_add(&s->holding[k], 1) != 0)
            atomic_fetch_add(&s->overlap, 1);
        usleep(50);
        atomic_fetch_sub(&s->holding[k], 1);
        atomic_fetch_add(&s->processed[k], 1);
        cw_queue_done(s->q, key);
        free(key);
    }
    return NULL;
}

static void threads(void **state)
{
    (void)state;
    cw_queue q;
    cw_error err;
    shared s;
    memset(&s, 0, sizeof(s));
    s.q = &q;
    atomic_store(&s.producing, 2);
    assert_int_equal(cw_queue_init(&q, NULL, &err), CW_OK);
    pthread_t w[4], p[2];
    for (int i = 0; i < 4; i++)
        pthread_create(&w[i], NULL, worker, &s);
    for (int i = 0; i < 2; i++)
        pthread_create(&p[i], NULL, producer, &s);
    for (int i = 0; i < 2; i++)
        pthread_join(p[i], NULL);
    /* Drain: everything added is processed. */
    for (int i = 0; i < 200; i++) {
        cw_queue_stats st;
        cw_queue_get_stats(&q, &st);
        if (!st.ready && !st.processing)
            break;
        usleep(10 * 1000);
    }
    cw_queue_shutdown(&q);
    for (int i = 0; i < 4; i++)
        pthread_join(w[i], NULL);
    assert_int_equal(atomic_load(&s.overlap), 0);
    for (int k = 0; k < KEYS; k++)
        assert_true(atomic_load(&s.processed[k]) >= 1);
    cw_queue_free(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scripted),
        cmocka_unit_test(real_clock_wakeups),
        cmocka_unit_test(threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
