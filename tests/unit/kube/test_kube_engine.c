/* The request engine and the verbs, driven through the fault-injection hook: scripted answers
 * instead of a server (the real apiserver is exercised by tests/e2e/scenarios/kube_client.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kube/client.h"
#include "lib/json.h"
#include "kube/internal.h"
#include "lib/log.h"
#include "tests/unit/kube/fake_client.h"
#include "lib/clock.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Script tables leave retry_after out where it does not matter. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

typedef struct step {
    long status; /* 0: connection reset */
    const char *body;
    const char *retry_after;
    int apf; /* the answer carries the API Priority and Fairness headers */
} step;

typedef struct script {
    const step *steps;
    size_t n, i;
    char methods[32][16];
    char paths[32][512];
} script;

static int scripted(void *ud, const char *method, const char *path, int attempt, cw_kube_fault *f)
{
    (void)attempt;
    script *s = ud;
    if (s->i >= s->n)
        fail_msg("unexpected request %s %s (script has %zu steps)", method, path, s->n);
    if (s->i < 32) {
        snprintf(s->methods[s->i], sizeof(s->methods[0]), "%s", method);
        snprintf(s->paths[s->i], sizeof(s->paths[0]), "%s", path);
    }
    f->status = s->steps[s->i].status;
    f->body = s->steps[s->i].body;
    f->retry_after = s->steps[s->i].retry_after;
    f->apf = s->steps[s->i].apf;
    s->i++;
    return 1;
}

static cw_kube_client *new_client(script *s, cw_kube_client_opts *o, const char *token_file)
{
    cw_kube_client_opts defaults;
    if (!o) {
        cw_kube_client_opts_init(&defaults);
        o = &defaults;
    }
    o->fault = scripted;
    o->fault_ud = s;
    if (o->backoff_base == 0.2) {
        o->backoff_base = 0.001;
        o->backoff_max = 0.005;
    }
    return fake_kube_client(o, "old-token", token_file);
}

#define SCRIPT(...)                                                                                \
    static const step steps_[] = {__VA_ARGS__};                                                    \
    script s = {.steps = steps_, .n = N(steps_)}
#define RESCRIPT(...)                                                                              \
    do {                                                                                           \
        static const step more_[] = {__VA_ARGS__};                                                 \
        s = (script){.steps = more_, .n = N(more_)};                                               \
    } while (0)

static const cw_kube_resource CM = {NULL, "v1", "configmaps", "ns"};

#define STATUS(code, msg)                                                                          \
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"" msg         \
    "\",\"code\":" #code "}"

static void get_parses_json(void **state)
{
    (void)state;
    SCRIPT({200, "{\"metadata\":{\"name\":\"c\"}}"});
    cw_kube_client *c = new_client(&s, NULL, NULL);
    json_object *o = NULL;
    cw_error err;
    assert_int_equal(cw_kube_get(c, &CM, "c", &o, &err), CW_OK);
    assert_string_equal(cw_json_path_string(o, "metadata.name"), "c");
    assert_string_equal(s.methods[0], "GET");
    assert_string_equal(s.paths[0], "/api/v1/namespaces/ns/configmaps/c");
    json_object_put(o);
    cw_kube_client_free(c);
}

static void retries_5xx_and_resets_then_succeeds(void **state)
{
    (void)state;
    SCRIPT({503, STATUS(503, "etcdserver: leader changed")}, {0, NULL}, {500, ""}, {200, "{}"});
    cw_kube_client *c = new_client(&s, NULL, NULL);
    cw_error err;
    cw_kube_stats st;
    assert_int_equal(cw_kube_get(c, &CM, "c", NULL, &err), CW_OK);
    cw_kube_client_stats(c, &st);
    assert_int_equal(st.requests, 4);
    assert_int_equal(st.retries, 3);
    cw_kube_client_free(c);
}

static void gives_up_after_max_attempts(void **state)
{
    (void)state;
    SCRIPT({503, STATUS(503, "etcdserver: leader changed")},
           {503, STATUS(503, "etcdserver: leader changed")},
           {503, STATUS(503, "etcdserver: leader changed")});
    cw_kube_client_opts o;
    cw_kube_client_opts_init(&o);
    o.max_attempts = 3;
    cw_kube_client *c = new_client(&s, &o, NULL);
    cw_error err;
    assert_int_equal(cw_kube_get(c, &CM, "c", NULL, &err), CW_EHTTP);
    assert_int_equal(err.http_status, 503);
    assert_non_null(strstr(
        err.message, "GET https://127.0.0.1:1/api/v1/namespaces/ns/configmaps/c: 503 Service "
                     "Unavailable: etcdserver: leader changed (gave up after 3 attempts in "));
    cw_kube_client_free(c);

    RESCRIPT({0, NULL}, {0, NULL});
    cw_kube_client_opts_init(&o);
    o.max_attempts = 2;
    c = new_client(&s, &o, NULL);
    assert_int_equal(cw_kube_get(c, &CM, "c", NULL, &err), CW_ETRANSPORT);
    assert_non_null(strstr(err.message, "injected fault: connection reset by peer"));
    assert_non_null(strstr(err.message, "(server from test)"));
    cw_kube_client_free(c);
}

