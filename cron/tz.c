/* TZif loading and zone lookups, ported from Go 1.19's time package (zoneinfo_read.go,
 * zoneinfo.go) so that every offset and period bound matches what robfig/cron sees. */
#include "cron/tz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cron/tz_internal.h"
#include "lib/grow.h"

#define TZ_MAX_FILE  (10 << 20) /* Go's maxFileSize */
#define TZ_MAX_NAMES 4096       /* bounds the cache against endless spellings ("A/./B") */

struct cw_tz {
    const char *name;
    size_t ntx, nzone;
    int64_t *tx_when;
    uint8_t *tx_index;
    int32_t *zone_off;
    uint8_t *zone_dst;
    size_t first_zone; /* zone for times before the first transition */
    int ext;           /* 0: no footer, 1: parsed footer, 2: footer Go cannot parse */
    cw_tz_posix posix;
    /* Go caches the period containing the load time; replaying it keeps odd footers exact. */
    int has_cache;
    int64_t cache_start, cache_end;
    int32_t cache_off;
};

static const cw_tz utc_zone = {.name = "UTC"};

static void tz_free(cw_tz *z)
{
    if (!z || z == &utc_zone)
        return;
    free((char *)z->name);
    free(z->tx_when);
    free(z->tx_index);
    free(z->zone_off);
    free(z->zone_dst);
    free(z);
}

int cw_tzdb_init(cw_tzdb *db, const char *dir, cw_error *err)
{
    int rc = CW_OK;
    memset(db, 0, sizeof(*db));
    if (!dir)
        dir = getenv("ZONEINFO");
    if (!dir || !*dir)
        dir = "/usr/share/zoneinfo";
    db->dir = strdup(dir);
    if (!db->dir) {
        rc = cw_error_oom(err);
        goto done;
    }
    if (pthread_mutex_init(&db->lock, NULL) != 0) {
        free(db->dir);
        db->dir = NULL;
        rc = cw_error_set(err, CW_ENOMEM, "cannot create the time zone lock");
    }
done:
    return rc;
}

void cw_tzdb_free(cw_tzdb *db)
{
    if (!db || !db->dir)
        return;
    for (size_t i = 0; i < db->len; i++)
        tz_free(db->zones[i]);
    free(db->zones);
    free(db->dir);
    pthread_mutex_destroy(&db->lock);
    memset(db, 0, sizeof(*db));
}

/* ---- lookups (Location.lookup) ---- */

static int32_t lookup(const cw_tz *z, int64_t sec, int64_t *start, int64_t *end)
{
    if (!z || z->nzone == 0) {
        *start = CW_TZ_ALPHA;
        *end = CW_TZ_OMEGA;
        return 0;
    }
    if (z->has_cache && z->cache_start <= sec && sec < z->cache_end) {
        *start = z->cache_start;
        *end = z->cache_end;
        return z->cache_off;
    }
    if (z->ntx == 0 || sec < z->tx_when[0]) {
        *start = CW_TZ_ALPHA;
        *end = z->ntx > 0 ? z->tx_when[0] : CW_TZ_OMEGA;
        return z->zone_off[z->first_zone];
    }
    /* largest transition <= sec */
    size_t lo = 0, hi = z->ntx;
    *end = CW_TZ_OMEGA;
    while (hi - lo > 1) {
        size_t m = lo + (hi - lo) / 2;
        if (sec < z->tx_when[m]) {
            *end = z->tx_when[m];
            hi = m;
        } else {
            lo = m;
        }
    }
    *start = z->tx_when[lo];
    if (lo == z->ntx - 1 && z->ext == 1) {
        int64_t off;
        cw_tz_posix_lookup(&z->posix, *start, sec, &off, start, end);
        return (int32_t)off;
    }
    return z->zone_off[z->tx_index[lo]];
}

int32_t cw_tz_lookup(const cw_tz *z, int64_t t, int64_t *start, int64_t *end)
{
    return lookup(z, t, start, end);
}

