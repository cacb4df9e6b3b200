/* What a reconcile concluded, as a type. A reconciler says what it means through the helpers
 * below — done; look again at a time; back off; wait for the object to change; held back; the
 * object is gone — with the outcome its metrics count; it never says what the work queue does.
 * The machinery alone turns a verdict into that (cw_verdict_settle) and into the series that
 * moves (cw_verdict_outcome), the same for every reconciler:
 *
 *   verdict   the work queue                                    outcome counted (NULL given)
 *   done      the key's backoff forgotten; no timer             the reconciler's ("ok")
 *   requeue   the backoff forgotten; the key again at at_ms     the reconciler's ("ok")
 *   backoff   the key again after its next backoff (a retry)    "error"
 *   wait      the backoff forgotten; no timer: the object's     "error"
 *             next change brings the key back
 *   held      the backoff forgotten; no timer                   the reconciler's ("held")
 *   gone      the backoff forgotten; no timer                   the reconciler's ("deleted")
 *
 * (the outcome is cronwarden_controller_reconciles_total{controller,outcome}; a backoff also
 * counts in cronwarden_controller_queue_retries_total{controller}). A reconcile that fails
 * without a verdict of failure (backoff, wait) gets the shell's for the API's answer
 * (controller/core/shell.h). */
#ifndef CW_CTRL_VERDICT_H
#define CW_CTRL_VERDICT_H

#include <stdint.h>

#include "controller/core/queue.h"

typedef enum {
    CW_VERDICT_DONE = 0, /* acted, or nothing to do: until the object changes */
    CW_VERDICT_REQUEUE,  /* done for now, and again at a time (a run, a resync, a recheck) */
    CW_VERDICT_BACKOFF,  /* failed, and worth repeating: after the key's backoff */
    CW_VERDICT_WAIT,     /* failed, and would fail again the same way: until the object changes */
    CW_VERDICT_HELD,     /* a write held back on purpose (standing down, a write war) */
    CW_VERDICT_GONE,     /* the object went: its watch event says what comes next */
} cw_verdict_kind;

/* Zeroed: done, counted "ok". Written only through the helpers. */
typedef struct cw_verdict {
    cw_verdict_kind kind;
    int64_t at_ms; /* requeue: wall-clock ms */
    /* The metrics label, which outlives the reconcile (a literal); NULL: the kind's. */
    const char *outcome;
} cw_verdict;

void cw_verdict_done(cw_verdict *v, const char *outcome);
/* Again at wall-clock ms at_ms (at once when it is not in the future); at_ms <= 0: no timer, the
 * same as cw_verdict_done. */
void cw_verdict_requeue_at(cw_verdict *v, int64_t at_ms, const char *outcome);
/* The two verdicts of a failed reconcile, which returns its error with them. */
void cw_verdict_backoff(cw_verdict *v);
void cw_verdict_wait(cw_verdict *v);
void cw_verdict_held(cw_verdict *v, const char *outcome);
void cw_verdict_gone(cw_verdict *v, const char *outcome);

/* 1 for a verdict of failure (backoff, wait). */
int cw_verdict_failed(const cw_verdict *v);
/* The outcome counted: the reconciler's, or the kind's (the table above). */
const char *cw_verdict_outcome(const cw_verdict *v);
/* What the work queue does with key after its reconcile (the table above). */
void cw_verdict_settle(cw_queue *q, const char *key, const cw_verdict *v);

#endif
