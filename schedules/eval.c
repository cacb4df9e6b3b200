/* Judging one schedule: outcomes of its runs, the fire times of the window with the run each
 * started or why none did, the run in progress against the usual duration, one state.
 * Semantics: docs/status.md. */
#include "schedules/internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

#define TIME_MAX_LEN 32

void cw_health_result_free(cw_health_result *r)
{
    free(r->cron);
    free(r->error);
    free(r->success_run);
    free(r->failure_run);
    free(r->failure_reason);
    free(r->running_run);
    for (size_t i = 0; i < r->nmissed; i++)
        free(r->missed[i].detail);
    free(r->missed);
    memset(r, 0, sizeof(*r));
}

const char *cw_health_state_name(cw_health_state s)
{
    static const char *const names[] = {"Healthy", "Waiting", "Running",   "Paused",    "Missed",
                                        "Failing", "Stuck",   "Suspended", "NoCronJob", "Invalid"};
    return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "Unknown";
}

const char *cw_health_reason_name(cw_health_reason r)
{
    static const char *const names[] = {"late",   "paused",     "skipped",        "suspended",
                                        "forbid", "no-cronjob", "controller-down"};
    return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : "unknown";
}

static int by_created(const void *a, const void *b)
{
    const cw_health_run *x = a, *y = b;
    if (x->created != y->created)
        return x->created < y->created ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int by_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Last success and failure, failures since the last success, the oldest run in progress, and
 * the usual duration (p90, nearest rank, of the last `recent` successes). */
static int outcomes(const cw_health_config *cfg, const cw_health_run *runs, size_t n,
                    cw_health_result *out)
{
    const cw_health_run *ok = NULL, *bad = NULL, *run = NULL;
    int counting = 1;
    for (size_t k = n; k-- > 0;) {
        const cw_health_run *r = &runs[k];
        if (r->outcome == CW_HEALTH_OUTCOME_SUCCEEDED && (!ok || r->finished > ok->finished))
            ok = r;
        if (r->outcome == CW_HEALTH_OUTCOME_FAILED && (!bad || r->finished > bad->finished))
            bad = r;
        if (r->outcome == CW_HEALTH_OUTCOME_RUNNING && (!run || r->started <= run->started))
            run = r;
        if (r->outcome == CW_HEALTH_OUTCOME_RUNNING)
            out->running++;
        if (counting && r->outcome == CW_HEALTH_OUTCOME_SUCCEEDED)
            counting = 0;
        else if (counting && r->outcome == CW_HEALTH_OUTCOME_FAILED)
            out->consecutive_failures++;
    }
    if (n)
        out->last_started = runs[n - 1].created;
    if (ok) {
        out->success_at = ok->finished;
        out->success_seconds = max64(ok->finished - ok->started, 0);
        if (!cw_health__dup(&out->success_run, ok->name))
            return CW_ENOMEM;
    }
    if (bad) {
        out->failure_at = bad->finished;
        if (!cw_health__dup(&out->failure_run, bad->name) ||
            !cw_health__dup(&out->failure_reason, bad->reason ? bad->reason : "failed"))
            return CW_ENOMEM;
    }
    if (run) {
        out->running_since = run->started;
        out->running_seconds = max64(cfg->now - run->started, 0); /* a clock behind the run's */
        if (!cw_health__dup(&out->running_run, run->name))
            return CW_ENOMEM;
    }
    /* the usual duration: over the newest `recent` successes by finish time */
    size_t want = cfg->recent ? cfg->recent : CW_HEALTH_DEFAULT_RECENT, m = 0;
    int64_t(*okd)[2] = calloc(n ? n : 1, sizeof(*okd));
    if (!okd)
        return CW_ENOMEM;
    for (size_t k = 0; k < n; k++)
        if (runs[k].outcome == CW_HEALTH_OUTCOME_SUCCEEDED) {
            okd[m][0] = -runs[k].finished; /* newest first */
            okd[m++][1] = max64(runs[k].finished - runs[k].started, 0);
        }
    qsort(okd, m, sizeof(*okd), by_int64); /* by the first member */
    m = m < want ? m : want;
    for (size_t k = 0; k < m; k++)
        okd[k][0] = okd[k][1];
    qsort(okd, m, sizeof(*okd), by_int64);
    if (m)
        out->usual_seconds = okd[(9 * m + 9) / 10 - 1][0];
    free(okd);
    return CW_OK;
}

/* Runs are complete from the returned time on (NONE: all of them): before it, finished Jobs past
 * the CronJob's history limits may have been deleted (Kubernetes deletes the oldest of each kind
 * first, so from the oldest kept one on nothing is missing), Backups past their TTL. Fire times
 * after the last recorded schedule (lastScheduleTime, lastBackup) had no run, whatever was
 * deleted. */
static int64_t history_from(const cw_health_config *cfg, const cw_health_sched *s,
                            const cw_health_run *runs, size_t n)
{
    int64_t h = CW_HEALTH_NONE;
    if (s->kind == CW_HEALTH_SCHEDULE) {
        h = cfg->now - (s->ttl != CW_HEALTH_NONE ? s->ttl : CW_HEALTH_DEFAULT_TTL);
    } else {
        size_t ok = 0, bad = 0;
        int64_t oldest_ok = INT64_MAX, oldest_bad = INT64_MAX;
        for (size_t k = 0; k < n; k++) {
            int64_t t = runs[k].fire != CW_HEALTH_NONE ? runs[k].fire : runs[k].created;
            if (runs[k].outcome == CW_HEALTH_OUTCOME_SUCCEEDED) {
                ok++;
                oldest_ok = oldest_ok < t ? oldest_ok : t;
            } else if (runs[k].outcome == CW_HEALTH_OUTCOME_FAILED) {
                bad++;
                oldest_bad = oldest_bad < t ? oldest_bad : t;
            }
        }
        if ((long)ok >= s->success_limit)
            h = max64(h, ok ? oldest_ok : cfg->now);
        if ((long)bad >= s->failed_limit)
            h = max64(h, bad ? oldest_bad : cfg->now);
    }
    if (h != CW_HEALTH_NONE && s->last_schedule == CW_HEALTH_NONE && n == 0)
        h = CW_HEALTH_NONE; /* never ran: nothing was deleted */
    if (h != CW_HEALTH_NONE && s->last_schedule != CW_HEALTH_NONE && s->last_schedule + 1 < h)
        h = s->last_schedule + 1;
    if (h != CW_HEALTH_NONE && cfg->history_from != CW_HEALTH_NONE && cfg->history_from < h)
        h = cfg->history_from;
    return h;
}

/* The run started for fire f (next: the fire after it): a Job or Backup made for f (by its
 * name), else for a Backup the first one created from f on, before the next fire, that was not
 * made for an earlier fire. NULL: none. */
static const cw_health_run *run_for(const cw_health_sched *s, const cw_health_run *runs, size_t n,
                                    int64_t f, int64_t next)
{
    for (size_t k = 0; k < n; k++)
        if (!runs[k].manual && runs[k].fire == f)
            return &runs[k];
    for (size_t k = 0; s->kind == CW_HEALTH_SCHEDULE && k < n; k++) {
        const cw_health_run *r = &runs[k];
        if (r->created >= f && (next == CW_HEALTH_NONE || r->created < next) &&
            (r->fire == CW_HEALTH_NONE || r->fire >= f))
            return r;
    }
    return NULL;
}

/* A run that held fire f back: made before f and not finished at f. */
static const cw_health_run *blocker(const cw_health_run *runs, size_t n, int64_t f)
{
    for (size_t k = 0; k < n && runs[k].created < f; k++) {
        const cw_health_run *r = &runs[k];
        if (r->outcome == CW_HEALTH_OUTCOME_RUNNING
                ? r->blocks
                : r->finished != CW_HEALTH_NONE && r->finished > f)
            return r;
    }
    return NULL;
}

/* 1 when no run was started from f on (or from f up to `until`). */
static int nothing_since(const cw_health_run *runs, size_t n, int64_t f, int64_t until)
{
    for (size_t k = 0; k < n; k++)
        if (runs[k].created >= f && (until == CW_HEALTH_NONE || runs[k].created <= until))
            return 0;
    return 1;
}

static int add_missed(cw_health_result *out, size_t *cap, int64_t at, cw_health_reason reason,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int add_missed(cw_health_result *out, size_t *cap, int64_t at, cw_health_reason reason,
                      const char *fmt, ...)
{
    if (cw_grow((void **)&out->missed, cap, out->nmissed, sizeof(*out->missed), 8) != CW_OK)
        return CW_ENOMEM;
    cw_buf b;
    va_list ap;
    cw_buf_init(&b);
    va_start(ap, fmt);
    cw_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    char *detail = cw_buf_error(&b) ? NULL : cw_buf_detach(&b);
    cw_buf_free(&b);
    if (!detail)
        return CW_ENOMEM;
    int excused = reason == CW_HEALTH_MISSED_PAUSED || reason == CW_HEALTH_MISSED_SKIPPED;
    out->missed[out->nmissed++] = (cw_health_missed){at, reason, excused, detail};
    out->missed_unexcused += !excused;
    return CW_OK;
}

/* Why fire f (grace g) has no run on time. */
static int judge_missed(const cw_health_config *cfg, const cw_health_sched *s,
                        const cw_health_run *runs, size_t n, int64_t f, int64_t g,
                        const cw_health_run *late, cw_health_result *out, size_t *cap)
{
    char d1[TIME_MAX_LEN], d2[TIME_MAX_LEN];
    const cw_health_run *b = s->forbid ? blocker(runs, n, f) : NULL;
    int velero = s->kind == CW_HEALTH_SCHEDULE;
    if (late) {
        cw_health_duration(late->created - f, d1, sizeof(d1));
        cw_health_duration(g, d2, sizeof(d2));
        return add_missed(out, cap, f, CW_HEALTH_MISSED_LATE,
                          "%s %s started %s late (grace %s)%s%s%s", velero ? "Backup" : "Job",
                          late->name, d1, d2, b ? ": " : "", b ? b->name : "",
                          b ? " was still running" : "");
    }
    if (velero && s->paused && nothing_since(runs, n, f, CW_HEALTH_NONE))
        return add_missed(out, cap, f, CW_HEALTH_MISSED_PAUSED, "the Schedule is paused");
    if (velero && s->last_skipped != CW_HEALTH_NONE && f <= s->last_skipped &&
        nothing_since(runs, n, f, s->last_skipped)) {
        cw_health_time_str(s->last_skipped, d1, sizeof(d1));
        return add_missed(out, cap, f, CW_HEALTH_MISSED_SKIPPED,
                          "skipped: the Schedule was paused until %s (skipImmediately)", d1);
    }
    if (!velero && s->has_cronjob && s->suspended && nothing_since(runs, n, f, CW_HEALTH_NONE))
        return add_missed(out, cap, f, CW_HEALTH_MISSED_SUSPENDED, "the CronJob is suspended");
    if (b)
        return add_missed(out, cap, f, CW_HEALTH_MISSED_FORBID, "%s %s was still running (%s)",
                          velero ? "Backup" : "Job", b->name,
                          velero ? "a schedule's Backups do not overlap"
                                 : "concurrencyPolicy Forbid");
    size_t zone = !velero && !s->has_cronjob ? cw_cron_zone_prefix(s->cron) : 0;
    if (zone) /* docs/compat.md: "CRON_TZ= in a RecurringJob's cron" */
        return add_missed(out, cap, f, CW_HEALTH_MISSED_NO_CRONJOB,
                          "the RecurringJob has no CronJob: its cron starts with a time zone "
                          "(%.*s), and Kubernetes 1.29 and later (and 1.21 and earlier) refuse "
                          "to create a CronJob whose schedule holds TZ",
                          (int)zone, s->cron);
    if (!velero && !s->has_cronjob)
        return add_missed(out, cap, f, CW_HEALTH_MISSED_NO_CRONJOB,
                          "the RecurringJob has no CronJob (Longhorn's manager or cronwarden's "
                          "controller has not made it)");
    if (velero)
        return add_missed(out, cap, f, CW_HEALTH_MISSED_CONTROLLER_DOWN,
                          "no Backup was submitted and none was running: Velero's schedule "
                          "controller (or cronwarden's controller) was not running");
    (void)cfg;
    return add_missed(out, cap, f, CW_HEALTH_MISSED_CONTROLLER_DOWN,
                      "no Job was started and none was running: kube-controller-manager's "
                      "CronJob controller was not running%s",
                      s->starting_deadline != CW_HEALTH_NONE
                          ? " or came back after startingDeadlineSeconds"
                          : "");
}

/* More than 100 start times since lastScheduleTime (or the CronJob's creation): Kubernetes'
 * CronJob controller before 1.21 gives up on such a CronJob unless startingDeadlineSeconds
 * bounds them. */
static int too_many_missed(const cw_health_sched *s, const cw_health_cron *c, int64_t now)
{
    if (s->kind != CW_HEALTH_RECURRINGJOB || !s->has_cronjob ||
        s->starting_deadline != CW_HEALTH_NONE)
        return 0;
    int64_t t = s->last_schedule != CW_HEALTH_NONE ? s->last_schedule : s->cronjob_created;
    if (t == CW_HEALTH_NONE)
        return 0;
    if (c->every)
        return (now - t) / c->parsed.every > 100;
    int k = 0;
    while (k <= 100 && cw_cron_next(&c->parsed, t, c->offset, &t) && t <= now)
        k++;
    return k > 100;
}

/* The fire times to judge: those in (judged_from, now] whose grace has passed; when the window
 * holds none, the last due one (a weekly schedule in a day's window). */
static int judge_fires(const cw_health_config *cfg, const cw_health_sched *s,
                       const cw_health_cron *c, const cw_health_run *runs, size_t n,
                       const cw_health_times *fires, int64_t floor, cw_health_result *out)
{
    size_t cap = 0, first = fires->n;
    for (size_t i = 0; i < fires->n; i++)
        if (fires->t[i] > out->judged_from) {
            first = i;
            break;
        }
    if ((first == fires->n || fires->t[first] > cfg->now) && out->last_due != CW_HEALTH_NONE &&
        out->last_due > floor) {
        for (first = 0; first < fires->n && fires->t[first] != out->last_due; first++)
            ;
    }
    for (size_t i = first; i < fires->n && fires->t[i] <= cfg->now; i++) {
        int64_t f = fires->t[i], next = i + 1 < fires->n ? fires->t[i + 1] : CW_HEALTH_NONE;
        int64_t g = cw_health_grace(cfg, f, next);
        if (f + g > cfg->now)
            break; /* still within its grace: a run may come */
        if (!out->judged++)
            out->judged_first = f;
        out->judged_to = f;
        const cw_health_run *r = run_for(s, runs, n, f, next);
        if (r && r->created - f <= g)
            continue;
        if (judge_missed(cfg, s, runs, n, f, g, r, out, &cap) != CW_OK)
            return CW_ENOMEM;
    }
    if (out->missed_unexcused && too_many_missed(s, c, cfg->now)) {
        cw_health_missed *m = &out->missed[out->nmissed - 1];
        cw_buf b;
        cw_buf_init(&b);
        cw_buf_printf(&b,
                      "%s; more than 100 start times were missed since lastScheduleTime: "
                      "Kubernetes before 1.21 stops scheduling such a CronJob (set "
                      "spec.startingDeadlineSeconds)",
                      m->detail);
        char *d = cw_buf_error(&b) ? NULL : cw_buf_detach(&b);
        cw_buf_free(&b);
        if (!d)
            return CW_ENOMEM;
        free(m->detail);
        m->detail = d;
    }
    return CW_OK;
}

static void set_state(const cw_health_sched *s, cw_health_result *out)
{
    if (out->error)
        out->state = CW_HEALTH_STATE_INVALID;
    else if (s->kind == CW_HEALTH_RECURRINGJOB && !s->has_cronjob)
        out->state = CW_HEALTH_STATE_NO_CRONJOB;
    else if (s->kind == CW_HEALTH_RECURRINGJOB && s->suspended)
        out->state = CW_HEALTH_STATE_SUSPENDED;
    else if (out->stuck)
        out->state = CW_HEALTH_STATE_STUCK;
    else if (out->consecutive_failures)
        out->state = CW_HEALTH_STATE_FAILING;
    else if (out->missed_unexcused)
        out->state = CW_HEALTH_STATE_MISSED;
    else if (out->running)
        out->state = CW_HEALTH_STATE_RUNNING;
    else if (s->kind == CW_HEALTH_SCHEDULE && s->paused)
        out->state = CW_HEALTH_STATE_PAUSED;
    else if (out->success_at == CW_HEALTH_NONE && out->failure_at == CW_HEALTH_NONE)
        out->state = CW_HEALTH_STATE_WAITING;
    else
        out->state = CW_HEALTH_STATE_OK;
    out->healthy = out->state == CW_HEALTH_STATE_OK || out->state == CW_HEALTH_STATE_WAITING ||
                   out->state == CW_HEALTH_STATE_RUNNING || out->state == CW_HEALTH_STATE_PAUSED;
}

/* last_due, next, interval; the fire times from lo on. */
static int timeline(const cw_health_config *cfg, const cw_health_sched *s, const cw_health_cron *c,
                    const cw_health_run *runs, size_t n, cw_health_times *fires,
                    cw_health_result *out)
{
    int64_t prev = CW_HEALTH_NONE, lo;
    if (c->every) {
        lo = out->judged_from - 3 * c->parsed.every;
        out->interval = c->parsed.every;
    } else {
        cw_health__last_two(c, cfg->now, &out->last_due, &prev);
        lo = out->last_due != CW_HEALTH_NONE && out->last_due <= out->judged_from
                 ? out->last_due - 1
                 : out->judged_from;
    }
    int rc = cw_health__fires(cfg, s, c, runs, n, lo, cfg->now, fires);
    if (rc != CW_OK)
        return rc;
    for (size_t i = 0; i < fires->n; i++) {
        if (fires->t[i] > cfg->now) {
            out->next = fires->t[i];
            break;
        }
        if (c->every)
            out->last_due = fires->t[i];
    }
    if (!c->every && prev != CW_HEALTH_NONE)
        out->interval = out->last_due - prev;
    else if (!c->every && out->next != CW_HEALTH_NONE) {
        int64_t n2;
        if (cw_cron_next(&c->parsed, out->next, c->offset, &n2))
            out->interval = n2 - out->next;
    }
    return CW_OK;
}

int cw_health_eval(const cw_health_config *cfg, const cw_health_sched *s, cw_health_run *runs,
                   size_t nruns, cw_health_result *out, cw_error *err)
{
    cw_health_times fires = {0};
    cw_health_cron c;
    cw_error perr;
    int rc = CW_OK;
    memset(out, 0, sizeof(*out));
    out->interval = out->last_due = out->next = out->judged_from = out->history_from =
        out->judged_to = out->judged_first = out->last_started = out->success_at =
            out->success_seconds = out->failure_at = out->running_since = out->running_seconds =
                out->usual_seconds = out->stuck_after = CW_HEALTH_NONE;
    if (nruns > 1)
        qsort(runs, nruns, sizeof(*runs), by_created);
    if (!cw_health__dup(&out->cron, s->cron ? s->cron : "") ||
        outcomes(cfg, runs, nruns, out) != CW_OK)
        goto oom;
    cw_error_init(&perr);
    if ((rc = cw_health__parse(cfg, s, &c, &perr)) != CW_OK) {
        if (rc == CW_ENOMEM || !cw_health__dup(&out->error, perr.message))
            goto oom;
        rc = CW_OK;
        goto done;
    }
    int64_t created =
        s->kind == CW_HEALTH_RECURRINGJOB && s->has_cronjob && s->cronjob_created != CW_HEALTH_NONE
            ? s->cronjob_created
            : s->created;
    out->history_from = history_from(cfg, s, runs, nruns);
    int64_t floor = max64(created, out->history_from == CW_HEALTH_NONE ? CW_HEALTH_NONE
                                                                       : out->history_from - 1);
    out->judged_from =
        max64(cfg->now - (cfg->window > 0 ? cfg->window : CW_HEALTH_DEFAULT_WINDOW), floor);
    if ((rc = timeline(cfg, s, &c, runs, nruns, &fires, out)) != CW_OK ||
        (rc = judge_fires(cfg, s, &c, runs, nruns, &fires, floor, out)) != CW_OK) {
        if (rc == CW_ELIMIT)
            rc = cw_error_set(err, rc, "%s/%s: more than a million fire times in the window",
                              s->namespace, s->name);
        else
            goto oom;
        goto done;
    }
    if ((s->kind == CW_HEALTH_SCHEDULE && s->paused) ||
        (s->kind == CW_HEALTH_RECURRINGJOB && s->has_cronjob && s->suspended))
        out->next = CW_HEALTH_NONE;
done:
    /* the threshold also when nothing runs: the reconciler exports it beside running_seconds */
    out->stuck_after = out->usual_seconds != CW_HEALTH_NONE
                           ? max64(2 * out->usual_seconds, out->usual_seconds + 900)
                       : out->interval != CW_HEALTH_NONE ? max64(out->interval, 3600)
                                                         : 3600;
    out->stuck = out->running && out->running_seconds > out->stuck_after;
    set_state(s, out);
    cw_health__times_free(&fires);
    return rc;
oom:
    cw_health__times_free(&fires);
    cw_health_result_free(out);
    return cw_error_oom(err);
}

size_t cw_health_count_missed(const cw_health_result *r, int64_t *counted)
{
    int64_t after = *counted;
    if (after == CW_HEALTH_UNCOUNTED)
        after = r->success_at; /* NONE (-1) when there was none: everything counts */
    size_t k = 0;
    for (size_t i = 0; i < r->nmissed; i++)
        k += !r->missed[i].excused && r->missed[i].at > after;
    if (r->judged_to != CW_HEALTH_NONE &&
        (r->judged_to > *counted || *counted == CW_HEALTH_UNCOUNTED))
        *counted = r->judged_to;
    return k;
}
