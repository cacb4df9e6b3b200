#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cron/cron.h"
#include "tests/unit/tzdb_fixture.h"

#define STAR CW_CRON_STAR_BIT
/* bits lo..hi */
#define SPAN(lo, hi) ((~UINT64_C(0) >> (63 - (hi))) & (~UINT64_C(0) << (lo)))
#define B(n)         (UINT64_C(1) << (n))

typedef struct {
    const char *spec;
    const char *error;
} reject_case;

static void check_rejects(const reject_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cw_cron c;
        cw_error err;
        cw_error_init(&err);
        int rc = cw_cron_parse(cases[i].spec, &tzdb, &c, &err);
        if (rc != CW_EINVAL)
            fail_msg("accepted \"%s\"", cases[i].spec);
        if (strcmp(err.message, cases[i].error) != 0)
            fail_msg("\"%s\":\n got  %s\n want %s", cases[i].spec, err.message, cases[i].error);
    }
}

#define CHECK_REJECTS(t) check_rejects(t, sizeof(t) / sizeof(t[0]))

static void rejects_empty_and_field_counts(void **state)
{
    (void)state;
    static const reject_case t[] = {
        {"", "empty spec string"},
        {" ", "expected exactly 5 fields, found 0: []"},
        {"\t\n", "expected exactly 5 fields, found 0: []"},
        {"* * * *", "expected exactly 5 fields, found 4: [* * * *]"},
        {"0 * * * * *", "expected exactly 5 fields, found 6: [0 * * * * *]"},
        {"  1\t2\n3  ", "expected exactly 5 fields, found 3: [1 2 3]"},
        /* U+00A0 and U+3000 are spaces to Go; U+200B (zero width) is not */
        {"1\xc2\xa0"
         "2\xe3\x80\x80"
         "3",
         "expected exactly 5 fields, found 3: [1 2 3]"},
        {"1\xe2\x80\x8b"
         "2 3 4 5",
         "expected exactly 5 fields, found 4: [1\xe2\x80\x8b"
         "2 3 4 5]"},
        {" @daily", "expected exactly 5 fields, found 1: [@daily]"},
        {"tz=UTC 0 0 * * *", "expected exactly 5 fields, found 6: [tz=UTC 0 0 * * *]"},
    };
    CHECK_REJECTS(t);
}

