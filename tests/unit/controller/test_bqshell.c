/* The backup queue's I/O shell (controller/backupqueue_apply.c) against scripted API answers
 * through the kube client's fault hook: the writes of a decision in order (releases, then
 * positions, then new Backups) with their Events; the read-your-writes fence (no decision until
 * the cache shows this process's own writes); a 409 stops the writes and the namespace is decided
 * again from a fresh snapshot; a Waiting Event once per blocker. Every request is compared. */
#include "shell_test.h"

#include "controller/backupqueue_apply.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define B(name, rv, phase, pos, ns)                                                                \
    "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":\"" name          \
    "\",\"namespace\":\"velero\",\"uid\":\"u-" name "\",\"resourceVersion\":\"" rv                 \
    "\",\"creationTimestamp\":\"2025-12-31T23:59:00Z\"},\"spec\":{\"includedNamespaces\":[\"" ns   \
    "\"]},\"status\":{\"phase\":\"" phase "\",\"queuePosition\":" #pos "}}"
#define NSLIST                                                                                     \
    LIST("{\"metadata\":{\"name\":\"ns1\",\"resourceVersion\":\"1\"}},"                            \
         "{\"metadata\":{\"name\":\"ns2\",\"resourceVersion\":\"2\"}}")
#define BACKUPS "GET /apis/velero.io/v1/namespaces/velero/backups"
#define PATCH   "PATCH /apis/velero.io/v1/namespaces/velero/backups/"
#define EVENT   "POST /api/v1/namespaces/velero/events 201 {}"

typedef struct fixture {
    shell_fixture sh;
    cw_backupqueue_config cfg;
} fixture;

static void start(fixture *f, const char *const *answers, size_t n, int64_t concurrency)
{
    f->cfg = (cw_backupqueue_config){
        .head.home = "velero", .decide = {.concurrency = concurrency}, .resync = 60};
    shell_start(&f->sh, &cw_backupqueue_reconciler, &f->cfg, answers, n);
}

static void reconcile(fixture *f, const char *outcome, int64_t requeue_in_ms, size_t requests,
                      const char *label)
{
    shell_reconcile(&f->sh, "velero", outcome, requeue_in_ms, 0, requests, label);
}

/* The watch brings a Backup back at a new version. */
static void cached(fixture *f, const char *obj)
{
    shell_cached(&f->sh, CW_BACKUPQUEUE_BACKUPS, obj);
}

static void finish(fixture *f)
{
    shell_finish(&f->sh);
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
