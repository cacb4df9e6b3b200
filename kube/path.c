#include "kube/path.h"

#include <curl/curl.h>
#include <string.h>

static int put_escaped(cw_buf *out, const char *s, cw_error *err)
{
    char *e = curl_easy_escape(NULL, s, 0);
    if (!e)
        return cw_error_set(err, CW_ENOMEM, "out of memory escaping \"%s\"", s);
    int rc = cw_buf_puts(out, e);
    curl_free(e);
    if (rc != CW_OK)
        return cw_error_set(err, rc, "out of memory building a path");
    return CW_OK;
}

int cw_kube_path_segment(cw_buf *out, const char *what, const char *s, cw_error *err)
{
    if (!s || !*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return cw_error_set(err, CW_EINVAL, "invalid %s \"%s\"", what, s ? s : "");
    return put_escaped(out, s, err);
}

static int put_segment(cw_buf *out, const char *what, const char *s, cw_error *err)
{
    if (cw_buf_putc(out, '/') != CW_OK)
        return cw_error_set(err, CW_ENOMEM, "out of memory building a path");
    return cw_kube_path_segment(out, what, s, err);
}

int cw_kube_path(cw_buf *out, const cw_kube_resource *r, const char *name, const char *subresource,
                 cw_error *err)
{
    int rc;
    if (r->group && *r->group) {
        if (cw_buf_puts(out, "/apis") != CW_OK)
            return cw_error_set(err, CW_ENOMEM, "out of memory building a path");
        if ((rc = put_segment(out, "API group", r->group, err)) != CW_OK)
            return rc;
    } else if (cw_buf_puts(out, "/api") != CW_OK) {
        return cw_error_set(err, CW_ENOMEM, "out of memory building a path");
    }
    if ((rc = put_segment(out, "API version", r->version, err)) != CW_OK)
        return rc;
    if (r->namespace && *r->namespace) {
        if (cw_buf_puts(out, "/namespaces") != CW_OK)
            return cw_error_set(err, CW_ENOMEM, "out of memory building a path");
        if ((rc = put_segment(out, "namespace", r->namespace, err)) != CW_OK)
            return rc;
    }
    if ((rc = put_segment(out, "resource", r->resource, err)) != CW_OK)
        return rc;
    if (name && (rc = put_segment(out, "name", name, err)) != CW_OK)
        return rc;
    if (subresource && (rc = put_segment(out, "subresource", subresource, err)) != CW_OK)
        return rc;
    return CW_OK;
}

int cw_kube_query(cw_buf *out, const char *key, const char *value, cw_error *err)
{
    int rc;
    char sep = out->data && strchr(out->data, '?') ? '&' : '?';
    if (cw_buf_putc(out, sep) != CW_OK)
        return cw_error_set(err, CW_ENOMEM, "out of memory building a query");
    if ((rc = put_escaped(out, key, err)) != CW_OK)
        return rc;
    if (cw_buf_putc(out, '=') != CW_OK)
        return cw_error_set(err, CW_ENOMEM, "out of memory building a query");
    return put_escaped(out, value ? value : "", err);
}
