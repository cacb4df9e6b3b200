#include "webhook/admit.h"

#include <stdlib.h>
#include <string.h>

void cw_webhook_result_init(cw_webhook_result *res)
{
    memset(res, 0, sizeof(*res));
    cw_buf_init(&res->body);
    cw_review_request_init(&res->req);
    cw_error_init(&res->error);
    res->kind_label = "";
    res->outcome = "error";
}

void cw_webhook_result_free(cw_webhook_result *res)
{
    cw_buf_free(&res->body);
    cw_review_request_free(&res->req);
    free(res->message);
    cw_webhook_result_init(res);
}

/* The plain-text body of a non-200 answer: the message and a newline. */
static int fail(cw_webhook_result *res, unsigned status, const char *outcome)
{
    res->status = status;
    res->outcome = outcome;
    cw_buf_reset(&res->body);
    cw_buf_printf(&res->body, "%s\n", res->error.message);
    return res->error.code ? res->error.code : CW_EINVAL;
}

/* The answer once the body is decoded (rc: how decoding went). */
static int answer(const cw_policy_config *policy, cw_webhook_route route, int rc,
                  cw_webhook_result *res)
{
    cw_decision d;
    cw_decision_init(&d);

    if (rc != CW_OK) {
        rc = fail(res, rc == CW_ENOMEM ? 500 : 400, rc == CW_ENOMEM ? "error" : "invalid");
        goto done;
    }
    if ((rc = cw_webhook_dispatch(policy, route, &res->req, &d, &res->kind_label, &res->error)) !=
        CW_OK) {
        cw_error_prefix(&res->error, "deciding");
        rc = fail(res, 500, "error");
        goto done;
    }
    cw_review_response resp = {.allowed = !cw_decision_denied(&d), .warnings = &d.warnings};
    if (!resp.allowed) {
        if (!(res->message = cw_decision_message(&d))) {
            cw_error_oom(&res->error);
            rc = fail(res, 500, "error");
            goto done;
        }
        resp.message = res->message;
    } else if (route == CW_WEBHOOK_MUTATE && d.patch) {
        resp.patch = d.patch;
        res->patch_ops = json_object_array_length(d.patch);
    }
    if ((rc = cw_review_encode(&res->req, &resp, &res->body, &res->error)) != CW_OK) {
        rc = fail(res, 500, "error");
        goto done;
    }
    res->status = 200;
    res->allowed = resp.allowed;
    res->warnings = d.warnings.len;
    res->outcome = !resp.allowed ? "denied" : res->patch_ops ? "patched" : "allowed";
done:
    cw_decision_free(&d);
    return rc;
}

int cw_webhook_admit(const cw_policy_config *policy, cw_webhook_route route, char *body, size_t len,
                     cw_webhook_result *res)
{
    return answer(policy, route, cw_review_read(body, len, &res->req, &res->error), res);
}

int cw_webhook_admit_reference(const cw_policy_config *policy, cw_webhook_route route,
                               const char *body, size_t len, cw_webhook_result *res)
{
    return answer(policy, route, cw_review_decode(body, len, &res->req, &res->error), res);
}
