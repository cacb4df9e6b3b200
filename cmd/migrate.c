/* cronwarden migrate: flags -> cw_migrate_opts; the flows are migrate/run_offline.c and
 * migrate/run_online.c, whose CW_MIGRATE_* outcomes are the exit codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/migrate.h"
#include "defaults/opts.h"
#include "longhorn/recurringjob.h"
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

/* The command while it runs: the flags' targets, its table, and what the flags set up. */
typedef struct migrate_cmd {
    cw_migrate_opts o;
    cw_cmd_common_flags log; /* --log-level and --log-format (the cluster's flags are in o) */
    cw_opt opts[26];         /* plan_rows then online_rows */
    unsigned char origin[26];
    cw_cmd_spec spec;
    cw_names_scheme scheme;
    cw_policy_config policy;
    cw_tzdb tzdb;
    int policy_ready;
    cw_plan plan;
    int plan_ready;
} migrate_cmd;

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

/* The rows of what is read, what is written and the plan's policy, after the n in m's table. */
static int plan_rows(migrate_cmd *m, size_t *n, cw_error *err)
{
    const cw_opt rows[] = {
        {.name = "from-file",
         .short_name = 'f',
         .type = CW_OPT_LIST,
         .metavar = "PATH",
         .help = "read manifests instead of the cluster: a file, a directory (recursive) or - for "
                 "stdin",
         .target = &m->o.from_files},
        {.name = "output-dir",
         .type = CW_OPT_STRING,
         .metavar = "DIR",
         .help = "offline: write migrated manifests (mirroring the input tree) and "
                 "recurringjobs.yaml here",
         .target = &m->o.output_dir},
        {.name = "max-input-bytes",
         .type = CW_OPT_INT,
         .metavar = "N",
         .help = "offline: refuse more input than N bytes in all (memory stays near 10 times it)",
         .target = &m->o.max_input_bytes,
         .def = "1073741824",
         .min = 1,
         .max = 1LL << 50},
        {.name = "overwrite",
         .type = CW_OPT_BOOL,
         .help =
             "write into a non-empty --output-dir (only the files the run produces are written)",
         .target = &m->o.overwrite,
         .def = "false"},
        {.name = "output",
         .short_name = 'o',
         .type = CW_OPT_ENUM,
         .help = "report format on stdout",
         .target = &m->o.output,
         .def = "text",
         .choices = "text|json|yaml"},
        {.name = "report",
         .type = CW_OPT_STRING,
         .metavar = "FILE",
         .help = "also write the JSON report to FILE",
         .target = &m->o.report},
        {.name = "detailed-exitcode",
         .type = CW_OPT_BOOL,
         .help = "exit 3 when changes are pending and nothing failed (audits)",
         .target = &m->o.detailed_exitcode},
        CW_POLICY_OPT_NAME_SCHEME("", CW_OPT_TO(&m->o.name_scheme)),
        {.name = "namespace",
         .short_name = 'n',
         .type = CW_OPT_STRING,
         .metavar = "NS",
         .help = "Longhorn namespace (RecurringJobs, ConfigMap, CronJobs, Lease)",
         .target = &m->o.namespace,
         .def = "longhorn-system"},
        {.name = "default-group",
         .type = CW_OPT_STRING,
         .metavar = "NAME",
         .help = "group label for volumes left without job labels",
         .target = &m->o.default_group,
         .def = "default"},
        {.name = "no-default-group",
         .type = CW_OPT_BOOL,
         .help = "never add the default group label",
         .target = &m->o.no_default_group},
        CW_POLICY_OPT_MAX_RETAIN(CW_OPT_TO(&m->o.max_retain)),
    };
    return cw_opts_append(m->opts, NROWS(m->opts), n, rows, NROWS(rows), err);
}

