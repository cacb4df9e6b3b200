/* Helpers the renderers share: the hourly view of the window and time formatting. */
#include <stdlib.h>
#include <string.h>

#include "audit/internal.h"

void cw_audit__time(const cw_audit *a, int64_t t, char *out, size_t len)
{
    if (cw_tz_format_rfc3339(t, a->cfg.display_offset, out, len) != CW_OK)
        snprintf(out, len, "@%lld", (long long)t);
}

static int64_t floor_div(int64_t x, int64_t d)
{
    return x >= 0 ? x / d : -((-x + d - 1) / d);
}

int cw_audit__hours(const cw_audit *a, cw_audit_hours *h)
{
    const int64_t off = a->cfg.display_offset, from = a->cfg.from;
    memset(h, 0, sizeof(*h));
    h->first = floor_div(from + off, 3600) * 3600 - off;
    int64_t last = from + (int64_t)a->nbins * a->cfg.step; /* exclusive */
    h->n = (size_t)((last - h->first + 3599) / 3600);
    h->starts = calloc(h->n ? h->n : 1, sizeof(*h->starts));
    h->running = calloc(h->n ? h->n : 1, sizeof(*h->running));
    if (!h->starts || !h->running) {
        cw_audit__hours_free(h);
        return CW_ENOMEM;
    }
    for (size_t b = 0; b < a->nbins; b++) {
        size_t i = (size_t)((from + (int64_t)b * a->cfg.step - h->first) / 3600);
        h->starts[i] += a->starts[b];
        if (a->running[b] > h->running[i])
            h->running[i] = a->running[b];
    }
    return CW_OK;
}

void cw_audit__hours_free(cw_audit_hours *h)
{
    free(h->starts);
    free(h->running);
    memset(h, 0, sizeof(*h));
}

uint64_t cw_audit__split_row(const char *row, char *label, size_t len)
{
    const char *sep = strrchr(row, ':');
    size_t n = sep ? (size_t)(sep - row) : strlen(row);
    snprintf(label, len, "%.*s", (int)n, row);
    return sep ? strtoull(sep + 1, NULL, 10) : 0;
}

void cw_audit__duration(int64_t s, char *out, size_t len)
{
    if (s >= 3600 && s % 3600 == 0)
        snprintf(out, len, "%lldh", (long long)(s / 3600));
    else if (s >= 60 && s % 60 == 0)
        snprintf(out, len, "%lldm", (long long)(s / 60));
    else
        snprintf(out, len, "%llds", (long long)s);
}
