#include "lib/metrics.h"
#include "lib/grow.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct series {
    uint64_t hash; /* of the label values, to skip most string compares */
    char **values;
    double value;      /* counter or gauge */
    uint64_t *buckets; /* histogram: per-bucket (not cumulative) counts, nbounds + 1 */
    double sum;
    uint64_t count;
} series;

struct cw_metric {
    cw_metric *next;
    cw_metric_type type;
    char *name, *help;
    char *labels[CW_METRICS_MAX_LABELS];
    size_t nlabels;
    double bounds[CW_METRICS_MAX_BUCKETS];
    size_t nbounds;
    pthread_mutex_t lock; /* guards the series below */
    series **series;
    size_t len, cap;
};

void cw_metrics_init(cw_metrics *m)
{
    pthread_mutex_init(&m->lock, NULL);
    m->head = m->tail = NULL;
}

static void series_free(series *s, size_t nlabels)
{
    if (!s)
        return;
    for (size_t i = 0; s->values && i < nlabels; i++)
        free(s->values[i]);
    free(s->values);
    free(s->buckets);
    free(s);
}

static void family_free(cw_metric *f)
{
    for (size_t i = 0; i < f->len; i++)
        series_free(f->series[i], f->nlabels);
    free(f->series);
    for (size_t i = 0; i < f->nlabels; i++)
        free(f->labels[i]);
    free(f->name);
    free(f->help);
    pthread_mutex_destroy(&f->lock);
    free(f);
}

void cw_metrics_free(cw_metrics *m)
{
    cw_metric *f = m->head;
    while (f) {
        cw_metric *next = f->next;
        family_free(f);
        f = next;
    }
    m->head = m->tail = NULL;
    pthread_mutex_destroy(&m->lock);
}

static int valid_name(const char *s, int label)
{
    if (!s || !*s)
        return 0;
    for (const char *p = s; *p; p++) {
        int alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
                    (!label && *p == ':');
        if (!alpha && !(p > s && *p >= '0' && *p <= '9'))
            return 0;
    }
    return 1;
}

static int add_family(cw_metrics *m, cw_metric_type type, const char *name, const char *help,
                      const char *const *labels, const double *bounds, size_t nbounds,
                      cw_metric **out, cw_error *err)
{
    int rc = CW_OK;
    cw_metric *f = NULL;
    *out = NULL;
    if (!valid_name(name, 0))
        return cw_error_set(err, CW_EINVAL, "metric name '%s' is not valid", name ? name : "");
    if (nbounds > CW_METRICS_MAX_BUCKETS)
        return cw_error_set(err, CW_ELIMIT, "%s: more than %d buckets", name,
                            CW_METRICS_MAX_BUCKETS);
    for (size_t i = 1; i < nbounds; i++)
        if (!(bounds[i] > bounds[i - 1]))
            return cw_error_set(err, CW_EINVAL, "%s: bucket bounds must increase", name);

    f = calloc(1, sizeof(*f));
    if (!f)
        return cw_error_oom(err);
    pthread_mutex_init(&f->lock, NULL);
    f->type = type;
    f->name = strdup(name);
    f->help = strdup(help ? help : "");
    if (!f->name || !f->help) {
        rc = cw_error_oom(err);
        goto done;
    }
    for (size_t i = 0; labels && labels[i]; i++) {
        if (i >= CW_METRICS_MAX_LABELS || !valid_name(labels[i], 1) ||
            (type == CW_METRIC_HISTOGRAM && strcmp(labels[i], "le") == 0)) {
            rc = cw_error_set(err, CW_EINVAL, "%s: label '%s' is not valid or one too many", name,
                              labels[i]);
            goto done;
        }
        if (!(f->labels[i] = strdup(labels[i]))) {
            rc = cw_error_oom(err);
            goto done;
        }
        f->nlabels = i + 1;
    }
    if (nbounds)
        memcpy(f->bounds, bounds, nbounds * sizeof(*bounds));
    f->nbounds = nbounds;

    pthread_mutex_lock(&m->lock);
    for (cw_metric *g = m->head; g; g = g->next) {
        if (strcmp(g->name, name) == 0) {
            pthread_mutex_unlock(&m->lock);
            rc = cw_error_set(err, CW_ECONFLICT, "metric '%s' is already registered", name);
            goto done;
        }
    }
    if (m->tail)
        m->tail->next = f;
    else
        m->head = f;
    m->tail = f;
    pthread_mutex_unlock(&m->lock);
    *out = f;
    f = NULL;
done:
    if (f)
        family_free(f);
    return rc;
}

int cw_metrics_counter(cw_metrics *m, const char *name, const char *help, const char *const *labels,
                       cw_metric **out, cw_error *err)
{
    return add_family(m, CW_METRIC_COUNTER, name, help, labels, NULL, 0, out, err);
}

