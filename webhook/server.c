#include "webhook/server.h"

#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "webhook/admit.h"

#define DEFAULT_MAX_BODY     (8u * 1024 * 1024)
#define DEFAULT_IDLE_TIMEOUT 120 /* longer than Go's 90 s idle pool, so the client closes first */
#define DEFAULT_REQ_TIMEOUT  30  /* the longest admission timeout Kubernetes allows */
#define DEFAULT_MAX_CONNS    1000
#define DEFAULT_HDR_TIMEOUT  10 /* Go's http.Server ReadHeaderTimeout as kube components set it */
#define DISCARD_FACTOR       4  /* oversized bodies up to this many limits are read, not stored */

enum route { R_MUTATE, R_VALIDATE, R_HEALTHZ, R_READYZ, R_METRICS, R_NONE };
static const char *const route_paths[] = {"/mutate", "/validate", "/healthz", "/readyz",
                                          "/metrics"};
static const char *const route_names[] = {"mutate", "validate", "healthz",
                                          "readyz", "metrics",  "none"};

/* Per admission request (MHD request context). */
typedef struct req_ctx {
    enum route route;
    int64_t start_us;
    cw_buf body;
    size_t received;
    int too_big;
    int oom;
} req_ctx;

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void count_response(cw_webhook_server *s, enum route r, unsigned status)
{
    char code[12];
    snprintf(code, sizeof(code), "%u", status);
    const char *v[] = {route_names[r], code};
    cw_metrics_add(s->m_responses, v, 1);
}

/* Queues a response that takes ownership of body (malloc'd). close: the connection ends after
 * it (a request whose framing cannot be trusted must not be followed by another). */
static enum MHD_Result reply_ex(cw_webhook_server *s, struct MHD_Connection *c, enum route r,
                                unsigned status, const char *ctype, char *body, size_t len,
                                const char *allow, int close)
{
    enum MHD_Result ret = cw_httpd_reply(&s->http, c, status, ctype, body, len, allow, close);
    count_response(s, r, status);
    return ret;
}

static enum MHD_Result reply(cw_webhook_server *s, struct MHD_Connection *c, enum route r,
                             unsigned status, const char *ctype, char *body, size_t len,
                             const char *allow)
{
    return reply_ex(s, c, r, status, ctype, body, len, allow, 0);
}

static enum MHD_Result reply_text(cw_webhook_server *s, struct MHD_Connection *c, enum route r,
                                  unsigned status, const char *text, const char *allow)
{
    char *copy = strdup(text);
    if (!copy)
        return MHD_NO;
    return reply(s, c, r, status, "text/plain; charset=utf-8", copy, strlen(copy), allow);
}

/* A refusal before the body is read: a short message and a log line. */
static enum MHD_Result refuse(cw_webhook_server *s, struct MHD_Connection *c, enum route r,
                              const char *method, const char *url, unsigned status,
                              const char *text, const char *allow)
{
    cw_log(CW_LOG_WARN, "request refused", CW_LS("route", route_names[r]), CW_LS("method", method),
           CW_LS("path", url), CW_LI("status", status), CW_LS("reason", text));
    char line[300];
    snprintf(line, sizeof(line), "%s\n", text);
    return reply_text(s, c, r, status, line, allow);
}

static enum route find_route(const char *url)
{
    for (int i = 0; i < R_NONE; i++)
        if (strcmp(url, route_paths[i]) == 0)
            return (enum route)i;
    return R_NONE;
}

/* application/json, any case, optionally with parameters (charset). */
static int json_content_type(const char *ct)
{
    static const char want[] = "application/json";
    if (!ct)
        return 0;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    if (strncasecmp(ct, want, sizeof(want) - 1) != 0)
        return 0;
    ct += sizeof(want) - 1;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    return *ct == '\0' || *ct == ';';
}

/* /healthz, /readyz (a loaded certificate), /metrics (the certificate's expiry read now),
 * answered at the headers. */
static int certificate_loaded(void *ud, char *why, size_t whylen)
{
    cw_webhook_server *s = ud;
    if (cw_certs_store_not_after(s->cfg.certs) != 0)
        return 1;
    snprintf(why, whylen, "no serving certificate loaded");
    return 0;
}

