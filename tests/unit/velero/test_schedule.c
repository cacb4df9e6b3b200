/* Velero Schedule: skipImmediately defaulting, Velero's validation messages, effective skip and
 * next-run timing. Parser messages and next-run values were produced by the real robfig/cron v3
 * (Debian golang-github-robfig-cron-v3-dev) running Velero's getNextRunTime logic with TZ=UTC.
 * JSON in the tables uses ' for " (see policy_case.h). */
#include "tests/unit/defaults/policy_case.h"

#include <stdint.h>

#include "velero/schedule.h"
#include "cron/tz.h"
#include "tests/unit/tzdb_fixture.h"

#define SCHED(spec)                                                                                \
    "{'apiVersion':'velero.io/v1','kind':'Schedule','metadata':{'name':'daily',"                   \
    "'namespace':'velero'},'spec':" spec "}"
#define DEFAULT_WARNING(v, why)                                                                    \
    "spec.skipImmediately: set to " v ", the server default (--schedule-skip-immediately), " why
#define AT_CREATE  "made explicit at creation"
#define AT_UNPAUSE "because the schedule is being unpaused"
#define BOTH_DAYS                                                                                  \
    "spec.schedule: day-of-month and day-of-week are both restricted; Velero up to 1.18 runs "     \
    "when either matches, newer Velero only when both match"

typedef struct {
    const char *label;
    cw_operation op;
    int skip; /* server default */
    const char *old, *obj, *patch, *warnings, *problems;
} sched_case;

static void run_cases(policy_fn fn, const sched_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cw_policy_config cfg;
        assert_int_equal(cw_policy_config_init(&cfg), CW_OK);
        cfg.schedule_skip_immediately = cases[i].skip;
        cfg.tzdb = &tzdb;
        test_policy_case(fn, &cfg, cases[i].op, cases[i].old, cases[i].obj, cases[i].patch,
                         cases[i].warnings, cases[i].problems, cases[i].label);
        cw_policy_config_free(&cfg);
    }
}

static const sched_case default_cases[] = {
    {"create without the field: server default false", CW_OP_CREATE, 0, NULL,
     SCHED("{'schedule':'0 1 * * *'}"),
     "[{'op':'add','path':'/spec/skipImmediately','value':false}]",
     DEFAULT_WARNING("false", AT_CREATE), NULL},
    {"create without the field: server default true", CW_OP_CREATE, 1, NULL,
     SCHED("{'schedule':'0 1 * * *'}"),
     "[{'op':'add','path':'/spec/skipImmediately','value':true}]",
     DEFAULT_WARNING("true", AT_CREATE), NULL},
    {"create with null: replaced", CW_OP_CREATE, 1, NULL,
     SCHED("{'schedule':'0 1 * * *','skipImmediately':null}"),
     "[{'op':'replace','path':'/spec/skipImmediately','value':true}]",
     DEFAULT_WARNING("true", AT_CREATE), NULL},
    {"create with false kept", CW_OP_CREATE, 1, NULL,
     SCHED("{'schedule':'0 1 * * *','skipImmediately':false}"), NULL, NULL, NULL},
    {"create with true kept", CW_OP_CREATE, 0, NULL,
     SCHED("{'schedule':'0 1 * * *','skipImmediately':true}"), NULL, NULL, NULL},
    {"create with a wrong type: left to validation", CW_OP_CREATE, 0, NULL,
     SCHED("{'schedule':'0 1 * * *','skipImmediately':'yes'}"), NULL, NULL, NULL},
    {"create without spec", CW_OP_CREATE, 0, NULL,
     "{'apiVersion':'velero.io/v1','kind':'Schedule','metadata':{'name':'d'}}",
     "[{'op':'add','path':'/spec','value':{'skipImmediately':false}}]",
     DEFAULT_WARNING("false", AT_CREATE), NULL},
    {"create with spec of the wrong type", CW_OP_CREATE, 0, NULL, SCHED("[]"), NULL, NULL, NULL},
    {"unpause (true -> false) without the field", CW_OP_UPDATE, 1,
     SCHED("{'schedule':'0 1 * * *','paused':true}"),
     SCHED("{'schedule':'0 1 * * *','paused':false}"),
     "[{'op':'add','path':'/spec/skipImmediately','value':true}]",
     DEFAULT_WARNING("true", AT_UNPAUSE), NULL},
    {"unpause (true -> absent) without the field", CW_OP_UPDATE, 0,
     SCHED("{'schedule':'0 1 * * *','paused':true}"), SCHED("{'schedule':'0 1 * * *'}"),
     "[{'op':'add','path':'/spec/skipImmediately','value':false}]",
     DEFAULT_WARNING("false", AT_UNPAUSE), NULL},
    {"unpause with the field set: the user's choice stands", CW_OP_UPDATE, 1,
     SCHED("{'schedule':'0 1 * * *','paused':true}"),
     SCHED("{'schedule':'0 1 * * *','paused':false,'skipImmediately':false}"), NULL, NULL, NULL},
    {"still paused", CW_OP_UPDATE, 1, SCHED("{'schedule':'0 1 * * *','paused':true}"),
     SCHED("{'schedule':'0 2 * * *','paused':true}"), NULL, NULL, NULL},
    {"never paused", CW_OP_UPDATE, 1, SCHED("{'schedule':'0 1 * * *','paused':false}"),
     SCHED("{'schedule':'0 2 * * *'}"), NULL, NULL, NULL},
    {"pausing", CW_OP_UPDATE, 1, SCHED("{'schedule':'0 1 * * *'}"),
     SCHED("{'schedule':'0 1 * * *','paused':true}"), NULL, NULL, NULL},
    {"old paused of the wrong type is not an unpause", CW_OP_UPDATE, 1,
     SCHED("{'schedule':'0 1 * * *','paused':'true'}"), SCHED("{'schedule':'0 1 * * *'}"), NULL,
     NULL, NULL},
    {"update without the old object", CW_OP_UPDATE, 1, NULL, SCHED("{'schedule':'0 1 * * *'}"),
     NULL, NULL, NULL},
    {"delete decides nothing", CW_OP_DELETE, 1, NULL, SCHED("{}"), NULL, NULL, NULL},
};

