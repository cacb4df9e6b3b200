/* The HTTPS server in-process on a loopback port, with a certificate made at test time (OpenSSL),
 * driven by libcurl and by a raw GnuTLS client: routes and status codes, the malformed-request
 * corpus, keep-alive, TLS 1.2 minimum, certificate hot reload, metrics, timeouts and draining. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "lib/log.h"
#include "cron/tz.h"
#include "webhook/certs.h"
#include "webhook/server.h"
#include "lib/clock.h"

#define MAX_BODY (2u * 1024 * 1024)

#define HEAD(uid, gvk)                                                                             \
    "{\"apiVersion\":\"admission.k8s.io/"                                                          \
    "v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"" uid "\",\"kind\":" gvk             \
    ",\"operation\":\"CREATE\""
#define REVIEW(uid, gvk, rest) HEAD(uid, gvk) rest "}}"
#define RJ                     "{\"group\":\"longhorn.io\",\"version\":\"v1beta2\",\"kind\":\"RecurringJob\"}"
#define VOL                    "{\"group\":\"longhorn.io\",\"version\":\"v1beta2\",\"kind\":\"Volume\"}"
#define BAD_RJ                                                                                     \
    REVIEW("rj-bad", RJ,                                                                           \
           ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"RecurringJob\","        \
           "\"metadata\":{\"name\":\"daily\"},\"spec\":{\"name\":\"daily\",\"task\":\"backup\","   \
           "\"cron\":\"\",\"retain\":1,\"concurrency\":1,\"groups\":[],\"labels\":{}}}")
#define GOOD_VOL                                                                                   \
    REVIEW(                                                                                        \
        "vol-ok", VOL,                                                                             \
        ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{"   \
        "\"name\":\"pvc-1\",\"labels\":{\"recurring-job.longhorn.io/a\":\"enabled\"}},"            \
        "\"spec\":{}}")

typedef struct fixture {
    char dir[64];
    cw_certs_pem ca, leaf;
    char cert_path[128], key_path[128];
    cw_certs_store store;
    cw_tzdb tzdb;
    cw_policy_config policy;
    cw_metrics metrics;
    cw_webhook_server srv;
} fixture;

static fixture fx;

static void make_leaf(cw_certs_pem *ca, cw_certs_pem *leaf)
{
    static const char *dns_items[] = {"localhost"}, *ip_items[] = {"127.0.0.1"};
    cw_strlist dns = {.items = (char **)dns_items, .len = 1, .cap = 1},
               ips = {.items = (char **)ip_items, .len = 1, .cap = 1};
    cw_certs_names names = {"localhost", &dns, &ips};
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_certs_make_ca("cronwarden-test-ca", 30, time(NULL), ca, &err), CW_OK);
    assert_int_equal(cw_certs_make_leaf(ca, &names, 30, time(NULL), leaf, &err), CW_OK);
}

static void write_file(const char *path, const char *text)
{
    char tmp[256];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(rename(tmp, path), 0); /* a new inode, as a Secret volume swap gives */
}

static int start_server(cw_webhook_server *srv, cw_certs_store *store, cw_metrics *m, unsigned idle,
                        unsigned req_timeout)
{
    cw_webhook_config cfg = {.listen = "127.0.0.1:0",
                             .threads = 2,
                             .max_body_bytes = MAX_BODY,
                             .idle_timeout = idle,
                             .request_timeout = req_timeout,
                             .certs = store,
                             .policy = &fx.policy,
                             .metrics = m};
    cw_error err;
    cw_error_init(&err);
    cw_webhook_server_init(srv);
    int rc = cw_webhook_server_start(srv, &cfg, &err);
    if (rc != CW_OK)
        fprintf(stderr, "start: %s\n", err.message);
    return rc;
}

static int setup(void **state)
{
    (void)state;
    cw_error err;
    cw_error_init(&err);
    signal(SIGPIPE, SIG_IGN);
    cw_log_configure(CW_LOG_OFF, CW_LOG_TEXT, stderr);
    curl_global_init(CURL_GLOBAL_ALL);
    snprintf(fx.dir, sizeof(fx.dir), "/tmp/cw-server-XXXXXX");
    assert_non_null(mkdtemp(fx.dir));
    make_leaf(&fx.ca, &fx.leaf);
    snprintf(fx.cert_path, sizeof(fx.cert_path), "%s/tls.crt", fx.dir);
    snprintf(fx.key_path, sizeof(fx.key_path), "%s/tls.key", fx.dir);
    write_file(fx.cert_path, fx.leaf.cert);
    write_file(fx.key_path, fx.leaf.key);
    cw_certs_store_init(&fx.store);
    assert_int_equal(cw_certs_store_watch(&fx.store, fx.cert_path, fx.key_path, &err), CW_OK);
    assert_int_equal(cw_tzdb_init(&fx.tzdb, NULL, &err), CW_OK);
    assert_int_equal(cw_policy_config_init(&fx.policy), CW_OK);
    fx.policy.tzdb = &fx.tzdb;
    cw_metrics_init(&fx.metrics);
    return start_server(&fx.srv, &fx.store, &fx.metrics, 30, 0);
}

