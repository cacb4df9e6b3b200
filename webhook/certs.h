/* Certificate work with OpenSSL: inspect a PEM certificate/key pair (expiry, match), make a CA
 * and a serving certificate, and check that a serving certificate still fits (signed by the CA,
 * names covered, far enough from expiry). TLS serving itself is GnuTLS (see certstore.h). */
#ifndef CW_CERTS_H
#define CW_CERTS_H

#include <stddef.h>
#include <time.h>

#include "lib/error.h"
#include "lib/strlist.h"

typedef struct cw_certs_pem {
    char *cert; /* PEM, NUL-terminated */
    char *key;  /* PEM (PKCS#8), NUL-terminated */
} cw_certs_pem;

typedef struct cw_certs_info {
    time_t not_before, not_after;
} cw_certs_info;

/* What a serving certificate must cover. */
typedef struct cw_certs_names {
    const char *common_name;
    const cw_strlist *dns; /* subjectAltName DNS entries */
    const cw_strlist *ips; /* subjectAltName IP entries (IPv4 or IPv6 text) */
} cw_certs_names;

void cw_certs_pem_init(cw_certs_pem *p);
void cw_certs_pem_free(cw_certs_pem *p);

/* Validity of the first certificate in cert_pem. */
int cw_certs_inspect(const char *cert_pem, size_t cert_len, cw_certs_info *info,
                     cw_error *err) CW_MUST_CHECK;
/* As cw_certs_inspect, and key_pem must be the private key of that certificate. */
int cw_certs_inspect_pair(const char *cert_pem, size_t cert_len, const char *key_pem,
                          size_t key_len, cw_certs_info *info, cw_error *err) CW_MUST_CHECK;

/* A self-signed CA (ECDSA P-256, SHA-256), valid from now - 5 minutes for `days` days. */
int cw_certs_make_ca(const char *common_name, long days, time_t now, cw_certs_pem *out,
                     cw_error *err) CW_MUST_CHECK;
/* A serving certificate for `names` signed by ca (serverAuth, ECDSA P-256). */
int cw_certs_make_leaf(const cw_certs_pem *ca, const cw_certs_names *names, long days, time_t now,
                       cw_certs_pem *out, cw_error *err) CW_MUST_CHECK;

/* CW_OK when leaf (with its key) chains to ca_cert at `now`, covers every DNS name and IP of
 * `names` and stays valid for at least `min_remaining` seconds after now; otherwise CW_EINVAL
 * with the reason. */
int cw_certs_check_leaf(const char *ca_cert, const cw_certs_pem *leaf, const cw_certs_names *names,
                        time_t now, long min_remaining, cw_error *err) CW_MUST_CHECK;

#endif
