/* health/'s API as a reconciler uses it: the counter of missed runs across passes and restarts,
 * one schedule judged from its objects without the collector, objects replaced and removed as a
 * watch reports them, and the readers of Jobs and Backups. */
#include "tests/unit/schedules/health_test.h"

#define HOURLY(created) SCHED_AS("hourly", created, "'schedule':'0 * * * *'", "'phase':'Enabled'")
#define HB(hhmm, stamp)                                                                            \
    BACKUP("hourly", "hourly-20261124" stamp, "2026-11-24T" hhmm ":05Z",                           \
           COMPLETED("2026-11-24T" hhmm ":06Z", "2026-11-24T" hhmm ":06Z"))

static void eval_one(const char *now, const char *const *objects, size_t n, cw_health_kind kind,
                     const char *ns, const char *name, cw_health_result *r)
{
    cw_health_config cfg;
    cw_health h;
    cw_error err;
    config(&cfg, now, 4 * 3600, 0);
    assert_int_equal(cw_health_init(&h, &cfg, &err), CW_OK);
    load(&h, objects, n);
    assert_int_equal(cw_health_eval_one(&h, kind, ns, name, h.cfg.now, r, &err), CW_OK);
    cw_health_free(&h);
}

/* Missed at 06:00 and 08:00, a success at 07:05; later 09:00 missed and 10:00 ran. */
void test_count_missed(void **state)
{
    static const char *const at9[] = {HOURLY("2026-10-01T00:00:00Z"), HB("05:00", "050005"),
                                      HB("07:00", "070005")};
    static const char *const at11[] = {HOURLY("2026-10-01T00:00:00Z"), HB("05:00", "050005"),
                                       HB("07:00", "070005"), HB("10:00", "100005")};
    cw_health_result r;
    int64_t counted;
    (void)state;
    eval_one(NOW, at9, N(at9), CW_HEALTH_SCHEDULE, "velero", "hourly", &r);
    assert_int_equal(r.missed_unexcused, 2);
    /* a controller that has run all along counted up to 05:00: both are new */
    counted = ttime("2026-11-24T05:00:00Z");
    assert_int_equal(cw_health_count_missed(&r, &counted), 2);
    assert_int_equal(counted, ttime("2026-11-24T08:00:00Z"));
    /* the next pass at the same objects counts nothing again */
    assert_int_equal(cw_health_count_missed(&r, &counted), 0);
    /* a controller started at 09:00 (first pass): 06:00 was resolved by the success at 07:05 */
    counted = CW_HEALTH_UNCOUNTED;
    assert_int_equal(cw_health_count_missed(&r, &counted), 1);
    assert_int_equal(counted, ttime("2026-11-24T08:00:00Z"));
    cw_health_result_free(&r);

    /* 11:00: 09:00 is missed, 10:00 ran */
    eval_one("2026-11-24T11:00:00Z", at11, N(at11), CW_HEALTH_SCHEDULE, "velero", "hourly", &r);
    assert_int_equal(r.missed_unexcused, 2); /* 08:00 and 09:00 in (07:00, 11:00] */
    assert_int_equal(cw_health_count_missed(&r, &counted), 1);
    assert_int_equal(counted, ttime("2026-11-24T10:00:00Z"));
    /* the controller restarted at 11:00: the success at 10:05 resolved both; nothing to raise */
    counted = CW_HEALTH_UNCOUNTED;
    assert_int_equal(cw_health_count_missed(&r, &counted), 0);
    assert_int_equal(counted, ttime("2026-11-24T10:00:00Z"));
    cw_health_result_free(&r);

    /* never succeeded: the first pass counts every missed run in the window */
    static const char *const never[] = {HOURLY("2026-11-24T06:30:00Z")};
    eval_one(NOW, never, N(never), CW_HEALTH_SCHEDULE, "velero", "hourly", &r);
    counted = CW_HEALTH_UNCOUNTED;
    assert_int_equal(cw_health_count_missed(&r, &counted), 2); /* 07:00, 08:00 */
    cw_health_result_free(&r);

    /* missed runs of a paused Schedule are excused: not counted */
    static const char *const paused[] = {
        SCHED("hourly", "'schedule':'0 * * * *','paused':true", "'phase':'Enabled'")};
    eval_one(NOW, paused, N(paused), CW_HEALTH_SCHEDULE, "velero", "hourly", &r);
    assert_int_equal(r.nmissed, 3);
    counted = CW_HEALTH_UNCOUNTED;
    assert_int_equal(cw_health_count_missed(&r, &counted), 0);
    cw_health_result_free(&r);
}

