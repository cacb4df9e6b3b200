#include "lib/yaml.h"
#include "lib/strmap.h"
#include "lib/grow.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <yaml.h>

#define STR_TAG "tag:yaml.org,2002:str"

void cw_yaml_docs_init(cw_yaml_docs *docs)
{
    docs->items = NULL;
    docs->len = docs->cap = 0;
}

void cw_yaml_docs_free(cw_yaml_docs *docs)
{
    for (size_t i = 0; i < docs->len; i++)
        json_object_put(docs->items[i].value);
    free(docs->items);
    cw_yaml_docs_init(docs);
}

/* ---- scalar resolution (go-yaml v2 rules) ---- */

typedef enum { R_STRING, R_NULL, R_BOOL, R_INT, R_UINT, R_FLOAT, R_BADFLOAT } resolved_kind;

typedef struct {
    resolved_kind kind;
    int b;
    int64_t i;
    uint64_t u;
    double d;
} resolved;

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

/* strconv.ParseInt/ParseUint with base 0 (prefixes 0x 0o 0b and leading-0 octal), no underscores.
 */
static int parse_go_int(const char *s, int allow_sign, int *neg, uint64_t *mag)
{
    const char *p = s;
    *neg = 0;
    if (allow_sign && (*p == '+' || *p == '-')) {
        *neg = *p == '-';
        p++;
    }
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    } else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O')) {
        base = 8;
        p += 2;
    } else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
        base = 2;
        p += 2;
    } else if (p[0] == '0' && p[1]) {
        base = 8;
        p += 1;
    }
    if (!*p)
        return 0;
    uint64_t v = 0;
    for (; *p; p++) {
        int dgt;
        if (*p >= '0' && *p <= '9')
            dgt = *p - '0';
        else if (*p >= 'a' && *p <= 'f')
            dgt = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F')
            dgt = *p - 'A' + 10;
        else
            return 0;
        if (dgt >= base)
            return 0;
        if (v > (UINT64_MAX - (uint64_t)dgt) / (uint64_t)base)
            return 0;
        v = v * (uint64_t)base + (uint64_t)dgt;
    }
    *mag = v;
    return 1;
}