static void defaulting(void **state)
{
    (void)state;
    run_cases(cw_schedule_default, default_cases, sizeof(default_cases) / sizeof(default_cases[0]));
}

static const sched_case validate_cases[] = {
    {"valid", CW_OP_CREATE, 0, NULL, SCHED("{'schedule':'0 1 * * *','paused':false}"), NULL, NULL,
     NULL},
    {"empty schedule", CW_OP_CREATE, 0, NULL, SCHED("{'schedule':''}"), NULL, NULL,
     CW_SCHEDULE_MSG_EMPTY},
    {"missing schedule", CW_OP_CREATE, 0, NULL, SCHED("{}"), NULL, NULL, CW_SCHEDULE_MSG_EMPTY},
    {"null schedule", CW_OP_CREATE, 0, NULL, SCHED("{'schedule':null}"), NULL, NULL,
     CW_SCHEDULE_MSG_EMPTY},
    {"missing spec", CW_OP_CREATE, 0, NULL, "{'apiVersion':'velero.io/v1','kind':'Schedule'}", NULL,
     NULL, CW_SCHEDULE_MSG_EMPTY},
    {"one field", CW_OP_CREATE, 0, NULL, SCHED("{'schedule':'x'}"), NULL, NULL,
     "invalid schedule: expected exactly 5 fields, found 1: [x]"},
    {"minute out of range", CW_OP_CREATE, 0, NULL, SCHED("{'schedule':'61 * * * *'}"), NULL, NULL,
     "invalid schedule: end of range (61) above maximum (59): 61"},
    {"bad @every duration", CW_OP_CREATE, 0, NULL, SCHED("{'schedule':'@every 1x'}"), NULL, NULL,
     "invalid schedule: failed to parse duration @every 1x: time: unknown unit \"x\" in "
     "duration \"1x\""},
    {"unknown zone", CW_OP_CREATE, 0, NULL, SCHED("{'schedule':'TZ=Mars/Base 0 0 * * *'}"), NULL,
     NULL, "invalid schedule: provided bad location Mars/Base: unknown time zone Mars/Base"},
    {"known zone", CW_OP_CREATE, 0, NULL, SCHED("{'schedule':'CRON_TZ=Europe/Berlin 0 9 * * *'}"),
     NULL, NULL, NULL},
    {"schedule of the wrong type", CW_OP_CREATE, 0, NULL, SCHED("{'schedule':5}"), NULL, NULL,
     "spec.schedule: expected string, got integer"},
    {"booleans of the wrong type", CW_OP_CREATE, 0, NULL,
     SCHED("{'schedule':'@daily','paused':'yes','skipImmediately':1}"), NULL, NULL,
     "spec.paused: expected boolean, got string\n"
     "spec.skipImmediately: expected boolean, got integer"},
    {"both day fields restricted: dialects disagree", CW_OP_CREATE, 0, NULL,
     SCHED("{'schedule':'0 0 1 * MON'}"), NULL, BOTH_DAYS, NULL},
    {"1-31 is restricted too (robfig fires daily)", CW_OP_CREATE, 0, NULL,
     SCHED("{'schedule':'0 0 1-31 * MON'}"), NULL, BOTH_DAYS, NULL},
    {"*/1 counts as unrestricted", CW_OP_CREATE, 0, NULL, SCHED("{'schedule':'0 0 */1 * MON'}"),
     NULL, NULL, NULL},
    {"only day of month", CW_OP_CREATE, 0, NULL, SCHED("{'schedule':'0 0 1 * *'}"), NULL, NULL,
     NULL},
    {"descriptor", CW_OP_CREATE, 0, NULL, SCHED("{'schedule':'@weekly'}"), NULL, NULL, NULL},
    {"@every", CW_OP_CREATE, 0, NULL, SCHED("{'schedule':'@every 90m'}"), NULL, NULL, NULL},
    {"wrong apiVersion", CW_OP_CREATE, 0, NULL,
     "{'apiVersion':'velero.io/v2','spec':{'schedule':'@daily'}}", NULL, NULL,
     "apiVersion: \"velero.io/v2\" is not a Schedule version (expected velero.io/v1)"},
    {"spec of the wrong type", CW_OP_CREATE, 0, NULL, SCHED("[]"), NULL, NULL,
     "spec: expected object, got array"},
    {"not an object", CW_OP_CREATE, 0, NULL, "null", NULL, NULL,
     "object: expected object, got null"},
    {"Velero writing status on an invalid schedule is not blocked", CW_OP_UPDATE, 0,
     SCHED("{'schedule':'x'}"),
     "{'apiVersion':'velero.io/v1','kind':'Schedule','metadata':{'name':'daily'},"
     "'spec':{'schedule':'x'},'status':{'phase':'FailedValidation'}}",
     NULL,
     "invalid schedule: expected exactly 5 fields, found 1: [x] (already in the stored object, "
     "not blocking)",
     NULL},
    {"changing to another invalid schedule is denied", CW_OP_UPDATE, 0, SCHED("{'schedule':'x'}"),
     SCHED("{'schedule':'y'}"), NULL, NULL,
     "invalid schedule: expected exactly 5 fields, found 1: [y]"},
    {"delete decides nothing", CW_OP_DELETE, 0, NULL, SCHED("{'schedule':'x'}"), NULL, NULL, NULL},
};

