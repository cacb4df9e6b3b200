/* The backup-queue reconciler's cost per event with a long queue (issue 14).
 *   bench_backupqueue [QUEUED [NAMESPACES [EVENTS]]]     default 5000 200 200
 * A Velero namespace with QUEUED Backups Queued at positions 1..QUEUED, each covering one or two
 * of NAMESPACES live namespaces (one in fifty every namespace), and --concurrent-backups 3 full.
 * Each event is what the reconciler does when a running Backup completes: copy the namespace's
 * Backups out of the informer cache (cw_ctrl_store_by_index, as the reconcile does), decide
 * (cw_bqctl_decide), then the writes are applied to the cache as the watch would bring them back
 * and Velero starts what became ReadyToStart. Printed: time per event (snapshot + decision, and
 * the decision alone) as percentiles, API writes per dequeue (the dequeue itself plus every
 * position behind it that changes), an idle event (nothing to do), the first decision over
 * QUEUED new Backups, and peak RSS. The API round trips are not in it (bench/README.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "velero/backupqueue.h"
#include "controller/core/store.h"
#include "lib/json.h"

#define VNS "velero"

static int by_namespace(void *ud, json_object *obj, char *out, size_t outlen)
{
    (void)ud;
    snprintf(out, outlen, "%s", cw_json_path_string(obj, "metadata.namespace"));
    return 1;
}

/* CPU seconds of this thread: the machine may be shared, wall time then says little. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* A Backup as the reconciler's cache keeps it. */
static json_object *backup(int i, const char *phase, int pos, int nns, unsigned *seed)
{
    char text[512], inc[96];
    unsigned r = next_rand(seed);
    if (r % 50 == 0)
        snprintf(inc, sizeof(inc), "[]");
    else if (r % 5 == 0)
        snprintf(inc, sizeof(inc), "[\"app-%03u\",\"app-%03u\"]", r % (unsigned)nns,
                 next_rand(seed) % (unsigned)nns);
    else
        snprintf(inc, sizeof(inc), "[\"app-%03u\"]", r % (unsigned)nns);
    snprintf(text, sizeof(text),
             "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":"
             "\"b-%05d\",\"namespace\":\"" VNS "\",\"uid\":\"u-%05d\",\"resourceVersion\":\"1\","
             "\"creationTimestamp\":\"2026-01-01T%02d:%02d:%02dZ\"},\"spec\":{"
             "\"includedNamespaces\":%s},\"status\":{\"phase\":\"%s\",\"queuePosition\":%d}}",
             i, i, i / 3600 % 24, i / 60 % 60, i % 60, inc, phase, pos);
    return json_tokener_parse(text);
}

static void put(cw_ctrl_store *s, json_object *b)
{
    char key[300];
    snprintf(key, sizeof(key), VNS "/%s", cw_json_path_string(b, "metadata.name"));
    if (cw_ctrl_store_put(s, key, b, NULL) != CW_OK)
        abort();
}

/* Sets phase (NULL: unchanged) and position of a cached Backup, with a new resourceVersion. */
static void update(cw_ctrl_store *s, const char *name, const char *phase, int64_t pos)
{
    char key[300];
    json_object *b = NULL;
    snprintf(key, sizeof(key), VNS "/%s", name);
    if (cw_ctrl_store_get(s, key, &b) != CW_OK)
        abort();
    json_object *st = cw_json_member(b, "status");
    if (phase)
        json_object_object_add(st, "phase", json_object_new_string(phase));
    json_object_object_add(st, "queuePosition", json_object_new_int64(pos));
    put(s, b);
}

/* One event: snapshot + decision, timed in CPU time (wall time in *wall); the writes applied
 * to the cache. The actions borrow from the snapshot: *snap is the caller's to put. */
static void event(cw_ctrl_store *s, const cw_strlist *live, double *total, double *decide,
                  double *wall, cw_bqctl_actions *a, json_object **snap)
{
    cw_error err;
    cw_bqctl_config cfg = {.concurrency = 3};
    double w0 = cw_bench_now(), t0 = cpu_now();
    if (cw_ctrl_store_by_index(s, VNS, snap) != CW_OK)
        abort();
    double t1 = cpu_now();
    cw_bqctl_actions_init(a);
    if (cw_bqctl_decide(*snap, live, &cfg, 1767225600000, a, &err) != CW_OK) {
        fprintf(stderr, "decide: %s\n", err.message);
        exit(1);
    }
    double t2 = cpu_now();
    *total = t2 - t0;
    *decide = t2 - t1;
    *wall = cw_bench_now() - w0;
    for (size_t i = 0; i < a->nwrites; i++) {
        const cw_bqctl_write *w = &a->writes[i];
        update(s, w->name,
               w->kind == CW_BQCTL_DEQUEUE   ? "ReadyToStart"
               : w->kind == CW_BQCTL_ENQUEUE ? "Queued"
                                             : NULL,
               w->position);
    }
}

