/* Manifest files to objects: files or directories (recursively) of YAML (multi-document) or
 * JSON, Kubernetes Lists flattened into their items. Large JSON Lists are parsed one item at a
 * time so memory stays bounded by the largest item. */
#ifndef CW_LOAD_H
#define CW_LOAD_H

#include <json-c/json.h>
#include <stddef.h>

#include "lib/error.h"
#include "lib/strlist.h"

typedef enum { CW_LOAD_YAML, CW_LOAD_JSON } cw_load_format;

typedef struct cw_load_unit {
    json_object *obj; /* borrowed during the callback; json_object_get() it to keep it */
    const char *path;
    size_t doc;  /* 1-based document index in the file (JSON files have one document) */
    long item;   /* index in a List's items; -1 for a plain document */
    size_t line; /* 1-based line where the document or item starts */
} cw_load_unit;

typedef int (*cw_load_fn)(void *ud, const cw_load_unit *u, cw_error *err);

/* Expands paths: a file is taken as named; a directory contributes its *.yaml, *.yml and *.json
 * files recursively, skipping entries whose names start with '.', in bytewise order.
 * "-" means standard input. */
int cw_load_expand(const cw_strlist *paths, cw_strlist *files, cw_error *err) CW_MUST_CHECK;

/* Refuses input larger than max_bytes in all (regular files; standard input is not sized in
 * advance): CW_ELIMIT naming the file that crosses the budget and the flag that raises it. */
int cw_load_check_budget(const cw_strlist *files, long long max_bytes, cw_error *err) CW_MUST_CHECK;

/* JSON when the first non-blank byte is '{' or '[', YAML otherwise. */
cw_load_format cw_load_detect(const char *data, size_t len);

/* Reads a file ("-": standard input) into memory owned by the caller. */
int cw_load_read(const char *path, char **data, size_t *len, cw_error *err) CW_MUST_CHECK;

/* Calls fn for every object of the text read from `path`. Empty documents are skipped; documents
 * and List items that are not objects are skipped with an info-level log line naming them. Parse
 * errors name the file, the document and the line. */
int cw_load_text(const char *path, const char *data, size_t len, cw_load_fn fn, void *ud,
                 cw_error *err) CW_MUST_CHECK;
int cw_load_file(const char *path, cw_load_fn fn, void *ud, cw_error *err) CW_MUST_CHECK;
/* The same with memory near one item rather than the whole file for a JSON List in a regular
 * file: it is read through a read-only mapping whose pages are given back as the List is read
 * (the read-only reports, cron audit and cron status). cw_load_file reads the file into a buffer
 * backed by huge pages instead: fewer page faults where the whole file is needed anyway. drop
 * (NULL: none): member paths of a List's items the reader never reads, given as null and never
 * built by json-c (lib/jsonscan's drop; errors and duplicate keys as without it). */
int cw_load_file_lean(const char *path, const char *const *drop, cw_load_fn fn, void *ud,
                      cw_error *err) CW_MUST_CHECK;

/* "path: document 2, items[3]" (document omitted for single-document files). */
void cw_load_where(const cw_load_unit *u, char *out, size_t n);

/* Whether a parsed document is a List (has an "items" array and a kind ending in "List"). */
int cw_load_is_list(json_object *doc);

#endif
