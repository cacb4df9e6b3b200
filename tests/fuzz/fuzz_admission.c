/* The webhook's whole decision path for one request body, transport aside: cw_webhook_admit
 * (prune, AdmissionReview decode, dispatch to defaults/, encode), on both routes and under two
 * policy configurations. Invariants, besides no crash, leak or UB:
 *   - the answer (status, body, outcome, kind) is byte for byte the reference's, which parses
 *     every byte with json-c (cw_webhook_admit_reference): the fast decode decides the same;
 *   - the status is 200 or 400 (500 only for CW_ENOMEM, which cannot happen here), and 400
 *     exactly when decoding the body as sent (without pruning managedFields) fails;
 *   - 400 and 500 answers are one plain-text line;
 *   - a 200 answer is strict JSON and valid UTF-8: the request's apiVersion, kind
 *     AdmissionReview, the request's uid echoed, `allowed` as decided, a denial with a message;
 *   - a patch only from /mutate, only when allowed; its base64 decodes to a JSON array of
 *     add/replace ops that apply, in order, to request.object (RFC 6902), and defaulting the
 *     patched object again asks for no further patch (defaulting is idempotent: the apiserver
 *     may re-invoke the webhook). */
#include <openssl/evp.h>

#include "fuzz.h"
#include "lib/json.h"
#include "cron/tz.h"
#include "webhook/admit.h"

static cw_tzdb tzdb;
static cw_policy_config policies[2];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    cw_error err;
    cw_error_init(&err);
    FUZZ_CHECK(cw_tzdb_init(&tzdb, NULL, &err) == CW_OK, "%s", err.message);
    for (int i = 0; i < 2; i++) {
        FUZZ_CHECK(cw_policy_config_init(&policies[i]) == CW_OK, "out of memory");
        policies[i].tzdb = &tzdb;
    }
    /* The other corner of the configuration: smallest max-retain, no default group, Velero's
     * skip-immediately. */
    policies[1].max_retain = 1;
    policies[1].schedule_skip_immediately = 1;
    FUZZ_CHECK(cw_policy_config_set_default_group(&policies[1], NULL, &err) == CW_OK, "oom");
    return 0;
}

/* RFC 6901 token i..end of `path` unescaped into out; returns the end of the token. */
static const char *ptr_token(const char *p, char *out, size_t n)
{
    size_t k = 0;
    for (; *p && *p != '/'; p++) {
        char c = *p;
        if (c == '~') {
            FUZZ_CHECK(p[1] == '0' || p[1] == '1', "bad escape in pointer");
            c = p[1] == '0' ? '~' : '/';
            p++;
        }
        FUZZ_CHECK(k + 1 < n, "pointer token too long");
        out[k++] = c;
    }
    out[k] = '\0';
    return p;
}

/* Applies one add/replace op to doc (objects only: the policy never indexes arrays). */
static void apply_op(json_object *doc, json_object *op)
{
    const char *name = cw_json_path_string(op, "op");
    const char *path = cw_json_path_string(op, "path");
    json_object *value = NULL;
    FUZZ_CHECK(name && path && json_object_object_get_ex(op, "value", &value), "malformed op %s",
               json_object_to_json_string(op));
    FUZZ_CHECK(strcmp(name, "add") == 0 || strcmp(name, "replace") == 0, "op %s", name);
    FUZZ_CHECK(path[0] == '/', "path %s", path);
    static char tok[1 << 16];
    json_object *cur = doc;
    const char *p = path;
    for (;;) {
        p = ptr_token(p + 1, tok, sizeof(tok));
        FUZZ_CHECK(json_object_is_type(cur, json_type_object),
                   "patch %s: a parent is not an object", path);
        if (!*p)
            break;
        json_object *next = NULL;
        FUZZ_CHECK(json_object_object_get_ex(cur, tok, &next), "patch %s: missing parent", path);
        cur = next;
    }
    if (strcmp(name, "replace") == 0)
        FUZZ_CHECK(json_object_object_get_ex(cur, tok, NULL), "replace %s: no such member", path);
    json_object *copy = NULL;
    FUZZ_CHECK(cw_json_copy(value, &copy) == CW_OK, "oom");
    json_object_object_add(cur, tok, copy);
}

