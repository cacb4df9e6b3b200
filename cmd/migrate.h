/* cronwarden migrate: the flags' target is migrate/run.h's cw_migrate_opts. */
#ifndef CW_CMD_MIGRATE_H
#define CW_CMD_MIGRATE_H

#include "migrate/run.h"

#endif
