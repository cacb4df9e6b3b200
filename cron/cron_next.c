/* robfig/cron v3.0.1 SpecSchedule.Next and ConstantDelaySchedule.Next, ported step by step.
 * Times are unix seconds in a zone (a loaded cw_tz, or the caller's fixed offset); every Go
 * time.Date / AddDate goes through cw_tz_local_to_utc so DST gaps and overlaps resolve as in Go. */
#include "cron/cron.h"
#include "cron/tz_internal.h"

#define YEAR0_UNIX   INT64_C(-62167219200) /* 0000-01-01T00:00:00Z */
#define YEAR9999_END INT64_C(253402300799) /* 9999-12-31T23:59:59Z */
/* Far above the ~2.7 million steps of the slowest schedule that does finish (no minute ever
 * matches, five years of minutes); only a schedule robfig would never finish gets here. */
#define MAX_STEPS 20000000

typedef struct where {
    const cw_tz *zone; /* NULL: fixed offset */
    int32_t fixed;
} where;

typedef struct civil {
    int64_t year;
    int month, day, hour, min, sec, wday;
} civil;

static int32_t offset_at(const where *w, int64_t t)
{
    return w->zone ? cw_tz_offset_at(w->zone, t) : w->fixed;
}

static int64_t stable_until(const where *w, int64_t t)
{
    return w->zone ? cw_tz_stable_until(w->zone, t) : INT64_MAX;
}

/* t.Date(), t.Clock(), t.Weekday() in the schedule's zone */
static civil split(const where *w, int64_t t)
{
    civil c;
    int64_t local = t + offset_at(w, t);
    int64_t days = cw_floordiv(local, 86400), sod = cw_floormod(local, 86400);
    cw_civil_from_days(days, &c.year, &c.month, &c.day);
    c.hour = (int)(sod / 3600);
    c.min = (int)(sod / 60 % 60);
    c.sec = (int)(sod % 60);
    c.wday = (int)cw_floormod(days + 4, 7); /* 1970-01-01 was a Thursday */
    return c;
}

/* time.Date with month (1..13) and day (1..32) overflow normalised as Go does. */
static int64_t date(const where *w, int64_t year, int month, int day, int hour, int min, int sec)
{
    if (month > 12) {
        year += (month - 1) / 12;
        month = (month - 1) % 12 + 1;
    }
    int64_t local =
        (cw_days_from_civil(year, month, 1) + day - 1) * 86400 + hour * 3600 + min * 60 + sec;
    return w->zone ? cw_tz_local_to_utc(w->zone, local) : local - w->fixed;
}

static int day_matches(const cw_cron *s, const civil *c)
{
    int dom = (s->dom >> c->day & 1) != 0;
    int dow = (s->dow >> c->wday & 1) != 0;
    if ((s->dom & CW_CRON_STAR_BIT) || (s->dow & CW_CRON_STAR_BIT))
        return dom && dow;
    return dom || dow;
}

int cw_cron_next_checked(const cw_cron *s, int64_t after, int32_t caller_offset, int64_t *next)
{
    if (after < YEAR0_UNIX || after > YEAR9999_END)
        return CW_EINVAL;
    if (s->every > 0) {
        /* not aligned to the clock: from + delay */
        if (after > INT64_MAX - s->every)
            return 0;
        *next = after + s->every;
        return 1;
    }

    const where w = {s->zone, caller_offset};
    int64_t t = after + 1, prev; /* the upcoming second */
    int added = 0;
    long steps = 0;
    civil c = split(&w, t);
    const int64_t year_limit = c.year + 5;

wrap:
    c = split(&w, t);
    if (c.year > year_limit)
        return 0;
    if (++steps > MAX_STEPS)
        return CW_ELIMIT;

    while (!(s->month >> c.month & 1)) {
        if (!added) {
            added = 1;
            t = date(&w, c.year, c.month, 1, 0, 0, 0);
            c = split(&w, t);
        }
        prev = t;
        t = date(&w, c.year, c.month + 1, c.day, c.hour, c.min, c.sec); /* AddDate(0, 1, 0) */
        if (t == prev)
            return CW_ELIMIT;
        c = split(&w, t);
        if (c.month == 1)
            goto wrap;
    }

    while (!day_matches(s, &c)) {
        if (!added) {
            added = 1;
            t = date(&w, c.year, c.month, c.day, 0, 0, 0);
            c = split(&w, t);
        }
        prev = t;
        t = date(&w, c.year, c.month, c.day + 1, c.hour, c.min, c.sec); /* AddDate(0, 0, 1) */
        c = split(&w, t);
        /* midnight may not exist after a DST jump: move back to it, as robfig does */
        if (c.hour != 0) {
            t += c.hour > 12 ? (int64_t)(24 - c.hour) * 3600 : -(int64_t)c.hour * 3600;
            c = split(&w, t);
        }
        /* A whole skipped day (Pacific/Apia, 30 December 2011) maps back onto the same
         * instant: robfig spins here forever. */
        if (t == prev || ++steps > MAX_STEPS)
            return CW_ELIMIT;
        if (c.day == 1)
            goto wrap;
    }

    while (!(s->hour >> c.hour & 1)) {
        if (!added) {
            added = 1;
            t = date(&w, c.year, c.month, c.day, c.hour, 0, 0);
            c = split(&w, t);
        }
        /* Where the offset cannot change, skip the hours robfig would step through without a
         * match or a wrap; the last step below is taken as robfig takes it. */
        int k = 1;
        while ((c.hour + k) % 24 != 0 && !(s->hour >> (c.hour + k) & 1))
            k++;
        if (k > 1 && t + (int64_t)(k - 1) * 3600 < stable_until(&w, t)) {
            t += (int64_t)(k - 1) * 3600;
            steps += k - 1;
        }
        t += 3600;
        c = split(&w, t);
        if (++steps > MAX_STEPS)
            return CW_ELIMIT;
        if (c.hour == 0)
            goto wrap;
    }

    while (!(s->minute >> c.min & 1)) {
        if (!added) {
            added = 1;
            t -= cw_floormod(t, 60); /* Truncate(time.Minute) is absolute, not local */
            c = split(&w, t);
        }
        int k = 1; /* as for hours */
        while ((c.min + k) % 60 != 0 && !(s->minute >> (c.min + k) & 1))
            k++;
        if (k > 1 && t + (int64_t)(k - 1) * 60 < stable_until(&w, t)) {
            t += (int64_t)(k - 1) * 60;
            steps += k - 1;
        }
        t += 60;
        c = split(&w, t);
        if (++steps > MAX_STEPS)
            return CW_ELIMIT;
        if (c.min == 0)
            goto wrap;
    }

    /* ParseStandard's seconds field is "0" */
    while (c.sec != 0) {
        if (!added)
            added = 1;
        t += 1;
        c = split(&w, t);
        if (++steps > MAX_STEPS)
            return CW_ELIMIT;
        if (c.sec == 0)
            goto wrap;
    }

    *next = t;
    return 1;
}

int cw_cron_next(const cw_cron *s, int64_t after, int32_t caller_offset, int64_t *next)
{
    return cw_cron_next_checked(s, after, caller_offset, next) == 1;
}
