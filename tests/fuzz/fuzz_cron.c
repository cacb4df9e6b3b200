/* cron/: cw_cron_parsen on arbitrary bytes (NUL bytes included), then cw_cron_next_checked
 * from a few fixed instants in a few caller offsets. Invariants, besides no crash, leak or UB:
 *   - parse returns CW_OK or an error with a message (CW_EINVAL; zone loading may add others);
 *   - next returns 1, 0 (past the horizon) or CW_ELIMIT (only for schedules with a zone);
 *   - 1 means next > after, within the five-year horizon;
 *   - without a zone (a fixed offset) the fire time matches the schedule (local second 0,
 *     minute, hour, month and the day rule), nothing fires in between: next(next - 1) == next,
 *     and the following fire time is later still. @every fires exactly `every` later. */
#include "fuzz.h"
#include "cron/cron.h"
#include "cron/tz_internal.h"

#define YEAR9999_END INT64_C(253402300799)

static cw_tzdb tzdb;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    cw_error err;
    cw_error_init(&err);
    FUZZ_CHECK(cw_tzdb_init(&tzdb, NULL, &err) == CW_OK, "%s", err.message);
    return 0;
}

static const int64_t afters[] = {
    0,                     /* 1970-01-01T00:00:00Z */
    951782399,             /* 2000-02-28T23:59:59Z: a leap day follows */
    1710054000,            /* 2024-03-10T07:00:00Z: the US DST gap */
    1730591999,            /* 2024-11-02T23:59:59Z: before the US DST overlap */
    1735689599,            /* 2024-12-31T23:59:59Z: a year ends */
    -2208988800 + 86399,   /* 1900-01-01: no leap year */
    4102444800 - 1,        /* 2099-12-31T23:59:59Z */
    253402300799 - 864000, /* ten days before the end of year 9999 */
};
static const int32_t offsets[] = {0, 19800, -36000, 50400};

static int matches(const cw_cron *c, int64_t t, int32_t off)
{
    int64_t local = t + off;
    int64_t days = cw_floordiv(local, 86400), sod = cw_floormod(local, 86400);
    int64_t y;
    int m, d;
    cw_civil_from_days(days, &y, &m, &d);
    int wday = (int)cw_floormod(days + 4, 7);
    if (sod % 60 != 0 || !(c->minute >> (sod / 60 % 60) & 1) || !(c->hour >> (sod / 3600) & 1) ||
        !(c->month >> m & 1))
        return 0;
    int dom = (c->dom >> d & 1) != 0, dow = (c->dow >> wday & 1) != 0;
    if ((c->dom & CW_CRON_STAR_BIT) || (c->dow & CW_CRON_STAR_BIT))
        return dom && dow;
    return dom || dow;
}

static void check_next(const cw_cron *c, int64_t after, int32_t off)
{
    int64_t next = 0, again = 0;
    int rc = cw_cron_next_checked(c, after, off, &next);
    FUZZ_CHECK(rc == 1 || rc == 0 || (rc == CW_ELIMIT && c->zone), "rc %d after %lld", rc,
               (long long)after);
    if (rc != 1)
        return;
    FUZZ_CHECK(next > after, "next %lld <= after %lld", (long long)next, (long long)after);
    if (c->every > 0) {
        FUZZ_CHECK(next == after + c->every, "@every %lld: %lld after %lld", (long long)c->every,
                   (long long)next, (long long)after);
        return;
    }
    /* the horizon is five calendar years from the year of `after`, plus that year */
    FUZZ_CHECK(next - after <= INT64_C(6) * 366 * 86400 + 86400, "next %lld after %lld",
               (long long)next, (long long)after);
    if (c->zone)
        return; /* DST: robfig's stepping is not "the first match" (see test_cron_next.c) */
    FUZZ_CHECK(matches(c, next, off), "next %lld (offset %d) does not match", (long long)next, off);
    /* next may lie past year 9999, as in robfig; next_checked takes no such `after` */
    if (next - 1 > after && next - 1 <= YEAR9999_END) {
        rc = cw_cron_next_checked(c, next - 1, off, &again);
        FUZZ_CHECK(rc == 1 && again == next, "next(%lld - 1) = %lld (rc %d)", (long long)next,
                   (long long)again, rc);
    }
    rc = cw_cron_next_checked(c, next, off, &again);
    FUZZ_CHECK(rc != 1 || again > next, "next(%lld) = %lld", (long long)next, (long long)again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = fuzz_dup(data, size);
    cw_cron c;
    cw_error err;
    cw_error_init(&err);
    int rc = cw_cron_parsen(spec, size, &tzdb, &c, &err);
    if (rc != CW_OK) {
        FUZZ_CHECK(rc < 0 && err.message[0], "rc %d, message \"%s\"", rc, err.message);
    } else {
        for (size_t i = 0; i < sizeof(afters) / sizeof(afters[0]); i++)
            for (size_t k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++)
                if (!c.zone || k == 0) /* the caller's offset does not matter with a zone */
                    check_next(&c, afters[i], offsets[k]);
    }
    free(spec);
    return 0;
}
