/* Discovery: which versions of an API group the server serves (and prefers), and which resources
 * a group version has. */
#include "kube/internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"

void cw_kube_group_init(cw_kube_group *g)
{
    g->name = NULL;
    g->preferred = NULL;
    cw_strlist_init(&g->versions);
}

void cw_kube_group_free(cw_kube_group *g)
{
    free(g->name);
    free(g->preferred);
    cw_strlist_free(&g->versions);
    cw_kube_group_init(g);
}

void cw_kube_api_resources_init(cw_kube_api_resources *l)
{
    l->items = NULL;
    l->len = 0;
}

void cw_kube_api_resources_free(cw_kube_api_resources *l)
{
    for (size_t i = 0; i < l->len; i++) {
        free(l->items[i].name);
        free(l->items[i].kind);
        cw_strlist_free(&l->items[i].verbs);
    }
    free(l->items);
    cw_kube_api_resources_init(l);
}

const cw_kube_api_resource *cw_kube_api_resources_find(const cw_kube_api_resources *l,
                                                       const char *name)
{
    for (size_t i = 0; i < l->len; i++)
        if (strcmp(l->items[i].name, name) == 0)
            return &l->items[i];
    return NULL;
}

static int oom(cw_error *err)
{
    return cw_error_set(err, CW_ENOMEM, "out of memory reading discovery");
}

int cw_kube_discover_group(cw_kube_client *c, const char *group, cw_kube_group *out, cw_error *err)
{
    int rc = CW_OK;
    json_object *doc = NULL, *versions = NULL;
    cw_kube_group g;
    cw_buf path;
    cw_kube_group_init(&g);
    cw_buf_init(&path);
    int core = !group || !*group;
    if (cw_buf_puts(&path, core ? "/api" : "/apis/") != CW_OK) {
        rc = oom(err);
        goto done;
    }
    if (!core && (rc = cw_kube_path_segment(&path, "API group", group, err)) != CW_OK)
        goto done;
    rc = cw_kube_do_json(c, "GET", cw_buf_str(&path), NULL, NULL, &doc, err);
    if (rc == CW_ENOTFOUND) {
        rc = cw_error_set(err, CW_ENOTFOUND, "API group \"%s\" is not served by %s (GET %s%s: 404)",
                          group, c->cfg.server, c->base_url, cw_buf_str(&path));
        if (err)
            err->http_status = 404;
    }
    if (rc != CW_OK)
        goto done;
    if ((rc = cw_json_opt_array(doc, cw_buf_str(&path), "versions", &versions, err)) != CW_OK)
        goto done;
    if (!(g.name = strdup(core ? "" : group))) {
        rc = oom(err);
        goto done;
    }
    size_t n = versions ? json_object_array_length(versions) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *v = json_object_array_get_idx(versions, i);
        /* /api lists plain strings; /apis/<group> lists {groupVersion, version}. */
        const char *name = json_object_is_type(v, json_type_string)
                               ? json_object_get_string(v)
                               : cw_json_path_string(v, "version");
        if (name && cw_strlist_add(&g.versions, name) != CW_OK) {
            rc = oom(err);
            goto done;
        }
    }
    const char *pref = cw_json_path_string(doc, "preferredVersion.version");
    if (!pref && g.versions.len > 0)
        pref = g.versions.items[0];
    if (!pref) {
        rc = cw_error_set(err, CW_EINVAL, "GET %s%s: the API group lists no versions", c->base_url,
                          cw_buf_str(&path));
        goto done;
    }
    if (!(g.preferred = strdup(pref))) {
        rc = oom(err);
        goto done;
    }
    cw_kube_group_free(out);
    *out = g;
    cw_kube_group_init(&g);
done:
    json_object_put(doc);
    cw_kube_group_free(&g);
    cw_buf_free(&path);
    return rc;
}

