/* kubeconfig loading and merging, in-cluster configuration and the precedence between them.
 * Every case writes real files into a temporary directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/buf.h"
#include "kube/config.h"
#include "kube/internal.h"
#include "lib/base64.h"
#include "pemgen.h"

static char g_dir[256];
static char *g_ca_pem, *g_ca_key, *g_cert_pem, *g_key_pem, *g_other_cert, *g_other_key;
static char *g_b64_ca, *g_b64_cert, *g_b64_key, *g_b64_other_key, *g_b64_notpem;

static void write_file(const char *rel, const char *content)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", g_dir, rel);
    for (char *p = path + strlen(g_dir) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0700);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(content, f);
    fclose(f);
}

/* Replaces {DIR} {CA} {CERT} {KEY} {OTHERKEY} {NOTPEM}; caller frees. */
static char *expand(const char *t)
{
    static const struct {
        const char *key;
        char **value;
    } vars[] = {
        {"{CA}", &g_b64_ca},         {"{CERT}", &g_b64_cert},
        {"{KEY}", &g_b64_key},       {"{OTHERKEY}", &g_b64_other_key},
        {"{NOTPEM}", &g_b64_notpem},
    };
    cw_buf b;
    cw_buf_init(&b);
    while (*t) {
        size_t i, n = sizeof(vars) / sizeof(vars[0]);
        if (strncmp(t, "{DIR}", 5) == 0) {
            cw_buf_puts(&b, g_dir);
            t += 5;
            continue;
        }
        for (i = 0; i < n; i++)
            if (strncmp(t, vars[i].key, strlen(vars[i].key)) == 0)
                break;
        if (i < n) {
            cw_buf_puts(&b, *vars[i].value);
            t += strlen(vars[i].key);
        } else {
            cw_buf_putc(&b, *t++);
        }
    }
    return cw_buf_detach(&b);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof(g_dir), "/tmp/cw-kubecfg-XXXXXX");
    if (!mkdtemp(g_dir))
        return -1;
    pemgen_pair("test-ca", &g_ca_pem, &g_ca_key);
    pemgen_pair("client", &g_cert_pem, &g_key_pem);
    pemgen_pair("other", &g_other_cert, &g_other_key);
    g_b64_ca = pemgen_base64(g_ca_pem);
    g_b64_cert = pemgen_base64(g_cert_pem);
    g_b64_key = pemgen_base64(g_key_pem);
    g_b64_other_key = pemgen_base64(g_other_key);
    g_b64_notpem = pemgen_base64("hello, this is not PEM\n");
    write_file("ca.crt", g_ca_pem);
    write_file("certs/ca.crt", g_ca_pem);
    write_file("certs/client.crt", g_cert_pem);
    write_file("certs/client.key", g_key_pem);
    write_file("junk.crt", "not a certificate\n");
    write_file("tok", "  tok-from-file\n");
    write_file("sa/token", "sa-token\n");
    write_file("sa/ca.crt", g_ca_pem);
    write_file("sa/namespace", "longhorn-system\n");
    write_file("sa-nons/token", "sa-token-2");
    write_file("sa-nons/ca.crt", g_ca_pem);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    nftw(g_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    char **all[] = {&g_ca_pem,     &g_ca_key,        &g_cert_pem,  &g_key_pem,
                    &g_other_cert, &g_other_key,     &g_b64_ca,    &g_b64_cert,
                    &g_b64_key,    &g_b64_other_key, &g_b64_notpem};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        free(*all[i]);
    return 0;
}

/* ---- kubeconfig cases ---- */

#define CLUSTER_CA_DATA                                                                            \
    "clusters:\n- name: c1\n  cluster:\n    server: https://10.0.0.1:6443\n"                       \
    "    certificate-authority-data: {CA}\n"
#define CTX_ADMIN                                                                                  \
    "contexts:\n- name: ctx\n  context:\n    cluster: c1\n    user: admin\n"                       \
    "    namespace: longhorn-system\n"                                                             \
    "current-context: ctx\n"

