/* cw_kube_config: lifetime, copying, and the choice between kubeconfig and in-cluster. */
#include "kube/config.h"
#include "kube/internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/secret.h"
#include "lib/buf.h"
#include "lib/yaml.h"

void cw_kube_config_init(cw_kube_config *c)
{
    memset(c, 0, sizeof(*c));
}

void cw_kube_config_free(cw_kube_config *c)
{
    free(c->server);
    free(c->namespace);
    free(c->source);
    free(c->context);
    free(c->ca_pem);
    free(c->tls_server_name);
    free(c->cert_pem);
    cw_secret_wipe(c->key_pem, c->key_pem_len);
    free(c->key_pem);
    cw_secret_free(c->token);
    free(c->token_file);
    free(c->username);
    cw_secret_free(c->password);
    cw_kube_config_init(c);
}

static int dup_str(const char *s, char **out)
{
    *out = NULL;
    if (!s)
        return CW_OK;
    *out = strdup(s);
    return *out ? CW_OK : CW_ENOMEM;
}

static int dup_mem(const char *s, size_t len, char **out)
{
    *out = NULL;
    if (!s)
        return CW_OK;
    *out = malloc(len + 1);
    if (!*out)
        return CW_ENOMEM;
    memcpy(*out, s, len);
    (*out)[len] = '\0';
    return CW_OK;
}

int cw_kube_config_copy(const cw_kube_config *src, cw_kube_config *dst, cw_error *err)
{
    int rc = CW_OK;
    cw_kube_config_free(dst);
    dst->insecure_skip_tls_verify = src->insecure_skip_tls_verify;
    dst->ca_pem_len = src->ca_pem_len;
    dst->cert_pem_len = src->cert_pem_len;
    dst->key_pem_len = src->key_pem_len;
    if (dup_str(src->server, &dst->server) || dup_str(src->namespace, &dst->namespace) ||
        dup_str(src->source, &dst->source) || dup_str(src->context, &dst->context) ||
        dup_mem(src->ca_pem, src->ca_pem_len, &dst->ca_pem) ||
        dup_str(src->tls_server_name, &dst->tls_server_name) ||
        dup_mem(src->cert_pem, src->cert_pem_len, &dst->cert_pem) ||
        dup_mem(src->key_pem, src->key_pem_len, &dst->key_pem) ||
        dup_str(src->token, &dst->token) || dup_str(src->token_file, &dst->token_file) ||
        dup_str(src->username, &dst->username) || dup_str(src->password, &dst->password)) {
        rc = cw_error_set(err, CW_ENOMEM, "out of memory copying the Kubernetes configuration");
        goto done;
    }
done:
    if (rc != CW_OK)
        cw_kube_config_free(dst);
    return rc;
}

void cw_kube_load_opts_init(cw_kube_load_opts *o)
{
    memset(o, 0, sizeof(*o));
}

int cw_kube_read_trimmed(const char *path, char **out, cw_error *err)
{
    char *data = NULL;
    size_t len = 0;
    *out = NULL;
    int rc = cw_file_read(path, &data, &len, err);
    if (rc != CW_OK)
        return rc;
    size_t start = 0;
    while (start < len && isspace((unsigned char)data[start]))
        start++;
    while (len > start && isspace((unsigned char)data[len - 1]))
        len--;
    memmove(data, data + start, len - start);
    data[len - start] = '\0';
    *out = data;
    return CW_OK;
}

int cw_kube_split_path_list(const char *list, cw_strlist *out, cw_error *err)
{
    const char *p = list;
    while (p && *p) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        if (n > 0) {
            char *item = strndup(p, n);
            if (!item)
                return cw_error_oom(err);
            if (cw_strlist_contains(out, item)) {
                free(item);
            } else if (cw_strlist_take(out, item) != CW_OK) {
                return cw_error_oom(err);
            }
        }
        p = colon ? colon + 1 : NULL;
    }
    return CW_OK;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int cw_kube_config_load(cw_kube_config *c, const cw_kube_load_opts *o, cw_error *err)
{
    int rc = CW_OK;
    cw_strlist files, tried;
    cw_buf home;
    cw_strlist_init(&files);
    cw_strlist_init(&tried);
    cw_buf_init(&home);
    cw_kube_load_opts defaults;
    if (!o) {
        cw_kube_load_opts_init(&defaults);
        o = &defaults;
    }

    /* 1. --kubeconfig: that file, no fallback. */
    if (o->kubeconfig && *o->kubeconfig) {
        if (!exists(o->kubeconfig)) {
            int e = errno;
            rc = cw_error_set(err, e == ENOENT ? CW_ENOTFOUND : CW_EIO, "kubeconfig %s: %s",
                              o->kubeconfig, strerror(e));
            goto done;
        }
        if (cw_strlist_add(&files, o->kubeconfig) != CW_OK) {
            rc = cw_error_oom(err);
            goto done;
        }
        rc = cw_kube_config_load_kubeconfig(c, &files, o->context, err);
        goto done;
    }
    cw_strlist_add(&tried, "--kubeconfig (not given)");

    /* 2. $KUBECONFIG. */
    const char *env = getenv("KUBECONFIG");
    if (env && *env) {
        if ((rc = cw_kube_split_path_list(env, &files, err)) != CW_OK)
            goto done;
        rc = cw_kube_config_load_kubeconfig(c, &files, o->context, err);
        if (rc != CW_OK)
            cw_error_prefix(err, "$KUBECONFIG");
        goto done;
    }
    cw_strlist_add(&tried, "$KUBECONFIG (not set)");

    /* 3. In-cluster. */
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    if (o->no_incluster) {
        cw_strlist_add(&tried, "in-cluster (disabled)");
    } else if (o->context && *o->context) {
        cw_strlist_add(&tried, "in-cluster (skipped: a context was asked for)");
    } else if (!host || !*host) {
        cw_strlist_add(&tried, "in-cluster (KUBERNETES_SERVICE_HOST not set)");
    } else {
        cw_error ierr;
        cw_error_init(&ierr);
        rc = cw_kube_config_load_incluster(c, o->sa_dir, &ierr);
        if (rc == CW_OK)
            goto done;
        if (rc != CW_ENOTFOUND) {
            *err = ierr;
            goto done;
        }
        cw_strlist_addf(&tried, "in-cluster (%s)", ierr.message);
        rc = CW_OK;
    }

    /* 4. ~/.kube/config. */
    const char *h = getenv("HOME");
    if (!h || !*h) {
        cw_strlist_add(&tried, "~/.kube/config ($HOME not set)");
    } else {
        cw_buf_printf(&home, "%s/.kube/config", h);
        if (exists(cw_buf_str(&home))) {
            cw_strlist_add(&files, cw_buf_str(&home));
            rc = cw_kube_config_load_kubeconfig(c, &files, o->context, err);
            goto done;
        }
        int e = errno;
        cw_strlist_addf(&tried, "%s (%s)", cw_buf_str(&home), strerror(e));
    }

    char *list = cw_strlist_join(&tried, "; ");
    rc = cw_error_set(err, CW_ENOTFOUND, "no Kubernetes configuration found; tried: %s",
                      list ? list : "(out of memory)");
    free(list);
done:
    cw_strlist_free(&files);
    cw_strlist_free(&tried);
    cw_buf_free(&home);
    return rc;
}
