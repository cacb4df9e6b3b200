/* Blanks metadata.managedFields of request.object and request.oldObject in a raw AdmissionReview
 * before it is parsed. managedFields is the apiserver's field-ownership bookkeeping: no admission
 * rule reads it, yet it is often the largest part of an object and, as hundreds of tiny JSON
 * objects, the most expensive part to build with json-c. The value is overwritten in place by
 * "[]" and spaces, so every byte offset (and every parse error message) stays the same.
 *
 * The whole text is checked against the JSON grammar first; when anything is off nothing is
 * touched and the parser reports the error as usual, so pruning never lets bad input through. */
#include "webhook/review.h"

#include <string.h>

#include "lib/jsonwalk.h"
#include "lib/utf8.h"

#define MAX_SPANS 8

/* Where a member leads (the walk's contexts). */
enum where { ANY, ROOT, REQUEST, OBJECT, METADATA };

typedef struct spans {
    size_t at[MAX_SPANS][2];
    size_t n;
} spans;

static int key_is(const char *key, size_t len, const char *want)
{
    return len == strlen(want) && memcmp(key, want, len) == 0;
}

static int enter(void *ud, int w, const char *key, size_t len)
{
    (void)ud;
    if (w == ROOT && key_is(key, len, "request"))
        return REQUEST;
    if (w == REQUEST && (key_is(key, len, "object") || key_is(key, len, "oldObject")))
        return OBJECT;
    if (w == OBJECT && key_is(key, len, "metadata"))
        return METADATA;
    return ANY;
}

static int member(void *ud, int w, const char *key, size_t len, size_t vstart, size_t vend)
{
    spans *sp = ud;
    if (w == METADATA && key_is(key, len, "managedFields") && sp->n < MAX_SPANS) {
        sp->at[sp->n][0] = vstart;
        sp->at[sp->n][1] = vend;
        sp->n++;
    }
    return 0;
}

size_t cw_review_prune(char *body, size_t len)
{
    static const cw_json_walk_ops ops = {.enter = enter, .member = member};
    spans sp = {.n = 0};
    size_t blanked = 0;
    if (!memmem(body, len, "\"managedFields\"", 15))
        return 0; /* the common case of clients that do not track fields: no scan at all */
    if (cw_json_walk(body, len, CW_REVIEW_MAX_DEPTH, &ops, &sp, ROOT, NULL) != CW_OK)
        return 0;
    for (size_t i = 0; i < sp.n; i++) {
        /* cw_review_decode checks UTF-8 in what is kept; what would be blanked is checked here */
        size_t span = sp.at[i][1] - sp.at[i][0];
        if (cw_utf8_invalid_at(body + sp.at[i][0], span) < span)
            return 0;
    }
    for (size_t i = 0; i < sp.n; i++) {
        size_t start = sp.at[i][0], end = sp.at[i][1];
        if (end - start < 2)
            continue; /* a number or the like: nothing worth blanking */
        body[start] = '[';
        body[start + 1] = ']';
        memset(body + start + 2, ' ', end - start - 2);
        blanked += end - start - 2;
    }
    return blanked;
}