static int teardown(void **state)
{
    (void)state;
    cw_webhook_server_free(&fx.srv);
    cw_metrics_free(&fx.metrics);
    cw_certs_store_free(&fx.store);
    cw_policy_config_free(&fx.policy);
    cw_tzdb_free(&fx.tzdb);
    cw_certs_pem_free(&fx.ca);
    cw_certs_pem_free(&fx.leaf);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx.dir);
    if (system(cmd) != 0)
        return -1;
    curl_global_cleanup();
    return 0;
}

/* ---- libcurl client ---- */

static size_t collect(char *p, size_t size, size_t n, void *ud)
{
    cw_buf_append(ud, p, size * n);
    return size * n;
}

typedef struct upload {
    const char *data;
    size_t len, pos;
} upload;

static size_t feed(char *p, size_t size, size_t n, void *ud)
{
    upload *u = ud;
    size_t k = u->len - u->pos < size * n ? u->len - u->pos : size * n;
    memcpy(p, u->data + u->pos, k);
    u->pos += k;
    return k;
}

typedef struct reply {
    CURLcode rc;
    long status;
    cw_buf body, headers;
    long connects;
} reply;

static void reply_free(reply *r)
{
    cw_buf_free(&r->body);
    cw_buf_free(&r->headers);
}

static int expect_continue; /* 1: send "Expect: 100-continue" (curl's default for big bodies) */

/* One request. ctype NULL sends no Content-Type; chunked sends the body without a length. */
static void http(CURL *h, const char *ca_pem, const char *method, const char *path,
                 const char *ctype, const char *body, size_t len, int chunked, reply *out)
{
    char url[256], ct[128];
    struct curl_slist *hdrs = NULL;
    upload up = {body, len, 0};
    struct curl_blob ca = {(void *)ca_pem, strlen(ca_pem), CURL_BLOB_COPY};
    memset(out, 0, sizeof(*out));
    cw_buf_init(&out->body);
    cw_buf_init(&out->headers);
    snprintf(url, sizeof(url), "https://127.0.0.1:%u%s", fx.srv.port, path);
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 20L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &out->body);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, collect);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &out->headers);
    snprintf(ct, sizeof(ct), "Content-Type: %s", ctype ? ctype : "");
    hdrs = curl_slist_append(hdrs, ct);
    hdrs = curl_slist_append(hdrs, expect_continue ? "Expect: 100-continue" : "Expect:");
    if (strcmp(method, "HEAD") == 0) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (body) {
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        if (chunked) {
            curl_easy_setopt(h, CURLOPT_READFUNCTION, feed);
            curl_easy_setopt(h, CURLOPT_READDATA, &up);
        } else {
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
        }
    }
    if (strcmp(method, "HEAD") != 0)
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    out->rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out->status);
    curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &out->connects);
    curl_slist_free_all(hdrs);
}

static char *repeat(const char *head, char c, size_t n, const char *tail)
{
    cw_buf b;
    cw_buf_init(&b);
    cw_buf_puts(&b, head);
    cw_buf_reserve(&b, n + strlen(tail));
    memset(b.data + b.len, c, n);
    b.len += n;
    b.data[b.len] = '\0';
    cw_buf_puts(&b, tail);
    return cw_buf_detach(&b);
}

static char *nested(int depth)
{
    cw_buf b;
    cw_buf_init(&b);
    cw_buf_puts(&b, REVIEW("deep", RJ, ",\"object\":{\"x\":"));
    b.len -= 2; /* drop the closing braces the macro ends with */
    b.data[b.len] = '\0';
    for (int i = 0; i < depth; i++)
        cw_buf_putc(&b, '[');
    for (int i = 0; i < depth; i++)
        cw_buf_putc(&b, ']');
    cw_buf_puts(&b, "}}}");
    return cw_buf_detach(&b);
}

