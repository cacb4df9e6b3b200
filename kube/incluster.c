/* In-cluster configuration: the pod's service account. */
#include "kube/config.h"
#include "kube/internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/yaml.h"

static int oom(cw_error *err)
{
    return cw_error_set(err, CW_ENOMEM, "out of memory loading the in-cluster configuration");
}

int cw_kube_config_load_incluster(cw_kube_config *c, const char *sa_dir, cw_error *err)
{
    int rc = CW_OK;
    cw_kube_config cfg;
    cw_buf path, server;
    cw_kube_config_init(&cfg);
    cw_buf_init(&path);
    cw_buf_init(&server);
    const char *dir = sa_dir && *sa_dir ? sa_dir : CW_KUBE_SA_DIR;
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    const char *port = getenv("KUBERNETES_SERVICE_PORT");

    if (!host || !*host || !port || !*port) {
        rc = cw_error_set(err, CW_ENOTFOUND,
                          "in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must "
                          "both be set");
        goto done;
    }
    /* An IPv6 service address needs brackets in a URL. */
    if (cw_buf_printf(&server, strchr(host, ':') ? "https://[%s]:%s" : "https://%s:%s", host,
                      port) != CW_OK) {
        rc = oom(err);
        goto done;
    }

    if (cw_buf_printf(&path, "%s/token", dir) != CW_OK) {
        rc = oom(err);
        goto done;
    }
    if ((rc = cw_kube_read_trimmed(cw_buf_str(&path), &cfg.token, err)) != CW_OK)
        goto done;
    if (!*cfg.token) {
        rc = cw_error_set(err, CW_EINVAL, "%s: the service-account token is empty",
                          cw_buf_str(&path));
        goto done;
    }
    if (!(cfg.token_file = strdup(cw_buf_str(&path)))) {
        rc = oom(err);
        goto done;
    }

    cw_buf_reset(&path);
    if (cw_buf_printf(&path, "%s/ca.crt", dir) != CW_OK) {
        rc = oom(err);
        goto done;
    }
    if ((rc = cw_file_read(cw_buf_str(&path), &cfg.ca_pem, &cfg.ca_pem_len, err)) != CW_OK)
        goto done;
    if ((rc = cw_kube_pem_check(cfg.ca_pem, cfg.ca_pem_len, CW_KUBE_PEM_CA, err)) != CW_OK) {
        cw_error_prefix(err, "%s", cw_buf_str(&path));
        goto done;
    }

    /* The namespace file is optional (a token mounted by hand may come without it). */
    cw_buf_reset(&path);
    if (cw_buf_printf(&path, "%s/namespace", dir) != CW_OK) {
        rc = oom(err);
        goto done;
    }
    cw_error nserr;
    cw_error_init(&nserr);
    if (cw_kube_read_trimmed(cw_buf_str(&path), &cfg.namespace, &nserr) != CW_OK ||
        !*cfg.namespace) {
        free(cfg.namespace);
        cfg.namespace = NULL;
    }
    if (!cfg.namespace && !(cfg.namespace = strdup("default"))) {
        rc = oom(err);
        goto done;
    }

    cfg.server = cw_buf_detach(&server);
    cw_buf_reset(&path);
    if (cw_buf_printf(&path, "in-cluster service account %s", dir) != CW_OK) {
        rc = oom(err);
        goto done;
    }
    cfg.source = cw_buf_detach(&path);
    if (!cfg.server || !cfg.source) {
        rc = oom(err);
        goto done;
    }

    cw_kube_config_free(c);
    *c = cfg;
    cw_kube_config_init(&cfg);
done:
    cw_kube_config_free(&cfg);
    cw_buf_free(&path);
    cw_buf_free(&server);
    return rc;
}
