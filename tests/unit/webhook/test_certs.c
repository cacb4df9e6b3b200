/* webhook/certs (OpenSSL) and webhook/certstore (GnuTLS credentials, file reload). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "webhook/certs.h"
#include "webhook/certstore.h"

#define NOW ((time_t)1767225600) /* 2026-01-01T00:00:00Z */

static const char *dns_items[] = {"cronwarden.cw-system.svc", "cronwarden.cw-system"};
static const char *ip_items[] = {"127.0.0.1", "::1"};

static void make_pair(cw_certs_pem *ca, cw_certs_pem *leaf, long days)
{
    cw_error err;
    cw_strlist dns = {.items = (char **)dns_items, .len = 2, .cap = 2},
               ips = {.items = (char **)ip_items, .len = 2, .cap = 2};
    cw_certs_names names = {"cronwarden.cw-system.svc", &dns, &ips};
    cw_error_init(&err);
    assert_int_equal(cw_certs_make_ca("test-ca", 3650, NOW, ca, &err), CW_OK);
    assert_int_equal(cw_certs_make_leaf(ca, &names, days, NOW, leaf, &err), CW_OK);
}

static void generated_certificates_check_out(void **state)
{
    (void)state;
    cw_certs_pem ca, leaf, other_ca, other_leaf;
    cw_certs_info info;
    cw_error err;
    cw_error_init(&err);
    make_pair(&ca, &leaf, 365);
    make_pair(&other_ca, &other_leaf, 10);

    assert_int_equal(cw_certs_inspect_pair(leaf.cert, strlen(leaf.cert), leaf.key, strlen(leaf.key),
                                           &info, &err),
                     CW_OK);
    assert_int_equal(info.not_before, NOW - 300);
    assert_int_equal(info.not_after, NOW + 365 * 86400);
    assert_int_equal(cw_certs_inspect(ca.cert, strlen(ca.cert), &info, &err), CW_OK);
    assert_int_equal(info.not_after, NOW + 3650L * 86400);
    assert_non_null(strstr(leaf.key, "-----BEGIN PRIVATE KEY-----"));

    cw_strlist dns = {.items = (char **)dns_items, .len = 2, .cap = 2},
               ips = {.items = (char **)ip_items, .len = 2, .cap = 2};
    static const char *more_items[] = {"cronwarden.cw-system.svc.cluster.local"};
    cw_strlist more = {.items = (char **)more_items, .len = 1, .cap = 1};
    cw_certs_names names = {"x", &dns, &ips}, wider = {"x", &more, NULL};
    static const struct {
        const char *what;
        int other_ca, other_key, wider, rc;
        time_t at;
        long min_remaining;
        const char *message;
    } cases[] = {
        {"fits", 0, 0, 0, CW_OK, NOW, 30L * 86400, ""},
        {"expiring soon", 0, 0, 0, CW_EINVAL, NOW + 340L * 86400, 30L * 86400,
         "the serving certificate expires in 25 days"},
        {"signed by another CA", 1, 0, 0, CW_EINVAL, NOW, 0,
         "the serving certificate does not chain to the CA: unable to get local issuer "
         "certificate"},
        {"key of another certificate", 0, 1, 0, CW_EINVAL, NOW, 0,
         "the private key does not belong to the certificate"},
        {"a name it does not cover", 0, 0, 1, CW_EINVAL, NOW, 0,
         "the serving certificate does not cover cronwarden.cw-system.svc.cluster.local"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_certs_pem probe = {leaf.cert, cases[i].other_key ? other_leaf.key : leaf.key};
        cw_error_init(&err);
        int rc = cw_certs_check_leaf(cases[i].other_ca ? other_ca.cert : ca.cert, &probe,
                                     cases[i].wider ? &wider : &names, cases[i].at,
                                     cases[i].min_remaining, &err);
        if (rc != cases[i].rc || strcmp(err.message, cases[i].message) != 0)
            fail_msg("%s: got %d \"%s\"", cases[i].what, rc, err.message);
    }

    static const struct {
        const char *cert, *key, *message;
    } broken[] = {
        {"not pem", NULL, "certificate: not a PEM certificate ("},
        {NULL, "not pem", "private key: not a PEM private key ("},
    };
    for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
        const char *c = broken[i].cert ? broken[i].cert : leaf.cert;
        const char *k = broken[i].key ? broken[i].key : leaf.key;
        cw_error_init(&err);
        assert_int_equal(cw_certs_inspect_pair(c, strlen(c), k, strlen(k), &info, &err), CW_EINVAL);
        assert_memory_equal(err.message, broken[i].message, strlen(broken[i].message));
    }

    cw_strlist none = {0};
    cw_certs_names empty = {"x", &none, &none};
    cw_certs_pem out;
    assert_int_equal(cw_certs_make_leaf(&ca, &empty, 1, NOW, &out, &err), CW_EINVAL);
    assert_string_equal(err.message, "a serving certificate needs at least one DNS name or IP");

    cw_certs_pem_free(&ca);
    cw_certs_pem_free(&leaf);
    cw_certs_pem_free(&other_ca);
    cw_certs_pem_free(&other_leaf);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[1100];
    assert_true(strlen(dir) < 512 && strlen(name) < 512);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Kubernetes' secret volume layout: <dir>/tls.crt -> ..data/tls.crt, ..data -> ..<version>; an
 * update writes a new version directory and renames a new ..data symlink over the old one. */
static void k8s_publish(const char *dir, int version, const char *cert, const char *key)
{
    char vdir[512], tmp[512], data[512], target[64];
    snprintf(target, sizeof(target), "..v%d", version);
    snprintf(vdir, sizeof(vdir), "%s/%s", dir, target);
    assert_int_equal(mkdir(vdir, 0700), 0);
    write_file(vdir, "tls.crt", cert);
    write_file(vdir, "tls.key", key);
    snprintf(tmp, sizeof(tmp), "%s/..data_tmp", dir);
    snprintf(data, sizeof(data), "%s/..data", dir);
    unlink(tmp);
    assert_int_equal(symlink(target, tmp), 0);
    assert_int_equal(rename(tmp, data), 0);
}

static void store_reloads_swapped_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/cw-certstore-XXXXXX", cert_path[512], key_path[512], link[1200];
    assert_non_null(mkdtemp(dir));
    cw_certs_pem ca1, leaf1, ca2, leaf2;
    make_pair(&ca1, &leaf1, 100);
    make_pair(&ca2, &leaf2, 200);

    k8s_publish(dir, 1, leaf1.cert, leaf1.key);
    snprintf(cert_path, sizeof(cert_path), "%s/tls.crt", dir);
    snprintf(key_path, sizeof(key_path), "%s/tls.key", dir);
    assert_int_equal(symlink("..data/tls.crt", cert_path), 0);
    assert_int_equal(symlink("..data/tls.key", key_path), 0);

    cw_certs_store s;
    cw_error err;
    int changed = -1;
    cw_error_init(&err);
    cw_certs_store_init(&s);
    assert_int_equal(cw_certs_store_not_after(&s), 0);
    assert_null(cw_certs_store_acquire(&s));
    assert_int_equal(cw_certs_store_watch(&s, cert_path, key_path, &err), CW_OK);
    assert_int_equal(cw_certs_store_not_after(&s), NOW + 100 * 86400);

    /* A handshake in progress keeps its credential across a swap. */
    cw_certs_cred *held = cw_certs_store_acquire(&s);
    assert_int_equal(cw_certs_cred_not_after(held), NOW + 100 * 86400);

    assert_int_equal(cw_certs_store_poll(&s, &changed, &err), CW_OK);
    assert_int_equal(changed, 0);
    k8s_publish(dir, 2, leaf2.cert, leaf2.key);
    assert_int_equal(cw_certs_store_poll(&s, &changed, &err), CW_OK);
    assert_int_equal(changed, 1);
    assert_int_equal(cw_certs_store_not_after(&s), NOW + 200 * 86400);
    assert_int_equal(cw_certs_cred_not_after(held), NOW + 100 * 86400);
    gnutls_pcert_st *pc;
    unsigned n;
    gnutls_privkey_t key;
    cw_certs_cred_gnutls(held, &pc, &n, &key);
    assert_int_equal(n, 1);
    assert_non_null(key);
    cw_certs_cred_release(held);

    /* A mismatched pair is refused once, then quiet; the good pair stays. */
    k8s_publish(dir, 3, leaf1.cert, leaf2.key);
    cw_error_init(&err);
    assert_int_equal(cw_certs_store_poll(&s, &changed, &err), CW_EINVAL);
    snprintf(link, sizeof(link), "%s, %s: the private key does not belong to the certificate",
             cert_path, key_path);
    assert_string_equal(err.message, link);
    assert_int_equal(changed, 0);
    assert_int_equal(cw_certs_store_poll(&s, &changed, &err), CW_OK);
    assert_int_equal(changed, 0);
    assert_int_equal(cw_certs_store_not_after(&s), NOW + 200 * 86400);

    /* Fixed on disk: picked up. */
    k8s_publish(dir, 4, leaf1.cert, leaf1.key);
    assert_int_equal(cw_certs_store_poll(&s, &changed, &err), CW_OK);
    assert_int_equal(changed, 1);
    assert_int_equal(cw_certs_store_not_after(&s), NOW + 100 * 86400);

    /* From memory (self-signed mode); garbage is refused and the current pair stays. */
    assert_int_equal(cw_certs_store_set_pem(&s, "x", 1, "y", 1, &err), CW_EINVAL);
    assert_int_equal(cw_certs_store_not_after(&s), NOW + 100 * 86400);
    assert_int_equal(cw_certs_store_set_pem(&s, leaf2.cert, strlen(leaf2.cert), leaf2.key,
                                            strlen(leaf2.key), &err),
                     CW_OK);
    assert_int_equal(cw_certs_store_not_after(&s), NOW + 200 * 86400);

    cw_certs_store_free(&s);
    cw_certs_pem_free(&ca1);
    cw_certs_pem_free(&leaf1);
    cw_certs_pem_free(&ca2);
    cw_certs_pem_free(&leaf2);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generated_certificates_check_out),
        cmocka_unit_test(store_reloads_swapped_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
