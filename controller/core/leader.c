#include "controller/core/leader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/clock.h"

static void nap(cw_leader *l, double seconds)
{
    double end = cw_clock_mono() + seconds;
    while (!atomic_load(&l->stop)) {
        double left = end - cw_clock_mono();
        if (left <= 0)
            break;
        usleep((useconds_t)((left < 0.1 ? left : 0.1) * 1e6));
    }
}

int cw_leader_init(cw_leader *l, const cw_leader_config *cfg, cw_error *err)
{
    memset(l, 0, sizeof(*l));
    l->cfg = *cfg;
    atomic_init(&l->stop, 0);
    atomic_init(&l->leading, 0);
    if (l->cfg.lease_duration <= 0)
        l->cfg.lease_duration = 15;
    if (l->cfg.renew_deadline <= 0)
        l->cfg.renew_deadline = 10;
    if (l->cfg.retry_period <= 0)
        l->cfg.retry_period = 2;
    if (cfg->identity) {
        snprintf(l->identity, sizeof(l->identity), "%s", cfg->identity);
    } else {
        const char *pod = getenv("POD_NAME");
        char host[256] = "unknown";
        gethostname(host, sizeof(host) - 1);
        snprintf(l->identity, sizeof(l->identity), "%s_%ld", pod && *pod ? pod : host,
                 (long)getpid());
    }
    if (l->cfg.disabled)
        return CW_OK;
    if (!l->cfg.kube || !l->cfg.namespace || !*l->cfg.namespace || !l->cfg.name)
        return cw_error_set(err, CW_EINVAL, "leader election needs a client, namespace and name");
    if (l->cfg.renew_deadline >= l->cfg.lease_duration)
        return cw_error_set(err, CW_EINVAL,
                            "the lease duration (%gs) must be longer than the renew deadline "
                            "(%gs)",
                            l->cfg.lease_duration, l->cfg.renew_deadline);
    if (l->cfg.retry_period >= l->cfg.renew_deadline)
        return cw_error_set(err, CW_EINVAL,
                            "the renew deadline (%gs) must be longer than the retry period (%gs)",
                            l->cfg.renew_deadline, l->cfg.retry_period);
    return CW_OK;
}

static void set_leading(cw_leader *l, int on)
{
    if (atomic_exchange(&l->leading, on) == on)
        return;
    if (l->cfg.m_leader)
        cw_metrics_set(l->cfg.m_leader, NULL, on);
    if (on && l->cfg.m_transitions)
        cw_metrics_add(l->cfg.m_transitions, NULL, 1);
    if (l->cfg.on_change)
        l->cfg.on_change(l->cfg.ud, on);
}

static void *campaign(void *arg)
{
    cw_leader *l = arg;
    cw_lease_opts o;
    cw_lease_opts_init(&o);
    o.holder = l->identity;
    o.duration = (int)(l->cfg.lease_duration + 0.5);
    o.renew_interval = l->cfg.retry_period;
    o.renew_deadline = l->cfg.renew_deadline;
    o.retry_interval = l->cfg.retry_period;
    o.release_clear = 1;
    o.stop = &l->stop;
    o.purpose = "controller";
    while (!atomic_load(&l->stop)) {
        cw_lease lease;
        cw_error err;
        cw_error_init(&err);
        if (cw_lease_init(&lease, l->cfg.kube, l->cfg.namespace, l->cfg.name, &o, &err) != CW_OK) {
            cw_log(CW_LOG_ERROR, "leader election", CW_LS("error", err.message));
            nap(l, l->cfg.retry_period);
            continue;
        }
        cw_log(CW_LOG_INFO, "campaigning for leadership", CW_LS("lease", l->cfg.name),
               CW_LS("namespace", l->cfg.namespace), CW_LS("identity", l->identity));
        int rc = cw_lease_acquire(&lease, -1, &err);
        if (rc != CW_OK) {
            if (rc < 0)
                cw_log(CW_LOG_WARN, "could not take the leader lease; trying again",
                       CW_LS("error", err.message), CW_LD("retry_in_s", l->cfg.retry_period));
            cw_lease_free(&lease);
            if (rc < 0)
                nap(l, l->cfg.retry_period);
            continue;
        }
        cw_log(CW_LOG_INFO, "became the leader", CW_LS("identity", l->identity));
        set_leading(l, 1);
        while (!atomic_load(&l->stop) && !cw_lease_lost(&lease))
            usleep(100 * 1000);
        set_leading(l, 0);
        if (cw_lease_lost(&lease))
            cw_log(CW_LOG_ERROR, "lost leadership; standing by", CW_LS("why", lease.lost_why));
        else
            cw_log(CW_LOG_INFO, "stepping down", CW_LS("identity", l->identity));
        cw_lease_release(&lease); /* clears the holder unless the lease was lost */
        cw_lease_free(&lease);
    }
    return NULL;
}

int cw_leader_start(cw_leader *l, cw_error *err)
{
    if (l->cfg.disabled) {
        cw_log(CW_LOG_INFO, "leader election disabled: leading", CW_LS("identity", l->identity));
        set_leading(l, 1);
        return CW_OK;
    }
    if (l->cfg.m_leader)
        cw_metrics_set(l->cfg.m_leader, NULL, 0);
    if (pthread_create(&l->thread, NULL, campaign, l) != 0)
        return cw_error_set(err, CW_ENOMEM, "leader election: cannot start its thread");
    l->running = 1;
    return CW_OK;
}

int cw_leader_is_leader(cw_leader *l)
{
    return atomic_load(&l->leading);
}

void cw_leader_stop(cw_leader *l)
{
    atomic_store(&l->stop, 1);
    if (l->running) {
        pthread_join(l->thread, NULL);
        l->running = 0;
    } else {
        set_leading(l, 0);
    }
}

void cw_leader_free(cw_leader *l)
{
    cw_leader_stop(l);
    memset(l, 0, sizeof(*l));
}

const char *cw_leader_identity(const cw_leader *l)
{
    return l->identity;
}
