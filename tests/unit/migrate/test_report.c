/* migrate/report: the summary and exit code of real plans, and the text and JSON reports of a
 * small one, exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "migrate/report.h"
#include "plan_helpers.h"

#define VOLUME(name, jobs)                                                                         \
    "---\napiVersion: longhorn.io/v1beta1\nkind: Volume\nmetadata: {name: " name                   \
    ", namespace: longhorn-system}\nspec:\n  recurringJobs: " jobs "\n"

typedef struct {
    const char *what;
    const char *yaml;
    size_t vol_to_change, vol_invalid, jobs_create;
    int exit_plain, exit_detailed;
} summary_case;

static const summary_case cases[] = {
    {"nothing to do: labelled, no legacy jobs",
     "apiVersion: longhorn.io/v1beta2\nkind: Volume\nmetadata: {name: a, namespace: "
     "longhorn-system, "
     "labels: {recurring-job-group.longhorn.io/default: enabled}}\nspec: {}\n",
     0, 0, 0, 0, 0},
    {"an empty legacy list still migrates (removed, default label added)", VOLUME("a", "[]"), 1, 0,
     0, 0, 3},
    {"one volume to migrate: pending, nothing wrong",
     VOLUME("a", "[{name: s, task: snapshot, cron: '0 1 * * *', retain: 2}]"), 1, 0, 1, 0, 3},
    {"two volumes share one job",
     VOLUME("a", "[{name: s, task: snapshot, cron: '0 1 * * *', retain: 2}]")
         VOLUME("b", "[{name: t, task: snapshot, cron: '0 1 * * *', retain: 2}]"),
     2, 0, 1, 0, 3},
    {"an invalid legacy job: exit 1 however detailed",
     VOLUME("a", "[{name: s, task: snapshot, cron: '0 25 * * *', retain: 2}]"), 0, 1, 0, 1, 1},
};

static void summary_and_exit_codes(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const summary_case *c = &cases[k];
        test_plan t;
        print_message("case: %s\n", c->what);
        assert_int_equal(test_plan_run(&t, c->yaml, CW_NAMES_XXH32, 1), CW_OK);
        cw_report_summary s;
        cw_report_summarize(&t.plan, &s);
        assert_int_equal(s.volumes.to_change, c->vol_to_change);
        assert_int_equal(s.volumes.invalid, c->vol_invalid);
        assert_int_equal(s.jobs_create, c->jobs_create);
        assert_int_equal(cw_report_exit_code(&s, 0), c->exit_plain);
        assert_int_equal(cw_report_exit_code(&s, 1), c->exit_detailed);
        test_plan_free(&t);
    }
}

static void json_report_of_one_migration(void **state)
{
    (void)state;
    test_plan t;
    assert_int_equal(
        test_plan_run(&t, VOLUME("a", "[{name: s, task: snapshot, cron: '0 1 * * *', retain: 2}]"),
                      CW_NAMES_LONGHORN, 1),
        CW_OK);
    cw_report_info info = {.mode = "offline", .files = 1};
    json_object *r = NULL;
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_report_json(&t.plan, &info, &r, &err), CW_OK);
    assert_string_equal(json_object_get_string(json_object_object_get(r, "kind")),
                        "MigrationReport");
    json_object *jobs = json_object_object_get(r, "recurringJobs");
    assert_int_equal(json_object_array_length(jobs), 1);
    json_object *job = json_object_array_get_idx(jobs, 0);
    /* Longhorn 1.2's own name for it (docs/names.md): FNV-1a of the cron and of "null" */
    assert_string_equal(json_object_get_string(json_object_object_get(job, "name")),
                        "snapshot-2-e3afc862-77074ba4");
    assert_string_equal(json_object_get_string(json_object_object_get(job, "action")), "create");
    assert_string_equal(json_object_get_string(json_object_object_get(job, "result")), "pending");
    json_object *vol = json_object_array_get_idx(json_object_object_get(r, "volumes"), 0);
    assert_string_equal(json_object_get_string(json_object_object_get(vol, "action")), "migrate");
    json_object_put(r);
    test_plan_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(summary_and_exit_codes),
        cmocka_unit_test(json_report_of_one_migration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