int64_t cw_tz_stable_until(const cw_tz *z, int64_t t)
{
    if (!z || z->nzone == 0)
        return CW_TZ_OMEGA;
    /* lookup() answers from the cache first, so its range decides when it holds t */
    if (z->has_cache && z->cache_start <= t && t < z->cache_end)
        return z->cache_end;
    int64_t bound;
    if (z->ntx == 0) {
        bound = CW_TZ_OMEGA;
    } else if (t < z->tx_when[0]) {
        bound = z->tx_when[0];
    } else {
        size_t lo = 0, hi = z->ntx;
        while (hi - lo > 1) {
            size_t m = lo + (hi - lo) / 2;
            if (t < z->tx_when[m])
                hi = m;
            else
                lo = m;
        }
        if (lo + 1 < z->ntx)
            bound = z->tx_when[lo + 1];
        else if (z->ext == 1)
            return t + 1; /* the POSIX rule varies by year: no promise */
        else
            bound = CW_TZ_OMEGA;
    }
    if (z->has_cache && t < z->cache_start && z->cache_start < bound)
        bound = z->cache_start;
    return bound;
}

int32_t cw_tz_offset_at(const cw_tz *z, int64_t t)
{
    int64_t s, e;
    return lookup(z, t, &s, &e);
}

int64_t cw_tz_local_to_utc(const cw_tz *z, int64_t local)
{
    int64_t start, end;
    int32_t off = lookup(z, local, &start, &end);
    if (off != 0) {
        /* Go's time.Date: try the offset found at the wall time read as UTC; if the result
         * falls outside that period, use the offset in force at the result instead. */
        int64_t utc = local - off;
        if (utc < start || utc >= end)
            off = lookup(z, utc, &start, &end);
        local -= off;
    }
    return local;
}

const char *cw_tz_name(const cw_tz *z)
{
    return z ? z->name : "UTC";
}

/* ---- TZif parsing (LoadLocationFromTZData) ---- */

typedef struct {
    const unsigned char *p;
    size_t n;
    int error;
} reader;

static const unsigned char *rd(reader *r, size_t n)
{
    if (r->n < n) {
        r->p = NULL;
        r->n = 0;
        r->error = 1;
        return NULL;
    }
    const unsigned char *p = r->p;
    r->p += n;
    r->n -= n;
    return p;
}

static int rd_be32(reader *r, uint32_t *v)
{
    const unsigned char *p = rd(r, 4);
    if (!p)
        return -1;
    *v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return 0;
}

/* lookupFirstZone, the tzcode rule for times before the first transition. */
static size_t first_zone(const cw_tz *z)
{
    int used = 0;
    for (size_t i = 0; i < z->ntx && !used; i++)
        used = z->tx_index[i] == 0;
    if (!used)
        return 0;
    if (z->ntx > 0 && z->zone_dst[z->tx_index[0]]) {
        for (size_t zi = z->tx_index[0]; zi-- > 0;)
            if (!z->zone_dst[zi])
                return zi;
    }
    for (size_t zi = 0; zi < z->nzone; zi++)
        if (!z->zone_dst[zi])
            return zi;
    return 0;
}

static void fill_cache(cw_tz *z, int64_t now)
{
    for (size_t i = 0; i < z->ntx; i++) {
        if (!(z->tx_when[i] <= now && (i + 1 == z->ntx || now < z->tx_when[i + 1])))
            continue;
        z->has_cache = 1;
        z->cache_start = z->tx_when[i];
        z->cache_end = CW_TZ_OMEGA;
        z->cache_off = z->zone_off[z->tx_index[i]];
        if (i + 1 < z->ntx) {
            z->cache_end = z->tx_when[i + 1];
        } else if (z->ext == 1) {
            int64_t off;
            cw_tz_posix_lookup(&z->posix, z->cache_start, now, &off, &z->cache_start,
                               &z->cache_end);
            z->cache_off = (int32_t)off;
        }
        return;
    }
}

#define BAD_DATA "malformed time zone information"