static void validation(void **state)
{
    (void)state;
    run_cases(cw_schedule_validate, validate_cases,
              sizeof(validate_cases) / sizeof(validate_cases[0]));
}

static void effective_skip(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        int server, want;
    } cases[] = {
        {"{}", 0, 0},
        {"{}", 1, 1},
        {"{'skipImmediately':null}", 1, 1},
        {"{'skipImmediately':false}", 1, 0},
        {"{'skipImmediately':true}", 0, 1},
    };
    cw_policy_config cfg;
    cw_policy_config_init(&cfg);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_object *o = test_parse(cases[i].spec);
        json_object *s = json_object_new_object();
        json_object_object_add(s, "spec", o);
        int v = -1;
        cfg.schedule_skip_immediately = cases[i].server;
        assert_int_equal(cw_schedule_effective_skip(&cfg, s, &v, NULL), CW_OK);
        assert_int_equal(v, cases[i].want);
        json_object_put(s);
    }
    json_object *s = test_parse(SCHED("{'skipImmediately':'x'}"));
    cw_error err;
    cw_error_init(&err);
    int v;
    assert_int_equal(cw_schedule_effective_skip(&cfg, s, &v, &err), CW_EINVAL);
    assert_string_equal(err.message, "spec.skipImmediately: expected boolean, got string");
    json_object_put(s);
    cw_policy_config_free(&cfg);
}

