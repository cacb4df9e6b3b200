/* The informer (controller/core/informer.c) against scripted API answers through the kube client's
 * fault hook: LIST fills the cache, WATCH events update it, a 410 leads to a relist that deletes
 * what went away, a continue token that expires mid-LIST restarts it, and the run loop reconnects
 * after a dropped watch. Every request and every delivered change is compared exactly. */
#include "ctrl_test.h"

#include <pthread.h>
#include <unistd.h>

#include "controller/core/informer.h"
#include "kube/client.h"
#include "lib/log.h"
#include "tests/unit/kube/fake_client.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

typedef struct answer {
    const char *request; /* "GET <path prefix>" the request must start with */
    long status;         /* 0: connection reset */
    const char *body;
    int minute_later; /* run-loop tests: a minute has passed since the last "not served" line */
} answer;

typedef struct script {
    const answer *answers;
    size_t n, i;
    cw_informer *inf; /* stopped when the script runs out (run-loop tests) */
    char failure[2000];
} script;

static int scripted(void *ud, const char *method, const char *path, int attempt, cw_kube_fault *f)
{
    (void)attempt;
    script *s = ud;
    char req[700];
    snprintf(req, sizeof(req), "%s %s", method, path);
    if (s->i >= s->n) {
        if (s->inf) { /* end of a run-loop script: stop, answer an empty watch */
            atomic_store(&s->inf->stop, 1);
            f->status = 200;
            f->body = "";
            return 1;
        }
        snprintf(s->failure, sizeof(s->failure), "unexpected request %s", req);
        f->status = 500;
        return 1;
    }
    const answer *a = &s->answers[s->i++];
    if (a->minute_later && s->inf && s->inf->missing_logged > 0)
        s->inf->missing_logged -= 61;
    if (strncmp(req, a->request, strlen(a->request)) != 0 && !s->failure[0])
        snprintf(s->failure, sizeof(s->failure), "request %zu: %s\n want: %s...", s->i, req,
                 a->request);
    f->status = a->status;
    f->body = a->body;
    return 1;
}

static cw_kube_client *new_client(script *s)
{
    cw_kube_client_opts o;
    cw_kube_client_opts_init(&o);
    o.fault = scripted;
    o.fault_ud = s;
    o.max_attempts = 1; /* failures reach the informer at once */
    return fake_kube_client(&o, NULL, NULL);
}

/* Changes as the handler saw them: "<op> <key> <rv of the new (or removed) object>". */
static cw_strlist seen;

static void record(void *ud, cw_informer_op op, const char *key, json_object *old, json_object *obj)
{
    (void)ud;
    static const char *const ops[] = {"add", "update", "delete"};
    const char *rv = cw_json_path_string(obj ? obj : old, "metadata.resourceVersion");
    cw_strlist_addf(&seen, "%s %s %s%s", ops[op], key, rv ? rv : "-",
                    op == CW_INFORMER_UPDATE && old ? " (had old)" : "");
}

static void expect_seen(const char *want, const char *label)
{
    char *got = cw_strlist_join(&seen, "\n");
    if (strcmp(got, want) != 0)
        fail_msg("%s: changes\n got: %s\nwant: %s", label, got, want);
    free(got);
    cw_strlist_clear(&seen);
}

static void expect_keys(cw_informer *inf, const char *want, const char *label)
{
    cw_strlist keys;
    cw_strlist_init(&keys);
    assert_int_equal(cw_ctrl_store_keys(cw_informer_store(inf), &keys), CW_OK);
    char *got = cw_strlist_join(&keys, ",");
    if (strcmp(got, want) != 0)
        fail_msg("%s: cache\n got: %s\nwant: %s", label, got, want);
    free(got);
    cw_strlist_free(&keys);
}

#define S(name, rv)                                                                                \
    "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{\"name\":\"" name        \
    "\",\"namespace\":\"velero\",\"resourceVersion\":\"" rv "\"}}"
#define LIST(rv, cont, ...)                                                                        \
    "{\"kind\":\"ScheduleList\",\"metadata\":{\"resourceVersion\":\"" rv "\",\"continue\":\"" cont \
    "\"},\"items\":[" __VA_ARGS__ "]}"
