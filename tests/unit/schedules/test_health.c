/* health/: schedule health. Each case is a small cluster as kubectl exports it (RecurringJobs,
 * their CronJobs and Jobs, Velero Schedules and Backups), judged at a given time; every
 * schedule's result is compared whole, as one line (describe()). Times are UTC; unless a case
 * says otherwise it is 2026-11-24T09:00:00Z (a Tuesday) and the window 24h. Job names carry their
 * scheduled time in minutes since the epoch (29924760 is 2026-11-24T02:00:00Z). Volumes, the
 * counter of missed runs, the one-schedule API and the readers: test_health_*.c. */
#include "tests/unit/schedules/health_test.h"
#include "tests/unit/tzdb_fixture.h"
#include "health/render.h"

cw_tzdb *const health_tzdb = &tzdb; /* the other files of this suite judge with it too */

#define NOT_STARTED                                                                                \
    "no Job was started and none was running: kube-controller-manager's CronJob controller was "   \
    "not running"
#define NO_BACKUP                                                                                  \
    "no Backup was submitted and none was running: Velero's schedule controller (or "              \
    "cronwarden's controller) was not running"
#define DOWN(hhmm) "[2026-11-24T" hhmm ":00Z controller-down: " NOT_STARTED "]"
/* 70 characters; Velero labels its Backups with the first 57 and 6 hex digits of its SHA-256 */
#define LONG       "shop-production-postgres-and-redis-and-object-storage-every-four-hours"
#define LONG_LABEL "shop-production-postgres-and-redis-and-object-storage-eve588aa6"
#define LONG_CUT   "shop-production-postgres-and-redis-and-object-storage-every-fou"

