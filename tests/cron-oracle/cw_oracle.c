/* cronwarden's side of the robfig differential test (see main.go for the line format).
 *   cw_oracle run  < corpus   answers each line with cron/
 *   cw_oracle gen N SEED      writes a corpus of N lines: random and hand-picked expressions,
 *                             from-times around DST transitions and in odd caller offsets */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "cron/cron.h"
#include "cron/tz.h"

static void put_esc(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p >= 0x7f || *p == '\\')
            printf("\\x%02x", *p);
        else
            putchar(*p);
    }
}

static int unhex(const char *h, cw_buf *out)
{
    size_t n = strlen(h);
    if (n % 2)
        return -1;
    for (size_t i = 0; i < n; i += 2) {
        unsigned v;
        if (sscanf(h + i, "%2x", &v) != 1)
            return -1;
        cw_buf_putc(out, (char)v);
    }
    return 0;
}

static int run(cw_tzdb *db)
{
    char *line = NULL;
    size_t cap = 0;
    cw_buf spec;
    cw_buf_init(&spec);
    while (getline(&line, &cap, stdin) > 0) {
        long long unix;
        int off, n;
        char hexs[8192];
        cw_error err;
        cw_cron s;
        cw_error_init(&err);
        cw_buf_reset(&spec);
        int got = sscanf(line, "%lld %d %d %8191s", &unix, &off, &n, hexs);
        if (got == 3) /* the empty expression */
            hexs[0] = '\0';
        if (got < 3 || unhex(hexs, &spec) != 0) {
            printf("bad input line\n");
            continue;
        }
        if (cw_cron_parsen(spec.data ? spec.data : "", spec.len, db, &s, &err) != CW_OK) {
            if (strncmp(err.message, "missing space after time zone prefix", 36) == 0) {
                printf("panic\n");
            } else {
                printf("err ");
                put_esc(err.message);
                putchar('\n');
            }
            continue;
        }
        int64_t t = unix;
        printf("ok");
        for (int i = 0; i < n; i++) {
            char buf[CW_TZ_RFC3339_MAX];
            int rc = cw_cron_next_checked(&s, t, off, &t);
            if (rc != 1) {
                printf(rc == CW_ELIMIT ? " hang" : " never");
                break;
            }
            cw_tz_format_rfc3339(t, off, buf, sizeof(buf));
            printf(" %s", buf);
        }
        putchar('\n');
    }
    free(line);
    cw_buf_free(&spec);
    return 0;
}

/* ---- corpus generation ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    /* xorshift64*: deterministic across platforms */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * UINT64_C(2685821657736338717);
}

