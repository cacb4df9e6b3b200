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

/* Well-formed UTF-8 (RFC 3629). */
static inline int fuzz_utf8_ok(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < len;) {
        unsigned char c = s[i];
        size_t n;
        unsigned lo = 0x80, hi = 0xbf;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf)
            n = 2;
        else if (c >= 0xe0 && c <= 0xef) {
            n = 3;
            lo = c == 0xe0 ? 0xa0 : 0x80;
            hi = c == 0xed ? 0x9f : 0xbf;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 4;
            lo = c == 0xf0 ? 0x90 : 0x80;
            hi = c == 0xf4 ? 0x8f : 0xbf;
        } else
            return 0;
        if (i + n > len || s[i + 1] < lo || s[i + 1] > hi)
            return 0;
        for (size_t k = 2; k < n; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return 0;
        i += n;
    }
    return 1;
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
