/* --self-signed against a small in-memory API server (libmicrohttpd, plain HTTP) that keeps
 * objects with resourceVersions and answers 404/409/422 as the real one does: creation, reuse by a
 * second replica, caBundle filling, renewal near expiry, CA rotation (old CA kept in the bundle),
 * and the conflict paths (creation race, renewal race, failed resourceVersion test). The real
 * apiserver runs the happy paths in tests/e2e/scenarios/webhook_selfsigned.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <microhttpd.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "kube/client.h"
#include "lib/log.h"
#include "webhook/certs.h"
#include "webhook/selfsigned.h"

#define SECRET_PATH "/api/v1/namespaces/cw-system/secrets/cw-tls"
#define SECRETS     "/api/v1/namespaces/cw-system/secrets"
#define MUT         "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/"
#define VAL         "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/"
#define DAY         86400L

/* ---- the fake API server ---- */

typedef struct stored {
    char *path;
    json_object *obj;
} stored;

/* A one-shot answer for METHOD PATH; `install` (owned) replaces the stored object first, as if
 * another client had written it just before. */
typedef struct scripted {
    const char *method, *path;
    int status;
    json_object *install;
    int used;
} scripted;

typedef struct fake {
    struct MHD_Daemon *d;
    uint16_t port;
    pthread_mutex_t mu;
    stored objs[16];
    size_t nobjs;
    long rv;
    scripted script[4];
    size_t nscript;
    cw_buf log; /* "METHOD PATH\n" per request */
} fake;

static fake F;

static stored *find(const char *path)
{
    for (size_t i = 0; i < F.nobjs; i++)
        if (strcmp(F.objs[i].path, path) == 0)
            return &F.objs[i];
    return NULL;
}

/* Stores obj (owned) at path with the next resourceVersion. */
static void put(const char *path, json_object *obj)
{
    char rv[32];
    stored *s = find(path);
    if (!s) {
        s = &F.objs[F.nobjs++];
        s->path = strdup(path);
    } else {
        json_object_put(s->obj);
    }
    snprintf(rv, sizeof(rv), "%ld", ++F.rv);
    json_object *meta = cw_json_member(obj, "metadata");
    json_object_object_add(meta, "resourceVersion", json_object_new_string(rv));
    s->obj = obj;
}

static json_object *status(int code, const char *reason, const char *msg)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "kind", json_object_new_string("Status"));
    json_object_object_add(o, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(o, "status", json_object_new_string("Failure"));
    json_object_object_add(o, "message", json_object_new_string(msg));
    json_object_object_add(o, "reason", json_object_new_string(reason));
    json_object_object_add(o, "code", json_object_new_int(code));
    return o;
}

/* RFC 6901 pointer to the parent container and last token (arrays by index). */
static json_object *parent_of(json_object *doc, const char *ptr, char *last, size_t n)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", ptr);
    char *slash = strrchr(buf, '/');
    snprintf(last, n, "%s", slash + 1);
    *slash = '\0';
    json_object *cur = doc;
    for (char *tok = strtok(buf, "/"); tok && cur; tok = strtok(NULL, "/"))
        cur = json_object_is_type(cur, json_type_array)
                  ? json_object_array_get_idx(cur, (size_t)atoi(tok))
                  : cw_json_member(cur, tok);
    return cur;
}

/* Applies test/add/replace ops; 422 when a test fails. */
static int apply_patch(json_object *doc, json_object *ops)
{
    for (size_t i = 0; i < json_object_array_length(ops); i++) {
        json_object *op = json_object_array_get_idx(ops, i), *value = cw_json_member(op, "value");
        char last[128];
        json_object *parent = parent_of(doc, cw_json_path_string(op, "path"), last, sizeof(last));
        if (!parent)
            return 422;
        if (strcmp(cw_json_path_string(op, "op"), "test") == 0) {
            if (!json_object_equal(cw_json_member(parent, last), value))
                return 422;
            continue;
        }
        json_object *copy = NULL;
        json_object_deep_copy(value, &copy, NULL);
        json_object_object_add(parent, last, copy);
    }
    return 200;
}

