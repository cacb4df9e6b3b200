/* --tls-cipher-suites and --tls-min-version, named as kube-apiserver names them, into a GnuTLS
 * priority string. Only forward-secret AEAD suites exist for TLS 1.2 here (ECDHE or DHE key
 * exchange with AES-GCM or ChaCha20-Poly1305). GnuTLS keeps one cipher list for TLS 1.2 and
 * 1.3, so the ciphers of the chosen suites are also TLS 1.3's (TLS_AES_* names are accepted and
 * change nothing). */
#ifndef CW_TLSPRIO_H
#define CW_TLSPRIO_H

#include "lib/error.h"
#include "lib/strlist.h"

/* suites: IANA names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ...), empty for the defaults;
 * min_version: "VersionTLS12" or "VersionTLS13". *out is the caller's. CW_EUSAGE names the
 * suite or version that cannot be had and lists what can. */
int cw_webhook_tls_priorities(const cw_strlist *suites, const char *min_version, char **out,
                              cw_error *err) CW_MUST_CHECK;

#endif
