/* An informer: LIST + WATCH of one resource (namespaced: all namespaces or one; with its label and
 * field selectors), with client-go's behaviour:
 *   - a paged LIST brings the informer up to date (objects gone from it are deleted, changed ones
 *     updated), then a WATCH from the list's resourceVersion keeps it current; BOOKMARK events only
 *     move the resourceVersion on;
 *   - a watch the server ends (timeoutSeconds, 5-10 minutes at random) is resumed from the last
 *     resourceVersion; a 410 Gone (an ERROR event or status) means the version is too old: LIST
 *     again; any other failure waits with exponential backoff and full jitter, then resumes;
 *   - a LIST answered 404 (the resource is not served) is retried, logged as an error once a
 *     minute and reported by cw_informers_synced (so /readyz names the resource).
 * One thread per informer.
 *
 * Shared, as controller-runtime's informers are: one informer per (resource, namespace,
 * selectors) in a process (cw_informer_set), however many reconcilers read it. Each reader is a
 * *sink*: what it keeps of an object (a transform: its projection) and its index make a cache,
 * and every change goes to its handler (default: the object's key into its work queue). Sinks with
 * the same projection and index share one cache; a sink with another projection gets a cache of
 * its own (the informer keeps what each needs, no union that would hand a reader fields it did not
 * ask for). A *store-less* sink keeps nothing: its handler sees the whole object as it came (a
 * reconciler that keeps its own model, like schedule-health's health/ collector). Every cache of
 * an informer changes first, then every handler runs, in the order the sinks joined. The informer
 * itself remembers each object's key and resourceVersion only (to skip unchanged objects and to
 * find what a LIST no longer shows). */
#ifndef CW_INFORMER_H
#define CW_INFORMER_H

#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>

#include "controller/core/queue.h"
#include "controller/core/store.h"
#include "lib/error.h"
#include "kube/client.h"
#include "lib/metrics.h"

typedef enum { CW_INFORMER_ADD, CW_INFORMER_UPDATE, CW_INFORMER_DELETE } cw_informer_op;

/* After the caches changed, outside their locks. old and obj are borrowed and may be NULL (no old
 * object on ADD, no new one on DELETE). A store-less sink's handler gets old NULL and obj the whole
 * object as it came (NULL on DELETE), valid during the call only. */
typedef void (*cw_informer_handler_fn)(void *ud, cw_informer_op op, const char *key,
                                       json_object *old, json_object *obj);
/* What the cache keeps of an object: a new object, or obj itself with json_object_get. NULL
 * means out of memory. */
typedef json_object *(*cw_informer_transform_fn)(void *ud, json_object *obj);

/* A transform's common start: a deep copy of obj without status and metadata.managedFields, with
 * apiVersion and kind set when obj lacks them (items of a LIST may). NULL: out of memory. */
json_object *cw_informer_copy_spec(json_object *obj, const char *api_version, const char *kind);

/* Families shared by every informer of a process. An informer's series carry what makes it one:
 * resource (the plural), group, version, namespace ("": every one), label_selector and
 * field_selector ("": none), so two informers never write the same series. The families with a
 * second label (type, reason) have it right after resource: {resource,type,group,...}. */
typedef struct cw_informer_metrics {
    cw_metric *events;       /* cronwarden_controller_informer_events_total{resource,type,...} */
    cw_metric *lists;        /* cronwarden_controller_informer_lists_total{resource,reason,...} */
    cw_metric *watch_errors; /* cronwarden_controller_informer_watch_errors_total{resource,...} */
    cw_metric *objects;      /* cronwarden_controller_informer_objects{resource,...} */
    cw_metric *synced;       /* cronwarden_controller_informer_synced{resource,...} */
    cw_metric *missing;      /* cronwarden_controller_informer_missing{resource,...} */
} cw_informer_metrics;

/* The identifying labels' number (resource, group, version, namespace, label_selector,
 * field_selector). */
#define CW_INFORMER_LABELS 6

int cw_informer_metrics_register(cw_metrics *m, cw_informer_metrics *out,
                                 cw_error *err) CW_MUST_CHECK;

/* One reader of an informer: its cache (transform, index) and its handler. Every callback's ud is
 * the sink's own. */
typedef struct cw_informer_sink {
    int storeless; /* 1: no cache; the handler sees whole objects (transform, index unused) */
    cw_informer_transform_fn transform; /* NULL: keep the whole object */
    void *transform_ud;
    cw_ctrl_index_fn index; /* NULL: no secondary index */
    void *index_ud;
    cw_informer_handler_fn handler; /* NULL: cw_queue_add(queue, key) */
    void *handler_ud;
    cw_queue *queue; /* for the default handler */
} cw_informer_sink;

typedef struct cw_informer_config {
    const char *name;           /* logs ("schedules"); borrowed, like every string */
    cw_kube_client *kube;       /* borrowed */
    cw_kube_resource resource;  /* namespace NULL or "": every namespace */
    const char *label_selector; /* NULL: everything */
    const char *field_selector; /* NULL: everything (e.g. "metadata.name=longhorn-manager") */
    long page_size;      /* LIST page size; 0: 100 (a page of 500 CronJobs is some 15 MiB of json-c;
                            bench/README.md) */
    long watch_timeout;  /* timeoutSeconds of a watch; 0: 300-600 at random */
    double backoff_base; /* seconds; 0: 0.5 */
    double backoff_max;  /* seconds; 0: 30 */
    /* The first reader (cw_informer_add_sink adds more), when it has a handler or a queue. */
    cw_informer_sink sink;
    /* Values at these paths reach the readers as a string of their text, or, longer than
     * prune_over bytes, as their length: never parsed (cw_kube_list_opts' prune; a tenant's
     * spec). NULL: none. An informer whose readers ask for different prunes parses everything
     * (cw_informer_set_join): each reader's transform takes either form. */
    const char *const *prune;
    size_t prune_over;
    const cw_informer_metrics *metrics; /* NULL: none */
} cw_informer_config;

