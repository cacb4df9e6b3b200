#include "webhook/selfsigned.h"
#include "lib/base64.h"

#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "kube/client.h"
#include "lib/log.h"
#include "webhook/certs.h"

#define MAX_ATTEMPTS 5

static const cw_kube_resource secrets_res = {"", "v1", "secrets", NULL};
static const cw_kube_resource config_res[] = {
    {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", NULL},
    {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", NULL},
};

void cw_certs_selfsigned_init(cw_certs_selfsigned *s)
{
    memset(s, 0, sizeof(*s));
    cw_strlist_init(&s->dns);
    cw_strlist_init(&s->ips);
    cw_strlist_init(&s->configs);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
}

void cw_certs_selfsigned_free(cw_certs_selfsigned *s)
{
    if (s->running && cw_certs_selfsigned_stop(s, 0) != CW_OK)
        return; /* still in use by a thread stuck in an API call */
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->wake);
    if (s->own_client)
        cw_kube_client_free(s->client);
    free(s->secret_ns);
    free(s->secret_name);
    free(s->common_name);
    free(s->served_cert);
    cw_strlist_free(&s->dns);
    cw_strlist_free(&s->ips);
    cw_strlist_free(&s->configs);
    cw_certs_selfsigned_init(s);
}

static char *b64_encode(const char *s)
{
    cw_buf b;
    cw_buf_init(&b);
    if (cw_base64_encode(&b, s, strlen(s)) != CW_OK) {
        cw_buf_free(&b);
        return NULL;
    }
    return cw_buf_detach(&b);
}

/* NULL when absent or not base64 of text. */
static char *b64_decode(json_object *data, const char *key)
{
    json_object *v = cw_json_member(data, key);
    char *out = NULL;
    size_t len;
    if (!json_object_is_type(v, json_type_string) || !json_object_get_string_len(v) ||
        cw_base64_decode(json_object_get_string(v), (size_t)json_object_get_string_len(v), &out,
                         &len) != CW_OK)
        return NULL;
    if (strlen(out) != len) { /* PEM is text */
        free(out);
        return NULL;
    }
    return out;
}

static int split_ref(const char *ref, const char *flag, char **ns, char **name, cw_error *err)
{
    const char *slash = ref ? strchr(ref, '/') : NULL;
    if (!slash || slash == ref || !slash[1] || strchr(slash + 1, '/'))
        return cw_error_set(err, CW_EUSAGE, "--%s: expected NAMESPACE/NAME, got '%s'", flag,
                            ref ? ref : "");
    *ns = strndup(ref, (size_t)(slash - ref));
    *name = strdup(slash + 1);
    return *ns && *name ? CW_OK : cw_error_oom(err);
}

static int copy_list(cw_strlist *dst, const cw_strlist *src)
{
    for (size_t i = 0; src && i < src->len; i++)
        if (cw_strlist_add(dst, src->items[i]) != CW_OK)
            return CW_ENOMEM;
    return CW_OK;
}

/* The pair held by a Secret. */
typedef struct held {
    cw_certs_pem ca, leaf;
} held;

static void held_free(held *h)
{
    cw_certs_pem_free(&h->ca);
    cw_certs_pem_free(&h->leaf);
}

static void held_read(json_object *secret, held *h)
{
    json_object *data = cw_json_member(secret, "data");
    h->leaf.cert = b64_decode(data, "tls.crt");
    h->leaf.key = b64_decode(data, "tls.key");
    h->ca.cert = b64_decode(data, "ca.crt");
    h->ca.key = b64_decode(data, "ca.key");
}

/* The first certificate of a PEM bundle when it is still valid at now (a copy ending in a
 * newline), else NULL. */
static char *still_valid_ca(const char *pem, time_t now)
{
    static const char marker[] = "-----END CERTIFICATE-----";
    cw_certs_info info;
    cw_error ignored;
    const char *end = pem ? strstr(pem, marker) : NULL;
    if (!end)
        return NULL;
    size_t n = (size_t)(end - pem) + sizeof(marker) - 1;
    char *copy = malloc(n + 2);
    if (!copy)
        return NULL;
    memcpy(copy, pem, n);
    copy[n] = '\n';
    copy[n + 1] = '\0';
    if (cw_certs_inspect(copy, n + 1, &info, &ignored) != CW_OK || info.not_after <= now) {
        free(copy);
        return NULL;
    }
    return copy;
}

static int append(char **s, const char *tail)
{
    size_t a = strlen(*s), b = strlen(tail);
    char *grown = realloc(*s, a + b + 1);
    if (!grown)
        return CW_ENOMEM;
    memcpy(grown + a, tail, b + 1);
    *s = grown;
    return CW_OK;
}

/* Makes h valid at now: keeps what still fits, renews the rest. *changed when renewed. */
static int renew(cw_certs_selfsigned *s, held *h, time_t now, int *changed, cw_error *err)
{
    cw_certs_names names = {s->common_name, &s->dns, &s->ips};
    cw_certs_info ca_info;
    cw_error why;
    cw_error_init(&why);
    int rc = CW_OK;
    *changed = 0;
    long renew_s = (long)CW_SELFSIGNED_RENEW_DAYS * 86400;

    int ca_ok = h->ca.cert && h->ca.key &&
                cw_certs_inspect_pair(h->ca.cert, strlen(h->ca.cert), h->ca.key, strlen(h->ca.key),
                                      &ca_info, &why) == CW_OK &&
                ca_info.not_after - now >= renew_s;
    if (!ca_ok) {
        char *outgoing = still_valid_ca(h->ca.cert, now);
        if (h->ca.cert)
            cw_log(CW_LOG_INFO, "making a new CA",
                   CW_LS("reason", why.message[0] ? why.message : "expiring"));
        cw_certs_pem_free(&h->ca);
        cw_certs_pem_free(&h->leaf);
        rc = cw_certs_make_ca("cronwarden-webhook-ca", CW_SELFSIGNED_CA_DAYS, now, &h->ca, err);
        /* ca.crt keeps the outgoing CA after the new one while it is valid, so the caBundle
         * still trusts replicas serving the old certificate until they pick up the new one. */
        if (rc == CW_OK && outgoing && append(&h->ca.cert, outgoing) != CW_OK)
            rc = cw_error_oom(err);
        free(outgoing);
        if (rc != CW_OK)
            return rc;
        *changed = 1;
    }
    if (h->leaf.cert && h->leaf.key &&
        cw_certs_check_leaf(h->ca.cert, &h->leaf, &names, now, renew_s, &why) == CW_OK)
        return CW_OK;
    if (h->leaf.cert)
        cw_log(CW_LOG_INFO, "renewing the serving certificate", CW_LS("reason", why.message));
    cw_certs_pem_free(&h->leaf);
    if ((rc = cw_certs_make_leaf(&h->ca, &names, CW_SELFSIGNED_LEAF_DAYS, now, &h->leaf, err)) !=
        CW_OK)
        return rc;
    *changed = 1;
    return CW_OK;
}

static int put_data(json_object *data, const char *key, const char *pem)
{
    char *b = b64_encode(pem);
    if (!b)
        return CW_ENOMEM;
    json_object *v = json_object_new_string(b);
    free(b);
    if (!v || json_object_object_add(data, key, v) != 0) {
        json_object_put(v);
        return CW_ENOMEM;
    }
    return CW_OK;
}

/* Writes h into secret (a fresh object when secret is NULL). */
static int secret_body(cw_certs_selfsigned *s, json_object *secret, const held *h,
                       json_object **out)
{
    json_object *o = secret, *data;
    *out = NULL;
    if (!o) {
        o = json_object_new_object();
        json_object *meta = json_object_new_object(), *labels = json_object_new_object();
        if (!o || !meta || !labels) {
            json_object_put(o);
            json_object_put(meta);
            json_object_put(labels);
            return CW_ENOMEM;
        }
        json_object_object_add(o, "apiVersion", json_object_new_string("v1"));
        json_object_object_add(o, "kind", json_object_new_string("Secret"));
        json_object_object_add(o, "metadata", meta);
        json_object_object_add(meta, "name", json_object_new_string(s->secret_name));
        json_object_object_add(meta, "namespace", json_object_new_string(s->secret_ns));
        json_object_object_add(meta, "labels", labels);
        json_object_object_add(labels, "app.kubernetes.io/managed-by",
                               json_object_new_string("cronwarden"));
        json_object_object_add(o, "type", json_object_new_string("kubernetes.io/tls"));
    } else {
        json_object_get(o);
    }
    data = json_object_new_object();
    if (!data || json_object_object_add(o, "data", data) != 0 ||
        put_data(data, "tls.crt", h->leaf.cert) || put_data(data, "tls.key", h->leaf.key) ||
        put_data(data, "ca.crt", h->ca.cert) || put_data(data, "ca.key", h->ca.key)) {
        json_object_put(o);
        return CW_ENOMEM;
    }
    *out = o;
    return CW_OK;
}

/* Gets a valid pair into the Secret (create, reuse or renew) and returns it in h. */
static int ensure_secret(cw_certs_selfsigned *s, time_t now, held *h, cw_error *err)
{
    cw_kube_resource r = secrets_res;
    r.namespace = s->secret_ns;
    int rc = CW_OK;
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        json_object *cur = NULL, *body = NULL;
        int changed = 0, existed;
        held_free(h);
        rc = cw_kube_get(s->client, &r, s->secret_name, &cur, err);
        if (rc != CW_OK && rc != CW_ENOTFOUND)
            return rc;
        if (cur && cw_json_path_string(cur, "type") &&
            strcmp(cw_json_path_string(cur, "type"), "kubernetes.io/tls") != 0) {
            json_object_put(cur);
            return cw_error_set(err, CW_EINVAL, "Secret %s/%s is not of type kubernetes.io/tls",
                                s->secret_ns, s->secret_name);
        }
        if (cur)
            held_read(cur, h);
        if ((rc = renew(s, h, now, &changed, err)) != CW_OK) {
            json_object_put(cur);
            return rc;
        }
        if (!changed) {
            json_object_put(cur);
            return CW_OK;
        }
        if ((rc = secret_body(s, cur, h, &body)) != CW_OK) {
            json_object_put(cur);
            return cw_error_oom(err);
        }
        existed = cur != NULL;
        if (existed)
            rc = cw_kube_update(s->client, &r, s->secret_name, body, NULL, NULL, err);
        else
            rc = cw_kube_create(s->client, &r, body, NULL, NULL, err);
        json_object_put(body);
        json_object_put(cur);
        if (rc == CW_OK) {
            cw_log(CW_LOG_INFO,
                   existed ? "renewed the certificate Secret" : "created the certificate Secret",
                   CW_LS("namespace", s->secret_ns), CW_LS("name", s->secret_name));
            return CW_OK;
        }
        if (rc != CW_ECONFLICT && rc != CW_ENOTFOUND)
            return rc;
        /* Another replica wrote first (or deleted it): read what won and decide again. */
        cw_log(CW_LOG_INFO, "certificate Secret changed concurrently; re-reading",
               CW_LS("namespace", s->secret_ns), CW_LS("name", s->secret_name));
    }
    return cw_error_set(err, CW_ECONFLICT, "Secret %s/%s: still conflicting after %d attempts",
                        s->secret_ns, s->secret_name, MAX_ATTEMPTS);
}

