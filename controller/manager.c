#include "controller/manager.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/log.h"
#include "lib/clock.h"

static int register_metrics(cw_ctrl *c, cw_error *err)
{
    static const double buckets[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                     0.1,   0.25,   0.5,   1,    2.5,   10};
    static const char *const ctl_outcome[] = {"controller", "outcome", NULL};
    static const char *const ctl[] = {"controller", NULL};
    static const char *const state[] = {"state", NULL};
    int rc;
    if ((rc = cw_metrics_counter(&c->metrics, "cronwarden_controller_reconciles_total",
                                 "Reconciles by controller and outcome (schedule: paused, "
                                 "invalid, skipped, waiting, submitted, recorded, blocked, never, "
                                 "deleted, conflict, error).",
                                 ctl_outcome, &c->m_reconciles, err)) ||
        (rc = cw_metrics_histogram(&c->metrics, "cronwarden_controller_reconcile_duration_seconds",
                                   "Time one reconcile took, API writes included.", ctl, buckets,
                                   sizeof(buckets) / sizeof(buckets[0]), &c->m_duration, err)) ||
        (rc = cw_metrics_gauge(&c->metrics, "cronwarden_controller_queue_keys",
                               "Keys in the work queue by state (ready, delayed: waiting for a "
                               "timer or a backoff, processing).",
                               state, &c->m_queue, err)) ||
        (rc = cw_metrics_counter(&c->metrics, "cronwarden_controller_queue_retries_total",
                                 "Keys queued again after a failed reconcile.", NULL,
                                 &c->m_queue_retries, err)) ||
        (rc = cw_metrics_gauge(&c->metrics, "cronwarden_controller_leader",
                               "1 while this replica is the leader (reconciles), else 0.", NULL,
                               &c->m_leader, err)) ||
        (rc =
             cw_metrics_counter(&c->metrics, "cronwarden_controller_leader_terms_total",
                                "Times this replica became the leader.", NULL, &c->m_terms, err)) ||
        (rc = cw_informer_metrics_register(&c->metrics, &c->im, err)))
        return rc;
    return CW_OK;
}

static void on_leader_change(void *ud, int leading)
{
    cw_ctrl *c = ud;
    if (leading)
        cw_schedctl_enqueue_all(&c->sched); /* a new term looks at everything once */
}

static int gate(void *ud)
{
    cw_ctrl *c = ud;
    return cw_leader_is_leader(&c->leader) && cw_schedctl_synced(&c->sched);
}

int cw_ctrl_ready(void *ud, char *why, size_t whylen)
{
    cw_ctrl *c = ud;
    if (atomic_load(&c->stopping)) {
        snprintf(why, whylen, "shutting down");
        return 0;
    }
    if (!cw_informer_synced(&c->sched.schedules) || !cw_informer_synced(&c->sched.backups)) {
        snprintf(why, whylen, "caches not synced yet (schedules: %s, backups: %s)",
                 cw_informer_synced(&c->sched.schedules) ? "yes" : "no",
                 cw_informer_synced(&c->sched.backups) ? "yes" : "no");
        return 0;
    }
    return 1; /* leading, or a standby ready to take over */
}

