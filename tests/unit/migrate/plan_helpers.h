/* Shared by the planner tests: build a plan from YAML text and describe it one line per object. */
#ifndef CW_TEST_PLAN_HELPERS_H
#define CW_TEST_PLAN_HELPERS_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "defaults/policy.h"
#include "lib/buf.h"
#include "cron/tz.h"
#include "kube/manifest.h"
#include "migrate/plan.h"

typedef struct {
    cw_tzdb tz;
    cw_policy_config policy;
    cw_plan plan;
    cw_error err;
    int add_rc;
} test_plan;

static int test_feed(void *ud, const cw_load_unit *u, cw_error *err)
{
    test_plan *t = ud;
    char where[256];
    cw_load_where(u, where, sizeof(where));
    return cw_plan_add(&t->plan, u->obj, where, err);
}

/* Plans `yaml` with its item file in scratch_dir (NULL: $TMPDIR or /tmp); returns the first error
 * code of loading/adding (plan still finished when 0). */
static int test_plan_run_in(test_plan *t, const char *yaml, cw_names_scheme scheme,
                            int default_group, const char *scratch_dir)
{
    cw_error_init(&t->err);
    assert_int_equal(cw_tzdb_init(&t->tz, NULL, &t->err), CW_OK);
    assert_int_equal(cw_policy_config_init(&t->policy), CW_OK);
    t->policy.tzdb = &t->tz;
    cw_plan_config cfg = {.scheme = scheme,
                          .namespace = "longhorn-system",
                          .policy = &t->policy,
                          .default_group = default_group,
                          .scratch_dir = scratch_dir};
    assert_int_equal(cw_plan_init(&t->plan, &cfg, &t->err), CW_OK);
    t->add_rc = cw_load_text("test.yaml", yaml, strlen(yaml), test_feed, t, &t->err);
    if (t->add_rc == CW_OK)
        t->add_rc = cw_plan_finish(&t->plan, &t->err);
    return t->add_rc;
}

static __attribute__((unused)) int test_plan_run(test_plan *t, const char *yaml,
                                                 cw_names_scheme scheme, int default_group)
{
    return test_plan_run_in(t, yaml, scheme, default_group, NULL);
}

/* A disk failing under the plan's item file: /proc/self/mem takes the file's descriptor, and
 * reading it at the small offsets of a test plan (addresses never mapped) fails with EIO. */
#define TEST_ITEM_FILE_EIO "cannot read the plan's item file in /tmp: Input/output error"
static __attribute__((unused)) void test_plan_break_item_file(cw_plan *p)
{
    assert_true(p->store.fd >= 0);
    assert_true(p->store.end < 65536);
    int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    assert_true(mem >= 0);
    assert_int_equal(dup2(mem, p->store.fd), p->store.fd);
    close(mem);
}

static void test_plan_free(test_plan *t)
{
    cw_plan_free(&t->plan);
    cw_policy_config_free(&t->policy);
    cw_tzdb_free(&t->tz);
}

/* One line per job, item and CronJob, in the report's order. */
static __attribute__((unused)) char *test_plan_describe(const cw_plan *p)
{
    cw_buf b;
    cw_buf_init(&b);
    size_t n, *idx = cw_plan_sorted_jobs(p, &n);
    for (size_t k = 0; k < n; k++) {
        const cw_plan_job *j = cw_plan_job_at(p, idx[k]);
        cw_buf_printf(&b, "job %s %s", j->rj.name, cw_plan_action_name(j->rj.action));
        if (j->rj.reason || j->rj.invalid)
            cw_buf_printf(&b, ": %s", j->rj.reason ? j->rj.reason : j->rj.invalid);
        cw_buf_putc(&b, '\n');
    }
    free(idx);
    static const char *kinds[] = {"Volume", "StorageClass", "ConfigMap"};
    for (size_t kd = 0; kd < 3; kd++) {
        cw_error serr;
        cw_error_init(&serr);
        if (cw_plan_sorted_items(p, kinds[kd], &idx, &n, &serr) != CW_OK) {
            cw_buf_printf(&b, "sorted %s: %s\n", kinds[kd], serr.message);
            continue;
        }
        for (size_t k = 0; k < n; k++) {
            cw_plan_item item, *it = &item;
            cw_error err;
            cw_error_init(&err);
            if (cw_plan_item_load(p, idx[k], &item, &err) != CW_OK) {
                cw_buf_printf(&b, "load %zu: %s\n", idx[k], err.message);
                continue;
            }
            cw_buf_printf(&b, "%s %s%s%s %s", it->kind, it->namespace, *it->namespace ? "/" : "",
                          it->name, cw_plan_action_name(it->action));
            for (size_t i = 0; i < it->add_labels.len; i++)
                cw_buf_printf(&b, " +%s", it->add_labels.items[i]);
            if (it->new_selector)
                cw_buf_printf(&b, " selector=%s", it->new_selector);
            if (it->reason)
                cw_buf_printf(&b, ": %s", it->reason);
            cw_buf_putc(&b, '\n');
            cw_plan_item_free(&item);
        }
        free(idx);
    }
    idx = cw_plan_sorted_cronjobs(p, &n);
    for (size_t k = 0; k < n; k++) {
        const cw_plan_cronjob *c = &p->cronjobs[idx[k]];
        cw_buf_printf(&b, "CronJob %s/%s %s\n", c->namespace, c->name,
                      cw_plan_action_name(c->action));
    }
    free(idx);
    return cw_buf_detach(&b);
}

#endif