/* One configuration: every webhook's clientConfig.caBundle set to bundle, conditional on the
 * resourceVersion read. CW_ENOTFOUND when no such configuration exists. */
static int sync_config(cw_certs_selfsigned *s, const cw_kube_resource *r, const char *name,
                       const char *bundle, int *patched, cw_error *err)
{
    int rc = CW_OK;
    *patched = 0;
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        json_object *cur = NULL, *ops = NULL, *webhooks;
        if ((rc = cw_kube_get(s->client, r, name, &cur, err)) != CW_OK)
            return rc;
        const char *rv = cw_json_path_string(cur, "metadata.resourceVersion");
        webhooks = cw_json_member(cur, "webhooks");
        size_t n =
            json_object_is_type(webhooks, json_type_array) ? json_object_array_length(webhooks) : 0;
        if (!(ops = json_object_new_array())) {
            json_object_put(cur);
            return cw_error_oom(err);
        }
        rc = cw_jpatch_op(ops, "test", "/metadata/resourceVersion",
                          json_object_new_string(rv ? rv : ""));
        for (size_t i = 0; i < n && rc == CW_OK; i++) {
            json_object *wh = json_object_array_get_idx(webhooks, i);
            const char *have = cw_json_path_string(wh, "clientConfig.caBundle");
            if (have && strcmp(have, bundle) == 0)
                continue;
            char path[64];
            snprintf(path, sizeof(path), "/webhooks/%zu/clientConfig/caBundle", i);
            rc = cw_jpatch_op(ops, "add", path, json_object_new_string(bundle));
        }
        size_t nops = json_object_array_length(ops);
        if (rc == CW_OK && nops > 1)
            rc = cw_kube_patch(s->client, r, name, CW_KUBE_PATCH_JSON, ops, NULL, NULL, err);
        json_object_put(ops);
        json_object_put(cur);
        if (rc == CW_OK) {
            *patched = nops > 1;
            return CW_OK;
        }
        /* A failed test op is 422; a concurrent write 409: read again. */
        if (rc != CW_ECONFLICT && !(rc == CW_EHTTP && err->http_status == 422))
            return rc;
    }
    return cw_error_set(err, CW_ECONFLICT, "%s %s: still conflicting after %d attempts",
                        r->resource, name, MAX_ATTEMPTS);
}

