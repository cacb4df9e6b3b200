/* The controller process: one metrics registry, leader election, the health/metrics server, one
 * informer per (resource, namespace, selectors) that the enabled reconcilers read (shared:
 * cw_informer_set), and for each reconciler `--controllers` enables (controller/core/reconciler.h)
 * its own work queue and worker pool, started and stopped in the right order:
 *   start: metrics server -> the informers -> leader election -> workers (they
 *          wait for leadership and their reconciler's synced caches);
 *   stop:  workers finish what they hold -> the Lease is released (a standby takes over at its
 *          next poll) -> informers -> metrics server. */
#ifndef CW_CTRL_MANAGER_H
#define CW_CTRL_MANAGER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "controller/core/health.h"
#include "controller/core/informer.h"
#include "controller/core/leader.h"
#include "controller/core/queue.h"
#include "controller/core/reconciler.h"
#include "controller/core/workers.h"
#include "controller/core/shell.h"
#include "kube/client.h"
#include "lib/metrics.h"

/* The process configuration: the machinery's only. Each reconciler's own flags and config are
 * its own (controller/core/reconciler.h); the manager hands a reconciler the config its
 * config_init made. */
typedef struct cw_ctrl_config {
    cw_kube_client *kube;    /* borrowed */
    const char *controllers; /* --controllers (cw_reconcilers_select); NULL: the defaults */
    const cw_reconciler_ops *const *reconcilers; /* the registry; NULL: cw_reconcilers */
    void *const
        *configs;   /* per registry entry, its config (cw_reconcilers_configure); NULL: none */
    size_t workers; /* per reconciler; 0: 2 (the command passes --workers, 8) */
    int leader_elect;
    const char *lease_namespace, *lease_name, *identity; /* identity NULL: pod/host + pid */
    double lease_duration, renew_deadline, retry_period; /* seconds; 0: 15, 10, 2 */
    const char *metrics_listen;                          /* NULL: 0.0.0.0:8080 */
    double resync;  /* seconds between full re-queues of every reconciler's keys; 0: 600 */
    long page_size; /* LIST page size; 0: 100 */
} cw_ctrl_config;

/* One enabled reconciler and what the manager made for it. */
typedef struct cw_ctrl_slot {
    struct cw_ctrl *ctrl;
    const cw_reconciler_ops *ops;
    cw_shell *shell;
    cw_queue queue;
    cw_ctrl_workers workers;
    int queue_ok, started;
    unsigned long long retries_seen;
} cw_ctrl_slot;

typedef struct cw_ctrl {
    cw_ctrl_config cfg;
    cw_metrics metrics;
    cw_informer_metrics im;
    cw_shell_metrics sm;
    cw_ctrl_slot slots[CW_RECONCILERS_MAX];
    size_t nslots;
    cw_informer_set informers; /* every reconciler's, one per resource, namespace, selectors */
    cw_leader leader;
    cw_ctrl_health health;
    cw_metric *m_reconciles, *m_duration, *m_queue, *m_queue_retries, *m_leader, *m_terms;
    cw_metric *m_api_requests;            /* cronwarden_controller_api_requests_total */
    unsigned long long api_requests_seen; /* the client's count at the last tick */
    int leader_ok, started;
    atomic_int stopping; /* /readyz answers 503 from the start of cw_ctrl_stop */
    double next_resync;
} cw_ctrl;

/* CW_EINVAL (a usage error) for a --controllers spec that selects nothing or names an unknown
 * reconciler. */
int cw_ctrl_init(cw_ctrl *c, const cw_ctrl_config *cfg, cw_error *err) CW_MUST_CHECK;
int cw_ctrl_start(cw_ctrl *c, cw_error *err) CW_MUST_CHECK;
/* Periodic housekeeping (queue gauges, reconcilers' ticks, the resync); call about once a second.
 */
void cw_ctrl_tick(cw_ctrl *c);
/* /readyz: every enabled reconciler's caches synced; not while stopping. */
int cw_ctrl_ready(void *c, char *why, size_t whylen);
/* The enabled reconciler called name, or NULL (tests, logs). */
cw_ctrl_slot *cw_ctrl_slot_named(cw_ctrl *c, const char *name);
/* Graceful stop in the order above. */
void cw_ctrl_stop(cw_ctrl *c);
void cw_ctrl_free(cw_ctrl *c);

#endif