static void refresh_expiry(void *ud)
{
    cw_webhook_server *s = ud;
    cw_metrics_set(s->m_expiry, NULL, (double)cw_certs_store_not_after(s->cfg.certs));
}

static enum MHD_Result serve_probe(cw_webhook_server *s, struct MHD_Connection *c, enum route r,
                                   const char *method)
{
    cw_httpd_probes p = {s->cfg.metrics, certificate_loaded, refresh_expiry, s};
    unsigned status = 0;
    enum MHD_Result ret = cw_httpd_serve_probe(
        &s->http, &p, c, (enum cw_httpd_probe)(r - R_HEALTHZ), method, NULL, &status);
    if (status)
        count_response(s, r, status);
    return ret;
}

static void log_admission(const req_ctx *rq, const cw_webhook_result *res, int64_t us)
{
    const cw_review_request *q = &res->req;
    char kind[800];
    if (res->status != 200) {
        cw_log(res->status >= 500 ? CW_LOG_ERROR : CW_LOG_WARN, "admission request refused",
               CW_LS("route", route_names[rq->route]), CW_LI("status", res->status),
               CW_LS("reason", res->error.message), CW_LI("bytes", rq->received),
               CW_LI("duration_us", us));
        return;
    }
    snprintf(kind, sizeof(kind), "%s%s%s/%s", q->group, q->group[0] ? "/" : "", q->kind_version,
             q->kind);
    if (res->allowed)
        cw_log(CW_LOG_INFO, "admission", CW_LS("route", route_names[rq->route]),
               CW_LS("uid", q->uid), CW_LS("kind", kind), CW_LS("namespace", q->namespace_),
               CW_LS("name", q->name), CW_LS("operation", cw_review_operation_name(q->operation)),
               CW_LB("dry_run", q->dry_run), CW_LB("allowed", 1),
               CW_LI("patch_ops", res->patch_ops), CW_LI("warnings", res->warnings),
               CW_LI("duration_us", us));
    else
        cw_log(CW_LOG_INFO, "admission", CW_LS("route", route_names[rq->route]),
               CW_LS("uid", q->uid), CW_LS("kind", kind), CW_LS("namespace", q->namespace_),
               CW_LS("name", q->name), CW_LS("operation", cw_review_operation_name(q->operation)),
               CW_LB("dry_run", q->dry_run), CW_LB("allowed", 0), CW_LI("patch_ops", 0),
               CW_LI("warnings", res->warnings), CW_LI("duration_us", us),
               CW_LS("reason", res->message));
}

static enum MHD_Result finish_admission(cw_webhook_server *s, struct MHD_Connection *c, req_ctx *rq)
{
    enum MHD_Result ret;
    if (s->constant) {
        ret = MHD_queue_response(c, 200, s->constant);
        count_response(s, rq->route, 200);
        return ret;
    }
    if (rq->too_big) {
        char text[120];
        snprintf(text, sizeof(text), "request body exceeds %zu bytes\n", s->cfg.max_body_bytes);
        cw_log(CW_LOG_WARN, "admission request refused", CW_LS("route", route_names[rq->route]),
               CW_LI("status", 413), CW_LS("reason", "body too large"),
               CW_LI("bytes", rq->received));
        const char *v[] = {route_names[rq->route], "", "", "too_large"};
        cw_metrics_add(s->m_requests, v, 1);
        return reply_text(s, c, rq->route, 413, text, NULL);
    }
    if (rq->oom) {
        cw_log(CW_LOG_ERROR, "admission request refused", CW_LS("reason", "out of memory"));
        return reply_text(s, c, rq->route, 500, "out of memory\n", NULL);
    }

    cw_webhook_result res;
    char empty[1] = "";
    cw_webhook_result_init(&res);
    cw_webhook_admit(s->cfg.policy, rq->route == R_MUTATE ? CW_WEBHOOK_MUTATE : CW_WEBHOOK_VALIDATE,
                     rq->body.data ? rq->body.data : empty, rq->body.len, &res);
    int64_t us = now_us() - rq->start_us;
    log_admission(rq, &res, us);

