/* defaults/kinds: which row an object's apiVersion (or group) and kind find, for each reader,
 * and the schedule-health reconciler's store-less informers reading exactly the table's rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "controller/schedulehealth_apply.h"
#include "defaults/kinds.h"

#define NONE   CW_KIND_COUNT
#define AUDIT  CW_READ_AUDIT
#define STATUS CW_READ_STATUS
#define SH     CW_READ_SCHEDHEALTH

static const struct {
    const char *label, *api, *kind;
    int by_group; /* api is a group (cw_kind_of_group) */
    unsigned reader;
    cw_kind_id want;
} cases[] = {
    {"a RecurringJob, audit", "longhorn.io/v1beta2", "RecurringJob", 0, AUDIT,
     CW_KIND_RECURRINGJOB},
    {"a RecurringJob of v1beta1, status", "longhorn.io/v1beta1", "RecurringJob", 0, STATUS,
     CW_KIND_RECURRINGJOB},
    {"a Longhorn Backup", "longhorn.io/v1beta2", "Backup", 0, STATUS, CW_KIND_LHBACKUP},
    {"a Velero Backup", "velero.io/v1", "Backup", 0, STATUS, CW_KIND_BACKUP},
    {"a Velero Backup is no audit's", "velero.io/v1", "Backup", 0, AUDIT, NONE},
    {"a BackupVolume, schedule-health", "longhorn.io/v1beta2", "BackupVolume", 0, SH,
     CW_KIND_BACKUPVOLUME},
    {"a Volume, audit", "longhorn.io/v1beta2", "Volume", 0, AUDIT, CW_KIND_VOLUME},
    {"a StorageClass, audit", "storage.k8s.io/v1", "StorageClass", 0, AUDIT, CW_KIND_STORAGECLASS},
    {"a StorageClass is no status'", "storage.k8s.io/v1", "StorageClass", 0, STATUS, NONE},
    {"a Job", "batch/v1", "Job", 0, STATUS, CW_KIND_JOB},
    {"a CronJob of batch/v1beta1", "batch/v1beta1", "CronJob", 0, SH, CW_KIND_CRONJOB},
    {"a Job is no audit's", "batch/v1", "Job", 0, AUDIT, NONE},
    {"a Schedule, audit", "velero.io/v1", "Schedule", 0, AUDIT, CW_KIND_SCHEDULE},
    {"another Longhorn kind", "longhorn.io/v1beta2", "Setting", 0, STATUS, NONE},
    {"an apiVersion without a version", "longhorn.io", "Volume", 0, STATUS, NONE},
    {"a group that begins with longhorn.io", "longhorn.io.example/v1", "Volume", 0, STATUS, NONE},
    {"a group that longhorn.io ends with", "io/v1", "Volume", 0, STATUS, NONE},
    {"core/v1", "v1", "ConfigMap", 0, STATUS, NONE},
    {"the kind's case counts", "velero.io/v1", "schedule", 0, STATUS, NONE},
    {"no apiVersion", NULL, "Volume", 0, STATUS, NONE},
    {"no kind", "longhorn.io/v1beta2", NULL, 0, STATUS, NONE},
    {"by group: a Longhorn Backup", "longhorn.io", "Backup", 1, STATUS, CW_KIND_LHBACKUP},
    {"by group: a Velero Backup", "velero.io", "Backup", 1, SH, CW_KIND_BACKUP},
    {"by group: a Job", "batch", "Job", 1, STATUS, CW_KIND_JOB},
    {"by group: an apiVersion is not a group", "batch/v1", "Job", 1, STATUS, NONE},
    {"by group: none", NULL, "Job", 1, STATUS, NONE},
};

static void test_lookup(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const cw_kind *k = cases[i].by_group
                               ? cw_kind_of_group(cases[i].api, cases[i].kind, cases[i].reader)
                               : cw_kind_of(cases[i].api, cases[i].kind, cases[i].reader);
        cw_kind_id got = k ? k->id : NONE;
        if (got != cases[i].want)
            fail_msg("%s: row %d, want %d", cases[i].label, (int)got, (int)cases[i].want);
    }
}

/* Each row sits at its id, and its reader finds it. */
static void test_rows(void **state)
{
    (void)state;
    char api[64];
    for (size_t i = 0; i < CW_KIND_COUNT; i++) {
        assert_int_equal(cw_kinds[i].id, i);
        snprintf(api, sizeof(api), "%s/v1", cw_kinds[i].group);
        assert_ptr_equal(cw_kind_of(api, cw_kinds[i].kind, cw_kinds[i].readers), &cw_kinds[i]);
    }
}

/* Schedule-health's store-less informers LIST exactly the rows it reads: the same group,
 * resource and selector, each row once. */
static void test_schedulehealth_reads_the_table(void **state)
{
    (void)state;
    const cw_reconciler_ops *r = &cw_schedulehealth_reconciler;
    int seen[CW_KIND_COUNT] = {0};
    size_t storeless = 0, rows = 0;
    for (size_t i = 0; i < r->ninformers; i++) {
        const cw_informer_def *d = &r->informers[i];
        if (!d->storeless)
            continue;
        storeless++;
        size_t j = 0;
        while (j < CW_KIND_COUNT &&
               !((cw_kinds[j].readers & SH) && !strcmp(cw_kinds[j].group, d->group) &&
                 !strcmp(cw_kinds[j].resource, d->resource)))
            j++;
        if (j == CW_KIND_COUNT)
            fail_msg("informer %s (%s %s) reads no row of defaults/kinds", d->name, d->group,
                     d->resource);
        assert_string_equal(d->label_selector ? d->label_selector : "",
                            cw_kinds[j].selector ? cw_kinds[j].selector : "");
        assert_int_equal(seen[j]++, 0);
    }
    for (size_t j = 0; j < CW_KIND_COUNT; j++)
        rows += (cw_kinds[j].readers & SH) != 0;
    assert_int_equal(storeless, rows);
    assert_int_equal(rows, 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_schedulehealth_reads_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
