#include "controller/core/events.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "cron/tz.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/json.h"
#include "lib/log.h"

/* Adds key: a copy of obj's member at path, when there is one. */
static int copy_member(json_object *dst, const char *key, json_object *src, const char *path)
{
    json_object *v = cw_json_path(src, path);
    if (!v)
        return 0;
    return json_object_object_add(dst, key, json_object_get(v));
}

/* A new object added to parent under key, or NULL (out of memory). */
static json_object *child(json_object *parent, const char *key)
{
    json_object *c = json_object_new_object();
    if (c && json_object_object_add(parent, key, c)) {
        json_object_put(c);
        c = NULL;
    }
    return c;
}

static int build(json_object *obj, const char *evname, const char *type, const char *reason,
                 const char *message, int64_t now_ms, json_object **out, cw_error *err);

/* An Event's name is a DNS subdomain of at most 253 characters whose labels end on a letter or
 * digit: the object's name cut to CW_CTRL_EVENT_PREFIX_MAX, less a trailing '-' or '.', then
 * "." and 16 hex digits. */
static void name_prefix(const char *name, char *out, size_t outlen)
{
    size_t n = strlen(name);
    if (n > CW_CTRL_EVENT_PREFIX_MAX)
        n = CW_CTRL_EVENT_PREFIX_MAX;
    while (n > 0 && !isalnum((unsigned char)name[n - 1]))
        n--;
    snprintf(out, outlen, "%.*s", (int)n, name);
}

void cw_ctrl_event_name(json_object *obj, uint64_t id, char *out, size_t outlen)
{
    const char *name = cw_json_path_string(obj, "metadata.name");
    const char *ns = cw_json_path_string(obj, "metadata.namespace");
    const char *api = cw_json_path_string(obj, "apiVersion");
    const char *kind = cw_json_path_string(obj, "kind");
    char prefix[CW_CTRL_EVENT_PREFIX_MAX + 1], identity[1024];
    name_prefix(name ? name : "", prefix, sizeof(prefix));
    /* The whole identity, not the cut name: two objects whose names share their first 236
     * characters, or a RecurringJob and a Schedule of one name, never share an Event. A name
     * longer than identity's room (no Kubernetes name is) would only be hashed shorter. */
    int len = snprintf(identity, sizeof(identity), "%s\n%s\n%s\n%s\n%016" PRIx64, api ? api : "",
                       kind ? kind : "", ns ? ns : "", name ? name : "", id);
    size_t hlen = len < 0 ? 0 : (size_t)len < sizeof(identity) ? (size_t)len : sizeof(identity) - 1;
    snprintf(out, outlen, "%s.%016" PRIx64, prefix, (uint64_t)XXH64(identity, hlen, 0));
}

int cw_ctrl_event_build(json_object *obj, const char *type, const char *reason, const char *message,
                        int64_t now_ms, json_object **out, cw_error *err)
{
    const char *name = cw_json_path_string(obj, "metadata.name");
    uint64_t ns = (uint64_t)now_ms * 1000000u;
    char evname[CW_CTRL_EVENT_NAME_MAX + 1];
    /* client-go's recorder's name ("<object>.<hex nanoseconds>": unique per object and instant,
     * so two replicas never collide) when it is a valid name; a longer object name gets the
     * identity's (client-go's would be refused by the API server). */
    if (name && strlen(name) <= CW_CTRL_EVENT_PREFIX_MAX)
        snprintf(evname, sizeof(evname), "%s.%" PRIx64, name, ns);
    else
        cw_ctrl_event_name(obj, ns, evname, sizeof(evname));
    return build(obj, evname, type, reason, message, now_ms, out, err);
}

int cw_ctrl_event_build_named(json_object *obj, const char *type, const char *reason,
                              const char *message, uint64_t id, int64_t now_ms, json_object **out,
                              cw_error *err)
{
    char evname[CW_CTRL_EVENT_NAME_MAX + 1];
    cw_ctrl_event_name(obj, id, evname, sizeof(evname));
    return build(obj, evname, type, reason, message, now_ms, out, err);
}

static int build(json_object *obj, const char *evname, const char *type, const char *reason,
                 const char *message, int64_t now_ms, json_object **out, cw_error *err)
{
    const char *name = cw_json_path_string(obj, "metadata.name");
    char when[CW_TZ_RFC3339_MAX];
    int rc = CW_ENOMEM;
    *out = NULL;
    if (!name || !*name)
        return cw_error_set(err, CW_EINVAL, "event %s: the object has no metadata.name", reason);
    cw_tz_format_rfc3339(now_ms / 1000, 0, when, sizeof(when));
    json_object *ev = json_object_new_object();
    json_object *m = ev ? child(ev, "metadata") : NULL;
    json_object *i = m ? child(ev, "involvedObject") : NULL;
    json_object *s = i ? child(ev, "source") : NULL;
    if (!s || json_object_object_add(ev, "apiVersion", json_object_new_string("v1")) ||
        json_object_object_add(ev, "kind", json_object_new_string("Event")) ||
        json_object_object_add(m, "name", json_object_new_string(evname)) ||
        copy_member(m, "namespace", obj, "metadata.namespace") ||
        copy_member(i, "apiVersion", obj, "apiVersion") || copy_member(i, "kind", obj, "kind") ||
        copy_member(i, "name", obj, "metadata.name") ||
        copy_member(i, "namespace", obj, "metadata.namespace") ||
        copy_member(i, "uid", obj, "metadata.uid") ||
        copy_member(i, "resourceVersion", obj, "metadata.resourceVersion") ||
        json_object_object_add(ev, "type", json_object_new_string(type)) ||
        json_object_object_add(ev, "reason", json_object_new_string(reason)) ||
        json_object_object_add(ev, "message", json_object_new_string(message)) ||
        json_object_object_add(s, "component", json_object_new_string(CW_CTRL_EVENT_COMPONENT)) ||
        json_object_object_add(ev, "firstTimestamp", json_object_new_string(when)) ||
        json_object_object_add(ev, "lastTimestamp", json_object_new_string(when)) ||
        json_object_object_add(ev, "count", json_object_new_int(1)) ||
        json_object_object_add(ev, "reportingComponent",
                               json_object_new_string(CW_CTRL_EVENT_COMPONENT)))
        goto done;
    *out = ev;
    ev = NULL;
    rc = CW_OK;
done:
    json_object_put(ev);
    return rc == CW_OK ? CW_OK : cw_error_oom(err);
}

