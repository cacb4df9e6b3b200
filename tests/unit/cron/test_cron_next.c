#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "cron/cron.h"
#include "tests/unit/tzdb_fixture.h"

/* Fire times after `from`, shown in from's offset, space-separated; "never" ends a schedule
 * that stops firing, "hang" one on which robfig's Next would never return. */
typedef struct {
    const char *spec, *from, *want;
} next_case;

static void check_next(const next_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cw_cron c;
        cw_error err;
        int64_t t;
        int32_t off;
        cw_buf got;
        if (cw_cron_parse(cases[i].spec, &tzdb, &c, &err) != CW_OK)
            fail_msg("rejected \"%s\": %s", cases[i].spec, err.message);
        assert_int_equal(cw_tz_parse_rfc3339(cases[i].from, &t, &off, &err), CW_OK);
        cw_buf_init(&got);
        /* as many fire times as the expectation lists */
        size_t want_n = 1;
        for (const char *p = cases[i].want; *p; p++)
            want_n += *p == ' ';
        for (size_t k = 0; k < want_n; k++) {
            char buf[CW_TZ_RFC3339_MAX];
            if (k)
                cw_buf_putc(&got, ' ');
            int rc = cw_cron_next_checked(&c, t, off, &t);
            if (rc != 1) {
                cw_buf_puts(&got, rc == 0 ? "never" : rc == CW_ELIMIT ? "hang" : "error");
                break;
            }
            assert_int_equal(cw_tz_format_rfc3339(t, off, buf, sizeof(buf)), CW_OK);
            cw_buf_puts(&got, buf);
        }
        if (strcmp(cw_buf_str(&got), cases[i].want) != 0)
            fail_msg("\"%s\" from %s:\n got  %s\n want %s", cases[i].spec, cases[i].from,
                     cw_buf_str(&got), cases[i].want);
        cw_buf_free(&got);
    }
}

#define CHECK_NEXT(t) check_next(t, sizeof(t) / sizeof(t[0]))

static void fires_strictly_after_from(void **state)
{
    (void)state;
    static const next_case t[] = {
        {"0 0 * * *", "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z 2024-01-03T00:00:00Z"},
        {"0 0 * * *", "2023-12-31T23:59:59Z", "2024-01-01T00:00:00Z"},
        {"0 0 * * *", "2023-12-31T23:59:59.999Z", "2024-01-01T00:00:00Z"},
        {"* * * * *", "2024-05-05T10:07:30Z", "2024-05-05T10:08:00Z 2024-05-05T10:09:00Z"},
        {"*/15 * * * *", "2024-05-05T10:07:30Z",
         "2024-05-05T10:15:00Z 2024-05-05T10:30:00Z 2024-05-05T10:45:00Z 2024-05-05T11:00:00Z"},
        {"5/20 * * * *", "2024-05-05T10:00:00Z",
         "2024-05-05T10:05:00Z 2024-05-05T10:25:00Z 2024-05-05T10:45:00Z 2024-05-05T11:05:00Z"},
        {"0 */6 * * *", "2024-05-05T05:59:59Z", "2024-05-05T06:00:00Z 2024-05-05T12:00:00Z"},
        {"30 1 * * 1-5", "2024-05-03T02:00:00Z", "2024-05-06T01:30:00Z 2024-05-07T01:30:00Z"},
        {"0 3 1 * *", "2024-01-31T04:00:00Z", "2024-02-01T03:00:00Z 2024-03-01T03:00:00Z"},
        {"0 0 31 * *", "2024-01-31T00:00:00Z", "2024-03-31T00:00:00Z 2024-05-31T00:00:00Z"},
        {"0 12 * JAN,JUL *", "2024-01-31T12:00:00Z", "2024-07-01T12:00:00Z"},
        {"@hourly", "2024-05-05T10:00:00Z", "2024-05-05T11:00:00Z"},
        {"@daily", "2024-05-05T10:00:00Z", "2024-05-06T00:00:00Z"},
        {"@weekly", "2024-05-05T00:00:00Z", "2024-05-12T00:00:00Z"}, /* Sundays */
        {"@monthly", "2024-05-05T00:00:00Z", "2024-06-01T00:00:00Z"},
        {"@yearly", "2024-05-05T00:00:00Z", "2025-01-01T00:00:00Z"},
        {"@annually", "2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"},
        {", * * * *", "2024-01-01T00:00:00Z", "never"}, /* no minute at all */
    };
    CHECK_NEXT(t);
}

