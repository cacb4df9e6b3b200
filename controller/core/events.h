/* Kubernetes Events (core/v1) about the objects a reconciler keeps right, as client-go's
 * recorder writes them: one Event per call, named "<object>.<hex nanoseconds>", in the object's
 * namespace, with involvedObject taken from the object. An Event is information for people
 * (`kubectl describe`), never state: a failed post is the caller's to log, not to retry. */
#ifndef CW_CTRL_EVENTS_H
#define CW_CTRL_EVENTS_H

#include <json-c/json.h>
#include <stdint.h>

#include <pthread.h>

#include "kube/client.h"
#include "lib/error.h"
#include "lib/strmap.h"

#define CW_CTRL_EVENT_COMPONENT "cronwarden-controller"

/* An Event name is at most 253 characters: a prefix of the object's name, ".", 16 hex digits. */
#define CW_CTRL_EVENT_NAME_MAX   253
#define CW_CTRL_EVENT_PREFIX_MAX (CW_CTRL_EVENT_NAME_MAX - 17)

/* The name of the Event about occurrence id of obj: "<name>.<hash>", the name cut to
 * CW_CTRL_EVENT_PREFIX_MAX and to end on a letter or digit, the hash 16 hex digits of XXH64 (seed
 * 0) over "<apiVersion>\n<kind>\n<namespace>\n<name>\n<id as 16 hex digits>" — the whole
 * identity, so that names cut alike or two kinds of one name never share an Event. */
void cw_ctrl_event_name(json_object *obj, uint64_t id, char *out, size_t outlen);

/* The Event object about obj (it needs apiVersion, kind, metadata.name, namespace, uid) into
 * *out (caller's). type is "Normal" or "Warning"; now_ms wall-clock ms (the Event's times, and
 * its name as client-go's recorder makes it: "<object>.<hex nanoseconds>", or for an object name
 * over CW_CTRL_EVENT_PREFIX_MAX cw_ctrl_event_name's with the nanoseconds as id). CW_EINVAL when
 * obj lacks its name; CW_ENOMEM. */
int cw_ctrl_event_build(json_object *obj, const char *type, const char *reason, const char *message,
                        int64_t now_ms, json_object **out, cw_error *err) CW_MUST_CHECK;
/* The same with the Event named after one occurrence whatever the time (cw_ctrl_event_name): id
 * names it (e.g. a run's fire time in nanoseconds), so the same occurrence posted again, by a
 * restarted process or another replica, is the same Event (the API answers 409) while the API
 * server keeps it (--event-ttl). */
int cw_ctrl_event_build_named(json_object *obj, const char *type, const char *reason,
                              const char *message, uint64_t id, int64_t now_ms, json_object **out,
                              cw_error *err) CW_MUST_CHECK;
/* Builds and creates it (POST /api/v1/namespaces/<ns>/events). */
int cw_ctrl_event_post(cw_kube_client *kube, json_object *obj, const char *type, const char *reason,
                       const char *message, int64_t now_ms, cw_error *err) CW_MUST_CHECK;

/* Events that say a state, not a step ("this RecurringJob is invalid: ..."), posted once per
 * (object uid, reason, message) per process, so a resync or a retry does not flood the namespace
 * with copies; the set is forgotten when it grows past CW_CTRL_EVENTS_MAX. A failed post is logged
 * and not remembered (the next reconcile tries again); it never fails a reconcile. */
#define CW_CTRL_EVENTS_MAX 10000

typedef struct cw_ctrl_events {
    cw_kube_client *kube; /* borrowed */
    pthread_mutex_t mu;
    cw_strmap seen; /* "uid\nreason\nmessage" -> (void *)1 */
    int ok;
} cw_ctrl_events;

int cw_ctrl_events_init(cw_ctrl_events *ev, cw_kube_client *kube, cw_error *err) CW_MUST_CHECK;
void cw_ctrl_events_free(cw_ctrl_events *ev);
/* 1 when posted now, 0 when posted before (or the post failed: logged). */
int cw_ctrl_event_once(cw_ctrl_events *ev, json_object *obj, const char *type, const char *reason,
                       const char *message);

/* A Warning or Normal Event about one occurrence (cw_ctrl_event_build_named's id), posted once:
 * remembered per (uid, reason, id) in this process, and a 409 from the API (posted by an earlier
 * process) counts as posted before. 1 when posted now. */
int cw_ctrl_event_once_at(cw_ctrl_events *ev, json_object *obj, const char *type,
                          const char *reason, const char *message, uint64_t id);

#endif