#define EV(type, obj) "{\"type\":\"" type "\",\"object\":" obj "}\n"
#define GONE                                                                                       \
    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":"        \
    "\"Failure\",\"message\":\"too old resource version: 14 (40)\",\"reason\":\"Expired\","        \
    "\"code\":410}}\n"
#define EXPIRED_LIST                                                                               \
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"The "         \
    "provided continue parameter is too old\",\"reason\":\"Expired\",\"code\":410}"
#define BASE "/apis/velero.io/v1/schedules"

static const answer steps_answers[] = {
    {"GET " BASE "?limit=100", 200, LIST("10", "", S("a", "1") "," S("b", "2"))},
    {"GET " BASE "?watch=1&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=", 200,
     EV("MODIFIED", S("a", "11")) EV("ADDED", S("c", "12")) EV("BOOKMARK", S("", "13"))
         EV("DELETED", S("b", "14"))},
    {"GET " BASE "?watch=1&resourceVersion=14&allowWatchBookmarks=true", 200, GONE},
    {"GET " BASE "?limit=100", 200, LIST("40", "", S("a", "11") "," S("d", "21"))},
};

static void list_watch_gone_relist(void **state)
{
    (void)state;
    script s = {.answers = steps_answers, .n = N(steps_answers)};
    cw_kube_client *kube = new_client(&s);
    cw_informer inf;
    cw_error err;
    cw_strlist_init(&seen);
    cw_informer_config cfg = {
        .name = "schedules",
        .kube = kube,
        .resource = {"velero.io", "v1", "schedules", NULL},
        .sink.handler = record,
    };
    assert_int_equal(cw_informer_init(&inf, &cfg, &err), CW_OK);
    assert_false(cw_informer_synced(&inf));

    assert_int_equal(cw_informer_relist(&inf, &err), CW_OK);
    assert_true(cw_informer_synced(&inf));
    expect_seen("add velero/a 1\nadd velero/b 2", "first LIST");
    assert_string_equal(inf.rv, "10");

    assert_int_equal(cw_informer_watch(&inf, &err), CW_OK); /* the server ended it */
    expect_seen("update velero/a 11 (had old)\nadd velero/c 12\ndelete velero/b 2", "watch events");
    assert_string_equal(inf.rv, "14"); /* the bookmark moved it to 13, the deletion to 14 */
    expect_keys(&inf, "velero/a,velero/c", "after the watch");

    assert_int_equal(cw_informer_watch(&inf, &err), CW_EHTTP);
    assert_int_equal(err.http_status, 410);
    expect_seen("", "an ERROR event changes nothing");

    assert_int_equal(cw_informer_relist(&inf, &err), CW_OK);
    expect_seen("add velero/d 21\ndelete velero/c 12", "relist: unchanged a stays quiet");
    expect_keys(&inf, "velero/a,velero/d", "after the relist");
    assert_string_equal(inf.rv, "40");

    json_object *copy = NULL;
    assert_int_equal(cw_ctrl_store_get(cw_informer_store(&inf), "velero/a", &copy), CW_OK);
    assert_string_equal(cw_json_path_string(copy, "metadata.resourceVersion"), "11");
    json_object_put(copy);
    assert_int_equal(cw_ctrl_store_get(cw_informer_store(&inf), "velero/c", &copy), CW_ENOTFOUND);
    if (s.failure[0])
        fail_msg("%s", s.failure);
    assert_int_equal(s.i, s.n);
    cw_informer_free(&inf);
    cw_kube_client_free(kube);
    cw_strlist_free(&seen);
}

/* Readers of one informer (what shared informers are made of): two with the same projection share
 * one cache, a store-less one keeps nothing and sees the objects whole; the LIST and the watch of
 * steps_answers reach each, caches first. ud: the reader's name, before each change it saw. */
