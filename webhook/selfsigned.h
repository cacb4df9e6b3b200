/* --self-signed: a CA and serving certificate kept in a kubernetes.io/tls Secret (tls.crt,
 * tls.key, ca.crt and ca.key, so any replica can renew), and the CA kept in the caBundle of every
 * webhook of the named Mutating/ValidatingWebhookConfigurations.
 *
 * Replicas agree through the Secret: an existing valid one is reused; creation races are settled
 * by the apiserver (the loser of a 409 re-reads); renewals are conditional on resourceVersion.
 * The serving certificate lives CW_SELFSIGNED_LEAF_DAYS and is renewed when fewer than
 * CW_SELFSIGNED_RENEW_DAYS remain (or when it no longer covers the Service names); the CA lives
 * CW_SELFSIGNED_CA_DAYS. Every refresh re-reads the Secret, so replicas pick up a renewal. */
#ifndef CW_SELFSIGNED_H
#define CW_SELFSIGNED_H

#include <pthread.h>
#include <time.h>

#include "lib/error.h"
#include "lib/strlist.h"
#include "webhook/certstore.h"

#define CW_SELFSIGNED_LEAF_DAYS  365
#define CW_SELFSIGNED_CA_DAYS    3650
#define CW_SELFSIGNED_RENEW_DAYS 30

struct cw_kube_client;

typedef struct cw_certs_selfsigned_opts {
    const char *kubeconfig, *context; /* NULL: in-cluster or the usual kubeconfig */
    const char *secret;               /* "NS/NAME" */
    const char *service;              /* "NS/NAME": DNS names NAME.NS[.svc[.cluster.local]] */
    const cw_strlist *webhook_configs;
    const cw_strlist *dns_names;    /* extra subjectAltName DNS entries (may be NULL) */
    const cw_strlist *ip_addresses; /* extra subjectAltName IP entries (may be NULL) */
    cw_certs_store *store;          /* where the serving pair is published (borrowed) */
    struct cw_kube_client *client;  /* tests: an existing client (borrowed); NULL: load config */
} cw_certs_selfsigned_opts;

typedef struct cw_certs_selfsigned {
    struct cw_kube_client *client;
    int own_client;
    char *secret_ns, *secret_name;
    char *common_name;
    cw_strlist dns, ips, configs;
    cw_certs_store *store;
    char *served_cert; /* PEM published to the store, to notice a renewal by another replica */

    /* The periodic check runs on its own thread, so a slow or unreachable API server never
     * delays signal handling and draining. */
    pthread_t thread;
    int running;          /* the thread was started and not joined */
    pthread_mutex_t lock; /* guards stop */
    pthread_cond_t wake;
    int stop;
    double interval;
    int missing_configs; /* configurations not found at the last check: retried within 30 s */
} cw_certs_selfsigned;

void cw_certs_selfsigned_init(cw_certs_selfsigned *s);
void cw_certs_selfsigned_free(cw_certs_selfsigned *s);

/* Connects, makes sure the Secret holds a valid pair (creating or renewing it), publishes the
 * pair to the store and fills the caBundles. A configuration that does not exist yet is only
 * logged (it is retried on every refresh). */
int cw_certs_selfsigned_start(cw_certs_selfsigned *s, const cw_certs_selfsigned_opts *o,
                              cw_error *err) CW_MUST_CHECK;
/* The periodic check at `now`: same steps; on failure the served pair stays. */
int cw_certs_selfsigned_check(cw_certs_selfsigned *s, time_t now, cw_error *err) CW_MUST_CHECK;
/* cw_certs_selfsigned_check at the current time, logging a failure (returned too). */
int cw_certs_selfsigned_refresh(cw_certs_selfsigned *s);

/* Starts the background thread that refreshes every interval seconds (30 s after a failure when
 * the interval is longer). */
int cw_certs_selfsigned_run(cw_certs_selfsigned *s, double interval, cw_error *err) CW_MUST_CHECK;
/* Asks the thread to stop and waits up to wait seconds. CW_OK when it has ended; CW_ETRANSPORT
 * when it is still inside an API call, in which case cw_certs_selfsigned_free leaves the state
 * it uses alone (the process is about to exit anyway). */
int cw_certs_selfsigned_stop(cw_certs_selfsigned *s, double wait);

#endif
