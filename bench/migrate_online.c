/* Online migrate throughput and memory on a real kube-apiserver, against a baseline that does
 * what Longhorn 1.2's upgrade did: for every volume in turn, get-before-create of each job's
 * RecurringJob, then GET the volume and PUT it back whole (sequential, no paging).
 *   bench_migrate_online KUBECONFIG N [N2 ...]   seed, measure both, print the table
 *   bench_migrate_online seed KUBECONFIG NS N     child: create N legacy volumes in NS
 *   bench_migrate_online baseline KUBECONFIG NS   child: the Longhorn 1.2 algorithm
 * Run through bench/migrate_online.sh, which starts and stops the cluster. */
#include <json-c/json.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "lib/gojson.h"
#include "kube/client.h"
#include "defaults/names.h"
#include "lib/pool.h"

static const char *crons[] = {"0 */6 * * *", "0 2 * * *",    "30 3 * * SUN", "@hourly",
                              "0 0 * * *",   "*/30 * * * *", "15 1 * * 1-5", "0 4 1 * *"};
static const char *labels[] = {"null", "{}", "{\"tier\":\"gold\"}",
                               "{\"team\":\"payments\",\"tier\":\"gold\"}"};

static cw_kube_client *client(const char *kubeconfig, int inflight)
{
    cw_kube_config cfg;
    cw_kube_config_init(&cfg);
    cw_kube_load_opts lo;
    cw_kube_load_opts_init(&lo);
    lo.kubeconfig = kubeconfig;
    cw_error err;
    cw_error_init(&err);
    cw_kube_client *c = NULL;
    cw_kube_client_opts o;
    cw_kube_client_opts_init(&o);
    o.qps = 0; /* the benchmark measures the server, not our limiter */
    o.max_inflight = inflight;
    if (cw_kube_config_load(&cfg, &lo, &err) != CW_OK ||
        cw_kube_client_new(&cfg, &o, &c, &err) != CW_OK) {
        fprintf(stderr, "bench: %s\n", err.message);
        exit(1);
    }
    cw_kube_config_free(&cfg);
    return c;
}

typedef struct {
    cw_kube_client *kube;
    const char *ns;
    atomic_int failed;
} seed_ctx;

static void seed_one(void *ud, size_t i)
{
    seed_ctx *c = ud;
    char buf[4096];
    int n =
        snprintf(buf, sizeof(buf),
                 "{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"Volume\",\"metadata\":{"
                 "\"name\":\"pvc-%06zu\",\"namespace\":\"%s\"},\"spec\":{\"accessMode\":\"rwo\","
                 "\"dataLocality\":\"disabled\",\"engineImage\":\"longhornio/longhorn-engine:"
                 "v1.1.2\",\"frontend\":\"blockdev\",\"nodeID\":\"worker-%zu\","
                 "\"numberOfReplicas\":3,\"size\":\"10737418240\",\"staleReplicaTimeout\":30,"
                 "\"recurringJobs\":[",
                 i, c->ns, i % 12);
    unsigned seed = (unsigned)i * 2654435761u;
    int jobs = (int)(seed >> 8) % 4;
    for (int j = 0; j < jobs; j++) {
        seed = seed * 1103515245u + 12345u;
        n += snprintf(buf + n, sizeof(buf) - (size_t)n,
                      "%s{\"name\":\"job-%d\",\"task\":\"%s\",\"cron\":\"%s\",\"retain\":%u,"
                      "\"labels\":%s}",
                      j ? "," : "", j, (seed >> 3) % 2 ? "backup" : "snapshot",
                      crons[(seed >> 5) % 8], 1 + (seed >> 9) % 7, labels[(seed >> 13) % 4]);
    }
    snprintf(buf + n, sizeof(buf) - (size_t)n, "]}}");
    json_object *obj = json_tokener_parse(buf);
    cw_kube_resource r = {"longhorn.io", "v1beta1", "volumes", c->ns};
    cw_error err;
    cw_error_init(&err);
    int rc = cw_kube_create(c->kube, &r, obj, NULL, NULL, &err);
    if (rc != CW_OK && rc != CW_ECONFLICT) {
        fprintf(stderr, "seed: %s\n", err.message);
        atomic_fetch_add(&c->failed, 1);
    }
    json_object_put(obj);
}