static void final_statuses_are_not_retried(void **state)
{
    (void)state;
    static const struct {
        long status;
        int code;
    } cases[] = {{400, CW_EHTTP},     {401, CW_EHTTP}, {403, CW_EHTTP}, {404, CW_ENOTFOUND},
                 {409, CW_ECONFLICT}, {410, CW_EHTTP}, {422, CW_EHTTP}};
    for (size_t i = 0; i < N(cases); i++) {
        step st[] = {{cases[i].status, STATUS(0, "the server says no"), NULL}};
        script s = {.steps = st, .n = 1};
        cw_kube_client *c = new_client(&s, NULL, NULL);
        cw_error err;
        cw_kube_stats stats;
        assert_int_equal(cw_kube_get(c, &CM, "c", NULL, &err), cases[i].code);
        assert_int_equal(err.http_status, cases[i].status);
        assert_non_null(strstr(err.message, ": the server says no"));
        cw_kube_client_stats(c, &stats);
        assert_int_equal(stats.requests, 1);
        cw_kube_client_free(c);
    }
}

static void retry_after_is_honoured_within_the_budget(void **state)
{
    (void)state;
    SCRIPT({429, STATUS(429, "too many requests"), "1"}, {200, "{}"});
    cw_kube_client *c = new_client(&s, NULL, NULL);
    cw_error err;
    double t0 = cw_clock_mono();
    assert_int_equal(cw_kube_get(c, &CM, "c", NULL, &err), CW_OK);
    double took = cw_clock_mono() - t0;
    assert_true(took >= 0.95 && took < 3);
    cw_kube_client_free(c);

    /* A Retry-After beyond the remaining budget ends the retries at once. */
    RESCRIPT({429, STATUS(429, "too many requests"), "30"});
    cw_kube_client_opts o;
    cw_kube_client_opts_init(&o);
    o.retry_budget = 2;
    c = new_client(&s, &o, NULL);
    t0 = cw_clock_mono();
    assert_int_equal(cw_kube_get(c, &CM, "c", NULL, &err), CW_EHTTP);
    assert_true(cw_clock_mono() - t0 < 0.5);
    assert_int_equal(err.http_status, 429);
    cw_kube_client_free(c);
}

static void unauthorized_rereads_the_token_file_once(void **state)
{
    (void)state;
    char path[] = "/tmp/cw-kube-token-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "new-token\n", 10), 10);
    close(fd);
    SCRIPT({401, STATUS(401, "Unauthorized")}, {200, "{}"});
    cw_kube_client *c = new_client(&s, NULL, path);
    cw_error err;
    cw_kube_stats st;
    assert_int_equal(cw_kube_get(c, &CM, "c", NULL, &err), CW_OK);
    cw_kube_client_stats(c, &st);
    assert_int_equal(st.requests, 2);
    assert_int_equal(st.token_reads, 1);
    assert_string_equal(c->token, "new-token");
    cw_kube_client_free(c);

    /* Only once: a second 401 is final, and says where the credentials came from. */
    RESCRIPT({401, STATUS(401, "Unauthorized")}, {401, STATUS(401, "Unauthorized")});
    c = new_client(&s, NULL, path);
    assert_int_equal(cw_kube_get(c, &CM, "c", NULL, &err), CW_EHTTP);
    assert_int_equal(err.http_status, 401);
    assert_non_null(strstr(err.message, "401 Unauthorized: Unauthorized (credentials from test)"));
    assert_int_equal(s.i, 2);
    cw_kube_client_free(c);

    /* The periodic re-read happens without any 401. */
    RESCRIPT({200, "{}"});
    cw_kube_client_opts o;
    cw_kube_client_opts_init(&o);
    o.token_reread = 0;
    c = new_client(&s, &o, path);
    assert_int_equal(cw_kube_get(c, &CM, "c", NULL, &err), CW_OK);
    assert_string_equal(c->token, "new-token");
    cw_kube_client_free(c);
    unlink(path);
}