int cw_metrics_gauge(cw_metrics *m, const char *name, const char *help, const char *const *labels,
                     cw_metric **out, cw_error *err)
{
    return add_family(m, CW_METRIC_GAUGE, name, help, labels, NULL, 0, out, err);
}

int cw_metrics_histogram(cw_metrics *m, const char *name, const char *help,
                         const char *const *labels, const double *bounds, size_t nbounds,
                         cw_metric **out, cw_error *err)
{
    return add_family(m, CW_METRIC_HISTOGRAM, name, help, labels, bounds, nbounds, out, err);
}

static uint64_t values_hash(const cw_metric *f, const char *const *values)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a 64 */
    for (size_t i = 0; i < f->nlabels; i++) {
        for (const char *p = values[i] ? values[i] : ""; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        h = (h ^ 0xff) * 1099511628211ULL; /* separator: ("ab","") != ("a","b") */
    }
    return h;
}

/* Finds or creates a series; the family lock must be held. NULL on allocation failure. */
static series *lookup(cw_metric *f, const char *const *values, int create)
{
    uint64_t h = values_hash(f, values);
    for (size_t i = 0; i < f->len; i++) {
        series *s = f->series[i];
        if (s->hash != h)
            continue;
        size_t k = 0;
        while (k < f->nlabels && strcmp(s->values[k], values[k] ? values[k] : "") == 0)
            k++;
        if (k == f->nlabels)
            return s;
    }
    if (!create)
        return NULL;
    if (cw_grow((void **)&f->series, &f->cap, f->len, sizeof(*f->series), 8) != CW_OK)
        return NULL;
    series *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->hash = h;
    s->values = calloc(f->nlabels ? f->nlabels : 1, sizeof(char *));
    if (!s->values)
        goto fail;
    for (size_t i = 0; i < f->nlabels; i++)
        if (!(s->values[i] = strdup(values[i] ? values[i] : "")))
            goto fail;
    if (f->type == CW_METRIC_HISTOGRAM && !(s->buckets = calloc(f->nbounds + 1, sizeof(uint64_t))))
        goto fail;
    f->series[f->len++] = s;
    return s;
fail:
    series_free(s, f->nlabels);
    return NULL;
}

static int update(cw_metric *f, const char *const *values, double v, cw_metric_type want, int set)
{
    int rc = CW_OK;
    if (!f || f->type != want || (f->nlabels && !values) || isnan(v))
        return CW_EINVAL;
    if (want == CW_METRIC_COUNTER && v < 0)
        return CW_EINVAL;
    pthread_mutex_lock(&f->lock);
    series *s = lookup(f, values, 1);
    if (!s) {
        rc = CW_ENOMEM;
        goto done;
    }
    if (want == CW_METRIC_HISTOGRAM) {
        size_t b = 0;
        while (b < f->nbounds && v > f->bounds[b])
            b++;
        s->buckets[b]++;
        s->sum += v;
        s->count++;
    } else if (set) {
        s->value = v;
    } else {
        s->value += v;
    }
done:
    pthread_mutex_unlock(&f->lock);
    return rc;
}

int cw_metrics_add(cw_metric *f, const char *const *values, double v)
{
    if (f && f->type == CW_METRIC_GAUGE)
        return update(f, values, v, CW_METRIC_GAUGE, 0);
    return update(f, values, v, CW_METRIC_COUNTER, 0);
}

int cw_metrics_set(cw_metric *f, const char *const *values, double v)
{
    return update(f, values, v, CW_METRIC_GAUGE, 1);
}

int cw_metrics_observe(cw_metric *f, const char *const *values, double v)
{
    return update(f, values, v, CW_METRIC_HISTOGRAM, 0);
}

double cw_metrics_value(cw_metric *f, const char *const *values)
{
    double v = 0;
    if (!f || (f->nlabels && !values))
        return 0;
    pthread_mutex_lock(&f->lock);
    series *s = lookup(f, values, 0);
    if (s)
        v = f->type == CW_METRIC_HISTOGRAM ? (double)s->count : s->value;
    pthread_mutex_unlock(&f->lock);
    return v;
}

int cw_metrics_remove(cw_metric *f, const char *const *values)
{
    int found = 0;
    if (!f || (f->nlabels && !values))
        return 0;
    pthread_mutex_lock(&f->lock);
    series *s = lookup(f, values, 0);
    for (size_t i = 0; s && i < f->len; i++)
        if (f->series[i] == s) {
            memmove(&f->series[i], &f->series[i + 1], (f->len - i - 1) * sizeof(*f->series));
            f->len--;
            series_free(s, f->nlabels);
            found = 1;
            break;
        }
    pthread_mutex_unlock(&f->lock);
    return found;
}

