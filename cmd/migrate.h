/* Shared by the offline and online halves of `cronwarden migrate`. */
#ifndef CW_CMD_MIGRATE_H
#define CW_CMD_MIGRATE_H

#include "lib/strlist.h"
#include "migrate/plan.h"
#include "migrate/report.h"

typedef struct cw_migrate_opts {
    cw_strlist from_files;
    char *output_dir, *output, *report, *name_scheme, *namespace, *default_group;
    int detailed_exitcode, no_default_group, wait_for_controller, overwrite;
    long long max_retain, burst, parallel, page_size;
    char *kubeconfig, *context, *dry_run;
    double qps, request_timeout, wait_timeout, lease_duration, lease_wait;
} cw_migrate_opts;

int cw_migrate_offline(const cw_migrate_opts *o, cw_plan *plan);
int cw_migrate_online(const cw_migrate_opts *o, cw_plan *plan);
/* Prints the report in the chosen format and writes --report. */
int cw_migrate_report(const cw_plan *p, const cw_report_info *info, const cw_migrate_opts *o,
                      cw_error *err);

#endif
