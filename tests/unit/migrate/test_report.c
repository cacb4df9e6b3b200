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

/* The streamed JSON report is json-c's rendering of the tree, byte for byte: over real plans,
 * online and offline, empty and full, with awkward text in names, results and errors. */
static void streamed_json_equals_the_tree(void **state)
{
    (void)state;
    static const char *extra[] = {
        VOLUME("b", "[{name: \"tab\\tquote\\\"slash/ctl\\u0001\\u001f\\u007f é\", task: "
                    "backup, cron: '0 1 * * *', retain: 2, labels: {k/x: \"v\\nw\"}}]")
            VOLUME("c", "[{name: bad, task: snapshot, cron: '0 25 * * *', retain: 2}]")
                VOLUME("d", "[]"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: unrelated, namespace: x}\n",
    };
    const cw_report_info infos[] = {
        {.mode = "offline", .files = 3},
        {.mode = "offline", .output_dir = "out/dir", .files = 1},
        {.mode = "online", .dry_run = "server"},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]) + 2; k++) {
        const char *yaml = k < sizeof(cases) / sizeof(cases[0])
                               ? cases[k].yaml
                               : extra[k - sizeof(cases) / sizeof(cases[0])];
        test_plan t;
        assert_int_equal(test_plan_run(&t, yaml, CW_NAMES_XXH32, 1), CW_OK);
        int failed = 0; /* a result with a message, as an online run records them */
        for (size_t i = 0; i < t.plan.nitems && !failed; i++) {
            if (cw_plan_item_action(&t.plan, i) != CW_ACT_MIGRATE)
                continue;
            failed = 1;
            cw_error err;
            cw_error_init(&err);
            assert_int_equal(cw_plan_item_set_result(&t.plan, i, CW_RES_FAILED,
                                                     "PATCH /x: 409 \"Conflict\"\r\n\x02", &err),
                             CW_OK);
        }
        assert_int_equal(cw_plan_record_error(&t.plan, "Volume ns/v", "file: \"f\"", "bad\tone"),
                         CW_OK);
        for (size_t i = 0; i < sizeof(infos) / sizeof(infos[0]); i++) {
            cw_error err;
            cw_error_init(&err);
            json_object *r = NULL;
            assert_int_equal(cw_report_json(&t.plan, &infos[i], &r, &err), CW_OK);
            cw_buf want, got, got2;
            cw_buf_init(&want);
            cw_buf_init(&got);
            cw_buf_init(&got2);
            assert_int_equal(
                cw_buf_puts(&want, json_object_to_json_string_ext(
                                       r, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                              JSON_C_TO_STRING_NOSLASHESCAPE)),
                CW_OK);
            assert_int_equal(cw_buf_putc(&want, '\n'), CW_OK);
            assert_int_equal(cw_report_json_write(&t.plan, &infos[i], &got, NULL, &err), CW_OK);
            if (strcmp(cw_buf_str(&want), cw_buf_str(&got)) != 0)
                fail_msg("case %zu/%zu differs:\n--- tree\n%s\n--- stream\n%s", k, i,
                         cw_buf_str(&want), cw_buf_str(&got));
            if (k == sizeof(cases) / sizeof(cases[0])) /* the awkward text made it in */
                assert_non_null(strstr(cw_buf_str(&got), "tab\\tquote\\\"slash/ctl\\u0001\\u001f"));
            if (failed)
                assert_non_null(strstr(cw_buf_str(&got), "409 \\\"Conflict\\\"\\r\\n\\u0002"));
            /* through a FILE, flushed as it goes */
            FILE *f = tmpfile();
            assert_non_null(f);
            assert_int_equal(cw_report_json_write(&t.plan, &infos[i], &got2, f, &err), CW_OK);
            assert_int_equal(got2.len, 0);
            rewind(f);
            char buf[4096];
            size_t n;
            while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
                assert_int_equal(cw_buf_append(&got2, buf, n), CW_OK);
            fclose(f);
            assert_string_equal(cw_buf_str(&want), cw_buf_str(&got2));
            cw_buf_free(&want);
            cw_buf_free(&got);
            cw_buf_free(&got2);
            json_object_put(r);
        }
        test_plan_free(&t);
    }
}

/* Every report form stops at a failing item file with the read's own error (it said "out of
 * memory"): a plan with a job reads its sources first, one without jobs the items' order. */
static void a_failing_item_file_is_the_reports_error(void **state)
{
    (void)state;
    static const char *yamls[] = {
        VOLUME("a", "[{name: s, task: snapshot, cron: '0 1 * * *', retain: 2}]"),
        VOLUME("d", "[]"),
    };
    for (size_t k = 0; k < sizeof(yamls) / sizeof(yamls[0]); k++) {
        for (int form = 0; form < 3; form++) {
            test_plan t;
            print_message("case %zu, form %d\n", k, form);
            assert_int_equal(test_plan_run_in(&t, yamls[k], CW_NAMES_XXH32, 1, "/tmp"), CW_OK);
            test_plan_break_item_file(&t.plan);
            cw_report_info info = {.mode = "offline", .files = 1};
            cw_error err;
            cw_error_init(&err);
            json_object *r = NULL;
            cw_buf b;
            cw_buf_init(&b);
            FILE *devnull = fopen("/dev/null", "w");
            assert_non_null(devnull);
            int rc = form == 0   ? cw_report_json(&t.plan, &info, &r, &err)
                     : form == 1 ? cw_report_json_write(&t.plan, &info, &b, NULL, &err)
                                 : cw_report_text(&t.plan, &info, devnull, &err);
            assert_int_equal(rc, CW_EIO);
            assert_string_equal(err.message, TEST_ITEM_FILE_EIO);
            assert_null(r);
            fclose(devnull);
            cw_buf_free(&b);
            test_plan_free(&t);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(summary_and_exit_codes),
        cmocka_unit_test(json_report_of_one_migration),
        cmocka_unit_test(streamed_json_equals_the_tree),
        cmocka_unit_test(a_failing_item_file_is_the_reports_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
