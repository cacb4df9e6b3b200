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

#include "lib/utf8.h"

#define MAX_SPANS 8

enum where { ANY, ROOT, REQUEST, OBJECT, METADATA };

typedef struct scan {
    const char *s;
    size_t len, pos;
    int depth;
    size_t spans[MAX_SPANS][2];
    size_t nspans;
} scan;

static int value(scan *c, enum where w);

static void ws(scan *c)
{
    while (c->pos < c->len && (c->s[c->pos] == ' ' || c->s[c->pos] == '\t' ||
                               c->s[c->pos] == '\n' || c->s[c->pos] == '\r'))
        c->pos++;
}

static int is_hex(char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* A string at c->pos (the opening quote); its raw content span goes to start/end. Bytes >= 0x80
 * are left to the parser's UTF-8 check, except in what is blanked (cw_utf8_invalid_at). */
static int string(scan *c, size_t *start, size_t *end)
{
    const unsigned char *s = (const unsigned char *)c->s;
    const size_t len = c->len;
    size_t i = ++c->pos;
    *start = i;
    for (;;) {
        /* Plain bytes are the bulk: skip them in a tight loop. */
        while (i < len && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\')
            i++;
        c->pos = i;
        if (i >= c->len)
            return 0;
        unsigned char ch = s[i];
        if (ch == '"') {
            *end = c->pos++;
            return 1;
        }
        if (ch < 0x20)
            return 0;
        if (ch == '\\') {
            if (c->pos + 1 >= c->len)
                return 0;
            char e = c->s[c->pos + 1];
            if (e == 'u') {
                if (c->pos + 5 >= c->len || !is_hex(c->s[c->pos + 2]) ||
                    !is_hex(c->s[c->pos + 3]) || !is_hex(c->s[c->pos + 4]) ||
                    !is_hex(c->s[c->pos + 5]))
                    return 0;
                i += 6;
                continue;
            }
            if (e == '\0' || !strchr("\"\\/bfnrt", e))
                return 0;
            i += 2;
            continue;
        }
    }
}

static int digits(scan *c)
{
    size_t from = c->pos;
    while (c->pos < c->len && c->s[c->pos] >= '0' && c->s[c->pos] <= '9')
        c->pos++;
    return c->pos > from;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number(scan *c)
{
    if (c->s[c->pos] == '-')
        c->pos++;
    if (c->pos < c->len && c->s[c->pos] == '0')
        c->pos++;
    else if (!digits(c))
        return 0;
    if (c->pos < c->len && c->s[c->pos] == '.') {
        c->pos++;
        if (!digits(c))
            return 0;
    }
    if (c->pos < c->len && (c->s[c->pos] == 'e' || c->s[c->pos] == 'E')) {
        c->pos++;
        if (c->pos < c->len && (c->s[c->pos] == '+' || c->s[c->pos] == '-'))
            c->pos++;
        if (!digits(c))
            return 0;
    }
    return 1;
}

static int literal(scan *c, const char *word)
{
    size_t n = strlen(word);
    if (c->len - c->pos < n || memcmp(c->s + c->pos, word, n) != 0)
        return 0;
    c->pos += n;
    return 1;
}

static int key_is(const scan *c, size_t start, size_t end, const char *key)
{
    return end - start == strlen(key) && memcmp(c->s + start, key, end - start) == 0;
}

/* Where a member leads, seen from the object it is in. */
static enum where child(const scan *c, enum where w, size_t ks, size_t ke)
{
    if (w == ROOT && key_is(c, ks, ke, "request"))
        return REQUEST;
    if (w == REQUEST && (key_is(c, ks, ke, "object") || key_is(c, ks, ke, "oldObject")))
        return OBJECT;
    if (w == OBJECT && key_is(c, ks, ke, "metadata"))
        return METADATA;
    return ANY;
}

static int object(scan *c, enum where w)
{
    size_t ks, ke;
    c->pos++;
    ws(c);
    if (c->pos < c->len && c->s[c->pos] == '}') {
        c->pos++;
        return 1;
    }
    for (;;) {
        ws(c);
        if (c->pos >= c->len || c->s[c->pos] != '"' || !string(c, &ks, &ke))
            return 0;
        ws(c);
        if (c->pos >= c->len || c->s[c->pos] != ':')
            return 0;
        c->pos++;
        ws(c);
        size_t vs = c->pos;
        if (!value(c, child(c, w, ks, ke)))
            return 0;
        if (w == METADATA && key_is(c, ks, ke, "managedFields") && c->nspans < MAX_SPANS) {
            c->spans[c->nspans][0] = vs;
            c->spans[c->nspans][1] = c->pos;
            c->nspans++;
        }
        ws(c);
        if (c->pos < c->len && c->s[c->pos] == ',') {
            c->pos++;
            continue;
        }
        if (c->pos < c->len && c->s[c->pos] == '}') {
            c->pos++;
            return 1;
        }
        return 0;
    }
}

static int array(scan *c)
{
    c->pos++;
    ws(c);
    if (c->pos < c->len && c->s[c->pos] == ']') {
        c->pos++;
        return 1;
    }
    for (;;) {
        ws(c);
        if (!value(c, ANY))
            return 0;
        ws(c);
        if (c->pos < c->len && c->s[c->pos] == ',') {
            c->pos++;
            continue;
        }
        if (c->pos < c->len && c->s[c->pos] == ']') {
            c->pos++;
            return 1;
        }
        return 0;
    }
}

static int value(scan *c, enum where w)
{
    size_t a, b;
    int ok;
    ws(c);
    if (c->pos >= c->len)
        return 0;
    char ch = c->s[c->pos];
    if (ch == '{' || ch == '[') {
        if (++c->depth > CW_REVIEW_MAX_DEPTH)
            return 0;
        ok = ch == '{' ? object(c, w) : array(c);
        c->depth--;
        return ok;
    }
    if (ch == '"')
        return string(c, &a, &b);
    if (ch == 't')
        return literal(c, "true");
    if (ch == 'f')
        return literal(c, "false");
    if (ch == 'n')
        return literal(c, "null");
    if (ch == '-' || (ch >= '0' && ch <= '9'))
        return number(c);
    return 0;
}

size_t cw_review_prune(char *body, size_t len)
{
    scan c = {.s = body, .len = len};
    size_t blanked = 0;
    if (!memmem(body, len, "\"managedFields\"", 15))
        return 0; /* the common case of clients that do not track fields: no scan at all */
    if (!value(&c, ROOT))
        return 0;
    ws(&c);
    if (c.pos != len)
        return 0;
    for (size_t i = 0; i < c.nspans; i++) {
        /* cw_review_decode checks UTF-8 in what is kept; what would be blanked is checked here */
        size_t span = c.spans[i][1] - c.spans[i][0];
        if (cw_utf8_invalid_at(body + c.spans[i][0], span) < span)
            return 0;
    }
    for (size_t i = 0; i < c.nspans; i++) {
        size_t start = c.spans[i][0], end = c.spans[i][1];
        if (end - start < 2)
            continue; /* a number or the like: nothing worth blanking */
        body[start] = '[';
        body[start + 1] = ']';
        memset(body + start + 2, ' ', end - start - 2);
        blanked += end - start - 2;
    }
    return blanked;
}