static const sched_case sched_cases[] = {
    /* ---- Longhorn: a RecurringJob, its CronJob and the Jobs it started ---- */
    {"a daily backup that ran on time; the usual duration is the p90 of the successes",
     NULL,
     0,
     0,
     {RJ("backup-daily", "backup", "0 2 * * *", "['default']"),
      CJ("backup-daily", "0 2 * * *", LAST("2026-11-24T02:00:00Z")),
      JOB("backup-daily", "29923320", "2026-11-23T02:00:02Z",
          DONE("2026-11-23T02:00:03Z", "2026-11-23T02:03:03Z")),
      JOB("backup-daily", "29924760", "2026-11-24T02:00:02Z",
          DONE("2026-11-24T02:00:03Z", "2026-11-24T02:04:03Z"))},
     {{"R/longhorn-system/backup-daily",
       "Healthy due=2026-11-24T02:00:00Z next=2026-11-25T02:00:00Z every=86400 "
       "ok=2026-11-24T02:04:03Z/240s/backup-daily-29924760 row=0 usual=240 stuck>1140 judged=1 "
       "missed=0"}}},
    {"Kubernetes before 1.21 names a CronJob's Jobs in seconds, not minutes",
     NULL,
     0,
     0,
     {RJ("backup-daily", "backup", "0 2 * * *", "['default']"),
      CJ("backup-daily", "0 2 * * *", LAST("2026-11-24T02:00:00Z")),
      JOB("backup-daily", "1795485600", "2026-11-24T02:00:02Z",
          DONE("2026-11-24T02:00:03Z", "2026-11-24T02:04:03Z"))},
     {{"R/longhorn-system/backup-daily",
       "Healthy due=2026-11-24T02:00:00Z next=2026-11-25T02:00:00Z every=86400 "
       "ok=2026-11-24T02:04:03Z/240s/backup-daily-1795485600 row=0 usual=240 stuck>1140 "
       "judged=1 missed=0"}}},
    {"a Job retried twice then Complete is a success; the next one past its backoffLimit failed",
     NULL,
     0,
     0,
     {RJ("backup-daily", "backup", "0 2 * * *", "['default']"),
      CJ("backup-daily", "0 2 * * *", LAST("2026-11-24T02:00:00Z")),
      JOB("backup-daily", "29923320", "2026-11-23T02:00:02Z",
          RETRIED("2026-11-23T02:00:03Z", "2026-11-23T02:06:03Z", 2)),
      JOB("backup-daily", "29924760", "2026-11-24T02:00:02Z",
          FAILED("2026-11-24T02:00:03Z", "2026-11-24T02:15:03Z", 4))},
     {{"R/longhorn-system/backup-daily",
       "Failing due=2026-11-24T02:00:00Z next=2026-11-25T02:00:00Z every=86400 "
       "ok=2026-11-23T02:06:03Z/360s/backup-daily-29923320 "
       "fail=2026-11-24T02:15:03Z/backup-daily-29924760/BackoffLimitExceeded: Job has reached "
       "the specified backoff limit row=1 usual=360 stuck>1260 judged=1 missed=0"}}},
    {"three failures in a row after a success",
     NULL,
     0,
     0,
     {RJ("backup-db", "backup", "30 1 * * *", "[]"),
      CJ("backup-db", "30 1 * * *", LAST("2026-11-24T01:30:00Z")),
      JOB("backup-db", "29920410", "2026-11-21T01:30:02Z",
          DONE("2026-11-21T01:30:03Z", "2026-11-21T01:35:03Z")),
      JOB("backup-db", "29921850", "2026-11-22T01:30:02Z",
          FAILED("2026-11-22T01:30:03Z", "2026-11-22T01:45:03Z", 4)),
      JOB("backup-db", "29923290", "2026-11-23T01:30:02Z",
          FAILED("2026-11-23T01:30:03Z", "2026-11-23T01:45:03Z", 4)),
      JOB("backup-db", "29924730", "2026-11-24T01:30:02Z",
          FAILED("2026-11-24T01:30:03Z", "2026-11-24T01:45:03Z", 4))},
     {{"R/longhorn-system/backup-db",
       "Failing due=2026-11-24T01:30:00Z next=2026-11-25T01:30:00Z every=86400 "
       "ok=2026-11-21T01:35:03Z/300s/backup-db-29920410 "
       "fail=2026-11-24T01:45:03Z/backup-db-29924730/BackoffLimitExceeded: Job has reached the "
       "specified backoff limit row=3 usual=300 stuck>1200 judged=1 missed=0"}}},
    {"DST gap: 02:30 Berlin time does not exist on 2027-03-28, robfig does not fire that day",
     "2027-03-28T09:00:00Z",
     48 * 3600,
     0,
     {RJ("snap-berlin", "snapshot", "CRON_TZ=Europe/Berlin 30 2 * * *", "[]"),
      CJ("snap-berlin", "CRON_TZ=Europe/Berlin 30 2 * * *", LAST("2027-03-27T01:30:00Z")),
      JOB("snap-berlin", "30101850", "2027-03-27T01:30:02Z",
          DONE("2027-03-27T01:30:03Z", "2027-03-27T01:31:03Z"))},
     {{"R/longhorn-system/snap-berlin",
       "Healthy due=2027-03-27T01:30:00Z next=2027-03-29T00:30:00Z every=86400 "
       "ok=2027-03-27T01:31:03Z/60s/snap-berlin-30101850 row=0 usual=60 stuck>960 judged=1 "
       "missed=0"}}},
    {"DST fall-back: 01:30 New York time happens twice on 2026-11-01 and robfig fires at both",
     "2026-11-01T12:00:00Z",
     0,
     0,
     {RJ("snap-ny", "snapshot", "CRON_TZ=America/New_York 30 1 * * *", "[]"),
      CJ("snap-ny", "CRON_TZ=America/New_York 30 1 * * *", LAST("2026-11-01T05:30:00Z")),
      JOB("snap-ny", "29891850", "2026-11-01T05:30:02Z",
          DONE("2026-11-01T05:30:03Z", "2026-11-01T05:40:03Z"))},
     {{"R/longhorn-system/snap-ny",
       "Missed due=2026-11-01T06:30:00Z next=2026-11-02T06:30:00Z every=3600 "
       "ok=2026-11-01T05:40:03Z/600s/snap-ny-29891850 row=0 usual=600 stuck>1500 judged=2 "
       "missed=1 [2026-11-01T06:30:00Z controller-down: " NOT_STARTED "]"}}},
    {"@every on a CronJob: fire times chain from lastScheduleTime; a gap is a missed run",
     NULL,
     6 * 3600,
     0,
     {RJ("snap-2h", "snapshot", "@every 2h", "[]"),
      CJ("snap-2h", "@every 2h", LAST("2026-11-24T08:30:00Z")),
      JOB("snap-2h", "29924910", "2026-11-24T04:30:02Z",
          DONE("2026-11-24T04:30:03Z", "2026-11-24T04:31:03Z")),
      JOB("snap-2h", "29925150", "2026-11-24T08:30:02Z",
          DONE("2026-11-24T08:30:03Z", "2026-11-24T08:31:03Z"))},
     {{"R/longhorn-system/snap-2h",
       "Missed due=2026-11-24T08:30:00Z next=2026-11-24T10:30:00Z every=7200 "
       "ok=2026-11-24T08:31:03Z/60s/snap-2h-29925150 row=0 usual=60 stuck>960 judged=3 "
       "missed=1 [2026-11-24T06:30:00Z controller-down: " NOT_STARTED "]"}}},
    {"Forbid: a Job still running holds the next fire times back, and it is stuck",
     NULL,
     4 * 3600,
     0,
     {RJ("snapshot-hourly", "snapshot", "0 * * * *", "['default']"),
      CJ("snapshot-hourly", "0 * * * *", LAST("2026-11-24T06:00:00Z")),
      JOB("snapshot-hourly", "29924940", "2026-11-24T05:00:02Z",
          DONE("2026-11-24T05:00:03Z", "2026-11-24T05:02:03Z")),
      JOB("snapshot-hourly", "29925000", "2026-11-24T06:00:02Z", ACTIVE("2026-11-24T06:00:03Z"))},
     {{"R/longhorn-system/snapshot-hourly",
       "Stuck due=2026-11-24T09:00:00Z next=2026-11-24T10:00:00Z every=3600 "
       "ok=2026-11-24T05:02:03Z/120s/snapshot-hourly-29924940 row=0 "
       "running=1:snapshot-hourly-29925000@2026-11-24T06:00:03Z/10797s usual=120 STUCK>1020 "
       "judged=3 missed=2 [2026-11-24T07:00:00Z forbid: Job snapshot-hourly-29925000 was still "
       "running (concurrencyPolicy Forbid)] [2026-11-24T08:00:00Z forbid: Job "
       "snapshot-hourly-29925000 was still running (concurrencyPolicy Forbid)]"}}},
    {"a CronJob suspended over a fire time",
     NULL,
     0,
     0,
     {RJ("backup-daily", "backup", "0 2 * * *", "['default']"),
      CJ_AS("backup-daily", "0 2 * * *",
            ",'suspend':true,'successfulJobsHistoryLimit':3,'failedJobsHistoryLimit':3",
            LAST("2026-11-23T02:00:00Z")),
      JOB("backup-daily", "29923320", "2026-11-23T02:00:02Z",
          DONE("2026-11-23T02:00:03Z", "2026-11-23T02:03:03Z"))},
     {{"R/longhorn-system/backup-daily",
       "Suspended due=2026-11-24T02:00:00Z next=- every=86400 "
       "ok=2026-11-23T02:03:03Z/180s/backup-daily-29923320 row=0 usual=180 stuck>1080 judged=1 "
       "missed=1 [2026-11-24T02:00:00Z suspended: the CronJob is suspended]"}}},
    {"resumed without startingDeadlineSeconds, Kubernetes starts the missed run late",
     NULL,
     0,
     0,
     {RJ("backup-daily", "backup", "0 2 * * *", "['default']"),
      CJ("backup-daily", "0 2 * * *", LAST("2026-11-24T02:00:00Z")),
      JOB("backup-daily", "29923320", "2026-11-23T02:00:02Z",
          DONE("2026-11-23T02:00:03Z", "2026-11-23T02:03:03Z")),
      JOB("backup-daily", "29924760", "2026-11-24T05:30:02Z",
          DONE("2026-11-24T05:30:03Z", "2026-11-24T05:33:03Z"))},
     {{"R/longhorn-system/backup-daily",
       "Missed due=2026-11-24T02:00:00Z next=2026-11-25T02:00:00Z every=86400 "
       "ok=2026-11-24T05:33:03Z/180s/backup-daily-29924760 row=0 usual=180 stuck>1080 judged=1 "
       "missed=1 [2026-11-24T02:00:00Z late: Job backup-daily-29924760 started 3h30m late "
       "(grace 1h)]"}}},
    {"a manual run (kubectl create job --from) is a success, not the missed fire's run",
     NULL,
     0,
     0,
     {RJ("backup-daily", "backup", "0 2 * * *", "['default']"),
      CJ("backup-daily", "0 2 * * *", LAST("2026-11-23T02:00:00Z")),
      "{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'backup-daily-manual-x7'," LH
      ",'creationTimestamp':'2026-11-24T03:00:00Z','annotations':{'cronjob.kubernetes.io/"
      "instantiate':'manual'},'ownerReferences':[{'kind':'CronJob','name':'backup-daily',"
      "'controller':true}]},'status':{" DONE("2026-11-24T03:00:01Z", "2026-11-24T03:04:01Z") "}}"},
     {{"R/longhorn-system/backup-daily",
       "Missed due=2026-11-24T02:00:00Z next=2026-11-25T02:00:00Z every=86400 "
       "ok=2026-11-24T03:04:01Z/240s/backup-daily-manual-x7 row=0 usual=240 stuck>1140 "
       "judged=1 missed=1 [2026-11-24T02:00:00Z controller-down: " NOT_STARTED "]"}}},
    {"a RecurringJob without its CronJob",
     NULL,
     0,
     0,
     {RJ("backup-archive", "backup", "0 5 1 * *", "['archive']")},
     {{"R/longhorn-system/backup-archive",
       "NoCronJob due=2026-11-01T05:00:00Z next=2026-12-01T05:00:00Z every=2678400 row=0 "
       "stuck>2678400 judged=1 missed=1 [2026-11-01T05:00:00Z no-cronjob: the RecurringJob has "
       "no CronJob (Longhorn's manager or cronwarden's controller has not made it)]"}}},
    /* docs/compat.md "CRON_TZ= in a RecurringJob's cron": Kubernetes 1.29+ refuses the CronJob */
    {"a RecurringJob with CRON_TZ= and no CronJob: the reason named",
     NULL,
     0,
     0,
     {RJ("backup-berlin", "backup", "CRON_TZ=Europe/Berlin 0 2 * * *", "[]")},
     {{"R/longhorn-system/backup-berlin",
       "NoCronJob due=2026-11-24T01:00:00Z next=2026-11-25T01:00:00Z every=86400 row=0 "
       "stuck>86400 judged=1 missed=1 [2026-11-24T01:00:00Z no-cronjob: the RecurringJob has no "
       "CronJob: its cron starts with a time zone (CRON_TZ=Europe/Berlin), and Kubernetes 1.29 "
       "and later (and 1.21 and earlier) refuse to create a CronJob whose schedule holds TZ]"}}},
    {"history limits 1 and 1: fire times before the oldest kept Job of a full kind are unknown",
     NULL,
     7 * 86400,
     0,
     {RJ("backup-daily", "backup", "0 2 * * *", "['default']"),
      CJ_AS("backup-daily", "0 2 * * *",
            ",'successfulJobsHistoryLimit':1,'failedJobsHistoryLimit':1",
            LAST("2026-11-24T02:00:00Z")),
      JOB("backup-daily", "29919000", "2026-11-20T02:00:02Z",
          FAILED("2026-11-20T02:00:03Z", "2026-11-20T02:15:03Z", 4)),
      JOB("backup-daily", "29924760", "2026-11-24T02:00:02Z",
          DONE("2026-11-24T02:00:03Z", "2026-11-24T02:04:03Z"))},
     {{"R/longhorn-system/backup-daily",
       "Healthy due=2026-11-24T02:00:00Z next=2026-11-25T02:00:00Z every=86400 "
       "ok=2026-11-24T02:04:03Z/240s/backup-daily-29924760 "
       "fail=2026-11-20T02:15:03Z/backup-daily-29919000/BackoffLimitExceeded: Job has reached "
       "the specified backoff limit row=0 usual=240 stuck>1140 judged=1 missed=0"}}},
    {"... unless the caller saw every Job since (a reconciler that remembers deleted Jobs)",
     NULL,
     7 * 86400,
     1795478400 - 5 * 86400, /* 2026-11-19T00:00:00Z */
     {RJ("backup-daily", "backup", "0 2 * * *", "['default']"),
      CJ_AS("backup-daily", "0 2 * * *",
            ",'successfulJobsHistoryLimit':1,'failedJobsHistoryLimit':1",
            LAST("2026-11-24T02:00:00Z")),
      JOB("backup-daily", "29919000", "2026-11-20T02:00:02Z",
          FAILED("2026-11-20T02:00:03Z", "2026-11-20T02:15:03Z", 4)),
      JOB("backup-daily", "29924760", "2026-11-24T02:00:02Z",
          DONE("2026-11-24T02:00:03Z", "2026-11-24T02:04:03Z"))},
     {{"R/longhorn-system/backup-daily",
       "Missed due=2026-11-24T02:00:00Z next=2026-11-25T02:00:00Z every=86400 "
       "ok=2026-11-24T02:04:03Z/240s/backup-daily-29924760 "
       "fail=2026-11-20T02:15:03Z/backup-daily-29919000/BackoffLimitExceeded: Job has reached "
       "the specified backoff limit row=0 usual=240 stuck>1140 judged=6 missed=4 "
       "[2026-11-19T02:00:00Z controller-down: " NOT_STARTED "] [2026-11-21T02:00:00Z "
       "controller-down: " NOT_STARTED "] [2026-11-22T02:00:00Z controller-down: " NOT_STARTED
       "] [2026-11-23T02:00:00Z controller-down: " NOT_STARTED "]"}}},
    {"more than 100 start times since lastScheduleTime: Kubernetes before 1.21 gives up",
     NULL,
     3600,
     0,
     {RJ("snap-5m", "snapshot", "*/5 * * * *", "[]"),
      CJ("snap-5m", "*/5 * * * *", LAST("2026-11-23T00:00:00Z"))},
     {{"R/longhorn-system/snap-5m",
       "Missed due=2026-11-24T09:00:00Z next=2026-11-24T09:05:00Z every=300 row=0 stuck>3600 "
       "judged=11 missed=11 " DOWN("08:05") " " DOWN("08:10") " " DOWN("08:15") " " DOWN("08:20") " " DOWN("08:25") " " DOWN(
           "08:30") " " DOWN("08:35") " " DOWN("08:40") " " DOWN("08:45") " " DOWN("08:50") " ["
                                                                                            "2026-"
                                                                                            "11-"
                                                                                            "24T08:"
                                                                                            "55:"
                                                                                            "00Z "
                                                                                            "contro"
                                                                                            "ller-"
                                                                                            "down:"
                                                                                            " " NOT_STARTED
                                                                                            "; "
                                                                                            "more "
                                                                                            "than "
                                                                                            "100 "
                                                                                            "start "
                                                                                            "times "
                                                                                            "were "
                                                                                            "missed"
                                                                                            " since"
                                                                                            " lastS"
                                                                                            "chedul"
                                                                                            "eTime:"
                                                                                            " Kuber"
                                                                                            "netes "
                                                                                            "before"
                                                                                            " 1.21 "
                                                                                            "stops "
                                                                                            "schedu"
                                                                                            "ling "
                                                                                            "such "
                                                                                            "a "
                                                                                            "CronJo"
                                                                                            "b "
                                                                                            "(set "
                                                                                            "spec."
                                                                                            "starti"
                                                                                            "ngDead"
                                                                                            "lineSe"
                                                                                            "conds)"
                                                                                            "]"}}},
    {"crons that cannot run: robfig refuses one, another never fires",
     NULL,
     0,
     0,
     {RJ("bad-hour", "snapshot", "0 25 * * *", "[]"), CJ("bad-hour", "0 25 * * *", ""),
      RJ("feb-30", "snapshot", "0 0 30 2 *", "[]"), CJ("feb-30", "0 0 30 2 *", "")},
     {{"R/longhorn-system/bad-hour",
       "Invalid error=end of range (25) above maximum (23): 25 due=- next=- every=-1 row=0 "
       "stuck>3600 judged=0 missed=0"},
      {"R/longhorn-system/feb-30",
       "Invalid error=the cron never fires due=- next=- every=-1 row=0 stuck>3600 judged=0 "
       "missed=0"}}},
    /* ---- Velero: a Schedule and the Backups labelled with it ---- */
    {"@every on a Velero Schedule: the chain restarts at each Backup (lastBackup + 6h)",
     NULL,
     0,
     0,
     {SCHED_AS("analytics-6h", "2026-11-20T00:00:00Z", "'schedule':'@every 6h'",
               "'phase':'Enabled','lastBackup':'2026-11-23T18:00:07Z'"),
      BACKUP("analytics-6h", "analytics-6h-20261123060004", "2026-11-23T06:00:04Z",
             COMPLETED("2026-11-23T06:00:05Z", "2026-11-23T06:07:05Z")),
      BACKUP("analytics-6h", "analytics-6h-20261123120006", "2026-11-23T12:00:06Z",
             COMPLETED("2026-11-23T12:00:07Z", "2026-11-23T12:07:07Z")),
      BACKUP("analytics-6h", "analytics-6h-20261123180007", "2026-11-23T18:00:07Z",
             COMPLETED("2026-11-23T18:00:08Z", "2026-11-23T18:07:08Z"))},
     {{"S/velero/analytics-6h",
       "Missed due=2026-11-24T06:00:07Z next=2026-11-24T12:00:07Z every=21600 "
       "ok=2026-11-23T18:07:08Z/420s/analytics-6h-20261123180007 row=0 usual=420 stuck>1320 "
       "judged=4 missed=2 [2026-11-24T00:00:07Z controller-down: " NO_BACKUP
       "] [2026-11-24T06:00:07Z controller-down: " NO_BACKUP "]"}}},
    {"a paused Schedule: its fire times are missed, excused; nothing is next",
     NULL,
     0,
     0,
     {SCHED("weekly", "'schedule':'0 2 * * 0','paused':true",
            "'phase':'Enabled','lastBackup':'2026-11-15T02:00:09Z'"),
      BACKUP("weekly", "weekly-20261115020009", "2026-11-15T02:00:09Z",
             COMPLETED("2026-11-15T02:00:10Z", "2026-11-15T02:05:10Z"))},
     {{"S/velero/weekly",
       "Paused due=2026-11-22T02:00:00Z next=- every=604800 "
       "ok=2026-11-15T02:05:10Z/300s/weekly-20261115020009 row=0 usual=300 stuck>1200 judged=1 "
       "missed=0 [2026-11-22T02:00:00Z paused*: the Schedule is paused]"}}},
    {"unpaused with skipImmediately: the fire times before lastSkipped were skipped, excused",
     NULL,
     48 * 3600,
     0,
     {SCHED("daily", "'schedule':'0 1 * * *','paused':false",
            "'phase':'Enabled','lastBackup':'2026-11-22T01:00:10Z','lastSkipped':'2026-11-24T05:00:"
            "00Z'"),
      BACKUP("daily", "daily-20261122010010", "2026-11-22T01:00:10Z",
             COMPLETED("2026-11-22T01:00:11Z", "2026-11-22T01:05:11Z"))},
     {{"S/velero/daily",
       "Healthy due=2026-11-24T01:00:00Z next=2026-11-25T01:00:00Z every=86400 "
       "ok=2026-11-22T01:05:11Z/300s/daily-20261122010010 row=0 usual=300 stuck>1200 judged=2 "
       "missed=0 [2026-11-23T01:00:00Z skipped*: skipped: the Schedule was paused until "
       "2026-11-24T05:00:00Z (skipImmediately)] [2026-11-24T01:00:00Z skipped*: skipped: the "
       "Schedule was paused until 2026-11-24T05:00:00Z (skipImmediately)]"}}},
    {"unpaused without skipImmediately: one Backup at once, late; the fire before it missed",
     NULL,
     48 * 3600,
     0,
     {SCHED("catchup", "'schedule':'0 1 * * *'",
            "'phase':'Enabled','lastBackup':'2026-11-24T05:12:00Z'"),
      BACKUP("catchup", "catchup-20261122010010", "2026-11-22T01:00:10Z",
             COMPLETED("2026-11-22T01:00:11Z", "2026-11-22T01:05:11Z")),
      BACKUP("catchup", "catchup-20261124051200", "2026-11-24T05:12:00Z",
             COMPLETED("2026-11-24T05:12:01Z", "2026-11-24T05:17:01Z"))},
     {{"S/velero/catchup",
       "Missed due=2026-11-24T01:00:00Z next=2026-11-25T01:00:00Z every=86400 "
       "ok=2026-11-24T05:17:01Z/300s/catchup-20261124051200 row=0 usual=300 stuck>1200 "
       "judged=2 missed=2 [2026-11-23T01:00:00Z controller-down: " NO_BACKUP "] "
       "[2026-11-24T01:00:00Z late: Backup catchup-20261124051200 started 4h12m late (grace "
       "1h)]"}}},
    {"an InProgress Backup holds its schedule back (Velero and cronwarden); Finalizing does not",
     NULL,
     6 * 3600,
     0,
     {SCHED("db-2h", "'schedule':'0 */2 * * *'", "'phase':'Enabled'"),
      BACKUP("db-2h", "db-2h-20261124020005", "2026-11-24T02:00:05Z",
             COMPLETED("2026-11-24T02:00:06Z", "2026-11-24T02:10:06Z")),
      BACKUP("db-2h", "db-2h-20261124040003", "2026-11-24T04:00:03Z",
             "'phase':'InProgress','startTimestamp':'2026-11-24T04:00:04Z'"),
      SCHED("db-fin", "'schedule':'0 */2 * * *'", "'phase':'Enabled'"),
      BACKUP("db-fin", "db-fin-20261124020005", "2026-11-24T02:00:05Z",
             COMPLETED("2026-11-24T02:00:06Z", "2026-11-24T02:10:06Z")),
      BACKUP("db-fin", "db-fin-20261124040003", "2026-11-24T04:00:03Z",
             "'phase':'Finalizing','startTimestamp':'2026-11-24T04:00:04Z'")},
     {{"S/velero/db-2h",
       "Stuck due=2026-11-24T08:00:00Z next=2026-11-24T10:00:00Z every=7200 "
       "ok=2026-11-24T02:10:06Z/600s/db-2h-20261124020005 row=0 "
       "running=1:db-2h-20261124040003@2026-11-24T04:00:04Z/17996s usual=600 STUCK>1500 "
       "judged=3 missed=2 [2026-11-24T06:00:00Z forbid: Backup db-2h-20261124040003 was still "
       "running (a schedule's Backups do not overlap)] [2026-11-24T08:00:00Z forbid: Backup "
       "db-2h-20261124040003 was still running (a schedule's Backups do not overlap)]"},
      {"S/velero/db-fin",
       "Stuck due=2026-11-24T08:00:00Z next=2026-11-24T10:00:00Z every=7200 "
       "ok=2026-11-24T02:10:06Z/600s/db-fin-20261124020005 row=0 "
       "running=1:db-fin-20261124040003@2026-11-24T04:00:04Z/17996s usual=600 STUCK>1500 "
       "judged=3 missed=2 [2026-11-24T06:00:00Z controller-down: " NO_BACKUP
       "] [2026-11-24T08:00:00Z controller-down: " NO_BACKUP "]"}}},
    {"PartiallyFailed is a failure with its counts; Failed and FailedValidation with their reasons",
     NULL,
     0,
     0,
     {SCHED("nightly", "'schedule':'0 1 * * *'", "'phase':'Enabled'"),
      BACKUP("nightly", "nightly-20261123010012", "2026-11-23T01:00:12Z",
             COMPLETED("2026-11-23T01:00:13Z", "2026-11-23T01:12:13Z")),
      BACKUP("nightly", "nightly-20261124010020", "2026-11-24T01:00:20Z",
             "'phase':'PartiallyFailed','startTimestamp':'2026-11-24T01:00:21Z',"
             "'completionTimestamp':'2026-11-24T01:14:21Z','errors':2,'warnings':1"),
      SCHED("weekly-app", "'schedule':'0 3 * * 0'", "'phase':'Enabled'"),
      BACKUP("weekly-app", "weekly-app-20261115030004", "2026-11-15T03:00:04Z",
             "'phase':'Failed','startTimestamp':'2026-11-15T03:00:05Z','completionTimestamp':"
             "'2026-11-15T03:00:06Z','failureReason':'BackupStorageLocation default is "
             "unavailable'"),
      BACKUP("weekly-app", "weekly-app-20261122030004", "2026-11-22T03:00:04Z",
             "'phase':'FailedValidation','validationErrors':['an existing backup storage "
             "location was not specified at backup creation time and the default "
             "velero/default could not be found']")},
     {{"S/velero/nightly",
       "Failing due=2026-11-24T01:00:00Z next=2026-11-25T01:00:00Z every=86400 "
       "ok=2026-11-23T01:12:13Z/720s/nightly-20261123010012 "
       "fail=2026-11-24T01:14:21Z/nightly-20261124010020/PartiallyFailed: 2 errors, 1 warning "
       "row=1 usual=720 stuck>1620 judged=1 missed=0"},
      {"S/velero/weekly-app",
       "Failing due=2026-11-22T03:00:00Z next=2026-11-29T03:00:00Z every=604800 "
       "fail=2026-11-22T03:00:04Z/weekly-app-20261122030004/FailedValidation: an existing "
       "backup storage location was not specified at backup creation time and the default "
       "velero/default could not be found row=2 stuck>604800 judged=1 missed=0"}}},
    {"a long schedule name: its Backups carry Velero's label.GetValidName form",
     NULL,
     6 * 3600,
     0,
     {SCHED(LONG, "'schedule':'0 */4 * * *'", "'phase':'Enabled'"),
      BACKUP(LONG_LABEL, LONG "-20261124040004", "2026-11-24T04:00:04Z",
             COMPLETED("2026-11-24T04:00:05Z", "2026-11-24T04:04:15Z")),
      BACKUP(LONG_LABEL, LONG "-20261124080003", "2026-11-24T08:00:03Z",
             COMPLETED("2026-11-24T08:00:04Z", "2026-11-24T08:04:14Z")),
      /* the name cut to 63 without the hash is not this schedule's label */
      BACKUP(LONG_CUT, LONG "-20261124000002", "2026-11-24T00:00:02Z",
             "'phase':'Failed','failureReason':'x'")},
     {{"S/velero/" LONG,
       "Healthy due=2026-11-24T08:00:00Z next=2026-11-24T12:00:00Z every=14400 "
       "ok=2026-11-24T08:04:14Z/250s/" LONG "-20261124080003 row=0 usual=250 stuck>1150 "
       "judged=2 missed=0"}}},
    {"the clock behind a run (created after now): running for 0s, not stuck",
     NULL,
     2 * 3600,
     0,
     {SCHED("skew", "'schedule':'0 * * * *'", "'phase':'Enabled'"),
      BACKUP("skew", "skew-20261124080005", "2026-11-24T08:00:05Z",
             COMPLETED("2026-11-24T08:00:06Z", "2026-11-24T08:05:06Z")),
      BACKUP("skew", "skew-20261124090010", "2026-11-24T09:00:10Z",
             "'phase':'InProgress','startTimestamp':'2026-11-24T09:00:11Z'")},
     {{"S/velero/skew",
       "Running due=2026-11-24T09:00:00Z next=2026-11-24T10:00:00Z every=3600 "
       "ok=2026-11-24T08:05:06Z/300s/skew-20261124080005 row=0 "
       "running=1:skew-20261124090010@2026-11-24T09:00:11Z/0s usual=300 stuck>1200 judged=1 "
       "missed=0"}}},
    {"Velero refused the Schedule (FailedValidation)",
     NULL,
     0,
     0,
     {SCHED("refused", "'schedule':'0 1 * * *'",
            "'phase':'FailedValidation','validationErrors':['invalid schedule: x']")},
     {{"S/velero/refused",
       "Invalid error=Velero refused it (status.phase FailedValidation) due=- next=- every=-1 "
       "row=0 stuck>3600 judged=0 missed=0"}}},
};

