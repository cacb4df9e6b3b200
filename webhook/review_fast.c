/* The fast AdmissionReview decode: one validating walk over the bytes (lib/jsonwalk) finds the
 * members the webhook reads, and json-c parses only those. The review's other parts (userInfo,
 * resource, requestKind, options, the object's managedFields ...) are checked against the JSON
 * grammar by the walk and never built: most of a review's bytes are never read by a rule, and
 * building them as json-c objects was most of the webhook's time (bench/README.md, "Webhook").
 *
 * What is built is a skeleton with the same members, at every level the decoder and the rules
 * read, as json-c would have built from the whole text; cw_review_decode's own checks then run
 * on it, so messages are the same. Anything unusual (a key written with escapes where names
 * matter, deep nesting, a body over the string limit, any error) is left to the full decode: the
 * fast path never decides what the full one would decide differently, and tests/fuzz's
 * fuzz_admission compares the two answers byte for byte on every input. */
#include "webhook/review.h"

#include <limits.h>
#include <string.h>

#include "lib/jsonwalk.h"
#include "lib/utf8.h"

/* Where a member is: the walk's contexts. */
enum where { W_ANY, W_ROOT, W_REQUEST, W_OBJECT, W_OLD, W_META, W_OLDMETA, W_COUNT };

/* The members kept per context; every other member is walked over. The object's members are
 * those defaults/ reads (apiVersion, metadata, spec, status; kind for good measure), its
 * metadata's those a rule or a message uses. A rule that reads another member adds it here: the
 * fuzz target's comparison with the full decode fails until it does. */
static const char *const root_keys[] = {"apiVersion", "kind", "request", NULL};
static const char *const request_keys[] = {"uid",    "kind",      "subResource", "namespace",
                                           "name",   "operation", "object",      "oldObject",
                                           "dryRun", NULL};
