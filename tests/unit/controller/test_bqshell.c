/* The backup queue's I/O shell (controller/backupqueue_apply.c) against scripted API answers
 * through the kube client's fault hook: the writes of a decision in order (releases, then
 * positions, then new Backups) with their Events; the read-your-writes fence (no decision until
 * the cache shows this process's own writes); a 409 stops the writes and the namespace is decided
 * again from a fresh snapshot; a Waiting Event once per blocker. Every request is compared. */
#include "ctrl_test.h"

#include "controller/backupqueue_apply.h"
#include "kube/client.h"
#include "lib/log.h"
#include "tests/unit/kube/fake_client.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define NOW_MS 1767225600000LL /* 2026-01-01T00:00:00Z */

typedef struct script {
    const char *const *answers; /* "<METHOD> <path prefix> <status> <body>" */
    size_t n, i;
    char failure[2000];
} script;

static int scripted(void *ud, const char *method, const char *path, int attempt, cw_kube_fault *f)
{
    (void)attempt;
    script *s = ud;
    static char body[4096];
    char req[700], want[700];
    long status = 500;
    snprintf(req, sizeof(req), "%s %s", method, path);
    f->status = 500;
    if (s->i >= s->n) {
        if (!s->failure[0])
            snprintf(s->failure, sizeof(s->failure), "unexpected request %s", req);
        return 1;
    }
    /* "<METHOD> <path> <status> <body>": the request is what comes before the status. */
    const char *a = s->answers[s->i++];
    const char *sp = strchr(strchr(a, ' ') + 1, ' ');
    snprintf(want, sizeof(want), "%.*s", (int)(sp - a), a);
    status = strtol(sp + 1, NULL, 10);
    snprintf(body, sizeof(body), "%s", strchr(sp + 1, ' ') + 1);
    if (strncmp(req, want, strlen(want)) != 0 && !s->failure[0])
        snprintf(s->failure, sizeof(s->failure), "request %zu: %s\n want: %s...", s->i, req, want);
    f->status = status;
    f->body = body;
    return 1;
}

static int64_t fixed_clock(void *ud)
{
    (void)ud;
    return NOW_MS;
}

#define B(name, rv, phase, pos, ns)                                                                \
    "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":\"" name          \
    "\",\"namespace\":\"velero\",\"uid\":\"u-" name "\",\"resourceVersion\":\"" rv                 \
    "\",\"creationTimestamp\":\"2025-12-31T23:59:00Z\"},\"spec\":{\"includedNamespaces\":[\"" ns   \
    "\"]},\"status\":{\"phase\":\"" phase "\",\"queuePosition\":" #pos "}}"
#define LIST(...)                                                                                  \
    "{\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"100\"},\"items\":[" __VA_ARGS__ "]}"
#define NSLIST                                                                                     \
    LIST("{\"metadata\":{\"name\":\"ns1\",\"resourceVersion\":\"1\"}},"                            \
         "{\"metadata\":{\"name\":\"ns2\",\"resourceVersion\":\"2\"}}")
#define BACKUPS "GET /apis/velero.io/v1/namespaces/velero/backups"
#define PATCH   "PATCH /apis/velero.io/v1/namespaces/velero/backups/"
#define EVENT   "POST /api/v1/namespaces/velero/events 201 {}"

typedef struct fixture {
    script s;
    cw_kube_client *kube;
    cw_queue q;
    cw_bqctl bq;
} fixture;

static void start(fixture *f, const char *const *answers, size_t n, int64_t concurrency)
{
    cw_error err;
    memset(f, 0, sizeof(*f));
    f->s.answers = answers;
    f->s.n = n;
    cw_kube_client_opts o;
    cw_kube_client_opts_init(&o);
    o.fault = scripted;
    o.fault_ud = &f->s;
    o.max_attempts = 1;
    f->kube = fake_kube_client(&o, NULL, NULL);
    assert_int_equal(cw_queue_init(&f->q, NULL, &err), CW_OK);
    cw_bqctl_opts bo = {
        .kube = f->kube,
        .namespace = "velero",
        .queue = &f->q,
        .decide = {.concurrency = concurrency},
        .clock = fixed_clock,
    };
    assert_int_equal(cw_bqctl_init(&f->bq, &bo, &err), CW_OK);
    assert_int_equal(cw_informer_relist(&f->bq.backups, &err), CW_OK);
    assert_int_equal(cw_informer_relist(&f->bq.namespaces, &err), CW_OK);
}

