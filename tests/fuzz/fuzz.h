/* Shared by the libFuzzer targets: invariant checks that stop the run with a message (a broken
 * invariant is a finding, like a crash), and small helpers. Test code: abort() is the point. */
#ifndef CW_FUZZ_H
#define CW_FUZZ_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant broken: %s: ", __FILE__, __LINE__, #cond);           \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* An exact-size heap copy (no NUL terminator), so ASan sees any read past the input. */
static inline char *fuzz_dup(const uint8_t *data, size_t size)
{
    char *p = malloc(size ? size : 1);
    FUZZ_CHECK(p != NULL, "out of memory");
    if (size)
        memcpy(p, data, size);
    return p;
}

/* Strict RFC 8259 parse of exactly len bytes (trailing whitespace allowed); NULL when invalid. */
static inline json_object *fuzz_json_strict(const char *s, size_t len)
{
    struct json_tokener *tok = json_tokener_new_ex(1000);
    FUZZ_CHECK(tok != NULL, "out of memory");
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
    json_object *o = json_tokener_parse_ex(tok, s, (int)len);
    if (json_tokener_get_error(tok) != json_tokener_success) {
        json_object_put(o);
        o = NULL;
    } else {
        for (size_t at = json_tokener_get_parse_end(tok); at < len && o; at++)
            if (!strchr(" \t\r\n", s[at])) {
                json_object_put(o);
                o = NULL;
            }
    }
    json_tokener_free(tok);
    return o;
}

#endif
