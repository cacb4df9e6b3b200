/* bench_cron: parses/s and next()/s of cron/ over a Longhorn/Velero-style expression mix,
 * median of several runs, next to robfig/cron (Go) on the same mix when Go is available.
 *   bench_cron [--runs N] [--no-go] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cron/cron.h"

/* What RecurringJobs and Velero Schedules carry in practice, a few with zone prefixes. */
static const char *const mix[] = {
    "0 0 * * *",
    "*/5 * * * *",
    "0 */6 * * *",
    "0 2 * * 0",
    "30 1 * * 1-5",
    "0 3 1 * *",
    "0 0 */2 * *",
    "0 1 * * SAT,SUN",
    "45 23 * * 6",
    "0 0 1,15 * *",
    "0 12 * JAN,JUL *",
    "*/30 9-17 * * MON-FRI",
    "15 4 * * *",
    "0 22 * * 1,3,5",
    "CRON_TZ=America/New_York 0 2 * * *",
    "TZ=Europe/Berlin 15 3 * * MON-FRI",
    "CRON_TZ=Asia/Kolkata 30 0 * * *",
    "TZ=UTC 0 */4 * * *",
    "CRON_TZ=Australia/Sydney 0 1 * * 0",
    "@every 1h",
    "@every 30m",
    "@daily",
    "@hourly",
    "@weekly",
};
#define NMIX  (sizeof(mix) / sizeof(mix[0]))
#define NFROM 64

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return v[n / 2];
}

/* ns/op of parsing and of next(), median of `runs`; same from-times as the Go side. */
typedef struct figures {
    double parse, plain, next; /* ns/op: parse all, parse without a zone prefix, next() */
} figures;

static int has_zone(const char *spec)
{
    return strncmp(spec, "TZ=", 3) == 0 || strncmp(spec, "CRON_TZ=", 8) == 0;
}

static int bench_c(cw_tzdb *db, int runs, figures *out)
{
    enum { PARSE_ITERS = 4000, NEXT_ITERS = 2000 };
    cw_cron s[NMIX];
    int64_t from[NFROM];
    double p[32], pl[32], q[32];
    size_t nplain = 0;
    long sink = 0;
    cw_error err;

    for (size_t i = 0; i < NMIX; i++)
        if (cw_cron_parse(mix[i], db, &s[i], &err) != CW_OK) {
            fprintf(stderr, "bench_cron: %s: %s\n", mix[i], err.message);
            return -1;
        }
    for (size_t i = 0; i < NMIX; i++)
        nplain += !has_zone(mix[i]);
    for (int i = 0; i < NFROM; i++)
        from[i] = 1700000000 + (int64_t)i * 7919 * 61;
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (int it = 0; it < PARSE_ITERS; it++)
            for (size_t i = 0; i < NMIX; i++) {
                cw_cron c;
                sink += cw_cron_parse(mix[i], db, &c, &err) == CW_OK;
            }
        p[r] = (now_ns() - t0) / ((double)PARSE_ITERS * NMIX);
        t0 = now_ns();
        for (int it = 0; it < PARSE_ITERS; it++)
            for (size_t i = 0; i < NMIX; i++) {
                cw_cron c;
                if (!has_zone(mix[i]))
                    sink += cw_cron_parse(mix[i], db, &c, &err) == CW_OK;
            }
        pl[r] = (now_ns() - t0) / ((double)PARSE_ITERS * (double)nplain);
        t0 = now_ns();
        for (int it = 0; it < NEXT_ITERS; it++)
            for (size_t i = 0; i < NMIX; i++) {
                int64_t next = 0;
                cw_cron_next(&s[i], from[(it + (int)i) % NFROM], 0, &next);
                sink += (long)(next & 1);
            }
        q[r] = (now_ns() - t0) / ((double)NEXT_ITERS * NMIX);
    }
    out->parse = median(p, runs);
    out->plain = median(pl, runs);
    out->next = median(q, runs);
    return sink == 0 ? -1 : 0; /* keeps the loops from being optimised away */
}

/* Builds (if needed) and runs tests/cron-oracle in -bench mode on the same mix. */
static int bench_go(int runs, figures *out)
{
    char cmd[2048], list[] = "/tmp/cw-bench-cron-XXXXXX";
    int fd = mkstemp(list), rc = -1;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return -1;
    for (size_t i = 0; i < NMIX; i++)
        fprintf(f, "%s\n", mix[i]);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "sh '%s/tests/cron-oracle/build.sh' '%s' >/dev/null 2>&1",
             CW_SOURCE_DIR, CW_ORACLE_DIR);
    if (system(cmd) != 0)
        goto done;
    snprintf(cmd, sizeof(cmd), "TZ=UTC '%s/cron-oracle' -bench -runs %d -iters 400 < '%s'",
             CW_ORACLE_DIR, runs, list);
    FILE *p = popen(cmd, "r");
    if (!p)
        goto done;
    char line[256];
    int got = 0;
    while (fgets(line, sizeof(line), p)) {
        got += sscanf(line, "parse_ns %lf", &out->parse) == 1;
        got += sscanf(line, "parse_plain_ns %lf", &out->plain) == 1;
        got += sscanf(line, "next_ns %lf", &out->next) == 1;
    }
    if (pclose(p) == 0 && got == 3)
        rc = 0;
done:
    unlink(list);
    return rc;
}

static void row(const char *what, double c_ns, double go_ns, int have_go)
{
    printf("%-18s %8.0f ns/op %10.0f/s", what, c_ns, 1e9 / c_ns);
    if (have_go)
        printf("   %8.0f ns/op %10.0f/s   %5.1fx", go_ns, 1e9 / go_ns, go_ns / c_ns);
    putchar('\n');
}

int main(int argc, char **argv)
{
    int runs = 7, use_go = 1;
    cw_tzdb db;
    cw_error err;
    figures c, go = {0, 0, 0};

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--no-go") == 0) {
            use_go = 0;
        } else {
            fprintf(stderr, "usage: bench_cron [--runs N] [--no-go]\n");
            return 2;
        }
    }
    if (runs < 1 || runs > 31)
        runs = 7;
    if (cw_tzdb_init(&db, NULL, &err) != CW_OK) {
        fprintf(stderr, "bench_cron: %s\n", err.message);
        return 1;
    }
    if (bench_c(&db, runs, &c) != 0)
        return 1;
    int have_go = use_go && bench_go(runs, &go) == 0;
    printf("cron: %zu expressions (Longhorn/Velero-style, 5 with zone prefixes, @every, @daily), "
           "median of %d runs\n",
           NMIX, runs);
    printf("%-18s %26s", "", "cronwarden (C)");
    if (have_go)
        printf("   %26s   %6s", "robfig/cron v3 (Go)", "Go/C");
    putchar('\n');
    row("parse", c.parse, go.parse, have_go);
    row("parse (no prefix)", c.plain, go.plain, have_go);
    row("next()", c.next, go.next, have_go);
    if (!have_go && use_go)
        printf("(robfig/cron figures need golang-go and golang-github-robfig-cron-dev)\n");
    cw_tzdb_free(&db);
    return 0;
}