static void routes_and_malformed_requests(void **state)
{
    (void)state;
    char *huge_string = repeat(HEAD("big", RJ) ",\"object\":{\"note\":\"", 'a', 1048577, "\"}}}");
    char *big_but_fine = repeat(HEAD("big-ok", VOL) ",\"object\":{\"metadata\":{\"labels\":{"
                                                    "\"recurring-job.longhorn.io/a\":\"enabled\"}},"
                                                    "\"note\":\"",
                                'a', 1048576, "\"}}}");
    char *oversize = repeat(GOOD_VOL, ' ', MAX_BODY - strlen(GOOD_VOL) + 1, "");
    char *at_limit = repeat(GOOD_VOL, ' ', MAX_BODY - strlen(GOOD_VOL), "");
    char *deep = nested(100);
    const char *allowed_vol =
        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
        "\"response\":{\"uid\":\"vol-ok\",\"allowed\":true}}";
    const struct {
        const char *what, *method, *path, *ctype, *body;
        size_t len; /* 0: strlen(body) */
        int chunked;
        long status;
        const char *want; /* exact body */
    } cases[] = {
        {"health", "GET", "/healthz", NULL, NULL, 0, 0, 200, "ok\n"},
        {"health HEAD", "HEAD", "/healthz", NULL, NULL, 0, 0, 200, ""},
        {"ready", "GET", "/readyz", NULL, NULL, 0, 0, 200, "ok\n"},
        {"health by POST", "POST", "/healthz", "application/json", "{}", 0, 0, 405,
         "method not allowed: use GET\n"},
        {"mutate by GET", "GET", "/mutate", NULL, NULL, 0, 0, 405,
         "method not allowed: use POST\n"},
        {"validate by PUT", "PUT", "/validate", "application/json", GOOD_VOL, 0, 0, 405,
         "method not allowed: use POST\n"},
        {"unknown path", "POST", "/admit", "application/json", GOOD_VOL, 0, 0, 404, "not found\n"},
        {"text/plain", "POST", "/mutate", "text/plain", GOOD_VOL, 0, 0, 415,
         "unsupported content type: use application/json\n"},
        {"no content type", "POST", "/mutate", NULL, GOOD_VOL, 0, 0, 415,
         "unsupported content type: use application/json\n"},
        {"application/jsonx", "POST", "/mutate", "application/jsonx", GOOD_VOL, 0, 0, 415,
         "unsupported content type: use application/json\n"},
        {"json with charset", "POST", "/mutate", "application/json; charset=utf-8", GOOD_VOL, 0, 0,
         200, allowed_vol},
        {"json in capitals", "POST", "/validate", "Application/JSON", GOOD_VOL, 0, 0, 200,
         allowed_vol},
        {"apiserver's timeout query", "POST", "/mutate?timeout=10s", "application/json", GOOD_VOL,
         0, 0, 200, allowed_vol},
        {"chunked body", "POST", "/mutate", "application/json", GOOD_VOL, 0, 1, 200, allowed_vol},
        {"body at the limit", "POST", "/mutate", "application/json", at_limit, 0, 0, 200,
         allowed_vol},
        {"body over the limit", "POST", "/mutate", "application/json", oversize, 0, 0, 413,
         "request body exceeds 2097152 bytes\n"},
        {"chunked body over the limit", "POST", "/validate", "application/json", oversize, 0, 1,
         413, "request body exceeds 2097152 bytes\n"},
        {"empty body", "POST", "/mutate", "application/json", "", 0, 0, 400,
         "invalid JSON: empty body\n"},
        {"truncated", "POST", "/mutate", "application/json", GOOD_VOL, 60, 0, 400,
         "invalid JSON: unexpected end of input\n"},
        {"not JSON", "POST", "/validate", "application/json", "<AdmissionReview/>", 0, 0, 400,
         "invalid JSON at offset 0: unexpected character\n"},
        {"wrong type", "POST", "/mutate", "application/json",
         "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
         "\"uid\":42}}",
         0, 0, 400, "request.uid: expected string, got integer\n"},
        {"no request", "POST", "/mutate", "application/json",
         "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}", 0, 0, 400,
         "request: missing\n"},
        {"no uid", "POST", "/validate", "application/json",
         "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
         "\"kind\":" VOL ",\"operation\":\"CREATE\",\"object\":{}}}",
         0, 0, 400, "request.uid: missing\n"},
        {"deep nesting", "POST", "/mutate", "application/json", deep, 0, 0, 400,
         "invalid JSON: nesting deeper than 64 levels\n"},
        {"huge string", "POST", "/mutate", "application/json", huge_string, 0, 0, 400,
         "a string value is longer than 1048576 bytes\n"},
        {"large string within limits", "POST", "/mutate", "application/json", big_but_fine, 0, 0,
         200,
         "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{"
         "\"uid\":\"big-ok\",\"allowed\":true}}"},
        {"invalid UTF-8", "POST", "/mutate", "application/json",
         "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
         "\"uid\":\"\xc3\x28\"}}",
         0, 0, 400, "invalid JSON: invalid UTF-8 at offset 79\n"},
        {"denied", "POST", "/validate", "application/json", BAD_RJ, 0, 0, 200,
         "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{"
         "\"uid\":\"rj-bad\",\"allowed\":false,\"status\":{\"code\":403,\"message\":\"spec.cron: "
         "must not be empty\",\"reason\":\"Forbidden\"}}}"},
    };
    CURL *h = curl_easy_init();
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        reply r;
        size_t len = cases[i].len ? cases[i].len : cases[i].body ? strlen(cases[i].body) : 0;
        http(h, fx.ca.cert, cases[i].method, cases[i].path, cases[i].ctype, cases[i].body, len,
             cases[i].chunked, &r);
        if (r.rc != CURLE_OK || r.status != cases[i].status ||
            strcmp(cw_buf_str(&r.body), cases[i].want) != 0)
            fail_msg("%s: curl %d, status %ld, body \"%.300s\"", cases[i].what, r.rc, r.status,
                     cw_buf_str(&r.body));
        const char *ct = strcasestr(cw_buf_str(&r.headers), "\ncontent-type: ");
        if (r.status != 200 || strstr(cases[i].path, "z"))
            assert_non_null(ct && strstr(ct, "text/plain; charset=utf-8"));
        else
            assert_non_null(ct && strncmp(ct + 15, "application/json", 16) == 0);
        if (r.status == 405)
            assert_non_null(strcasestr(cw_buf_str(&r.headers), "\nallow: "));
        reply_free(&r);
    }
    curl_easy_cleanup(h);
    free(huge_string);
    free(big_but_fine);
    free(oversize);
    free(at_limit);
    free(deep);
}

