#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cron/tz.h"

/* ---- the system database (Debian's tzdata) ---- */

static void loads_go_location_names(void **state)
{
    (void)state;
    cw_tzdb db;
    cw_error err;
    const cw_tz *z = (const cw_tz *)&db;
    assert_int_equal(cw_tzdb_init(&db, "/usr/share/zoneinfo", &err), CW_OK);

    assert_int_equal(cw_tzdb_load(&db, "", &z, &err), CW_OK);
    assert_string_equal(cw_tz_name(z), "UTC");
    assert_int_equal(cw_tzdb_load(&db, "UTC", &z, &err), CW_OK);
    assert_non_null(z);
    assert_int_equal(cw_tz_offset_at(z, 1720000000), 0);
    /* "Local" means the caller's zone */
    assert_int_equal(cw_tzdb_load(&db, "Local", &z, &err), CW_OK);
    assert_null(z);

    static const struct {
        const char *name;
        int code;
        const char *msg;
    } bad[] = {
        {"Nowhere/City", CW_ENOTFOUND, "unknown time zone Nowhere/City"},
        {"utc", CW_ENOTFOUND, "unknown time zone utc"},
        {"America/NewYork", CW_ENOTFOUND, "unknown time zone America/NewYork"},
        {"../etc/passwd", CW_EINVAL, "time: invalid location name"},
        {"a..b", CW_EINVAL, "time: invalid location name"},
        {"/etc/localtime", CW_EINVAL, "time: invalid location name"},
        {"\\zone", CW_EINVAL, "time: invalid location name"},
        {"America", CW_EIO, "is a directory"},
        {"America/New_York/x", CW_EIO, "not a directory"},
        {"zone.tab", CW_EINVAL, "malformed time zone information"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cw_error_init(&err);
        assert_int_equal(cw_tzdb_load(&db, bad[i].name, &z, &err), bad[i].code);
        assert_string_equal(err.message, bad[i].msg);
    }
    /* a NUL inside a name is refused like Go's open() does */
    assert_int_equal(cw_tzdb_loadn(&db, "UTC\0x", 5, &z, &err), CW_EIO);
    assert_string_equal(err.message, "invalid argument");
    cw_tzdb_free(&db);
}

static void caches_zones(void **state)
{
    (void)state;
    cw_tzdb db;
    cw_error err;
    const cw_tz *a, *b;
    assert_int_equal(cw_tzdb_init(&db, NULL, &err), CW_OK);
    assert_int_equal(cw_tzdb_load(&db, "Europe/Berlin", &a, &err), CW_OK);
    assert_int_equal(cw_tzdb_loadn(&db, "Europe/Berlin zzz", 13, &b, &err), CW_OK);
    assert_ptr_equal(a, b);
    assert_int_equal(db.len, 1);
    assert_string_equal(cw_tz_name(a), "Europe/Berlin");
    cw_tzdb_free(&db);
}

static void offsets_match_go(void **state)
{
    (void)state;
    /* Expected values are Go's time.Unix(t, 0).In(LoadLocation(zone)).Zone() offsets. */
    static const struct {
        const char *zone;
        int64_t t;
        int32_t off;
    } cases[] = {
        {"America/New_York", 1705276800, -18000}, /* 2024-01-15 */
        {"America/New_York", 1721001600, -14400}, /* 2024-07-15 */
        {"America/New_York", 1710053999, -18000}, /* 2024-03-10T06:59:59Z */
        {"America/New_York", 1710054000, -14400}, /* 2024-03-10T07:00:00Z: EDT starts */
        {"America/New_York", 1730613599, -14400}, /* 2024-11-03T05:59:59Z */
        {"America/New_York", 1730613600, -18000}, /* 2024-11-03T06:00:00Z: EST again */
        {"America/New_York", 4102444800, -18000}, /* 2100-01-01: from the POSIX footer */
        {"America/New_York", 4118083200, -14400}, /* 2100-07-01 */
        {"Europe/Berlin", 1711846799, 3600},      /* 2024-03-31T00:59:59Z */
        {"Europe/Berlin", 1711846800, 7200},
        {"Europe/Berlin", 1729990799, 7200}, /* 2024-10-27T00:59:59Z */
        {"Europe/Berlin", 1729990800, 3600},
        {"Asia/Kolkata", 1705276800, 19800},
        {"Asia/Kathmandu", 1721001600, 20700},
        {"Australia/Lord_Howe", 1705276800, 39600}, /* half-hour DST */
        {"Australia/Lord_Howe", 1721001600, 37800},
        {"Australia/Lord_Howe", 4118083200, 37800},
        {"Pacific/Chatham", 1705276800, 49500},
        {"Pacific/Chatham", 1721001600, 45900},
        {"America/St_Johns", 1705276800, -12600},
        {"America/St_Johns", 4118083200, -9000},
        {"Etc/GMT+5", 1721001600, -18000},
        {"Etc/GMT-14", 1721001600, 50400},
        {"America/New_York", -2717668237, -17762}, /* 1883: local mean time, not whole minutes */
    };
    cw_tzdb db;
    cw_error err;
    assert_int_equal(cw_tzdb_init(&db, NULL, &err), CW_OK);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const cw_tz *z;
        assert_int_equal(cw_tzdb_load(&db, cases[i].zone, &z, &err), CW_OK);
        if (cw_tz_offset_at(z, cases[i].t) != cases[i].off)
            fail_msg("%s at %lld: got %d, want %d", cases[i].zone, (long long)cases[i].t,
                     cw_tz_offset_at(z, cases[i].t), cases[i].off);
    }
    cw_tzdb_free(&db);
}