static int float_syntax(const char *s)
{
    /* ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    } else {
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p == '.') {
            p++;
            while (*p >= '0' && *p <= '9')
                p++;
        }
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

/* JSON's number grammar: keeping the YAML text is only safe when it is also valid JSON. */
static int json_number_syntax(const char *s)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return 0;
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

static void resolve_plain(const char *s, resolved *r)
{
    static const char *const yes[] = {"y",    "Y",    "yes", "Yes", "YES", "true",
                                      "True", "TRUE", "on",  "On",  "ON",  NULL};
    static const char *const no[] = {"n",     "N",     "no",  "No",  "NO",  "false",
                                     "False", "FALSE", "off", "Off", "OFF", NULL};
    static const char *const nul[] = {"", "~", "null", "Null", "NULL", NULL};
    static const char *const special[] = {".nan",  ".NaN",  ".NAN",  ".inf",  ".Inf",
                                          ".INF",  "+.inf", "+.Inf", "+.INF", "-.inf",
                                          "-.Inf", "-.INF", NULL};
    r->kind = R_STRING;
    if (in_list(s, nul)) {
        r->kind = R_NULL;
        return;
    }
    if (in_list(s, yes) || in_list(s, no)) {
        r->kind = R_BOOL;
        r->b = in_list(s, yes);
        return;
    }
    if (in_list(s, special)) {
        r->kind = R_BADFLOAT;
        return;
    }
    char c = s[0];
    if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.'))
        return;
    size_t n = strlen(s);
    char tmp[128];
    if (n >= sizeof(tmp))
        return;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_')
            tmp[k++] = s[i];
    tmp[k] = '\0';
    int neg;
    uint64_t mag;
    if (parse_go_int(tmp, 1, &neg, &mag)) {
        if (neg && mag <= (uint64_t)INT64_MAX + 1) {
            r->kind = R_INT;
            r->i = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
            return;
        }
        if (!neg && mag <= (uint64_t)INT64_MAX) {
            r->kind = R_INT;
            r->i = (int64_t)mag;
            return;
        }
        if (!neg && tmp[0] != '+') {
            r->kind = R_UINT;
            r->u = mag;
            return;
        }
    }
    if (float_syntax(tmp)) {
        errno = 0;
        double d = strtod(tmp, NULL);
        if (errno == 0 || isfinite(d)) {
            r->kind = isfinite(d) ? R_FLOAT : R_BADFLOAT;
            r->d = d;
        }
    }
}

/* ---- parser ---- */

#define CW_YAML_FREE_NODES     100000
#define CW_YAML_BYTES_PER_NODE 16

typedef struct anchor {
    char *name;
    json_object *value;
    size_t nodes;
} anchor;

typedef struct frame {
    json_object *container;
    char *key; /* pending mapping key (NULL when expecting a key) */
    size_t nodes_before;
    char *anchor_name;
    int merge_pending;   /* the pending key was "<<" */
    json_object *merged; /* keys from "<<" merges, applied at the end where not set explicitly */
} frame;

typedef struct parse_ctx {
    const cw_yaml_limits *lim;
    size_t len;
    frame *stack;
    size_t depth, cap;
    anchor *anchors;
    size_t nanchors, anchors_cap;
    cw_strmap anchor_index; /* name -> index + 1: a lookup per alias, not a scan (60k anchors) */
    size_t nodes;
    size_t alias_nodes;         /* of nodes, those that alias expansions added */
    size_t total_nodes, budget; /* over every document; see cw_yaml_parse */
    json_object *root;
    int have_root;
    cw_error *err;
    yaml_mark_t mark;
} parse_ctx;

static int at(parse_ctx *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int at(parse_ctx *c, int code, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return cw_error_set(c->err, code, "line %zu, column %zu: %s", c->mark.line + 1,
                        c->mark.column + 1, msg);
}

static void clear_anchors(parse_ctx *c)
{
    for (size_t i = 0; i < c->nanchors; i++) {
        free(c->anchors[i].name);
        json_object_put(c->anchors[i].value);
    }
    c->nanchors = 0;
    cw_strmap_free(&c->anchor_index, NULL);
}

/* The anchor called name, or NULL. A redefinition replaces the value (YAML: the latest wins). */
static anchor *find_anchor(parse_ctx *c, const char *name)
{
    void *v = NULL;
    return cw_strmap_get(&c->anchor_index, name, strlen(name), &v) ? &c->anchors[(uintptr_t)v - 1]
                                                                   : NULL;
}

static int add_anchor(parse_ctx *c, const char *name, json_object *v, size_t nodes)
{
    anchor *a = find_anchor(c, name);
    if (a) {
        json_object_put(a->value);
        a->value = json_object_get(v);
        a->nodes = nodes;
        return CW_OK;
    }
    if (cw_grow((void **)&c->anchors, &c->anchors_cap, c->nanchors, sizeof(*c->anchors), 8) !=
        CW_OK)
        return CW_ENOMEM;
    char *n = strdup(name);
    if (!n || cw_strmap_put(&c->anchor_index, name, strlen(name),
                            (void *)(uintptr_t)(c->nanchors + 1), NULL) < 0) {
        free(n);
        return CW_ENOMEM;
    }
    c->anchors[c->nanchors++] = (anchor){n, json_object_get(v), nodes};
    return CW_OK;
}

/* Merges mapping src into dst without overriding keys dst already has (YAML merge key). */
static int merge_into(parse_ctx *c, json_object *dst, json_object *src)
{
    if (json_object_is_type(src, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(src); i++)
            if (merge_into(c, dst, json_object_array_get_idx(src, i)) != CW_OK)
                return c->err->code;
        return CW_OK;
    }
    if (!json_object_is_type(src, json_type_object))
        return at(c, CW_EINVAL, "%s", "merge key '<<' needs a mapping or a list of mappings");
    json_object_object_foreach(src, k, v)
    {
        if (json_object_object_get_ex(dst, k, NULL))
            continue;
        json_object *copy = NULL;
        if (json_object_deep_copy(v, &copy, NULL) != 0)
            return cw_error_oom(c->err);
        json_object_object_add(dst, k, copy);
    }
    return CW_OK;
}

static frame *top(parse_ctx *c)
{
    return c->depth ? &c->stack[c->depth - 1] : NULL;
}

/* Places a finished value (ownership taken) into the current container or as the root. */
static int place(parse_ctx *c, json_object *v, const char *anchor_name, size_t nodes)
{
    int rc = CW_OK;
    if (anchor_name && (rc = add_anchor(c, anchor_name, v, nodes)) != CW_OK) {
        json_object_put(v);
        return cw_error_oom(c->err);
    }
    frame *f = top(c);
    if (!f) {
        json_object_put(c->root);
        c->root = v;
        c->have_root = 1;
        return CW_OK;
    }
    if (json_object_is_type(f->container, json_type_array)) {
        if (json_object_array_add(f->container, v) != 0) {
            json_object_put(v);
            return cw_error_oom(c->err);
        }
        return CW_OK;
    }
    if (f->merge_pending) {
        if (!f->merged && !(f->merged = json_object_new_object())) {
            json_object_put(v);
            return cw_error_oom(c->err);
        }
        rc = merge_into(c, f->merged, v);
        json_object_put(v);
        f->merge_pending = 0;
        return rc;
    }
    if (json_object_object_add(f->container, f->key, v) != 0) {
        json_object_put(v);
        return cw_error_oom(c->err);
    }
    free(f->key);
    f->key = NULL;
    return CW_OK;
}

static int expecting_key(parse_ctx *c)
{
    frame *f = top(c);
    return f && json_object_is_type(f->container, json_type_object) && !f->key && !f->merge_pending;
}

static int count_node(parse_ctx *c, size_t n)
{
    c->nodes += n;
    c->total_nodes += n;
    if (c->nodes > c->lim->max_nodes)
        return at(c, CW_ELIMIT, "document too large: more than %zu nodes (alias expansion?)",
                  c->lim->max_nodes);
    if (c->total_nodes > c->budget)
        return at(c, CW_ELIMIT,
                  "more than %zu values in %zu bytes of YAML (one per %d bytes beyond the first "
                  "%d): refused so that memory stays near 10 times the input",
                  c->budget, c->len, CW_YAML_BYTES_PER_NODE, CW_YAML_FREE_NODES);
    return CW_OK;
}

/* go-yaml v2's alias bomb guard (decode.go, allowedAliasRatio), which kubectl applies to every
 * manifest: beyond 100 alias-expanded nodes and 1000 nodes in all, alias expansions may make up
 * 99 % of a document's nodes up to 400,000 nodes, falling linearly to 10 % at 4 million. Checked
 * before an expansion is copied, so a few hundred bytes cannot make gigabytes. */
static int count_alias(parse_ctx *c, size_t n)
{
    int rc = count_node(c, n);
    if (rc != CW_OK)
        return rc;
    c->alias_nodes += n;
    double low = 400000, high = 4000000, total = (double)c->nodes;
    double allowed = total <= low    ? 0.99
                     : total >= high ? 0.10
                                     : 0.99 - 0.89 * (total - low) / (high - low);
    if (c->alias_nodes > 100 && c->nodes > 1000 && (double)c->alias_nodes / total > allowed)
        return at(c, CW_ELIMIT, "%s", "document contains excessive aliasing");
    return CW_OK;
}

static int scalar_value(parse_ctx *c, const yaml_event_t *ev, json_object **out)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    *out = NULL;
    if ((tag && strcmp(tag, STR_TAG) == 0) || (tag && strcmp(tag, "!") == 0) || (!plain && !tag) ||
        memchr(s, '\0', n)) {
        *out = json_object_new_string_len(s, (int)n);
        return *out ? CW_OK : cw_error_oom(c->err);
    }
    resolved r;
    resolve_plain(s, &r);
    if (tag && strncmp(tag, "tag:yaml.org,2002:", 18) == 0) {
        const char *want = tag + 18;
        int ok = (strcmp(want, "int") == 0 && (r.kind == R_INT || r.kind == R_UINT)) ||
                 (strcmp(want, "float") == 0 &&
                  (r.kind == R_FLOAT || r.kind == R_INT || r.kind == R_UINT)) ||
                 (strcmp(want, "bool") == 0 && r.kind == R_BOOL) ||
                 (strcmp(want, "null") == 0 && r.kind == R_NULL) || strcmp(want, "binary") == 0 ||
                 strcmp(want, "timestamp") == 0;
        if (!ok)
            return at(c, CW_EINVAL, "cannot decode '%s' with the given tag", s);
        if (strcmp(want, "binary") == 0 || strcmp(want, "timestamp") == 0)
            r.kind = R_STRING;
    }
    switch (r.kind) {
    case R_STRING:
        *out = json_object_new_string_len(s, (int)n);
        break;
    case R_NULL:
        *out = NULL;
        return CW_OK;
    case R_BOOL:
        *out = json_object_new_boolean(r.b);
        break;
    case R_INT:
        *out = json_object_new_int64(r.i);
        break;
    case R_UINT:
        *out = json_object_new_uint64(r.u);
        break;
    case R_FLOAT:
        *out =
            json_number_syntax(s) ? json_object_new_double_s(r.d, s) : json_object_new_double(r.d);
        break;
    case R_BADFLOAT:
        return at(c, CW_EINVAL, "value '%s' cannot be represented in JSON", s);
    }
    return *out ? CW_OK : cw_error_oom(c->err);
}

static int on_scalar(parse_ctx *c, const yaml_event_t *ev)
{
    int rc;
    if ((rc = count_node(c, 1)) != CW_OK)
        return rc;
    if (expecting_key(c)) {
        frame *f = top(c);
        const char *k = (const char *)ev->data.scalar.value;
        if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag &&
            strcmp(k, "<<") == 0) {
            f->merge_pending = 1;
            return CW_OK;
        }
        if (strlen(k) != ev->data.scalar.length)
            return at(c, CW_EINVAL, "%s", "mapping key contains a NUL character");
        if (json_object_object_get_ex(f->container, k, NULL))
            return at(c, CW_EINVAL, "duplicate mapping key \"%s\"", k);
        f->key = strdup(k);
        return f->key ? CW_OK : cw_error_oom(c->err);
    }
    json_object *v;
    if ((rc = scalar_value(c, ev, &v)) != CW_OK)
        return rc;
    return place(c, v, (const char *)ev->data.scalar.anchor, 1);
}

