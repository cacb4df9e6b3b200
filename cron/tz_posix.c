/* POSIX TZ strings from TZif footers, ported from Go 1.19's time.tzset so that times after a
 * zone's last transition get the offsets (and the period bounds) Go computes. The string is
 * parsed once at load; lookups are pure arithmetic. */
#include <stddef.h>

#include "cron/tz_internal.h"

#define SECONDS_PER_DAY 86400

static const int days_before[13] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365};

/* tzsetName: an alphabetic name of 3+ bytes, or <quoted>. Returns the bytes consumed, 0 on error.
 */
static size_t parse_name(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (s[0] != '<') {
        for (size_t i = 0; i < n; i++) {
            char c = s[i];
            if ((c >= '0' && c <= '9') || c == ',' || c == '-' || c == '+')
                return i < 3 ? 0 : i;
        }
        return n < 3 ? 0 : n;
    }
    for (size_t i = 0; i < n; i++)
        if (s[i] == '>')
            return i + 1;
    return 0;
}

/* tzsetNum: digits in [min, max]. Returns bytes consumed, 0 on error. */
static size_t parse_num(const char *s, size_t n, int64_t min, int64_t max, int64_t *num)
{
    int64_t v = 0;
    size_t i = 0;
    if (n == 0)
        return 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            if (i == 0 || v < min)
                return 0;
            *num = v;
            return i;
        }
        v = v * 10 + (s[i] - '0');
        if (v > max)
            return 0;
    }
    if (v < min)
        return 0;
    *num = v;
    return i;
}

/* tzsetOffset: [+-]hh[:mm[:ss]], hours up to 24*7. Returns bytes consumed, 0 on error. */
static size_t parse_offset(const char *s, size_t n, int64_t *off)
{
    size_t i = 0, k;
    int neg = 0;
    int64_t h, m, sec;
    if (n == 0)
        return 0;
    if (s[0] == '+') {
        i = 1;
    } else if (s[0] == '-') {
        i = 1;
        neg = 1;
    }
    if (!(k = parse_num(s + i, n - i, 0, 24 * 7, &h)))
        return 0;
    i += k;
    *off = h * 3600;
    if (i < n && s[i] == ':') {
        if (!(k = parse_num(s + i + 1, n - i - 1, 0, 59, &m)))
            return 0;
        i += 1 + k;
        *off += m * 60;
        if (i < n && s[i] == ':') {
            if (!(k = parse_num(s + i + 1, n - i - 1, 0, 59, &sec)))
                return 0;
            i += 1 + k;
            *off += sec;
        }
    }
    if (neg)
        *off = -*off;
    return i;
}

/* tzsetRule: Jn, n or Mm.w.d, optionally /time (default 02:00). */
static size_t parse_rule(const char *s, size_t n, cw_tz_rule *r)
{
    size_t i = 0, k;
    int64_t v;
    if (n == 0)
        return 0;
    if (s[0] == 'J') {
        if (!(k = parse_num(s + 1, n - 1, 1, 365, &v)))
            return 0;
        r->kind = 0;
        r->day = (int)v;
        i = 1 + k;
    } else if (s[0] == 'M') {
        int64_t mon, week, day;
        if (!(k = parse_num(s + 1, n - 1, 1, 12, &mon)))
            return 0;
        i = 1 + k;
        if (i >= n || s[i] != '.' || !(k = parse_num(s + i + 1, n - i - 1, 1, 5, &week)))
            return 0;
        i += 1 + k;
        if (i >= n || s[i] != '.' || !(k = parse_num(s + i + 1, n - i - 1, 0, 6, &day)))
            return 0;
        i += 1 + k;
        r->kind = 2;
        r->mon = (int)mon;
        r->week = (int)week;
        r->day = (int)day;
    } else {
        if (!(k = parse_num(s, n, 0, 365, &v)))
            return 0;
        r->kind = 1;
        r->day = (int)v;
        i = k;
    }
    if (i >= n || s[i] != '/') {
        r->time = 2 * 3600;
        return i;
    }
    if (!(k = parse_offset(s + i + 1, n - i - 1, &r->time)))
        return 0;
    return i + 1 + k;
}