static int seed(const char *kubeconfig, const char *ns, size_t n)
{
    seed_ctx c = {client(kubeconfig, 16), ns, 0};
    cw_pool_run(n, 16, seed_one, &c);
    cw_kube_client_free(c.kube);
    return atomic_load(&c.failed) ? 1 : 0;
}

/* ---- the Longhorn 1.2 baseline ---- */

typedef struct {
    cw_kube_client *kube;
    const char *ns;
    json_object *names; /* volume names */
} base_ctx;

static int collect(void *ud, const cw_kube_page *page, cw_error *err)
{
    (void)err;
    base_ctx *c = ud;
    for (size_t i = 0; i < json_object_array_length(page->items); i++) {
        json_object *v = json_object_array_get_idx(page->items, i);
        json_object *name = NULL;
        json_object_object_get_ex(json_object_object_get(v, "metadata"), "name", &name);
        json_object_array_add(c->names, json_object_get(name));
    }
    return 0;
}

static int baseline(const char *kubeconfig, const char *ns)
{
    base_ctx c = {client(kubeconfig, 1), ns, json_object_new_array()};
    cw_error err;
    cw_error_init(&err);
    cw_kube_resource vols = {"longhorn.io", "v1beta1", "volumes", ns};
    cw_kube_resource rjs = {"longhorn.io", "v1beta1", "recurringjobs", ns};
    cw_kube_list_opts lo;
    cw_kube_list_opts_init(&lo);
    lo.limit = 0; /* Longhorn read volumes from its informer cache: one full list */
    if (cw_kube_list(c.kube, &vols, &lo, collect, &c, &err) != CW_OK) {
        fprintf(stderr, "baseline: %s\n", err.message);
        return 1;
    }
    for (size_t i = 0; i < json_object_array_length(c.names); i++) {
        const char *name = json_object_get_string(json_object_array_get_idx(c.names, i));
        json_object *vol = NULL;
        if (cw_kube_get(c.kube, &vols, name, &vol, &err) != CW_OK)
            continue; /* vanished: skipped, as Longhorn did */
        json_object *spec = json_object_object_get(vol, "spec");
        json_object *jobs = json_object_object_get(spec, "recurringJobs");
        json_object *meta = json_object_object_get(vol, "metadata");
        json_object *lbls = json_object_object_get(meta, "labels");
        if (!lbls) {
            lbls = json_object_new_object();
            json_object_object_add(meta, "labels", lbls);
        }
        for (size_t j = 0; j < json_object_array_length(jobs); j++) {
            json_object *job = json_object_array_get_idx(jobs, j);
            char rj[CW_NAMES_MAX + 1];
            json_object *l = json_object_object_get(job, "labels");
            if (cw_names_job(CW_NAMES_LONGHORN,
                             json_object_get_string(json_object_object_get(job, "task")),
                             json_object_get_int64(json_object_object_get(job, "retain")),
                             json_object_get_string(json_object_object_get(job, "cron")), l, rj,
                             &err) != CW_OK)
                continue; /* a job Longhorn could not name is not seeded */
            if (cw_kube_get(c.kube, &rjs, rj, NULL, &err) == CW_ENOTFOUND) {
                char buf[1024];
                cw_buf lj;
                cw_buf_init(&lj);
                cw_gojson_write(l, &lj);
                snprintf(buf, sizeof(buf),
                         "{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"RecurringJob\","
                         "\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\"},\"spec\":{\"name\":"
                         "\"%s\",\"task\":%s,\"cron\":%s,\"retain\":%s,\"concurrency\":10,"
                         "\"groups\":[],\"labels\":%s}}",
                         rj, ns, rj,
                         json_object_to_json_string(json_object_object_get(job, "task")),
                         json_object_to_json_string(json_object_object_get(job, "cron")),
                         json_object_to_json_string(json_object_object_get(job, "retain")),
                         strcmp(cw_buf_str(&lj), "null") == 0 ? "{}" : cw_buf_str(&lj));
                json_object *o = json_tokener_parse(buf);
                if (cw_kube_create(c.kube, &rjs, o, NULL, NULL, &err) != CW_OK &&
                    err.http_status != 409)
                    fprintf(stderr, "seeding %s: %s\n", rj, err.message);
                json_object_put(o);
                cw_buf_free(&lj);
            }
            char key[128];
            snprintf(key, sizeof(key), "recurring-job.longhorn.io/%s", rj);
            json_object_object_add(lbls, key, json_object_new_string("enabled"));
        }
        json_object_object_del(spec, "recurringJobs");
        if (cw_kube_update(c.kube, &vols, name, vol, NULL, NULL, &err) != CW_OK)
            fprintf(stderr, "baseline: %s\n", err.message);
        json_object_put(vol);
    }
    json_object_put(c.names);
    cw_kube_client_free(c.kube);
    return 0;
}