static void rejects_bad_values_with_robfig_texts(void **state)
{
    (void)state;
    static const reject_case t[] = {
        {"60 * * * *", "end of range (60) above maximum (59): 60"},
        {"* 24 * * *", "end of range (24) above maximum (23): 24"},
        {"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
        {"* * 32 * *", "end of range (32) above maximum (31): 32"},
        {"* * * 0 *", "beginning of range (0) below minimum (1): 0"},
        {"* * * 13 *", "end of range (13) above maximum (12): 13"},
        {"0 0 * * 7", "end of range (7) above maximum (6): 7"},
        {"0 0 * * 1-7", "end of range (7) above maximum (6): 1-7"},
        {"5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"},
        {"0 0 * * FRI-MON", "beginning of range (5) beyond end of range (1): FRI-MON"},
        {"70/5 * * * *", "beginning of range (70) beyond end of range (59): 70/5"},
        {"1-2-3 * * * *", "too many hyphens: 1-2-3"},
        {"1/2/3 * * * *", "too many slashes: 1/2/3"},
        {"*/2/3 * * * *", "too many slashes: */2/3"},
        {"*/0 * * * *", "step of range should be a positive number: */0"},
        {"1-5/0 * * * *", "step of range should be a positive number: 1-5/0"},
        {"*/-1 * * * *", "negative number (-1) not allowed: -1"},
        {"0 0 1-5/-02 * *", "negative number (-2) not allowed: -02"},
        /* a leading '-' is a range separator, so the start is empty */
        {"-1 * * * *", "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax"},
        {"*/ * * * *", "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax"},
        {"1- * * * *", "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax"},
        {"a * * * *", "failed to parse int from a: strconv.Atoi: parsing \"a\": invalid syntax"},
        {"+ * * * *", "failed to parse int from +: strconv.Atoi: parsing \"+\": invalid syntax"},
        {"0x1F * * * *",
         "failed to parse int from 0x1F: strconv.Atoi: parsing \"0x1F\": invalid syntax"},
        {"1_0 * * * *",
         "failed to parse int from 1_0: strconv.Atoi: parsing \"1_0\": invalid syntax"},
        {"99999999999999999999 * * * *",
         "failed to parse int from 99999999999999999999: strconv.Atoi: parsing "
         "\"99999999999999999999\": value out of range"},
        /* Go reports the overflow before it reaches the bad byte */
        {"99999999999999999999x * * * *",
         "failed to parse int from 99999999999999999999x: strconv.Atoi: parsing "
         "\"99999999999999999999x\": value out of range"},
        {"9223372036854775807 * * * *",
         "end of range (9223372036854775807) above maximum (59): 9223372036854775807"},
        {"9223372036854775808 * * * *",
         "failed to parse int from 9223372036854775808: strconv.Atoi: parsing "
         "\"9223372036854775808\": value out of range"},
        {"*/-9223372036854775808 * * * *",
         "negative number (-9223372036854775808) not allowed: -9223372036854775808"},
        /* not in this dialect */
        {"0 0 L * *", "failed to parse int from L: strconv.Atoi: parsing \"L\": invalid syntax"},
        {"0 0 15W * *",
         "failed to parse int from 15W: strconv.Atoi: parsing \"15W\": invalid syntax"},
        {"0 0 * * 1#2",
         "failed to parse int from 1#2: strconv.Atoi: parsing \"1#2\": invalid syntax"},
        {"H * * * *", "failed to parse int from H: strconv.Atoi: parsing \"H\": invalid syntax"},
        {"0 0 * * 5L", "failed to parse int from 5L: strconv.Atoi: parsing \"5L\": invalid syntax"},
        /* the first failing field wins */
        {"x 99 * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"},
        {"0 99 x * *", "end of range (99) above maximum (23): 99"},
    };
    CHECK_REJECTS(t);
}

static void rejects_names_outside_month_and_weekday(void **state)
{
    (void)state;
    static const reject_case t[] = {
        {"JAN * * * *",
         "failed to parse int from JAN: strconv.Atoi: parsing \"JAN\": invalid syntax"},
        {"0 0 MON * *",
         "failed to parse int from MON: strconv.Atoi: parsing \"MON\": invalid syntax"},
        {"0 0 * MON *",
         "failed to parse int from MON: strconv.Atoi: parsing \"MON\": invalid syntax"},
        {"0 0 * * JAN",
         "failed to parse int from JAN: strconv.Atoi: parsing \"JAN\": invalid syntax"},
        {"0 0 * JANUARY *",
         "failed to parse int from JANUARY: strconv.Atoi: parsing \"JANUARY\": invalid syntax"},
        {"0 0 * * MONDAY",
         "failed to parse int from MONDAY: strconv.Atoi: parsing \"MONDAY\": invalid syntax"},
        {"0 0 * * */MON",
         "failed to parse int from MON: strconv.Atoi: parsing \"MON\": invalid syntax"},
        {"0 0 * * SUN-SAT/TUE",
         "failed to parse int from TUE: strconv.Atoi: parsing \"TUE\": invalid syntax"},
        {"0 0 * * MON-SUN", "beginning of range (1) beyond end of range (0): MON-SUN"},
    };
    CHECK_REJECTS(t);
}

static void quotes_like_strconv_quote(void **state)
{
    (void)state;
    /* Field text is printed raw, the Atoi input through strconv.Quote. */
    static const reject_case t[] = {
        {"\x01 * * * *",
         "failed to parse int from \x01: strconv.Atoi: parsing \"\\x01\": invalid syntax"},
        {"\x7f * * * *",
         "failed to parse int from \x7f: strconv.Atoi: parsing \"\\x7f\": invalid syntax"},
        {"\"5\" * * * *",
         "failed to parse int from \"5\": strconv.Atoi: parsing \"\\\"5\\\"\": invalid syntax"},
        {"a\\b * * * *",
         "failed to parse int from a\\b: strconv.Atoi: parsing \"a\\\\b\": invalid syntax"},
        {"\xc3\xa9 * * * *", /* é is printable: kept */
         "failed to parse int from \xc3\xa9: strconv.Atoi: parsing \"\xc3\xa9\": invalid syntax"},
        {"\xc2\xad * * * *", /* soft hyphen: not printable */
         "failed to parse int from \xc2\xad: strconv.Atoi: parsing \"\\u00ad\": invalid syntax"},
        {"1\xe2\x80\x8b * * * *", /* zero width space */
         "failed to parse int from 1\xe2\x80\x8b: strconv.Atoi: parsing \"1\\u200b\": invalid "
         "syntax"},
        {"\xf3\xa0\x80\x81 * * * *", /* U+E0001 language tag */
         "failed to parse int from \xf3\xa0\x80\x81: strconv.Atoi: parsing \"\\U000e0001\": "
         "invalid syntax"},
        {"\xf0\x9f\x98\x80 * * * *", /* emoji: printable */
         "failed to parse int from \xf0\x9f\x98\x80: strconv.Atoi: parsing \"\xf0\x9f\x98\x80\": "
         "invalid syntax"},
        {"\xff * * * *", /* invalid UTF-8 */
         "failed to parse int from \xff: strconv.Atoi: parsing \"\\xff\": invalid syntax"},
        {"\xed\xa0\x80 * * * *", /* an encoded surrogate is three invalid bytes */
         "failed to parse int from \xed\xa0\x80: strconv.Atoi: parsing \"\\xed\\xa0\\x80\": "
         "invalid syntax"},
        {"1\xe2\x80\x93"
         "5 * * * *", /* en dash is no hyphen */
         "failed to parse int from 1\xe2\x80\x93"
         "5: strconv.Atoi: parsing \"1\xe2\x80\x93"
         "5\": "
         "invalid syntax"},
    };
    CHECK_REJECTS(t);
}

static void rejects_descriptors_and_durations(void **state)
{
    (void)state;
    static const reject_case t[] = {
        {"@reboot", "unrecognized descriptor: @reboot"},
        {"@DAILY", "unrecognized descriptor: @DAILY"},
        {"@Hourly", "unrecognized descriptor: @Hourly"},
        {"@daily ", "unrecognized descriptor: @daily "},
        {"@", "unrecognized descriptor: @"},
        {"@every", "unrecognized descriptor: @every"},
        {"@every1h", "unrecognized descriptor: @every1h"},
        {"@every ", "failed to parse duration @every : time: invalid duration \"\""},
        {"@every  1h", "failed to parse duration @every  1h: time: invalid duration \" 1h\""},
        {"@every 1h ",
         "failed to parse duration @every 1h : time: unknown unit \"h \" in duration \"1h \""},
        {"@every 1d", "failed to parse duration @every 1d: time: unknown unit \"d\" in duration "
                      "\"1d\""},
        {"@every 1H", "failed to parse duration @every 1H: time: unknown unit \"H\" in duration "
                      "\"1H\""},
        {"@every 10", "failed to parse duration @every 10: time: missing unit in duration \"10\""},
        {"@every -", "failed to parse duration @every -: time: invalid duration \"-\""},
        {"@every .s", "failed to parse duration @every .s: time: invalid duration \".s\""},
        {"@every 1e3s",
         "failed to parse duration @every 1e3s: time: unknown unit \"e\" in duration \"1e3s\""},
        {"@every 1h-5m",
         "failed to parse duration @every 1h-5m: time: unknown unit \"h-\" in duration "
         "\"1h-5m\""},
        {"@every 9223372036854775808ns",
         "failed to parse duration @every 9223372036854775808ns: time: invalid duration "
         "\"9223372036854775808ns\""},
        {"@every 2562048h",
         "failed to parse duration @every 2562048h: time: invalid duration \"2562048h\""},
        {"@every 2562047h47m16.854775808s",
         "failed to parse duration @every 2562047h47m16.854775808s: time: invalid duration "
         "\"2562047h47m16.854775808s\""},
        /* time's own quoting: every byte outside printable ASCII as \xHH */
        {"@every 1\xc2\xb5",
         "failed to parse duration @every 1\xc2\xb5: time: unknown unit \"\\xc2\\xb5\" in "
         "duration \"1\\xc2\\xb5\""},
        {"@every 5\"s",
         "failed to parse duration @every 5\"s: time: unknown unit \"\\\"s\" in duration "
         "\"5\\\"s\""},
        {"@every 1s\t", "failed to parse duration @every 1s\t: time: unknown unit \"s\\x09\" in "
                        "duration \"1s\\x09\""},
    };
    CHECK_REJECTS(t);
}

static void rejects_bad_zone_prefixes(void **state)
{
    (void)state;
    static const reject_case t[] = {
        {"TZ=Nowhere/City 0 0 * * *",
         "provided bad location Nowhere/City: unknown time zone Nowhere/City"},
        {"CRON_TZ=america/new_york 0 0 * * *",
         "provided bad location america/new_york: unknown time zone america/new_york"},
        {"TZ=../etc/passwd 0 0 * * *",
         "provided bad location ../etc/passwd: time: invalid location name"},
        {"TZ=/etc/localtime 0 0 * * *",
         "provided bad location /etc/localtime: time: invalid location name"},
        {"TZ=America 0 0 * * *", "provided bad location America: is a directory"},
        /* the zone ends at the first ASCII space, tabs included in the name */
        {"TZ=Asia/Kolkata\t0 0 * * *",
         "provided bad location Asia/Kolkata\t0: unknown time zone Asia/Kolkata\t0"},
        /* robfig panics here; cronwarden says what is wrong */
        {"TZ=UTC", "missing space after time zone prefix: TZ=UTC"},
        {"CRON_TZ=Europe/Berlin\t0\t0\t*\t*\t*",
         "missing space after time zone prefix: CRON_TZ=Europe/Berlin\t0\t0\t*\t*\t*"},
        {"TZ=", "missing space after time zone prefix: TZ="},
        /* what follows the prefix is checked as usual */
        {"TZ=UTC ", "expected exactly 5 fields, found 0: []"},
        {"TZ=UTC 0 0 * *", "expected exactly 5 fields, found 4: [0 0 * *]"},
        {"TZ=UTC @weekly x", "unrecognized descriptor: @weekly x"},
        {"TZ=UTC TZ=UTC 0 0 * * *", "expected exactly 5 fields, found 6: [TZ=UTC 0 0 * * *]"},
    };
    CHECK_REJECTS(t);
}

typedef struct {
    const char *spec;
    uint64_t minute, hour, dom, month, dow;
} accept_case;

static void builds_robfig_bit_sets(void **state)
{
    (void)state;
    const uint64_t M = SPAN(0, 59) | STAR, H = SPAN(0, 23) | STAR, D = SPAN(1, 31) | STAR,
                   MO = SPAN(1, 12) | STAR, W = SPAN(0, 6) | STAR;
    const accept_case t[] = {
        {"* * * * *", M, H, D, MO, W},
        {"? ? ? ? ?", M, H, D, MO, W},
        {"0 0 * * *", B(0), B(0), D, MO, W},
        {"*/1 * * * *", M, H, D, MO, W}, /* step 1 keeps the star */
        {"*/2 * * * *", SPAN(0, 59) & 0x5555555555555555ull, H, D, MO, W}, /* step 2 drops it */
        {"0 0 */1 * 1", B(0), B(0), D, MO, B(1)},
        {"0 0 1-31 * MON", B(0), B(0), SPAN(1, 31), MO, B(1)}, /* no star: OR semantics */
        {"*-5 * * * *", M, H, D, MO, W},                       /* the hyphen part is ignored */
        {"?-x-y * * * *", M, H, D, MO, W},
        {"5/15 * * * *", B(5) | B(20) | B(35) | B(50), H, D, MO, W}, /* N/step = N-max/step */
        {"10-20/5 * * * *", B(10) | B(15) | B(20), H, D, MO, W},
        {"59 23 31 12 6", B(59), B(23), B(31), B(12), B(6)},
        {"0 0 1 1 0", B(0), B(0), B(1), B(1), B(0)},
        {"1,,2 * * * *", B(1) | B(2), H, D, MO, W}, /* empty elements are dropped */
        {", * * * *", 0, H, D, MO, W},              /* ... even all of them */
        {"1,*/30 * * * *", B(0) | B(1) | B(30), H, D, MO, W},
        {"1,* * * * *", M, H, D, MO, W},
        {"+5 05 0000000000000000005 +000000000000000012 00", B(5), B(5), B(5), B(12), B(0)},
        {"0 0 * JAN-mar,Dec sun", B(0), B(0), D, B(1) | B(2) | B(3) | B(12), B(0)},
        {"0 0 * jan/3 MON-fri", B(0), B(0), D, B(1) | B(4) | B(7) | B(10), SPAN(1, 5)},
        {"0 0 * * sAt,SUN", B(0), B(0), D, MO, B(0) | B(6)},
        /* Go lower-cases U+0130 (capital I with dot) to 'i', so this is Friday */
        {"0 0 * * FR\xc4\xb0", B(0), B(0), D, MO, B(5)},
        {"0 0 * * */2", B(0), B(0), D, MO, B(0) | B(2) | B(4) | B(6)},
        {"0 0 * * 0-6/7", B(0), B(0), D, MO, B(0)},
        {"0 0 * * */9223372036854775807", B(0), B(0), D, MO, B(0)},
        {"\t0\n0\v*\f*\r*\xc2\x85", B(0), B(0), D, MO, W},
        {"0\xe2\x80\x83"
         "0\xe3\x80\x80*\xc2\xa0*\xe1\x9a\x80*",
         B(0), B(0), D, MO, W},
        /* descriptors */
        {"@yearly", B(0), B(0), B(1), B(1), W},
        {"@annually", B(0), B(0), B(1), B(1), W},
        {"@monthly", B(0), B(0), B(1), MO, W},
        {"@weekly", B(0), B(0), D, MO, B(0)},
        {"@daily", B(0), B(0), D, MO, W},
        {"@midnight", B(0), B(0), D, MO, W},
        {"@hourly", B(0), H, D, MO, W},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cw_cron c;
        cw_error err;
        if (cw_cron_parse(t[i].spec, &tzdb, &c, &err) != CW_OK)
            fail_msg("rejected \"%s\": %s", t[i].spec, err.message);
        if (c.minute != t[i].minute || c.hour != t[i].hour || c.dom != t[i].dom ||
            c.month != t[i].month || c.dow != t[i].dow || c.every != 0 || c.zone != NULL)
            fail_msg("\"%s\": bits differ (minute %llx hour %llx dom %llx month %llx dow %llx)",
                     t[i].spec, (unsigned long long)c.minute, (unsigned long long)c.hour,
                     (unsigned long long)c.dom, (unsigned long long)c.month,
                     (unsigned long long)c.dow);
    }
}

static void rounds_every_durations(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        int64_t every;
    } t[] = {
        {"@every 1h30m", 5400},
        {"@every 90s", 90},
        {"@every 1.5h", 5400},
        {"@every 1h0.5s", 3600}, /* cut to whole seconds */
        {"@every 2.999s", 2},
        {"@every 999ms", 1}, /* under a second becomes a second */
        {"@every 1ns", 1},
        {"@every 0", 1},
        {"@every -0", 1},
        {"@every -5m", 1},
        {"@every +30m", 1800},
        {"@every 1us", 1},
        {"@every 1500000\xc2\xb5s", 1}, /* µ (U+00B5) */
        {"@every 2500000\xce\xbcs", 2}, /* μ (U+03BC) */
        {"@every 5.s", 5},
        {"@every .5m", 30},
        {"@every 00001s", 1},
        {"@every 1.0000000000000000000000001h", 3600},
        {"@every 0.1234567890123456789h", 444},
        {"@every 2562047h47m16.854775807s", 9223372036},
        {"@every 9223372036854775807ns", 9223372036},
        /* Go's uint64 sum wraps here to 0, so this parses as zero */
        {"@every 9223372036854775808ns9223372036854775808ns", 1},
        {"@every 1h1h", 7200},
        {"TZ=Europe/Berlin @every 10m", 600}, /* the zone does not matter for @every */
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cw_cron c;
        cw_error err;
        if (cw_cron_parse(t[i].spec, &tzdb, &c, &err) != CW_OK)
            fail_msg("rejected \"%s\": %s", t[i].spec, err.message);
        if (c.every != t[i].every)
            fail_msg("\"%s\": every %lld, want %lld", t[i].spec, (long long)c.every,
                     (long long)t[i].every);
        assert_null(c.zone);
    }
}

