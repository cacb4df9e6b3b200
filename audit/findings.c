/* What the audit tells an operator beyond the numbers: jobs that cannot run, never fire, select
 * nothing or outlast their interval; fire times a daylight-saving change skips or repeats (looked
 * for over a year from the window's start, since a week rarely holds a change); peaks above
 * --max-starts. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audit/internal.h"
#include "lib/grow.h"

int cw_audit__add_finding(cw_audit *a, const char *kind, const char *job, int64_t at,
                          const char *fmt, ...)
{
    if (cw_grow((void **)&a->findings, &a->capfindings, a->nfindings, sizeof(*a->findings), 8))
        return CW_ENOMEM;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cw_audit_finding *f = &a->findings[a->nfindings];
    *f = (cw_audit_finding){
        .kind = strdup(kind), .job = strdup(job), .at = at, .message = strdup(msg)};
    if (!f->kind || !f->job || !f->message) {
        free(f->kind);
        free(f->job);
        free(f->message);
        return CW_ENOMEM;
    }
    a->nfindings++;
    return CW_OK;
}

/* robfig's match of one local wall-clock minute (its dayMatches rule for the two day fields). */
static int matches(const cw_cron *c, const struct tm *tm)
{
    uint64_t one = 1;
    if (!(c->minute & (one << tm->tm_min)) || !(c->hour & (one << tm->tm_hour)) ||
        !(c->month & (one << (tm->tm_mon + 1))))
        return 0;
    int dom = (c->dom & (one << tm->tm_mday)) != 0, dow = (c->dow & (one << tm->tm_wday)) != 0;
    if ((c->dom & CW_CRON_STAR_BIT) || (c->dow & CW_CRON_STAR_BIT))
        return dom && dow;
    return dom || dow;
}

static void hhmm(int64_t wall, char *out, size_t len)
{
    time_t w = (time_t)wall;
    struct tm tm;
    gmtime_r(&w, &tm);
    strftime(out, len, "%Y-%m-%d %H:%M", &tm);
}

/* The first local minute in [lo, hi) (wall seconds) the cron matches, or -1. */
static int64_t first_match(const cw_cron *c, int64_t lo, int64_t hi)
{
    for (int64_t w = lo; w < hi; w += 60) {
        time_t t = (time_t)w;
        struct tm tm;
        gmtime_r(&t, &tm);
        if (matches(c, &tm))
            return w;
    }
    return -1;
}

/* How often the cron fires at wall time `wall` around the transition at T. */
static int fires_at_wall(const cw_audit_job *j, int64_t T, int64_t wall)
{
    int n = 0;
    int64_t after = T - 4 * 3600, t;
    while (cw_cron_next(&j->parsed, after, 0, &t) && t < T + 4 * 3600) {
        if (t + cw_tz_offset_at(j->parsed.zone, t) == wall)
            n++;
        after = t;
    }
    return n;
}

static int transition(cw_audit *a, const cw_audit_job *j, const char *label, int64_t T,
                      int32_t before, int32_t after)
{
    const cw_tz *z = j->parsed.zone;
    char at[32], from_s[32], to_s[32];
    int64_t lo = T + (before < after ? before : after), hi = T + (before < after ? after : before);
    int64_t w = first_match(&j->parsed, lo, hi);
    if (w < 0)
        return CW_OK;
    hhmm(w, at, sizeof(at));
    hhmm(T + before, from_s, sizeof(from_s));
    hhmm(T + after, to_s, sizeof(to_s));
    if (after > before)
        return cw_audit__add_finding(a, "dst-skipped", label, T,
                                     "%s local (%s) does not exist: clocks go from %s to %s, so "
                                     "'%s' does not fire then",
                                     at, cw_tz_name(z), from_s + 11, to_s + 11, j->cron);
    int n = fires_at_wall(j, T, w);
    return cw_audit__add_finding(a, "dst-repeated", label, T,
                                 "%s local (%s) happens twice: clocks go back from %s to %s; "
                                 "'%s' fires %s then",
                                 at, cw_tz_name(z), from_s + 11, to_s + 11, j->cron,
                                 n >= 2 ? "twice" : "once");
}

/* Every offset change in the job's zone within a year of the window's start. */
static int zone_findings(cw_audit *a, const cw_audit_job *j, const char *label)
{
    const cw_tz *z = j->parsed.zone;
    if (!z || j->parsed.every > 0)
        return CW_OK;
    int64_t t = a->cfg.from, end = a->cfg.from + 366 * 86400;
    while (t < end) {
        int64_t start, stop;
        int32_t off = cw_tz_lookup(z, t, &start, &stop);
        if (stop == INT64_MAX || stop >= end)
            break;
        int32_t next = cw_tz_offset_at(z, stop);
        int rc = next != off ? transition(a, j, label, stop, off, next) : CW_OK;
        if (rc != CW_OK)
            return rc;
        t = stop;
    }
    return CW_OK;
}

static int job_findings(cw_audit *a, const cw_audit_job *j)
{
    char label[256], run[32], every[32];
    cw_audit_job_label(j, label, sizeof(label));
    if (!j->valid) {
        if (!strcmp(j->error ? j->error : "", "paused")) {
            a->paused_schedules++;
            return CW_OK;
        }
        return cw_audit__add_finding(a, "invalid", label, -1, "invalid cron '%s': %s", j->cron,
                                     j->error ? j->error : "");
    }
    if (j->never)
        return cw_audit__add_finding(a, "never", label, -1,
                                     "'%s' never fires (no fire time within five years)", j->cron);
    int rc = CW_OK;
    if (j->kind == CW_AUDIT_RECURRINGJOB && !j->volumes)
        rc = cw_audit__add_finding(a, "no-volumes", label, -1, "selects no volume");
    if (rc == CW_OK && j->volumes && j->min_interval && j->run_seconds > j->min_interval) {
        cw_audit__duration(j->run_seconds, run, sizeof(run));
        cw_audit__duration(j->min_interval, every, sizeof(every));
        rc = cw_audit__add_finding(
            a, "self-overlap", label, j->first_fire,
            "a run takes %s (%zu volumes, %ld at a time, %llds each) but it fires every %s: %zu "
            "of %zu fires in the window are skipped (concurrencyPolicy Forbid)",
            run, j->volumes, j->concurrency, (long long)j->duration, every, j->skipped, j->fires);
    }
    return rc == CW_OK ? zone_findings(a, j, label) : rc;
}

int cw_audit__findings(cw_audit *a, cw_error *err)
{
    int rc = CW_OK;
    for (size_t i = 0; rc == CW_OK && i < a->njobs; i++)
        rc = job_findings(a, &a->jobs[i]);
    if (rc == CW_OK && a->cfg.max_starts >= 0 && a->max_starts_seen > (uint64_t)a->cfg.max_starts) {
        size_t over = 0;
        for (size_t b = 0; b < a->nbins; b++)
            over += a->starts[b] > (uint64_t)a->cfg.max_starts;
        rc = cw_audit__add_finding(a, "over-max", "", a->npeaks ? a->peaks[0].at : -1,
                                   "%zu step%s start more than --max-starts %ld operations (the "
                                   "most: %llu)",
                                   over, over == 1 ? "" : "s", a->cfg.max_starts,
                                   (unsigned long long)a->max_starts_seen);
    }
    return rc == CW_OK ? CW_OK : cw_error_oom(err);
}
