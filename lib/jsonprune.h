/* A JSON text with the values at some member paths replaced by null, before json-c builds a tree
 * of it: a read-only report that never reads a Job's Pod template need not pay for parsing it
 * (cron status: 110 of a 126 MB export are Jobs, most of each its template). */
#ifndef CW_JSONPRUNE_H
#define CW_JSONPRUNE_H

#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

#define CW_JSON_PRUNE_MAX_PATHS 4 /* paths of one call */
#define CW_JSON_PRUNE_MAX_SEGS  6 /* dotted segments of one path */

/* Copies text[0, len) into out (reset first) with the value of every member at one of `paths`
 * (NULL-terminated; dotted member names from the top-level object, e.g. "spec.template.spec";
 * arrays on the way are passed through, so "spec.template" also names the "template" of an object
 * inside an array at "spec") replaced by null. *pruned: how many values were replaced (0: out is
 * the text as it was). Keys are compared as written, escapes not decoded: a key spelt with an
 * escape is not pruned, which only costs the saving. CW_EINVAL when the text is not RFC 8259 JSON
 * nested at most max_depth (the caller parses the original instead, for its own error message);
 * CW_EINVAL for a path list over the limits; CW_ENOMEM. */
int cw_json_prune(const char *text, size_t len, size_t max_depth, const char *const *paths,
                  cw_buf *out, size_t *pruned) CW_MUST_CHECK;
/* The same, with every value at one of `paths` replaced by a JSON string holding its text as
 * written, or, when that is longer than `max` bytes, by its length in bytes (a JSON number): a
 * reader that keeps a member as text, and refuses one over a size, never has a tree built of it
 * (controller/nonadmin_keep.c: a tenant's spec). */
int cw_json_prune_text(const char *text, size_t len, size_t max_depth, const char *const *paths,
                       size_t max, cw_buf *out, size_t *pruned) CW_MUST_CHECK;

#endif
