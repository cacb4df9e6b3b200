/* Where the Kubernetes client finds its server, credentials and default namespace: a kubeconfig
 * (kubectl's loading and merging rules) or the in-cluster service account.
 *
 * Precedence of cw_kube_config_load():
 *   1. an explicit kubeconfig path (--kubeconfig): that file only, it must exist;
 *   2. $KUBECONFIG: a colon-separated list merged in order (missing files are skipped; for each
 *      cluster, user and context name the first file that defines it wins; current-context comes
 *      from the first file that sets it);
 *   3. in-cluster, when KUBERNETES_SERVICE_HOST is set and no context was asked for;
 *   4. ~/.kube/config.
 * When nothing applies, the error lists every place that was tried. Every other problem names the
 * file and the field ("/root/.kube/config: context \"x\" not found"). Relative paths inside a
 * kubeconfig resolve against the directory of the file that holds them. */
#ifndef CW_KUBE_CONFIG_H
#define CW_KUBE_CONFIG_H

#include <stddef.h>

#include "lib/error.h"
#include "lib/strlist.h"

#define CW_KUBE_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

typedef struct cw_kube_config {
    char *server;    /* "https://host:port[/prefix]" without a trailing slash */
    char *namespace; /* the context's or service account's namespace, else "default" */
    char *source;    /* for messages and logs: "kubeconfig /root/.kube/config, context \"kind\"" */
    char *context;   /* kubeconfig context name; NULL in-cluster */

    /* TLS. PEM blocks are held in memory (files are read at load time). */
    char *ca_pem; /* NULL: the system trust store */
    size_t ca_pem_len;
    int insecure_skip_tls_verify;
    char *tls_server_name; /* SNI and certificate name to expect instead of the server's host */
    char *cert_pem;        /* client certificate (with key_pem) */
    size_t cert_pem_len;
    char *key_pem;
    size_t key_pem_len;

    /* Credentials. */
    char *token;      /* bearer token (for token_file: its content at load time) */
    char *token_file; /* the client re-reads it periodically and after a 401 */
    char *username;   /* basic authentication */
    char *password;
} cw_kube_config;

typedef struct cw_kube_load_opts {
    const char *kubeconfig; /* --kubeconfig: use this file only */
    const char *context;    /* --context: instead of current-context */
    const char *sa_dir;     /* service-account directory; NULL: CW_KUBE_SA_DIR */
    int no_incluster;       /* 1: never use the in-cluster configuration */
} cw_kube_load_opts;

void cw_kube_config_init(cw_kube_config *c);
void cw_kube_config_free(cw_kube_config *c);
/* Deep copy into an initialised dst (dst is freed first). */
int cw_kube_config_copy(const cw_kube_config *src, cw_kube_config *dst,
                        cw_error *err) CW_MUST_CHECK;

void cw_kube_load_opts_init(cw_kube_load_opts *o);

/* Chooses and loads a configuration by the precedence above. */
int cw_kube_config_load(cw_kube_config *c, const cw_kube_load_opts *o, cw_error *err) CW_MUST_CHECK;

/* Loads the merge of `files` (in order; missing files are skipped, at least one must exist) and
 * resolves `context` (NULL: current-context). */
int cw_kube_config_load_kubeconfig(cw_kube_config *c, const cw_strlist *files, const char *context,
                                   cw_error *err) CW_MUST_CHECK;

/* In-cluster: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT, and the token, ca.crt
 * and namespace files of sa_dir (NULL: CW_KUBE_SA_DIR). */
int cw_kube_config_load_incluster(cw_kube_config *c, const char *sa_dir,
                                  cw_error *err) CW_MUST_CHECK;

/* Splits a $KUBECONFIG value into files (empty entries and repeats dropped). */
int cw_kube_split_path_list(const char *list, cw_strlist *out, cw_error *err) CW_MUST_CHECK;

#endif