typedef struct kc_case {
    const char *name;
    const char *files[3][2]; /* {name relative to the temp dir, content template} */
    const char *list;        /* colon-separated names to load, in order */
    const char *context;
    int rc;
    const char *msg; /* expected error (substring, with {DIR} expanded) */
    /* expectations on success (NULL: not checked) */
    const char *server, *ns, *token, *token_file, *tls_server_name, *username, *context_out;
    int has_ca, has_cert, insecure;
} kc_case;

static const kc_case kc_cases[] = {
    {.name = "token_and_ca_data",
     .files = {{"k1",
                CLUSTER_CA_DATA "users:\n- name: admin\n  user:\n    token: abc\n" CTX_ADMIN}},
     .list = "k1",
     .server = "https://10.0.0.1:6443",
     .ns = "longhorn-system",
     .token = "abc",
     .context_out = "ctx",
     .has_ca = 1},
    {.name = "ca_file_absolute",
     .files = {{"k2", "clusters:\n- name: c1\n  cluster:\n    server: https://h:1/\n"
                      "    certificate-authority: {DIR}/ca.crt\n"
                      "users:\n- name: admin\n  user:\n    token: abc\n" CTX_ADMIN}},
     .list = "k2",
     .server = "https://h:1",
     .has_ca = 1},
    {.name = "relative_paths_resolve_against_the_kubeconfig_directory",
     .files = {{"sub/k3", "clusters:\n- name: c1\n  cluster:\n    server: https://h:1\n"
                          "    certificate-authority: ../certs/ca.crt\n"
                          "users:\n- name: admin\n  user:\n"
                          "    client-certificate: ../certs/client.crt\n"
                          "    client-key: ../certs/client.key\n"
                          "    tokenFile: ../tok\n" CTX_ADMIN}},
     .list = "sub/k3",
     .token = "tok-from-file",
     .token_file = "{DIR}/sub/../tok",
     .has_ca = 1,
     .has_cert = 1},
    {.name = "client_cert_and_key_data",
     .files = {{"k4", CLUSTER_CA_DATA "users:\n- name: admin\n  user:\n"
                                      "    client-certificate-data: {CERT}\n"
                                      "    client-key-data: {KEY}\n" CTX_ADMIN}},
     .list = "k4",
     .has_ca = 1,
     .has_cert = 1},
    {.name = "token_wins_over_token_file",
     .files = {{"k5", CLUSTER_CA_DATA "users:\n- name: admin\n  user:\n    token: inline\n"
                                      "    tokenFile: {DIR}/tok\n" CTX_ADMIN}},
     .list = "k5",
     .token = "inline",
     .has_ca = 1},
    {.name = "numeric_token_is_taken_as_written",
     .files = {{"k6",
                CLUSTER_CA_DATA "users:\n- name: admin\n  user:\n    token: 12345\n" CTX_ADMIN}},
     .list = "k6",
     .token = "12345",
     .has_ca = 1},
    {.name = "context_override",
     .files = {{"k7", CLUSTER_CA_DATA "users:\n- name: admin\n  user:\n    token: a\n"
                                      "- name: bob\n  user:\n    username: bob\n    password: pw\n"
                                      "contexts:\n- name: ctx\n  context:\n    cluster: c1\n"
                                      "    user: admin\n- name: other\n  context:\n"
                                      "    cluster: c1\n    user: bob\ncurrent-context: ctx\n"}},
     .list = "k7",
     .context = "other",
     .username = "bob",
     .ns = "default",
     .context_out = "other",
     .has_ca = 1},
    {.name = "missing_context",
     .files = {{"k8", CLUSTER_CA_DATA "users:\n- name: admin\n  user:\n    token: a\n" CTX_ADMIN}},
     .list = "k8",
     .context = "nope",
     .rc = CW_ENOTFOUND,
     .msg = "{DIR}/k8: context \"nope\" not found (contexts: ctx)"},
    {.name = "no_current_context",
     .files = {{"k9", CLUSTER_CA_DATA "contexts:\n- name: a\n  context:\n    cluster: c1\n"
                                      "- name: b\n  context:\n    cluster: c1\n"}},
     .list = "k9",
     .rc = CW_EINVAL,
     .msg = "{DIR}/k9: current-context is not set and no context was given (contexts: a, b)"},
    {.name = "bad_base64",
     .files = {{"k10", CLUSTER_CA_DATA "users:\n- name: admin\n  user:\n"
                                       "    client-certificate-data: {CERT}\n"
                                       "    client-key-data: '!!not base64!!'\n" CTX_ADMIN}},
     .list = "k10",
     .rc = CW_EINVAL,
     .msg = "{DIR}/k10: user \"admin\": client-key-data is not valid base64"},
    {.name = "ca_data_not_pem",
     .files = {{"k11", "clusters:\n- name: c1\n  cluster:\n    server: https://h:1\n"
                       "    certificate-authority-data: {NOTPEM}\n" CTX_ADMIN}},
     .list = "k11",
     .rc = CW_EINVAL,
     .msg = "{DIR}/k11: cluster \"c1\": certificate-authority-data (decoded): no PEM certificate "
            "found"},
    {.name = "ca_file_not_pem",
     .files = {{"k11b", "clusters:\n- name: c1\n  cluster:\n    server: https://h:1\n"
                        "    certificate-authority: junk.crt\n" CTX_ADMIN}},
     .list = "k11b",
     .rc = CW_EINVAL,
     .msg = "{DIR}/k11b: cluster \"c1\": certificate-authority {DIR}/junk.crt: no PEM certificate"},
    {.name = "ca_file_missing",
     .files = {{"k11c", "clusters:\n- name: c1\n  cluster:\n    server: https://h:1\n"
                        "    certificate-authority: nowhere.crt\n" CTX_ADMIN}},
     .list = "k11c",
     .rc = CW_ENOTFOUND,
     .msg = "{DIR}/k11c: cluster \"c1\": certificate-authority: {DIR}/nowhere.crt: No such file"},
    {.name = "cert_and_key_do_not_match",
     .files = {{"k12", CLUSTER_CA_DATA "users:\n- name: admin\n  user:\n"
                                       "    client-certificate-data: {CERT}\n"
                                       "    client-key-data: {OTHERKEY}\n" CTX_ADMIN}},
     .list = "k12",
     .rc = CW_EINVAL,
     .msg = "{DIR}/k12: user \"admin\": the client certificate and key do not match"},
    {.name = "cert_without_key",
     .files = {{"k13", CLUSTER_CA_DATA "users:\n- name: admin\n  user:\n"
                                       "    client-certificate-data: {CERT}\n" CTX_ADMIN}},
     .list = "k13",
     .rc = CW_EINVAL,
     .msg = "{DIR}/k13: user \"admin\": client-certificate is set but client-key is not"},
    {.name = "key_data_is_a_certificate",
     .files = {{"k13b", CLUSTER_CA_DATA "users:\n- name: admin\n  user:\n"
                                        "    client-certificate-data: {CERT}\n"
                                        "    client-key-data: {CERT}\n" CTX_ADMIN}},
     .list = "k13b",
     .rc = CW_EINVAL,
     .msg =
         "{DIR}/k13b: user \"admin\": client-key-data (decoded): no unencrypted PEM private key"},
    {.name = "cluster_not_found",
     .files = {{"k14", "contexts:\n- name: ctx\n  context:\n    cluster: gone\n"
                       "current-context: ctx\n"}},
     .list = "k14",
     .rc = CW_ENOTFOUND,
     .msg = "{DIR}/k14: context \"ctx\": cluster \"gone\" not found"},
    {.name = "user_not_found",
     .files = {{"k15", CLUSTER_CA_DATA CTX_ADMIN}},
     .list = "k15",
     .rc = CW_ENOTFOUND,
     .msg = "{DIR}/k15: context \"ctx\": user \"admin\" not found"},
    {.name = "server_missing",
     .files = {{"k16", "clusters:\n- name: c1\n  cluster:\n    insecure-skip-tls-verify: true\n"
                       "users:\n- name: admin\n  user: {}\n" CTX_ADMIN}},
     .list = "k16",
     .rc = CW_EINVAL,
     .msg = "{DIR}/k16: cluster \"c1\": server is not set"},
    {.name = "insecure_with_ca_is_refused",
     .files = {{"k17", CLUSTER_CA_DATA "    insecure-skip-tls-verify: true\n"
                                       "users:\n- name: admin\n  user: {}\n" CTX_ADMIN}},
     .list = "k17",
     .rc = CW_EINVAL,
     .msg =
         "cluster \"c1\": certificate-authority and insecure-skip-tls-verify cannot both be set"},
    {.name = "insecure_and_tls_server_name_and_bare_server",
     .files = {{"k18", "clusters:\n- name: c1\n  cluster:\n    server: 10.1.1.1:443\n"
                       "    insecure-skip-tls-verify: true\n    tls-server-name: api.example\n"
                       "users:\n- name: admin\n  user:\n    token: t\n" CTX_ADMIN}},
     .list = "k18",
     .server = "https://10.1.1.1:443",
     .tls_server_name = "api.example",
     .insecure = 1},
    {.name = "exec_plugin_is_not_supported",
     .files = {{"k19", CLUSTER_CA_DATA "users:\n- name: admin\n  user:\n    exec:\n"
                                       "      command: aws\n" CTX_ADMIN}},
     .list = "k19",
     .rc = CW_EINVAL,
     .msg = "{DIR}/k19: user \"admin\": exec and auth-provider credential plugins are not "
            "supported"},
    {.name = "top_level_not_a_mapping",
     .files = {{"k20", "- a\n- b\n"}},
     .list = "k20",
     .rc = CW_EINVAL,
     .msg = "{DIR}/k20: expected a mapping at the top level, got array"},
    {.name = "wrong_type_names_the_field",
     .files = {{"k21",
                CLUSTER_CA_DATA "users:\n- name: admin\n  user:\n    token: [a]\n" CTX_ADMIN}},
     .list = "k21",
     .rc = CW_EINVAL,
     .msg = "{DIR}/k21: user \"admin\": token: expected string, got array"},
    {.name = "token_file_missing",
     .files = {{"k22",
                CLUSTER_CA_DATA "users:\n- name: admin\n  user:\n    tokenFile: nope\n" CTX_ADMIN}},
     .list = "k22",
     .rc = CW_ENOTFOUND,
     .msg = "{DIR}/k22: user \"admin\": tokenFile: {DIR}/nope: No such file or directory"},
    /* Merging: the first file that defines a name wins; current-context from the first file that
     * sets it; missing files in the list are skipped. */
    {.name = "merge_first_definition_wins",
     .files = {{"m1", "clusters:\n- name: c1\n  cluster:\n    server: https://first:1\n"
                      "    insecure-skip-tls-verify: true\n"
                      "users:\n- name: admin\n  user:\n    token: first\n"},
               {"m2", "clusters:\n- name: c1\n  cluster:\n    server: https://second:2\n"
                      "users:\n- name: admin\n  user:\n    token: second\n"
                      "contexts:\n- name: ctx\n  context:\n    cluster: c1\n    user: admin\n"
                      "current-context: ctx\n"}},
     .list = "m1:missing-file:m2",
     .server = "https://first:1",
     .token = "first",
     .insecure = 1,
     .context_out = "ctx"},
    {.name = "merge_current_context_from_first_file_that_sets_it",
     .files = {{"m3", "current-context: b\n"
                      "contexts:\n- name: a\n  context:\n    cluster: ca\n"
                      "clusters:\n- name: ca\n  cluster:\n    server: https://a:1\n"},
               {"m4", "current-context: a\n"
                      "contexts:\n- name: b\n  context:\n    cluster: cb\n"
                      "    namespace: from-m4\n"
                      "- name: a\n  context:\n    cluster: cb\n"
                      "clusters:\n- name: cb\n  cluster:\n    server: https://b:1\n"}},
     .list = "m3:m4",
     .server = "https://b:1",
     .ns = "from-m4",
     .context_out = "b"},
    {.name = "merge_context_defined_in_first_file_wins",
     .files = {{"m5", "contexts:\n- name: a\n  context:\n    cluster: ca\n"
                      "clusters:\n- name: ca\n  cluster:\n    server: https://a:1\n"},
               {"m6", "current-context: a\n"
                      "contexts:\n- name: a\n  context:\n    cluster: cb\n"
                      "clusters:\n- name: cb\n  cluster:\n    server: https://b:1\n"}},
     .list = "m5:m6",
     .server = "https://a:1"},
    {.name = "empty_file_in_a_list",
     .files = {{"m7", ""},
               {"m8", CLUSTER_CA_DATA "users:\n- name: admin\n  user:\n    token: t\n" CTX_ADMIN}},
     .list = "m7:m8",
     .token = "t",
     .has_ca = 1},
    {.name = "no_file_exists",
     .list = "none1:none2",
     .rc = CW_ENOTFOUND,
     .msg = "kubeconfig {DIR}/none1:{DIR}/none2: no such file"},
};

