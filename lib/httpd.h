/* The one HTTP server (libmicrohttpd, plain or over GnuTLS) both front doors serve on: the
 * webhook's HTTPS port and the controller's /healthz, /readyz, /metrics port. It owns the edge —
 * what a client may hold and for how long — and leaves the routes to its user:
 *
 *   - deadlines that bytes do not extend: the request's headers within read_header_timeout of
 *     accept (or, on a keep-alive connection, of the previous answer plus idle_timeout), the
 *     whole request (headers and body) within request_timeout of its headers; a watchdog shuts
 *     down a connection past its deadline (libmicrohttpd's own timeout restarts with every byte,
 *     so a client trickling one byte every few seconds would otherwise hold a slot forever);
 *   - max_connections in all, max_per_client from one client address: beyond either the socket
 *     is closed at accept (a per-client cap below the total leaves slots for other clients, the
 *     kubelet's probes among them);
 *   - max_header_bytes for the request line and headers (431 beyond);
 *   - the URL as sent (no unescaping) and cw_httpd_bad_framing for requests that cannot be
 *     trusted;
 *   - graceful drain: stop accepting, answer what is in flight with "Connection: close".
 *
 * cw_httpd_serve_probe answers /healthz, /readyz and /metrics for both servers. */
#ifndef CW_HTTPD_H
#define CW_HTTPD_H

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/metrics.h"

#define CW_HTTPD_MAX_THREADS 256

/* The user's request handler: libmicrohttpd's access handler with the server's ud first. */
typedef enum MHD_Result (*cw_httpd_handler_fn)(void *ud, struct MHD_Connection *c, const char *url,
                                               const char *method, const char *upload,
                                               size_t *upload_size, void **req_cls);
/* A request ended (answered or not); *req_cls is what the handler left there. */
typedef void (*cw_httpd_completed_fn)(void *ud, struct MHD_Connection *c, void **req_cls);
/* A connection closed; user is what the user kept in *cw_httpd_conn_user (may be NULL). */
typedef void (*cw_httpd_closed_fn)(void *ud, void *user);

typedef struct cw_httpd_config {
    const char *listen;           /* "ADDR:PORT", "[v6]:PORT" or ":PORT"; port 0: any free port */
    const char *flag;             /* the flag that named listen, for messages ("--listen") */
    unsigned threads;             /* event loops sharing the port (0: 1) */
    unsigned max_connections;     /* open connections in all (required) */
    unsigned max_per_client;      /* open connections from one client address (0: no cap) */
    unsigned read_header_timeout; /* seconds (required) */
    unsigned request_timeout;     /* seconds (required) */
    unsigned idle_timeout;        /* seconds between keep-alive requests (required) */
    size_t max_header_bytes;      /* request line + headers (0: libmicrohttpd's 32 KiB) */
    /* TLS when tls_cert is set: GnuTLS asks it for the certificate at each handshake (a
     * gnutls_certificate_retrieve_function2; cw_httpd_conn_user is where a per-connection
     * credential lives until closed is called). */
    gnutls_certificate_retrieve_function2 *tls_cert;
    const char *tls_priorities;
    cw_httpd_handler_fn handler; /* required */
    cw_httpd_completed_fn completed;
    cw_httpd_closed_fn closed;
    void *ud;
} cw_httpd_config;

typedef struct cw_httpd {
    struct MHD_Daemon *daemons[CW_HTTPD_MAX_THREADS]; /* one per thread, sharing the port */
    unsigned ndaemons;
    cw_httpd_config cfg;
    uint16_t port;
    atomic_int in_flight;          /* requests between their headers and their end */
    atomic_int draining;           /* set by cw_httpd_drain: answers carry Connection: close */
    atomic_int connections;        /* open, over every event loop */
    atomic_int refused;            /* connections closed at accept (a cap), for tests and logs */
    atomic_int cut;                /* connections shut down at their deadline */
    atomic_llong last_activity_ms; /* monotonic, start or end of the latest request */
    pthread_mutex_t conns_lock;    /* the open connections (read by the watchdog) */
    struct cw_httpd_conn *conns;
    pthread_t watchdog;
    int watchdog_running;
    atomic_int stop_watchdog;
} cw_httpd;

void cw_httpd_init(cw_httpd *h);
/* Binds (refusing a port another process listens on) and serves; the port is in h->port. */
int cw_httpd_start(cw_httpd *h, const cw_httpd_config *cfg, cw_error *err) CW_MUST_CHECK;
/* Stops accepting and returns once no connection is left, or none is busy and the server was
 * quiet for a second, or after grace seconds: CW_OK, or CW_ELIMIT with requests in flight. */
int cw_httpd_drain(cw_httpd *h, double grace_seconds);
/* Stops the server (closing what is left) and frees it; safe after a failed start. */
void cw_httpd_free(cw_httpd *h);

/* Queues an answer that takes ownership of body (malloc'd). close: the connection ends after it
 * (always while draining). */
enum MHD_Result cw_httpd_reply(cw_httpd *h, struct MHD_Connection *c, unsigned status,
                               const char *ctype, char *body, size_t len, const char *allow,
                               int close);
/* Why a request's framing or path cannot be trusted, or NULL: two Content-Length headers (the
 * request-smuggling shape), one that is not a plain number, an escaped or control byte in the
 * path (/healthz%00 is not /healthz). Answer 400 and close. */
const char *cw_httpd_bad_framing(struct MHD_Connection *c, const char *url);
/* The connection's user slot (NULL outside a connection) and the server's ud. */
void **cw_httpd_conn_user(struct MHD_Connection *c, void **server_ud);

/* ---- /healthz, /readyz, /metrics ---- */
enum cw_httpd_probe { CW_PROBE_HEALTHZ, CW_PROBE_READYZ, CW_PROBE_METRICS, CW_PROBE_NONE };

typedef struct cw_httpd_probes {
    cw_metrics *metrics; /* rendered by /metrics */
    /* 1 when ready, else 0 with a one-line reason in why (NULL: always ready) */
    int (*ready)(void *ud, char *why, size_t whylen);
    void (*before_metrics)(void *ud); /* refresh gauges read at scrape time (may be NULL) */
    void *ud;
} cw_httpd_probes;

enum cw_httpd_probe cw_httpd_probe_route(const char *url);
/* Answers a probe route (call it with the handler's req_cls for every call of the request, or
 * NULL to answer at the headers, after which libmicrohttpd closes the connection; a body is
 * never read: a request announcing one is answered at its headers and its connection closes):
 * GET/HEAD only (405 otherwise, logged); /healthz 200 "ok"; /readyz 503
 * "shutting down" while draining, 503 with the ready callback's reason, else 200 "ok"; /metrics
 * the registry. *status: the code queued, for the caller's counter. */
enum MHD_Result cw_httpd_serve_probe(cw_httpd *h, const cw_httpd_probes *p,
                                     struct MHD_Connection *c, enum cw_httpd_probe which,
                                     const char *method, void **req_cls, unsigned *status);

#endif
