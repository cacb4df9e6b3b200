/* The schedule-health decision (controller/schedulehealth.c, cw_shctl_decide) on schedules judged
 * from their objects by health/: cronwarden_schedule_last_missed_timestamp_seconds, the fire time
 * of the newest missed run that is a problem (what CronwardenScheduleMissedRun compares with the
 * last success), beside what a first look counts into missed_runs_total. A Velero Schedule firing
 * hourly, judged at 2026-11-24T09:00:00Z over 4 hours: the fire times 06:00, 07:00 and 08:00 (09:00
 * is within its grace). */
#include "tests/unit/schedules/health_test.h"
#include "tests/unit/tzdb_fixture.h"

#include "controller/schedulehealth.h"

cw_tzdb *const health_tzdb = &tzdb;

#define HOURLY(spec, status)                                                                       \
    SCHED_AS("hourly", "2026-10-01T00:00:00Z", "'schedule':'0 * * * *'" spec, status)
/* the Backup of fire time hh:00, started 5 s after it, done a second later */
#define HB(hh)                                                                                     \
    BACKUP("hourly", "hourly-20261124" hh "0005", "2026-11-24T" hh ":00:05Z",                      \
           COMPLETED("2026-11-24T" hh ":00:05Z", "2026-11-24T" hh ":00:06Z"))

/* created 05:30 and never succeeded: 06:00 missed, the Backups of 07:00 and 08:00 failed */
#define FB(hh)                                                                                     \
    BACKUP("hourly", "hourly-20261124" hh "0005", "2026-11-24T" hh ":00:05Z",                      \
           "'phase':'Failed','failureReason':'x','startTimestamp':'2026-11-24T" hh                 \
           ":00:05Z','completionTimestamp':'2026-11-24T" hh ":00:09Z'")
#define SINCE_0530                                                                                 \
    SCHED_AS("hourly", "2026-11-24T05:30:00Z", "'schedule':'0 * * * *'", "'phase':'Enabled'")

typedef struct {
    const char *what;
    const char *now; /* NULL: NOW */
    int64_t window;  /* 0: 4 hours */
    const char *objects[6];
    const char *last_missed; /* RFC 3339; NULL: 0 */
    double missed_new;       /* on a first look */
} missed_case;

static const missed_case cases[] = {
    {"every fire time ran: none missed",
     NULL,
     0,
     {HOURLY("", "'phase':'Enabled'"), HB("05"), HB("06"), HB("07"), HB("08")},
     NULL,
     0},
    {"paused: 06:00, 07:00 and 08:00 missed, all excused",
     NULL,
     0,
     {HOURLY(",'paused':true", "'phase':'Enabled'"), HB("05")},
     NULL,
     0},
    {"06:00 and 08:00 missed (no Backup, nothing running), 07:00 ran: the newer",
     NULL,
     0,
     {HOURLY("", "'phase':'Enabled'"), HB("05"), HB("07")},
     "2026-11-24T08:00:00Z",
     1 /* 06:00 came before the success at 07:00:06 */},
    {"unpaused at 08:00:30 with skipImmediately: 08:00 skipped (excused), 06:00 missed: 06:00",
     NULL,
     0,
     {HOURLY("", "'phase':'Enabled','lastSkipped':'2026-11-24T08:00:30Z'"), HB("05"), HB("07")},
     "2026-11-24T06:00:00Z",
     0},
    {"never ran: 06:00, 07:00 and 08:00 missed", NULL, 0, {SINCE_0530}, "2026-11-24T08:00:00Z", 3},
    /* a miss that leaves the window reads 0 again, though nothing succeeded since (the alert
     * resolves: docs/status.md "Alerts"; RunFailed says the rest) */
    {"06:00 missed, 07:00 failed",
     "2026-11-24T07:30:00Z",
     24 * 3600,
     {SINCE_0530, FB("07")},
     "2026-11-24T06:00:00Z",
     1},
    {"06:00 missed, 07:00 and 08:00 failed",
     "2026-11-24T08:30:00Z",
     24 * 3600,
     {SINCE_0530, FB("07"), FB("08")},
     "2026-11-24T06:00:00Z",
     1},
    {"the same with --schedule-health-window 1h: 06:00 no longer judged",
     "2026-11-24T08:30:00Z",
     3600,
     {SINCE_0530, FB("07"), FB("08")},
     NULL,
     0},
};

static void test_last_missed(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        const missed_case *c = &cases[i];
        cw_health_config cfg;
        cw_health h;
        cw_health_result r;
        cw_shctl_memory mem;
        cw_shctl_actions a;
        cw_error err;
        size_t n = 0;
        config(&cfg, c->now, c->window ? c->window : 4 * 3600, 0);
        while (n < N(c->objects) && c->objects[n])
            n++;
        assert_int_equal(cw_health_init(&h, &cfg, &err), CW_OK);
        load(&h, c->objects, n);
        assert_int_equal(
            cw_health_eval_one(&h, CW_HEALTH_SCHEDULE, "velero", "hourly", h.cfg.now, &r, &err),
            CW_OK);
        cw_shctl_memory_init(&mem);
        assert_int_equal(cw_shctl_decide(&cfg, cfg.now, &r, &mem, &a, &err), CW_OK);
        double want = c->last_missed ? (double)ttime(c->last_missed) : 0;
        if (a.gauges[CW_SHCTL_LAST_MISSED] != want || a.missed_new != c->missed_new)
            fail_msg("%s: last missed %.0f, want %.0f; counted %.0f, want %.0f", c->what,
                     a.gauges[CW_SHCTL_LAST_MISSED], want, a.missed_new, c->missed_new);
        /* the next look, nothing changed: the same fire time, nothing counted again */
        cw_shctl_actions_free(&a);
        assert_int_equal(cw_shctl_decide(&cfg, cfg.now, &r, &mem, &a, &err), CW_OK);
        if (a.gauges[CW_SHCTL_LAST_MISSED] != want || a.missed_new != 0)
            fail_msg("%s, looked at again: last missed %.0f, counted %.0f", c->what,
                     a.gauges[CW_SHCTL_LAST_MISSED], a.missed_new);
        cw_shctl_actions_free(&a);
        cw_health_result_free(&r);
        cw_health_free(&h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_last_missed),
    };
    return cmocka_run_group_tests(tests, tzdb_setup, tzdb_teardown);
}
