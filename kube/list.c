/* Paged LIST: limit/continue, one page in memory at a time, and the 410 Gone that an expired
 * continue token (etcd compaction, about 5 minutes) produces. */
#include "kube/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "lib/jsonprune.h"
#include "lib/log.h"

void cw_kube_list_opts_init(cw_kube_list_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->limit = 500;
    o->on_expired = CW_KUBE_LIST_RESTART;
    o->max_restarts = 3;
}

static int page_path(cw_buf *path, const cw_kube_resource *r, const cw_kube_list_opts *o,
                     const char *cont, cw_error *err)
{
    int rc;
    char limit[32];
    cw_buf_reset(path);
    snprintf(limit, sizeof(limit), "%ld", o->limit > 0 ? o->limit : 500);
    if ((rc = cw_kube_path(path, r, NULL, NULL, err)) != CW_OK ||
        (rc = cw_kube_query(path, "limit", limit, err)) != CW_OK)
        return rc;
    if (o->label_selector && *o->label_selector &&
        (rc = cw_kube_query(path, "labelSelector", o->label_selector, err)) != CW_OK)
        return rc;
    if (o->field_selector && *o->field_selector &&
        (rc = cw_kube_query(path, "fieldSelector", o->field_selector, err)) != CW_OK)
        return rc;
    if (cont && (rc = cw_kube_query(path, "continue", cont, err)) != CW_OK)
        return rc;
    return CW_OK;
}

/* The inconsistent continue token a 410 Status offers (metadata.continue), or NULL. */
static char *expired_token(const cw_kube_resp *resp)
{
    json_object *st = NULL;
    char *tok = NULL;
    if (cw_kube_parse_json(resp->body.data, resp->body.len, &st, NULL) != CW_OK)
        return NULL;
    const char *s = cw_json_path_string(st, "metadata.continue");
    if (s && *s)
        tok = strdup(s);
    json_object_put(st);
    return tok;
}

int cw_kube_list(cw_kube_client *c, const cw_kube_resource *r, const cw_kube_list_opts *o,
                 cw_kube_page_fn fn, void *ud, cw_error *err)
{
    int rc = CW_OK;
    cw_kube_list_opts defaults;
    cw_buf path;
    cw_kube_resp resp;
    json_object *list = NULL, *empty = NULL;
    char *cont = NULL;
    int restarts = 0, restarted = 0, inconsistent = 0;
    size_t page = 0;
    cw_buf_init(&path);
    cw_kube_resp_init(&resp);
    if (!o) {
        cw_kube_list_opts_init(&defaults);
        o = &defaults;
    }
    for (;;) {
        cw_kube_req req;
        cw_kube_req_init(&req);
        if ((rc = page_path(&path, r, o, cont, err)) != CW_OK)
            goto done;
        req.method = "GET";
        req.path = cw_buf_str(&path);
        cw_kube_resp_free(&resp);
        rc = cw_kube_do(c, &req, &resp, err);
        if (rc != CW_OK && resp.status == 410 && cont) {
            char *next = expired_token(&resp);
            if (o->on_expired == CW_KUBE_LIST_INCONSISTENT && next) {
                cw_log(CW_LOG_WARN, "list continue token expired; continuing inconsistently",
                       CW_LS("path", resp.url));
                free(cont);
                cont = next;
                inconsistent = 1;
                continue;
            }
            free(next);
            if (restarts >= o->max_restarts) {
                rc = cw_error_set(err, CW_EHTTP,
                                  "%s: the continue token expired %d times (410 Gone); giving "
                                  "up (a smaller page size or a faster consumer helps)",
                                  resp.url, restarts + 1);
                if (err)
                    err->http_status = 410;
                goto done;
            }
            restarts++;
            cw_log(CW_LOG_WARN, "list continue token expired; restarting the list",
                   CW_LS("path", resp.url), CW_LI("restart", restarts));
            free(cont);
            cont = NULL;
            restarted = 1;
            inconsistent = 0;
            page = 0;
            continue;
        }
        if (rc != CW_OK)
            goto done;
        if ((rc = cw_kube_parse_pruned(resp.body.data, resp.body.len, "items", o->prune,
                                       o->prune_over, &list, err)) != CW_OK) {
            cw_error_prefix(err, "GET %s", resp.url);
            goto done;
        }
        cw_kube_resp_free(&resp); /* the page now lives as JSON only */
        json_object *items = cw_json_member(list, "items");
        if (!json_object_is_type(items, json_type_array)) {
            if (items && !json_object_is_type(items, json_type_null)) {
                rc = cw_error_set(err, CW_EINVAL, "GET %s: items: expected array, got %s",
                                  cw_buf_str(&path), cw_json_type_name(items));
                goto done;
            }
            if (!empty && !(empty = json_object_new_array())) {
                rc = cw_error_oom(err);
                goto done;
            }
            items = empty;
        }
        const char *next = cw_json_path_string(list, "metadata.continue");
        cw_kube_page pg = {
            .list = list,
            .items = items,
            .page = page,
            .restarted = restarted,
            .inconsistent = inconsistent,
            .last = !next || !*next,
            .resource_version = cw_json_path_string(list, "metadata.resourceVersion"),
        };
        int cb = fn(ud, &pg, err);
        if (cb != 0) {
            rc = cb > 0 ? CW_OK : cb;
            goto done;
        }
        if (pg.last)
            goto done;
        char *copy = strdup(next);
        if (!copy) {
            rc = cw_error_oom(err);
            goto done;
        }
        free(cont);
        cont = copy;
        json_object_put(list);
        list = NULL;
        restarted = 0;
        page++;
    }
done:
    json_object_put(list);
    json_object_put(empty);
    free(cont);
    cw_kube_resp_free(&resp);
    cw_buf_free(&path);
    return rc;
}

