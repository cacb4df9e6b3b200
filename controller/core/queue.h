/* The controller's work queue, with client-go's workqueue semantics:
 *   - dedupe: a key waiting in the queue is there once, however often it is added;
 *   - one worker per key: a key being processed is not handed out again until cw_queue_done; if it
 *     was added meanwhile it goes back to the queue then;
 *   - delayed requeue at a wall-clock time ("wake this schedule at its next run"): the earliest
 *     of several requested times wins, and later ones are dropped (the reconcile at the earliest
 *     time asks again);
 *   - per-key exponential backoff after failures (base * 2^(failures-1), capped), reset by
 *     cw_queue_forget.
 * Thread-safe. Keys are strings ("namespace/name"); the queue copies them. */
#ifndef CW_QUEUE_H
#define CW_QUEUE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/strmap.h"
#include "lib/error.h"

/* cw_queue_get results besides CW_OK. */
#define CW_QUEUE_EMPTY    1 /* nothing became ready within the wait */
#define CW_QUEUE_SHUTDOWN 2 /* cw_queue_shutdown was called */

/* Wall-clock milliseconds since the epoch (tests pass a fake one). */
typedef int64_t (*cw_queue_clock_fn)(void *ud);

typedef struct cw_queue_opts {
    double base_delay;       /* seconds before the first retry after a failure; default 0.005 */
    double max_delay;        /* cap of the backoff, seconds; default 300 */
    cw_queue_clock_fn clock; /* NULL: CLOCK_REALTIME */
    void *clock_ud;
} cw_queue_opts;

typedef struct cw_queue_node {
    struct cw_queue_node *next;
    char key[];
} cw_queue_node;

typedef struct cw_queue_timer {
    int64_t at;   /* wall-clock ms */
    uint64_t seq; /* insertion order among equal times */
    char *key;
} cw_queue_timer;

typedef struct cw_queue {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* CLOCK_MONOTONIC */
    cw_queue_opts o;
    cw_queue_node *head, *tail; /* ready keys, FIFO */
    size_t len;
    cw_strmap state; /* key -> per-key state (queued, processing, failures, wake time) */
    cw_queue_timer *heap;
    size_t nheap, capheap;
    uint64_t seq;
    size_t delayed; /* keys with a pending wake time */
    size_t processing;
    int shutdown;
    unsigned long long adds, retries; /* totals, for metrics */
} cw_queue;

void cw_queue_opts_init(cw_queue_opts *o);
/* o may be NULL for the defaults. */
int cw_queue_init(cw_queue *q, const cw_queue_opts *o, cw_error *err) CW_MUST_CHECK;
void cw_queue_free(cw_queue *q);

/* Each returns CW_OK or CW_ENOMEM; after cw_queue_shutdown they do nothing. */
int cw_queue_add(cw_queue *q, const char *key);
/* Ready at wall-clock time at_ms (at once when it is not in the future). */
int cw_queue_add_at(cw_queue *q, const char *key, int64_t at_ms);
int cw_queue_add_after(cw_queue *q, const char *key, double seconds);
/* After a failed attempt: ready after the key's next backoff delay. */
int cw_queue_add_rate_limited(cw_queue *q, const char *key);
/* The key succeeded: its backoff starts from the beginning next time. */
void cw_queue_forget(cw_queue *q, const char *key);
/* Failures since the last forget. */
int cw_queue_failures(cw_queue *q, const char *key);
/* The backoff delay the next cw_queue_add_rate_limited of key would use, in seconds. */
double cw_queue_next_backoff(cw_queue *q, const char *key);

/* Takes the next ready key, waiting up to wait_seconds (0: do not wait) for one: CW_OK with *key
 * (caller frees; call cw_queue_done with it), CW_QUEUE_EMPTY or CW_QUEUE_SHUTDOWN. */
int cw_queue_get(cw_queue *q, double wait_seconds, char **key);
/* The worker is finished with key (taken by cw_queue_get). */
void cw_queue_done(cw_queue *q, const char *key);
/* Wakes every waiting cw_queue_get; from now on they return CW_QUEUE_SHUTDOWN. */
void cw_queue_shutdown(cw_queue *q);

typedef struct cw_queue_stats {
    size_t ready;      /* waiting to be taken */
    size_t delayed;    /* waiting for their wake time */
    size_t processing; /* taken and not done */
    unsigned long long adds, retries;
} cw_queue_stats;
void cw_queue_get_stats(cw_queue *q, cw_queue_stats *out);

#endif
