/* A small Kubernetes API client: one request engine (libcurl, connection reuse, bounded
 * parallelism, token-bucket rate limit, retries with backoff) and typed verbs over json-c values.
 *
 * Thread safety: one cw_kube_client may be used from any number of threads at once. Each
 * concurrent request borrows one of max_inflight curl handles, which keeps its connection (and TLS
 * session) for the next request; more callers than that wait their turn.
 *
 * Errors: every function returns 0 or a negative CW_E* code and fills `err`. An answer from the
 * API server sets err->http_status and carries the Status message:
 *   "GET https://10.0.0.1:6443/api/v1/namespaces/x/configmaps/y: 404 Not Found: configmaps \"y\"
 *    not found"
 * 404 -> CW_ENOTFOUND, 409 -> CW_ECONFLICT, every other status -> CW_EHTTP; a request that did not
 * complete (connect, TLS, timeout) -> CW_ETRANSPORT; a response over max_body -> CW_ELIMIT.
 *
 * Retries: 429, 5xx and transport errors (connection refused or reset, timeouts) are retried with
 * exponential backoff and full jitter, honouring Retry-After, within max_attempts and
 * retry_budget seconds. A 401 with a token file re-reads the file and retries once. 400, 403,
 * 404, 409, 410 and 422 are never retried. Writes are retried too: a write whose response was lost
 * may come back as 409 AlreadyExists/Conflict or 404 on the retry, which callers already treat as
 * "re-read the object". */
#ifndef CW_KUBE_CLIENT_H
#define CW_KUBE_CLIENT_H

#include <json-c/json.h>
#include <stdatomic.h>
#include <stddef.h>

#include "lib/error.h"
#include "kube/config.h"
#include "kube/path.h"
#include "lib/strlist.h"

typedef struct cw_kube_client cw_kube_client;

/* Fault injection for tests: called before every attempt. Return 0 to send the request, or 1
 * after filling *f to answer it without any network traffic (status 0 fakes a connection reset). */
typedef struct cw_kube_fault {
    long status;
    const char *body;         /* response body, may be NULL */
    const char *retry_after;  /* Retry-After header value, may be NULL */
    int apf;                  /* 1: the answer carries API Priority and Fairness headers */
    const char *request_body; /* in: the request's body (NULL: none), for the hook to look at */
    size_t request_body_len;
} cw_kube_fault;
typedef int (*cw_kube_fault_fn)(void *ud, const char *method, const char *path, int attempt,
                                cw_kube_fault *f);

typedef struct cw_kube_client_opts {
    double qps; /* sustained requests per second (<= 0: unlimited); default 100 */
    int burst;  /* bucket size; default 200 */
    /* 1: qps and burst hold only where the server lacks API Priority and Fairness; where its
     * first answer carries the flow-control headers (X-Kubernetes-PF-FlowSchema-UID,
     * X-Kubernetes-PF-PriorityLevel-UID) the client sets no limit of its own and leaves it to
     * max_inflight and the server's 429 + Retry-After. Until that answer, qps and burst hold. */
    int qps_auto;
    int log_limit;          /* 1: log the limit in force once, at the first answer */
    int max_inflight;       /* concurrent requests = pooled connections; default 8 */
    double timeout;         /* seconds per attempt (0: none); default 30 */
    double connect_timeout; /* seconds; default 10 */
    int max_attempts;       /* including the first; default 6 */
    double backoff_base;    /* first retry sleeps up to this; doubles per retry; default 0.2 s */
    double backoff_max;     /* cap of one sleep without Retry-After; default 10 s */
    double retry_budget;    /* no retry starts after this many seconds in total; default 60 */
    size_t max_body;        /* response body (or one watch event) limit; default 256 MiB */
    double token_reread;    /* seconds between token file re-reads; default 60 */
    const char *user_agent; /* NULL: "cronwarden/<version>" */
    int dry_run;            /* 1: every write is sent with dryRun=All */
    cw_kube_fault_fn fault; /* tests only */
    void *fault_ud;
} cw_kube_client_opts;

