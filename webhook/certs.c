#include "webhook/certs.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <string.h>

#include "lib/secret.h"
#include "lib/buf.h"

void cw_certs_pem_init(cw_certs_pem *p)
{
    p->cert = p->key = NULL;
}

void cw_certs_pem_free(cw_certs_pem *p)
{
    free(p->cert);
    cw_secret_free(p->key);
    cw_certs_pem_init(p);
}

/* The first queued OpenSSL error, for messages; clears the queue. */
static const char *ossl_reason(char *buf, size_t n)
{
    unsigned long e = ERR_get_error();
    if (!e)
        snprintf(buf, n, "unknown error");
    else
        ERR_error_string_n(e, buf, n);
    ERR_clear_error();
    return buf;
}

static X509 *read_cert(const char *pem, size_t len)
{
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    X509 *x = bio ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);
    return x;
}

static EVP_PKEY *read_key(const char *pem, size_t len)
{
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    EVP_PKEY *k = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);
    return k;
}

static int asn1_time(const ASN1_TIME *t, time_t *out)
{
    struct tm tm;
    if (!t || ASN1_TIME_to_tm(t, &tm) != 1)
        return CW_EINVAL;
    *out = timegm(&tm);
    return CW_OK;
}

static int fill_info(X509 *x, cw_certs_info *info, cw_error *err)
{
    if (asn1_time(X509_get0_notBefore(x), &info->not_before) != CW_OK ||
        asn1_time(X509_get0_notAfter(x), &info->not_after) != CW_OK)
        return cw_error_set(err, CW_EINVAL, "certificate: unreadable validity period");
    return CW_OK;
}

int cw_certs_inspect(const char *cert_pem, size_t cert_len, cw_certs_info *info, cw_error *err)
{
    char why[256];
    X509 *x = read_cert(cert_pem, cert_len);
    if (!x)
        return cw_error_set(err, CW_EINVAL, "certificate: not a PEM certificate (%s)",
                            ossl_reason(why, sizeof(why)));
    int rc = fill_info(x, info, err);
    X509_free(x);
    return rc;
}

int cw_certs_inspect_pair(const char *cert_pem, size_t cert_len, const char *key_pem,
                          size_t key_len, cw_certs_info *info, cw_error *err)
{
    char why[256];
    int rc = CW_OK;
    EVP_PKEY *key = NULL;
    X509 *x = read_cert(cert_pem, cert_len);
    if (!x) {
        rc = cw_error_set(err, CW_EINVAL, "certificate: not a PEM certificate (%s)",
                          ossl_reason(why, sizeof(why)));
        goto done;
    }
    if (!(key = read_key(key_pem, key_len))) {
        rc = cw_error_set(err, CW_EINVAL, "private key: not a PEM private key (%s)",
                          ossl_reason(why, sizeof(why)));
        goto done;
    }
    if (X509_check_private_key(x, key) != 1) {
        ERR_clear_error();
        rc = cw_error_set(err, CW_EINVAL, "the private key does not belong to the certificate");
        goto done;
    }
    rc = fill_info(x, info, err);
done:
    EVP_PKEY_free(key);
    X509_free(x);
    return rc;
}

static int add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!ext)
        return CW_EINVAL;
    int ok = X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
    return ok ? CW_OK : CW_ENOMEM;
}

static char *bio_string(BIO *bio)
{
    char *data = NULL;
    long n = BIO_get_mem_data(bio, &data);
    return n > 0 ? strndup(data, (size_t)n) : NULL;
}

static int to_pem(X509 *x, EVP_PKEY *key, cw_certs_pem *out)
{
    int rc = CW_ENOMEM;
    BIO *cb = BIO_new(BIO_s_mem()), *kb = BIO_new(BIO_s_mem());
    if (!cb || !kb || PEM_write_bio_X509(cb, x) != 1 ||
        PEM_write_bio_PrivateKey(kb, key, NULL, NULL, 0, NULL, NULL) != 1)
        goto done;
    out->cert = bio_string(cb);
    out->key = bio_string(kb);
    if (!out->cert || !out->key) {
        cw_certs_pem_free(out);
        goto done;
    }
    rc = CW_OK;
done:
    BIO_free(cb);
    BIO_free(kb);
    return rc;
}

