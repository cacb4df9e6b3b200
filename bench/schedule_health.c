/* The schedule-health reconciler's first pass (bench_cron_status --reconciler): the real
 * descriptor (controller/schedulehealth_apply.c) in its shell, its eight informers filled by
 * paged LISTs (100 a page) that a fake API server answers from bench_cron_status's generated
 * cluster, then one reconcile of every key (each RecurringJob and Schedule, the volume counts)
 * with its series and Warning Events (the POSTs answered 201 by the same fake). No network: what
 * is measured is the controller's own work — parsing the pages, the model fed by the informers'
 * transforms, judging, exporting, building the Events. The fake API keeps its pages in a
 * temporary file, so the process's peak RSS is the controller's (and one page). */
#include "schedule_health.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "controller/core/shell.h"
#include "controller/schedulehealth_apply.h"
#include "kube/config.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/metrics.h"
#include "kube/manifest.h"

#define PAGE 100

/* One resource of the fake API server: its LIST pages, as text in a file (so the process's peak
 * RSS is the controller's, not the fake server's). */
typedef struct resource {
    const char *group, *version, *name, *file; /* file: NULL, none (an empty list) */
    long *off, *len;                           /* per page, in the pages file */
    size_t npages;
} resource;

typedef struct fake_api {
    resource *res;
    size_t nres;
    FILE *pages;
    cw_buf body;
    size_t events, requests;
    long long page_bytes;
} fake_api;

typedef struct pager {
    fake_api *api;
    resource *r;
    json_object *page;
} pager;

static void flush_page(pager *pg)
{
    resource *r = pg->r;
    const char *text = json_object_to_json_string_ext(pg->page, JSON_C_TO_STRING_PLAIN);
    r->off = realloc(r->off, (r->npages + 1) * sizeof(*r->off));
    r->len = realloc(r->len, (r->npages + 1) * sizeof(*r->len));
    r->off[r->npages] = ftell(pg->api->pages);
    r->len[r->npages] = (long)strlen(text);
    fwrite(text, 1, strlen(text), pg->api->pages);
    pg->api->page_bytes += r->len[r->npages++];
    json_object_put(pg->page);
    pg->page = json_object_new_array();
}

static int page_item(void *ud, const cw_load_unit *u, cw_error *err)
{
    pager *pg = ud;
    (void)err;
    json_object_array_add(pg->page, json_object_get(u->obj));
    if (json_object_array_length(pg->page) == PAGE)
        flush_page(pg);
    return CW_OK;
}

/* The generated List of r, item by item (cw_load_file_lean: memory near one item), into pages. */
static int load_pages(fake_api *api, const char *dir, resource *r)
{
    char path[600];
    cw_error err;
    pager pg = {api, r, json_object_new_array()};
    int rc = CW_OK;
    if (r->file) {
        snprintf(path, sizeof(path), "%s/%s.json", dir, r->file);
        if ((rc = cw_load_file_lean(path, NULL, page_item, &pg, &err)) != CW_OK)
            fprintf(stderr, "schedule-health bench: %s\n", err.message);
        else if (json_object_array_length(pg.page))
            flush_page(&pg);
    }
    json_object_put(pg.page);
    return rc;
}

static const char *page_text(fake_api *api, const resource *r, size_t page)
{
    static char empty[] = "[]";
    if (page >= r->npages)
        return empty;
    char *buf = malloc((size_t)r->len[page] + 1);
    fseek(api->pages, r->off[page], SEEK_SET);
    size_t got = fread(buf, 1, (size_t)r->len[page], api->pages);
    buf[got] = '\0';
    return buf;
}

/* "GET /apis/<group>", "GET /apis/<group>/<version>", a LIST of .../<resource>?...continue=<k>,
 * an Event's POST. */
