/* The recurringjob reconciler in its shell (controller/recurringjob_apply.c) against scripted API
 * answers: the versions discovered, the four caches listed; a CronJob created, updated (read, then
 * PUT with its resourceVersion), deleted when its RecurringJob is gone (cronwarden's own DELETE);
 * a 409 on the update (decided again) and on the create (someone else's CronJob: a Warning Event
 * CronJobNameTaken, retried); a 404 under the update; a 403 (WriteForbidden once); a 500; an
 * invalid job (InvalidRecurringJob once); and a write war: another manager undoing the update
 * again and again is fought three times, then left alone with a WriteWar Event. */
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
#define MANAGER                                                                                    \
    "{\"metadata\":{\"name\":\"longhorn-manager\",\"namespace\":\"longhorn-system\","              \
    "\"resourceVersion\":\"1\"},\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":"      \
    "\"longhorn-manager\",\"image\":\"longhornio/longhorn-manager:v1.2.6\"}]}}}}"
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
    cw_ctrl_flag.longhorn_namespace = "longhorn-system"; /* the config from the flags, as parsed */
    assert_int_equal(cw_recurringjob_reconciler.config_init(&cfg, &err), CW_OK);
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

SHELL_TEST_MAIN(cmocka_unit_test(every_answer_of_the_api))