static void check_str(const char *what, const char *want_tmpl, const char *got)
{
    if (!want_tmpl)
        return;
    char *want = expand(want_tmpl);
    if (!got || strcmp(want, got) != 0)
        fail_msg("%s: want \"%s\", got \"%s\"", what, want, got ? got : "(null)");
    free(want);
}

static void run_kc_case(void **state)
{
    const kc_case *tc = *state;
    cw_kube_config cfg;
    cw_error err;
    cw_strlist files;
    cw_kube_config_init(&cfg);
    cw_error_init(&err);
    cw_strlist_init(&files);
    for (int i = 0; i < 3 && tc->files[i][0]; i++) {
        char *content = expand(tc->files[i][1]);
        write_file(tc->files[i][0], content);
        free(content);
    }
    char *list = strdup(tc->list);
    for (char *save = NULL, *tok = strtok_r(list, ":", &save); tok;
         tok = strtok_r(NULL, ":", &save))
        cw_strlist_addf(&files, "%s/%s", g_dir, tok);
    free(list);

    int rc = cw_kube_config_load_kubeconfig(&cfg, &files, tc->context, &err);
    if (rc != tc->rc)
        fail_msg("rc %d (%s), want %d", rc, err.message, tc->rc);
    if (tc->msg) {
        char *want = expand(tc->msg);
        if (!strstr(err.message, want))
            fail_msg("error \"%s\" does not contain \"%s\"", err.message, want);
        free(want);
    }
    if (rc == CW_OK) {
        check_str("server", tc->server, cfg.server);
        check_str("namespace", tc->ns, cfg.namespace);
        check_str("token", tc->token, cfg.token);
        check_str("token_file", tc->token_file, cfg.token_file);
        check_str("tls_server_name", tc->tls_server_name, cfg.tls_server_name);
        check_str("username", tc->username, cfg.username);
        check_str("context", tc->context_out, cfg.context);
        assert_int_equal(cfg.ca_pem != NULL, tc->has_ca);
        assert_int_equal(cfg.cert_pem != NULL && cfg.key_pem != NULL, tc->has_cert);
        assert_int_equal(cfg.insecure_skip_tls_verify, tc->insecure);
        assert_non_null(strstr(cfg.source, "kubeconfig "));
        if (tc->has_ca)
            assert_non_null(strstr(cfg.ca_pem, "-----BEGIN CERTIFICATE-----"));
        if (tc->has_cert)
            assert_int_equal(memcmp(cfg.cert_pem, g_cert_pem, cfg.cert_pem_len), 0);
    }
    cw_strlist_free(&files);
    cw_kube_config_free(&cfg);
}