static int answer(void *ud, const char *method, const char *path, int attempt, cw_kube_fault *f)
{
    fake_api *api = ud;
    char group[64] = "", version[32] = "", rest[400] = "";
    (void)attempt;
    api->requests++;
    cw_buf_reset(&api->body);
    f->status = 200;
    if (!strcmp(method, "POST") && strstr(path, "/events")) {
        api->events++;
        f->status = 201;
        f->body = "{}";
        return 1;
    }
    sscanf(path, "/apis/%63[^/?]/%31[^/?]/%399s", group, version, rest);
    if (!*version) { /* the group: every resource of it in one version */
        for (size_t i = 0; i < api->nres; i++)
            if (!strcmp(api->res[i].group, group)) {
                cw_buf_printf(&api->body,
                              "{\"versions\":[{\"version\":\"%s\"}],\"preferredVersion\":"
                              "{\"version\":\"%s\"}}",
                              api->res[i].version, api->res[i].version);
                break;
            }
    } else if (!*rest) { /* the version's resources */
        cw_buf_puts(&api->body, "{\"resources\":[");
        for (size_t i = 0, k = 0; i < api->nres; i++)
            if (!strcmp(api->res[i].group, group))
                cw_buf_printf(&api->body, "%s{\"name\":\"%s\",\"kind\":\"X\",\"namespaced\":true}",
                              k++ ? "," : "", api->res[i].name);
        cw_buf_puts(&api->body, "]}");
    } else {
        const char *slash = strrchr(path, '/'), *q = strchr(path, '?'),
                   *c = strstr(path, "continue=");
        size_t page = c ? strtoul(c + 9, NULL, 10) : 0;
        for (size_t i = 0; i < api->nres; i++) {
            const resource *r = &api->res[i];
            if (strcmp(r->group, group) || strncmp(slash + 1, r->name, (size_t)(q - slash - 1)) ||
                strlen(r->name) != (size_t)(q - slash - 1))
                continue;
            cw_buf_puts(&api->body, "{\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"1\"");
            if (page + 1 < r->npages)
                cw_buf_printf(&api->body, ",\"continue\":\"%zu\"", page + 1);
            const char *items = page_text(api, r, page);
            cw_buf_printf(&api->body, "},\"items\":%s}", items);
            if (page < r->npages)
                free((char *)items);
            break;
        }
    }
    if (!api->body.len) {
        f->status = 404;
        f->body = "{\"kind\":\"Status\",\"code\":404,\"reason\":\"NotFound\"}";
        return 1;
    }
    f->body = cw_buf_str(&api->body);
    return 1;
}

static int64_t fixed_clock(void *ud)
{
    return *(const int64_t *)ud;
}

static cw_kube_client *fake_client(fake_api *api)
{
    cw_kube_config cfg;
    cw_kube_client *c = NULL;
    cw_kube_client_opts o;
    cw_error err;
    cw_kube_config_init(&cfg);
    cfg.server = strdup("https://127.0.0.1:1");
    cfg.source = strdup("bench");
    cfg.namespace = strdup("default");
    cw_kube_client_opts_init(&o);
    o.fault = answer;
    o.fault_ud = api;
    o.max_attempts = 1;
    o.qps = 0;
    if (cw_kube_client_new(&cfg, &o, &c, &err) != CW_OK)
        fprintf(stderr, "schedule-health bench: %s\n", err.message);
    cw_kube_config_free(&cfg);
    return c;
}

/* Every key once, as a new leader's first pass queues them: latencies into lat (ms). */
static size_t pass(cw_shell *s, double *lat, size_t cap, double *volumes_ms, size_t *failed)
{
    static const struct {
        size_t inf;
        const char *kind;
    } scheds[] = {{CW_SH_RECURRINGJOBS, "RecurringJob"}, {CW_SH_SCHEDULES, "Schedule"}};
    size_t n = 0;
    cw_error err;
    cw_verdict res = {0};
    double t = cw_bench_now();
    if (cw_shell_reconcile(s, CW_SH_VOLUMES_KEY, &res, &err) != CW_OK)
        (*failed)++;
    *volumes_ms = (cw_bench_now() - t) * 1e3;
    for (size_t k = 0; k < 2; k++) {
        cw_strlist keys;
        cw_strlist_init(&keys);
        if (cw_ctrl_store_keys(cw_shell_store(s, scheds[k].inf), &keys) != CW_OK)
            break;
        for (size_t i = 0; i < keys.len && n < cap; i++) {
            char key[CW_CTRL_KEY_MAX];
            snprintf(key, sizeof(key), "%s/%s", scheds[k].kind, keys.items[i]);
            cw_error_init(&err);
            memset(&res, 0, sizeof(res));
            t = cw_bench_now();
            if (cw_shell_reconcile(s, key, &res, &err) != CW_OK)
                (*failed)++;
            lat[n++] = (cw_bench_now() - t) * 1e3;
        }
        cw_strlist_free(&keys);
    }
    return n;
}