static void next_run(void **state)
{
    (void)state;
    static const struct {
        const char *cron, *created, *last_backup, *last_skipped, *now;
        int64_t base, next;
        int fires, due;
    } cases[] = {
        /* a new schedule does not fire at once; due only strictly after next */
        {"0 * * * *", "2024-05-01T10:30:00Z", NULL, NULL, "2024-05-01T11:00:00Z", 1714559400,
         1714561200, 1, 0},
        {"0 * * * *", "2024-05-01T10:30:00Z", NULL, NULL, "2024-05-01T11:00:01Z", 1714559400,
         1714561200, 1, 1},
        {"0 * * * *", "2024-05-01T10:30:00Z", "2024-05-01T12:00:00Z", NULL, "2024-05-01T12:30:00Z",
         1714564800, 1714568400, 1, 0},
        /* a later lastSkipped wins, an earlier one is ignored */
        {"0 * * * *", "2024-05-01T10:30:00Z", "2024-05-01T12:00:00Z", "2024-05-01T12:30:00Z",
         "2024-05-01T13:00:00Z", 1714566600, 1714568400, 1, 0},
        {"0 * * * *", "2024-05-01T10:30:00Z", "2024-05-01T12:00:00Z", "2024-05-01T11:30:00Z",
         "2024-05-01T13:00:30Z", 1714564800, 1714568400, 1, 1},
        {"0 * * * *", "2024-05-01T10:30:00Z", NULL, "2024-05-01T11:10:00Z", "2024-05-01T11:30:00Z",
         1714561800, 1714564800, 1, 0},
        /* offsets in the timestamps are honoured */
        {"30 2 * * *", "2024-05-01T10:30:00+02:00", NULL, NULL, "2024-05-03T00:00:00Z", 1714552200,
         1714617000, 1, 1},
        /* never fires: robfig returns the zero time, which Velero would treat as due on every
         * reconcile; cronwarden reports fires = 0 and never due */
        {"0 0 30 2 *", "2024-05-01T10:30:00Z", NULL, NULL, "2030-01-01T00:00:00Z", 1714559400, 0, 0,
         0},
        {"CRON_TZ=Europe/Berlin 0 9 * * *", "2024-05-01T10:30:00Z", NULL, NULL,
         "2024-05-02T07:00:01Z", 1714559400, 1714633200, 1, 1},
        /* fractions are dropped like robfig drops them */
        {"@every 90m", "2024-05-01T10:30:00Z", "2024-05-01T10:45:00.700Z", NULL,
         "2024-05-01T12:15:00Z", 1714560300, 1714565700, 1, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_cron cron;
        cw_error err;
        cw_error_init(&err);
        assert_int_equal(cw_cron_parse(cases[i].cron, &tzdb, &cron, &err), CW_OK);
        json_object *s = test_parse(SCHED("{}"));
        json_object *meta = cw_json_member(s, "metadata"), *status = json_object_new_object();
        json_object_object_add(meta, "creationTimestamp", json_object_new_string(cases[i].created));
        if (cases[i].last_backup)
            json_object_object_add(status, "lastBackup",
                                   json_object_new_string(cases[i].last_backup));
        if (cases[i].last_skipped)
            json_object_object_add(status, "lastSkipped",
                                   json_object_new_string(cases[i].last_skipped));
        json_object_object_add(s, "status", status);
        int64_t now;
        int32_t off;
        assert_int_equal(cw_tz_parse_rfc3339(cases[i].now, &now, &off, NULL), CW_OK);
        cw_schedule_run run;
        assert_int_equal(cw_schedule_next_run(s, &cron, 0, now, &run, &err), CW_OK);
        if (run.base != cases[i].base || run.fires != cases[i].fires ||
            (run.fires && run.next != cases[i].next) || run.due != cases[i].due)
            fail_msg("%s: base %lld next %lld fires %d due %d", cases[i].cron, (long long)run.base,
                     (long long)run.next, run.fires, run.due);
        json_object_put(s);
    }
}

static void next_run_errors(void **state)
{
    (void)state;
    static const struct {
        const char *obj, *want; /* want: the message, or its prefix ending in ": " */
    } cases[] = {
        {SCHED("{}"), "metadata.creationTimestamp: missing (needed while status.lastBackup is not "
                      "set)"},
        {"{'metadata':{},'status':{'lastBackup':null}}",
         "metadata.creationTimestamp: missing (needed while status.lastBackup is not set)"},
        {"{'metadata':{},'status':{'lastBackup':'yesterday'}}", "status.lastBackup: "},
        {"{'metadata':{'creationTimestamp':'2024-05-01T10:30:00Z'},'status':{'lastSkipped':5}}",
         "status.lastSkipped: expected string, got integer"},
        {"{'metadata':{'creationTimestamp':'soon'}}", "metadata.creationTimestamp: "},
    };
    cw_cron cron;
    assert_int_equal(cw_cron_parse("@hourly", NULL, &cron, NULL), CW_OK);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_object *s = test_parse(cases[i].obj);
        cw_error err;
        cw_error_init(&err);
        cw_schedule_run run;
        assert_int_equal(cw_schedule_next_run(s, &cron, 0, 0, &run, &err), CW_EINVAL);
        size_t n = strlen(cases[i].want);
        if (cases[i].want[n - 1] == ' ')
            assert_memory_equal(err.message, cases[i].want, n);
        else
            assert_string_equal(err.message, cases[i].want);
        json_object_put(s);
    }
    /* A lastBackup makes the creation time unnecessary. */
    json_object *s = test_parse("{'status':{'lastBackup':'2024-05-01T12:00:00Z'}}");
    cw_schedule_run run;
    assert_int_equal(cw_schedule_next_run(s, &cron, 0, 1714568401, &run, NULL), CW_OK);
    assert_int_equal(run.next, 1714568400);
    assert_true(run.due);
    json_object_put(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaulting),      cmocka_unit_test(validation),
        cmocka_unit_test(effective_skip),  cmocka_unit_test(next_run),
        cmocka_unit_test(next_run_errors),
    };
    return cmocka_run_group_tests(tests, tzdb_setup, tzdb_teardown);
}
