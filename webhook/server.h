/* The admission webhook's HTTPS server (libmicrohttpd over GnuTLS): routes, limits, request
 * logging and metrics, certificate hand-out from a cw_certs_store, and graceful draining.
 *
 * Routes: POST /mutate, POST /validate, GET /healthz, GET /readyz, GET /metrics.
 * Status codes: docs/webhook.md. */
#ifndef CW_WEBHOOK_SERVER_H
#define CW_WEBHOOK_SERVER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "defaults/policy.h"
#include "lib/error.h"
#include "lib/httpd.h"
#include "lib/metrics.h"
#include "webhook/certstore.h"

/* TLS 1.3, and TLS 1.2 with forward-secret AEAD suites only (ECDHE/DHE key exchange with AES-GCM
 * or ChaCha20-Poly1305): what Go's TLS client, and so the apiserver, offers. */
#define CW_WEBHOOK_PRIORITIES                                                                      \
    "NONE:+VERS-TLS1.3:+VERS-TLS1.2:+ECDHE-ECDSA:+ECDHE-RSA:+DHE-RSA:+AES-256-GCM:+AES-128-GCM:"   \
    "+CHACHA20-POLY1305:+AEAD:+SIGN-ALL:+GROUP-ALL:+COMP-NULL:+CTYPE-X509"
#define CW_WEBHOOK_MAX_THREADS CW_HTTPD_MAX_THREADS

typedef struct cw_webhook_config {
    const char *listen;             /* "ADDR:PORT", "[v6]:PORT" or ":PORT"; port 0: any free port */
    unsigned threads;               /* worker threads (0: one per online core) */
    size_t max_body_bytes;          /* larger request bodies get 413 (0: 8 MiB) */
    unsigned idle_timeout;          /* seconds a connection may sit idle (0: 120) */
    unsigned request_timeout;       /* seconds for a whole request, headers to body (0: 30) */
    unsigned read_header_timeout;   /* seconds from accept to the end of the headers (0: 10) */
    const char *tls_priorities;     /* GnuTLS priority string (NULL: CW_WEBHOOK_PRIORITIES) */
    unsigned max_connections;       /* concurrent connections (0: 1000) */
    cw_certs_store *certs;          /* serving credentials (borrowed, required) */
    const cw_policy_config *policy; /* (borrowed, required unless constant_response is set) */
    cw_metrics *metrics;           /* registry for the webhook families (borrowed; NULL: private) */
    const char *constant_response; /* benchmarks only: answer every review with this body */
} cw_webhook_config;

struct MHD_Response;

typedef struct cw_webhook_server {
    cw_httpd http; /* the edge: lib/httpd */
    cw_webhook_config cfg;
    uint16_t port;
    atomic_int in_flight; /* admission requests being received or decided */
    atomic_int draining;
    struct MHD_Response *constant;
    cw_metrics own_metrics;
    cw_metric *m_requests, *m_responses, *m_duration, *m_in_flight, *m_expiry, *m_reloads;
} cw_webhook_server;

void cw_webhook_server_init(cw_webhook_server *s);
/* Binds and starts serving; the listening port is in s->port. */
int cw_webhook_server_start(cw_webhook_server *s, const cw_webhook_config *cfg,
                            cw_error *err) CW_MUST_CHECK;
/* Checks the certificate files and swaps in a changed, valid pair; logs and counts the outcome
 * (a refused pair is logged once, the served one stays). Call every few seconds. */
void cw_webhook_server_reload_certs(cw_webhook_server *s);
/* Stops accepting, answers what is in flight (responses carry "Connection: close"), and returns
 * when no request is in flight and the connections are closed or quiet, or after grace seconds.
 * CW_OK when drained, CW_ELIMIT when the grace ran out with requests still in flight. */
int cw_webhook_server_drain(cw_webhook_server *s, double grace_seconds);
/* Stops the server (closing what is left) and frees it. */
void cw_webhook_server_free(cw_webhook_server *s);

#endif
