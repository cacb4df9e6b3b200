/* The request engine: every API call goes through cw_kube_do(), which throttles, borrows a pooled
 * connection, attaches credentials, sends, classifies the outcome and retries what is worth
 * retrying. */
#include "kube/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/secret.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/clock.h"

void cw_kube_req_init(cw_kube_req *r)
{
    memset(r, 0, sizeof(*r));
    r->timeout = -1;
}

void cw_kube_resp_init(cw_kube_resp *r)
{
    memset(r, 0, sizeof(*r));
    cw_buf_init(&r->body);
}

void cw_kube_resp_free(cw_kube_resp *r)
{
    cw_buf_free(&r->body);
    cw_kube_resp_init(r);
}

/* State of one attempt, shared with the curl callbacks. */
typedef struct xfer {
    const cw_kube_req *req;
    cw_kube_resp *resp;
    CURL *h;
    size_t max_body;
    int over_limit;
    int oom;
    size_t delivered; /* bytes handed to the sink */
    int apf;          /* the answer carries API Priority and Fairness headers */
    char retry_after[64];
    cw_error *err;
} xfer;

static size_t on_header(char *buf, size_t size, size_t n, void *ud)
{
    xfer *x = ud;
    size_t len = size * n;
    static const char fs[] = "X-Kubernetes-PF-FlowSchema-UID:",
                      pl[] = "X-Kubernetes-PF-PriorityLevel-UID:";
    if (len >= 5 && strncmp(buf, "HTTP/", 5) == 0) {
        x->retry_after[0] = '\0';
        x->apf = 0;
    } else if ((len >= sizeof(fs) - 1 && strncasecmp(buf, fs, sizeof(fs) - 1) == 0) ||
               (len >= sizeof(pl) - 1 && strncasecmp(buf, pl, sizeof(pl) - 1) == 0)) {
        x->apf = 1;
    } else if (len > 12 && strncasecmp(buf, "Retry-After:", 12) == 0) {
        size_t vlen = len - 12;
        if (vlen >= sizeof(x->retry_after))
            vlen = sizeof(x->retry_after) - 1;
        memcpy(x->retry_after, buf + 12, vlen);
        x->retry_after[vlen] = '\0';
    }
    return len;
}

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    xfer *x = ud;
    size_t len = size * n;
    long status = 0;
    curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
    if (x->req->sink && status >= 200 && status < 300) {
        x->delivered += len;
        int rc = x->req->sink(x->req->sink_ud, data, len, x->err);
        if (rc != CW_OK) {
            x->resp->sink_rc = rc;
            x->resp->stopped = 1;
            return 0;
        }
        return len;
    }
    if (x->resp->body.len + len > x->max_body) {
        x->over_limit = 1;
        return 0;
    }
    if (cw_buf_append(&x->resp->body, data, len) != CW_OK) {
        x->oom = 1;
        return 0;
    }
    return len;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    xfer *x = ud;
    return atomic_load(x->req->stop) != 0;
}

/* Answers an attempt from the fault hook instead of the network. */
static CURLcode fake_attempt(xfer *x, const cw_kube_fault *f, char *errbuf)
{
    if (f->retry_after)
        snprintf(x->retry_after, sizeof(x->retry_after), "%s", f->retry_after);
    x->apf = f->apf;
    if (f->status == 0) {
        snprintf(errbuf, CURL_ERROR_SIZE, "injected fault: connection reset by peer");
        return CURLE_RECV_ERROR;
    }
    x->resp->status = f->status;
    size_t len = f->body ? strlen(f->body) : 0;
    if (len == 0)
        return CURLE_OK;
    if (x->req->sink && f->status >= 200 && f->status < 300) {
        /* Small pieces, as a network would split them. */
        for (size_t off = 0; off < len; off += 7) {
            size_t n = len - off < 7 ? len - off : 7;
            x->delivered += n;
            int rc = x->req->sink(x->req->sink_ud, f->body + off, n, x->err);
            if (rc != CW_OK) {
                x->resp->sink_rc = rc;
                x->resp->stopped = 1;
                return CURLE_WRITE_ERROR;
            }
        }
        return CURLE_OK;
    }
    if (len > x->max_body) {
        x->over_limit = 1;
        return CURLE_WRITE_ERROR;
    }
    if (cw_buf_append(&x->resp->body, f->body, len) != CW_OK) {
        x->oom = 1;
        return CURLE_WRITE_ERROR;
    }
    return CURLE_OK;
}

