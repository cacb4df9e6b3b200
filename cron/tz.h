/* Time zones from the system tz database (TZif v1-v3, RFC 8536), loaded once per zone into a
 * caller-owned database and immutable afterwards, so lookups are lock-free and allocation-free.
 * Loading and lookups follow Go's time package (LoadLocation, Location.lookup, time.Date), which
 * is what robfig/cron runs on. */
#ifndef CW_TZ_H
#define CW_TZ_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

typedef struct cw_tz cw_tz; /* opaque; NULL stands for UTC in the cw_tz_* functions */

/* A database of loaded zones. Thread-safe; zones stay valid until cw_tzdb_free. */
typedef struct cw_tzdb {
    char *dir; /* zoneinfo directory */
    pthread_mutex_t lock;
    cw_tz **zones;
    size_t len, cap;
} cw_tzdb;

/* dir NULL: $ZONEINFO when set, else /usr/share/zoneinfo. */
int cw_tzdb_init(cw_tzdb *db, const char *dir, cw_error *err) CW_MUST_CHECK;
void cw_tzdb_free(cw_tzdb *db);
/* Loads (or returns the cached) zone `name` following Go's time.LoadLocation rules:
 * "" and "UTC" are UTC, "Local" yields *out == NULL (meaning "the caller's zone").
 * Names containing ".." or starting with '/' or '\\': CW_EINVAL "time: invalid location name".
 * Unknown: CW_ENOTFOUND "unknown time zone <name>"; a file that is not TZif: CW_EINVAL
 * "malformed time zone information"; other I/O failures: CW_EIO with Go's errno text. */
int cw_tzdb_load(cw_tzdb *db, const char *name, const cw_tz **out, cw_error *err) CW_MUST_CHECK;
/* The same for a name that is not NUL-terminated (it may even contain NUL bytes). */
int cw_tzdb_loadn(cw_tzdb *db, const char *name, size_t len, const cw_tz **out,
                  cw_error *err) CW_MUST_CHECK;

/* Offset (seconds east of UTC) in effect at unix time t. */
int32_t cw_tz_offset_at(const cw_tz *z, int64_t t);
/* Go's Location.lookup: the offset at t and the [start, end) bounds of that zone period
 * (INT64_MIN / INT64_MAX when open-ended). */
int32_t cw_tz_lookup(const cw_tz *z, int64_t t, int64_t *start, int64_t *end);
/* The end of the span starting at t over which cw_tz_offset_at keeps t's offset (at least
 * t + 1; conservative under a POSIX-rule period). Lets callers stride through local time. */
int64_t cw_tz_stable_until(const cw_tz *z, int64_t t);
/* Local wall-clock seconds (as if UTC) to unix time, resolving DST gaps and overlaps exactly as
 * Go's time.Date does. */
int64_t cw_tz_local_to_utc(const cw_tz *z, int64_t local);
const char *cw_tz_name(const cw_tz *z);

/* RFC 3339 text for unix time t shown at `offset` seconds east ("Z" when 0, else +hh:mm).
 * out needs CW_TZ_RFC3339_MAX bytes; years outside 0000-9999 are rejected (CW_EINVAL). */
#define CW_TZ_RFC3339_MAX 32
int cw_tz_format_rfc3339(int64_t t, int32_t offset, char *out, size_t outlen);
/* Strict RFC 3339 date-time ("2025-03-09T02:30:00-05:00", fraction allowed and floored).
 * Sets *t (unix seconds) and *offset. */
int cw_tz_parse_rfc3339(const char *s, int64_t *t, int32_t *offset, cw_error *err) CW_MUST_CHECK;

#endif
