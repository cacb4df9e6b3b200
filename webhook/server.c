#include "webhook/server.h"
#include "lib/listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
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
#define DEFAULT_HDR_TIMEOUT  10   /* Go's http.Server ReadHeaderTimeout as kube components set it */
#define DRAIN_QUIET_MS       1000 /* idle keep-alive connections are closed after this */
#define DISCARD_FACTOR       4    /* oversized bodies up to this many limits are read, not stored */

enum route { R_MUTATE, R_VALIDATE, R_HEALTHZ, R_READYZ, R_METRICS, R_NONE };
static const char *const route_paths[] = {"/mutate", "/validate", "/healthz", "/readyz",
                                          "/metrics"};
static const char *const route_names[] = {"mutate", "validate", "healthz",
                                          "readyz", "metrics",  "none"};

/* Per connection (MHD socket context): the credential its handshake was given, and the deadline
 * the watchdog holds it to: the end of the headers (from accept, --read-header-timeout), then of
 * the whole request (--request-timeout), then, between keep-alive requests, the idle timeout plus
 * the header timeout again. libmicrohttpd's own timeout restarts with every byte, so a client
 * trickling a byte a second would otherwise keep a connection forever. */
typedef struct conn_ctx {
    cw_webhook_server *srv;
    cw_certs_cred *cred;
    int fd;
    int64_t deadline_us;
    struct conn_ctx *prev, *next; /* srv->conns, under srv->conns_lock */
} conn_ctx;

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

static void touch(cw_webhook_server *s)
{
    atomic_store(&s->last_activity_ms, now_us() / 1000);
}

static void count_response(cw_webhook_server *s, enum route r, unsigned status)
{
    char code[8];
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
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    if (allow)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    if (close || atomic_load(&s->draining))
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ret = MHD_queue_response(c, status, resp);
    MHD_destroy_response(resp);
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

/* Counts the Content-Length headers and keeps the last value. */
typedef struct length_count {
    int n;
    const char *value;
} length_count;

static enum MHD_Result count_length(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    (void)kind;
    length_count *lc = cls;
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        lc->n++;
        lc->value = value;
    }
    return MHD_YES;
}

/* Why a request's framing or path cannot be trusted, or NULL: two Content-Length headers (the
 * request-smuggling shape), one that is not a plain number (-1), an escaped byte in the path
 * (/healthz%00 is not /healthz). The answer is 400 and the connection closes. */
