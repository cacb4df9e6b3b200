/* migrate/apply: how legacy CronJobs are cut into deletecollection batches (one label selector
 * `longhornvolume in (...)` each), exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "migrate/apply.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cronjob_batches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
