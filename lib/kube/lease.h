/* A coordination.k8s.io/v1 Lease held while migrate writes, so two upgrade Jobs never run at
 * once. Expiry follows client-go's rule: a lease is taken over only when its record has not
 * changed for leaseDurationSeconds as observed by our own clock (no trust in remote clocks).
 * A background thread renews it every duration/3; losing it makes cw_lease_lost() true and the
 * applier stops writing. */
#ifndef CW_LEASE_H
#define CW_LEASE_H

#include <pthread.h>
#include <stdatomic.h>

#include "lib/error.h"
#include "lib/kube/client.h"

typedef struct cw_lease {
    cw_kube_client *kube;
    char *namespace, *name, *holder;
    int duration;  /* leaseDurationSeconds */
    int dry_run;   /* server dry run: prove the writes, hold nothing */
    char *rv;      /* resourceVersion of our last write */
    pthread_mutex_t lock;
    pthread_t renewer;
    int renewing;
    atomic_int stop, lost;
    char lost_why[1024];
} cw_lease;

/* holder NULL: $POD_NAME, else hostname, plus the pid. */
int cw_lease_init(cw_lease *l, cw_kube_client *kube, const char *ns, const char *name,
                  const char *holder, int duration, int dry_run, cw_error *err);
void cw_lease_free(cw_lease *l);
/* Waits up to `wait` seconds for the lease; CW_ECONFLICT names the current holder on timeout. */
int cw_lease_acquire(cw_lease *l, double wait, cw_error *err);
/* Stops renewing and deletes the lease (when still ours). */
void cw_lease_release(cw_lease *l);
int cw_lease_lost(cw_lease *l);

#endif