static const char *bad_framing(struct MHD_Connection *c, const char *url)
{
    length_count lc = {0, NULL};
    MHD_get_connection_values(c, MHD_HEADER_KIND, count_length, &lc);
    if (lc.n > 1)
        return "bad request: more than one Content-Length header";
    if (lc.n == 1 && (!*lc.value || strspn(lc.value, "0123456789") != strlen(lc.value)))
        return "bad request: Content-Length is not a number";
    if (strchr(url, '%') || strlen(url) != strcspn(url, "\r\n"))
        return "bad request: escaped or control characters in the path";
    return NULL;
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

static enum MHD_Result serve_get(cw_webhook_server *s, struct MHD_Connection *c, enum route r)
{
    if (r == R_HEALTHZ)
        return reply_text(s, c, r, 200, "ok\n", NULL);
    if (r == R_READYZ) {
        if (atomic_load(&s->draining))
            return reply_text(s, c, r, 503, "shutting down\n", NULL);
        if (cw_certs_store_not_after(s->cfg.certs) == 0)
            return reply_text(s, c, r, 503, "no serving certificate loaded\n", NULL);
        return reply_text(s, c, r, 200, "ok\n", NULL);
    }
    cw_buf b;
    cw_buf_init(&b);
    cw_metrics_set(s->m_expiry, NULL, (double)cw_certs_store_not_after(s->cfg.certs));
    if (cw_metrics_render(s->cfg.metrics, &b) != CW_OK) {
        cw_buf_free(&b);
        return reply_text(s, c, r, 500, "out of memory\n", NULL);
    }
    size_t len = b.len;
    return reply(s, c, r, 200, CW_METRICS_CONTENT_TYPE, cw_buf_detach(&b), len, NULL);
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

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **req_cls)
{
    cw_webhook_server *s = cls;
    req_ctx *rq = *req_cls;
    (void)version;

    if (!rq) { /* headers are in, the body is not */
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        conn_ctx *cc = ci ? ci->socket_context : NULL;
        if (cc) /* from now on the whole request has --request-timeout */
            cc->deadline_us = now_us() + (int64_t)s->cfg.request_timeout * 1000000;
        const char *bad = bad_framing(c, url);
        if (bad) {
            cw_log(CW_LOG_WARN, "request refused", CW_LS("method", method), CW_LS("path", url),
                   CW_LI("status", 400), CW_LS("reason", bad));
            char *text = strdup(bad);
            return text ? reply_ex(s, c, R_NONE, 400, "text/plain; charset=utf-8", text,
                                   strlen(text), NULL, 1)
                        : MHD_NO;
        }
        enum route r = find_route(url);
        int get =
            strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
        if (r == R_NONE)
            return refuse(s, c, r, method, url, 404, "not found", NULL);
        if (r >= R_HEALTHZ) {
            if (!get)
                return refuse(s, c, r, method, url, 405, "method not allowed: use GET",
                              "GET, HEAD");
            return serve_get(s, c, r);
        }
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
        touch(s);
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

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    cw_webhook_server *s = cls;
    req_ctx *rq = *req_cls;
    (void)toe;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    conn_ctx *cc = ci ? ci->socket_context : NULL;
    if (cc) /* a keep-alive connection: idle time, then the next request's headers */
        cc->deadline_us =
            now_us() +
            ((int64_t)s->cfg.idle_timeout + (int64_t)s->cfg.read_header_timeout) * 1000000;
    if (!rq)
        return;
    cw_buf_free(&rq->body);
    free(rq);
    *req_cls = NULL;
    cw_metrics_add(s->m_in_flight, NULL, -1);
    atomic_fetch_sub(&s->in_flight, 1);
    touch(s);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    cw_webhook_server *s = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        conn_ctx *cc = calloc(1, sizeof(*cc));
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        atomic_fetch_add(&s->connections, 1);
        if (cc) {
            cc->srv = s;
            cc->fd = ci ? ci->connect_fd : -1;
            cc->deadline_us = now_us() + (int64_t)s->cfg.read_header_timeout * 1000000;
            pthread_mutex_lock(&s->conns_lock);
            cc->next = s->conns;
            if (s->conns)
                s->conns->prev = cc;
            s->conns = cc;
            pthread_mutex_unlock(&s->conns_lock);
        }
        *socket_context = cc;
        return;
    }
    atomic_fetch_sub(&s->connections, 1);
    conn_ctx *cc = *socket_context;
    if (cc) {
        pthread_mutex_lock(&s->conns_lock);
        if (cc->prev)
            cc->prev->next = cc->next;
        else
            s->conns = cc->next;
        if (cc->next)
            cc->next->prev = cc->prev;
        pthread_mutex_unlock(&s->conns_lock);
        cw_certs_cred_release(cc->cred); /* the TLS session is already gone */
        free(cc);
        *socket_context = NULL;
    }
}

/* Once a second: a connection past its deadline is shut down (libmicrohttpd then closes it). */
static void *watchdog(void *arg)
{
    cw_webhook_server *s = arg;
    while (!atomic_load(&s->stop_watchdog)) {
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
        int64_t now = now_us();
        pthread_mutex_lock(&s->conns_lock);
        for (conn_ctx *cc = s->conns; cc; cc = cc->next)
            if (cc->fd >= 0 && now > cc->deadline_us) {
                shutdown(cc->fd, SHUT_RDWR);
                cc->deadline_us = INT64_MAX; /* once */
                cw_log(CW_LOG_WARN, "connection closed", CW_LS("reason", "too slow"));
            }
        pthread_mutex_unlock(&s->conns_lock);
    }
    return NULL;
}

/* At accept: beyond --max-connections the socket is closed at once, not left to hang in the TLS
 * handshake (libmicrohttpd's own limit just stops accepting). */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t len)
{
    (void)addr;
    (void)len;
    cw_webhook_server *s = cls;
    return (unsigned)atomic_load(&s->connections) < s->cfg.max_connections ? MHD_YES : MHD_NO;
}