/* The same judgement from the objects of one schedule, without the collector: what a reconciler
 * holding its own informer caches calls per key. */
void test_one_schedule(void **state)
{
    static const char *const objs[] = {
        RJ("backup-daily", "backup", "0 2 * * *", "['default']"),
        CJ("backup-daily", "0 2 * * *", LAST("2026-11-24T02:00:00Z")),
        JOB("backup-daily", "29923320", "2026-11-23T02:00:02Z",
            DONE("2026-11-23T02:00:03Z", "2026-11-23T02:03:03Z")),
        JOB("backup-daily", "29924760", "2026-11-24T02:00:02Z",
            DONE("2026-11-24T02:00:03Z", "2026-11-24T02:04:03Z"))};
    cw_health_config cfg;
    cw_health_sched s;
    cw_health_run runs[2];
    cw_health_result r, r2;
    cw_error err;
    cw_buf b1, b2;
    (void)state;
    cw_buf_init(&b1);
    cw_buf_init(&b2);
    config(&cfg, NULL, 0, 0);
    cw_health_sched_init(&s);
    json_object *rj = tjson(objs[0]), *cj = tjson(objs[1]), *j1 = tjson(objs[2]),
                *j2 = tjson(objs[3]);
    assert_int_equal(cw_health_sched_from_recurringjob(&s, rj, &err), CW_OK);
    assert_int_equal(cw_health_sched_set_cronjob(&s, cj, &err), CW_OK);
    assert_int_equal(cw_health_run_from_job(j2, &runs[0], &err), CW_OK); /* any order */
    assert_int_equal(cw_health_run_from_job(j1, &runs[1], &err), CW_OK);
    assert_int_equal(cw_health_eval(&cfg, &s, runs, 2, &r, &err), CW_OK);
    describe(&r, &b1);
    eval_one(NOW, objs, N(objs), CW_HEALTH_RECURRINGJOB, "longhorn-system", "backup-daily", &r2);
    config(&cfg, NULL, 0, 0); /* eval_one's window was 4h: same result for this schedule */
    describe(&r2, &b2);
    assert_string_equal(cw_buf_str(&b1), cw_buf_str(&b2));
    assert_string_equal(cw_buf_str(&b1),
                        "Healthy due=2026-11-24T02:00:00Z next=2026-11-25T02:00:00Z every=86400 "
                        "ok=2026-11-24T02:04:03Z/240s/backup-daily-29924760 row=0 usual=240 "
                        "stuck>1140 judged=1 missed=0");
    cw_health_result_free(&r);
    cw_health_result_free(&r2);
    cw_health_run_free(&runs[0]);
    cw_health_run_free(&runs[1]);
    cw_health_sched_free(&s);
    json_object_put(rj);
    json_object_put(cj);
    json_object_put(j1);
    json_object_put(j2);
    cw_buf_free(&b1);
    cw_buf_free(&b2);
}

static const char *state_of(cw_health *h, cw_health_kind kind, const char *ns, const char *name)
{
    static char state[64];
    cw_health_result r;
    cw_error err;
    int rc = cw_health_eval_one(h, kind, ns, name, h->cfg.now, &r, &err);
    if (rc == CW_ENOTFOUND)
        return "not found";
    assert_int_equal(rc, CW_OK);
    snprintf(state, sizeof(state), "%s/%zu", cw_health_state_name(r.state), r.missed_unexcused);
    cw_health_result_free(&r);
    return state;
}

