/* The recurringjob reconciler in its shell (controller/recurringjob_apply.c) against scripted API
 * answers: the versions discovered, the four caches listed; a CronJob created, updated (read, then
 * PUT with its resourceVersion), deleted when its RecurringJob is gone (cronwarden's own DELETE);
 * a 409 on the update (decided again) and on the create (someone else's CronJob: a Warning Event
 * CronJobNameTaken, retried); a 404 under the update; a 403 (WriteForbidden once); a 500; an
 * invalid job (InvalidRecurringJob once); and a write war: another manager undoing the update
 * again and again is fought three times, then left alone with a WriteWar Event; a cache behind
 * cronwarden's own write (the live CronJob in sync: no PUT). Which Longhorn runs: a version it
 * does not know stands it down (no request at all, the gauge, the info metric) until the
 * DaemonSet names one it knows; without a DaemonSet the CRDs say (discovery, a failed one
 * retried; those of several minors stand it down in the reconcile that finds them out);
 * --longhorn-version forces one and is checked at start-up. */
#include "shell_test.h"

#include "controller/recurringjob_apply.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define NS       "/namespaces/longhorn-system"
#define CRONJOBS "/apis/batch/v1beta1" NS "/cronjobs"
#define RJ(name, cron)                                                                             \
    "{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"RecurringJob\",\"metadata\":{\"name\":"    \
    "\"" name "\",\"namespace\":\"longhorn-system\",\"uid\":\"rj-" name "\",\"resourceVersion\":"  \
    "\"3\"},\"spec\":{\"name\":\"" name "\",\"task\":\"snapshot\",\"cron\":\"" cron "\","          \
    "\"retain\":2,\"concurrency\":1}}"
#define CJ(name, uid, annotation)                                                                  \
    "{'metadata':{'name':'" name "','namespace':'longhorn-system','uid':'" uid "',"                \
    "'resourceVersion':'9','labels':{'longhorn.io/managed-by':'longhorn-manager',"                 \
    "'recurring-job.longhorn.io':'" name "'},'annotations':{"                                      \
    "'longhorn.io/last-applied-cronjob-spec':'" annotation "'}}}"
#define MANAGER_TAG(tag, rv)                                                                       \
    "{\"metadata\":{\"name\":\"longhorn-manager\",\"namespace\":\"longhorn-system\","              \
    "\"resourceVersion\":\"" rv "\"},\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":" \
    "\"longhorn-manager\",\"image\":\"longhornio/longhorn-manager:" tag "\"}]}}}}"
#define MANAGER MANAGER_TAG("v1.2.6", "1")
#define GROUP(v)                                                                                   \
    "200 {\"versions\":[{\"version\":\"" v "\"}],\"preferredVersion\":{\"version\":\"" v "\"}}"
#define SERVES(res)                                                                                \
    "200 {\"resources\":[{\"name\":\"" res "\",\"kind\":\"X\",\"namespaced\":true}]}"
#define LIVE(rv, manager)                                                                          \
    "200 "                                                                                         \
    "{\"apiVersion\":\"batch/v1beta1\",\"kind\":\"CronJob\",\"metadata\":{\"name\":\"hourly\","    \
    "\"namespace\":\"longhorn-system\",\"uid\":\"cj-1\",\"resourceVersion\":\"" rv "\","           \
    "\"managedFields\":[{\"manager\":\"" manager "\",\"operation\":\"Update\",\"time\":"           \
    "\"2026-01-01T00:00:00Z\"}]},\"spec\":{}}"
#define WROTE(uid, rv)                                                                             \
    "200 {\"metadata\":{\"name\":\"hourly\",\"namespace\":\"longhorn-system\",\"uid\":\"" uid      \
    "\",\"resourceVersion\":\"" rv "\"}}"
#define GET_CJ    "GET " CRONJOBS "/hourly "
#define PUT_CJ    "PUT " CRONJOBS "/hourly?fieldManager=cronwarden "
#define CREATE_CJ "POST " CRONJOBS "?fieldManager=cronwarden "
#define EVENT     "POST /api/v1" NS "/events 201 {}"
#define WRITES(verb, result)                                                                       \
    "cronwarden_controller_recurringjob_writes_total{verb=\"" verb "\",result=\"" result "\"}"

