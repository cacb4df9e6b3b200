/* An open-loop load generator for the webhook's latency at a given rate (bench/webhook.sh's half
 * load). Requests are due at exact intervals (1/RATE) whether or not earlier answers came back:
 * a due request goes out on an idle keep-alive TLS connection, or waits in the client for one,
 * and its latency runs from the moment it was due to the last byte of its answer. So queueing in
 * the client counts, and the arrivals stay evenly spread: wrk's paced connections (a pause after
 * each answer, on a millisecond timer) fall into step and arrive in bursts, which measures the
 * bursts rather than the server.
 *
 *   cw_bench_webhook_paced PORT RATE SECONDS CONNECTIONS BODY_DIR
 *
 * POSTs BODY_DIR/{recurringjob,volume,schedule}.json in rotation to https://127.0.0.1:PORT/mutate
 * and prints one line in the format of bench/webhook.lua's:
 *   RESULT requests=… seconds=… rps=… p50_us=… p99_us=… p999_us=… max_us=… errors=… */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define NBODIES  3
#define RESP_MAX (64 * 1024)

typedef struct {
    int fd;
    SSL *ssl;
    const char *req; /* the request being sent, or NULL when idle */
    size_t req_len, sent;
    int64_t due_ns; /* when the request in flight was due */
    char resp[RESP_MAX];
    size_t got;
} conn;

typedef struct {
    char *req[NBODIES];
    size_t len[NBODIES];
    conn *conns;
    int nconns;
    int *idle; /* stack of idle connection indices */
    int nidle;
    int64_t t0, interval_ns;
    uint64_t due, total; /* requests made due so far / to make due */
    uint64_t next_send;  /* the oldest due request not yet sent (due order) */
    int64_t *lat_ns;
    uint64_t done, errors;
} load;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    if (!buf) {
        fclose(f);
        return NULL;
    }
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    fclose(f);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\r'))
        n--;
    *len = n;
    return buf;
}

static int load_bodies(load *l, const char *dir, int port)
{
    static const char *names[NBODIES] = {"recurringjob", "volume", "schedule"};
    for (int i = 0; i < NBODIES; i++) {
        char path[4096];
        size_t blen;
        snprintf(path, sizeof(path), "%s/%s.json", dir, names[i]);
        char *body = slurp(path, &blen);
        if (!body) {
            fprintf(stderr, "cannot read %s: %s\n", path, strerror(errno));
            return -1;
        }
        size_t cap = blen + 512;
        l->req[i] = malloc(cap);
        if (!l->req[i]) {
            free(body);
            return -1;
        }
        int h = snprintf(l->req[i], cap,
                         "POST /mutate?timeout=10s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                         "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                         port, blen);
        memcpy(l->req[i] + h, body, blen);
        l->len[i] = (size_t)h + blen;
        free(body);
    }
    return 0;
}

static int dial(conn *c, SSL_CTX *ctx, int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        fprintf(stderr, "connect to port %d: %s\n", port, strerror(errno));
        return -1;
    }
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->ssl = SSL_new(ctx);
    SSL_set_fd(c->ssl, c->fd);
    if (SSL_connect(c->ssl) != 1) {
        fprintf(stderr, "TLS handshake with port %d failed\n", port);
        ERR_print_errors_fp(stderr);
        return -1;
    }
    /* The handshake was blocking; from here on the event loop drives the connection. */
    fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
    return 0;
}

/* Writes what is left of c's request; 0 when all of it went out or the socket is full. */
static int pump_write(conn *c)
{
    while (c->sent < c->req_len) {
        int n = SSL_write(c->ssl, c->req + c->sent, (int)(c->req_len - c->sent));
        if (n > 0) {
            c->sent += (size_t)n;
            continue;
        }
        int e = SSL_get_error(c->ssl, n);
        if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ)
            return 0;
        return -1;
    }
    return 0;
}

static void start(load *l, int i)
{
    conn *c = &l->conns[i];
    uint64_t k = l->next_send++;
    c->req = l->req[k % NBODIES];
    c->req_len = l->len[k % NBODIES];
    c->sent = 0;
    c->got = 0;
    c->due_ns = l->t0 + (int64_t)k * l->interval_ns;
    if (pump_write(c) != 0)
        l->errors++;
}

/* The answer is whole when the headers are in and Content-Length bytes follow them. */
static int answer_complete(const conn *c, int *ok)
{
    const char *end = memmem(c->resp, c->got, "\r\n\r\n", 4);
    if (!end)
        return 0;
    size_t hdr = (size_t)(end - c->resp) + 4;
    long clen = -1;
    const char *line = c->resp;
    while (line < end) {
        if (strncasecmp(line, "Content-Length:", 15) == 0)
            clen = strtol(line + 15, NULL, 10);
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        if (!nl)
            break;
        line = nl + 1;
    }
    *ok = c->got >= 12 && memcmp(c->resp + 9, "200", 3) == 0;
    return clen >= 0 && c->got >= hdr + (size_t)clen;
}

