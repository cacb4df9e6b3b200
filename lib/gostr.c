/* Ports of the Go 1.19 standard-library string routines robfig/cron relies on. Each function
 * follows the Go source step by step; comments name the Go function it mirrors. */
#include "lib/gostr.h"
#include "lib/utf8.h"
#include "lib/error.h"

static const char lowerhex[] = "0123456789abcdef";

int32_t cw_go_decode_rune(const char *s, size_t n, size_t *width)
{
    int32_t r = n ? cw_utf8_decode(s, n, width) : -1;
    if (r < 0) {
        *width = 1;
        return CW_GO_RUNE_ERROR;
    }
    return r;
}

int32_t cw_go_decode_last_rune(const char *s, size_t n, size_t *width)
{
    const unsigned char *p = (const unsigned char *)s;
    if (n == 0) {
        *width = 0;
        return CW_GO_RUNE_ERROR;
    }
    size_t start = n - 1;
    if (p[start] < 0x80) {
        *width = 1;
        return p[start];
    }
    /* Scan back at most UTFMax bytes for a rune start, as Go does. */
    size_t lim = n >= 4 ? n - 4 : 0;
    while (start > lim) {
        start--;
        if ((p[start] & 0xC0) != 0x80)
            break;
    }
    size_t w;
    int32_t r = cw_go_decode_rune(s + start, n - start, &w);
    if (start + w != n) {
        *width = 1;
        return CW_GO_RUNE_ERROR;
    }
    *width = w;
    return r;
}

int cw_go_is_space(int32_t r)
{
    switch (r) {
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
    case ' ':
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
        return 1;
    default:
        return r >= 0x2000 && r <= 0x200A;
    }
}

/* strings.TrimSpace = TrimRightFunc(TrimLeftFunc(s, IsSpace), IsSpace); the ASCII fast path in
 * Go gives the same result. */
void cw_go_trim_space(const char **s, size_t *n)
{
    const char *p = *s;
    size_t len = *n, w;
    while (len > 0) {
        int32_t r = cw_go_decode_rune(p, len, &w);
        if (!cw_go_is_space(r))
            break;
        p += w;
        len -= w;
    }
    /* lastIndexFunc, then re-measure the kept rune forwards as TrimRightFunc does. */
    size_t i = len;
    long keep = -1;
    while (i > 0) {
        int32_t r = cw_go_decode_last_rune(p, i, &w);
        i -= w;
        if (!cw_go_is_space(r)) {
            keep = (long)i;
            break;
        }
    }
    if (keep < 0) {
        len = 0;
    } else if ((unsigned char)p[keep] >= 0x80) {
        cw_go_decode_rune(p + keep, len - (size_t)keep, &w);
        len = (size_t)keep + w;
    } else {
        len = (size_t)keep + 1;
    }
    *s = p;
    *n = len;
}

int cw_go_next_field(const char *s, size_t n, size_t *pos, size_t *start, size_t *len)
{
    size_t i = *pos, w;
    while (i < n && cw_go_is_space(cw_go_decode_rune(s + i, n - i, &w)))
        i += w;
    if (i >= n) {
        *pos = n;
        return 0;
    }
    *start = i;
    while (i < n && !cw_go_is_space(cw_go_decode_rune(s + i, n - i, &w)))
        i += w;
    *len = i - *start;
    *pos = i;
    return 1;
}

/* strconv.Atoi on 64-bit: a fast path for short strings, ParseInt(s, 10, 0) otherwise. */
int cw_go_atoi(const char *s, size_t n, int64_t *out)
{
    *out = 0;
    if (n > 0 && n < 19) {
        size_t i = 0;
        if (s[0] == '-' || s[0] == '+') {
            i = 1;
            if (n == 1)
                return CW_GO_ATOI_SYNTAX;
        }
        int64_t v = 0;
        for (; i < n; i++) {
            unsigned char d = (unsigned char)(s[i] - '0');
            if (d > 9)
                return CW_GO_ATOI_SYNTAX;
            v = v * 10 + d;
        }
        *out = s[0] == '-' ? -v : v;
        return CW_GO_ATOI_OK;
    }
    if (n == 0)
        return CW_GO_ATOI_SYNTAX;
    int neg = 0;
    size_t i = 0;
    if (s[0] == '+') {
        i = 1;
    } else if (s[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i == n)
        return CW_GO_ATOI_SYNTAX; /* ParseUint("") */
    /* ParseUint reports overflow as soon as it happens, even if a bad byte follows. */
    const uint64_t cutoff = UINT64_MAX / 10 + 1;
    uint64_t un = 0;
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < '0' || c > '9')
            return CW_GO_ATOI_SYNTAX;
        if (un >= cutoff)
            return CW_GO_ATOI_RANGE;
        uint64_t n1 = un * 10 + (c - '0');
        if (n1 < un * 10)
            return CW_GO_ATOI_RANGE;
        un = n1;
    }
    if (!neg && un >= (UINT64_C(1) << 63))
        return CW_GO_ATOI_RANGE;
    if (neg && un > (UINT64_C(1) << 63))
        return CW_GO_ATOI_RANGE;
    *out = neg ? (int64_t)(0 - un) : (int64_t)un;
    return CW_GO_ATOI_OK;
}