static int on_alias(parse_ctx *c, const yaml_event_t *ev)
{
    const char *name = (const char *)ev->data.alias.anchor;
    anchor *a = find_anchor(c, name);
    if (!a)
        return at(c, CW_EINVAL, "unknown anchor '%s' referenced", name);
    /* the alias node itself, then what it expands to (as go-yaml counts) */
    int rc = count_node(c, 1);
    if (rc != CW_OK || (rc = count_alias(c, a->nodes)) != CW_OK)
        return rc;
    json_object *v = a->value;
    if (expecting_key(c)) {
        if (!json_object_is_type(v, json_type_string))
            return at(c, CW_EINVAL, "alias *%s used as a key must be a string", name);
        frame *f = top(c);
        f->key = strdup(json_object_get_string(v));
        return f->key ? CW_OK : cw_error_oom(c->err);
    }
    json_object *copy = NULL;
    if (v && json_object_deep_copy(v, &copy, NULL) != 0)
        return cw_error_oom(c->err);
    return place(c, copy, NULL, 0);
}

static int on_start(parse_ctx *c, const yaml_event_t *ev, int mapping)
{
    if (expecting_key(c))
        return at(c, CW_EINVAL, "%s", "mapping keys must be scalars");
    if (c->depth >= c->lim->max_depth)
        return at(c, CW_ELIMIT, "nesting deeper than %zu levels", c->lim->max_depth);
    int rc = count_node(c, 1);
    if (rc != CW_OK)
        return rc;
    if (cw_grow((void **)&c->stack, &c->cap, c->depth, sizeof(*c->stack), 16) != CW_OK)
        return cw_error_oom(c->err);
    const yaml_char_t *anc =
        mapping ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
    /* json-c's default array holds 32 slots: 256 bytes for every `[]`; grow from 2 instead */
    frame f = {mapping ? json_object_new_object() : json_object_new_array_ext(2),
               NULL,
               c->nodes,
               anc ? strdup((const char *)anc) : NULL,
               0,
               NULL};
    if (!f.container || (anc && !f.anchor_name)) {
        json_object_put(f.container);
        free(f.anchor_name);
        return cw_error_oom(c->err);
    }
    c->stack[c->depth++] = f;
    return CW_OK;
}

