/* `cronwarden cron audit` at scale (issue: 100k volumes, 500 RecurringJobs, 50 Velero Schedules,
 * a 7-day window at 1-minute steps in under 2 s and 200 MiB).
 *   bench_cron_audit [VOLUMES JOBS SCHEDULES]   generate, then measure the whole command
 * The cluster is a deterministic kubectl-style JSON List: volumes in 40 groups (a quarter in the
 * default group, some with a job label of their own), jobs mostly at midnight and on the hour
 * (the wave the audit is for), concurrency 5-50. Each run is a fresh process of the real binary
 * (-o json to /dev/null, then -o text, then --suggest); wall time and peak RSS from wait4,
 * min/median/max of 5 runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_util.h"

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static int generate(const char *path, int volumes, int jobs, int schedules)
{
    static const char *const crons[] = {"0 0 * * *", "0 * * * *", "30 1 * * *", "0 */6 * * *",
                                        "@daily",    "0 0 * * 0", "15 2 * * *", "*/30 * * * *"};
    static const char *const tasks[] = {"snapshot", "backup", "snapshot", "snapshot-cleanup"};
    FILE *f = fopen(path, "w");
    unsigned seed = 42;
    if (!f)
        return -1;
    fputs("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n", f);
    for (int j = 0; j < jobs; j++)
        fprintf(f,
                "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"RecurringJob\",\"metadata\":"
                "{\"name\":\"job-%03d\",\"namespace\":\"longhorn-system\"},\"spec\":{\"name\":"
                "\"job-%03d\",\"task\":\"%s\",\"cron\":\"%s\",\"retain\":3,\"concurrency\":%d,"
                "\"groups\":[\"g%02d\"],\"labels\":{}}},\n",
                j, j, tasks[j % 4], crons[next_rand(&seed) % 8], 5 + (int)(next_rand(&seed) % 46),
                j % 40);
    for (int s = 0; s < schedules; s++)
        fprintf(f,
                "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{\"name\":"
                "\"schedule-%02d\",\"namespace\":\"velero\"},\"spec\":{\"schedule\":\"%s\","
                "\"template\":{\"includedNamespaces\":[\"ns-%02d\"]}}},\n",
                s, crons[s % 8], s);
    for (int v = 0; v < volumes; v++) {
        unsigned r = next_rand(&seed);
        char labels[160] = "";
        if (r % 4) /* three in four carry a group label; one in 20 also a job label */
            snprintf(labels, sizeof(labels),
                     "\"recurring-job-group.longhorn.io/g%02u\":\"enabled\"%s", r % 40,
                     r % 20 == 1 ? ",\"recurring-job.longhorn.io/job-007\":\"enabled\"" : "");
        fprintf(
            f,
            "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{\"name\":"
            "\"pvc-%08d-0000-4000-8000-000000000000\",\"namespace\":\"longhorn-system\","
            "\"labels\":{%s}},\"spec\":{\"size\":\"10737418240\",\"numberOfReplicas\":3,"
            "\"frontend\":\"blockdev\",\"dataLocality\":\"disabled\"},\"status\":{\"state\":"
            "\"attached\",\"robustness\":\"healthy\"}}%s\n",
            v, labels, v + 1 < volumes ? "," : "");
    }
    fputs("]}\n", f);
    return fclose(f);
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void measure(const char *what, char *const argv[], long long volumes)
{
    enum { RUNS = 5 };
    double secs[RUNS], rss[RUNS];
    for (int i = 0; i < RUNS; i++) {
        cw_bench_child c;
        if (cw_bench_run(argv, 1, &c) != 0 || c.status != 0) {
            printf("%-22s failed (status %d)\n", what, c.status);
            return;
        }
        secs[i] = c.seconds;
        rss[i] = (double)c.max_rss_kib / 1024.0;
    }
    qsort(secs, RUNS, sizeof(double), by_double);
    qsort(rss, RUNS, sizeof(double), by_double);
    printf("%-22s %6.3f / %6.3f / %6.3f s   %8.0f volumes/s   peak RSS %6.1f / %6.1f / %6.1f "
           "MiB\n",
           what, secs[0], secs[RUNS / 2], secs[RUNS - 1], (double)volumes / secs[RUNS / 2], rss[0],
           rss[RUNS / 2], rss[RUNS - 1]);
}

int main(int argc, char **argv)
{
    int volumes = argc > 1 ? atoi(argv[1]) : 100000, jobs = argc > 2 ? atoi(argv[2]) : 500;
    int schedules = argc > 3 ? atoi(argv[3]) : 50;
    char path[256];
    struct stat st;
    mkdir("/tmp/cronwarden-bench", 0755);
    snprintf(path, sizeof(path), "/tmp/cronwarden-bench/audit-%d-%d-%d.json", volumes, jobs,
             schedules);
    if (stat(path, &st) != 0 && generate(path, volumes, jobs, schedules) != 0) {
        fprintf(stderr, "bench_cron_audit: cannot write %s\n", path);
        return 1;
    }
    stat(path, &st);
    printf("cron audit: %d volumes, %d RecurringJobs, %d Schedules (%.1f MB JSON), 168h window "
           "at 1m steps\n(wall min / median / max of 5 runs, fresh process each)\n",
           volumes, jobs, schedules, (double)st.st_size / 1e6);
    char *json[] = {CW_BENCH_CRONWARDEN,    "cron", "audit", "-f", path, "--from",
                    "2026-11-24T00:00:00Z", "-o",   "json",  NULL};
    char *text[] = {CW_BENCH_CRONWARDEN,    "cron", "audit", "-f", path, "--from",
                    "2026-11-24T00:00:00Z", NULL};
    char *suggest[] = {CW_BENCH_CRONWARDEN,    "cron",      "audit", "-f", path, "--from",
                       "2026-11-24T00:00:00Z", "--suggest", NULL};
    measure("audit -o json", json, volumes);
    measure("audit (text)", text, volumes);
    measure("audit --suggest", suggest, volumes);
    return 0;
}
