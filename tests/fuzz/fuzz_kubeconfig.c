/* kube kubeconfig loading: the input is written to a file in a scratch directory that also
 * holds the files kubeconfigs reference in the seeds (ca.crt, certs/client.crt, certs/client.key,
 * tok, junk.crt), then cw_kube_config_load_kubeconfig loads it alone and merged with itself.
 * Invariants, besides no crash, leak or UB:
 *   - a failure has a message naming the file;
 *   - a success has an http(s) server without a trailing slash, a namespace, a source and a
 *     context, and a client certificate only with its key;
 *   - merging a file with itself changes nothing (the first file wins every name);
 *   - cw_kube_config_copy copies every field. */
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../unit/kube/pemgen.h"
#include "fuzz.h"
#include "kube/config.h"

static char dir[64], path[128];

static void write_file(const char *name, const char *data, size_t len)
{
    char p[256];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    FUZZ_CHECK(f != NULL, "%s", p);
    FUZZ_CHECK(fwrite(data, 1, len, f) == len && fclose(f) == 0, "%s", p);
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(p);
}

static void cleanup(void)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char *ca, *ca_key, *cert, *key, sub[128];
    (void)pemgen_base64; /* the seeds hold the base64 forms */
    snprintf(dir, sizeof(dir), "/tmp/cw-fuzz-kubeconfig-XXXXXX");
    FUZZ_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    atexit(cleanup);
    snprintf(sub, sizeof(sub), "%s/certs", dir);
    FUZZ_CHECK(mkdir(sub, 0700) == 0, "%s", sub);
    snprintf(path, sizeof(path), "%s/config", dir);
    pemgen_pair("test-ca", &ca, &ca_key);
    pemgen_pair("client", &cert, &key);
    write_file("ca.crt", ca, strlen(ca));
    write_file("certs/ca.crt", ca, strlen(ca));
    write_file("certs/client.crt", cert, strlen(cert));
    write_file("certs/client.key", key, strlen(key));
    write_file("junk.crt", "not a certificate\n", 18);
    write_file("tok", "  tok-from-file\n", 16);
    free(ca);
    free(ca_key);
    free(cert);
    free(key);
    return 0;
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int same_mem(const char *a, size_t an, const char *b, size_t bn)
{
    return an == bn && (!a) == (!b) && (!a || memcmp(a, b, an) == 0);
}

static int same(const cw_kube_config *a, const cw_kube_config *b, int with_source)
{
    return same_str(a->server, b->server) && same_str(a->namespace, b->namespace) &&
           (!with_source || same_str(a->source, b->source)) && same_str(a->context, b->context) &&
           same_mem(a->ca_pem, a->ca_pem_len, b->ca_pem, b->ca_pem_len) &&
           a->insecure_skip_tls_verify == b->insecure_skip_tls_verify &&
           same_str(a->tls_server_name, b->tls_server_name) &&
           same_mem(a->cert_pem, a->cert_pem_len, b->cert_pem, b->cert_pem_len) &&
           same_mem(a->key_pem, a->key_pem_len, b->key_pem, b->key_pem_len) &&
           same_str(a->token, b->token) && same_str(a->token_file, b->token_file) &&
           same_str(a->username, b->username) && same_str(a->password, b->password);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cw_kube_config one, two, copy;
    cw_error err, err2;
    cw_strlist files;
    cw_kube_config_init(&one);
    cw_kube_config_init(&two);
    cw_kube_config_init(&copy);
    cw_error_init(&err);
    cw_error_init(&err2);
    cw_strlist_init(&files);
    write_file("config", (const char *)data, size);

    FUZZ_CHECK(cw_strlist_add(&files, path) == CW_OK, "oom");
    int rc = cw_kube_config_load_kubeconfig(&one, &files, NULL, &err);
    if (rc != CW_OK) {
        FUZZ_CHECK(rc < 0 && strstr(err.message, path), "rc %d, message \"%s\"", rc, err.message);
    } else {
        FUZZ_CHECK(one.server && (strncmp(one.server, "https://", 8) == 0 ||
                                  strncmp(one.server, "http://", 7) == 0),
                   "server %s", one.server ? one.server : "(null)");
        size_t n = strlen(one.server);
        FUZZ_CHECK(one.server[n - 1] != '/', "server %s", one.server);
        FUZZ_CHECK(one.namespace && *one.namespace && one.source && one.context, "fields");
        FUZZ_CHECK(!one.cert_pem == !one.key_pem, "certificate without key");
        FUZZ_CHECK(cw_kube_config_copy(&one, &copy, &err) == CW_OK, "%s", err.message);
        FUZZ_CHECK(same(&one, &copy, 1), "copy differs");
    }

    FUZZ_CHECK(cw_strlist_add(&files, path) == CW_OK, "oom");
    int rc2 = cw_kube_config_load_kubeconfig(&two, &files, NULL, &err2);
    FUZZ_CHECK(rc == rc2, "alone %d (%s), merged with itself %d (%s)", rc, err.message, rc2,
               err2.message);
    FUZZ_CHECK(rc != CW_OK || same(&one, &two, 0), "merged with itself differs");

    cw_kube_config_free(&one);
    cw_kube_config_free(&two);
    cw_kube_config_free(&copy);
    cw_strlist_free(&files);
    return 0;
}
