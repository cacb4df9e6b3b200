/* Internal to cron/tz*.c and cron/cron*.c: proleptic Gregorian calendar arithmetic and the POSIX TZ
 * rule ("TZ string") that TZif v2+ files carry for times after their last transition. */
#ifndef CW_TZ_INTERNAL_H
#define CW_TZ_INTERNAL_H

#include <stdint.h>

#define CW_TZ_ALPHA INT64_MIN /* Go's alpha/omega: the open ends of a zone period */
#define CW_TZ_OMEGA INT64_MAX

static inline int64_t cw_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static inline int64_t cw_floormod(int64_t a, int64_t b)
{
    return a - cw_floordiv(a, b) * b;
}

static inline int cw_is_leap(int64_t y)
{
    return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

/* Days since 1970-01-01 of y-m-d, m in 1..12 (H. Hinnant's algorithm). */
static inline int64_t cw_days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = cw_floordiv(y, 400);
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static inline void cw_civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = cw_floordiv(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

/* A parsed POSIX TZ rule; see Go's time.tzset. */
typedef struct cw_tz_rule {
    int kind; /* 0 Julian (Jn), 1 day of year (n), 2 month.week.day (Mm.w.d) */
    int day, week, mon;
    int64_t time; /* seconds after local midnight */
} cw_tz_rule;

typedef struct cw_tz_posix {
    int has_dst;
    int64_t std_off, dst_off; /* seconds east of UTC */
    cw_tz_rule start, end;
} cw_tz_posix;

/* Parses a TZ string as Go's tzset does; returns 0 on success, -1 when Go would reject it. */
int cw_tz_posix_parse(const char *s, size_t n, cw_tz_posix *out);
/* The zone period containing `sec`, exactly as Go's tzset computes it (quirks included). */
void cw_tz_posix_lookup(const cw_tz_posix *p, int64_t last_tx, int64_t sec, int64_t *offset,
                        int64_t *start, int64_t *end);

#endif