static void keep_alive_reuses_the_connection(void **state)
{
    (void)state;
    CURL *h = curl_easy_init();
    for (int i = 0; i < 5; i++) {
        reply r;
        http(h, fx.ca.cert, "POST", "/mutate", "application/json", GOOD_VOL, strlen(GOOD_VOL), 0,
             &r);
        assert_int_equal(r.rc, CURLE_OK);
        assert_int_equal(r.status, 200);
        assert_int_equal(r.connects, i == 0 ? 1 : 0);
        reply_free(&r);
    }
    /* A body over the limit is read and thrown away, answered 413, and the connection stays. */
    char *oversize = repeat(GOOD_VOL, ' ', MAX_BODY, "");
    reply r;
    http(h, fx.ca.cert, "POST", "/mutate", "application/json", oversize, strlen(oversize), 0, &r);
    assert_int_equal(r.status, 413);
    assert_string_equal(cw_buf_str(&r.body), "request body exceeds 2097152 bytes\n");
    reply_free(&r);
    http(h, fx.ca.cert, "POST", "/mutate", "application/json", GOOD_VOL, strlen(GOOD_VOL), 0, &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.connects, 0);
    reply_free(&r);
    free(oversize);

    /* Announced beyond four limits: refused before reading (a client waiting for 100 Continue
     * sends nothing), and the connection closes rather than misread the body as a request. */
    char *huge = repeat(GOOD_VOL, ' ', 4 * MAX_BODY, "");
    expect_continue = 1;
    http(h, fx.ca.cert, "POST", "/validate", "application/json", huge, strlen(huge), 0, &r);
    expect_continue = 0;
    assert_int_equal(r.rc, CURLE_OK);
    assert_int_equal(r.status, 413);
    assert_non_null(strcasestr(cw_buf_str(&r.headers), "\nconnection: close"));
    reply_free(&r);
    http(h, fx.ca.cert, "POST", "/mutate", "application/json", GOOD_VOL, strlen(GOOD_VOL), 0, &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.connects, 1);
    reply_free(&r);
    free(huge);
    curl_easy_cleanup(h);
}

static void *client_thread(void *arg)
{
    long *ok = arg;
    CURL *h = curl_easy_init();
    for (int i = 0; i < 100; i++) {
        reply r;
        const char *body = i % 2 ? GOOD_VOL : BAD_RJ;
        http(h, fx.ca.cert, "POST", i % 2 ? "/mutate" : "/validate", "application/json", body,
             strlen(body), 0, &r);
        if (r.rc == CURLE_OK && r.status == 200)
            (*ok)++;
        reply_free(&r);
    }
    curl_easy_cleanup(h);
    return NULL;
}