/* A watch's events: the same object again replaces it, a DELETED forgets it. */
void test_replace_remove(void **state)
{
    static const char *const base[] = {
        RJ("backup-daily", "backup", "0 2 * * *", "['default']"),
        CJ("backup-daily", "0 2 * * *", LAST("2026-11-24T02:00:00Z")),
        JOB("backup-daily", "29924760", "2026-11-24T02:00:02Z", ACTIVE("2026-11-24T02:00:03Z")),
        SCHED("nightly", "'schedule':'0 1 * * *'", "'phase':'Enabled'"),
        BACKUP("nightly", "nightly-20261124010020", "2026-11-24T01:00:20Z",
               COMPLETED("2026-11-24T01:00:21Z", "2026-11-24T01:10:21Z")),
        "{'apiVersion':'longhorn.io/v1beta2','kind':'Volume','metadata':{'name':'v1'," LH
        ",'creationTimestamp':'2026-10-02T00:00:00Z'}}",
        "{'apiVersion':'longhorn.io/v1beta2','kind':'BackupVolume','metadata':{'name':'v1'," LH
        "},'status':{'lastBackupAt':'2026-11-24T02:05:00Z'}}"};
    static const char *const done[] = {JOB("backup-daily", "29924760", "2026-11-24T02:00:02Z",
                                           DONE("2026-11-24T02:00:03Z", "2026-11-24T02:04:03Z"))};
    cw_health_config cfg;
    cw_health h;
    cw_error err;
    (void)state;
    config(&cfg, NULL, 0, 0);
    assert_int_equal(cw_health_init(&h, &cfg, &err), CW_OK);
    load(&h, base, N(base));
    assert_string_equal(state_of(&h, CW_HEALTH_RECURRINGJOB, "longhorn-system", "backup-daily"),
                        "Running/0"); /* 7h; no success to compare with: stuck after 24h */
    load(&h, done, N(done));
    assert_string_equal(state_of(&h, CW_HEALTH_RECURRINGJOB, "longhorn-system", "backup-daily"),
                        "Healthy/0");
    cw_health_remove(&h, "batch", "Job", "longhorn-system", "backup-daily-29924760");
    assert_string_equal(state_of(&h, CW_HEALTH_RECURRINGJOB, "longhorn-system", "backup-daily"),
                        "Missed/1");
    cw_health_remove(&h, "batch", "CronJob", "longhorn-system", "backup-daily");
    assert_string_equal(state_of(&h, CW_HEALTH_RECURRINGJOB, "longhorn-system", "backup-daily"),
                        "NoCronJob/1");
    cw_health_remove(&h, "longhorn.io", "RecurringJob", "longhorn-system", "backup-daily");
    assert_string_equal(state_of(&h, CW_HEALTH_RECURRINGJOB, "longhorn-system", "backup-daily"),
                        "not found");
    assert_string_equal(state_of(&h, CW_HEALTH_SCHEDULE, "velero", "nightly"), "Healthy/0");
    cw_health_remove(&h, "velero.io", "Backup", "velero", "nightly-20261124010020");
    assert_string_equal(state_of(&h, CW_HEALTH_SCHEDULE, "velero", "nightly"), "Missed/1");
    /* the volume: its backup job is gone with the RecurringJob; then the volume itself */
    assert_int_equal(cw_health_eval_all(&h, 0, &err), CW_OK);
    assert_int_equal(h.unprotected, 1);
    cw_health_remove(&h, "longhorn.io", "Volume", "longhorn-system", "v1");
    cw_health_remove(&h, "longhorn.io", "BackupVolume", "longhorn-system", "v1");
    assert_int_equal(cw_health_eval_all(&h, 0, &err), CW_OK);
    assert_int_equal(h.unprotected, 0);
    assert_int_equal(h.ncounts, 0);
    /* unknown objects are no-ops */
    cw_health_remove(&h, "batch", "Job", "longhorn-system", "nothing");
    cw_health_remove(&h, "apps", "Deployment", "x", "y");
    cw_health_free(&h);
}

/* Whose run a Job or Backup is, as a reconciler asks (cw_health_run_owner): a Velero Schedule's
 * Backups carry its velero.io/schedule-name value, which Velero shortens for names over 63
 * characters (velero/schedule.c); the model answers with the Schedule's name while it has it. */