static int on_end(parse_ctx *c)
{
    frame f = c->stack[--c->depth];
    free(f.key);
    if (f.merged) {
        json_object_object_foreach(f.merged, k, v)
        {
            if (!json_object_object_get_ex(f.container, k, NULL))
                json_object_object_add(f.container, k, json_object_get(v));
        }
        json_object_put(f.merged);
    }
    int rc = place(c, f.container, f.anchor_name, c->nodes - f.nodes_before + 1);
    free(f.anchor_name);
    return rc;
}

static void unwind(parse_ctx *c)
{
    while (c->depth) {
        frame *f = &c->stack[--c->depth];
        json_object_put(f->container);
        json_object_put(f->merged);
        free(f->key);
        free(f->anchor_name);
    }
}

/* libyaml marks count characters, not bytes: walk the UTF-8 input forward to convert. Marks only
 * grow, so one cursor makes the whole conversion linear. */
typedef struct {
    const unsigned char *data;
    size_t len, byte, chars;
} char_cursor;

static size_t byte_offset(char_cursor *cur, size_t char_index)
{
    while (cur->chars < char_index && cur->byte < cur->len) {
        unsigned char b = cur->data[cur->byte];
        size_t w = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
        cur->byte += w;
        cur->chars++;
    }
    return cur->byte < cur->len ? cur->byte : cur->len;
}

