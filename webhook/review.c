#include "webhook/review.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base64.h"
#include "lib/json.h"
#include "lib/utf8.h"

static const char *const api_versions[] = {"admission.k8s.io/v1", "admission.k8s.io/v1beta1"};
static const char *const operations[] = {"CREATE", "UPDATE", "DELETE", "CONNECT"};

const char *cw_review_operation_name(cw_review_operation op)
{
    return (unsigned)op < 4 ? operations[op] : "UNKNOWN";
}

const char *cw_review_api_version(cw_review_version v)
{
    return v == CW_REVIEW_V1BETA1 ? api_versions[1] : api_versions[0];
}

void cw_review_request_init(cw_review_request *req)
{
    memset(req, 0, sizeof(*req));
}

void cw_review_request_free(cw_review_request *req)
{
    json_object_put(req->root);
    cw_review_request_init(req);
}

/* Any string over the limit, anywhere. Only called for bodies big enough to hold one. */
static int has_huge_string(json_object *o)
{
    switch (json_object_get_type(o)) {
    case json_type_string:
        return json_object_get_string_len(o) > CW_REVIEW_MAX_STRING;
    case json_type_array:
        for (size_t i = 0; i < json_object_array_length(o); i++)
            if (has_huge_string(json_object_array_get_idx(o, i)))
                return 1;
        return 0;
    case json_type_object: {
        json_object_object_foreach(o, key, val)
        {
            if (strlen(key) > CW_REVIEW_MAX_STRING || has_huge_string(val))
                return 1;
        }
        return 0;
    }
    default:
        return 0;
    }
}