/* ---- in-cluster and precedence ---- */

static void incluster_reads_the_service_account(void **state)
{
    (void)state;
    cw_kube_config cfg;
    cw_error err;
    char dir[512];
    cw_kube_config_init(&cfg);
    cw_error_init(&err);
    snprintf(dir, sizeof(dir), "%s/sa", g_dir);
    setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    assert_int_equal(cw_kube_config_load_incluster(&cfg, dir, &err), CW_OK);
    assert_string_equal(cfg.server, "https://10.96.0.1:443");
    assert_string_equal(cfg.token, "sa-token");
    assert_string_equal(cfg.namespace, "longhorn-system");
    assert_non_null(cfg.ca_pem);
    assert_non_null(strstr(cfg.token_file, "/sa/token"));

    setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
    snprintf(dir, sizeof(dir), "%s/sa-nons", g_dir);
    assert_int_equal(cw_kube_config_load_incluster(&cfg, dir, &err), CW_OK);
    assert_string_equal(cfg.server, "https://[fd00::1]:443");
    assert_string_equal(cfg.namespace, "default");
    assert_string_equal(cfg.token, "sa-token-2");

    snprintf(dir, sizeof(dir), "%s/nowhere", g_dir);
    assert_int_equal(cw_kube_config_load_incluster(&cfg, dir, &err), CW_ENOTFOUND);
    assert_non_null(strstr(err.message, "/nowhere/token: No such file or directory"));

    unsetenv("KUBERNETES_SERVICE_PORT");
    assert_int_equal(cw_kube_config_load_incluster(&cfg, dir, &err), CW_ENOTFOUND);
    assert_non_null(strstr(err.message, "KUBERNETES_SERVICE_PORT"));
    unsetenv("KUBERNETES_SERVICE_HOST");
    cw_kube_config_free(&cfg);
}

