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
#include "longhorn/names.h"
#include "lib/pool.h"

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
    n += (int)cw_bench_legacy_jobs(buf + n, sizeof(buf) - (size_t)n, i);
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
    char buf[512];
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

/* ---- the side-by-side measurement ---- */

enum { V_DEFAULTS, V_EQUAL, V_BASE, V_FLOOR, NV };
static const char *vnames[NV] = {"defaults", "qps1000", "base", "floor"};

/* From the JSON log of a migrate run: the requests it made and whether the server had APF. */
static void scan_log(const char *path, long *requests, int *apf)
{
    *requests = -1;
    *apf = -1;
    FILE *f = fopen(path, "r");
    char line[8192];
    while (f && fgets(line, sizeof(line), f)) {
        const char *r = strstr(line, "\"requests\":");
        if (strstr(line, "migrate finished") && r)
            *requests = atol(r + 11);
        if (strstr(line, "client-side rate limit"))
            *apf = strstr(line, "\"apf\":true") != NULL;
    }
    if (f)
        fclose(f);
}

/* CPU seconds the API server and etcd have used so far (CW_BENCH_SERVER_PIDS: their PIDs). */
static double server_cpu(void)
{
    const char *pids = getenv("CW_BENCH_SERVER_PIDS");
    double total = 0;
    long tck = sysconf(_SC_CLK_TCK);
    for (const char *p = pids; p && *p;) {
        char *end;
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        p = end;
        char path[64], buf[2048];
        snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *q = strrchr(buf, ')'); /* fields after the command name */
        unsigned long long ut = 0, st = 0;
        if (q &&
            sscanf(q + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) == 2)
            total += (double)(ut + st) / (double)tck;
    }
    return total;
}