#define LONG_NAME  "a-very-long-schedule-name-that-goes-on-and-on-past-sixty-three-characters"
#define LONG_LABEL "a-very-long-schedule-name-that-goes-on-and-on-past-sixty-f60479"
void test_run_owner(void **state)
{
    static const char *const objects[] = {
        RJ("backup-daily", "backup", "0 2 * * *", "['default']"),
        JOB("backup-daily", "29924760", "2026-11-24T02:00:02Z", ACTIVE("2026-11-24T02:00:03Z")),
        SCHED("nightly", "'schedule':'0 1 * * *'", "'phase':'Enabled'"),
        BACKUP("nightly", "nightly-20261124010020", "2026-11-24T01:00:20Z",
               COMPLETED("2026-11-24T01:00:21Z", "2026-11-24T01:10:21Z")),
        SCHED(LONG_NAME, "'schedule':'0 3 * * *'", "'phase':'Enabled'"),
        BACKUP(LONG_LABEL, "long-20261124030020", "2026-11-24T03:00:20Z",
               COMPLETED("2026-11-24T03:00:21Z", "2026-11-24T03:10:21Z")),
        BACKUP("gone", "gone-20261124030020", "2026-11-24T03:00:20Z",
               COMPLETED("2026-11-24T03:00:21Z", "2026-11-24T03:10:21Z"))};
    static const struct {
        const char *step; /* "" or a Schedule removed before asking */
        cw_health_run_kind kind;
        const char *ns, *run, *owner; /* owner NULL: none */
    } rows[] = {
        {"", CW_HEALTH_RUN_JOB, "longhorn-system", "backup-daily-29924760", "backup-daily"},
        {"", CW_HEALTH_RUN_BACKUP, "velero", "nightly-20261124010020", "nightly"},
        {"", CW_HEALTH_RUN_BACKUP, "velero", "long-20261124030020", LONG_NAME},
        {"", CW_HEALTH_RUN_BACKUP, "velero", "gone-20261124030020", "gone"}, /* no Schedule */
        {"", CW_HEALTH_RUN_BACKUP, "velero", "unknown", NULL},
        {"", CW_HEALTH_RUN_JOB, "velero", "nightly-20261124010020", NULL}, /* not a Job */
        {LONG_NAME, CW_HEALTH_RUN_BACKUP, "velero", "long-20261124030020", LONG_LABEL},
        {"", CW_HEALTH_RUN_BACKUP, "velero", "nightly-20261124010020", "nightly"},
    };
    cw_health_config cfg;
    cw_health h;
    cw_error err;
    char out[128];
    (void)state;
    config(&cfg, NULL, 0, 0);
    assert_int_equal(cw_health_init(&h, &cfg, &err), CW_OK);
    load(&h, objects, N(objects));
    for (size_t i = 0; i < N(rows); i++) {
        if (*rows[i].step)
            cw_health_remove(&h, "velero.io", "Schedule", "velero", rows[i].step);
        int found =
            cw_health_run_owner(&h, rows[i].kind, rows[i].ns, rows[i].run, out, sizeof(out));
        assert_int_equal(found, rows[i].owner != NULL);
        if (rows[i].owner)
            assert_string_equal(out, rows[i].owner);
    }
    cw_health_free(&h);
}

