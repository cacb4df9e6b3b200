#include "webhook/certstore.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/yaml.h"
#include "webhook/certs.h"

#define MAX_CHAIN 16

struct cw_certs_cred {
    atomic_int refs;
    gnutls_pcert_st pcerts[MAX_CHAIN];
    unsigned npcerts;
    gnutls_privkey_t key;
    time_t not_after;
};

static void cred_free(cw_certs_cred *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < c->npcerts; i++)
        gnutls_pcert_deinit(&c->pcerts[i]);
    if (c->key)
        gnutls_privkey_deinit(c->key);
    free(c);
}

void cw_certs_cred_release(cw_certs_cred *c)
{
    if (c && atomic_fetch_sub(&c->refs, 1) == 1)
        cred_free(c);
}

void cw_certs_cred_gnutls(cw_certs_cred *c, gnutls_pcert_st **pcerts, unsigned *npcerts,
                          gnutls_privkey_t *key)
{
    *pcerts = c->pcerts;
    *npcerts = c->npcerts;
    *key = c->key;
}

time_t cw_certs_cred_not_after(const cw_certs_cred *c)
{
    return c ? c->not_after : 0;
}

void cw_certs_store_init(cw_certs_store *s)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->lock, NULL);
}

void cw_certs_store_free(cw_certs_store *s)
{
    cw_certs_cred_release(s->current);
    free(s->cert_path);
    free(s->key_path);
    pthread_mutex_destroy(&s->lock);
    memset(s, 0, sizeof(*s));
}

cw_certs_cred *cw_certs_store_acquire(cw_certs_store *s)
{
    pthread_mutex_lock(&s->lock);
    cw_certs_cred *c = s->current;
    if (c)
        atomic_fetch_add(&c->refs, 1);
    pthread_mutex_unlock(&s->lock);
    return c;
}

time_t cw_certs_store_not_after(cw_certs_store *s)
{
    pthread_mutex_lock(&s->lock);
    time_t t = s->current ? s->current->not_after : 0;
    pthread_mutex_unlock(&s->lock);
    return t;
}

/* OpenSSL checks the pair and reads the expiry; GnuTLS imports what it will serve. */
static int make_cred(const char *cert_pem, size_t cert_len, const char *key_pem, size_t key_len,
                     cw_certs_cred **out, cw_error *err)
{
    int rc = CW_OK, g;
    cw_certs_info info;
    *out = NULL;
    if ((rc = cw_certs_inspect_pair(cert_pem, cert_len, key_pem, key_len, &info, err)) != CW_OK)
        return rc;
    cw_certs_cred *c = calloc(1, sizeof(*c));
    if (!c)
        return cw_error_oom(err);
    atomic_init(&c->refs, 1);
    c->not_after = info.not_after;
    gnutls_datum_t cd = {(unsigned char *)cert_pem, (unsigned)cert_len};
    gnutls_datum_t kd = {(unsigned char *)key_pem, (unsigned)key_len};
    unsigned n = MAX_CHAIN;
    if ((g = gnutls_pcert_list_import_x509_raw(c->pcerts, &n, &cd, GNUTLS_X509_FMT_PEM, 0)) < 0) {
        rc = cw_error_set(err, CW_EINVAL, "certificate chain: %s", gnutls_strerror(g));
        goto done;
    }
    c->npcerts = n;
    if ((g = gnutls_privkey_init(&c->key)) < 0 ||
        (g = gnutls_privkey_import_x509_raw(c->key, &kd, GNUTLS_X509_FMT_PEM, NULL, 0)) < 0) {
        rc = cw_error_set(err, CW_EINVAL, "private key: %s", gnutls_strerror(g));
        goto done;
    }
    *out = c;
    c = NULL;
done:
    cred_free(c);
    return rc;
}

static void publish(cw_certs_store *s, cw_certs_cred *c)
{
    pthread_mutex_lock(&s->lock);
    cw_certs_cred *old = s->current;
    s->current = c;
    pthread_mutex_unlock(&s->lock);
    cw_certs_cred_release(old); /* sessions still holding it keep it alive */
}

