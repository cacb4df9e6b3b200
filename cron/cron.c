/* robfig/cron v3.0.1 ParseStandard (parser.go), step by step: the same splitting, the same order
 * of checks and the same error texts. Allocates only to build an error message. */
#include "cron/cron.h"

#include <inttypes.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/gostr.h"

#define STAR CW_CRON_STAR_BIT

typedef struct bounds {
    uint64_t min, max;
    const char *const *names; /* 3-letter lower-case names for min, min+1, ... */
} bounds;

static const char *const month_names[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul",
                                          "aug", "sep", "oct", "nov", "dec", NULL};
static const char *const dow_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL};

static const bounds b_minute = {0, 59, NULL}, b_hour = {0, 23, NULL}, b_dom = {1, 31, NULL},
                    b_month = {1, 12, month_names}, b_dow = {0, 6, dow_names};

static uint64_t get_bits(uint64_t min, uint64_t max, uint64_t step)
{
    uint64_t bits = 0;
    if (step == 1)
        return ~(UINT64_MAX << (max + 1)) & (UINT64_MAX << min);
    for (uint64_t i = min; i <= max; i += step)
        bits |= UINT64_C(1) << i;
    return bits;
}

static uint64_t all(const bounds *r)
{
    return get_bits(r->min, r->max, 1) | STAR;
}

/* Message helpers: the expression text is printed raw (%s in Go). */
static int fail(cw_buf *msg, const char *text, const char *e, size_t n)
{
    cw_buf_puts(msg, text);
    cw_buf_append(msg, e, n);
    return -1;
}

