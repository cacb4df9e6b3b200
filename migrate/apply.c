/* Applying a finished plan: RecurringJobs, readiness, volumes, the ConfigMap, legacy CronJobs.
 * StorageClasses are in scbackup.c. */
#include "migrate/apply.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/failpoint.h"
#include "lib/pool.h"
#include "cron/tz.h"
#include "migrate/handover.h"
#include "migrate/scbackup.h"
#include "lib/clock.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONFLICT_RETRIES 5

static cw_plan_result ok_result(const cw_apply *a)
{
    return a->cfg.dry_run ? CW_RES_DRYRUN : CW_RES_DONE;
}

static int stopped(const cw_apply *a)
{
    return a->cfg.lease && cw_lease_lost(a->cfg.lease);
}

void cw_apply_write_opts(const cw_apply *a, cw_kube_write_opts *w)
{
    cw_kube_write_opts_init(w);
    w->dry_run = a->cfg.dry_run;
    w->field_manager = "cronwarden";
}

/* ---- RecurringJobs ---- */

typedef struct {
    cw_apply *a;
    cw_plan *p;
    size_t *jobs; /* indices of jobs to create */
} jobs_ctx;

static void create_job(void *ud, size_t k)
{
    jobs_ctx *c = ud;
    cw_apply *a = c->a;
    cw_plan_job *j = cw_plan_job_at(c->p, c->jobs[k]);
    cw_error err;
    cw_error_init(&err);
    json_object *obj = NULL, *cur = NULL;
    cw_kube_resource r = {"longhorn.io", a->rj_version, "recurringjobs", a->cfg.namespace};
    cw_kube_write_opts w;
    cw_apply_write_opts(a, &w);
    if (stopped(a)) {
        cw_plan_set_result(&j->result, &j->result_msg, CW_RES_FAILED,
                           "stopped: the lease was lost");
        goto done;
    }
    int rc = cw_plan_job_object(c->p, c->jobs[k], &obj, &err);
    for (int attempt = 0; rc == CW_OK || rc == CW_ENOTFOUND; attempt++) {
        rc = cw_kube_create(a->kube, &r, obj, &w, NULL, &err);
        if (rc != CW_ECONFLICT)
            break;
        /* AlreadyExists: fine when it is ours. A 409 for something that is not there (a
         * conflict answered by a proxy, a concurrent delete) is tried again a few times. */
        json_object_put(cur);
        cur = NULL;
        rc = cw_kube_get(a->kube, &r, j->rj.name, &cur, &err);
        if (rc == CW_OK) {
            rc = CW_ECONFLICT;
            break;
        }
        if (rc != CW_ENOTFOUND || attempt >= 3)
            break;
    }
    cw_failpoint("rj-created");
    if (rc == CW_ECONFLICT && cur) {
        /* Already there (a concurrent writer, or a retried create): same spec is success. */
        cw_buf diff;
        cw_buf_init(&diff);
        rc = CW_OK;
        if (!cw_plan_job_matches(c->p, c->jobs[k], cw_json_member(cur, "spec"), &diff)) {
            cw_error_set(&err, CW_ECONFLICT, "appeared meanwhile with a different spec: %s",
                         cw_buf_str(&diff));
            rc = CW_ECONFLICT;
        }
        cw_buf_free(&diff);
    }
    if (rc == CW_OK)
        cw_plan_set_result(&j->result, &j->result_msg, ok_result(a), NULL);
    else
        cw_plan_set_result(&j->result, &j->result_msg, CW_RES_FAILED, err.message);
done:
    if (a->cfg.progress)
        cw_progress_add(a->cfg.progress, 1);
    json_object_put(obj);
    json_object_put(cur);
}

/* One page of the CronJobs labelled for a job: found when it is not empty. */
static int any_item(void *ud, const cw_kube_page *page, cw_error *err)
{
    (void)err;
    *(int *)ud |= json_object_array_length(page->items) > 0;
    return 1; /* the first page tells */
}

/* Longhorn's CronJob for a job: named after the job and found, as Longhorn finds it, by the label
 * recurring-job.longhorn.io=<job>. */
