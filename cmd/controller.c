/* cronwarden controller: flags -> configuration, the Kubernetes client, the controller (informers,
 * leader election, workers, metrics server) and the signal loop that stops it gracefully. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "controller/core/manager.h"
#include "defaults/names.h"
#include "defaults/policy.h"
#include "kube/client.h"
#include "kube/config.h"
#include "lib/listen.h"
#include "lib/log.h"
#include "lib/opts.h"
#include "lib/yaml.h"
#include "cron/tz.h"

#define LEASE_NAME "cronwarden-controller"

/* Process configuration: the options table writes here. */
static struct {
    char *kubeconfig, *context, *controllers, *namespace, *lease_namespace, *metrics_listen,
        *log_level, *log_format;
    char *oadp_namespace, *enforce_backup_spec, *enforce_restore_spec; /* nonadmin* */
    char *longhorn_namespace, *job_image, *job_service_account, *manager_url, *default_group,
        *name_scheme; /* recurringjob, volume */
    long long max_retain;
    long long workers, concurrent_backups; /* backup-queue */
    double queue_resync;
    int skip_immediately, leader_elect;
    double lease_duration;
} o;

static const cw_opt opts[] = {
    {.name = "kubeconfig",
     .type = CW_OPT_STRING,
     .metavar = "PATH",
     .help = "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)",
     .target = &o.kubeconfig},
    {.name = "context",
     .type = CW_OPT_STRING,
     .metavar = "NAME",
     .help = "kubeconfig context",
     .target = &o.context},
    {.name = "controllers",
     .type = CW_OPT_STRING,
     .metavar = "LIST",
     .help = "reconcilers to run: a comma list of names, `*` for all, `-name` to leave one out "
             "(names and defaults: docs/controller.md; `cronwarden controller --help` lists them)",
     .target = &o.controllers,
     .def = ""},
    {.name = "namespace",
     .short_name = 'n',
     .type = CW_OPT_STRING,
     .metavar = "NS",
     .help = "Velero's namespace: watch Schedules and Backups there only (\"\": every namespace)",
     .target = &o.namespace,
     .def = ""},
    {.name = "workers",
     .type = CW_OPT_INT,
     .metavar = "N",
     .help = "keys each reconciler handles in parallel",
     .target = &o.workers,
     .def = "8",
     .min = 1,
     .max = 64},
    {.name = "schedule-skip-immediately",
     .type = CW_OPT_BOOL,
     .help = "Velero's --schedule-skip-immediately: what an absent spec.skipImmediately means",
     .target = &o.skip_immediately,
     .def = "false"},
    {.name = "leader-elect",
     .type = CW_OPT_BOOL,
     .help = "elect a leader through a Lease; only the leader reconciles (run 2+ replicas)",
     .target = &o.leader_elect,
     .def = "true"},
    {.name = "leader-election-namespace",
     .type = CW_OPT_STRING,
     .metavar = "NS",
     .help = "namespace of the Lease " LEASE_NAME
             " (default: the service account's namespace in-cluster, else the context's)",
     .target = &o.lease_namespace},
    {.name = "lease-duration",
     .type = CW_OPT_DURATION,
     .metavar = "DURATION",
     .help =
         "how long a leader's Lease lasts without renewal; the leader renews every 2/15 of it and "
         "steps down after 2/3 of it without success",
     .target = &o.lease_duration,
     .def = "15s"},
    {.name = "oadp-namespace",
     .type = CW_OPT_STRING,
     .metavar = "NS",
     .help = "nonadminbackup, nonadminrestore: the OADP namespace, where the Velero objects of "
             "non-admin "
             "users live",
     .target = &o.oadp_namespace,
     .def = "openshift-adp"},
    {.name = "enforce-backup-spec",
     .type = CW_OPT_STRING,
     .metavar = "FILE",
     .help = "nonadminbackup: a Velero BackupSpec (YAML) whose fields non-admin backups may leave "
             "unset "
             "(they are filled in) or set to the same value",
     .target = &o.enforce_backup_spec,
     .def = ""},
    {.name = "enforce-restore-spec",
     .type = CW_OPT_STRING,
     .metavar = "FILE",
     .help =
         "nonadminrestore: a Velero RestoreSpec (YAML) whose fields non-admin restores may leave "
         "unset (they are filled in) or set to the same value",
     .target = &o.enforce_restore_spec,
     .def = ""},
    {.name = "longhorn-namespace",
     .type = CW_OPT_STRING,
     .metavar = "NS",
     .help = "recurringjob, volume: Longhorn's namespace (RecurringJobs, CronJobs, Settings, "
             "the longhorn-manager DaemonSet, Volumes)",
     .target = &o.longhorn_namespace,
     .def = "longhorn-system"},
    {.name = "job-image",
     .type = CW_OPT_STRING,
     .metavar = "IMAGE",
     .help = "recurringjob: the image CronJobs run when the namespace has no longhorn-manager "
             "DaemonSet to take it from",
     .target = &o.job_image,
     .def = ""},
    {.name = "job-service-account",
     .type = CW_OPT_STRING,
     .metavar = "NAME",
     .help = "recurringjob: the service account CronJobs run as (Longhorn's)",
     .target = &o.job_service_account,
     .def = "longhorn-service-account"},
    {.name = "manager-url",
     .type = CW_OPT_STRING,
     .metavar = "URL",
     .help = "recurringjob: the Longhorn manager URL CronJobs call (Longhorn's)",
     .target = &o.manager_url,
     .def = "http://longhorn-backend:9500/v1"},
    {.name = "default-group",
     .type = CW_OPT_STRING,
     .metavar = "NAME",
     .help = "volume: group label for volumes without job labels (\"\": none)",
     .target = &o.default_group,
     .def = "default"},
    CW_CMD_OPT_NAME_SCHEME("volume: as `migrate --name-scheme`, ", &o.name_scheme),
    CW_CMD_OPT_MAX_RETAIN(&o.max_retain),
    {.name = "concurrent-backups",
     .type = CW_OPT_INT,
     .metavar = "N",
     .help = "backup-queue: Velero's --concurrent-backups, at most N Backups InProgress or "
             "ReadyToStart at once (per Backup namespace)",
     .target = &o.concurrent_backups,
     .def = "1",
     .min = 1,
     .max = 10000},
    {.name = "queue-resync",
     .type = CW_OPT_DURATION,
     .metavar = "DURATION",
     .help = "backup-queue: decide every queue again this often, besides on changes",
     .target = &o.queue_resync,
     .def = "1m"},
    {.name = "metrics-listen",
     .type = CW_OPT_STRING,
     .metavar = "ADDR:PORT",
     .help = "plain HTTP for /healthz, /readyz, /metrics",
     .target = &o.metrics_listen,
     .def = "0.0.0.0:8080"},
    {.name = "log-level",
     .type = CW_OPT_ENUM,
     .metavar = "LEVEL",
     .help = "debug, info, warn or error",
     .target = &o.log_level,
     .def = "info",
     .choices = "debug|info|warn|error"},
    {.name = "log-format",
     .type = CW_OPT_ENUM,
     .metavar = "FORMAT",
     .help = "text (logfmt) or json",
     .target = &o.log_format,
     .def = "text",
     .choices = "text|json"},
};

