/* PEM sanity checks with OpenSSL, so that a broken credential is reported at load time with the
 * field that holds it rather than as a TLS failure. */
#include "kube/internal.h"

#include <limits.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>

/* Never prompt for a passphrase: an encrypted key fails to load instead. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)u;
    return -1;
}

static const char *openssl_reason(void)
{
    unsigned long e = ERR_peek_last_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;
    return r ? r : "no PEM data";
}

int cw_kube_pem_check(const char *pem, size_t len, cw_kube_pem_kind kind, cw_error *err)
{
    int rc = CW_OK;
    BIO *bio = NULL;
    STACK_OF(X509_INFO) *infos = NULL;
    X509 *cert = NULL;
    EVP_PKEY *key = NULL;
    if (len > INT_MAX)
        return cw_error_set(err, CW_ELIMIT, "PEM data is too large");
    ERR_clear_error();
    bio = BIO_new_mem_buf(pem, (int)len);
    if (!bio) {
        rc = cw_error_oom(err);
        goto done;
    }
    switch (kind) {
    case CW_KUBE_PEM_CA: {
        infos = PEM_X509_INFO_read_bio(bio, NULL, no_passphrase, NULL);
        int certs = 0;
        for (int i = 0; infos && i < sk_X509_INFO_num(infos); i++)
            certs += sk_X509_INFO_value(infos, i)->x509 != NULL;
        if (certs == 0)
            rc = cw_error_set(err, CW_EINVAL, "no PEM certificate found (%s)", openssl_reason());
        break;
    }
    case CW_KUBE_PEM_CERT:
        cert = PEM_read_bio_X509(bio, NULL, no_passphrase, NULL);
        if (!cert)
            rc = cw_error_set(err, CW_EINVAL, "no PEM certificate found (%s)", openssl_reason());
        break;
    case CW_KUBE_PEM_KEY:
        key = PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, NULL);
        if (!key)
            rc = cw_error_set(err, CW_EINVAL, "no unencrypted PEM private key found (%s)",
                              openssl_reason());
        break;
    }
done:
    sk_X509_INFO_pop_free(infos, X509_INFO_free);
    X509_free(cert);
    EVP_PKEY_free(key);
    BIO_free(bio);
    ERR_clear_error();
    return rc;
}

int cw_kube_pem_check_pair(const char *cert_pem, size_t cert_len, const char *key_pem,
                           size_t key_len, cw_error *err)
{
    int rc = CW_OK;
    BIO *cb = NULL, *kb = NULL;
    X509 *cert = NULL;
    EVP_PKEY *key = NULL;
    if (cert_len > INT_MAX || key_len > INT_MAX)
        return cw_error_set(err, CW_ELIMIT, "PEM data is too large");
    ERR_clear_error();
    cb = BIO_new_mem_buf(cert_pem, (int)cert_len);
    kb = BIO_new_mem_buf(key_pem, (int)key_len);
    if (!cb || !kb) {
        rc = cw_error_oom(err);
        goto done;
    }
    cert = PEM_read_bio_X509(cb, NULL, no_passphrase, NULL);
    key = PEM_read_bio_PrivateKey(kb, NULL, no_passphrase, NULL);
    if (!cert || !key || X509_check_private_key(cert, key) != 1)
        rc = cw_error_set(err, CW_EINVAL, "the client certificate and key do not match");
done:
    X509_free(cert);
    EVP_PKEY_free(key);
    BIO_free(cb);
    BIO_free(kb);
    ERR_clear_error();
    return rc;
}
