/* `cronwarden cron status` at scale (issue 26: 10,000 volumes, 500 RecurringJobs with 30 days of
 * Jobs, 200 Velero Schedules with 5,000 Backups; goals < 2 s and < 100 MiB for the CLI), and the
 * model's first pass as the schedule-health reconciler runs it.
 *   bench_cron_status [VOLUMES JOBS SCHEDULES BACKUPS [DAYS]]   generate, then measure
 * The cluster is a deterministic kubectl export, one JSON List per kind in a directory (as
 * `kubectl get <kind> -o json` writes them, without managedFields): RecurringJobs (daily backups
 * and snapshots, every 6 hours, hourly, weekly; one in ten also in the default group) with their
 * CronJobs (history limits raised so 30
 * days of Jobs are kept) and a Job per fire time of the last DAYS days (about 1 in 40 failed, 1 in
 * 100 fire times without a Job, the last hourly runs still going); Volumes in 40 groups (a quarter
 * in the default group, some with job labels) with BackupVolumes; Velero Schedules and their
 * Backups. Each CLI run is a fresh process; wall time, CPU and peak RSS from wait4, min / median /
 * max of 5. The model: the objects parsed once (as an informer cache holds them), then fed to a
 * collector and judged whole, then each schedule alone and the volume counts alone.
 *   bench_cron_status --live KUBECONFIG [counts as above]   (bench/cron_status_live.sh)
 * creates the same objects in the cluster (16 requests in flight; without their status, uid,
 * ownerReferences and times, which the API server sets or ignores on create) and measures the
 * whole command reading them with paged LISTs.
 *   bench_cron_status --reconciler [counts as above]
 * the schedule-health reconciler's first pass over the same objects, through its informers'
 * paged LISTs answered by a fake API server (bench/schedule_health.c). */
#include <json-c/json.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "schedule_health.h"
#include "cron/tz.h"
#include "schedules/health.h"
#include "kube/client.h"
#include "kube/config.h"
#include "lib/pool.h"
#include "kube/manifest.h"

#define NOW     1795510800LL /* 2026-11-24T09:00:00Z */
#define NOW_STR "2026-11-24T09:00:00Z"
#define LH      "longhorn-system"

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static void ts(long long t, char *out)
{
    cw_tz_format_rfc3339(t, 0, out, CW_TZ_RFC3339_MAX);
}

typedef struct gen {
    const char *dir;
    int volumes, jobs, schedules, backups, days;
    unsigned seed;
    size_t njobs_written;
} gen;

static FILE *list_open(const gen *g, const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s.json", g->dir, name);
    FILE *f = fopen(path, "w");
    if (f)
        fputs("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"},"
              "\"items\":[\n",
              f);
    return f;
}

static int list_close(FILE *f)
{
    fputs("]}\n", f);
    return fclose(f);
}

/* Job j's cron: its period (0: a daily one at the given minute) */
static void job_cron(int j, char *cron, long long *period, const char **task)
{
    int kind = j % 50;
    *task = kind < 20 ? "backup" : "snapshot";
    if (kind < 35) { /* 70 % daily, spread over the night */
        snprintf(cron, 64, "%d %d * * *", (j * 7) % 60, 1 + j % 5);
        *period = 86400;
    } else if (kind < 45) { /* 20 % every 6 hours */
        snprintf(cron, 64, "%d */6 * * *", (j * 11) % 60);
        *period = 6 * 3600;
    } else if (kind < 49) { /* 8 % hourly snapshots */
        snprintf(cron, 64, "%d * * * *", (j * 13) % 60);
        *period = 3600;
        *task = "snapshot";
    } else { /* 2 % weekly backups */
        snprintf(cron, 64, "0 3 * * %d", j % 7);
        *period = 7 * 86400;
        *task = "backup";
    }
}

