/* Shared by health/'s unit tests: objects as kubectl exports them (JSON written with ' for "),
 * one result as one line, a cluster loaded into the collector. */
#ifndef CW_TEST_HEALTH_H
#define CW_TEST_HEALTH_H

#include "tests/unit/controller/ctrl_test.h"

#include "schedules/health.h"
#include "lib/buf.h"
#include "cron/tz.h"

extern cw_tzdb *const health_tzdb;

#define NOW "2026-11-24T09:00:00Z"
#define LH  "'namespace':'longhorn-system'"

#define RJ(name, task, cron, groups)                                                               \
    "{'apiVersion':'longhorn.io/v1beta2','kind':'RecurringJob','metadata':{'name':'" name "'," LH  \
    ",'creationTimestamp':'2026-10-01T00:00:00Z'},'spec':{'name':'" name "','task':'" task         \
    "','cron':'" cron "','groups':" groups ",'retain':7,'concurrency':5}}"
/* a CronJob as Longhorn makes it (label, ownerReference), history limits 3 and 3 unless given */
#define CJ_AS(name, cron, spec, status)                                                            \
    "{'apiVersion':'batch/v1','kind':'CronJob','metadata':{'name':'" name "'," LH                  \
    ",'creationTimestamp':'2026-10-01T00:00:00Z','labels':{'longhorn.io/managed-by':'longhorn-"    \
    "manager','recurring-job.longhorn.io':'" name "'},'ownerReferences':[{'apiVersion':"           \
    "'longhorn.io/v1beta2','kind':'RecurringJob','name':'" name "'}]},'spec':{'schedule':'" cron   \
    "','concurrencyPolicy':'Forbid'" spec "},'status':{" status "}}"
#define CJ(name, cron, status)                                                                     \
    CJ_AS(name, cron, ",'successfulJobsHistoryLimit':3,'failedJobsHistoryLimit':3", status)
#define LAST(t) "'lastScheduleTime':'" t "'"
#define JOB(cj, suffix, created, status)                                                           \
    "{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'" cj "-" suffix "'," LH             \
    ",'creationTimestamp':'" created "','ownerReferences':[{'apiVersion':'batch/v1','kind':"       \
    "'CronJob','name':'" cj "','controller':true}]},'spec':{'backoffLimit':3,'completions':1},"    \
    "'status':{" status "}}"
#define DONE(start, end)                                                                           \
    "'startTime':'" start "','succeeded':1,'completionTime':'" end "','conditions':[{'type':"      \
    "'Complete','status':'True','lastTransitionTime':'" end "'}]"
#define RETRIED(start, end, n)                                                                     \
    "'startTime':'" start "','failed':" #n ",'succeeded':1,'completionTime':'" end                 \
    "','conditions':[{'type':'Complete','status':'True','lastTransitionTime':'" end "'}]"
#define FAILED(start, end, n)                                                                      \
    "'startTime':'" start "','failed':" #n ",'conditions':[{'type':'Failed','status':'True',"      \
    "'reason':'BackoffLimitExceeded','message':'Job has reached the specified backoff limit',"     \
    "'lastTransitionTime':'" end "'}]"
#define ACTIVE(start) "'startTime':'" start "','active':1"

#define SCHED_AS(name, created, spec, status)                                                      \
    "{'apiVersion':'velero.io/v1','kind':'Schedule','metadata':{'name':'" name                     \
    "','namespace':'velero','creationTimestamp':'" created "'},'spec':{" spec                      \
    "},'status':{" status "}}"
#define SCHED(name, spec, status) SCHED_AS(name, "2026-10-01T00:00:00Z", spec, status)
#define BACKUP(label, name, created, status)                                                       \
    "{'apiVersion':'velero.io/v1','kind':'Backup','metadata':{'name':'" name                       \
    "','namespace':'velero','creationTimestamp':'" created "','labels':{'velero.io/schedule-"      \
    "name':'" label "'}},'spec':{'ttl':'720h0m0s'},'status':{" status "}}"
#define COMPLETED(start, end)                                                                      \
    "'phase':'Completed','startTimestamp':'" start "','completionTimestamp':'" end "'"

typedef struct {
    const char *key; /* "R/<ns>/<name>" or "S/<ns>/<name>" */
    const char *want;
} want_sched;

typedef struct {
    const char *what;
    const char *now;      /* NULL: NOW */
    int64_t window;       /* 0: 24h */
    int64_t history_from; /* 0: none */
    const char *objects[12];
    want_sched want[3];
} sched_case;

