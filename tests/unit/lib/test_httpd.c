/* lib/httpd: the edge both servers share, over plain HTTP on 127.0.0.1 with raw sockets.
 *   - deadlines: a table of clients (trickled headers, trickled body, idle keep-alive, a request
 *     in time) with when the server must cut them, or the answer they must get;
 *   - caps: a table of connection sets (total cap, per-client cap with a second client address)
 *     with which connections are answered and which are closed at accept;
 *   - limits and routes: a table of raw requests with the exact status line and body. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/clock.h"
#include "lib/httpd.h"
#include "lib/log.h"

/* ---- the server under test: the probe routes, and POST /echo that reads its body ---- */

typedef struct test_server {
    cw_httpd http;
    cw_metrics metrics;
    int ready;
} test_server;

static int is_ready(void *ud, char *why, size_t whylen)
{
    test_server *t = ud;
    if (!t->ready)
        snprintf(why, whylen, "caches not synced");
    return t->ready;
}

static int body_marker;

static enum MHD_Result handler(void *ud, struct MHD_Connection *c, const char *url,
                               const char *method, const char *upload, size_t *upload_size,
                               void **req_cls)
{
    (void)upload;
    test_server *t = ud;
    const char *bad = cw_httpd_bad_framing(c, url);
    if (bad)
        return cw_httpd_reply(&t->http, c, 400, "text/plain", strdup(bad), strlen(bad), NULL, 1);
    enum cw_httpd_probe p = cw_httpd_probe_route(url);
    if (p != CW_PROBE_NONE) {
        cw_httpd_probes probes = {&t->metrics, is_ready, NULL, t};
        unsigned status;
        return cw_httpd_serve_probe(&t->http, &probes, c, p, method, req_cls, &status);
    }
    if (strcmp(url, "/echo") != 0)
        return cw_httpd_reply(&t->http, c, 404, "text/plain", strdup("not found"), 9, NULL, 0);
    if (!*req_cls) {
        *req_cls = &body_marker;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0;
        return MHD_YES;
    }
    return cw_httpd_reply(&t->http, c, 200, "text/plain", strdup("echo"), 4, NULL, 0);
}

typedef struct edge {
    unsigned max_connections, max_per_client, header_s, request_s, idle_s;
    size_t max_header;
} edge;

static void start(test_server *t, edge e)
{
    cw_error err;
    cw_error_init(&err);
    memset(t, 0, sizeof(*t));
    cw_metrics_init(&t->metrics);
    cw_metric *g;
    assert_int_equal(cw_metrics_gauge(&t->metrics, "test_up", "Up.", NULL, &g, &err), CW_OK);
    cw_metrics_set(g, NULL, 1);
    t->ready = 1;
    cw_httpd_init(&t->http);
    cw_httpd_config cfg = {.listen = "127.0.0.1:0",
                           .max_connections = e.max_connections,
                           .max_per_client = e.max_per_client,
                           .read_header_timeout = e.header_s,
                           .request_timeout = e.request_s,
                           .idle_timeout = e.idle_s,
                           .max_header_bytes = e.max_header,
                           .handler = handler,
                           .ud = t};
    int rc = cw_httpd_start(&t->http, &cfg, &err);
    if (rc != CW_OK)
        fail_msg("start: %s", err.message);
}

static void stop(test_server *t)
{
    cw_httpd_free(&t->http);
    cw_metrics_free(&t->metrics);
}

/* ---- a raw client ---- */

static int dial(uint16_t port, const char *from)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    if (from) {
        inet_pton(AF_INET, from, &a.sin_addr);
        assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    }
    a.sin_port = htons(port);
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

/* Whether the server closed fd within ms (EOF or reset, no answer). */
static int closed_within(int fd, int ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0)
        return 0;
    char b[64];
    return recv(fd, b, sizeof(b), MSG_DONTWAIT) <= 0;
}

/* Sends text whole and reads the answer (until close or the end of a Content-Length body). */
static void exchange(int fd, const char *text, char *out, size_t outlen)
{
    size_t len = strlen(text), got = 0;
    out[0] = '\0';
    if (send(fd, text, len, MSG_NOSIGNAL) != (ssize_t)len)
        return;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 3000) <= 0 || got + 1 >= outlen)
            break;
        ssize_t n = recv(fd, out + got, outlen - 1 - got, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
        out[got] = '\0';
        const char *end = strstr(out, "\r\n\r\n"), *cl = strcasestr(out, "Content-Length: ");
        if (end && cl && (size_t)(out + got - (end + 4)) >= strtoul(cl + 16, NULL, 10))
            break;
    }
}

