/* The webhook's decision without its transport: cw_webhook_admit (the fast decode, policy,
 * encode) against cw_webhook_admit_reference (every byte through json-c) on bench/webhook's three
 * reviews, in alternating rounds on one thread. Prints, per path, CPU time per request (min /
 * median / max over the rounds; the thread's own CPU clock, so other work on the machine matters
 * little), request latency p50/p99/p99.9 of the last round, and the ratio reference / fast per
 * round. The transport's share is bench/webhook.sh's ceiling.
 *   bench_webhook_decide [ROUNDS [REQUESTS_PER_ROUND]]     (default 5 rounds of 100000)
 *   bench_webhook_decide profile fast|reference [REQUESTS]  one path only, for `perf record` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "cron/tz.h"
#include "webhook/admit.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = malloc(1 << 16);
    *len = data ? fread(data, 1, (1 << 16) - 1, f) : 0;
    fclose(f);
    while (data && *len && strchr(" \t\r\n", data[*len - 1]))
        (*len)--; /* as bench/webhook.lua sends it */
    return data;
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One round: n requests through one path; returns CPU seconds, fills lat (µs) when given. */
static double round_of(const cw_policy_config *pol, int reference, char **bodies, size_t *lens,
                       size_t n, double *lat)
{
    char copy[1 << 16];
    double t0 = thread_cpu();
    for (size_t i = 0; i < n; i++) {
        size_t b = i % 3;
        double s = lat ? cw_bench_now() : 0;
        cw_webhook_result res;
        cw_webhook_result_init(&res);
        int rc;
        if (reference) {
            rc = cw_webhook_admit_reference(pol, CW_WEBHOOK_MUTATE, bodies[b], lens[b], &res);
        } else {
            memcpy(copy, bodies[b], lens[b]); /* the server's body buffer, written in place */
            rc = cw_webhook_admit(pol, CW_WEBHOOK_MUTATE, copy, lens[b], &res);
        }
        if (rc != CW_OK) {
            fprintf(stderr, "request %zu: %s\n", i, res.error.message);
            exit(1);
        }
        cw_webhook_result_free(&res);
        if (lat)
            lat[i] = (cw_bench_now() - s) * 1e6;
    }
    return thread_cpu() - t0;
}

int main(int argc, char **argv)
{
    int profile = argc > 2 && strcmp(argv[1], "profile") == 0;
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    size_t n = argc > 2 ? (size_t)atol(argv[2]) : 100000;
    const char *names[] = {"recurringjob", "volume", "schedule"};
    char *bodies[3];
    size_t lens[3];
    for (int i = 0; i < 3; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/bench/webhook/%s.json", CW_SOURCE_DIR, names[i]);
        if (!(bodies[i] = slurp(path, &lens[i]))) {
            fprintf(stderr, "cannot read %s\n", path);
            return 1;
        }
    }
    cw_error err;
    cw_error_init(&err);
    cw_tzdb tz;
    cw_policy_config pol;
    if ((!profile && (rounds < 1 || n < 1)) || cw_tzdb_init(&tz, NULL, &err) != CW_OK ||
        cw_policy_config_init(&pol) != CW_OK) {
        fprintf(stderr, "usage: bench_webhook_decide [ROUNDS [REQUESTS]] %s\n", err.message);
        return 2;
    }
    pol.tzdb = &tz;
    if (profile) {
        size_t m = argc > 3 ? (size_t)atol(argv[3]) : 200000;
        printf("%.2f µs CPU per request\n",
               round_of(&pol, strcmp(argv[2], "reference") == 0, bodies, lens, m, NULL) / m * 1e6);
        return 0;
    }
    double *cpu[2], *ratio = calloc((size_t)rounds, sizeof(double));
    double *lat[2] = {calloc(n, sizeof(double)), calloc(n, sizeof(double))};
    cpu[0] = calloc((size_t)rounds, sizeof(double));
    cpu[1] = calloc((size_t)rounds, sizeof(double));
    if (!ratio || !cpu[0] || !cpu[1] || !lat[0] || !lat[1])
        return 1;
    round_of(&pol, 0, bodies, lens, n / 10, NULL); /* warm-up */
    round_of(&pol, 1, bodies, lens, n / 10, NULL);
    for (int r = 0; r < rounds; r++) {
        int last = r == rounds - 1;
        for (int k = 0; k < 2; k++) {
            int path = (k + r) % 2; /* alternate which goes first */
            cpu[path][r] = round_of(&pol, path, bodies, lens, n, last ? lat[path] : NULL) / n * 1e6;
        }
        ratio[r] = cpu[1][r] / cpu[0][r];
    }
    printf("webhook decision without transport: %zu requests x %d alternating rounds, "
           "bench/webhook's three reviews (%zu, %zu, %zu bytes)\n",
           n, rounds, lens[0], lens[1], lens[2]);
    const char *label[] = {"fast decode (served)", "reference (json-c DOM)"};
    for (int p = 0; p < 2; p++) {
        double mn, md, mx;
        cw_bench_spread(cpu[p], (size_t)rounds, &mn, &md, &mx);
        cw_bench_sort(lat[p], n);
        printf("  %-24s CPU per request %.2f / %.2f / %.2f µs   latency p50 %.2f p99 %.2f "
               "p99.9 %.2f µs\n",
               label[p], mn, md, mx, cw_bench_percentile(lat[p], n, 0.5),
               cw_bench_percentile(lat[p], n, 0.99), cw_bench_percentile(lat[p], n, 0.999));
    }
    double mn, md, mx;
    cw_bench_spread(ratio, (size_t)rounds, &mn, &md, &mx);
    printf("  reference / fast: %.2f / %.2f / %.2f (min / median / max)\n", mn, md, mx);
    printf("  peak RSS %.1f MiB\n", (double)cw_bench_self_rss_kib() / 1024);
    cw_policy_config_free(&pol);
    cw_tzdb_free(&tz);
    for (int i = 0; i < 3; i++)
        free(bodies[i]);
    free(ratio);
    free(cpu[0]);
    free(cpu[1]);
    free(lat[0]);
    free(lat[1]);
    return 0;
}
