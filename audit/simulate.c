/* The audit's model run over the window: which volumes each job selects, then every fire time,
 * the volume operations it starts (concurrency at a time, skipped while the previous run goes
 * on), per-step starts and running totals, the peaks and who makes them. */
#include "audit/audit.h"

#include <stdlib.h>
#include <string.h>

#include "audit/internal.h"
#include "lib/grow.h"

int64_t cw_audit_task_duration(const cw_audit_config *cfg, const char *task)
{
    for (const cw_audit_duration *d = cfg->durations; d && d->task; d++)
        if (!strcmp(d->task, task))
            return d->seconds;
    if (!strcmp(task, "velero-backup") || !strncmp(task, "backup", 6))
        return 600; /* backup, backup-force-create, a Velero backup: 10m */
    return 60;      /* snapshots, cleanup, trim, system-backup: 1m */
}

void cw_audit_job_label(const cw_audit_job *j, char *out, size_t len)
{
    switch (j->kind) {
    case CW_AUDIT_RECURRINGJOB:
        snprintf(out, len, "recurringjob %s/%s", j->namespace, j->name);
        break;
    case CW_AUDIT_SCHEDULE:
        snprintf(out, len, "schedule %s/%s", j->namespace, j->name);
        break;
    case CW_AUDIT_LEGACY:
        snprintf(out, len, "legacy %s '%s' (%zu volume%s)", j->task, j->cron, j->volumes,
                 j->volumes == 1 ? "" : "s");
        break;
    }
}

/* ---- selection ---- */

typedef struct {
    const cw_audit_job *job;
    size_t total;
} count_ctx;

static int selects(const cw_audit_job *j, const char *sig)
{
    char needle[512];
    snprintf(needle, sizeof(needle), "\nj:%s\n", j->name);
    if (strstr(sig, needle))
        return 1;
    for (size_t g = 0; g < j->groups.len; g++) {
        snprintf(needle, sizeof(needle), "\ng:%s\n", j->groups.items[g]);
        if (strstr(sig, needle))
            return 1;
    }
    return 0;
}

static int count_set(void *ud, const char *sig, void *count)
{
    count_ctx *c = ud;
    if (selects(c->job, sig))
        c->total += (uintptr_t)count;
    return 0;
}

static int tally_set(void *ud, const char *key, void *sig)
{
    (void)key;
    cw_strmap *sets = ud;
    void *n = NULL;
    cw_strmap_get(sets, sig, strlen(sig), &n);
    return cw_strmap_set_s(sets, sig, (void *)((uintptr_t)n + 1), NULL) != CW_OK;
}

static int tally_legacy(void *ud, const char *key, void *list)
{
    (void)key;
    cw_strmap *pairs = ud;
    for (const char *p = list; *p;) {
        const char *nl1 = strchr(p, '\n'), *nl2 = nl1 ? strchr(nl1 + 1, '\n') : NULL;
        if (!nl2)
            break;
        void *n = NULL;
        cw_strmap_get(pairs, p, (size_t)(nl2 - p), &n);
        if (cw_strmap_set(pairs, p, (size_t)(nl2 - p), (void *)((uintptr_t)n + 1), NULL) != CW_OK)
            return 1;
        p = nl2 + 1;
    }
    return 0;
}

static int add_pair(void *ud, const char *pair, void *count)
{
    cw_strlist *out = ud;
    return cw_strlist_addf(out, "%s\n%zu", pair, (size_t)(uintptr_t)count) != CW_OK;
}

/* One job per (task, cron) of the legacy jobs, all its volumes at once. */
static int legacy_jobs(cw_audit *a, cw_error *err)
{
    cw_strmap pairs;
    cw_strlist list;
    cw_strmap_init(&pairs);
    cw_strlist_init(&list);
    int rc = CW_OK;
    cw_strmap_walk(&a->legacy_of, tally_legacy, &pairs);
    cw_strmap_walk(&pairs, add_pair, &list);
    cw_strlist_sort(&list);
    for (size_t i = 0; rc == CW_OK && i < list.len; i++) {
        char *task = list.items[i], *cron = strchr(task, '\n'), *count;
        *cron++ = '\0';
        count = strchr(cron, '\n');
        *count++ = '\0';
        char name[1024];
        snprintf(name, sizeof(name), "%s %s", task, cron);
        if ((rc = cw_grow((void **)&a->jobs, &a->capjobs, a->njobs, sizeof(*a->jobs), 16)) != CW_OK)
            break;
        cw_audit_job *j = &a->jobs[a->njobs++];
        memset(j, 0, sizeof(*j));
        rc = cw_audit__set_job(a, j, CW_AUDIT_LEGACY, "", name, "spec.recurringJobs", task, cron,
                               err);
        j->volumes = (size_t)strtoull(count, NULL, 10);
        j->concurrency = (long)j->volumes;
    }
    cw_strmap_free(&pairs, NULL);
    cw_strlist_free(&list);
    return rc == CW_ENOMEM ? cw_error_oom(err) : rc;
}

