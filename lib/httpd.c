#include "lib/httpd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/listen.h"
#include "lib/log.h"

#define DRAIN_QUIET_MS 1000 /* idle keep-alive connections are closed after this */
#define WATCHDOG_MS    200

/* A probe request's context between its headers and its answer (cw_httpd_serve_probe). */
static char probe_mark;

/* Per connection (libmicrohttpd's socket context): the client's address for the per-client cap,
 * and the deadline the watchdog holds it to. */
typedef struct cw_httpd_conn {
    cw_httpd *srv;
    int fd;
    struct sockaddr_storage addr;
    int in_request;
    int64_t deadline_us;
    void *user; /* the user's (the webhook's TLS credential) */
    struct cw_httpd_conn *prev, *next;
} cw_httpd_conn;

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void touch(cw_httpd *h)
{
    atomic_store(&h->last_activity_ms, now_us() / 1000);
}

static cw_httpd_conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        c ? MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT) : NULL;
    return ci ? ci->socket_context : NULL;
}

void **cw_httpd_conn_user(struct MHD_Connection *c, void **server_ud)
{
    cw_httpd_conn *cc = conn_of(c);
    if (!cc)
        return NULL;
    if (server_ud)
        *server_ud = cc->srv->cfg.ud;
    return &cc->user;
}

/* Two client addresses are the same client when their IP addresses are (ports differ). */
static int same_client(const struct sockaddr_storage *a, const struct sockaddr *b)
{
    if (a->ss_family != b->sa_family)
        return 0;
    if (b->sa_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    if (b->sa_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                      &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) == 0;
    return 0;
}

/* At accept: beyond either cap the socket is closed at once, not left to hang in a handshake
 * (libmicrohttpd's own limit just stops accepting, which would hold the probes in the backlog). */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t len)
{
    (void)len;
    cw_httpd *h = cls;
    enum MHD_Result ok = MHD_YES;
    if ((unsigned)atomic_load(&h->connections) >= h->cfg.max_connections)
        ok = MHD_NO;
    else if (h->cfg.max_per_client && addr) {
        unsigned n = 0;
        pthread_mutex_lock(&h->conns_lock);
        for (cw_httpd_conn *cc = h->conns; cc && n < h->cfg.max_per_client; cc = cc->next)
            n += (unsigned)same_client(&cc->addr, addr);
        pthread_mutex_unlock(&h->conns_lock);
        if (n >= h->cfg.max_per_client)
            ok = MHD_NO;
    }
    if (ok == MHD_NO)
        atomic_fetch_add(&h->refused, 1);
    return ok;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    cw_httpd *h = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        cw_httpd_conn *cc = calloc(1, sizeof(*cc));
        atomic_fetch_add(&h->connections, 1);
        if (cc) {
            const union MHD_ConnectionInfo *fd =
                MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
            const union MHD_ConnectionInfo *ad =
                MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
            cc->srv = h;
            cc->fd = fd ? fd->connect_fd : -1;
            if (ad && ad->client_addr)
                memcpy(&cc->addr, ad->client_addr,
                       ad->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                              : sizeof(struct sockaddr_in));
            cc->deadline_us = now_us() + (int64_t)h->cfg.read_header_timeout * 1000000;
            pthread_mutex_lock(&h->conns_lock);
            cc->next = h->conns;
            if (h->conns)
                h->conns->prev = cc;
            h->conns = cc;
            pthread_mutex_unlock(&h->conns_lock);
        }
        *socket_context = cc;
        return;
    }
    atomic_fetch_sub(&h->connections, 1);
    cw_httpd_conn *cc = *socket_context;
    if (!cc)
        return;
    pthread_mutex_lock(&h->conns_lock);
    if (cc->prev)
        cc->prev->next = cc->next;
    else
        h->conns = cc->next;
    if (cc->next)
        cc->next->prev = cc->prev;
    pthread_mutex_unlock(&h->conns_lock);
    if (h->cfg.closed)
        h->cfg.closed(h->cfg.ud, cc->user); /* the TLS session is already gone */
    free(cc);
    *socket_context = NULL;
}