int cw_bench_schedule_health(const char *dir, int64_t now_s)
{
    resource res[] = {
        {"longhorn.io", "v1beta2", "recurringjobs", "recurringjobs", NULL, NULL, 0},
        {"batch", "v1", "cronjobs", "cronjobs", NULL, NULL, 0},
        {"batch", "v1", "jobs", "jobs", NULL, NULL, 0},
        {"longhorn.io", "v1beta2", "volumes", "volumes", NULL, NULL, 0},
        {"longhorn.io", "v1beta2", "backups", NULL, NULL, NULL, 0},
        {"longhorn.io", "v1beta2", "backupvolumes", "backupvolumes", NULL, NULL, 0},
        {"velero.io", "v1", "schedules", "schedules", NULL, NULL, 0},
        {"velero.io", "v1", "backups", "backups", NULL, NULL, 0},
    };
    fake_api api = {.res = res, .nres = sizeof(res) / sizeof(res[0])};
    cw_schedulehealth_config cfg = {0};
    cw_metrics metrics;
    cw_queue q;
    cw_shell *s = NULL;
    cw_error err;
    int64_t now_ms = now_s * 1000;
    int rc = CW_OK;
    cw_buf_init(&api.body);
    cw_log_configure(CW_LOG_ERROR, CW_LOG_TEXT, stderr);
    if (!(api.pages = tmpfile()))
        return 1;
    for (size_t i = 0; rc == CW_OK && i < api.nres; i++)
        rc = load_pages(&api, dir, &res[i]);
    long rss_pages = cw_bench_self_rss_kib();
    cw_kube_client *kube = rc == CW_OK ? fake_client(&api) : NULL;
    cw_metrics_init(&metrics);
    static const cw_ctrl_flags flags = {.longhorn_namespace = "longhorn-system",
                                        .namespace = "velero"};
    if (!kube || cw_queue_init(&q, NULL, &err) != CW_OK ||
        cw_schedulehealth_reconciler.config_init(&cfg, &flags, &err) != CW_OK) {
        fprintf(stderr, "schedule-health bench: cannot start\n");
        return 1;
    }
    cw_shell_env env = {.kube = kube,
                        .queue = &q,
                        .config = &cfg,
                        .metrics = &metrics,
                        .clock = fixed_clock,
                        .clock_ud = &now_ms};
    double t0 = cw_bench_now();
    if ((rc = cw_shell_new(&cw_schedulehealth_reconciler, &env, &s, &err)) != CW_OK)
        goto done;
    size_t objects = 0;
    for (size_t i = 0; i < cw_schedulehealth_reconciler.ninformers; i++) {
        if ((rc = cw_informer_relist(cw_shell_informer(s, i), &err)) != CW_OK)
            goto done;
        objects += cw_ctrl_store_len(cw_shell_store(s, i));
    }
    double t1 = cw_bench_now();
    size_t cap = objects + 1, failed = 0;
    double *lat = calloc(cap, sizeof(*lat)), volumes_ms;
    size_t n = pass(s, lat, cap, &volumes_ms, &failed);
    double t2 = cw_bench_now();
    cw_bench_sort(lat, n);
    cw_buf m;
    cw_buf_init(&m);
    (void)cw_metrics_render(&metrics, &m);
    size_t series = 0;
    for (const char *p = cw_buf_str(&m); (p = strstr(p, "\ncronwarden_")); p++)
        series += !strncmp(p + 1, "cronwarden_schedule_", 20) ||
                  !strncmp(p + 1, "cronwarden_volumes_", 19);
    printf("schedule-health reconciler, first pass (the descriptor in its shell; a fake API "
           "answers %zu requests):\n",
           api.requests);
    printf("  informers' LISTs (%zu objects, %.1f MB of pages) into caches and model  %7.1f ms\n",
           objects, (double)api.page_bytes / 1e6, (t1 - t0) * 1e3);
    printf("  every key judged and exported (%zu schedules + volumes)           %7.1f ms  "
           "(%.0f keys/s; %zu failed)\n",
           n, (t2 - t1) * 1e3, (double)(n + 1) / (t2 - t1), failed);
    printf("  one schedule's reconcile   p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms\n",
           cw_bench_percentile(lat, n, 0.5), cw_bench_percentile(lat, n, 0.9),
           cw_bench_percentile(lat, n, 0.99), n ? lat[n - 1] : 0.0);
    printf("  the volume counts' reconcile %.1f ms; %zu series exported; %zu Warning Events "
           "posted\n",
           volumes_ms, series, api.events);
    printf("  peak RSS %.1f MiB (before the shell, the pages written out: %.1f MiB)\n",
           (double)cw_bench_self_rss_kib() / 1024.0, (double)rss_pages / 1024.0);
    cw_buf_free(&m);
    free(lat);
done:
    if (rc != CW_OK)
        fprintf(stderr, "schedule-health bench: %s\n", err.message);
    cw_shell_free(s);
    cw_schedulehealth_reconciler.config_fini(&cfg);
    cw_queue_free(&q);
    cw_metrics_free(&metrics);
    cw_kube_client_free(kube);
    for (size_t i = 0; i < api.nres; i++) {
        free(res[i].off);
        free(res[i].len);
    }
    fclose(api.pages);
    cw_buf_free(&api.body);
    return rc == CW_OK ? 0 : 1;
}