/* The status line and the body of an answer ("HTTP/1.1 200 OK|ok\n"). */
static void status_and_body(const char *answer, char *out, size_t outlen)
{
    const char *eol = strstr(answer, "\r\n"), *end = strstr(answer, "\r\n\r\n");
    if (!eol || !end) {
        snprintf(out, outlen, "(no answer)");
        return;
    }
    snprintf(out, outlen, "%.*s|%s", (int)(eol - answer), answer, end + 4);
}

/* ---- deadlines ---- */

typedef struct deadline_case {
    const char *name;
    edge e;
    const char *whole;       /* sent at once */
    const char *trickle;     /* then one byte every 250 ms */
    int read_answer;         /* read the answer to `whole` first (keep-alive) */
    double cut_min, cut_max; /* when the server closes it, in seconds from connect */
    int by_watchdog;         /* cut by the deadline (not libmicrohttpd's idle timeout) */
    const char *want;        /* the status line and body of the answer to `whole` */
} deadline_case;

static const deadline_case deadline_cases[] = {
    {"headers trickled: cut at the header deadline, bytes do not extend it",
     {8, 0, 1, 5, 5, 0},
     "",
     "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaa",
     0,
     0.9,
     1.8,
     1,
     NULL},
    {"body trickled: cut at the request deadline, counted from the headers",
     {8, 0, 5, 1, 5, 0},
     "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n",
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
     0,
     0.9,
     1.8,
     1,
     NULL},
    {"idle keep-alive, silent: closed at the idle timeout (libmicrohttpd's)",
     {8, 0, 1, 5, 1, 0},
     "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
     "",
     1,
     0.9,
     1.8,
     0,
     NULL},
    {"keep-alive, next request trickled: cut at idle + header timeout after the answer",
     {8, 0, 1, 5, 1, 0},
     "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
     "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaa",
     1,
     1.9,
     2.8,
     1,
     NULL},
    {"a request in time is answered; its silent connection closes at the idle timeout",
     {8, 0, 1, 1, 1, 0},
     "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
     "",
     1,
     0.9,
     1.8,
     0,
     "HTTP/1.1 200 OK|echo"},
};

static void deadlines(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(deadline_cases) / sizeof(deadline_cases[0]); i++) {
        const deadline_case *tc = &deadline_cases[i];
        test_server t;
        start(&t, tc->e);
        double t0 = cw_clock_mono();
        int fd = dial(t.http.port, NULL);
        char answer[4096] = "", got[4096];
        if (tc->read_answer)
            exchange(fd, tc->whole, answer, sizeof(answer));
        else if (*tc->whole)
            assert_int_equal(send(fd, tc->whole, strlen(tc->whole), MSG_NOSIGNAL),
                             (ssize_t)strlen(tc->whole));
        if (tc->want) {
            status_and_body(answer, got, sizeof(got));
            if (strcmp(got, tc->want) != 0)
                fail_msg("%s: got %s, want %s", tc->name, got, tc->want);
        }
        double cut = 0;
        const char *p = tc->trickle;
        while (cw_clock_mono() - t0 < 4) {
            if (*p && send(fd, p++, 1, MSG_NOSIGNAL) != 1) {
                cut = cw_clock_mono() - t0;
                break;
            }
            if (closed_within(fd, 250)) {
                cut = cw_clock_mono() - t0;
                break;
            }
        }
        close(fd);
        if (cut < tc->cut_min || cut > tc->cut_max)
            fail_msg("%s: cut after %.2fs, want %.1f-%.1fs", tc->name, cut, tc->cut_min,
                     tc->cut_max);
        if (atomic_load(&t.http.cut) != tc->by_watchdog)
            fail_msg("%s: %d connections cut at their deadline, want %d", tc->name,
                     atomic_load(&t.http.cut), tc->by_watchdog);
        stop(&t);
    }
}

/* ---- caps ---- */

typedef struct caps_case {
    const char *name;
    edge e;
    const char *from[6];  /* client addresses, each held open in turn */
    const char *answered; /* per connection, after all are open: 'y' answered, 'n' closed */
    int refused;          /* connections refused at accept */
} caps_case;