static void resolves_zone_prefixes(void **state)
{
    (void)state;
    static const struct {
        const char *spec, *zone; /* zone NULL: the caller's */
    } t[] = {
        {"TZ=America/New_York 0 2 * * *", "America/New_York"},
        {"CRON_TZ=Europe/Berlin 0 2 * * *", "Europe/Berlin"},
        {"TZ= 0 0 * * *", "UTC"},
        {"TZ=UTC 0 0 * * *", "UTC"},
        {"TZ=Local 0 0 * * *", NULL},
        {"TZ=Etc/UTC 0 0 * * *", "Etc/UTC"},
        {"TZ=Asia/Kolkata   0 0 * * *  ", "Asia/Kolkata"},
        {"TZ=UTC \t@daily\xc2\xa0", "UTC"}, /* trimmed after the prefix, Unicode spaces too */
        {"CRON_TZ=Asia/Calcutta @hourly", "Asia/Calcutta"},
        {"TZ=America/./New_York 0 0 * * *", "America/./New_York"},
        {"0 0 * * *", NULL},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        cw_cron c;
        cw_error err;
        if (cw_cron_parse(t[i].spec, &tzdb, &c, &err) != CW_OK)
            fail_msg("rejected \"%s\": %s", t[i].spec, err.message);
        if (!t[i].zone)
            assert_null(c.zone);
        else
            assert_string_equal(cw_tz_name(c.zone), t[i].zone);
    }
    /* a spec given with its length may hold NUL bytes, as JSON strings can */
    cw_cron c;
    cw_error err;
    assert_int_equal(cw_cron_parsen("0 0 * * *\0x", 11, &tzdb, &c, &err), CW_EINVAL);
    /* messages are C strings, so a NUL is shown the way strconv.Quote writes it */
    assert_string_equal(err.message, "failed to parse int from *\\x00x: strconv.Atoi: parsing "
                                     "\"*\\x00x\": invalid syntax");
    assert_int_equal(cw_cron_parsen("0 0 * * *", 9, NULL, &c, &err), CW_OK);
    /* without a database only UTC and Local can be named */
    assert_int_equal(cw_cron_parse("TZ=UTC 0 0 * * *", NULL, &c, &err), CW_OK);
    assert_int_equal(cw_cron_parse("TZ=Europe/Berlin 0 0 * * *", NULL, &c, &err), CW_EINVAL);
}

