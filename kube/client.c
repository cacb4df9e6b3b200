/* cw_kube_client: options, lifetime, the pool of curl handles (one connection each), the shared
 * TLS session cache, and the rate limiter. */
#include "kube/internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/secret.h"
#include "lib/version.h"
#include "lib/clock.h"

void cw_kube_client_opts_init(cw_kube_client_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->qps = 100;
    o->burst = 200;
    o->max_inflight = 8;
    o->timeout = 30;
    o->connect_timeout = 10;
    o->max_attempts = 6;
    o->backoff_base = 0.2;
    o->backoff_max = 10;
    o->retry_budget = 60;
    o->max_body = (size_t)256 << 20;
    o->token_reread = 60;
}

static int check_opts(const cw_kube_client_opts *o, cw_error *err)
{
    if (o->max_inflight < 1 || o->max_inflight > 1024)
        return cw_error_set(err, CW_EINVAL, "max in-flight requests must be 1..1024, got %d",
                            o->max_inflight);
    if (o->qps > 0 && o->burst < 1)
        return cw_error_set(err, CW_EINVAL, "burst must be at least 1, got %d", o->burst);
    if (o->max_attempts < 1)
        return cw_error_set(err, CW_EINVAL, "max attempts must be at least 1, got %d",
                            o->max_attempts);
    if (!(o->timeout >= 0) || !(o->connect_timeout >= 0) || !(o->backoff_base >= 0) ||
        !(o->backoff_max >= 0) || !(o->retry_budget >= 0) || !(o->token_reread >= 0))
        return cw_error_set(err, CW_EINVAL, "timeouts and backoff durations must not be negative");
    if (o->max_body < 1024)
        return cw_error_set(err, CW_EINVAL, "max body must be at least 1024 bytes");
    return CW_OK;
}

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *ud)
{
    (void)h;
    (void)access;
    cw_kube_client *c = ud;
    pthread_mutex_lock(&c->share_mu[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *ud)
{
    (void)h;
    cw_kube_client *c = ud;
    pthread_mutex_unlock(&c->share_mu[data]);
}

/* The URL prefix requests use. With tls-server-name the URL names that host (so SNI and the
 * certificate check use it) and CURLOPT_CONNECT_TO routes the connection to the real server. */
static int build_base_url(cw_kube_client *c, cw_error *err)
{
    int rc = CW_OK;
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL;
    cw_buf b;
    cw_buf_init(&b);
    if (!u) {
        rc = cw_error_oom(err);
        goto done;
    }
    if (curl_url_set(u, CURLUPART_URL, c->cfg.server, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK) {
        rc = cw_error_set(err, CW_EINVAL, "%s: server \"%s\" is not a valid URL", c->cfg.source,
                          c->cfg.server);
        goto done;
    }
    size_t plen = strlen(path);
    while (plen > 0 && path[plen - 1] == '/')
        plen--;
    const char *name = c->cfg.tls_server_name ? c->cfg.tls_server_name : host;
    if (cw_buf_printf(&b, "%s://%s:%s%.*s", scheme, name, port, (int)plen, path) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    if (!(c->base_url = cw_buf_detach(&b))) {
        rc = cw_error_oom(err);
        goto done;
    }
    if (c->cfg.tls_server_name) {
        if (cw_buf_printf(&b, "%s:%s:%s:%s", name, port, host, port) != CW_OK ||
            !(c->connect_to = curl_slist_append(NULL, cw_buf_str(&b)))) {
            rc = cw_error_oom(err);
            goto done;
        }
    }
done:
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_free(path);
    curl_url_cleanup(u);
    cw_buf_free(&b);
    return rc;
}

int cw_kube_client_new(const cw_kube_config *cfg, const cw_kube_client_opts *o,
                       cw_kube_client **out, cw_error *err)
{
    int rc = CW_OK;
    cw_kube_client *c = NULL;
    cw_kube_client_opts defaults;
    *out = NULL;
    if (!o) {
        cw_kube_client_opts_init(&defaults);
        o = &defaults;
    }
    if ((rc = check_opts(o, err)) != CW_OK)
        return rc;
    if (!cfg->server)
        return cw_error_set(err, CW_EINVAL, "Kubernetes configuration has no server");
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return cw_error_set(err, CW_EIO, "libcurl initialisation failed");

    c = calloc(1, sizeof(*c));
    if (!c) {
        curl_global_cleanup();
        return cw_error_oom(err);
    }
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_init(&c->share_mu[i], NULL);
    c->opts = *o;
    c->opts.user_agent = NULL;
    cw_kube_config_init(&c->cfg);
    if ((rc = cw_kube_config_copy(cfg, &c->cfg, err)) != CW_OK)
        goto done;
    if (!c->cfg.source && !(c->cfg.source = strdup("configuration"))) {
        rc = cw_error_oom(err);
        goto done;
    }
    c->user_agent = strdup(o->user_agent ? o->user_agent : "cronwarden/" CW_VERSION);
    c->handles = calloc((size_t)o->max_inflight, sizeof(*c->handles));
    c->free_slots = calloc((size_t)o->max_inflight, sizeof(*c->free_slots));
    c->share = curl_share_init();
    if (!c->user_agent || !c->handles || !c->free_slots || !c->share) {
        rc = cw_error_oom(err);
        goto done;
    }
    /* LIFO: slot 0 on top, so a sequential caller always gets the same warm connection. */
    for (size_t i = 0; i < (size_t)o->max_inflight; i++)
        c->free_slots[i] = (size_t)o->max_inflight - 1 - i;
    c->nfree = (size_t)o->max_inflight;
    curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);

    c->ca = (struct curl_blob){c->cfg.ca_pem, c->cfg.ca_pem_len, CURL_BLOB_NOCOPY};
    c->cert = (struct curl_blob){c->cfg.cert_pem, c->cfg.cert_pem_len, CURL_BLOB_NOCOPY};
    c->key = (struct curl_blob){c->cfg.key_pem, c->cfg.key_pem_len, CURL_BLOB_NOCOPY};
    if ((rc = build_base_url(c, err)) != CW_OK)
        goto done;

    double now = cw_clock_mono();
    cw_kube_bucket_init(&c->bucket, o->qps, o->burst, now);
    if (c->cfg.token && !(c->token = strdup(c->cfg.token))) {
        rc = cw_error_oom(err);
        goto done;
    }
    c->token_read_at = now;
    c->stats.apf = -1;
    c->rng = (unsigned long long)time(NULL) ^ (unsigned long long)(uintptr_t)c ^
             (unsigned long long)(now * 1e9);
    *out = c;
    c = NULL;
done:
    cw_kube_client_free(c);
    return rc;
}

void cw_kube_client_free(cw_kube_client *c)
{
    if (!c)
        return;
    for (size_t i = 0; c->handles && i < (size_t)c->opts.max_inflight; i++)
        if (c->handles[i])
            curl_easy_cleanup(c->handles[i]);
    if (c->share)
        curl_share_cleanup(c->share);
    curl_slist_free_all(c->connect_to);
    free(c->handles);
    free(c->free_slots);
    free(c->user_agent);
    free(c->base_url);
    cw_secret_free(c->token);
    cw_kube_config_free(&c->cfg);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_destroy(&c->share_mu[i]);
    free(c);
    curl_global_cleanup();
}

const cw_kube_config *cw_kube_client_config(const cw_kube_client *c)
{
    return &c->cfg;
}

void cw_kube_client_stats(cw_kube_client *c, cw_kube_stats *out)
{
    pthread_mutex_lock(&c->mu);
    *out = c->stats;
    pthread_mutex_unlock(&c->mu);
}

int cw_kube_pool_acquire(cw_kube_client *c, size_t *slot, CURL **h, cw_error *err)
{
    int rc = CW_OK;
    pthread_mutex_lock(&c->mu);
    while (c->nfree == 0)
        pthread_cond_wait(&c->cv, &c->mu);
    *slot = c->free_slots[--c->nfree];
    if (!c->handles[*slot] && !(c->handles[*slot] = curl_easy_init())) {
        c->free_slots[c->nfree++] = *slot;
        pthread_cond_signal(&c->cv);
        rc = cw_error_set(err, CW_ENOMEM, "out of memory creating a connection handle");
    }
    *h = rc == CW_OK ? c->handles[*slot] : NULL;
    pthread_mutex_unlock(&c->mu);
    return rc;
}

void cw_kube_pool_release(cw_kube_client *c, size_t slot)
{
    pthread_mutex_lock(&c->mu);
    c->free_slots[c->nfree++] = slot;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

void cw_kube_throttle(cw_kube_client *c)
{
    pthread_mutex_lock(&c->mu);
    double wait = cw_kube_bucket_reserve(&c->bucket, cw_clock_mono());
    c->stats.throttled += wait;
    pthread_mutex_unlock(&c->mu);
    cw_kube_sleep(wait);
}

int cw_kube_setup_handle(cw_kube_client *c, CURL *h, cw_error *err)
{
    CURLcode e = CURLE_OK;
    const cw_kube_config *cfg = &c->cfg;
#define SET(opt, val)                                                                              \
    do {                                                                                           \
        if (e == CURLE_OK)                                                                         \
            e = curl_easy_setopt(h, opt, val);                                                     \
    } while (0)
    SET(CURLOPT_SHARE, c->share);
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    SET(CURLOPT_TCP_KEEPALIVE, 1L);
    SET(CURLOPT_TCP_NODELAY, 1L);
    SET(CURLOPT_CONNECTTIMEOUT_MS, (long)(c->opts.connect_timeout * 1000));
    SET(CURLOPT_USERAGENT, c->user_agent);
    if (c->connect_to)
        SET(CURLOPT_CONNECT_TO, c->connect_to);
    if (cfg->ca_pem) {
        SET(CURLOPT_CAINFO_BLOB, &c->ca);
        SET(CURLOPT_CAPATH, (char *)NULL);
    }
    if (cfg->insecure_skip_tls_verify) {
        SET(CURLOPT_SSL_VERIFYPEER, 0L);
        SET(CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (cfg->cert_pem) {
        SET(CURLOPT_SSLCERT_BLOB, &c->cert);
        SET(CURLOPT_SSLCERTTYPE, "PEM");
        SET(CURLOPT_SSLKEY_BLOB, &c->key);
        SET(CURLOPT_SSLKEYTYPE, "PEM");
    }
    if (cfg->username) {
        SET(CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        SET(CURLOPT_USERNAME, cfg->username);
        SET(CURLOPT_PASSWORD, cfg->password ? cfg->password : "");
    }
#undef SET
    if (e != CURLE_OK)
        return cw_error_set(err, CW_EIO, "%s: libcurl rejected an option: %s", cfg->source,
                            curl_easy_strerror(e));
    return CW_OK;
}