static void precedence_explicit_env_incluster_home(void **state)
{
    (void)state;
    cw_kube_config cfg;
    cw_error err;
    cw_kube_load_opts o;
    char path[512], sa[512], home[512], list[1200];
    cw_kube_config_init(&cfg);
    cw_error_init(&err);
    cw_kube_load_opts_init(&o);

    char *k = expand("clusters:\n- name: c\n  cluster:\n    server: https://explicit:1\n"
                     "contexts:\n- name: x\n  context:\n    cluster: c\ncurrent-context: x\n");
    write_file("p/explicit", k);
    free(k);
    k = expand("clusters:\n- name: c\n  cluster:\n    server: https://env:1\n"
               "contexts:\n- name: x\n  context:\n    cluster: c\ncurrent-context: x\n");
    write_file("p/env", k);
    free(k);
    k = expand("clusters:\n- name: c\n  cluster:\n    server: https://home:1\n"
               "contexts:\n- name: x\n  context:\n    cluster: c\n- name: second\n  context:\n"
               "    cluster: c\n    namespace: yns\ncurrent-context: x\n");
    write_file("home/.kube/config", k);
    free(k);
    snprintf(path, sizeof(path), "%s/p/explicit", g_dir);
    snprintf(sa, sizeof(sa), "%s/sa", g_dir);
    snprintf(home, sizeof(home), "%s/home", g_dir);
    snprintf(list, sizeof(list), "%s/p/none:%s/p/env", g_dir, g_dir);
    o.sa_dir = sa;

    setenv("HOME", home, 1);
    setenv("KUBECONFIG", list, 1);
    setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);

    o.kubeconfig = path;
    assert_int_equal(cw_kube_config_load(&cfg, &o, &err), CW_OK);
    assert_string_equal(cfg.server, "https://explicit:1");

    o.kubeconfig = NULL;
    assert_int_equal(cw_kube_config_load(&cfg, &o, &err), CW_OK);
    assert_string_equal(cfg.server, "https://env:1");

    unsetenv("KUBECONFIG");
    assert_int_equal(cw_kube_config_load(&cfg, &o, &err), CW_OK);
    assert_string_equal(cfg.server, "https://10.96.0.1:443");

    /* Asking for a context skips in-cluster. */
    o.context = "second";
    if (cw_kube_config_load(&cfg, &o, &err) != CW_OK)
        fail_msg("%s", err.message);
    assert_string_equal(cfg.server, "https://home:1");
    assert_string_equal(cfg.namespace, "yns");
    o.context = NULL;

    unsetenv("KUBERNETES_SERVICE_HOST");
    assert_int_equal(cw_kube_config_load(&cfg, &o, &err), CW_OK);
    assert_string_equal(cfg.server, "https://home:1");

    /* An explicit file that does not exist does not fall back. */
    snprintf(path, sizeof(path), "%s/p/absent", g_dir);
    o.kubeconfig = path;
    assert_int_equal(cw_kube_config_load(&cfg, &o, &err), CW_ENOTFOUND);
    assert_non_null(strstr(err.message, "p/absent: No such file or directory"));
    o.kubeconfig = NULL;

    /* Nothing anywhere: the message lists what was tried. */
    snprintf(home, sizeof(home), "%s/emptyhome", g_dir);
    setenv("HOME", home, 1);
    assert_int_equal(cw_kube_config_load(&cfg, &o, &err), CW_ENOTFOUND);
    char want[1024];
    snprintf(want, sizeof(want),
             "no Kubernetes configuration found; tried: --kubeconfig (not given); $KUBECONFIG (not "
             "set); in-cluster (KUBERNETES_SERVICE_HOST not set); %s/.kube/config (No such file "
             "or directory)",
             home);
    assert_string_equal(err.message, want);

    /* $KUBECONFIG problems say so. */
    snprintf(list, sizeof(list), "%s/p/env", g_dir);
    setenv("KUBECONFIG", list, 1);
    o.context = "nope";
    assert_int_equal(cw_kube_config_load(&cfg, &o, &err), CW_ENOTFOUND);
    assert_non_null(strstr(err.message, "$KUBECONFIG: "));
    assert_non_null(strstr(err.message, "context \"nope\" not found"));
    unsetenv("KUBECONFIG");
    unsetenv("KUBERNETES_SERVICE_PORT");
    cw_kube_config_free(&cfg);
}

