/* cronwarden cron status: flags -> a health configuration; manifests (migrate's loaders) or a live
 * cluster (paged LISTs, read-only) -> the schedules/ model; health/ renders the report on stdout;
 * anything unhealthy -> exit 1.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "longhorn/recurringjob.h"
#include "health/render.h"
#include "schedules/health.h"
#include "lib/k8sname.h"
#include "lib/opts.h"

static struct {
    cw_strlist from_files;
    cw_cmd_common_flags common; /* the cluster (no log flags) */
    char *namespace, *velero_namespace, *now, *output, *default_group;
    double window, grace;
    long long max_input_bytes;
    int volumes;
} o;

static const cw_opt opts[] = {
    CW_CMD_OPT_FROM_FILE(&o.from_files,
                         "read manifests instead of the cluster (kubectl get -o yaml exports of "
                         "the objects below): a file, a directory (recursive) or - for stdin"),
    CW_CMD_OPT_MAX_INPUT_BYTES(&o.max_input_bytes),
    CW_CMD_OPT_KUBECONFIG("live: ", &o.common.kubeconfig, 1),
    CW_CMD_OPT_CONTEXT("live: ", &o.common.context, 1),
    CW_CMD_OPT_LIVE_NAMESPACE("namespace", 'n', "longhorn-system",
                              "live: Longhorn's namespace (RecurringJobs, their CronJobs and "
                              "Jobs, Volumes, Backups, BackupVolumes)",
                              &o.namespace),
    CW_CMD_OPT_LIVE_NAMESPACE("velero-namespace", 0, "velero",
                              "live: Velero's namespace (Schedules, Backups)", &o.velero_namespace),
    {.name = "now",
     .type = CW_OPT_STRING,
     .metavar = "RFC3339",
     .help = "judge as of this time (default: the clock), for reproducible reports",
     .target = &o.now,
     .no_env = 1},
    {.name = "window",
     .type = CW_OPT_DURATION,
     .metavar = "DURATION",
     .help = "fire times judged for missed runs: the last DURATION (and always the last one due)",
     .target = &o.window,
     .def = "24h",
     .no_env = 1},
    {.name = "grace",
     .type = CW_OPT_DURATION,
     .metavar = "DURATION",
     .help = "how late a run may start and still count (0: 10% of the interval, at least 1m, at "
             "most 1h)",
     .target = &o.grace,
     .def = "0s",
     .no_env = 1},
    CW_CMD_OPT_REPORT_DEFAULT_GROUP(&o.default_group),
    {.name = "volumes",
     .type = CW_OPT_BOOL,
     .help = "one row per Longhorn volume: its backup jobs, last backup, unprotected or stale",
     .target = &o.volumes,
     .def = "false",
     .no_env = 1},
    CW_CMD_OPT_TEXT_JSON(&o.output),
};

static const cw_cmd_spec spec = {
    .name = "cron status",
    .synopsis = CW_CMD_CRON_STATUS_SYNOPSIS,
    .summary =
        "Did every scheduled backup run and succeed, and is every volume protected? For each "
        "Longhorn RecurringJob (its CronJob and Jobs) and Velero Schedule (its Backups): the "
        "last success and failure, failures in a row, fire times missed in the window and why "
        "(paused, suspended, the previous run still running, no controller), a run far past its "
        "usual duration, the next fire time; per Longhorn volume the backup jobs that apply, "
        "its last backup, unprotected and stale. Reads manifests or a live cluster; never "
        "writes to the cluster.",
    .opts = opts,
    .nopts = sizeof(opts) / sizeof(opts[0]),
    .footer = "Exit codes: 0 all healthy, 1 a schedule unhealthy, a volume unprotected or stale, "
              "or a failure; 2 usage or unreadable input.\nModel, schema and alerts: "
              "docs/status.md.\nExample: cronwarden cron status -f examples/status-cluster --now "
              "2026-11-24T09:00:00Z",
    .config_file = 0,
    .min_args = 0,
    .max_args = 0,
};

static int add_object(void *ud, json_object *obj, const char *source, cw_error *err)
{
    return cw_health_add(ud, obj, source, err);
}