typedef struct cw_kube_stats {
    unsigned long long requests; /* attempts (HTTP requests) made */
    unsigned long long retries;  /* attempts that were retries */
    unsigned long long
        connects; /* new connections (TLS handshakes): sum of CURLINFO_NUM_CONNECTS */
    unsigned long long token_reads; /* token file re-reads after load */
    double throttled;               /* seconds spent waiting for the rate limiter */
    int apf; /* -1 no answer yet; 0/1: the first answer lacked/carried the APF headers */
} cw_kube_stats;

/* The client-side limit in force once the server is known (apf: 1 when its first answer carried
 * the API Priority and Fairness headers). qps <= 0 means no client-side limit. */
typedef struct cw_kube_limit {
    double qps;
    int burst;
    const char *why; /* for the log line: "set explicitly", "... API Priority and Fairness" */
} cw_kube_limit;
void cw_kube_choose_limit(const cw_kube_client_opts *o, int apf, cw_kube_limit *out);

void cw_kube_client_opts_init(cw_kube_client_opts *o);
/* Copies cfg; o may be NULL for defaults. */
int cw_kube_client_new(const cw_kube_config *cfg, const cw_kube_client_opts *o,
                       cw_kube_client **out, cw_error *err) CW_MUST_CHECK;
void cw_kube_client_free(cw_kube_client *c);
const cw_kube_config *cw_kube_client_config(const cw_kube_client *c);
void cw_kube_client_stats(cw_kube_client *c, cw_kube_stats *out);

/* ---- raw requests ---- */

/* Sends `body` (may be NULL) as content_type (NULL: application/json) to `path` (starting with
 * '/', query included) and parses the JSON answer into *out (may be NULL to discard). */
int cw_kube_request(cw_kube_client *c, const char *method, const char *path,
                    const char *content_type, json_object *body, json_object **out,
                    cw_error *err) CW_MUST_CHECK;

/* ---- verbs; `out` may be NULL; options may be NULL for defaults ---- */

typedef enum {
    CW_KUBE_PATCH_MERGE,     /* application/merge-patch+json (RFC 7386) */
    CW_KUBE_PATCH_JSON,      /* application/json-patch+json (RFC 6902) */
    CW_KUBE_PATCH_STRATEGIC, /* application/strategic-merge-patch+json (built-in kinds only) */
} cw_kube_patch_type;

typedef struct cw_kube_write_opts {
    int dry_run;               /* 1: dryRun=All (the client option forces it too) */
    const char *field_manager; /* fieldManager= */
} cw_kube_write_opts;

typedef struct cw_kube_delete_opts {
    int dry_run;
    const char *propagation;      /* "Foreground", "Background", "Orphan" or NULL */
    const char *uid;              /* preconditions.uid */
    const char *resource_version; /* preconditions.resourceVersion */
} cw_kube_delete_opts;

void cw_kube_write_opts_init(cw_kube_write_opts *o);
void cw_kube_delete_opts_init(cw_kube_delete_opts *o);

int cw_kube_get(cw_kube_client *c, const cw_kube_resource *r, const char *name, json_object **out,
                cw_error *err) CW_MUST_CHECK;
int cw_kube_create(cw_kube_client *c, const cw_kube_resource *r, json_object *obj,
                   const cw_kube_write_opts *w, json_object **out, cw_error *err) CW_MUST_CHECK;
/* PUT; obj carries metadata.resourceVersion for optimistic concurrency (409 -> CW_ECONFLICT). */
int cw_kube_update(cw_kube_client *c, const cw_kube_resource *r, const char *name, json_object *obj,
                   const cw_kube_write_opts *w, json_object **out, cw_error *err) CW_MUST_CHECK;
