/* Well-formed UTF-8 as RFC 3629 and Go's utf8 package define it: no overlong forms, no encoded
 * surrogates, nothing above U+10FFFF. json-c lets overlongs and surrogates through, and the
 * apiserver (Go) would not, so every check in cronwarden goes through these two functions. */
#ifndef CW_UTF8_H
#define CW_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length (1..4) of the well-formed sequence starting at s[0], or 0 when s[0] starts none
 * (stray continuation byte, invalid lead byte, bad or truncated continuation); n >= 1. */
size_t cw_utf8_seq_len(const unsigned char *s, size_t n);

/* The code point of the well-formed sequence starting at s (n >= 1 bytes) and its length in
 * *width; -1 (and *width 1) when s starts none. Go's utf8.DecodeRune, but for the error value. */
int32_t cw_utf8_decode(const char *s, size_t n, size_t *width);

/* Offset of the first byte that is not part of well-formed UTF-8, or len when all of it is. */
size_t cw_utf8_invalid_at(const char *s, size_t len);

#endif