static void record_as(void *ud, cw_informer_op op, const char *key, json_object *old,
                      json_object *obj)
{
    static const char *const ops[] = {"add", "update", "delete"};
    json_object *o = obj ? obj : old;
    const char *rv = cw_json_path_string(o, "metadata.resourceVersion");
    cw_strlist_addf(&seen, "%s: %s %s %s%s", (const char *)ud, ops[op], key, rv ? rv : "-",
                    cw_json_member(o, "kind") ? " (whole)" : "");
}

static json_object *identity_only(void *ud, json_object *obj)
{
    static const char *const keep[] = {"metadata.name", "metadata.namespace",
                                       "metadata.resourceVersion", NULL};
    (void)ud;
    return cw_json_keep(obj, keep);
}

static void readers_share_one_informer(void **state)
{
    (void)state;
    script s = {.answers = steps_answers, .n = N(steps_answers)};
    cw_kube_client *kube = new_client(&s);
    cw_informer inf;
    cw_error err;
    size_t id[3];
    cw_strlist_init(&seen);
    cw_informer_config cfg = {.kube = kube, .resource = {"velero.io", "v1", "schedules", NULL}};
    const cw_informer_sink readers[] = {
        {.transform = identity_only, .handler = record_as, .handler_ud = "one"},
        {.storeless = 1, .handler = record_as, .handler_ud = "model"},
        {.transform = identity_only, .handler = record_as, .handler_ud = "two"},
    };
    assert_int_equal(cw_informer_init(&inf, &cfg, &err), CW_OK);
    for (size_t i = 0; i < N(readers); i++)
        assert_int_equal(cw_informer_add_sink(&inf, &readers[i], &id[i], &err), CW_OK);
    assert_ptr_equal(cw_informer_sink_store(&inf, id[0]), cw_informer_sink_store(&inf, id[2]));
    assert_null(cw_informer_sink_store(&inf, id[1]));
    assert_int_equal(cw_informer_relist(&inf, &err), CW_OK);
    expect_seen("one: add velero/a 1\nmodel: add velero/a 1 (whole)\ntwo: add velero/a 1\n"
                "one: add velero/b 2\nmodel: add velero/b 2 (whole)\ntwo: add velero/b 2",
                "first LIST");
    assert_int_equal(cw_informer_watch(&inf, &err), CW_OK);
    expect_seen(
        "one: update velero/a 11\nmodel: update velero/a 11 (whole)\ntwo: update velero/a 11\n"
        "one: add velero/c 12\nmodel: add velero/c 12 (whole)\ntwo: add velero/c 12\n"
        "one: delete velero/b 2\nmodel: delete velero/b -\ntwo: delete velero/b 2",
        "watch events");
    assert_int_equal(cw_ctrl_store_len(cw_informer_sink_store(&inf, id[0])), 2);
    assert_int_equal(cw_informer_len(&inf), 2);
    cw_informer_free(&inf);
    cw_kube_client_free(kube);
    cw_strlist_free(&seen);
}

static const answer paged_answers[] = {
    {"GET /apis/velero.io/v1/namespaces/velero/schedules?limit=2&labelSelector=team", 200,
     LIST("30", "t1", S("a", "1") "," S("x", "3"))},
    {"GET /apis/velero.io/v1/namespaces/velero/schedules?limit=2&labelSelector=team&continue=t1",
     410, EXPIRED_LIST},
    {"GET /apis/velero.io/v1/namespaces/velero/schedules?limit=2&labelSelector=team", 200,
     LIST("31", "t2", S("a", "1") "," S("d", "4"))},
    {"GET /apis/velero.io/v1/namespaces/velero/schedules?limit=2&labelSelector=team&continue=t2",
     200, LIST("31", "", S("e", "5"))},
};

