/* The JSON structural scanner every byte-level use of JSON shares (docs/architecture.md): a
 * validating, non-allocating walk over RFC 8259 text that reports each object member to its
 * caller without building anything. webhook/prune finds managedFields with it before json-c
 * parses a review; lib/jsonscan checks that object keys are unique after json-c parsed a span
 * (json-c keeps the last of two silently). Bytes >= 0x80 inside strings are not checked here:
 * the UTF-8 check is lib/utf8's. */
#ifndef CW_JSONWALK_H
#define CW_JSONWALK_H

#include <stddef.h>

#include "lib/error.h"

typedef struct cw_json_walk_ops {
    /* Before an object's members (ctx: the object's context). Non-zero stops the walk. */
    int (*object_begin)(void *ud, int ctx);
    /* Before a member's value: the context its value's members will get. key: the raw text
     * between the quotes (escapes not decoded). NULL: the object's own context. */
    int (*enter)(void *ud, int ctx, const char *key, size_t keylen);
    /* After a member: its key (raw, as above) and the span [vstart, vend) of its value. Non-zero
     * stops the walk. */
    int (*member)(void *ud, int ctx, const char *key, size_t keylen, size_t vstart, size_t vend);
    int (*object_end)(void *ud, int ctx); /* after the last member; non-zero stops */
} cw_json_walk_ops;

/* Walks text[0, len) as exactly one JSON value (whitespace around it allowed), nesting at most
 * max_depth. CW_OK; CW_EINVAL when it is not JSON (*bad: the offset where it went wrong); or
 * what a callback returned. ops' members may be NULL. */
int cw_json_walk(const char *text, size_t len, size_t max_depth, const cw_json_walk_ops *ops,
                 void *ud, int root_ctx, size_t *bad) CW_MUST_CHECK;

#endif
