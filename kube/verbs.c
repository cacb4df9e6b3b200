/* Typed verbs over cw_kube_do_json: get, create, update, patch, delete. */
#include "kube/internal.h"

#include <string.h>

#include <stdio.h>

#include "lib/buf.h"
#include "lib/json.h"

void cw_kube_write_opts_init(cw_kube_write_opts *o)
{
    memset(o, 0, sizeof(*o));
}

void cw_kube_delete_opts_init(cw_kube_delete_opts *o)
{
    memset(o, 0, sizeof(*o));
}

int cw_kube_request(cw_kube_client *c, const char *method, const char *path,
                    const char *content_type, json_object *body, json_object **out, cw_error *err)
{
    if (!path || path[0] != '/')
        return cw_error_set(err, CW_EINVAL, "API path \"%s\" must start with '/'",
                            path ? path : "");
    return cw_kube_do_json(c, method, path, content_type, body, out, err);
}

static int write_path(cw_kube_client *c, cw_buf *path, const cw_kube_resource *r, const char *name,
                      int dry_run, const char *field_manager, cw_error *err)
{
    int rc;
    if ((rc = cw_kube_path(path, r, name, NULL, err)) != CW_OK)
        return rc;
    if ((dry_run || c->opts.dry_run) && (rc = cw_kube_query(path, "dryRun", "All", err)) != CW_OK)
        return rc;
    if (field_manager && (rc = cw_kube_query(path, "fieldManager", field_manager, err)) != CW_OK)
        return rc;
    return CW_OK;
}

int cw_kube_get(cw_kube_client *c, const cw_kube_resource *r, const char *name, json_object **out,
                cw_error *err)
{
    int rc;
    cw_buf path;
    cw_buf_init(&path);
    if (!name)
        rc = cw_error_set(err, CW_EINVAL, "get: a name is required");
    else if ((rc = cw_kube_path(&path, r, name, NULL, err)) == CW_OK)
        rc = cw_kube_do_json(c, "GET", cw_buf_str(&path), NULL, NULL, out, err);
    cw_buf_free(&path);
    return rc;
}

int cw_kube_create(cw_kube_client *c, const cw_kube_resource *r, json_object *obj,
                   const cw_kube_write_opts *w, json_object **out, cw_error *err)
{
    int rc;
    cw_buf path;
    cw_buf_init(&path);
    if ((rc = write_path(c, &path, r, NULL, w && w->dry_run, w ? w->field_manager : NULL, err)) ==
        CW_OK)
        rc = cw_kube_do_json(c, "POST", cw_buf_str(&path), NULL, obj, out, err);
    cw_buf_free(&path);
    return rc;
}

int cw_kube_update(cw_kube_client *c, const cw_kube_resource *r, const char *name, json_object *obj,
                   const cw_kube_write_opts *w, json_object **out, cw_error *err)
{
    int rc;
    cw_buf path;
    cw_buf_init(&path);
    if (!name)
        rc = cw_error_set(err, CW_EINVAL, "update: a name is required");
    else if ((rc = write_path(c, &path, r, name, w && w->dry_run, w ? w->field_manager : NULL,
                              err)) == CW_OK)
        rc = cw_kube_do_json(c, "PUT", cw_buf_str(&path), NULL, obj, out, err);
    cw_buf_free(&path);
    return rc;
}

/* The apiserver (1.20) answers a JSON patch whose `test` op fails with a bare 422 "the server
 * rejected our request due to an error in our request", indistinguishable from a malformed op. */
static int has_test_op(json_object *patch)
{
    size_t n = json_object_is_type(patch, json_type_array) ? json_object_array_length(patch) : 0;
    for (size_t i = 0; i < n; i++) {
        const char *op = cw_json_path_string(json_object_array_get_idx(patch, i), "op");
        if (op && strcmp(op, "test") == 0)
            return 1;
    }
    return 0;
}

static void append_hint(cw_error *err, const char *hint)
{
    size_t len = strlen(err->message);
    snprintf(err->message + len, sizeof(err->message) - len, "%s", hint);
}

