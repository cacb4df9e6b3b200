#include "controller/core/health.h"

#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/listen.h"
#include "lib/log.h"

static enum MHD_Result reply(cw_ctrl_health *h, struct MHD_Connection *c, const char *path,
                             unsigned status, const char *ctype, char *body)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result ret = MHD_queue_response(c, status, resp);
    MHD_destroy_response(resp);
    char code[8];
    snprintf(code, sizeof(code), "%u", status);
    const char *v[] = {path, code};
    if (h->m_requests)
        cw_metrics_add(h->m_requests, v, 1);
    return ret;
}

static enum MHD_Result text(cw_ctrl_health *h, struct MHD_Connection *c, const char *path,
                            unsigned status, const char *msg)
{
    char *body = NULL;
    if (asprintf(&body, "%s\n", msg) < 0)
        return MHD_NO;
    return reply(h, c, path, status, "text/plain; charset=utf-8", body);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *data_size, void **req_cls)
{
    (void)version;
    (void)data;
    cw_ctrl_health *h = cls;
    if (!*req_cls) { /* headers only so far: come back for the (ignored) body */
        *req_cls = h;
        return MHD_YES;
    }
    if (*data_size) {
        *data_size = 0;
        return MHD_YES;
    }
    const char *path = strcmp(url, "/healthz") == 0   ? "/healthz"
                       : strcmp(url, "/readyz") == 0  ? "/readyz"
                       : strcmp(url, "/metrics") == 0 ? "/metrics"
                                                      : NULL;
    if (!path)
        return text(h, c, "other", MHD_HTTP_NOT_FOUND, "not found");
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return text(h, c, path, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed");
    if (strcmp(path, "/healthz") == 0)
        return text(h, c, path, MHD_HTTP_OK, "ok");
    if (strcmp(path, "/readyz") == 0) {
        char why[256] = "not ready";
        if (!h->cfg.ready || h->cfg.ready(h->cfg.ready_ud, why, sizeof(why)))
            return text(h, c, path, MHD_HTTP_OK, "ok");
        return text(h, c, path, MHD_HTTP_SERVICE_UNAVAILABLE, why);
    }
    cw_buf b;
    cw_buf_init(&b);
    if (cw_metrics_render(h->cfg.metrics, &b) != CW_OK) {
        cw_buf_free(&b);
        return text(h, c, path, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    char *body = cw_buf_detach(&b);
    return reply(h, c, path, MHD_HTTP_OK, CW_METRICS_CONTENT_TYPE, body);
}

static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = 0;
    cw_log(CW_LOG_WARN, "metrics server", CW_LS("detail", msg));
}

void cw_ctrl_health_init(cw_ctrl_health *h)
{
    memset(h, 0, sizeof(*h));
}

int cw_ctrl_health_start(cw_ctrl_health *h, const cw_ctrl_health_config *cfg, cw_error *err)
{
    static const char *const labels[] = {"path", "code", NULL};
    struct sockaddr_storage ss;
    int fam = 0, rc;
    h->cfg = *cfg;
    if (!h->cfg.listen)
        h->cfg.listen = "0.0.0.0:8080";
    if (!h->cfg.metrics)
        return cw_error_set(err, CW_EINVAL, "metrics server: a registry is required");
    if ((rc = cw_listen_parse("--metrics-listen", h->cfg.listen, &ss, &fam, err)) != CW_OK)
        return rc;
    if ((rc = cw_metrics_counter(h->cfg.metrics, "cronwarden_controller_http_requests_total",
                                 "Requests to /healthz, /readyz and /metrics by path and status "
                                 "code.",
                                 labels, &h->m_requests, err)) != CW_OK)
        return rc;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG |
                     (fam == 2 ? MHD_USE_DUAL_STACK
                      : fam    ? MHD_USE_IPv6
                               : 0);
    h->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER,
                                 mhd_logger, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_END);
    if (!h->daemon)
        return cw_error_set(err, CW_EIO, "cannot serve on %s (address in use or not local?)",
                            h->cfg.listen);
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = di ? di->port : 0;
    return CW_OK;
}

void cw_ctrl_health_free(cw_ctrl_health *h)
{
    if (h->daemon)
        MHD_stop_daemon(h->daemon);
    memset(h, 0, sizeof(*h));
}
