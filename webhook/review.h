/* AdmissionReview (admission.k8s.io/v1 and v1beta1) decoding and encoding. Decoding is strict:
 * anything the apiserver would never send is refused with a message naming the field, and the
 * caller answers 400. See docs/webhook.md for the messages. */
#ifndef CW_REVIEW_H
#define CW_REVIEW_H

#include <json-c/json.h>
#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"
#include "lib/strlist.h"

#define CW_REVIEW_MAX_DEPTH      64      /* JSON nesting, AdmissionReview included */
#define CW_REVIEW_MAX_STRING     1048576 /* bytes in any one string value (etcd stores < 1.5 MiB) */
#define CW_REVIEW_MAX_UID        128
#define CW_REVIEW_MAX_IDENTIFIER 253 /* name, namespace, group, version, kind, resource */

typedef enum { CW_REVIEW_V1 = 0, CW_REVIEW_V1BETA1 } cw_review_version;

typedef enum {
    CW_REVIEW_CREATE = 0,
    CW_REVIEW_UPDATE,
    CW_REVIEW_DELETE,
    CW_REVIEW_CONNECT
} cw_review_operation;

/* A decoded request. Every pointer borrows from `root`, which the request owns. */
typedef struct cw_review_request {
    json_object *root;
    cw_review_version version;
    const char *uid;
    const char *group, *kind_version, *kind; /* request.kind; group is "" for the core group */
    const char *subresource;                 /* "" when absent */
    const char *namespace_, *name;           /* "" when absent */
    cw_review_operation operation;
    json_object *object;     /* NULL for DELETE and CONNECT */
    json_object *old_object; /* UPDATE (required) and DELETE (optional) */
    int dry_run;
} cw_review_request;

/* What to answer. `patch` is a JSON Patch op array (borrowed; NULL or empty: no patch). */
typedef struct cw_review_response {
    int allowed;
    json_object *patch;
    const cw_strlist *warnings; /* borrowed; may be NULL */
    int code;                   /* denial status code (0: 403) */
    const char *reason;         /* denial reason (NULL: "Forbidden") */
    const char *message;        /* denial message */
} cw_review_response;

void cw_review_request_init(cw_review_request *req);
void cw_review_request_free(cw_review_request *req);

/* Parses and checks body. On failure returns CW_EINVAL (or CW_ELIMIT for depth and size limits)
 * with a message for the 400 answer; req is left empty. */
int cw_review_decode(const char *body, size_t len, cw_review_request *req,
                     cw_error *err) CW_MUST_CHECK;

/* The same decode from a parsed AdmissionReview; takes root (req owns it, freed on failure). */
int cw_review_decode_root(json_object *root, cw_review_request *req, cw_error *err) CW_MUST_CHECK;

/* The fast decode (webhook/review_fast.c): one walk over the bytes, json-c only for the members
 * the webhook reads. *handled = 0 (and CW_OK) when the body is anything but a plain review (an
 * error of any kind, escaped keys, deep nesting, a huge body): then cw_review_decode decides.
 * When handled, the result and every message are those cw_review_decode gives. */
int cw_review_decode_fast(const char *body, size_t len, cw_review_request *req, int *handled,
                          cw_error *err) CW_MUST_CHECK;

/* What the server uses: the fast decode, else cw_review_prune and cw_review_decode (body may be
 * modified in place). */
int cw_review_read(char *body, size_t len, cw_review_request *req, cw_error *err) CW_MUST_CHECK;

/* Overwrites metadata.managedFields of request.object and request.oldObject with "[]" and spaces
 * (same length, so offsets are kept) when body is well-formed JSON; returns the bytes blanked.
 * No admission rule reads managedFields, and json-c builds it slowly. */
size_t cw_review_prune(char *body, size_t len);

/* Appends the AdmissionReview answer for req, in the apiVersion req came in. A patch is encoded
 * (patchType JSONPatch, base64 of its compact JSON) only when allowed and non-empty. */
int cw_review_encode(const cw_review_request *req, const cw_review_response *resp, cw_buf *out,
                     cw_error *err) CW_MUST_CHECK;

const char *cw_review_operation_name(cw_review_operation op);
const char *cw_review_api_version(cw_review_version v);

#endif
