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
#include <stdlib.h>
#include <string.h>

#include "longhorn/volume.h"
#include "lib/jsonwalk.h"
#include "lib/utf8.h"

/* Where a member is: the walk's contexts. */
enum where {
    W_ANY,
    W_ROOT,
    W_REQUEST,
    W_KIND,
    W_OBJECT,
    W_OLD,
    W_META,
    W_OLDMETA,
    W_SPEC,
    W_OLDSPEC,
    W_COUNT
};

/* The members kept per context; every other member is walked over. Of the object, the members
 * defaults/ reads (apiVersion, metadata, spec; kind for good measure), of its metadata those a
 * rule reads (name, labels, creationTimestamp): annotations (kubectl's last-applied copy of the
 * object), managedFields and status are never built. A rule that reads another member adds it
 * here: tests/fuzz/fuzz_admission's comparison with the full decode fails until it does. */
static const char *const root_keys[] = {"apiVersion", "kind", "request", NULL};
static const char *const request_keys[] = {"uid",    "kind",      "subResource", "namespace",
                                           "name",   "operation", "object",      "oldObject",
                                           "dryRun", NULL};
static const char *const kind_keys[] = {"group", "version", "kind", NULL};
static const char *const object_keys[] = {"apiVersion", "kind", "metadata", "spec", NULL};
static const char *const meta_keys[] = {"name", "labels", "creationTimestamp", NULL};
/* Of a Volume's spec (31 members in Longhorn 1.5) only what its rules read; other kinds' specs
 * are copied whole. */
#define spec_keys cw_volume_spec_members

/* Which kept member opens a context of its own (when it is an object). */
static const struct {
    int parent;
    const char *key;
    int child;
} opens[] = {
    {W_ROOT, "request", W_REQUEST},  {W_REQUEST, "kind", W_KIND},
    {W_REQUEST, "object", W_OBJECT}, {W_REQUEST, "oldObject", W_OLD},
    {W_OBJECT, "metadata", W_META},  {W_OLD, "metadata", W_OLDMETA},
    {W_OBJECT, "spec", W_SPEC},      {W_OLD, "spec", W_OLDSPEC},
};

#define MAX_KEYS 10

typedef struct span {
    size_t start, end; /* [start, end) of the value; end == 0: absent */
} span;

typedef struct fast {
    const char *const *keys[W_COUNT];
    span at[W_COUNT][MAX_KEYS];
    int unusual; /* a key with escapes where names matter: leave it to the full decode */
} fast;

static int key_index(const char *const *keys, const char *key, size_t len)
{
    for (int i = 0; keys[i]; i++)
        if (strlen(keys[i]) == len && memcmp(keys[i], key, len) == 0)
            return i;
    return -1;
}

static int child_of(int ctx, const char *key, size_t len)
{
    for (size_t i = 0; i < sizeof(opens) / sizeof(opens[0]); i++)
        if (opens[i].parent == ctx && strlen(opens[i].key) == len &&
            memcmp(opens[i].key, key, len) == 0)
            return opens[i].child;
    return W_ANY;
}

/* Forgets what ctx and the contexts below it held: json-c keeps the last of two equal keys,
 * whole, so a repeated container must not inherit what the first one held. */
static void clear(fast *f, int ctx)
{
    memset(f->at[ctx], 0, sizeof(f->at[ctx]));
    for (size_t i = 0; i < sizeof(opens) / sizeof(opens[0]); i++)
        if (opens[i].parent == ctx)
            clear(f, opens[i].child);
}

static int enter(void *ud, int ctx, const char *key, size_t len)
{
    fast *f = ud;
    if (ctx == W_ANY)
        return W_ANY;
    if (memchr(key, '\\', len))
        f->unusual = 1;
    int child = child_of(ctx, key, len);
    if (child != W_ANY)
        clear(f, child);
    return child;
}

static int member(void *ud, int ctx, const char *key, size_t len, size_t vstart, size_t vend)
{
    fast *f = ud;
    if (ctx == W_ANY)
        return 0;
    int i = key_index(f->keys[ctx], key, len);
    if (i >= 0)
        f->at[ctx][i] = (span){vstart, vend};
    return 0;
}

/* Where the skeleton text goes: a fixed area (on the stack for the usual review: a heap buffer
 * of a page or more would cost glibc a consolidation of its free lists on every request). */
typedef struct text {
    char *p;
    size_t n, cap;
} text;

