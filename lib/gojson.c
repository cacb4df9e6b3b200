#include "lib/gojson.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/utf8.h"

static const char hexdigits[] = "0123456789abcdef";

int cw_gojson_write_string(cw_buf *out, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    int rc = cw_buf_putc(out, '"');
    size_t i = 0;
    while (rc == CW_OK && i < len) {
        unsigned char c = s[i];
        if (c >= 0x80) {
            size_t n = cw_utf8_seq_len(s + i, len - i);
            if (n == 0) {
                rc = cw_buf_puts(out, "\\ufffd");
                i++;
            } else if (n == 3 && c == 0xe2 && s[i + 1] == 0x80 && (s[i + 2] & 0xfe) == 0xa8) {
                /* U+2028/U+2029 end lines in JavaScript; Go escapes them. */
                rc = cw_buf_puts(out, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029");
                i += 3;
            } else {
                rc = cw_buf_append(out, s + i, n);
                i += n;
            }
            continue;
        }
        switch (c) {
        case '"':
            rc = cw_buf_puts(out, "\\\"");
            break;
        case '\\':
            rc = cw_buf_puts(out, "\\\\");
            break;
        case '\n':
            rc = cw_buf_puts(out, "\\n");
            break;
        case '\r':
            rc = cw_buf_puts(out, "\\r");
            break;
        case '\t':
            rc = cw_buf_puts(out, "\\t");
            break;
        default:
            if (c < 0x20 || c == '<' || c == '>' || c == '&')
                rc = cw_buf_printf(out, "\\u00%c%c", hexdigits[c >> 4], hexdigits[c & 0xf]);
            else
                rc = cw_buf_putc(out, (char)c);
        }
        i++;
    }
    if (rc == CW_OK)
        rc = cw_buf_putc(out, '"');
    return rc;
}

void cw_gojson_short_escapes(cw_buf *buf, size_t from)
{
    char *d = buf->data;
    size_t r = from, w = from;
    if (!d)
        return;
    /* Outside strings this output has no backslash; inside, each escape is read whole, so an
     * escaped backslash followed by "u0008" stays as it is. */
    while (r < buf->len) {
        if (d[r] != '\\' || r + 1 >= buf->len) {
            d[w++] = d[r++];
            continue;
        }
        if (d[r + 1] == 'u' && r + 6 <= buf->len &&
            (memcmp(d + r + 2, "0008", 4) == 0 || memcmp(d + r + 2, "000c", 4) == 0)) {
            d[w++] = '\\';
            d[w++] = d[r + 5] == '8' ? 'b' : 'f';
            r += 6;
            continue;
        }
        d[w++] = d[r++];
        d[w++] = d[r++];
    }
    buf->len = w;
    d[w] = '\0';
}

/* Shortest decimal digits (no trailing zeros) and exponent such that v = 0.D × 10^(exp+1)
 * reads back as d. The correctly rounded P-digit value is the closest candidate; when it falls
 * outside the rounding interval only its neighbour on the other side can be inside, which is
 * what Go's shortest formatting (strconv roundShortest) would pick. */
static void shortest_digits(double d, char digits[32], int *exp10)
{
    /* printf/strtod here assume the C numeric locale; cronwarden never calls setlocale. */
    char tmp[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof(tmp), "%.*e", p - 1, d);
        /* tmp = "D.DDDe±XX" (d > 0 here) */
        char *e = strchr(tmp, 'e');
        int exp = atoi(e + 1);
        size_t n = 0;
        for (const char *q = tmp; q < e; q++)
            if (*q >= '0' && *q <= '9')
                digits[n++] = *q;
        digits[n] = '\0';
        if (strtod(tmp, NULL) == d)
            goto found;
        for (int dir = -1; dir <= 1; dir += 2) {
            char alt[32];
            int aexp = exp;
            memcpy(alt, digits, n + 1);
            /* Step the last digit by dir with carry/borrow. */
            size_t k = n;
            while (k > 0) {
                k--;
                if (dir > 0 && alt[k] == '9') {
                    alt[k] = '0';
                    continue;
                }
                if (dir < 0 && alt[k] == '0') {
                    alt[k] = '9';
                    continue;
                }
                alt[k] = (char)(alt[k] + dir);
                break;
            }
            if (dir > 0 && alt[0] == '0') { /* 99 → 100: one more power of ten */
                memmove(alt + 1, alt, n);
                alt[0] = '1';
                alt[n] = '\0';
                aexp++;
            }
            if (alt[0] == '0') /* 10 → 09: fewer digits, already covered by p - 1 */
                continue;
            char back[48];
            snprintf(back, sizeof(back), "%c.%se%d", alt[0], alt + 1, aexp);
            if (strtod(back, NULL) == d) {
                memcpy(digits, alt, n + 1);
                exp = aexp;
                goto found;
            }
        }
        continue;
    found:
        while (n > 1 && digits[n - 1] == '0')
            digits[--n] = '\0';
        *exp10 = exp;
        return;
    }
}

