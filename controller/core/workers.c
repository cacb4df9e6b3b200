#include "controller/core/workers.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/clock.h"

void cw_ctrl_workers_init(cw_ctrl_workers *w)
{
    memset(w, 0, sizeof(*w));
    atomic_init(&w->stop, 0);
    atomic_init(&w->busy, 0);
}

void cw_ctrl_workers_finish(const cw_ctrl_workers_config *c, const char *key, int rc,
                            const cw_verdict *v, double took, const cw_error *err)
{
    const char *lv[] = {c->name, cw_verdict_outcome(v)};
    if (c->m_reconciles)
        cw_metrics_add(c->m_reconciles, lv, 1);
    if (c->m_duration)
        cw_metrics_observe(c->m_duration, lv, took);
    if (rc != CW_OK) {
        int retry = v->kind == CW_VERDICT_BACKOFF;
        cw_log(retry ? CW_LOG_WARN : CW_LOG_ERROR,
               retry ? "reconcile failed; retrying after a backoff"
                     : "reconcile failed; waiting for the object to change",
               CW_LS("controller", c->name), CW_LS("key", key), CW_LS("error", err->message),
               CW_LI("failures", cw_queue_failures(c->queue, key) + 1),
               CW_LD("retry_in_s", retry ? cw_queue_next_backoff(c->queue, key) : 0));
    }
    cw_verdict_settle(c->queue, key, v);
}

static void *work(void *arg)
{
    cw_ctrl_workers *w = arg;
    const cw_ctrl_workers_config *c = &w->cfg;
    while (!atomic_load(&w->stop)) {
        if (c->gate && !c->gate(c->gate_ud)) {
            usleep(100 * 1000);
            continue;
        }
        char *key = NULL;
        int rc = cw_queue_get(c->queue, 0.5, &key);
        if (rc == CW_QUEUE_SHUTDOWN)
            break;
        if (rc != CW_OK) {
            if (rc < 0)
                usleep(100 * 1000); /* out of memory: breathe */
            continue;
        }
        if (c->gate && !c->gate(c->gate_ud)) {
            /* Leadership went while we waited: hand the key back for the next leader term. */
            cw_queue_add(c->queue, key);
            cw_queue_done(c->queue, key);
            free(key);
            continue;
        }
        cw_verdict v = {0};
        cw_error err;
        cw_error_init(&err);
        atomic_fetch_add(&w->busy, 1);
        double t0 = cw_clock_mono();
        rc = c->reconcile(c->ud, key, &v, &err);
        double took = cw_clock_mono() - t0;
        atomic_fetch_sub(&w->busy, 1);
        cw_ctrl_workers_finish(c, key, rc, &v, took, &err);
        cw_queue_done(c->queue, key);
        free(key);
    }
    return NULL;
}

int cw_ctrl_workers_start(cw_ctrl_workers *w, const cw_ctrl_workers_config *cfg, cw_error *err)
{
    w->cfg = *cfg;
    if (!w->cfg.count)
        w->cfg.count = 1;
    if (!w->cfg.name)
        w->cfg.name = "controller";
    if (!(w->threads = calloc(w->cfg.count, sizeof(pthread_t))))
        return cw_error_oom(err);
    for (; w->started < w->cfg.count; w->started++)
        if (pthread_create(&w->threads[w->started], NULL, work, w) != 0)
            return cw_error_set(err, CW_ENOMEM, "cannot start worker %zu", w->started + 1);
    return CW_OK;
}

void cw_ctrl_workers_stop(cw_ctrl_workers *w)
{
    atomic_store(&w->stop, 1);
    if (w->cfg.queue)
        cw_queue_shutdown(w->cfg.queue);
    for (size_t i = 0; i < w->started; i++)
        pthread_join(w->threads[i], NULL);
    w->started = 0;
}

void cw_ctrl_workers_free(cw_ctrl_workers *w)
{
    cw_ctrl_workers_stop(w);
    free(w->threads);
    memset(w, 0, sizeof(*w));
}