static void write_job(FILE *f, const char *rj, long long fire, int outcome, unsigned r, int first)
{
    char name[128], c[CW_TZ_RFC3339_MAX], s[CW_TZ_RFC3339_MAX], e[CW_TZ_RFC3339_MAX];
    char uid[48];
    long long dur = 60 + r % 540;
    snprintf(name, sizeof(name), "%s-%lld", rj, fire / 60);
    snprintf(uid, sizeof(uid), "%08x-4f2a-4b1c-9d3e-%012llx", r, fire);
    ts(fire + 2, c);
    ts(fire + 3, s);
    ts(fire + 3 + dur, e);
    fprintf(
        f,
        "%s{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"creationTimestamp\":"
        "\"%s\",\"labels\":{\"controller-uid\":\"%s\",\"job-name\":\"%s\",\"longhorn.io/"
        "managed-by\":\"longhorn-manager\",\"recurring-job.longhorn.io\":\"%s\"},\"name\":\"%s\","
        "\"namespace\":\"" LH "\",\"ownerReferences\":[{\"apiVersion\":\"batch/v1\","
        "\"blockOwnerDeletion\":true,\"controller\":true,\"kind\":\"CronJob\",\"name\":\"%s\","
        "\"uid\":\"c0ffee00-0000-4000-8000-%012x\"}],\"resourceVersion\":\"%u\",\"uid\":\"%s\"},"
        "\"spec\":{\"backoffLimit\":3,\"completionMode\":\"NonIndexed\",\"completions\":1,"
        "\"parallelism\":1,\"selector\":{\"matchLabels\":{\"controller-uid\":\"%s\"}},"
        "\"suspend\":false,\"template\":{\"metadata\":{\"creationTimestamp\":null,\"labels\":{"
        "\"controller-uid\":\"%s\",\"job-name\":\"%s\",\"longhorn.io/managed-by\":\"longhorn-"
        "manager\",\"recurring-job.longhorn.io\":\"%s\"},\"name\":\"%s\"},\"spec\":{"
        "\"containers\":[{\"command\":[\"longhorn-manager\",\"-d\",\"recurring-job\",\"%s\","
        "\"--manager-url\",\"http://longhorn-backend:9500/v1\"],\"env\":[{\"name\":\"POD_"
        "NAMESPACE\",\"valueFrom\":{\"fieldRef\":{\"apiVersion\":\"v1\",\"fieldPath\":"
        "\"metadata.namespace\"}}}],\"image\":\"longhornio/longhorn-manager:v1.4.4\","
        "\"imagePullPolicy\":\"IfNotPresent\",\"name\":\"%s\",\"resources\":{},"
        "\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessagePolicy\":"
        "\"File\",\"volumeMounts\":[{\"mountPath\":\"/var/lib/longhorn/engine-binaries/\","
        "\"name\":\"engine-binaries\"}]}],\"dnsPolicy\":\"ClusterFirst\",\"restartPolicy\":"
        "\"OnFailure\",\"schedulerName\":\"default-scheduler\",\"securityContext\":{},"
        "\"serviceAccount\":\"longhorn-service-account\",\"serviceAccountName\":\"longhorn-"
        "service-account\",\"terminationGracePeriodSeconds\":30,\"volumes\":[{\"hostPath\":{"
        "\"path\":\"/var/lib/longhorn/engine-binaries/\",\"type\":\"\"},\"name\":\"engine-"
        "binaries\"}]}}},\"status\":{",
        first ? "" : ",\n", c, uid, name, rj, name, rj, (unsigned)(fire % 4096), r, uid, uid, uid,
        name, rj, rj, rj, rj);
    if (outcome == 0)
        fprintf(f,
                "\"completionTime\":\"%s\",\"conditions\":[{\"lastProbeTime\":\"%s\","
                "\"lastTransitionTime\":\"%s\",\"status\":\"True\",\"type\":\"Complete\"}],"
                "\"startTime\":\"%s\",\"succeeded\":1}}",
                e, e, e, s);
    else if (outcome == 1)
        fprintf(f,
                "\"conditions\":[{\"lastProbeTime\":\"%s\",\"lastTransitionTime\":\"%s\","
                "\"message\":\"Job has reached the specified backoff limit\",\"reason\":"
                "\"BackoffLimitExceeded\",\"status\":\"True\",\"type\":\"Failed\"}],\"failed\":4,"
                "\"startTime\":\"%s\"}}",
                e, e, s);
    else
        fprintf(f, "\"active\":1,\"startTime\":\"%s\"}}", s);
}