/* Prometheus reads Go float syntax; the shortest form that reads back keeps output stable. */
static void fmt_double(char *tmp, size_t n, double v)
{
    if (isinf(v)) {
        snprintf(tmp, n, "%s", v > 0 ? "+Inf" : "-Inf");
        return;
    }
    if (v == (double)(long long)v && fabs(v) < 1e15) { /* counts and timestamps: no exponent */
        snprintf(tmp, n, "%lld", (long long)v);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, n, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
}

static int put_double(cw_buf *b, double v)
{
    char tmp[40];
    fmt_double(tmp, sizeof(tmp), v);
    return cw_buf_puts(b, tmp);
}

static int put_escaped(cw_buf *b, const char *s, int quote)
{
    int rc = CW_OK;
    for (const char *p = s; *p && rc == CW_OK; p++) {
        if (*p == '\\')
            rc = cw_buf_puts(b, "\\\\");
        else if (*p == '\n')
            rc = cw_buf_puts(b, "\\n");
        else if (quote && *p == '"')
            rc = cw_buf_puts(b, "\\\"");
        else
            rc = cw_buf_putc(b, *p);
    }
    return rc;
}

/* {a="x",b="y"[,le="0.5"]}; nothing when there are no labels at all. */
static int put_labels(cw_buf *b, const cw_metric *f, const series *s, const char *le_text)
{
    int rc = CW_OK;
    if (!f->nlabels && !le_text)
        return CW_OK;
    rc |= cw_buf_putc(b, '{');
    for (size_t i = 0; i < f->nlabels; i++) {
        rc |= cw_buf_printf(b, "%s%s=\"", i ? "," : "", f->labels[i]);
        rc |= put_escaped(b, s->values[i], 1);
        rc |= cw_buf_putc(b, '"');
    }
    if (le_text)
        rc |= cw_buf_printf(b, "%sle=\"%s\"", f->nlabels ? "," : "", le_text);
    rc |= cw_buf_putc(b, '}');
    return rc ? CW_ENOMEM : CW_OK;
}

static int series_cmp(const void *a, const void *b, void *ctx)
{
    const cw_metric *f = ctx;
    const series *x = *(series *const *)a, *y = *(series *const *)b;
    for (size_t i = 0; i < f->nlabels; i++) {
        int c = strcmp(x->values[i], y->values[i]);
        if (c)
            return c;
    }
    return 0;
}

static int render_family(cw_metric *f, cw_buf *out)
{
    static const char *type_names[] = {"counter", "gauge", "histogram"};
    int rc = 0;
    pthread_mutex_lock(&f->lock);
    if (f->len > 1)
        qsort_r(f->series, f->len, sizeof(*f->series), series_cmp, f);
    rc |= cw_buf_printf(out, "# HELP %s ", f->name);
    rc |= put_escaped(out, f->help, 0);
    rc |= cw_buf_printf(out, "\n# TYPE %s %s\n", f->name, type_names[f->type]);
    for (size_t i = 0; i < f->len && rc == 0; i++) {
        const series *s = f->series[i];
        if (f->type != CW_METRIC_HISTOGRAM) {
            rc |= cw_buf_puts(out, f->name);
            rc |= put_labels(out, f, s, NULL);
            rc |= cw_buf_putc(out, ' ');
            rc |= put_double(out, s->value);
            rc |= cw_buf_putc(out, '\n');
            continue;
        }
        uint64_t cumulative = 0;
        for (size_t k = 0; k <= f->nbounds; k++) {
            char le[40] = "+Inf";
            if (k < f->nbounds)
                fmt_double(le, sizeof(le), f->bounds[k]);
            cumulative += s->buckets[k];
            rc |= cw_buf_printf(out, "%s_bucket", f->name);
            rc |= put_labels(out, f, s, le);
            rc |= cw_buf_printf(out, " %llu\n", (unsigned long long)cumulative);
        }
        rc |= cw_buf_printf(out, "%s_sum", f->name);
        rc |= put_labels(out, f, s, NULL);
        rc |= cw_buf_putc(out, ' ');
        rc |= put_double(out, s->sum);
        rc |= cw_buf_printf(out, "\n%s_count", f->name);
        rc |= put_labels(out, f, s, NULL);
        rc |= cw_buf_printf(out, " %llu\n", (unsigned long long)s->count);
    }
    pthread_mutex_unlock(&f->lock);
    return rc ? CW_ENOMEM : CW_OK;
}

int cw_metrics_render(cw_metrics *m, cw_buf *out)
{
    int rc = CW_OK;
    pthread_mutex_lock(&m->lock);
    for (cw_metric *f = m->head; f && rc == CW_OK; f = f->next)
        rc = render_family(f, out);
    pthread_mutex_unlock(&m->lock);
    return rc;
}
