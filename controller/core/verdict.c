#include "controller/core/verdict.h"

static void set(cw_verdict *v, cw_verdict_kind kind, int64_t at_ms, const char *outcome)
{
    v->kind = kind;
    v->at_ms = at_ms;
    v->outcome = outcome;
}

void cw_verdict_done(cw_verdict *v, const char *outcome)
{
    set(v, CW_VERDICT_DONE, 0, outcome);
}

void cw_verdict_requeue_at(cw_verdict *v, int64_t at_ms, const char *outcome)
{
    set(v, at_ms > 0 ? CW_VERDICT_REQUEUE : CW_VERDICT_DONE, at_ms > 0 ? at_ms : 0, outcome);
}

/* A failure is counted as "error" whatever was said before it. */
void cw_verdict_backoff(cw_verdict *v)
{
    set(v, CW_VERDICT_BACKOFF, 0, NULL);
}

void cw_verdict_wait(cw_verdict *v)
{
    set(v, CW_VERDICT_WAIT, 0, NULL);
}

void cw_verdict_held(cw_verdict *v, const char *outcome)
{
    set(v, CW_VERDICT_HELD, 0, outcome);
}

void cw_verdict_gone(cw_verdict *v, const char *outcome)
{
    set(v, CW_VERDICT_GONE, 0, outcome);
}

int cw_verdict_failed(const cw_verdict *v)
{
    return v->kind == CW_VERDICT_BACKOFF || v->kind == CW_VERDICT_WAIT;
}

const char *cw_verdict_outcome(const cw_verdict *v)
{
    static const char *const by_kind[] = {
        [CW_VERDICT_DONE] = "ok",    [CW_VERDICT_REQUEUE] = "ok", [CW_VERDICT_BACKOFF] = "error",
        [CW_VERDICT_WAIT] = "error", [CW_VERDICT_HELD] = "held",  [CW_VERDICT_GONE] = "deleted",
    };
    if (cw_verdict_failed(v) || !v->outcome)
        return by_kind[v->kind];
    return v->outcome;
}

void cw_verdict_settle(cw_queue *q, const char *key, const cw_verdict *v)
{
    if (v->kind == CW_VERDICT_BACKOFF) {
        cw_queue_add_rate_limited(q, key);
        return;
    }
    cw_queue_forget(q, key);
    if (v->kind == CW_VERDICT_REQUEUE)
        cw_queue_add_at(q, key, v->at_ms);
}
