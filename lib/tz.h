/* Time zones from the system tz database (TZif, RFC 8536), loaded once per zone into a
 * caller-owned database and immutable afterwards, so lookups are lock-free and allocation-free. */
#ifndef CW_TZ_H
#define CW_TZ_H

#include <pthread.h>
#include <stdint.h>

#include "lib/error.h"

typedef struct cw_tz cw_tz; /* opaque details live in tz.c; see cw_tz_fixed for caller zones */

/* A database of loaded zones. Thread-safe; zones stay valid until cw_tzdb_free. */
typedef struct cw_tzdb {
    char *dir; /* zoneinfo directory */
    pthread_mutex_t lock;
    cw_tz **zones;
    size_t len, cap;
} cw_tzdb;

/* dir NULL: $ZONEINFO when set, else /usr/share/zoneinfo. */
int cw_tzdb_init(cw_tzdb *db, const char *dir, cw_error *err);
void cw_tzdb_free(cw_tzdb *db);
/* Loads (or returns the cached) zone `name` following Go's time.LoadLocation rules:
 * "" and "UTC" are UTC, "Local" yields *out == NULL (meaning "the caller's zone").
 * Unknown: CW_ENOTFOUND "unknown time zone <name>". */
int cw_tzdb_load(cw_tzdb *db, const char *name, const cw_tz **out, cw_error *err);

/* Offset (seconds east of UTC) in effect at unix time t. */
int32_t cw_tz_offset_at(const cw_tz *z, int64_t t);
const char *cw_tz_name(const cw_tz *z);

#endif