static void split_path_list_drops_empty_and_repeats(void **state)
{
    (void)state;
    cw_strlist l;
    cw_error err;
    cw_strlist_init(&l);
    assert_int_equal(cw_kube_split_path_list("a::b:a:", &l, &err), CW_OK);
    assert_int_equal(l.len, 2);
    assert_string_equal(l.items[0], "a");
    assert_string_equal(l.items[1], "b");
    cw_strlist_free(&l);
}

static void base64_via_openssl(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
        int rc;
    } cases[] = {
        {"aGVsbG8=", "hello", CW_OK},
        {"aGVs\nbG8=\n", "hello", CW_OK},
        {"aGVsbG8", NULL, CW_EINVAL}, /* Go's StdEncoding insists on padding too */
        {"", "", CW_OK},
        {"!!!!", NULL, CW_EINVAL},
        {"aGVsbG8=aGVs", NULL, CW_EINVAL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out = NULL;
        size_t len = 0;
        int rc = cw_base64_decode(cases[i].in, strlen(cases[i].in), &out, &len);
        if (rc != cases[i].rc)
            fail_msg("case %zu (%s): rc %d, want %d", i, cases[i].in, rc, cases[i].rc);
        if (rc == CW_OK) {
            assert_int_equal(len, strlen(cases[i].out));
            assert_string_equal(out, cases[i].out);
        }
        free(out);
    }
}