static void print_ms(const char *what, double *v, size_t n)
{
    cw_bench_sort(v, n);
    printf("  %-35s p50 %8.3f ms  p90 %8.3f ms  p99 %8.3f ms  max %8.3f ms  (%zu events)\n", what,
           cw_bench_percentile(v, n, 0.5) * 1e3, cw_bench_percentile(v, n, 0.9) * 1e3,
           cw_bench_percentile(v, n, 0.99) * 1e3, v[n - 1] * 1e3, n);
}

int main(int argc, char **argv)
{
    int queued = argc > 1 ? atoi(argv[1]) : 5000, nns = argc > 2 ? atoi(argv[2]) : 200;
    int events = argc > 3 ? atoi(argv[3]) : 200;
    unsigned seed = 14;
    cw_ctrl_store s;
    cw_strlist live;
    cw_error err;
    if (queued < 1 || nns < 1 || events < 1 || events > queued) {
        fprintf(stderr, "usage: bench_backupqueue [QUEUED [NAMESPACES [EVENTS <= QUEUED]]]\n");
        return 2;
    }
    if (cw_ctrl_store_init(&s, by_namespace, NULL, &err) != CW_OK)
        return 1;
    cw_strlist_init(&live);
    for (int i = 0; i < nns; i++)
        cw_strlist_addf(&live, "app-%03d", i);
    cw_strlist_sort(&live);
    printf("backup queue: %d Backups Queued in one Velero namespace, %d live namespaces, "
           "--concurrent-backups 3\n",
           queued, nns);

    /* The first decision over a burst of new Backups: every one queued. */
    for (int i = 0; i < queued; i++)
        put(&s, backup(i, "New", 0, nns, &seed));
    double total, decide, wall, *tv = calloc((size_t)events, sizeof(double)),
                                *dv = calloc((size_t)events, sizeof(double)),
                                *wv = calloc((size_t)events, sizeof(double));
    cw_bqctl_actions a;
    json_object *snap = NULL;
    event(&s, &live, &total, &decide, &wall, &a, &snap);
    printf("  %d New Backups queued: one decision %.1f ms CPU (snapshot + decision; %.1f ms "
           "wall), %zu writes\n",
           queued, total * 1e3, wall * 1e3, a.nwrites);
    cw_bqctl_actions_free(&a);
    json_object_put(snap);

    /* Three running (Velero started the heads), the rest Queued 1..n. */
    event(&s, &live, &total, &decide, &wall, &a, &snap);
    for (size_t i = 0; i < a.ndequeues; i++)
        update(&s, a.writes[i].name, "InProgress", 0);
    char running[3][64];
    size_t nrun = 0;
    for (size_t i = 0; i < a.ndequeues && nrun < 3; i++)
        snprintf(running[nrun++], sizeof(running[0]), "%s", a.writes[i].name);
    cw_bqctl_actions_free(&a);
    json_object_put(snap);

    /* Idle: a change that moves nothing (every slot taken). */
    event(&s, &live, &total, &decide, &wall, &a, &snap);
    printf("  idle event (nothing to write):      %.3f ms CPU (decision alone %.3f ms), %zu "
           "writes\n",
           total * 1e3, decide * 1e3, a.nwrites);
    cw_bqctl_actions_free(&a);
    json_object_put(snap);

    /* Completions: the oldest running Backup finishes, the queue moves. */
    size_t dequeues = 0, writes = 0, most = 0, n = 0;
    for (int e = 0; e < events && nrun; e++) {
        update(&s, running[0], "Completed", 0);
        memmove(running[0], running[1], sizeof(running[0]) * (nrun - 1));
        nrun--;
        event(&s, &live, &tv[n], &dv[n], &wv[n], &a, &snap);
        n++;
        for (size_t i = 0; i < a.ndequeues; i++) {
            update(&s, a.writes[i].name, "InProgress", 0); /* Velero starts it */
            if (nrun < 3)
                snprintf(running[nrun++], sizeof(running[0]), "%s", a.writes[i].name);
        }
        if (a.ndequeues) {
            dequeues += a.ndequeues;
            writes += a.nwrites;
            if (a.nwrites / a.ndequeues > most)
                most = a.nwrites / a.ndequeues;
        }
        cw_bqctl_actions_free(&a);
        json_object_put(snap);
    }
    print_ms("event, CPU (snapshot + decision):", tv, n);
    print_ms("decision alone, CPU:", dv, n);
    print_ms("event, wall:", wv, n);
    printf("  API writes per dequeue: mean %.1f, max %zu (%zu dequeues, %zu writes: the dequeue "
           "and each position behind it that changes)\n",
           dequeues ? (double)writes / (double)dequeues : 0, most, dequeues, writes);
    printf("  peak RSS %.1f MiB\n", (double)cw_bench_self_rss_kib() / 1024.0);
    free(tv);
    free(dv);
    free(wv);
    cw_strlist_free(&live);
    cw_ctrl_store_free(&s);
    return 0;
}