static void parallel_clients_and_metrics(void **state)
{
    (void)state;
    const char *allowed_vol[] = {"mutate", "Volume", "CREATE", "allowed"};
    const char *denied_rj[] = {"validate", "RecurringJob", "CREATE", "denied"};
    double vol0 = cw_metrics_value(fx.srv.m_requests, allowed_vol);
    double rj0 = cw_metrics_value(fx.srv.m_requests, denied_rj);
    pthread_t t[4];
    long ok[4] = {0};
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, client_thread, &ok[i]);
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(ok[i], 100);
    }
    assert_true(cw_metrics_value(fx.srv.m_requests, allowed_vol) - vol0 == 200);
    assert_true(cw_metrics_value(fx.srv.m_requests, denied_rj) - rj0 == 200);

    CURL *h = curl_easy_init();
    reply r;
    http(h, fx.ca.cert, "GET", "/metrics", NULL, NULL, 0, 0, &r);
    assert_int_equal(r.status, 200);
    assert_non_null(strcasestr(cw_buf_str(&r.headers),
                               "\ncontent-type: text/plain; version=0.0.4; charset=utf-8"));
    char line[200];
    snprintf(line, sizeof(line), "\ncronwarden_webhook_certificate_expiry_timestamp_seconds %lld\n",
             (long long)cw_certs_store_not_after(&fx.store));
    const char *want[] = {
        line,
        "\ncronwarden_webhook_in_flight_requests 0\n",
        "\n# TYPE cronwarden_webhook_request_duration_seconds histogram\n",
        "\ncronwarden_webhook_requests_total{route=\"mutate\",kind=\"\",operation=\"\","
        "outcome=\"too_large\"} ",
        "\ncronwarden_webhook_requests_total{route=\"mutate\",kind=\"\",operation=\"\","
        "outcome=\"invalid\"} ",
        "\ncronwarden_webhook_http_responses_total{route=\"mutate\",code=\"415\"} 3\n",
        "\ncronwarden_webhook_http_responses_total{route=\"none\",code=\"404\"} 1\n",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!strstr(cw_buf_str(&r.body), want[i]))
            fail_msg("metrics lack \"%s\":\n%s", want[i], cw_buf_str(&r.body));
    reply_free(&r);
    curl_easy_cleanup(h);
}

/* ---- raw TLS client for what curl does not let us steer ---- */

typedef struct tls_client {
    int fd;
    gnutls_session_t s;
    gnutls_certificate_credentials_t cred;
} tls_client;

static int tls_connect(tls_client *c, uint16_t port, const char *priority)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    memset(c, 0, sizeof(*c));
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(c->fd, (struct sockaddr *)&a, sizeof(a)) != 0)
        return -errno;
    gnutls_certificate_allocate_credentials(&c->cred);
    gnutls_init(&c->s, GNUTLS_CLIENT);
    gnutls_priority_set_direct(c->s, priority, NULL);
    gnutls_credentials_set(c->s, GNUTLS_CRD_CERTIFICATE, c->cred);
    gnutls_transport_set_int(c->s, c->fd);
    gnutls_handshake_set_timeout(c->s, 5000);
    int rc;
    do
        rc = gnutls_handshake(c->s);
    while (rc < 0 && !gnutls_error_is_fatal(rc));
    return rc;
}

static void tls_close(tls_client *c)
{
    if (c->s)
        gnutls_deinit(c->s);
    if (c->cred)
        gnutls_certificate_free_credentials(c->cred);
    close(c->fd);
}

static void tls_send(tls_client *c, const char *data, size_t n)
{
    while (n) {
        ssize_t k = gnutls_record_send(c->s, data, n);
        assert_true(k > 0);
        data += k;
        n -= (size_t)k;
    }
}

/* Reads until the peer closes or a whole response (headers + Content-Length) is in. Returns the
 * number of bytes, 0 on EOF without data, negative on a TLS error. */
static ssize_t tls_read_response(tls_client *c, cw_buf *out)
{
    struct timeval tv = {10, 0};
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    for (;;) {
        char buf[4096];
        ssize_t k = gnutls_record_recv(c->s, buf, sizeof(buf));
        if (k == GNUTLS_E_AGAIN || k == GNUTLS_E_INTERRUPTED)
            continue;
        if (k <= 0)
            return out->len ? (ssize_t)out->len : k;
        cw_buf_append(out, buf, (size_t)k);
        const char *end = strstr(cw_buf_str(out), "\r\n\r\n");
        const char *cl = strcasestr(cw_buf_str(out), "content-length: ");
        if (end && cl && out->len >= (size_t)(end + 4 - out->data) + strtoul(cl + 16, NULL, 10))
            return (ssize_t)out->len;
    }
}

static void tls_12_with_aead_suites_is_the_minimum(void **state)
{
    (void)state;
    static const struct {
        const char *priority;
        int ok;
    } cases[] = {
        {"NORMAL:-VERS-ALL:+VERS-TLS1.3", 1},
        {"NORMAL:-VERS-ALL:+VERS-TLS1.2", 1},
        {"NORMAL:-VERS-ALL:+VERS-TLS1.1", 0},
        {"NORMAL:-VERS-ALL:+VERS-TLS1.0", 0},
        /* TLS 1.2 only with forward-secret AEAD suites: no RSA key exchange, no CBC, no SHA-1 */
        /* the test certificate is ECDSA, so ECDHE-ECDSA stands for every ECDHE suite */
        {"NONE:+VERS-TLS1.2:+ECDHE-ECDSA:+AES-128-GCM:+AEAD:+SIGN-ALL:+GROUP-ALL:+COMP-NULL", 1},
        {"NONE:+VERS-TLS1.2:+ECDHE-ECDSA:+CHACHA20-POLY1305:+AEAD:+SIGN-ALL:+GROUP-ALL:+COMP-NULL",
         1},
        {"NONE:+VERS-TLS1.2:+ECDHE-ECDSA:+AES-128-CBC:+SHA1:+SIGN-ALL:+GROUP-ALL:+COMP-NULL", 0},
        {"NONE:+VERS-TLS1.2:+ECDHE-ECDSA:+AES-256-CBC:+SHA256:+SIGN-ALL:+GROUP-ALL:+COMP-NULL", 0},
        {"NONE:+VERS-TLS1.2:+RSA:+AES-128-CBC:+SHA1:+SIGN-ALL:+COMP-NULL", 0}, /* AES128-SHA */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tls_client c;
        int rc = tls_connect(&c, fx.srv.port, cases[i].priority);
        if ((rc == 0) != cases[i].ok)
            fail_msg("%s: handshake %d (%s)", cases[i].priority, rc, gnutls_strerror(rc));
        tls_close(&c);
    }
}