/* The readers: a Job's outcome and fire time, a Backup's phase. */
void test_runs(void **state)
{
    static const struct {
        const char *job;
        cw_health_outcome outcome;
        const char *fire, *finished, *reason;
        int64_t failed_pods;
    } jobs[] = {
        {JOB("cj", "29924760", "2026-11-24T02:00:02Z", ACTIVE("2026-11-24T02:00:03Z")),
         CW_HEALTH_OUTCOME_RUNNING, "2026-11-24T02:00:00Z", NULL, NULL, 0},
        {JOB("cj", "29924760", "2026-11-24T02:00:02Z",
             RETRIED("2026-11-24T02:00:03Z", "2026-11-24T02:09:03Z", 2)),
         CW_HEALTH_OUTCOME_SUCCEEDED, "2026-11-24T02:00:00Z", "2026-11-24T02:09:03Z", NULL, 2},
        {JOB("cj", "29924760", "2026-11-24T02:00:02Z",
             FAILED("2026-11-24T02:00:03Z", "2026-11-24T02:15:03Z", 4)),
         CW_HEALTH_OUTCOME_FAILED, "2026-11-24T02:00:00Z", "2026-11-24T02:15:03Z",
         "BackoffLimitExceeded: Job has reached the specified backoff limit", 4},
        /* succeeded without conditions yet (a status written before them) */
        {JOB("cj", "1795485600", "2026-11-24T02:00:02Z",
             "'startTime':'2026-11-24T02:00:03Z','succeeded':1,'completionTime':'2026-11-24T02:"
             "01:03Z'"),
         CW_HEALTH_OUTCOME_SUCCEEDED, "2026-11-24T02:00:00Z", "2026-11-24T02:01:03Z", NULL, 0},
        /* Kubernetes 1.31+: FailureTarget before Failed, DeadlineExceeded */
        {JOB("cj", "29924760", "2026-11-24T02:00:02Z",
             "'startTime':'2026-11-24T02:00:03Z','conditions':[{'type':'FailureTarget','status':"
             "'True','reason':'DeadlineExceeded','message':'Job was active longer than specified "
             "deadline','lastTransitionTime':'2026-11-24T02:30:03Z'}]"),
         CW_HEALTH_OUTCOME_FAILED, "2026-11-24T02:00:00Z", "2026-11-24T02:30:03Z",
         "DeadlineExceeded: Job was active longer than specified deadline", 0},
        /* the scheduled-timestamp annotation (Kubernetes 1.28+) wins over the name */
        {"{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'cj-29924760'," LH
         ",'creationTimestamp':'2026-11-24T02:00:02Z','annotations':{'batch.kubernetes.io/"
         "cronjob-scheduled-timestamp':'2026-11-24T02:00:30Z'},'labels':{'recurring-job."
         "longhorn.io':'cj'}},'status':{'active':1}}",
         CW_HEALTH_OUTCOME_RUNNING, "2026-11-24T02:00:30Z", NULL, NULL, 0},
        /* a name that is not "<cronjob>-<number>": no fire time */
        {JOB("cj", "x7", "2026-11-24T02:00:02Z", ACTIVE("2026-11-24T02:00:03Z")),
         CW_HEALTH_OUTCOME_RUNNING, NULL, NULL, NULL, 0},
    };
    static const struct {
        const char *phase;
        cw_health_outcome outcome;
        int blocks;
    } phases[] = {
        {"", CW_HEALTH_OUTCOME_RUNNING, 1},
        {"New", CW_HEALTH_OUTCOME_RUNNING, 1},
        {"Queued", CW_HEALTH_OUTCOME_RUNNING, 1},
        {"ReadyToStart", CW_HEALTH_OUTCOME_RUNNING, 1},
        {"InProgress", CW_HEALTH_OUTCOME_RUNNING, 1},
        {"WaitingForPluginOperations", CW_HEALTH_OUTCOME_RUNNING, 0},
        {"WaitingForPluginOperationsPartiallyFailed", CW_HEALTH_OUTCOME_RUNNING, 0},
        {"Finalizing", CW_HEALTH_OUTCOME_RUNNING, 0},
        {"FinalizingPartiallyFailed", CW_HEALTH_OUTCOME_RUNNING, 0},
        {"Completed", CW_HEALTH_OUTCOME_SUCCEEDED, 0},
        {"PartiallyFailed", CW_HEALTH_OUTCOME_FAILED, 0},
        {"Failed", CW_HEALTH_OUTCOME_FAILED, 0},
        {"FailedValidation", CW_HEALTH_OUTCOME_FAILED, 0},
        {"Deleting", CW_HEALTH_OUTCOME_OTHER, 0},
        {"SomethingNew", CW_HEALTH_OUTCOME_OTHER, 0},
    };
    cw_health_run r;
    cw_error err;
    (void)state;
    for (size_t i = 0; i < N(jobs); i++) {
        json_object *o = tjson(jobs[i].job);
        assert_int_equal(cw_health_run_from_job(o, &r, &err), CW_OK);
        assert_int_equal(r.outcome, jobs[i].outcome);
        assert_int_equal(r.fire, jobs[i].fire ? ttime(jobs[i].fire) : CW_HEALTH_NONE);
        assert_int_equal(r.finished, jobs[i].finished ? ttime(jobs[i].finished) : CW_HEALTH_NONE);
        if (jobs[i].reason)
            assert_string_equal(r.reason, jobs[i].reason);
        else
            assert_null(r.reason);
        assert_int_equal(r.failed_pods, jobs[i].failed_pods);
        assert_string_equal(r.owner, "cj");
        cw_health_run_free(&r);
        json_object_put(o);
    }
    for (size_t i = 0; i < N(phases); i++) {
        char text[512];
        snprintf(text, sizeof(text),
                 BACKUP("s", "s-20261124010020", "2026-11-24T01:00:20Z", "'phase':'%s'"),
                 phases[i].phase);
        json_object *o = tjson(text);
        assert_int_equal(cw_health_run_from_backup(o, &r, &err), CW_OK);
        if (r.outcome != phases[i].outcome || r.blocks != phases[i].blocks)
            fail_msg("phase '%s': outcome %d blocks %d", phases[i].phase, r.outcome, r.blocks);
        assert_int_equal(r.fire, ttime("2026-11-24T01:00:20Z")); /* from the name */
        cw_health_run_free(&r);
        json_object_put(o);
    }
    /* wrong types name the field */
    json_object *bad = tjson(JOB("cj", "1", "yesterday", ""));
    assert_int_equal(cw_health_run_from_job(bad, &r, &err), CW_EINVAL);
    assert_non_null(strstr(err.message, "metadata.creationTimestamp"));
    json_object_put(bad);
    bad = tjson(BACKUP("s", "s-1", "2026-11-24T01:00:20Z", "'phase':7"));
    assert_int_equal(cw_health_run_from_backup(bad, &r, &err), CW_EINVAL);
    assert_string_equal(err.message, "status.phase: expected string, got integer");
    json_object_put(bad);
}

