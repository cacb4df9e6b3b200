#include "controller/core/queue.h"
#include "lib/grow.h"
#include "lib/clock.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ST_QUEUED     1u /* in the ready FIFO, or to go back there when processing ends */
#define ST_PROCESSING 2u

typedef struct key_state {
    unsigned flags;
    int failures;
    int64_t wake_at; /* 0: none */
} key_state;

static int64_t realtime_ms(void *ud)
{
    (void)ud;
    return cw_clock_wall_ms();
}

void cw_queue_opts_init(cw_queue_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->base_delay = 0.005;
    o->max_delay = 300;
}

int cw_queue_init(cw_queue *q, const cw_queue_opts *o, cw_error *err)
{
    memset(q, 0, sizeof(*q));
    if (o)
        q->o = *o;
    else
        cw_queue_opts_init(&q->o);
    if (q->o.base_delay <= 0)
        q->o.base_delay = 0.005;
    if (q->o.max_delay < q->o.base_delay)
        q->o.max_delay = q->o.base_delay;
    if (!q->o.clock)
        q->o.clock = realtime_ms;
    cw_strmap_init(&q->state);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&q->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (rc != 0 || pthread_mutex_init(&q->mu, NULL) != 0)
        return cw_error_set(err, CW_ENOMEM, "work queue: cannot create its lock");
    return CW_OK;
}

void cw_queue_free(cw_queue *q)
{
    cw_queue_node *n = q->head;
    while (n) {
        cw_queue_node *next = n->next;
        free(n);
        n = next;
    }
    for (size_t i = 0; i < q->nheap; i++)
        free(q->heap[i].key);
    free(q->heap);
    cw_strmap_free(&q->state, free);
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
    memset(q, 0, sizeof(*q));
}

/* ---- per-key state (locked) ---- */

static key_state *state_get(cw_queue *q, const char *key, int create)
{
    key_state *s = cw_strmap_get_s(&q->state, key);
    if (s || !create)
        return s;
    if (!(s = calloc(1, sizeof(*s))))
        return NULL;
    if (cw_strmap_set_s(&q->state, key, s, NULL) != CW_OK) {
        free(s);
        return NULL;
    }
    return s;
}

/* Drops state that says nothing any more. */
static void state_gc(cw_queue *q, const char *key, key_state *s)
{
    if (s && !s->flags && !s->failures && !s->wake_at)
        free(cw_strmap_del_s(&q->state, key));
}

/* ---- ready FIFO (locked) ---- */

static int push_ready(cw_queue *q, const char *key)
{
    size_t len = strlen(key);
    cw_queue_node *n = malloc(sizeof(*n) + len + 1);
    if (!n)
        return CW_ENOMEM;
    memcpy(n->key, key, len + 1);
    n->next = NULL;
    if (q->tail)
        q->tail->next = n;
    else
        q->head = n;
    q->tail = n;
    q->len++;
    pthread_cond_signal(&q->cv);
    return CW_OK;
}

static int add_locked(cw_queue *q, const char *key)
{
    key_state *s = state_get(q, key, 1);
    if (!s)
        return CW_ENOMEM;
    if (s->flags & ST_QUEUED)
        return CW_OK; /* already waiting: dedupe */
    if (!(s->flags & ST_PROCESSING) && push_ready(q, key) != CW_OK) {
        state_gc(q, key, s);
        return CW_ENOMEM;
    }
    s->flags |= ST_QUEUED; /* while processing: re-queued by cw_queue_done */
    q->adds++;
    return CW_OK;
}

/* ---- timers: a binary min-heap on (at, seq); stale entries are skipped when popped ---- */

