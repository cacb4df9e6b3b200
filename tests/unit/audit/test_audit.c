/* audit/: the selection and release model (groups, the default group, job labels, legacy jobs,
 * concurrency, Forbid), replacement by identity, StorageClass selectors, and daylight-saving
 * findings in several zones. Every case: objects in, exact figures out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "audit/audit.h"
#include "tests/unit/tzdb_fixture.h"

#define RJ(name, cron, conc, groups)                                                               \
    "{\"apiVersion\":\"longhorn.io/"                                                               \
    "v1beta2\",\"kind\":\"RecurringJob\",\"metadata\":{\"name\":\"" name                           \
    "\",\"namespace\":\"longhorn-system\"},\"spec\":{\"task\":\"snapshot\",\"cron\":\"" cron       \
    "\",\"concurrency\":" #conc ",\"groups\":" groups "}}"
#define VOL(name, labels)                                                                          \
    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{\"name\":\"" name   \
    "\",\"namespace\":\"longhorn-system\",\"labels\":" labels "},\"spec\":{}}"
#define LEGACY(name, jobs)                                                                         \
    "{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"Volume\",\"metadata\":{\"name\":\"" name   \
    "\",\"namespace\":\"longhorn-system\"},\"spec\":{\"recurringJobs\":" jobs "}}"
#define SCHED(name, cron, paused)                                                                  \
    "{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{\"name\":\"" name        \
    "\",\"namespace\":\"velero\"},\"spec\":{\"schedule\":\"" cron "\",\"paused\":" #paused "}}"

typedef struct {
    const char *label; /* cw_audit_job_label */
    size_t volumes, fires, skipped, starts;
    int64_t run_seconds;
} want_job;

typedef struct {
    const char *what;
    const char *objects[10];
    const char *default_group; /* NULL: "default" */
    int64_t window;            /* seconds; 0: one day */
    want_job jobs[6];
    uint64_t max_starts, max_running;
} model_case;

/* 2026-11-24T00:00:00Z, a Tuesday */
#define FROM 1795478400

static const model_case model_cases[] = {
    {"job label, group labels and the default group select each volume once",
     {RJ("a", "0 0 * * *", 10, "[\"default\"]"), RJ("b", "0 0 * * *", 10, "[\"g1\"]"),
      RJ("c", "0 0 * * *", 10, "[]"), VOL("v1", "{}"),
      VOL("v2", "{\"recurring-job-group.longhorn.io/g1\":\"enabled\"}"),
      VOL("v3", "{\"recurring-job.longhorn.io/c\":\"enabled\"}"),
      VOL("v4", "{\"recurring-job.longhorn.io/c\":\"enabled\","
                "\"recurring-job-group.longhorn.io/g1\":\"enabled\"}"),
      /* a job label that is not "enabled" still keeps the default group away */
      VOL("v5", "{\"recurring-job.longhorn.io/x\":\"disabled\"}")},
     NULL,
     0,
     {{"recurringjob longhorn-system/a", 1, 1, 0, 1, 60},
      {"recurringjob longhorn-system/b", 2, 1, 0, 2, 60},
      {"recurringjob longhorn-system/c", 2, 1, 0, 2, 60}},
     5,
     5},
    {"no default group",
     {RJ("a", "0 0 * * *", 10, "[\"default\"]"), VOL("v1", "{}"), VOL("v2", "{}")},
     "",
     0,
     {{"recurringjob longhorn-system/a", 0, 1, 0, 0, 0}},
     0,
     0},
    {"concurrency 4 releases 4, 4, then 1 volume a minute apart",
     {RJ("a", "0 0 * * *", 4, "[\"default\"]"), VOL("v00", "{}"), VOL("v01", "{}"),
      VOL("v02", "{}"), VOL("v03", "{}"), VOL("v04", "{}"), VOL("v05", "{}"), VOL("v06", "{}"),
      VOL("v07", "{}"), VOL("v08", "{}")},
     NULL,
     0,
     {{"recurringjob longhorn-system/a", 9, 1, 0, 9, 180}},
     4,
     4},
    {"a run longer than the interval skips fires (Forbid)",
     {RJ("a", "*/5 * * * *", 1, "[\"default\"]"), VOL("v0", "{}"), VOL("v1", "{}"), VOL("v2", "{}"),
      VOL("v3", "{}"), VOL("v4", "{}"), VOL("v5", "{}"), VOL("v6", "{}"), VOL("v7", "{}"),
      VOL("v8", "{}")},
     NULL,
     3600,
     /* 12 fires; runs of 9 minutes start at :00 :10 ... :50 and skip the fires between; the
      * last run has 9 minutes but only the window's last 10 */
     {{"recurringjob longhorn-system/a", 9, 12, 6, 54, 540}},
     1,
     1},
    {"legacy jobs: one CronJob per volume, equal (task, cron) fire together; no default group",
     {RJ("a", "0 2 * * *", 10, "[\"default\"]"),
      LEGACY("v1", "[{\"name\":\"s\",\"task\":\"snapshot\",\"cron\":\"0 2 * * *\",\"retain\":1}]"),
      LEGACY("v2", "[{\"name\":\"s\",\"task\":\"snapshot\",\"cron\":\"0 2 * * *\",\"retain\":3},"
                   "{\"name\":\"b\",\"task\":\"backup\",\"cron\":\"0 2 * * *\",\"retain\":1}]"),
      LEGACY("v3", "[{\"name\":\"s2\",\"task\":\"snapshot\",\"cron\":\"0 2 * * *\"}]")},
     NULL,
     0,
     {{"recurringjob longhorn-system/a", 0, 1, 0, 0, 0},
      {"legacy backup '0 2 * * *' (1 volume)", 1, 1, 0, 1, 600},
      {"legacy snapshot '0 2 * * *' (3 volumes)", 3, 1, 0, 3, 60}},
     4,
     4},
    {"a later copy of an object replaces the earlier one",
     {RJ("a", "0 0 * * *", 10, "[\"default\"]"), VOL("v1", "{}"),
      VOL("v2", "{\"recurring-job-group.longhorn.io/g1\":\"enabled\"}"),
      RJ("a", "0 */6 * * *", 10, "[\"g1\"]"), VOL("v2", "{}")},
     NULL,
     0,
     {{"recurringjob longhorn-system/a", 0, 4, 0, 0, 0}},
     0,
     0},
    {"Velero Schedules start one backup each; paused ones are left out",
     {SCHED("nightly", "0 0 * * *", false), SCHED("hourly", "@hourly", false),
      SCHED("off", "0 0 * * *", true)},
     NULL,
     0,
     {{"schedule velero/hourly", 1, 24, 0, 24, 600},
      {"schedule velero/nightly", 1, 1, 0, 1, 600},
      {"schedule velero/off", 1, 0, 0, 0, 0}},
     2,
     2},
};