static const caps_case caps_cases[] = {
    {"total cap: the fourth connection is closed at accept",
     {3, 0, 5, 5, 5, 0},
     {"127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.1", NULL},
     "yyyn",
     1},
    {"per-client cap: a third from one address is closed, another address is answered",
     {5, 2, 5, 5, 5, 0},
     {"127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.2", "127.0.0.2", NULL},
     "yynyy",
     1},
    {"per-client cap below the total: a client holding its share leaves room for the probe",
     {4, 3, 5, 5, 5, 0},
     {"127.0.0.3", "127.0.0.3", "127.0.0.3", "127.0.0.3", "127.0.0.1", NULL},
     "yyyny",
     1},
};

static void caps(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(caps_cases) / sizeof(caps_cases[0]); i++) {
        const caps_case *tc = &caps_cases[i];
        test_server t;
        start(&t, tc->e);
        int fds[6];
        size_t n = 0;
        for (; tc->from[n]; n++) {
            fds[n] = dial(t.http.port, tc->from[n]);
            /* until the server has taken it (or refused it), so the next one counts it */
            for (int w = 0;
                 w < 100 &&
                 atomic_load(&t.http.connections) + atomic_load(&t.http.refused) < (int)n + 1;
                 w++)
                usleep(10000);
        }
        char got[8] = "";
        for (size_t k = 0; k < n; k++) {
            char answer[4096], sb[4096];
            exchange(fds[k], "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", answer, sizeof(answer));
            status_and_body(answer, sb, sizeof(sb));
            got[k] = strcmp(sb, "HTTP/1.1 200 OK|ok\n") == 0 ? 'y' : 'n';
            close(fds[k]);
        }
        if (strcmp(got, tc->answered) != 0)
            fail_msg("%s: answered %s, want %s", tc->name, got, tc->answered);
        assert_int_equal(atomic_load(&t.http.refused), tc->refused);
        stop(&t);
    }
}

/* ---- limits and routes ---- */

typedef struct route_case {
    const char *request;
    int not_ready;
    const char *want; /* status line|body */
} route_case;

static char big_header[6000];

static const route_case route_cases[] = {
    {"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 0, "HTTP/1.1 200 OK|ok\n"},
    {"HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 0, "HTTP/1.1 200 OK|"},
    {"POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 0,
     "HTTP/1.1 405 Method Not Allowed|method not allowed: use GET\n"},
    {"GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n", 0, "HTTP/1.1 200 OK|ok\n"},
    {"GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n", 1,
     "HTTP/1.1 503 Service Unavailable|caches not synced\n"},
    {"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 0,
     "HTTP/1.1 200 OK|# HELP test_up Up.\n# TYPE test_up gauge\ntest_up 1\n"},
    {"GET /healthz%00 HTTP/1.1\r\nHost: x\r\n\r\n", 0,
     "HTTP/1.1 400 Bad Request|bad request: escaped or control characters in the path"},
    {"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", 0,
     "HTTP/1.1 400 Bad Request|bad request: more than one Content-Length header"},
    {"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", 0, "HTTP/1.1 404 Not Found|not found"},
    /* a probe is answered at its headers; its body is never read */
    {"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nabc", 0,
     "HTTP/1.1 200 OK|ok\n"},
    /* headers beyond max_header_bytes (4 KiB here) */
    {big_header, 0, "HTTP/1.1 431 Request Header Fields Too Large|"},
};

static void limits_and_routes(void **state)
{
    (void)state;
    int n = snprintf(big_header, sizeof(big_header), "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(big_header + n, 'a', 5000);
    strcpy(big_header + n + 5000, "\r\n\r\n");
    test_server t;
    start(&t, (edge){8, 0, 5, 5, 5, 4096});
    for (size_t i = 0; i < sizeof(route_cases) / sizeof(route_cases[0]); i++) {
        const route_case *tc = &route_cases[i];
        t.ready = !tc->not_ready;
        int fd = dial(t.http.port, NULL);
        char answer[8192], got[8192];
        exchange(fd, tc->request, answer, sizeof(answer));
        close(fd);
        status_and_body(answer, got, sizeof(got));
        /* libmicrohttpd's own 431 page: the status line is what counts */
        if (strncmp(tc->want, "HTTP/1.1 431", 12) == 0)
            got[strcspn(got, "|") + 1] = '\0';
        if (strcmp(got, tc->want) != 0)
            fail_msg("%.40s: got\n%s\nwant\n%s", tc->request, got, tc->want);
    }
    stop(&t);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    cw_log_configure(CW_LOG_OFF, CW_LOG_TEXT, stderr);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(limits_and_routes),
        cmocka_unit_test(caps),
        cmocka_unit_test(deadlines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
