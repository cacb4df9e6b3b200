/* The controller process: one metrics registry, the work queue, the Velero Schedule reconciler
 * (its informers), leader election, the worker pool and the health/metrics server, started and
 * stopped in the right order:
 *   start: metrics server -> informers -> leader election -> workers (they wait for leadership
 *          and synced caches);
 *   stop:  workers finish what they hold -> the Lease is released (a standby takes over at its
 *          next poll) -> informers -> metrics server. */
#ifndef CW_CTRL_MANAGER_H
#define CW_CTRL_MANAGER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "controller/health.h"
#include "controller/informer.h"
#include "controller/leader.h"
#include "controller/queue.h"
#include "controller/schedule_apply.h"
#include "controller/workers.h"
#include "defaults/policy.h"
#include "lib/kube/client.h"
#include "lib/metrics.h"

typedef struct cw_ctrl_config {
    cw_kube_client *kube;           /* borrowed */
    const char *namespace;          /* watch this namespace only; NULL or "": every namespace */
    size_t workers;                 /* 0: 2 */
    const cw_policy_config *policy; /* borrowed: skipImmediately server default, tzdb */
    int32_t zone_offset;            /* crons without TZ= run at this offset (UTC: 0) */
    int leader_elect;
    const char *lease_namespace, *lease_name, *identity; /* identity NULL: pod/host + pid */
    double lease_duration, renew_deadline, retry_period; /* seconds; 0: 15, 10, 2 */
    const char *metrics_listen;                          /* NULL: 0.0.0.0:8080 */
    double resync;  /* seconds between full re-queues of every Schedule; 0: 600 */
    long page_size; /* LIST page size; 0: 500 */
} cw_ctrl_config;

typedef struct cw_ctrl {
    cw_ctrl_config cfg;
    cw_metrics metrics;
    cw_informer_metrics im;
    cw_queue queue;
    cw_schedctl sched;
    cw_leader leader;
    cw_ctrl_workers workers;
    cw_ctrl_health health;
    cw_metric *m_reconciles, *m_duration, *m_queue, *m_queue_retries, *m_leader, *m_terms;
    int queue_ok, sched_ok, leader_ok, started;
    atomic_int stopping; /* /readyz answers 503 from the start of cw_ctrl_stop */
    double next_resync;
    unsigned long long retries_seen;
} cw_ctrl;

int cw_ctrl_init(cw_ctrl *c, const cw_ctrl_config *cfg, cw_error *err);
int cw_ctrl_start(cw_ctrl *c, cw_error *err);
/* Periodic housekeeping (queue gauges, the resync); call about once a second. */
void cw_ctrl_tick(cw_ctrl *c);
/* /readyz: caches synced, and leading or standing by; not while stopping. */
int cw_ctrl_ready(void *c, char *why, size_t whylen);
/* Graceful stop in the order above. */
void cw_ctrl_stop(cw_ctrl *c);
void cw_ctrl_free(cw_ctrl *c);

#endif
