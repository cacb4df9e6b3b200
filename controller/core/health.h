/* The controller's plain-HTTP endpoints (libmicrohttpd):
 *   GET /healthz  200 "ok" while the process serves (liveness);
 *   GET /readyz   200 "ok" when the ready callback says so, else 503 with its reason;
 *   GET /metrics  the Prometheus text exposition of the registry.
 * Other paths 404, other methods 405. */
#ifndef CW_CTRL_HEALTH_H
#define CW_CTRL_HEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/metrics.h"

/* Returns 1 when ready; otherwise 0 with a one-line reason in why. */
typedef int (*cw_ctrl_ready_fn)(void *ud, char *why, size_t whylen);

typedef struct cw_ctrl_health_config {
    const char *listen;  /* "ADDR:PORT"; port 0: any free port */
    cw_metrics *metrics; /* borrowed */
    cw_ctrl_ready_fn ready;
    void *ready_ud;
} cw_ctrl_health_config;

struct MHD_Daemon;

typedef struct cw_ctrl_health {
    struct MHD_Daemon *daemon;
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