/* The rows of a run against the cluster, and the log's, after the n in m's table. */
static int online_rows(migrate_cmd *m, size_t *n, cw_error *err)
{
    const cw_opt rows[] = {
        CW_CMD_OPT_KUBECONFIG("online: ", &m->o.kubeconfig, 0),
        CW_CMD_OPT_CONTEXT("online: ", &m->o.context, 0),
        {.name = "dry-run",
         .type = CW_OPT_ENUM,
         .help =
             "online: none applies; client plans only; server sends every write with dryRun=All",
         .target = &m->o.dry_run,
         .def = "none",
         .choices = "none|client|server"},
        {.name = "qps",
         .type = CW_OPT_DOUBLE,
         .help = "online: client-side requests per second; unset: none when the server has API "
                 "Priority and Fairness (then --parallel and the server's 429 bound the rate), "
                 "else 1000; -1: none",
         .target = &m->o.qps,
         .def = "1000"},
        {.name = "burst",
         .type = CW_OPT_INT,
         .help = "online: request burst above --qps",
         .target = &m->o.burst,
         .def = "1000",
         .min = 1,
         .max = 100000},
        {.name = "parallel",
         .type = CW_OPT_INT,
         .help = "online: concurrent API requests",
         .target = &m->o.parallel,
         .def = "8",
         .min = 1,
         .max = 64},
        {.name = "page-size",
         .type = CW_OPT_INT,
         .help = "online: LIST page size",
         .target = &m->o.page_size,
         .def = "500",
         .min = 1,
         .max = 10000},
        {.name = "request-timeout",
         .type = CW_OPT_DURATION,
         .help = "online: timeout of one API request",
         .target = &m->o.request_timeout,
         .def = "30s"},
        {.name = "wait-for-controller",
         .type = CW_OPT_BOOL,
         .help = "online: wait until Longhorn made each new RecurringJob's CronJob",
         .target = &m->o.wait_for_controller},
        {.name = "wait-timeout",
         .type = CW_OPT_DURATION,
         .help = "online: how long to wait for each new RecurringJob to be ready",
         .target = &m->o.wait_timeout,
         .def = "10m"},
        {.name = "lease-duration",
         .type = CW_OPT_DURATION,
         .help =
             "online: how long the migration Lease lasts without renewal (a crashed run blocks the "
             "next one this long)",
         .target = &m->o.lease_duration,
         .def = "30s"},
        {.name = "lease-wait",
         .type = CW_OPT_DURATION,
         .help = "online: how long to wait for another run's Lease before giving up",
         .target = &m->o.lease_wait,
         .def = "2m"},
        CW_CMD_OPT_LOG_LEVEL(&m->log.log_level),
        CW_CMD_OPT_LOG_FORMAT(&m->log.log_format),
    };
    return cw_opts_append(m->opts, NROWS(m->opts), n, rows, NROWS(rows), err);
}

/* The table of flags and the spec, into m's. */
static int migrate_table(migrate_cmd *m, cw_error *err)
{
    size_t n = 0;
    int rc = plan_rows(m, &n, err);
    if (rc == CW_OK)
        rc = online_rows(m, &n, err);
    const cw_cmd_spec spec = {
        .name = "migrate",
        .synopsis = "cronwarden migrate [--from-file PATH... [--output-dir DIR]] [flags]",
        .summary =
            "Turns legacy Longhorn recurringJobs (Volume spec.recurringJobs, StorageClass "
            "parameters,\n"
            "the longhorn-storageclass ConfigMap) into RecurringJob objects and volume labels, "
            "deletes\n"
            "the legacy per-volume CronJobs, and reports every decision.",
        .opts = m->opts,
        .nopts = n,
        .footer = footer,
        .config_file = 1,
        .origin = m->origin,
    };
    m->spec = spec;
    return rc;
}

/* Where the value of flag `name` came from (CW_OPT_FROM_*). */
static int origin_of(const migrate_cmd *m, const char *name)
{
    for (size_t i = 0; i < m->spec.nopts; i++)
        if (strcmp(m->opts[i].name, name) == 0)
            return m->origin[i];
    return CW_OPT_FROM_DEFAULT;
}

