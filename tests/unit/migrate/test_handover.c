/* migrate/handover: whether a legacy CronJob, as the apiserver returns it, still owes a run at the
 * hand-over instant (every fire time up to it is the legacy CronJob's to start, as Kubernetes'
 * CronJob controller starts a new CronJob's first Job after its creationTimestamp), exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cron/tz.h"
#include "migrate/handover.h"

typedef struct {
    const char *what;
    const char *cronjob;  /* JSON */
    const char *handover; /* RFC 3339 */
    const char *want;     /* "done", "running", "due <RFC 3339>" or "error: <message>" */
} handover_case;

#define CJ(spec, meta, status)                                                                     \
    "{\"apiVersion\":\"batch/"                                                                     \
    "v1beta1\",\"kind\":\"CronJob\",\"metadata\":{\"name\":\"vol-1-snap-c\"" meta                  \
    "},\"spec\":{" spec "},\"status\":{" status "}}"
#define MINUTELY "\"schedule\":\"* * * * *\",\"concurrencyPolicy\":\"Forbid\""
#define CREATED  ",\"creationTimestamp\":\"2026-11-28T05:41:30Z\""
#define LAST(t)  "\"lastScheduleTime\":\"" t "\""

static const handover_case cases[] = {
    {"never ran: the first fire time after its creation is due", CJ(MINUTELY, CREATED, ""),
     "2026-11-28T05:43:00Z", "due 2026-11-28T05:42:00Z"},
    {"started the last fire time before the hand-over",
     CJ(MINUTELY, CREATED, LAST("2026-11-28T05:43:00Z")), "2026-11-28T05:43:00Z", "done"},
    {"the fire time in the hand-over's own second is the legacy CronJob's",
     CJ(MINUTELY, CREATED, LAST("2026-11-28T05:42:00Z")), "2026-11-28T05:43:00Z",
     "due 2026-11-28T05:43:00Z"},
    {"one fire time behind, the hand-over seconds later",
     CJ(MINUTELY, CREATED, LAST("2026-11-28T05:42:00Z")), "2026-11-28T05:43:02Z",
     "due 2026-11-28T05:43:00Z"},
    {"created after its last fire time before the hand-over: nothing owed",
     CJ(MINUTELY, ",\"creationTimestamp\":\"2026-11-28T05:42:10Z\"", ""), "2026-11-28T05:42:59Z",
     "done"},
    {"a Job of it still runs",
     CJ(MINUTELY, CREATED,
        "\"active\":[{\"kind\":\"Job\",\"name\":\"vol-1-snap-c-29497423\"}]," LAST(
            "2026-11-28T05:43:00Z")),
     "2026-11-28T05:43:05Z", "running"},
    {"an empty active list runs nothing",
     CJ(MINUTELY, CREATED, "\"active\":[]," LAST("2026-11-28T05:43:00Z")), "2026-11-28T05:43:05Z",
     "done"},
    {"suspended: runs nothing, owes nothing",
     CJ(MINUTELY ",\"suspend\":true", CREATED, LAST("2026-11-20T00:00:00Z")),
     "2026-11-28T05:43:00Z", "done"},
    {"suspend false is not suspended",
     CJ(MINUTELY ",\"suspend\":false", CREATED, LAST("2026-11-28T05:40:00Z")),
     "2026-11-28T05:43:00Z", "due 2026-11-28T05:41:00Z"},
    {"daily, ran today", CJ("\"schedule\":\"0 2 * * *\"", CREATED, LAST("2026-11-28T02:00:00Z")),
     "2026-11-28T05:43:00Z", "done"},
    {"daily, last ran yesterday: today's run is owed",
     CJ("\"schedule\":\"0 2 * * *\"", CREATED, LAST("2026-11-27T02:00:00Z")),
     "2026-11-28T05:43:00Z", "due 2026-11-28T02:00:00Z"},
    {"@hourly, UTC as kube-controller-manager runs",
     CJ("\"schedule\":\"@hourly\"", CREATED, LAST("2026-11-28T04:00:00Z")), "2026-11-28T05:00:00Z",
     "due 2026-11-28T05:00:00Z"},
    {"no schedule", CJ("\"concurrencyPolicy\":\"Forbid\"", CREATED, ""), "2026-11-28T05:43:00Z",
     "error: spec.schedule: missing"},
    {"a schedule Kubernetes would not run", CJ("\"schedule\":\"61 * * * *\"", CREATED, ""),
     "2026-11-28T05:43:00Z", "error: spec.schedule \"61 * * * *\": "},
    {"a zone prefix", CJ("\"schedule\":\"CRON_TZ=Europe/Berlin 0 2 * * *\"", CREATED, ""),
     "2026-11-28T05:43:00Z",
     "error: spec.schedule \"CRON_TZ=Europe/Berlin 0 2 * * *\": a zone prefix"},
    {"an unreadable lastScheduleTime", CJ(MINUTELY, CREATED, LAST("yesterday")),
     "2026-11-28T05:43:00Z", "error: status.lastScheduleTime: "},
    {"neither time", CJ(MINUTELY, "", ""), "2026-11-28T05:43:00Z",
     "error: status.lastScheduleTime and metadata.creationTimestamp: both missing"},
};

static void handover_table(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const handover_case *c = &cases[k];
        json_object *cj = json_tokener_parse(c->cronjob);
        int64_t at = 0, due = 0;
        int32_t off = 0;
        cw_error err;
        cw_error_init(&err);
        if (!cj)
            fail_msg("%s: test JSON does not parse", c->what);
        assert_int_equal(cw_tz_parse_rfc3339(c->handover, &at, &off, &err), CW_OK);
        cw_handover_state st = CW_HANDOVER_DUE;
        int rc = cw_handover_check(cj, at, &st, &due, &err);
        char got[1200];
        if (rc != CW_OK) {
            snprintf(got, sizeof(got), "error: %s", err.message);
        } else if (st == CW_HANDOVER_DUE) {
            char when[CW_TZ_RFC3339_MAX];
            assert_int_equal(cw_tz_format_rfc3339(due, 0, when, sizeof(when)), CW_OK);
            snprintf(got, sizeof(got), "due %s", when);
        } else {
            snprintf(got, sizeof(got), "%s", st == CW_HANDOVER_RUNNING ? "running" : "done");
        }
        /* An error's text continues with the parser's own message: the prefix is exact. */
        size_t n = strlen(c->want);
        int match =
            c->want[n - 1] == ' ' ? strncmp(got, c->want, n) == 0 : strcmp(got, c->want) == 0;
        if (!match)
            fail_msg("%s: got \"%s\" want \"%s\"", c->what, got, c->want);
        json_object_put(cj);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(handover_table)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
