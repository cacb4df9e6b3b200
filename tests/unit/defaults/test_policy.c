/* Shared policy types: configuration ranges, operations, decisions and the UPDATE ratchet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "defaults/policy.h"
#include "lib/json.h"

static void config_defaults_and_ranges(void **state)
{
    (void)state;
    static const struct {
        int max_retain;
        const char *group; /* "-": keep the default */
        int skip;
        const char *want; /* NULL: valid */
    } cases[] = {
        {100, "-", 0, NULL},
        {1, "-", 1, NULL},
        {250, "gold", 0, NULL},
        {100, "", 0, NULL},   /* disabled */
        {100, NULL, 0, NULL}, /* disabled */
        {100, "Gold_1.x", 0, NULL},
        {0, "-", 0, "max-retain: 0 is outside 1..250"},
        {251, "-", 0, "max-retain: 251 is outside 1..250"},
        {100, "-", 2, "schedule-skip-immediately: must be true or false"},
        {100, "g", 0, "default-group: \"g\" must match ^[a-zA-Z0-9][a-zA-Z0-9_.-]+$"},
        {100, "bad group", 0,
         "default-group: \"bad group\" must match ^[a-zA-Z0-9][a-zA-Z0-9_.-]+$"},
        {100, "gold-", 0,
         "default-group: \"gold-\" must end with a letter or digit and have at most 63 "
         "characters, so that the volume label key recurring-job-group.longhorn.io/<group> is "
         "valid"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_policy_config cfg;
        cw_error err;
        cw_error_init(&err);
        assert_int_equal(cw_policy_config_init(&cfg), CW_OK);
        assert_int_equal(cfg.max_retain, 100);
        assert_string_equal(cfg.default_group, "default");
        assert_int_equal(cfg.schedule_skip_immediately, 0);
        assert_null(cfg.tzdb);
        cfg.max_retain = cases[i].max_retain;
        cfg.schedule_skip_immediately = cases[i].skip;
        if (!cases[i].group || strcmp(cases[i].group, "-") != 0) {
            assert_int_equal(cw_policy_config_set_default_group(&cfg, cases[i].group, &err), CW_OK);
            if (!cases[i].group || !*cases[i].group)
                assert_null(cfg.default_group);
        }
        int rc = cw_policy_config_validate(&cfg, &err);
        if (cases[i].want) {
            assert_int_equal(rc, CW_EINVAL);
            assert_string_equal(err.message, cases[i].want);
        } else {
            assert_int_equal(rc, CW_OK);
        }
        cw_policy_config_free(&cfg);
    }
}

static void operations_parse(void **state)
{
    (void)state;
    static const char *const names[] = {"CREATE", "UPDATE", "DELETE", "CONNECT"};
    for (int i = 0; i < 4; i++) {
        cw_operation op;
        assert_int_equal(cw_operation_parse(names[i], &op, NULL), CW_OK);
        assert_int_equal(op, i);
        assert_string_equal(cw_operation_name(op), names[i]);
    }
    cw_operation op;
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_operation_parse("create", &op, &err), CW_EINVAL);
    assert_string_equal(
        err.message, "unknown operation \"create\" (expected CREATE, UPDATE, DELETE or CONNECT)");
}

static void decision_message_and_ratchet(void **state)
{
    (void)state;
    cw_decision d;
    cw_strlist now, before;
    cw_decision_init(&d);
    cw_strlist_init(&now);
    cw_strlist_init(&before);
    assert_non_null(d.patch);
    assert_string_equal(cw_json_compact(d.patch), "[]");
    char *msg = cw_decision_message(&d);
    assert_string_equal(msg, "");
    free(msg);
    assert_false(cw_decision_denied(&d));

    cw_strlist_add(&now, "spec.retain: 300 exceeds the maximum of 100");
    cw_strlist_add(&now, "spec.cron: must not be empty");
    cw_strlist_add(&before, "spec.retain: 300 exceeds the maximum of 100");
    assert_int_equal(cw_decision_add_problems(&d, &now, &before), CW_OK);
    assert_int_equal(d.problems.len, 1);
    assert_int_equal(d.warnings.len, 1);
    assert_string_equal(d.warnings.items[0], "spec.retain: 300 exceeds the maximum of 100 "
                                             "(already in the stored object, not blocking)");
    assert_int_equal(cw_decision_add_problems(&d, &now, NULL), CW_OK);
    msg = cw_decision_message(&d);
    assert_string_equal(msg, "spec.cron: must not be empty; spec.retain: 300 exceeds the maximum "
                             "of 100; spec.cron: must not be empty");
    free(msg);
    assert_true(cw_decision_denied(&d));

    cw_strlist_clear(&now);
    cw_policy_problem(&now, "spec", "cron", "x %d", 1);
    cw_policy_problem(&now, "", "apiVersion", "y");
    cw_policy_problem(&now, "spec.recurringJobs[0]", NULL, "z");
    cw_policy_item_problem(&now, "spec", "labels", "a/b", "w");
    cw_policy_item_problem(&now, NULL, "groups", "0", "v");
    msg = cw_strlist_join(&now, "|");
    assert_string_equal(msg, "spec.cron: x 1|apiVersion: y|spec.recurringJobs[0]: z|"
                             "spec.labels[a/b]: w|groups[0]: v");
    free(msg);
    cw_strlist_free(&now);
    cw_strlist_free(&before);
    cw_decision_free(&d);
    cw_decision_free(&d); /* idempotent */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(config_defaults_and_ranges),
        cmocka_unit_test(operations_parse),
        cmocka_unit_test(decision_message_and_ratchet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