static int sync_bundles(cw_certs_selfsigned *s, const char *ca_pem, cw_error *err)
{
    int rc = CW_OK, first_rc = CW_OK, missing = 0;
    char *bundle = b64_encode(ca_pem);
    if (!bundle)
        return cw_error_oom(err);
    for (size_t i = 0; i < s->configs.len; i++) {
        int found = 0;
        for (size_t k = 0; k < 2; k++) {
            int patched = 0;
            cw_error e;
            cw_error_init(&e);
            rc = sync_config(s, &config_res[k], s->configs.items[i], bundle, &patched, &e);
            if (rc == CW_ENOTFOUND)
                continue;
            found = 1;
            if (rc != CW_OK) {
                cw_log(CW_LOG_ERROR, "caBundle update failed",
                       CW_LS("configuration", s->configs.items[i]), CW_LS("error", e.message));
                if (first_rc == CW_OK) {
                    first_rc = rc;
                    *err = e;
                }
            } else if (patched) {
                cw_log(CW_LOG_INFO, "caBundle updated", CW_LS("resource", config_res[k].resource),
                       CW_LS("name", s->configs.items[i]));
            }
        }
        if (!found) {
            missing++;
            cw_log(CW_LOG_WARN, "webhook configuration not found; will retry",
                   CW_LS("name", s->configs.items[i]));
        }
    }
    s->missing_configs = missing;
    free(bundle);
    return first_rc;
}