int cw_kube_discover_resources(cw_kube_client *c, const char *group, const char *version,
                               cw_kube_api_resources *out, cw_error *err)
{
    int rc = CW_OK;
    json_object *doc = NULL, *list = NULL;
    cw_kube_api_resources res;
    cw_buf path;
    cw_kube_api_resources_init(&res);
    cw_buf_init(&path);
    int core = !group || !*group;
    if (cw_buf_puts(&path, core ? "/api/" : "/apis/") != CW_OK) {
        rc = oom(err);
        goto done;
    }
    if (!core) {
        if ((rc = cw_kube_path_segment(&path, "API group", group, err)) != CW_OK)
            goto done;
        if (cw_buf_putc(&path, '/') != CW_OK) {
            rc = oom(err);
            goto done;
        }
    }
    if ((rc = cw_kube_path_segment(&path, "API version", version, err)) != CW_OK)
        goto done;
    if ((rc = cw_kube_do_json(c, "GET", cw_buf_str(&path), NULL, NULL, &doc, err)) != CW_OK)
        goto done;
    if ((rc = cw_json_opt_array(doc, cw_buf_str(&path), "resources", &list, err)) != CW_OK)
        goto done;
    size_t n = list ? json_object_array_length(list) : 0;
    res.items = calloc(n ? n : 1, sizeof(*res.items));
    if (!res.items) {
        rc = oom(err);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *item = json_object_array_get_idx(list, i);
        const char *name = cw_json_path_string(item, "name");
        const char *kind = cw_json_path_string(item, "kind");
        if (!name)
            continue;
        cw_kube_api_resource *r = &res.items[res.len];
        cw_strlist_init(&r->verbs);
        r->namespaced = json_object_get_boolean(cw_json_member(item, "namespaced"));
        r->name = strdup(name);
        r->kind = strdup(kind ? kind : "");
        res.len++;
        if (!r->name || !r->kind) {
            rc = oom(err);
            goto done;
        }
        json_object *verbs = cw_json_member(item, "verbs");
        size_t nv =
            json_object_is_type(verbs, json_type_array) ? json_object_array_length(verbs) : 0;
        for (size_t j = 0; j < nv; j++) {
            const char *v = json_object_get_string(json_object_array_get_idx(verbs, j));
            if (v && cw_strlist_add(&r->verbs, v) != CW_OK) {
                rc = oom(err);
                goto done;
            }
        }
    }
    cw_kube_api_resources_free(out);
    *out = res;
    cw_kube_api_resources_init(&res);
done:
    json_object_put(doc);
    cw_kube_api_resources_free(&res);
    cw_buf_free(&path);
    return rc;
}

static int serves(cw_kube_client *kube, const char *group, const char *version,
                  const char *resource, cw_error *err)
{
    cw_kube_api_resources res;
    cw_kube_api_resources_init(&res);
    int rc = cw_kube_discover_resources(kube, group, version, &res, err);
    int found = rc == CW_OK && cw_kube_api_resources_find(&res, resource) != NULL;
    cw_kube_api_resources_free(&res);
    return found;
}

int cw_kube_pick_version(cw_kube_client *kube, const char *group, const char *resource, char *out,
                         size_t outlen, cw_error *err)
{
    cw_kube_group g;
    cw_kube_group_init(&g);
    int rc = cw_kube_discover_group(kube, group, &g, err);
    if (rc != CW_OK)
        goto done;
    if (g.preferred && serves(kube, group, g.preferred, resource, err)) {
        snprintf(out, outlen, "%s", g.preferred);
        goto done;
    }
    for (size_t i = 0; i < g.versions.len; i++) {
        if (g.preferred && strcmp(g.versions.items[i], g.preferred) == 0)
            continue; /* asked already */
        if (serves(kube, group, g.versions.items[i], resource, err)) {
            snprintf(out, outlen, "%s", g.versions.items[i]);
            goto done;
        }
    }
    rc = cw_error_set(err, CW_ENOTFOUND, "the API server does not serve %s.%s", resource, group);
done:
    cw_kube_group_free(&g);
    return rc;
}
