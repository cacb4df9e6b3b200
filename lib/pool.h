/* Runs fn(ud, i) for i in [0, n) on up to `threads` threads (the caller's included). Items are
 * handed out in order; fn must be safe to call concurrently for different i. */
#ifndef CW_POOL_H
#define CW_POOL_H

#include <stddef.h>

typedef void (*cw_pool_fn)(void *ud, size_t i);

/* Returns 0, or CW_ENOMEM when no thread could be started (then everything ran on the caller). */
int cw_pool_run(size_t n, size_t threads, cw_pool_fn fn, void *ud);

#endif