static int measure(int argc, char **argv)
{
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[sl > 0 ? sl : 0] = '\0';
    char *kc = argv[1];
    const char *re = getenv("CW_BENCH_ROUNDS");
    int rounds = re && atoi(re) > 0 ? atoi(re) : 3;
    printf("online migrate: cronwarden at its defaults and at Longhorn's QPS/Burst 1000, the "
           "Longhorn 1.2 baseline (GET + full PUT per volume, sequential), and a client that only "
           "sends the volume merge patches (16 at once, no limit); %d alternating rounds\n",
           rounds);
    fflush(stdout);
    for (int a = 2; a < argc; a++) {
        size_t n = (size_t)atol(argv[a]);
        double secs[NV][16], rss[NV][16], reqs[2][16], cpu[NV][16];
        int apf = -1;
        for (int r = 0; r < rounds && r < 16; r++) {
            char ns[NV][64], nbuf[32], logf[NV][128];
            snprintf(nbuf, sizeof(nbuf), "%zu", n);
            double t0 = cw_bench_now();
            for (int v = 0; v < NV; v++) {
                snprintf(ns[v], sizeof(ns[v]), "bench-%s-%zu-%d", vnames[v], n, r);
                snprintf(logf[v], sizeof(logf[v]), "/tmp/cw-bench-online-%s.log", vnames[v]);
                cw_bench_child sc;
                char *sa[] = {self, "seed", kc, ns[v], nbuf, NULL};
                if (ns_create(kc, ns[v]) || cw_bench_run(sa, 0, &sc) || sc.status) {
                    fprintf(stderr, "bench: seeding %s failed\n", ns[v]);
                    return 1;
                }
            }
            double seed_s = cw_bench_now() - t0;
            /* Alternate the order from round to round so background load hits all of them. */
            for (int k = 0; k < NV; k++) {
                int v = (k + r) % NV;
                char bin[] = CW_BENCH_CRONWARDEN;
                char *def[] = {bin,
                               "migrate",
                               "--kubeconfig",
                               kc,
                               "--namespace",
                               ns[v],
                               "--name-scheme",
                               "longhorn",
                               "--log-format",
                               "json",
                               NULL};
                char *eq[] = {bin,       "migrate",       "--kubeconfig", kc,      "--namespace",
                              ns[v],     "--name-scheme", "longhorn",     "--qps", "1000",
                              "--burst", "1000",          "--log-format", "json",  NULL};
                char *ba[] = {self, "baseline", kc, ns[v], NULL};
                char *fl[] = {self, "patch", kc, ns[v], "merge", NULL};
                char *const *args = v == V_DEFAULTS ? def
                                    : v == V_EQUAL  ? eq
                                    : v == V_BASE   ? ba
                                                    : fl;
                cw_bench_child c;
                double cpu0 = server_cpu();
                if (cw_bench_run_to(args, "/dev/null", logf[v], &c) ||
                    (v <= V_EQUAL ? c.status > 1 : c.status)) {
                    fprintf(stderr, "bench: %s failed (%d), see %s\n", vnames[v], c.status,
                            logf[v]);
                    return 1;
                }
                secs[v][r] = c.seconds;
                cpu[v][r] = (server_cpu() - cpu0) * 1000.0 / (double)n;
                rss[v][r] = c.max_rss_kib / 1024.0;
                if (v <= V_EQUAL) {
                    long q;
                    int ap;
                    scan_log(logf[v], &q, &ap);
                    reqs[v][r] = (double)q / (double)n;
                    if (v == V_DEFAULTS)
                        apf = ap;
                }
            }
            size_t left = legacy_left(kc, ns[V_DEFAULTS]) + legacy_left(kc, ns[V_EQUAL]) +
                          legacy_left(kc, ns[V_BASE]);
            printf("%zu volumes, round %d (seeding %.1f s): defaults %.2f s, qps1000 %.2f s, "
                   "baseline %.2f s, writes only %.2f s%s\n",
                   n, r + 1, seed_s, secs[V_DEFAULTS][r], secs[V_EQUAL][r], secs[V_BASE][r],
                   secs[V_FLOOR][r], left ? "  (legacy lists left!)" : "");
            fflush(stdout);
        }
        int m = rounds < 16 ? rounds : 16;
        double ratio[2][16];
        for (int r = 0; r < m; r++) {
            ratio[0][r] = secs[V_BASE][r] / secs[V_DEFAULTS][r];
            ratio[1][r] = secs[V_BASE][r] / secs[V_EQUAL][r];
        }
        printf("%zu volumes, min / median / max of %d rounds (server has API Priority and "
               "Fairness: %s)\n",
               n, m,
               apf < 0 ? "?"
               : apf   ? "yes"
                       : "no");
        printf("  %-30s %24s %24s %22s %12s %22s\n", "", "seconds", "volumes/s", "peak RSS MiB",
               "requests/vol", "server CPU ms/vol");
        const char *label[NV] = {"cronwarden, defaults", "cronwarden, QPS/Burst 1000",
                                 "Longhorn 1.2 baseline", "writes only (floor)"};
        for (int v = 0; v < NV; v++) {
            double lo, md, hi, rlo, rmd, rhi, qlo = 0, qmd = 0, qhi = 0;
            double rate[16];
            for (int r = 0; r < m; r++)
                rate[r] = (double)n / secs[v][r];
            cw_bench_spread(secs[v], (size_t)m, &lo, &md, &hi);
            double vlo, vmd, vhi;
            cw_bench_spread(rate, (size_t)m, &vlo, &vmd, &vhi);
            cw_bench_spread(rss[v], (size_t)m, &rlo, &rmd, &rhi);
            if (v <= V_EQUAL)
                cw_bench_spread(reqs[v], (size_t)m, &qlo, &qmd, &qhi);
            double clo, cmd, chi;
            cw_bench_spread(cpu[v], (size_t)m, &clo, &cmd, &chi);
            char q[32] = "-";
            if (v <= V_EQUAL)
                snprintf(q, sizeof(q), "%.3f", qmd);
            printf("  %-30s %7.2f %7.2f %7.2f  %7.0f %7.0f %7.0f  %6.1f %6.1f %6.1f %12s  %6.2f "
                   "%6.2f %6.2f\n",
                   label[v], lo, md, hi, vlo, vmd, vhi, rlo, rmd, rhi, q, clo, cmd, chi);
        }
        for (int k = 0; k < 2; k++) {
            double lo, md, hi;
            cw_bench_spread(ratio[k], (size_t)m, &lo, &md, &hi);
            printf("  ratio baseline / cronwarden %-10s %.2f %.2f %.2f (goal >= 5)\n",
                   k ? "qps1000:" : "defaults:", lo, md, hi);
        }
        double fl[16];
        for (int r = 0; r < m; r++)
            fl[r] = secs[V_FLOOR][r] / secs[V_EQUAL][r];
        double lo, md, hi;
        cw_bench_spread(fl, (size_t)m, &lo, &md, &hi);
        printf("  floor / cronwarden qps1000:  %.2f %.2f %.2f (1.00 = as fast as sending only the "
               "writes)\n",
               lo, md, hi);
        fflush(stdout);
    }
    return 0;
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
    return measure(argc, argv);
}
