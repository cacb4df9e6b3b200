#include "controller/core/manager.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/log.h"

static int register_metrics(cw_ctrl *c, cw_error *err)
{
    static const double buckets[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                     0.1,   0.25,   0.5,   1,    2.5,   10};
    static const char *const ctl_outcome[] = {"controller", "outcome", NULL};
    static const char *const ctl[] = {"controller", NULL};
    static const char *const ctl_state[] = {"controller", "state", NULL};
    int rc;
    if ((rc = cw_metrics_counter(&c->metrics, "cronwarden_controller_reconciles_total",
                                 "Reconciles by controller and outcome (docs/controller.md lists "
                                 "each controller's outcomes).",
                                 ctl_outcome, &c->m_reconciles, err)) ||
        (rc = cw_metrics_histogram(&c->metrics, "cronwarden_controller_reconcile_duration_seconds",
                                   "Time one reconcile took, API writes included.", ctl, buckets,
                                   sizeof(buckets) / sizeof(buckets[0]), &c->m_duration, err)) ||
        (rc = cw_metrics_gauge(&c->metrics, "cronwarden_controller_queue_keys",
                               "Keys in each controller's work queue by state (ready, delayed: "
                               "waiting for a timer or a backoff, processing).",
                               ctl_state, &c->m_queue, err)) ||
        (rc = cw_metrics_counter(&c->metrics, "cronwarden_controller_queue_retries_total",
                                 "Keys queued again after a failed reconcile.", ctl,
                                 &c->m_queue_retries, err)) ||
        (rc = cw_metrics_gauge(&c->metrics, "cronwarden_controller_leader",
                               "1 while this replica is the leader (reconciles), else 0.", NULL,
                               &c->m_leader, err)) ||
        (rc =
             cw_metrics_counter(&c->metrics, "cronwarden_controller_leader_terms_total",
                                "Times this replica became the leader.", NULL, &c->m_terms, err)) ||
        (rc = cw_metrics_counter(&c->metrics, "cronwarden_controller_api_requests_total",
                                 "HTTP requests this process made to the API server (LISTs, "
                                 "watches, writes, retries, the Lease), counted each second.",
                                 NULL, &c->m_api_requests, err)) ||
        (rc = cw_informer_metrics_register(&c->metrics, &c->im, err)) ||
        (rc = cw_shell_metrics_register(&c->metrics, &c->sm, err)))
        return rc;
    return CW_OK;
}

static void enqueue_all(cw_ctrl *c)
{
    for (size_t i = 0; i < c->nslots; i++)
        cw_shell_enqueue_all(c->slots[i].shell);
}

static void on_leader_change(void *ud, int leading)
{
    if (leading)
        enqueue_all(ud); /* a new term looks at everything once */
}

static int slot_gate(void *ud)
{
    cw_ctrl_slot *s = ud;
    char why[8];
    return cw_leader_is_leader(&s->ctrl->leader) && cw_shell_synced(s->shell, why, sizeof(why));
}

int cw_ctrl_ready(void *ud, char *why, size_t whylen)
{
    cw_ctrl *c = ud;
    if (atomic_load(&c->stopping)) {
        snprintf(why, whylen, "shutting down");
        return 0;
    }
    for (size_t i = 0; i < c->nslots; i++) {
        char sub[256];
        if (!cw_shell_synced(c->slots[i].shell, sub, sizeof(sub))) {
            snprintf(why, whylen, "%s: %s", c->slots[i].ops->name, sub);
            return 0;
        }
    }
    return 1; /* leading, or a standby ready to take over */
}

cw_ctrl_slot *cw_ctrl_slot_named(cw_ctrl *c, const char *name)
{
    for (size_t i = 0; i < c->nslots; i++)
        if (!strcmp(c->slots[i].ops->name, name))
            return &c->slots[i];
    return NULL;
}

/* The registry index of r (its config's). */
static size_t registry_index(const cw_reconciler_ops *const *all, const cw_reconciler_ops *r)
{
    size_t i = 0;
    while (all[i] && all[i] != r)
        i++;
    return i;
}

