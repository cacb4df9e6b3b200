/* migrate/apply: how legacy CronJobs are cut into deletecollection batches (one label selector
 * `longhornvolume in (...)` each), exactly; a failing item file stops the run with its error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "migrate/apply.h"
#include "migrate/scbackup.h"
#include "plan_helpers.h"

#define MAXJ 8

typedef struct {
    const char *what;
    const char *jobs[MAXJ][2]; /* namespace, volume; ordered as run_cronjobs orders them */
    size_t max_volumes, max_bytes;
    const char *want; /* batch starts, then the end: "0,2|3" */
} batch_case;

static const batch_case cases[] = {
    {"nothing to delete", {{NULL}}, 100, 6000, "|0"},
    {"one volume, two CronJobs: one batch", {{"lh", "a"}, {"lh", "a"}}, 100, 6000, "0|2"},
    {"three volumes under the limit",
     {{"lh", "a"}, {"lh", "b"}, {"lh", "b"}, {"lh", "c"}},
     100,
     6000,
     "0|4"},
    {"two volumes per batch; a volume's CronJobs stay together",
     {{"lh", "a"}, {"lh", "a"}, {"lh", "b"}, {"lh", "c"}, {"lh", "c"}, {"lh", "d"}, {"lh", "e"}},
     2,
     6000,
     "0,3,6|7"},
    {"a new namespace starts a batch",
     {{"a-ns", "v"}, {"b-ns", "v"}, {"b-ns", "w"}},
     100,
     6000,
     "0,1|3"},
    /* "vol-1," and "vol-2," are 6 bytes each: 12 fit, the third volume does not */
    {"the selector's length",
     {{"lh", "vol-1"}, {"lh", "vol-2"}, {"lh", "vol-3"}},
     100,
     12,
     "0,2|3"},
    {"a name longer than the limit still goes, alone",
     {{"lh", "a-very-long-volume-name"}, {"lh", "b"}},
     100,
     5,
     "0,1|2"},
};

static void cronjob_batches(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const batch_case *c = &cases[k];
        cw_plan p;
        memset(&p, 0, sizeof(p));
        cw_plan_cronjob cj[MAXJ];
        size_t idx[MAXJ], start[MAXJ + 1], m = 0;
        memset(cj, 0, sizeof(cj));
        for (; m < MAXJ && c->jobs[m][0]; m++) {
            cj[m].namespace = (char *)c->jobs[m][0];
            cj[m].volume = (char *)c->jobs[m][1];
            idx[m] = m;
        }
        p.cronjobs = cj;
        p.ncronjobs = m;
        size_t nb = cw_apply_cronjob_batches(&p, idx, m, c->max_volumes, c->max_bytes, start);
        char got[64] = "";
        for (size_t b = 0; b < nb; b++)
            snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%zu", b ? "," : "", start[b]);
        snprintf(got + strlen(got), sizeof(got) - strlen(got), "|%zu", start[nb]);
        if (strcmp(got, c->want) != 0)
            fail_msg("%s: got %s want %s", c->what, got, c->want);
    }
}

/* The volumes' and the StorageClasses' passes read their order from the plan's item file first:
 * a read that fails stops the run with that error (it said "out of memory"), before any request
 * (there is no client here to make one). */
static void a_failing_item_file_stops_the_run(void **state)
{
    (void)state;
    static const struct {
        const char *yaml;
        int scbackup; /* 0: cw_apply_run (no job to create: volumes first), 1: cw_scbackup_run */
    } runs[] = {
        {"apiVersion: longhorn.io/v1beta1\nkind: Volume\nmetadata: {name: a, namespace: "
         "longhorn-system}\nspec: {recurringJobs: []}\n",
         0},
        {"apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: lh}\nprovisioner: "
         "driver.longhorn.io\nparameters: {recurringJobs: '[]'}\n",
         1},
    };
    for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
        test_plan t;
        assert_int_equal(test_plan_run_in(&t, runs[k].yaml, CW_NAMES_XXH32, 1, "/tmp"), CW_OK);
        assert_int_equal(cw_plan_item_action(&t.plan, 0), CW_ACT_MIGRATE);
        test_plan_break_item_file(&t.plan);
        cw_apply a = {.cfg = {.namespace = "longhorn-system", .parallel = 1}};
        cw_error err;
        cw_error_init(&err);
        int rc =
            runs[k].scbackup ? cw_scbackup_run(&a, &t.plan, &err) : cw_apply_run(&a, &t.plan, &err);
        assert_int_equal(rc, CW_EIO);
        assert_string_equal(err.message, TEST_ITEM_FILE_EIO);
        assert_int_equal(cw_plan_item_result(&t.plan, 0), CW_RES_PENDING);
        test_plan_free(&t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cronjob_batches),
        cmocka_unit_test(a_failing_item_file_stops_the_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
