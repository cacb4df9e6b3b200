/* Cron expressions in robfig/cron v3's ParseStandard dialect (what Longhorn, Velero <= 1.18 and
 * Kubernetes CronJobs accept), with the same accept/reject decisions and error texts.
 * Rules: ../shared/notes/cron.md. Parsed once into a value type; next() allocates nothing. */
#ifndef CW_CRON_H
#define CW_CRON_H

#include <stdint.h>

#include "lib/error.h"
#include "lib/tz.h"

#define CW_CRON_STAR_BIT (UINT64_C(1) << 63)

typedef struct cw_cron {
    uint64_t minute, hour, dom, month, dow; /* bit sets as robfig builds them (bit 63: star) */
    int64_t every;      /* > 0: an "@every" schedule, delay in whole seconds; bit sets unused */
    const cw_tz *zone;  /* from a TZ=/CRON_TZ= prefix (owned by the tzdb); NULL: caller's zone */
} cw_cron;

/* Parses `spec`. Zone prefixes are resolved through `db` (may be NULL only when no prefix naming
 * a zone file is used). On failure: CW_EINVAL and err->message = robfig's message. */
int cw_cron_parse(const char *spec, cw_tzdb *db, cw_cron *out, cw_error *err);

/* Next fire time strictly after `after` (unix seconds). Without a zone prefix the schedule is
 * evaluated at `caller_offset` (seconds east of UTC), as robfig uses the input time's zone.
 * Returns 1 and *next, or 0 when it never fires within robfig's five-year horizon. */
int cw_cron_next(const cw_cron *s, int64_t after, int32_t caller_offset, int64_t *next);

#endif