static int has_cronjob(cw_apply *a, const char *job, cw_error *err)
{
    cw_kube_resource cj = {"batch", a->cronjob_version, "cronjobs", a->cfg.namespace};
    cw_kube_list_opts lo;
    char selector[CW_NAMES_MAX + 64];
    int found = 0;
    cw_kube_list_opts_init(&lo);
    snprintf(selector, sizeof(selector), "recurring-job.longhorn.io=%s", job);
    lo.label_selector = selector;
    lo.limit = 1;
    return cw_kube_list(a->kube, &cj, &lo, any_item, &found, err) == CW_OK && found;
}

/* Seed 003 with --wait-for-controller: a created RecurringJob has its CronJob before volumes
 * point at it (the create's 201 already said it is stored). On timeout: warn and carry on. */
static void wait_job(void *ud, size_t k)
{
    jobs_ctx *c = ud;
    cw_apply *a = c->a;
    cw_plan_job *j = cw_plan_job_at(c->p, c->jobs[k]);
    double deadline = cw_clock_mono() + a->cfg.wait_timeout;
    int ready = 0;
    while (!ready && !stopped(a)) {
        cw_error err;
        cw_error_init(&err);
        ready = has_cronjob(a, j->rj.name, &err);
        if (ready || cw_clock_mono() >= deadline)
            break;
        usleep(500 * 1000);
    }
    if (!ready)
        cw_log(CW_LOG_WARN, "RecurringJob not ready in time; carrying on",
               CW_LS("recurringjob", j->rj.name), CW_LD("timeout_seconds", a->cfg.wait_timeout),
               CW_LB("waited_for_cronjob", a->cfg.wait_for_controller));
    if (a->cfg.progress)
        cw_progress_add(a->cfg.progress, 1);
}

static int run_jobs(cw_apply *a, cw_plan *p, cw_error *err)
{
    size_t n = 0;
    size_t *idx = cw_plan_sorted_jobs(p, &n), m = 0;
    if (!idx)
        return cw_error_oom(err);
    for (size_t k = 0; k < n; k++)
        if (cw_plan_job_at(p, idx[k])->rj.action == CW_ACT_CREATE)
            idx[m++] = idx[k];
    jobs_ctx c = {a, p, idx};
    if (m) {
        if (a->cfg.progress)
            cw_progress_phase(a->cfg.progress, "creating RecurringJobs", m);
        cw_pool_run(m, a->cfg.parallel, create_job, &c);
        if (a->cfg.progress)
            cw_progress_done(a->cfg.progress);
        /* A server dry run creates nothing, so there is nothing to wait for. Nor without
         * --wait-for-controller: the create's 201 means the object is stored, and a GET (a
         * quorum read from etcd on every API server) would only say it again. */
        size_t w = 0;
        for (size_t k = 0; k < m; k++)
            if (cw_plan_job_at(p, idx[k])->result == CW_RES_DONE)
                idx[w++] = idx[k];
        if (w && a->cfg.wait_timeout > 0 && a->cfg.wait_for_controller) {
            if (a->cfg.progress)
                cw_progress_phase(a->cfg.progress, "waiting for RecurringJobs", w);
            cw_pool_run(w, a->cfg.parallel, wait_job, &c);
            if (a->cfg.progress)
                cw_progress_done(a->cfg.progress);
        }
    }
    free(idx);
    return CW_OK;
}

const cw_plan_job *cw_apply_missing_job(const cw_plan *p, const cw_plan_item *it)
{
    for (size_t r = 0; r < it->nrefs; r++) {
        const cw_plan_job *j = cw_plan_job_at(p, it->refs[r].job);
        if (j->rj.action == CW_ACT_CREATE && j->result != CW_RES_DONE && j->result != CW_RES_DRYRUN)
            return j;
    }
    return NULL;
}

/* ---- volumes ---- */

/* A merge patch carrying metadata.resourceVersion is conditional: 409 when the volume moved on. */
typedef struct {
    cw_apply *a;
    cw_plan *p;
    size_t *items;
} items_ctx;

/* Item i's result into the plan's item file; a file that fails is logged (the report then
 * fails on the same file). */
static void record_result(cw_plan *p, size_t i, cw_plan_result r, const char *msg)
{
    cw_error err;
    cw_error_init(&err);
    if (cw_plan_item_set_result(p, i, r, msg, &err) != CW_OK)
        cw_log(CW_LOG_ERROR, "could not record a result", CW_LS("error", err.message));
}