static void body_limit_and_bad_json(void **state)
{
    (void)state;
    char *big = malloc(5000);
    memset(big, ' ', 4999);
    big[0] = '{';
    big[4997] = '}';
    big[4998] = '\n';
    big[4999] = '\0';
    step st[] = {{200, big, NULL}, {200, "not json", NULL}};
    script s = {.steps = st, .n = 2};
    cw_kube_client_opts o;
    cw_kube_client_opts_init(&o);
    o.max_body = 4096;
    cw_kube_client *c = new_client(&s, &o, NULL);
    cw_error err;
    json_object *out = NULL;
    assert_int_equal(cw_kube_get(c, &CM, "c", &out, &err), CW_ELIMIT);
    assert_non_null(strstr(err.message, "response body exceeds 4096 bytes"));
    assert_int_equal(cw_kube_get(c, &CM, "c", &out, &err), CW_EINVAL);
    assert_non_null(strstr(err.message,
                           "GET https://127.0.0.1:1/api/v1/namespaces/ns/configmaps/c: "
                           "response is not valid JSON"));
    assert_null(out);
    cw_kube_client_free(c);
    free(big);
}

static void writes_carry_dry_run_and_methods(void **state)
{
    (void)state;
    SCRIPT({201, "{}"}, {200, "{}"}, {200, "{}"}, {200, "{}"}, {200, "{}"}, {200, "{}"},
           {200, "{}"}, {200, "{\"kind\":\"ConfigMapList\",\"items\":[]}"});
    cw_kube_client_opts o;
    cw_kube_client_opts_init(&o);
    o.dry_run = 1;
    cw_kube_client *c = new_client(&s, &o, NULL);
    cw_error err;
    json_object *obj = json_object_new_object();
    cw_kube_write_opts w;
    cw_kube_write_opts_init(&w);
    w.field_manager = "cronwarden";
    cw_kube_delete_opts d;
    cw_kube_delete_opts_init(&d);
    d.propagation = "Foreground";
    d.uid = "u-1";
    assert_int_equal(cw_kube_create(c, &CM, obj, &w, NULL, &err), CW_OK);
    assert_int_equal(cw_kube_update(c, &CM, "c", obj, NULL, NULL, &err), CW_OK);
    assert_int_equal(cw_kube_patch(c, &CM, "c", CW_KUBE_PATCH_MERGE, obj, NULL, NULL, &err), CW_OK);
    assert_int_equal(cw_kube_patch(c, &CM, "c", CW_KUBE_PATCH_JSON, obj, NULL, NULL, &err), CW_OK);
    assert_int_equal(cw_kube_delete(c, &CM, "c", &d, NULL, &err), CW_OK);
    assert_int_equal(cw_kube_get(c, &CM, "c", NULL, &err), CW_OK);
    assert_int_equal(cw_kube_request(c, "GET", "/version", NULL, NULL, NULL, &err), CW_OK);
    json_object *gone = NULL;
    assert_int_equal(cw_kube_delete_collection(c, &CM, "longhornvolume in (a,b)", &d, &gone, &err),
                     CW_OK);
    assert_string_equal(cw_json_path_string(gone, "kind"), "ConfigMapList");
    json_object_put(gone);
    assert_int_equal(cw_kube_delete_collection(c, &CM, "", &d, NULL, &err), CW_EINVAL);
    static const char *want[][2] = {
        {"POST", "/api/v1/namespaces/ns/configmaps?dryRun=All&fieldManager=cronwarden"},
        {"PUT", "/api/v1/namespaces/ns/configmaps/c?dryRun=All"},
        {"PATCH", "/api/v1/namespaces/ns/configmaps/c?dryRun=All"},
        {"PATCH", "/api/v1/namespaces/ns/configmaps/c?dryRun=All"},
        {"DELETE", "/api/v1/namespaces/ns/configmaps/c?dryRun=All"},
        {"GET", "/api/v1/namespaces/ns/configmaps/c"},
        {"GET", "/version"},
        {"DELETE",
         "/api/v1/namespaces/ns/configmaps?labelSelector=longhornvolume%20in%20%28a%2Cb%29&"
         "dryRun=All"},
    };
    for (size_t i = 0; i < N(want); i++) {
        assert_string_equal(s.methods[i], want[i][0]);
        assert_string_equal(s.paths[i], want[i][1]);
    }
    assert_int_equal(cw_kube_request(c, "GET", "version", NULL, NULL, NULL, &err), CW_EINVAL);
    assert_int_equal(cw_kube_patch(c, &CM, "c", (cw_kube_patch_type)42, obj, NULL, NULL, &err),
                     CW_EINVAL);
    json_object_put(obj);
    cw_kube_client_free(c);
}