typedef struct upload {
    cw_buf body;
} upload;

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *data,
                              size_t *size, void **req)
{
    (void)cls;
    (void)version;
    upload *u = *req;
    if (!u) {
        *req = u = calloc(1, sizeof(*u));
        cw_buf_init(&u->body);
        return MHD_YES;
    }
    if (*size) {
        cw_buf_append(&u->body, data, *size);
        *size = 0;
        return MHD_YES;
    }
    int code = 200;
    json_object *answer = NULL;
    pthread_mutex_lock(&F.mu);
    cw_buf_printf(&F.log, "%s %s\n", method, url);
    json_object *body = u->body.len ? json_tokener_parse(cw_buf_str(&u->body)) : NULL;
    char path[256];
    if (strcmp(method, "POST") == 0)
        snprintf(path, sizeof(path), "%s/%s", url, cw_json_path_string(body, "metadata.name"));
    else
        snprintf(path, sizeof(path), "%s", url);
    for (size_t i = 0; i < F.nscript; i++) {
        scripted *s = &F.script[i];
        if (s->used || strcmp(s->method, method) != 0 || strcmp(s->path, path) != 0)
            continue;
        s->used = 1;
        if (s->install) {
            put(path, s->install);
            s->install = NULL;
        }
        code = s->status;
        answer = status(code, code == 409 ? "Conflict" : "Invalid", "scripted");
        goto reply;
    }
    stored *st = find(path);
    if (strcmp(method, "GET") == 0) {
        if (!st) {
            code = 404;
            answer = status(404, "NotFound", "not found");
        } else {
            json_object_deep_copy(st->obj, &answer, NULL);
        }
    } else if (strcmp(method, "POST") == 0) {
        if (st) {
            code = 409;
            answer = status(409, "AlreadyExists", "already exists");
        } else {
            code = 201;
            put(path, json_object_get(body));
            json_object_deep_copy(find(path)->obj, &answer, NULL);
        }
    } else if (strcmp(method, "PUT") == 0) {
        const char *want = st ? cw_json_path_string(st->obj, "metadata.resourceVersion") : NULL;
        const char *got = cw_json_path_string(body, "metadata.resourceVersion");
        if (!st) {
            code = 404;
            answer = status(404, "NotFound", "not found");
        } else if (!got || strcmp(want, got) != 0) {
            code = 409;
            answer = status(409, "Conflict", "the object has been modified");
        } else {
            put(path, json_object_get(body));
            json_object_deep_copy(find(path)->obj, &answer, NULL);
        }
    } else if (strcmp(method, "PATCH") == 0 && st) {
        json_object *work = NULL;
        json_object_deep_copy(st->obj, &work, NULL);
        code = apply_patch(work, body);
        if (code == 200) {
            put(path, work);
            json_object_deep_copy(find(path)->obj, &answer, NULL);
        } else {
            json_object_put(work);
            answer = status(code, "Invalid", "the test operation failed");
        }
    } else {
        code = 404;
        answer = status(404, "NotFound", "not found");
    }
reply:
    pthread_mutex_unlock(&F.mu);
    const char *text = cw_json_compact(answer);
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)code, r);
    MHD_destroy_response(r);
    json_object_put(answer);
    json_object_put(body);
    return ret;
}

static void completed(void *cls, struct MHD_Connection *c, void **req,
                      enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    upload *u = *req;
    if (u) {
        cw_buf_free(&u->body);
        free(u);
    }
}

static json_object *config(const char *kind, int webhooks, const char *bundle)
{
    json_object *o = json_object_new_object(), *list = json_object_new_array();
    json_object_object_add(o, "kind", json_object_new_string(kind));
    json_object_object_add(o, "metadata", json_object_new_object());
    json_object_object_add(o, "webhooks", list);
    for (int i = 0; i < webhooks; i++) {
        json_object *w = json_object_new_object(), *cc = json_object_new_object();
        json_object_object_add(cc, "url", json_object_new_string("https://127.0.0.1:9443/x"));
        if (bundle)
            json_object_object_add(cc, "caBundle", json_object_new_string(bundle));
        json_object_object_add(w, "clientConfig", cc);
        json_object_array_add(list, w);
    }
    return o;
}