int cw_kube_patch(cw_kube_client *c, const cw_kube_resource *r, const char *name,
                  cw_kube_patch_type type, json_object *patch, const cw_kube_write_opts *w,
                  json_object **out, cw_error *err)
{
    int rc;
    const char *ct;
    cw_buf path;
    cw_buf_init(&path);
    switch (type) {
    case CW_KUBE_PATCH_MERGE:
        ct = "application/merge-patch+json";
        break;
    case CW_KUBE_PATCH_JSON:
        ct = "application/json-patch+json";
        break;
    case CW_KUBE_PATCH_STRATEGIC:
        ct = "application/strategic-merge-patch+json";
        break;
    default:
        ct = NULL;
        break;
    }
    if (!ct)
        rc = cw_error_set(err, CW_EINVAL, "patch: unknown patch type %d", (int)type);
    else if (!name || !patch)
        rc = cw_error_set(err, CW_EINVAL, "patch: a name and a patch are required");
    else if ((rc = write_path(c, &path, r, name, w && w->dry_run, w ? w->field_manager : NULL,
                              err)) == CW_OK)
        rc = cw_kube_do_json(c, "PATCH", cw_buf_str(&path), ct, patch, out, err);
    if (rc == CW_EHTTP && err && err->http_status == 422 && type == CW_KUBE_PATCH_JSON &&
        has_test_op(patch))
        append_hint(err, " (a failed `test` op gets this answer too: the object may have "
                         "changed; re-read it)");
    cw_buf_free(&path);
    return rc;
}

/* DeleteOptions for a delete of one object or of a collection. */
static json_object *delete_options(const cw_kube_delete_opts *d, int dry_run)
{
    json_object *body = json_object_new_object(), *pre = NULL;
    if (!body)
        return NULL;
    json_object_object_add(body, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(body, "kind", json_object_new_string("DeleteOptions"));
    if (d && d->propagation)
        json_object_object_add(body, "propagationPolicy", json_object_new_string(d->propagation));
    if (d && (d->uid || d->resource_version)) {
        pre = json_object_new_object();
        if (d->uid)
            json_object_object_add(pre, "uid", json_object_new_string(d->uid));
        if (d->resource_version)
            json_object_object_add(pre, "resourceVersion",
                                   json_object_new_string(d->resource_version));
        json_object_object_add(body, "preconditions", pre);
    }
    if (dry_run) {
        json_object *arr = json_object_new_array();
        json_object_array_add(arr, json_object_new_string("All"));
        json_object_object_add(body, "dryRun", arr);
    }
    return body;
}

/* DELETE path with the DeleteOptions body both deletes send. */
static int send_delete(cw_kube_client *c, cw_buf *path, const cw_kube_delete_opts *d, int dry_run,
                       json_object **out, cw_error *err)
{
    json_object *body = delete_options(d, dry_run);
    if (!body)
        return cw_error_oom(err);
    int rc = cw_kube_do_json(c, "DELETE", cw_buf_str(path), NULL, body, out, err);
    json_object_put(body);
    return rc;
}

int cw_kube_delete(cw_kube_client *c, const cw_kube_resource *r, const char *name,
                   const cw_kube_delete_opts *d, json_object **out, cw_error *err)
{
    int rc = CW_OK;
    cw_buf path;
    cw_buf_init(&path);
    int dry_run = (d && d->dry_run) || c->opts.dry_run;
    if (!name) {
        rc = cw_error_set(err, CW_EINVAL, "delete: a name is required");
        goto done;
    }
    if ((rc = write_path(c, &path, r, name, dry_run, NULL, err)) == CW_OK)
        rc = send_delete(c, &path, d, dry_run, out, err);
done:
    cw_buf_free(&path);
    return rc;
}

int cw_kube_delete_collection(cw_kube_client *c, const cw_kube_resource *r,
                              const char *label_selector, const cw_kube_delete_opts *d,
                              json_object **out, cw_error *err)
{
    int rc = CW_OK;
    cw_buf path;
    cw_buf_init(&path);
    int dry_run = (d && d->dry_run) || c->opts.dry_run;
    if (!label_selector || !*label_selector) {
        rc = cw_error_set(err, CW_EINVAL, "deletecollection: a label selector is required");
        goto done;
    }
    if ((rc = cw_kube_path(&path, r, NULL, NULL, err)) != CW_OK ||
        (rc = cw_kube_query(&path, "labelSelector", label_selector, err)) != CW_OK ||
        (dry_run && (rc = cw_kube_query(&path, "dryRun", "All", err)) != CW_OK))
        goto done;
    rc = send_delete(c, &path, d, dry_run, out, err);
done:
    cw_buf_free(&path);
    return rc;
}