static void patch_volume(void *ud, size_t k)
{
    items_ctx *c = ud;
    cw_apply *a = c->a;
    cw_error err;
    cw_error_init(&err);
    /* A copy read from the plan's item file; its result is written back at the end. */
    cw_plan_item item, *it = &item, fresh;
    memset(&fresh, 0, sizeof(fresh));
    if (cw_plan_item_load(c->p, c->items[k], &item, &err) != CW_OK) {
        record_result(c->p, c->items[k], CW_RES_FAILED, err.message);
        goto progress;
    }
    cw_kube_resource r = {"longhorn.io", a->longhorn_version, "volumes", it->namespace};
    cw_kube_write_opts w;
    cw_apply_write_opts(a, &w);
    const cw_plan_item *cur = it;
    const cw_plan_job *missing = cw_apply_missing_job(c->p, it);
    if (missing) {
        char why[300];
        snprintf(why, sizeof(why), "RecurringJob %s was not created; the volume is left as it is",
                 missing->rj.name);
        cw_plan_set_result(&it->result, &it->result_msg, CW_RES_SKIPPED, why);
        goto done;
    }
    for (int attempt = 0;; attempt++) {
        if (stopped(a)) {
            cw_plan_set_result(&it->result, &it->result_msg, CW_RES_FAILED,
                               "stopped: the lease was lost");
            break;
        }
        cw_failpoint("volume-patch");
        json_object *patch = cw_plan_volume_merge_patch(cur);
        int rc = cw_kube_patch(a->kube, &r, it->name, CW_KUBE_PATCH_MERGE, patch, &w, NULL, &err);
        json_object_put(patch);
        if (rc == CW_OK) {
            cw_plan_set_result(&it->result, &it->result_msg, ok_result(a), NULL);
            cw_failpoint("volume-patched");
            break;
        }
        if (rc == CW_ENOTFOUND) {
            cw_plan_set_result(&it->result, &it->result_msg, CW_RES_SKIPPED,
                               "the volume was deleted meanwhile");
            break;
        }
        if (rc != CW_ECONFLICT || attempt >= MAX_CONFLICT_RETRIES) {
            cw_plan_set_result(&it->result, &it->result_msg, CW_RES_FAILED, err.message);
            break;
        }
        /* 409: re-read and re-plan this one volume against the same plan. */
        json_object *vol = NULL;
        rc = cw_kube_get(a->kube, &r, it->name, &vol, &err);
        if (rc == CW_ENOTFOUND) {
            cw_plan_set_result(&it->result, &it->result_msg, CW_RES_SKIPPED,
                               "the volume was deleted meanwhile");
            break;
        }
        if (rc == CW_OK) {
            char av[64];
            snprintf(av, sizeof(av), "longhorn.io/%s", a->longhorn_version);
            json_object_object_add(vol, "apiVersion", json_object_new_string(av));
            json_object_object_add(vol, "kind", json_object_new_string("Volume"));
            cw_plan_item_free(&fresh);
            rc = cw_plan_decide(c->p, vol, &fresh, &err);
        }
        json_object_put(vol);
        if (rc != CW_OK) {
            cw_plan_set_result(&it->result, &it->result_msg, CW_RES_FAILED, err.message);
            break;
        }
        if (fresh.action == CW_ACT_NONE) {
            /* Also what a retried patch sees when the first attempt's answer was lost. */
            cw_plan_set_result(&it->result, &it->result_msg, CW_RES_DONE, NULL);
            break;
        }
        if (fresh.action != CW_ACT_MIGRATE || cw_apply_missing_job(c->p, &fresh)) {
            char why[1200];
            snprintf(why, sizeof(why), "changed meanwhile: %s",
                     fresh.reason
                         ? fresh.reason
                         : "needs a RecurringJob this run did not create; run migrate again");
            cw_plan_set_result(&it->result, &it->result_msg, CW_RES_FAILED, why);
            break;
        }
        cur = &fresh;
    }
done:
    record_result(c->p, c->items[k], it->result, it->result_msg);
    cw_plan_item_free(&fresh);
    cw_plan_item_free(&item);
progress:
    if (a->cfg.progress)
        cw_progress_add(a->cfg.progress, 1);
}