/* One HTTP exchange on handle h. Returns the curl result; resp->status is set when a response
 * arrived. Fails (CW_E*) only when the request could not even be set up. */
static int attempt(cw_kube_client *c, CURL *h, xfer *x, const char *url, const char *token,
                   CURLcode *code, char *errbuf, cw_error *err)
{
    int rc = CW_OK;
    const cw_kube_req *req = x->req;
    struct curl_slist *headers = NULL, *tmp;
    cw_buf auth, ctype;
    cw_buf_init(&auth);
    cw_buf_init(&ctype);
    CURLcode e = CURLE_OK;
    curl_easy_reset(h);
    if ((rc = cw_kube_setup_handle(c, h, err)) != CW_OK)
        goto done;
#define SET(opt, val)                                                                              \
    do {                                                                                           \
        if (e == CURLE_OK)                                                                         \
            e = curl_easy_setopt(h, opt, val);                                                     \
    } while (0)
#define HDR(s)                                                                                     \
    do {                                                                                           \
        if (!(tmp = curl_slist_append(headers, (s)))) {                                            \
            rc = cw_error_set(err, CW_ENOMEM, "out of memory preparing a request");                \
            goto done;                                                                             \
        }                                                                                          \
        headers = tmp;                                                                             \
    } while (0)
    HDR("Accept: application/json");
    HDR("Expect:");
    if (req->body) {
        if (cw_buf_printf(&ctype, "Content-Type: %s",
                          req->content_type ? req->content_type : "application/json") != CW_OK) {
            rc = cw_error_set(err, CW_ENOMEM, "out of memory preparing a request");
            goto done;
        }
        HDR(cw_buf_str(&ctype));
    }
    if (token) {
        if (cw_buf_printf(&auth, "Authorization: Bearer %s", token) != CW_OK) {
            rc = cw_error_set(err, CW_ENOMEM, "out of memory preparing a request");
            goto done;
        }
        HDR(cw_buf_str(&auth));
    }
    SET(CURLOPT_URL, url);
    SET(CURLOPT_HTTPHEADER, headers);
    if (strcmp(req->method, "GET") == 0) {
        SET(CURLOPT_HTTPGET, 1L);
    } else if (strcmp(req->method, "POST") == 0) {
        SET(CURLOPT_POST, 1L);
    } else {
        SET(CURLOPT_CUSTOMREQUEST, req->method);
    }
    if (req->body) {
        SET(CURLOPT_POSTFIELDS, req->body);
        SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
    }
    double timeout = req->timeout < 0 ? c->opts.timeout : req->timeout;
    SET(CURLOPT_TIMEOUT_MS, (long)(timeout * 1000));
    SET(CURLOPT_WRITEFUNCTION, on_body);
    SET(CURLOPT_WRITEDATA, x);
    SET(CURLOPT_HEADERFUNCTION, on_header);
    SET(CURLOPT_HEADERDATA, x);
    SET(CURLOPT_ERRORBUFFER, errbuf);
    if (req->stop) {
        SET(CURLOPT_NOPROGRESS, 0L);
        SET(CURLOPT_XFERINFOFUNCTION, on_progress);
        SET(CURLOPT_XFERINFODATA, x);
    }
#undef SET
#undef HDR
    if (e != CURLE_OK) {
        rc = cw_error_set(err, CW_EIO, "%s %s: libcurl rejected an option: %s", req->method, url,
                          curl_easy_strerror(e));
        goto done;
    }
    errbuf[0] = '\0';
    *code = curl_easy_perform(h);
    long status = 0, connects = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &connects);
    x->resp->status = status;
    pthread_mutex_lock(&c->mu);
    c->stats.connects += (unsigned long long)connects;
    pthread_mutex_unlock(&c->mu);