static void paged_list_restarts_when_its_token_expires(void **state)
{
    (void)state;
    script s = {.answers = paged_answers, .n = N(paged_answers)};
    cw_kube_client *kube = new_client(&s);
    cw_informer inf;
    cw_error err;
    cw_strlist_init(&seen);
    cw_informer_config cfg = {
        .kube = kube,
        .resource = {"velero.io", "v1", "schedules", "velero"},
        .label_selector = "team",
        .page_size = 2,
        .sink.handler = record,
    };
    assert_int_equal(cw_informer_init(&inf, &cfg, &err), CW_OK);
    assert_int_equal(cw_informer_relist(&inf, &err), CW_OK);
    /* x came with the first attempt's page and is gone from the restarted LIST. */
    expect_seen("add velero/a 1\nadd velero/x 3\nadd velero/d 4\nadd velero/e 5\ndelete velero/x 3",
                "restarted LIST");
    expect_keys(&inf, "velero/a,velero/d,velero/e", "after the LIST");
    assert_string_equal(inf.rv, "31");
    if (s.failure[0])
        fail_msg("%s", s.failure);
    cw_informer_free(&inf);
    cw_kube_client_free(kube);
    cw_strlist_free(&seen);
}

static const answer loop_answers[] = {
    {"GET " BASE "?limit=100", 503, "{\"kind\":\"Status\",\"code\":503}"}, /* backoff, LIST again */
    {"GET " BASE "?limit=100", 200, LIST("10", "", S("a", "1"))},
    {"GET " BASE "?watch=1&resourceVersion=10&", 0, NULL}, /* reset: backoff, resume at 10 */
    {"GET " BASE "?watch=1&resourceVersion=10&", 200, EV("ADDED", S("b", "12"))},
    {"GET " BASE "?watch=1&resourceVersion=12&", 200, GONE},
    {"GET " BASE "?limit=100", 200, LIST("50", "", S("b", "12"))},
    {"GET " BASE "?watch=1&resourceVersion=50&", 200, EV("MODIFIED", S("b", "51"))},
};

/* The run loop over the script's answers until they run out, with a default handler feeding q and
 * the informer's metrics in im; logging off (retries and errors log on purpose). */
typedef struct loop_fixture {
    script s;
    cw_kube_client *kube;
    cw_informer inf;
    cw_queue q;
    cw_metrics m;
    cw_informer_metrics im;
} loop_fixture;

/* log: where the loop logs (at warning and above); NULL: nowhere. */
static void loop_run_log(loop_fixture *f, const answer *answers, size_t n, FILE *log)
{
    cw_error err;
    memset(f, 0, sizeof(*f));
    f->s.answers = answers;
    f->s.n = n;
    f->kube = new_client(&f->s);
    cw_metrics_init(&f->m);
    assert_int_equal(cw_informer_metrics_register(&f->m, &f->im, &err), CW_OK);
    assert_int_equal(cw_queue_init(&f->q, NULL, &err), CW_OK);
    cw_informer_config cfg = {
        .name = "schedules",
        .kube = f->kube,
        .resource = {"velero.io", "v1", "schedules", NULL},
        .sink.queue = &f->q,
        .backoff_base = 0.01,
        .backoff_max = 0.02,
        .watch_timeout = 60,
        .metrics = &f->im,
    };
    assert_int_equal(cw_informer_init(&f->inf, &cfg, &err), CW_OK);
    f->s.inf = &f->inf;
    cw_log_configure(log ? CW_LOG_WARN : CW_LOG_OFF, CW_LOG_TEXT, log ? log : stderr);
    cw_informer_run(&f->inf); /* returns when the script runs out */
    cw_log_configure(CW_LOG_INFO, CW_LOG_TEXT, stderr);
    if (f->s.failure[0])
        fail_msg("%s", f->s.failure);
    assert_int_equal(f->s.i, f->s.n);
}

static void loop_run(loop_fixture *f, const answer *answers, size_t n)
{
    loop_run_log(f, answers, n, NULL);
}

static void loop_free(loop_fixture *f)
{
    cw_informer_free(&f->inf);
    cw_queue_free(&f->q);
    cw_kube_client_free(f->kube);
    cw_metrics_free(&f->m);
}