static size_t bsearch16(const uint16_t *a, size_t len, uint16_t x)
{
    size_t i = 0, j = len;
    while (i < j) {
        size_t h = i + (j - i) / 2;
        if (a[h] < x)
            i = h + 1;
        else
            j = h;
    }
    return i;
}

static size_t bsearch32(const uint32_t *a, size_t len, uint32_t x)
{
    size_t i = 0, j = len;
    while (i < j) {
        size_t h = i + (j - i) / 2;
        if (a[h] < x)
            i = h + 1;
        else
            j = h;
    }
    return i;
}

int cw_go_is_print(int32_t r)
{
    if (r <= 0xFF) {
        if (r >= 0x20 && r <= 0x7E)
            return 1;
        if (r >= 0xA1 && r <= 0xFF)
            return r != 0xAD;
        return 0;
    }
    if (r < 0x10000) {
        uint16_t rr = (uint16_t)r;
        size_t i = bsearch16(cw_go_isprint16, cw_go_isprint16_len, rr);
        if (i >= cw_go_isprint16_len || rr < cw_go_isprint16[i & ~(size_t)1] ||
            cw_go_isprint16[i | 1] < rr)
            return 0;
        size_t j = bsearch16(cw_go_isnotprint16, cw_go_isnotprint16_len, rr);
        return j >= cw_go_isnotprint16_len || cw_go_isnotprint16[j] != rr;
    }
    uint32_t rr = (uint32_t)r;
    size_t i = bsearch32(cw_go_isprint32, cw_go_isprint32_len, rr);
    if (i >= cw_go_isprint32_len || rr < cw_go_isprint32[i & ~(size_t)1] ||
        cw_go_isprint32[i | 1] < rr)
        return 0;
    if (r >= 0x20000)
        return 1;
    uint16_t low = (uint16_t)(r - 0x10000);
    size_t j = bsearch16(cw_go_isnotprint32, cw_go_isnotprint32_len, low);
    return j >= cw_go_isnotprint32_len || cw_go_isnotprint32[j] != low;
}

static int put_hex_byte(cw_buf *b, const char *prefix, unsigned char c)
{
    char tmp[4] = {prefix[0], prefix[1], lowerhex[c >> 4], lowerhex[c & 0xF]};
    return cw_buf_append(b, tmp, 4);
}

/* strconv.appendEscapedRune with quote '"', ASCIIonly and graphicOnly false. */
static int escape_rune(cw_buf *b, int32_t r, const char *raw, size_t rawlen)
{
    if (r == '"' || r == '\\') {
        char tmp[2] = {'\\', (char)r};
        return cw_buf_append(b, tmp, 2);
    }
    if (cw_go_is_print(r))
        return cw_buf_append(b, raw, rawlen);
    switch (r) {
    case '\a':
        return cw_buf_puts(b, "\\a");
    case '\b':
        return cw_buf_puts(b, "\\b");
    case '\f':
        return cw_buf_puts(b, "\\f");
    case '\n':
        return cw_buf_puts(b, "\\n");
    case '\r':
        return cw_buf_puts(b, "\\r");
    case '\t':
        return cw_buf_puts(b, "\\t");
    case '\v':
        return cw_buf_puts(b, "\\v");
    default:
        break;
    }
    if (r < ' ' || r == 0x7F)
        return put_hex_byte(b, "\\x", (unsigned char)r);
    if (r < 0x10000)
        return cw_buf_printf(b, "\\u%04x", (unsigned)r);
    return cw_buf_printf(b, "\\U%08x", (unsigned)r);
}

int cw_go_quote(cw_buf *b, const char *s, size_t n)
{
    int rc = cw_buf_putc(b, '"');
    size_t w;
    for (size_t i = 0; rc == CW_OK && i < n; i += w) {
        int32_t r = (unsigned char)s[i];
        w = 1;
        if (r >= 0x80)
            r = cw_go_decode_rune(s + i, n - i, &w);
        if (w == 1 && r == CW_GO_RUNE_ERROR)
            rc = put_hex_byte(b, "\\x", (unsigned char)s[i]);
        else
            rc = escape_rune(b, r, s + i, w);
    }
    if (rc == CW_OK)
        rc = cw_buf_putc(b, '"');
    return rc;
}

int cw_go_time_quote(cw_buf *b, const char *s, size_t n)
{
    int rc = cw_buf_putc(b, '"');
    for (size_t i = 0; rc == CW_OK && i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80 || c < ' ') {
            rc = put_hex_byte(b, "\\x", c);
        } else {
            if (c == '"' || c == '\\')
                rc = cw_buf_putc(b, '\\');
            if (rc == CW_OK)
                rc = cw_buf_putc(b, (char)c);
        }
    }
    if (rc == CW_OK)
        rc = cw_buf_putc(b, '"');
    return rc;
}
