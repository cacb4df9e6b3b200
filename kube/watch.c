/* WATCH: a long-lived GET whose body is newline-delimited JSON events, parsed as they arrive and
 * handed to the caller one by one. */
#include "kube/internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "lib/log.h"

void cw_kube_watch_opts_init(cw_kube_watch_opts *o)
{
    memset(o, 0, sizeof(*o));
}

typedef struct wstate {
    cw_kube_event_fn fn;
    void *ud;
    cw_buf line;
    size_t max;
    const char *url;
    const char *const *prune;
    size_t prune_over;
} wstate;

static const struct {
    const char *name;
    cw_kube_event_type type;
} event_types[] = {
    {"ADDED", CW_KUBE_ADDED},       {"MODIFIED", CW_KUBE_MODIFIED}, {"DELETED", CW_KUBE_DELETED},
    {"BOOKMARK", CW_KUBE_BOOKMARK}, {"ERROR", CW_KUBE_ERROR},
};

/* One event line. Returns CW_OK to go on, > 0 to stop quietly, < 0 with err set. */
static int dispatch(wstate *w, const char *line, size_t len, cw_error *err)
{
    int rc = CW_OK;
    json_object *ev = NULL;
    if ((rc = cw_kube_parse_pruned(line, len, "object", w->prune, w->prune_over, &ev, err)) !=
        CW_OK) {
        cw_error_prefix(err, "watch %s: event", w->url);
        goto done;
    }
    const char *type = cw_json_path_string(ev, "type");
    json_object *obj = cw_json_member(ev, "object");
    size_t i;
    for (i = 0; type && i < sizeof(event_types) / sizeof(event_types[0]); i++)
        if (strcmp(type, event_types[i].name) == 0)
            break;
    if (!type || i == sizeof(event_types) / sizeof(event_types[0])) {
        cw_log(CW_LOG_DEBUG, "ignoring watch event of unknown type",
               CW_LS("type", type ? type : ""));
        goto done;
    }
    cw_kube_event e = {
        .type = event_types[i].type,
        .type_name = type,
        .object = obj,
        .resource_version = cw_json_path_string(obj, "metadata.resourceVersion"),
    };
    long code = 0;
    if (e.type == CW_KUBE_ERROR) {
        code = (long)json_object_get_int64(cw_json_member(obj, "code"));
        e.gone = code == 410;
    }
    rc = w->fn(w->ud, &e, err);
    if (rc == CW_OK && e.type == CW_KUBE_ERROR) {
        char msg[600];
        const char *body = obj ? cw_json_compact(obj) : NULL;
        cw_kube_body_message(body, body ? strlen(body) : 0, msg, sizeof(msg));
        rc = cw_error_set(err, CW_EHTTP, "watch %s: ERROR event: %ld %s%s%s%s", w->url, code,
                          cw_kube_reason_phrase(code), *msg ? ": " : "", msg,
                          e.gone ? " (resourceVersion too old: list again)" : "");
        if (err)
            err->http_status = (int)code;
    }
done:
    json_object_put(ev);
    return rc;
}

static int on_data(void *ud, const char *data, size_t len, cw_error *err)
{
    wstate *w = ud;
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        size_t n = nl ? (size_t)(nl - data) : len;
        if (w->line.len + n > w->max)
            return cw_error_set(err, CW_ELIMIT, "watch %s: an event exceeds %zu bytes", w->url,
                                w->max);
        if (cw_buf_append(&w->line, data, n) != CW_OK)
            return cw_error_set(err, CW_ENOMEM, "out of memory reading a watch event");
        if (!nl)
            break;
        if (w->line.len > 0) {
            int rc = dispatch(w, w->line.data, w->line.len, err);
            cw_buf_reset(&w->line);
            if (rc != CW_OK)
                return rc;
        }
        data = nl + 1;
        len -= n + 1;
    }
    return CW_OK;
}

int cw_kube_watch(cw_kube_client *c, const cw_kube_resource *r, const cw_kube_watch_opts *o,
                  cw_kube_event_fn fn, void *ud, cw_error *err)
{
    int rc = CW_OK;
    cw_kube_watch_opts defaults;
    cw_buf path, url;
    cw_kube_req req;
    cw_kube_resp resp;
    wstate w = {.fn = fn, .ud = ud, .max = c->opts.max_body};
    cw_buf_init(&path);
    if (o) {
        w.prune = o->prune;
        w.prune_over = o->prune_over;
    }
    cw_buf_init(&url);
    cw_buf_init(&w.line);
    cw_kube_req_init(&req);
    cw_kube_resp_init(&resp);
    if (!o) {
        cw_kube_watch_opts_init(&defaults);
        o = &defaults;
    }
    if ((rc = cw_kube_path(&path, r, NULL, NULL, err)) != CW_OK ||
        (rc = cw_kube_query(&path, "watch", "1", err)) != CW_OK)
        goto done;
    if (o->resource_version &&
        (rc = cw_kube_query(&path, "resourceVersion", o->resource_version, err)) != CW_OK)
        goto done;
    if (!o->no_bookmarks &&
        (rc = cw_kube_query(&path, "allowWatchBookmarks", "true", err)) != CW_OK)
        goto done;
    if (o->label_selector && *o->label_selector &&
        (rc = cw_kube_query(&path, "labelSelector", o->label_selector, err)) != CW_OK)
        goto done;
    if (o->field_selector && *o->field_selector &&
        (rc = cw_kube_query(&path, "fieldSelector", o->field_selector, err)) != CW_OK)
        goto done;
    if (o->timeout_seconds > 0) {
        char ts[32];
        snprintf(ts, sizeof(ts), "%ld", o->timeout_seconds);
        if ((rc = cw_kube_query(&path, "timeoutSeconds", ts, err)) != CW_OK)
            goto done;
    }
    if (cw_buf_printf(&url, "%s%s", c->base_url, cw_buf_str(&path)) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    w.url = cw_buf_str(&url);
    req.method = "GET";
    req.path = cw_buf_str(&path);
    req.sink = on_data;
    req.sink_ud = &w;
    req.stop = o->stop;
    /* No overall timeout: the server ends the watch after timeoutSeconds (plus some slack). */
    req.timeout = o->timeout_seconds > 0 ? (double)o->timeout_seconds + 30 : 0;
    rc = cw_kube_do(c, &req, &resp, err);
    if (rc == CW_OK && !resp.stopped && w.line.len > 0) {
        /* The stream ended without a final newline. */
        rc = dispatch(&w, w.line.data, w.line.len, err);
        if (rc > 0)
            rc = CW_OK;
    }
done:
    cw_buf_free(&path);
    cw_buf_free(&url);
    cw_buf_free(&w.line);
    cw_kube_resp_free(&resp);
    return rc;
}