static int run_volumes(cw_apply *a, cw_plan *p, cw_error *err)
{
    size_t n = 0, m = 0, *idx = NULL;
    int rc = cw_plan_sorted_items(p, "Volume", &idx, &n, err);
    if (rc != CW_OK)
        return rc;
    for (size_t k = 0; k < n; k++)
        if (cw_plan_item_action(p, idx[k]) == CW_ACT_MIGRATE)
            idx[m++] = idx[k];
    if (m) {
        items_ctx c = {a, p, idx};
        if (a->cfg.progress)
            cw_progress_phase(a->cfg.progress, "patching volumes", m);
        cw_pool_run(m, a->cfg.parallel, patch_volume, &c);
        if (a->cfg.progress)
            cw_progress_done(a->cfg.progress);
    }
    free(idx);
    return CW_OK;
}

/* ---- the longhorn-storageclass ConfigMap ---- */

/* Updates the ConfigMap of item `it`, whose result it records. */
static int migrate_configmap(cw_apply *a, cw_plan *p, cw_plan_item *it, cw_error *err)
{
    const cw_plan_job *missing = cw_apply_missing_job(p, it);
    if (missing) {
        cw_plan_set_result(&it->result, &it->result_msg, CW_RES_SKIPPED,
                           "a RecurringJob it needs was not created");
        return CW_OK;
    }
    cw_kube_resource r = {NULL, "v1", "configmaps", a->cfg.namespace};
    cw_kube_write_opts w;
    cw_apply_write_opts(a, &w);
    cw_error oerr;
    cw_error_init(&oerr);
    for (int attempt = 0; attempt <= MAX_CONFLICT_RETRIES; attempt++) {
        json_object *cm = NULL;
        cw_plan_item d;
        memset(&d, 0, sizeof(d));
        int rc = cw_kube_get(a->kube, &r, CW_LONGHORN_SC_CONFIGMAP, &cm, &oerr);
        if (rc == CW_OK) {
            json_object_object_add(cm, "apiVersion", json_object_new_string("v1"));
            json_object_object_add(cm, "kind", json_object_new_string("ConfigMap"));
            rc = cw_plan_decide(p, cm, &d, &oerr);
        }
        if (rc == CW_OK && d.action != CW_ACT_MIGRATE) {
            cw_plan_set_result(&it->result, &it->result_msg,
                               d.action == CW_ACT_NONE ? CW_RES_SKIPPED : CW_RES_FAILED,
                               d.action == CW_ACT_NONE ? "migrated meanwhile" : d.reason);
            json_object_put(cm);
            cw_plan_item_free(&d);
            return CW_OK;
        }
        if (rc == CW_OK)
            rc = cw_plan_apply_item(&d, cm, &oerr);
        if (rc == CW_OK) /* PUT carries the resourceVersion we read: conditional */
            rc = cw_kube_update(a->kube, &r, CW_LONGHORN_SC_CONFIGMAP, cm, &w, NULL, &oerr);
        json_object_put(cm);
        cw_plan_item_free(&d);
        if (rc == CW_OK) {
            cw_plan_set_result(&it->result, &it->result_msg, ok_result(a), NULL);
            cw_failpoint("configmap-updated");
            return CW_OK;
        }
        if (rc == CW_ENOMEM)
            return cw_error_oom(err);
        if (rc != CW_ECONFLICT)
            break;
    }
    cw_plan_set_result(&it->result, &it->result_msg, CW_RES_FAILED, oerr.message);
    return CW_OK;
}

static int run_configmap(cw_apply *a, cw_plan *p, cw_error *err)
{
    long i = cw_plan_find_item(p, "ConfigMap", a->cfg.namespace, CW_LONGHORN_SC_CONFIGMAP);
    if (i < 0 || cw_plan_item_action(p, (size_t)i) != CW_ACT_MIGRATE)
        return CW_OK;
    cw_plan_item it;
    int rc = cw_plan_item_load(p, (size_t)i, &it, err);
    if (rc != CW_OK)
        return rc;
    rc = migrate_configmap(a, p, &it, err);
    /* Recorded also when the run stops here: the report shows how far it got. */
    cw_error serr;
    cw_error_init(&serr);
    int src =
        cw_plan_item_set_result(p, (size_t)i, it.result, it.result_msg, rc == CW_OK ? err : &serr);
    if (rc == CW_OK)
        rc = src;
    cw_plan_item_free(&it);
    return rc;
}