static cw_cmd_spec spec = {
    .name = "controller",
    .synopsis = "cronwarden controller [flags]",
    .summary =
        "Runs the reconcilers chosen with --controllers (the runtime side of cronwarden's rules), "
        "each with its own informers and work queue, on the elected leader only. Serves /healthz, "
        "/readyz and /metrics over plain HTTP. Every flag can also be set as CRONWARDEN_<FLAG> in "
        "the "
        "environment or as a key of --config FILE (YAML); flags win.",
    .opts = opts,
    .nopts = sizeof(opts) / sizeof(opts[0]),
    .config_file = 1,
};

#define EXIT_CODES                                                                                 \
    "Exit codes: 0 after a clean stop (SIGTERM/SIGINT), 1 when the controller failed, 2 on a "     \
    "usage or configuration error.\nDetails: docs/controller.md."

/* The --help footer: every reconciler, whether it runs by default, and what it replaces. */
static void build_footer(char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "Controllers (--controllers):\n");
    for (size_t i = 0; cw_reconcilers[i] && used < len; i++) {
        const cw_reconciler_ops *r = cw_reconcilers[i];
        int n = snprintf(buf + used, len - used, "  %-16s %s; %s\n", r->name,
                         r->default_enabled ? "on by default" : "off by default", r->summary);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (used < len)
        snprintf(buf + used, len - used, "%s", EXIT_CODES);
}

/* An administrator's enforced Velero spec: one YAML document holding a map (checked further by
 * the reconciler that uses it). */
