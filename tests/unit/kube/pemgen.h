/* Test helper: throwaway P-256 keys and self-signed certificates as PEM strings. */
#ifndef CW_TEST_KUBE_PEMGEN_H
#define CW_TEST_KUBE_PEMGEN_H

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>

static char *pemgen_bio_string(BIO *b)
{
    char *p = NULL;
    long n = BIO_get_mem_data(b, &p);
    char *s = malloc((size_t)n + 1);
    memcpy(s, p, (size_t)n);
    s[n] = '\0';
    return s;
}

/* A key and a certificate for it (CN=cn); both PEM, caller frees. */
static void pemgen_pair(const char *cn, char **cert_pem, char **key_pem)
{
    EVP_PKEY *k = EVP_EC_gen("P-256");
    X509 *x = X509_new();
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), 0);
    X509_gmtime_adj(X509_getm_notAfter(x), 3600);
    X509_set_pubkey(x, k);
    X509_NAME *n = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
    X509_set_issuer_name(x, n);
    X509_sign(x, k, EVP_sha256());
    BIO *cb = BIO_new(BIO_s_mem()), *kb = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(cb, x);
    PEM_write_bio_PrivateKey(kb, k, NULL, NULL, 0, NULL, NULL);
    *cert_pem = pemgen_bio_string(cb);
    *key_pem = pemgen_bio_string(kb);
    BIO_free(cb);
    BIO_free(kb);
    X509_free(x);
    EVP_PKEY_free(k);
}

/* Single-line base64, as kubeconfig *-data fields hold it; caller frees. */
static char *pemgen_base64(const char *s)
{
    size_t len = strlen(s);
    char *out = malloc(4 * ((len + 2) / 3) + 1);
    EVP_EncodeBlock((unsigned char *)out, (const unsigned char *)s, (int)len);
    return out;
}

#endif
