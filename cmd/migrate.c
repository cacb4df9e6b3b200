/* cronwarden migrate: flags -> cw_migrate_opts; the flows are migrate/run_offline.c and
 * migrate/run_online.c, whose CW_MIGRATE_* outcomes are the exit codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/migrate.h"
#include "lib/log.h"
#include "lib/opts.h"
#include "migrate/plan.h"

static const char footer[] =
    "Modes:\n"
    "  With --from-file, reads manifests (YAML or JSON, files or directories, '-' for stdin) and\n"
    "  reports what would change; with --output-dir it also writes the migrated manifests.\n"
    "  Without --from-file, runs against the cluster (see the online flags).\n\n"
    "Exit codes:\n"
    "  0  success (nothing failed, nothing conflicted)\n"
    "  1  errors, invalid legacy jobs or conflicts (the report says which; a rerun continues)\n"
    "  2  usage error, unreadable or malformed input, unreachable cluster\n"
    "  3  with --detailed-exitcode: changes are pending and nothing failed\n\n"
    "Report schema: docs/report.md. Examples:\n"
    "  cronwarden migrate --from-file cluster-export/ -o json\n"
    "  cronwarden migrate --from-file gitops/longhorn --output-dir gitops-migrated\n"
    "  cronwarden migrate --dry-run=server --report /tmp/report.json";

int cw_cmd_migrate(int argc, char **argv)
{
    cw_migrate_opts o;
    memset(&o, 0, sizeof(o));
    cw_strlist_init(&o.from_files);
    char *log_level = NULL, *log_format = NULL;
    const cw_opt opts[] = {
        {"from-file", 'f', CW_OPT_LIST, "PATH",
         "read manifests instead of the cluster: a file, a directory (recursive) or - for stdin",
         &o.from_files, NULL, NULL, 0, 0, 0},
        {"output-dir", 0, CW_OPT_STRING, "DIR",
         "offline: write migrated manifests (mirroring the input tree) and recurringjobs.yaml here",
         &o.output_dir, NULL, NULL, 0, 0, 0},
        {"overwrite", 0, CW_OPT_BOOL, NULL,
         "write into a non-empty --output-dir (only the files the run produces are written)",
         &o.overwrite, "false", NULL, 0, 0, 0},
        {"output", 'o', CW_OPT_ENUM, NULL, "report format on stdout", &o.output, "text",
         "text|json|yaml", 0, 0, 0},
        {"report", 0, CW_OPT_STRING, "FILE", "also write the JSON report to FILE", &o.report, NULL,
         NULL, 0, 0, 0},
        {"detailed-exitcode", 0, CW_OPT_BOOL, NULL,
         "exit 3 when changes are pending and nothing failed (audits)", &o.detailed_exitcode, NULL,
         NULL, 0, 0, 0},
        {"name-scheme", 0, CW_OPT_ENUM, NULL,
         "RecurringJob names: xxh32, or longhorn (Longhorn 1.2's FNV names)", &o.name_scheme,
         "xxh32", "xxh32|longhorn", 0, 0, 0},
        {"namespace", 'n', CW_OPT_STRING, "NS",
         "Longhorn namespace (RecurringJobs, ConfigMap, CronJobs, Lease)", &o.namespace,
         "longhorn-system", NULL, 0, 0, 0},
        {"default-group", 0, CW_OPT_STRING, "NAME",
         "group label for volumes left without job labels", &o.default_group, "default", NULL, 0, 0,
         0},
        {"no-default-group", 0, CW_OPT_BOOL, NULL, "never add the default group label",
         &o.no_default_group, NULL, NULL, 0, 0, 0},
        {"max-retain", 0, CW_OPT_INT, NULL,
         "highest retain a job may have (Longhorn's recurring-job-max-retention)", &o.max_retain,
         "100", NULL, 1, 250, 0},
        {"kubeconfig", 0, CW_OPT_STRING, "FILE",
         "online: kubeconfig (default $KUBECONFIG, ~/.kube/config, in-cluster)", &o.kubeconfig,
         NULL, NULL, 0, 0, 0},
        {"context", 0, CW_OPT_STRING, "NAME", "online: kubeconfig context", &o.context, NULL, NULL,
         0, 0, 0},
        {"dry-run", 0, CW_OPT_ENUM, NULL,
         "online: none applies; client plans only; server sends every write with dryRun=All",
         &o.dry_run, "none", "none|client|server", 0, 0, 0},
        {"qps", 0, CW_OPT_DOUBLE, NULL, "online: client-side request rate limit", &o.qps, "100",
         NULL, 0, 0, 0},
        {"burst", 0, CW_OPT_INT, NULL, "online: request burst above --qps", &o.burst, "200", NULL,
         1, 100000, 0},
        {"parallel", 0, CW_OPT_INT, NULL, "online: concurrent API requests", &o.parallel, "8", NULL,
         1, 64, 0},
        {"page-size", 0, CW_OPT_INT, NULL, "online: LIST page size", &o.page_size, "500", NULL, 1,
         10000, 0},
        {"request-timeout", 0, CW_OPT_DURATION, NULL, "online: timeout of one API request",
         &o.request_timeout, "30s", NULL, 0, 0, 0},
        {"wait-for-controller", 0, CW_OPT_BOOL, NULL,
         "online: wait until Longhorn made each new RecurringJob's CronJob", &o.wait_for_controller,
         NULL, NULL, 0, 0, 0},
        {"wait-timeout", 0, CW_OPT_DURATION, NULL,
         "online: how long to wait for each new RecurringJob to be ready", &o.wait_timeout, "10m",
         NULL, 0, 0, 0},
        {"lease-duration", 0, CW_OPT_DURATION, NULL,
         "online: how long the migration Lease lasts without renewal (a crashed run blocks the "
         "next one this long)",
         &o.lease_duration, "30s", NULL, 0, 0, 0},
        {"lease-wait", 0, CW_OPT_DURATION, NULL,
         "online: how long to wait for another run's Lease before giving up", &o.lease_wait, "2m",
         NULL, 0, 0, 0},
        {"log-level", 0, CW_OPT_ENUM, NULL, "log level", &log_level, "info",
         "debug|info|warn|error", 0, 0, 0},
        {"log-format", 0, CW_OPT_ENUM, NULL, "log format", &log_format, "text", "text|json", 0, 0,
         0},
    };
    const cw_cmd_spec spec = {
        "migrate",
        "cronwarden migrate [--from-file PATH... [--output-dir DIR]] [flags]",
        "Turns legacy Longhorn recurringJobs (Volume spec.recurringJobs, StorageClass parameters,\n"
        "the longhorn-storageclass ConfigMap) into RecurringJob objects and volume labels, "
        "deletes\n"
        "the legacy per-volume CronJobs, and reports every decision.",
        opts,
        sizeof(opts) / sizeof(opts[0]),
        footer,
        1,
        0,
        0};
    cw_error err;
    cw_error_init(&err);
    cw_plan plan;
    int plan_ready = 0;
    cw_policy_config policy;
    int policy_ready = 0;
    cw_tzdb tzdb;
    int code = CW_EXIT_USAGE;

    int rc = cw_opts_parse(&spec, argc, argv, NULL, stdout, &err);
    if (rc == 1) {
        code = CW_EXIT_OK;
        goto done;
    }
    if (rc != CW_OK) {
        code = cw_cmd_usage_error("migrate", err.message);
        goto done;
    }
    cw_log_level lvl;
    cw_log_format fmt;
    cw_log_parse_level(log_level, &lvl);
    cw_log_parse_format(log_format, &fmt);
    cw_log_configure(lvl, fmt, stderr);

    cw_names_scheme scheme;
    if (cw_names_scheme_parse(o.name_scheme, &scheme, &err) != CW_OK) {
        code = cw_cmd_usage_error("migrate", err.message);
        goto done;
    }
    if (o.output_dir && *o.output_dir && o.from_files.len == 0) {
        code = cw_cmd_usage_error("migrate", "--output-dir needs --from-file");
        goto done;
    }
    if (cw_cmd_policy_init(&policy, &tzdb, &err) != CW_OK) {
        fprintf(stderr, "cronwarden migrate: %s\n", err.message);
        goto done;
    }
    policy_ready = 1;
    policy.max_retain = (int)o.max_retain;
    if (cw_policy_config_set_default_group(&policy, o.no_default_group ? NULL : o.default_group,
                                           &err) != CW_OK) {
        code = cw_cmd_usage_error("migrate", err.message);
        goto done;
    }
    cw_plan_config pc = {scheme, o.namespace, &policy,
                         !o.no_default_group && o.default_group && *o.default_group, NULL};
    if (cw_plan_init(&plan, &pc, &err) != CW_OK) {
        fprintf(stderr, "cronwarden migrate: %s\n", err.message);
        goto done;
    }
    plan_ready = 1;
    if (o.from_files.len)
        code = cw_migrate_offline(&o, &plan);
    else
        code = cw_migrate_online(&o, &plan);
done:
    if (plan_ready)
        cw_plan_free(&plan);
    if (policy_ready)
        cw_cmd_policy_free(&policy, &tzdb);
    cw_opts_free(&spec);
    return code;
}
