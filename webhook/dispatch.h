/* request.kind → the policy functions of defaults/. The webhook decides nothing itself: it picks
 * the function, hands it the objects and reports what came back. */
#ifndef CW_DISPATCH_H
#define CW_DISPATCH_H

#include "defaults/policy.h"
#include "lib/error.h"
#include "webhook/review.h"

typedef enum { CW_WEBHOOK_MUTATE = 0, CW_WEBHOOK_VALIDATE } cw_webhook_route;

/* Runs the defaulting (MUTATE) or validation (VALIDATE) function for req's kind and appends the
 * outcome to d. *kind_label is the kind when the policy covers it and "other" otherwise (kinds,
 * versions and subresources the policy does not cover are allowed untouched: d stays empty).
 * DELETE and CONNECT reach no policy function. dryRun changes nothing. Returns CW_OK or the
 * policy function's internal error (CW_ENOMEM). */
int cw_webhook_dispatch(const cw_policy_config *cfg, cw_webhook_route route,
                        const cw_review_request *req, cw_decision *d, const char **kind_label,
                        cw_error *err) CW_MUST_CHECK;

#endif