/* ---- list ---- */

typedef struct pages_seen {
    int pages, items, restarted[8], inconsistent[8], last[8];
    int stop_after;
} pages_seen;

static int on_page(void *ud, const cw_kube_page *p, cw_error *err)
{
    (void)err;
    pages_seen *ps = ud;
    if (ps->pages < 8) {
        ps->restarted[ps->pages] = p->restarted;
        ps->inconsistent[ps->pages] = p->inconsistent;
        ps->last[ps->pages] = p->last;
    }
    if (p->restarted)
        ps->items = 0; /* discard what earlier pages gave */
    ps->pages++;
    ps->items += (int)json_object_array_length(p->items);
    return ps->stop_after && ps->pages >= ps->stop_after ? 1 : 0;
}

#define PAGE(cont, items)                                                                          \
    "{\"kind\":\"ConfigMapList\",\"metadata\":{\"resourceVersion\":\"7\",\"continue\":\"" cont     \
    "\"},\"items\":[" items "]}"
#define EXPIRED                                                                                    \
    "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"The provided continue parameter "   \
    "is too old to display a consistent list result.\",\"reason\":\"Expired\",\"code\":410,"       \
    "\"metadata\":{\"continue\":\"inconsistent-token\"}}"

static void list_follows_continue(void **state)
{
    (void)state;
    SCRIPT({200, PAGE("c1", "{},{}")}, {200, PAGE("c2", "{},{}")}, {200, PAGE("", "{}")});
    cw_kube_client *c = new_client(&s, NULL, NULL);
    cw_kube_list_opts o;
    cw_kube_list_opts_init(&o);
    o.limit = 2;
    o.label_selector = "app=x";
    pages_seen ps = {0};
    cw_error err;
    assert_int_equal(cw_kube_list(c, &CM, &o, on_page, &ps, &err), CW_OK);
    assert_int_equal(ps.pages, 3);
    assert_int_equal(ps.items, 5);
    assert_int_equal(ps.last[0] + ps.last[1], 0);
    assert_int_equal(ps.last[2], 1);
    assert_string_equal(s.paths[0],
                        "/api/v1/namespaces/ns/configmaps?limit=2&labelSelector=app%3Dx");
    assert_string_equal(
        s.paths[1], "/api/v1/namespaces/ns/configmaps?limit=2&labelSelector=app%3Dx&continue=c1");
    assert_string_equal(
        s.paths[2], "/api/v1/namespaces/ns/configmaps?limit=2&labelSelector=app%3Dx&continue=c2");
    cw_kube_client_free(c);
}

static void list_restarts_after_expired_continue(void **state)
{
    (void)state;
    SCRIPT({200, PAGE("c1", "{},{}")}, {410, EXPIRED}, {200, PAGE("c1", "{},{}")},
           {200, PAGE("", "{}")});
    cw_kube_client *c = new_client(&s, NULL, NULL);
    cw_kube_list_opts o;
    cw_kube_list_opts_init(&o);
    o.limit = 2;
    pages_seen ps = {0};
    cw_error err;
    assert_int_equal(cw_kube_list(c, &CM, &o, on_page, &ps, &err), CW_OK);
    assert_int_equal(ps.pages, 3);
    assert_int_equal(ps.restarted[0], 0);
    assert_int_equal(ps.restarted[1], 1);
    assert_int_equal(ps.restarted[2], 0);
    assert_int_equal(ps.items, 3);
    assert_string_equal(s.paths[2], "/api/v1/namespaces/ns/configmaps?limit=2");
    cw_kube_client_free(c);
}

static void list_can_continue_inconsistently(void **state)
{
    (void)state;
    SCRIPT({200, PAGE("c1", "{},{}")}, {410, EXPIRED}, {200, PAGE("", "{}")});
    cw_kube_client *c = new_client(&s, NULL, NULL);
    cw_kube_list_opts o;
    cw_kube_list_opts_init(&o);
    o.limit = 2;
    o.on_expired = CW_KUBE_LIST_INCONSISTENT;
    pages_seen ps = {0};
    cw_error err;
    assert_int_equal(cw_kube_list(c, &CM, &o, on_page, &ps, &err), CW_OK);
    assert_int_equal(ps.pages, 2);
    assert_int_equal(ps.inconsistent[1], 1);
    assert_int_equal(ps.items, 3);
    assert_string_equal(s.paths[2], "/api/v1/namespaces/ns/configmaps?limit=2&continue="
                                    "inconsistent-token");
    cw_kube_client_free(c);
}

