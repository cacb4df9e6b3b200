#include "controller/core/events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/json.h"
#include "lib/log.h"

int cw_ctrl_events_init(cw_ctrl_events *ev, cw_kube_client *kube, const char *component,
                        cw_error *err)
{
    memset(ev, 0, sizeof(*ev));
    ev->kube = kube;
    ev->component = component;
    cw_strmap_init(&ev->seen);
    if (pthread_mutex_init(&ev->mu, NULL) != 0)
        return cw_error_oom(err);
    return CW_OK;
}

void cw_ctrl_events_free(cw_ctrl_events *ev)
{
    if (!ev->kube)
        return;
    cw_strmap_free(&ev->seen, NULL);
    pthread_mutex_destroy(&ev->mu);
    memset(ev, 0, sizeof(*ev));
}

/* 1 when the triple is new (and is now remembered). */
static int first_time(cw_ctrl_events *ev, const char *key)
{
    int fresh = 0;
    pthread_mutex_lock(&ev->mu);
    if (!cw_strmap_has_s(&ev->seen, key)) {
        if (ev->seen.len >= CW_CTRL_EVENTS_MAX) {
            cw_strmap_free(&ev->seen, NULL);
            cw_strmap_init(&ev->seen);
        }
        fresh = cw_strmap_set_s(&ev->seen, key, (void *)1, NULL) == CW_OK;
    }
    pthread_mutex_unlock(&ev->mu);
    return fresh;
}

static void forget(cw_ctrl_events *ev, const char *key)
{
    pthread_mutex_lock(&ev->mu);
    cw_strmap_del_s(&ev->seen, key);
    pthread_mutex_unlock(&ev->mu);
}

static json_object *event_object(cw_ctrl_events *ev, json_object *obj, const char *kind,
                                 const char *type, const char *reason, const char *message)
{
    const char *name = cw_json_path_string(obj, "metadata.name");
    const char *ns = cw_json_path_string(obj, "metadata.namespace");
    const char *uid = cw_json_path_string(obj, "metadata.uid");
    const char *av = cw_json_path_string(obj, "apiVersion");
    const char *k = cw_json_path_string(obj, "kind");
    char ename[300], now[32];
    int64_t ms = cw_clock_wall_ms();
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
    /* client-go's recorder names an Event <object>.<unix nanoseconds in hex>. */
    snprintf(ename, sizeof(ename), "%.200s.%llx", name ? name : "object",
             (unsigned long long)ms * 1000000ULL);
    json_object *e = json_object_new_object(), *io = json_object_new_object();
    json_object *src = json_object_new_object(), *meta = json_object_new_object();
    if (!e || !io || !src || !meta) {
        json_object_put(e);
        json_object_put(io);
        json_object_put(src);
        json_object_put(meta);
        return NULL;
    }
    json_object_object_add(e, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(e, "kind", json_object_new_string("Event"));
    json_object_object_add(meta, "name", json_object_new_string(ename));
    json_object_object_add(meta, "namespace", json_object_new_string(ns ? ns : "default"));
    json_object_object_add(e, "metadata", meta);
    if (av)
        json_object_object_add(io, "apiVersion", json_object_new_string(av));
    json_object_object_add(io, "kind", json_object_new_string(k ? k : kind));
    json_object_object_add(io, "name", json_object_new_string(name ? name : ""));
    if (ns)
        json_object_object_add(io, "namespace", json_object_new_string(ns));
    if (uid)
        json_object_object_add(io, "uid", json_object_new_string(uid));
    json_object_object_add(e, "involvedObject", io);
    json_object_object_add(e, "type", json_object_new_string(type));
    json_object_object_add(e, "reason", json_object_new_string(reason));
    json_object_object_add(e, "message", json_object_new_string(message));
    json_object_object_add(src, "component", json_object_new_string(ev->component));
    json_object_object_add(e, "source", src);
    json_object_object_add(e, "firstTimestamp", json_object_new_string(now));
    json_object_object_add(e, "lastTimestamp", json_object_new_string(now));
    json_object_object_add(e, "count", json_object_new_int(1));
    return e;
}

int cw_ctrl_event(cw_ctrl_events *ev, json_object *obj, const char *kind, const char *type,
                  const char *reason, const char *message)
{
    const char *uid = cw_json_path_string(obj, "metadata.uid");
    cw_buf key;
    cw_buf_init(&key);
    cw_buf_printf(&key, "%s\n%s\n%s", uid ? uid : "", reason, message);
    if (cw_buf_error(&key) || !first_time(ev, cw_buf_str(&key))) {
        cw_buf_free(&key);
        return 0;
    }
    json_object *e = event_object(ev, obj, kind, type, reason, message);
    cw_kube_resource r = {"", "v1", "events", cw_json_path_string(e, "metadata.namespace")};
    cw_error err;
    cw_error_init(&err);
    int rc = e ? cw_kube_create(ev->kube, &r, e, NULL, NULL, &err) : cw_error_oom(&err);
    if (rc != CW_OK) {
        /* Not remembered: the next reconcile tries again. */
        forget(ev, cw_buf_str(&key));
        cw_log(CW_LOG_WARN, "could not post an Event", CW_LS("reason", reason),
               CW_LS("object", cw_json_path_string(obj, "metadata.name")),
               CW_LS("error", err.message));
    }
    json_object_put(e);
    cw_buf_free(&key);
    return rc == CW_OK;
}