static int by_identity(const void *x, const void *y)
{
    const cw_audit_job *a = x, *b = y;
    if (a->kind != b->kind)
        return (int)a->kind - (int)b->kind;
    int c = strcmp(a->namespace, b->namespace);
    return c ? c : strcmp(a->name, b->name);
}

static int resolve(cw_audit *a, cw_error *err)
{
    cw_strmap sets;
    cw_strmap_init(&sets);
    if (a->volume_of.len)
        cw_strmap_walk(&a->volume_of, tally_set, &sets);
    for (size_t i = 0; i < a->njobs; i++) {
        cw_audit_job *j = &a->jobs[i];
        if (j->kind != CW_AUDIT_RECURRINGJOB)
            continue;
        count_ctx c = {.job = j};
        cw_strmap_walk(&sets, count_set, &c);
        j->volumes = c.total;
    }
    cw_strmap_free(&sets, NULL);
    int rc = legacy_jobs(a, err);
    if (rc != CW_OK)
        return rc;
    if (a->njobs)
        qsort(a->jobs, a->njobs, sizeof(*a->jobs), by_identity);
    for (size_t i = 0; i < a->njobs; i++)
        a->jobs[i].duration = cw_audit_task_duration(&a->cfg, a->jobs[i].task);
    return CW_OK;
}

/* ---- the run of one job ---- */

void cw_audit__simulate(const cw_audit *a, cw_audit_job *j, int64_t shift, cw_audit_emit_fn emit,
                        void *ud)
{
    const int64_t from = a->cfg.from, end = from + a->cfg.window, step = a->cfg.step;
    const int64_t d = j->duration > 0 ? j->duration : 1;
    const size_t c = j->concurrency > 0 ? (size_t)j->concurrency : 1;
    const size_t batches = j->volumes ? (j->volumes + c - 1) / c : 0;
    int64_t after = from - 1 - shift, busy_until = INT64_MIN, prev = -1;
    j->fires = j->skipped = j->starts = 0;
    j->first_fire = -1;
    j->min_interval = 0;
    j->run_seconds = (int64_t)batches * d;
    j->never = !cw_cron_next(&j->parsed, from - 1, 0, &(int64_t){0});
    for (;;) {
        int64_t t;
        if (!cw_cron_next(&j->parsed, after, 0, &t) || t + shift >= end)
            break;
        after = t;
        t += shift;
        j->fires++;
        if (j->first_fire < 0)
            j->first_fire = t;
        if (prev >= 0 && (!j->min_interval || t - prev < j->min_interval))
            j->min_interval = t - prev;
        prev = t;
        if (t < busy_until) {
            j->skipped++;
            continue;
        }
        busy_until = t + j->run_seconds;
        for (size_t k = 0; k < batches; k++) {
            int64_t s = t + (int64_t)k * d;
            if (s >= end)
                break;
            size_t n = k + 1 < batches ? c : j->volumes - k * c;
            size_t first = (size_t)((s - from) / step);
            size_t last = (size_t)((s + d - from + step - 1) / step); /* exclusive */
            j->starts += n;
            if (emit)
                emit(ud, first, last < a->nbins ? last : a->nbins, n);
        }
    }
}

typedef struct {
    uint64_t *starts;
    int64_t *diff;
} totals_ctx;

static void add_totals(void *ud, size_t first, size_t last, size_t n)
{
    totals_ctx *t = ud;
    t->starts[first] += n;
    t->diff[first] += (int64_t)n;
    t->diff[last] -= (int64_t)n;
}

/* ---- peaks ---- */

typedef struct {
    const size_t *peak_of; /* bin -> peak index + 1, or 0 */
    uint64_t *counts;      /* peak index -> starts of this job there */
} attribute_ctx;

static void attribute(void *ud, size_t first, size_t last, size_t n)
{
    (void)last;
    attribute_ctx *t = ud;
    if (t->peak_of[first])
        t->counts[t->peak_of[first] - 1] += n;
}

static int find_peaks(cw_audit *a)
{
    size_t k = a->cfg.peaks, n = 0;
    if (!(a->peaks = calloc(k, sizeof(*a->peaks))))
        return CW_ENOMEM;
    for (size_t b = 0; b < a->nbins; b++) { /* the k largest, earlier first among equals */
        if (!a->starts[b] || (n == k && a->starts[b] <= a->peaks[n - 1].starts))
            continue;
        size_t i = n < k ? n++ : n - 1;
        while (i > 0 && a->peaks[i - 1].starts < a->starts[b]) {
            a->peaks[i] = a->peaks[i - 1];
            i--;
        }
        a->peaks[i] = (cw_audit_peak){.at = a->cfg.from + (int64_t)b * a->cfg.step,
                                      .starts = a->starts[b],
                                      .running = a->running[b]};
    }
    a->npeaks = n;
    for (size_t i = 0; i < n; i++)
        cw_strlist_init(&a->peaks[i].jobs);
    return CW_OK;
}

typedef struct {
    uint64_t n;
    const char *label;
} contribution;