/* A cache of an informer: the sinks' with this projection and index. */
typedef struct cw_informer_cache {
    cw_informer_transform_fn transform;
    void *transform_ud;
    cw_ctrl_index_fn index;
    void *index_ud;
    cw_ctrl_store store;
} cw_informer_cache;

typedef struct cw_informer_reader {
    cw_informer_sink sink;
    int cache; /* index into caches; -1: store-less */
} cw_informer_reader;

typedef struct cw_informer {
    cw_informer_config cfg;
    cw_informer_cache **caches; /* each allocated: the stores do not move */
    size_t ncaches;
    cw_informer_reader *sinks;
    size_t nsinks;
    pthread_mutex_t lock; /* versions */
    cw_strmap versions;   /* key -> its resourceVersion (strdup): every object the informer has */
    char labels[CW_INFORMER_LABELS][300]; /* its metrics' identifying label values */
    char rv[128]; /* resourceVersion to watch from ("" until the first LIST) */
    atomic_int synced;
    atomic_int missing; /* the last LIST answered 404: the server does not serve the resource */
    atomic_int stop;
    pthread_t thread;
    int running;
    unsigned rng;
    unsigned long long lists, watches; /* totals (informer thread only) */
    double missing_logged;             /* monotonic time of the last "not served" error log */
} cw_informer;

/* No sink when cfg has neither handler nor queue: add them with cw_informer_add_sink. */
int cw_informer_init(cw_informer *inf, const cw_informer_config *cfg, cw_error *err) CW_MUST_CHECK;
/* Adds a reader (before the informer starts); *id (may be NULL) names its cache for
 * cw_informer_sink_store. A sink with the same transform (and transform_ud) and index (and
 * index_ud, when there is an index) as an earlier one shares its cache. */
int cw_informer_add_sink(cw_informer *inf, const cw_informer_sink *sink, size_t *id,
                         cw_error *err) CW_MUST_CHECK;
/* Sink id's cache; NULL for a store-less sink. */
cw_ctrl_store *cw_informer_sink_store(cw_informer *inf, size_t id);
/* Stops the thread if it runs, then frees the caches. */
void cw_informer_free(cw_informer *inf);
/* Runs cw_informer_run on a new thread. */
int cw_informer_start(cw_informer *inf, cw_error *err) CW_MUST_CHECK;
/* Asks the loop to end (the watch ends within about a second) and joins the thread. */
void cw_informer_stop(cw_informer *inf);
/* Only asks (no join): many informers asked first end together, in about a second in all. */
void cw_informer_ask_stop(cw_informer *inf);
/* LIST, WATCH, reconnect until cw_informer_stop. */
void cw_informer_run(cw_informer *inf);
/* 1 once the first LIST has filled the cache. */
int cw_informer_synced(cw_informer *inf);
/* The first sink's cache (NULL when it is store-less or there is none). */
cw_ctrl_store *cw_informer_store(cw_informer *inf);
/* Every object's key (appended to out, sorted), whatever its sinks keep. */
int cw_informer_keys(cw_informer *inf, cw_strlist *out);
/* Objects the informer has. */
size_t cw_informer_len(cw_informer *inf);
/* Adds every object's key to q (a new leader term, a resync). */
int cw_informer_enqueue_all(cw_informer *inf, cw_queue *q);
/* 1 while the API server answers the informer's LIST with 404: it does not serve the resource
 * (a CRD not installed, a version not served). The informer keeps trying; it logs one error a
 * minute meanwhile (not a warning per retry). */
int cw_informer_missing(cw_informer *inf);
/* "settings.longhorn.io/v1beta2" (the core group: "namespaces/v1"). */
void cw_informer_resource_name(const cw_informer *inf, char *out, size_t outlen);
/* 1 when all n informers have synced; else 0 with why naming the ones that have not, and first
 * the resources the server does not serve. */
int cw_informers_synced(cw_informer *const *infs, size_t n, char *why, size_t whylen);

/* The steps of the loop, for tests. relist: a full LIST into the cache. watch: one WATCH from the
 * current resourceVersion until the server ends it (CW_OK) or it fails (err->http_status 410:
 * LIST again). */
int cw_informer_relist(cw_informer *inf, cw_error *err) CW_MUST_CHECK;
int cw_informer_watch(cw_informer *inf, cw_error *err) CW_MUST_CHECK;

/* ---- the process's informers: one per (resource, namespace, selectors) ---- */

typedef struct cw_informer_set {
    cw_informer **items; /* each allocated: readers keep pointers */
    size_t n;
    size_t started; /* items[0..started) run */
} cw_informer_set;

void cw_informer_set_init(cw_informer_set *set);
/* The informer of cfg's resource (its version and namespace, NULL and "" alike) and selectors:
 * the one in the set, or a new one made from cfg (its name, kube, timings, metrics; cfg's sink
 * fields are ignored); then sink joins it. Before cw_informer_set_start only. */
int cw_informer_set_join(cw_informer_set *set, const cw_informer_config *cfg,
                         const cw_informer_sink *sink, cw_informer **inf, size_t *sink_id,
                         cw_error *err) CW_MUST_CHECK;
int cw_informer_set_start(cw_informer_set *set, cw_error *err) CW_MUST_CHECK;
/* Asks every informer to end (no join), then cw_informer_set_stop joins them. */
void cw_informer_set_ask_stop(cw_informer_set *set);
void cw_informer_set_stop(cw_informer_set *set);
/* Stops, then frees every informer. */
void cw_informer_set_free(cw_informer_set *set);

#endif
