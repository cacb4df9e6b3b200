/* Leader election with a coordination.k8s.io/v1 Lease (kube/lease.h), client-go semantics:
 * candidates poll the Lease every retry_period and take it once its record has not changed for
 * its leaseDurationSeconds by their own clock (or it was released); the leader renews it every
 * retry_period and steps down when a renewal has not succeeded for renew_deadline (shorter than
 * the duration, so it stops before anyone else may start); on cw_leader_stop it clears the holder
 * (ReleaseOnCancel) so a standby takes over at its next poll. After losing the lease a replica
 * becomes a candidate again. With election disabled the process leads from the start. */
#ifndef CW_LEADER_H
#define CW_LEADER_H

#include <pthread.h>
#include <stdatomic.h>

#include "lib/error.h"
#include "kube/client.h"
#include "kube/lease.h"
#include "lib/metrics.h"

/* leading: 1 when this process became the leader, 0 when it stopped being it. Called on the
 * leader thread. */
typedef void (*cw_leader_change_fn)(void *ud, int leading);

typedef struct cw_leader_config {
    int disabled;          /* 1: no election, always the leader */
    cw_kube_client *kube;  /* borrowed */
    const char *namespace; /* of the Lease */
    const char *name;      /* of the Lease */
    const char *identity;  /* NULL: $POD_NAME, else the hostname, plus "_<pid>" */
    double lease_duration; /* seconds; 0: 15 */
    double renew_deadline; /* seconds; 0: 10 */
    double retry_period;   /* seconds; 0: 2 */
    cw_leader_change_fn on_change;
    void *ud;
    cw_metric *m_leader;      /* gauge 1/0 (may be NULL) */
    cw_metric *m_transitions; /* counter of terms started (may be NULL) */
} cw_leader_config;

typedef struct cw_leader {
    cw_leader_config cfg;
    pthread_t thread;
    int running;
    atomic_int stop, leading;
    char identity[300];
} cw_leader;

/* CW_EINVAL when renew_deadline is not shorter than lease_duration or retry_period not shorter
 * than renew_deadline (client-go's checks). */
int cw_leader_init(cw_leader *l, const cw_leader_config *cfg, cw_error *err) CW_MUST_CHECK;
/* Starts campaigning (a thread), or leads at once when disabled. */
int cw_leader_start(cw_leader *l, cw_error *err) CW_MUST_CHECK;
int cw_leader_is_leader(cw_leader *l);
/* Steps down: releases the Lease when held (call after the work that needs it has stopped) and
 * joins the thread. */
void cw_leader_stop(cw_leader *l);
void cw_leader_free(cw_leader *l);
const char *cw_leader_identity(const cw_leader *l);

#endif