static void on_readable(load *l, int i)
{
    conn *c = &l->conns[i];
    for (;;) {
        if (c->got == RESP_MAX) {
            l->errors++;
            c->got = 0;
        }
        int n = SSL_read(c->ssl, c->resp + c->got, (int)(RESP_MAX - c->got));
        if (n <= 0) {
            int e = SSL_get_error(c->ssl, n);
            if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
                fprintf(stderr, "connection %d closed\n", i);
                exit(1);
            }
            break;
        }
        c->got += (size_t)n;
        int ok = 0;
        if (c->req && answer_complete(c, &ok)) {
            l->lat_ns[l->done++] = now_ns() - c->due_ns;
            if (!ok)
                l->errors++;
            c->req = NULL;
            if (l->next_send < l->due)
                start(l, i); /* a request has been waiting in the client */
            else
                l->idle[l->nidle++] = i;
        }
    }
    if (c->req)
        pump_write(c);
}

/* Makes every request due by now due; each goes out on an idle connection or waits for one. */
static void on_tick(load *l)
{
    int64_t t = now_ns();
    while (l->due < l->total && l->t0 + (int64_t)l->due * l->interval_ns <= t) {
        l->due++;
        if (l->nidle > 0)
            start(l, l->idle[--l->nidle]);
    }
}

static void arm(int tfd, const load *l)
{
    int64_t at = l->t0 + (int64_t)l->due * l->interval_ns;
    struct itimerspec its = {.it_value = {at / 1000000000, at % 1000000000}};
    timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static long pct_us(const int64_t *v, uint64_t n, double q)
{
    if (n == 0)
        return 0;
    uint64_t k = (uint64_t)(q * (double)n);
    return (long)(v[k < n ? k : n - 1] / 1000);
}

static int run(load *l, int port, double rate, double secs, const char *dir)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (ctx) /* the benchmark's self-signed certificate */
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    if (load_bodies(l, dir, port) != 0)
        return 1;
    l->conns = calloc((size_t)l->nconns, sizeof(conn));
    l->idle = calloc((size_t)l->nconns, sizeof(int));
    l->total = (uint64_t)(rate * secs);
    l->lat_ns = calloc(l->total + 1, sizeof(int64_t));
    l->interval_ns = (int64_t)(1e9 / rate);
    if (!ctx || !l->conns || !l->idle || !l->lat_ns) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    int ep = epoll_create1(0), tfd = timerfd_create(CLOCK_MONOTONIC, 0);
    for (int i = 0; i < l->nconns; i++) {
        if (dial(&l->conns[i], ctx, port) != 0)
            return 1;
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.u32 = (uint32_t)i};
        epoll_ctl(ep, EPOLL_CTL_ADD, l->conns[i].fd, &ev);
        l->idle[l->nidle++] = i;
    }
    struct epoll_event tev = {.events = EPOLLIN, .data.u32 = UINT32_MAX};
    epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &tev);
    l->t0 = now_ns() + 1000000;
    arm(tfd, l);
    while (l->done < l->total) {
        struct epoll_event evs[64];
        int n = epoll_wait(ep, evs, 64, 10000);
        if (n <= 0) {
            fprintf(stderr, "no answer for 10 s (%lu of %lu done)\n", (unsigned long)l->done,
                    (unsigned long)l->total);
            return 1;
        }
        for (int k = 0; k < n; k++) {
            if (evs[k].data.u32 == UINT32_MAX) {
                uint64_t ticks;
                if (read(tfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
                    return 1;
                on_tick(l);
                if (l->due < l->total)
                    arm(tfd, l);
            } else {
                on_readable(l, (int)evs[k].data.u32);
            }
        }
    }
    double elapsed = (double)(now_ns() - l->t0) / 1e9;
    qsort(l->lat_ns, l->done, sizeof(int64_t), cmp_i64);
    printf("RESULT requests=%lu seconds=%.3f rps=%.0f p50_us=%ld p99_us=%ld p999_us=%ld "
           "max_us=%ld errors=%lu\n",
           (unsigned long)l->done, elapsed, (double)l->done / elapsed,
           pct_us(l->lat_ns, l->done, 0.50), pct_us(l->lat_ns, l->done, 0.99),
           pct_us(l->lat_ns, l->done, 0.999), (long)(l->lat_ns[l->done - 1] / 1000),
           (unsigned long)l->errors);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s PORT RATE SECONDS CONNECTIONS BODY_DIR\n", argv[0]);
        return 2;
    }
    load l = {0};
    int port = atoi(argv[1]);
    double rate = atof(argv[2]), secs = atof(argv[3]);
    l.nconns = atoi(argv[4]);
    if (port <= 0 || rate <= 0 || secs <= 0 || l.nconns <= 0) {
        fprintf(stderr, "PORT, RATE, SECONDS and CONNECTIONS must be positive\n");
        return 2;
    }
    return run(&l, port, rate, secs, argv[5]);
}