    const char *op = res.req.root ? cw_review_operation_name(res.req.operation) : "";
    const char *labels[] = {route_names[rq->route], res.kind_label, op, res.outcome};
    cw_metrics_add(s->m_requests, labels, 1);
    const char *route_label[] = {route_names[rq->route]};
    cw_metrics_observe(s->m_duration, route_label, (double)us / 1e6);

    size_t len = res.body.len;
    ret = reply(s, c, rq->route, res.status,
                res.status == 200 ? "application/json" : "text/plain; charset=utf-8",
                cw_buf_detach(&res.body), len, NULL);
    cw_webhook_result_free(&res);
    return ret;
}

static enum MHD_Result on_request(void *ud, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *upload, size_t *upload_size,
                                  void **req_cls)
{
    cw_webhook_server *s = ud;
    req_ctx *rq = *req_cls;

    if (!rq) { /* headers are in, the body is not (lib/httpd: --request-timeout from here) */
        const char *bad = cw_httpd_bad_framing(c, url);
        if (bad) {
            cw_log(CW_LOG_WARN, "request refused", CW_LS("method", method), CW_LS("path", url),
                   CW_LI("status", 400), CW_LS("reason", bad));
            char *text = strdup(bad);
            return text ? reply_ex(s, c, R_NONE, 400, "text/plain; charset=utf-8", text,
                                   strlen(text), NULL, 1)
                        : MHD_NO;
        }
        enum route r = find_route(url);
        if (r == R_NONE)
            return refuse(s, c, r, method, url, 404, "not found", NULL);
        if (r >= R_HEALTHZ)
            return serve_probe(s, c, r, method);
        if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
            return refuse(s, c, r, method, url, 405, "method not allowed: use POST", "POST");
        if (!json_content_type(
                MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE)))
            return refuse(s, c, r, method, url, 415,
                          "unsupported content type: use application/json", NULL);
        const char *cl =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        unsigned long long announced = cl ? strtoull(cl, NULL, 10) : 0;
        /* Answering before the body is read means closing with unread data, and the client's
         * kernel may then drop our answer on the reset. So a body up to DISCARD_FACTOR times the
         * limit is read and thrown away and answered normally; only beyond that is it refused at
         * once (clients that send Expect: 100-continue get that answer before sending). */
        if (announced > (unsigned long long)DISCARD_FACTOR * s->cfg.max_body_bytes) {
            char text[120];
            snprintf(text, sizeof(text), "request body exceeds %zu bytes", s->cfg.max_body_bytes);
            const char *v[] = {route_names[r], "", "", "too_large"};
            cw_metrics_add(s->m_requests, v, 1);
            return refuse(s, c, r, method, url, 413, text, NULL);
        }
        if (!(rq = calloc(1, sizeof(*rq))))
            return MHD_NO;
        rq->route = r;
        rq->start_us = now_us();
        cw_buf_init(&rq->body);
        if (announced > s->cfg.max_body_bytes)
            rq->too_big = 1;
        else if (announced && cw_buf_reserve(&rq->body, (size_t)announced) != CW_OK)
            rq->oom = 1;
        *req_cls = rq;
        atomic_fetch_add(&s->in_flight, 1);
        cw_metrics_add(s->m_in_flight, NULL, 1);
        return MHD_YES;
    }

    if (*upload_size) {
        if (now_us() - rq->start_us > (int64_t)s->cfg.request_timeout * 1000000) {
            cw_log(CW_LOG_WARN, "admission request dropped", CW_LS("reason", "body too slow"),
                   CW_LI("bytes", rq->received));
            return MHD_NO; /* closes the connection */
        }
        rq->received += *upload_size;
        if (!rq->too_big && !rq->oom) {
            if (rq->received > s->cfg.max_body_bytes) {
                rq->too_big = 1; /* keep reading to answer 413, but store nothing */
                cw_buf_free(&rq->body);
            } else if (cw_buf_append(&rq->body, upload, *upload_size) != CW_OK) {
                rq->oom = 1;
            }
        }
        *upload_size = 0;
        /* A body without length that never ends is not worth reading to its end. */
        if (rq->too_big && rq->received > DISCARD_FACTOR * s->cfg.max_body_bytes)
            return MHD_NO;
        return MHD_YES;
    }
    return finish_admission(s, c, rq);
}