static const char *const answers[] = {
    "GET /apis/longhorn.io " GROUP("v1beta1"),
    "GET /apis/longhorn.io/v1beta1 " SERVES("recurringjobs"),
    "GET /apis/batch " GROUP("v1beta1"),
    "GET /apis/batch/v1beta1 " SERVES("cronjobs"),
    "GET /apis/longhorn.io/v1beta1" NS
    "/recurringjobs 200 " LIST(RJ("hourly", "0 * * * *") "," RJ("broken", "61 * * * *")),
    "GET " CRONJOBS " 200 " LIST(),
    "GET /apis/longhorn.io/v1beta1" NS "/settings 200 " LIST(),
    "GET /apis/apps/v1" NS "/daemonsets 200 " LIST(MANAGER),
    /* no CronJob yet */
    CREATE_CJ WROTE("cj-0", "10"),                 /* a CronJob since deleted by hand */
    CREATE_CJ "409 " STATUS(409, "AlreadyExists"), /* not labelled for the job: */
    EVENT,                                         /* CronJobNameTaken */
    CREATE_CJ "403 " STATUS(403, "Forbidden"),
    EVENT, /* WriteForbidden */
    CREATE_CJ "500 " STATUS(500, "InternalError"),
    /* its CronJob, with another spec: read and written back */
    GET_CJ LIVE("11", "cronwarden"),
    PUT_CJ WROTE("cj-1", "12"),
    GET_CJ LIVE("13", "cronwarden"),
    PUT_CJ "409 " STATUS(409, "Conflict"),
    GET_CJ "404 " STATUS(404, "NotFound"),
    /* another manager keeps rewriting it: rewritten three times, then left alone */
    GET_CJ LIVE("14", "longhorn-manager"),
    PUT_CJ WROTE("cj-1", "15"),
    GET_CJ LIVE("16", "longhorn-manager"),
    PUT_CJ WROTE("cj-1", "17"),
    GET_CJ LIVE("18", "longhorn-manager"),
    PUT_CJ WROTE("cj-1", "19"),
    GET_CJ LIVE("20", "longhorn-manager"),
    EVENT, /* WriteWar on the CronJob */
    GET_CJ LIVE("20", "longhorn-manager"),
    /* invalid by the policy */
    EVENT, /* InvalidRecurringJob, once */
    /* the RecurringJob gone: its CronJob deleted by cronwarden itself */
    "DELETE " CRONJOBS "/gone 200 {}",
};

static void every_answer_of_the_api(void **state)
{
    (void)state;
    shell_fixture f;
    cw_recurringjob_config cfg = {0};
    cw_error err;
    cw_error_init(&err);
    /* the config from the flags, as parsed */
    static const cw_ctrl_flags flags = {.longhorn_namespace = "longhorn-system"};
    assert_int_equal(cw_recurringjob_reconciler.config_init(&cfg, &flags, &err), CW_OK);
    shell_start(&f, &cw_recurringjob_reconciler, &cfg, answers, N(answers));
    const char *key = "longhorn-system/hourly";
    shell_reconcile(&f, key, "created", -1, 0, 1, "no CronJob: created");
    shell_reconcile(&f, key, "error", -1, 1, 2, "409 on create: someone else's, an Event");
    shell_reconcile(&f, key, "error", -1, 1, 2, "403: WriteForbidden, retried");
    shell_reconcile(&f, key, "error", -1, 1, 1, "500: retried");
    shell_cached(&f, CW_RJ_CRONJOBS, CJ("hourly", "cj-1", "stale"));
    shell_reconcile(&f, key, "updated", -1, 0, 2, "another spec: read and written back");
    shell_reconcile(&f, key, "conflict", 1000, 0, 2, "409 on the PUT: decided again");
    shell_reconcile(&f, key, "deleted", -1, 0, 1, "gone under the update: its watch event");
    for (int i = 1; i <= 3; i++)
        shell_reconcile(&f, key, "updated", -1, 0, 2, "undone by another manager: rewritten");
    shell_reconcile(&f, key, "held", -1, 0, 2, "a fourth time: left alone, a WriteWar Event");
    shell_reconcile(&f, key, "held", -1, 0, 1, "still left alone, no second Event");
    shell_reconcile(&f, "longhorn-system/broken", "invalid", -1, 0, 1, "refused: an Event");
    shell_reconcile(&f, "longhorn-system/broken", "invalid", -1, 0, 0, "refused: not twice");
    shell_cached(&f, CW_RJ_CRONJOBS, CJ("gone", "cj-2", "x"));
    shell_reconcile(&f, "longhorn-system/gone", "gone", -1, 0, 1, "its job gone: DELETE");
    static const shell_series want[] = {
        {WRITES("create_cronjob", "ok"), 1},
        {WRITES("create_cronjob", "conflict"), 1},
        {WRITES("create_cronjob", "error"), 2},
        {WRITES("update_cronjob", "ok"), 4},
        {WRITES("update_cronjob", "conflict"), 1},
        {WRITES("delete_cronjob", "ok"), 1},
        {"cronwarden_controller_write_wars_total{controller=\"recurringjob\"}", 1},
    };
    shell_expect(&f, want, N(want));
    shell_finish(&f);
    cw_ctrl_policy_config_fini(&cfg);
}