typedef struct {
    size_t left;
} count_ctx;

static int count_legacy(void *ud, const cw_kube_page *page, cw_error *err)
{
    (void)err;
    count_ctx *c = ud;
    for (size_t i = 0; i < json_object_array_length(page->items); i++) {
        json_object *spec =
            json_object_object_get(json_object_array_get_idx(page->items, i), "spec");
        if (json_object_object_get(spec, "recurringJobs"))
            c->left++;
    }
    return 0;
}

static size_t legacy_left(const char *kubeconfig, const char *ns)
{
    cw_kube_client *k = client(kubeconfig, 1);
    cw_kube_resource r = {"longhorn.io", "v1beta1", "volumes", ns};
    count_ctx c = {0};
    cw_error err;
    cw_error_init(&err);
    if (cw_kube_list(k, &r, NULL, count_legacy, &c, &err) != CW_OK) {
        fprintf(stderr, "listing the legacy volumes: %s\n", err.message);
        c.left = (size_t)-1;
    }
    cw_kube_client_free(k);
    return c.left;
}

static int ns_create(const char *kubeconfig, const char *ns)
{
    cw_kube_client *k = client(kubeconfig, 1);
    char buf[256];
    snprintf(buf, sizeof(buf),
             "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\"}}", ns);
    json_object *o = json_tokener_parse(buf);
    cw_kube_resource r = {NULL, "v1", "namespaces", NULL};
    cw_error err;
    cw_error_init(&err);
    int rc = cw_kube_create(k, &r, o, NULL, NULL, &err);
    json_object_put(o);
    cw_kube_client_free(k);
    return rc == CW_OK || rc == CW_ECONFLICT ? 0 : 1;
}

/* Experiment: the server cost of one kind of write per volume (merge, json, merge-norv, put). */
typedef struct {
    cw_kube_client *kube;
    const char *ns, *kind;
    json_object *names;
} patch_ctx;

