/* The Velero Schedule reconciler's decision (velero/schedctl.c): one table of real cases,
 * each compared exactly (outcome, merge patch, Backup, names, timer). Every case is then replayed
 * with its writes applied (the merge patch, the created Backup as New): deciding again at the same
 * instant must write nothing (the writes are complete and idempotent). Times are UTC; the
 * Schedule was created at 2026-01-01T00:00:00Z. */
#include "tests/unit/controller/ctrl_test.h"

#include "velero/schedctl.h"
#include "velero/schedule.h"
#include "tests/unit/tzdb_fixture.h"

#define META_AS(name)                                                                              \
    "'metadata':{'name':'" name "','namespace':'velero','uid':'u-1','resourceVersion':'7',"        \
    "'creationTimestamp':'2026-01-01T00:00:00Z'}"
#define SCHED_AS(name, spec, status)                                                               \
    "{'apiVersion':'velero.io/v1','kind':'Schedule'," META_AS(name) ",'spec':{" spec               \
                                                                    "},'status':" status "}"
#define SCHED(spec, status) SCHED_AS("nightly", spec, status)
#define HOURLY              "'schedule':'0 * * * *','template':{}"
#define ENABLED             "{'phase':'Enabled'}"
#define NO_STATUS           "{}"
#define AFTER(t)            "{'phase':'Enabled','lastBackup':'" t "'}"
#define RV                  "'metadata':{'resourceVersion':'7'}"
#define BACKUP(name, labels, spec)                                                                 \
    "{'apiVersion':'velero.io/v1','kind':'Backup','metadata':{'name':'" name                       \
    "','namespace':'velero','labels':{" labels "}},'spec':" spec "}"
#define SLABEL          "'velero.io/schedule-name':'nightly'"
#define B(name, phase)  "{'metadata':{'name':'" name "'},'status':{'phase':'" phase "'}}"
#define B_NOPHASE(name) "{'metadata':{'name':'" name "'}}"
#define LONG_NAME       "a-very-long-schedule-name-that-goes-on-and-on-past-sixty-three-characters"

typedef struct {
    const char *label;
    int skip; /* --schedule-skip-immediately */
    const char *schedule, *backups;
    const char *now;
    int now_ms; /* added to now */
    cw_schedctl_outcome outcome;
    const char *patch, *backup, *backup_name;
    const char *requeue; /* NULL: no timer */
    int requeue_ms;      /* added to requeue */
    const char *next_run;
    const char *problems; /* joined with "\n" */
} decide_case;