static void check_patch(const cw_policy_config *cfg, const cw_webhook_result *res,
                        json_object *answer)
{
    const char *b64 = cw_json_path_string(answer, "response.patch");
    FUZZ_CHECK(b64 != NULL, "patched but no response.patch");
    const char *type = cw_json_path_string(answer, "response.patchType");
    FUZZ_CHECK(type && strcmp(type, "JSONPatch") == 0, "patchType");
    size_t n = strlen(b64);
    FUZZ_CHECK(n % 4 == 0, "base64 length %zu", n);
    unsigned char *raw = malloc(n / 4 * 3 + 1);
    FUZZ_CHECK(raw != NULL, "oom");
    int got = EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)n);
    FUZZ_CHECK(got >= 0, "patch is not base64");
    while (got > 0 && n > 0 && b64[n - 1] == '=') { /* EVP_DecodeBlock keeps the padding bytes */
        got--;
        n--;
    }
    json_object *ops = fuzz_json_strict((const char *)raw, (size_t)got);
    FUZZ_CHECK(json_object_is_type(ops, json_type_array), "patch is not a JSON array: %.*s", got,
               raw);
    FUZZ_CHECK(json_object_array_length(ops) == res->patch_ops, "patch_ops");
    FUZZ_CHECK(res->req.object != NULL, "a patch without request.object");

    json_object *doc = NULL;
    FUZZ_CHECK(cw_json_copy(res->req.object, &doc) == CW_OK, "oom");
    for (size_t i = 0; i < json_object_array_length(ops); i++)
        apply_op(doc, json_object_array_get_idx(ops, i));

    /* Defaulting the defaulted object changes nothing more. */
    cw_review_request again = res->req;
    again.object = doc;
    cw_decision d;
    cw_error err;
    const char *label;
    cw_decision_init(&d);
    cw_error_init(&err);
    FUZZ_CHECK(cw_webhook_dispatch(cfg, CW_WEBHOOK_MUTATE, &again, &d, &label, &err) == CW_OK, "%s",
               err.message);
    FUZZ_CHECK(cw_decision_denied(&d) || json_object_array_length(d.patch) == 0,
               "defaulting is not idempotent: first %s, then %s", (const char *)raw,
               cw_json_compact(d.patch));
    cw_decision_free(&d);
    json_object_put(doc);
    json_object_put(ops);
    free(raw);
}

static void check_answer(const cw_policy_config *cfg, cw_webhook_route route,
                         const cw_webhook_result *res)
{
    json_object *a = fuzz_json_strict(res->body.data, res->body.len);
    FUZZ_CHECK(json_object_is_type(a, json_type_object), "200 body is not a JSON object: %s",
               res->body.data);
    FUZZ_CHECK(cw_utf8_invalid_at(res->body.data, res->body.len) == res->body.len,
               "200 body is not UTF-8: %s", res->body.data);
    const char *av = cw_json_path_string(a, "apiVersion");
    FUZZ_CHECK(av && strcmp(av, cw_review_api_version(res->req.version)) == 0, "apiVersion");
    const char *kind = cw_json_path_string(a, "kind");
    FUZZ_CHECK(kind && strcmp(kind, "AdmissionReview") == 0, "kind");
    json_object *uid = cw_json_path(a, "response.uid");
    FUZZ_CHECK(json_object_is_type(uid, json_type_string) && res->req.uid &&
                   strcmp(json_object_get_string(uid), res->req.uid) == 0,
               "uid not echoed: %s", res->body.data);
    json_object *allowed = cw_json_path(a, "response.allowed");
    FUZZ_CHECK(json_object_is_type(allowed, json_type_boolean) &&
                   json_object_get_boolean(allowed) == res->allowed,
               "allowed");
    if (!res->allowed) {
        const char *msg = cw_json_path_string(a, "response.status.message");
        FUZZ_CHECK(msg && *msg && res->message && strcmp(msg, res->message) == 0, "denial message");
    }
    json_object *warnings = cw_json_path(a, "response.warnings");
    FUZZ_CHECK(!warnings || (json_object_is_type(warnings, json_type_array) &&
                             json_object_array_length(warnings) == res->warnings),
               "warnings");
    int has_patch = cw_json_path(a, "response.patch") != NULL;
    FUZZ_CHECK(has_patch == (res->patch_ops > 0), "patch present %d, patch_ops %zu", has_patch,
               res->patch_ops);
    if (has_patch) {
        FUZZ_CHECK(route == CW_WEBHOOK_MUTATE, "a patch from /validate");
        FUZZ_CHECK(res->allowed, "a patch on a denial");
        check_patch(cfg, res, a);
    }
    json_object_put(a);
}