/* ---- legacy CronJobs ---- */

/* The plan deletes a volume's legacy CronJobs together (all of them once the volume has no legacy
 * jobs left), so `longhornvolume in (v1,...)` over volumes whose migration is done names exactly
 * the CronJobs to go: one deletecollection per batch of volumes instead of one DELETE each. A
 * server or Role that refuses deletecollection (403, 405) gets the single deletes. */
#define CRON_BATCH_VOLUMES  100
#define CRON_BATCH_SELECTOR 6000 /* bytes of label selector in one request */

typedef struct {
    cw_apply *a;
    cw_plan *p;
    size_t *idx;       /* CronJobs to delete, ordered by (namespace, volume) */
    size_t *start;     /* batch b is idx[start[b]] .. idx[start[b + 1] - 1] */
    atomic_int legacy; /* 1 once deletecollection was refused: single deletes from then on */
} cron_ctx;

static void cron_done(cron_ctx *c, cw_plan_cronjob *cj, int rc, const cw_error *err)
{
    if (rc == CW_OK || rc == CW_ENOTFOUND)
        cw_plan_set_result(&cj->result, &cj->result_msg, ok_result(c->a), NULL);
    else
        cw_plan_set_result(&cj->result, &cj->result_msg, CW_RES_FAILED, err->message);
    if (c->a->cfg.progress)
        cw_progress_add(c->a->cfg.progress, 1);
}

static int delete_one(cron_ctx *c, cw_plan_cronjob *cj, cw_error *err)
{
    cw_apply *a = c->a;
    cw_kube_resource r = {"batch", a->cronjob_version, "cronjobs", cj->namespace};
    cw_kube_delete_opts d;
    cw_kube_delete_opts_init(&d);
    d.dry_run = a->cfg.dry_run;
    d.propagation = "Foreground"; /* as Longhorn 1.2 did: the CronJob's Jobs go with it */
    int rc = cw_kube_delete(a->kube, &r, cj->name, &d, NULL, err);
    cw_failpoint("cronjob-deleted");
    return rc;
}

static void delete_batch(void *ud, size_t b)
{
    cron_ctx *c = ud;
    cw_apply *a = c->a;
    size_t from = c->start[b], to = c->start[b + 1];
    cw_plan_cronjob *first = &c->p->cronjobs[c->idx[from]];
    cw_error err;
    cw_error_init(&err);
    int rc = CW_OK;
    cw_buf sel;
    cw_buf_init(&sel);
    if (stopped(a)) {
        for (size_t k = from; k < to; k++) {
            cw_plan_cronjob *cj = &c->p->cronjobs[c->idx[k]];
            cw_plan_set_result(&cj->result, &cj->result_msg, CW_RES_FAILED,
                               "stopped: the lease was lost");
            if (a->cfg.progress)
                cw_progress_add(a->cfg.progress, 1);
        }
        goto done;
    }
    if (!atomic_load(&c->legacy)) {
        rc = cw_buf_printf(&sel, "%s in (", CW_LEGACY_CRONJOB_LABEL);
        for (size_t k = from; k < to && rc == CW_OK; k++) {
            const char *vol = c->p->cronjobs[c->idx[k]].volume;
            if (k > from && strcmp(vol, c->p->cronjobs[c->idx[k - 1]].volume) == 0)
                continue;
            rc = cw_buf_printf(&sel, "%s%s", k > from ? "," : "", vol);
        }
        if (rc == CW_OK)
            rc = cw_buf_printf(&sel, ")");
        if (rc != CW_OK) {
            cw_error_oom(&err);
        } else {
            cw_kube_resource r = {"batch", a->cronjob_version, "cronjobs", first->namespace};
            cw_kube_delete_opts d;
            cw_kube_delete_opts_init(&d);
            d.dry_run = a->cfg.dry_run;
            d.propagation = "Foreground";
            rc = cw_kube_delete_collection(a->kube, &r, cw_buf_str(&sel), &d, NULL, &err);
            if (rc == CW_EHTTP && (err.http_status == 403 || err.http_status == 405)) {
                if (!atomic_exchange(&c->legacy, 1))
                    cw_log(CW_LOG_WARN,
                           "deleting legacy CronJobs one by one (deletecollection refused; "
                           "grant the verb to save one request per CronJob)",
                           CW_LS("error", err.message));
            }
        }
        if (!atomic_load(&c->legacy) || rc != CW_EHTTP) {
            for (size_t k = from; k < to; k++) {
                cw_failpoint("cronjob-deleted");
                cron_done(c, &c->p->cronjobs[c->idx[k]], rc, &err);
            }
            goto done;
        }
    }
    for (size_t k = from; k < to; k++) {
        cw_plan_cronjob *cj = &c->p->cronjobs[c->idx[k]];
        cw_error_init(&err);
        if (stopped(a)) {
            cw_plan_set_result(&cj->result, &cj->result_msg, CW_RES_FAILED,
                               "stopped: the lease was lost");
            if (a->cfg.progress)
                cw_progress_add(a->cfg.progress, 1);
            continue;
        }
        rc = delete_one(c, cj, &err);
        cron_done(c, cj, rc, &err);
    }
done:
    cw_buf_free(&sel);
}