done:
    curl_slist_free_all(headers);
    if (auth.data)
        memset(auth.data, 0, auth.len);
    cw_buf_free(&auth);
    cw_buf_free(&ctype);
    return rc;
}

/* The first answer tells whether the server has API Priority and Fairness; with qps_auto that
 * sets the client-side limit for the rest of the client's life. Logged once. */
static void learn_apf(cw_kube_client *c, int apf)
{
    cw_kube_limit lim;
    pthread_mutex_lock(&c->mu);
    int first = c->stats.apf < 0;
    if (first) {
        c->stats.apf = apf;
        cw_kube_choose_limit(&c->opts, apf, &lim);
        if (c->opts.qps_auto)
            cw_kube_bucket_init(&c->bucket, lim.qps, lim.burst, cw_clock_mono());
    }
    pthread_mutex_unlock(&c->mu);
    if (first && c->opts.log_limit)
        cw_log(CW_LOG_INFO, "client-side rate limit", CW_LD("qps", lim.qps > 0 ? lim.qps : 0),
               CW_LI("burst", lim.qps > 0 ? lim.burst : 0), CW_LB("apf", apf),
               CW_LI("parallel", c->opts.max_inflight), CW_LS("why", lim.why));
}

static void append_note(cw_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    size_t len = strlen(err->message);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message + len, sizeof(err->message) - len, fmt, ap);
    va_end(ap);
}

static const char *tls_hint(CURLcode code)
{
    switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
        return " (check certificate-authority and tls-server-name)";
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
        return " (check client-certificate and client-key)";
    default:
        return "";
    }
}