static int parse(const char *body, size_t len, json_object **out, cw_error *err)
{
    int rc = CW_OK;
    size_t bad;
    json_object *root = NULL;
    *out = NULL;
    struct json_tokener *tok = json_tokener_new_ex(CW_REVIEW_MAX_DEPTH);
    if (!tok)
        return cw_error_oom(err);
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
    if (len == 0) {
        rc = cw_error_set(err, CW_EINVAL, "invalid JSON: empty body");
        goto done;
    }
    /* json-c stops at a NUL byte as if the text ended there; JSON text never contains one. */
    const char *nul = memchr(body, '\0', len);
    if (nul) {
        rc = cw_error_set(err, CW_EINVAL, "invalid JSON: NUL byte at offset %zu",
                          (size_t)(nul - body));
        goto done;
    }
    if ((bad = cw_utf8_invalid_at(body, len)) < len) {
        rc = cw_error_set(err, CW_EINVAL, "invalid JSON: invalid UTF-8 at offset %zu", bad);
        goto done;
    }
    root = json_tokener_parse_ex(tok, body, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    if (jerr == json_tokener_continue) {
        /* json-c waits for the end of a bare scalar ("null", "12") that could still go on. */
        size_t first = 0;
        while (first < len && strchr(" \t\r\n", body[first]))
            first++;
        if (first < len && body[first] != '{' && body[first] != '[')
            rc = cw_error_set(err, CW_EINVAL, "AdmissionReview: expected object");
        else
            rc = cw_error_set(err, CW_EINVAL, "invalid JSON: unexpected end of input");
        goto done;
    }
    if (jerr != json_tokener_success) {
        size_t at = json_tokener_get_parse_end(tok);
        if (jerr == json_tokener_error_depth)
            rc = cw_error_set(err, CW_ELIMIT, "invalid JSON: nesting deeper than %d levels",
                              CW_REVIEW_MAX_DEPTH);
        else
            rc = cw_error_set(err, CW_EINVAL, "invalid JSON at offset %zu: %s", at,
                              json_tokener_error_desc(jerr));
        goto done;
    }
    for (size_t at = json_tokener_get_parse_end(tok); at < len; at++) {
        if (!strchr(" \t\r\n", body[at])) {
            rc = cw_error_set(err, CW_EINVAL,
                              "invalid JSON: unexpected data after the document at offset %zu", at);
            goto done;
        }
    }
    if (!json_object_is_type(root, json_type_object)) {
        /* Bare scalars (and null) are not AdmissionReviews; json-c may still be waiting for the
         * end of a number, which does not matter here. */
        rc = cw_error_set(err, CW_EINVAL, "AdmissionReview: expected object, got %s",
                          cw_json_type_name(root));
        goto done;
    }
    if (len > CW_REVIEW_MAX_STRING && has_huge_string(root)) {
        rc = cw_error_set(err, CW_ELIMIT, "a string value is longer than %d bytes",
                          CW_REVIEW_MAX_STRING);
        goto done;
    }
    *out = root;
    root = NULL;
done:
    json_object_put(root);
    json_tokener_free(tok);
    return rc;
}

/* A required or optional bounded string member; "" when optional and absent. */
static int get_string(json_object *obj, const char *where, const char *key, int required,
                      size_t max, const char **out, cw_error *err)
{
    const char *s = NULL;
    int rc = cw_json_opt_string(obj, where, key, &s, err);
    if (rc != CW_OK)
        return rc;
    if (!s || !*s) {
        if (required)
            return cw_error_set(err, CW_EINVAL, "%s.%s: missing", where, key);
        *out = "";
        return CW_OK;
    }
    size_t n = (size_t)json_object_get_string_len(cw_json_member(obj, key));
    if (n > max)
        return cw_error_set(err, CW_ELIMIT, "%s.%s: longer than %zu bytes", where, key, max);
    if (strlen(s) != n)
        return cw_error_set(err, CW_EINVAL, "%s.%s: contains a NUL character", where, key);
    *out = s;
    return CW_OK;
}

static int get_object(json_object *obj, const char *where, const char *key, int required,
                      json_object **out, cw_error *err)
{
    int rc = cw_json_opt_object(obj, where, key, out, err);
    if (rc == CW_OK && required && !*out)
        rc = cw_error_set(err, CW_EINVAL, "%s.%s: missing", where, key);
    return rc;
}

static int decode_request(json_object *root, cw_review_request *req, cw_error *err)
{
    int rc;
    const char *s = NULL;
    json_object *r = NULL, *kind = NULL;

    if ((rc = cw_json_opt_string(root, "", "apiVersion", &s, err)) != CW_OK)
        return rc;
    if (s && strcmp(s, api_versions[0]) == 0)
        req->version = CW_REVIEW_V1;
    else if (s && strcmp(s, api_versions[1]) == 0)
        req->version = CW_REVIEW_V1BETA1;
    else
        return cw_error_set(err, CW_EINVAL, "apiVersion: expected %s or %s", api_versions[0],
                            api_versions[1]);
    if ((rc = cw_json_opt_string(root, "", "kind", &s, err)) != CW_OK)
        return rc;
    if (!s || strcmp(s, "AdmissionReview") != 0)
        return cw_error_set(err, CW_EINVAL, "kind: expected AdmissionReview");

    rc = cw_json_opt_object(root, "", "request", &r, err);
    if (rc != CW_OK)
        return rc;
    if (!r)
        return cw_error_set(err, CW_EINVAL, "request: missing");
    if ((rc = get_string(r, "request", "uid", 1, CW_REVIEW_MAX_UID, &req->uid, err)) != CW_OK)
        return rc;
    if ((rc = get_object(r, "request", "kind", 1, &kind, err)) != CW_OK)
        return rc;
    if ((rc = get_string(kind, "request.kind", "group", 0, CW_REVIEW_MAX_IDENTIFIER, &req->group,
                         err)) != CW_OK ||
        (rc = get_string(kind, "request.kind", "version", 1, CW_REVIEW_MAX_IDENTIFIER,
                         &req->kind_version, err)) != CW_OK ||
        (rc = get_string(kind, "request.kind", "kind", 1, CW_REVIEW_MAX_IDENTIFIER, &req->kind,
                         err)) != CW_OK ||
        (rc = get_string(r, "request", "subResource", 0, CW_REVIEW_MAX_IDENTIFIER,
                         &req->subresource, err)) != CW_OK ||
        (rc = get_string(r, "request", "namespace", 0, CW_REVIEW_MAX_IDENTIFIER, &req->namespace_,
                         err)) != CW_OK ||
        (rc = get_string(r, "request", "name", 0, CW_REVIEW_MAX_IDENTIFIER, &req->name, err)) !=
            CW_OK)
        return rc;

    if ((rc = cw_json_opt_string(r, "request", "operation", &s, err)) != CW_OK)
        return rc;
    size_t op = 0;
    while (op < 4 && !(s && strcmp(s, operations[op]) == 0))
        op++;
    if (op == 4)
        return cw_error_set(err, CW_EINVAL,
                            "request.operation: expected CREATE, UPDATE, DELETE or CONNECT");
    req->operation = (cw_review_operation)op;

    int needs_object = op == CW_REVIEW_CREATE || op == CW_REVIEW_UPDATE;
    if ((rc = get_object(r, "request", "object", needs_object, &req->object, err)) != CW_OK)
        return rc;
    if ((rc = get_object(r, "request", "oldObject", op == CW_REVIEW_UPDATE, &req->old_object,
                         err)) != CW_OK)
        return rc;
    if (op == CW_REVIEW_DELETE)
        req->object = NULL; /* the apiserver sends null; nothing decides on it */
    return cw_json_opt_bool(r, "request", "dryRun", &req->dry_run, NULL, err);
}

int cw_review_decode_root(json_object *root, cw_review_request *req, cw_error *err)
{
    cw_review_request_init(req);
    req->root = root;
    int rc = decode_request(root, req, err);
    if (rc != CW_OK)
        cw_review_request_free(req);
    return rc;
}

int cw_review_decode(const char *body, size_t len, cw_review_request *req, cw_error *err)
{
    json_object *root = NULL;
    cw_review_request_init(req);
    if (len > INT_MAX)
        return cw_error_set(err, CW_ELIMIT, "body too large");
    int rc = parse(body, len, &root, err);
    if (rc != CW_OK)
        return rc;
    return cw_review_decode_root(root, req, err);
}

int cw_review_read(char *body, size_t len, cw_review_request *req, cw_error *err)
{
    int handled = 0;
    int rc = cw_review_decode_fast(body, len, req, &handled, err);
    if (handled || rc != CW_OK)
        return rc;
    cw_review_prune(body, len);
    return cw_review_decode(body, len, req, err);
}

/* A JSON string as json-c writes it (quote, backslash and control characters escaped, '/' and
 * UTF-8 as is), straight into the answer: building a json-c tree only to print it costs more
 * than the rest of the encoding. */
static int put_string(cw_buf *b, const char *s)
{
    int rc = cw_buf_putc(b, '"');
    const char *run = s;
    for (const char *p = s; *p && rc == CW_OK; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        rc = cw_buf_append(b, run, (size_t)(p - run));
        run = p + 1;
        char esc[8];
        switch (c) {
        case '"':
        case '\\':
            snprintf(esc, sizeof(esc), "\\%c", c);
            break;
        case '\n':
            strcpy(esc, "\\n");
            break;
        case '\r':
            strcpy(esc, "\\r");
            break;
        case '\t':
            strcpy(esc, "\\t");
            break;
        case '\b':
            strcpy(esc, "\\b");
            break;
        case '\f':
            strcpy(esc, "\\f");
            break;
        default:
            snprintf(esc, sizeof(esc), "\\u%04x", c);
        }
        if (rc == CW_OK)
            rc = cw_buf_puts(b, esc);
    }
    if (rc == CW_OK)
        rc = cw_buf_puts(b, run);
    if (rc == CW_OK)
        rc = cw_buf_putc(b, '"');
    return rc;
}

/* Base64 (RFC 4648, no line breaks) of s, as a JSON string. */
static int put_base64(cw_buf *b, const char *s, size_t n)
{
    int rc;
    if ((rc = cw_buf_putc(b, '"')) != CW_OK || (rc = cw_base64_encode(b, s, n)) != CW_OK)
        return rc;
    return cw_buf_putc(b, '"');
}

int cw_review_encode(const cw_review_request *req, const cw_review_response *resp, cw_buf *out,
                     cw_error *err)
{
    int rc = cw_buf_printf(out,
                           "{\"apiVersion\":\"%s\",\"kind\":\"AdmissionReview\","
                           "\"response\":{\"uid\":",
                           cw_review_api_version(req->version));
    if (rc == CW_OK)
        rc = put_string(out, req->uid ? req->uid : "");
    if (rc == CW_OK)
        rc = cw_buf_puts(out, resp->allowed ? ",\"allowed\":true" : ",\"allowed\":false");
    if (rc == CW_OK && !resp->allowed) {
        rc = cw_buf_printf(out,
                           ",\"status\":{\"code\":%d,\"message\":", resp->code ? resp->code : 403);
        if (rc == CW_OK)
            rc = put_string(out, resp->message ? resp->message : "");
        if (rc == CW_OK)
            rc = cw_buf_puts(out, ",\"reason\":");
        if (rc == CW_OK)
            rc = put_string(out, resp->reason ? resp->reason : "Forbidden");
        if (rc == CW_OK)
            rc = cw_buf_putc(out, '}');
    }
    if (rc == CW_OK && resp->allowed && resp->patch && json_object_array_length(resp->patch) > 0) {
        const char *text = cw_json_compact(resp->patch);
        rc = text ? cw_buf_puts(out, ",\"patchType\":\"JSONPatch\",\"patch\":") : CW_ENOMEM;
        if (rc == CW_OK)
            rc = put_base64(out, text, strlen(text));
    }
    if (rc == CW_OK && resp->warnings && resp->warnings->len) {
        rc = cw_buf_puts(out, ",\"warnings\":[");
        for (size_t i = 0; i < resp->warnings->len && rc == CW_OK; i++) {
            if (i)
                rc = cw_buf_putc(out, ',');
            if (rc == CW_OK)
                rc = put_string(out, resp->warnings->items[i]);
        }
        if (rc == CW_OK)
            rc = cw_buf_putc(out, ']');
    }
    if (rc == CW_OK)
        rc = cw_buf_puts(out, "}}");
    if (rc != CW_OK)
        return cw_error_set(err, CW_ENOMEM, "out of memory encoding the AdmissionReview response");
    return CW_OK;
}
