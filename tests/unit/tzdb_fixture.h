/* Group fixture for suites that need the system's zone database: one `tzdb` for all cases. */
#ifndef CW_TEST_TZDB_FIXTURE_H
#define CW_TEST_TZDB_FIXTURE_H

#include "cron/tz.h"

static cw_tzdb tzdb;

static int tzdb_setup(void **state)
{
    (void)state;
    return cw_tzdb_init(&tzdb, NULL, NULL) == CW_OK ? 0 : -1;
}

static int tzdb_teardown(void **state)
{
    (void)state;
    cw_tzdb_free(&tzdb);
    return 0;
}

#endif