static int gen_longhorn(gen *g)
{
    FILE *rj = list_open(g, "recurringjobs"), *cj = list_open(g, "cronjobs"),
         *jobs = list_open(g, "jobs");
    if (!rj || !cj || !jobs)
        return -1;
    int first_job = 1;
    for (int j = 0; j < g->jobs; j++) {
        char name[64], cron[64];
        long long period;
        const char *task;
        job_cron(j, cron, &period, &task);
        snprintf(name, sizeof(name), "%s-%03d", task, j);
        fprintf(
            rj,
            "%s{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"RecurringJob\",\"metadata\":"
            "{\"creationTimestamp\":\"2026-09-01T00:00:00Z\",\"generation\":1,\"name\":\"%s\","
            "\"namespace\":\"" LH "\",\"resourceVersion\":\"%d\",\"uid\":\"a1b2c3d4-0000-4000-"
            "8000-%012x\"},\"spec\":{\"concurrency\":10,\"cron\":\"%s\",\"groups\":[%s\"g%02d\"],"
            "\"labels\":{},\"name\":\"%s\",\"parameters\":{},\"retain\":7,\"task\":\"%s\"},"
            "\"status\":{\"executionCount\":%d,\"ownerID\":\"node-%d\"}}",
            j ? ",\n" : "", name, 1000 + j, j, cron, j % 10 ? "" : "\"default\",", j % 40, name,
            task, 30, j % 7);
        fprintf(cj,
                "%s{\"apiVersion\":\"batch/v1\",\"kind\":\"CronJob\",\"metadata\":{"
                "\"creationTimestamp\":\"2026-09-01T00:00:05Z\",\"labels\":{\"longhorn.io/managed-"
                "by\":\"longhorn-manager\",\"recurring-job.longhorn.io\":\"%s\"},\"name\":\"%s\","
                "\"namespace\":\"" LH "\",\"ownerReferences\":[{\"apiVersion\":\"longhorn.io/"
                "v1beta2\",\"kind\":\"RecurringJob\",\"name\":\"%s\",\"uid\":\"a1b2c3d4-0000-4000-"
                "8000-%012x\"}],\"uid\":\"c0ffee00-0000-4000-8000-%012x\"},\"spec\":{"
                "\"concurrencyPolicy\":\"Forbid\",\"failedJobsHistoryLimit\":1000,\"schedule\":"
                "\"%s\",\"successfulJobsHistoryLimit\":1000,\"suspend\":false,\"jobTemplate\":{"
                "\"spec\":{\"backoffLimit\":3,\"template\":{\"metadata\":{\"labels\":{"
                "\"longhorn.io/managed-by\":\"longhorn-manager\",\"recurring-job.longhorn.io\":"
                "\"%s\"}},\"spec\":{\"containers\":[{\"command\":[\"longhorn-manager\",\"-d\","
                "\"recurring-job\",\"%s\",\"--manager-url\",\"http://longhorn-backend:9500/v1\"],"
                "\"image\":\"longhornio/longhorn-manager:v1.4.4\",\"name\":\"%s\"}],"
                "\"restartPolicy\":\"OnFailure\",\"serviceAccountName\":\"longhorn-service-"
                "account\"}}}}},\"status\":{}}",
                j ? ",\n" : "", name, name, name, j, j, cron, name, name, name);
        /* a Job per fire time of the last `days` days */
        cw_cron parsed;
        cw_error err;
        if (cw_cron_parse(cron, NULL, &parsed, &err) != CW_OK)
            return -1;
        int64_t t = NOW - (int64_t)g->days * 86400, f;
        while (cw_cron_next(&parsed, t, 0, &f) && f <= NOW - 600) {
            unsigned r = next_rand(&g->seed);
            int last = f + period > NOW - 600;
            if (r % 100 != 7) { /* 1 in 100 fire times without a Job */
                int outcome = period == 3600 && last && j % 2 ? 2 : r % 40 == 3 ? 1 : 0;
                write_job(jobs, name, f, outcome, r, first_job);
                first_job = 0;
                g->njobs_written++;
            }
            t = f;
        }
    }
    return list_close(rj) | list_close(cj) | list_close(jobs);
}