static void local_to_utc_resolves_gaps_like_go(void **state)
{
    (void)state;
    /* Expected: time.Date(...).Unix() in Go 1.19. In a gap Go keeps the offset found at the
     * wall time read as UTC, which is why New York and Berlin resolve differently. */
    static const struct {
        const char *zone;
        int64_t local; /* wall clock as if UTC */
        int64_t utc;
    } cases[] = {
        {"America/New_York", 1710037800, 1710052200}, /* 2024-03-10 02:30 (gap) -> 01:30 EST */
        {"America/New_York", 1730597400, 1730611800}, /* 2024-11-03 01:30 (twice) -> EDT */
        {"America/New_York", 1710073800, 1710073800 + 14400}, /* 2024-03-10 12:30 EDT */
        {"Europe/Berlin", 1711852200, 1711848600},       /* 2024-03-31 02:30 (gap) -> 03:30 CEST */
        {"Europe/Berlin", 1729996200, 1729992600},       /* 2024-10-27 02:30 (twice) -> CET */
        {"America/New_York", 2215045800, 2215060200},    /* 2040-03-11 02:30, footer rules */
        {"America/New_York", 2235605400, 2235619800},    /* 2040-11-04 01:30 */
        {"Australia/Lord_Howe", 1728180900, 1728143100}, /* 2024-10-06 02:15 -> 02:45 +11 */
        {"Australia/Lord_Howe", 1712454300, 1712416500}, /* 2024-04-07 01:45 -> +10:30 */
        {"Asia/Kolkata", 1704067200, 1704067200 - 19800},
    };
    cw_tzdb db;
    cw_error err;
    assert_int_equal(cw_tzdb_init(&db, NULL, &err), CW_OK);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const cw_tz *z;
        assert_int_equal(cw_tzdb_load(&db, cases[i].zone, &z, &err), CW_OK);
        int64_t got = cw_tz_local_to_utc(z, cases[i].local);
        if (got != cases[i].utc)
            fail_msg("%s local %lld: got %lld, want %lld", cases[i].zone, (long long)cases[i].local,
                     (long long)got, (long long)cases[i].utc);
    }
    assert_int_equal(cw_tz_local_to_utc(NULL, 1234), 1234);
    cw_tzdb_free(&db);
}

/* Many threads loading the same zones get the same objects, and lookups need no lock. */
static void *load_many(void *arg)
{
    static const char *const names[] = {"Europe/Berlin", "America/New_York",
                                        "Asia/Kolkata",  "Australia/Lord_Howe",
                                        "UTC",           "Pacific/Chatham"};
    cw_tzdb *db = arg;
    long bad = 0;
    for (int i = 0; i < 300; i++) {
        const cw_tz *z;
        cw_error err;
        const char *name = names[i % 6];
        if (cw_tzdb_load(db, name, &z, &err) != CW_OK || strcmp(cw_tz_name(z), name) != 0)
            bad++;
        else if (strcmp(name, "Asia/Kolkata") == 0 && cw_tz_offset_at(z, 1700000000 + i) != 19800)
            bad++;
    }
    return (void *)bad;
}