static int load_spec(const char *flag, const char *path, json_object **out, cw_error *err)
{
    cw_yaml_docs docs;
    cw_yaml_docs_init(&docs);
    int rc = cw_yaml_parse_file(path, &docs, err);
    if (rc == CW_OK &&
        (docs.len != 1 || !json_object_is_type(docs.items[0].value, json_type_object)))
        rc = cw_error_set(err, CW_EINVAL, "%s: expected one YAML document holding a map", path);
    if (rc == CW_OK)
        *out = json_object_get(docs.items[0].value);
    else
        cw_error_prefix(err, "%s", flag);
    cw_yaml_docs_free(&docs);
    return rc;
}

/* Waits for SIGTERM/SIGINT, ticking the controller's housekeeping once a second. */
static void run_until_signal(cw_ctrl *c, sigset_t *set)
{
    struct timespec tick = {1, 0};
    for (unsigned ticks = 1;; ticks++) {
        siginfo_t si;
        int sig = sigtimedwait(set, &si, &tick);
        if (sig == SIGTERM || sig == SIGINT) {
            cw_log(CW_LOG_INFO, "shutting down",
                   CW_LS("signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"));
            return;
        }
        cw_ctrl_tick(c);
        if (ticks % CW_CMD_TRIM_TICKS == 0)
            cw_cmd_trim_heap();
    }
}