/* Common skeleton: version 3, random 127-bit serial, validity, subject, public key. */
static X509 *new_cert(const char *cn, EVP_PKEY *key, long days, time_t now)
{
    X509 *x = X509_new();
    BIGNUM *bn = BN_new();
    X509_NAME *name = X509_NAME_new();
    int ok = x && bn && name && X509_set_version(x, 2) &&
             BN_rand(bn, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) &&
             BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) &&
             X509_time_adj_ex(X509_getm_notBefore(x), 0, -300, &now) && /* clock skew */
             X509_time_adj_ex(X509_getm_notAfter(x), (int)days, 0, &now) &&
             X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)cn, -1,
                                        -1, 0) &&
             X509_set_subject_name(x, name) && X509_set_pubkey(x, key);
    BN_free(bn);
    X509_NAME_free(name);
    if (!ok) {
        X509_free(x);
        return NULL;
    }
    return x;
}

int cw_certs_make_ca(const char *common_name, long days, time_t now, cw_certs_pem *out,
                     cw_error *err)
{
    char why[256];
    int rc = CW_OK;
    X509 *x = NULL;
    cw_certs_pem_init(out);
    EVP_PKEY *key = EVP_EC_gen("P-256");
    if (!key || !(x = new_cert(common_name, key, days, now)) ||
        !X509_set_issuer_name(x, X509_get_subject_name(x)) ||
        add_ext(x, x, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") != CW_OK ||
        add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign") != CW_OK ||
        add_ext(x, x, NID_subject_key_identifier, "hash") != CW_OK ||
        !X509_sign(x, key, EVP_sha256()) || to_pem(x, key, out) != CW_OK) {
        rc = cw_error_set(err, CW_ENOMEM, "making the CA certificate: %s",
                          ossl_reason(why, sizeof(why)));
        goto done;
    }
done:
    X509_free(x);
    EVP_PKEY_free(key);
    return rc;
}

static int san_text(const cw_certs_names *names, cw_buf *b)
{
    int rc = CW_OK;
    for (size_t i = 0; names->dns && i < names->dns->len && rc == CW_OK; i++)
        rc = cw_buf_printf(b, "%sDNS:%s", b->len ? "," : "", names->dns->items[i]);
    for (size_t i = 0; names->ips && i < names->ips->len && rc == CW_OK; i++)
        rc = cw_buf_printf(b, "%sIP:%s", b->len ? "," : "", names->ips->items[i]);
    return rc;
}

int cw_certs_make_leaf(const cw_certs_pem *ca, const cw_certs_names *names, long days, time_t now,
                       cw_certs_pem *out, cw_error *err)
{
    char why[256];
    int rc = CW_OK;
    X509 *x = NULL, *cax = NULL;
    EVP_PKEY *key = NULL, *cakey = NULL;
    cw_buf san;
    cw_buf_init(&san);
    cw_certs_pem_init(out);

    if (!ca->cert || !ca->key || !(cax = read_cert(ca->cert, strlen(ca->cert))) ||
        !(cakey = read_key(ca->key, strlen(ca->key)))) {
        rc = cw_error_set(err, CW_EINVAL, "the CA certificate or key is not readable PEM");
        goto done;
    }
    if ((rc = san_text(names, &san)) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    if (san.len == 0) {
        rc =
            cw_error_set(err, CW_EINVAL, "a serving certificate needs at least one DNS name or IP");
        goto done;
    }
    if (!(key = EVP_EC_gen("P-256")) || !(x = new_cert(names->common_name, key, days, now)) ||
        !X509_set_issuer_name(x, X509_get_subject_name(cax)) ||
        add_ext(x, cax, NID_basic_constraints, "critical,CA:FALSE") != CW_OK ||
        add_ext(x, cax, NID_key_usage, "critical,digitalSignature") != CW_OK ||
        add_ext(x, cax, NID_ext_key_usage, "serverAuth") != CW_OK ||
        add_ext(x, cax, NID_authority_key_identifier, "keyid:always") != CW_OK) {
        rc = cw_error_set(err, CW_ENOMEM, "making the serving certificate: %s",
                          ossl_reason(why, sizeof(why)));
        goto done;
    }
    if (add_ext(x, cax, NID_subject_alt_name, cw_buf_str(&san)) != CW_OK) {
        rc = cw_error_set(err, CW_EINVAL, "subjectAltName '%s' is not valid", cw_buf_str(&san));
        ERR_clear_error();
        goto done;
    }
    if (!X509_sign(x, cakey, EVP_sha256()) || to_pem(x, key, out) != CW_OK) {
        rc = cw_error_set(err, CW_ENOMEM, "signing the serving certificate: %s",
                          ossl_reason(why, sizeof(why)));
        goto done;
    }
done:
    cw_buf_free(&san);
    X509_free(x);
    X509_free(cax);
    EVP_PKEY_free(key);
    EVP_PKEY_free(cakey);
    return rc;
}

int cw_certs_check_leaf(const char *ca_cert, const cw_certs_pem *leaf, const cw_certs_names *names,
                        time_t now, long min_remaining, cw_error *err)
{
    int rc = CW_OK;
    X509 *cax = NULL, *x = NULL;
    X509_STORE *store = NULL;
    X509_STORE_CTX *ctx = NULL;
    cw_certs_info info;

    if (!ca_cert || !leaf->cert || !leaf->key)
        return cw_error_set(err, CW_EINVAL, "certificate, key or CA missing");
    if ((rc = cw_certs_inspect_pair(leaf->cert, strlen(leaf->cert), leaf->key, strlen(leaf->key),
                                    &info, err)) != CW_OK)
        goto done;
    if (info.not_after - now < min_remaining) {
        rc = cw_error_set(err, CW_EINVAL, "the serving certificate expires in %ld days",
                          (long)((info.not_after - now) / 86400));
        goto done;
    }
    if (!(cax = read_cert(ca_cert, strlen(ca_cert))) ||
        !(x = read_cert(leaf->cert, strlen(leaf->cert)))) {
        rc = cw_error_set(err, CW_EINVAL, "the CA certificate is not readable PEM");
        goto done;
    }
    store = X509_STORE_new();
    ctx = X509_STORE_CTX_new();
    if (!store || !ctx || X509_STORE_add_cert(store, cax) != 1 ||
        X509_STORE_CTX_init(ctx, store, x, NULL) != 1) {
        rc = cw_error_oom(err);
        goto done;
    }
    X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx), now);
    if (X509_verify_cert(ctx) != 1) {
        rc = cw_error_set(err, CW_EINVAL, "the serving certificate does not chain to the CA: %s",
                          X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
        goto done;
    }
    for (size_t i = 0; names->dns && i < names->dns->len; i++) {
        if (X509_check_host(x, names->dns->items[i], 0, X509_CHECK_FLAG_NO_WILDCARDS, NULL) != 1) {
            rc = cw_error_set(err, CW_EINVAL, "the serving certificate does not cover %s",
                              names->dns->items[i]);
            goto done;
        }
    }
    for (size_t i = 0; names->ips && i < names->ips->len; i++) {
        if (X509_check_ip_asc(x, names->ips->items[i], 0) != 1) {
            rc = cw_error_set(err, CW_EINVAL, "the serving certificate does not cover %s",
                              names->ips->items[i]);
            goto done;
        }
    }
done:
    ERR_clear_error();
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    X509_free(x);
    X509_free(cax);
    return rc;
}
