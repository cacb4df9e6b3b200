#include "webhook/tlsprio.h"

#include <stdio.h>
#include <string.h>

#include "lib/buf.h"

static const struct {
    const char *iana, *kx, *cipher;
} suites[] = {
    {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA", "AES-128-GCM"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA", "AES-256-GCM"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA", "CHACHA20-POLY1305"},
    {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA", "AES-128-GCM"},
    {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA", "AES-256-GCM"},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA", "CHACHA20-POLY1305"},
    {"TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", "DHE-RSA", "AES-128-GCM"},
    {"TLS_DHE_RSA_WITH_AES_256_GCM_SHA384", "DHE-RSA", "AES-256-GCM"},
};
#define NSUITES (sizeof(suites) / sizeof(suites[0]))

/* Adds "+token:" unless the priority string has it already. */
static int add_token(cw_buf *b, const char *token)
{
    char want[64];
    snprintf(want, sizeof(want), ":+%s:", token);
    if (strstr(cw_buf_str(b), want))
        return CW_OK;
    return cw_buf_printf(b, "+%s:", token);
}

static int unknown_suite(const char *name, cw_error *err)
{
    cw_buf known;
    cw_buf_init(&known);
    for (size_t i = 0; i < NSUITES; i++)
        cw_buf_printf(&known, "%s%s", i ? ", " : "", suites[i].iana);
    int rc = cw_error_set(err, CW_EUSAGE,
                          "--tls-cipher-suites: %s is not offered (only forward-secret AEAD suites "
                          "are: %s; TLS 1.3's are always on)",
                          name, cw_buf_str(&known));
    cw_buf_free(&known);
    return rc;
}

int cw_webhook_tls_priorities(const cw_strlist *chosen, const char *min_version, char **out,
                              cw_error *err)
{
    int tls13_only;
    *out = NULL;
    if (!min_version || !*min_version || !strcmp(min_version, "VersionTLS12"))
        tls13_only = 0;
    else if (!strcmp(min_version, "VersionTLS13"))
        tls13_only = 1;
    else
        return cw_error_set(err, CW_EUSAGE,
                            "--tls-min-version: %s cannot be had (VersionTLS12 or VersionTLS13)",
                            min_version);
    cw_buf b;
    cw_buf_init(&b);
    cw_buf_puts(&b, tls13_only ? "NONE:+VERS-TLS1.3:" : "NONE:+VERS-TLS1.3:+VERS-TLS1.2:");
    /* GnuTLS has one cipher list for both versions: the chosen suites' ciphers serve TLS 1.3
     * too (Go's client offers all three TLS 1.3 suites, so any one of them does) */
    int rc = CW_OK;
    for (size_t i = 0; i < NSUITES && !(chosen && chosen->len); i++)
        if ((rc = add_token(&b, suites[i].kx)) == CW_OK)
            rc = add_token(&b, suites[i].cipher);
    for (size_t k = 0; rc == CW_OK && chosen && k < chosen->len; k++) {
        size_t i = 0;
        while (i < NSUITES && strcmp(suites[i].iana, chosen->items[k]))
            i++;
        if (i == NSUITES && strncmp(chosen->items[k], "TLS_AES_", 8) &&
            strcmp(chosen->items[k], "TLS_CHACHA20_POLY1305_SHA256")) {
            cw_buf_free(&b);
            return unknown_suite(chosen->items[k], err);
        }
        if (i < NSUITES && (rc = add_token(&b, suites[i].kx)) == CW_OK)
            rc = add_token(&b, suites[i].cipher);
    }
    cw_buf_puts(&b, "+AEAD:+SIGN-ALL:+GROUP-ALL:+COMP-NULL:+CTYPE-X509");
    if (rc != CW_OK || cw_buf_error(&b) != CW_OK) {
        cw_buf_free(&b);
        return cw_error_oom(err);
    }
    *out = cw_buf_detach(&b);
    return *out ? CW_OK : cw_error_oom(err);
}