static void applies_the_day_field_rule(void **state)
{
    (void)state;
    static const next_case t[] = {
        /* both restricted: either matches (2024-01-01 was a Monday) */
        {"0 0 1-31 * MON", "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z 2024-01-03T00:00:00Z"},
        {"0 0 13 * FRI", "2024-09-01T00:00:00Z",
         "2024-09-06T00:00:00Z 2024-09-13T00:00:00Z 2024-09-20T00:00:00Z"},
        {"0 0 */2 * MON", "2024-01-01T00:00:00Z",
         "2024-01-03T00:00:00Z 2024-01-05T00:00:00Z 2024-01-07T00:00:00Z 2024-01-08T00:00:00Z"},
        /* one unrestricted ("*", "?" or "*\/1"): both must match */
        {"0 0 * * MON", "2024-01-01T00:00:00Z", "2024-01-08T00:00:00Z 2024-01-15T00:00:00Z"},
        {"0 0 ? * MON", "2024-01-01T00:00:00Z", "2024-01-08T00:00:00Z"},
        {"0 0 */1 * MON", "2024-01-01T00:00:00Z", "2024-01-08T00:00:00Z"},
        {"0 0 13 * *", "2024-09-01T00:00:00Z", "2024-09-13T00:00:00Z 2024-10-13T00:00:00Z"},
        {"0 0 13 * ?", "2024-09-01T00:00:00Z", "2024-09-13T00:00:00Z"},
        {"0 0 13 * */1", "2024-09-01T00:00:00Z", "2024-09-13T00:00:00Z"},
        {"0 0 1 * *-3", "2024-09-02T00:00:00Z", "2024-10-01T00:00:00Z"}, /* "*-3" is "*" */
        {"0 0 * * SUN,SAT", "2024-05-01T00:00:00Z", "2024-05-04T00:00:00Z 2024-05-05T00:00:00Z"},
        {"0 0 * * 0", "2024-05-01T00:00:00Z", "2024-05-05T00:00:00Z"},
    };
    CHECK_NEXT(t);
}

static void handles_years_and_leap_days(void **state)
{
    (void)state;
    static const next_case t[] = {
        {"0 0 1 1 *", "2024-12-31T23:59:59Z", "2025-01-01T00:00:00Z 2026-01-01T00:00:00Z"},
        {"59 23 31 12 *", "2024-12-31T23:59:00Z", "2025-12-31T23:59:00Z"},
        {"0 0 29 2 *", "2024-03-01T00:00:00Z", "2028-02-29T00:00:00Z 2032-02-29T00:00:00Z"},
        {"0 0 29 2 *", "2024-02-28T12:00:00Z", "2024-02-29T00:00:00Z"},
        /* 2100 is no leap year and 2104 lies past robfig's five-year horizon */
        {"0 0 29 2 *", "2097-03-01T00:00:00Z", "never"},
        {"0 0 29 2 *", "2099-03-01T00:00:00Z", "2104-02-29T00:00:00Z"},
        {"0 0 30 2 *", "2024-01-01T00:00:00Z", "never"},
        {"0 0 31 4,6,9,11 *", "2024-01-01T00:00:00Z", "never"},
        {"0 0 31 4,6,9,11 MON", "2024-01-01T00:00:00Z", "2024-04-01T00:00:00Z"},
        {"0 0 29 2 MON", "2024-01-01T00:00:00Z", "2024-02-05T00:00:00Z 2024-02-12T00:00:00Z"},
    };
    CHECK_NEXT(t);
}

static void evaluates_in_the_callers_offset(void **state)
{
    (void)state;
    static const next_case t[] = {
        {"0 0 * * *", "2024-01-01T00:00:00+05:30", "2024-01-02T00:00:00+05:30"},
        {"0 9 * * *", "2024-01-01T10:00:00-08:00", "2024-01-02T09:00:00-08:00"},
        {"30 23 31 12 *", "2024-12-31T23:00:00+14:00", "2024-12-31T23:30:00+14:00"},
        {"0 0 * * MON", "2024-01-07T23:00:00-12:00", "2024-01-08T00:00:00-12:00"},
        {"15 * * * *", "2024-01-01T00:20:00+09:45", "2024-01-01T01:15:00+09:45"},
        /* a zone prefix wins over the caller's offset; results stay in the caller's offset */
        {"TZ=UTC 0 0 * * *", "2024-01-01T12:00:00+05:30",
         "2024-01-02T05:30:00+05:30 2024-01-03T05:30:00+05:30"},
        {"CRON_TZ=Asia/Kolkata 0 0 * * *", "2024-01-01T00:00:00Z",
         "2024-01-01T18:30:00Z 2024-01-02T18:30:00Z"},
        {"TZ=Local 0 0 * * *", "2024-01-01T00:00:00+05:30", "2024-01-02T00:00:00+05:30"},
        {"TZ= 0 0 * * *", "2024-01-01T00:00:00+05:30", "2024-01-01T05:30:00+05:30"},
    };
    CHECK_NEXT(t);
}

