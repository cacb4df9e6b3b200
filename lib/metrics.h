/* A tiny thread-safe Prometheus registry: counters, gauges and histograms with labels, rendered
 * in the text exposition format (version 0.0.4). Shared by the webhook and the controller.
 *
 * Families are registered once at start-up; series (one per distinct label value tuple) appear
 * on first use. Updates take a per-family mutex, so scrapes never see a torn histogram. */
#ifndef CW_METRICS_H
#define CW_METRICS_H

#include <pthread.h>
#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

#define CW_METRICS_MAX_LABELS  8
#define CW_METRICS_MAX_BUCKETS 32

typedef enum { CW_METRIC_COUNTER, CW_METRIC_GAUGE, CW_METRIC_HISTOGRAM } cw_metric_type;

typedef struct cw_metric cw_metric; /* one family; owned by its registry */

typedef struct cw_metrics {
    pthread_mutex_t lock; /* guards the family list */
    cw_metric *head, *tail;
} cw_metrics;

void cw_metrics_init(cw_metrics *m);
void cw_metrics_free(cw_metrics *m);

/* Registers a family. `labels` is a NULL-terminated list of label names (NULL: none).
 * Names must match [a-zA-Z_:][a-zA-Z0-9_:]*; registering a name twice fails with CW_ECONFLICT.
 * *out stays valid until cw_metrics_free. */
int cw_metrics_counter(cw_metrics *m, const char *name, const char *help, const char *const *labels,
                       cw_metric **out, cw_error *err) CW_MUST_CHECK;
int cw_metrics_gauge(cw_metrics *m, const char *name, const char *help, const char *const *labels,
                     cw_metric **out, cw_error *err) CW_MUST_CHECK;
/* `bounds`: strictly increasing upper bounds, without +Inf (added automatically). */
int cw_metrics_histogram(cw_metrics *m, const char *name, const char *help,
                         const char *const *labels, const double *bounds, size_t nbounds,
                         cw_metric **out, cw_error *err) CW_MUST_CHECK;

/* Updates the series named by `values` (one per label name, in order; NULL when the family has
 * no labels). Counters only go up: a negative v fails with CW_EINVAL. */
int cw_metrics_add(cw_metric *f, const char *const *values, double v);
int cw_metrics_set(cw_metric *f, const char *const *values, double v);     /* gauges */
int cw_metrics_observe(cw_metric *f, const char *const *values, double v); /* histograms */

/* Current value of a counter or gauge series, or the observation count of a histogram series
 * (0 when the series does not exist yet). For tests and for status pages. */
double cw_metrics_value(cw_metric *f, const char *const *values);
/* Removes the series named by `values` (an object that is gone: its series must not linger with
 * a stale value). 1 when it was there, 0 when not. */
int cw_metrics_remove(cw_metric *f, const char *const *values);

/* Appends every family (registration order; series sorted by label values) to out. */
int cw_metrics_render(cw_metrics *m, cw_buf *out);

/* The content type scrapers expect for the text format. */
#define CW_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

#endif