int cw_kube_do(cw_kube_client *c, const cw_kube_req *req, cw_kube_resp *resp, cw_error *err)
{
    int rc = CW_OK;
    int attempts = 0, reauthed = 0, retryable = 0;
    double start = cw_clock_mono();
    double deadline = start + c->opts.retry_budget;
    char *token = NULL;
    CURL *own = NULL;
    char errbuf[CURL_ERROR_SIZE];
    cw_buf url;
    cw_buf_init(&url);

    if (cw_buf_printf(&url, "%s%s", c->base_url, req->path) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    snprintf(resp->url, sizeof(resp->url), "%s", cw_buf_str(&url));
    if (req->sink && !(own = curl_easy_init())) {
        rc = cw_error_set(err, CW_ENOMEM, "out of memory creating a connection handle");
        goto done;
    }
    for (;;) {
        xfer x = {.req = req, .resp = resp, .max_body = c->opts.max_body, .err = err};
        CURLcode code = CURLE_OK;
        cw_kube_fault fault = {.request_body = req->body, .request_body_len = req->body_len};
        size_t slot = 0;
        attempts++;
        resp->status = 0;
        resp->stopped = 0;
        resp->sink_rc = 0;
        cw_buf_reset(&resp->body);
        cw_kube_throttle(c);
        cw_secret_free(token);
        token = NULL;
        if ((rc = cw_kube_auth_token(c, 0, &token, err)) != CW_OK)
            goto done;
        double t0 = cw_clock_mono();
        x.h = own;
        if (!own && (rc = cw_kube_pool_acquire(c, &slot, &x.h, err)) != CW_OK)
            goto done;
        if (c->opts.fault &&
            c->opts.fault(c->opts.fault_ud, req->method, req->path, attempts, &fault))
            code = fake_attempt(&x, &fault, errbuf);
        else
            rc = attempt(c, x.h, &x, cw_buf_str(&url), token, &code, errbuf, err);
        if (!own)
            cw_kube_pool_release(c, slot);
        pthread_mutex_lock(&c->mu);
        c->stats.requests++;
        pthread_mutex_unlock(&c->mu);
        if (rc != CW_OK)
            goto done;
        if (resp->status > 0)
            learn_apf(c, x.apf);
        cw_log(CW_LOG_DEBUG, "kube request", CW_LS("method", req->method), CW_LS("path", req->path),
               CW_LI("status", resp->status), CW_LI("curl", (int)code), CW_LI("attempt", attempts),
               CW_LD("seconds", cw_clock_mono() - t0));

        if (resp->stopped) {
            rc = resp->sink_rc < 0 ? resp->sink_rc : CW_OK;
            goto done;
        }
        if (x.oom) {
            rc = cw_error_set(err, CW_ENOMEM, "%s %s: out of memory reading the response",
                              req->method, cw_buf_str(&url));
            goto done;
        }
        if (x.over_limit) {
            rc = cw_error_set(err, CW_ELIMIT, "%s %s: response body exceeds %zu bytes", req->method,
                              cw_buf_str(&url), c->opts.max_body);
            goto done;
        }
        if (code == CURLE_ABORTED_BY_CALLBACK && req->stop && atomic_load(req->stop)) {
            resp->stopped = 1;
            rc = CW_OK;
            goto done;
        }
        if (code != CURLE_OK) {
            retryable = cw_kube_curl_retryable(code) && x.delivered == 0;
            rc = cw_error_set(err, CW_ETRANSPORT, "%s %s: %s%s (server from %s)", req->method,
                              cw_buf_str(&url), errbuf[0] ? errbuf : curl_easy_strerror(code),
                              tls_hint(code), c->cfg.source);
        } else if (resp->status >= 200 && resp->status < 300) {
            rc = CW_OK;
            goto done;
        } else if (resp->status == 401 && c->cfg.token_file && !reauthed) {
            /* The token may have rotated under us: re-read it and try once more. */
            reauthed = 1;
            attempts--;
            cw_secret_free(token);
            token = NULL;
            if ((rc = cw_kube_auth_token(c, 1, &token, err)) != CW_OK)
                goto done;
            continue;
        } else {
            rc = cw_kube_http_error(err, req->method, cw_buf_str(&url), resp->status,
                                    resp->body.data, resp->body.len);
            retryable = cw_kube_status_retryable(resp->status);
            if (resp->status == 401)
                append_note(err, " (credentials from %s)", c->cfg.source);
        }
        if (!retryable || attempts >= c->opts.max_attempts)
            break;

        double delay;
        if (!x.retry_after[0] ||
            cw_kube_parse_retry_after(x.retry_after, time(NULL), &delay) != CW_OK) {
            pthread_mutex_lock(&c->mu);
            double u = cw_kube_rand(&c->rng);
            pthread_mutex_unlock(&c->mu);
            delay = cw_kube_backoff(attempts, c->opts.backoff_base, c->opts.backoff_max, u);
        }
        if (cw_clock_mono() + delay > deadline)
            break;
        cw_log(CW_LOG_WARN, "retrying Kubernetes API request", CW_LS("method", req->method),
               CW_LS("path", req->path), CW_LI("attempt", attempts), CW_LD("delay_seconds", delay),
               CW_LS("error", err ? err->message : ""));
        pthread_mutex_lock(&c->mu);
        c->stats.retries++;
        pthread_mutex_unlock(&c->mu);
        cw_kube_sleep(delay);
    }
    if (attempts > 1)
        append_note(err, " (gave up after %d attempts in %.1fs)", attempts,
                    cw_clock_mono() - start);
done:
    cw_secret_free(token);
    if (own)
        curl_easy_cleanup(own);
    cw_buf_free(&url);
    return rc;
}

int cw_kube_do_json(cw_kube_client *c, const char *method, const char *path,
                    const char *content_type, json_object *body, json_object **out, cw_error *err)
{
    int rc = CW_OK;
    cw_kube_req req;
    cw_kube_resp resp;
    cw_kube_req_init(&req);
    cw_kube_resp_init(&resp);
    if (out)
        *out = NULL;
    req.method = method;
    req.path = path;
    req.content_type = content_type;
    if (body) {
        req.body = cw_json_compact(body);
        if (!req.body) {
            rc = cw_error_set(err, CW_ENOMEM, "out of memory serialising a request");
            goto done;
        }
        req.body_len = strlen(req.body);
    }
    if ((rc = cw_kube_do(c, &req, &resp, err)) != CW_OK)
        goto done;
    if (out && resp.body.len > 0 &&
        (rc = cw_kube_parse_json(resp.body.data, resp.body.len, out, err)) != CW_OK)
        cw_error_prefix(err, "%s %s", method, resp.url);
done:
    cw_kube_resp_free(&resp);
    return rc;
}