static int gen_volumes(gen *g)
{
    FILE *vol = list_open(g, "volumes"), *bv = list_open(g, "backupvolumes");
    if (!vol || !bv)
        return -1;
    for (int v = 0; v < g->volumes; v++) {
        unsigned r = next_rand(&g->seed);
        char labels[192] = "", last[CW_TZ_RFC3339_MAX];
        if (r % 4) /* three in four carry a group label; one in 20 also a job label */
            snprintf(labels, sizeof(labels),
                     "\"recurring-job-group.longhorn.io/g%02u\":\"enabled\"%s", r % 40,
                     r % 20 == 1 ? ",\"recurring-job.longhorn.io/backup-000\":\"enabled\"" : "");
        fprintf(vol,
                "%s{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{"
                "\"creationTimestamp\":\"2026-09-02T00:00:00Z\",\"finalizers\":[\"longhorn.io\"],"
                "\"generation\":3,\"labels\":{\"longhornvolume\":\"pvc-%08d\"%s%s},\"name\":\"pvc-"
                "%08d\",\"namespace\":\"" LH "\",\"resourceVersion\":\"%d\",\"uid\":\"b0b0b0b0-"
                "0000-4000-8000-%012x\"},\"spec\":{\"accessMode\":\"rwo\",\"dataLocality\":"
                "\"disabled\",\"engineImage\":\"longhornio/longhorn-engine:v1.4.4\",\"frontend\":"
                "\"blockdev\",\"numberOfReplicas\":3,\"size\":\"10737418240\"},\"status\":{"
                "\"actualSize\":1073741824,\"currentNodeID\":\"node-%d\",\"robustness\":"
                "\"healthy\",\"state\":\"attached\"}}",
                v ? ",\n" : "", v, *labels ? "," : "", labels, v, 5000 + v, v, v % 7);
        if (r % 20 == 0)
            continue; /* never backed up */
        ts(NOW - 3600 - (int64_t)(r % 10 == 1 ? 9 * 86400 : r % 86400), last);
        fprintf(
            bv,
            "%s{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"BackupVolume\",\"metadata\":{"
            "\"creationTimestamp\":\"2026-09-02T03:00:00Z\",\"name\":\"pvc-%08d\",\"namespace\":"
            "\"" LH "\",\"uid\":\"bbbbbbbb-0000-4000-8000-%012x\"},\"spec\":{\"syncRequestedAt\":"
            "null},\"status\":{\"createdAt\":\"2026-09-02T03:00:00Z\",\"dataStored\":"
            "\"1073741824\","
            "\"lastBackupAt\":\"%s\",\"lastBackupName\":\"backup-%08x\",\"lastSyncedAt\":\"%s\","
            "\"ownerID\":\"node-%d\",\"size\":\"10737418240\"}}",
            v ? ",\n" : "", v, v, last, r, last, v % 7);
    }
    return list_close(vol) | list_close(bv);
}

