/* health/'s volumes: which backup jobs apply (job labels, group labels, the default group, legacy
 * jobs), the last successful backup from Longhorn's Backups and BackupVolumes (1.2-1.7: named
 * after the volume; 1.8+: spec.volumeName), unprotected and stale, counts per namespace. */
#include "tests/unit/schedules/health_test.h"

#define VOL(ns, name, created, labels, spec)                                                       \
    "{'apiVersion':'longhorn.io/v1beta2','kind':'Volume','metadata':{'name':'" name                \
    "','namespace':'" ns "','creationTimestamp':'" created "','labels':" labels "},'spec':{" spec  \
    "}}"
#define BV(name, spec, last)                                                                       \
    "{'apiVersion':'longhorn.io/v1beta2','kind':'BackupVolume','metadata':{'name':'" name "'," LH  \
    "},'spec':{" spec "},'status':{'lastBackupAt':'" last "'}}"
#define LBACKUP(name, volume, state, at)                                                           \
    "{'apiVersion':'longhorn.io/v1beta2','kind':'Backup','metadata':{'name':'" name "'," LH        \
    ",'labels':{'backup-volume':'" volume "'}},'status':{'state':'" state                          \
    "','volumeName':'" volume "','backupCreatedAt':'" at "'}}"
#define OCT "2026-10-02T00:00:00Z"

static const char *const objects[] = {
    RJ("backup-daily", "backup", "0 2 * * *", "['default']"),
    RJ("backup-weekly", "backup", "0 3 * * 0", "['critical']"),
    RJ("backup-6h", "backup-force-create", "0 */6 * * *", "['critical']"),
    RJ("backup-db", "backup", "30 1 * * *", "[]"),
    RJ("snapshot-hourly", "snapshot", "0 * * * *", "['default']"),
    RJ("broken", "backup", "0 25 * * *", "['broken']"),
    VOL("longhorn-system", "v-default", OCT, "{}", ""),
    BV("v-default", "", "2026-11-24T02:03:30Z"),
    VOL("longhorn-system", "v-label", OCT, "{'recurring-job.longhorn.io/backup-db':'enabled'}", ""),
    LBACKUP("backup-1a", "v-label", "Completed", "2026-11-23T01:34:00Z"),
    LBACKUP("backup-1b", "v-label", "Error", "2026-11-24T01:34:00Z"),
    VOL("longhorn-system", "v-critical", OCT,
        "{'recurring-job-group.longhorn.io/critical':'enabled'}", ""),
    /* Longhorn 1.8: one BackupVolume per backup target, spec.volumeName */
    BV("v-critical-6c1f0", "'volumeName':'v-critical','backupTargetName':'default'",
       "2026-11-24T06:05:00Z"),
    BV("v-critical-9e2a4", "'volumeName':'v-critical','backupTargetName':'offsite'",
       "2026-11-20T06:05:00Z"),
    VOL("longhorn-system", "v-both", OCT,
        "{'recurring-job.longhorn.io/backup-db':'enabled','recurring-job-group.longhorn.io/"
        "critical':'enabled'}",
        ""),
    LBACKUP("backup-2a", "v-both", "InProgress", ""),
    VOL("longhorn-system", "v-snaponly", OCT,
        "{'recurring-job.longhorn.io/snapshot-hourly':'enabled'}", ""),
    VOL("longhorn-system", "v-disabled", OCT, "{'recurring-job.longhorn.io/backup-db':'disabled'}",
        ""),
    VOL("longhorn-system", "v-stale", OCT, "{'recurring-job.longhorn.io/backup-db':'enabled'}", ""),
    LBACKUP("backup-3a", "v-stale", "Completed", "2026-11-21T01:33:00Z"),
    VOL("longhorn-system", "v-new", "2026-11-24T08:00:00Z", "{}", ""),
    VOL("longhorn-system", "v-legacy", OCT, "{}",
        "'recurringJobs':[{'name':'b','task':'backup','cron':'0 3 * * *','retain':3},{'name':'s',"
        "'task':'snapshot','cron':'0 * * * *','retain':3}]"),
    BV("v-legacy", "", "2026-11-24T03:05:00Z"),
    VOL("longhorn-system", "v-broken", OCT, "{'recurring-job-group.longhorn.io/broken':'enabled'}",
        ""),
    VOL("longhorn-two", "v-elsewhere", OCT, "{}", ""),
};

