/* kube internals shared by its files and its unit tests; not for other modules. */
#ifndef CW_KUBE_INTERNAL_H
#define CW_KUBE_INTERNAL_H

#include <curl/curl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

#include "lib/buf.h"
#include "lib/error.h"
#include "kube/client.h"
#include "kube/config.h"

/* Nesting allowed in API responses (CRD schemas go deeper than json-c's default of 32). */
#define CW_KUBE_JSON_DEPTH 512

/* ---- pem.c ---- */
typedef enum { CW_KUBE_PEM_CA, CW_KUBE_PEM_CERT, CW_KUBE_PEM_KEY } cw_kube_pem_kind;
/* The message says what is wrong without saying where; callers prefix the field. */
int cw_kube_pem_check(const char *pem, size_t len, cw_kube_pem_kind kind,
                      cw_error *err) CW_MUST_CHECK;
int cw_kube_pem_check_pair(const char *cert_pem, size_t cert_len, const char *key_pem,
                           size_t key_len, cw_error *err) CW_MUST_CHECK;

/* ---- config.c ---- */
/* Reads a file, trims surrounding whitespace (tokens, namespaces). Errors name the path. */
int cw_kube_read_trimmed(const char *path, char **out, cw_error *err) CW_MUST_CHECK;

/* ---- retry.c: pure helpers ---- */
void cw_kube_sleep(double seconds);
/* Full jitter: u * min(cap, base * 2^(retry-1)), u in [0,1), retry >= 1. */
double cw_kube_backoff(int retry, double base, double cap, double u);
/* Retry-After: delta-seconds or an HTTP-date (relative to now). Negative results clamp to 0;
 * values over a day clamp to a day. CW_EINVAL when unparseable. */
int cw_kube_parse_retry_after(const char *value, time_t now, double *seconds);
/* Statuses worth retrying: 429 and 5xx. */
int cw_kube_status_retryable(long status);
/* Transport failures worth retrying (connect refused, reset, timeout, DNS). */
int cw_kube_curl_retryable(CURLcode code);
/* xorshift64* step; returns a double in [0,1). */
double cw_kube_rand(unsigned long long *state);

/* Token bucket: qps tokens per second up to burst. reserve() takes one token, possibly going into
 * debt, and returns how long the caller must wait before sending (0 when a token was there). */
typedef struct cw_kube_bucket {
    double qps, burst, tokens, last;
} cw_kube_bucket;
void cw_kube_bucket_init(cw_kube_bucket *b, double qps, double burst, double now);
double cw_kube_bucket_reserve(cw_kube_bucket *b, double now);

/* ---- status.c ---- */
const char *cw_kube_reason_phrase(long status);
/* The human part of an error body: Status.message (else .reason), else the first line of a
 * non-JSON body, at most ~300 characters, control characters replaced. Empty when none. */
void cw_kube_body_message(const char *body, size_t len, char *out, size_t outlen);
/* Sets err from an HTTP error answer: code by status, http_status, and the message
 * "<METHOD> <url>: <status> <reason phrase>[: <message>]". Returns the code. */
int cw_kube_http_error(cw_error *err, const char *method, const char *url, long status,
                       const char *body, size_t len) CW_MUST_CHECK;
/* Parses a whole JSON document (trailing whitespace allowed). */
int cw_kube_parse_json(const char *data, size_t len, json_object **out,
                       cw_error *err) CW_MUST_CHECK;

/* ---- client.c, auth.c, request.c ---- */

struct cw_kube_client {
    cw_kube_config cfg;
    cw_kube_client_opts opts;
    char *user_agent;
    char *base_url;                 /* URL prefix (host replaced by tls-server-name when set) */
    struct curl_slist *connect_to;  /* routes tls-server-name to the real host, else NULL */
    struct curl_blob ca, cert, key; /* views of cfg's PEM data */
    CURLSH *share;                  /* TLS sessions and DNS shared between pooled handles */
    pthread_mutex_t share_mu[CURL_LOCK_DATA_LAST];

    pthread_mutex_t mu; /* everything below */
    pthread_cond_t cv;
    CURL **handles; /* max_inflight pooled handles, created lazily */
    size_t *free_slots;
    size_t nfree;
    cw_kube_bucket bucket;
    char *token; /* current bearer token (NULL: none) */
    double token_read_at;
    unsigned long long rng;
    cw_kube_stats stats;
};

/* Streaming sink: return CW_OK to go on, > 0 to stop quietly, < 0 to fail (err filled). */
typedef int (*cw_kube_sink_fn)(void *ud, const char *data, size_t len, cw_error *err);

typedef struct cw_kube_req {
    const char *method;
    const char *path; /* '/'-rooted, query included */
    const char *content_type;
    const char *body;
    size_t body_len;
    cw_kube_sink_fn sink; /* when set: a 2xx body streams here, on a dedicated connection */
    void *sink_ud;
    double timeout;         /* < 0: the client's; 0: none */
    const atomic_int *stop; /* aborts the transfer when non-zero */
} cw_kube_req;

typedef struct cw_kube_resp {
    long status;
    cw_buf body;    /* the whole body unless it was streamed to the sink */
    int sink_rc;    /* what the sink returned when it ended the transfer */
    int stopped;    /* the transfer was ended by the sink or the stop flag */
    char url[2048]; /* for messages */
} cw_kube_resp;

void cw_kube_req_init(cw_kube_req *r);
void cw_kube_resp_init(cw_kube_resp *r);
void cw_kube_resp_free(cw_kube_resp *r);

/* One request with rate limiting, pooling, token refresh and retries. On an HTTP error answer
 * the error is set from it and resp keeps the status and body. */
int cw_kube_do(cw_kube_client *c, const cw_kube_req *req, cw_kube_resp *resp,
               cw_error *err) CW_MUST_CHECK;
/* Sends body (may be NULL) and parses the JSON answer into *out (may be NULL). */
int cw_kube_do_json(cw_kube_client *c, const char *method, const char *path,
                    const char *content_type, json_object *body, json_object **out,
                    cw_error *err) CW_MUST_CHECK;

/* The bearer token to send now, re-reading the token file when due (force: now). Returns a copy
 * (NULL when the configuration has no token). */
int cw_kube_auth_token(cw_kube_client *c, int force, char **out, cw_error *err) CW_MUST_CHECK;

/* Pool of curl handles: blocks until one is free. */
int cw_kube_pool_acquire(cw_kube_client *c, size_t *slot, CURL **h, cw_error *err) CW_MUST_CHECK;
void cw_kube_pool_release(cw_kube_client *c, size_t slot);
/* Waits for the rate limiter. */
void cw_kube_throttle(cw_kube_client *c);
/* Common curl options (TLS, timeouts, share) on a reset handle. */
int cw_kube_setup_handle(cw_kube_client *c, CURL *h, cw_error *err) CW_MUST_CHECK;

#endif
