#include "lib/jsonscan.h"
#include "lib/jsonprune.h"
#include "lib/jsonwalk.h"
#include "lib/strmap.h"
#include "lib/buf.h"
#include "lib/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cw_jsonscan_init(cw_jsonscan *s)
{
    memset(s, 0, sizeof(*s));
}

void cw_jsonscan_free(cw_jsonscan *s)
{
    json_object_put(s->envelope);
    free(s->spans);
    cw_buf_free(&s->pruned);
    if (s->tok)
        json_tokener_free(s->tok);
    cw_jsonscan_init(s);
}

void cw_text_position(const char *data, size_t off, size_t *line, size_t *col)
{
    size_t l = 1, last = 0;
    for (size_t i = 0; i < off; i++)
        if (data[i] == '\n') {
            l++;
            last = i + 1;
        }
    *line = l;
    *col = off - last + 1;
}

static int fail_at(const char *data, size_t off, cw_error *err, const char *what)
{
    size_t line, col;
    cw_text_position(data, off, &line, &col);
    return cw_error_set(err, CW_EINVAL, "line %zu, column %zu: %s", line, col, what);
}

static size_t skip_ws(const char *d, size_t i, size_t len)
{
    while (i < len && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r'))
        i++;
    return i;
}

#define NOPE ((size_t)-1)

/* Returns the offset just past the string starting at d[i] == '"', or NOPE when unterminated. */
static size_t skip_string(const char *d, size_t i, size_t len)
{
    for (i++; i < len; i++) {
        const char *q = memchr(d + i, '"', len - i);
        if (!q)
            return NOPE;
        size_t j = (size_t)(q - d);
        size_t bs = 0;
        while (j - bs > i - 1 && d[j - bs - 1] == '\\')
            bs++;
        if (bs % 2 == 0)
            return j + 1;
        i = j;
    }
    return NOPE;
}

/* Bytes that matter while skipping a container: quotes and brackets. */
static const unsigned char special[256] = {['"'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1};

/* Returns the offset just past the value starting at d[i], or NOPE when it is unterminated. */
static size_t skip_value(const char *d, size_t i, size_t len)
{
    if (i >= len)
        return NOPE;
    if (d[i] == '"')
        return skip_string(d, i, len);
    if (d[i] != '{' && d[i] != '[') {
        while (i < len && !strchr(",}] \t\r\n", d[i]))
            i++;
        return i;
    }
    size_t depth = 0;
    while (i < len) {
        while (i < len && !special[(unsigned char)d[i]])
            i++;
        if (i >= len)
            break;
        char c = d[i];
        if (c == '"') {
            i = skip_string(d, i, len);
            if (i == NOPE)
                return NOPE;
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if (--depth == 0)
            return i + 1;
        i++;
    }
    return NOPE;
}

/* A strict tokener for parse_span. */
static json_tokener *tokener_new(void)
{
    json_tokener *tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
    if (tok)
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    return tok;
}

/* Parses data[start, end) with `reuse` (reset first) or, when NULL, a tokener of its own; on a
 * syntax error sets *bad to the offending offset and *why. */
static int parse_span_with(json_tokener *reuse, const char *data, size_t start, size_t end,
                           json_object **out, size_t *bad, const char **why)
{
    json_tokener *tok = reuse ? reuse : tokener_new();
    if (!tok)
        return CW_ENOMEM;
    json_tokener_reset(tok);
    int rc = CW_OK;
    json_object *obj = NULL;
    size_t off = start;
    /* json_tokener takes an int length: feed big spans in chunks. */
    while (off < end) {
        size_t n = end - off > (1u << 30) ? (1u << 30) : end - off;
        obj = json_tokener_parse_ex(tok, data + off, (int)n);
        enum json_tokener_error jerr = json_tokener_get_error(tok);
        if (jerr == json_tokener_continue) {
            off += n;
            continue;
        }
        if (jerr != json_tokener_success) {
            *bad = off + json_tokener_get_parse_end(tok);
            *why = json_tokener_error_desc(jerr);
            rc = CW_EINVAL;
            goto done;
        }
        off += json_tokener_get_parse_end(tok);
        break;
    }
    if (!obj && off >= end) {
        /* Let the tokener finish a value that needs end-of-input (a bare number). */
        obj = json_tokener_parse_ex(tok, "", 1);
        if (json_tokener_get_error(tok) != json_tokener_success) {
            *bad = end;
            *why = "unexpected end of JSON input";
            rc = CW_EINVAL;
            goto done;
        }
    }
    size_t rest = skip_ws(data, off, end);
    if (rest < end) {
        *bad = rest;
        *why = "unexpected text after the JSON value";
        rc = CW_EINVAL;
        goto done;
    }
    *out = obj;
    obj = NULL;
done:
    json_object_put(obj);
    if (!reuse)
        json_tokener_free(tok);
    return rc;
}

static int parse_span(const char *data, size_t start, size_t end, json_object **out, size_t *bad,
                      const char **why)
{
    return parse_span_with(NULL, data, start, end, out, bad, why);
}

/* ---- duplicate keys ---- */

/* The keys of one open object. Most objects have a handful of keys, so they are kept as spans
 * of the text and compared in place; an object with more than DUP_INLINE keys moves its keys into
 * a map. (A map per object cost a third of `migrate --from-file` in allocations.) */
#define DUP_INLINE 32

typedef struct dup_key {
    const char *raw; /* between the quotes, escapes not decoded */
    size_t len;
    int escaped;
} dup_key;

typedef struct dup_level {
    dup_key keys[DUP_INLINE];
    size_t n;
    cw_strmap *many; /* decoded keys once n passed DUP_INLINE, else NULL */
} dup_level;

/* One level per open object (the walk's nesting is bounded by json-c's depth). */
typedef struct dup_ctx {
    dup_level levels[JSON_TOKENER_DEFAULT_DEPTH + 1];
    size_t depth;
    const char *text;
    size_t bad;
    char *key; /* the duplicate, decoded */
} dup_ctx;

static void level_close(dup_level *l)
{
    if (l->many) {
        cw_strmap_free(l->many, NULL);
        free(l->many);
        l->many = NULL;
    }
    l->n = 0;
}

static int dup_begin(void *ud, int ctx)
{
    (void)ctx;
    dup_ctx *d = ud;
    dup_level *l = &d->levels[d->depth++];
    l->n = 0;
    l->many = NULL;
    return 0;
}

static int dup_end(void *ud, int ctx)
{
    (void)ctx;
    dup_ctx *d = ud;
    level_close(&d->levels[--d->depth]);
    return 0;
}

/* The key as json-c sees it: the raw text, or with escapes, the decoded string. */
static char *decode_key(const char *text, const char *key, size_t len)
{
    if (!memchr(key, '\\', len))
        return strndup(key, len);
    json_object *o = NULL;
    char *out = NULL;
    size_t start = (size_t)(key - text) - 1, bad;
    const char *why;
    if (parse_span(text, start, start + len + 2, &o, &bad, &why) == CW_OK)
        out = strdup(json_object_get_string(o));
    json_object_put(o);
    return out;
}

/* 1 when a and b name the same key for json-c, 0 when not, CW_ENOMEM. Without escapes the raw
 * text is the key; with one, both are decoded (json-c keeps a key up to a decoded NUL). */
static int same_key(const char *text, const dup_key *a, const dup_key *b)
{
    if (!a->escaped && !b->escaped)
        return a->len == b->len && memcmp(a->raw, b->raw, a->len) == 0;
    char *x = decode_key(text, a->raw, a->len), *y = decode_key(text, b->raw, b->len);
    int same = x && y ? strcmp(x, y) == 0 : CW_ENOMEM;
    free(x);
    free(y);
    return same;
}

/* Puts k into l's map (made, with the inline keys, on first use): 0 when it was already there. */
static int put_many(const char *text, dup_level *l, const dup_key *k)
{
    if (!l->many) {
        if (!(l->many = malloc(sizeof(*l->many))))
            return CW_ENOMEM;
        cw_strmap_init(l->many);
        for (size_t i = 0; i < l->n; i++) { /* distinct: each was checked when it came */
            int rc = put_many(text, l, &l->keys[i]);
            if (rc < 0)
                return rc;
        }
    }
    char *s = decode_key(text, k->raw, k->len);
    if (!s)
        return CW_ENOMEM;
    int put = cw_strmap_put(l->many, s, strlen(s), NULL, NULL);
    free(s);
    return put;
}

static int dup_member(void *ud, int ctx, const char *key, size_t len, size_t vs, size_t ve)
{
    (void)ctx;
    (void)vs;
    (void)ve;
    dup_ctx *d = ud;
    dup_level *l = &d->levels[d->depth - 1];
    dup_key k = {key, len, memchr(key, '\\', len) != NULL};
    int fresh = 1;
    if (l->n < DUP_INLINE && !l->many) {
        for (size_t i = 0; i < l->n && fresh == 1; i++) {
            int same = same_key(d->text, &l->keys[i], &k);
            fresh = same < 0 ? same : !same;
        }
        if (fresh == 1)
            l->keys[l->n++] = k;
    } else {
        fresh = put_many(d->text, l, &k);
    }
    if (fresh < 0)
        return fresh;
    if (fresh == 0) {
        d->bad = (size_t)(key - d->text) - 1; /* the key's opening quote */
        d->key = decode_key(d->text, key, len);
        return d->key ? CW_EINVAL : CW_ENOMEM;
    }
    return 0;
}

/* After a successful parse of data[start, end): CW_EINVAL naming the first duplicate key. */
static int check_duplicates(const char *data, size_t start, size_t end, cw_error *err)
{
    static const cw_json_walk_ops ops = {
        .object_begin = dup_begin, .member = dup_member, .object_end = dup_end};
    dup_ctx d; /* not zeroed: 26 KB a span; a level is set up when its object opens */
    d.depth = 0;
    d.text = data;
    d.bad = 0;
    d.key = NULL;
    int rc = cw_json_walk(data + start, end - start, JSON_TOKENER_DEFAULT_DEPTH, &ops, &d, 0,
                          &(size_t){0});
    while (d.depth) /* a stopped walk leaves its levels open */
        level_close(&d.levels[--d.depth]);
    if (rc == CW_ENOMEM)
        return cw_error_oom(err);
    if (rc == CW_EINVAL && d.key) {
        char what[300];
        snprintf(what, sizeof(what), "duplicate key \"%.200s\"", d.key);
        free(d.key);
        return fail_at(data, d.bad, err, what);
    }
    return CW_OK; /* json-c accepted the text; the walk has nothing else to add */
}

static int parse_checked(json_tokener *tok, const char *data, size_t start, size_t end,
                         json_object **out, cw_error *err)
{
    size_t bad = 0;
    const char *why = NULL;
    int rc = parse_span_with(tok, data, start, end, out, &bad, &why);
    if (rc == CW_ENOMEM)
        return cw_error_oom(err);
    if (rc != CW_OK)
        return fail_at(data, bad, err, why);
    if ((rc = check_duplicates(data, start, end, err)) != CW_OK) {
        json_object_put(*out);
        *out = NULL;
    }
    return rc;
}

int cw_json_parse_span(const char *data, size_t start, size_t end, json_object **out, cw_error *err)
{
    return parse_checked(NULL, data, start, end, out, err);
}

/* With s->drop: 1 when *out was parsed from the item without the dropped values (its keys checked
 * on the whole item first), *rc CW_OK or CW_ENOMEM; 0 when the whole item is to be parsed as
 * without s->drop — nothing to drop, or a fault, whose message that parse then gives. */
static int parse_pruned(cw_jsonscan *s, const char *data, size_t start, size_t end,
                        json_object **out, int *rc, cw_error *err)
{
    size_t n = 0, bad = 0;
    const char *why = NULL;
    cw_error scratch;
    int prc = cw_json_prune(data + start, end - start, JSON_TOKENER_DEFAULT_DEPTH, s->drop,
                            &s->pruned, &n);
    if (prc == CW_ENOMEM) {
        *rc = cw_error_oom(err);
        return 1;
    }
    cw_error_init(&scratch);
    if (prc != CW_OK || n == 0 || check_duplicates(data, start, end, &scratch) != CW_OK ||
        parse_span_with(s->tok, s->pruned.data, 0, s->pruned.len, out, &bad, &why) != CW_OK)
        return 0;
    *rc = CW_OK;
    return 1;
}

int cw_jsonscan_parse(cw_jsonscan *s, const char *data, size_t i, json_object **out, cw_error *err)
{
    int rc = CW_OK;
    if (!s->tok && !(s->tok = tokener_new()))
        return cw_error_oom(err);
    if (s->drop && parse_pruned(s, data, s->spans[i].start, s->spans[i].end, out, &rc, err))
        return rc;
    return parse_checked(s->tok, data, s->spans[i].start, s->spans[i].end, out, err);
}

static int add_span(cw_jsonscan *s, size_t start, size_t end)
{
    if (cw_grow((void **)&s->spans, &s->capspans, s->nspans, sizeof(*s->spans), 256) != CW_OK)
        return CW_ENOMEM;
    s->spans[s->nspans++] = (cw_jsonscan_span){start, end};
    return CW_OK;
}

/* From the '[' at i: records every element's span; returns the offset after the ']'. */
static int collect_items(cw_jsonscan *s, const char *data, size_t i, size_t len, size_t *after,
                         cw_error *err)
{
    size_t index = 0;
    i++;
    for (;;) {
        i = skip_ws(data, i, len);
        if (i >= len)
            return fail_at(data, len, err,
                           "unexpected end of JSON input (unterminated items array)");
        if (data[i] == ']') {
            *after = i + 1;
            return CW_OK;
        }
        if (index > 0) {
            if (data[i] != ',')
                return fail_at(data, i, err, "expected ',' or ']' after an item");
            i = skip_ws(data, i + 1, len);
            if (i >= len || data[i] == ']')
                return fail_at(data, i, err, "trailing ',' in the items array");
        } else if (data[i] == ',') {
            return fail_at(data, i, err, "unexpected ',' in the items array");
        }
        size_t vend = skip_value(data, i, len);
        if (vend == NOPE)
            return fail_at(data, len, err, "unexpected end of JSON input (unbalanced brackets)");
        if (add_span(s, i, vend) != CW_OK)
            return cw_error_oom(err);
        if (s->release)
            s->release(s->release_ud, vend);
        index++;
        i = vend;
    }
}

int cw_jsonscan_open(cw_jsonscan *s, const char *data, size_t len, cw_error *err)
{
    int rc = CW_OK;
    cw_buf env;
    cw_buf_init(&env);
    size_t i = skip_ws(data, 0, len);
    if (i < len && data[i] == '[') {
        s->items_start = i;
        if ((rc = collect_items(s, data, i, len, &s->items_end, err)) != CW_OK)
            return rc;
        if (skip_ws(data, s->items_end, len) < len)
            return fail_at(data, skip_ws(data, s->items_end, len), err,
                           "unexpected text after the JSON value");
        s->is_list = 1;
        return CW_OK;
    }
    if (i >= len || data[i] != '{')
        return CW_OK;
    /* Walk the top-level members looking for "items". */
    i++;
    for (;;) {
        i = skip_ws(data, i, len);
        if (i >= len)
            return fail_at(data, len, err, "unexpected end of JSON input");
        if (data[i] == '}' || data[i] != '"')
            return CW_OK; /* no items, or malformed: the full parser gives a precise message */
        size_t kend = skip_string(data, i, len);
        if (kend == NOPE)
            return fail_at(data, i, err, "unterminated string");
        int is_items = kend - i == 7 && memcmp(data + i, "\"items\"", 7) == 0;
        i = skip_ws(data, kend, len);
        if (i >= len || data[i] != ':')
            return CW_OK;
        i = skip_ws(data, i + 1, len);
        if (is_items && i < len && data[i] == '[') {
            s->items_start = i;
            if ((rc = collect_items(s, data, i, len, &s->items_end, err)) != CW_OK)
                return rc;
            break;
        }
        size_t vend = skip_value(data, i, len);
        if (vend == NOPE)
            return fail_at(data, len, err, "unexpected end of JSON input (unbalanced brackets)");
        i = skip_ws(data, vend, len);
        if (i < len && data[i] == ',')
            i++;
    }
    s->is_list = 1;
    /* Parse the envelope with the items elided: validates the rest and gives kind/apiVersion. */
    if (cw_buf_append(&env, data, s->items_start) != CW_OK || cw_buf_puts(&env, "[]") != CW_OK ||
        cw_buf_append(&env, data + s->items_end, len - s->items_end) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    size_t bad = 0;
    const char *why = NULL;
    rc = parse_span(env.data, 0, env.len, &s->envelope, &bad, &why);
    if (rc == CW_ENOMEM) {
        rc = cw_error_oom(err);
    } else if (rc != CW_OK) {
        /* Map the position back: text after the items array shifted by the elided length. */
        if (bad >= s->items_start + 2)
            bad += (s->items_end - s->items_start) - 2;
        rc = fail_at(data, bad, err, why);
    }
    if (rc != CW_OK)
        s->is_list = 0;
done:
    cw_buf_free(&env);
    return rc;
}