static void fake_reset(void)
{
    for (size_t i = 0; i < F.nobjs; i++) {
        free(F.objs[i].path);
        json_object_put(F.objs[i].obj);
    }
    for (size_t i = 0; i < F.nscript; i++)
        json_object_put(F.script[i].install);
    F.nobjs = F.nscript = 0;
    cw_buf_reset(&F.log);
    put(MUT "cw", config("MutatingWebhookConfiguration", 2, "Zm9v"));
    put(VAL "cw", config("ValidatingWebhookConfiguration", 1, NULL));
}

static void script(const char *method, const char *path, int status, json_object *install)
{
    F.script[F.nscript++] = (scripted){method, path, status, install, 0};
}

static char *take_log(void)
{
    pthread_mutex_lock(&F.mu);
    char *s = strdup(cw_buf_str(&F.log));
    cw_buf_reset(&F.log);
    pthread_mutex_unlock(&F.mu);
    return s;
}

/* ---- helpers ---- */

typedef struct replica {
    cw_kube_client *client;
    cw_certs_store store;
    cw_certs_selfsigned ss;
} replica;

static const char *configs_items[] = {"cw", "missing"};
static const char *ip_items[] = {"127.0.0.1"};

static int start(replica *r)
{
    cw_kube_config cfg;
    cw_kube_client_opts o;
    cw_error err;
    char server[64];
    cw_error_init(&err);
    cw_kube_config_init(&cfg);
    snprintf(server, sizeof(server), "http://127.0.0.1:%u", F.port);
    cfg.server = strdup(server);
    cw_kube_client_opts_init(&o);
    o.max_attempts = 1;
    o.qps = 0;
    assert_int_equal(cw_kube_client_new(&cfg, &o, &r->client, &err), CW_OK);
    cw_kube_config_free(&cfg);
    cw_certs_store_init(&r->store);
    cw_certs_selfsigned_init(&r->ss);
    cw_strlist configs = {.items = (char **)configs_items, .len = 2, .cap = 2},
               ips = {.items = (char **)ip_items, .len = 1, .cap = 1};
    cw_certs_selfsigned_opts so = {.secret = "cw-system/cw-tls",
                                   .service = "cw-system/cronwarden",
                                   .webhook_configs = &configs,
                                   .ip_addresses = &ips,
                                   .store = &r->store,
                                   .client = r->client};
    int rc = cw_certs_selfsigned_start(&r->ss, &so, &err);
    if (rc != CW_OK)
        fprintf(stderr, "start: %s\n", err.message);
    return rc;
}

static void stop(replica *r)
{
    cw_certs_selfsigned_free(&r->ss);
    cw_certs_store_free(&r->store);
    cw_kube_client_free(r->client);
}

static char *secret_pem(const char *key)
{
    pthread_mutex_lock(&F.mu);
    stored *s = find(SECRET_PATH);
    const char *b64 =
        s ? json_object_get_string(cw_json_member(cw_json_member(s->obj, "data"), key)) : NULL;
    char *out = NULL;
    if (b64) {
        size_t n = strlen(b64);
        out = calloc(1, n + 1);
        int len = EVP_DecodeBlock((unsigned char *)out, (const unsigned char *)b64, (int)n);
        len -= (b64[n - 1] == '=') + (b64[n - 2] == '=');
        out[len] = '\0';
    }
    pthread_mutex_unlock(&F.mu);
    return out;
}

static time_t not_after(const char *pem)
{
    cw_certs_info info;
    cw_error err;
    assert_int_equal(cw_certs_inspect(pem, strlen(pem), &info, &err), CW_OK);
    return info.not_after;
}

/* Every caBundle of both configurations equals want_b64 (collected under the lock, checked
 * outside it: a failing assertion must not leave the fake server locked). */