int cw_ctrl_init(cw_ctrl *c, const cw_ctrl_config *cfg, cw_error *err)
{
    int rc;
    memset(c, 0, sizeof(*c));
    c->cfg = *cfg;
    if (!c->cfg.workers)
        c->cfg.workers = 2;
    if (c->cfg.resync <= 0)
        c->cfg.resync = 600;
    cw_metrics_init(&c->metrics);
    cw_ctrl_health_init(&c->health);
    cw_ctrl_workers_init(&c->workers);
    if ((rc = register_metrics(c, err)) != CW_OK)
        return rc;
    if ((rc = cw_queue_init(&c->queue, NULL, err)) != CW_OK)
        return rc;
    c->queue_ok = 1;
    cw_schedctl_opts so = {
        .kube = cfg->kube,
        .namespace = cfg->namespace,
        .queue = &c->queue,
        .decide = {.policy = cfg->policy, .zone_offset = cfg->zone_offset},
        .metrics = &c->metrics,
        .informer_metrics = &c->im,
        .page_size = cfg->page_size,
    };
    if ((rc = cw_schedctl_init(&c->sched, &so, err)) != CW_OK)
        return rc;
    c->sched_ok = 1;
    cw_leader_config lc = {
        .disabled = !cfg->leader_elect,
        .kube = cfg->kube,
        .namespace = cfg->lease_namespace,
        .name = cfg->lease_name,
        .identity = cfg->identity,
        .lease_duration = cfg->lease_duration,
        .renew_deadline = cfg->renew_deadline,
        .retry_period = cfg->retry_period,
        .on_change = on_leader_change,
        .ud = c,
        .m_leader = c->m_leader,
        .m_transitions = c->m_terms,
    };
    if ((rc = cw_leader_init(&c->leader, &lc, err)) != CW_OK)
        return rc;
    c->leader_ok = 1;
    return CW_OK;
}

int cw_ctrl_start(cw_ctrl *c, cw_error *err)
{
    int rc;
    cw_ctrl_health_config hc = {
        .listen = c->cfg.metrics_listen,
        .metrics = &c->metrics,
        .ready = cw_ctrl_ready,
        .ready_ud = c,
    };
    if ((rc = cw_ctrl_health_start(&c->health, &hc, err)) != CW_OK)
        return rc;
    c->started = 1;
    if ((rc = cw_schedctl_start(&c->sched, err)) != CW_OK ||
        (rc = cw_leader_start(&c->leader, err)) != CW_OK)
        return rc;
    cw_ctrl_workers_config wc = {
        .name = "schedule",
        .count = c->cfg.workers,
        .queue = &c->queue,
        .reconcile = cw_schedctl_reconcile,
        .ud = &c->sched,
        .gate = gate,
        .gate_ud = c,
        .m_reconciles = c->m_reconciles,
        .m_duration = c->m_duration,
    };
    if ((rc = cw_ctrl_workers_start(&c->workers, &wc, err)) != CW_OK)
        return rc;
    c->next_resync = cw_clock_mono() + c->cfg.resync;
    return CW_OK;
}

void cw_ctrl_tick(cw_ctrl *c)
{
    cw_queue_stats st;
    cw_queue_get_stats(&c->queue, &st);
    const char *ready[] = {"ready"}, *delayed[] = {"delayed"}, *processing[] = {"processing"};
    cw_metrics_set(c->m_queue, ready, (double)st.ready);
    cw_metrics_set(c->m_queue, delayed, (double)st.delayed);
    cw_metrics_set(c->m_queue, processing, (double)st.processing);
    if (st.retries > c->retries_seen) {
        cw_metrics_add(c->m_queue_retries, NULL, (double)(st.retries - c->retries_seen));
        c->retries_seen = st.retries;
    }
    if (cw_clock_mono() >= c->next_resync) {
        c->next_resync = cw_clock_mono() + c->cfg.resync;
        if (cw_leader_is_leader(&c->leader))
            cw_schedctl_enqueue_all(&c->sched);
    }
}

void cw_ctrl_stop(cw_ctrl *c)
{
    atomic_store(&c->stopping, 1);
    cw_ctrl_workers_stop(&c->workers); /* what is in hand finishes; nothing new starts */
    if (c->leader_ok)
        cw_leader_stop(&c->leader); /* releases the Lease */
    if (c->sched_ok)
        cw_schedctl_stop(&c->sched);
}

void cw_ctrl_free(cw_ctrl *c)
{
    cw_ctrl_stop(c);
    cw_ctrl_workers_free(&c->workers);
    cw_ctrl_health_free(&c->health);
    if (c->leader_ok)
        cw_leader_free(&c->leader);
    if (c->sched_ok)
        cw_schedctl_free(&c->sched);
    if (c->queue_ok)
        cw_queue_free(&c->queue);
    cw_metrics_free(&c->metrics);
    memset(c, 0, sizeof(*c));
}
