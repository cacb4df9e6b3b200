/* The one I/O shell every reconciler runs in: what a descriptor (controller/core/reconciler.h)
 * becomes when its reconciler is enabled. The shell owns
 *   - the informers of the descriptor's table (versions discovered, namespaces resolved; start,
 *     synced, stop, free) and the work queue they feed;
 *   - the writes: every API write goes through cw_shell_create/update/patch/delete/request,
 *     which send fieldManager CW_CTRL_FIELD_MANAGER, count the write in
 *     cronwarden_controller_<name>_writes_total{verb,result} (result ok, conflict, not_found,
 *     invalid for a 422, error), and on a 403 post one Warning Event
 *     on the object reconciled and count cronwarden_controller_forbidden_writes_total;
 *   - the verdict (controller/core/verdict.h) of a reconcile that fails without saying one of
 *     failure (cw_verdict_backoff, cw_verdict_wait), one mapping from the API's answer:
 *       409 (CW_ECONFLICT)  requeue after conflict_ms, "conflict": decided again when the watch
 *                           has brought the newer version (no backoff);
 *       404 (CW_ENOTFOUND)  gone, "deleted": its watch event says what comes next;
 *       CW_EDEFER           held, "held": a write held back on purpose (standing down, a war);
 *       CW_EINVAL           wait: failed, waiting for the object to change (no retry);
 *       anything else       backoff: failed (429/5xx after the client's own retries, 403, 422,
 *                           transport), retried with the queue's per-key backoff;
 *     a reconciler standing down is held, "standing_down", before it runs;
 *   - standing down: the reconciler declares it (cw_shell_stand_down) and makes no writes, with
 *     cronwarden_controller_standing_down{controller,reason} = 1 and one log line saying why;
 *   - the write-war guard (controller/core/writewar.h) for objects another writer also writes;
 *   - the one Event API (cw_shell_event): a state once, a step every time, an occurrence once
 *     across restarts (controller/core/events.h). */
#ifndef CW_CTRL_SHELL_H
#define CW_CTRL_SHELL_H

#include <json-c/json.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "controller/core/events.h"
#include "controller/core/informer.h"
#include "controller/core/queue.h"
#include "controller/core/reconciler.h"
#include "controller/core/writewar.h"
#include "kube/client.h"
#include "lib/error.h"
#include "lib/metrics.h"

/* The fieldManager of every write; the Kubernetes client's User-Agent is "cronwarden/<version>",
 * whose prefix the API server uses for writes without one. A managedFields entry of this manager
 * is cronwarden's own. */
#define CW_CTRL_FIELD_MANAGER "cronwarden"

/* Process-wide families the shells share (registered once per registry). */
typedef struct cw_shell_metrics {
    cw_metric *forbidden; /* cronwarden_controller_forbidden_writes_total{controller,verb} */
    cw_metric *standing;  /* cronwarden_controller_standing_down{controller,reason} */
    cw_metric *wars;      /* cronwarden_controller_write_wars_total{controller} */
} cw_shell_metrics;

int cw_shell_metrics_register(cw_metrics *m, cw_shell_metrics *out, cw_error *err) CW_MUST_CHECK;

/* What a shell is made with; everything borrowed outlives it. */
typedef struct cw_shell_env {
    cw_kube_client *kube;
    cw_queue *queue;                             /* this reconciler's own work queue */
    const void *config;                          /* the descriptor's config (may be NULL) */
    cw_metrics *metrics;                         /* NULL: no metrics (tests) */
    const cw_shell_metrics *shell_metrics;       /* NULL: none */
    const cw_informer_metrics *informer_metrics; /* NULL: none */
    cw_informer_set *informers; /* the process's (started and stopped by its owner); NULL: the
                                   shell's own */
    long page_size;             /* LIST page size; 0: 100 */
    cw_queue_clock_fn clock;    /* wall-clock ms; NULL: CLOCK_REALTIME */
    void *clock_ud;
} cw_shell_env;