int cw_certs_selfsigned_check(cw_certs_selfsigned *s, time_t now, cw_error *err)
{
    held h = {0};
    int rc = ensure_secret(s, now, &h, err);
    if (rc != CW_OK)
        goto done;
    if (!s->served_cert || strcmp(s->served_cert, h.leaf.cert) != 0) {
        if ((rc = cw_certs_store_set_pem(s->store, h.leaf.cert, strlen(h.leaf.cert), h.leaf.key,
                                         strlen(h.leaf.key), err)) != CW_OK)
            goto done;
        free(s->served_cert);
        s->served_cert = strdup(h.leaf.cert);
        cw_log(CW_LOG_INFO, "serving the certificate from the Secret",
               CW_LS("namespace", s->secret_ns), CW_LS("name", s->secret_name));
    }
    rc = sync_bundles(s, h.ca.cert, err);
done:
    held_free(&h);
    return rc;
}

int cw_certs_selfsigned_refresh(cw_certs_selfsigned *s)
{
    cw_error err;
    cw_error_init(&err);
    int rc = cw_certs_selfsigned_check(s, time(NULL), &err);
    if (rc != CW_OK)
        cw_log(CW_LOG_ERROR, "certificate check failed; still serving the current certificate",
               CW_LS("error", err.message));
    return rc;
}

