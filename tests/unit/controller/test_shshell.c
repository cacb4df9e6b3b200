/* The schedule-health reconciler in its shell (controller/schedulehealth_apply.c) against scripted
 * API answers, at NOW_MS (2026-01-01T00:00:00Z): versions discovered, the eight caches listed
 * (Jobs and CronJobs as a LIST gives them: without apiVersion and kind); then
 *   - a RecurringJob whose last Job failed: its series, one Warning Event ScheduleRunFailed named
 *     after the run, not posted again on the next look, looked at again within the hour;
 *   - a RecurringJob whose CronJob is suspended over a fire time: missed_runs_total 1, its fire
 *     time as last_missed_timestamp_seconds, next run 0, one ScheduleMissedRun Event, looked at
 * again when the running fire time's grace ends;
 *   - a Velero Schedule whose Backup runs far past its usual duration: running_seconds above
 *     stuck_after_seconds, no Event;
 *   - the volumes: one unprotected, one stale, per namespace;
 *   - the RecurringJob deleted: its series gone;
 *   - a restarted controller: the same runs' Events answered 409 (posted before) and not again;
 *   - a cluster without Longhorn and Velero: ready, nothing to report, no LIST of them. */
#include "shell_test.h"

#include "controller/schedulehealth_apply.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define RECURRINGJOB_DAILY                                                                         \
    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"RecurringJob\",\"metadata\":{\"name"       \
    "\":\"daily\",\"namespace\":\"longhorn-system\",\"uid\":\"rj-daily\",\"resourceVersion\""      \
    ":\"3\",\"creationTimestamp\":\"2025-12-01T00:00:00Z\"},\"spec\":{\"name\":\"daily\",\""       \
    "task\":\"backup\",\"cron\":\"0 2 * * *\",\"groups\":[\"default\"],\"retain\":7,\"concu"       \
    "rrency\":1}}"

#define RECURRINGJOB_HOURLY                                                                        \
    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"RecurringJob\",\"metadata\":{\"name"       \
    "\":\"hourly\",\"namespace\":\"longhorn-system\",\"uid\":\"rj-hourly\",\"resourceVersio"       \
    "n\":\"4\",\"creationTimestamp\":\"2025-12-01T00:00:00Z\"},\"spec\":{\"name\":\"hourly\""      \
    ",\"task\":\"snapshot\",\"cron\":\"0 * * * *\",\"groups\":[],\"retain\":2,\"concurrency"       \
    "\":1}}"

#define CRONJOB_DAILY                                                                              \
    "{\"metadata\":{\"name\":\"daily\",\"namespace\":\"longhorn-system\",\"uid\":\"cj-daily"       \
    "\",\"resourceVersion\":\"5\",\"creationTimestamp\":\"2025-12-01T00:00:00Z\",\"labels\""       \
    ":{\"recurring-job.longhorn.io\":\"daily\"}},\"spec\":{\"schedule\":\"0 2 * * *\",\"con"       \
    "currencyPolicy\":\"Forbid\"},\"status\":{\"lastScheduleTime\":\"2025-12-31T02:00:00Z\""       \
    "}}"

#define CRONJOB_HOURLY                                                                             \
    "{\"metadata\":{\"name\":\"hourly\",\"namespace\":\"longhorn-system\",\"uid\":\"cj-hour"       \
    "ly\",\"resourceVersion\":\"6\",\"creationTimestamp\":\"2025-12-31T22:30:00Z\",\"labels"       \
    "\":{\"recurring-job.longhorn.io\":\"hourly\"}},\"spec\":{\"schedule\":\"0 * * * *\",\""       \
    "concurrencyPolicy\":\"Forbid\",\"suspend\":true}}"

#define JOB_FAILED                                                                                 \
    "{\"metadata\":{\"name\":\"daily-29452440\",\"namespace\":\"longhorn-system\",\"uid\":\""      \
    "j-1\",\"resourceVersion\":\"7\",\"creationTimestamp\":\"2025-12-31T02:00:00Z\",\"owner"       \
    "References\":[{\"apiVersion\":\"batch/v1\",\"kind\":\"CronJob\",\"name\":\"daily\",\"u"       \
    "id\":\"cj-daily\",\"controller\":true}]},\"status\":{\"startTime\":\"2025-12-31T02:00:"       \
    "01Z\",\"failed\":3,\"conditions\":[{\"type\":\"Failed\",\"status\":\"True\",\"reason\""       \
    ":\"BackoffLimitExceeded\",\"message\":\"Job has reached the specified backoff limit\","       \
    "\"lastTransitionTime\":\"2025-12-31T02:05:00Z\"}]}}"