/* The start every test below shares: versions discovered, the four caches listed (one job, no
 * CronJob, no Setting; the DaemonSet given). */
#define STARTS_WITH(...)                                                                           \
    "GET /apis/longhorn.io " GROUP("v1beta1"),                                                     \
        "GET /apis/longhorn.io/v1beta1 " SERVES("recurringjobs"),                                  \
        "GET /apis/batch " GROUP("v1beta1"), "GET /apis/batch/v1beta1 " SERVES("cronjobs"),        \
        "GET /apis/longhorn.io/v1beta1" NS "/recurringjobs 200 " LIST(RJ("hourly", "0 * * * *")),  \
        "GET " CRONJOBS " 200 " LIST(),                                                            \
        "GET /apis/longhorn.io/v1beta1" NS "/settings 200 " LIST(),                                \
        "GET /apis/apps/v1" NS "/daemonsets 200 " LIST(__VA_ARGS__)
#define INFO(version, minor, source)                                                               \
    "cronwarden_controller_longhorn_version_info{version=\"" version "\",minor=\"" minor           \
    "\",source=\"" source "\"}"
#define STANDING(reason)                                                                           \
    "cronwarden_controller_standing_down{controller=\"recurringjob\",reason=\"" reason "\"}"

static void start(shell_fixture *f, cw_recurringjob_config *cfg, const char *version,
                  const char *const *lines, size_t n)
{
    cw_error err;
    cw_error_init(&err);
    memset(cfg, 0, sizeof(*cfg));
    cw_ctrl_flags flags = {.longhorn_namespace = "longhorn-system",
                           .longhorn_version = (char *)version};
    assert_int_equal(cw_recurringjob_reconciler.config_init(cfg, &flags, &err), CW_OK);
    cfg->image = "longhornio/longhorn-manager:v1.2.6"; /* --job-image */
    shell_start(f, &cw_recurringjob_reconciler, cfg, lines, n);
}

/* The DaemonSet runs v9.0.0; one CronJob is created in the end (after the DaemonSet runs 1.4.4, or
 * as the flag says). */
static const char *const v9_answers[] = {
    STARTS_WITH(MANAGER_TAG("v9.0.0", "1")),
    CREATE_CJ WROTE("cj-1", "10"),
};

static void a_longhorn_it_does_not_know(void **state)
{
    (void)state;
    shell_fixture f;
    cw_recurringjob_config cfg;
    start(&f, &cfg, "auto", v9_answers, N(v9_answers));
    const char *key = "longhorn-system/hourly";
    shell_reconcile(&f, key, "standing_down", -1, 0, 0, "Longhorn 9.0: no request at all");
    static const shell_series down[] = {
        {STANDING("unsupported-version"), 1},
        {INFO("v9.0.0", "", "daemonset"), 1},
    };
    shell_expect(&f, down, N(down));
    /* The watch brings the DaemonSet upgraded to 1.4.4; a resync looks again. */
    shell_manager_runs(&f, CW_RJ_MANAGERS, "longhornio/longhorn-manager:v1.4.4");
    shell_reconcile(&f, key, "created", -1, 0, 1, "Longhorn 1.4: written as its manager writes");
    static const shell_series up[] = {
        {STANDING("unsupported-version"), 0},
        {INFO("v9.0.0", "", "daemonset"), 0},
        {INFO("v1.4.4", "1.4", "daemonset"), 1},
    };
    shell_expect(&f, up, N(up));
    shell_finish(&f);
    cw_ctrl_policy_config_fini(&cfg);
}