static void run_case(const model_case *c, cw_audit *a)
{
    cw_audit_config cfg;
    cw_error err;
    cw_error_init(&err);
    cw_audit_config_init(&cfg);
    cfg.from = FROM;
    cfg.window = c->window ? c->window : 86400;
    cfg.tzdb = &tzdb;
    if (c->default_group)
        cfg.default_group = c->default_group;
    assert_int_equal(cw_audit_init(a, &cfg, &err), CW_OK);
    for (size_t i = 0; i < 10 && c->objects[i]; i++) {
        json_object *o = json_tokener_parse(c->objects[i]);
        assert_non_null(o);
        assert_int_equal(cw_audit_add(a, o, "test", &err), CW_OK);
        json_object_put(o);
    }
    assert_int_equal(cw_audit_run(a, &err), CW_OK);
}

static void selection_and_release(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof(model_cases) / sizeof(model_cases[0]); k++) {
        const model_case *c = &model_cases[k];
        cw_audit a;
        print_message("case: %s\n", c->what);
        run_case(c, &a);
        size_t n = 0;
        while (n < 6 && c->jobs[n].label)
            n++;
        assert_int_equal(a.njobs, n);
        for (size_t i = 0; i < n; i++) {
            char label[256];
            cw_audit_job_label(&a.jobs[i], label, sizeof(label));
            assert_string_equal(label, c->jobs[i].label);
            assert_int_equal(a.jobs[i].volumes, c->jobs[i].volumes);
            assert_int_equal(a.jobs[i].fires, c->jobs[i].fires);
            assert_int_equal(a.jobs[i].skipped, c->jobs[i].skipped);
            assert_int_equal(a.jobs[i].starts, c->jobs[i].starts);
            if (a.jobs[i].valid)
                assert_int_equal(a.jobs[i].run_seconds, c->jobs[i].run_seconds);
        }
        assert_int_equal(a.max_starts_seen, c->max_starts);
        assert_int_equal(a.max_running_seen, c->max_running);
        cw_audit_free(&a);
    }
}