/* One result as one line. */
__attribute__((unused)) static void describe(const cw_health_result *r, cw_buf *b)
{
    char t1[CW_TZ_RFC3339_MAX], t2[CW_TZ_RFC3339_MAX];
    cw_buf_reset(b);
    cw_buf_puts(b, cw_health_state_name(r->state));
    if (r->error)
        cw_buf_printf(b, " error=%s", r->error);
    cw_tz_format_rfc3339(r->last_due, 0, t1, sizeof(t1));
    cw_tz_format_rfc3339(r->next, 0, t2, sizeof(t2));
    cw_buf_printf(b, " due=%s next=%s every=%lld", r->last_due == CW_HEALTH_NONE ? "-" : t1,
                  r->next == CW_HEALTH_NONE ? "-" : t2, (long long)r->interval);
    if (r->success_at != CW_HEALTH_NONE) {
        cw_tz_format_rfc3339(r->success_at, 0, t1, sizeof(t1));
        cw_buf_printf(b, " ok=%s/%llds/%s", t1, (long long)r->success_seconds, r->success_run);
    }
    if (r->failure_at != CW_HEALTH_NONE) {
        cw_tz_format_rfc3339(r->failure_at, 0, t1, sizeof(t1));
        cw_buf_printf(b, " fail=%s/%s/%s", t1, r->failure_run, r->failure_reason);
    }
    cw_buf_printf(b, " row=%zu", r->consecutive_failures);
    if (r->running) {
        cw_tz_format_rfc3339(r->running_since, 0, t1, sizeof(t1));
        cw_buf_printf(b, " running=%zu:%s@%s/%llds", r->running, r->running_run, t1,
                      (long long)r->running_seconds);
    }
    if (r->usual_seconds != CW_HEALTH_NONE)
        cw_buf_printf(b, " usual=%lld", (long long)r->usual_seconds);
    cw_buf_printf(b, " %s>%lld", r->stuck ? "STUCK" : "stuck", (long long)r->stuck_after);
    cw_buf_printf(b, " judged=%zu missed=%zu", r->judged, r->missed_unexcused);
    for (size_t i = 0; i < r->nmissed; i++) {
        cw_tz_format_rfc3339(r->missed[i].at, 0, t1, sizeof(t1));
        cw_buf_printf(b, " [%s %s%s: %s]", t1, cw_health_reason_name(r->missed[i].reason),
                      r->missed[i].excused ? "*" : "", r->missed[i].detail);
    }
}

__attribute__((unused)) static void config(cw_health_config *cfg, const char *now, int64_t window,
                                           int64_t history_from)
{
    cw_health_config_init(cfg);
    cfg->tzdb = health_tzdb;
    cfg->now = ttime(now ? now : NOW);
    if (window)
        cfg->window = window;
    if (history_from)
        cfg->history_from = history_from;
}

__attribute__((unused)) static void load(cw_health *h, const char *const *objects, size_t n)
{
    cw_error err;
    for (size_t i = 0; i < n && objects[i]; i++) {
        json_object *o = tjson(objects[i]);
        if (cw_health_add(h, o, "table", &err) != CW_OK)
            fail_msg("object %zu: %s", i, err.message);
        json_object_put(o);
    }
}

__attribute__((unused)) static void check_case(const sched_case *c)
{
    cw_health_config cfg;
    cw_health h;
    cw_error err;
    cw_buf b;
    cw_buf_init(&b);
    config(&cfg, c->now, c->window, c->history_from);
    assert_int_equal(cw_health_init(&h, &cfg, &err), CW_OK);
    load(&h, c->objects, N(c->objects));
    for (size_t i = 0; i < N(c->want) && c->want[i].key; i++) {
        const char *k = c->want[i].key, *ns = k + 2, *slash = strchr(ns, '/');
        char nsbuf[64];
        snprintf(nsbuf, sizeof(nsbuf), "%.*s", (int)(slash - ns), ns);
        cw_health_result r;
        if (cw_health_eval_one(&h, k[0] == 'R' ? CW_HEALTH_RECURRINGJOB : CW_HEALTH_SCHEDULE, nsbuf,
                               slash + 1, h.cfg.now, &r, &err) != CW_OK)
            fail_msg("%s: %s: %s", c->what, k, err.message);
        describe(&r, &b);
        if (strcmp(cw_buf_str(&b), c->want[i].want))
            fail_msg("%s: %s\n got: %s\nwant: %s", c->what, k, cw_buf_str(&b), c->want[i].want);
        cw_health_result_free(&r);
    }
    assert_int_equal(cw_health_eval_all(&h, 1, &err), CW_OK);
    cw_health_free(&h);
    cw_buf_free(&b);
}

void test_volumes(void **state);
void test_count_missed(void **state);
void test_one_schedule(void **state);
void test_replace_remove(void **state);
void test_run_owner(void **state);
void test_runs(void **state);
void test_run_times(void **state);

#endif