static void loads_concurrently(void **state)
{
    (void)state;
    cw_tzdb db;
    cw_error err;
    pthread_t th[4];
    assert_int_equal(cw_tzdb_init(&db, NULL, &err), CW_OK);
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, load_many, &db), 0);
    for (int i = 0; i < 4; i++) {
        void *bad;
        pthread_join(th[i], &bad);
        assert_null(bad);
    }
    assert_int_equal(db.len, 5); /* UTC is built in, the others loaded once each */
    cw_tzdb_free(&db);
}

/* ---- synthetic TZif files ---- */

static size_t put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
    return 4;
}

static size_t header(unsigned char *p, char version, uint32_t timecnt, uint32_t typecnt,
                     uint32_t charcnt)
{
    size_t n = 0;
    memcpy(p, "TZif", 4);
    n += 4;
    p[n++] = (unsigned char)version;
    memset(p + n, 0, 15);
    n += 15;
    uint32_t counts[6] = {0, 0, 0, timecnt, typecnt, charcnt};
    for (int i = 0; i < 6; i++)
        n += put32(p + n, counts[i]);
    return n;
}

/* One zone type (offset, isdst), one transition at 0 when `with_tx`, and a footer. */
static size_t make_tzif(unsigned char *p, char version, int32_t off, int with_tx,
                        const char *footer)
{
    size_t n = header(p, version, (uint32_t)with_tx, 1, 4);
    if (with_tx) {
        n += put32(p + n, 0);
        p[n++] = 0;
    }
    n += put32(p + n, (uint32_t)off);
    p[n++] = 0;
    p[n++] = 0;
    memcpy(p + n, "ABC", 4);
    n += 4;
    if (version == 0)
        return n;
    n += header(p + n, version, (uint32_t)with_tx, 1, 4);
    if (with_tx) {
        n += put32(p + n, 0); /* 64-bit time 0 */
        n += put32(p + n, 0);
        p[n++] = 0;
    }
    n += put32(p + n, (uint32_t)off);
    p[n++] = 0;
    p[n++] = 0;
    memcpy(p + n, "ABC", 4);
    n += 4;
    if (footer)
        n += (size_t)sprintf((char *)p + n, "\n%s\n", footer);
    return n;
}

static char zdir[64];

static void write_zone(const char *name, const unsigned char *data, size_t len)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", zdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void remove_zone(const char *name)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", zdir, name);
    unlink(path);
}

