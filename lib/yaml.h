/* YAML (and JSON, its subset) streams to json-c values with libyaml, and json-c values back to
 * block YAML. Scalars resolve as Kubernetes reads manifests (sigs.k8s.io/yaml over go-yaml v2,
 * YAML 1.1: yes/no/on/off are booleans, 0x/0o/0b and leading-0 octal integers). */
#ifndef CW_YAML_H
#define CW_YAML_H

#include <json-c/json.h>
#include <stddef.h>

#include "lib/buf.h"
#include "lib/error.h"

typedef struct cw_yaml_doc {
    json_object *value; /* owned; NULL for an empty document */
    size_t start, end;  /* byte span of the document in the input, spans tile the input */
    size_t line;        /* 1-based line of the document's first content */
    int explicit_start; /* the span holds a "---" marker */
} cw_yaml_doc;

typedef struct cw_yaml_docs {
    cw_yaml_doc *items;
    size_t len, cap;
} cw_yaml_docs;

typedef struct cw_yaml_limits {
    size_t max_depth; /* nesting (default 256) */
    size_t max_nodes; /* nodes including alias expansions (default 50 million) */
} cw_yaml_limits;
/* Whatever the limits, a document in which alias expansions make up a larger share of the nodes
 * than go-yaml v2 allows (kubectl's "document contains excessive aliasing") fails with CW_ELIMIT.
 */

void cw_yaml_docs_init(cw_yaml_docs *docs);
void cw_yaml_docs_free(cw_yaml_docs *docs);

/* Parses every document of `data`. Errors read "line L, column C: <problem>". limits may be NULL.
 */
int cw_yaml_parse(const char *data, size_t len, const cw_yaml_limits *limits, cw_yaml_docs *out,
                  cw_error *err) CW_MUST_CHECK;
/* Reads and parses a file; errors are prefixed with the path. */
int cw_yaml_parse_file(const char *path, cw_yaml_docs *out, cw_error *err) CW_MUST_CHECK;

/* Appends one block-style document (no "---") for `value` to out. Strings that would read back as
 * another type are quoted; multi-line strings use literal blocks. */
int cw_yaml_emit(json_object *value, cw_buf *out, cw_error *err) CW_MUST_CHECK;

/* Reads a whole file into a NUL-terminated buffer owned by the caller. */
int cw_file_read(const char *path, char **data, size_t *len, cw_error *err) CW_MUST_CHECK;

#endif