static void on_completed(void *ud, struct MHD_Connection *c, void **req_cls)
{
    cw_webhook_server *s = ud;
    req_ctx *rq = *req_cls;
    (void)c;
    if (!rq)
        return;
    cw_buf_free(&rq->body);
    free(rq);
    *req_cls = NULL;
    cw_metrics_add(s->m_in_flight, NULL, -1);
    atomic_fetch_sub(&s->in_flight, 1);
}

static void on_closed(void *ud, void *user)
{
    (void)ud;
    cw_certs_cred_release(user); /* the TLS session is already gone */
}

/* GnuTLS asks for the server certificate during each handshake. libmicrohttpd stores its
 * connection as the session pointer, which leads to our connection context; the credential
 * reference lives there until the connection closes. */
static int retrieve_cert(gnutls_session_t session, const gnutls_datum_t *req_ca_dn, int nreqs,
                         const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length,
                         gnutls_pcert_st **pcert, unsigned int *pcert_length,
                         gnutls_privkey_t *pkey)
{
    (void)req_ca_dn;
    (void)nreqs;
    (void)pk_algos;
    (void)pk_algos_length;
    void *ud = NULL;
    void **slot = cw_httpd_conn_user(gnutls_session_get_ptr(session), &ud);
    if (!slot)
        return -1;
    cw_certs_cred *cred = cw_certs_store_acquire(((cw_webhook_server *)ud)->cfg.certs);
    if (!cred)
        return -1;
    cw_certs_cred_release(*slot); /* renegotiation: the earlier one is done */
    *slot = cred;
    cw_certs_cred_gnutls(cred, pcert, pcert_length, pkey);
    return 0;
}

static int register_metrics(cw_webhook_server *s, cw_error *err)
{
    static const double buckets[] = {0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                     0.005,    0.01,    0.025,  0.1,     0.5,    1,     5};
    static const char *const req_labels[] = {"route", "kind", "operation", "outcome", NULL};
    static const char *const resp_labels[] = {"route", "code", NULL};
    static const char *const route_label[] = {"route", NULL};
    static const char *const result_label[] = {"result", NULL};
    cw_metrics *m = s->cfg.metrics;
    int rc;
    if ((rc = cw_metrics_counter(m, "cronwarden_webhook_requests_total",
                                 "Admission requests by route, kind, operation and outcome "
                                 "(allowed, patched, denied, invalid, too_large, error).",
                                 req_labels, &s->m_requests, err)) ||
        (rc = cw_metrics_counter(m, "cronwarden_webhook_http_responses_total",
                                 "HTTP responses by route and status code.", resp_labels,
                                 &s->m_responses, err)) ||
        (rc = cw_metrics_histogram(m, "cronwarden_webhook_request_duration_seconds",
                                   "Time from request headers to admission response.", route_label,
                                   buckets, sizeof(buckets) / sizeof(buckets[0]), &s->m_duration,
                                   err)) ||
        (rc = cw_metrics_gauge(m, "cronwarden_webhook_in_flight_requests",
                               "Admission requests being received or decided.", NULL,
                               &s->m_in_flight, err)) ||
        (rc = cw_metrics_gauge(m, "cronwarden_webhook_certificate_expiry_timestamp_seconds",
                               "notAfter of the served certificate, in Unix seconds.", NULL,
                               &s->m_expiry, err)) ||
        (rc = cw_metrics_counter(m, "cronwarden_webhook_certificate_reloads_total",
                                 "Certificate changes on disk, by result (success, failure).",
                                 result_label, &s->m_reloads, err)))
        return rc;
    cw_metrics_set(s->m_in_flight, NULL, 0);
    return CW_OK;
}

void cw_webhook_server_init(cw_webhook_server *s)
{
    memset(s, 0, sizeof(*s));
    atomic_init(&s->in_flight, 0);
    atomic_init(&s->draining, 0);
    cw_httpd_init(&s->http);
    cw_metrics_init(&s->own_metrics);
}