static void assert_bundles(const char *want_b64)
{
    cw_buf got;
    cw_buf_init(&got);
    pthread_mutex_lock(&F.mu);
    const char *paths[] = {MUT "cw", VAL "cw"};
    for (size_t p = 0; p < 2; p++) {
        json_object *list = cw_json_member(find(paths[p])->obj, "webhooks");
        for (size_t i = 0; i < json_object_array_length(list); i++) {
            const char *b =
                cw_json_path_string(json_object_array_get_idx(list, i), "clientConfig.caBundle");
            cw_buf_printf(&got, "%s\n", b ? b : "(none)");
        }
    }
    pthread_mutex_unlock(&F.mu);
    cw_buf want;
    cw_buf_init(&want);
    for (int i = 0; i < 3; i++)
        cw_buf_printf(&want, "%s\n", want_b64);
    assert_string_equal(cw_buf_str(&got), cw_buf_str(&want));
    cw_buf_free(&got);
    cw_buf_free(&want);
}

static char *secret_b64(const char *key)
{
    pthread_mutex_lock(&F.mu);
    char *s = strdup(json_object_get_string(
        cw_json_member(cw_json_member(find(SECRET_PATH)->obj, "data"), key)));
    pthread_mutex_unlock(&F.mu);
    return s;
}

static int count_certs(const char *pem)
{
    int n = 0;
    for (const char *p = pem; (p = strstr(p, "-----BEGIN CERTIFICATE-----")); p++)
        n++;
    return n;
}

/* ---- tests ---- */

static void creates_reuses_renews_and_rotates(void **state)
{
    (void)state;
    replica a, b;
    cw_error err;
    cw_error_init(&err);
    fake_reset();
    time_t now = time(NULL);

    assert_int_equal(start(&a), CW_OK);
    char *log = take_log();
    assert_string_equal(log, "GET " SECRET_PATH "\nPOST " SECRETS "\n"
                             "GET " MUT "cw\nPATCH " MUT "cw\nGET " VAL "cw\nPATCH " VAL "cw\n"
                             "GET " MUT "missing\nGET " VAL "missing\n");
    free(log);
    char *ca = secret_pem("ca.crt"), *leaf = secret_pem("tls.crt"), *ca_b64 = secret_b64("ca.crt");
    char *ca_key = secret_pem("ca.key");
    assert_non_null(strstr(ca_key, "-----BEGIN PRIVATE KEY-----"));
    free(ca_key);
    assert_true(labs((long)(not_after(leaf) - now - 365 * DAY)) < 60);
    assert_true(labs((long)(not_after(ca) - now - 3650 * DAY)) < 60);
    assert_int_equal(cw_certs_store_not_after(&a.store), not_after(leaf));
    assert_string_equal(a.ss.served_cert, leaf);
    assert_bundles(ca_b64);

    /* Nothing to do: reads only. */
    assert_int_equal(cw_certs_selfsigned_check(&a.ss, now + DAY, &err), CW_OK);
    log = take_log();
    assert_string_equal(log, "GET " SECRET_PATH "\nGET " MUT "cw\nGET " VAL "cw\n"
                             "GET " MUT "missing\nGET " VAL "missing\n");
    free(log);

    /* Replica B reuses the Secret. */
    assert_int_equal(start(&b), CW_OK);
    log = take_log();
    assert_null(strstr(log, "POST"));
    assert_null(strstr(log, "PUT"));
    assert_null(strstr(log, "PATCH"));
    free(log);
    assert_string_equal(b.ss.served_cert, leaf);

    /* 25 days before expiry: renewed under the same CA; B follows on its next check. */
    time_t later = now + 340 * DAY;
    assert_int_equal(cw_certs_selfsigned_check(&a.ss, later, &err), CW_OK);
    char *leaf2 = secret_pem("tls.crt");
    assert_string_not_equal(leaf2, leaf);
    assert_true(labs((long)(not_after(leaf2) - later - 365 * DAY)) < 60);
    char *ca_after = secret_pem("ca.crt");
    assert_string_equal(ca_after, ca);
    assert_string_equal(a.ss.served_cert, leaf2);
    assert_int_equal(cw_certs_selfsigned_check(&b.ss, later, &err), CW_OK);
    assert_string_equal(b.ss.served_cert, leaf2);
    assert_bundles(ca_b64);
    free(take_log());

    /* 10 days before the CA expires: a new CA, the old one kept behind it in ca.crt (and so in
     * every caBundle) while it is valid, and a serving certificate from the new CA. */
    time_t much_later = now + 3640 * DAY;
    assert_int_equal(cw_certs_selfsigned_check(&a.ss, much_later, &err), CW_OK);
    char *ca3 = secret_pem("ca.crt"), *leaf3 = secret_pem("tls.crt"),
         *ca3_b64 = secret_b64("ca.crt");
    assert_int_equal(count_certs(ca3), 2);
    assert_non_null(strstr(ca3 + 10, ca)); /* the old CA follows the new one */
    assert_true(labs((long)(not_after(ca3) - much_later - 3650 * DAY)) < 60);
    cw_certs_pem chain = {leaf3, secret_pem("tls.key")};
    cw_strlist none = {0};
    cw_certs_names names = {"x", &none, &none};
    assert_int_equal(cw_certs_check_leaf(ca3, &chain, &names, much_later, 0, &err), CW_OK);
    assert_bundles(ca3_b64);

    free(chain.key);
    free(ca);
    free(leaf);
    free(ca_b64);
    free(leaf2);
    free(ca_after);
    free(ca3);
    free(leaf3);
    free(ca3_b64);
    stop(&a);
    stop(&b);
}

