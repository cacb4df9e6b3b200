/* RFC 3339 date-times: the strict profile of section 5.6 (no leap seconds, which Unix time cannot
 * hold), formatted the way Go's time.RFC3339 layout prints them. */
#include <stdio.h>
#include <string.h>

#include "cron/tz.h"
#include "cron/tz_internal.h"

int cw_tz_format_rfc3339(int64_t t, int32_t offset, char *out, size_t outlen)
{
    int64_t y;
    int m, d;
    if (t > INT64_MAX / 2 || t < INT64_MIN / 2 || outlen < CW_TZ_RFC3339_MAX)
        return CW_EINVAL;
    int64_t local = t + offset;
    int64_t days = cw_floordiv(local, 86400), sod = cw_floormod(local, 86400);
    cw_civil_from_days(days, &y, &m, &d);
    if (y < 0 || y > 9999)
        return CW_EINVAL;
    int n = snprintf(out, outlen, "%04d-%02d-%02dT%02d:%02d:%02d", (int)y, m, d, (int)(sod / 3600),
                     (int)(sod / 60 % 60), (int)(sod % 60));
    if (offset == 0) {
        snprintf(out + n, outlen - (size_t)n, "Z");
    } else {
        /* like Go: whole minutes, sign taken from the minutes */
        int zone = offset / 60;
        char sign = zone < 0 ? '-' : '+';
        if (zone < 0)
            zone = -zone;
        snprintf(out + n, outlen - (size_t)n, "%c%02d:%02d", sign, zone / 60, zone % 60);
    }
    return CW_OK;
}

static int digits(const char *s, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        *v = *v * 10 + (s[i] - '0');
    }
    return 0;
}

int cw_tz_parse_rfc3339(const char *s, int64_t *t, int32_t *offset, cw_error *err)
{
    int rc = CW_OK;
    int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
    const char *p = s;

    /* full-date "T" partial-time */
    if (strlen(s) < 20 || digits(p, 4, &y) || p[4] != '-' || digits(p + 5, 2, &mo) || p[7] != '-' ||
        digits(p + 8, 2, &d) || (p[10] != 'T' && p[10] != 't') || digits(p + 11, 2, &h) ||
        p[13] != ':' || digits(p + 14, 2, &mi) || p[16] != ':' || digits(p + 17, 2, &sec))
        goto bad;
    p += 19;
    if (*p == '.') { /* time-secfrac: floored, so the digits only need checking */
        p++;
        if (*p < '0' || *p > '9')
            goto bad;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        sign = *p == '-' ? -1 : 1;
        if (digits(p + 1, 2, &oh) || p[3] != ':' || digits(p + 4, 2, &om))
            goto bad;
        p += 6;
    } else {
        goto bad;
    }
    if (*p != '\0')
        goto bad;
    if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59 || oh > 23 || om > 59)
        goto range;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (d > mdays[mo - 1] + (mo == 2 && cw_is_leap(y)))
        goto range;
    *offset = (int32_t)(sign * (oh * 3600 + om * 60));
    *t = cw_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - *offset;
    goto done;
bad:
    rc = cw_error_set(err, CW_EINVAL,
                      "invalid RFC 3339 time \"%s\" (want e.g. 2025-03-09T01:30:00-05:00)", s);
    goto done;
range:
    rc = cw_error_set(err, CW_EINVAL, "RFC 3339 time \"%s\" is out of range", s);
done:
    return rc;
}