int cw_webhook_server_start(cw_webhook_server *s, const cw_webhook_config *cfg, cw_error *err)
{
    int rc = CW_OK;
    s->cfg = *cfg;
    if (!s->cfg.max_body_bytes)
        s->cfg.max_body_bytes = DEFAULT_MAX_BODY;
    if (!s->cfg.idle_timeout)
        s->cfg.idle_timeout = DEFAULT_IDLE_TIMEOUT;
    if (!s->cfg.request_timeout)
        s->cfg.request_timeout = DEFAULT_REQ_TIMEOUT;
    if (!s->cfg.max_connections)
        s->cfg.max_connections = DEFAULT_MAX_CONNS;
    if (!s->cfg.read_header_timeout)
        s->cfg.read_header_timeout = DEFAULT_HDR_TIMEOUT;
    if (!s->cfg.tls_priorities)
        s->cfg.tls_priorities = CW_WEBHOOK_PRIORITIES;
    if (!s->cfg.threads) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        s->cfg.threads = n > 0 ? (unsigned)n : 1;
    }
    if (!s->cfg.metrics)
        s->cfg.metrics = &s->own_metrics;
    if (!s->cfg.certs || (!s->cfg.policy && !s->cfg.constant_response))
        return cw_error_set(err, CW_EINVAL, "webhook server: certificates and policy are required");
    if ((rc = register_metrics(s, err)) != CW_OK)
        return rc;
    if (s->cfg.constant_response) {
        s->constant = MHD_create_response_from_buffer(strlen(s->cfg.constant_response),
                                                      (void *)s->cfg.constant_response,
                                                      MHD_RESPMEM_PERSISTENT);
        if (!s->constant)
            return cw_error_oom(err);
        MHD_add_response_header(s->constant, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    }

    cw_httpd_config hc = {
        .listen = s->cfg.listen ? s->cfg.listen : "0.0.0.0:9443",
        .flag = "--listen",
        .threads = s->cfg.threads,
        .max_connections = s->cfg.max_connections,
        .read_header_timeout = s->cfg.read_header_timeout,
        .request_timeout = s->cfg.request_timeout,
        .idle_timeout = s->cfg.idle_timeout,
        .tls_cert = retrieve_cert,
        .tls_priorities = s->cfg.tls_priorities,
        .handler = on_request,
        .completed = on_completed,
        .closed = on_closed,
        .ud = s,
    };
    if ((rc = cw_httpd_start(&s->http, &hc, err)) != CW_OK)
        return rc;
    s->cfg.threads = s->http.cfg.threads;
    s->port = s->http.port;
    return CW_OK;
}

void cw_webhook_server_reload_certs(cw_webhook_server *s)
{
    cw_error err;
    int changed = 0;
    cw_error_init(&err);
    int rc = cw_certs_store_poll(s->cfg.certs, &changed, &err);
    const char *ok[] = {"success"}, *bad[] = {"failure"};
    if (rc != CW_OK) {
        cw_metrics_add(s->m_reloads, bad, 1);
        cw_log(CW_LOG_ERROR, "new certificate refused; still serving the previous one",
               CW_LS("error", err.message));
    } else if (changed) {
        cw_metrics_add(s->m_reloads, ok, 1);
        char when[32] = "";
        time_t t = cw_certs_store_not_after(s->cfg.certs);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
        cw_log(CW_LOG_INFO, "serving a new certificate", CW_LS("not_after", when));
    }
}

int cw_webhook_server_drain(cw_webhook_server *s, double grace_seconds)
{
    if (!s->http.ndaemons)
        return CW_OK;
    atomic_store(&s->draining, 1);
    return cw_httpd_drain(&s->http, grace_seconds);
}

void cw_webhook_server_free(cw_webhook_server *s)
{
    cw_httpd_free(&s->http);
    if (s->constant)
        MHD_destroy_response(s->constant);
    cw_metrics_free(&s->own_metrics);
    memset(s, 0, sizeof(*s));
}