/* What the model reads, in Longhorn's and Velero's namespaces. */
static int feed_live(cw_health *h, cw_error *err)
{
    cw_cmd_live_source src[CW_KIND_COUNT];
    size_t n = cw_cmd_kind_sources(CW_READ_STATUS, o.namespace, o.velero_namespace, src);
    return cw_cmd_feed_live(o.common.kubeconfig, o.common.context, src, n, add_object, h, err);
}

static int configure(cw_health_config *c, cw_tzdb *tzdb, cw_error *err)
{
    int32_t off;
    cw_health_config_init(c);
    c->tzdb = tzdb;
    c->default_group = o.default_group;
    c->window = (int64_t)o.window;
    c->grace = (int64_t)o.grace;
    if (c->window < 60 || (double)c->window != o.window)
        return cw_error_set(err, CW_EUSAGE, "--window must be whole seconds, at least 1m");
    if (o.grace < 0 || (double)c->grace != o.grace)
        return cw_error_set(err, CW_EUSAGE, "--grace must be whole seconds, 0 or more");
    if (o.now && *o.now)
        return cw_tz_parse_rfc3339(o.now, &c->now, &off, err) == CW_OK
                   ? CW_OK
                   : cw_error_prefix(err, "--now");
    c->now = (int64_t)time(NULL);
    return CW_OK;
}

int cw_cmd_cron_status(int argc, char **argv)
{
    int code = CW_EXIT_FAIL, rc, tz_ok = 0, h_ok = 0;
    cw_error err;
    cw_tzdb tzdb;
    cw_health h;
    cw_health_config cfg;
    cw_error_init(&err);
    cw_strlist_init(&o.from_files);
    rc = cw_opts_parse(&spec, argc, argv, NULL, stdout, &err);
    if (rc == 1) {
        code = CW_EXIT_OK;
        goto done;
    }
    if (rc == CW_OK)
        rc = cw_k8sname_check_flag("--namespace", o.namespace, 0, &err);
    if (rc == CW_OK)
        rc = cw_k8sname_check_flag("--velero-namespace", o.velero_namespace, 0, &err);
    if (rc == CW_OK)
        rc = cw_recurringjob_check_group_flag("--default-group", o.default_group, &err);
    if (rc == CW_OK && (rc = cw_tzdb_init(&tzdb, NULL, &err)) == CW_OK)
        tz_ok = 1;
    if (rc == CW_OK)
        rc = configure(&cfg, &tzdb, &err);
    if (rc == CW_OK && (rc = cw_health_init(&h, &cfg, &err)) == CW_OK)
        h_ok = 1;
    if (rc != CW_OK) {
        code = cw_cmd_usage_error("cron status", err.message);
        goto done;
    }
    int live = o.from_files.len == 0;
    rc = live ? feed_live(&h, &err)
              : cw_cmd_feed_files(&o.from_files, o.max_input_bytes, cw_health_unread, add_object,
                                  &h, &err);
    if (rc != CW_OK) {
        fprintf(stderr, "cronwarden cron status: %s\n", err.message);
        code = live ? CW_EXIT_FAIL : CW_EXIT_USAGE;
        goto done;
    }
    if ((rc = cw_health_eval_all(&h, o.volumes, &err)) != CW_OK ||
        (rc = !strcmp(o.output, "json")
                  ? cw_health_render_json(&h, o.volumes, stdout, &err)
                  : cw_health_render_text(&h, o.volumes, stdout, &err)) != CW_OK)
        goto fail;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cw_error_set(&err, CW_EIO, "writing the report to standard output failed: %s",
                     strerror(errno));
        goto fail;
    }
    code = h.unhealthy || h.unprotected || h.stale ? CW_EXIT_FAIL : CW_EXIT_OK;
    goto done;
fail:
    fprintf(stderr, "cronwarden cron status: %s\n", err.message);
    code = CW_EXIT_FAIL;
done:
    if (h_ok)
        cw_health_free(&h);
    if (tz_ok)
        cw_tzdb_free(&tzdb);
    cw_opts_free(&spec);
    return code;
}