/* The run loop, with a default handler feeding a queue. */
static void run_loop_reconnects(void **state)
{
    (void)state;
    loop_fixture f;
    loop_run(&f, loop_answers, N(loop_answers));
    expect_keys(&f.inf, "velero/b", "after the loop");
    /* Queued keys: a (list), b (watch); a's deletion by the relist queues a again (deduped). */
    char *key = NULL;
    assert_int_equal(cw_queue_get(&f.q, 0, &key), CW_OK);
    assert_string_equal(key, "velero/a");
    free(key);
    assert_int_equal(cw_queue_get(&f.q, 0, &key), CW_OK);
    assert_string_equal(key, "velero/b");
    free(key);
    assert_int_equal(cw_queue_get(&f.q, 0, &key), CW_QUEUE_EMPTY);
    loop_free(&f);
}

static const answer unserved_answers[] = {
    {"GET " BASE "?limit=100", 200, LIST("10", "", S("a", "1"))},
    {"GET " BASE "?watch=1&resourceVersion=10&", 404, "404 page not found"}, /* CRD deleted */
    {"GET " BASE "?limit=100", 404, "404 page not found"},        /* not served: said, LIST again */
    {"GET " BASE "?limit=100", 200, LIST("20", "", S("a", "1"))}, /* served again */
    {"GET " BASE "?watch=1&resourceVersion=20&", 200, EV("ADDED", S("b", "21"))},
};

/* A watch answered 404 (the resource's CRD deleted under the informer) lists again, so that the
 * LIST's 404 marks the resource missing (/readyz names it) instead of retrying the watch with a
 * warning each time; once it is served again, LIST and WATCH go on. */
static void a_resource_gone_while_watched_is_listed(void **state)
{
    (void)state;
    loop_fixture f;
    loop_run(&f, unserved_answers, N(unserved_answers));
    expect_keys(&f.inf, "velero/a,velero/b", "served again");
    assert_int_equal(cw_informer_missing(&f.inf), 0);
    /* the series of one informer: resource, (reason,) group, version, namespace, selectors */
    const char *err_lists[] = {"schedules", "error", "velero.io", "v1", "", "", ""},
               *res[] = {"schedules", "velero.io", "v1", "", "", ""};
    assert_true(cw_metrics_value(f.im.lists, err_lists) == 2);
    assert_true(cw_metrics_value(f.im.watch_errors, res) == 1);
    loop_free(&f);
}

#define NOT_SERVED "GET " BASE "?limit=100", 404, "404 page not found"
static const answer missing_answers[] = {
    {NOT_SERVED},    /* said: an error naming the resource */
    {NOT_SERVED},    /* retried quietly */
    {NOT_SERVED},    /* quietly */
    {NOT_SERVED, 1}, /* a minute later: said again */
    {NOT_SERVED},    /* quietly */
    {"GET " BASE "?limit=100", 200, LIST("10", "", S("a", "1"))},
};

/* A resource the server does not serve (its CRD not installed): one error line a minute naming
 * it, not a warning per retry; /readyz's informer_missing until it is served. */
static void a_missing_resource_is_said_once_a_minute(void **state)
{
    (void)state;
    loop_fixture f;
    char *logged = NULL;
    size_t len = 0;
    FILE *log = open_memstream(&logged, &len);
    loop_run_log(&f, missing_answers, N(missing_answers), log);
    fclose(log);
    static const char said[] =
        "level=error msg=\"the API server does not serve a resource this reconciler needs; "
        "waiting for it (install its CRD, or leave the reconciler out of --controllers)\" "
        "informer=schedules resource=schedules.velero.io/v1 ";
    size_t errors = 0, warnings = 0;
    for (const char *p = logged; (p = strstr(p, "level=")); p++) {
        errors += !strncmp(p, said, sizeof(said) - 1);
        warnings += !strncmp(p, "level=warn", 10);
    }
    if (errors != 2 || warnings != 0)
        fail_msg("want 2 error lines and no warning, got %zu and %zu:\n%s", errors, warnings,
                 logged);
    expect_keys(&f.inf, "velero/a", "served at last");
    assert_int_equal(cw_informer_missing(&f.inf), 0);
    const char *err_lists[] = {"schedules", "error", "velero.io", "v1", "", "", ""};
    assert_true(cw_metrics_value(f.im.lists, err_lists) == 5);
    free(logged);
    loop_free(&f);
}