/* A conditional patch: a merge patch carrying metadata.resourceVersion answers 409 (CW_ECONFLICT)
 * when the object moved on. A JSON patch whose `test` op fails gets only a bare 422 from
 * Kubernetes 1.20 (the same as a malformed op): CW_EHTTP, with a hint in the message. */
int cw_kube_patch(cw_kube_client *c, const cw_kube_resource *r, const char *name,
                  cw_kube_patch_type type, json_object *patch, const cw_kube_write_opts *w,
                  json_object **out, cw_error *err) CW_MUST_CHECK;
int cw_kube_delete(cw_kube_client *c, const cw_kube_resource *r, const char *name,
                   const cw_kube_delete_opts *d, json_object **out, cw_error *err) CW_MUST_CHECK;
/* DELETE on the collection: every object the label selector (required) matches, in one request.
 * *out is the List of what was deleted (or marked for a foreground deletion). preconditions do
 * not apply to a collection. */
int cw_kube_delete_collection(cw_kube_client *c, const cw_kube_resource *r,
                              const char *label_selector, const cw_kube_delete_opts *d,
                              json_object **out, cw_error *err) CW_MUST_CHECK;

/* ---- discovery ---- */

typedef struct cw_kube_group {
    char *name;          /* "" for the core group */
    char *preferred;     /* preferred version ("v1beta2") */
    cw_strlist versions; /* served versions, in the server's order */
} cw_kube_group;

typedef struct cw_kube_api_resource {
    char *name; /* plural, or "volumes/status" for a subresource */
    char *kind;
    int namespaced;
    cw_strlist verbs;
} cw_kube_api_resource;

typedef struct cw_kube_api_resources {
    cw_kube_api_resource *items;
    size_t len;
} cw_kube_api_resources;

void cw_kube_group_init(cw_kube_group *g);
void cw_kube_group_free(cw_kube_group *g);
void cw_kube_api_resources_init(cw_kube_api_resources *l);
void cw_kube_api_resources_free(cw_kube_api_resources *l);
const cw_kube_api_resource *cw_kube_api_resources_find(const cw_kube_api_resources *l,
                                                       const char *name);

/* GET /apis/<group> (or /api for ""). A group the server does not serve -> CW_ENOTFOUND. */
int cw_kube_discover_group(cw_kube_client *c, const char *group, cw_kube_group *out,
                           cw_error *err) CW_MUST_CHECK;
/* GET /apis/<group>/<version> (or /api/<version>). */
int cw_kube_discover_resources(cw_kube_client *c, const char *group, const char *version,
                               cw_kube_api_resources *out, cw_error *err) CW_MUST_CHECK;

/* The group's preferred version when it serves `resource`, else the first served version that
 * does, into out ("v1beta2"). CW_ENOTFOUND: "the API server does not serve <resource>.<group>". */
int cw_kube_pick_version(cw_kube_client *kube, const char *group, const char *resource, char *out,
                         size_t outlen, cw_error *err) CW_MUST_CHECK;

/* ---- paged list ---- */

typedef enum {
    /* Default. A 410 Gone for an expired continue token restarts the list from the first page;
     * that page arrives with `restarted` set and the callback must discard what it kept from
     * earlier pages. Bounded by max_restarts. */
    CW_KUBE_LIST_RESTART = 0,
    /* Continue with the inconsistent token the 410 body offers; later pages arrive with
     * `inconsistent` set (objects changed in between may be missing or repeated). */
    CW_KUBE_LIST_INCONSISTENT,
} cw_kube_expired_policy;

typedef struct cw_kube_list_opts {
    const char *label_selector;
    const char *field_selector;
    long limit; /* page size; default 500 */
    cw_kube_expired_policy on_expired;
    int max_restarts; /* default 3 */
    /* Member paths of each object (lib/jsonprune, from the object's top: "spec.backupSpec"; at
     * most 3) whose values arrive as a JSON string of their text as the server sent it, or, when
     * longer than prune_over bytes, as their length (a JSON number): json-c never builds a tree
     * of them (cw_json_prune_text). NULL: none. */
    const char *const *prune;
    size_t prune_over;
} cw_kube_list_opts;

