/* One admission call, transport aside: body in, HTTP status and body out, plus what the request
 * log line and the metrics need. decode → dispatch → encode. */
#ifndef CW_ADMIT_H
#define CW_ADMIT_H

#include <stddef.h>

#include "defaults/policy.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "webhook/dispatch.h"
#include "webhook/review.h"

typedef struct cw_webhook_result {
    unsigned status;        /* 200, 400 (undecodable request) or 500 (internal failure) */
    cw_buf body;            /* AdmissionReview JSON on 200, one plain-text line otherwise */
    cw_review_request req;  /* the decoded request (empty when status is 400) */
    const char *kind_label; /* for metrics: the kind, "other" or "" when undecoded */
    const char *outcome;    /* allowed | patched | denied | invalid | error */
    int allowed;
    size_t patch_ops, warnings;
    char *message;  /* denial message, NULL when allowed */
    cw_error error; /* why, when status is not 200 */
} cw_webhook_result;

void cw_webhook_result_init(cw_webhook_result *res);
void cw_webhook_result_free(cw_webhook_result *res);

/* Fills res for body posted to route. Returns CW_OK when the answer is a 200 AdmissionReview and
 * the error code otherwise (res->status and res->body are set either way). A patch is only ever
 * returned from CW_WEBHOOK_MUTATE. body may be modified in place (cw_review_read). */
int cw_webhook_admit(const cw_policy_config *policy, cw_webhook_route route, char *body, size_t len,
                     cw_webhook_result *res);

/* The same answer with every byte of the body parsed by json-c (cw_review_decode, no pruning):
 * the reference the fast decode is held to by tests and tests/fuzz/fuzz_admission. */
int cw_webhook_admit_reference(const cw_policy_config *policy, cw_webhook_route route,
                               const char *body, size_t len, cw_webhook_result *res);

#endif