static int push_doc(cw_yaml_docs *docs, cw_yaml_doc d)
{
    if (cw_grow((void **)&docs->items, &docs->cap, docs->len, sizeof(*docs->items), 4) != CW_OK)
        return CW_ENOMEM;
    docs->items[docs->len++] = d;
    return CW_OK;
}

int cw_yaml_parse(const char *data, size_t len, const cw_yaml_limits *limits, cw_yaml_docs *out,
                  cw_error *err)
{
    static const cw_yaml_limits defaults = {256, 50 * 1000 * 1000};
    yaml_parser_t parser;
    yaml_event_t ev;
    parse_ctx c = {0};
    int rc = CW_OK, have_event = 0;
    size_t doc_start = 0, doc_line = 0;
    int doc_explicit = 0;

    char_cursor cur = {(const unsigned char *)data, len, 0, 0};
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        cur.byte = 3; /* libyaml does not count the byte order mark */
    c.lim = limits ? limits : &defaults;
    c.err = err;
    /* A value costs json-c about 150 bytes (an empty flow list `[]`, three bytes of YAML, made
     * 50 times its size): beyond a fixed allowance, one value per 16 bytes keeps memory near 10x
     * the input. Kubernetes manifests hold one value per 10-30 bytes of YAML. */
    c.len = len;
    c.budget = (size_t)CW_YAML_FREE_NODES + len / CW_YAML_BYTES_PER_NODE;
    if (!yaml_parser_initialize(&parser))
        return cw_error_oom(err);
    yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
    for (;;) {
        if (!yaml_parser_parse(&parser, &ev)) {
            c.mark = parser.problem_mark;
            rc = cw_error_set(err, CW_EINVAL, "line %zu, column %zu: %s%s%s",
                              parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                              parser.problem ? parser.problem : "invalid YAML",
                              parser.context ? " " : "", parser.context ? parser.context : "");
            goto done;
        }
        have_event = 1;
        c.mark = ev.start_mark;
        switch (ev.type) {
        case YAML_DOCUMENT_START_EVENT:
            if (out->len)
                out->items[out->len - 1].end = byte_offset(&cur, ev.start_mark.index);
            doc_start = out->len ? out->items[out->len - 1].end : 0;
            doc_explicit = !ev.data.document_start.implicit;
            doc_line = ev.start_mark.line + 1;
            c.root = NULL;
            c.have_root = 0;
            c.nodes = 0;
            c.alias_nodes = 0;
            break;
        case YAML_DOCUMENT_END_EVENT:
            clear_anchors(&c);
            if (push_doc(out, (cw_yaml_doc){c.root, doc_start, len, doc_line, doc_explicit}) !=
                CW_OK) {
                rc = cw_error_oom(err);
                goto done;
            }
            c.root = NULL;
            break;
        case YAML_SCALAR_EVENT:
            rc = on_scalar(&c, &ev);
            break;
        case YAML_ALIAS_EVENT:
            rc = on_alias(&c, &ev);
            break;
        case YAML_MAPPING_START_EVENT:
            rc = on_start(&c, &ev, 1);
            break;
        case YAML_SEQUENCE_START_EVENT:
            rc = on_start(&c, &ev, 0);
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            rc = on_end(&c);
            break;
        default:
            break;
        }
        int done_stream = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        have_event = 0;
        if (rc != CW_OK || done_stream)
            goto done;
    }
done:
    if (have_event)
        yaml_event_delete(&ev);
    unwind(&c);
    clear_anchors(&c);
    free(c.anchors);
    free(c.stack);
    json_object_put(c.root);
    yaml_parser_delete(&parser);
    if (rc != CW_OK) {
        cw_yaml_docs_free(out);
        if (err && err->code == CW_OK)
            err->code = rc;
    }
    return rc;
}