static int by_count(const void *x, const void *y)
{
    const contribution *a = x, *b = y;
    return a->n != b->n ? (a->n < b->n ? 1 : -1) : strcmp(a->label, b->label);
}

/* Who starts what in each peak step: every job run once more, counting only the peak bins. */
static int attribute_peaks(cw_audit *a)
{
    size_t *peak_of = calloc(a->nbins, sizeof(*peak_of));
    uint64_t *counts = calloc(a->npeaks * (a->njobs ? a->njobs : 1), sizeof(*counts));
    contribution *row = calloc(a->njobs ? a->njobs : 1, sizeof(*row));
    char(*labels)[256] = calloc(a->njobs ? a->njobs : 1, sizeof(*labels));
    int rc = peak_of && counts && row && labels ? CW_OK : CW_ENOMEM;
    for (size_t p = 0; rc == CW_OK && p < a->npeaks; p++)
        peak_of[(a->peaks[p].at - a->cfg.from) / a->cfg.step] = p + 1;
    for (size_t i = 0; rc == CW_OK && i < a->njobs; i++) {
        if (!a->jobs[i].valid)
            continue;
        attribute_ctx t = {.peak_of = peak_of, .counts = counts + i * a->npeaks};
        cw_audit__simulate(a, &a->jobs[i], 0, attribute, &t);
        cw_audit_job_label(&a->jobs[i], labels[i], sizeof(labels[i]));
    }
    for (size_t p = 0; rc == CW_OK && p < a->npeaks; p++) {
        size_t n = 0;
        for (size_t i = 0; i < a->njobs; i++)
            if (counts[i * a->npeaks + p])
                row[n++] = (contribution){counts[i * a->npeaks + p], labels[i]};
        qsort(row, n, sizeof(*row), by_count);
        for (size_t i = 0; rc == CW_OK && i < n; i++)
            rc = cw_strlist_addf(&a->peaks[p].jobs, "%s: %llu", row[i].label,
                                 (unsigned long long)row[i].n);
    }
    free(peak_of);
    free(counts);
    free(row);
    free(labels);
    return rc;
}

int cw_audit__totals(cw_audit *a, uint64_t *starts, uint64_t *running)
{
    int64_t *diff = calloc(a->nbins + 1, sizeof(*diff));
    if (!diff)
        return CW_ENOMEM;
    memset(starts, 0, a->nbins * sizeof(*starts));
    totals_ctx t = {.starts = starts, .diff = diff};
    for (size_t i = 0; i < a->njobs; i++)
        if (a->jobs[i].valid)
            cw_audit__simulate(a, &a->jobs[i], a->jobs[i].step_phase * 60, add_totals, &t);
    int64_t run = 0;
    for (size_t b = 0; b < a->nbins; b++)
        running[b] = (uint64_t)(run += diff[b]);
    free(diff);
    return CW_OK;
}

typedef struct {
    uint64_t *row;
} task_ctx;

static void add_task(void *ud, size_t first, size_t last, size_t n)
{
    (void)last;
    ((task_ctx *)ud)->row[first] += n;
}

/* Starts per step split by task: one more run of every job into its task's row. */
static int by_task(cw_audit *a)
{
    for (size_t i = 0; i < a->njobs; i++)
        if (a->jobs[i].valid && !cw_strlist_contains(&a->tasks, a->jobs[i].task) &&
            cw_strlist_add(&a->tasks, a->jobs[i].task) != CW_OK)
            return CW_ENOMEM;
    cw_strlist_sort(&a->tasks);
    if (!(a->task_starts = calloc(a->tasks.len * a->nbins + 1, sizeof(*a->task_starts))))
        return CW_ENOMEM;
    for (size_t i = 0; i < a->njobs; i++) {
        if (!a->jobs[i].valid)
            continue;
        size_t t = 0;
        while (strcmp(a->tasks.items[t], a->jobs[i].task))
            t++;
        task_ctx ctx = {.row = a->task_starts + t * a->nbins};
        cw_audit__simulate(a, &a->jobs[i], 0, add_task, &ctx);
    }
    return CW_OK;
}

int cw_audit_run(cw_audit *a, cw_error *err)
{
    int rc = resolve(a, err);
    if (rc != CW_OK)
        return rc;
    a->nbins = (size_t)(a->cfg.window / a->cfg.step);
    a->starts = calloc(a->nbins, sizeof(*a->starts));
    a->running = calloc(a->nbins, sizeof(*a->running));
    if (!a->starts || !a->running || cw_audit__totals(a, a->starts, a->running) != CW_OK ||
        find_peaks(a) != CW_OK || attribute_peaks(a) != CW_OK || by_task(a) != CW_OK)
        return cw_error_oom(err);
    for (size_t b = 0; b < a->nbins; b++) {
        if (a->starts[b] > a->max_starts_seen)
            a->max_starts_seen = a->starts[b];
        if (a->running[b] > a->max_running_seen)
            a->max_running_seen = a->running[b];
    }
    return cw_audit__findings(a, err);
}
