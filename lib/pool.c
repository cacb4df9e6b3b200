#include "lib/pool.h"
#include "lib/error.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct {
    size_t n;
    atomic_size_t next;
    cw_pool_fn fn;
    void *ud;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (size_t i; (i = atomic_fetch_add(&p->next, 1)) < p->n;)
        p->fn(p->ud, i);
    return NULL;
}

int cw_pool_run(size_t n, size_t threads, cw_pool_fn fn, void *ud)
{
    pool p = {.n = n, .fn = fn, .ud = ud};
    atomic_init(&p.next, 0);
    if (threads > n)
        threads = n;
    pthread_t *tids = threads > 1 ? calloc(threads - 1, sizeof(*tids)) : NULL;
    size_t started = 0;
    for (; tids && started < threads - 1; started++)
        if (pthread_create(&tids[started], NULL, worker, &p) != 0)
            break;
    worker(&p);
    for (size_t t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
    free(tids);
    return threads > 1 && started == 0 ? CW_ENOMEM : CW_OK;
}