/* The queue and the reconciler's shell for every selected reconciler. */
static int create_slots(cw_ctrl *c, cw_error *err)
{
    const cw_reconciler_ops *const *all = c->cfg.reconcilers ? c->cfg.reconcilers : cw_reconcilers;
    const cw_reconciler_ops *sel[CW_RECONCILERS_MAX];
    size_t n;
    int rc;
    if ((rc = cw_reconcilers_select(all, c->cfg.controllers, sel, &n, err)) != CW_OK)
        return rc;
    for (size_t i = 0; i < n; i++) {
        cw_ctrl_slot *s = &c->slots[c->nslots++];
        s->ctrl = c;
        s->ops = sel[i];
        cw_ctrl_workers_init(&s->workers);
        if ((rc = cw_queue_init(&s->queue, NULL, err)) != CW_OK)
            return rc;
        s->queue_ok = 1;
        cw_shell_env env = {
            .kube = c->cfg.kube,
            .queue = &s->queue,
            .config = c->cfg.configs ? c->cfg.configs[registry_index(all, sel[i])] : NULL,
            .metrics = &c->metrics,
            .shell_metrics = &c->sm,
            .informer_metrics = &c->im,
            .informers = &c->informers,
            .page_size = c->cfg.page_size,
        };
        if ((rc = cw_shell_new(sel[i], &env, &s->shell, err)) != CW_OK)
            return rc;
    }
    return CW_OK;
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
    cw_informer_set_init(&c->informers);
    cw_ctrl_health_init(&c->health);
    if ((rc = register_metrics(c, err)) != CW_OK || (rc = create_slots(c, err)) != CW_OK)
        return rc;
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

static int start_workers(cw_ctrl *c, cw_error *err)
{
    for (size_t i = 0; i < c->nslots; i++) {
        cw_ctrl_slot *s = &c->slots[i];
        cw_ctrl_workers_config wc = {
            .name = s->ops->name,
            .count = c->cfg.workers,
            .queue = &s->queue,
            .reconcile = cw_shell_reconcile,
            .ud = s->shell,
            .gate = slot_gate,
            .gate_ud = s,
            .m_reconciles = c->m_reconciles,
            .m_duration = c->m_duration,
        };
        int rc = cw_ctrl_workers_start(&s->workers, &wc, err);
        if (rc != CW_OK)
            return rc;
    }
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
    for (size_t i = 0; i < c->nslots; i++) {
        if ((rc = cw_shell_start(c->slots[i].shell, err)) != CW_OK)
            return rc;
        c->slots[i].started = 1;
    }
    if ((rc = cw_informer_set_start(&c->informers, err)) != CW_OK)
        return rc;
    if ((rc = cw_leader_start(&c->leader, err)) != CW_OK || (rc = start_workers(c, err)) != CW_OK)
        return rc;
    c->next_resync = cw_clock_mono() + c->cfg.resync;
    return CW_OK;
}

static void slot_gauges(cw_ctrl *c, cw_ctrl_slot *s)
{
    cw_queue_stats st;
    cw_queue_get_stats(&s->queue, &st);
    const char *name = s->ops->name;
    const char *ready[] = {name, "ready"}, *delayed[] = {name, "delayed"},
               *processing[] = {name, "processing"}, *ctl[] = {name};
    cw_metrics_set(c->m_queue, ready, (double)st.ready);
    cw_metrics_set(c->m_queue, delayed, (double)st.delayed);
    cw_metrics_set(c->m_queue, processing, (double)st.processing);
    if (st.retries > s->retries_seen) {
        cw_metrics_add(c->m_queue_retries, ctl, (double)(st.retries - s->retries_seen));
        s->retries_seen = st.retries;
    }
}

void cw_ctrl_tick(cw_ctrl *c)
{
    int leading = cw_leader_is_leader(&c->leader);
    cw_kube_stats st;
    cw_kube_client_stats(c->cfg.kube, &st);
    if (st.requests > c->api_requests_seen) {
        cw_metrics_add(c->m_api_requests, NULL, (double)(st.requests - c->api_requests_seen));
        c->api_requests_seen = st.requests;
    }
    for (size_t i = 0; i < c->nslots; i++) {
        slot_gauges(c, &c->slots[i]);
        if (leading)
            cw_shell_tick(c->slots[i].shell);
    }
    if (cw_clock_mono() >= c->next_resync) {
        c->next_resync = cw_clock_mono() + c->cfg.resync;
        if (leading)
            enqueue_all(c);
    }
}

void cw_ctrl_stop(cw_ctrl *c)
{
    atomic_store(&c->stopping, 1);
    for (size_t i = 0; i < c->nslots; i++) /* what is in hand finishes; nothing new starts */
        cw_ctrl_workers_stop(&c->slots[i].workers);
    if (c->leader_ok)
        cw_leader_stop(&c->leader);      /* releases the Lease */
    cw_informer_set_stop(&c->informers); /* every watch ends at once */
    for (size_t i = 0; i < c->nslots; i++)
        if (c->slots[i].started) {
            cw_shell_stop(c->slots[i].shell);
            c->slots[i].started = 0;
        }
}

void cw_ctrl_free(cw_ctrl *c)
{
    cw_ctrl_stop(c);
    cw_ctrl_health_free(&c->health);
    if (c->leader_ok)
        cw_leader_free(&c->leader);
    for (size_t i = 0; i < c->nslots; i++) {
        cw_ctrl_slot *s = &c->slots[i];
        cw_ctrl_workers_free(&s->workers);
        cw_shell_free(s->shell);
        if (s->queue_ok)
            cw_queue_free(&s->queue);
    }
    cw_informer_set_free(&c->informers); /* after the shells: nothing reads the caches now */
    cw_metrics_free(&c->metrics);
    memset(c, 0, sizeof(*c));
}