/* The checks of the flags against each other, and the precedence rules between them. */
static int check_flags(migrate_cmd *m, cw_error *err)
{
    cw_migrate_opts *o = &m->o;
    int rc = cw_names_scheme_parse(o->name_scheme, &m->scheme, err);
    if (rc != CW_OK)
        return rc;
    if (o->output_dir && *o->output_dir && o->from_files.len == 0)
        return cw_error_set(err, CW_EUSAGE, "--output-dir needs --from-file");
    if (o->from_files.len && strcmp(o->dry_run, "none") != 0)
        return cw_error_set(err, CW_EUSAGE,
                            "--dry-run is for a cluster; with --from-file nothing is written "
                            "unless --output-dir is given");
    /* A --default-group flag beats a --no-default-group from the environment or the file. */
    if (origin_of(m, "default-group") == CW_OPT_FROM_FLAG &&
        origin_of(m, "no-default-group") != CW_OPT_FROM_FLAG)
        o->no_default_group = 0;
    /* --qps from a flag, the environment or the file wins over API Priority and Fairness. */
    o->qps_explicit = origin_of(m, "qps") != CW_OPT_FROM_DEFAULT;
    if ((rc = cw_k8sname_check_flag("--namespace", o->namespace, 0, err)) != CW_OK)
        return rc;
    return cw_recurringjob_check_group_flag("--default-group",
                                            o->no_default_group ? NULL : o->default_group, err);
}

/* The policy and the empty plan the flows fill. A --default-group the policy refuses is a usage
 * error (*usage set); anything else that fails here is not. */
static int make_plan(migrate_cmd *m, int *usage, cw_error *err)
{
    cw_migrate_opts *o = &m->o;
    int rc = cw_policy_config_init_tzdb(&m->policy, &m->tzdb, err);
    if (rc != CW_OK)
        return rc;
    m->policy_ready = 1;
    m->policy.max_retain = (int)o->max_retain;
    rc = cw_policy_config_set_default_group(&m->policy,
                                            o->no_default_group ? NULL : o->default_group, err);
    if (rc != CW_OK) {
        *usage = 1;
        return rc;
    }
    cw_plan_config pc = {
        .scheme = m->scheme,
        .namespace = o->namespace,
        .policy = &m->policy,
        .default_group = !o->no_default_group && o->default_group && *o->default_group,
        /* Offline holds its whole input in memory anyway (about 3 KB per volume); the items'
         * ~350 bytes stay beside it rather than cost a system call per read and write. Online
         * the items go to a file: memory then does not grow with the volumes. */
        .scratch_dir = o->from_files.len ? "" : NULL,
    };
    if ((rc = cw_plan_init(&m->plan, &pc, err)) == CW_OK)
        m->plan_ready = 1;
    return rc;
}

static void migrate_free(migrate_cmd *m)
{
    if (m->plan_ready)
        cw_plan_free(&m->plan);
    if (m->policy_ready)
        cw_policy_config_free_tzdb(&m->policy, &m->tzdb);
    cw_opts_free(&m->spec);
}

int cw_cmd_migrate(int argc, char **argv)
{
    migrate_cmd m;
    cw_error err;
    int code = CW_EXIT_USAGE, usage = 0;

    memset(&m, 0, sizeof(m));
    cw_error_init(&err);
    cw_strlist_init(&m.o.from_files);
    int rc = migrate_table(&m, &err);
    if (rc == CW_OK)
        rc = cw_opts_parse(&m.spec, argc, argv, NULL, stdout, &err);
    if (rc == 1) {
        code = CW_EXIT_OK;
        goto done;
    }
    if (rc != CW_OK) {
        code = cw_cmd_usage_error("migrate", err.message);
        goto done;
    }
    cw_cmd_log_configure(&m.log);
    if (check_flags(&m, &err) != CW_OK) {
        code = cw_cmd_usage_error("migrate", err.message);
        goto done;
    }
    if (make_plan(&m, &usage, &err) != CW_OK) {
        if (usage)
            code = cw_cmd_usage_error("migrate", err.message);
        else
            fprintf(stderr, "cronwarden migrate: %s\n", err.message);
        goto done;
    }
    code =
        m.o.from_files.len ? cw_migrate_offline(&m.o, &m.plan) : cw_migrate_online(&m.o, &m.plan);
done:
    migrate_free(&m);
    return code;
}