static void parses_tzif_versions_and_footers(void **state)
{
    (void)state;
    /* Offsets at: 2024-01-15, 2024-07-15, 2024-03-02, 2100-01-01, 2100-07-01, 2000-02-29,
     * 2024-02-29, 2024-12-31 — checked against Go's LoadLocationFromTZData on the same bytes. */
    static const int64_t at[8] = {1705276800, 1721001600, 1709359200, 4102444800,
                                  4118083200, 951782400,  1709164800, 1735603200};
    static const struct {
        const char *footer;
        int32_t off[8];
    } cases[] = {
        {"EST5EDT,M3.2.0,M11.1.0",
         {-18000, -14400, -18000, -18000, -14400, -18000, -18000, -18000}},
        {"EST5EDT", /* no rules: tzcode's default US rules */
         {-18000, -14400, -18000, -18000, -14400, -18000, -18000, -18000}},
        {"<+0530>-5:30", {19800, 19800, 19800, 19800, 19800, 19800, 19800, 19800}},
        {"IST-1GMT0,M10.5.0,M3.5.0/1", /* Dublin: "DST" in winter */
         {0, 3600, 0, 0, 3600, 0, 0, 0}},
        {"<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", /* negative transition times */
         {-10800, -7200, -10800, -10800, -7200, -10800, -10800, -10800}},
        {"AEST-10AEDT,M10.1.0,M4.1.0/3", /* southern hemisphere */
         {39600, 36000, 39600, 39600, 36000, 39600, 39600, 39600}},
        {"XXX3YYY,J60/2,J300", {-10800, -7200, -7200, -10800, -7200, -10800, -10800, -10800}},
        {"AAA-3BBB-4:30,100/25,200/-3", {10800, 16200, 10800, 10800, 16200, 10800, 10800, 10800}},
        {"<+13>-13", {46800, 46800, 46800, 46800, 46800, 46800, 46800, 46800}},
        /* Go cannot parse it and keeps the last transition's type */
        {"bad", {-18000, -18000, -18000, -18000, -18000, -18000, -18000, -18000}},
    };
    unsigned char buf[512];
    cw_error err;
    strcpy(zdir, "/tmp/cw-tz-XXXXXX");
    assert_non_null(mkdtemp(zdir));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_tzdb db;
        const cw_tz *z;
        write_zone("Z", buf, make_tzif(buf, '2', -18000, 1, cases[i].footer));
        assert_int_equal(cw_tzdb_init(&db, zdir, &err), CW_OK);
        assert_int_equal(cw_tzdb_load(&db, "Z", &z, &err), CW_OK);
        for (int k = 0; k < 8; k++)
            if (cw_tz_offset_at(z, at[k]) != cases[i].off[k])
                fail_msg("footer %s at %lld: got %d, want %d", cases[i].footer, (long long)at[k],
                         cw_tz_offset_at(z, at[k]), cases[i].off[k]);
        cw_tzdb_free(&db);
    }

    /* Go quirk kept on purpose: the last period of a year ends 365 days after 1 January, so
     * on 31 December of a leap year the bounds exclude the instant itself. */
    {
        cw_tzdb db;
        const cw_tz *z;
        int64_t start, end;
        write_zone("Z", buf, make_tzif(buf, '3', -18000, 1, "EST5EDT,M3.2.0,M11.1.0"));
        assert_int_equal(cw_tzdb_init(&db, zdir, &err), CW_OK);
        assert_int_equal(cw_tzdb_load(&db, "Z", &z, &err), CW_OK);
        assert_int_equal(cw_tz_lookup(z, 1735646400, &start, &end), -18000);
        assert_int_equal(start, 1730613600); /* 2024-11-03T06:00:00Z */
        assert_int_equal(end, 1735603200);   /* 2024-12-31T00:00:00Z */
        cw_tzdb_free(&db);
    }

    /* v1 files (32-bit data, no footer), a file without transitions, and malformed ones */
    {
        cw_tzdb db;
        const cw_tz *z;
        int64_t start, end;
        assert_int_equal(cw_tzdb_init(&db, zdir, &err), CW_OK);
        write_zone("V1", buf, make_tzif(buf, 0, 19800, 1, NULL));
        assert_int_equal(cw_tzdb_load(&db, "V1", &z, &err), CW_OK);
        assert_int_equal(cw_tz_offset_at(z, 4102444800), 19800);
        assert_int_equal(cw_tz_offset_at(z, -100), 19800); /* before the only transition */
        write_zone("Fixed", buf, make_tzif(buf, '2', -36000, 0, "<-10>10"));
        assert_int_equal(cw_tzdb_load(&db, "Fixed", &z, &err), CW_OK);
        assert_int_equal(cw_tz_lookup(z, 0, &start, &end), -36000);
        assert_true(start == INT64_MIN && end == INT64_MAX);

        size_t n = make_tzif(buf, '4', 0, 1, "UTC0"); /* Go 1.19 knows no version 4 */
        write_zone("V4", buf, n);
        write_zone("Short", buf, 30);
        memcpy(buf, "TZxf", 4);
        write_zone("Magic", buf, n);
        n = header(buf, '2', 0, 0, 0); /* no zone types */
        write_zone("NoTypes", buf, n);
        static const char *const bad[] = {"V4", "Short", "Magic", "NoTypes"};
        for (size_t i = 0; i < 4; i++) {
            assert_int_equal(cw_tzdb_load(&db, bad[i], &z, &err), CW_EINVAL);
            assert_string_equal(err.message, "malformed time zone information");
            remove_zone(bad[i]);
        }
        cw_tzdb_free(&db);
    }
    remove_zone("Z");
    remove_zone("V1");
    remove_zone("Fixed");
    rmdir(zdir);
}