/* The time of a run (docs/status.md): its object's creation, or the start its controller recorded
 * when that is earlier (a copy, e.g. a Backup made by Velero's backup sync); without either, the
 * fire time it was made for. */
void test_run_times(void **state)
{
    static const struct {
        const char *label, *obj, *at, *started;
    } cases[] = {
        {"a Backup started after its submission (waited in the queue): its creation",
         BACKUP("s", "s-20261124010020", "2026-11-24T01:00:20Z",
                COMPLETED("2026-11-24T01:40:00Z", "2026-11-24T01:50:00Z")),
         "2026-11-24T01:00:20Z", "2026-11-24T01:40:00Z"},
        {"a Backup not started yet: its creation", BACKUP("s", "s-1", "2026-11-24T01:00:20Z", ""),
         "2026-11-24T01:00:20Z", "2026-11-24T01:00:20Z"},
        {"a Backup made by Velero's backup sync: its start, three days before the copy",
         BACKUP("s", "s-20261121010004", "2026-11-24T08:30:00Z",
                COMPLETED("2026-11-21T01:00:04Z", "2026-11-21T01:12:40Z")),
         "2026-11-21T01:00:04Z", "2026-11-21T01:00:04Z"},
        {"a synced copy whose name carries no time: its start",
         BACKUP("s", "s-before-upgrade", "2026-11-24T01:02:00Z",
                COMPLETED("2026-11-21T01:00:04Z", "2026-11-21T01:12:40Z")),
         "2026-11-21T01:00:04Z", "2026-11-21T01:00:04Z"},
        {"a Backup without creationTimestamp: its start",
         "{'metadata':{'name':'s-1'},'status':{'phase':'InProgress','startTimestamp':'2026-11-"
         "24T01:00:25Z'}}",
         "2026-11-24T01:00:25Z", "2026-11-24T01:00:25Z"},
        {"a Backup with neither: the time in its name (Velero's submission)",
         "{'metadata':{'name':'s-20261124010020'},'status':{'phase':'New'}}",
         "2026-11-24T01:00:20Z", "2026-11-24T01:00:20Z"},
        {"a Backup with neither and no time in its name: none", "{'metadata':{'name':'s'}}", NULL,
         NULL},
        {"a Job started after its creation: its creation",
         JOB("cj", "29924760", "2026-11-24T02:00:02Z", ACTIVE("2026-11-24T02:00:03Z")),
         "2026-11-24T02:00:02Z", "2026-11-24T02:00:03Z"},
        {"a Job created late, the annotation says 02:00: its creation (the lateness shows)",
         "{'metadata':{'name':'cj-29924760','creationTimestamp':'2026-11-24T02:20:00Z',"
         "'annotations':{'batch.kubernetes.io/cronjob-scheduled-timestamp':'2026-11-24T02:00:00Z'"
         "}},'status':{'startTime':'2026-11-24T02:20:01Z','active':1}}",
         "2026-11-24T02:20:00Z", "2026-11-24T02:20:01Z"},
        {"a Job copied with its status: its start",
         JOB("cj", "29924760", "2026-11-24T09:00:00Z",
             DONE("2026-11-24T02:00:03Z", "2026-11-24T02:04:03Z")),
         "2026-11-24T02:00:03Z", "2026-11-24T02:00:03Z"},
        {"a Job with neither: its scheduled time (the name's minutes)",
         "{'metadata':{'name':'cj-29924760','labels':{'recurring-job.longhorn.io':'cj'}}}",
         "2026-11-24T02:00:00Z", "2026-11-24T02:00:00Z"},
    };
    cw_health_run r;
    cw_error err;
    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        json_object *o = tjson(cases[i].obj);
        int job = strstr(cases[i].label, "a Job") == cases[i].label;
        assert_int_equal(job ? cw_health_run_from_job(o, &r, &err)
                             : cw_health_run_from_backup(o, &r, &err),
                         CW_OK);
        int64_t at = cases[i].at ? ttime(cases[i].at) : CW_HEALTH_NONE;
        int64_t started = cases[i].started ? ttime(cases[i].started) : CW_HEALTH_NONE;
        if (r.created != at || r.started != started)
            fail_msg("%s: run at %lld, started %lld; want %lld, %lld", cases[i].label,
                     (long long)r.created, (long long)r.started, (long long)at, (long long)started);
        cw_health_run_free(&r);
        json_object_put(o);
    }
}