static const decide_case cases[] = {
    /* ---- timing ---- */
    {"a new schedule does not fire at creation: it becomes Enabled and waits", 0,
     SCHED(HOURLY, NO_STATUS), NULL, "2026-01-01T00:00:00Z", 0, CW_SCHEDCTL_WAITING,
     "{" RV ",'status':{'phase':'Enabled'}}", NULL, NULL, "2026-01-01T01:00:00Z", 1,
     "2026-01-01T01:00:00Z", NULL},
    {"not due yet: no write, a timer at the next run", 0, SCHED(HOURLY, ENABLED), NULL,
     "2026-01-01T00:30:00Z", 0, CW_SCHEDCTL_WAITING, NULL, NULL, NULL, "2026-01-01T01:00:00Z", 1,
     "2026-01-01T01:00:00Z", NULL},
    {"exactly at the next run it is not due yet (Velero: now after next)", 0,
     SCHED(HOURLY, ENABLED), NULL, "2026-01-01T01:00:00Z", 0, CW_SCHEDCTL_WAITING, NULL, NULL, NULL,
     "2026-01-01T01:00:00Z", 1, "2026-01-01T01:00:00Z", NULL},
    {"one millisecond after the next run it fires: Backup named after the run, lastBackup = now", 0,
     SCHED(HOURLY, ENABLED), NULL, "2026-01-01T01:00:00Z", 1, CW_SCHEDCTL_SUBMIT,
     "{" RV ",'status':{'lastBackup':'2026-01-01T01:00:00Z'}}",
     BACKUP("nightly-20260101010000", SLABEL, "{}"), "nightly-20260101010000",
     "2026-01-01T02:00:00Z", 1, "2026-01-01T01:00:00Z", NULL},
    {"a late run keeps its slot's name; lastBackup is when it was submitted", 0,
     SCHED(HOURLY, AFTER("2026-01-01T01:00:00Z")), NULL, "2026-01-01T02:00:20Z", 0,
     CW_SCHEDCTL_SUBMIT, "{" RV ",'status':{'lastBackup':'2026-01-01T02:00:20Z'}}",
     BACKUP("nightly-20260101020000", SLABEL, "{}"), "nightly-20260101020000",
     "2026-01-01T03:00:00Z", 1, "2026-01-01T02:00:00Z", NULL},
    {"no catch-up: three missed runs give one Backup, then the next fire time after now", 0,
     SCHED(HOURLY, AFTER("2026-01-01T01:00:00Z")), NULL, "2026-01-01T05:30:00Z", 0,
     CW_SCHEDCTL_SUBMIT, "{" RV ",'status':{'lastBackup':'2026-01-01T05:30:00Z'}}",
     BACKUP("nightly-20260101020000", SLABEL, "{}"), "nightly-20260101020000",
     "2026-01-01T06:00:00Z", 1, "2026-01-01T02:00:00Z", NULL},
    {"@every runs relative to lastBackup, which has whole seconds: no drift", 0,
     SCHED("'schedule':'@every 5m','template':{}", AFTER("2026-01-01T00:05:00Z")), NULL,
     "2026-01-01T00:10:00Z", 437, CW_SCHEDCTL_SUBMIT,
     "{" RV ",'status':{'lastBackup':'2026-01-01T00:10:00Z'}}",
     BACKUP("nightly-20260101001000", SLABEL, "{}"), "nightly-20260101001000",
     "2026-01-01T00:15:00Z", 1, "2026-01-01T00:10:00Z", NULL},
    {"a TZ= prefix: 02:00 in Berlin is 01:00 UTC in winter", 0,
     SCHED("'schedule':'CRON_TZ=Europe/Berlin 0 2 * * *','template':{}", ENABLED), NULL,
     "2026-01-01T00:59:59Z", 0, CW_SCHEDCTL_WAITING, NULL, NULL, NULL, "2026-01-01T01:00:00Z", 1,
     "2026-01-01T01:00:00Z", NULL},
    {"a cron that never fires (30 February): Enabled, no timer", 0,
     SCHED("'schedule':'0 0 30 2 *','template':{}", NO_STATUS), NULL, "2026-01-01T00:10:00Z", 0,
     CW_SCHEDCTL_NEVER, "{" RV ",'status':{'phase':'Enabled'}}", NULL, NULL, NULL, 0, NULL, NULL},

    /* ---- skipImmediately ---- */
    {"skipImmediately true: consumed, reset to false (not absent), lastSkipped = now", 0,
     SCHED(HOURLY ",'skipImmediately':true", AFTER("2026-01-01T01:00:00Z")), NULL,
     "2026-01-01T05:30:00Z", 0, CW_SCHEDCTL_SKIPPED,
     "{" RV ",'spec':{'skipImmediately':false},'status':{'lastSkipped':'2026-01-01T05:30:00Z'}}",
     NULL, NULL, "2026-01-01T06:00:00Z", 1, "2026-01-01T06:00:00Z", NULL},
    {"skipImmediately true on a new schedule: Enabled and consumed in one write", 0,
     SCHED(HOURLY ",'skipImmediately':true", NO_STATUS), NULL, "2026-01-01T00:00:03Z", 0,
     CW_SCHEDCTL_SKIPPED,
     "{" RV ",'spec':{'skipImmediately':false},'status':{'phase':'Enabled',"
     "'lastSkipped':'2026-01-01T00:00:03Z'}}",
     NULL, NULL, "2026-01-01T01:00:00Z", 1, "2026-01-01T01:00:00Z", NULL},
    {"absent with server default true: the default applies and is consumed as false", 1,
     SCHED(HOURLY, AFTER("2026-01-01T01:00:00Z")), NULL, "2026-01-01T05:30:00Z", 0,
     CW_SCHEDCTL_SKIPPED,
     "{" RV ",'spec':{'skipImmediately':false},'status':{'lastSkipped':'2026-01-01T05:30:00Z'}}",
     NULL, NULL, "2026-01-01T06:00:00Z", 1, "2026-01-01T06:00:00Z", NULL},
    {"null with server default true: same as absent", 1,
     SCHED(HOURLY ",'skipImmediately':null", AFTER("2026-01-01T01:00:00Z")), NULL,
     "2026-01-01T05:30:00Z", 0, CW_SCHEDCTL_SKIPPED,
     "{" RV ",'spec':{'skipImmediately':false},'status':{'lastSkipped':'2026-01-01T05:30:00Z'}}",
     NULL, NULL, "2026-01-01T06:00:00Z", 1, "2026-01-01T06:00:00Z", NULL},
    {"false with server default true: the schedule's own false wins, it fires", 1,
     SCHED(HOURLY ",'skipImmediately':false", AFTER("2026-01-01T01:00:00Z")), NULL,
     "2026-01-01T05:30:00Z", 0, CW_SCHEDCTL_SUBMIT,
     "{" RV ",'status':{'lastBackup':'2026-01-01T05:30:00Z'}}",
     BACKUP("nightly-20260101020000", SLABEL, "{}"), "nightly-20260101020000",
     "2026-01-01T06:00:00Z", 1, "2026-01-01T02:00:00Z", NULL},
    {"absent with server default false: it fires", 0, SCHED(HOURLY, AFTER("2026-01-01T04:00:00Z")),
     NULL, "2026-01-01T05:30:00Z", 0, CW_SCHEDCTL_SUBMIT,
     "{" RV ",'status':{'lastBackup':'2026-01-01T05:30:00Z'}}",
     BACKUP("nightly-20260101050000", SLABEL, "{}"), "nightly-20260101050000",
     "2026-01-01T06:00:00Z", 1, "2026-01-01T05:00:00Z", NULL},
    {"after a skip the next run counts from lastSkipped, the later of the two", 0,
     SCHED(HOURLY ",'skipImmediately':false",
           "{'phase':'Enabled','lastBackup':'2026-01-01T01:00:00Z',"
           "'lastSkipped':'2026-01-01T05:30:00Z'}"),
     NULL, "2026-01-01T05:45:00Z", 0, CW_SCHEDCTL_WAITING, NULL, NULL, NULL, "2026-01-01T06:00:00Z",
     1, "2026-01-01T06:00:00Z", NULL},
    {"... and fires at it", 0,
     SCHED(HOURLY ",'skipImmediately':false",
           "{'phase':'Enabled','lastBackup':'2026-01-01T01:00:00Z',"
           "'lastSkipped':'2026-01-01T05:30:00Z'}"),
     NULL, "2026-01-01T06:00:01Z", 0, CW_SCHEDCTL_SUBMIT,
     "{" RV ",'status':{'lastBackup':'2026-01-01T06:00:01Z'}}",
     BACKUP("nightly-20260101060000", SLABEL, "{}"), "nightly-20260101060000",
     "2026-01-01T07:00:00Z", 1, "2026-01-01T06:00:00Z", NULL},

    /* ---- paused ---- */
    {"paused: nothing at all, not even status or skipImmediately", 1,
     SCHED("'schedule':'61 * * * *','template':{},'paused':true,'skipImmediately':true", NO_STATUS),
     NULL, "2026-01-01T05:30:00Z", 0, CW_SCHEDCTL_PAUSED, NULL, NULL, NULL, NULL, 0, NULL, NULL},
    {"paused false is reconciled", 0, SCHED(HOURLY ",'paused':false", ENABLED), NULL,
     "2026-01-01T01:00:01Z", 0, CW_SCHEDCTL_SUBMIT,
     "{" RV ",'status':{'lastBackup':'2026-01-01T01:00:01Z'}}",
     BACKUP("nightly-20260101010000", SLABEL, "{}"), "nightly-20260101010000",
     "2026-01-01T02:00:00Z", 1, "2026-01-01T01:00:00Z", NULL},

    /* ---- validation (Velero's messages, from velero/schedule.c) ---- */
    {"invalid cron: FailedValidation with Velero's message, no timer", 0,
     SCHED("'schedule':'61 * * * *','template':{}", NO_STATUS), NULL, "2026-01-01T05:30:00Z", 0,
     CW_SCHEDCTL_INVALID,
     "{" RV ",'status':{'phase':'FailedValidation','validationErrors':['invalid schedule: end of "
     "range (61) above maximum (59): 61']}}",
     NULL, NULL, NULL, 0, NULL, "invalid schedule: end of range (61) above maximum (59): 61"},
    {"empty cron", 0, SCHED("'schedule':'','template':{}", NO_STATUS), NULL, "2026-01-01T05:30:00Z",
     0, CW_SCHEDCTL_INVALID,
     "{" RV ",'status':{'phase':'FailedValidation','validationErrors':['" CW_SCHEDULE_MSG_EMPTY
     "']}}",
     NULL, NULL, NULL, 0, NULL, CW_SCHEDULE_MSG_EMPTY},
    {"invalid and already reported: no write", 0,
     SCHED("'schedule':'','template':{}",
           "{'phase':'FailedValidation','validationErrors':['" CW_SCHEDULE_MSG_EMPTY "']}"),
     NULL, "2026-01-01T05:30:00Z", 0, CW_SCHEDCTL_INVALID, NULL, NULL, NULL, NULL, 0, NULL,
     CW_SCHEDULE_MSG_EMPTY},
    {"invalid with other errors reported: replaced", 0,
     SCHED("'schedule':'','template':{}",
           "{'phase':'FailedValidation','validationErrors':['old','older']}"),
     NULL, "2026-01-01T05:30:00Z", 0, CW_SCHEDCTL_INVALID,
     "{" RV ",'status':{'validationErrors':['" CW_SCHEDULE_MSG_EMPTY "']}}", NULL, NULL, NULL, 0,
     NULL, CW_SCHEDULE_MSG_EMPTY},
    {"invalid with skipImmediately true: not consumed", 1,
     SCHED("'schedule':'x','template':{},'skipImmediately':true", NO_STATUS), NULL,
     "2026-01-01T05:30:00Z", 0, CW_SCHEDCTL_INVALID,
     "{" RV ",'status':{'phase':'FailedValidation','validationErrors':['invalid schedule: "
     "expected exactly 5 fields, found 1: [x]']}}",
     NULL, NULL, NULL, 0, NULL, "invalid schedule: expected exactly 5 fields, found 1: [x]"},
    {"valid again: Enabled and the errors cleared (null deletes them)", 0,
     SCHED(HOURLY, "{'phase':'FailedValidation','validationErrors':['" CW_SCHEDULE_MSG_EMPTY "']}"),
     NULL, "2026-01-01T00:30:00Z", 0, CW_SCHEDCTL_WAITING,
     "{" RV ",'status':{'phase':'Enabled','validationErrors':null}}", NULL, NULL,
     "2026-01-01T01:00:00Z", 1, "2026-01-01T01:00:00Z", NULL},

    /* ---- Backups of the schedule ---- */
    {"a Backup of the schedule InProgress blocks the due run; look again in a minute", 0,
     SCHED(HOURLY, AFTER("2026-01-01T00:00:00Z")),
     "[" B("nightly-20260101000000", "InProgress") "]", "2026-01-01T01:00:01Z", 0,
     CW_SCHEDCTL_BLOCKED, NULL, NULL, "nightly-20260101000000", "2026-01-01T01:01:01Z", 0,
     "2026-01-01T01:00:00Z", NULL},
    {"New blocks", 0, SCHED(HOURLY, AFTER("2026-01-01T00:00:00Z")),
     "[" B("nightly-20260101000000", "New") "]", "2026-01-01T01:00:01Z", 0, CW_SCHEDCTL_BLOCKED,
     NULL, NULL, "nightly-20260101000000", "2026-01-01T01:01:01Z", 0, "2026-01-01T01:00:00Z", NULL},
    {"Queued blocks (Velero forgets it; cronwarden counts it)", 0,
     SCHED(HOURLY, AFTER("2026-01-01T00:00:00Z")), "[" B("nightly-20260101000000", "Queued") "]",
     "2026-01-01T01:00:01Z", 0, CW_SCHEDCTL_BLOCKED, NULL, NULL, "nightly-20260101000000",
     "2026-01-01T01:01:01Z", 0, "2026-01-01T01:00:00Z", NULL},
    {"ReadyToStart blocks", 0, SCHED(HOURLY, AFTER("2026-01-01T00:00:00Z")),
     "[" B("nightly-20260101000000", "ReadyToStart") "]", "2026-01-01T01:00:01Z", 0,
     CW_SCHEDCTL_BLOCKED, NULL, NULL, "nightly-20260101000000", "2026-01-01T01:01:01Z", 0,
     "2026-01-01T01:00:00Z", NULL},
    {"no phase yet (Velero has not picked it up) blocks", 0,
     SCHED(HOURLY, AFTER("2026-01-01T00:00:00Z")), "[" B_NOPHASE("nightly-20260101000000") "]",
     "2026-01-01T01:00:01Z", 0, CW_SCHEDCTL_BLOCKED, NULL, NULL, "nightly-20260101000000",
     "2026-01-01T01:01:01Z", 0, "2026-01-01T01:00:00Z", NULL},
    {"finished Backups do not block", 0, SCHED(HOURLY, AFTER("2026-01-01T00:00:00Z")),
     "[" B("nightly-20251231220000", "Completed") "," B("nightly-20251231230000", "Failed") "," B(
         "nightly-20260101000000",
         "PartiallyFailed") "," B("x", "FailedValidation") "," B("y", "Deleting") "]",
     "2026-01-01T01:00:01Z", 0, CW_SCHEDCTL_SUBMIT,
     "{" RV ",'status':{'lastBackup':'2026-01-01T01:00:01Z'}}",
     BACKUP("nightly-20260101010000", SLABEL, "{}"), "nightly-20260101010000",
     "2026-01-01T02:00:00Z", 1, "2026-01-01T01:00:00Z", NULL},
    {"a blocking Backup does not matter while the schedule is not due", 0,
     SCHED(HOURLY, AFTER("2026-01-01T00:00:00Z")),
     "[" B("nightly-20260101000000", "InProgress") "]", "2026-01-01T00:30:00Z", 0,
     CW_SCHEDCTL_WAITING, NULL, NULL, NULL, "2026-01-01T01:00:00Z", 1, "2026-01-01T01:00:00Z",
     NULL},
    {"the run's own Backup exists (the status write was lost): record it, create nothing", 0,
     SCHED(HOURLY, AFTER("2026-01-01T00:00:00Z")), "[" B("nightly-20260101010000", "New") "]",
     "2026-01-01T01:00:09Z", 0, CW_SCHEDCTL_RECORD,
     "{" RV ",'status':{'lastBackup':'2026-01-01T01:00:09Z'}}", NULL, "nightly-20260101010000",
     "2026-01-01T02:00:00Z", 1, "2026-01-01T01:00:00Z", NULL},

    /* ---- the Backup from the template ---- */
    {"Backup spec from spec.template; labels from the template's metadata.labels", 0,
     SCHED("'schedule':'0 * * * *','template':{'includedNamespaces':['app'],'ttl':'720h0m0s',"
           "'storageLocation':'default','metadata':{'labels':{'team':'a','n':5}}}",
           ENABLED),
     NULL, "2026-01-01T01:00:01Z", 0, CW_SCHEDCTL_SUBMIT,
     "{" RV ",'status':{'lastBackup':'2026-01-01T01:00:01Z'}}",
     BACKUP("nightly-20260101010000", "'team':'a'," SLABEL,
            "{'includedNamespaces':['app'],'ttl':'720h0m0s','storageLocation':'default',"
            "'metadata':{'labels':{'team':'a','n':5}}}"),
     "nightly-20260101010000", "2026-01-01T02:00:00Z", 1, "2026-01-01T01:00:00Z", NULL},
    {"no template labels: the Schedule's labels; its annotations (not kubectl's); owner reference",
     0,
     "{'apiVersion':'velero.io/v1','kind':'Schedule','metadata':{'name':'nightly','namespace':"
     "'velero','uid':'u-1','resourceVersion':'7','creationTimestamp':'2026-01-01T00:00:00Z',"
     "'labels':{'app':'db','velero.io/schedule-name':'spoof'},'annotations':{'note':'hi',"
     "'kubectl.kubernetes.io/last-applied-configuration':'{}'}},'spec':{'schedule':'0 * * * *',"
     "'useOwnerReferencesInBackup':true,'template':{}},'status':{'phase':'Enabled'}}",
     NULL, "2026-01-01T01:00:01Z", 0, CW_SCHEDCTL_SUBMIT,
     "{" RV ",'status':{'lastBackup':'2026-01-01T01:00:01Z'}}",
     "{'apiVersion':'velero.io/v1','kind':'Backup','metadata':{'name':'nightly-20260101010000',"
     "'namespace':'velero','labels':{'app':'db'," SLABEL "},'annotations':{'note':'hi'},"
     "'ownerReferences':[{'apiVersion':'velero.io/v1','kind':'Schedule','name':'nightly',"
     "'uid':'u-1','controller':true}]},'spec':{}}",
     "nightly-20260101010000", "2026-01-01T02:00:00Z", 1, "2026-01-01T01:00:00Z", NULL},
    {"a name longer than 63: the label is shortened Velero's way (57 + 6 hex of SHA-256)", 0,
     SCHED_AS(LONG_NAME, HOURLY, ENABLED), NULL, "2026-01-01T01:00:01Z", 0, CW_SCHEDCTL_SUBMIT,
     "{" RV ",'status':{'lastBackup':'2026-01-01T01:00:01Z'}}",
     "{'apiVersion':'velero.io/v1','kind':'Backup','metadata':{'name':'" LONG_NAME
     "-20260101010000','namespace':'velero','labels':{'velero.io/schedule-name':"
     "'a-very-long-schedule-name-that-goes-on-and-on-past-sixty-f60479'}},'spec':{}}",
     LONG_NAME "-20260101010000", "2026-01-01T02:00:00Z", 1, "2026-01-01T01:00:00Z", NULL},
    {"without a resourceVersion the patch is unconditional", 0,
     "{'metadata':{'name':'nightly','namespace':'velero','creationTimestamp':"
     "'2026-01-01T00:00:00Z'},'spec':{'schedule':'0 * * * *'}}",
     NULL, "2026-01-01T00:30:00Z", 0, CW_SCHEDCTL_WAITING, "{'status':{'phase':'Enabled'}}", NULL,
     NULL, "2026-01-01T01:00:00Z", 1, "2026-01-01T01:00:00Z", NULL},
};