static const char *const object_keys[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
static const char *const meta_keys[] = {"name",   "namespace",       "generateName",
                                        "labels", "annotations",     "creationTimestamp",
                                        "uid",    "resourceVersion", NULL};

#define MAX_KEYS 10

typedef struct span {
    size_t start, end; /* [start, end) of the value; end == 0: absent */
} span;

typedef struct level {
    const char *const *keys;
    span at[MAX_KEYS];
} level;

typedef struct fast {
    level lv[W_COUNT];
    int unusual; /* a key with escapes where names matter: leave it to the full decode */
} fast;

static int key_index(const char *const *keys, const char *key, size_t len)
{
    for (int i = 0; keys[i]; i++)
        if (strlen(keys[i]) == len && memcmp(keys[i], key, len) == 0)
            return i;
    return -1;
}

/* The context a member's value opens, and a fresh start for it: json-c keeps the last of two
 * equal keys, whole, so a repeated container must not inherit what the first one held. */
static int enter(void *ud, int ctx, const char *key, size_t len)
{
    fast *f = ud;
    int child = W_ANY;
    if (ctx == W_ANY)
        return W_ANY;
    if (memchr(key, '\\', len))
        f->unusual = 1;
    if (ctx == W_ROOT && key_index(root_keys, key, len) == 2)
        child = W_REQUEST;
    else if (ctx == W_REQUEST && key_index(request_keys, key, len) == 6)
        child = W_OBJECT;
    else if (ctx == W_REQUEST && key_index(request_keys, key, len) == 7)
        child = W_OLD;
    else if ((ctx == W_OBJECT || ctx == W_OLD) && key_index(object_keys, key, len) == 2)
        child = ctx == W_OBJECT ? W_META : W_OLDMETA;
    if (child == W_REQUEST) {
        for (int w = W_REQUEST; w < W_COUNT; w++)
            memset(f->lv[w].at, 0, sizeof(f->lv[w].at));
    } else if (child == W_OBJECT || child == W_OLD) {
        memset(f->lv[child].at, 0, sizeof(f->lv[child].at));
        memset(f->lv[child == W_OBJECT ? W_META : W_OLDMETA].at, 0, sizeof(f->lv[W_META].at));
    } else if (child != W_ANY) {
        memset(f->lv[child].at, 0, sizeof(f->lv[child].at));
    }
    return child;
}

static int member(void *ud, int ctx, const char *key, size_t len, size_t vstart, size_t vend)
{
    fast *f = ud;
    if (ctx == W_ANY)
        return 0;
    int i = key_index(f->lv[ctx].keys, key, len);
    if (i >= 0) {
        f->lv[ctx].at[i].start = vstart;
        f->lv[ctx].at[i].end = vend;
    }
    return 0;
}

/* json-c's value for body[s.start, s.end). The byte after the span (a delimiter: the walk saw the
 * value end there) is passed too, so that json-c knows a number is complete. */
static json_object *parse_span(struct json_tokener *tok, const char *body, size_t len, span s)
{
    json_tokener_reset(tok);
    size_t n = s.end - s.start + (s.end < len ? 1 : 0);
    json_object *o = json_tokener_parse_ex(tok, body + s.start, (int)n);
    if (json_tokener_get_error(tok) != json_tokener_success ||
        json_tokener_get_parse_end(tok) != s.end - s.start) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static json_object *build(struct json_tokener *tok, const fast *f, const char *body, size_t len,
                          int ctx);

/* The member of context ctx at index i into dst: built from its kept members when it opens a
 * context of its own and is an object, parsed whole otherwise. */
static int add_member(struct json_tokener *tok, const fast *f, const char *body, size_t len,
                      int ctx, int i, json_object *dst)
{
    span s = f->lv[ctx].at[i];
    if (s.end == 0)
        return 1;
    int child = W_ANY;
    if (ctx == W_ROOT && i == 2)
        child = W_REQUEST;
    else if (ctx == W_REQUEST && i == 6)
        child = W_OBJECT;
    else if (ctx == W_REQUEST && i == 7)
        child = W_OLD;
    else if ((ctx == W_OBJECT || ctx == W_OLD) && i == 2)
        child = ctx == W_OBJECT ? W_META : W_OLDMETA;
    json_object *v = child != W_ANY && body[s.start] == '{' ? build(tok, f, body, len, child)
                                                            : parse_span(tok, body, len, s);
    if (!v && !(s.end - s.start == 4 && memcmp(body + s.start, "null", 4) == 0))
        return 0;
    return json_object_object_add(dst, f->lv[ctx].keys[i], v) == 0;
}

static json_object *build(struct json_tokener *tok, const fast *f, const char *body, size_t len,
                          int ctx)
{
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    for (int i = 0; f->lv[ctx].keys[i]; i++) {
        if (!add_member(tok, f, body, len, ctx, i, o)) {
            json_object_put(o);
            return NULL;
        }
    }
    return o;
}

int cw_review_decode_fast(const char *body, size_t len, cw_review_request *req, int *handled,
                          cw_error *err)
{
    static const cw_json_walk_ops ops = {.enter = enter, .member = member};
    static const char *const *const keys[W_COUNT] = {
        NULL, root_keys, request_keys, object_keys, object_keys, meta_keys, meta_keys};
    fast f;
    json_object *root = NULL;
    struct json_tokener *tok = NULL;
    *handled = 0;
    cw_review_request_init(req);
    /* The full decode owns every message about the text itself. Nesting stays two levels inside
     * json-c's limit, so that nothing json-c would refuse for depth is walked over. */
    if (len == 0 || len > CW_REVIEW_MAX_STRING || memchr(body, '\0', len) ||
        cw_utf8_invalid_at(body, len) < len)
        return CW_OK;
    memset(&f, 0, sizeof(f));
    for (int w = 0; w < W_COUNT; w++)
        f.lv[w].keys = keys[w];
    if (cw_json_walk(body, len, CW_REVIEW_MAX_DEPTH - 2, &ops, &f, W_ROOT, NULL) != CW_OK ||
        f.unusual)
        return CW_OK;
    size_t first = 0;
    while (strchr(" \t\r\n", body[first]))
        first++;
    if (body[first] != '{')
        return CW_OK;
    if (!(tok = json_tokener_new_ex(CW_REVIEW_MAX_DEPTH)))
        return cw_error_oom(err);
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
    root = build(tok, &f, body, len, W_ROOT);
    json_tokener_free(tok);
    if (!root)
        return CW_OK; /* json-c refused a part the walk accepted: the full decode says why */
    *handled = 1;
    return cw_review_decode_root(root, req, err);
}