/* A running reconciler. The fields above the line are the reconciler's to read (its config and
 * state, its queue, its namespace); the rest is the shell's. */
struct cw_shell {
    const cw_reconciler_ops *r; /* its descriptor */
    cw_shell_env env;           /* kube, queue, config (the descriptor's), metrics (NULL: none) */
    const char *home;           /* its namespace (its config's home); NULL: every namespace */
    const char *aside;          /* its config's second namespace; NULL: every namespace */
    void *state;                /* what the descriptor's init made */
    /* ---- */
    struct cw_shell_informer {
        cw_informer *inf; /* in the set; an absent row's: own */
        size_t sink;      /* this row's sink of inf */
        char version[32], api_version[300];
        int absent; /* an optional resource the server does not serve: never started */
        cw_informer own;
    } * infs;
    size_t ninit;                  /* rows made */
    cw_informer_set own_set, *set; /* set: env.informers, or &own_set */
    int started, events_ok, war_ok;
    cw_ctrl_events events;
    cw_ctrl_warguard war;
    cw_metric *m_writes;          /* cronwarden_controller_<name>_writes_total{verb,result} */
    const char *_Atomic standing; /* the reason while standing down, else NULL */
};

/* Discovers the versions the table leaves open, makes the informers and the descriptor's state.
 * On failure *out is freed and NULL. */
int cw_shell_new(const cw_reconciler_ops *r, const cw_shell_env *env, cw_shell **out,
                 cw_error *err) CW_MUST_CHECK;
void cw_shell_free(cw_shell *s); /* stops what runs; NULL is fine */
int cw_shell_start(cw_shell *s, cw_error *err) CW_MUST_CHECK;
void cw_shell_stop(cw_shell *s);
/* Asks every informer to end without waiting (cw_shell_stop waits): a process stopping many
 * shells asks them all first. */
void cw_shell_ask_stop(cw_shell *s);
/* 1 when every informer has synced; else 0 with why (a resource the server does not serve is
 * named as such), for /readyz. */
int cw_shell_synced(cw_shell *s, char *why, size_t whylen);
int cw_shell_enqueue_all(cw_shell *s);
/* The workers' reconcile (a cw_ctrl_reconcile_fn; ud is the shell): the descriptor's, its
 * verdict in *v (zeroed by the caller), a failure without one judged as above. CW_OK, or the
 * failure (prefixed with the object and key) with a verdict backoff or wait. */
int cw_shell_reconcile(void *ud, const char *key, cw_verdict *v, cw_error *err);
void cw_shell_tick(cw_shell *s);

/* ---- what a reconciler reads besides the fields ---- */
int64_t cw_shell_now_ms(const cw_shell *s); /* the shell's wall clock */
/* Row i's informer (shared with every row and reconciler reading the same resource, namespace and
 * selectors) and its cache (NULL for a store-less row). */
cw_informer *cw_shell_informer(cw_shell *s, size_t i);
cw_ctrl_store *cw_shell_store(cw_shell *s, size_t i);
/* Informer i's resource in namespace ns (NULL: none), for writes; its "group/version". */
cw_kube_resource cw_shell_resource(const cw_shell *s, size_t i, const char *ns);
const char *cw_shell_api_version(const cw_shell *s, size_t i);

/* ---- writes ---- */
/* `verb` is the writes counter's label; `about` the object the reconcile is about (where a 403's
 * Warning Event goes; NULL: none). out may be NULL. */
int cw_shell_create(cw_shell *s, const char *verb, json_object *about, const cw_kube_resource *r,
                    json_object *obj, json_object **out, cw_error *err) CW_MUST_CHECK;
int cw_shell_update(cw_shell *s, const char *verb, json_object *about, const cw_kube_resource *r,
                    const char *name, json_object *obj, json_object **out,
                    cw_error *err) CW_MUST_CHECK;
