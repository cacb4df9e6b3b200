#include "controller/core/informer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/json.h"
#include "lib/log.h"
#include "lib/clock.h"

int cw_informer_metrics_register(cw_metrics *m, cw_informer_metrics *out, cw_error *err)
{
#define IDENTITY "group", "version", "namespace", "label_selector", "field_selector", NULL
    static const char *const res[] = {"resource", IDENTITY};
    static const char *const res_type[] = {"resource", "type", IDENTITY};
    static const char *const res_reason[] = {"resource", "reason", IDENTITY};
#undef IDENTITY
    int rc;
    if ((rc = cw_metrics_counter(m, "cronwarden_controller_informer_events_total",
                                 "Changes an informer applied, by resource and type (added, "
                                 "modified, deleted, bookmark).",
                                 res_type, &out->events, err)) ||
        (rc = cw_metrics_counter(m, "cronwarden_controller_informer_lists_total",
                                 "Full LISTs by resource and reason (start, expired: 410 Gone, "
                                 "error: after a failed LIST).",
                                 res_reason, &out->lists, err)) ||
        (rc = cw_metrics_counter(m, "cronwarden_controller_informer_watch_errors_total",
                                 "Watches that failed (other than by expiring), by resource.", res,
                                 &out->watch_errors, err)) ||
        (rc = cw_metrics_gauge(m, "cronwarden_controller_informer_objects",
                               "Objects an informer has.", res, &out->objects, err)) ||
        (rc = cw_metrics_gauge(m, "cronwarden_controller_informer_synced",
                               "1 once an informer's first LIST has filled its caches.", res,
                               &out->synced, err)) ||
        (rc = cw_metrics_gauge(m, "cronwarden_controller_informer_missing",
                               "1 while the API server answers an informer's LIST with 404: it "
                               "does not serve the resource (a CRD not installed).",
                               res, &out->missing, err)))
        return rc;
    return CW_OK;
}

