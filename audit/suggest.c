/* --suggest: move the minutes of the jobs that make the peaks. A job whose cron's minute set M
 * moves by k minutes (M + k stays within 0-59, hour, day and month fields unchanged) fires
 * exactly k minutes later, so each candidate is judged by running the job with its fires
 * shifted (cw_audit__simulate's shift), against the starts of every other job. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "audit/internal.h"
#include "lib/buf.h"

typedef struct {
    uint64_t *add; /* scratch: starts of the job under test, by bin */
    size_t *touched;
    size_t ntouched;
} scratch;

static void collect(void *ud, size_t first, size_t last, size_t n)
{
    (void)last;
    scratch *s = ud;
    if (!s->add[first])
        s->touched[s->ntouched++] = first;
    s->add[first] += n;
}

static void clear(scratch *s)
{
    for (size_t i = 0; i < s->ntouched; i++)
        s->add[s->touched[i]] = 0;
    s->ntouched = 0;
}

/* The lowest and highest minute of the job's minute set; 0 when the set is every minute or the
 * job cannot move (an @every, a legacy line, an invalid cron). */
static int movable(const cw_audit_job *j, int *lo, int *hi)
{
    if (!j->valid || j->kind == CW_AUDIT_LEGACY || j->parsed.every > 0 || !j->starts)
        return 0;
    uint64_t m = j->parsed.minute & ~CW_CRON_STAR_BIT & ((UINT64_C(1) << 60) - 1);
    if (!m)
        return 0;
    *lo = __builtin_ctzll(m);
    *hi = 63 - __builtin_clzll(m);
    return *lo > 0 || *hi < 59;
}

/* The minute field for M + shift: "a", "a,b,c", or "lo-hi/step" for an even progression. */
static int minute_field(uint64_t m, int shift, cw_buf *out)
{
    int v[60], n = 0;
    for (int i = 0; i < 60; i++)
        if (m & (UINT64_C(1) << i))
            v[n++] = i + shift;
    int step = n >= 3 ? v[1] - v[0] : 0;
    for (int i = 2; step && i < n; i++)
        if (v[i] - v[i - 1] != step)
            step = 0;
    if (step)
        return cw_buf_printf(out, "%d-%d/%d", v[0], v[n - 1], step);
    int rc = CW_OK;
    for (int i = 0; rc == CW_OK && i < n; i++)
        rc = cw_buf_printf(out, "%s%d", i ? "," : "", v[i]);
    return rc;
}

/* The cron with its minute field replaced (descriptors spelled out), the zone prefix kept. */
static int shifted_cron(const cw_audit_job *j, int shift, cw_buf *out)
{
    static const struct {
        const char *name, *rest;
    } descriptors[] = {{"@yearly", "0 1 1 *"}, {"@annually", "0 1 1 *"}, {"@monthly", "0 1 * *"},
                       {"@weekly", "0 * * 0"}, {"@daily", "0 * * *"},    {"@midnight", "0 * * *"},
                       {"@hourly", "* * * *"}};
    const char *s = j->cron, *sp;
    int rc = CW_OK;
    if ((!strncmp(s, "TZ=", 3) || !strncmp(s, "CRON_TZ=", 8)) && (sp = strchr(s, ' '))) {
        rc = cw_buf_append(out, s, (size_t)(sp - s + 1));
        s = sp + 1;
    }
    while (*s == ' ' || *s == '\t')
        s++;
    if (rc == CW_OK)
        rc = minute_field(j->parsed.minute & ~CW_CRON_STAR_BIT, shift, out);
    for (size_t i = 0; rc == CW_OK && i < sizeof(descriptors) / sizeof(descriptors[0]); i++)
        if (!strcmp(s, descriptors[i].name))
            return cw_buf_printf(out, " %s", descriptors[i].rest);
    size_t field = strcspn(s, " \t");
    return rc == CW_OK ? cw_buf_puts(out, s + field) : rc;
}

/* The busiest step of base + the job shifted by `shift` minutes. */
static uint64_t peak_with(cw_audit *a, cw_audit_job *j, const uint64_t *base, uint64_t base_max,
                          int shift, scratch *s)
{
    cw_audit__simulate(a, j, (int64_t)shift * 60, collect, s);
    uint64_t peak = base_max;
    for (size_t i = 0; i < s->ntouched; i++) {
        uint64_t v = base[s->touched[i]] + s->add[s->touched[i]];
        peak = v > peak ? v : peak;
    }
    return peak;
}

static void add_job(cw_audit *a, cw_audit_job *j, uint64_t *total, int shift, scratch *s, int sign)
{
    cw_audit__simulate(a, j, (int64_t)shift * 60, collect, s);
    for (size_t i = 0; i < s->ntouched; i++)
        total[s->touched[i]] += sign > 0 ? s->add[s->touched[i]] : -s->add[s->touched[i]];
    clear(s);
}