/* Every WATCHDOG_MS: a connection past its deadline is shut down (libmicrohttpd then closes it). */
static void *watchdog(void *arg)
{
    cw_httpd *h = arg;
    while (!atomic_load(&h->stop_watchdog)) {
        struct timespec ts = {0, WATCHDOG_MS * 1000 * 1000};
        nanosleep(&ts, NULL);
        int64_t now = now_us();
        pthread_mutex_lock(&h->conns_lock);
        for (cw_httpd_conn *cc = h->conns; cc; cc = cc->next)
            if (cc->fd >= 0 && now > cc->deadline_us) {
                /* Counted before the shutdown: whoever sees the close sees the count. */
                atomic_fetch_add(&h->cut, 1);
                cc->deadline_us = INT64_MAX; /* once */
                shutdown(cc->fd, SHUT_RDWR);
                cw_log(CW_LOG_WARN, "connection closed", CW_LS("reason", "too slow"));
            }
        pthread_mutex_unlock(&h->conns_lock);
    }
    return NULL;
}

/* Sets a connection's deadline under the lock the watchdog reads it with. */
static void set_deadline(cw_httpd *h, cw_httpd_conn *cc, int64_t seconds)
{
    pthread_mutex_lock(&h->conns_lock);
    if (cc->deadline_us != INT64_MAX)
        cc->deadline_us = now_us() + seconds * 1000000;
    pthread_mutex_unlock(&h->conns_lock);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **req_cls)
{
    (void)version;
    cw_httpd *h = cls;
    cw_httpd_conn *cc = conn_of(c);
    if (cc && !cc->in_request) { /* headers are in: the whole request has request_timeout */
        cc->in_request = 1;
        set_deadline(h, cc, h->cfg.request_timeout);
        atomic_fetch_add(&h->in_flight, 1);
        touch(h);
    }
    return h->cfg.handler(h->cfg.ud, c, url, method, upload, upload_size, req_cls);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    cw_httpd *h = cls;
    cw_httpd_conn *cc = conn_of(c);
    if (cc && cc->in_request) { /* keep-alive: idle time, then the next request's headers */
        cc->in_request = 0;
        set_deadline(h, cc, (int64_t)h->cfg.idle_timeout + h->cfg.read_header_timeout);
        atomic_fetch_sub(&h->in_flight, 1);
        touch(h);
    }
    if (*req_cls == &probe_mark) /* a probe's own */
        *req_cls = NULL;
    else if (h->cfg.completed)
        h->cfg.completed(h->cfg.ud, c, req_cls);
}

/* The URL as sent: libmicrohttpd would decode %00 and make /healthz%00 look like /healthz. */
static size_t keep_escapes(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    return strlen(s);
}

