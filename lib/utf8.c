#include "lib/utf8.h"

size_t cw_utf8_seq_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        /* E0 would be overlong below A0; ED A0..BF are the surrogates */
        unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
        return n >= 3 && s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        /* F0 would be overlong below 90; F4 90 and above is beyond U+10FFFF */
        unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
        return n >= 4 && s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80
                   ? 4
                   : 0;
    }
    return 0;
}

size_t cw_utf8_invalid_at(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        if (s[i] < 0x80) { /* the common case: ASCII runs */
            i++;
            continue;
        }
        size_t n = cw_utf8_seq_len(s + i, len - i);
        if (n == 0)
            return i;
        i += n;
    }
    return len;
}

int32_t cw_utf8_decode(const char *str, size_t n, size_t *width)
{
    const unsigned char *p = (const unsigned char *)str;
    size_t len = cw_utf8_seq_len(p, n);
    *width = len ? len : 1;
    switch (len) {
    case 1:
        return p[0];
    case 2:
        return (int32_t)(((p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu));
    case 3:
        return (int32_t)(((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu));
    case 4:
        return (int32_t)(((p[0] & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) |
                         (p[3] & 0x3Fu));
    default:
        return -1;
    }
}