json_object *cw_informer_copy_spec(json_object *obj, const char *api_version, const char *kind)
{
    json_object *o = NULL;
    if (cw_json_copy(obj, &o) != CW_OK || !o)
        return NULL;
    json_object_object_del(o, "status");
    json_object_object_del(cw_json_member(o, "metadata"), "managedFields");
    if ((!cw_json_member(o, "apiVersion") &&
         json_object_object_add(o, "apiVersion", json_object_new_string(api_version))) ||
        (!cw_json_member(o, "kind") &&
         json_object_object_add(o, "kind", json_object_new_string(kind)))) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* The metrics' identifying label values (cw_informer_metrics). */
static void set_labels(cw_informer *inf)
{
    const cw_kube_resource *r = &inf->cfg.resource;
    const char *v[CW_INFORMER_LABELS] = {r->resource,
                                         r->group,
                                         r->version,
                                         r->namespace,
                                         inf->cfg.label_selector,
                                         inf->cfg.field_selector};
    for (size_t i = 0; i < CW_INFORMER_LABELS; i++)
        snprintf(inf->labels[i], sizeof(inf->labels[i]), "%s", v[i] ? v[i] : "");
}

int cw_informer_init(cw_informer *inf, const cw_informer_config *cfg, cw_error *err)
{
    memset(inf, 0, sizeof(*inf));
    inf->cfg = *cfg;
    if (!inf->cfg.name)
        inf->cfg.name = cfg->resource.resource;
    if (inf->cfg.page_size <= 0)
        inf->cfg.page_size = 100;
    if (inf->cfg.backoff_base <= 0)
        inf->cfg.backoff_base = 0.5;
    if (inf->cfg.backoff_max <= 0)
        inf->cfg.backoff_max = 30;
    if (inf->cfg.resource.namespace && !*inf->cfg.resource.namespace)
        inf->cfg.resource.namespace = NULL;
    atomic_init(&inf->synced, 0);
    atomic_init(&inf->missing, 0);
    atomic_init(&inf->stop, 0);
    inf->rng = (unsigned)time(NULL) ^ (unsigned)getpid() ^ (unsigned)(uintptr_t)inf;
    pthread_mutex_init(&inf->lock, NULL);
    cw_strmap_init(&inf->versions);
    set_labels(inf);
    if (!cfg->sink.handler && !cfg->sink.queue)
        return CW_OK; /* its sinks come with cw_informer_add_sink */
    return cw_informer_add_sink(inf, &cfg->sink, NULL, err);
}

/* The cache of this projection and index: an earlier sink's, or a new one (-1: out of memory). */
static int cache_for(cw_informer *inf, const cw_informer_sink *k, cw_error *err)
{
    for (size_t i = 0; i < inf->ncaches; i++) {
        const cw_informer_cache *c = inf->caches[i];
        if (c->transform == k->transform && c->transform_ud == k->transform_ud &&
            c->index == k->index && (!k->index || c->index_ud == k->index_ud))
            return (int)i;
    }
    cw_informer_cache *c = calloc(1, sizeof(*c)), **grown;
    if (!c || !(grown = realloc(inf->caches, (inf->ncaches + 1) * sizeof(*grown)))) {
        free(c);
        cw_error_oom(err);
        return -1;
    }
    inf->caches = grown;
    c->transform = k->transform;
    c->transform_ud = k->transform_ud;
    c->index = k->index;
    c->index_ud = k->index_ud;
    if (cw_ctrl_store_init(&c->store, k->index, k->index_ud, err) != CW_OK) {
        free(c);
        return -1;
    }
    inf->caches[inf->ncaches] = c;
    return (int)inf->ncaches++;
}

int cw_informer_add_sink(cw_informer *inf, const cw_informer_sink *sink, size_t *id, cw_error *err)
{
    if (!sink->handler && !sink->queue)
        return cw_error_set(err, CW_EINVAL, "informer %s: needs a handler or a queue",
                            inf->cfg.name);
    cw_informer_reader *grown = realloc(inf->sinks, (inf->nsinks + 1) * sizeof(*grown));
    if (!grown)
        return cw_error_oom(err);
    inf->sinks = grown;
    int cache = sink->storeless ? -1 : cache_for(inf, sink, err);
    if (!sink->storeless && cache < 0)
        return err->code ? err->code : CW_ENOMEM;
    inf->sinks[inf->nsinks] = (cw_informer_reader){*sink, cache};
    if (id)
        *id = inf->nsinks;
    inf->nsinks++;
    return CW_OK;
}

cw_ctrl_store *cw_informer_sink_store(cw_informer *inf, size_t id)
{
    int c = id < inf->nsinks ? inf->sinks[id].cache : -1;
    return c < 0 ? NULL : &inf->caches[c]->store;
}

void cw_informer_free(cw_informer *inf)
{
    cw_informer_stop(inf);
    for (size_t i = 0; i < inf->ncaches; i++) {
        cw_ctrl_store_free(&inf->caches[i]->store);
        free(inf->caches[i]);
    }
    free(inf->caches);
    free(inf->sinks);
    cw_strmap_free(&inf->versions, free);
    pthread_mutex_destroy(&inf->lock);
    memset(inf, 0, sizeof(*inf));
}

int cw_informer_synced(cw_informer *inf)
{
    return atomic_load(&inf->synced);
}

int cw_informer_missing(cw_informer *inf)
{
    return atomic_load(&inf->missing);
}

void cw_informer_resource_name(const cw_informer *inf, char *out, size_t outlen)
{
    const cw_kube_resource *r = &inf->cfg.resource;
    snprintf(out, outlen, "%s%s%s/%s", r->resource, r->group && *r->group ? "." : "",
             r->group ? r->group : "", r->version);
}

cw_ctrl_store *cw_informer_store(cw_informer *inf)
{
    return cw_informer_sink_store(inf, 0);
}

int cw_informer_keys(cw_informer *inf, cw_strlist *out)
{
    pthread_mutex_lock(&inf->lock);
    int rc = cw_ctrl_map_keys(&inf->versions, out);
    pthread_mutex_unlock(&inf->lock);
    return rc;
}

size_t cw_informer_len(cw_informer *inf)
{
    pthread_mutex_lock(&inf->lock);
    size_t n = inf->versions.len;
    pthread_mutex_unlock(&inf->lock);
    return n;
}

/* ---- metrics ---- */

/* second: the type or reason label, or NULL for the families without one. */
static void count(cw_informer *inf, cw_metric *m, const char *second, double v)
{
    const char *values[CW_INFORMER_LABELS + 1];
    size_t n = 0;
    values[n++] = inf->labels[0];
    if (second)
        values[n++] = second;
    for (size_t i = 1; i < CW_INFORMER_LABELS; i++)
        values[n++] = inf->labels[i];
    if (m)
        cw_metrics_add(m, values, v);
}

static void gauges(cw_informer *inf)
{
    const char *values[CW_INFORMER_LABELS];
    if (!inf->cfg.metrics)
        return;
    for (size_t i = 0; i < CW_INFORMER_LABELS; i++)
        values[i] = inf->labels[i];
    cw_metrics_set(inf->cfg.metrics->objects, values, (double)cw_informer_len(inf));
    cw_metrics_set(inf->cfg.metrics->synced, values, atomic_load(&inf->synced));
    cw_metrics_set(inf->cfg.metrics->missing, values, atomic_load(&inf->missing));
}

#define METRIC(field) (inf->cfg.metrics ? inf->cfg.metrics->field : NULL)

/* ---- applying changes ---- */

static void call(cw_informer *inf, const cw_informer_reader *r, cw_informer_op op, const char *key,
                 json_object *old, json_object *obj)
{
    if (r->sink.handler) {
        r->sink.handler(r->sink.handler_ud, op, key, old, obj);
    } else if (cw_queue_add(r->sink.queue, key) != CW_OK) {
        cw_log(CW_LOG_ERROR, "out of memory queueing a key", CW_LS("informer", inf->cfg.name),
               CW_LS("key", key));
    }
}

/* Every sink told of one change: a cache's sinks see its old and new entries (olds[c], news[c]);
 * a store-less sink sees whole, the object as it came (NULL on DELETE). */
static void notify(cw_informer *inf, cw_informer_op op, const char *key, json_object *const *olds,
                   json_object *const *news, json_object *whole)
{
    static const char *const names[] = {"added", "modified", "deleted"};
    count(inf, METRIC(events), names[op], 1);
    for (size_t i = 0; i < inf->nsinks; i++) {
        const cw_informer_reader *r = &inf->sinks[i];
        if (r->cache < 0) {
            call(inf, r, op, key, NULL, whole);
        } else {
            json_object *old = olds[r->cache];
            /* A cache's own view: an update to it is an add when it did not have the object. */
            cw_informer_op cop = op == CW_INFORMER_DELETE ? op
                                 : old                    ? CW_INFORMER_UPDATE
                                                          : CW_INFORMER_ADD;
            call(inf, r, cop, key, old, news ? news[r->cache] : NULL);
        }
    }
}

static const char *version_of(json_object *obj)
{
    const char *rv = cw_json_path_string(obj, "metadata.resourceVersion");
    return rv ? rv : "";
}

/* The version the informer has of key into have ("" when none); 1 when it has the key. */
static int version_had(cw_informer *inf, const char *key, char *have, size_t len)
{
    pthread_mutex_lock(&inf->lock);
    const char *v = cw_strmap_get_s(&inf->versions, key);
    int present = cw_strmap_has_s(&inf->versions, key);
    snprintf(have, len, "%s", v ? v : "");
    pthread_mutex_unlock(&inf->lock);
    return present;
}

static int version_set(cw_informer *inf, const char *key, const char *rv)
{
    char *copy = strdup(rv), *old = NULL;
    pthread_mutex_lock(&inf->lock);
    int rc = copy ? cw_strmap_set_s(&inf->versions, key, copy, (void **)&old) : CW_ENOMEM;
    pthread_mutex_unlock(&inf->lock);
    if (rc != CW_OK)
        free(copy);
    free(old);
    return rc;
}

static void put_all(json_object **objs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        json_object_put(objs[i]);
}

/* Takes obj (borrowed) unless the informer already has this version; `seen` (may be NULL)
 * records the key. Every cache changes, then every sink is told. */
static int upsert(cw_informer *inf, json_object *obj, cw_strmap *seen, cw_error *err)
{
    char key[CW_CTRL_KEY_MAX], have[128];
    int rc;
    if ((rc = cw_ctrl_object_key(obj, key, sizeof(key), err)) != CW_OK) {
        cw_log(CW_LOG_WARN, "ignoring an object without a usable key",
               CW_LS("informer", inf->cfg.name), CW_LS("error", err->message));
        return CW_OK;
    }
    if (seen && cw_strmap_set_s(seen, key, (void *)1, NULL) != CW_OK)
        return cw_error_oom(err);
    int present = version_had(inf, key, have, sizeof(have));
    if (present && *have && strcmp(have, version_of(obj)) == 0)
        return CW_OK; /* unchanged */
    json_object *olds[inf->ncaches + 1], *news[inf->ncaches + 1];
    size_t done = 0;
    for (; done < inf->ncaches; done++) {
        cw_informer_cache *c = inf->caches[done];
        news[done] = c->transform ? c->transform(c->transform_ud, obj) : json_object_get(obj);
        olds[done] = NULL;
        if (!news[done] || cw_ctrl_store_put(&c->store, key, news[done], &olds[done]) != CW_OK)
            break;
    }
    if (done < inf->ncaches || version_set(inf, key, version_of(obj)) != CW_OK) {
        put_all(olds, done);
        return cw_error_set(err, CW_ENOMEM, "informer %s: out of memory caching %s", inf->cfg.name,
                            key);
    }
    notify(inf, present ? CW_INFORMER_UPDATE : CW_INFORMER_ADD, key, olds, news, obj);
    put_all(olds, inf->ncaches);
    return CW_OK;
}

static void remove_key(cw_informer *inf, const char *key)
{
    json_object *olds[inf->ncaches + 1];
    pthread_mutex_lock(&inf->lock);
    char *had = cw_strmap_del_s(&inf->versions, key);
    pthread_mutex_unlock(&inf->lock);
    int present = had != NULL;
    free(had);
    for (size_t i = 0; i < inf->ncaches; i++) {
        olds[i] = NULL;
        cw_ctrl_store_delete(&inf->caches[i]->store, key, &olds[i]);
    }
    if (present)
        notify(inf, CW_INFORMER_DELETE, key, olds, NULL, NULL);
    put_all(olds, inf->ncaches);
}

/* ---- LIST ---- */

typedef struct list_state {
    cw_informer *inf;
    cw_strmap seen;
    char rv[128];
} list_state;

static int on_page(void *ud, const cw_kube_page *page, cw_error *err)
{
    list_state *ls = ud;
    if (page->restarted) {
        /* The continue token expired and the LIST started over: forget what earlier pages
         * showed (the cache keeps their objects; the final sweep decides about them). */
        cw_strmap_free(&ls->seen, NULL);
        cw_strmap_init(&ls->seen);
    }
    size_t n = json_object_array_length(page->items);
    for (size_t i = 0; i < n; i++) {
        int rc = upsert(ls->inf, json_object_array_get_idx(page->items, i), &ls->seen, err);
        if (rc != CW_OK)
            return rc;
    }
    snprintf(ls->rv, sizeof(ls->rv), "%s", page->resource_version ? page->resource_version : "");
    return CW_OK;
}

int cw_informer_relist(cw_informer *inf, cw_error *err)
{
    list_state ls = {.inf = inf};
    cw_strlist keys;
    cw_kube_list_opts lo;
    int rc;
    cw_strmap_init(&ls.seen);
    cw_strlist_init(&keys);
    cw_kube_list_opts_init(&lo);
    lo.label_selector = inf->cfg.label_selector;
    lo.field_selector = inf->cfg.field_selector;
    lo.limit = inf->cfg.page_size;
    lo.prune = inf->cfg.prune;
    lo.prune_over = inf->cfg.prune_over;
    inf->lists++;
    rc = cw_kube_list(inf->cfg.kube, &inf->cfg.resource, &lo, on_page, &ls, err);
    atomic_store(&inf->missing, rc == CW_ENOTFOUND);
    if (rc != CW_OK)
        goto done;
    /* What the informer has and the LIST did not show was deleted meanwhile. */
    if ((rc = cw_informer_keys(inf, &keys)) != CW_OK) {
        cw_error_oom(err);
        goto done;
    }
    for (size_t i = 0; i < keys.len; i++)
        if (!cw_strmap_has_s(&ls.seen, keys.items[i]))
            remove_key(inf, keys.items[i]);
    snprintf(inf->rv, sizeof(inf->rv), "%s", ls.rv);
    if (!atomic_load(&inf->synced)) {
        atomic_store(&inf->synced, 1);
        cw_log(CW_LOG_INFO, "cache synced", CW_LS("informer", inf->cfg.name),
               CW_LI("objects", cw_informer_len(inf)), CW_LS("resource_version", inf->rv));
    }
done:
    gauges(inf);
    cw_strmap_free(&ls.seen, NULL);
    cw_strlist_free(&keys);
    return rc;
}

/* ---- WATCH ---- */

typedef struct watch_state {
    cw_informer *inf;
    unsigned long long events;
} watch_state;

static int on_event(void *ud, const cw_kube_event *ev, cw_error *err)
{
    watch_state *ws = ud;
    cw_informer *inf = ws->inf;
    int rc = CW_OK;
    char key[CW_CTRL_KEY_MAX];
    ws->events++;
    switch (ev->type) {
    case CW_KUBE_ADDED:
    case CW_KUBE_MODIFIED:
        rc = upsert(inf, ev->object, NULL, err);
        break;
    case CW_KUBE_DELETED:
        if (cw_ctrl_object_key(ev->object, key, sizeof(key), err) == CW_OK)
            remove_key(inf, key);
        break;
    case CW_KUBE_BOOKMARK:
        count(inf, METRIC(events), "bookmark", 1);
        break;
    case CW_KUBE_ERROR:
        return CW_OK; /* the watch then ends with the Status as its error */
    }
    if (rc == CW_OK && ev->resource_version && *ev->resource_version)
        snprintf(inf->rv, sizeof(inf->rv), "%s", ev->resource_version);
    gauges(inf);
    return rc;
}

int cw_informer_watch(cw_informer *inf, cw_error *err)
{
    watch_state ws = {.inf = inf};
    cw_kube_watch_opts wo;
    cw_kube_watch_opts_init(&wo);
    wo.resource_version = *inf->rv ? inf->rv : NULL;
    wo.label_selector = inf->cfg.label_selector;
    wo.field_selector = inf->cfg.field_selector;
    wo.prune = inf->cfg.prune;
    wo.prune_over = inf->cfg.prune_over;
    wo.timeout_seconds =
        inf->cfg.watch_timeout > 0 ? inf->cfg.watch_timeout : 300 + (long)(rand_r(&inf->rng) % 301);
    wo.stop = &inf->stop;
    inf->watches++;
    return cw_kube_watch(inf->cfg.kube, &inf->cfg.resource, &wo, on_event, &ws, err);
}

/* ---- the loop ---- */

/* Sleeps up to `seconds`, waking when the informer is stopped. */
static void nap(cw_informer *inf, double seconds)
{
    double end = cw_clock_mono() + seconds;
    while (!atomic_load(&inf->stop)) {
        double left = end - cw_clock_mono();
        if (left <= 0)
            break;
        usleep((useconds_t)((left < 0.1 ? left : 0.1) * 1e6));
    }
}

static double jitter_backoff(cw_informer *inf, int failures)
{
    double cap = inf->cfg.backoff_base;
    for (int i = 1; i < failures && cap < inf->cfg.backoff_max; i++)
        cap *= 2;
    if (cap > inf->cfg.backoff_max)
        cap = inf->cfg.backoff_max;
    /* Full jitter, but never less than a tenth of the cap: no hot loop. */
    double u = (double)(rand_r(&inf->rng) % 10000) / 10000.0;
    return cap * (0.1 + 0.9 * u);
}

/* A resource the server does not serve is an error a person must fix (install the CRD), said once
 * a minute; anything else is a warning per retry. */
static void list_failed(cw_informer *inf, const cw_error *err, double retry_in)
{
    char res[256];
    if (!atomic_load(&inf->missing)) {
        cw_log(CW_LOG_WARN, "list failed; retrying", CW_LS("informer", inf->cfg.name),
               CW_LS("error", err->message), CW_LD("retry_in_s", retry_in));
        return;
    }
    if (inf->missing_logged > 0 && cw_clock_mono() - inf->missing_logged < 60)
        return;
    inf->missing_logged = cw_clock_mono();
    cw_informer_resource_name(inf, res, sizeof(res));
    cw_log(CW_LOG_ERROR,
           "the API server does not serve a resource this reconciler needs; waiting for it "
           "(install its CRD, or leave the reconciler out of --controllers)",
           CW_LS("informer", inf->cfg.name), CW_LS("resource", res),
           CW_LS("namespace", inf->cfg.resource.namespace ? inf->cfg.resource.namespace : ""),
           CW_LS("error", err->message));
}

void cw_informer_run(cw_informer *inf)
{
    int need_list = 1, failures = 0;
    const char *reason = "start";
    while (!atomic_load(&inf->stop)) {
        cw_error err;
        cw_error_init(&err);
        if (need_list) {
            count(inf, METRIC(lists), reason, 1);
            if (cw_informer_relist(inf, &err) != CW_OK) {
                failures++;
                double d = jitter_backoff(inf, failures);
                list_failed(inf, &err, d);
                reason = "error";
                nap(inf, d);
                continue;
            }
            if (inf->missing_logged > 0) {
                inf->missing_logged = 0;
                cw_log(CW_LOG_INFO, "the resource is served now", CW_LS("informer", inf->cfg.name));
            }
            need_list = 0;
            failures = 0;
        }
        double t0 = cw_clock_mono();
        int rc = cw_informer_watch(inf, &err);
        if (atomic_load(&inf->stop))
            break;
        if (rc == CW_OK) {
            /* The server ended the watch (timeoutSeconds): resume from where it stopped. A
             * watch that ends at once, again and again, backs off instead of spinning. */
            if (cw_clock_mono() - t0 < 1) {
                failures++;
                nap(inf, jitter_backoff(inf, failures));
            } else {
                failures = 0;
            }
            continue;
        }
        if (err.http_status == 410) {
            cw_log(CW_LOG_INFO, "watch expired (410 Gone); listing again",
                   CW_LS("informer", inf->cfg.name), CW_LS("resource_version", inf->rv));
            need_list = 1;
            reason = "expired";
            continue;
        }
        count(inf, METRIC(watch_errors), NULL, 1);
        if (err.http_status == 404) {
            /* The resource is not served any more (its CRD was deleted): the LIST says so, to
             * /readyz and once a minute in the log, until it is served again. */
            need_list = 1;
            reason = "error";
            continue;
        }
        failures = cw_clock_mono() - t0 > 60 ? 1 : failures + 1;
        double d = jitter_backoff(inf, failures);
        cw_log(CW_LOG_WARN, "watch failed; reconnecting", CW_LS("informer", inf->cfg.name),
               CW_LS("error", err.message), CW_LD("retry_in_s", d));
        nap(inf, d);
    }
}

static void *thread_main(void *arg)
{
    cw_informer_run(arg);
    return NULL;
}

int cw_informer_start(cw_informer *inf, cw_error *err)
{
    if (inf->running)
        return CW_OK;
    atomic_store(&inf->stop, 0);
    if (pthread_create(&inf->thread, NULL, thread_main, inf) != 0)
        return cw_error_set(err, CW_ENOMEM, "informer %s: cannot start its thread", inf->cfg.name);
    inf->running = 1;
    return CW_OK;
}

void cw_informer_ask_stop(cw_informer *inf)
{
    atomic_store(&inf->stop, 1);
}

void cw_informer_stop(cw_informer *inf)
{
    atomic_store(&inf->stop, 1);
    if (inf->running) {
        pthread_join(inf->thread, NULL);
        inf->running = 0;
    }
}

int cw_informer_enqueue_all(cw_informer *inf, cw_queue *q)
{
    cw_strlist keys;
    cw_strlist_init(&keys);
    int rc = cw_informer_keys(inf, &keys);
    for (size_t i = 0; rc == CW_OK && i < keys.len; i++)
        rc = cw_queue_add(q, keys.items[i]);
    cw_strlist_free(&keys);
    return rc;
}

int cw_informers_synced(cw_informer *const *infs, size_t n, char *why, size_t whylen)
{
    size_t used = 0;
    int all = 1;
    if (whylen)
        why[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (!cw_informer_missing(infs[i]))
            continue;
        char res[256];
        cw_informer_resource_name(infs[i], res, sizeof(res));
        snprintf(why, whylen, "the API server does not serve %s (LIST answers 404)", res);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (cw_informer_synced(infs[i]))
            continue;
        int w = all ? snprintf(why, whylen, "caches not synced yet: %s", infs[i]->cfg.name)
                    : snprintf(why + used, whylen - used, ", %s", infs[i]->cfg.name);
        if (w > 0 && (size_t)w < whylen - used)
            used += (size_t)w;
        all = 0;
    }
    return all;
}
