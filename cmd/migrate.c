/* cronwarden migrate: flags -> cw_migrate_opts; the flows are migrate/run_offline.c and
 * migrate/run_online.c, whose CW_MIGRATE_* outcomes are the exit codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/migrate.h"
#include "defaults/opts.h"
#include "defaults/recurringjob.h"
#include "lib/k8sname.h"
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
        {.name = "from-file",
         .short_name = 'f',
         .type = CW_OPT_LIST,
         .metavar = "PATH",
         .help = "read manifests instead of the cluster: a file, a directory (recursive) or - for "
                 "stdin",
         .target = &o.from_files},
        {.name = "output-dir",
         .type = CW_OPT_STRING,
         .metavar = "DIR",
         .help = "offline: write migrated manifests (mirroring the input tree) and "
                 "recurringjobs.yaml here",
         .target = &o.output_dir},
        {.name = "max-input-bytes",
         .type = CW_OPT_INT,
         .metavar = "N",
         .help = "offline: refuse more input than N bytes in all (memory stays near 10 times it)",
         .target = &o.max_input_bytes,
         .def = "1073741824",
         .min = 1,
         .max = 1LL << 50},
        {.name = "overwrite",
         .type = CW_OPT_BOOL,
         .help =
             "write into a non-empty --output-dir (only the files the run produces are written)",
         .target = &o.overwrite,
         .def = "false"},
        {.name = "output",
         .short_name = 'o',
         .type = CW_OPT_ENUM,
         .help = "report format on stdout",
         .target = &o.output,
         .def = "text",
         .choices = "text|json|yaml"},
        {.name = "report",
         .type = CW_OPT_STRING,
         .metavar = "FILE",
         .help = "also write the JSON report to FILE",
         .target = &o.report},
        {.name = "detailed-exitcode",
         .type = CW_OPT_BOOL,
         .help = "exit 3 when changes are pending and nothing failed (audits)",
         .target = &o.detailed_exitcode},
        CW_POLICY_OPT_NAME_SCHEME("", &o.name_scheme),
        {.name = "namespace",
         .short_name = 'n',
         .type = CW_OPT_STRING,
         .metavar = "NS",
         .help = "Longhorn namespace (RecurringJobs, ConfigMap, CronJobs, Lease)",
         .target = &o.namespace,
         .def = "longhorn-system"},
        {.name = "default-group",
         .type = CW_OPT_STRING,
         .metavar = "NAME",
         .help = "group label for volumes left without job labels",
         .target = &o.default_group,
         .def = "default"},
        {.name = "no-default-group",
         .type = CW_OPT_BOOL,
         .help = "never add the default group label",
         .target = &o.no_default_group},
        CW_POLICY_OPT_MAX_RETAIN(&o.max_retain),
        {.name = "kubeconfig",
         .type = CW_OPT_STRING,
         .metavar = "FILE",
         .help = "online: kubeconfig (default $KUBECONFIG, ~/.kube/config, in-cluster)",
         .target = &o.kubeconfig},
        {.name = "context",
         .type = CW_OPT_STRING,
         .metavar = "NAME",
         .help = "online: kubeconfig context",
         .target = &o.context},
        {.name = "dry-run",
         .type = CW_OPT_ENUM,
         .help =
             "online: none applies; client plans only; server sends every write with dryRun=All",
         .target = &o.dry_run,
         .def = "none",
         .choices = "none|client|server"},
        {.name = "qps",
         .type = CW_OPT_DOUBLE,
         .help = "online: client-side requests per second; unset: none when the server has API "
                 "Priority and Fairness (then --parallel and the server's 429 bound the rate), "
                 "else 1000; -1: none",
         .target = &o.qps,
         .def = "1000"},
        {.name = "burst",
         .type = CW_OPT_INT,
         .help = "online: request burst above --qps",
         .target = &o.burst,
         .def = "1000",
         .min = 1,
         .max = 100000},
        {.name = "parallel",
         .type = CW_OPT_INT,
         .help = "online: concurrent API requests",
         .target = &o.parallel,
         .def = "8",
         .min = 1,
         .max = 64},
        {.name = "page-size",
         .type = CW_OPT_INT,
         .help = "online: LIST page size",
         .target = &o.page_size,
         .def = "500",
         .min = 1,
         .max = 10000},
        {.name = "request-timeout",
         .type = CW_OPT_DURATION,
         .help = "online: timeout of one API request",
         .target = &o.request_timeout,
         .def = "30s"},
        {.name = "wait-for-controller",
         .type = CW_OPT_BOOL,
         .help = "online: wait until Longhorn made each new RecurringJob's CronJob",
         .target = &o.wait_for_controller},
        {.name = "wait-timeout",
         .type = CW_OPT_DURATION,
         .help = "online: how long to wait for each new RecurringJob to be ready",
         .target = &o.wait_timeout,
         .def = "10m"},
        {.name = "lease-duration",
         .type = CW_OPT_DURATION,
         .help =
             "online: how long the migration Lease lasts without renewal (a crashed run blocks the "
             "next one this long)",
         .target = &o.lease_duration,
         .def = "30s"},
        {.name = "lease-wait",
         .type = CW_OPT_DURATION,
         .help = "online: how long to wait for another run's Lease before giving up",
         .target = &o.lease_wait,
         .def = "2m"},
        {.name = "log-level",
         .type = CW_OPT_ENUM,
         .help = "log level",
         .target = &log_level,
         .def = "info",
         .choices = "debug|info|warn|error"},
        {.name = "log-format",
         .type = CW_OPT_ENUM,
         .help = "log format",
         .target = &log_format,
         .def = "text",
         .choices = "text|json"},
    };
    unsigned char origin[sizeof(opts) / sizeof(opts[0])];
    const cw_cmd_spec spec = {
        .name = "migrate",
        .synopsis = "cronwarden migrate [--from-file PATH... [--output-dir DIR]] [flags]",
        .summary =
            "Turns legacy Longhorn recurringJobs (Volume spec.recurringJobs, StorageClass "
            "parameters,\n"
            "the longhorn-storageclass ConfigMap) into RecurringJob objects and volume labels, "
            "deletes\n"
            "the legacy per-volume CronJobs, and reports every decision.",
        .opts = opts,
        .nopts = sizeof(opts) / sizeof(opts[0]),
        .footer = footer,
        .config_file = 1,
        .origin = origin,
    };
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
    if (o.from_files.len && strcmp(o.dry_run, "none") != 0) {
        code = cw_cmd_usage_error("migrate", "--dry-run is for a cluster; with --from-file nothing "
                                             "is written unless --output-dir is given");
        goto done;
    }
    /* A --default-group flag beats a --no-default-group from the environment or the file. */
    size_t dg = 0, ndg = 0;
    for (size_t i = 0; i < spec.nopts; i++) {
        dg = strcmp(opts[i].name, "default-group") ? dg : i;
        ndg = strcmp(opts[i].name, "no-default-group") ? ndg : i;
    }
    if (origin[dg] == CW_OPT_FROM_FLAG && origin[ndg] != CW_OPT_FROM_FLAG)
        o.no_default_group = 0;
    /* --qps from a flag, the environment or the file wins over API Priority and Fairness. */
    for (size_t i = 0; i < spec.nopts; i++)
        if (strcmp(opts[i].name, "qps") == 0)
            o.qps_explicit = origin[i] != CW_OPT_FROM_DEFAULT;
    if (cw_k8sname_check_flag("--namespace", o.namespace, 0, &err) != CW_OK ||
        cw_recurringjob_check_group_flag(
            "--default-group", o.no_default_group ? NULL : o.default_group, &err) != CW_OK) {
        code = cw_cmd_usage_error("migrate", err.message);
        goto done;
    }
    if (cw_policy_config_init_tzdb(&policy, &tzdb, &err) != CW_OK) {
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
    cw_plan_config pc = {
        .scheme = scheme,
        .namespace = o.namespace,
        .policy = &policy,
        .default_group = !o.no_default_group && o.default_group && *o.default_group,
        /* Offline holds its whole input in memory anyway (about 3 KB per volume); the items'
         * ~350 bytes stay beside it rather than cost a system call per read and write. Online
         * the items go to a file: memory then does not grow with the volumes. */
        .scratch_dir = o.from_files.len ? "" : NULL,
    };
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
        cw_policy_config_free_tzdb(&policy, &tzdb);
    cw_opts_free(&spec);
    return code;
}