/* mustParseInt: strconv.Atoi, then "no negatives". */
static int must_parse_int(const char *e, size_t n, uint64_t *out, cw_buf *msg)
{
    int64_t v;
    int rc = cw_go_atoi(e, n, &v);
    if (rc != CW_GO_ATOI_OK) {
        cw_buf_puts(msg, "failed to parse int from ");
        cw_buf_append(msg, e, n);
        cw_buf_puts(msg, ": strconv.Atoi: parsing ");
        cw_go_quote(msg, e, n);
        cw_buf_puts(msg, rc == CW_GO_ATOI_RANGE ? ": value out of range" : ": invalid syntax");
        return -1;
    }
    if (v < 0) {
        cw_buf_printf(msg, "negative number (%" PRId64 ") not allowed: ", v);
        cw_buf_append(msg, e, n);
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

/* names[strings.ToLower(e)]: Go's ToLower maps U+0130 to 'i' and U+212A to 'k' as well. */
static int lookup_name(const char *e, size_t n, const char *const *names, uint64_t base,
                       uint64_t *out)
{
    char low[4];
    size_t k = 0, w;
    for (size_t i = 0; i < n; i += w) {
        int32_t r = cw_go_decode_rune(e + i, n - i, &w);
        if (r >= 'A' && r <= 'Z')
            r += 'a' - 'A';
        else if (r == 0x130)
            r = 'i';
        else if (r == 0x212A)
            r = 'k';
        if (r >= 0x80 || k == 3)
            return 0;
        low[k++] = (char)r;
    }
    if (k != 3)
        return 0;
    for (size_t i = 0; names[i]; i++) {
        if (memcmp(names[i], low, 3) == 0) {
            *out = base + i;
            return 1;
        }
    }
    return 0;
}

static int parse_int_or_name(const char *e, size_t n, const bounds *r, uint64_t *out, cw_buf *msg)
{
    if (r->names && lookup_name(e, n, r->names, r->min, out))
        return 0;
    return must_parse_int(e, n, out, msg);
}

static size_t index_of(const char *s, size_t n, char c)
{
    const char *p = memchr(s, c, n);
    return p ? (size_t)(p - s) : n;
}

static size_t count_of(const char *s, size_t n, char c)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == c;
    return k;
}

/* getRange: number | number "-" number [ "/" number ], or * / ? with an optional step. */
static int get_range(const char *e, size_t n, const bounds *r, uint64_t *bits, cw_buf *msg)
{
    size_t slashes = count_of(e, n, '/');
    size_t rlen = index_of(e, n, '/'); /* rangeAndStep[0] */
    size_t hyphens = count_of(e, rlen, '-');
    size_t l0 = index_of(e, rlen, '-'); /* lowAndHigh[0] */
    uint64_t start, end, step, extra = 0;

    if (l0 == 1 && (e[0] == '*' || e[0] == '?')) {
        /* whatever follows a hyphen here is ignored, as in robfig */
        start = r->min;
        end = r->max;
        extra = STAR;
    } else {
        if (parse_int_or_name(e, l0, r, &start, msg) != 0)
            return -1;
        if (hyphens == 0) {
            end = start;
        } else if (hyphens == 1) {
            if (parse_int_or_name(e + l0 + 1, rlen - l0 - 1, r, &end, msg) != 0)
                return -1;
        } else {
            return fail(msg, "too many hyphens: ", e, n);
        }
    }
    if (slashes == 0) {
        step = 1;
    } else if (slashes == 1) {
        if (must_parse_int(e + rlen + 1, n - rlen - 1, &step, msg) != 0)
            return -1;
        if (hyphens == 0) /* "N/step" means "N-max/step" */
            end = r->max;
        if (step > 1)
            extra = 0;
    } else {
        return fail(msg, "too many slashes: ", e, n);
    }
    if (start < r->min) {
        cw_buf_printf(msg, "beginning of range (%" PRIu64 ") below minimum (%" PRIu64 "): ", start,
                      r->min);
        return fail(msg, "", e, n);
    }
    if (end > r->max) {
        cw_buf_printf(msg, "end of range (%" PRIu64 ") above maximum (%" PRIu64 "): ", end, r->max);
        return fail(msg, "", e, n);
    }
    if (start > end) {
        cw_buf_printf(msg,
                      "beginning of range (%" PRIu64 ") beyond end of range (%" PRIu64 "): ", start,
                      end);
        return fail(msg, "", e, n);
    }
    if (step == 0)
        return fail(msg, "step of range should be a positive number: ", e, n);
    *bits = get_bits(start, end, step) | extra;
    return 0;
}

/* getField: a comma list; empty elements are dropped (strings.FieldsFunc). */
static int get_field(const char *f, size_t n, const bounds *r, uint64_t *bits, cw_buf *msg)
{
    size_t i = 0;
    *bits = 0;
    while (i < n) {
        size_t len = index_of(f + i, n - i, ',');
        uint64_t b;
        if (len > 0) {
            if (get_range(f + i, len, r, &b, msg) != 0)
                return -1;
            *bits |= b;
        }
        i += len + 1;
    }
    return 0;
}

static int starts_with(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

static int is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
}

/* parseDescriptor */
static int parse_descriptor(const char *s, size_t n, cw_cron *out, cw_buf *msg)
{
    out->minute = 1;
    out->hour = 1;
    out->dom = all(&b_dom);
    out->month = all(&b_month);
    out->dow = all(&b_dow);
    if (is(s, n, "@yearly") || is(s, n, "@annually")) {
        out->dom = UINT64_C(1) << 1;
        out->month = UINT64_C(1) << 1;
    } else if (is(s, n, "@monthly")) {
        out->dom = UINT64_C(1) << 1;
    } else if (is(s, n, "@weekly")) {
        out->dow = 1;
    } else if (is(s, n, "@daily") || is(s, n, "@midnight")) {
        /* the defaults above */
    } else if (is(s, n, "@hourly")) {
        out->hour = all(&b_hour);
    } else if (starts_with(s, n, "@every ")) {
        int64_t ns;
        cw_buf why;
        cw_buf_init(&why);
        if (cw_go_parse_duration(s + 7, n - 7, &ns, &why) != 0) {
            cw_buf_puts(msg, "failed to parse duration ");
            cw_buf_append(msg, s, n);
            cw_buf_puts(msg, ": ");
            cw_buf_puts(msg, cw_buf_str(&why));
            cw_buf_free(&why);
            return -1;
        }
        cw_buf_free(&why);
        /* Every(): under a second becomes a second; sub-second parts are cut off */
        *out = (cw_cron){.every = ns < INT64_C(1000000000) ? 1 : ns / INT64_C(1000000000)};
    } else {
        return fail(msg, "unrecognized descriptor: ", s, n);
    }
    return 0;
}

static int fields_error(const char *s, size_t n, size_t count, cw_buf *msg)
{
    size_t pos = 0, start, len;
    cw_buf_printf(msg, "expected exactly 5 fields, found %zu: [", count);
    for (size_t k = 0; cw_go_next_field(s, n, &pos, &start, &len); k++) {
        if (k)
            cw_buf_putc(msg, ' ');
        cw_buf_append(msg, s + start, len);
    }
    cw_buf_putc(msg, ']');
    return -1;
}

/* Error texts quote the input raw, as Go does; only NUL, which a C string cannot hold, is
 * written the way strconv.Quote shows it. */
static int set_message(cw_error *err, const cw_buf *msg)
{
    if (msg->len == 0)
        return cw_error_oom(err);
    if (!err)
        return CW_EINVAL;
    size_t k = 0;
    for (size_t i = 0; i < msg->len && k + 5 < sizeof(err->message); i++) {
        if (msg->data[i] == '\0') {
            memcpy(err->message + k, "\\x00", 4);
            k += 4;
        } else {
            err->message[k++] = msg->data[i];
        }
    }
    err->message[k] = '\0';
    err->code = CW_EINVAL;
    return CW_EINVAL;
}

int cw_cron_parsen(const char *spec, size_t len, cw_tzdb *db, cw_cron *out, cw_error *err)
{
    static const bounds *const places[5] = {&b_minute, &b_hour, &b_dom, &b_month, &b_dow};
    int rc = CW_OK;
    cw_buf msg;
    cw_cron s = {0};
    const char *p = spec;
    size_t n = len;

    cw_buf_init(&msg);
    if (n == 0) {
        rc = cw_error_set(err, CW_EINVAL, "empty spec string");
        goto done;
    }
    if (starts_with(p, n, "TZ=") || starts_with(p, n, "CRON_TZ=")) {
        size_t sp = index_of(p, n, ' ');
        size_t eq = index_of(p, n, '=');
        if (sp == n) { /* robfig would panic slicing spec[eq+1:-1] */
            rc = cw_error_set(err, CW_EINVAL, "missing space after time zone prefix: %.*s", (int)n,
                              p);
            goto done;
        }
        cw_error zerr;
        cw_error_init(&zerr);
        int zrc = cw_tzdb_loadn(db, p + eq + 1, sp - eq - 1, &s.zone, &zerr);
        if (zrc != CW_OK) {
            rc = cw_error_set(err, zrc == CW_ENOMEM || zrc == CW_ELIMIT ? zrc : CW_EINVAL,
                              "provided bad location %.*s: %s", (int)(sp - eq - 1), p + eq + 1,
                              zerr.message);
            goto done;
        }
        p += sp;
        n -= sp;
        cw_go_trim_space(&p, &n);
    }
    if (n > 0 && p[0] == '@') {
        const cw_tz *zone = s.zone;
        if (parse_descriptor(p, n, &s, &msg) != 0)
            goto invalid;
        if (!s.every)
            s.zone = zone;
        goto ok;
    }

    size_t pos = 0, count = 0, fstart[5], flen[5], a, l;
    while (cw_go_next_field(p, n, &pos, &a, &l)) {
        if (count < 5) {
            fstart[count] = a;
            flen[count] = l;
        }
        count++;
    }
    if (count != 5) {
        fields_error(p, n, count, &msg);
        goto invalid;
    }
    uint64_t *dst[5] = {&s.minute, &s.hour, &s.dom, &s.month, &s.dow};
    for (int i = 0; i < 5; i++)
        if (get_field(p + fstart[i], flen[i], places[i], dst[i], &msg) != 0)
            goto invalid;
ok:
    *out = s;
    goto done;
invalid:
    rc = set_message(err, &msg);
done:
    cw_buf_free(&msg);
    return rc;
}

size_t cw_cron_zone_prefix(const char *spec)
{
    size_t n = spec ? strlen(spec) : 0;
    if (!starts_with(spec, n, "TZ=") && !starts_with(spec, n, "CRON_TZ="))
        return 0;
    return index_of(spec, n, ' ');
}

int cw_cron_parse(const char *spec, cw_tzdb *db, cw_cron *out, cw_error *err)
{
    return cw_cron_parsen(spec, strlen(spec), db, out, err);
}