static int timer_less(const cw_queue_timer *a, const cw_queue_timer *b)
{
    return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static int heap_push(cw_queue *q, const char *key, int64_t at)
{
    if (cw_grow((void **)&q->heap, &q->capheap, q->nheap, sizeof(*q->heap), 16) != CW_OK)
        return CW_ENOMEM;
    cw_queue_timer t = {at, q->seq++, strdup(key)};
    if (!t.key)
        return CW_ENOMEM;
    size_t i = q->nheap++;
    while (i > 0 && timer_less(&t, &q->heap[(i - 1) / 2])) {
        q->heap[i] = q->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->heap[i] = t;
    return CW_OK;
}

static cw_queue_timer heap_pop(cw_queue *q)
{
    cw_queue_timer top = q->heap[0], last = q->heap[--q->nheap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->nheap)
            break;
        if (c + 1 < q->nheap && timer_less(&q->heap[c + 1], &q->heap[c]))
            c++;
        if (!timer_less(&q->heap[c], &last))
            break;
        q->heap[i] = q->heap[c];
        i = c;
    }
    if (q->nheap)
        q->heap[i] = last;
    return top;
}

/* Moves every key whose time has come to the ready FIFO; returns the earliest pending time
 * (INT64_MAX when none). */
static int64_t promote_due(cw_queue *q)
{
    int64_t now = q->o.clock(q->o.clock_ud);
    while (q->nheap) {
        if (q->heap[0].at > now)
            return q->heap[0].at;
        cw_queue_timer t = heap_pop(q);
        key_state *s = state_get(q, t.key, 0);
        if (s && s->wake_at == t.at) {
            s->wake_at = 0;
            q->delayed--;
            add_locked(q, t.key); /* on ENOMEM the wake-up is lost, as a failed add would be */
        }
        free(t.key);
    }
    return INT64_MAX;
}

static int add_at_locked(cw_queue *q, const char *key, int64_t at)
{
    if (at <= q->o.clock(q->o.clock_ud))
        return add_locked(q, key);
    key_state *s = state_get(q, key, 1);
    if (!s)
        return CW_ENOMEM;
    if (s->wake_at && s->wake_at <= at)
        return CW_OK; /* an earlier wake-up is pending already */
    if (heap_push(q, key, at) != CW_OK) {
        state_gc(q, key, s);
        return CW_ENOMEM;
    }
    if (!s->wake_at)
        q->delayed++;
    s->wake_at = at;
    pthread_cond_signal(&q->cv); /* a waiting worker may need to wake sooner */
    return CW_OK;
}

/* ---- public ---- */

int cw_queue_add(cw_queue *q, const char *key)
{
    pthread_mutex_lock(&q->mu);
    int rc = q->shutdown ? CW_OK : add_locked(q, key);
    pthread_mutex_unlock(&q->mu);
    return rc;
}

int cw_queue_add_at(cw_queue *q, const char *key, int64_t at_ms)
{
    pthread_mutex_lock(&q->mu);
    int rc = q->shutdown ? CW_OK : add_at_locked(q, key, at_ms);
    pthread_mutex_unlock(&q->mu);
    return rc;
}

int cw_queue_add_after(cw_queue *q, const char *key, double seconds)
{
    pthread_mutex_lock(&q->mu);
    int rc = CW_OK;
    if (!q->shutdown)
        rc = add_at_locked(q, key, q->o.clock(q->o.clock_ud) + (int64_t)llround(seconds * 1000));
    pthread_mutex_unlock(&q->mu);
    return rc;
}

static double backoff(const cw_queue *q, int failures)
{
    /* failures 0 -> base, 1 -> 2 * base, ... capped; the exponent is bounded before pow(). */
    double d = q->o.base_delay * pow(2, failures > 60 ? 60 : failures);
    return d > q->o.max_delay ? q->o.max_delay : d;
}

int cw_queue_add_rate_limited(cw_queue *q, const char *key)
{
    pthread_mutex_lock(&q->mu);
    int rc = CW_OK;
    if (!q->shutdown) {
        key_state *s = state_get(q, key, 1);
        if (!s) {
            rc = CW_ENOMEM;
        } else {
            double d = backoff(q, s->failures);
            if (s->failures < 1000000)
                s->failures++;
            q->retries++;
            rc = add_at_locked(q, key, q->o.clock(q->o.clock_ud) + (int64_t)llround(d * 1000));
        }
    }
    pthread_mutex_unlock(&q->mu);
    return rc;
}

void cw_queue_forget(cw_queue *q, const char *key)
{
    pthread_mutex_lock(&q->mu);
    key_state *s = state_get(q, key, 0);
    if (s) {
        s->failures = 0;
        state_gc(q, key, s);
    }
    pthread_mutex_unlock(&q->mu);
}

int cw_queue_failures(cw_queue *q, const char *key)
{
    pthread_mutex_lock(&q->mu);
    key_state *s = state_get(q, key, 0);
    int n = s ? s->failures : 0;
    pthread_mutex_unlock(&q->mu);
    return n;
}

double cw_queue_next_backoff(cw_queue *q, const char *key)
{
    pthread_mutex_lock(&q->mu);
    key_state *s = state_get(q, key, 0);
    double d = backoff(q, s ? s->failures : 0);
    pthread_mutex_unlock(&q->mu);
    return d;
}

int cw_queue_get(cw_queue *q, double wait_seconds, char **key)
{
    int rc;
    double deadline = cw_clock_mono() + (wait_seconds > 0 ? wait_seconds : 0);
    *key = NULL;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        if (q->shutdown) {
            rc = CW_QUEUE_SHUTDOWN;
            break;
        }
        int64_t next = promote_due(q);
        if (q->head) {
            cw_queue_node *n = q->head;
            if (!(*key = strdup(n->key))) {
                rc = CW_ENOMEM;
                break;
            }
            q->head = n->next;
            if (!q->head)
                q->tail = NULL;
            q->len--;
            key_state *s = state_get(q, n->key, 0);
            if (s) {
                s->flags &= ~ST_QUEUED;
                s->flags |= ST_PROCESSING;
            }
            q->processing++;
            free(n);
            rc = CW_OK;
            break;
        }
        double t = cw_clock_mono();
        if (t >= deadline) {
            rc = CW_QUEUE_EMPTY;
            break;
        }
        /* Sleep until the deadline, the next timer, or at most a second: the timers are
         * wall-clock times, and a second bounds how late a clock step is noticed. */
        double until = deadline;
        if (next != INT64_MAX) {
            double in = (double)(next - q->o.clock(q->o.clock_ud)) / 1000.0;
            if (t + in < until)
                until = t + (in > 0 ? in : 0);
        }
        if (until > t + 1)
            until = t + 1;
        struct timespec ts = {(time_t)until, (long)((until - (double)(time_t)until) * 1e9)};
        int w = pthread_cond_timedwait(&q->cv, &q->mu, &ts);
        (void)w; /* ETIMEDOUT or a signal: look again either way */
    }
    pthread_mutex_unlock(&q->mu);
    return rc;
}

void cw_queue_done(cw_queue *q, const char *key)
{
    pthread_mutex_lock(&q->mu);
    key_state *s = state_get(q, key, 0);
    if (s && (s->flags & ST_PROCESSING)) {
        s->flags &= ~ST_PROCESSING;
        q->processing--;
        if ((s->flags & ST_QUEUED) && !q->shutdown && push_ready(q, key) != CW_OK)
            s->flags &= ~ST_QUEUED; /* out of memory: the add is lost, as a failed add would be */
        state_gc(q, key, s);
    }
    pthread_mutex_unlock(&q->mu);
}

void cw_queue_shutdown(cw_queue *q)
{
    pthread_mutex_lock(&q->mu);
    q->shutdown = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

void cw_queue_get_stats(cw_queue *q, cw_queue_stats *out)
{
    pthread_mutex_lock(&q->mu);
    out->ready = q->len;
    out->delayed = q->delayed;
    out->processing = q->processing;
    out->adds = q->adds;
    out->retries = q->retries;
    pthread_mutex_unlock(&q->mu);
}
