#include "controller/core/health.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

static void count(cw_ctrl_health *h, const char *path, unsigned status)
{
    char code[12];
    snprintf(code, sizeof(code), "%u", status);
    const char *v[] = {path, code};
    if (h->m_requests)
        cw_metrics_add(h->m_requests, v, 1);
}

static enum MHD_Result refuse(cw_ctrl_health *h, struct MHD_Connection *c, unsigned status,
                              const char *msg, int close)
{
    char *body = NULL;
    int n = asprintf(&body, "%s\n", msg);
    if (n < 0)
        return MHD_NO;
    count(h, "other", status);
    return cw_httpd_reply(&h->http, c, status, "text/plain; charset=utf-8", body, (size_t)n, NULL,
                          close);
}

/* Every answer is given at the headers: a body is never read (lib/httpd closes the connection
 * after the answer when one was sent). */
static enum MHD_Result on_request(void *ud, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *upload, size_t *upload_size,
                                  void **req_cls)
{
    (void)upload;
    (void)upload_size;
    (void)req_cls;
    cw_ctrl_health *h = ud;
    const char *bad = cw_httpd_bad_framing(c, url);
    if (bad) {
        cw_log(CW_LOG_WARN, "request refused", CW_LS("method", method), CW_LS("path", url),
               CW_LI("status", 400), CW_LS("reason", bad));
        return refuse(h, c, 400, bad, 1);
    }
    enum cw_httpd_probe which = cw_httpd_probe_route(url);
    if (which == CW_PROBE_NONE)
        return refuse(h, c, 404, "not found", 0);
    cw_httpd_probes p = {h->cfg.metrics, h->cfg.ready, NULL, h->cfg.ready_ud};
    unsigned status = 0;
    enum MHD_Result ret = cw_httpd_serve_probe(&h->http, &p, c, which, method, req_cls, &status);
    if (status)
        count(h, url, status);
    return ret;
}

void cw_ctrl_health_init(cw_ctrl_health *h)
{
    memset(h, 0, sizeof(*h));
    cw_httpd_init(&h->http);
}

int cw_ctrl_health_start(cw_ctrl_health *h, const cw_ctrl_health_config *cfg, cw_error *err)
{
    static const char *const labels[] = {"path", "code", NULL};
    int rc;
    h->cfg = *cfg;
    if (!h->cfg.listen)
        h->cfg.listen = "0.0.0.0:8080";
    if (!h->cfg.metrics)
        return cw_error_set(err, CW_EINVAL, "metrics server: a registry is required");
    if ((rc = cw_metrics_counter(h->cfg.metrics, "cronwarden_controller_http_requests_total",
                                 "Requests to /healthz, /readyz and /metrics by path and status "
                                 "code.",
                                 labels, &h->m_requests, err)) != CW_OK)
        return rc;
    cw_httpd_config hc = {
        .listen = h->cfg.listen,
        .flag = "--metrics-listen",
        .threads = 1,
        .max_connections = CW_CTRL_HTTP_MAX_CONNECTIONS,
        .max_per_client = CW_CTRL_HTTP_MAX_PER_CLIENT,
        .read_header_timeout = CW_CTRL_HTTP_HEADER_TIMEOUT,
        .request_timeout = CW_CTRL_HTTP_REQUEST_TIMEOUT,
        .idle_timeout = CW_CTRL_HTTP_IDLE_TIMEOUT,
        .max_header_bytes = CW_CTRL_HTTP_MAX_HEADER,
        .handler = on_request,
        .ud = h,
    };
    if ((rc = cw_httpd_start(&h->http, &hc, err)) != CW_OK)
        return rc;
    h->port = h->http.port;
    return CW_OK;
}

void cw_ctrl_health_free(cw_ctrl_health *h)
{
    cw_httpd_free(&h->http);
    memset(h, 0, sizeof(*h));
}