static void certificates_reload_without_restart(void **state)
{
    (void)state;
    cw_certs_pem ca2, leaf2, ca3, leaf3;
    make_leaf(&ca2, &leaf2);
    make_leaf(&ca3, &leaf3);
    const char *ok_ok[] = {"success"}, *ok_bad[] = {"failure"};
    double ok0 = cw_metrics_value(fx.srv.m_reloads, ok_ok);
    double bad0 = cw_metrics_value(fx.srv.m_reloads, ok_bad);

    /* A connection made before the swap. */
    CURL *before = curl_easy_init();
    reply r;
    http(before, fx.ca.cert, "POST", "/mutate", "application/json", GOOD_VOL, strlen(GOOD_VOL), 0,
         &r);
    assert_int_equal(r.status, 200);
    reply_free(&r);

    write_file(fx.cert_path, leaf2.cert);
    write_file(fx.key_path, leaf2.key);
    cw_webhook_server_reload_certs(&fx.srv);
    assert_true(cw_metrics_value(fx.srv.m_reloads, ok_ok) - ok0 == 1);

    /* The old connection keeps working on its session. */
    http(before, fx.ca.cert, "POST", "/mutate", "application/json", GOOD_VOL, strlen(GOOD_VOL), 0,
         &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.connects, 0);
    reply_free(&r);
    curl_easy_cleanup(before);

    static const struct {
        const char *what;
        int new_ca;
        CURLcode rc;
    } after[] = {
        {"new connection trusting the new CA", 1, CURLE_OK},
        {"new connection trusting only the old CA", 0, CURLE_PEER_FAILED_VERIFICATION},
    };
    for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++) {
        CURL *h = curl_easy_init();
        http(h, after[i].new_ca ? ca2.cert : fx.ca.cert, "GET", "/readyz", NULL, NULL, 0, 0, &r);
        if (r.rc != after[i].rc)
            fail_msg("%s: curl %d", after[i].what, r.rc);
        reply_free(&r);
        curl_easy_cleanup(h);
    }

    /* A broken pair (new certificate, old key) is refused and logged once; ca2 still serves. */
    write_file(fx.cert_path, leaf3.cert);
    cw_webhook_server_reload_certs(&fx.srv);
    cw_webhook_server_reload_certs(&fx.srv);
    assert_true(cw_metrics_value(fx.srv.m_reloads, ok_bad) - bad0 == 1);
    CURL *h = curl_easy_init();
    http(h, ca2.cert, "POST", "/mutate", "application/json", GOOD_VOL, strlen(GOOD_VOL), 0, &r);
    assert_int_equal(r.rc, CURLE_OK);
    assert_int_equal(r.status, 200);
    reply_free(&r);
    curl_easy_cleanup(h);

    /* Completed by its key: served. Then back to the fixture's pair for the other tests. */
    write_file(fx.key_path, leaf3.key);
    cw_webhook_server_reload_certs(&fx.srv);
    h = curl_easy_init();
    http(h, ca3.cert, "GET", "/healthz", NULL, NULL, 0, 0, &r);
    assert_int_equal(r.rc, CURLE_OK);
    reply_free(&r);
    curl_easy_cleanup(h);
    write_file(fx.cert_path, fx.leaf.cert);
    write_file(fx.key_path, fx.leaf.key);
    cw_webhook_server_reload_certs(&fx.srv);
    assert_true(cw_metrics_value(fx.srv.m_reloads, ok_ok) - ok0 == 3);

    cw_certs_pem_free(&ca2);
    cw_certs_pem_free(&leaf2);
    cw_certs_pem_free(&ca3);
    cw_certs_pem_free(&leaf3);
}

/* ---- a second server for timeouts and draining ---- */

typedef struct drain_job {
    cw_webhook_server *srv;
    double grace;
    int rc;
    double seconds;
} drain_job;

