#include "lib/jsonwalk.h"

#include <string.h>

typedef struct walk {
    const char *s;
    size_t len, pos, depth, max_depth;
    const cw_json_walk_ops *ops;
    void *ud;
    int stop; /* a callback's result */
} walk;

static int value(walk *w, int ctx);

static void ws(walk *w)
{
    while (w->pos < w->len && (w->s[w->pos] == ' ' || w->s[w->pos] == '\t' ||
                               w->s[w->pos] == '\n' || w->s[w->pos] == '\r'))
        w->pos++;
}

static int is_hex(char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* Bytes that end a run of plain string content: the quote, the backslash, control characters. */
static const unsigned char stops[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1,
    [0x07] = 1, [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1,
    [0x0e] = 1, [0x0f] = 1, [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1,
    [0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1,
    [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, ['"'] = 1,  ['\\'] = 1,
};

/* A string at w->pos (its opening quote); [*start, *end) is the text between the quotes. */
static int string(walk *w, size_t *start, size_t *end)
{
    const unsigned char *s = (const unsigned char *)w->s;
    size_t i = ++w->pos;
    *start = i;
    for (;;) {
        while (i < w->len && !stops[s[i]]) /* the bulk: one table lookup a byte */
            i++;
        w->pos = i;
        if (i >= w->len || s[i] < 0x20)
            return 0;
        if (s[i] == '"') {
            *end = w->pos++;
            return 1;
        }
        if (i + 1 >= w->len) /* a backslash */
            return 0;
        char e = w->s[i + 1];
        if (e == 'u') {
            if (i + 5 >= w->len || !is_hex(w->s[i + 2]) || !is_hex(w->s[i + 3]) ||
                !is_hex(w->s[i + 4]) || !is_hex(w->s[i + 5]))
                return 0;
            i += 6;
        } else if (e != '\0' && strchr("\"\\/bfnrt", e)) {
            i += 2;
        } else {
            return 0;
        }
    }
}

static int digits(walk *w)
{
    size_t from = w->pos;
    while (w->pos < w->len && w->s[w->pos] >= '0' && w->s[w->pos] <= '9')
        w->pos++;
    return w->pos > from;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number(walk *w)
{
    if (w->s[w->pos] == '-')
        w->pos++;
    if (w->pos < w->len && w->s[w->pos] == '0')
        w->pos++;
    else if (!digits(w))
        return 0;
    if (w->pos < w->len && w->s[w->pos] == '.') {
        w->pos++;
        if (!digits(w))
            return 0;
    }
    if (w->pos < w->len && (w->s[w->pos] == 'e' || w->s[w->pos] == 'E')) {
        w->pos++;
        if (w->pos < w->len && (w->s[w->pos] == '+' || w->s[w->pos] == '-'))
            w->pos++;
        if (!digits(w))
            return 0;
    }
    return 1;
}

static int literal(walk *w, const char *word)
{
    size_t n = strlen(word);
    if (w->len - w->pos < n || memcmp(w->s + w->pos, word, n) != 0)
        return 0;
    w->pos += n;
    return 1;
}

/* Runs a callback; a non-zero result stops the walk. */
#define CALL(w, fn, ...) ((w)->ops && (w)->ops->fn && ((w)->stop = (w)->ops->fn(__VA_ARGS__)) != 0)

static int member(walk *w, int ctx)
{
    size_t ks, ke;
    if (w->pos >= w->len || w->s[w->pos] != '"' || !string(w, &ks, &ke))
        return 0;
    ws(w);
    if (w->pos >= w->len || w->s[w->pos] != ':')
        return 0;
    w->pos++;
    ws(w);
    int child = w->ops && w->ops->enter ? w->ops->enter(w->ud, ctx, w->s + ks, ke - ks) : ctx;
    size_t vs = w->pos;
    if (!value(w, child))
        return 0;
    return !CALL(w, member, w->ud, ctx, w->s + ks, ke - ks, vs, w->pos);
}

static int object(walk *w, int ctx)
{
    w->pos++;
    if (CALL(w, object_begin, w->ud, ctx))
        return 0;
    ws(w);
    if (w->pos < w->len && w->s[w->pos] == '}') {
        w->pos++;
        return !CALL(w, object_end, w->ud, ctx);
    }
    for (;;) {
        ws(w);
        if (!member(w, ctx))
            return 0;
        ws(w);
        if (w->pos < w->len && w->s[w->pos] == ',') {
            w->pos++;
            continue;
        }
        if (w->pos < w->len && w->s[w->pos] == '}') {
            w->pos++;
            return !CALL(w, object_end, w->ud, ctx);
        }
        return 0;
    }
}

static int array(walk *w, int ctx)
{
    w->pos++;
    ws(w);
    if (w->pos < w->len && w->s[w->pos] == ']') {
        w->pos++;
        return 1;
    }
    for (;;) {
        ws(w);
        if (!value(w, ctx))
            return 0;
        ws(w);
        if (w->pos < w->len && w->s[w->pos] == ',') {
            w->pos++;
            continue;
        }
        if (w->pos < w->len && w->s[w->pos] == ']') {
            w->pos++;
            return 1;
        }
        return 0;
    }
}

static int value(walk *w, int ctx)
{
    size_t a, b;
    ws(w);
    if (w->pos >= w->len)
        return 0;
    char ch = w->s[w->pos];
    if (ch == '{' || ch == '[') {
        if (++w->depth > w->max_depth)
            return 0;
        int ok = ch == '{' ? object(w, ctx) : array(w, ctx);
        w->depth--;
        return ok;
    }
    if (ch == '"')
        return string(w, &a, &b);
    if (ch == 't')
        return literal(w, "true");
    if (ch == 'f')
        return literal(w, "false");
    if (ch == 'n')
        return literal(w, "null");
    if (ch == '-' || (ch >= '0' && ch <= '9'))
        return number(w);
    return 0;
}

int cw_json_walk(const char *text, size_t len, size_t max_depth, const cw_json_walk_ops *ops,
                 void *ud, int root_ctx, size_t *bad)
{
    walk w = {.s = text, .len = len, .max_depth = max_depth, .ops = ops, .ud = ud};
    int ok = value(&w, root_ctx);
    if (ok) {
        ws(&w);
        ok = w.pos == len;
    }
    if (ok)
        return CW_OK;
    if (bad)
        *bad = w.pos;
    return w.stop ? w.stop : CW_EINVAL;
}
