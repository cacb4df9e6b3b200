/* Kubernetes Events (core/v1) about the objects a reconciler keeps right, as client-go's
 * recorder writes them: one Event per call, named "<object>.<hex nanoseconds>", in the object's
 * namespace, with involvedObject taken from the object. An Event is information for people
 * (`kubectl describe`), never state: a failed post is the caller's to log, not to retry. */
#ifndef CW_CTRL_EVENTS_H
#define CW_CTRL_EVENTS_H

#include <json-c/json.h>
#include <stdint.h>

#include "kube/client.h"
#include "lib/error.h"

#define CW_CTRL_EVENT_COMPONENT "cronwarden-controller"

/* The Event object about obj (it needs apiVersion, kind, metadata.name, namespace, uid) into
 * *out (caller's). type is "Normal" or "Warning"; now_ms wall-clock ms (the Event's name and
 * times). CW_EINVAL when obj lacks its name; CW_ENOMEM. */
int cw_ctrl_event_build(json_object *obj, const char *type, const char *reason, const char *message,
                        int64_t now_ms, json_object **out, cw_error *err) CW_MUST_CHECK;
/* Builds and creates it (POST /api/v1/namespaces/<ns>/events). */
int cw_ctrl_event_post(cw_kube_client *kube, json_object *obj, const char *type, const char *reason,
                       const char *message, int64_t now_ms, cw_error *err) CW_MUST_CHECK;

#endif