static int parse_tzif(const unsigned char *data, size_t len, cw_tz *z, cw_error *err)
{
    enum { UTCLOCAL, STDWALL, LEAP, TIME, ZONE, CHAR };
    reader r = {data, len, 0};
    uint32_t n[6];
    const unsigned char *magic = rd(&r, 4), *hdr;
    int version;

    if (!magic || memcmp(magic, "TZif", 4) != 0 || !(hdr = rd(&r, 16)))
        return cw_error_set(err, CW_EINVAL, BAD_DATA);
    switch (hdr[0]) {
    case 0:
        version = 1;
        break;
    case '2':
        version = 2;
        break;
    case '3':
        version = 3;
        break;
    default:
        return cw_error_set(err, CW_EINVAL, BAD_DATA); /* Go 1.19 has no v4 */
    }
    for (int i = 0; i < 6; i++)
        if (rd_be32(&r, &n[i]) != 0)
            return cw_error_set(err, CW_EINVAL, BAD_DATA);
    size_t size = 4;
    if (version > 1) {
        /* skip the 32-bit block and the second header's magic and version */
        uint64_t skip = (uint64_t)n[TIME] * 5 + (uint64_t)n[ZONE] * 6 + n[CHAR] +
                        (uint64_t)n[LEAP] * 8 + n[STDWALL] + n[UTCLOCAL] + 20;
        rd(&r, skip > len ? len + 1 : (size_t)skip);
        for (int i = 0; i < 6; i++)
            if (rd_be32(&r, &n[i]) != 0)
                return cw_error_set(err, CW_EINVAL, BAD_DATA);
        size = 8;
    }
    const unsigned char *txtimes = rd(&r, (size_t)n[TIME] * size);
    const unsigned char *txzones = rd(&r, n[TIME]);
    const unsigned char *zonedata = rd(&r, (size_t)n[ZONE] * 6);
    const unsigned char *abbrev = rd(&r, n[CHAR]);
    rd(&r, (size_t)n[LEAP] * (size + 4));
    rd(&r, n[STDWALL]);
    rd(&r, n[UTCLOCAL]);
    if (r.error)
        return cw_error_set(err, CW_EINVAL, BAD_DATA);
    /* the footer: "\n<TZ string>\n" */
    if (r.n > 2 && r.p[0] == '\n' && r.p[r.n - 1] == '\n')
        z->ext = cw_tz_posix_parse((const char *)r.p + 1, r.n - 2, &z->posix) == 0 ? 1 : 2;
    if (n[ZONE] == 0)
        return cw_error_set(err, CW_EINVAL, BAD_DATA);

    z->nzone = n[ZONE];
    z->ntx = n[TIME] ? n[TIME] : 1; /* Go invents one transition at -inf when there are none */
    z->zone_off = malloc(z->nzone * sizeof(*z->zone_off));
    z->zone_dst = malloc(z->nzone);
    z->tx_when = malloc(z->ntx * sizeof(*z->tx_when));
    z->tx_index = malloc(z->ntx);
    if (!z->zone_off || !z->zone_dst || !z->tx_when || !z->tx_index)
        return cw_error_oom(err);
    for (size_t i = 0; i < z->nzone; i++) {
        const unsigned char *p = zonedata + 6 * i;
        z->zone_off[i] =
            (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
        z->zone_dst[i] = p[4] != 0;
        if (p[5] >= n[CHAR])
            return cw_error_set(err, CW_EINVAL, BAD_DATA);
    }
    (void)abbrev;
    if (n[TIME] == 0) {
        z->tx_when[0] = CW_TZ_ALPHA;
        z->tx_index[0] = 0;
    }
    for (size_t i = 0; i < n[TIME]; i++) {
        const unsigned char *p = txtimes + size * i;
        uint64_t v = 0;
        for (size_t k = 0; k < size; k++)
            v = v << 8 | p[k];
        z->tx_when[i] = size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
        if (txzones[i] >= z->nzone)
            return cw_error_set(err, CW_EINVAL, BAD_DATA);
        z->tx_index[i] = txzones[i];
    }
    z->first_zone = first_zone(z);
    fill_cache(z, (int64_t)time(NULL));
    return CW_OK;
}

/* ---- files ---- */

/* Go prints syscall.Errno texts, which are glibc's in lower case. */
static const char *errno_text(int e, char *buf, size_t len)
{
    switch (e) {
    case ENOTDIR:
        return "not a directory";
    case EISDIR:
        return "is a directory";
    case ENAMETOOLONG:
        return "file name too long";
    case EACCES:
        return "permission denied";
    case ELOOP:
        return "too many levels of symbolic links";
    case EINVAL:
        return "invalid argument";
    case EIO:
        return "input/output error";
    default:
        break;
    }
    snprintf(buf, len, "%s", strerror(e));
    if (buf[0] >= 'A' && buf[0] <= 'Z')
        buf[0] = (char)(buf[0] - 'A' + 'a');
    return buf;
}

static int read_zone_file(const char *dir, const char *name, size_t nlen, unsigned char **data,
                          size_t *len, cw_error *err)
{
    int rc = CW_OK, fd = -1;
    char ebuf[128];
    size_t dlen = strlen(dir), cap = 0;
    char *path = malloc(dlen + nlen + 2);
    unsigned char *buf = NULL;

    *data = NULL;
    *len = 0;
    if (!path) {
        rc = cw_error_oom(err);
        goto done;
    }
    memcpy(path, dir, dlen);
    path[dlen] = '/';
    memcpy(path + dlen + 1, name, nlen);
    path[dlen + 1 + nlen] = '\0';
    if (memchr(name, '\0', nlen)) { /* Go's open rejects NUL in paths */
        rc = cw_error_set(err, CW_EIO, "invalid argument");
        goto done;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            rc = cw_error_set(err, CW_ENOTFOUND, "unknown time zone %.*s", (int)nlen, name);
        else
            rc = cw_error_set(err, CW_EIO, "%s", errno_text(errno, ebuf, sizeof(ebuf)));
        goto done;
    }
    for (;;) {
        if (*len + 4096 > cap) {
            size_t ncap = cap ? cap * 2 : 8192;
            unsigned char *p = realloc(buf, ncap);
            if (!p) {
                rc = cw_error_oom(err);
                goto done;
            }
            buf = p;
            cap = ncap;
        }
        ssize_t got = read(fd, buf + *len, 4096);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = cw_error_set(err, CW_EIO, "%s", errno_text(errno, ebuf, sizeof(ebuf)));
            goto done;
        }
        if (got == 0)
            break;
        *len += (size_t)got;
        if (*len > TZ_MAX_FILE) {
            rc = cw_error_set(err, CW_EIO, "time: file %s is too large", path);
            goto done;
        }
    }
    *data = buf;
    buf = NULL;
done:
    if (fd >= 0)
        close(fd);
    free(buf);
    free(path);
    return rc;
}