static void list_restarts_are_bounded_and_callbacks_can_stop(void **state)
{
    (void)state;
    SCRIPT({200, PAGE("c1", "{}")}, {410, EXPIRED}, {200, PAGE("c1", "{}")}, {410, EXPIRED});
    cw_kube_client *c = new_client(&s, NULL, NULL);
    cw_kube_list_opts o;
    cw_kube_list_opts_init(&o);
    o.max_restarts = 1;
    pages_seen ps = {0};
    cw_error err;
    assert_int_equal(cw_kube_list(c, &CM, &o, on_page, &ps, &err), CW_EHTTP);
    assert_int_equal(err.http_status, 410);
    assert_non_null(strstr(err.message, "the continue token expired 2 times"));
    cw_kube_client_free(c);

    RESCRIPT({200, PAGE("c1", "{}")});
    c = new_client(&s, NULL, NULL);
    pages_seen stop = {.stop_after = 1};
    assert_int_equal(cw_kube_list(c, &CM, NULL, on_page, &stop, &err), CW_OK);
    assert_int_equal(stop.pages, 1);
    assert_string_equal(s.paths[0], "/api/v1/namespaces/ns/configmaps?limit=500");
    cw_kube_client_free(c);
}

/* ---- watch ---- */

typedef struct events_seen {
    int n, gone, stop_after;
    char types[8][16];
    char rvs[8][16];
} events_seen;

static int on_event(void *ud, const cw_kube_event *ev, cw_error *err)
{
    (void)err;
    events_seen *es = ud;
    if (es->n < 8) {
        snprintf(es->types[es->n], sizeof(es->types[0]), "%s", ev->type_name);
        snprintf(es->rvs[es->n], sizeof(es->rvs[0]), "%s",
                 ev->resource_version ? ev->resource_version : "");
    }
    es->gone |= ev->gone;
    es->n++;
    return es->stop_after && es->n >= es->stop_after ? 1 : 0;
}

#define EVENT(type, rv)                                                                            \
    "{\"type\":\"" type "\",\"object\":{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\","      \
    "\"resourceVersion\":\"" rv "\"}}}\n"

static void watch_delivers_events_in_order(void **state)
{
    (void)state;
    SCRIPT({200, EVENT("ADDED", "6") EVENT("MODIFIED", "7") EVENT("BOOKMARK", "8")
                     EVENT("DELETED", "9")});
    cw_kube_client *c = new_client(&s, NULL, NULL);
    cw_kube_watch_opts o;
    cw_kube_watch_opts_init(&o);
    o.resource_version = "5";
    o.timeout_seconds = 30;
    events_seen es = {0};
    cw_error err;
    assert_int_equal(cw_kube_watch(c, &CM, &o, on_event, &es, &err), CW_OK);
    assert_int_equal(es.n, 4);
    assert_string_equal(es.types[0], "ADDED");
    assert_string_equal(es.types[1], "MODIFIED");
    assert_string_equal(es.types[2], "BOOKMARK");
    assert_string_equal(es.types[3], "DELETED");
    assert_string_equal(es.rvs[3], "9");
    assert_string_equal(s.paths[0], "/api/v1/namespaces/ns/configmaps?watch=1&resourceVersion=5&"
                                    "allowWatchBookmarks=true&timeoutSeconds=30");
    cw_kube_client_free(c);
}

static void watch_reports_410_distinctly(void **state)
{
    (void)state;
    SCRIPT({200, EVENT("ADDED", "6") "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\","
                                     "\"status\":\"Failure\",\"message\":\"too old resource "
                                     "version: 5 (9)\",\"reason\":\"Expired\",\"code\":410}}\n"});
    cw_kube_client *c = new_client(&s, NULL, NULL);
    events_seen es = {0};
    cw_error err;
    assert_int_equal(cw_kube_watch(c, &CM, NULL, on_event, &es, &err), CW_EHTTP);
    assert_int_equal(err.http_status, 410);
    assert_int_equal(es.gone, 1);
    assert_int_equal(es.n, 2);
    assert_non_null(strstr(err.message, "ERROR event: 410 Gone: too old resource version: 5 (9) "
                                        "(resourceVersion too old: list again)"));
    cw_kube_client_free(c);
}