static uint64_t max_of(const uint64_t *v, size_t n)
{
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

/* Tries every minute shift of job j; keeps its own unless another lowers the peak. */
static int best_shift(cw_audit *a, cw_audit_job *j, uint64_t *total, int current, scratch *s)
{
    int lo = 0, hi = 59;
    if (!movable(j, &lo, &hi))
        return current;
    add_job(a, j, total, current, s, -1);
    uint64_t base_max = max_of(total, a->nbins);
    uint64_t best = peak_with(a, j, total, base_max, current, s);
    clear(s);
    int choice = current, range = 59 - hi + lo + 1; /* shifts -lo .. 59-hi */
    uint32_t h = XXH32(j->name, strlen(j->name), 0);
    for (int i = 0; i < range; i++) {
        int shift = (int)((h + (uint32_t)i) % (uint32_t)range) - lo;
        uint64_t p = peak_with(a, j, total, base_max, shift, s);
        clear(s);
        if (p < best) {
            best = p;
            choice = shift;
        }
    }
    add_job(a, j, total, choice, s, +1);
    return choice;
}

/* 1 when job j, at its current shift, starts something in a step at the peak: only such a job
 * can lower the peak by moving. */
static int makes_peak(cw_audit *a, cw_audit_job *j, const uint64_t *total, uint64_t peak, int shift,
                      scratch *s)
{
    cw_audit__simulate(a, j, (int64_t)shift * 60, collect, s);
    int hit = 0;
    for (size_t i = 0; i < s->ntouched && !hit; i++)
        hit = total[s->touched[i]] == peak;
    clear(s);
    return hit;
}

static int by_starts(const void *x, const void *y, void *ud)
{
    const cw_audit *a = ud;
    const cw_audit_job *p = &a->jobs[*(const size_t *)x], *q = &a->jobs[*(const size_t *)y];
    if (p->starts != q->starts)
        return p->starts < q->starts ? 1 : -1;
    return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

static int record(cw_audit *a, const int *shift, cw_error *err)
{
    a->suggestions = calloc(a->njobs ? a->njobs : 1, sizeof(*a->suggestions));
    if (!a->suggestions)
        return cw_error_oom(err);
    for (size_t i = 0; i < a->njobs; i++) {
        if (!shift[i])
            continue;
        cw_buf b;
        cw_buf_init(&b);
        if (shifted_cron(&a->jobs[i], shift[i], &b) != CW_OK) {
            cw_buf_free(&b);
            return cw_error_oom(err);
        }
        a->suggestions[a->nsuggestions++] =
            (cw_audit_suggestion){.job = i, .shift = shift[i], .cron = cw_buf_detach(&b)};
    }
    return CW_OK;
}

int cw_audit_suggest(cw_audit *a, uint64_t target, cw_error *err)
{
    uint64_t *total = calloc(a->nbins + 1, sizeof(*total)), *add = calloc(a->nbins + 1, 8);
    size_t *touched = calloc(a->nbins + 1, sizeof(*touched)), *order = calloc(a->njobs + 1, 8);
    int *shift = calloc(a->njobs + 1, sizeof(*shift)), rc = CW_OK;
    uint64_t *running = calloc(a->nbins + 1, sizeof(*running));
    if (!total || !add || !touched || !order || !shift || !running) {
        rc = cw_error_oom(err);
        goto done;
    }
    scratch s = {.add = add, .touched = touched};
    memcpy(total, a->starts, a->nbins * sizeof(*total));
    size_t n = 0;
    for (size_t i = 0; i < a->njobs; i++) {
        int lo, hi;
        if (movable(&a->jobs[i], &lo, &hi))
            order[n++] = i;
    }
    qsort_r(order, n, sizeof(*order), by_starts, a);
    uint64_t peak = max_of(total, a->nbins);
    for (int pass = 0; pass < 3 && peak > target; pass++) {
        uint64_t before = peak;
        for (size_t k = 0; k < n && peak > target; k++) {
            size_t i = order[k];
            if (!makes_peak(a, &a->jobs[i], total, peak, shift[i], &s))
                continue;
            shift[i] = best_shift(a, &a->jobs[i], total, shift[i], &s);
            peak = max_of(total, a->nbins);
        }
        if (peak >= before)
            break;
    }
    if ((rc = record(a, shift, err)) != CW_OK)
        goto done;
    /* The figure after, from a fresh run of every job at its shift. */
    for (size_t i = 0; i < a->nsuggestions; i++)
        a->jobs[a->suggestions[i].job].step_phase = a->suggestions[i].shift;
    if (cw_audit__totals(a, total, running) != CW_OK)
        rc = cw_error_oom(err);
    a->peak_after = max_of(total, a->nbins);
    for (size_t i = 0; i < a->njobs; i++) { /* the per-job figures stay those of the input */
        a->jobs[i].step_phase = 0;
        if (a->jobs[i].valid)
            cw_audit__simulate(a, &a->jobs[i], 0, NULL, NULL);
    }
    a->suggested = 1;
    a->target = target;
done:
    free(total);
    free(add);
    free(touched);
    free(order);
    free(shift);
    free(running);
    return rc;
}
