/* API errors: from an HTTP status and a (usually Status-object) body to a cw_error a user can act
 * on, and the JSON parsing every response goes through. */
#include "kube/internal.h"

#include <string.h>

#include "lib/json.h"

const char *cw_kube_reason_phrase(long status)
{
    switch (status) {
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 406:
        return "Not Acceptable";
    case 408:
        return "Request Timeout";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 413:
        return "Request Entity Too Large";
    case 415:
        return "Unsupported Media Type";
    case 422:
        return "Unprocessable Entity";
    case 429:
        return "Too Many Requests";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    default:
        break;
    }
    if (status >= 200 && status < 300)
        return "OK";
    if (status >= 500)
        return "Server Error";
    if (status >= 400)
        return "Client Error";
    return "Unexpected Status";
}

/* Copies at most outlen-1 bytes of s[0..n), stopping at a line break, control characters as
 * spaces; marks truncation with "...". */
static void copy_line(const char *s, size_t n, int first_line_only, char *out, size_t outlen)
{
    size_t o = 0;
    if (outlen == 0)
        return;
    for (size_t i = 0; i < n && o + 1 < outlen; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (first_line_only && (ch == '\n' || ch == '\r'))
            break;
        out[o++] = ch < 0x20 || ch == 0x7f ? ' ' : (char)ch;
    }
    while (o > 0 && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
    if (o + 1 >= outlen && outlen > 4)
        memcpy(out + outlen - 4, "...", 4);
}

void cw_kube_body_message(const char *body, size_t len, char *out, size_t outlen)
{
    json_object *o = NULL;
    size_t cap = outlen < 600 ? outlen : 600;
    if (outlen == 0)
        return;
    out[0] = '\0';
    if (!body || len == 0)
        return;
    /* A Status (or any JSON object) when the whole body is one; otherwise plain text such as
     * "404 page not found". */
    if (len > 0 && body[0] == '{' && cw_kube_parse_json(body, len, &o, NULL) == CW_OK &&
        json_object_is_type(o, json_type_object)) {
        const char *msg = cw_json_path_string(o, "message");
        if (!msg || !*msg)
            msg = cw_json_path_string(o, "reason");
        if (msg)
            copy_line(msg, strlen(msg), 0, out, cap);
    } else {
        size_t i = 0;
        while (i < len && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r' || body[i] == '\t'))
            i++;
        copy_line(body + i, len - i, 1, out, cap < 300 ? cap : 300);
    }
    json_object_put(o);
}

int cw_kube_http_error(cw_error *err, const char *method, const char *url, long status,
                       const char *body, size_t len)
{
    char msg[600];
    int code = status == 404 ? CW_ENOTFOUND : status == 409 ? CW_ECONFLICT : CW_EHTTP;
    cw_kube_body_message(body, len, msg, sizeof(msg));
    cw_error_set(err, code, "%s %s: %ld %s%s%s", method, url, status, cw_kube_reason_phrase(status),
                 *msg ? ": " : "", msg);
    if (err)
        err->http_status = (int)status;
    return code;
}

int cw_kube_parse_json(const char *data, size_t len, json_object **out, cw_error *err)
{
    int rc = CW_OK;
    json_object *o = NULL;
    json_tokener *tok = NULL;
    *out = NULL;
    if (len > 0x7fffffff)
        return cw_error_set(err, CW_ELIMIT, "response of %zu bytes is too large to parse", len);
    tok = json_tokener_new_ex(CW_KUBE_JSON_DEPTH);
    if (!tok)
        return cw_error_set(err, CW_ENOMEM, "out of memory parsing a response");
    o = json_tokener_parse_ex(tok, data ? data : "", (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    if (jerr == json_tokener_continue) {
        rc = cw_error_set(err, CW_EINVAL, "response is not complete JSON (%zu bytes)", len);
        goto done;
    }
    if (jerr != json_tokener_success) {
        rc = cw_error_set(err, CW_EINVAL, "response is not valid JSON at byte %zu: %s",
                          json_tokener_get_parse_end(tok), json_tokener_error_desc(jerr));
        goto done;
    }
    for (size_t i = json_tokener_get_parse_end(tok); i < len; i++) {
        char ch = data[i];
        if (ch != ' ' && ch != '\n' && ch != '\r' && ch != '\t') {
            rc = cw_error_set(err, CW_EINVAL, "response has trailing data at byte %zu", i);
            goto done;
        }
    }
    *out = o;
    o = NULL;
done:
    json_object_put(o);
    json_tokener_free(tok);
    return rc;
}
