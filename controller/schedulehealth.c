#include "controller/schedulehealth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cron/tz.h"
#include "lib/buf.h"
#include "lib/grow.h"

#define NS_PER_S UINT64_C(1000000000)

void cw_shctl_memory_init(cw_shctl_memory *m)
{
    m->counted = CW_HEALTH_UNCOUNTED;
    m->failure_seen = CW_HEALTH_NONE;
}

void cw_shctl_actions_init(cw_shctl_actions *a)
{
    memset(a, 0, sizeof(*a));
}

void cw_shctl_actions_free(cw_shctl_actions *a)
{
    for (size_t i = 0; i < a->nevents; i++)
        free(a->events[i].message);
    free(a->events);
    cw_shctl_actions_init(a);
}

static double when(int64_t t)
{
    return t == CW_HEALTH_NONE ? 0 : (double)t;
}

static int add_event(cw_shctl_actions *a, size_t *cap, const char *reason, uint64_t id, cw_buf *msg)
{
    if (cw_buf_error(msg) ||
        cw_grow((void **)&a->events, cap, a->nevents, sizeof(*a->events), 4) != CW_OK)
        return CW_ENOMEM;
    char *m = strdup(cw_buf_str(msg));
    if (!m)
        return CW_ENOMEM;
    a->events[a->nevents++] = (cw_shctl_event){reason, m, id};
    return CW_OK;
}

/* The fire time of the newest missed run that is a problem (those cw_health_count_missed counts:
 * not excused, judged in the window); 0: none. Not the moment it was found missed (its grace
 * later, or a scrape later): a run that succeeds after the fire time resolves it. */
static double last_missed(const cw_health_result *r)
{
    for (size_t i = r->nmissed; i-- > 0;)
        if (!r->missed[i].excused)
            return (double)r->missed[i].at;
    return 0;
}

/* The newest `n` missed runs that are problems, each said once. */
static int missed_events(const cw_health_result *r, size_t n, cw_shctl_actions *a, size_t *cap)
{
    size_t skip = r->missed_unexcused > n ? r->missed_unexcused - n : 0;
    cw_buf msg;
    int rc = CW_OK;
    cw_buf_init(&msg);
    for (size_t i = 0; rc == CW_OK && i < r->nmissed; i++) {
        const cw_health_missed *m = &r->missed[i];
        char at[CW_TZ_RFC3339_MAX];
        if (m->excused || (skip && skip--))
            continue;
        cw_tz_format_rfc3339(m->at, 0, at, sizeof(at));
        cw_buf_reset(&msg);
        cw_buf_printf(&msg, "missed the run of %s (%s): %s", at, cw_health_reason_name(m->reason),
                      m->detail ? m->detail : "");
        rc = add_event(a, cap, CW_SHCTL_REASON_MISSED, (uint64_t)m->at * NS_PER_S, &msg);
    }
    cw_buf_free(&msg);
    return rc;
}

static int failed_event(const cw_health_result *r, cw_shctl_actions *a, size_t *cap)
{
    char at[CW_TZ_RFC3339_MAX];
    cw_buf msg;
    cw_buf_init(&msg);
    cw_tz_format_rfc3339(r->failure_at, 0, at, sizeof(at));
    cw_buf_printf(&msg, "run %s failed at %s: %s (%zu failed in a row)",
                  r->failure_run ? r->failure_run : "?", at,
                  r->failure_reason ? r->failure_reason : "no reason given",
                  r->consecutive_failures);
    int rc =
        add_event(a, cap, CW_SHCTL_REASON_FAILED, (uint64_t)r->failure_at * NS_PER_S + 1, &msg);
    cw_buf_free(&msg);
    return rc;
}

/* The next moment something can change without an object changing. */
static int64_t recheck(const cw_health_config *cfg, int64_t now, const cw_health_result *r)
{
    int64_t at = now + CW_SHCTL_RECHECK_MAX;
    int64_t cand[3] = {CW_HEALTH_NONE, CW_HEALTH_NONE, CW_HEALTH_NONE};
    /* the last fire time, while its grace runs (its next fire time as the model counts it, also
     * while paused or suspended: one interval on) */
    if (r->last_due != CW_HEALTH_NONE)
        cand[0] = r->last_due +
                  cw_health_grace(cfg, r->last_due,
                                  r->next != CW_HEALTH_NONE       ? r->next
                                  : r->interval != CW_HEALTH_NONE ? r->last_due + r->interval
                                                                  : CW_HEALTH_NONE) +
                  1;
    /* the next one's grace ends: missed, or not. Paused or suspended, the model gives no next
     * run, yet its fire times still pass (missed: suspended): one interval after the last. */
    int64_t next = r->next;
    if (next == CW_HEALTH_NONE && r->last_due != CW_HEALTH_NONE && r->interval > 0)
        next = r->last_due + ((now - r->last_due) / r->interval + 1) * r->interval;
    if (next != CW_HEALTH_NONE)
        cand[1] =
            next +
            cw_health_grace(cfg, next, r->interval > 0 ? next + r->interval : CW_HEALTH_NONE) + 1;
    if (r->running && !r->stuck && r->running_since != CW_HEALTH_NONE)
        cand[2] = r->running_since + r->stuck_after + 1;
    for (size_t i = 0; i < 3; i++)
        if (cand[i] != CW_HEALTH_NONE && cand[i] > now && cand[i] < at)
            at = cand[i];
    return at;
}

int cw_shctl_decide(const cw_health_config *cfg, int64_t now, const cw_health_result *r,
                    cw_shctl_memory *mem, cw_shctl_actions *out, cw_error *err)
{
    size_t cap = 0;
    int first = mem->counted == CW_HEALTH_UNCOUNTED;
    cw_shctl_actions_init(out);
    out->gauges[CW_SHCTL_LAST_SUCCESS] = when(r->success_at);
    out->gauges[CW_SHCTL_LAST_FAILURE] = when(r->failure_at);
    out->gauges[CW_SHCTL_LAST_MISSED] = last_missed(r);
    out->gauges[CW_SHCTL_NEXT_RUN] = when(r->next);
    out->gauges[CW_SHCTL_CONSECUTIVE_FAILURES] = (double)r->consecutive_failures;
    out->gauges[CW_SHCTL_RUNNING] = r->running ? when(r->running_seconds) : 0;
    out->gauges[CW_SHCTL_STUCK_AFTER] = when(r->stuck_after);
    size_t n = cw_health_count_missed(r, &mem->counted);
    out->missed_new = (double)n;
    int rc = n ? missed_events(r, n, out, &cap) : CW_OK;
    /* A failed run not said yet; on a first look only when no success came after it. */
    if (rc == CW_OK && r->failure_at != CW_HEALTH_NONE && r->failure_at > mem->failure_seen) {
        if (!first || r->consecutive_failures > 0)
            rc = failed_event(r, out, &cap);
        mem->failure_seen = r->failure_at;
    }
    out->recheck_at = recheck(cfg, now, r);
    if (rc != CW_OK) {
        cw_shctl_actions_free(out);
        return cw_error_oom(err);
    }
    return CW_OK;
}