int cw_gojson_write_double(cw_buf *out, double d)
{
    char digits[32];
    int exp = 0;
    cw_buf tmp;
    int rc;
    if (isnan(d) || isinf(d))
        return CW_EINVAL;
    if (d == 0)
        return cw_buf_puts(out, signbit(d) ? "-0" : "0");
    if (signbit(d) && (rc = cw_buf_putc(out, '-')) != CW_OK)
        return rc;
    double a = fabs(d);
    shortest_digits(a, digits, &exp);
    size_t n = strlen(digits);
    cw_buf_init(&tmp);
    if (a < 1e-6 || a >= 1e21) {
        rc = cw_buf_putc(&tmp, digits[0]);
        if (rc == CW_OK && n > 1)
            rc = cw_buf_printf(&tmp, ".%s", digits + 1);
        /* Go writes at least two exponent digits, then JSON trims "e-0X" to "e-X". */
        if (rc == CW_OK)
            rc = exp < 0 && exp > -10
                     ? cw_buf_printf(&tmp, "e-%d", -exp)
                     : cw_buf_printf(&tmp, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    } else if (exp >= 0) {
        /* Integer part is digits[0..exp], zero-padded when there are fewer digits. */
        rc = CW_OK;
        for (int i = 0; i <= exp && rc == CW_OK; i++)
            rc = cw_buf_putc(&tmp, (size_t)i < n ? digits[i] : '0');
        if (rc == CW_OK && n > (size_t)exp + 1)
            rc = cw_buf_printf(&tmp, ".%s", digits + exp + 1);
    } else {
        rc = cw_buf_puts(&tmp, "0.");
        for (int i = -1; rc == CW_OK && i > exp; i--)
            rc = cw_buf_putc(&tmp, '0');
        if (rc == CW_OK)
            rc = cw_buf_puts(&tmp, digits);
    }
    if (rc == CW_OK)
        rc = cw_buf_append(out, tmp.data, tmp.len);
    cw_buf_free(&tmp);
    return rc;
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int write_value(json_object *v, cw_buf *out, int depth);

static int write_object(json_object *v, cw_buf *out, int depth)
{
    size_t n = (size_t)json_object_object_length(v), i = 0;
    const char **keys = NULL;
    int rc = CW_OK;
    if (n > 0 && !(keys = malloc(n * sizeof(*keys))))
        return CW_ENOMEM;
    json_object_object_foreach(v, key, val)
    {
        (void)val;
        keys[i++] = key;
    }
    if (n > 1)
        qsort(keys, n, sizeof(*keys), cmp_keys);
    if ((rc = cw_buf_putc(out, '{')) != CW_OK)
        goto done;
    for (i = 0; i < n; i++) {
        if (i && (rc = cw_buf_putc(out, ',')) != CW_OK)
            goto done;
        if ((rc = cw_gojson_write_string(out, keys[i], strlen(keys[i]))) != CW_OK ||
            (rc = cw_buf_putc(out, ':')) != CW_OK ||
            (rc = write_value(json_object_object_get(v, keys[i]), out, depth + 1)) != CW_OK)
            goto done;
    }
    rc = cw_buf_putc(out, '}');
done:
    free(keys);
    return rc;
}

static int write_value(json_object *v, cw_buf *out, int depth)
{
    int rc = CW_OK;
    if (depth > CW_GOJSON_MAX_DEPTH)
        return CW_ELIMIT;
    switch (json_object_get_type(v)) {
    case json_type_null:
        return cw_buf_puts(out, "null");
    case json_type_boolean:
        return cw_buf_puts(out, json_object_get_boolean(v) ? "true" : "false");
    case json_type_double:
        return cw_gojson_write_double(out, json_object_get_double(v));
    case json_type_int: {
        int64_t i = json_object_get_int64(v);
        /* json-c keeps values above INT64_MAX as uint64 and clamps get_int64 for them. */
        if (i == INT64_MAX)
            return cw_buf_printf(out, "%" PRIu64, json_object_get_uint64(v));
        return cw_buf_printf(out, "%" PRId64, i);
    }
    case json_type_string:
        return cw_gojson_write_string(out, json_object_get_string(v),
                                      (size_t)json_object_get_string_len(v));
    case json_type_object:
        return write_object(v, out, depth);
    case json_type_array: {
        size_t n = json_object_array_length(v);
        if ((rc = cw_buf_putc(out, '[')) != CW_OK)
            return rc;
        for (size_t i = 0; i < n; i++) {
            if (i && (rc = cw_buf_putc(out, ',')) != CW_OK)
                return rc;
            if ((rc = write_value(json_object_array_get_idx(v, i), out, depth + 1)) != CW_OK)
                return rc;
        }
        return cw_buf_putc(out, ']');
    }
    }
    return CW_EINVAL;
}

int cw_gojson_write(json_object *v, cw_buf *out)
{
    return write_value(v, out, 0);
}