static const char *const crds_answers[] = {
    STARTS_WITH(),
    /* no DaemonSet: what the longhorn.io group serves says which Longhorn (its first look fails) */
    "GET /apis/longhorn.io/v1beta1 500 " STATUS(500, "InternalError"),
    "GET /apis/longhorn.io/v1beta1 200 {\"resources\":[{\"name\":\"backups\"},"
    "{\"name\":\"backupvolumes\"},{\"name\":\"recurringjobs\"},{\"name\":\"settings\"},"
    "{\"name\":\"volumes\"},{\"name\":\"volumes/status\"}]}",
    "GET /apis/longhorn.io/v1beta2 404 " STATUS(404, "NotFound"),
    CREATE_CJ WROTE("cj-1", "10"),
};

static void without_a_daemonset_the_crds_say(void **state)
{
    (void)state;
    shell_fixture f;
    cw_recurringjob_config cfg;
    start(&f, &cfg, NULL, crds_answers, N(crds_answers));
    const char *key = "longhorn-system/hourly";
    shell_reconcile(&f, key, "error", -1, 1, 1, "discovery failed: retried, nothing decided");
    shell_reconcile(&f, key, "created", -1, 0, 3, "Longhorn 1.2's CRDs: written as 1.2");
    static const shell_series want[] = {
        {INFO("1.2", "1.2", "crds"), 1},
        {WRITES("create_cronjob", "ok"), 1},
    };
    shell_expect(&f, want, N(want));
    shell_finish(&f);
    cw_ctrl_policy_config_fini(&cfg);
}

/* The live CronJob is asked again before an update: the cache may be behind cronwarden's own
 * write (its watch event not there yet), and writing the same content again would be a needless
 * PUT, counted by the write-war guard as a rewrite after someone undid it. Filled in at run time
 * with what the create sent. */
static char live_in_sync[6000];
static const char *in_sync_answers[] = {
    STARTS_WITH(MANAGER), CREATE_CJ WROTE("cj-1", "10"),
    NULL, /* GET_CJ: what was created (live_in_sync) */
};

static void a_cache_behind_its_own_write_writes_nothing(void **state)
{
    (void)state;
    shell_fixture f;
    cw_recurringjob_config cfg;
    const size_t create = N(in_sync_answers) - 2;
    start(&f, &cfg, NULL, in_sync_answers, N(in_sync_answers));
    const char *key = "longhorn-system/hourly";
    shell_reconcile(&f, key, "created", -1, 0, 1, "no CronJob: created");
    json_object *created = shell_sent(&f, create);
    assert_non_null(created);
    json_object *meta = json_object_object_get(created, "metadata");
    json_object_object_add(meta, "uid", json_object_new_string("cj-1"));
    json_object_object_add(meta, "resourceVersion", json_object_new_string("10"));
    snprintf(live_in_sync, sizeof(live_in_sync), "%s200 %s", GET_CJ,
             json_object_to_json_string_ext(created, JSON_C_TO_STRING_PLAIN));
    json_object_put(created);
    in_sync_answers[N(in_sync_answers) - 1] = live_in_sync;
    /* The cache still holds an older CronJob (the create's event not seen yet). */
    shell_cached(&f, CW_RJ_CRONJOBS, CJ("hourly", "cj-1", "older"));
    shell_reconcile(&f, key, "insync", -1, 0, 1, "the live one is in sync: no PUT");
    static const shell_series want[] = {
        {WRITES("create_cronjob", "ok"), 1},
        SHELL_ABSENT(WRITES("update_cronjob", "ok")),
    };
    shell_expect(&f, want, N(want));
    shell_finish(&f);
    cw_ctrl_policy_config_fini(&cfg);
}

/* What Longhorn 1.6, 1.7 and 1.8 all serve (tests/fixtures/longhorn-1.{6.4,7.4,8.2}/crds.yaml and
 * the CRDs only they add): the same in each served version. */