/* --wait-for-controller: a legacy CronJob goes only once it has started every fire time due up to
 * the hand-over and no Job of it runs (its foreground deletion would take that Job along). The
 * hand-over is now: every new CronJob exists (waited for) and every volume carries its job labels,
 * so the new CronJobs run the fire times after it. Polled once a second (Kubernetes up to 1.20
 * looks at CronJobs every 10 s); at the timeout, or when the CronJob cannot be read as one, warn
 * and delete it as without the flag. */
typedef struct {
    cw_apply *a;
    cw_plan *p;
    const size_t *idx;
    int64_t handover;
} handover_ctx;

static const char *handover_name(cw_handover_state st)
{
    return st == CW_HANDOVER_RUNNING ? "a Job of it still runs" : "a fire time is not started yet";
}

static void wait_handover(void *ud, size_t k)
{
    handover_ctx *c = ud;
    cw_apply *a = c->a;
    const cw_plan_cronjob *cj = &c->p->cronjobs[c->idx[k]];
    cw_kube_resource r = {"batch", a->cronjob_version, "cronjobs", cj->namespace};
    double deadline = cw_clock_mono() + a->cfg.wait_timeout;
    cw_handover_state st = CW_HANDOVER_DONE;
    int64_t due = 0;
    cw_error err;
    cw_error_init(&err);
    while (!stopped(a)) {
        json_object *obj = NULL;
        int rc = cw_kube_get(a->kube, &r, cj->name, &obj, &err);
        if (rc == CW_OK)
            rc = cw_handover_check(obj, c->handover, &st, &due, &err);
        json_object_put(obj);
        if (rc == CW_ENOTFOUND || rc == CW_EINVAL) {
            if (rc == CW_EINVAL)
                cw_log(CW_LOG_WARN, "legacy CronJob unreadable; deleting it without waiting",
                       CW_LS("cronjob", cj->name), CW_LS("error", err.message));
            st = CW_HANDOVER_DONE;
            break;
        }
        if ((rc == CW_OK && st == CW_HANDOVER_DONE) || cw_clock_mono() >= deadline)
            break;
        usleep(1000 * 1000);
    }
    if (st != CW_HANDOVER_DONE) {
        char when[40] = "";
        if (cw_tz_format_rfc3339(due, 0, when, sizeof(when)) != CW_OK)
            when[0] = 0;
        cw_log(CW_LOG_WARN, "legacy CronJob not done at the hand-over in time; deleting it",
               CW_LS("cronjob", cj->name), CW_LS("why", handover_name(st)),
               CW_LS("fire_time", st == CW_HANDOVER_DUE ? when : ""),
               CW_LD("timeout_seconds", a->cfg.wait_timeout));
    }
    if (a->cfg.progress)
        cw_progress_add(a->cfg.progress, 1);
}

static void wait_handovers(cw_apply *a, cw_plan *p, const size_t *idx, size_t m)
{
    if (!m || a->cfg.dry_run || !a->cfg.wait_for_controller || a->cfg.wait_timeout <= 0)
        return;
    handover_ctx h = {a, p, idx, cw_clock_wall_ms() / 1000};
    if (a->cfg.progress)
        cw_progress_phase(a->cfg.progress, "waiting for legacy CronJobs to hand over", m);
    cw_pool_run(m, a->cfg.parallel, wait_handover, &h);
    if (a->cfg.progress)
        cw_progress_done(a->cfg.progress);
}