static int put(text *t, const char *s, size_t n)
{
    if (n > t->cap - t->n)
        return CW_ELIMIT;
    memcpy(t->p + t->n, s, n);
    t->n += n;
    return CW_OK;
}

/* The skeleton of context ctx as JSON text: its kept members, each written as its own skeleton
 * when it opens a context and is an object, copied as it is otherwise. The keys are plain (keys
 * with escapes went to the full decode) and there is one of each (the last), as json-c keeps.
 * It is never longer than the body it comes from. */
static int write_skeleton(text *out, const fast *f, const char *body, int volume, int ctx)
{
    int rc = put(out, "{", 1);
    for (int i = 0, first = 1; rc == CW_OK && f->keys[ctx][i]; i++) {
        span s = f->at[ctx][i];
        if (s.end == 0)
            continue;
        const char *key = f->keys[ctx][i];
        size_t klen = strlen(key);
        int child = child_of(ctx, key, klen);
        if ((rc = put(out, first ? "\"" : ",\"", first ? 1 : 2)) != CW_OK ||
            (rc = put(out, key, klen)) != CW_OK || (rc = put(out, "\":", 2)) != CW_OK)
            break;
        first = 0;
        int thin = child != W_ANY && body[s.start] == '{' &&
                   ((child != W_SPEC && child != W_OLDSPEC) || volume);
        rc = thin ? write_skeleton(out, f, body, volume, child)
                  : put(out, body + s.start, s.end - s.start);
    }
    return rc == CW_OK ? put(out, "}", 1) : rc;
}

/* 1 when request.kind names a Longhorn Volume, written plainly (anything else: 0, and its spec
 * is copied whole, which is always right). */
static int is_volume(const fast *f, const char *body)
{
    span g = f->at[W_KIND][0], k = f->at[W_KIND][2];
    return g.end - g.start == 13 && memcmp(body + g.start, "\"longhorn.io\"", 13) == 0 &&
           k.end - k.start == 8 && memcmp(body + k.start, "\"Volume\"", 8) == 0;
}

/* json-c's object for the skeleton text, NULL when json-c refuses it. One parse for the whole
 * skeleton: json-c switches the thread's locale on every call of its parser, which costs more
 * than parsing a short value. */
static json_object *parse_skeleton(const text *t)
{
    struct json_tokener *tok = json_tokener_new_ex(CW_REVIEW_MAX_DEPTH);
    if (!tok)
        return NULL;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *o = json_tokener_parse_ex(tok, t->p, (int)t->n);
    if (json_tokener_get_error(tok) != json_tokener_success ||
        json_tokener_get_parse_end(tok) != t->n || !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    return o;
}

int cw_review_decode_fast(const char *body, size_t len, cw_review_request *req, int *handled,
                          cw_error *err)
{
    static const cw_json_walk_ops ops = {.enter = enter, .member = member};
    static const char *const *const keys[W_COUNT] = {
        NULL,        root_keys, request_keys, kind_keys, object_keys,
        object_keys, meta_keys, meta_keys,    spec_keys, spec_keys};
    fast f;
    *handled = 0;
    cw_review_request_init(req);
    /* The full decode owns every message about the text itself. Nesting stays two levels inside
     * json-c's limit, so that nothing json-c would refuse for depth is walked over. */
    if (len == 0 || len > CW_REVIEW_MAX_STRING || memchr(body, '\0', len) ||
        cw_utf8_invalid_at(body, len) < len)
        return CW_OK;
    memset(&f, 0, sizeof(f));
    memcpy(f.keys, keys, sizeof(keys));
    if (cw_json_walk(body, len, CW_REVIEW_MAX_DEPTH - 2, &ops, &f, W_ROOT, NULL) != CW_OK ||
        f.unusual)
        return CW_OK;
    size_t first = 0;
    while (strchr(" \t\r\n", body[first]))
        first++;
    if (body[first] != '{')
        return CW_OK;
    char stack[4096];
    text t = {.p = stack, .cap = sizeof(stack)};
    if (len > t.cap && !(t.p = malloc(t.cap = len)))
        return cw_error_oom(err);
    json_object *root = NULL;
    if (write_skeleton(&t, &f, body, is_volume(&f, body), W_ROOT) == CW_OK)
        root = parse_skeleton(&t);
    if (t.p != stack)
        free(t.p);
    if (!root)
        return CW_OK; /* json-c refused a part the walk accepted: the full decode says why */
    *handled = 1;
    return cw_review_decode_root(root, req, err);
}