static void patch_one(void *ud, size_t i)
{
    patch_ctx *c = ud;
    const char *name = json_object_get_string(json_object_array_get_idx(c->names, i));
    cw_kube_resource r = {"longhorn.io", "v1beta1", "volumes", c->ns};
    cw_error err;
    cw_error_init(&err);
    json_object *p = NULL;
    int rc;
    if (strcmp(c->kind, "json") == 0) {
        p = json_tokener_parse(
            "[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"recurring-job.longhorn.io/"
            "x\":\"enabled\"}},{\"op\":\"remove\",\"path\":\"/spec/recurringJobs\"}]");
        rc = cw_kube_patch(c->kube, &r, name, CW_KUBE_PATCH_JSON, p, NULL, NULL, &err);
    } else {
        p = json_tokener_parse("{\"metadata\":{\"labels\":{\"recurring-job.longhorn.io/"
                               "x\":\"enabled\"}},\"spec\":{\"recurringJobs\":null}}");
        rc = cw_kube_patch(c->kube, &r, name, CW_KUBE_PATCH_MERGE, p, NULL, NULL, &err);
    }
    if (rc != CW_OK)
        fprintf(stderr, "patch: %s\n", err.message);
    json_object_put(p);
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "patch") == 0) {
        patch_ctx c = {client(argv[2], 16), argv[3], argv[4], json_object_new_array()};
        base_ctx b = {c.kube, argv[3], c.names};
        cw_kube_resource vols = {"longhorn.io", "v1beta1", "volumes", argv[3]};
        cw_error err;
        cw_error_init(&err);
        if (cw_kube_list(c.kube, &vols, NULL, collect, &b, &err) != CW_OK) {
            fprintf(stderr, "listing the volumes: %s\n", err.message);
            return 1;
        }
        double t0 = cw_bench_now();
        cw_pool_run(json_object_array_length(c.names), 16, patch_one, &c);
        printf("%s: %zu patches in %.2f s\n", argv[4], json_object_array_length(c.names),
               cw_bench_now() - t0);
        return 0;
    }
    if (argc == 5 && strcmp(argv[1], "seed") == 0)
        return seed(argv[2], argv[3], (size_t)atol(argv[4]));
    if (argc == 4 && strcmp(argv[1], "baseline") == 0)
        return baseline(argv[2], argv[3]);
    if (argc < 3) {
        fprintf(stderr, "usage: bench_migrate_online KUBECONFIG N [N ...]\n");
        return 2;
    }
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[sl > 0 ? sl : 0] = '\0';
    char *kc = argv[1];
    printf("online migrate vs the Longhorn 1.2 baseline (GET + full PUT per volume, sequential)\n");
    printf("%8s %12s %12s %12s %12s %8s %12s %12s\n", "volumes", "seed s", "ours s", "ours vol/s",
           "base vol/s", "ratio", "ours MiB", "base MiB");
    for (int a = 2; a < argc; a++) {
        size_t n = (size_t)atol(argv[a]);
        char nsa[64], nsb[64], nbuf[32];
        snprintf(nsa, sizeof(nsa), "bench-ours-%zu", n);
        snprintf(nsb, sizeof(nsb), "bench-base-%zu", n);
        snprintf(nbuf, sizeof(nbuf), "%zu", n);
        if (ns_create(kc, nsa) || ns_create(kc, nsb))
            return 1;
        double t0 = cw_bench_now();
        cw_bench_child s1, s2, ours, base;
        char *sa[] = {self, "seed", kc, nsa, nbuf, NULL},
             *sb[] = {self, "seed", kc, nsb, nbuf, NULL};
        if (cw_bench_run(sa, 0, &s1) || s1.status || cw_bench_run(sb, 0, &s2) || s2.status) {
            fprintf(stderr, "bench: seeding failed\n");
            return 1;
        }
        double seed_s = cw_bench_now() - t0;
        char bin[] = CW_BENCH_CRONWARDEN;
        char *oa[] = {bin,
                      "migrate",
                      "--kubeconfig",
                      kc,
                      "--namespace",
                      nsa,
                      "--name-scheme",
                      "longhorn",
                      "--qps",
                      "0",
                      "--parallel",
                      "16",
                      "--log-level",
                      "warn",
                      NULL};
        char *ba[] = {self, "baseline", kc, nsb, NULL};
        if (cw_bench_run(oa, 1, &ours) || ours.status > 1 || cw_bench_run(ba, 0, &base) ||
            base.status) {
            fprintf(stderr, "bench: a run failed (ours %d, baseline %d)\n", ours.status,
                    base.status);
            return 1;
        }
        size_t la = legacy_left(kc, nsa), lb = legacy_left(kc, nsb);
        printf("%8zu %12.1f %12.2f %12.0f %12.0f %8.2f %12.1f %12.1f%s\n", n, seed_s, ours.seconds,
               (double)n / ours.seconds, (double)n / base.seconds, base.seconds / ours.seconds,
               ours.max_rss_kib / 1024.0, base.max_rss_kib / 1024.0,
               la || lb ? "  (legacy lists left!)" : "");
        fflush(stdout);
    }
    return 0;
}