int cw_kube_parse_pruned(const char *data, size_t len, const char *under, const char *const *prune,
                         size_t over, json_object **out, cw_error *err)
{
    char paths[CW_JSON_PRUNE_MAX_PATHS][256];
    const char *list[CW_JSON_PRUNE_MAX_PATHS + 1] = {NULL};
    size_t n = 0, pruned = 0;
    cw_buf text;
    for (; prune && prune[n] && n < CW_JSON_PRUNE_MAX_PATHS; n++) {
        snprintf(paths[n], sizeof(paths[n]), "%s.%s", under, prune[n]);
        list[n] = paths[n];
    }
    if (!n)
        return cw_kube_parse_json(data, len, out, err);
    cw_buf_init(&text);
    int rc = cw_json_prune_text(data, len, CW_KUBE_JSON_DEPTH, list, over, &text, &pruned);
    if (rc == CW_ENOMEM)
        rc = cw_error_oom(err);
    else if (rc != CW_OK) /* not JSON: the parse says why */
        rc = cw_kube_parse_json(data, len, out, err);
    else
        rc = cw_kube_parse_json(text.data, text.len, out, err);
    cw_buf_free(&text);
    return rc;
}

typedef struct collect {
    json_object *items;
} collect;

static int collect_page(void *ud, const cw_kube_page *page, cw_error *err)
{
    collect *c = ud;
    (void)err;
    if (page->restarted) {
        json_object_put(c->items);
        c->items = NULL;
    }
    if (!c->items && !(c->items = json_object_new_array()))
        return cw_error_oom(err);
    for (size_t i = 0; i < json_object_array_length(page->items); i++)
        json_object_array_add(c->items, json_object_get(json_object_array_get_idx(page->items, i)));
    return 0;
}

int cw_kube_list_items(cw_kube_client *c, const cw_kube_resource *r, const char *selector,
                       json_object **out, cw_error *err)
{
    cw_kube_list_opts lo;
    collect col = {0};
    cw_kube_list_opts_init(&lo);
    lo.label_selector = selector;
    int rc = cw_kube_list(c, r, &lo, collect_page, &col, err);
    if (rc == CW_OK && !col.items && !(col.items = json_object_new_array()))
        rc = cw_error_oom(err);
    if (rc != CW_OK) {
        json_object_put(col.items);
        return rc;
    }
    *out = col.items;
    return CW_OK;
}