static void test_schedules(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(sched_cases); i++)
        check_case(&sched_cases[i]);
}

/* What `cron status` prints for such a RecurringJob: the reason, and what to write instead. */
static void cron_tz_without_cronjob_text(void **state)
{
    static const char *const objects[] = {
        RJ("backup-berlin", "backup", "CRON_TZ=Europe/Berlin 0 2 * * *", "[]")};
    cw_health_config cfg;
    cw_health h;
    cw_error err;
    char *text = NULL;
    size_t len = 0;
    (void)state;
    config(&cfg, NULL, 0, 0);
    assert_int_equal(cw_health_init(&h, &cfg, &err), CW_OK);
    load(&h, objects, N(objects));
    assert_int_equal(cw_health_eval_all(&h, 0, &err), CW_OK);
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(cw_health_render_text(&h, 0, f, &err), CW_OK);
    fclose(f);
    const char *problems = strstr(text, "  recurringjob longhorn-system/backup-berlin");
    if (!problems)
        fail_msg("no problems section:\n%s", text);
    assert_string_equal(
        problems,
        "  recurringjob longhorn-system/backup-berlin (NoCronJob):\n"
        "    no CronJob runs it: its cron starts with a time zone (CRON_TZ=Europe/Berlin), and "
        "Kubernetes 1.29 and later (and 1.21 and earlier) refuse to create a CronJob whose "
        "schedule holds TZ (Longhorn 1.3 and later refuse such a cron too); write spec.cron "
        "without the prefix, in kube-controller-manager's time zone (usually UTC)\n"
        "    missed 2026-11-24T01:00:00Z: the RecurringJob has no CronJob: its cron starts with a "
        "time zone (CRON_TZ=Europe/Berlin), and Kubernetes 1.29 and later (and 1.21 and earlier) "
        "refuse to create a CronJob whose schedule holds TZ\n"
        "\n"
        "1 schedule, 1 unhealthy; 0 volumes, 0 unprotected, 0 stale\n");
    free(text);
    cw_health_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schedules),
        cmocka_unit_test(test_volumes),
        cmocka_unit_test(cron_tz_without_cronjob_text),
        cmocka_unit_test(test_count_missed),
        cmocka_unit_test(test_one_schedule),
        cmocka_unit_test(test_replace_remove),
        cmocka_unit_test(test_run_owner),
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_run_times),
    };
    return cmocka_run_group_tests(tests, tzdb_setup, tzdb_teardown);
}
