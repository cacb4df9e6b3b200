/* migrate/run_offline: the offline flow without the binary — outcomes, the written tree, and the
 * refusals of migrate/outsafe that leave nothing behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cron/tz.h"
#include "defaults/policy.h"
#include "migrate/run.h"

typedef struct {
    const char *what;
    const char *from[2];
    const char *output_dir; /* under the scratch directory; NULL: an audit */
    int outcome;
    const char *must_exist[3]; /* under the scratch directory */
    const char *must_not_exist;
} run_case;

static const run_case cases[] = {
    {"an audit of the example: invalid jobs and a conflict",
     {"examples/longhorn-1.1-cluster"},
     NULL,
     CW_MIGRATE_FINDINGS,
     {NULL},
     NULL},
    {"the example rewritten into a new directory",
     {"examples/longhorn-1.1-cluster"},
     "out",
     CW_MIGRATE_FINDINGS,
     {"out/recurringjobs.yaml", "out/cluster/storageclasses.yaml", "out/apps/workloads.json"},
     NULL},
    {"a clean volume only: nothing wrong",
     {"tests/unit/migrate/clean-volume.yaml"},
     "clean",
     CW_MIGRATE_OK,
     {"clean/clean-volume.yaml", "clean/recurringjobs.yaml"},
     NULL},
    {"two inputs with one output name: refused, nothing written",
     {"examples/longhorn-1.1-cluster/apps", "tests/unit/migrate/apps"},
     "twice",
     CW_MIGRATE_USAGE,
     {NULL},
     "twice"},
};

static int run_one(const run_case *c, const char *scratch)
{
    cw_error err;
    cw_tzdb tz;
    cw_policy_config policy;
    cw_plan plan;
    cw_error_init(&err);
    assert_int_equal(cw_tzdb_init(&tz, NULL, &err), CW_OK);
    cw_policy_config_init(&policy);
    policy.tzdb = &tz;
    cw_plan_config pc = {.scheme = CW_NAMES_XXH32,
                         .namespace = "longhorn-system",
                         .policy = &policy,
                         .default_group = 1};
    assert_int_equal(cw_plan_init(&plan, &pc, &err), CW_OK);
    cw_migrate_opts o = {.output = "json", .namespace = "longhorn-system"};
    cw_strlist_init(&o.from_files);
    for (size_t i = 0; i < 2 && c->from[i]; i++)
        assert_int_equal(cw_strlist_add(&o.from_files, c->from[i]), CW_OK);
    char out[600];
    if (c->output_dir) {
        snprintf(out, sizeof(out), "%s/%s", scratch, c->output_dir);
        o.output_dir = out;
    }
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w"); /* the report itself is the CLI tests' business */
    int outcome = cw_migrate_offline(&o, &plan);
    fclose(stdout);
    stdout = saved;
    cw_strlist_free(&o.from_files);
    cw_plan_free(&plan);
    cw_policy_config_free(&policy);
    cw_tzdb_free(&tz);
    return outcome;
}

static void offline_flow(void **state)
{
    (void)state;
    char scratch[] = "/tmp/cw-test-run.XXXXXX";
    assert_non_null(mkdtemp(scratch));
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const run_case *c = &cases[k];
        print_message("case: %s\n", c->what);
        assert_int_equal(run_one(c, scratch), c->outcome);
        struct stat st;
        char path[700];
        for (size_t i = 0; i < 3 && c->must_exist[i]; i++) {
            snprintf(path, sizeof(path), "%s/%s", scratch, c->must_exist[i]);
            assert_int_equal(stat(path, &st), 0);
        }
        if (c->must_not_exist) {
            snprintf(path, sizeof(path), "%s/%s", scratch, c->must_not_exist);
            assert_int_not_equal(stat(path, &st), 0);
        }
    }
    char cmd[200];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(offline_flow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