static void watch_stops_when_asked_and_maps_errors(void **state)
{
    (void)state;
    SCRIPT({200, EVENT("ADDED", "6") EVENT("MODIFIED", "7")}, {403, STATUS(403, "no watching")});
    cw_kube_client *c = new_client(&s, NULL, NULL);
    events_seen es = {.stop_after = 1};
    cw_error err;
    assert_int_equal(cw_kube_watch(c, &CM, NULL, on_event, &es, &err), CW_OK);
    assert_int_equal(es.n, 1);
    events_seen es2 = {0};
    assert_int_equal(cw_kube_watch(c, &CM, NULL, on_event, &es2, &err), CW_EHTTP);
    assert_int_equal(err.http_status, 403);
    assert_non_null(strstr(err.message, "403 Forbidden: no watching"));
    assert_int_equal(es2.n, 0);
    cw_kube_client_free(c);
}

/* ---- discovery ---- */

static void discovery_reads_versions_and_resources(void **state)
{
    (void)state;
    SCRIPT({200, "{\"kind\":\"APIGroup\",\"name\":\"longhorn.io\",\"versions\":["
                 "{\"groupVersion\":\"longhorn.io/v1beta2\",\"version\":\"v1beta2\"},"
                 "{\"groupVersion\":\"longhorn.io/v1beta1\",\"version\":\"v1beta1\"}],"
                 "\"preferredVersion\":{\"groupVersion\":\"longhorn.io/v1beta2\","
                 "\"version\":\"v1beta2\"}}"},
           {404, "404 page not found"}, {200, "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"]}"},
           {200, "{\"kind\":\"APIResourceList\",\"groupVersion\":\"longhorn.io/v1beta2\","
                 "\"resources\":[{\"name\":\"volumes\",\"singularName\":\"volume\","
                 "\"namespaced\":true,\"kind\":\"Volume\",\"verbs\":[\"get\",\"list\"]},"
                 "{\"name\":\"volumes/status\",\"namespaced\":true,\"kind\":\"Volume\","
                 "\"verbs\":[\"get\"]}]}"});
    cw_kube_client *c = new_client(&s, NULL, NULL);
    cw_kube_group g;
    cw_kube_api_resources res;
    cw_error err;
    cw_kube_group_init(&g);
    cw_kube_api_resources_init(&res);
    assert_int_equal(cw_kube_discover_group(c, "longhorn.io", &g, &err), CW_OK);
    assert_string_equal(g.preferred, "v1beta2");
    assert_int_equal(g.versions.len, 2);
    assert_string_equal(g.versions.items[1], "v1beta1");
    assert_string_equal(s.paths[0], "/apis/longhorn.io");
    assert_int_equal(cw_kube_discover_group(c, "longhorn.io", &g, &err), CW_ENOTFOUND);
    assert_non_null(strstr(err.message, "API group \"longhorn.io\" is not served by "
                                        "https://127.0.0.1:1"));
    assert_int_equal(cw_kube_discover_group(c, "", &g, &err), CW_OK);
    assert_string_equal(g.preferred, "v1");
    assert_string_equal(s.paths[2], "/api");
    assert_int_equal(cw_kube_discover_resources(c, "longhorn.io", "v1beta2", &res, &err), CW_OK);
    assert_string_equal(s.paths[3], "/apis/longhorn.io/v1beta2");
    assert_int_equal(res.len, 2);
    const cw_kube_api_resource *v = cw_kube_api_resources_find(&res, "volumes");
    assert_non_null(v);
    assert_string_equal(v->kind, "Volume");
    assert_true(v->namespaced);
    assert_int_equal(v->verbs.len, 2);
    assert_null(cw_kube_api_resources_find(&res, "engines"));
    cw_kube_group_free(&g);
    cw_kube_api_resources_free(&res);
    cw_kube_client_free(c);
}

/* CronJobs by discovery, as the recurringjob reconciler and migrate pick them: Kubernetes 1.20
 * prefers batch/v1 but serves cronjobs only in batch/v1beta1; 1.25 serves them in batch/v1 (and
 * no v1beta1 any more). */
#define BATCH_GROUP(versions)                                                                      \
    {                                                                                              \
        200, "{\"kind\":\"APIGroup\",\"name\":\"batch\",\"versions\":[" versions "],"              \
             "\"preferredVersion\":{\"groupVersion\":\"batch/v1\",\"version\":\"v1\"}}"            \
    }
#define BATCH_V(v) "{\"groupVersion\":\"batch/" v "\",\"version\":\"" v "\"}"
#define RESOURCES(...)                                                                             \
    {                                                                                              \
        200, "{\"kind\":\"APIResourceList\",\"resources\":[" __VA_ARGS__ "]}"                      \
    }
