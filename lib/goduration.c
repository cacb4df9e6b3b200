/* time.ParseDuration (Go 1.19) for "@every <duration>": same grammar, overflow rules, float
 * rounding of fractions and error texts. */
#include <stdio.h>
#include <string.h>

#include "lib/gostr.h"
#include "lib/error.h"

#define U63 (UINT64_C(1) << 63)

static int fail(cw_buf *msg, const char *what, const char *unit, size_t ulen, const char *orig,
                size_t olen)
{
    cw_buf_puts(msg, what);
    if (unit) {
        cw_go_time_quote(msg, unit, ulen);
        cw_buf_puts(msg, " in duration ");
    }
    cw_go_time_quote(msg, orig, olen);
    return -1;
}

static uint64_t unit_ns(const char *u, size_t n)
{
    static const struct {
        const char *name;
        uint64_t ns;
    } units[] = {
        {"ns", 1},
        {"us", 1000},
        {"\xc2\xb5s", 1000}, /* U+00B5 micro sign */
        {"\xce\xbcs", 1000}, /* U+03BC Greek mu */
        {"ms", 1000000},
        {"s", UINT64_C(1000000000)},
        {"m", UINT64_C(60000000000)},
        {"h", UINT64_C(3600000000000)},
    };
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strlen(units[i].name) == n && memcmp(units[i].name, u, n) == 0)
            return units[i].ns;
    return 0;
}

int cw_go_parse_duration(const char *s, size_t n, int64_t *ns, cw_buf *msg)
{
    static const char invalid[] = "time: invalid duration ";
    const char *orig = s;
    size_t olen = n;
    uint64_t d = 0;
    int neg = 0;

    *ns = 0;
    if (n > 0 && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s++;
        n--;
    }
    if (n == 1 && s[0] == '0')
        return 0;
    if (n == 0)
        return fail(msg, invalid, NULL, 0, orig, olen);
    while (n > 0) {
        uint64_t v = 0, f = 0;
        double scale = 1;
        if (!(s[0] == '.' || (s[0] >= '0' && s[0] <= '9')))
            return fail(msg, invalid, NULL, 0, orig, olen);
        /* leadingInt */
        size_t i = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            if (v > U63 / 10)
                return fail(msg, invalid, NULL, 0, orig, olen);
            v = v * 10 + (uint64_t)(s[i] - '0');
            if (v > U63)
                return fail(msg, invalid, NULL, 0, orig, olen);
        }
        int pre = i > 0;
        s += i;
        n -= i;
        int post = 0;
        if (n > 0 && s[0] == '.') {
            s++;
            n--;
            /* leadingFraction: stops accumulating precision on overflow, never fails */
            int overflow = 0;
            for (i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
                if (overflow)
                    continue;
                if (f > (U63 - 1) / 10) {
                    overflow = 1;
                    continue;
                }
                uint64_t y = f * 10 + (uint64_t)(s[i] - '0');
                if (y > U63) {
                    overflow = 1;
                    continue;
                }
                f = y;
                scale *= 10;
            }
            post = i > 0;
            s += i;
            n -= i;
        }
        if (!pre && !post)
            return fail(msg, invalid, NULL, 0, orig, olen);
        for (i = 0; i < n; i++)
            if (s[i] == '.' || (s[i] >= '0' && s[i] <= '9'))
                break;
        if (i == 0)
            return fail(msg, "time: missing unit in duration ", NULL, 0, orig, olen);
        uint64_t unit = unit_ns(s, i);
        if (unit == 0)
            return fail(msg, "time: unknown unit ", s, i, orig, olen);
        s += i;
        n -= i;
        if (v > U63 / unit)
            return fail(msg, invalid, NULL, 0, orig, olen);
        v *= unit;
        if (f > 0) {
            /* float64 keeps fractions of hours nanosecond-exact, as in Go */
            v += (uint64_t)((double)f * ((double)unit / scale));
            if (v > U63)
                return fail(msg, invalid, NULL, 0, orig, olen);
        }
        d += v;
        if (d > U63)
            return fail(msg, invalid, NULL, 0, orig, olen);
    }
    if (neg) {
        *ns = (int64_t)(0 - d);
        return 0;
    }
    if (d > U63 - 1)
        return fail(msg, invalid, NULL, 0, orig, olen);
    *ns = (int64_t)d;
    return 0;
}

void cw_go_format_seconds(double seconds, char *out, size_t outlen)
{
    long long s = (long long)(seconds + 0.5), h = s / 3600, m = s / 60 % 60;
    if (h)
        snprintf(out, outlen, "%lldh%lldm%llds", h, m, s % 60);
    else if (m)
        snprintf(out, outlen, "%lldm%llds", m, s % 60);
    else
        snprintf(out, outlen, "%llds", s);
}