static int create(cw_kube_client *kube, json_object *obj, json_object *ev, cw_error *err)
{
    cw_kube_resource r = {"", "v1", "events", cw_json_path_string(obj, "metadata.namespace")};
    return cw_kube_create(kube, &r, ev, NULL, NULL, err);
}

static int post_named(cw_kube_client *kube, json_object *obj, const char *type, const char *reason,
                      const char *message, uint64_t id, int64_t now_ms, cw_error *err)
{
    json_object *ev = NULL;
    int rc = cw_ctrl_event_build_named(obj, type, reason, message, id, now_ms, &ev, err);
    if (rc == CW_OK)
        rc = create(kube, obj, ev, err);
    json_object_put(ev);
    return rc;
}

int cw_ctrl_event_post(cw_kube_client *kube, json_object *obj, const char *type, const char *reason,
                       const char *message, int64_t now_ms, cw_error *err)
{
    json_object *ev = NULL;
    int rc = cw_ctrl_event_build(obj, type, reason, message, now_ms, &ev, err);
    if (rc == CW_OK)
        rc = create(kube, obj, ev, err);
    json_object_put(ev);
    return rc;
}

/* ---- once per (object, reason, message) ---- */

int cw_ctrl_events_init(cw_ctrl_events *ev, cw_kube_client *kube, cw_error *err)
{
    memset(ev, 0, sizeof(*ev));
    ev->kube = kube;
    cw_strmap_init(&ev->seen);
    if (pthread_mutex_init(&ev->mu, NULL) != 0)
        return cw_error_oom(err);
    ev->ok = 1;
    return CW_OK;
}

void cw_ctrl_events_free(cw_ctrl_events *ev)
{
    if (!ev->ok)
        return;
    cw_strmap_free(&ev->seen, NULL);
    pthread_mutex_destroy(&ev->mu);
    memset(ev, 0, sizeof(*ev));
}

/* 1 when the key is new (and now remembered); forget = 1 removes it instead. */
static int remember(cw_ctrl_events *ev, const char *key, int forget)
{
    int fresh = 0;
    pthread_mutex_lock(&ev->mu);
    if (forget) {
        cw_strmap_del_s(&ev->seen, key);
    } else if (!cw_strmap_has_s(&ev->seen, key)) {
        if (ev->seen.len >= CW_CTRL_EVENTS_MAX) {
            cw_strmap_free(&ev->seen, NULL);
            cw_strmap_init(&ev->seen);
        }
        fresh = cw_strmap_set_s(&ev->seen, key, (void *)1, NULL) == CW_OK;
    }
    pthread_mutex_unlock(&ev->mu);
    return fresh;
}

/* Posts once per key; id 0: named by the time (client-go's name). */
static int once(cw_ctrl_events *ev, json_object *obj, const char *type, const char *reason,
                const char *message, const char *what, uint64_t id)
{
    const char *uid = cw_json_path_string(obj, "metadata.uid");
    cw_buf key;
    cw_error err;
    cw_buf_init(&key);
    cw_error_init(&err);
    cw_buf_printf(&key, "%s\n%s\n%s", uid ? uid : "", reason, what);
    int posted = !cw_buf_error(&key) && remember(ev, cw_buf_str(&key), 0);
    int64_t now_ms = cw_clock_wall_ms();
    int rc = posted ? post_named(ev->kube, obj, type, reason, message,
                                 id ? id : (uint64_t)now_ms * 1000000u, now_ms, &err)
                    : CW_OK;
    if (rc == CW_ECONFLICT && id) { /* an earlier process posted this occurrence */
        posted = 0;
    } else if (rc != CW_OK) {
        remember(ev, cw_buf_str(&key), 1);
        cw_log(CW_LOG_WARN, "could not post an Event", CW_LS("reason", reason),
               CW_LS("object", cw_json_path_string(obj, "metadata.name")),
               CW_LS("error", err.message));
        posted = 0;
    }
    cw_buf_free(&key);
    return posted;
}

int cw_ctrl_event_once(cw_ctrl_events *ev, json_object *obj, const char *type, const char *reason,
                       const char *message)
{
    return once(ev, obj, type, reason, message, message, 0);
}

int cw_ctrl_event_once_at(cw_ctrl_events *ev, json_object *obj, const char *type,
                          const char *reason, const char *message, uint64_t id)
{
    char what[32];
    snprintf(what, sizeof(what), "@%" PRIx64, id);
    return once(ev, obj, type, reason, message, what, id);
}