int cw_certs_store_set_pem(cw_certs_store *s, const char *cert_pem, size_t cert_len,
                           const char *key_pem, size_t key_len, cw_error *err)
{
    cw_certs_cred *c = NULL;
    int rc = make_cred(cert_pem, cert_len, key_pem, key_len, &c, err);
    if (rc == CW_OK)
        publish(s, c);
    return rc;
}

static void file_sig(const char *path, cw_certs_filesig *sig)
{
    struct stat st;
    memset(sig, 0, sizeof(*sig));
    if (stat(path, &st) != 0)
        return;
    sig->exists = 1;
    sig->dev = st.st_dev;
    sig->ino = st.st_ino;
    sig->mtime = st.st_mtim;
    sig->size = st.st_size;
}

static int sig_equal(const cw_certs_filesig *a, const cw_certs_filesig *b)
{
    return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino &&
           a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
           a->size == b->size;
}

/* Reads both files and builds a credential. The signatures are taken before reading and
 * checked after, so a pair caught mid-write is retried on the next poll instead of refused. */
static int load_files(cw_certs_store *s, cw_certs_filesig *cs, cw_certs_filesig *ks,
                      cw_certs_cred **out, int *unstable, cw_error *err)
{
    char *cert = NULL, *key = NULL;
    size_t cert_len = 0, key_len = 0;
    cw_certs_filesig cs2, ks2;
    int rc;
    *unstable = 0;
    file_sig(s->cert_path, cs);
    file_sig(s->key_path, ks);
    if ((rc = cw_file_read(s->cert_path, &cert, &cert_len, err)) != CW_OK ||
        (rc = cw_file_read(s->key_path, &key, &key_len, err)) != CW_OK)
        goto done;
    file_sig(s->cert_path, &cs2);
    file_sig(s->key_path, &ks2);
    if (!sig_equal(cs, &cs2) || !sig_equal(ks, &ks2)) {
        *unstable = 1;
        rc = cw_error_set(err, CW_EIO, "the files changed while being read");
        goto done;
    }
    rc = make_cred(cert, cert_len, key, key_len, out, err);
    if (rc != CW_OK)
        cw_error_prefix(err, "%s, %s", s->cert_path, s->key_path);
done:
    if (key) {
        memset(key, 0, key_len);
        free(key);
    }
    free(cert);
    return rc;
}

int cw_certs_store_watch(cw_certs_store *s, const char *cert_path, const char *key_path,
                         cw_error *err)
{
    cw_certs_cred *c = NULL;
    cw_certs_filesig cs, ks;
    int unstable;
    free(s->cert_path);
    free(s->key_path);
    s->cert_path = strdup(cert_path);
    s->key_path = strdup(key_path);
    if (!s->cert_path || !s->key_path)
        return cw_error_oom(err);
    int rc = load_files(s, &cs, &ks, &c, &unstable, err);
    if (rc != CW_OK)
        return rc;
    s->cert_sig = cs;
    s->key_sig = ks;
    publish(s, c);
    return CW_OK;
}

int cw_certs_store_poll(cw_certs_store *s, int *changed, cw_error *err)
{
    cw_certs_filesig cs, ks;
    cw_certs_cred *c = NULL;
    int unstable = 0;
    *changed = 0;
    if (!s->cert_path)
        return CW_OK;
    file_sig(s->cert_path, &cs);
    file_sig(s->key_path, &ks);
    if (sig_equal(&cs, &s->cert_sig) && sig_equal(&ks, &s->key_sig))
        return CW_OK;
    if (sig_equal(&cs, &s->failed_cert) && sig_equal(&ks, &s->failed_key))
        return CW_OK; /* already refused and reported */
    int rc = load_files(s, &cs, &ks, &c, &unstable, err);
    if (unstable)
        return CW_OK;
    if (rc != CW_OK) {
        s->failed_cert = cs;
        s->failed_key = ks;
        return rc;
    }
    s->cert_sig = cs;
    s->key_sig = ks;
    publish(s, c);
    *changed = 1;
    return CW_OK;
}