static int gen_velero(gen *g)
{
    FILE *sch = list_open(g, "schedules"), *bk = list_open(g, "backups");
    if (!sch || !bk)
        return -1;
    int per = g->schedules ? g->backups / g->schedules : 0, first = 1;
    for (int s = 0; s < g->schedules; s++) {
        char name[64], cron[32];
        snprintf(name, sizeof(name), "ns-%03d-daily", s);
        snprintf(cron, sizeof(cron), "%d %d * * *", s % 60, s % 6);
        fprintf(
            sch,
            "%s{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{"
            "\"creationTimestamp\":\"2026-09-01T00:00:00Z\",\"generation\":1,\"name\":\"%s\","
            "\"namespace\":\"velero\",\"uid\":\"5c5c5c5c-0000-4000-8000-%012x\"},\"spec\":{"
            "\"schedule\":\"%s\",\"template\":{\"includedNamespaces\":[\"ns-%03d\"],"
            "\"storageLocation\":\"default\",\"ttl\":\"720h0m0s\"},\"useOwnerReferencesInBackup\""
            ":false},\"status\":{\"phase\":\"Enabled\"}}",
            s ? ",\n" : "", name, s, cron, s);
        cw_cron parsed;
        cw_error err;
        if (cw_cron_parse(cron, NULL, &parsed, &err) != CW_OK)
            return -1;
        int64_t t = NOW - (int64_t)per * 86400, f;
        for (int b = 0; b < per && cw_cron_next(&parsed, t, 0, &f); b++, t = f) {
            unsigned r = next_rand(&g->seed);
            char c[CW_TZ_RFC3339_MAX], st[CW_TZ_RFC3339_MAX], e[CW_TZ_RFC3339_MAX], bn[96];
            ts(f + 20, c);
            ts(f + 21, st);
            ts(f + 21 + 300 + r % 900, e);
            snprintf(bn, sizeof(bn), "%s-%.4s%.2s%.2s%.2s%.2s%.2s", name, c, c + 5, c + 8, c + 11,
                     c + 14, c + 17);
            const char *phase = r % 50 == 1 ? "PartiallyFailed" : "Completed";
            fprintf(
                bk,
                "%s{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{"
                "\"creationTimestamp\":\"%s\",\"generation\":7,\"labels\":{\"velero.io/"
                "schedule-name\":\"%s\",\"velero.io/storage-location\":\"default\"},\"name\":"
                "\"%s\",\"namespace\":\"velero\",\"uid\":\"d0d0d0d0-0000-4000-8000-%012x\"},"
                "\"spec\":{\"csiSnapshotTimeout\":\"10m0s\",\"defaultVolumesToFsBackup\":false,"
                "\"hooks\":{},\"includedNamespaces\":[\"ns-%03d\"],\"itemOperationTimeout\":"
                "\"4h0m0s\",\"metadata\":{},\"storageLocation\":\"default\",\"ttl\":\"720h0m0s\","
                "\"volumeSnapshotLocations\":[\"default\"]},\"status\":{\"completionTimestamp\":"
                "\"%s\",\"errors\":%d,\"expiration\":\"2026-12-24T00:00:00Z\",\"formatVersion\":"
                "\"1.1.0\",\"phase\":\"%s\",\"progress\":{\"itemsBackedUp\":412,\"totalItems\":"
                "412},\"startTimestamp\":\"%s\",\"version\":1,\"warnings\":%d}}",
                first ? "" : ",\n", c, name, bn, r, s, e, r % 50 == 1 ? 2 : 0, phase, st,
                r % 7 == 0);
            first = 0;
        }
    }
    return list_close(sch) | list_close(bk);
}

static void measure(const char *what, char *const argv[])
{
    enum { RUNS = 5 };
    double secs[RUNS], cpu[RUNS], rss[RUNS], lo, med, hi, clo, cmed, chi, rlo, rmed, rhi;
    for (int i = 0; i < RUNS; i++) {
        cw_bench_child c;
        if (cw_bench_run(argv, 1, &c) != 0 || (c.status != 0 && c.status != 1)) {
            printf("%-28s failed (status %d)\n", what, c.status);
            return;
        }
        secs[i] = c.seconds;
        cpu[i] = c.cpu_seconds;
        rss[i] = (double)c.max_rss_kib / 1024.0;
    }
    cw_bench_spread(secs, RUNS, &lo, &med, &hi);
    cw_bench_spread(cpu, RUNS, &clo, &cmed, &chi);
    cw_bench_spread(rss, RUNS, &rlo, &rmed, &rhi);
    printf(
        "%-28s wall %6.3f / %6.3f / %6.3f s   CPU %6.3f s   peak RSS %6.1f / %6.1f / %6.1f MiB\n",
        what, lo, med, hi, cmed, rlo, rmed, rhi);
}

typedef struct objs {
    json_object **o;
    size_t n, cap;
} objs;

static int keep(void *ud, const cw_load_unit *u, cw_error *err)
{
    objs *v = ud;
    (void)err;
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 1024;
        v->o = realloc(v->o, v->cap * sizeof(*v->o));
    }
    v->o[v->n++] = json_object_get(u->obj);
    return CW_OK;
}