static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof(line), fmt, ap);
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
        line[--n] = '\0';
    cw_log(CW_LOG_DEBUG, "http server", CW_LS("detail", line));
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

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
    if (ss->ss_family == AF_INET6)
        ((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
    else
        ((struct sockaddr_in *)ss)->sin_port = htons(port);
}

static struct MHD_Daemon *start_loop(cw_httpd *h, unsigned flags, struct sockaddr_storage *ss)
{
    /* accept_policy enforces the total; each loop may hold all of it */
    unsigned per_loop = h->cfg.max_connections + 1;
    size_t mem = h->cfg.max_header_bytes;
    /* Always SO_REUSEPORT: a restart on the same port must bind while connections of the
     * previous process (which had it too) are still in TIME_WAIT. */
    if (h->cfg.tls_cert)
        return MHD_start_daemon(
            flags | MHD_USE_TLS, 0, accept_policy, h, on_request, h, MHD_OPTION_SOCK_ADDR,
            (struct sockaddr *)ss, MHD_OPTION_UNESCAPE_CALLBACK, keep_escapes, NULL,
            MHD_OPTION_LISTENING_ADDRESS_REUSE, 1u, MHD_OPTION_CONNECTION_TIMEOUT,
            h->cfg.idle_timeout, MHD_OPTION_CONNECTION_LIMIT, per_loop,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, mem, MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
            MHD_OPTION_NOTIFY_CONNECTION, on_connection, h, MHD_OPTION_HTTPS_CERT_CALLBACK,
            h->cfg.tls_cert, MHD_OPTION_HTTPS_PRIORITIES, h->cfg.tls_priorities,
            MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL, MHD_OPTION_END);
    return MHD_start_daemon(flags, 0, accept_policy, h, on_request, h, MHD_OPTION_SOCK_ADDR,
                            (struct sockaddr *)ss, MHD_OPTION_UNESCAPE_CALLBACK, keep_escapes, NULL,
                            MHD_OPTION_LISTENING_ADDRESS_REUSE, 1u, MHD_OPTION_CONNECTION_TIMEOUT,
                            h->cfg.idle_timeout, MHD_OPTION_CONNECTION_LIMIT, per_loop,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, mem, MHD_OPTION_NOTIFY_COMPLETED,
                            on_completed, h, MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
                            MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL, MHD_OPTION_END);
}

void cw_httpd_init(cw_httpd *h)
{
    memset(h, 0, sizeof(*h));
    atomic_init(&h->in_flight, 0);
    atomic_init(&h->draining, 0);
    atomic_init(&h->connections, 0);
    atomic_init(&h->refused, 0);
    atomic_init(&h->cut, 0);
    atomic_init(&h->last_activity_ms, 0);
    atomic_init(&h->stop_watchdog, 0);
    pthread_mutex_init(&h->conns_lock, NULL);
}

int cw_httpd_start(cw_httpd *h, const cw_httpd_config *cfg, cw_error *err)
{
    struct sockaddr_storage ss;
    int rc, v6 = 0;
    h->cfg = *cfg;
    if (!h->cfg.flag)
        h->cfg.flag = "--listen";
    if (!h->cfg.threads)
        h->cfg.threads = 1;
    if (h->cfg.threads > CW_HTTPD_MAX_THREADS)
        h->cfg.threads = CW_HTTPD_MAX_THREADS;
    if (!h->cfg.max_header_bytes)
        h->cfg.max_header_bytes = 32 * 1024;
    if (!h->cfg.handler || !h->cfg.listen || !h->cfg.max_connections ||
        !h->cfg.read_header_timeout || !h->cfg.request_timeout || !h->cfg.idle_timeout)
        return cw_error_set(err, CW_EINVAL, "http server: listen, handler, limits are required");
    if ((rc = cw_listen_parse(h->cfg.flag, h->cfg.listen, &ss, &v6, err)) != CW_OK)
        return rc;
    uint16_t wanted = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                     : ((struct sockaddr_in *)&ss)->sin_port);
    if (wanted && (rc = port_is_free(&ss, v6, err, h->cfg.listen)) != CW_OK)
        return rc;
    /* One event loop per thread, each with its own listening socket on the same port
     * (SO_REUSEPORT): the kernel spreads connections over them. libmicrohttpd's own thread pool
     * shares one socket, and whichever thread wakes first accepts up to ten connections at once,
     * so a burst of connections can land on a single thread. */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG |
                     (v6 == 2 ? MHD_USE_DUAL_STACK
                      : v6    ? MHD_USE_IPv6
                              : 0);
    for (unsigned i = 0; i < h->cfg.threads; i++) {
        struct MHD_Daemon *d = start_loop(h, flags, &ss);
        if (!d)
            return cw_error_set(err, CW_EIO, "cannot serve on %s (address in use or not local?)",
                                h->cfg.listen);
        h->daemons[h->ndaemons++] = d;
        if (i == 0) { /* the others bind the port the first one got (port 0 picks one) */
            const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
            h->port = di ? di->port : 0;
            set_port(&ss, h->port);
        }
    }
    if (pthread_create(&h->watchdog, NULL, watchdog, h) != 0)
        return cw_error_set(err, CW_EIO, "cannot start the connection watchdog");
    h->watchdog_running = 1;
    touch(h);
    return CW_OK;
}