/* The URL as sent: libmicrohttpd would decode %00 and make /healthz%00 look like /healthz. */
static size_t keep_escapes(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    return strlen(s);
}

/* Only this process's event loops share the port: before they bind it with SO_REUSEPORT, a
 * socket without it must get the port, which fails while any other process listens there
 * (SO_REUSEADDR still lets a restart bind past the TIME_WAIT of the previous one). */
static int port_is_free(const struct sockaddr_storage *ss, int v6, cw_error *err, const char *as)
{
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, zero = 0, rc = CW_OK;
    if (fd < 0)
        return cw_error_set(err, CW_EIO, "cannot serve on %s: %s", as, strerror(errno));
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (v6 == 2)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    socklen_t len =
        ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (bind(fd, (const struct sockaddr *)ss, len) != 0)
        rc = cw_error_set(err, CW_EIO, "cannot serve on %s: %s", as,
                          errno == EADDRINUSE ? "address already in use" : strerror(errno));
    close(fd);
    return rc;
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
    struct MHD_Connection *c = gnutls_session_get_ptr(session);
    const union MHD_ConnectionInfo *info =
        c ? MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT) : NULL;
    conn_ctx *cc = info ? info->socket_context : NULL;
    if (!cc)
        return -1;
    cw_certs_cred *cred = cw_certs_store_acquire(cc->srv->cfg.certs);
    if (!cred)
        return -1;
    cw_certs_cred_release(cc->cred); /* renegotiation: the earlier one is done */
    cc->cred = cred;
    cw_certs_cred_gnutls(cred, pcert, pcert_length, pkey);
    return 0;
}

static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof(line), fmt, ap);
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
        line[--n] = '\0';
    cw_log(CW_LOG_DEBUG, "http server", CW_LS("detail", line));
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
    atomic_init(&s->last_activity_ms, 0);
    atomic_init(&s->connections, 0);
    atomic_init(&s->stop_watchdog, 0);
    pthread_mutex_init(&s->conns_lock, NULL);
    cw_metrics_init(&s->own_metrics);
}

