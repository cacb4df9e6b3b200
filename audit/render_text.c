/* The audit for a person at a terminal: the summary, a heat strip per day (one block per hour,
 * its height the starts of that hour against the busiest hour), the peak steps with who makes
 * them, every job's figures, the findings. */
#include <string.h>
#include <time.h>

#include "audit/internal.h"

static const char *const blocks[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};

static const char *kind_name(cw_audit_kind k)
{
    return k == CW_AUDIT_RECURRINGJOB ? "recurringjob"
           : k == CW_AUDIT_SCHEDULE   ? "schedule"
                                      : "legacy";
}

static void summary(const cw_audit *a, FILE *f)
{
    char from[CW_TZ_RFC3339_MAX], win[32], step[32];
    size_t rj = 0, legacy = 0, sched = 0;
    for (size_t i = 0; i < a->njobs; i++) {
        rj += a->jobs[i].kind == CW_AUDIT_RECURRINGJOB;
        legacy += a->jobs[i].kind == CW_AUDIT_LEGACY;
        sched += a->jobs[i].kind == CW_AUDIT_SCHEDULE;
    }
    cw_audit__time(a, a->cfg.from, from, sizeof(from));
    cw_audit__duration(a->cfg.window, win, sizeof(win));
    cw_audit__duration(a->cfg.step, step, sizeof(step));
    fprintf(f, "Schedule load from %s for %s in %s steps\n", from, win, step);
    fprintf(f,
            "Inventory: %zu volumes, %zu recurring jobs, %zu legacy job lines, %zu Velero "
            "schedules (%zu paused, left out), %zu Longhorn StorageClasses; %zu other objects "
            "ignored\n",
            a->volumes, rj, legacy, sched - a->paused_schedules, a->paused_schedules, a->nclasses,
            a->skipped_objects);
    if (a->npeaks) {
        char at[CW_TZ_RFC3339_MAX];
        cw_audit__time(a, a->peaks[0].at, at, sizeof(at));
        fprintf(f, "Peak: %llu operations start at %s; at most %llu run at once\n",
                (unsigned long long)a->peaks[0].starts, at,
                (unsigned long long)a->max_running_seen);
    } else {
        fprintf(f, "Peak: nothing starts in the window\n");
    }
}

/* One line per display-local day: "Tue 2026-11-24 |<24 blocks>| 1234". */
static int heat_strips(const cw_audit *a, FILE *f)
{
    cw_audit_hours h;
    if (cw_audit__hours(a, &h) != CW_OK)
        return CW_ENOMEM;
    uint64_t max = 0;
    for (size_t i = 0; i < h.n; i++)
        max = h.starts[i] > max ? h.starts[i] : max;
    fprintf(f, "\nStarts per hour (█ = %llu):\n", (unsigned long long)max);
    fprintf(f, "               |00    06    12    18    | starts\n");
    int64_t off = a->cfg.display_offset;
    for (size_t i = 0; i < h.n;) {
        int64_t local = h.first + (int64_t)i * 3600 + off;
        time_t day = (time_t)(local - ((local % 86400) + 86400) % 86400);
        struct tm tm;
        gmtime_r(&day, &tm);
        char name[32];
        strftime(name, sizeof(name), "%a %Y-%m-%d", &tm);
        fprintf(f, "%s |", name);
        int hour0 = (int)((((local % 86400) + 86400) % 86400) / 3600);
        uint64_t sum = 0;
        for (int hr = 0; hr < 24; hr++) {
            if (hr < hour0 || i >= h.n) {
                fputc(' ', f);
                continue;
            }
            uint64_t v = h.starts[i++];
            sum += v;
            fputs(blocks[v ? (int)((v * 8 + max - 1) / max) : 0], f);
        }
        fprintf(f, "| %llu\n", (unsigned long long)sum);
    }
    cw_audit__hours_free(&h);
    return CW_OK;
}