/* The reconciler's first pass: objects as its caches hold them, into a collector, judged. */
static void model(const gen *g)
{
    static const char *const kinds[] = {"recurringjobs", "cronjobs",  "jobs",   "volumes",
                                        "backupvolumes", "schedules", "backups"};
    objs v = {0};
    cw_error err;
    cw_tzdb tzdb;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s.json", g->dir, kinds[k]);
        if (cw_load_file(path, keep, &v, &err) != CW_OK) {
            printf("model: %s\n", err.message);
            return;
        }
    }
    long rss_objects = cw_bench_self_rss_kib();
    if (cw_tzdb_init(&tzdb, NULL, &err) != CW_OK)
        return;
    cw_health_config cfg;
    cw_health h;
    cw_health_config_init(&cfg);
    cfg.tzdb = &tzdb;
    cfg.now = NOW;
    double t0 = cw_bench_now();
    if (cw_health_init(&h, &cfg, &err) != CW_OK)
        return;
    for (size_t i = 0; i < v.n; i++)
        if (cw_health_add(&h, v.o[i], "bench", &err) != CW_OK) {
            printf("model: %s\n", err.message);
            return;
        }
    double t1 = cw_bench_now();
    if (cw_health_eval_all(&h, 0, &err) != CW_OK) {
        printf("model: %s\n", err.message);
        return;
    }
    double t2 = cw_bench_now();
    size_t unhealthy = h.unhealthy, unprotected = h.unprotected, stale = h.stale;
    /* each schedule alone, as a reconcile of its key does */
    size_t n = h.nresults;
    double *each = calloc(n ? n : 1, sizeof(*each));
    for (size_t i = 0; i < n; i++) {
        const cw_health_sched *s = h.results[i].sched;
        cw_health_result r;
        double a = cw_bench_now();
        if (cw_health_eval_one(&h, s->kind, s->namespace, s->name, h.cfg.now, &r, &err) != CW_OK)
            return;
        each[i] = (cw_bench_now() - a) * 1e3;
        cw_health_result_free(&r);
    }
    cw_health_ns_count *counts;
    size_t nc;
    double t3 = cw_bench_now();
    if (cw_health_volume_counts(&h, h.cfg.now, &counts, &nc, &err) != CW_OK)
        return;
    double t4 = cw_bench_now();
    cw_bench_sort(each, n);
    printf("model (the reconciler's first pass, %zu objects parsed beforehand: RSS %.1f MiB):\n",
           v.n, (double)rss_objects / 1024.0);
    printf("  objects into the collector  %7.1f ms\n", (t1 - t0) * 1e3);
    printf("  every schedule and volume   %7.1f ms  (%zu schedules, %zu unhealthy; %zu volumes "
           "unprotected, %zu stale)\n",
           (t2 - t1) * 1e3, n, unhealthy, unprotected, stale);
    printf("  one schedule                p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms\n",
           cw_bench_percentile(each, n, 0.5), cw_bench_percentile(each, n, 0.9),
           cw_bench_percentile(each, n, 0.99), n ? each[n - 1] : 0.0);
    printf("  volume counts alone         %7.1f ms  (%zu namespaces)\n", (t4 - t3) * 1e3, nc);
    printf("  peak RSS                    %7.1f MiB (objects and collector)\n",
           (double)cw_bench_self_rss_kib() / 1024.0);
    cw_health_counts_free(counts, nc);
    free(each);
    cw_health_free(&h);
    cw_tzdb_free(&tzdb);
    for (size_t i = 0; i < v.n; i++)
        json_object_put(v.o[i]);
    free(v.o);
}

/* ---- live: the same objects in a cluster, read with paged LISTs ---- */

typedef struct seed {
    cw_kube_client *kube;
    objs *v;
    char versions[8][32]; /* per kind: the version the server serves */
    atomic_int failed;
} seed;

static const struct {
    const char *kind, *group, *plural;
} kinds_live[] = {
    {"RecurringJob", "longhorn.io", "recurringjobs"},
    {"CronJob", "batch", "cronjobs"},
    {"Job", "batch", "jobs"},
    {"Volume", "longhorn.io", "volumes"},
    {"BackupVolume", "longhorn.io", "backupvolumes"},
    {"Schedule", "velero.io", "schedules"},
    {"Backup", "velero.io", "backups"},
};

static size_t kind_index(json_object *o)
{
    const char *kind = json_object_get_string(json_object_object_get(o, "kind"));
    for (size_t k = 0; kind && k < sizeof(kinds_live) / sizeof(kinds_live[0]); k++)
        if (!strcmp(kind, kinds_live[k].kind))
            return k;
    return (size_t)-1;
}

