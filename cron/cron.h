/* Cron expressions in robfig/cron v3's ParseStandard dialect (what Longhorn, Velero <= 1.18 and
 * Kubernetes CronJobs accept), with the same accept/reject decisions and error texts.
 * Rules: docs/cron.md. Parsed once into a value type; next() allocates nothing. */
#ifndef CW_CRON_H
#define CW_CRON_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "cron/tz.h"

#define CW_CRON_STAR_BIT (UINT64_C(1) << 63)

typedef struct cw_cron {
    uint64_t minute, hour, dom, month, dow; /* bit sets as robfig builds them (bit 63: star) */
    int64_t every;     /* > 0: an "@every" schedule, delay in whole seconds; bit sets unused */
    const cw_tz *zone; /* from a TZ=/CRON_TZ= prefix (owned by the tzdb); NULL: caller's zone */
} cw_cron;

/* Parses `spec`. Zone prefixes are resolved through `db` (may be NULL only when no prefix naming
 * a zone file is used). On failure: CW_EINVAL and err->message = robfig's message (CW_ENOMEM,
 * CW_EIO or CW_ELIMIT when the zone could not be loaded for reasons of our own). A zone prefix
 * without the space that must end it is rejected (robfig panics on it). */
int cw_cron_parse(const char *spec, cw_tzdb *db, cw_cron *out, cw_error *err) CW_MUST_CHECK;
/* The same for a spec of `len` bytes that may contain NUL bytes (JSON strings can). */
int cw_cron_parsen(const char *spec, size_t len, cw_tzdb *db, cw_cron *out,
                   cw_error *err) CW_MUST_CHECK;

/* The length of a leading TZ=<zone> or CRON_TZ=<zone> prefix (up to the first ASCII space, or the
 * whole spec when there is none), 0 when spec does not start with one. robfig/cron v3 reads it as
 * the schedule's zone; robfig/cron v1, what Longhorn's validator (every minor) and Kubernetes'
 * CronJob validation up to 1.21 parse with, has no prefix and refuses such a spec. */
size_t cw_cron_zone_prefix(const char *spec);

/* Next fire time strictly after `after` (unix seconds). Without a zone prefix the schedule is
 * evaluated at `caller_offset` (seconds east of UTC), as robfig uses the input time's zone.
 * Returns 1 and *next, or 0 when it does not fire: nothing within robfig's five-year horizon,
 * or a time at which robfig's Next would never return (see below). Thread-safe. */
int cw_cron_next(const cw_cron *s, int64_t after, int32_t caller_offset, int64_t *next);
/* The same, telling the ways of not firing apart: 0 past the horizon; CW_ELIMIT where robfig's
 * Next spins forever (a whole local day skipped, as in Pacific/Apia on 2011-12-30, lies between
 * `after` and the next match); CW_EINVAL when `after` is outside years 0-9999. */
int cw_cron_next_checked(const cw_cron *s, int64_t after, int32_t caller_offset, int64_t *next);

#endif