typedef struct cw_kube_page {
    json_object *list;            /* the page's List object (freed after the callback) */
    json_object *items;           /* its items array (never NULL) */
    size_t page;                  /* 0-based, counted since the last (re)start */
    int restarted;                /* first page after a restart: drop state from earlier pages */
    int inconsistent;             /* the list continues with an inconsistent token */
    int last;                     /* no page follows */
    const char *resource_version; /* the List's metadata.resourceVersion */
} cw_kube_page;

/* Return 0 to continue, > 0 to stop quietly (the list returns CW_OK), < 0 (with err set) to fail.
 */
typedef int (*cw_kube_page_fn)(void *ud, const cw_kube_page *page, cw_error *err);

void cw_kube_list_opts_init(cw_kube_list_opts *o);
/* Streams the collection page by page; only one page is in memory at a time. */
int cw_kube_list(cw_kube_client *c, const cw_kube_resource *r, const cw_kube_list_opts *o,
                 cw_kube_page_fn fn, void *ud, cw_error *err) CW_MUST_CHECK;

/* data[0, len) parsed (cw_kube_parse_json) with the values at `under`.<prune[i]> as their text,
 * or over `over` bytes as their length (cw_kube_list_opts' prune; under: "items", "object"). */
int cw_kube_parse_pruned(const char *data, size_t len, const char *under, const char *const *prune,
                         size_t over, json_object **out, cw_error *err) CW_MUST_CHECK;

/* Every object of r with the label selector (NULL: all) as one JSON array (caller's): for
 * collections known to be small. */
int cw_kube_list_items(cw_kube_client *c, const cw_kube_resource *r, const char *selector,
                       json_object **out, cw_error *err) CW_MUST_CHECK;

/* ---- watch ---- */

typedef enum {
    CW_KUBE_ADDED,
    CW_KUBE_MODIFIED,
    CW_KUBE_DELETED,
    CW_KUBE_BOOKMARK,
    CW_KUBE_ERROR,
} cw_kube_event_type;

typedef struct cw_kube_event {
    cw_kube_event_type type;
    const char *type_name;        /* "ADDED", ... as sent */
    json_object *object;          /* the object (a Status for ERROR); freed after the callback */
    const char *resource_version; /* object's metadata.resourceVersion, may be NULL */
    int gone;                     /* ERROR with code 410: the resourceVersion is too old, relist */
} cw_kube_event;

/* Same return convention as cw_kube_page_fn. */
typedef int (*cw_kube_event_fn)(void *ud, const cw_kube_event *ev, cw_error *err);

typedef struct cw_kube_watch_opts {
    const char *resource_version; /* start after this version (from a list); NULL: "most recent" */
    const char *label_selector;
    const char *field_selector;
    long timeout_seconds;     /* server-side timeoutSeconds; 0: the server's default */
    int no_bookmarks;         /* 1: do not ask for BOOKMARK events */
    const char *const *prune; /* as cw_kube_list_opts' (each event's object) */
    size_t prune_over;
    const atomic_int *stop; /* when it becomes non-zero the watch ends within about a second */
} cw_kube_watch_opts;

void cw_kube_watch_opts_init(cw_kube_watch_opts *o);
/* Streams events until the server ends the watch, the callback stops it or *stop is set: CW_OK.
 * An ERROR event is delivered to the callback and then ends the watch with CW_EHTTP and
 * err->http_status from its Status (410 when the resourceVersion is too old: relist). A watch
 * holds its own connection, outside the max_inflight pool. */
int cw_kube_watch(cw_kube_client *c, const cw_kube_resource *r, const cw_kube_watch_opts *o,
                  cw_kube_event_fn fn, void *ud, cw_error *err) CW_MUST_CHECK;

#endif