static void *drain_thread(void *arg)
{
    drain_job *j = arg;
    double t0 = cw_clock_mono();
    j->rc = cw_webhook_server_drain(j->srv, j->grace);
    j->seconds = cw_clock_mono() - t0;
    return NULL;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* Polls an atomic until it holds want (the machine may be busy: up to 10 s). */
static int wait_for(atomic_int *v, int want)
{
    for (int i = 0; i < 1000 && atomic_load(v) != want; i++)
        sleep_ms(10);
    return atomic_load(v);
}

static void send_request_head(tls_client *c, const char *body, size_t send_len)
{
    char head[256];
    int n = snprintf(head, sizeof(head),
                     "POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                     "application/json\r\nContent-Length: %zu\r\n\r\n",
                     strlen(body));
    tls_send(c, head, (size_t)n);
    tls_send(c, body, send_len);
}

static void drain_finishes_in_flight_requests(void **state)
{
    (void)state;
    cw_webhook_server srv;
    cw_metrics m;
    cw_metrics_init(&m);
    assert_int_equal(start_server(&srv, &fx.store, &m, 30, 0), CW_OK);
    uint16_t port = srv.port;

    tls_client c;
    assert_int_equal(tls_connect(&c, port, "NORMAL"), 0);
    size_t half = strlen(BAD_RJ) / 2;
    send_request_head(&c, BAD_RJ, half);
    assert_int_equal(wait_for(&srv.in_flight, 1), 1);

    drain_job job = {&srv, 10.0, -100, 0};
    pthread_t t;
    pthread_create(&t, NULL, drain_thread, &job);
    assert_int_equal(wait_for(&srv.draining, 1), 1);
    sleep_ms(50); /* the listening socket closes right after the flag is set */
    tls_client refused;
    assert_int_equal(tls_connect(&refused, port, "NORMAL"), -ECONNREFUSED);
    close(refused.fd);

    tls_send(&c, &BAD_RJ[half], strlen(BAD_RJ) - half);
    cw_buf resp;
    cw_buf_init(&resp);
    assert_true(tls_read_response(&c, &resp) > 0);
    assert_memory_equal(resp.data, "HTTP/1.1 200 OK\r\n", 17);
    assert_non_null(strcasestr(cw_buf_str(&resp), "\r\nconnection: close\r\n"));
    assert_non_null(strstr(cw_buf_str(&resp), "\"uid\":\"rj-bad\",\"allowed\":false"));
    pthread_join(t, NULL);
    assert_int_equal(job.rc, CW_OK);
    assert_true(job.seconds < 5);
    cw_buf_free(&resp);
    tls_close(&c);
    cw_webhook_server_free(&srv);
    cw_metrics_free(&m);
}

static void drain_gives_up_after_the_grace(void **state)
{
    (void)state;
    cw_webhook_server srv;
    cw_metrics m;
    cw_metrics_init(&m);
    assert_int_equal(start_server(&srv, &fx.store, &m, 30, 0), CW_OK);
    tls_client c;
    assert_int_equal(tls_connect(&c, srv.port, "NORMAL"), 0);
    send_request_head(&c, BAD_RJ, 10); /* never finished */
    assert_int_equal(wait_for(&srv.in_flight, 1), 1);
    drain_job job = {&srv, 0.3, -100, 0};
    drain_thread(&job);
    assert_int_equal(job.rc, CW_ELIMIT);
    assert_true(job.seconds >= 0.3 && job.seconds < 2);
    cw_webhook_server_free(&srv); /* closes the stuck connection */
    tls_close(&c);
    cw_metrics_free(&m);
}

static void slow_and_idle_clients_are_cut_off(void **state)
{
    (void)state;
    cw_webhook_server srv;
    cw_metrics m;
    cw_metrics_init(&m);
    assert_int_equal(start_server(&srv, &fx.store, &m, 1, 1), CW_OK);

    /* Idle after the handshake: closed after the idle timeout. */
    tls_client idle;
    assert_int_equal(tls_connect(&idle, srv.port, "NORMAL"), 0);
    double t0 = cw_clock_mono();
    cw_buf b;
    cw_buf_init(&b);
    assert_true(tls_read_response(&idle, &b) <= 0);
    double waited = cw_clock_mono() - t0;
    assert_true(waited >= 0.9 && waited < 5);
    tls_close(&idle);

    /* A body trickling in past the request timeout: dropped without an answer. */
    tls_client slow;
    assert_int_equal(tls_connect(&slow, srv.port, "NORMAL"), 0);
    send_request_head(&slow, BAD_RJ, 1);
    for (int i = 0; i < 3; i++) {
        sleep_ms(600);
        gnutls_record_send(slow.s, &BAD_RJ[1 + i], 1);
    }
    cw_buf_reset(&b);
    assert_true(tls_read_response(&slow, &b) <= 0);
    assert_int_equal(b.len, 0);
    tls_close(&slow);
    cw_buf_free(&b);
    assert_int_equal(wait_for(&srv.in_flight, 0), 0);

    cw_webhook_server_free(&srv);
    cw_metrics_free(&m);
}

/* Framing a proxy and the server could read differently is refused with 400, and the
 * connection closes so nothing after it is read as a request. */
static void untrustworthy_framing_is_refused(void **state)
{
    (void)state;
    static const struct {
        const char *request;
        const char *reason;
    } cases[] = {
        {"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
         "Content-Length: 2\r\nContent-Length: 40\r\n\r\n{}",
         "more than one Content-Length header"},
        /* libmicrohttpd answers this one itself, also with 400 and a close */
        {"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
         "Content-Length: -1\r\n\r\n{}",
         "400"},
        {"GET /healthz%00 HTTP/1.1\r\nHost: x\r\n\r\n", "escaped or control characters"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tls_client c;
        assert_int_equal(tls_connect(&c, fx.srv.port, "NORMAL"), 0);
        tls_send(&c, cases[i].request, strlen(cases[i].request));
        cw_buf b;
        cw_buf_init(&b);
        tls_read_response(&c, &b);
        if (!strstr(cw_buf_str(&b), "HTTP/1.1 400") || !strstr(cw_buf_str(&b), cases[i].reason) ||
            !strcasestr(cw_buf_str(&b), "connection: close"))
            fail_msg("case %zu: got %s", i, cw_buf_str(&b));
        cw_buf_reset(&b);
        assert_true(tls_read_response(&c, &b) <= 0); /* closed: nothing more */
        cw_buf_free(&b);
        tls_close(&c);
    }
}

/* Headers trickling in are cut at --read-header-timeout; past --max-connections a client is
 * closed at accept rather than left in the handshake; a second process cannot share the port. */
static void slow_headers_extra_connections_and_a_second_server(void **state)
{
    (void)state;
    cw_webhook_server srv, second;
    cw_metrics m, m2;
    cw_metrics_init(&m);
    cw_metrics_init(&m2);
    cw_webhook_config cfg = {.listen = "127.0.0.1:0",
                             .threads = 2,
                             .read_header_timeout = 1,
                             .max_connections = 2,
                             .certs = &fx.store,
                             .policy = &fx.policy,
                             .metrics = &m};
    cw_error err;
    cw_error_init(&err);
    cw_webhook_server_init(&srv);
    assert_int_equal(cw_webhook_server_start(&srv, &cfg, &err), CW_OK);

    tls_client slow;
    assert_int_equal(tls_connect(&slow, srv.port, "NORMAL"), 0);
    double t0 = cw_clock_mono();
    const char *head = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
    for (size_t i = 0; i < strlen(head) && cw_clock_mono() - t0 < 4; i++) {
        if (gnutls_record_send(slow.s, head + i, 1) < 0)
            break;
        sleep_ms(300);
    }
    cw_buf b;
    cw_buf_init(&b);
    assert_true(tls_read_response(&slow, &b) <= 0);
    double took = cw_clock_mono() - t0;
    if (took < 0.9 || took > 3.5)
        fail_msg("the trickling client was cut after %.1fs, want about 1s", took);
    tls_close(&slow);

    tls_client a, c2, extra;
    assert_int_equal(tls_connect(&a, srv.port, "NORMAL"), 0);
    assert_int_equal(tls_connect(&c2, srv.port, "NORMAL"), 0);
    t0 = cw_clock_mono();
    assert_true(tls_connect(&extra, srv.port, "NORMAL") != 0); /* closed at accept */
    assert_true(cw_clock_mono() - t0 < 2);
    tls_close(&extra);
    tls_close(&a);
    tls_close(&c2);

    char listen[32];
    snprintf(listen, sizeof(listen), "127.0.0.1:%u", srv.port);
    cfg.listen = listen;
    cfg.metrics = &m2;
    cw_webhook_server_init(&second);
    assert_int_equal(cw_webhook_server_start(&second, &cfg, &err), CW_EIO);
    char want[100];
    snprintf(want, sizeof(want), "cannot serve on %s: address already in use", listen);
    assert_string_equal(err.message, want);
    cw_webhook_server_free(&second);
    cw_buf_free(&b);
    cw_webhook_server_free(&srv);
    cw_metrics_free(&m);
    cw_metrics_free(&m2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(untrustworthy_framing_is_refused),
        cmocka_unit_test(slow_headers_extra_connections_and_a_second_server),
        cmocka_unit_test(routes_and_malformed_requests),
        cmocka_unit_test(keep_alive_reuses_the_connection),
        cmocka_unit_test(parallel_clients_and_metrics),
        cmocka_unit_test(tls_12_with_aead_suites_is_the_minimum),
        cmocka_unit_test(certificates_reload_without_restart),
        cmocka_unit_test(drain_finishes_in_flight_requests),
        cmocka_unit_test(drain_gives_up_after_the_grace),
        cmocka_unit_test(slow_and_idle_clients_are_cut_off),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