static int pick(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

#define PICK(arr) (arr[pick((int)(sizeof(arr) / sizeof(arr[0])))])

static const char *const zones[] = {
    "America/New_York",
    "Europe/Berlin",
    "Asia/Kolkata",
    "Australia/Lord_Howe",
    "Pacific/Chatham",
    "America/Sao_Paulo",
    "Asia/Tehran",
    "America/Santiago",
    "Africa/Casablanca",
    "Antarctica/Troll",
    "Europe/Dublin",
    "Pacific/Apia",
    "America/Godthab",
    "America/Havana",
    "Asia/Gaza",
    "Europe/London",
    "Australia/Sydney",
    "Pacific/Kiritimati",
    "America/St_Johns",
    "Asia/Kathmandu",
    "Etc/GMT+5",
    "Etc/GMT-14",
    "UTC",
    "",
    "Local",
    "EST5EDT",
    "America/Los_Angeles",
};
static const char *const odd_zones[] = {
    "utc",
    "America/NewYork",
    "../etc/passwd",
    "/etc/localtime",
    "\\x",
    "America",
    "zone.tab",
    "America/./New_York",
    "America//New_York",
    "America/New_York/",
    "posixrules",
    "right/Europe/Berlin",
    "Europe/Berlin\xc2\xa0",
    ".",
    "..",
    "a..b",
    "Factory",
    "GMT",
    "Asia/Calcutta",
    "US/Eastern",
    "Etc/UTC",
    "CET",
    "Europe/Kyiv",
    "tzdata.zi",
};
static const char *const seps[] = {" ",
                                   " ",
                                   " ",
                                   " ",
                                   " ",
                                   " ",
                                   "  ",
                                   "\t",
                                   "\n",
                                   "\r\n",
                                   "\xc2\xa0",
                                   "\xe2\x80\x83",
                                   "\xe3\x80\x80",
                                   "\xc2\x85",
                                   "\xe2\x80\x8b",
                                   "\xef\xbb\xbf",
                                   "\v",
                                   "\f",
                                   "\xe1\x9a\x80"};
static const char *const month_names[] = {
    "JAN", "feb", "Mar", "apr",     "MAY", "jun",  "Jul",           "AUG", "sep",
    "OCT", "nov", "Dec", "January", "JA",  "ja n", "\342\204\252an"}; /* K (Kelvin sign) + "an" */
static const char *const dow_names[] = {"SUN", "mon",        "Tue",    "wed", "THU",  "fri",
                                        "Sat", "FR\xc4\xb0", "sunday", "MO",  "tues", "S\xc3\xbcN"};
static const char *const junk[] = {
    "L",
    "W",
    "#",
    "H",
    "5L",
    "1#2",
    "LW",
    "x",
    "",
    "-",
    "--",
    "*-",
    "*-5",
    "?-3-x",
    "*/",
    "/5",
    "1/",
    "1-",
    "-1",
    "+5",
    "+",
    "05",
    "007",
    "0x1F",
    "1e1",
    "1_0",
    "\xe2\x80\x93",
    "1\342\200\2235", /* 1, an en dash, 5 */
    "\xff",
    "\xc3\x28",
    "\xf0\x9f\x98\x80",
    "\x01",
    "\"",
    "\\",
    "\x7f",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551616",
    "99999999999999999999x",
    "00000000000000000005",
    "+000000000000000009",
    "*/-1",
    "*/+2",
    "1-5/-2",
    "1/2/3",
    "1-2-3",
    "*/0",
    "5-1",
    "*/9223372036854775807",
    "\xef\xbf\xbd",
    "\xed\xa0\x80",
    "\xe2\x80\xa8",
    "\xc2\xad",
    "\xcd\xb8",
    "\xf3\xa0\x80\x81",
    "a\tb",
    ",",
    ",,",
    "?/2",
    "*/1",
    "1,*",
    "\xc4\xb0",
};

/* A value for a field: a number (sometimes out of bounds or oddly written) or a name. */
static void gen_value(cw_buf *b, int field, int v)
{
    static const char *const mnames[] = {"JAN", "feb", "Mar", "apr", "MAY", "jun",
                                         "Jul", "AUG", "sep", "OCT", "nov", "Dec"};
    static const char *const dnames[] = {"SUN", "mon", "Tue", "wed", "THU", "fri", "Sat"};
    int r = pick(100);
    if (field == 3 && r < 20 && v >= 1 && v <= 12)
        cw_buf_puts(b, mnames[v - 1]);
    else if (field == 4 && r < 20 && v >= 0 && v <= 6)
        cw_buf_puts(b, dnames[v]);
    else if (r < 22)
        cw_buf_puts(b, field == 3 ? PICK(month_names) : field == 4 ? PICK(dow_names) : "5");
    else if (r < 25)
        cw_buf_printf(b, "0%d", v);
    else if (r < 27)
        cw_buf_printf(b, "+%d", v);
    else
        cw_buf_printf(b, "%d", v);
}

static int gen_int(int min, int max)
{
    int r = pick(100);
    if (r < 95)
        return min + pick(max - min + 1);
    if (r < 99)
        return pick(2) ? min - 1 : max + 1;
    return pick(200);
}

static void gen_step(cw_buf *b)
{
    static const char *const odd[] = {"0", "60", "100", "-1", "+2", "", "x", "02", "1"};
    if (pick(100) < 94)
        cw_buf_printf(b, "%d", 1 + pick(pick(3) ? 8 : 40));
    else
        cw_buf_puts(b, PICK(odd));
}

static void gen_range(cw_buf *b, int field, int min, int max)
{
    int lo = gen_int(min, max), hi = gen_int(min, max);
    if (lo > hi && pick(10) < 9) {
        int t = lo;
        lo = hi;
        hi = t;
    }
    gen_value(b, field, lo);
    cw_buf_putc(b, '-');
    gen_value(b, field, hi);
}

static void gen_field(cw_buf *b, int field)
{
    static const int mins[] = {0, 0, 1, 1, 0}, maxs[] = {59, 23, 31, 12, 6};
    int min = mins[field], max = maxs[field];
    int elems = pick(10) < 7 ? 1 : 2 + pick(3);
    for (int e = 0; e < elems; e++) {
        if (e)
            cw_buf_puts(b, pick(30) ? "," : ",,");
        int r = pick(100);
        if (r < 30) {
            cw_buf_puts(b, pick(8) ? "*" : "?");
        } else if (r < 50) {
            gen_value(b, field, gen_int(min, max));
        } else if (r < 63) {
            gen_range(b, field, min, max);
        } else if (r < 78) {
            cw_buf_puts(b, pick(8) ? "*/" : "?/");
            gen_step(b);
        } else if (r < 86) {
            gen_value(b, field, gen_int(min, max));
            cw_buf_putc(b, '/');
            gen_step(b);
        } else if (r < 97) {
            gen_range(b, field, min, max);
            cw_buf_putc(b, '/');
            gen_step(b);
        } else {
            cw_buf_puts(b, PICK(junk));
        }
    }
}

static void gen_duration(cw_buf *b)
{
    static const char *const fixed[] = {
        "0",
        "-0",
        "+0",
        "",
        " 1h",
        "1h ",
        ".5s",
        "5.s",
        ".s",
        "1e3s",
        "1d",
        "1",
        "1H",
        "1S",
        "9223372036854775807ns",
        "9223372036854775808ns",
        "2562047h47m16.854775807s",
        "2562047h47m16.854775808s",
        "2562048h",
        "1h1h",
        "0.999999999s",
        "999ms",
        "-5m",
        "1.0000000000000000000000001h",
        "0.1234567890123456789h",
        "1\xc2\xb5s",
        "1\xce\xbcs",
        "1\xe2\x80\x8bs",
        "1m\xff",
        "1.5h",
        "90s",
        "1h30m",
        "+30m",
        "1.s",
        "00001s",
        "1\"s",
        "3000000000000000000000000s",
        "1h\\",
        "15m0.5s",
        "1.5\xc2\xb5s",
    };
    static const char *const units[] = {"ns", "us", "\xc2\xb5s", "\xce\xbcs", "ms", "s",
                                        "m",  "h",  "s",         "m",         "h",  "d",
                                        "",   "S",  "mS",        "hr"};
    if (pick(3) == 0) {
        cw_buf_puts(b, PICK(fixed));
        return;
    }
    if (pick(6) == 0)
        cw_buf_putc(b, pick(2) ? '-' : '+');
    int parts = 1 + pick(3);
    for (int i = 0; i < parts; i++) {
        cw_buf_printf(b, "%d", pick(5) ? pick(100) : pick(100000));
        if (pick(5) == 0)
            cw_buf_printf(b, ".%d", pick(1000));
        cw_buf_puts(b, PICK(units));
    }
}

/* Returns the zone named by a prefix, if any, so from-times can sit on its transitions. */
static const char *gen_spec(cw_buf *b)
{
    const char *zone = NULL;
    static const char *const descs[] = {"@yearly",   "@annually", "@monthly", "@weekly", "@daily",
                                        "@midnight", "@hourly",   "@reboot",  "@Daily",  "@every",
                                        "@every1h",  "@",         "@hourly ", "@ daily"};
    int r = pick(100);
    if (r < 25) {
        const char *z = pick(6) ? PICK(zones) : PICK(odd_zones);
        zone = z;
        cw_buf_puts(b, pick(2) ? "TZ=" : "CRON_TZ=");
        cw_buf_puts(b, z);
        int s = pick(60);
        cw_buf_puts(b, s == 0 ? "" : s == 1 ? "  " : s == 2 ? "\t" : " ");
        if (pick(40) == 0)
            cw_buf_puts(b, "\xe2\x80\x83");
    } else if (r < 27) {
        cw_buf_puts(b, pick(2) ? "tz=UTC " : "CRON_TZ =UTC ");
    } else if (r < 28) {
        cw_buf_puts(b, PICK(seps));
    }
    r = pick(100);
    if (r < 6) {
        cw_buf_puts(b, PICK(descs));
    } else if (r < 12) {
        cw_buf_puts(b, pick(10) ? "@every " : "@every  ");
        gen_duration(b);
    } else if (r < 14) {
        /* random bytes */
        int n = pick(12);
        for (int i = 0; i < n; i++) {
            static const char alphabet[] = "0123456789*?/-, \t@JANMONxLW#\xc2\xa0\xe2\x80";
            cw_buf_putc(b, alphabet[pick((int)sizeof(alphabet) - 1)]);
        }
    } else {
        int nf = pick(30) ? 5 : pick(8);
        for (int f = 0; f < nf; f++) {
            if (f)
                cw_buf_puts(b, pick(8) ? " " : PICK(seps));
            gen_field(b, f < 5 ? f : 4);
        }
        if (pick(15) == 0)
            cw_buf_puts(b, PICK(seps));
    }
    return zone;
}

/* Instants where a zone's offset changes in `year`, found by scanning day by day. */
static int transitions(const cw_tz *z, int year, int64_t *out, int max)
{
    int n = 0;
    int64_t t = ((int64_t)(year - 1970) * 36524225 / 100000) * 86400;
    for (int d = 0; d < 366 && n < max; d++, t += 86400) {
        if (cw_tz_offset_at(z, t) == cw_tz_offset_at(z, t + 86400))
            continue;
        int64_t lo = t, hi = t + 86400; /* offset(lo) != offset(hi) */
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            if (cw_tz_offset_at(z, mid) == cw_tz_offset_at(z, lo))
                lo = mid;
            else
                hi = mid;
        }
        out[n++] = hi;
    }
    return n;
}

