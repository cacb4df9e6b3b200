#include "bench_util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double cw_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cw_bench_run(char *const argv[], int quiet, cw_bench_child *out)
{
    return cw_bench_run_to(argv, quiet ? "/dev/null" : NULL, NULL, out);
}

int cw_bench_run_to(char *const argv[], const char *out_path, const char *err_path,
                    cw_bench_child *out)
{
    double t0 = cw_bench_now();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (out_path) {
            int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            dup2(fd, 1);
        }
        if (err_path) {
            int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            dup2(fd, 2);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0)
        return -1;
    out->seconds = cw_bench_now() - t0;
    out->max_rss_kib = ru.ru_maxrss;
    out->cpu_seconds = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    out->status = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    return 0;
}

long cw_bench_self_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void cw_bench_sort(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_double);
}

void cw_bench_spread(double *v, size_t n, double *min, double *median, double *max)
{
    cw_bench_sort(v, n);
    *min = n ? v[0] : 0;
    *max = n ? v[n - 1] : 0;
    *median = n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

double cw_bench_percentile(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return 0;
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return sorted[i < n ? i : n - 1];
}

static const char *const legacy_crons[] = {"0 */6 * * *",  "0 2 * * *", "30 3 * * SUN",
                                           "@hourly",      "0 0 * * *", "*/30 * * * *",
                                           "15 1 * * 1-5", "0 4 1 * *"};
static const char *const legacy_labels[] = {"null", "{}", "{\"tier\":\"gold\"}",
                                            "{\"team\":\"payments\",\"tier\":\"gold\"}"};

size_t cw_bench_legacy_jobs(char *buf, size_t cap, size_t i)
{
    size_t n = 0;
    unsigned seed = (unsigned)i * 2654435761u;
    int jobs = (int)(seed >> 8) % 4;
    for (int j = 0; j < jobs && n < cap; j++) {
        seed = seed * 1103515245u + 12345u;
        int k = snprintf(buf + n, cap - n,
                         "%s{\"name\":\"job-%d\",\"task\":\"%s\",\"cron\":\"%s\",\"retain\":%u,"
                         "\"labels\":%s}",
                         j ? "," : "", j, (seed >> 3) % 2 ? "backup" : "snapshot",
                         legacy_crons[(seed >> 5) % 8], 1 + (seed >> 9) % 7,
                         legacy_labels[(seed >> 13) % 4]);
        n += k > 0 ? (size_t)k : 0;
    }
    return n < cap ? n : cap - 1;
}