static void copy_is_deep(void **state)
{
    (void)state;
    cw_kube_config a, b;
    cw_error err;
    cw_kube_config_init(&a);
    cw_kube_config_init(&b);
    a.server = strdup("https://x:1");
    a.ca_pem = strdup("PEM");
    a.ca_pem_len = 3;
    a.token = strdup("t");
    assert_int_equal(cw_kube_config_copy(&a, &b, &err), CW_OK);
    cw_kube_config_free(&a);
    assert_string_equal(b.server, "https://x:1");
    assert_int_equal(b.ca_pem_len, 3);
    assert_string_equal(b.token, "t");
    cw_kube_config_free(&b);
}

int main(void)
{
    size_t n = sizeof(kc_cases) / sizeof(kc_cases[0]);
    struct CMUnitTest tests[64];
    size_t t = 0;
    for (size_t i = 0; i < n && t < 58; i++)
        tests[t++] = (struct CMUnitTest){.name = kc_cases[i].name,
                                         .test_func = run_kc_case,
                                         .initial_state = (void *)&kc_cases[i]};
    tests[t++] = (struct CMUnitTest)cmocka_unit_test(incluster_reads_the_service_account);
    tests[t++] = (struct CMUnitTest)cmocka_unit_test(precedence_explicit_env_incluster_home);
    tests[t++] = (struct CMUnitTest)cmocka_unit_test(split_path_list_drops_empty_and_repeats);
    tests[t++] = (struct CMUnitTest)cmocka_unit_test(base64_via_openssl);
    tests[t++] = (struct CMUnitTest)cmocka_unit_test(copy_is_deep);
    return _cmocka_run_group_tests("kube_config", tests, t, group_setup, group_teardown);
}