static int64_t gen_from(cw_tzdb *db, const char *zone)
{
    static const int64_t deltas[] = {-86400, -7200, -3601, -3600, -1801, -61,  -60,  -1,
                                     0,      1,     59,    1799,  3599,  3600, 7199, 86399};
    int r = pick(100);
    if (r < 55) {
        const cw_tz *z = NULL;
        cw_error err;
        if (!zone || pick(4) == 0)
            zone = PICK(zones);
        if (cw_tzdb_load(db, zone, &z, &err) == CW_OK && z) {
            int64_t tx[8];
            int n = transitions(z, 1995 + pick(60), tx, 8);
            if (n > 0)
                return tx[pick(n)] + PICK(deltas) + (pick(4) == 0 ? pick(3600) : 0);
        }
    }
    if (r < 68) /* local mean time: offsets with seconds, before 1920 */
        return -3786825600 + (int64_t)(rnd() % (UINT64_C(70) * 31556952));
    if (r < 75) /* around new year, month ends and leap days */
        return (int64_t)(pick(60) + 1995 - 1970) * 31556952 + pick(2) * 86400 * (28 + pick(4)) +
               PICK(deltas);
    return 788918400 + (int64_t)(rnd() % (UINT64_C(60) * 31556952)); /* 1995 .. 2055 */
}