/* A valid Secret made elsewhere (another replica): under `with_ca` (NULL: a CA of its own). */
static json_object *foreign_secret(const cw_certs_pem *with_ca, time_t now, long leaf_days,
                                   char **leaf_out)
{
    cw_certs_pem ca = {0}, leaf;
    cw_error err;
    static const char *dns_items[] = {"cronwarden.cw-system", "cronwarden.cw-system.svc",
                                      "cronwarden.cw-system.svc.cluster.local"};
    cw_strlist dns = {.items = (char **)dns_items, .len = 3, .cap = 3},
               ips = {.items = (char **)ip_items, .len = 1, .cap = 1};
    cw_certs_names names = {"cronwarden.cw-system.svc", &dns, &ips};
    if (with_ca) {
        ca.cert = strdup(with_ca->cert);
        ca.key = strdup(with_ca->key);
    } else {
        assert_int_equal(cw_certs_make_ca("other", 3650, now, &ca, &err), CW_OK);
    }
    assert_int_equal(cw_certs_make_leaf(&ca, &names, leaf_days, now, &leaf, &err), CW_OK);
    json_object *o = json_object_new_object(), *meta = json_object_new_object(),
                *data = json_object_new_object();
    json_object_object_add(o, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(o, "kind", json_object_new_string("Secret"));
    json_object_object_add(o, "type", json_object_new_string("kubernetes.io/tls"));
    json_object_object_add(meta, "name", json_object_new_string("cw-tls"));
    json_object_object_add(o, "metadata", meta);
    json_object_object_add(o, "data", data);
    const char *keys[] = {"tls.crt", "tls.key", "ca.crt", "ca.key"};
    const char *vals[] = {leaf.cert, leaf.key, ca.cert, ca.key};
    for (int i = 0; i < 4; i++) {
        size_t n = strlen(vals[i]);
        char *b = malloc(4 * ((n + 2) / 3) + 1);
        EVP_EncodeBlock((unsigned char *)b, (const unsigned char *)vals[i], (int)n);
        json_object_object_add(data, keys[i], json_object_new_string(b));
        free(b);
    }
    *leaf_out = strdup(leaf.cert);
    cw_certs_pem_free(&ca);
    cw_certs_pem_free(&leaf);
    return o;
}

static void conflicts_are_settled_by_re_reading(void **state)
{
    (void)state;
    replica a;
    cw_error err;
    cw_error_init(&err);
    fake_reset();
    time_t now = time(NULL);

    /* Creation race: another replica's Secret lands first; ours gets 409 and uses theirs. */
    char *winner;
    script("POST", SECRET_PATH, 409, foreign_secret(NULL, now, 365, &winner));
    /* And the first caBundle patch meets a concurrent write (its test op fails). */
    script("PATCH", MUT "cw", 422, NULL);
    assert_int_equal(start(&a), CW_OK);
    char *log = take_log();
    assert_string_equal(log, "GET " SECRET_PATH "\nPOST " SECRETS "\nGET " SECRET_PATH "\n"
                             "GET " MUT "cw\nPATCH " MUT "cw\nGET " MUT "cw\nPATCH " MUT "cw\n"
                             "GET " VAL "cw\nPATCH " VAL "cw\n"
                             "GET " MUT "missing\nGET " VAL "missing\n");
    free(log);
    assert_string_equal(a.ss.served_cert, winner);
    char *ca_b64 = secret_b64("ca.crt");
    assert_bundles(ca_b64);

    /* Renewal race: our PUT loses to a replica that renewed first (same CA); we re-read and
     * serve theirs instead of renewing again. */
    time_t later = now + 340 * DAY;
    char *renewed;
    cw_certs_pem stored_ca = {secret_pem("ca.crt"), secret_pem("ca.key")};
    script("PUT", SECRET_PATH, 409, foreign_secret(&stored_ca, later, 365, &renewed));
    cw_certs_pem_free(&stored_ca);
    assert_int_equal(cw_certs_selfsigned_check(&a.ss, later, &err), CW_OK);
    log = take_log();
    assert_string_equal(log,
                        "GET " SECRET_PATH "\nPUT " SECRET_PATH "\nGET " SECRET_PATH "\n"
                        "GET " MUT "cw\nGET " VAL "cw\nGET " MUT "missing\nGET " VAL "missing\n");
    free(log);
    assert_string_equal(a.ss.served_cert, renewed);
    char *leaf = secret_pem("tls.crt");
    assert_string_equal(leaf, renewed);
    assert_bundles(ca_b64);

    free(leaf);
    free(renewed);
    free(winner);
    free(ca_b64);
    stop(&a);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Takes the fake server's log: the Secret checks in it added to *checks; no check writes. */
static void take_checks(int *checks)
{
    char *log = take_log();
    *checks += count(log, "GET " SECRET_PATH "\n");
    assert_null(strstr(log, "PUT"));
    free(log);
}

/* The background refresher checks on its interval, no more often, and stops promptly when asked.
 * It waits for the second check instead of sleeping a fixed time: on a loaded machine (the test
 * run builds Kubernetes beside the unit tests) the thread may run late, which is no fault. */
static void refresher_runs_and_stops(void **state)
{
    (void)state;
    replica a;
    cw_error err;
    cw_error_init(&err);
    fake_reset();
    assert_int_equal(start(&a), CW_OK);
    free(take_log());
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(cw_certs_selfsigned_run(&a.ss, 0.2, &err), CW_OK);
    int checks = 0;
    struct timespec poll = {0, 50 * 1000000L};
    while (checks < 2 && seconds_since(&t0) < 30) {
        nanosleep(&poll, NULL);
        take_checks(&checks);
    }
    double ran = seconds_since(&t0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_int_equal(cw_certs_selfsigned_stop(&a.ss, 1), CW_OK);
    double stopping = seconds_since(&t1);
    take_checks(&checks);
    if (checks < 2)
        fail_msg("%d checks in %.1f s at a 0.2 s interval", checks, ran);
    /* No more than one a 0.2 s, counting one that was under way when stop was called. */
    int most = (int)((ran + stopping) / 0.2) + 1;
    if (checks > most)
        fail_msg("%d checks in %.2f s at a 0.2 s interval (at most %d)", checks, ran + stopping,
                 most);
    if (stopping >= 2)
        fail_msg("stop took %.1f s", stopping);
    stop(&a);
}

static int setup(void **state)
{
    (void)state;
    cw_log_configure(CW_LOG_OFF, CW_LOG_TEXT, stderr);
    pthread_mutex_init(&F.mu, NULL);
    cw_buf_init(&F.log);
    F.d =
        MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, handle,
                         NULL, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
    if (!F.d)
        return -1;
    F.port = MHD_get_daemon_info(F.d, MHD_DAEMON_INFO_BIND_PORT)->port;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    MHD_stop_daemon(F.d);
    fake_reset();
    for (size_t i = 0; i < F.nobjs; i++) {
        free(F.objs[i].path);
        json_object_put(F.objs[i].obj);
    }
    cw_buf_free(&F.log);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(creates_reuses_renews_and_rotates),
        cmocka_unit_test(conflicts_are_settled_by_re_reading),
        cmocka_unit_test(refresher_runs_and_stops),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