static void storageclass_selectors(void **state)
{
    (void)state;
    static const model_case c = {
        .what = "StorageClasses",
        .objects = {"{\"apiVersion\":\"storage.k8s.io/"
                    "v1\",\"kind\":\"StorageClass\",\"metadata\":{\"name\":"
                    "\"fast\"},\"provisioner\":\"driver.longhorn.io\",\"parameters\":{"
                    "\"recurringJobSelector\":"
                    "\"[{\\\"name\\\":\\\"snap\\\",\\\"isGroup\\\":false},{\\\"name\\\":\\\"db\\\","
                    "\\\"isGroup\\\":true}]\"}}",
                    "{\"apiVersion\":\"storage.k8s.io/"
                    "v1\",\"kind\":\"StorageClass\",\"metadata\":{\"name\":"
                    "\"other\"},\"provisioner\":\"ebs.csi.aws.com\"}",
                    "{\"apiVersion\":\"storage.k8s.io/"
                    "v1\",\"kind\":\"StorageClass\",\"metadata\":{\"name\":"
                    "\"plain\"},\"provisioner\":\"driver.longhorn.io\"}"},
    };
    cw_audit a;
    run_case(&c, &a);
    assert_int_equal(a.nclasses, 2);
    assert_string_equal(a.classes[0].name, "fast");
    assert_int_equal(a.classes[0].selectors.len, 2);
    assert_string_equal(a.classes[0].selectors.items[0], "job:snap");
    assert_string_equal(a.classes[0].selectors.items[1], "group:db");
    assert_string_equal(a.classes[1].name, "plain");
    assert_int_equal(a.classes[1].selectors.len, 0);
    assert_int_equal(a.skipped_objects, 1);
    cw_audit_free(&a);
}

typedef struct {
    const char *cron;
    const char *findings[3]; /* "kind|message" */
} zone_case;

static const zone_case zone_cases[] = {
    {"CRON_TZ=Europe/Berlin 30 2 * * *",
     {"dst-skipped|2027-03-28 02:30 local (Europe/Berlin) does not exist: clocks go from 02:00 to "
      "03:00, so 'CRON_TZ=Europe/Berlin 30 2 * * *' does not fire then",
      "dst-repeated|2027-10-31 02:30 local (Europe/Berlin) happens twice: clocks go back from "
      "03:00 "
      "to 02:00; 'CRON_TZ=Europe/Berlin 30 2 * * *' fires twice then"}},
    {"CRON_TZ=America/New_York 30 2 * * *",
     {"dst-skipped|2027-03-14 02:30 local (America/New_York) does not exist: clocks go from 02:00 "
      "to 03:00, so 'CRON_TZ=America/New_York 30 2 * * *' does not fire then"}},
    {"TZ=America/New_York 45 1 * * SUN",
     {"dst-repeated|2027-11-07 01:45 local (America/New_York) happens twice: clocks go back from "
      "02:00 to 01:00; 'TZ=America/New_York 45 1 * * SUN' fires twice then"}},
    {"CRON_TZ=Australia/Sydney 15 2 * * *",
     {"dst-repeated|2027-04-04 02:15 local (Australia/Sydney) happens twice: clocks go back from "
      "03:00 to 02:00; 'CRON_TZ=Australia/Sydney 15 2 * * *' fires twice then",
      "dst-skipped|2027-10-03 02:15 local (Australia/Sydney) does not exist: clocks go from 02:00 "
      "to 03:00, so 'CRON_TZ=Australia/Sydney 15 2 * * *' does not fire then"}},
    /* a day restriction the change day does not meet: nothing to say */
    {"CRON_TZ=Europe/Berlin 30 2 * * MON", {NULL}},
    {"CRON_TZ=Asia/Kolkata 30 2 * * *", {NULL}},
    {"CRON_TZ=Europe/Berlin 0 3 * * *", {NULL}},
    {"TZ=Europe/Berlin @every 1h", {NULL}},
};

static void daylight_saving_findings(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof(zone_cases) / sizeof(zone_cases[0]); k++) {
        char obj[512];
        snprintf(obj, sizeof(obj), RJ("z", "%s", 10, "[\"default\"]"), zone_cases[k].cron);
        model_case c = {.objects = {obj, VOL("v", "{}")}};
        cw_audit a;
        print_message("zone case: %s\n", zone_cases[k].cron);
        run_case(&c, &a);
        size_t n = 0;
        while (n < 3 && zone_cases[k].findings[n])
            n++;
        assert_int_equal(a.nfindings, n);
        for (size_t i = 0; i < n; i++) {
            char got[1200];
            snprintf(got, sizeof(got), "%s|%s", a.findings[i].kind, a.findings[i].message);
            assert_string_equal(got, zone_cases[k].findings[i]);
            assert_string_equal(a.findings[i].job, "recurringjob longhorn-system/z");
        }
        cw_audit_free(&a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(selection_and_release),
        cmocka_unit_test(storageclass_selectors),
        cmocka_unit_test(daylight_saving_findings),
    };
    return cmocka_run_group_tests(tests, tzdb_setup, tzdb_teardown);
}