static void follows_dst_in_new_york(void **state)
{
    (void)state;
    static const next_case t[] = {
        /* spring forward, 2024-03-10 02:00 EST -> 03:00 EDT: 02:30 does not exist that day */
        {"TZ=America/New_York 30 2 * * *", "2024-03-09T08:00:00Z",
         "2024-03-11T06:30:00Z 2024-03-12T06:30:00Z"},
        {"TZ=America/New_York 0 * * * *", "2024-03-10T05:30:00Z",
         "2024-03-10T06:00:00Z 2024-03-10T07:00:00Z 2024-03-10T08:00:00Z"},
        {"TZ=America/New_York 0 0 * * *", "2024-03-09T12:00:00Z",
         "2024-03-10T05:00:00Z 2024-03-11T04:00:00Z 2024-03-12T04:00:00Z"},
        {"TZ=America/New_York 0 3 * * *", "2024-03-09T12:00:00Z",
         "2024-03-10T07:00:00Z 2024-03-11T07:00:00Z"},
        /* fall back, 2024-11-03 02:00 EDT -> 01:00 EST: the 01:xx hour happens twice */
        {"TZ=America/New_York 0 * * * *", "2024-11-03T04:30:00Z",
         "2024-11-03T05:00:00Z 2024-11-03T06:00:00Z 2024-11-03T07:00:00Z 2024-11-03T08:00:00Z"},
        {"TZ=America/New_York 30 1 * * *", "2024-11-03T04:00:00Z",
         "2024-11-03T05:30:00Z 2024-11-03T06:30:00Z 2024-11-04T06:30:00Z"},
        {"TZ=America/New_York 0 0 * * *", "2024-11-02T12:00:00Z",
         "2024-11-03T04:00:00Z 2024-11-04T05:00:00Z"},
        /* shown in the caller's own offset */
        {"TZ=America/New_York 0 2 * * *", "2024-03-09T00:00:00-08:00",
         "2024-03-10T22:00:00-08:00 2024-03-11T22:00:00-08:00"},
        /* after 2037 the times come from the file's POSIX rule */
        {"TZ=America/New_York 30 2 * * *", "2040-03-10T12:00:00Z",
         "2040-03-12T06:30:00Z 2040-03-13T06:30:00Z"},
        {"TZ=America/New_York 0 * * * *", "2040-11-04T04:30:00Z",
         "2040-11-04T05:00:00Z 2040-11-04T06:00:00Z 2040-11-04T07:00:00Z"},
    };
    CHECK_NEXT(t);
}

static void follows_dst_in_berlin(void **state)
{
    (void)state;
    static const next_case t[] = {
        /* 2024-03-31 02:00 CET -> 03:00 CEST */
        {"TZ=Europe/Berlin 30 2 * * *", "2024-03-30T12:00:00Z",
         "2024-04-01T00:30:00Z 2024-04-02T00:30:00Z"},
        {"TZ=Europe/Berlin 0 * * * *", "2024-03-31T00:00:00Z",
         "2024-03-31T01:00:00Z 2024-03-31T02:00:00Z 2024-03-31T03:00:00Z"},
        {"CRON_TZ=Europe/Berlin @daily", "2024-03-30T12:00:00Z",
         "2024-03-30T23:00:00Z 2024-03-31T22:00:00Z"},
        /* 2024-10-27 03:00 CEST -> 02:00 CET */
        {"TZ=Europe/Berlin 30 2 * * *", "2024-10-26T12:00:00Z",
         "2024-10-27T00:30:00Z 2024-10-27T01:30:00Z 2024-10-28T01:30:00Z"},
        {"TZ=Europe/Berlin 0 * * * *", "2024-10-26T23:00:00Z",
         "2024-10-27T00:00:00Z 2024-10-27T01:00:00Z 2024-10-27T02:00:00Z 2024-10-27T03:00:00Z"},
        {"TZ=Europe/Berlin 0 0 * * *", "2024-10-26T12:00:00+02:00",
         "2024-10-27T00:00:00+02:00 2024-10-28T01:00:00+02:00"},
    };
    CHECK_NEXT(t);
}