/* A buffer for a whole file, freed with free(). A big one (a cluster's dump of 100,000 volumes is
 * 290 MB) is aligned to and advised for transparent huge pages: the kernel then faults it in 2 MiB
 * at a time instead of 4 KiB (page faults were a tenth of `migrate --from-file`'s time). */
static char *file_buffer(size_t size)
{
    const size_t huge = (size_t)2 << 20;
    if (size < 4 * huge)
        return malloc(size);
    void *p = NULL;
    if (posix_memalign(&p, huge, size) != 0)
        return NULL;
    madvise(p, (size + huge - 1) / huge * huge, MADV_HUGEPAGE); /* advice: failure is harmless */
    return p;
}

int cw_file_read(const char *path, char **data, size_t *len, cw_error *err)
{
    int rc = CW_OK;
    char *buf = NULL;
    FILE *f = fopen(path, "rb");
    struct stat st;
    *data = NULL;
    *len = 0;
    if (!f)
        return cw_error_set(err, errno == ENOENT ? CW_ENOTFOUND : CW_EIO, "%s: %s", path,
                            strerror(errno));
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = cw_error_set(err, CW_EIO, "%s: not a regular file", path);
        goto done;
    }
    buf = file_buffer((size_t)st.st_size + 1);
    if (!buf) {
        rc = cw_error_set(err, CW_ENOMEM, "%s: out of memory reading %lld bytes", path,
                          (long long)st.st_size);
        goto done;
    }
    size_t n = fread(buf, 1, (size_t)st.st_size, f);
    if (n != (size_t)st.st_size || ferror(f)) {
        rc = cw_error_set(err, CW_EIO, "%s: read failed", path);
        goto done;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    buf = NULL;
done:
    free(buf);
    fclose(f);
    return rc;
}

int cw_yaml_parse_file(const char *path, cw_yaml_docs *out, cw_error *err)
{
    char *data = NULL;
    size_t len = 0;
    int rc = cw_file_read(path, &data, &len, err);
    if (rc != CW_OK)
        return rc;
    rc = cw_yaml_parse(data, len, NULL, out, err);
    if (rc != CW_OK)
        cw_error_prefix(err, "%s", path);
    free(data);
    return rc;
}

/* ---- emitter ---- */

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    return cw_buf_append(data, buffer, size) == CW_OK;
}

/* YAML 1.1's base 60 numbers ("1:20" is 80, "-1:30.5" a float): PyYAML and other 1.1 readers
 * take them as numbers, go-yaml v2 as strings. [-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)? */
static int sexagesimal(const char *s)
{
    const char *p = s + (*s == '-' || *s == '+');
    if (*p < '0' || *p > '9')
        return 0;
    while ((*p >= '0' && *p <= '9') || *p == '_')
        p++;
    int groups = 0;
    while (*p == ':') {
        p++;
        if (*p < '0' || *p > '9')
            return 0;
        if (p[1] >= '0' && p[1] <= '9') {
            if (*p > '5')
                return 0;
            p++;
        }
        p++;
        groups++;
    }
    if (groups && *p == '.')
        for (p++; (*p >= '0' && *p <= '9') || *p == '_'; p++)
            ;
    return groups && *p == '\0';
}