static int contains_dotdot(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '.' && s[i + 1] == '.')
            return 1;
    return 0;
}

int cw_tzdb_loadn(cw_tzdb *db, const char *name, size_t len, const cw_tz **out, cw_error *err)
{
    int rc = CW_OK, locked = 0;
    unsigned char *data = NULL;
    size_t dlen = 0;
    cw_tz *z = NULL;

    *out = NULL;
    if (len == 0 || (len == 3 && memcmp(name, "UTC", 3) == 0)) {
        *out = &utc_zone;
        goto done;
    }
    if (len == 5 && memcmp(name, "Local", 5) == 0)
        goto done;
    if (contains_dotdot(name, len) || name[0] == '/' || name[0] == '\\') {
        rc = cw_error_set(err, CW_EINVAL, "time: invalid location name");
        goto done;
    }
    if (!db || !db->dir) {
        rc =
            cw_error_set(err, CW_EINVAL, "no time zone database to load %.*s from", (int)len, name);
        goto done;
    }
    pthread_mutex_lock(&db->lock);
    locked = 1;
    for (size_t i = 0; i < db->len; i++) {
        const char *zn = db->zones[i]->name;
        if (strlen(zn) == len && memcmp(zn, name, len) == 0) {
            *out = db->zones[i];
            goto done;
        }
    }
    if ((rc = read_zone_file(db->dir, name, len, &data, &dlen, err)) != CW_OK)
        goto done;
    if (db->len >= TZ_MAX_NAMES) {
        rc = cw_error_set(err, CW_ELIMIT, "too many time zones loaded");
        goto done;
    }
    if (!(z = calloc(1, sizeof(*z))) || !(z->name = strndup(name, len))) {
        rc = cw_error_oom(err);
        goto done;
    }
    if ((rc = parse_tzif(data, dlen, z, err)) != CW_OK)
        goto done;
    if (cw_grow((void **)&db->zones, &db->cap, db->len, sizeof(*db->zones), 16) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    db->zones[db->len++] = z;
    *out = z;
    z = NULL;
done:
    if (locked)
        pthread_mutex_unlock(&db->lock);
    tz_free(z);
    free(data);
    return rc;
}

int cw_tzdb_load(cw_tzdb *db, const char *name, const cw_tz **out, cw_error *err)
{
    return cw_tzdb_loadn(db, name, strlen(name), out, err);
}