int cw_webhook_server_start(cw_webhook_server *s, const cw_webhook_config *cfg, cw_error *err)
{
    int rc = CW_OK, v6 = 0;
    struct sockaddr_storage ss;
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
    if ((rc = cw_listen_parse("--listen", s->cfg.listen ? s->cfg.listen : "0.0.0.0:9443", &ss, &v6,
                              err)) ||
        (rc = register_metrics(s, err)))
        return rc;
    if (s->cfg.constant_response) {
        s->constant = MHD_create_response_from_buffer(strlen(s->cfg.constant_response),
                                                      (void *)s->cfg.constant_response,
                                                      MHD_RESPMEM_PERSISTENT);
        if (!s->constant)
            return cw_error_oom(err);
        MHD_add_response_header(s->constant, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    }

    /* One event loop per thread, each with its own listening socket on the same port
     * (SO_REUSEPORT): the kernel spreads connections over them. libmicrohttpd's own thread pool
     * shares one socket, and whichever thread wakes first accepts up to ten connections at once,
     * so a burst of connections can land on a single thread. */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_TLS | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG |
                     (v6 == 2 ? MHD_USE_DUAL_STACK
                      : v6    ? MHD_USE_IPv6
                              : 0);
    unsigned n = s->cfg.threads =
        s->cfg.threads < CW_WEBHOOK_MAX_THREADS ? s->cfg.threads : CW_WEBHOOK_MAX_THREADS;
    const char *as = s->cfg.listen ? s->cfg.listen : "0.0.0.0:9443";
    uint16_t wanted = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                     : ((struct sockaddr_in *)&ss)->sin_port);
    if (wanted && (rc = port_is_free(&ss, v6, err, as)) != CW_OK)
        return rc;
    /* accept_policy enforces the total; each loop may hold all of it */
    unsigned per_loop = s->cfg.max_connections + 1;
    for (unsigned i = 0; i < n; i++) {
        struct MHD_Daemon *d = MHD_start_daemon(
            flags, 0, accept_policy, s, on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
            MHD_OPTION_UNESCAPE_CALLBACK, keep_escapes, NULL,
            /* Always SO_REUSEPORT: a restart on the same port must bind while connections of the
             * previous process (which had it too) are still in TIME_WAIT. */
            MHD_OPTION_LISTENING_ADDRESS_REUSE, 1u, MHD_OPTION_CONNECTION_TIMEOUT,
            s->cfg.idle_timeout, MHD_OPTION_CONNECTION_LIMIT, per_loop, MHD_OPTION_NOTIFY_COMPLETED,
            on_completed, s, MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
            MHD_OPTION_HTTPS_CERT_CALLBACK, retrieve_cert, MHD_OPTION_HTTPS_PRIORITIES,
            s->cfg.tls_priorities, MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL, MHD_OPTION_END);
        if (!d)
            return cw_error_set(err, CW_EIO, "cannot serve on %s (address in use or not local?)",
                                as);
        s->daemons[s->ndaemons++] = d;
        if (i == 0) { /* the others bind the port the first one got (port 0 picks one) */
            const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
            s->port = di ? di->port : 0;
            if (ss.ss_family == AF_INET6)
                ((struct sockaddr_in6 *)&ss)->sin6_port = htons(s->port);
            else
                ((struct sockaddr_in *)&ss)->sin_port = htons(s->port);
        }
    }
    if (pthread_create(&s->watchdog, NULL, watchdog, s) != 0)
        return cw_error_set(err, CW_EIO, "cannot start the connection watchdog");
    s->watchdog_running = 1;
    touch(s);
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

static unsigned connections(cw_webhook_server *s)
{
    unsigned total = 0;
    for (unsigned i = 0; i < s->ndaemons; i++) {
        const union MHD_DaemonInfo *di =
            MHD_get_daemon_info(s->daemons[i], MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
        total += di ? di->num_connections : 0;
    }
    return total;
}

int cw_webhook_server_drain(cw_webhook_server *s, double grace_seconds)
{
    if (!s->ndaemons)
        return CW_OK;
    atomic_store(&s->draining, 1);
    for (unsigned i = 0; i < s->ndaemons; i++) {
        MHD_socket fd = MHD_quiesce_daemon(s->daemons[i]);
        if (fd != MHD_INVALID_SOCKET)
            close(fd); /* new connections are refused from here on */
    }
    int64_t start = now_us(), deadline = start + (int64_t)(grace_seconds * 1e6);
    for (;;) {
        unsigned conns = connections(s);
        int busy = atomic_load(&s->in_flight);
        int64_t quiet_ms = now_us() / 1000 - atomic_load(&s->last_activity_ms);
        if (conns == 0 || (!busy && quiet_ms >= DRAIN_QUIET_MS))
            return CW_OK;
        if (now_us() >= deadline) {
            cw_log(CW_LOG_WARN, "shutdown grace period over", CW_LI("in_flight", busy),
                   CW_LI("connections", conns));
            return busy ? CW_ELIMIT : CW_OK;
        }
        struct timespec ts = {0, 10 * 1000000};
        nanosleep(&ts, NULL);
    }
}

void cw_webhook_server_free(cw_webhook_server *s)
{
    if (s->watchdog_running) {
        atomic_store(&s->stop_watchdog, 1);
        pthread_join(s->watchdog, NULL);
    }
    for (unsigned i = 0; i < s->ndaemons; i++)
        MHD_stop_daemon(s->daemons[i]);
    pthread_mutex_destroy(&s->conns_lock);
    if (s->constant)
        MHD_destroy_response(s->constant);
    cw_metrics_free(&s->own_metrics);
    memset(s, 0, sizeof(*s));
}