/* RFC 7386 merge patch applied to target in place. */
static void merge(json_object *target, json_object *patch)
{
    json_object_object_foreach(patch, k, v)
    {
        json_object *cur = cw_json_member(target, k);
        if (!v) {
            json_object_object_del(target, k);
        } else if (json_object_is_type(v, json_type_object)) {
            if (!json_object_is_type(cur, json_type_object)) {
                cur = json_object_new_object();
                json_object_object_add(target, k, cur);
            }
            merge(cur, v);
        } else {
            json_object *copy = NULL;
            assert_int_equal(cw_json_copy(v, &copy), CW_OK);
            json_object_object_add(target, k, copy);
        }
    }
}

static void run(const decide_case *c, json_object *sched, json_object *backups, int replay)
{
    cw_policy_config policy;
    cw_schedctl_actions a;
    cw_error err;
    char label[400];
    assert_int_equal(cw_policy_config_init(&policy), CW_OK);
    policy.schedule_skip_immediately = c->skip;
    policy.tzdb = &tzdb;
    cw_schedctl_config cfg = {.policy = &policy};
    cw_schedctl_actions_init(&a);
    snprintf(label, sizeof(label), "%s%s", c->label, replay ? " (replayed after its writes)" : "");
    int64_t now = ttime(c->now) * 1000 + c->now_ms;
    int rc = cw_schedctl_decide(sched, backups, &cfg, now, &a, &err);
    if (rc != CW_OK)
        fail_msg("%s: rc %d: %s", label, rc, err.message);
    if (!replay) {
        if (a.outcome != c->outcome)
            fail_msg("%s: outcome %s, want %s", label, cw_schedctl_outcome_name(a.outcome),
                     cw_schedctl_outcome_name(c->outcome));
        expect_json(a.patch, c->patch, "patch", label);
        expect_json(a.backup, c->backup, "backup", label);
        if (strcmp(a.backup_name ? a.backup_name : "", c->backup_name ? c->backup_name : ""))
            fail_msg("%s: backup name %s, want %s", label, a.backup_name ? a.backup_name : "-",
                     c->backup_name ? c->backup_name : "-");
        int64_t want = c->requeue ? ttime(c->requeue) * 1000 + c->requeue_ms : 0;
        if (a.requeue_at_ms != want)
            fail_msg("%s: requeue at %lld ms, want %lld", label, (long long)a.requeue_at_ms,
                     (long long)want);
        int64_t next = c->next_run ? ttime(c->next_run) : 0;
        if (a.next_run != next)
            fail_msg("%s: next run %lld, want %lld", label, (long long)a.next_run, (long long)next);
        char *problems = cw_strlist_join(&a.problems, "\n");
        if (strcmp(problems, c->problems ? c->problems : ""))
            fail_msg("%s: problems\n got: %s\nwant: %s", label, problems,
                     c->problems ? c->problems : "");
        free(problems);
        /* Apply the writes (the Backup as Velero would first see it) and decide again. */
        if (a.patch) {
            merge(sched, a.patch);
            json_object *meta = cw_json_member(sched, "metadata");
            if (meta)
                json_object_object_add(meta, "resourceVersion", json_object_new_string("8"));
        }
        if (a.backup) {
            json_object *b = NULL;
            assert_int_equal(cw_json_copy(a.backup, &b), CW_OK);
            if (!backups)
                backups = json_object_new_array();
            else
                json_object_get(backups);
            json_object_array_add(backups, b);
            run(c, sched, backups, 1);
            json_object_put(backups);
        } else {
            run(c, sched, backups, 1);
        }
    } else if (a.patch) {
        fail_msg("%s: wrote again: %s", label, cw_json_compact(a.patch));
    } else if (a.backup) {
        fail_msg("%s: submitted again", label);
    }
    cw_schedctl_actions_free(&a);
    cw_policy_config_free(&policy);
}

