/* cronwarden migrate against a live cluster: filled in by the online-migrate work. */
#include <stdio.h>

#include "cmd/cmd.h"
#include "cmd/migrate.h"

int cw_migrate_online(const cw_migrate_opts *o, cw_plan *plan)
{
    (void)o;
    (void)plan;
    fprintf(stderr, "cronwarden migrate: online mode is not implemented yet; use --from-file\n");
    return CW_EXIT_USAGE;
}