/* A merge patch (conditional when it carries metadata.resourceVersion). */
int cw_shell_patch(cw_shell *s, const char *verb, json_object *about, const cw_kube_resource *r,
                   const char *name, json_object *patch, cw_error *err) CW_MUST_CHECK;
int cw_shell_delete(cw_shell *s, const char *verb, json_object *about, const cw_kube_resource *r,
                    const char *name, const cw_kube_delete_opts *d, cw_error *err) CW_MUST_CHECK;
/* Any other write (e.g. PUT .../status), path with the query. */
int cw_shell_request(cw_shell *s, const char *verb, json_object *about, const char *method,
                     const char *path, json_object *body, cw_error *err) CW_MUST_CHECK;
/* Counts a write made some other way (rc its result) as the helpers above do. */
void cw_shell_count(cw_shell *s, const char *verb, json_object *about, int rc, const cw_error *err);

/* ---- Events ---- */
/* The one way a reconciler (and the shell) says something on an object (controller/core/events.h:
 * the Event object, named as client-go's recorder names it). How often an Event is said: */
typedef enum {
    CW_EVENT_STATE = 0,  /* a state ("this RecurringJob is invalid: ..."): once per (object uid,
                            reason, message) in this process, so a resync or a retry does not
                            repeat it */
    CW_EVENT_STEP,       /* a step ("Backup is queued at position 3"): every time, with the
                            shell's clock, counted as the write create_event (the reconciler lists
                            that verb) */
    CW_EVENT_OCCURRENCE, /* one occurrence (a run's failure), named after id: once, also across
                            restarts and replicas (an earlier post's 409 counts as said) */
} cw_event_kind;

typedef struct cw_event {
    const char *type;    /* "Normal" or "Warning" */
    const char *reason;  /* UpperCamelCase, what `kubectl describe` lists */
    const char *message; /* what a person reads */
    cw_event_kind kind;  /* 0: a state */
    uint64_t id;         /* CW_EVENT_OCCURRENCE: the occurrence (a run's fire time), not 0 */
} cw_event;

/* Says ev on obj (apiVersion, kind, metadata: the object as read); 1 when posted now. A failed
 * post is logged and never fails the reconcile: an Event is information, not state (a state's
 * failed post is tried again next time). */
int cw_shell_event(cw_shell *s, json_object *obj, const cw_event *ev);
/* 1 when informer i's resource is not served (an optional one: its cache stays empty). */
int cw_shell_absent(const cw_shell *s, size_t i);

/* ---- standing down ---- */
/* From now on the reconciler makes no writes: reconciles end as "standing_down", the gauge
 * cronwarden_controller_standing_down{controller,reason} is 1, and `why` (what the reconciler
 * says, with the flag that overrides it) is logged once. reason: a metrics label value that lives
 * as long as the process (a literal: "unknown_version"). The same reason again changes nothing. */
void cw_shell_stand_down(cw_shell *s, const char *reason, const char *why);
/* Writes again (the gauge goes to 0); logged when it stood down. */
void cw_shell_resume(cw_shell *s);
/* The reason while standing down, else NULL. */
const char *cw_shell_standing_down(cw_shell *s);

/* ---- write wars (controller/core/writewar.h) ---- */
/* Before rewriting `live` (the object as read now, with managedFields) to the content `want`
 * (what this reconciler writes; its fingerprint is compared): CW_OK to go ahead, or CW_EDEFER
 * when another writer has undone this reconciler's unchanged write more than
 * CW_CTRL_WAR_REWRITES times within CW_CTRL_WAR_WINDOW_S. The first time: a Warning Event on
 * `live` naming the other writer (managedFields), the write_wars metric, a log line. */
int cw_shell_war_check(cw_shell *s, const cw_kube_resource *r, json_object *live, json_object *want,
                       cw_error *err) CW_MUST_CHECK;
/* After a successful write of `want` to the object `written` (its uid). */
void cw_shell_war_wrote(cw_shell *s, const cw_kube_resource *r, json_object *written,
                        json_object *want);

#endif