static void decide_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        json_object *sched = tjson(cases[i].schedule), *backups = tjson(cases[i].backups);
        run(&cases[i], sched, backups, 0);
        json_object_put(sched);
        json_object_put(backups);
    }
}

typedef struct {
    const char *label, *schedule;
    int rc;
    const char *message;
} error_case;

static const error_case errors[] = {
    {"no name", "{'metadata':{'namespace':'velero'},'spec':{'schedule':'@daily'}}", CW_EINVAL,
     "metadata.name: missing"},
    {"lastBackup not RFC 3339", SCHED(HOURLY, "{'phase':'Enabled','lastBackup':'yesterday'}"),
     CW_EINVAL, "status.lastBackup: invalid RFC 3339 time \"yesterday\""},
    {"no creationTimestamp before the first Backup",
     "{'metadata':{'name':'n','namespace':'v'},'spec':{'schedule':'@daily'}}", CW_EINVAL,
     "metadata.creationTimestamp: missing (needed while status.lastBackup is not set)"},
};

static void decide_errors(void **state)
{
    (void)state;
    cw_policy_config policy;
    assert_int_equal(cw_policy_config_init(&policy), CW_OK);
    policy.tzdb = &tzdb;
    cw_schedctl_config cfg = {.policy = &policy};
    for (size_t i = 0; i < N(errors); i++) {
        cw_schedctl_actions a;
        cw_error err;
        cw_error_init(&err);
        cw_schedctl_actions_init(&a);
        json_object *s = tjson(errors[i].schedule);
        int rc = cw_schedctl_decide(s, NULL, &cfg, ttime("2026-01-01T05:00:00Z") * 1000, &a, &err);
        if (rc != errors[i].rc ||
            strncmp(err.message, errors[i].message, strlen(errors[i].message)))
            fail_msg("%s: rc %d message \"%s\", want %d \"%s...\"", errors[i].label, rc,
                     err.message, errors[i].rc, errors[i].message);
        assert_null(a.patch);
        assert_null(a.backup);
        json_object_put(s);
        cw_schedctl_actions_free(&a);
    }
    cw_policy_config_free(&policy);
}