int cw_httpd_drain(cw_httpd *h, double grace_seconds)
{
    if (!h->ndaemons)
        return CW_OK;
    atomic_store(&h->draining, 1);
    for (unsigned i = 0; i < h->ndaemons; i++) {
        MHD_socket fd = MHD_quiesce_daemon(h->daemons[i]);
        if (fd != MHD_INVALID_SOCKET)
            close(fd); /* new connections are refused from here on */
    }
    int64_t deadline = now_us() + (int64_t)(grace_seconds * 1e6);
    for (;;) {
        int conns = atomic_load(&h->connections), busy = atomic_load(&h->in_flight);
        int64_t quiet_ms = now_us() / 1000 - atomic_load(&h->last_activity_ms);
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

void cw_httpd_free(cw_httpd *h)
{
    if (h->watchdog_running) {
        atomic_store(&h->stop_watchdog, 1);
        pthread_join(h->watchdog, NULL);
    }
    for (unsigned i = 0; i < h->ndaemons; i++)
        MHD_stop_daemon(h->daemons[i]);
    pthread_mutex_destroy(&h->conns_lock);
    memset(h, 0, sizeof(*h));
}

enum MHD_Result cw_httpd_reply(cw_httpd *h, struct MHD_Connection *c, unsigned status,
                               const char *ctype, char *body, size_t len, const char *allow,
                               int close)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    if (allow)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    if (close || atomic_load(&h->draining))
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ret = MHD_queue_response(c, status, resp);
    MHD_destroy_response(resp);
    return ret;
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

const char *cw_httpd_bad_framing(struct MHD_Connection *c, const char *url)
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

static const char *const probe_paths[] = {"/healthz", "/readyz", "/metrics"};

enum cw_httpd_probe cw_httpd_probe_route(const char *url)
{
    for (int i = 0; i < CW_PROBE_NONE; i++)
        if (strcmp(url, probe_paths[i]) == 0)
            return (enum cw_httpd_probe)i;
    return CW_PROBE_NONE;
}

static enum MHD_Result text(cw_httpd *h, struct MHD_Connection *c, unsigned status, const char *msg,
                            const char *allow, unsigned *out)
{
    char *body = NULL;
    int n = asprintf(&body, "%s\n", msg);
    if (n < 0)
        return MHD_NO;
    *out = status;
    return cw_httpd_reply(h, c, status, "text/plain; charset=utf-8", body, (size_t)n, allow, 0);
}

/* Whether a request announces a body (a length above zero, or chunks). */
static int has_body(struct MHD_Connection *c)
{
    const char *cl =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    return (cl && strspn(cl, "0") != strlen(cl)) ||
           MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
}

enum MHD_Result cw_httpd_serve_probe(cw_httpd *h, const cw_httpd_probes *p,
                                     struct MHD_Connection *c, enum cw_httpd_probe which,
                                     const char *method, void **req_cls, unsigned *status)
{
    *status = 0;
    /* Without a body the answer comes at the end of the request, so the connection stays
     * usable (libmicrohttpd closes one answered before its request ended); with a body it comes
     * at once and the body is never read. */
    if (req_cls && !*req_cls && !has_body(c)) {
        *req_cls = &probe_mark;
        return MHD_YES;
    }
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
        cw_log(CW_LOG_WARN, "request refused", CW_LS("method", method),
               CW_LS("path", probe_paths[which]), CW_LI("status", 405),
               CW_LS("reason", "method not allowed: use GET"));
        return text(h, c, 405, "method not allowed: use GET", "GET, HEAD", status);
    }
    if (which == CW_PROBE_HEALTHZ)
        return text(h, c, 200, "ok", NULL, status);
    if (which == CW_PROBE_READYZ) {
        char why[256] = "not ready";
        if (atomic_load(&h->draining))
            return text(h, c, 503, "shutting down", NULL, status);
        if (p->ready && !p->ready(p->ud, why, sizeof(why)))
            return text(h, c, 503, why, NULL, status);
        return text(h, c, 200, "ok", NULL, status);
    }
    if (p->before_metrics)
        p->before_metrics(p->ud);
    cw_buf b;
    cw_buf_init(&b);
    if (cw_metrics_render(p->metrics, &b) != CW_OK) {
        cw_buf_free(&b);
        return text(h, c, 500, "out of memory", NULL, status);
    }
    size_t len = b.len;
    *status = 200;
    return cw_httpd_reply(h, c, 200, CW_METRICS_CONTENT_TYPE, cw_buf_detach(&b), len, NULL, 0);
}
