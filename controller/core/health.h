/* The controller's plain-HTTP endpoints, on lib/httpd (its edge: deadlines, caps, header limit):
 *   GET /healthz  200 "ok" while the process serves (liveness);
 *   GET /readyz   200 "ok" when the ready callback says so, else 503 with its reason;
 *   GET /metrics  the Prometheus text exposition of the registry.
 * Other paths 404, other methods 405, untrustworthy framing 400 (docs/controller.md). */
#ifndef CW_CTRL_HEALTH_H
#define CW_CTRL_HEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/httpd.h"
#include "lib/metrics.h"

/* The edge of the probe port. The kubelet probes from the node's address, Prometheus from its
 * pod's: a client holds at most CW_CTRL_HTTP_MAX_PER_CLIENT of the CW_CTRL_HTTP_MAX_CONNECTIONS
 * slots, and a request must be in within CW_CTRL_HTTP_HEADER_TIMEOUT seconds of its connection
 * (or of the previous answer plus CW_CTRL_HTTP_IDLE_TIMEOUT), so a slow client frees its slot
 * long before the liveness probe's third failure. */
#define CW_CTRL_HTTP_MAX_CONNECTIONS 128
#define CW_CTRL_HTTP_MAX_PER_CLIENT  16
#define CW_CTRL_HTTP_HEADER_TIMEOUT  5
#define CW_CTRL_HTTP_REQUEST_TIMEOUT 10
#define CW_CTRL_HTTP_IDLE_TIMEOUT    30
#define CW_CTRL_HTTP_MAX_HEADER      (16 * 1024)

/* Returns 1 when ready; otherwise 0 with a one-line reason in why. */
typedef int (*cw_ctrl_ready_fn)(void *ud, char *why, size_t whylen);

typedef struct cw_ctrl_health_config {
    const char *listen;  /* "ADDR:PORT"; port 0: any free port */
    cw_metrics *metrics; /* borrowed */
    cw_ctrl_ready_fn ready;
    void *ready_ud;
} cw_ctrl_health_config;

typedef struct cw_ctrl_health {
    cw_httpd http;
    cw_ctrl_health_config cfg;
    uint16_t port;
    cw_metric *m_requests; /* cronwarden_controller_http_requests_total{path,code} */
} cw_ctrl_health;

void cw_ctrl_health_init(cw_ctrl_health *h);
int cw_ctrl_health_start(cw_ctrl_health *h, const cw_ctrl_health_config *cfg,
                         cw_error *err) CW_MUST_CHECK;
/* Stops serving (connections are closed) and frees. */
void cw_ctrl_health_free(cw_ctrl_health *h);

#endif