static void *refresher(void *arg)
{
    cw_certs_selfsigned *s = arg;
    int failed = 0;
    pthread_mutex_lock(&s->lock);
    while (!s->stop) {
        /* A failure, or a configuration not created yet, is looked at again soon. */
        double wait = (failed || s->missing_configs) && s->interval > 30 ? 30 : s->interval;
        struct timespec at;
        clock_gettime(CLOCK_REALTIME, &at);
        at.tv_sec += (time_t)wait;
        at.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
        if (at.tv_nsec >= 1000000000L) {
            at.tv_sec++;
            at.tv_nsec -= 1000000000L;
        }
        while (!s->stop && pthread_cond_timedwait(&s->wake, &s->lock, &at) == 0)
            ;
        if (s->stop)
            break;
        pthread_mutex_unlock(&s->lock);
        failed = cw_certs_selfsigned_refresh(s) != CW_OK;
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

int cw_certs_selfsigned_run(cw_certs_selfsigned *s, double interval, cw_error *err)
{
    s->interval = interval > 0 ? interval : 1;
    s->stop = 0;
    if (pthread_create(&s->thread, NULL, refresher, s) != 0)
        return cw_error_set(err, CW_ENOMEM, "cannot start the certificate refresher thread");
    s->running = 1;
    return CW_OK;
}

int cw_certs_selfsigned_stop(cw_certs_selfsigned *s, double wait)
{
    if (!s->running)
        return CW_OK;
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    at.tv_sec += (time_t)wait + 1; /* whole seconds are enough here */
    if (pthread_timedjoin_np(s->thread, NULL, &at) != 0)
        return CW_ETRANSPORT;
    s->running = 0;
    return CW_OK;
}

int cw_certs_selfsigned_start(cw_certs_selfsigned *s, const cw_certs_selfsigned_opts *o,
                              cw_error *err)
{
    int rc;
    char *svc_ns = NULL, *svc_name = NULL;
    cw_kube_config cfg;
    cw_kube_config_init(&cfg);
    s->store = o->store;
    if ((rc = split_ref(o->secret, "cert-secret", &s->secret_ns, &s->secret_name, err)) ||
        (rc = split_ref(o->service, "service", &svc_ns, &svc_name, err)))
        goto done;
    if (cw_strlist_addf(&s->dns, "%s.%s", svc_name, svc_ns) ||
        cw_strlist_addf(&s->dns, "%s.%s.svc", svc_name, svc_ns) ||
        cw_strlist_addf(&s->dns, "%s.%s.svc.cluster.local", svc_name, svc_ns) ||
        copy_list(&s->dns, o->dns_names) || copy_list(&s->ips, o->ip_addresses) ||
        copy_list(&s->configs, o->webhook_configs) || !(s->common_name = strdup(s->dns.items[1]))) {
        rc = cw_error_oom(err);
        goto done;
    }
    if (o->client) {
        s->client = o->client;
    } else {
        cw_kube_load_opts lo;
        cw_kube_load_opts_init(&lo);
        lo.kubeconfig = o->kubeconfig;
        lo.context = o->context;
        /* Bounded calls: a refresh that cannot reach the API gives up and retries later. */
        cw_kube_client_opts co;
        cw_kube_client_opts_init(&co);
        co.timeout = 10;
        co.connect_timeout = 5;
        co.retry_budget = 20;
        if ((rc = cw_kube_config_load(&cfg, &lo, err)) ||
            (rc = cw_kube_client_new(&cfg, &co, &s->client, err)))
            goto done;
        s->own_client = 1;
    }
    rc = cw_certs_selfsigned_check(s, time(NULL), err);
    /* Without a certificate there is nothing to serve; a caBundle failure is retried later. */
    if (rc != CW_OK && s->served_cert) {
        cw_log(CW_LOG_ERROR, "caBundle sync failed; will retry", CW_LS("error", err->message));
        rc = CW_OK;
    }
done:
    free(svc_ns);
    free(svc_name);
    cw_kube_config_free(&cfg);
    return rc;
}