static void admit(const cw_policy_config *cfg, cw_webhook_route route, const uint8_t *data,
                  size_t size)
{
    char *body = fuzz_dup(data, size);
    cw_webhook_result res;
    cw_webhook_result_init(&res);
    int rc = cw_webhook_admit(cfg, route, body, size, &res);
    FUZZ_CHECK(res.status == 200 || res.status == 400 || res.status == 500, "status %u",
               res.status);
    FUZZ_CHECK((rc == CW_OK) == (res.status == 200), "rc %d with status %u", rc, res.status);
    /* Pruning (blanking managedFields before decoding) must not change what is refused. */
    cw_review_request plain;
    cw_error perr;
    cw_error_init(&perr);
    memcpy(body, data, size);
    int prc = cw_review_decode(body, size, &plain, &perr);
    FUZZ_CHECK((prc == CW_OK) == (res.status != 400), "decoded as sent: %d (%s); admitted: %u (%s)",
               prc, perr.message, res.status, res.error.message);
    cw_review_request_free(&plain);
    /* The fast decode answers exactly as the reference, every byte through json-c, does. */
    cw_webhook_result ref;
    cw_webhook_result_init(&ref);
    int rrc = cw_webhook_admit_reference(cfg, route, (const char *)data, size, &ref);
    FUZZ_CHECK(rrc == rc && ref.status == res.status && ref.body.len == res.body.len &&
                   memcmp(ref.body.data, res.body.data, res.body.len) == 0 &&
                   strcmp(ref.outcome, res.outcome) == 0 &&
                   strcmp(ref.kind_label, res.kind_label) == 0,
               "fast and full decode differ: reference %u %.*s, fast %u %.*s", ref.status,
               (int)ref.body.len, ref.body.data, res.status, (int)res.body.len, res.body.data);
    cw_webhook_result_free(&ref);
    if (res.status == 200) {
        check_answer(cfg, route, &res);
    } else {
        FUZZ_CHECK(res.status == 400 || rc == CW_ENOMEM, "500 without CW_ENOMEM: %s",
                   res.error.message);
        FUZZ_CHECK(res.req.root == NULL || res.status == 500, "a 400 keeps the request");
        FUZZ_CHECK(res.body.len > 1 && res.body.data[res.body.len - 1] == '\n' &&
                       memchr(res.body.data, '\n', res.body.len) ==
                           res.body.data + res.body.len - 1,
                   "error body is not one line: %s", res.body.data);
    }
    cw_webhook_result_free(&res);
    free(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int c = 0; c < 2; c++) {
        admit(&policies[c], CW_WEBHOOK_MUTATE, data, size);
        admit(&policies[c], CW_WEBHOOK_VALIDATE, data, size);
    }
    return 0;
}