static void reconcile(fixture *f, const char *outcome, int64_t requeue_in_ms, size_t requests,
                      const char *label)
{
    cw_ctrl_result res = {0};
    cw_error err;
    cw_error_init(&err);
    size_t before = f->s.i;
    if (cw_bqctl_reconcile(&f->bq, "velero", &res, &err) != CW_OK)
        fail_msg("%s: %s", label, err.message);
    if (f->s.failure[0])
        fail_msg("%s: %s", label, f->s.failure);
    if (strcmp(res.outcome ? res.outcome : "(none)", outcome) ||
        res.requeue_at_ms != NOW_MS + requeue_in_ms || f->s.i - before != requests)
        fail_msg("%s: outcome %s, requeue in %lld ms, %zu requests; want %s, %lld, %zu", label,
                 res.outcome, (long long)(res.requeue_at_ms - NOW_MS), f->s.i - before, outcome,
                 (long long)requeue_in_ms, requests);
}

/* The watch brings a Backup back at a new version. */
static void cached(fixture *f, const char *obj)
{
    json_object *o = json_tokener_parse(obj);
    char key[300];
    snprintf(key, sizeof(key), "velero/%s", cw_json_path_string(o, "metadata.name"));
    assert_int_equal(cw_ctrl_store_put(cw_informer_store(&f->bq.backups), key, o, NULL), CW_OK);
}

static void finish(fixture *f)
{
    assert_int_equal(f->s.i, f->s.n);
    cw_bqctl_free(&f->bq);
    cw_queue_free(&f->q);
    cw_kube_client_free(f->kube);
}

static const char *const release_answers[] = {
    BACKUPS
    " 200 " LIST(B("r", "5", "InProgress", 0, "ns1") "," B("a", "6", "Queued", 1, "ns1") "," B(
        "b", "7", "Queued", 2, "ns2") "," B("c", "8", "", 0, "ns3")),
    "GET /api/v1/namespaces 200 " NSLIST,
    PATCH "b 200 {}", /* the release first, */
    EVENT,            /* ReadyToStart */
    PATCH "c 200 {}", /* then the new Backup, */
    EVENT,            /* Queued */
    EVENT,            /* and a, held by r: Waiting */
};

static void writes_fence_and_waiting_once(void **state)
{
    (void)state;
    fixture f;
    start(&f, release_answers, N(release_answers), 2);
    reconcile(&f, "dequeued", 60000, 5, "first decision");
    reconcile(&f, "catching-up", 50, 0, "the cache has not seen b and c move: no decision");
    cached(&f, B("b", "17", "ReadyToStart", 0, "ns2"));
    reconcile(&f, "catching-up", 50, 0, "nor c");
    cached(&f, B("c", "18", "Queued", 2, "ns3"));
    reconcile(&f, "idle", 60000, 0, "caught up: nothing to write, a's Waiting not posted twice");
    finish(&f);
}

static const char *const conflict_answers[] = {
    BACKUPS " 200 " LIST(B("r", "5", "InProgress", 0, "ns1") "," B(
        "a", "6", "Queued", 2, "ns1") "," B("b", "7", "Queued", 3, "ns2")),
    "GET /api/v1/namespaces 200 " NSLIST,
    PATCH "a 409 {\"kind\":\"Status\",\"code\":409,\"reason\":\"Conflict\"}",
    /* decided again from the snapshot that has a's new version: only b moves */
    PATCH "b 200 {}", EVENT, /* a waits for r */
};

static void conflict_decides_again_from_a_fresh_snapshot(void **state)
{
    (void)state;
    fixture f;
    start(&f, conflict_answers, N(conflict_answers), 1);
    reconcile(&f, "conflict", 100, 1, "a moved on: the rest is not written");
    reconcile(&f, "catching-up", 50, 0, "the cache still has a's old version");
    cached(&f, B("a", "9", "Queued", 1, "ns1")); /* someone closed the gap */
    reconcile(&f, "renumbered", 60000, 2, "fresh snapshot");
    finish(&f);
}

int main(void)
{
    cw_log_configure(CW_LOG_ERROR, CW_LOG_TEXT, stderr); /* syncs and writes log on purpose */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_fence_and_waiting_once),
        cmocka_unit_test(conflict_decides_again_from_a_fresh_snapshot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
