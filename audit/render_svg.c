/* The audit as a picture for a ticket: a heatmap with one row per display-local day and one
 * column per minute of the day, the colour of a cell the operations started in that step (white
 * through yellow to dark red against the busiest step), hour lines, and the busiest steps
 * circled and labelled. Plain SVG 1.1, no script, no external resources. */
#include <string.h>
#include <time.h>

#include "audit/internal.h"

#define LEFT   120 /* room for the day names */
#define TOP    56
#define ROW    26
#define BOTTOM 70
#define WIDTH  (LEFT + 1440 + 40)

static int64_t mod(int64_t x, int64_t m)
{
    return ((x % m) + m) % m;
}

/* White -> yellow -> red -> dark red for 0 < v <= max. */
static void colour(uint64_t v, uint64_t max, char *out, size_t len)
{
    double x = max ? (double)v / (double)max : 0;
    int r, g, b;
    if (x < 0.5) {
        r = 255, g = 255 - (int)(x * 2 * 55), b = 200 - (int)(x * 2 * 200);
    } else {
        r = 255 - (int)((x - 0.5) * 2 * 120), g = 200 - (int)((x - 0.5) * 2 * 200), b = 0;
    }
    snprintf(out, len, "#%02x%02x%02x", (unsigned)r & 0xffu, (unsigned)(g < 0 ? 0 : g) & 0xffu,
             (unsigned)(b < 0 ? 0 : b) & 0xffu);
}

static void escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static void frame(const cw_audit *a, FILE *f, int64_t day0, size_t days, int height)
{
    char from[CW_TZ_RFC3339_MAX], step[32];
    cw_audit__time(a, a->cfg.from, from, sizeof(from));
    cw_audit__duration(a->cfg.step, step, sizeof(step));
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
            "<text x=\"%d\" y=\"22\" font-size=\"16\" font-weight=\"bold\">Volume operations and "
            "backups started per %s step, from %s (peak %llu, at most %llu running)</text>\n",
            WIDTH, height, WIDTH, height, LEFT, step, from, (unsigned long long)a->max_starts_seen,
            (unsigned long long)a->max_running_seen);
    for (int hr = 0; hr <= 24; hr++) {
        int x = LEFT + hr * 60;
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%zu\" stroke=\"#dddddd\"/>\n", x,
                TOP - 4, x, TOP + days * ROW);
        if (hr < 24)
            fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555555\">%02d:00</text>\n", x + 2, TOP - 8,
                    hr);
    }
    for (size_t d = 0; d < days; d++) {
        time_t t = (time_t)(day0 + (int64_t)d * 86400);
        struct tm tm;
        char name[32];
        gmtime_r(&t, &tm);
        strftime(name, sizeof(name), "%a %Y-%m-%d", &tm);
        fprintf(f, "<text x=\"8\" y=\"%zu\">%s</text>\n", TOP + d * ROW + 17, name);
    }
}

int cw_audit_render_svg(const cw_audit *a, FILE *f, cw_error *err)
{
    const int64_t off = a->cfg.display_offset, step = a->cfg.step;
    int64_t first_local = a->cfg.from + off, day0 = first_local - mod(first_local, 86400);
    int64_t last_local = first_local + (int64_t)a->nbins * step - 1;
    size_t days = (size_t)((last_local - day0) / 86400 + 1);
    int height = TOP + (int)days * ROW + BOTTOM;
    char fill[16];
    frame(a, f, day0, days, height);
    int width = step >= 60 ? (int)(step / 60) : 1;
    for (size_t b = 0; b < a->nbins; b++) {
        if (!a->starts[b])
            continue;
        int64_t local = first_local + (int64_t)b * step;
        size_t row = (size_t)((local - day0) / 86400);
        int x = LEFT + (int)(mod(local, 86400) / 60);
        colour(a->starts[b], a->max_starts_seen, fill, sizeof(fill));
        fprintf(f,
                "<rect x=\"%d\" y=\"%zu\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%llu "
                "starts</title></rect>\n",
                x, TOP + row * ROW + 2, width, ROW - 4, fill, (unsigned long long)a->starts[b]);
    }
    for (size_t p = 0; p < a->npeaks && p < 5; p++) { /* the five busiest, circled and labelled */
        int64_t local = a->peaks[p].at + off;
        size_t row = (size_t)((local - day0) / 86400);
        int x = LEFT + (int)(mod(local, 86400) / 60);
        char at[CW_TZ_RFC3339_MAX];
        cw_audit__time(a, a->peaks[p].at, at, sizeof(at));
        fprintf(f,
                "<circle cx=\"%d\" cy=\"%zu\" r=\"9\" fill=\"none\" stroke=\"#0044cc\" "
                "stroke-width=\"2\"/>\n<text x=\"%d\" y=\"%zu\" fill=\"#0044cc\" "
                "font-weight=\"bold\">#%zu %llu starts ",
                x, TOP + row * ROW + ROW / 2, x + 12, TOP + row * ROW + ROW / 2 + 4, p + 1,
                (unsigned long long)a->peaks[p].starts);
        escape(f, at + 11);
        fputs("</text>\n", f);
    }
    fprintf(f,
            "<text x=\"%d\" y=\"%d\" fill=\"#555555\">Colour: starts in a step against the "
            "busiest step (%llu). cronwarden cron audit</text>\n</svg>\n",
            LEFT, height - 24, (unsigned long long)a->max_starts_seen);
    return ferror(f) ? cw_error_set(err, CW_EIO, "writing the picture failed") : CW_OK;
}
