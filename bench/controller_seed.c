/* Seeds a Longhorn namespace for bench/controller_longhorn.sh:
 *   bench_controller_seed KUBECONFIG NS VOLUMES JOBS
 * JOBS RecurringJobs (crons and tasks varied) and VOLUMES Volumes: 80% labelled with one of the
 * jobs, 15% with no job label (the volume reconciler gives them the default group), 5% with a
 * legacy spec.recurringJobs (migrated). 16 requests in flight; prints the seconds it took. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "kube/client.h"
#include "kube/config.h"
#include "lib/pool.h"

static const char *crons[] = {"0 */6 * * *", "0 2 * * *",    "30 3 * * 0",   "0 * * * *",
                              "0 0 * * *",   "*/30 * * * *", "15 1 * * 1-5", "0 4 1 * *"};

typedef struct {
    cw_kube_client *kube;
    const char *ns;
    size_t jobs;
    atomic_int failed;
} seed_ctx;

static void create(seed_ctx *c, const char *plural, const char *text)
{
    cw_kube_resource r = {"longhorn.io", "v1beta1", plural, c->ns};
    cw_error err;
    cw_error_init(&err);
    json_object *o = json_tokener_parse(text);
    int rc = o ? cw_kube_create(c->kube, &r, o, NULL, NULL, &err) : CW_EINVAL;
    if (rc != CW_OK && rc != CW_ECONFLICT) {
        if (atomic_fetch_add(&c->failed, 1) == 0)
            fprintf(stderr, "seed: %s: %s\n", plural, o ? err.message : text);
    }
    json_object_put(o);
}

static void seed_job(void *ud, size_t i)
{
    seed_ctx *c = ud;
    char buf[1024];
    snprintf(buf, sizeof(buf),
             "{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"RecurringJob\",\"metadata\":{"
             "\"name\":\"job-%zu\"},\"spec\":{\"name\":\"job-%zu\",\"task\":\"%s\",\"cron\":\"%s\","
             "\"retain\":%zu,\"concurrency\":2,\"groups\":[],\"labels\":{}}}",
             i, i, i % 3 ? "snapshot" : "backup", crons[i % 8], 1 + i % 7);
    create(c, "recurringjobs", buf);
}

static void seed_volume(void *ud, size_t i)
{
    seed_ctx *c = ud;
    char buf[1024];
    unsigned kind = (unsigned)(i * 2654435761u >> 7) % 100;
    const char *labels = "", *legacy = "";
    char lab[128];
    if (kind < 80) {
        snprintf(lab, sizeof(lab),
                 ",\"labels\":{\"recurring-job.longhorn.io/job-%zu\":\"enabled\"}", i % c->jobs);
        labels = lab;
    } else if (kind >= 95) {
        legacy =
            ",\"recurringJobs\":[{\"name\":\"snap\",\"task\":\"snapshot\",\"cron\":\"0 3 * * *\","
            "\"retain\":2}]";
    }
    snprintf(buf, sizeof(buf),
             "{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"Volume\",\"metadata\":{\"name\":"
             "\"pvc-%06zu\"%s},\"spec\":{\"numberOfReplicas\":3,\"size\":\"10737418240\"%s}}",
             i, labels, legacy);
    create(c, "volumes", buf);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: bench_controller_seed KUBECONFIG NS VOLUMES JOBS\n");
        return 2;
    }
    cw_kube_config cfg;
    cw_kube_load_opts lo;
    cw_kube_client_opts o;
    cw_error err;
    cw_kube_config_init(&cfg);
    cw_kube_load_opts_init(&lo);
    cw_kube_client_opts_init(&o);
    cw_error_init(&err);
    lo.kubeconfig = argv[1];
    o.qps = 0;
    o.max_inflight = 16;
    seed_ctx c = {.ns = argv[2], .jobs = (size_t)atol(argv[4])};
    if (cw_kube_config_load(&cfg, &lo, &err) != CW_OK ||
        cw_kube_client_new(&cfg, &o, &c.kube, &err) != CW_OK) {
        fprintf(stderr, "seed: %s\n", err.message);
        return 1;
    }
    double t0 = cw_bench_now();
    cw_pool_run(c.jobs, 16, seed_job, &c);
    cw_pool_run((size_t)atol(argv[3]), 16, seed_volume, &c);
    printf("%.1f\n", cw_bench_now() - t0);
    cw_kube_client_free(c.kube);
    cw_kube_config_free(&cfg);
    return atomic_load(&c.failed) ? 1 : 0;
}