#define VOLUME_PVC_A                                                                               \
    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{\"name\":\"p"       \
    "vc-a\",\"namespace\":\"longhorn-system\",\"uid\":\"v-a\",\"resourceVersion\":\"8\",\"c"       \
    "reationTimestamp\":\"2025-12-31T20:00:00Z\"},\"spec\":{}}"

#define VOLUME_PVC_B                                                                               \
    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{\"name\":\"p"       \
    "vc-b\",\"namespace\":\"longhorn-system\",\"uid\":\"v-b\",\"resourceVersion\":\"9\",\"c"       \
    "reationTimestamp\":\"2025-12-01T00:00:00Z\",\"labels\":{\"recurring-job.longhorn.io/ho"       \
    "urly\":\"enabled\"}},\"spec\":{}}"

#define VOLUME_PVC_C                                                                               \
    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{\"name\":\"p"       \
    "vc-c\",\"namespace\":\"longhorn-system\",\"uid\":\"v-c\",\"resourceVersion\":\"10\",\""       \
    "creationTimestamp\":\"2025-12-01T00:00:00Z\",\"labels\":{\"recurring-job.longhorn.io/d"       \
    "aily\":\"enabled\"}},\"spec\":{}}"

#define SCHEDULE_NIGHTLY                                                                           \
    "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{\"name\":\"nightl"       \
    "y\",\"namespace\":\"velero\",\"uid\":\"s-nightly\",\"resourceVersion\":\"11\",\"creati"       \
    "onTimestamp\":\"2025-12-01T00:00:00Z\"},\"spec\":{\"schedule\":\"0 1 * * *\",\"templat"       \
    "e\":{}},\"status\":{\"phase\":\"Enabled\",\"lastBackup\":\"2025-12-31T01:00:00Z\"}}"

#define BACKUP_DONE                                                                                \
    "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":\"nightly-"       \
    "20251230010000\",\"namespace\":\"velero\",\"uid\":\"b-1\",\"resourceVersion\":\"12\",\""      \
    "creationTimestamp\":\"2025-12-30T01:00:00Z\",\"labels\":{\"velero.io/schedule-name\":\""      \
    "nightly\"}},\"status\":{\"phase\":\"Completed\",\"startTimestamp\":\"2025-12-30T01:00:"       \
    "05Z\",\"completionTimestamp\":\"2025-12-30T01:10:05Z\"}}"

#define BACKUP_RUNNING                                                                             \
    "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":\"nightly-"       \
    "20251231010000\",\"namespace\":\"velero\",\"uid\":\"b-2\",\"resourceVersion\":\"13\",\""      \
    "creationTimestamp\":\"2025-12-31T01:00:00Z\",\"labels\":{\"velero.io/schedule-name\":\""      \
    "nightly\"}},\"status\":{\"phase\":\"InProgress\",\"startTimestamp\":\"2025-12-31T01:00"       \
    ":05Z\"}}"

#define NS        "/namespaces/longhorn-system"
#define LH        "/apis/longhorn.io/v1beta2" NS
#define BATCH     "/apis/batch/v1" NS
#define VELERO    "/apis/velero.io/v1/namespaces/velero"
#define LH_EVENT  "POST /api/v1" NS "/events "
#define NOT_FOUND "404 " STATUS(404, "NotFound")
#define GROUP(v)                                                                                   \
    "200 {\"versions\":[{\"version\":\"" v "\"}],\"preferredVersion\":{\"version\":\"" v "\"}}"
#define SERVES(res)                                                                                \
    "200 {\"resources\":[{\"name\":\"" res "\",\"kind\":\"X\",\"namespaced\":true}]}"
#define LONGHORN(res)                                                                              \
    "GET /apis/longhorn.io " GROUP("v1beta2"), "GET /apis/longhorn.io/v1beta2 " SERVES(res)
#define SERIES(metric, kind, ns, name)                                                             \
    "cronwarden_schedule_" metric "{kind=\"" kind "\",namespace=\"" ns "\",name=\"" name "\"}"
#define RJ_SERIES(metric, name) SERIES(metric, "RecurringJob", "longhorn-system", name)

static const char *const answers[] = {
    LONGHORN("recurringjobs"),
    "GET /apis/batch " GROUP("v1"),
    "GET /apis/batch/v1 " SERVES("cronjobs"),
    LONGHORN("volumes"),
    LONGHORN("backups"),
    LONGHORN("backupvolumes"),
    "GET /apis/velero.io " GROUP("v1"),
    "GET /apis/velero.io/v1 " SERVES("schedules"),
    "GET /apis/velero.io " GROUP("v1"),
    "GET /apis/velero.io/v1 " SERVES("backups"),
    "GET " LH "/recurringjobs 200 " LIST(RECURRINGJOB_DAILY "," RECURRINGJOB_HOURLY),
    "GET " BATCH "/cronjobs 200 " LIST(CRONJOB_DAILY "," CRONJOB_HOURLY),
    "GET " BATCH "/jobs 200 " LIST(JOB_FAILED),
    "GET " LH "/volumes 200 " LIST(VOLUME_PVC_A "," VOLUME_PVC_B "," VOLUME_PVC_C),
    "GET " LH "/backups 200 " LIST(),
    "GET " LH "/backupvolumes 200 " LIST(),
    "GET " VELERO "/schedules 200 " LIST(SCHEDULE_NIGHTLY),
    "GET " VELERO "/backups?limit=100&labelSelector=velero.io%2Fschedule-name 200 " LIST(
        BACKUP_DONE "," BACKUP_RUNNING),
    LH_EVENT "201 {}", /* 22: daily's failed run */
    LH_EVENT "201 {}", /* 23: hourly's missed run */
    /* hourly deleted */
    "GET " LH "/recurringjobs 200 " LIST(RECURRINGJOB_DAILY),
};

#define HOUR_MS 3600000

static void start(shell_fixture *f, cw_schedulehealth_config *cfg, const char *const *a, size_t n)
{
    cw_error err;
    cw_error_init(&err);
    /* the config from the flags, as parsed */
    static const cw_ctrl_flags flags = {.longhorn_namespace = "longhorn-system",
                                        .namespace = "velero"};
    memset(cfg, 0, sizeof(*cfg));
    assert_int_equal(cw_schedulehealth_reconciler.config_init(cfg, &flags, &err), CW_OK);
    shell_start(f, &cw_schedulehealth_reconciler, cfg, a, n);
    char why[256];
    assert_int_equal(cw_shell_synced(f->shell, why, sizeof(why)), 1);
}

/* Request i sent this Event: its name, reason, message and object. */
static void sent_event(shell_fixture *f, size_t i, const char *name, const char *reason,
                       const char *message, const char *uid)
{
    json_object *ev = shell_sent(f, i);
    assert_non_null(ev);
    assert_string_equal(cw_json_path_string(ev, "metadata.name"), name);
    assert_string_equal(cw_json_path_string(ev, "type"), "Warning");
    assert_string_equal(cw_json_path_string(ev, "reason"), reason);
    assert_string_equal(cw_json_path_string(ev, "message"), message);
    assert_string_equal(cw_json_path_string(ev, "involvedObject.uid"), uid);
    assert_string_equal(cw_json_path_string(ev, "involvedObject.kind"), "RecurringJob");
    assert_string_equal(cw_json_path_string(ev, "involvedObject.apiVersion"),
                        "longhorn.io/v1beta2");
    json_object_put(ev);
}

#define FAILED_MSG                                                                                 \
    "run daily-29452440 failed at 2025-12-31T02:05:00Z: BackoffLimitExceeded: Job has reached "    \
    "the specified backoff limit (1 failed in a row)"
#define MISSED_MSG "missed the run of 2025-12-31T23:00:00Z (suspended): the CronJob is suspended"

static const shell_series judged[] = {
    {RJ_SERIES("last_success_timestamp_seconds", "daily"), 0},
    {RJ_SERIES("last_failure_timestamp_seconds", "daily"), 1767146700}, /* 02:05:00Z */
    {RJ_SERIES("last_missed_timestamp_seconds", "daily"), 0},
    {RJ_SERIES("next_run_timestamp_seconds", "daily"), 1767232800}, /* 2026-01-01T02:00Z */
    {RJ_SERIES("consecutive_failures", "daily"), 1},
    {RJ_SERIES("missed_runs_total", "daily"), 0},
    {RJ_SERIES("running_seconds", "daily"), 0},
    {RJ_SERIES("stuck_after_seconds", "daily"), 86400},
    {RJ_SERIES("missed_runs_total", "hourly"), 1},
    {RJ_SERIES("last_missed_timestamp_seconds", "hourly"), 1767222000}, /* 2025-12-31T23:00Z */
    {RJ_SERIES("next_run_timestamp_seconds", "hourly"), 0},
    {RJ_SERIES("consecutive_failures", "hourly"), 0},
    {RJ_SERIES("stuck_after_seconds", "hourly"), 3600},
    {SERIES("last_success_timestamp_seconds", "Schedule", "velero", "nightly"), 1767057005},
    {SERIES("next_run_timestamp_seconds", "Schedule", "velero", "nightly"), 1767229200},
    {SERIES("last_missed_timestamp_seconds", "Schedule", "velero", "nightly"), 0},
    {SERIES("running_seconds", "Schedule", "velero", "nightly"), 82795},
    {SERIES("stuck_after_seconds", "Schedule", "velero", "nightly"), 1500},
    {SERIES("missed_runs_total", "Schedule", "velero", "nightly"), 0},
    {SERIES("consecutive_failures", "Schedule", "velero", "nightly"), 0},
    {"cronwarden_volumes_unprotected{namespace=\"longhorn-system\"}", 1},
    {"cronwarden_volumes_stale{namespace=\"longhorn-system\"}", 1},
};

/* 1 when the exposition has a line starting with prefix. */
static int exposes(shell_fixture *f, const char *needle)
{
    cw_buf b;
    cw_buf_init(&b);
    assert_int_equal(cw_metrics_render(&f->metrics, &b), CW_OK);
    int found = strstr(cw_buf_str(&b), needle) != NULL;
    cw_buf_free(&b);
    return found;
}

/* How many series lines of the exposition start with prefix. */
static size_t series_count(shell_fixture *f, const char *prefix)
{
    cw_buf b;
    size_t n = 0;
    cw_buf_init(&b);
    assert_int_equal(cw_metrics_render(&f->metrics, &b), CW_OK);
    for (const char *p = cw_buf_str(&b); p && *p;) {
        n += !strncmp(p, prefix, strlen(prefix));
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    cw_buf_free(&b);
    return n;
}

static void judged_and_said(void **state)
{
    (void)state;
    shell_fixture f;
    cw_schedulehealth_config cfg;
    start(&f, &cfg, answers, N(answers));
    shell_reconcile(&f, "RecurringJob/longhorn-system/daily", "Failing", HOUR_MS, 0, 1,
                    "failed run: one Event");
    sent_event(&f, 22, "daily.09ffe8ed090e8289", "ScheduleRunFailed", FAILED_MSG, "rj-daily");
    shell_reconcile(&f, "RecurringJob/longhorn-system/daily", "Failing", HOUR_MS, 0, 0,
                    "the same run: not said again");
    shell_reconcile(&f, "RecurringJob/longhorn-system/hourly", "Suspended", 361000, 0, 1,
                    "suspended over a fire time: missed, looked at when 00:00's grace ends");
    sent_event(&f, 23, "hourly.66a298c88132ba47", "ScheduleMissedRun", MISSED_MSG, "rj-hourly");
    shell_reconcile(&f, "RecurringJob/longhorn-system/hourly", "Suspended", 361000, 0, 0,
                    "missed once: counted and said once");
    shell_reconcile(&f, "Schedule/velero/nightly", "Stuck", HOUR_MS, 0, 0, "stuck: no Event");
    shell_reconcile(&f, "volumes", "volumes", 60000, 0, 0, "per namespace");
    shell_expect(&f, judged, N(judged));
    /* every schedule has all eight series (judged[] fails on an absent one) */
    assert_int_equal(series_count(&f, "cronwarden_schedule_"), 3 * 8);
    assert_int_equal(series_count(&f, "cronwarden_schedule_last_missed_timestamp_seconds{"), 3);

    /* hourly deleted: its series go */
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_informer_relist(cw_shell_informer(f.shell, CW_SH_RECURRINGJOBS), &err),
                     CW_OK);
    assert_true(exposes(&f, "name=\"hourly\""));
    shell_reconcile(&f, "RecurringJob/longhorn-system/hourly", "gone", -1, 0, 0, "deleted");
    assert_false(exposes(&f, "name=\"hourly\""));
    assert_true(exposes(&f, "name=\"daily\""));
    shell_reconcile(&f, "bogus", "error", -1, 0, 0, "not a key of this reconciler");
    shell_finish(&f);
    cw_ctrl_policy_config_fini(&cfg);
}

/* A restarted controller: the caches listed again, the same runs' Events already there (409). */
static void restart_says_nothing_twice(void **state)
{
    (void)state;
    const char *restarted[N(answers)];
    memcpy(restarted, answers, sizeof(restarted));
    restarted[22] = LH_EVENT "409 " STATUS(409, "AlreadyExists");
    restarted[23] = LH_EVENT "409 " STATUS(409, "AlreadyExists");
    shell_fixture f;
    cw_schedulehealth_config cfg;
    start(&f, &cfg, restarted, N(restarted) - 1);
    shell_reconcile(&f, "RecurringJob/longhorn-system/daily", "Failing", HOUR_MS, 0, 1,
                    "restart: posted before");
    sent_event(&f, 22, "daily.09ffe8ed090e8289", "ScheduleRunFailed", FAILED_MSG, "rj-daily");
    shell_reconcile(&f, "RecurringJob/longhorn-system/daily", "Failing", HOUR_MS, 0, 0,
                    "restart: remembered");
    shell_reconcile(&f, "RecurringJob/longhorn-system/hourly", "Suspended", 361000, 0, 1,
                    "restart: the missed run, posted before");
    shell_reconcile(&f, "RecurringJob/longhorn-system/hourly", "Suspended", 361000, 0, 0,
                    "restart: remembered");
    shell_finish(&f);
    cw_ctrl_policy_config_fini(&cfg);
}

/* Neither Longhorn nor Velero: only the Jobs and CronJobs are read; ready; nothing exported. */
static void without_longhorn_and_velero(void **state)
{
    (void)state;
    static const char *const bare[] = {
        "GET /apis/longhorn.io " NOT_FOUND,       "GET /apis/batch " GROUP("v1"),
        "GET /apis/batch/v1 " SERVES("cronjobs"), "GET /apis/longhorn.io " NOT_FOUND,
        "GET /apis/longhorn.io " NOT_FOUND,       "GET /apis/longhorn.io " NOT_FOUND,
        "GET /apis/velero.io " NOT_FOUND,         "GET /apis/velero.io " NOT_FOUND,
        "GET " BATCH "/cronjobs 200 " LIST(),     "GET " BATCH "/jobs 200 " LIST(),
    };
    shell_fixture f;
    cw_schedulehealth_config cfg;
    start(&f, &cfg, bare, N(bare));
    assert_true(cw_shell_absent(f.shell, CW_SH_RECURRINGJOBS));
    assert_false(cw_shell_absent(f.shell, CW_SH_JOBS));
    assert_true(cw_shell_absent(f.shell, CW_SH_BACKUPS));
    assert_int_equal(cw_shell_enqueue_all(f.shell), CW_OK);
    shell_reconcile(&f, "volumes", "volumes", 60000, 0, 0, "no volumes");
    shell_reconcile(&f, "Schedule/velero/nightly", "gone", -1, 0, 0, "no such schedule");
    assert_false(exposes(&f, "cronwarden_volumes_unprotected{"));
    assert_false(exposes(&f, "cronwarden_schedule_next_run_timestamp_seconds{"));
    shell_finish(&f);
    cw_ctrl_policy_config_fini(&cfg);
}

SHELL_TEST_MAIN(cmocka_unit_test(judged_and_said), cmocka_unit_test(restart_says_nothing_twice),
                cmocka_unit_test(without_longhorn_and_velero))
