/* Objects for the read-only reports (cron audit, cron status): manifests through kube/manifest, or
 * a live cluster through paged LISTs, one object at a time. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "kube/config.h"
#include "lib/log.h"
#include "kube/manifest.h"

typedef struct feed {
    cw_cmd_object_fn fn;
    void *ud;
} feed;

static int feed_unit(void *ud, const cw_load_unit *u, cw_error *err)
{
    char where[512];
    cw_load_where(u, where, sizeof(where));
    if (!json_object_is_type(u->obj, json_type_object))
        return CW_OK;
    return ((feed *)ud)->fn(((feed *)ud)->ud, u->obj, where, err);
}

int cw_cmd_feed_files(const cw_strlist *paths, long long max_bytes, const char *const *drop,
                      cw_cmd_object_fn fn, void *ud, cw_error *err)
{
    cw_strlist files;
    cw_strlist_init(&files);
    feed f = {fn, ud};
    int rc = cw_load_expand(paths, &files, err);
    if (rc == CW_OK)
        rc = cw_load_check_budget(&files, max_bytes, err);
    for (size_t i = 0; rc == CW_OK && i < files.len; i++)
        rc = cw_load_file_lean(files.items[i], drop, feed_unit, &f, err);
    cw_strlist_free(&files);
    return rc;
}

static int feed_page(void *ud, const cw_kube_page *page, cw_error *err)
{
    feed *f = ud;
    size_t n = json_object_array_length(page->items);
    const char *api = json_object_get_string(json_object_object_get(page->list, "apiVersion"));
    const char *kind = json_object_get_string(json_object_object_get(page->list, "kind"));
    char item_kind[128];
    snprintf(item_kind, sizeof(item_kind), "%.*s", kind ? (int)strlen(kind) - 4 : 0,
             kind ? kind : ""); /* "VolumeList" -> "Volume" */
    for (size_t i = 0; i < n; i++) {
        json_object *item = json_object_array_get_idx(page->items, i);
        /* LIST items carry no kind/apiVersion: the List's tell them */
        if (api && !json_object_object_get(item, "apiVersion"))
            json_object_object_add(item, "apiVersion", json_object_new_string(api));
        if (*item_kind && !json_object_object_get(item, "kind"))
            json_object_object_add(item, "kind", json_object_new_string(item_kind));
        int rc = f->fn(f->ud, item, "live", err);
        if (rc != CW_OK)
            return rc;
    }
    return CW_OK;
}

static int live_open(const char *kubeconfig, const char *context, cw_kube_config *kcfg,
                     cw_kube_client **kube, cw_error *err)
{
    cw_kube_load_opts lo;
    cw_kube_config_init(kcfg);
    cw_kube_load_opts_init(&lo);
    lo.kubeconfig = kubeconfig && *kubeconfig ? kubeconfig : NULL;
    lo.context = context && *context ? context : NULL;
    *kube = NULL;
    int rc = cw_kube_config_load(kcfg, &lo, err);
    if (rc == CW_OK)
        rc = cw_kube_client_new(kcfg, NULL, kube, err);
    return rc;
}

static int live_list(cw_kube_client *kube, const char *group, const char *resource, const char *ns,
                     const char *selector, cw_cmd_object_fn fn, void *ud, cw_error *err)
{
    char version[64] = "v1";
    int rc = cw_kube_pick_version(kube, group, resource, version, sizeof(version), err);
    if (rc == CW_ENOTFOUND) {
        cw_log(CW_LOG_INFO, "not served, skipped", CW_LS("resource", resource),
               CW_LS("group", group));
        cw_error_init(err);
        return CW_OK;
    }
    if (rc != CW_OK)
        return rc;
    cw_kube_resource r = {group, version, resource, ns};
    cw_kube_list_opts lo;
    feed f = {fn, ud};
    cw_kube_list_opts_init(&lo);
    lo.label_selector = selector;
    return cw_kube_list(kube, &r, &lo, feed_page, &f, err);
}

int cw_cmd_feed_live(const char *kubeconfig, const char *context, const cw_cmd_live_source *src,
                     size_t n, cw_cmd_object_fn fn, void *ud, cw_error *err)
{
    cw_kube_config kcfg;
    cw_kube_client *kube = NULL;
    int rc = live_open(kubeconfig, context, &kcfg, &kube, err);
    for (size_t i = 0; rc == CW_OK && i < n; i++)
        rc =
            live_list(kube, src[i].group, src[i].resource, src[i].ns, src[i].selector, fn, ud, err);
    cw_kube_client_free(kube);
    cw_kube_config_free(&kcfg);
    return rc;
}

size_t cw_cmd_kind_sources(unsigned reader, const char *ns, const char *velero_ns,
                           cw_cmd_live_source out[CW_KIND_COUNT])
{
    size_t n = 0;
    for (size_t i = 0; i < CW_KIND_COUNT; i++) {
        const cw_kind *k = &cw_kinds[i];
        if (!(k->readers & reader))
            continue;
        const char *in = k->where == CW_KIND_HOME     ? ns
                         : k->where == CW_KIND_VELERO ? velero_ns
                                                      : NULL;
        out[n++] = (cw_cmd_live_source){k->group, k->resource, in, k->selector};
    }
    return n;
}