static int cmp_by_volume(const void *x, const void *y, void *ud)
{
    const cw_plan *p = ud;
    const cw_plan_cronjob *a = &p->cronjobs[*(const size_t *)x],
                          *b = &p->cronjobs[*(const size_t *)y];
    int r = strcmp(a->namespace, b->namespace);
    if (!r)
        r = strcmp(a->volume, b->volume);
    return r ? r : strcmp(a->name, b->name);
}

size_t cw_apply_cronjob_batches(const cw_plan *p, const size_t *idx, size_t m, size_t max_volumes,
                                size_t max_bytes, size_t *start)
{
    size_t nb = 0, vols = 0, bytes = 0;
    for (size_t k = 0; k < m; k++) {
        const cw_plan_cronjob *cj = &p->cronjobs[idx[k]],
                              *prev = k ? &p->cronjobs[idx[k - 1]] : NULL;
        int new_ns = !prev || strcmp(prev->namespace, cj->namespace) != 0;
        int new_vol = new_ns || strcmp(prev->volume, cj->volume) != 0;
        size_t len = strlen(cj->volume) + 1;
        if (new_ns || (new_vol && (vols >= max_volumes || bytes + len > max_bytes))) {
            start[nb++] = k;
            vols = bytes = 0;
        }
        if (new_vol) {
            vols++;
            bytes += len;
        }
    }
    start[nb] = m;
    return nb;
}

static int run_cronjobs(cw_apply *a, cw_plan *p, cw_error *err)
{
    size_t n = 0, m = 0, nb = 0;
    size_t *idx = cw_plan_sorted_cronjobs(p, &n), *start = NULL;
    if (!idx)
        return cw_error_oom(err);
    for (size_t k = 0; k < n; k++) {
        cw_plan_cronjob *cj = &p->cronjobs[idx[k]];
        if (cj->action != CW_ACT_DELETE)
            continue;
        /* Its volume must really have been migrated in this run (or earlier). */
        long v = cw_plan_find_item(p, "Volume", cj->namespace, cj->volume);
        cw_plan_result vr = v >= 0 ? cw_plan_item_result(p, (size_t)v) : CW_RES_PENDING;
        if (v >= 0 && cw_plan_item_action(p, (size_t)v) == CW_ACT_MIGRATE && vr != CW_RES_DONE &&
            vr != CW_RES_DRYRUN)
            cw_plan_set_result(&cj->result, &cj->result_msg, CW_RES_SKIPPED,
                               "its volume was not migrated in this run");
        else
            idx[m++] = idx[k];
    }
    qsort_r(idx, m, sizeof(*idx), cmp_by_volume, p);
    wait_handovers(a, p, idx, m);
    if (!(start = malloc((m + 1) * sizeof(*start)))) {
        free(idx);
        return cw_error_oom(err);
    }
    nb = cw_apply_cronjob_batches(p, idx, m, CRON_BATCH_VOLUMES, CRON_BATCH_SELECTOR, start);
    if (m) {
        cron_ctx c = {a, p, idx, start, 0};
        if (a->cfg.progress)
            cw_progress_phase(a->cfg.progress, "deleting legacy CronJobs", m);
        cw_pool_run(nb, a->cfg.parallel, delete_batch, &c);
        if (a->cfg.progress)
            cw_progress_done(a->cfg.progress);
    }
    free(start);
    free(idx);
    return CW_OK;
}

int cw_apply_run(cw_apply *a, cw_plan *p, cw_error *err)
{
    int rc;
    if ((rc = run_jobs(a, p, err)) != CW_OK || (rc = run_volumes(a, p, err)) != CW_OK ||
        (rc = cw_scbackup_run(a, p, err)) != CW_OK || (rc = run_configmap(a, p, err)) != CW_OK ||
        (rc = run_cronjobs(a, p, err)) != CW_OK)
        return rc;
    if (stopped(a))
        return cw_error_set(err, CW_ECONFLICT, "%s; stopped writing (run migrate again)",
                            a->cfg.lease->lost_why);
    return CW_OK;
}
