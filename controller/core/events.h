/* Kubernetes Events (core/v1) about the objects a reconciler keeps right: what `kubectl describe`
 * shows a user next to their object. Each (object uid, reason, message) is posted once per process,
 * so a resync or a retry does not flood the namespace with copies; the set is forgotten when it
 * grows past CW_CTRL_EVENTS_MAX. A failed post is logged and never fails a reconcile. */
#ifndef CW_CTRL_EVENTS_H
#define CW_CTRL_EVENTS_H

#include <json-c/json.h>
#include <pthread.h>

#include "kube/client.h"
#include "lib/error.h"
#include "lib/strmap.h"

#define CW_CTRL_EVENTS_MAX 10000

typedef struct cw_ctrl_events {
    cw_kube_client *kube;  /* borrowed */
    const char *component; /* source.component, e.g. "cronwarden-controller" */
    pthread_mutex_t mu;
    cw_strmap seen; /* "uid\nreason\nmessage" -> (void *)1 */
} cw_ctrl_events;

int cw_ctrl_events_init(cw_ctrl_events *ev, cw_kube_client *kube, const char *component,
                        cw_error *err) CW_MUST_CHECK;
void cw_ctrl_events_free(cw_ctrl_events *ev);

/* Posts an Event of type "Normal" or "Warning" about obj (its apiVersion, kind when given, else
 * `kind`, metadata name/namespace/uid). Returns 1 when posted, 0 when it was posted before (or
 * the post failed: logged). */
int cw_ctrl_event(cw_ctrl_events *ev, json_object *obj, const char *kind, const char *type,
                  const char *reason, const char *message);

#endif