static void seed_one(void *ud, size_t i)
{
    seed *c = ud;
    json_object *o = c->v->o[i], *meta = json_object_object_get(o, "metadata");
    size_t k = kind_index(o);
    if (k == (size_t)-1)
        return;
    static const char *const server_set[] = {"uid", "resourceVersion", "creationTimestamp",
                                             "ownerReferences", "generation"};
    for (size_t f = 0; f < sizeof(server_set) / sizeof(server_set[0]); f++)
        json_object_object_del(meta, server_set[f]);
    if (!strcmp(kinds_live[k].kind, "Job")) { /* the selector the API server makes itself */
        json_object *spec = json_object_object_get(o, "spec");
        json_object *tl = json_object_object_get(
            json_object_object_get(json_object_object_get(spec, "template"), "metadata"), "labels");
        json_object_object_del(spec, "selector");
        json_object_object_del(tl, "controller-uid");
        json_object_object_del(tl, "job-name");
        json_object_object_del(json_object_object_get(meta, "labels"), "controller-uid");
    }
    char api[64];
    snprintf(api, sizeof(api), "%s/%s", kinds_live[k].group, c->versions[k]);
    json_object_object_add(o, "apiVersion", json_object_new_string(api));
    const char *ns = json_object_get_string(json_object_object_get(meta, "namespace"));
    cw_kube_resource r = {kinds_live[k].group, c->versions[k], kinds_live[k].plural, ns};
    cw_error err;
    cw_error_init(&err);
    int rc = cw_kube_create(c->kube, &r, o, NULL, NULL, &err);
    if (rc != CW_OK && rc != CW_ECONFLICT && atomic_fetch_add(&c->failed, 1) == 0)
        fprintf(stderr, "seed: %s: %s\n", kinds_live[k].plural, err.message);
}

/* Creates the objects in a child process: the commands measured after it are forked from this
 * process, and a fork's peak RSS counts the pages it shares with its parent until exec. */
static int seed_all(const gen *g, const char *kubeconfig);

static int live(const gen *g, const char *kubeconfig)
{
    fflush(stdout); /* not twice: the child writes what it inherited */
    pid_t pid = fork();
    if (pid == 0)
        _exit(seed_all(g, kubeconfig));
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
        return 1;
    char *json[] = {CW_BENCH_CRONWARDEN,
                    "cron",
                    "status",
                    "--kubeconfig",
                    (char *)kubeconfig,
                    "--now",
                    NOW_STR,
                    "-o",
                    "json",
                    NULL,
                    NULL};
    char *vols[11];
    memcpy(vols, json, sizeof(json));
    vols[9] = "--volumes";
    measure("cron status (live) -o json", json);
    measure("cron status (live) --volumes", vols);
    return 0;
}

static int seed_all(const gen *g, const char *kubeconfig)
{
    static const char *const files[] = {"recurringjobs", "cronjobs",  "jobs",   "volumes",
                                        "backupvolumes", "schedules", "backups"};
    objs v = {0};
    seed c = {.v = &v};
    cw_kube_config cfg;
    cw_kube_load_opts lo;
    cw_kube_client_opts o;
    cw_error err;
    cw_error_init(&err);
    for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s.json", g->dir, files[k]);
        if (cw_load_file(path, keep, &v, &err) != CW_OK) {
            fprintf(stderr, "live: %s\n", err.message);
            return 1;
        }
    }
    cw_kube_config_init(&cfg);
    cw_kube_load_opts_init(&lo);
    cw_kube_client_opts_init(&o);
    lo.kubeconfig = kubeconfig;
    o.qps = 0;
    o.max_inflight = 16;
    if (cw_kube_config_load(&cfg, &lo, &err) != CW_OK ||
        cw_kube_client_new(&cfg, &o, &c.kube, &err) != CW_OK) {
        fprintf(stderr, "live: %s\n", err.message);
        return 1;
    }
    for (size_t k = 0; k < sizeof(kinds_live) / sizeof(kinds_live[0]); k++)
        if (cw_kube_pick_version(c.kube, kinds_live[k].group, kinds_live[k].plural, c.versions[k],
                                 sizeof(c.versions[k]), &err) != CW_OK) {
            fprintf(stderr, "live: %s\n", err.message);
            return 1;
        }
    double t0 = cw_bench_now();
    cw_pool_run(v.n, 16, seed_one, &c);
    printf("seeded %zu objects in %.1f s (%d failed)\n", v.n, cw_bench_now() - t0,
           atomic_load(&c.failed));
    cw_kube_client_free(c.kube);
    cw_kube_config_free(&cfg);
    for (size_t i = 0; i < v.n; i++)
        json_object_put(v.o[i]);
    free(v.o);
    fflush(stdout); /* it leaves with _exit */
    return atomic_load(&c.failed) ? 1 : 0;
}