int cw_tz_posix_parse(const char *s, size_t n, cw_tz_posix *out)
{
    static const char default_rules[] = ",M3.2.0,M11.1.0"; /* tzcode's default */
    size_t i, k;

    *out = (cw_tz_posix){0};
    if (!(i = parse_name(s, n)) || !(k = parse_offset(s + i, n - i, &out->std_off)))
        return -1;
    i += k;
    /* TZ strings count west of UTC; Go's offsets east. */
    out->std_off = -out->std_off;
    if (i == n || s[i] == ',')
        return 0;
    if (!(k = parse_name(s + i, n - i)))
        return -1;
    i += k;
    if (i == n || s[i] == ',') {
        out->dst_off = out->std_off + 3600;
    } else {
        if (!(k = parse_offset(s + i, n - i, &out->dst_off)))
            return -1;
        i += k;
        out->dst_off = -out->dst_off;
    }
    if (i == n) {
        s = default_rules;
        n = sizeof(default_rules) - 1;
        i = 0;
    }
    /* tzcode also accepts ';' before the rules */
    if (s[i] != ',' && s[i] != ';')
        return -1;
    i++;
    if (!(k = parse_rule(s + i, n - i, &out->start)))
        return -1;
    i += k;
    if (i >= n || s[i] != ',')
        return -1;
    i++;
    if (!(k = parse_rule(s + i, n - i, &out->end)) || i + k != n)
        return -1;
    out->has_dst = 1;
    return 0;
}

static int days_in(int mon, int64_t year)
{
    if (mon == 2 && cw_is_leap(year))
        return 29;
    return days_before[mon] - days_before[mon - 1];
}

/* tzruleTime: seconds after the start of `year` (UTC) at which the rule fires. */
static int64_t rule_time(int64_t year, const cw_tz_rule *r, int64_t off)
{
    int64_t s = 0;
    switch (r->kind) {
    case 0:
        s = (int64_t)(r->day - 1) * SECONDS_PER_DAY;
        if (cw_is_leap(year) && r->day >= 60)
            s += SECONDS_PER_DAY;
        break;
    case 1:
        s = (int64_t)r->day * SECONDS_PER_DAY;
        break;
    default: {
        /* Zeller's congruence, with Go's truncating division. */
        int64_t m1 = (r->mon + 9) % 12 + 1;
        int64_t yy0 = year;
        if (r->mon <= 2)
            yy0--;
        int64_t yy1 = yy0 / 100, yy2 = yy0 % 100;
        int64_t dow = ((26 * m1 - 2) / 10 + 1 + yy2 + yy2 / 4 + yy1 / 4 - 2 * yy1) % 7;
        if (dow < 0)
            dow += 7;
        int64_t d = r->day - dow;
        if (d < 0)
            d += 7;
        for (int i = 1; i < r->week; i++) {
            if (d + 7 >= days_in(r->mon, year))
                break;
            d += 7;
        }
        d += days_before[r->mon - 1];
        if (cw_is_leap(year) && r->mon > 2)
            d++;
        s = d * SECONDS_PER_DAY;
        break;
    }
    }
    return s + r->time - off;
}

void cw_tz_posix_lookup(const cw_tz_posix *p, int64_t last_tx, int64_t sec, int64_t *offset,
                        int64_t *start, int64_t *end)
{
    if (!p->has_dst) {
        *offset = p->std_off;
        *start = last_tx;
        *end = CW_TZ_OMEGA;
        return;
    }
    int64_t days = cw_floordiv(sec, SECONDS_PER_DAY), year;
    int mon, mday;
    cw_civil_from_days(days, &year, &mon, &mday);
    int64_t ystart_days = cw_days_from_civil(year, 1, 1);
    /* Go adds the truncated remainder here, which differs from floor before 1970. */
    int64_t ysec = (days - ystart_days) * SECONDS_PER_DAY + sec % SECONDS_PER_DAY;
    int64_t abs = ystart_days * SECONDS_PER_DAY;
    int64_t std_off = p->std_off, dst_off = p->dst_off;
    int64_t start_sec = rule_time(year, &p->start, std_off);
    int64_t end_sec = rule_time(year, &p->end, dst_off);
    if (end_sec < start_sec) {
        /* southern hemisphere: the "DST" period is the one outside [end, start) */
        int64_t t = start_sec;
        start_sec = end_sec;
        end_sec = t;
        t = std_off;
        std_off = dst_off;
        dst_off = t;
    }
    /* Go ends the last period at start of year + 365 days, even in leap years. */
    if (ysec < start_sec) {
        *offset = std_off;
        *start = abs;
        *end = start_sec + abs;
    } else if (ysec >= end_sec) {
        *offset = std_off;
        *start = end_sec + abs;
        *end = abs + 365 * SECONDS_PER_DAY;
    } else {
        *offset = dst_off;
        *start = start_sec + abs;
        *end = end_sec + abs;
    }
}
