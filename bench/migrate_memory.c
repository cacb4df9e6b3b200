/* The online planner's memory per volume, without a cluster: N volumes generated as
 * bench_migrate_online seeds them, fed to the planner as migrate/gather feeds a LIST page (one
 * object at a time, then freed), the plan finished, every MIGRATE volume given a result as
 * migrate/apply does, and the JSON report streamed to /dev/null. Printed per stage: heap bytes
 * in use (mallinfo2, mmapped chunks included) per volume, the process's peak RSS and the size of
 * the plan's item file (in $TMPDIR, on disk).
 *   bench_migrate_memory [N ...]      default: 2000 20000 100000 (each in a fresh process)
 *   bench_migrate_memory one N        child: one N, one line */
#include <json-c/json.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "cron/tz.h"
#include "defaults/policy.h"
#include "migrate/plan.h"
#include "migrate/report.h"

/* bench_migrate_online's seed_one, plus what the API server adds that the planner reads. */
static json_object *volume(size_t i, const char *ns)
{
    char buf[4096];
    int n = snprintf(buf, sizeof(buf),
                     "{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"Volume\",\"metadata\":{"
                     "\"name\":\"pvc-%06zu\",\"namespace\":\"%s\",\"resourceVersion\":\"%zu\"},"
                     "\"spec\":{\"accessMode\":\"rwo\",\"numberOfReplicas\":3,"
                     "\"recurringJobs\":[",
                     i, ns, 100000 + i);
    n += (int)cw_bench_legacy_jobs(buf + n, sizeof(buf) - (size_t)n, i);
    snprintf(buf + n, sizeof(buf) - (size_t)n, "]}}");
    return json_tokener_parse(buf);
}

/* Bytes in use: small chunks and the mmapped ones (glibc serves any allocation over 128 KiB,
 * such as a large array, by mmap, and uordblks alone leaves those out). */
static size_t heap(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

static int one(size_t n)
{
    cw_error err;
    cw_error_init(&err);
    cw_tzdb tz;
    cw_policy_config policy;
    cw_plan plan;
    if (cw_tzdb_init(&tz, NULL, &err) != CW_OK || cw_policy_config_init(&policy) != CW_OK)
        return 1;
    policy.tzdb = &tz;
    cw_plan_config cfg = {.scheme = CW_NAMES_XXH32,
                          .namespace = "longhorn-system",
                          .policy = &policy,
                          .default_group = 1};
    if (cw_plan_init(&plan, &cfg, &err) != CW_OK)
        return 1;
    size_t h0 = heap();
    for (size_t i = 0; i < n; i++) {
        json_object *v = volume(i, "bench-ns-1");
        if (cw_plan_add(&plan, v, NULL, &err) != CW_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        json_object_put(v);
    }
    size_t h1 = heap();
    if (cw_plan_finish(&plan, &err) != CW_OK)
        return 1;
    size_t h2 = heap();
    for (size_t i = 0; i < plan.nitems; i++)
        if (cw_plan_item_action(&plan, i) == CW_ACT_MIGRATE &&
            cw_plan_item_set_result(&plan, i, CW_RES_DONE, NULL, &err) != CW_OK)
            return 1;
    size_t h3 = heap();
    FILE *out = fopen("/dev/null", "w");
    cw_buf b;
    cw_buf_init(&b);
    cw_report_info info = {"online", "none", NULL, 0};
    if (!out || cw_report_json_write(&plan, &info, &b, out, &err) != CW_OK)
        return 1;
    fclose(out);
    cw_buf_free(&b);
    printf("%7zu volumes: heap per volume after gather %4.0f B, finish %4.0f B, results %4.0f B;"
           " peak RSS %.1f MiB; item file %.1f MiB\n",
           n, (double)(h1 - h0) / (double)n, (double)(h2 - h0) / (double)n,
           (double)(h3 - h0) / (double)n, (double)cw_bench_self_rss_kib() / 1024.0,
           (double)plan.store.end / 1048576.0);
    cw_plan_free(&plan);
    cw_policy_config_free(&policy);
    cw_tzdb_free(&tz);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "one") == 0)
        return one((size_t)strtoul(argv[2], NULL, 10));
    static char *defaults[] = {"2000", "20000", "100000"};
    char **ns = argc > 1 ? argv + 1 : defaults;
    int count = argc > 1 ? argc - 1 : 3, failed = 0;
    for (int i = 0; i < count; i++) {
        char *child[] = {argv[0], "one", ns[i], NULL};
        cw_bench_child c;
        failed |= cw_bench_run(child, 0, &c) != 0 || c.status != 0;
    }
    return failed;
}
