/* The migrate flows, callable without the binary (tests/unit/migrate/test_run.c): offline
 * (manifests in, report and rewritten manifests out) and online (the upgrade Job). cmd/migrate.c
 * only turns flags into a cw_migrate_opts and the outcome into the process exit code. Each flow
 * prints its one-line failure to stderr as "cronwarden migrate: <message>". */
#ifndef CW_MIGRATE_RUN_H
#define CW_MIGRATE_RUN_H

#include "lib/strlist.h"
#include "migrate/plan.h"
#include "migrate/report.h"

/* Outcomes, equal to the documented exit codes (docs/report.md). */
#define CW_MIGRATE_OK       0 /* nothing failed, nothing conflicted */
#define CW_MIGRATE_FINDINGS 1 /* errors, invalid legacy jobs or conflicts; or a failure */
#define CW_MIGRATE_USAGE    2 /* usage error, unreadable or malformed input, unreachable cluster */
#define CW_MIGRATE_PENDING  3 /* --detailed-exitcode: changes pending, nothing failed */

typedef struct cw_migrate_opts {
    cw_strlist from_files;
    char *output_dir, *output, *report, *name_scheme, *namespace, *default_group;
    int detailed_exitcode, no_default_group, wait_for_controller, overwrite;
    int qps_explicit; /* 0: --qps applies only without API Priority and Fairness */
    long long max_retain, burst, parallel, page_size, max_input_bytes;
    char *kubeconfig, *context, *dry_run;
    double qps, request_timeout, wait_timeout, lease_duration, lease_wait;
} cw_migrate_opts;

/* Each returns a CW_MIGRATE_* outcome; plan is initialised and empty. */
int cw_migrate_offline(const cw_migrate_opts *o, cw_plan *plan);
int cw_migrate_online(const cw_migrate_opts *o, cw_plan *plan);
/* Prints the report in the chosen format and writes --report (inputs: what was read, or NULL). */
struct cw_inputs;
int cw_migrate_report(const cw_plan *p, const cw_report_info *info, const cw_migrate_opts *o,
                      const struct cw_inputs *inputs, cw_error *err) CW_MUST_CHECK;

#endif