static void peaks(const cw_audit *a, FILE *f)
{
    if (!a->npeaks)
        return;
    fprintf(f, "\nBusiest steps:\n");
    for (size_t p = 0; p < a->npeaks; p++) {
        char at[CW_TZ_RFC3339_MAX];
        cw_audit__time(a, a->peaks[p].at, at, sizeof(at));
        fprintf(f, "  %s  %llu starts, %llu running (", at, (unsigned long long)a->peaks[p].starts,
                (unsigned long long)a->peaks[p].running);
        size_t bin = (size_t)((a->peaks[p].at - a->cfg.from) / a->cfg.step), shown = 0;
        for (size_t t = 0; t < a->tasks.len; t++)
            if (a->task_starts[t * a->nbins + bin])
                fprintf(f, "%s%s %llu", shown++ ? ", " : "", a->tasks.items[t],
                        (unsigned long long)a->task_starts[t * a->nbins + bin]);
        fprintf(f, ")\n");
        for (size_t i = 0; i < a->peaks[p].jobs.len; i++)
            fprintf(f, "      %s\n", a->peaks[p].jobs.items[i]);
    }
}

static void jobs(const cw_audit *a, FILE *f)
{
    if (!a->njobs)
        return;
    fprintf(f, "\nJobs:\n  %-13s %-40s %-22s %-14s %7s %5s %6s %6s %8s %8s\n", "KIND", "NAME",
            "CRON", "TASK", "VOLUMES", "CONC", "FIRES", "SKIP", "STARTS", "RUN");
    for (size_t i = 0; i < a->njobs; i++) {
        const cw_audit_job *j = &a->jobs[i];
        char name[512], run[32];
        if (j->kind == CW_AUDIT_LEGACY)
            snprintf(name, sizeof(name), "(spec.recurringJobs)");
        else
            snprintf(name, sizeof(name), "%s/%s", j->namespace, j->name);
        cw_audit__duration(j->run_seconds, run, sizeof(run));
        if (!j->valid)
            fprintf(f, "  %-13s %-40s %-22s %-14s %s\n", kind_name(j->kind), name, j->cron, j->task,
                    j->error);
        else
            fprintf(f, "  %-13s %-40s %-22s %-14s %7zu %5ld %6zu %6zu %8zu %8s\n",
                    kind_name(j->kind), name, j->cron, j->task, j->volumes, j->concurrency,
                    j->fires, j->skipped, j->starts, run);
    }
}

static void findings(const cw_audit *a, FILE *f)
{
    fprintf(f, "\nFindings: %s\n", a->nfindings ? "" : "none");
    for (size_t i = 0; i < a->nfindings; i++) {
        const cw_audit_finding *x = &a->findings[i];
        fprintf(f, "  %-12s %s%s%s\n", x->kind, x->job, *x->job ? ": " : "", x->message);
    }
    for (size_t i = 0; i < a->nclasses; i++) {
        if (!i)
            fprintf(f, "\nNew volumes of each Longhorn StorageClass join:\n");
        fprintf(f, "  %-24s", a->classes[i].name);
        for (size_t k = 0; k < a->classes[i].selectors.len; k++)
            fprintf(f, "%s%s", k ? ", " : " ", a->classes[i].selectors.items[k]);
        fprintf(f, "%s\n", a->classes[i].selectors.len ? "" : " (nothing)");
    }
}

static void suggestions(const cw_audit *a, FILE *f)
{
    if (!a->suggested)
        return;
    fprintf(f,
            "\nSuggested crons (target: %s%llu): the busiest step goes from %llu to %llu starts\n",
            a->target ? "" : "as low as it goes, ", (unsigned long long)a->target,
            (unsigned long long)a->max_starts_seen, (unsigned long long)a->peak_after);
    if (!a->nsuggestions)
        fprintf(f, "  (no change helps)\n");
    for (size_t i = 0; i < a->nsuggestions; i++) {
        const cw_audit_job *j = &a->jobs[a->suggestions[i].job];
        char label[256];
        cw_audit_job_label(j, label, sizeof(label));
        fprintf(f, "  %-48s %-24s -> %s\n", label, j->cron, a->suggestions[i].cron);
    }
}

int cw_audit_render_text(const cw_audit *a, FILE *f, cw_error *err)
{
    summary(a, f);
    if (heat_strips(a, f) != CW_OK)
        return cw_error_oom(err);
    peaks(a, f);
    jobs(a, f);
    findings(a, f);
    suggestions(a, f);
    return ferror(f) ? cw_error_set(err, CW_EIO, "writing the report failed") : CW_OK;
}
