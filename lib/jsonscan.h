/* Finds the elements of the top-level "items" array of a JSON text (a Kubernetes List) without
 * building the whole tree, so very large exports are parsed one item at a time. Only locates
 * byte spans; json-c parses each span. */
#ifndef CW_JSONSCAN_H
#define CW_JSONSCAN_H

#include <json-c/json.h>
#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

typedef struct cw_jsonscan_span {
    size_t start, end; /* [start, end) of one element */
} cw_jsonscan_span;

typedef struct cw_jsonscan {
    int is_list;             /* top level is an object with an "items" array, or an array */
    size_t items_start;      /* offset of '[' of the items array */
    size_t items_end;        /* offset just after the matching ']' */
    json_object *envelope;   /* the top level with "items" emptied (NULL for a bare array) */
    cw_jsonscan_span *spans; /* every element, in order (one pass over the text) */
    json_tokener *tok;       /* reused by cw_jsonscan_parse: a new one costs a few KB of calloc */
    size_t nspans, capspans;
    /* Optional, set before cw_jsonscan_open: called as the scan moves through the items with an
     * offset below which it reads nothing more (a caller reading a mapped file gives those pages
     * back; the envelope's head is read again at the end). */
    void (*release)(void *ud, size_t upto);
    void *release_ud;
    /* Optional: member paths (NULL-terminated, as lib/jsonprune takes them) whose values
     * cw_jsonscan_parse gives as null, for a reader that never looks at them. Errors and
     * duplicate keys are still those of the whole item, reported as without it. */
    const char *const *drop;
    cw_buf pruned; /* the item without them, for json-c */
} cw_jsonscan;

void cw_jsonscan_init(cw_jsonscan *s);
void cw_jsonscan_free(cw_jsonscan *s);

/* Locates the items array and the span of every element. When the text is not a List, is_list is
 * 0 and nothing else is set. Structural errors (unterminated strings, unbalanced brackets) fail
 * with "line L, column C: ...". */
int cw_jsonscan_open(cw_jsonscan *s, const char *data, size_t len, cw_error *err) CW_MUST_CHECK;

/* Parses data[start, end) as one JSON value; errors carry the line and column in the whole text. */
int cw_json_parse_span(const char *data, size_t start, size_t end, json_object **out,
                       cw_error *err) CW_MUST_CHECK;
/* cw_json_parse_span of element i (s->spans[i]) of the text s was opened on (with s->drop's
 * values null). */
int cw_jsonscan_parse(cw_jsonscan *s, const char *data, size_t i, json_object **out,
                      cw_error *err) CW_MUST_CHECK;
/* 1-based line and column of byte offset `off`. */
void cw_text_position(const char *data, size_t off, size_t *line, size_t *col);

#endif