static void handles_odd_offsets_and_midnight_jumps(void **state)
{
    (void)state;
    static const next_case t[] = {
        {"TZ=Asia/Kolkata 0 * * * *", "2024-01-01T00:00:00Z",
         "2024-01-01T00:30:00Z 2024-01-01T01:30:00Z"},
        {"TZ=Asia/Kathmandu 0 0 * * *", "2024-01-01T00:00:00Z", "2024-01-01T18:15:00Z"},
        /* Lord Howe moves its clocks by 30 minutes */
        {"TZ=Australia/Lord_Howe 15 2 * * *", "2024-10-05T00:00:00Z",
         "2024-10-06T15:15:00Z 2024-10-07T15:15:00Z"},
        /* Sao Paulo's 2018 DST began at midnight: robfig skips that day for 0 0 * * * */
        {"TZ=America/Sao_Paulo 0 0 * * *", "2018-11-03T12:00:00Z",
         "2018-11-05T02:00:00Z 2018-11-06T02:00:00Z"},
        /* before 1883 New York kept local mean time, UTC-4:56:02: robfig truncates minutes
         * in absolute time, then steps seconds until the local second is 0 */
        {"TZ=America/New_York 0 0 * * *", "1880-06-01T00:00:00Z",
         "1880-06-01T04:56:02Z 1880-06-02T04:56:02Z"},
        {"TZ=America/New_York 30 * * * *", "1880-06-01T00:00:00Z",
         "1880-06-01T01:26:02Z 1880-06-01T02:26:02Z"},
        {"TZ=Asia/Kolkata 0 0 * * *", "1880-06-01T00:00:00Z", "1880-06-01T18:38:50Z"},
        /* Samoa skipped 30 December 2011: stepping a day from the 29th gives the 29th again,
         * and robfig loops forever; so does any schedule that must step over that day */
        {"TZ=Pacific/Apia 0 12 30 12 *", "2011-12-01T00:00:00Z", "hang"},
        {"TZ=Pacific/Apia 0 0 1 * *", "2011-12-15T00:00:00Z", "hang"},
        {"TZ=Pacific/Apia 0 0 * * *", "2011-12-28T12:00:00Z",
         "2011-12-29T10:00:00Z 2011-12-30T10:00:00Z"},
        {"TZ=Pacific/Apia 0 * * * *", "2011-12-29T09:30:00Z",
         "2011-12-29T10:00:00Z 2011-12-29T11:00:00Z"},
        {"TZ=Pacific/Apia 0 12 31 12 *", "2011-12-29T12:00:00Z", "hang"},
        {"TZ=Pacific/Apia 0 12 31 12 *", "2011-12-30T12:00:00Z", "2011-12-30T22:00:00Z"},
    };
    CHECK_NEXT(t);
}

static void every_is_not_clock_aligned(void **state)
{
    (void)state;
    static const next_case t[] = {
        {"@every 90m", "2024-01-01T00:00:30+05:30",
         "2024-01-01T01:30:30+05:30 2024-01-01T03:00:30+05:30"},
        {"@every 500ms", "2024-01-01T00:00:00.750Z", "2024-01-01T00:00:01Z 2024-01-01T00:00:02Z"},
        {"@every 1h0.9s", "2024-01-01T00:00:07Z", "2024-01-01T01:00:07Z"},
        {"TZ=America/New_York @every 1h", "2024-11-03T05:30:00Z",
         "2024-11-03T06:30:00Z 2024-11-03T07:30:00Z"},
        {"@every 24h", "2024-03-09T12:00:00-05:00", "2024-03-10T12:00:00-05:00"},
    };
    CHECK_NEXT(t);
}

static void reports_bad_input_and_endless_loops(void **state)
{
    (void)state;
    cw_cron c;
    cw_error err;
    int64_t next;
    assert_int_equal(cw_cron_parse("* * * * *", &tzdb, &c, &err), CW_OK);
    assert_int_equal(cw_cron_next_checked(&c, INT64_MAX, 0, &next), CW_EINVAL);
    assert_int_equal(cw_cron_next_checked(&c, -62167219201, 0, &next), CW_EINVAL);
    assert_int_equal(cw_cron_next(&c, INT64_MAX, 0, &next), 0);
    assert_int_equal(cw_cron_next_checked(&c, -62167219200, 0, &next), 1);
    assert_int_equal(next, -62167219200 + 60);
    /* the plain form reports robfig's endless loop as "does not fire" */
    assert_int_equal(cw_cron_parse("TZ=Pacific/Apia 0 0 1 * *", &tzdb, &c, &err), CW_OK);
    assert_int_equal(cw_cron_next_checked(&c, 1323907200, 0, &next), CW_ELIMIT);
    assert_int_equal(cw_cron_next(&c, 1323907200, 0, &next), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fires_strictly_after_from),
        cmocka_unit_test(applies_the_day_field_rule),
        cmocka_unit_test(handles_years_and_leap_days),
        cmocka_unit_test(evaluates_in_the_callers_offset),
        cmocka_unit_test(follows_dst_in_new_york),
        cmocka_unit_test(follows_dst_in_berlin),
        cmocka_unit_test(handles_odd_offsets_and_midnight_jumps),
        cmocka_unit_test(every_is_not_clock_aligned),
        cmocka_unit_test(reports_bad_input_and_endless_loops),
    };
    return cmocka_run_group_tests(tests, tzdb_setup, tzdb_teardown);
}
