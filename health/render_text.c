/* Schedule health for a person at a terminal: a table like `velero schedule get` (STATE, LAST
 * SUCCESS, LAST FAILURE, MISSED in the window, NEXT; times as ages from now), the volume counts,
 * then what is wrong with each unhealthy schedule; or, with --volumes, one row per volume. */
#include <stdlib.h>
#include <string.h>

#include "health/render.h"

#define CELL 96

typedef struct table {
    size_t cols, rows;
    char (*cells)[CELL]; /* rows x cols */
    size_t width[16];
} table;

static char *cell(table *t, size_t row, size_t col)
{
    return t->cells[row * t->cols + col];
}

static int table_init(table *t, size_t cols, size_t rows, const char *const *heads)
{
    memset(t, 0, sizeof(*t));
    t->cols = cols;
    t->rows = rows + 1;
    if (!(t->cells = calloc(t->cols * t->rows, sizeof(*t->cells))))
        return CW_ENOMEM;
    for (size_t c = 0; c < cols; c++)
        snprintf(cell(t, 0, c), CELL, "%s", heads[c]);
    return CW_OK;
}

static int table_print(table *t, FILE *f)
{
    for (size_t r = 0; r < t->rows; r++)
        for (size_t c = 0; c < t->cols; c++) {
            size_t w = strlen(cell(t, r, c));
            t->width[c] = w > t->width[c] ? w : t->width[c];
        }
    for (size_t r = 0; r < t->rows; r++)
        for (size_t c = 0; c < t->cols; c++)
            if ((c + 1 < t->cols ? fprintf(f, "%-*s  ", (int)t->width[c], cell(t, r, c))
                                 : fprintf(f, "%s\n", cell(t, r, c))) < 0)
                return CW_EIO;
    free(t->cells);
    t->cells = NULL;
    return CW_OK;
}

/* "7h12m ago", "in 16h48m", "-" */
static void ago(const cw_health *h, int64_t t, char *out, size_t len)
{
    char d[24];
    if (t == CW_HEALTH_NONE) {
        snprintf(out, len, "-");
        return;
    }
    cw_health_duration(t > h->cfg.now ? t - h->cfg.now : h->cfg.now - t, d, sizeof(d));
    snprintf(out, len, t > h->cfg.now ? "in %s" : "%s ago", d);
}

static const char *kind_label(cw_health_kind k)
{
    return k == CW_HEALTH_RECURRINGJOB ? "recurringjob" : "schedule";
}

static int schedules(const cw_health *h, FILE *f)
{
    char missed[48], win[32];
    if (h->cfg.window % 3600 == 0) /* as the flag is usually written: 24h, 168h */
        snprintf(win, sizeof(win), "%lldh", (long long)(h->cfg.window / 3600));
    else
        cw_health_duration(h->cfg.window, win, sizeof(win));
    snprintf(missed, sizeof(missed), "MISSED(%s)", win);
    const char *const hs[] = {"SCHEDULE",     "KIND",         "CRON", "STATE",
                              "LAST SUCCESS", "LAST FAILURE", missed, "NEXT"};
    table t;
    if (table_init(&t, 8, h->nresults, hs) != CW_OK)
        return CW_ENOMEM;
    for (size_t i = 0; i < h->nresults; i++) {
        const cw_health_sched *s = h->results[i].sched;
        const cw_health_result *r = &h->results[i].result;
        size_t row = i + 1;
        snprintf(cell(&t, row, 0), CELL, "%s/%s", s->namespace, s->name);
        snprintf(cell(&t, row, 1), CELL, "%s",
                 s->kind == CW_HEALTH_RECURRINGJOB ? "RecurringJob" : "Schedule");
        snprintf(cell(&t, row, 2), CELL, "%s", *r->cron ? r->cron : "\"\"");
        snprintf(cell(&t, row, 3), CELL, "%s", cw_health_state_name(r->state));
        ago(h, r->success_at, cell(&t, row, 4), CELL);
        ago(h, r->failure_at, cell(&t, row, 5), CELL);
        size_t excused = r->nmissed - r->missed_unexcused;
        if (excused)
            snprintf(cell(&t, row, 6), CELL, "%zu (%zu paused)", r->missed_unexcused, excused);
        else
            snprintf(cell(&t, row, 6), CELL, "%zu", r->missed_unexcused);
        ago(h, r->next, cell(&t, row, 7), CELL);
    }
    return table_print(&t, f);
}

