/* A coordination.k8s.io/v1 Lease: the one lease implementation, used by migrate (two upgrade Jobs
 * never write at once) and by the controller's leader election (only the leader reconciles).
 *
 * Expiry follows client-go's rule: a lease held by someone else is taken over only when its record
 * has not changed for leaseDurationSeconds as observed by our own clock (no trust in remote
 * clocks); an empty holderIdentity (a released lease) is free at once. A background thread renews
 * it every renew_interval; no successful renewal for renew_deadline, or another holder in the
 * record, makes cw_lease_lost() true (and the holder must stop acting). */
#ifndef CW_LEASE_H
#define CW_LEASE_H

#include <pthread.h>
#include <stdatomic.h>

#include "lib/error.h"
#include "kube/client.h"

typedef struct cw_lease_opts {
    const char *holder;     /* NULL: $POD_NAME, else the hostname, plus "_<pid>" */
    int duration;           /* leaseDurationSeconds (<= 0: 30) */
    double renew_interval;  /* seconds between renewals (<= 0: duration / 3) */
    double renew_deadline;  /* lost after this long without a successful renewal (<= 0: duration)
                             */
    double retry_interval;  /* seconds between looks at a lease someone else holds (<= 0: 0.5) */
    int dry_run;            /* server dry run: prove the writes, hold nothing, renew nothing */
    int release_clear;      /* release by clearing holderIdentity (client-go's ReleaseOnCancel;
                               needs only update) instead of deleting the Lease */
    const atomic_int *stop; /* cw_lease_acquire gives up (returns 1) once it is non-zero */
    const char *purpose;    /* for messages: "another <purpose> holds lease ..." ("migration") */
    const char *wait_hint;  /* appended to the timeout message ("Wait, or raise --lease-wait") */
} cw_lease_opts;

typedef struct cw_lease {
    cw_kube_client *kube;
    char *namespace, *name, *holder, *purpose, *wait_hint;
    cw_lease_opts opts; /* with defaults applied; string members point at the copies above */
    char *rv;           /* resourceVersion of our last write */
    pthread_mutex_t lock;
    pthread_t renewer;
    int renewing;
    atomic_int stop, lost;
    char lost_why[1024];
} cw_lease;

void cw_lease_opts_init(cw_lease_opts *o);
/* o may be NULL for the defaults. */
int cw_lease_init(cw_lease *l, cw_kube_client *kube, const char *ns, const char *name,
                  const cw_lease_opts *o, cw_error *err) CW_MUST_CHECK;
void cw_lease_free(cw_lease *l);
/* Waits up to `wait` seconds (< 0: without limit) for the lease and starts renewing it: CW_OK.
 * CW_ECONFLICT names the current holder on timeout; 1 when opts.stop was set first; other
 * errors (403, transport) end the wait at once. */
int cw_lease_acquire(cw_lease *l, double wait, cw_error *err) CW_MUST_CHECK;
/* Stops renewing and deletes the lease, or clears its holder (opts.release_clear), when it is
 * still ours. */
void cw_lease_release(cw_lease *l);
int cw_lease_lost(cw_lease *l);
const char *cw_lease_holder(const cw_lease *l);

#endif