#define RES(name) "{\"name\":\"" name "\",\"namespaced\":true,\"kind\":\"X\",\"verbs\":[]}"

static void discovery_picks_the_cronjob_version(void **state)
{
    (void)state;
    SCRIPT(/* 1.20 */
           BATCH_GROUP(BATCH_V("v1") "," BATCH_V("v1beta1")), RESOURCES(RES("jobs")),
           RESOURCES(RES("cronjobs")),
           /* 1.25 */
           BATCH_GROUP(BATCH_V("v1")), RESOURCES(RES("cronjobs") "," RES("jobs")));
    cw_kube_client *c = new_client(&s, NULL, NULL);
    cw_error err;
    char v[32];
    assert_int_equal(cw_kube_pick_version(c, "batch", "cronjobs", v, sizeof(v), &err), CW_OK);
    assert_string_equal(v, "v1beta1");
    assert_string_equal(s.paths[1], "/apis/batch/v1");
    assert_string_equal(s.paths[2], "/apis/batch/v1beta1");
    assert_int_equal(cw_kube_pick_version(c, "batch", "cronjobs", v, sizeof(v), &err), CW_OK);
    assert_string_equal(v, "v1");
    assert_int_equal(s.i, 5);
    cw_kube_client_free(c);
}

/* ---- concurrency and throttling ---- */

typedef struct busy {
    atomic_int inflight, max;
} busy;

static int slow_ok(void *ud, const char *method, const char *path, int attempt, cw_kube_fault *f)
{
    (void)method;
    (void)path;
    (void)attempt;
    busy *b = ud;
    int now = atomic_fetch_add(&b->inflight, 1) + 1;
    int prev = atomic_load(&b->max);
    while (now > prev && !atomic_compare_exchange_weak(&b->max, &prev, now)) {
    }
    usleep(2000);
    atomic_fetch_sub(&b->inflight, 1);
    f->status = 200;
    f->body = "{}";
    return 1;
}

static void *hammer(void *arg)
{
    cw_kube_client *c = arg;
    cw_error err;
    for (int i = 0; i < 25; i++)
        if (cw_kube_get(c, &CM, "c", NULL, &err) != CW_OK)
            return (void *)1;
    return NULL;
}

static void parallelism_is_bounded(void **state)
{
    (void)state;
    busy b = {0};
    cw_kube_config cfg;
    cw_kube_client_opts o;
    cw_kube_client *c = NULL;
    cw_error err;
    cw_kube_config_init(&cfg);
    cfg.server = strdup("https://127.0.0.1:1");
    cw_kube_client_opts_init(&o);
    o.max_inflight = 3;
    o.qps = 0;
    o.fault = slow_ok;
    o.fault_ud = &b;
    assert_int_equal(cw_kube_client_new(&cfg, &o, &c, &err), CW_OK);
    pthread_t t[8];
    for (int i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, hammer, c);
    for (int i = 0; i < 8; i++) {
        void *r;
        pthread_join(t[i], &r);
        assert_null(r);
    }
    cw_kube_stats st;
    cw_kube_client_stats(c, &st);
    assert_int_equal(st.requests, 200);
    assert_true(atomic_load(&b.max) <= 3);
    assert_true(atomic_load(&b.max) >= 2);
    cw_kube_client_free(c);
    cw_kube_config_free(&cfg);
}

static void rate_limit_throttles_after_the_burst(void **state)
{
    (void)state;
    static step st[40];
    for (size_t i = 0; i < N(st); i++)
        st[i] = (step){200, "{}", NULL};
    script s = {.steps = st, .n = N(st)};
    cw_kube_client_opts o;
    cw_kube_client_opts_init(&o);
    o.qps = 100;
    o.burst = 10;
    cw_kube_client *c = new_client(&s, &o, NULL);
    cw_error err;
    double t0 = cw_clock_mono();
    for (int i = 0; i < 40; i++)
        assert_int_equal(cw_kube_get(c, &CM, "c", NULL, &err), CW_OK);
    double took = cw_clock_mono() - t0;
    cw_kube_stats stats;
    cw_kube_client_stats(c, &stats);
    /* 30 requests beyond the burst at 100/s: at least 0.3 s, however fast each one is. (How much
     * of it was spent waiting for the bucket depends on the machine's load.) */
    assert_true(took >= 0.28);
    assert_true(stats.throttled <= took + 0.01);
    cw_kube_client_free(c);
}

/* qps_auto: the first answer decides. With the APF headers nothing throttles (40 requests at a
 * fallback of 10/s with a burst of 1 would take 4 s); without them the fallback holds. */