static int gen(cw_tzdb *db, int lines, uint64_t seed)
{
    static const int offsets[] = {0,     0,      0,      19800, -28800, 3600,  50400, -43200,
                                  35100, -16200, -18000, 7200,  20700,  -9000, 46800};
    cw_buf spec;
    cw_buf_init(&spec);
    rng_state = seed ? seed : 1;
    for (int i = 0; i < lines; i++) {
        cw_buf_reset(&spec);
        const char *zone = gen_spec(&spec);
        int off = PICK(offsets);
        int64_t from = gen_from(db, zone);
        printf("%lld %d %d ", (long long)from, off, 1 + pick(4));
        for (size_t k = 0; k < spec.len; k++)
            printf("%02x", (unsigned char)spec.data[k]);
        putchar('\n');
    }
    cw_buf_free(&spec);
    return 0;
}

int main(int argc, char **argv)
{
    cw_tzdb db;
    cw_error err;
    int rc = 2;
    if (cw_tzdb_init(&db, NULL, &err) != CW_OK) {
        fprintf(stderr, "cw_oracle: %s\n", err.message);
        return 1;
    }
    if (argc == 2 && strcmp(argv[1], "run") == 0)
        rc = run(&db);
    else if (argc == 4 && strcmp(argv[1], "gen") == 0)
        rc = gen(&db, atoi(argv[2]), strtoull(argv[3], NULL, 10));
    else
        fprintf(stderr, "usage: cw_oracle run < corpus | cw_oracle gen LINES SEED\n");
    cw_tzdb_free(&db);
    return rc;
}