#define SERVES_1_6_TO_1_8                                                                          \
    "200 {\"resources\":[{\"name\":\"backupbackingimages\"},{\"name\":\"orphans\"},"               \
    "{\"name\":\"recurringjobs\"},{\"name\":\"supportbundles\"},"                                  \
    "{\"name\":\"volumeattachments\"},{\"name\":\"volumes\"}]}"
static const char *const ambiguous_answers[] = {
    STARTS_WITH(),
    /* no DaemonSet, and CRDs three minors share: which CronJob to write is not known */
    "GET /apis/longhorn.io/v1beta1 " SERVES_1_6_TO_1_8,
    "GET /apis/longhorn.io/v1beta2 " SERVES_1_6_TO_1_8,
};

/* Found out in the reconcile itself (no DaemonSet to identify from before it): the reconcile
 * stands down there and then, with no request but discovery; the next ones make none at all. */
static void crds_of_several_minors_stand_it_down(void **state)
{
    (void)state;
    shell_fixture f;
    cw_recurringjob_config cfg;
    start(&f, &cfg, NULL, ambiguous_answers, N(ambiguous_answers));
    const char *key = "longhorn-system/hourly";
    shell_reconcile(&f, key, "standing_down", -1, 0, 2, "the CRDs of 1.6-1.8: no CronJob");
    shell_reconcile(&f, key, "standing_down", -1, 0, 0, "still: no request at all");
    static const shell_series want[] = {
        {STANDING("crds-ambiguous"), 1},
        {INFO("1.6-1.8", "", "crds"), 1},
        SHELL_ABSENT(WRITES("create_cronjob", "ok")),
    };
    shell_expect(&f, want, N(want));
    shell_finish(&f);
    cw_ctrl_policy_config_fini(&cfg);
}

static void the_flag_forces_a_version(void **state)
{
    (void)state;
    shell_fixture f;
    cw_recurringjob_config cfg;
    cw_error err;
    cw_error_init(&err);
    /* Checked at start-up, a usage error naming the flag. */
    static const struct {
        const char *value, *message;
    } bad[] = {
        {"2.0", "--longhorn-version: cronwarden knows Longhorn 1.2 to 1.12, not 2.0"},
        {"latest", "--longhorn-version: \"latest\" is not a version: expected auto, 1.<minor> or "
                   "1.<minor>.<patch> (e.g. 1.4 or v1.4.4)"},
    };
    for (size_t i = 0; i < N(bad); i++) {
        memset(&cfg, 0, sizeof(cfg));
        cw_error_init(&err);
        cw_ctrl_flags flags = {.longhorn_version = (char *)bad[i].value};
        assert_int_equal(cw_recurringjob_reconciler.config_init(&cfg, &flags, &err), CW_EUSAGE);
        assert_string_equal(err.message, bad[i].message);
        cw_ctrl_policy_config_fini(&cfg);
    }
    start(&f, &cfg, "v1.3.3", v9_answers, N(v9_answers));
    shell_reconcile(&f, "longhorn-system/hourly", "created", -1, 0, 1,
                    "the image says 9.0, the flag 1.3: written as 1.3");
    static const shell_series want[] = {
        {INFO("v1.3.3", "1.3", "flag"), 1},
        SHELL_ABSENT(INFO("v9.0.0", "", "daemonset")),
        SHELL_ABSENT(STANDING("unsupported-version")),
    };
    shell_expect(&f, want, N(want));
    shell_finish(&f);
    cw_ctrl_policy_config_fini(&cfg);
}

/* A RecurringJob whose cron holds CRON_TZ= (docs/compat.md "CRON_TZ= in a RecurringJob's
 * cron"): the CronJob is written as Longhorn's manager writes it, schedule and all; Kubernetes
 * 1.37 refuses its create with 422. Not retried with backoff (the same CronJob would be refused
 * again): the outcome "refused", a Warning Event CronJobRefused with the API server's message
 * and the hint, once; counted as result "invalid". */
#define TZ_JOB                                                                                     \
    "{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"RecurringJob\",\"metadata\":{\"name\":"    \
    "\"berlin\",\"namespace\":\"longhorn-system\",\"uid\":\"rj-berlin\",\"resourceVersion\":"      \
    "\"3\"},"                                                                                      \
    "\"spec\":{\"task\":\"snapshot\",\"cron\":\"CRON_TZ=Europe/Berlin 0 2 * * *\",\"retain\":2,"   \
    "\"concurrency\":1}}"