static void names_and_labels(void **state)
{
    (void)state;
    char out[300];
    assert_int_equal(
        cw_schedctl_backup_name("daily", ttime("2026-03-09T07:08:09Z"), out, sizeof(out)), CW_OK);
    assert_string_equal(out, "daily-20260309070809");
    cw_schedctl_label_value("daily", out, sizeof(out));
    assert_string_equal(out, "daily");
    /* exactly 63: kept; 64: shortened */
    const char *n63 = "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefg";
    cw_schedctl_label_value(n63, out, sizeof(out));
    assert_string_equal(out, n63);
    cw_schedctl_label_value(LONG_NAME, out, sizeof(out));
    assert_string_equal(out, "a-very-long-schedule-name-that-goes-on-and-on-past-sixty-f60479");
    static const char *const blocking[] = {"", "New", "InProgress", "Queued", "ReadyToStart"};
    static const char *const finished[] = {
        "Completed",  "PartiallyFailed",           "Failed", "FailedValidation", "Deleting",
        "Finalizing", "WaitingForPluginOperations"};
    assert_true(cw_schedctl_backup_blocks(NULL));
    for (size_t i = 0; i < N(blocking); i++)
        assert_true(cw_schedctl_backup_blocks(blocking[i]));
    for (size_t i = 0; i < N(finished); i++)
        assert_false(cw_schedctl_backup_blocks(finished[i]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decide_table),
        cmocka_unit_test(decide_errors),
        cmocka_unit_test(names_and_labels),
    };
    return cmocka_run_group_tests(tests, tzdb_setup, tzdb_teardown);
}