static int needs_quotes(const char *s)
{
    resolved r;
    resolve_plain(s, &r);
    if (r.kind != R_STRING)
        return 1;
    /* What a YAML 1.1 reader (kubectl's go-yaml v2, PyYAML) takes for another type: base 60
     * numbers, and "=" (the value key). */
    if (sexagesimal(s) || strcmp(s, "=") == 0)
        return 1;
    /* Merge keys and timestamp-like text ("2021-03-02T10:11:12Z") are quoted so that every YAML
     * 1.1 reader takes them back as strings. */
    if (strcmp(s, "<<") == 0)
        return 1;
    return strlen(s) >= 8 && s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9' &&
           s[2] >= '0' && s[2] <= '9' && s[3] >= '0' && s[3] <= '9' && s[4] == '-';
}

static int emit_scalar(yaml_emitter_t *em, const char *s, size_t n, int quoted, int literal)
{
    yaml_event_t ev;
    yaml_scalar_style_t style = literal  ? YAML_LITERAL_SCALAR_STYLE
                                : quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
                                         : YAML_ANY_SCALAR_STYLE;
    if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)n,
                                      !quoted && !literal, 1, style))
        return CW_ENOMEM;
    return yaml_emitter_emit(em, &ev) ? CW_OK : CW_EINVAL;
}

static int emit_string(yaml_emitter_t *em, const char *s, size_t n)
{
    int multiline = memchr(s, '\n', n) != NULL;
    return emit_scalar(em, s, n, needs_quotes(s), multiline);
}

static int emit_value(yaml_emitter_t *em, json_object *v)
{
    yaml_event_t ev;
    int rc;
    switch (json_object_get_type(v)) {
    case json_type_null:
        return emit_scalar(em, "null", 4, 0, 0);
    case json_type_string:
        return emit_string(em, json_object_get_string(v), (size_t)json_object_get_string_len(v));
    case json_type_boolean:
    case json_type_int:
    case json_type_double: {
        const char *s = json_object_get_string(v);
        return emit_scalar(em, s, strlen(s), 0, 0);
    }
    case json_type_object:
        if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE) ||
            !yaml_emitter_emit(em, &ev))
            return CW_EINVAL;
        json_object_object_foreach(v, k, val)
        {
            if ((rc = emit_string(em, k, strlen(k))) != CW_OK ||
                (rc = emit_value(em, val)) != CW_OK)
                return rc;
        }
        if (!yaml_mapping_end_event_initialize(&ev) || !yaml_emitter_emit(em, &ev))
            return CW_EINVAL;
        return CW_OK;
    case json_type_array:
        if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE) ||
            !yaml_emitter_emit(em, &ev))
            return CW_EINVAL;
        for (size_t i = 0; i < json_object_array_length(v); i++)
            if ((rc = emit_value(em, json_object_array_get_idx(v, i))) != CW_OK)
                return rc;
        if (!yaml_sequence_end_event_initialize(&ev) || !yaml_emitter_emit(em, &ev))
            return CW_EINVAL;
        return CW_OK;
    }
    return CW_EINVAL;
}

int cw_yaml_emit(json_object *value, cw_buf *out, cw_error *err)
{
    yaml_emitter_t em;
    yaml_event_t ev;
    int rc = CW_OK;
    if (!yaml_emitter_initialize(&em))
        return cw_error_oom(err);
    yaml_emitter_set_output(&em, write_handler, out);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, -1);
    yaml_emitter_set_indent(&em, 2);
    if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) ||
        !yaml_emitter_emit(&em, &ev) ||
        !yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) ||
        !yaml_emitter_emit(&em, &ev)) {
        rc = CW_EINVAL;
        goto done;
    }
    if ((rc = emit_value(&em, value)) != CW_OK)
        goto done;
    if (!yaml_document_end_event_initialize(&ev, 1) || !yaml_emitter_emit(&em, &ev) ||
        !yaml_stream_end_event_initialize(&ev) || !yaml_emitter_emit(&em, &ev) ||
        !yaml_emitter_flush(&em))
        rc = CW_EINVAL;
done:
    if (rc != CW_OK)
        cw_error_set(err, rc, "cannot write YAML: %s", em.problem ? em.problem : "emitter error");
    yaml_emitter_delete(&em);
    return rc;
}
