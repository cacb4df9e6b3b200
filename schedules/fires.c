/* Fire times: a cron's (cron/, CRON_TZ included), or an @every schedule's chain as its controller
 * keeps it. */
#include "schedules/internal.h"

#include <stdlib.h>

#include "lib/grow.h"

#define MAX_FIRES 1000000

int cw_health__times_add(cw_health_times *ts, int64_t t)
{
    if (cw_grow((void **)&ts->t, &ts->cap, ts->n, sizeof(*ts->t), 64) != CW_OK)
        return CW_ENOMEM;
    ts->t[ts->n++] = t;
    return CW_OK;
}

void cw_health__times_free(cw_health_times *ts)
{
    free(ts->t);
    *ts = (cw_health_times){0};
}

int64_t cw_health_grace(const cw_health_config *cfg, int64_t at, int64_t next)
{
    if (cfg->grace > 0)
        return cfg->grace;
    int64_t interval = next != CW_HEALTH_NONE && next > at ? next - at : CW_HEALTH_NONE;
    int64_t g = interval == CW_HEALTH_NONE ? 3600 : interval / 10;
    g = g < 60 ? 60 : g > 3600 ? 3600 : g;
    return interval != CW_HEALTH_NONE && g > interval ? interval : g;
}

/* Adds t when it is in (lo, hi] or the first one past hi; 1 once past hi (stop). */
static int emit(cw_health_times *out, int64_t t, int64_t lo, int64_t hi, int *rc)
{
    if (t <= lo)
        return 0;
    if (out->n >= MAX_FIRES) {
        *rc = CW_ELIMIT;
        return 1;
    }
    if ((*rc = cw_health__times_add(out, t)) != CW_OK)
        return 1;
    return t > hi;
}

static int cron_fires(const cw_health_cron *c, int64_t lo, int64_t hi, cw_health_times *out)
{
    int64_t t = lo, n;
    int rc = CW_OK;
    while (cw_cron_next(&c->parsed, t, c->offset, &n) && !emit(out, n, lo, hi, &rc))
        t = n;
    return rc;
}

/* A CronJob's @every: Kubernetes keeps lastScheduleTime on the chain (each run's scheduled time
 * is the previous one plus the delay, missed or not), which starts at the CronJob's creation. */
static int cronjob_chain(const cw_health_sched *s, int64_t d, int64_t lo, int64_t hi,
                         cw_health_times *out)
{
    int64_t anchor = s->last_schedule != CW_HEALTH_NONE     ? s->last_schedule
                     : s->cronjob_created != CW_HEALTH_NONE ? s->cronjob_created
                     : s->created != CW_HEALTH_NONE         ? s->created
                                                            : lo;
    int64_t k = (lo - anchor) / d;
    if (anchor + k * d > lo)
        k -= (anchor + k * d - lo + d - 1) / d;
    int rc = CW_OK;
    for (int64_t t = anchor + k * d;; t += d)
        if (emit(out, t, lo, hi, &rc))
            break;
    return rc;
}

/* A Velero Schedule's @every: the next run is the delay after status.lastBackup (the last run's
 * submission) or lastSkipped, else after the creation. While no run comes, the chain goes on in
 * steps of the delay (each step one more missed run). runs are sorted by their time. */
static int velero_chain(const cw_health_sched *s, int64_t d, const cw_health_run *runs,
                        size_t nruns, int64_t lo, int64_t hi, cw_health_times *out)
{
    int64_t base = s->created != CW_HEALTH_NONE ? s->created : lo;
    size_t i = 0;
    int skip_used = s->last_skipped == CW_HEALTH_NONE, rc = CW_OK;
    for (;;) {
        /* the next event after base: a run's creation or the skip on unpause */
        while (i < nruns && runs[i].created <= base)
            i++;
        int64_t ev = i < nruns ? runs[i].created : INT64_MAX;
        if (!skip_used && s->last_skipped > base && s->last_skipped < ev)
            ev = s->last_skipped;
        int64_t f = base + d;
        if (ev < f) { /* a skip (or a run submitted early) restarts the chain */
            base = ev;
            skip_used |= ev == s->last_skipped;
            continue;
        }
        if (ev > lo && f + d <= lo) /* nothing happens before lo: stride */
            f += (lo - f) / d * d;
        if (emit(out, f, lo, hi, &rc))
            break;
        if (ev < f + d) { /* the run for f (on time or late), or a skip */
            base = ev;
            skip_used |= ev == s->last_skipped;
        } else {
            base = f;
        }
    }
    return rc;
}

int cw_health__fires(const cw_health_config *cfg, const cw_health_sched *s, const cw_health_cron *c,
                     const cw_health_run *runs, size_t nruns, int64_t lo, int64_t hi,
                     cw_health_times *out)
{
    (void)cfg;
    out->n = 0;
    if (!c->every)
        return cron_fires(c, lo, hi, out);
    if (s->kind == CW_HEALTH_RECURRINGJOB)
        return cronjob_chain(s, c->parsed.every, lo, hi, out);
    return velero_chain(s, c->parsed.every, runs, nruns, lo, hi, out);
}

void cw_health__last_two(const cw_health_cron *c, int64_t now, int64_t *last, int64_t *prev)
{
    /* short spans first: a minute cron is found in the first, a monthly one in the fourth */
    static const int64_t back[] = {2 * 3600,   2 * 86400,   9 * 86400,
                                   32 * 86400, 367 * 86400, 5 * 366 * 86400};
    *last = *prev = CW_HEALTH_NONE;
    for (size_t i = 0; i < sizeof(back) / sizeof(back[0]); i++) {
        int64_t t = now - back[i], n;
        *last = *prev = CW_HEALTH_NONE;
        while (cw_cron_next(&c->parsed, t, c->offset, &n) && n <= now) {
            *prev = *last;
            *last = n;
            t = n;
        }
        if (*prev != CW_HEALTH_NONE)
            return;
    }
}
