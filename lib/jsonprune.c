#include "lib/jsonprune.h"

#include <stdio.h>
#include <string.h>

#include "lib/jsonwalk.h"

/* A walk context is the set of paths whose first `depth` segments the members on the way
 * matched: (depth << 8) | mask, 0 when none can match any more. */
#define CTX(depth, mask) (((depth) << 8) | (mask))
#define CTX_DEPTH(c)     ((c) >> 8)
#define CTX_MASK(c)      ((c)&0xff)

typedef struct prune {
    const char *seg[CW_JSON_PRUNE_MAX_PATHS][CW_JSON_PRUNE_MAX_SEGS];
    size_t seglen[CW_JSON_PRUNE_MAX_PATHS][CW_JSON_PRUNE_MAX_SEGS];
    int nseg[CW_JSON_PRUNE_MAX_PATHS];
    int npaths;
    const char *text;
    size_t copied; /* text[0, copied) is in out */
    cw_buf *out;
    size_t pruned;
    int as_text; /* each value as a string of its text (cw_json_prune_text), not null */
    size_t max;  /* as_text: longer values as their length instead */
} prune;

static int seg_is(const prune *p, int i, int d, const char *key, size_t keylen)
{
    return d < p->nseg[i] && p->seglen[i][d] == keylen && memcmp(p->seg[i][d], key, keylen) == 0;
}

static int split(prune *p, const char *const *paths)
{
    for (p->npaths = 0; paths && paths[p->npaths]; p->npaths++) {
        int i = p->npaths, n = 0;
        if (i == CW_JSON_PRUNE_MAX_PATHS)
            return CW_EINVAL;
        for (const char *s = paths[i]; *s;) {
            const char *dot = strchr(s, '.');
            size_t l = dot ? (size_t)(dot - s) : strlen(s);
            if (n == CW_JSON_PRUNE_MAX_SEGS || l == 0)
                return CW_EINVAL;
            p->seg[i][n] = s;
            p->seglen[i][n++] = l;
            s += l + (dot ? 1 : 0);
        }
        if (n == 0)
            return CW_EINVAL;
        p->nseg[i] = n;
    }
    /* One path inside another would be pruned twice over: refused. */
    for (int i = 0; i < p->npaths; i++)
        for (int j = 0; j < p->npaths; j++) {
            int d = 0;
            while (i != j && d < p->nseg[i] && seg_is(p, j, d, p->seg[i][d], p->seglen[i][d]))
                d++;
            if (i != j && d == p->nseg[i])
                return CW_EINVAL;
        }
    return CW_OK;
}

/* The context of the value of member `key`: the paths it continues, one segment deeper. */
static int enter(void *ud, int ctx, const char *key, size_t keylen)
{
    const prune *p = ud;
    int d = CTX_DEPTH(ctx), mask = 0;
    for (int i = 0; i < p->npaths; i++)
        if ((CTX_MASK(ctx) & (1 << i)) && d + 1 < p->nseg[i] && seg_is(p, i, d, key, keylen))
            mask |= 1 << i;
    return mask ? CTX(d + 1, mask) : 0;
}

/* text[start, end) as a JSON string: '"' and '\\' escaped, bytes below 0x20 (whitespace between
 * tokens; in strings they are escaped already) as \u00XX. */
static int quoted(cw_buf *out, const char *text, size_t start, size_t end)
{
    size_t run = start;
    if (cw_buf_append(out, "\"", 1) != CW_OK)
        return CW_ENOMEM;
    for (size_t i = start; i < end; i++) {
        unsigned char c = (unsigned char)text[i];
        char esc[8];
        if (c != '"' && c != '\\' && c >= 0x20)
            continue;
        if (c == '"' || c == '\\')
            snprintf(esc, sizeof(esc), "\\%c", c);
        else
            snprintf(esc, sizeof(esc), "\\u%04x", c);
        if (cw_buf_append(out, text + run, i - run) != CW_OK ||
            cw_buf_append(out, esc, strlen(esc)) != CW_OK)
            return CW_ENOMEM;
        run = i + 1;
    }
    if (cw_buf_append(out, text + run, end - run) != CW_OK || cw_buf_append(out, "\"", 1) != CW_OK)
        return CW_ENOMEM;
    return CW_OK;
}

/* A member ending a path: the text up to its value, then null (or the value as text, or its
 * length) in its place. Values are reported in text order and a pruned one's members are never
 * pruned (its context is 0). */
static int member(void *ud, int ctx, const char *key, size_t keylen, size_t vstart, size_t vend)
{
    prune *p = ud;
    int d = CTX_DEPTH(ctx);
    for (int i = 0; i < p->npaths; i++) {
        if (!(CTX_MASK(ctx) & (1 << i)) || d + 1 != p->nseg[i] || !seg_is(p, i, d, key, keylen))
            continue;
        char len[24];
        snprintf(len, sizeof(len), "%zu", vend - vstart);
        if (cw_buf_append(p->out, p->text + p->copied, vstart - p->copied) != CW_OK)
            return CW_ENOMEM;
        int rc = !p->as_text              ? cw_buf_append(p->out, "null", 4)
                 : vend - vstart > p->max ? cw_buf_append(p->out, len, strlen(len))
                                          : quoted(p->out, p->text, vstart, vend);
        if (rc != CW_OK)
            return CW_ENOMEM;
        p->copied = vend;
        p->pruned++;
        break;
    }
    return 0;
}

static int run(prune *p, const char *text, size_t len, size_t max_depth, const char *const *paths,
               cw_buf *out, size_t *pruned)
{
    static const cw_json_walk_ops ops = {.enter = enter, .member = member};
    p->text = text;
    p->out = out;
    *pruned = 0;
    cw_buf_reset(out);
    if (split(p, paths) != CW_OK)
        return CW_EINVAL;
    size_t i = 0; /* paths start at a top-level object: an array at the top prunes nothing */
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    int root = p->npaths && i < len && text[i] == '{' ? CTX(0, (1 << p->npaths) - 1) : 0;
    int rc = cw_json_walk(text, len, max_depth, &ops, p, root, &(size_t){0});
    if (rc == CW_OK && cw_buf_append(out, text + p->copied, len - p->copied) != CW_OK)
        rc = CW_ENOMEM;
    if (rc == CW_OK)
        *pruned = p->pruned;
    else
        cw_buf_reset(out);
    return rc;
}

int cw_json_prune(const char *text, size_t len, size_t max_depth, const char *const *paths,
                  cw_buf *out, size_t *pruned)
{
    prune p = {0};
    return run(&p, text, len, max_depth, paths, out, pruned);
}

int cw_json_prune_text(const char *text, size_t len, size_t max_depth, const char *const *paths,
                       size_t max, cw_buf *out, size_t *pruned)
{
    prune p = {.as_text = 1, .max = max};
    return run(&p, text, len, max_depth, paths, out, pruned);
}
