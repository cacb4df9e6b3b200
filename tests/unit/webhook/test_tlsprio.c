/* webhook/tlsprio: kube-apiserver's --tls-cipher-suites and --tls-min-version as GnuTLS priority
 * strings, exactly, and the refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gnutls/gnutls.h>

#include "webhook/server.h"
#include "webhook/tlsprio.h"

static const struct {
    const char *suites; /* comma list, "" for none */
    const char *min;
    int rc;
    const char *want; /* the priority string, or the start of the error */
} cases[] = {
    {"", "VersionTLS12", CW_OK,
     "NONE:+VERS-TLS1.3:+VERS-TLS1.2:+ECDHE-ECDSA:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:"
     "+ECDHE-RSA:+DHE-RSA:+AEAD:+SIGN-ALL:+GROUP-ALL:+COMP-NULL:+CTYPE-X509"},
    {"", "VersionTLS13", CW_OK,
     "NONE:+VERS-TLS1.3:+ECDHE-ECDSA:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:+ECDHE-RSA:"
     "+DHE-RSA:+AEAD:+SIGN-ALL:+GROUP-ALL:+COMP-NULL:+CTYPE-X509"},
    {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,TLS_AES_128_GCM_SHA256", "", CW_OK,
     "NONE:+VERS-TLS1.3:+VERS-TLS1.2:+ECDHE-RSA:+AES-256-GCM:+AEAD:+SIGN-ALL:+GROUP-ALL:+COMP-NULL:"
     "+CTYPE-X509"},
    {"TLS_RSA_WITH_AES_128_CBC_SHA", "", CW_EUSAGE,
     "--tls-cipher-suites: TLS_RSA_WITH_AES_128_CBC_SHA is not offered (only forward-secret AEAD "
     "suites are: TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,"},
    {"", "VersionTLS11", CW_EUSAGE,
     "--tls-min-version: VersionTLS11 cannot be had (VersionTLS12 or VersionTLS13)"},
};

static void priorities_from_kube_flags(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_strlist suites;
        cw_strlist_init(&suites);
        char *copy = strdup(cases[i].suites), *save = NULL;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
            assert_int_equal(cw_strlist_add(&suites, t), CW_OK);
        free(copy);
        cw_error err;
        cw_error_init(&err);
        char *out = NULL;
        assert_int_equal(cw_webhook_tls_priorities(&suites, cases[i].min, &out, &err), cases[i].rc);
        if (cases[i].rc == CW_OK) {
            assert_string_equal(out, cases[i].want);
            const char *where = NULL;
            gnutls_priority_t p;
            assert_int_equal(gnutls_priority_init(&p, out, &where), GNUTLS_E_SUCCESS);
            gnutls_priority_deinit(p);
        } else {
            assert_memory_equal(err.message, cases[i].want, strlen(cases[i].want));
        }
        free(out);
        cw_strlist_free(&suites);
    }
    /* the server's default is a valid priority string too */
    gnutls_priority_t p;
    assert_int_equal(gnutls_priority_init(&p, CW_WEBHOOK_PRIORITIES, NULL), GNUTLS_E_SUCCESS);
    gnutls_priority_deinit(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(priorities_from_kube_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