static void problems_of(const cw_health *h, const cw_health_sched_result *sr, FILE *f)
{
    const cw_health_sched *s = sr->sched;
    const cw_health_result *r = &sr->result;
    char t1[CW_TZ_RFC3339_MAX], d1[32], d2[32], d3[32];
    const char *run = s->kind == CW_HEALTH_RECURRINGJOB ? "Job" : "Backup";
    fprintf(f, "  %s %s/%s (%s):\n", kind_label(s->kind), s->namespace, s->name,
            cw_health_state_name(r->state));
    if (r->error)
        fprintf(f, "    the schedule %s cannot run: %s\n", *r->cron ? r->cron : "\"\"", r->error);
    size_t zone = r->state == CW_HEALTH_STATE_NO_CRONJOB ? cw_cron_zone_prefix(s->cron) : 0;
    if (zone) /* docs/compat.md: "CRON_TZ= in a RecurringJob's cron" */
        fprintf(f,
                "    no CronJob runs it: its cron starts with a time zone (%.*s), and Kubernetes "
                "1.29 and later (and 1.21 and earlier) refuse to create a CronJob whose schedule "
                "holds TZ (Longhorn 1.3 and later refuse such a cron too); write spec.cron "
                "without the prefix, in kube-controller-manager's time zone (usually UTC)\n",
                (int)zone, s->cron);
    else if (r->state == CW_HEALTH_STATE_NO_CRONJOB)
        fprintf(f, "    no CronJob runs it (Longhorn's manager or cronwarden's controller makes "
                   "one per RecurringJob)\n");
    if (r->state == CW_HEALTH_STATE_SUSPENDED)
        fprintf(f, "    its CronJob is suspended: no run starts until spec.suspend is false\n");
    if (r->stuck) {
        cw_health_duration(r->running_seconds, d1, sizeof(d1));
        cw_health_time_str(r->running_since, t1, sizeof(t1));
        cw_health_duration(r->stuck_after, d3, sizeof(d3));
        if (r->usual_seconds != CW_HEALTH_NONE) {
            cw_health_duration(r->usual_seconds, d2, sizeof(d2));
            fprintf(f,
                    "    %s %s has been running for %s (since %s); it usually takes %s, "
                    "stuck after %s\n",
                    run, r->running_run, d1, t1, d2, d3);
        } else {
            fprintf(f,
                    "    %s %s has been running for %s (since %s): stuck after %s (no "
                    "successful run to compare with)\n",
                    run, r->running_run, d1, t1, d3);
        }
    }
    if (r->consecutive_failures) {
        cw_health_time_str(r->failure_at, t1, sizeof(t1));
        fprintf(f, "    %zu run%s failed in a row; the last, %s %s at %s: %s\n",
                r->consecutive_failures, r->consecutive_failures == 1 ? "" : "s", run,
                r->failure_run, t1, r->failure_reason);
    }
    for (size_t i = 0; i < r->nmissed; i++) {
        cw_health_time_str(r->missed[i].at, t1, sizeof(t1));
        fprintf(f, "    missed %s: %s\n", t1, r->missed[i].detail);
    }
    (void)h;
}

static void counts(const cw_health *h, FILE *f, int hint)
{
    for (size_t i = 0; i < h->ncounts; i++)
        fprintf(f, "Volumes in %s: %zu, %zu unprotected, %zu stale%s\n", h->counts[i].namespace,
                h->counts[i].volumes, h->counts[i].unprotected, h->counts[i].stale,
                hint && (h->counts[i].unprotected || h->counts[i].stale)
                    ? " (cronwarden cron status --volumes lists them)"
                    : "");
}

static int volumes(const cw_health *h, FILE *f)
{
    static const char *const heads[] = {"VOLUME", "STATE", "BACKUP JOBS", "LAST BACKUP",
                                        "STALE AFTER"};
    table t;
    if (table_init(&t, 5, h->nvols, heads) != CW_OK)
        return CW_ENOMEM;
    for (size_t i = 0; i < h->nvols; i++) {
        const cw_health_volume_result *v = &h->vols[i];
        size_t row = i + 1, off = 0;
        snprintf(cell(&t, row, 0), CELL, "%s/%s", v->namespace, v->name);
        snprintf(cell(&t, row, 1), CELL, "%s",
                 v->unprotected ? "Unprotected"
                 : v->stale     ? "Stale"
                                : "Protected");
        char *jobs = cell(&t, row, 2);
        for (size_t k = 0; k < v->jobs->len && off < CELL; k++)
            off += (size_t)snprintf(jobs + off, CELL - off, "%s%s (%s)", k ? ", " : "",
                                    v->jobs->items[k], v->via->items[k]);
        if (!v->jobs->len)
            snprintf(jobs, CELL, "-");
        if (v->never)
            snprintf(cell(&t, row, 3), CELL, "never");
        else
            ago(h, v->last_backup, cell(&t, row, 3), CELL);
        if (v->interval == CW_HEALTH_NONE)
            snprintf(cell(&t, row, 4), CELL, "-");
        else
            cw_health_duration(2 * v->interval, cell(&t, row, 4), CELL);
    }
    return table_print(&t, f);
}

int cw_health_render_text(const cw_health *h, int with_volumes, FILE *f, cw_error *err)
{
    char now[CW_TZ_RFC3339_MAX];
    size_t nvol = 0;
    cw_health_time_str(h->cfg.now, now, sizeof(now));
    for (size_t i = 0; i < h->ncounts; i++)
        nvol += h->counts[i].volumes;
    int rc = CW_OK;
    fprintf(f, "Schedule status at %s\n\n", now);
    if (with_volumes) {
        rc = h->nvols ? volumes(h, f) : (fprintf(f, "No Longhorn volumes.\n") < 0 ? CW_EIO : 0);
        fprintf(f, "\n");
        counts(h, f, 0);
    } else {
        rc = h->nresults ? schedules(h, f)
                         : (fprintf(f, "No RecurringJobs or Velero Schedules.\n") < 0 ? CW_EIO : 0);
        if (h->ncounts)
            fprintf(f, "\n");
        counts(h, f, 1);
        if (h->unhealthy)
            fprintf(f, "\nProblems:\n");
        for (size_t i = 0; rc == CW_OK && i < h->nresults; i++)
            if (!h->results[i].result.healthy)
                problems_of(h, &h->results[i], f);
    }
    fprintf(f, "\n%zu schedule%s, %zu unhealthy; %zu volume%s, %zu unprotected, %zu stale\n",
            h->nresults, h->nresults == 1 ? "" : "s", h->unhealthy, nvol, nvol == 1 ? "" : "s",
            h->unprotected, h->stale);
    if (rc == CW_ENOMEM)
        return cw_error_oom(err);
    return rc != CW_OK || ferror(f) ? cw_error_set(err, CW_EIO, "writing the report failed")
                                    : CW_OK;
}