static const char *const want[] = {
    "longhorn-system/v-both Stale jobs=backup-6h(group critical),backup-weekly(group critical),"
    "backup-db(label) last=never every=21600",
    "longhorn-system/v-broken Unprotected jobs= last=never every=-1",
    "longhorn-system/v-critical Protected jobs=backup-6h(group critical),backup-weekly(group "
    "critical) last=2026-11-24T06:05:00Z every=21600",
    "longhorn-system/v-default Protected jobs=backup-daily(group default) "
    "last=2026-11-24T02:03:30Z every=86400",
    "longhorn-system/v-disabled Unprotected jobs= last=never every=-1",
    "longhorn-system/v-label Protected jobs=backup-db(label) last=2026-11-23T01:34:00Z "
    "every=86400",
    "longhorn-system/v-legacy Protected jobs=legacy '0 3 * * *'(legacy) "
    "last=2026-11-24T03:05:00Z every=86400",
    "longhorn-system/v-new Protected jobs=backup-daily(group default) last=never every=86400",
    "longhorn-system/v-snaponly Unprotected jobs= last=never every=-1",
    "longhorn-system/v-stale Stale jobs=backup-db(label) last=2026-11-21T01:33:00Z every=86400",
    "longhorn-two/v-elsewhere Unprotected jobs= last=never every=-1",
};

static void describe_volume(const cw_health_volume_result *v, cw_buf *b)
{
    char t[CW_TZ_RFC3339_MAX];
    cw_buf_reset(b);
    cw_buf_printf(b, "%s/%s %s jobs=", v->namespace, v->name,
                  v->unprotected ? "Unprotected"
                  : v->stale     ? "Stale"
                                 : "Protected");
    for (size_t i = 0; i < v->jobs->len; i++)
        cw_buf_printf(b, "%s%s(%s)", i ? "," : "", v->jobs->items[i], v->via->items[i]);
    cw_tz_format_rfc3339(v->last_backup, 0, t, sizeof(t));
    cw_buf_printf(b, " last=%s every=%lld", v->never ? "never" : t, (long long)v->interval);
}

void test_volumes(void **state)
{
    cw_health_config cfg;
    cw_health h;
    cw_error err;
    cw_buf b;
    (void)state;
    cw_buf_init(&b);
    config(&cfg, NULL, 0, 0);
    assert_int_equal(cw_health_init(&h, &cfg, &err), CW_OK);
    load(&h, objects, N(objects));
    assert_int_equal(cw_health_eval_all(&h, 1, &err), CW_OK);
    assert_int_equal(h.nvols, N(want));
    for (size_t i = 0; i < h.nvols; i++) {
        describe_volume(&h.vols[i], &b);
        if (strcmp(cw_buf_str(&b), want[i]))
            fail_msg("volume %zu\n got: %s\nwant: %s", i, cw_buf_str(&b), want[i]);
    }
    /* per namespace, as the reconciler exports them */
    assert_int_equal(h.ncounts, 2);
    assert_string_equal(h.counts[0].namespace, "longhorn-system");
    assert_int_equal(h.counts[0].volumes, 10);
    assert_int_equal(h.counts[0].unprotected, 3);
    assert_int_equal(h.counts[0].stale, 2);
    assert_string_equal(h.counts[1].namespace, "longhorn-two");
    assert_int_equal(h.counts[1].volumes, 1);
    assert_int_equal(h.counts[1].unprotected, 1);
    assert_int_equal(h.counts[1].stale, 0);
    assert_int_equal(h.unprotected, 4);
    assert_int_equal(h.stale, 2);
    /* the counts alone give the same figures */
    cw_health_ns_count *counts;
    size_t n;
    assert_int_equal(cw_health_volume_counts(&h, h.cfg.now, &counts, &n, &err), CW_OK);
    assert_int_equal(n, 2);
    assert_int_equal(counts[0].stale, 2);
    assert_int_equal(counts[1].unprotected, 1);
    cw_health_counts_free(counts, n);
    /* the default group can be switched off: v-default and v-new lose their job */
    cw_health_free(&h);
    cfg.default_group = "";
    assert_int_equal(cw_health_init(&h, &cfg, &err), CW_OK);
    load(&h, objects, N(objects));
    assert_int_equal(cw_health_eval_all(&h, 0, &err), CW_OK);
    assert_int_equal(h.nvols, 0);
    assert_int_equal(h.unprotected, 6);
    cw_health_free(&h);
    cw_buf_free(&b);
}