/* cw_cron_zone_prefix: the prefix robfig/cron v3 reads as a zone (and v1 does not know). */
static void finds_zone_prefixes(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        size_t len;
    } t[] = {
        {"CRON_TZ=Europe/Berlin 0 2 * * *", 21},
        {"TZ=America/New_York 30 1 * * *", 19},
        {"TZ=UTC @daily", 6},
        {"TZ=UTC", 6},                      /* no space: the whole spec (robfig panics on it) */
        {"TZ=Asia/Kolkata\t0 0 * * *", 17}, /* only an ASCII space ends it */
        {"TZ= 0 0 * * *", 3},
        {"0 2 * * *", 0},
        {" CRON_TZ=UTC 0 2 * * *", 0}, /* a prefix only at the start, as robfig checks */
        {"cron_tz=UTC 0 2 * * *", 0},  /* case-sensitive */
        {"TZ", 0},
        {"", 0},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (cw_cron_zone_prefix(t[i].spec) != t[i].len)
            fail_msg("%s: %zu, want %zu", t[i].spec, cw_cron_zone_prefix(t[i].spec), t[i].len);
    assert_int_equal(cw_cron_zone_prefix(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rejects_empty_and_field_counts),
        cmocka_unit_test(rejects_bad_values_with_robfig_texts),
        cmocka_unit_test(rejects_names_outside_month_and_weekday),
        cmocka_unit_test(quotes_like_strconv_quote),
        cmocka_unit_test(rejects_descriptors_and_durations),
        cmocka_unit_test(rejects_bad_zone_prefixes),
        cmocka_unit_test(builds_robfig_bit_sets),
        cmocka_unit_test(rounds_every_durations),
        cmocka_unit_test(resolves_zone_prefixes),
        cmocka_unit_test(finds_zone_prefixes),
    };
    return cmocka_run_group_tests(tests, tzdb_setup, tzdb_teardown);
}