static long long dir_bytes(const gen *g, char *largest, size_t len, long long *max)
{
    static const char *const kinds[] = {"recurringjobs", "cronjobs",  "jobs",   "volumes",
                                        "backupvolumes", "schedules", "backups"};
    long long sum = 0;
    *max = 0;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        char path[512];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s.json", g->dir, kinds[k]);
        if (stat(path, &st) == 0) {
            sum += st.st_size;
            if (st.st_size > *max) {
                *max = st.st_size;
                snprintf(largest, len, "%s", kinds[k]);
            }
        }
    }
    return sum;
}

int main(int argc, char **argv)
{
    const char *kubeconfig = NULL;
    int reconciler = 0;
    if (argc > 2 && !strcmp(argv[1], "--live")) {
        kubeconfig = argv[2];
        argv += 2;
        argc -= 2;
    } else if (argc > 1 && !strcmp(argv[1], "--reconciler")) {
        reconciler = 1;
        argv++;
        argc--;
    }
    gen g = {.volumes = argc > 1 ? atoi(argv[1]) : 10000,
             .jobs = argc > 2 ? atoi(argv[2]) : 500,
             .schedules = argc > 3 ? atoi(argv[3]) : 200,
             .backups = argc > 4 ? atoi(argv[4]) : 5000,
             .days = argc > 5 ? atoi(argv[5]) : 30,
             .seed = 26};
    char dir[256], stamp[512], largest[32];
    struct stat st;
    mkdir("/tmp/cronwarden-bench", 0755);
    snprintf(dir, sizeof(dir), "/tmp/cronwarden-bench/status-%d-%d-%d-%d-%d", g.volumes, g.jobs,
             g.schedules, g.backups, g.days);
    g.dir = dir;
    snprintf(stamp, sizeof(stamp), "%s/.complete", dir);
    if (stat(stamp, &st) != 0) {
        mkdir(dir, 0755);
        if (gen_longhorn(&g) || gen_volumes(&g) || gen_velero(&g)) {
            fprintf(stderr, "bench_cron_status: cannot write %s\n", dir);
            return 1;
        }
        fclose(fopen(stamp, "w"));
    }
    long long max, sum = dir_bytes(&g, largest, sizeof(largest), &max);
    printf("cron status: %d volumes, %d RecurringJobs with %d days of Jobs, %d Schedules with %d "
           "Backups\n(%.1f MB of JSON in %s, the largest %s.json %.1f MB; judged at " NOW_STR
           ", window 24h;\nwall and peak RSS min / median / max of 5 runs, CPU median, fresh "
           "process each)\n",
           g.volumes, g.jobs, g.days, g.schedules, g.backups, (double)sum / 1e6, dir, largest,
           (double)max / 1e6);
    char *text[] = {CW_BENCH_CRONWARDEN, "cron", "status", "-f", dir, "--now", NOW_STR, NULL};
    char *json[] = {
        CW_BENCH_CRONWARDEN, "cron", "status", "-f", dir, "--now", NOW_STR, "-o", "json", NULL};
    char *vols[] = {CW_BENCH_CRONWARDEN, "cron", "status", "-f", dir, "--now", NOW_STR,
                    "--volumes",         "-o",   "json",   NULL};
    if (kubeconfig)
        return live(&g, kubeconfig);
    if (reconciler) /* alone in its process: its peak RSS is the reconciler's */
        return cw_bench_schedule_health(dir, NOW);
    measure("cron status -f (text)", text);
    measure("cron status -f -o json", json);
    measure("cron status -f --volumes -o json", vols);
    model(&g);
    return 0;
}