static void api_priority_and_fairness_lifts_the_auto_limit(void **state)
{
    (void)state;
    for (int apf = 1; apf >= 0; apf--) {
        static step st[2][40];
        for (size_t i = 0; i < 40; i++)
            st[apf][i] = (step){200, "{}", NULL, apf};
        script s = {.steps = st[apf], .n = apf ? 40 : 6};
        cw_kube_client_opts o;
        cw_kube_client_opts_init(&o);
        o.qps = 10;
        o.burst = 1;
        o.qps_auto = 1;
        cw_kube_client *c = new_client(&s, &o, NULL);
        cw_kube_stats stats;
        cw_kube_client_stats(c, &stats);
        assert_int_equal(stats.apf, -1);
        cw_error err;
        double t0 = cw_clock_mono();
        for (size_t i = 0; i < s.n; i++)
            assert_int_equal(cw_kube_get(c, &CM, "c", NULL, &err), CW_OK);
        double took = cw_clock_mono() - t0;
        cw_kube_client_stats(c, &stats);
        assert_int_equal(stats.apf, apf);
        if (apf)
            assert_true(took < 1.0);
        else /* the bucket starts full again once the server is known: 4 waits at 10/s */
            assert_true(took >= 0.38);
        cw_kube_client_free(c);
    }
}

static void options_are_checked(void **state)
{
    (void)state;
    cw_kube_config cfg;
    cw_kube_client_opts o;
    cw_kube_client *c = NULL;
    cw_error err;
    cw_kube_config_init(&cfg);
    cw_kube_client_opts_init(&o);
    assert_int_equal(cw_kube_client_new(&cfg, &o, &c, &err), CW_EINVAL);
    assert_non_null(strstr(err.message, "no server"));
    cfg.server = strdup("https://127.0.0.1:1");
    o.max_inflight = 0;
    assert_int_equal(cw_kube_client_new(&cfg, &o, &c, &err), CW_EINVAL);
    assert_non_null(strstr(err.message, "max in-flight"));
    assert_null(c);
    cw_kube_client_opts_init(&o);
    assert_int_equal(cw_kube_client_new(&cfg, &o, &c, &err), CW_OK);
    assert_non_null(strstr(c->user_agent, "cronwarden/"));
    assert_string_equal(c->base_url, "https://127.0.0.1:1");
    cw_kube_client_free(c);
    /* tls-server-name: URLs name it, CONNECT_TO routes to the real address */
    free(cfg.server);
    cfg.server = strdup("https://10.0.0.5:6443/prefix/");
    cfg.tls_server_name = strdup("kubernetes.default.svc");
    assert_int_equal(cw_kube_client_new(&cfg, &o, &c, &err), CW_OK);
    assert_string_equal(c->base_url, "https://kubernetes.default.svc:6443/prefix");
    assert_string_equal(c->connect_to->data, "kubernetes.default.svc:6443:10.0.0.5:6443");
    cw_kube_client_free(c);
    cw_kube_config_free(&cfg);
}

int main(void)
{
    cw_log_configure(CW_LOG_ERROR, CW_LOG_TEXT, stderr);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(get_parses_json),
        cmocka_unit_test(retries_5xx_and_resets_then_succeeds),
        cmocka_unit_test(gives_up_after_max_attempts),
        cmocka_unit_test(final_statuses_are_not_retried),
        cmocka_unit_test(retry_after_is_honoured_within_the_budget),
        cmocka_unit_test(unauthorized_rereads_the_token_file_once),
        cmocka_unit_test(body_limit_and_bad_json),
        cmocka_unit_test(writes_carry_dry_run_and_methods),
        cmocka_unit_test(list_follows_continue),
        cmocka_unit_test(list_restarts_after_expired_continue),
        cmocka_unit_test(list_can_continue_inconsistently),
        cmocka_unit_test(list_restarts_are_bounded_and_callbacks_can_stop),
        cmocka_unit_test(watch_delivers_events_in_order),
        cmocka_unit_test(watch_reports_410_distinctly),
        cmocka_unit_test(watch_stops_when_asked_and_maps_errors),
        cmocka_unit_test(discovery_reads_versions_and_resources),
        cmocka_unit_test(discovery_picks_the_cronjob_version),
        cmocka_unit_test(parallelism_is_bounded),
        cmocka_unit_test(rate_limit_throttles_after_the_burst),
        cmocka_unit_test(api_priority_and_fairness_lifts_the_auto_limit),
        cmocka_unit_test(options_are_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