int cw_cmd_controller(int argc, char **argv)
{
    int code = CW_EXIT_FAIL, rc, policy_ok = 0, ctrl_ok = 0;
    cw_error err;
    cw_policy_config policy;
    cw_tzdb tzdb;
    cw_kube_config kcfg;
    cw_kube_client *kube = NULL;
    cw_ctrl ctrl;
    json_object *enforce_backup = NULL, *enforce_restore = NULL;
    cw_log_level level;
    cw_log_format format;
    cw_names_scheme scheme = CW_NAMES_XXH32;

    cw_error_init(&err);
    cw_kube_config_init(&kcfg);
    memset(&ctrl, 0, sizeof(ctrl));
    char footer[4096];
    build_footer(footer, sizeof(footer));
    spec.footer = footer;

    rc = cw_opts_parse(&spec, argc, argv, NULL, stdout, &err);
    if (rc == 1) {
        code = CW_EXIT_OK;
        goto done;
    }
    if (rc != CW_OK) {
        code = cw_cmd_usage_error("controller", err.message);
        goto done;
    }
    if (cw_cmd_check_namespace("--namespace", o.namespace, 1, &err) != CW_OK ||
        cw_cmd_check_namespace("--leader-election-namespace", o.lease_namespace, 1, &err) !=
            CW_OK ||
        cw_cmd_check_namespace("--oadp-namespace", o.oadp_namespace, 0, &err) != CW_OK ||
        cw_cmd_check_namespace("--longhorn-namespace", o.longhorn_namespace, 0, &err) != CW_OK ||
        cw_cmd_check_group("--default-group", o.default_group, &err) != CW_OK ||
        cw_names_scheme_parse(o.name_scheme, &scheme, &err) != CW_OK) {
        code = cw_cmd_usage_error("controller", err.message);
        goto done;
    }
    if (o.queue_resync < 1) {
        code = cw_cmd_usage_error("controller", "--queue-resync must be at least 1s");
        goto done;
    }
    if (o.lease_duration < 1) {
        code = cw_cmd_usage_error("controller", "--lease-duration must be at least 1s");
        goto done;
    }
    struct sockaddr_storage ss;
    int family;
    if (cw_listen_parse("--metrics-listen", o.metrics_listen, &ss, &family, &err) != CW_OK) {
        code = cw_cmd_usage_error("controller", err.message);
        goto done;
    }
    cw_cmd_limit_arenas(1);
    cw_log_parse_level(o.log_level, &level);
    cw_log_parse_format(o.log_format, &format);
    cw_log_configure(level, format, stderr);

    if ((rc = cw_cmd_policy_init(&policy, &tzdb, &err)) != CW_OK)
        goto fail;
    policy_ok = 1;
    policy.schedule_skip_immediately = o.skip_immediately;
    policy.max_retain = (int)o.max_retain;
    if ((rc = cw_policy_config_set_default_group(&policy, o.default_group, &err)) != CW_OK)
        goto fail;

    if ((o.enforce_backup_spec && *o.enforce_backup_spec &&
         load_spec("--enforce-backup-spec", o.enforce_backup_spec, &enforce_backup, &err) !=
             CW_OK) ||
        (o.enforce_restore_spec && *o.enforce_restore_spec &&
         load_spec("--enforce-restore-spec", o.enforce_restore_spec, &enforce_restore, &err) !=
             CW_OK)) {
        code = cw_cmd_usage_error("controller", err.message);
        goto done;
    }

    cw_kube_load_opts lo;
    cw_kube_load_opts_init(&lo);
    lo.kubeconfig = o.kubeconfig && *o.kubeconfig ? o.kubeconfig : NULL;
    lo.context = o.context && *o.context ? o.context : NULL;
    if (cw_kube_config_load(&kcfg, &lo, &err) != CW_OK) {
        fprintf(stderr, "cronwarden controller: %s\n", err.message);
        code = CW_EXIT_USAGE;
        goto done;
    }
    if ((rc = cw_kube_client_new(&kcfg, NULL, &kube, &err)) != CW_OK) {
        fprintf(stderr, "cronwarden controller: %s\n", err.message);
        code = CW_EXIT_USAGE;
        goto done;
    }
    const char *lease_ns =
        o.lease_namespace && *o.lease_namespace ? o.lease_namespace : kcfg.namespace;
    cw_ctrl_config cc = {
        .kube = kube,
        .controllers = o.controllers,
        .namespace = o.namespace,
        .workers = (size_t)o.workers,
        .policy = &policy,
        .zone_offset = 0,
        .leader_elect = o.leader_elect,
        .lease_namespace = lease_ns,
        .lease_name = LEASE_NAME,
        .lease_duration = o.lease_duration,
        .renew_deadline = o.lease_duration * 2 / 3,
        .retry_period = o.lease_duration * 2 / 15,
        .metrics_listen = o.metrics_listen,
        .oadp_namespace = o.oadp_namespace,
        .enforce_backup_spec = enforce_backup,
        .enforce_restore_spec = enforce_restore,
        .longhorn_namespace = o.longhorn_namespace,
        .job_image = o.job_image,
        .job_service_account = o.job_service_account,
        .manager_url = o.manager_url,
        .name_scheme = (int)scheme,
        .concurrent_backups = o.concurrent_backups,
        .queue_resync = o.queue_resync,
    };
    rc = cw_ctrl_init(&ctrl, &cc, &err);
    ctrl_ok = 1; /* cw_ctrl_free undoes a partial init too */
    if (rc == CW_EINVAL) {
        code = cw_cmd_usage_error("controller", err.message);
        goto done;
    }
    if (rc != CW_OK)
        goto fail;
    char enabled[256] = "";
    for (size_t i = 0; i < ctrl.nslots; i++) {
        size_t used = strlen(enabled);
        snprintf(enabled + used, sizeof(enabled) - used, "%s%s", i ? "," : "",
                 ctrl.slots[i].ops->name);
    }
    cw_log(CW_LOG_INFO, "configuration", CW_LS("server", kcfg.server), CW_LS("config", kcfg.source),
           CW_LS("controllers", enabled), CW_LS("namespace", *o.namespace ? o.namespace : "(all)"),
           CW_LI("workers", o.workers), CW_LB("schedule_skip_immediately", o.skip_immediately),
           CW_LI("concurrent_backups", o.concurrent_backups),
           CW_LD("queue_resync_s", o.queue_resync), CW_LB("leader_elect", o.leader_elect),
           CW_LS("lease", LEASE_NAME), CW_LS("lease_namespace", lease_ns),
           CW_LD("lease_duration_s", o.lease_duration),
           CW_LS("identity", cw_leader_identity(&ctrl.leader)),
           CW_LS("metrics_listen", o.metrics_listen), CW_LS("log_level", o.log_level),
           CW_LS("log_format", o.log_format));

    /* Signals are taken synchronously by the main loop; every thread inherits the mask. */
    sigset_t set;
    cw_cmd_block_signals(&set);

    if ((rc = cw_ctrl_start(&ctrl, &err)) != CW_OK)
        goto fail;
    cw_log(CW_LOG_INFO, "controller running", CW_LI("metrics_port", ctrl.health.port));
    run_until_signal(&ctrl, &set);
    cw_ctrl_stop(&ctrl);
    cw_log(CW_LOG_INFO, "stopped");
    code = CW_EXIT_OK;
    goto done;
fail:
    cw_log(CW_LOG_ERROR, "controller failed", CW_LS("error", err.message));
    code = CW_EXIT_FAIL;
done:
    if (ctrl_ok)
        cw_ctrl_free(&ctrl);
    cw_kube_client_free(kube);
    cw_kube_config_free(&kcfg);
    json_object_put(enforce_backup);
    json_object_put(enforce_restore);
    if (policy_ok)
        cw_cmd_policy_free(&policy, &tzdb);
    cw_opts_free(&spec);
    return code;
}
