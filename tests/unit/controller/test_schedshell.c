/* The schedule reconciler in its shell (controller/schedule_apply.c) against scripted API answers:
 * a due run's Backup created and the Schedule patched, in that order; a 409 on the create that is
 * this run's own Backup (recorded) or a stranger's (retried with backoff); a 409 and a 404 on the
 * patch; a 403 (a Warning Event once, retried); a 500; a Schedule gone from the cache; the writes
 * and run counters. Every request is compared. */
#include "shell_test.h"

#include "controller/schedule_apply.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* Due at 2025-12-31T23:00:00Z: the run after lastBackup; NOW_MS is 2026-01-01T00:00:00Z. */
#define SCHED                                                                                      \
    "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{\"name\":\"nightly\","   \
    "\"namespace\":\"velero\",\"uid\":\"u-1\",\"resourceVersion\":\"7\",\"creationTimestamp\":"    \
    "\"2025-12-01T00:00:00Z\"},\"spec\":{\"schedule\":\"0 * * * *\",\"template\":{}},"             \
    "\"status\":{\"phase\":\"Enabled\",\"lastBackup\":\"2025-12-31T22:00:00Z\"}}"
#define RUN     "nightly-20251231230000"
#define BACKUPS "/apis/velero.io/v1/namespaces/velero/backups"
#define CREATE  "POST " BACKUPS "?fieldManager=cronwarden "
#define PATCH                                                                                      \
    "PATCH /apis/velero.io/v1/namespaces/velero/schedules/nightly?fieldManager=cronwarden "
#define EVENT "POST /api/v1/namespaces/velero/events 201 {}"
#define OWN(label)                                                                                 \
    "200 {\"metadata\":{\"name\":\"" RUN "\",\"labels\":{\"velero.io/schedule-name\":\"" label     \
    "\"}}}"
#define WRITES(verb, result)                                                                       \
    "cronwarden_controller_schedule_writes_total{verb=\"" verb "\",result=\"" result "\"}"
#define NEXT_RUN_MS 3600001 /* 01:00:00Z, and a millisecond: due only after it */

static const char *const answers[] = {
    "GET /apis/velero.io/v1/namespaces/velero/schedules 200 " LIST(SCHED),
    "GET " BACKUPS " 200 " LIST(),
    CREATE "201 {}",                            /* submitted: the run's Backup, */
    PATCH "200 {}",                             /* then lastBackup */
    CREATE "409 " STATUS(409, "AlreadyExists"), /* an earlier attempt made it: */
    "GET " BACKUPS "/" RUN " " OWN("nightly"),  /* ours: recorded */
    PATCH "200 {}",
    CREATE "409 " STATUS(409, "AlreadyExists"), /* a stranger holds the name */
    "GET " BACKUPS "/" RUN " " OWN("other"),
    CREATE "201 {}",
    PATCH "409 " STATUS(409, "Conflict"), /* the Schedule moved on */
    CREATE "201 {}",
    PATCH "404 " STATUS(404, "NotFound"), /* the Schedule was deleted */
    CREATE "403 " STATUS(403, "Forbidden"),
    EVENT, /* WriteForbidden on the Schedule */
    CREATE "403 " STATUS(403, "Forbidden"),
    CREATE "500 " STATUS(500, "InternalError"),
};

static void every_answer_of_the_api(void **state)
{
    (void)state;
    shell_fixture f;
    cw_schedule_config cfg = {0};
    cw_error err;
    cw_error_init(&err);
    static const cw_ctrl_flags flags = {.namespace = "velero"}; /* as parsed */
    assert_int_equal(cw_schedule_reconciler.config_init(&cfg, &flags, &err), CW_OK);
    shell_start(&f, &cw_schedule_reconciler, &cfg, answers, N(answers));
    shell_reconcile(&f, "velero/nightly", "submitted", NEXT_RUN_MS, 0, 2,
                    "due: Backup, then status");
    shell_reconcile(&f, "velero/nightly", "recorded", NEXT_RUN_MS, 0, 3, "409, our own Backup");
    shell_reconcile(&f, "velero/nightly", "error", -1, 1, 2, "409, a stranger's: backoff");
    shell_reconcile(&f, "velero/nightly", "conflict", 1000, 0, 2, "409 on the patch");
    shell_reconcile(&f, "velero/nightly", "deleted", -1, 0, 2, "404 on the patch");
    shell_reconcile(&f, "velero/nightly", "error", -1, 1, 2, "403: retried, a Warning Event");
    shell_reconcile(&f, "velero/nightly", "error", -1, 1, 1, "403 again: no second Event");
    shell_reconcile(&f, "velero/nightly", "error", -1, 1, 1, "500: retried");
    shell_reconcile(&f, "velero/gone", "deleted", -1, 0, 0, "not in the cache");
    static const shell_series want[] = {
        {WRITES("create_backup", "ok"), 3},
        {WRITES("create_backup", "conflict"), 2},
        {WRITES("create_backup", "error"), 3},
        {WRITES("patch_schedule", "ok"), 2},
        {WRITES("patch_schedule", "conflict"), 1},
        {WRITES("patch_schedule", "not_found"), 1},
        {"cronwarden_controller_schedule_backups_total{result=\"created\"}", 3},
        {"cronwarden_controller_schedule_backups_total{result=\"exists\"}", 1},
        {"cronwarden_controller_forbidden_writes_total{controller="
         "\"schedule\",verb=\"create_backup\"}",
         2},
    };
    shell_expect(&f, want, N(want));
    shell_finish(&f);
    cw_ctrl_policy_config_fini(&cfg);
}

SHELL_TEST_MAIN(cmocka_unit_test(every_answer_of_the_api))