/* The index: Backups by "namespace/schedule label", deep copies sorted by key. */
static int by_label(void *ud, json_object *obj, char *out, size_t outlen)
{
    (void)ud;
    const char *l = cw_json_path_string(obj, "metadata.labels.s");
    if (!l)
        return 0;
    snprintf(out, outlen, "%s/%s", cw_json_path_string(obj, "metadata.namespace"), l);
    return 1;
}

static void store_index(void **state)
{
    (void)state;
    cw_ctrl_store st;
    cw_error err;
    json_object *arr = NULL;
    assert_int_equal(cw_ctrl_store_init(&st, by_label, NULL, &err), CW_OK);
    assert_int_equal(
        cw_ctrl_store_put(&st, "v/b2",
                          tjson("{'metadata':{'name':'b2','namespace':'v','labels':{'s':'x'}}}"),
                          NULL),
        CW_OK);
    assert_int_equal(
        cw_ctrl_store_put(&st, "v/b1",
                          tjson("{'metadata':{'name':'b1','namespace':'v','labels':{'s':'x'}}}"),
                          NULL),
        CW_OK);
    assert_int_equal(
        cw_ctrl_store_put(&st, "v/c",
                          tjson("{'metadata':{'name':'c','namespace':'v','labels':{'s':'y'}}}"),
                          NULL),
        CW_OK);
    assert_int_equal(
        cw_ctrl_store_put(&st, "v/n", tjson("{'metadata':{'name':'n','namespace':'v'}}"), NULL),
        CW_OK);
    assert_int_equal(cw_ctrl_store_by_index(&st, "v/x", &arr), CW_OK);
    expect_json(arr,
                "[{'metadata':{'name':'b1','namespace':'v','labels':{'s':'x'}}},"
                "{'metadata':{'name':'b2','namespace':'v','labels':{'s':'x'}}}]",
                "index v/x", "store");
    json_object_put(arr);
    /* Relabelled: moves between index keys; deleted: leaves the index. */
    assert_int_equal(
        cw_ctrl_store_put(&st, "v/b2",
                          tjson("{'metadata':{'name':'b2','namespace':'v','labels':{'s':'y'}}}"),
                          NULL),
        CW_OK);
    assert_int_equal(cw_ctrl_store_delete(&st, "v/b1", NULL), CW_OK);
    assert_int_equal(cw_ctrl_store_delete(&st, "v/b1", NULL), CW_ENOTFOUND);
    assert_int_equal(cw_ctrl_store_by_index(&st, "v/x", &arr), CW_OK);
    expect_json(arr, "[]", "index v/x after", "store");
    json_object_put(arr);
    assert_int_equal(cw_ctrl_store_by_index(&st, "v/y", &arr), CW_OK);
    expect_json(arr,
                "[{'metadata':{'name':'b2','namespace':'v','labels':{'s':'y'}}},"
                "{'metadata':{'name':'c','namespace':'v','labels':{'s':'y'}}}]",
                "index v/y", "store");
    json_object_put(arr);
    assert_int_equal(cw_ctrl_store_len(&st), 3);
    cw_strlist names; /* index keys with objects: v/x went with its last one */
    cw_strlist_init(&names);
    assert_int_equal(cw_ctrl_store_index_names(&st, &names), CW_OK);
    assert_int_equal(names.len, 1);
    assert_string_equal(names.items[0], "v/y");
    cw_strlist_free(&names);
    cw_ctrl_store_free(&st);
}

int main(void)
{
    cw_log_configure(CW_LOG_ERROR, CW_LOG_TEXT, stderr); /* retries and syncs log on purpose */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(list_watch_gone_relist),
        cmocka_unit_test(readers_share_one_informer),
        cmocka_unit_test(a_resource_gone_while_watched_is_listed),
        cmocka_unit_test(a_missing_resource_is_said_once_a_minute),
        cmocka_unit_test(paged_list_restarts_when_its_token_expires),
        cmocka_unit_test(run_loop_reconnects),
        cmocka_unit_test(store_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
