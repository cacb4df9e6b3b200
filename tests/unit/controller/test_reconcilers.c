/* controller/core/reconciler: --controllers as kube-controller-manager reads it, over a registry
 * of five reconcilers of which two are on by default. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "controller/core/reconciler.h"

static const cw_reconciler_ops r_schedule = {.name = "schedule"};
static const cw_reconciler_ops r_rj = {.name = "recurringjob", .default_enabled = 1};
static const cw_reconciler_ops r_volume = {.name = "volume", .default_enabled = 1};
static const cw_reconciler_ops r_queue = {.name = "backup-queue"};
static const cw_reconciler_ops r_nab = {.name = "nonadminbackup"};
static const cw_reconciler_ops *const registry[] = {&r_schedule, &r_rj,  &r_volume,
                                                    &r_queue,    &r_nab, NULL};

static const struct {
    const char *spec;
    const char *want; /* the names selected, comma-joined; or the error message */
    int rc;
} cases[] = {
    {NULL, "recurringjob,volume", CW_OK},
    {"", "recurringjob,volume", CW_OK},
    {"schedule", "schedule", CW_OK},
    {"volume,schedule", "schedule,volume", CW_OK}, /* registry order, not the list's */
    {"*", "schedule,recurringjob,volume,backup-queue,nonadminbackup", CW_OK},
    {"*,-schedule,-nonadminbackup", "recurringjob,volume,backup-queue", CW_OK},
    {" schedule , volume ", "schedule,volume", CW_OK},
    {"schedule,,volume,", "schedule,volume", CW_OK},
    {"-volume,volume", "volume", CW_OK}, /* left to right: the last word wins */
    {"volume,-volume,schedule", "schedule", CW_OK},
    {"schedules",
     "--controllers: unknown controller \"schedules\" (known: schedule, recurringjob, volume, "
     "backup-queue, nonadminbackup)",
     CW_EINVAL},
    {"-bogus",
     "--controllers: unknown controller \"bogus\" (known: schedule, recurringjob, volume, "
     "backup-queue, nonadminbackup)",
     CW_EINVAL},
    {"*,-*",
     "--controllers: unknown controller \"*\" (known: schedule, recurringjob, volume, "
     "backup-queue, nonadminbackup)",
     CW_EINVAL},
    {"-schedule",
     "--controllers: no controller is enabled (give at least one of the names, or `*` for all)",
     CW_EINVAL},
    {",",
     "--controllers: no controller is enabled (give at least one of the names, or `*` for all)",
     CW_EINVAL},
};

static void controllers_flag_selects_like_kube_controller_manager(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const cw_reconciler_ops *out[CW_RECONCILERS_MAX];
        size_t n = 99;
        cw_error err;
        cw_error_init(&err);
        int rc = cw_reconcilers_select(registry, cases[i].spec, out, &n, &err);
        assert_int_equal(rc, cases[i].rc);
        if (rc != CW_OK) {
            assert_string_equal(err.message, cases[i].want);
            continue;
        }
        char got[256] = "";
        for (size_t j = 0; j < n; j++) {
            size_t used = strlen(got);
            snprintf(got + used, sizeof(got) - used, "%s%s", j ? "," : "", out[j]->name);
        }
        assert_string_equal(got, cases[i].want);
    }
}

static void names_lists_all_or_the_defaults(void **state)
{
    (void)state;
    char buf[256];
    cw_reconcilers_names(registry, buf, sizeof(buf), 0);
    assert_string_equal(buf, "schedule, recurringjob, volume, backup-queue, nonadminbackup");
    cw_reconcilers_names(registry, buf, sizeof(buf), 1);
    assert_string_equal(buf, "recurringjob, volume");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(controllers_flag_selects_like_kube_controller_manager),
        cmocka_unit_test(names_lists_all_or_the_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