static void zoneinfo_env_is_the_default_dir(void **state)
{
    (void)state;
    cw_tzdb db;
    cw_error err;
    const cw_tz *z;
    setenv("ZONEINFO", "/nonexistent-zoneinfo", 1);
    assert_int_equal(cw_tzdb_init(&db, NULL, &err), CW_OK);
    assert_int_equal(cw_tzdb_load(&db, "Europe/Berlin", &z, &err), CW_ENOTFOUND);
    assert_string_equal(err.message, "unknown time zone Europe/Berlin");
    cw_tzdb_free(&db);
    unsetenv("ZONEINFO");
}

/* ---- RFC 3339 ---- */

static void rfc3339_round_trips(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int64_t t;
        int32_t off;
        const char *out;
    } ok[] = {
        {"2024-03-10T02:30:00-05:00", 1710055800, -18000, "2024-03-10T02:30:00-05:00"},
        {"2024-01-01T00:00:00Z", 1704067200, 0, "2024-01-01T00:00:00Z"},
        {"2024-01-01t00:00:00z", 1704067200, 0, "2024-01-01T00:00:00Z"},
        {"2024-01-01T05:30:00+05:30", 1704067200, 19800, "2024-01-01T05:30:00+05:30"},
        {"2024-01-01T00:00:00+00:00", 1704067200, 0, "2024-01-01T00:00:00Z"},
        {"2024-02-29T23:59:59.999999999Z", 1709251199, 0, "2024-02-29T23:59:59Z"},
        {"1969-12-31T23:59:59.5Z", -1, 0, "1969-12-31T23:59:59Z"},
        {"0000-01-01T00:00:00Z", -62167219200, 0, "0000-01-01T00:00:00Z"},
        {"9999-12-31T23:59:59-23:59", 253402300799 + 86340, -86340, "9999-12-31T23:59:59-23:59"},
        {"2024-06-01T12:00:00+14:00", 1717192800, 50400, "2024-06-01T12:00:00+14:00"},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        int64_t t;
        int32_t off;
        cw_error err;
        char buf[CW_TZ_RFC3339_MAX];
        if (cw_tz_parse_rfc3339(ok[i].in, &t, &off, &err) != CW_OK)
            fail_msg("%s: %s", ok[i].in, err.message);
        assert_int_equal(t, ok[i].t);
        assert_int_equal(off, ok[i].off);
        assert_int_equal(cw_tz_format_rfc3339(t, off, buf, sizeof(buf)), CW_OK);
        assert_string_equal(buf, ok[i].out);
    }
    static const char *const bad[] = {
        "",
        "2024-01-01",
        "2024-01-01T00:00:00",
        "2024-01-01 00:00:00Z",
        "2024-1-01T00:00:00Z",
        "2024-01-01T00:00Z",
        "2024-01-01T00:00:00.Z",
        "2024-01-01T00:00:00+0530",
        "2024-01-01T00:00:00+05",
        "2024-01-01T00:00:00ZZ",
        "2024-13-01T00:00:00Z",
        "2023-02-29T00:00:00Z",
        "2024-04-31T00:00:00Z",
        "2024-01-01T24:00:00Z",
        "2024-01-01T00:60:00Z",
        "2024-12-31T23:59:60Z",
        "2024-01-01T00:00:00+24:00",
        "2024-01-01T00:00:00+05:60",
        "+2024-01-01T00:00:00Z",
        "2024-00-10T00:00:00Z",
        "2024-01-00T00:00:00Z",
        "2024-01-01T00:00:00 Z",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int64_t t;
        int32_t off;
        cw_error err;
        if (cw_tz_parse_rfc3339(bad[i], &t, &off, &err) != CW_EINVAL)
            fail_msg("accepted %s", bad[i]);
    }
    char buf[CW_TZ_RFC3339_MAX];
    assert_int_equal(cw_tz_format_rfc3339(253402300800, 0, buf, sizeof(buf)), CW_EINVAL);
    assert_int_equal(cw_tz_format_rfc3339(0, 0, buf, 8), CW_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loads_go_location_names),
        cmocka_unit_test(caches_zones),
        cmocka_unit_test(loads_concurrently),
        cmocka_unit_test(offsets_match_go),
        cmocka_unit_test(local_to_utc_resolves_gaps_like_go),
        cmocka_unit_test(parses_tzif_versions_and_footers),
        cmocka_unit_test(zoneinfo_env_is_the_default_dir),
        cmocka_unit_test(rfc3339_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