#define K8S_137_TZ                                                                                 \
    "CronJob.batch \\\"berlin\\\" is invalid: spec.schedule: Invalid value: "                      \
    "\\\"CRON_TZ=Europe/Berlin "                                                                   \
    "0 2 * * *\\\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
#define REFUSED_422                                                                                \
    "422 "                                                                                         \
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"" K8S_137_TZ  \
    "\",\"reason\":\"Invalid\",\"code\":422}"

static const char *const tz_answers[] = {
    "GET /apis/longhorn.io " GROUP("v1beta1"),
    "GET /apis/longhorn.io/v1beta1 " SERVES("recurringjobs"),
    "GET /apis/batch " GROUP("v1beta1"),
    "GET /apis/batch/v1beta1 " SERVES("cronjobs"),
    "GET /apis/longhorn.io/v1beta1" NS "/recurringjobs 200 " LIST(TZ_JOB),
    "GET " CRONJOBS " 200 " LIST(),
    "GET /apis/longhorn.io/v1beta1" NS "/settings 200 " LIST(),
    "GET /apis/apps/v1" NS "/daemonsets 200 " LIST(MANAGER_TAG("v1.10.2", "1")),
    CREATE_CJ REFUSED_422,
    EVENT, /* CronJobRefused, once */
    CREATE_CJ REFUSED_422,
};

static void a_cron_tz_cronjob_the_api_server_refuses(void **state)
{
    (void)state;
    shell_fixture f;
    cw_recurringjob_config cfg;
    start(&f, &cfg, NULL, tz_answers, N(tz_answers));
    const char *key = "longhorn-system/berlin";
    shell_reconcile(&f, key, "refused", -1, 0, 2, "422: an Event, not retried");
    json_object *cj = shell_sent(&f, 8);
    assert_non_null(cj);
    assert_string_equal(cw_json_path_string(cj, "spec.schedule"),
                        "CRON_TZ=Europe/Berlin 0 2 * * *");
    assert_null(cw_json_path(cj, "spec.timeZone"));
    json_object_put(cj);
    json_object *ev = shell_sent(&f, 9);
    assert_non_null(ev);
    assert_string_equal(cw_json_path_string(ev, "type"), "Warning");
    assert_string_equal(cw_json_path_string(ev, "reason"), "CronJobRefused");
    assert_string_equal(cw_json_path_string(ev, "involvedObject.name"), "berlin");
    assert_string_equal(
        cw_json_path_string(ev, "message"),
        "the API server refused to create CronJob berlin, so no CronJob runs this job: "
        "CronJob.batch \"berlin\" is invalid: spec.schedule: Invalid value: "
        "\"CRON_TZ=Europe/Berlin 0 2 * * *\": cannot use TZ or CRON_TZ in schedule, use timeZone "
        "field instead (Kubernetes 1.29 and later refuse to create a CronJob whose schedule holds "
        "TZ or CRON_TZ, Longhorn's manager's as well: write spec.cron without the time zone "
        "prefix, in kube-controller-manager's time zone, usually UTC)");
    json_object_put(ev);
    shell_reconcile(&f, key, "refused", -1, 0, 1, "again (a resync): no second Event");
    static const shell_series want[] = {
        {WRITES("create_cronjob", "invalid"), 2},
        SHELL_ABSENT(WRITES("create_cronjob", "error")),
    };
    shell_expect(&f, want, N(want));
    shell_finish(&f);
    cw_ctrl_policy_config_fini(&cfg);
}

SHELL_TEST_MAIN(cmocka_unit_test(every_answer_of_the_api),
                cmocka_unit_test(a_longhorn_it_does_not_know),
                cmocka_unit_test(without_a_daemonset_the_crds_say),
                cmocka_unit_test(crds_of_several_minors_stand_it_down),
                cmocka_unit_test(a_cache_behind_its_own_write_writes_nothing),
                cmocka_unit_test(the_flag_forces_a_version),
                cmocka_unit_test(a_cron_tz_cronjob_the_api_server_refuses))
