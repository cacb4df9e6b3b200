/* cronwarden cron audit: flags -> an audit configuration; manifests (migrate's loaders) or a live
 * cluster (paged LISTs, read-only) -> audit/; the report on stdout, the suggestions' patch into
 * a new file; the peak against --max-starts -> the exit code. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "cmd/cmd.h"
#include "longhorn/recurringjob.h"
#include "lib/k8sname.h"
#include "lib/opts.h"

static struct {
    cw_strlist from_files, durations;
    cw_cmd_common_flags common; /* the cluster (no log flags) */
    char *namespace, *velero_namespace, *from, *output, *patch, *default_group;
    double window, step;
    long long max_starts, max_input_bytes;
    int suggest;
} o;

static const cw_opt opts[] = {
    CW_CMD_OPT_FROM_FILE(&o.from_files,
                         "read manifests instead of the cluster: a file, a directory (recursive) "
                         "or - for stdin; later objects replace earlier ones of the same kind, "
                         "namespace and name"),
    CW_CMD_OPT_MAX_INPUT_BYTES(&o.max_input_bytes),
    CW_CMD_OPT_KUBECONFIG("live: ", &o.common.kubeconfig, 1),
    CW_CMD_OPT_CONTEXT("live: ", &o.common.context, 1),
    CW_CMD_OPT_LIVE_NAMESPACE("namespace", 'n', "longhorn-system",
                              "live: Longhorn's namespace (RecurringJobs, Volumes)", &o.namespace),
    CW_CMD_OPT_LIVE_NAMESPACE("velero-namespace", 0, "velero",
                              "live: Velero's namespace (Schedules)", &o.velero_namespace),
    {.name = "from",
     .type = CW_OPT_STRING,
     .metavar = "RFC3339",
     .help = "start of the window; times print in its offset (default: now, to the minute, UTC)",
     .target = &o.from,
     .no_env = 1},
    {.name = "window",
     .type = CW_OPT_DURATION,
     .metavar = "DURATION",
     .help = "how far ahead to look",
     .target = &o.window,
     .def = "168h",
     .no_env = 1},
    {.name = "step",
     .type = CW_OPT_DURATION,
     .metavar = "DURATION",
     .help = "the resolution: starts are counted per step (whole seconds)",
     .target = &o.step,
     .def = "1m",
     .no_env = 1},
    {.name = "max-starts",
     .type = CW_OPT_INT,
     .metavar = "N",
     .help = "exit 1 when a step starts more operations than N (for CI); --suggest's target",
     .target = &o.max_starts,
     .def = "-1",
     .min = -1,
     .max = 1000000000,
     .no_env = 1},
    {.name = "assume-duration",
     .type = CW_OPT_LIST,
     .metavar = "TASK=DURATION",
     .help = "how long one operation of TASK takes (snapshot, backup, ..., velero-backup); "
             "default 10m for backup tasks and Velero backups, 1m for the rest",
     .target = &o.durations,
     .no_env = 1},
    CW_CMD_OPT_REPORT_DEFAULT_GROUP(&o.default_group),
    {.name = "output",
     .short_name = 'o',
     .type = CW_OPT_ENUM,
     .metavar = "FORMAT",
     .help = "text, json or svg",
     .target = &o.output,
     .def = "text",
     .choices = "text|json|svg",
     .no_env = 1},
    {.name = "suggest",
     .type = CW_OPT_BOOL,
     .help = "new crons that flatten the peaks (to --max-starts, else as far as they go)",
     .target = &o.suggest,
     .def = "false",
     .no_env = 1},
    {.name = "patch",
     .type = CW_OPT_STRING,
     .metavar = "FILE",
     .help = "with --suggest: write the changes to FILE, which must not exist (manifests: YAML for "
             "kubectl apply; live: kubectl patch commands)",
     .target = &o.patch,
     .no_env = 1},
};

static const cw_cmd_spec spec = {
    .name = "cron audit",
    .synopsis = CW_CMD_CRON_AUDIT_SYNOPSIS,
    .summary =
        "The load picture of every schedule: Longhorn RecurringJobs over the volumes they select "
        "(job and group labels, the default group; legacy spec.recurringJobs), `concurrency` "
        "volumes at a time, and Velero Schedules, over a window in steps. Reports the busiest "
        "steps and who makes them, each job's fires, jobs that outlast their interval, fire "
        "times a daylight-saving change skips or repeats, and crons that never fire. Reads "
        "manifests or a live cluster; never writes to the cluster.",
    .opts = opts,
    .nopts = sizeof(opts) / sizeof(opts[0]),
    .footer = "Exit codes: 0 no step above --max-starts (or none given), 1 a step above it or a "
              "failure, 2 usage or unreadable input.\nSchema and model: docs/audit.md.\n"
              "Example: cronwarden cron audit -f examples/longhorn-1.1-cluster --max-starts 40",
    .config_file = 0,
    .min_args = 0,
    .max_args = 0,
};

static int add_object(void *ud, json_object *obj, const char *source, cw_error *err)
{
    return cw_audit_add(ud, obj, source, err);
}

static int feed_live(cw_audit *a, cw_error *err)
{
    cw_cmd_live_source src[CW_KIND_COUNT];
    size_t n = cw_cmd_kind_sources(CW_READ_AUDIT, o.namespace, o.velero_namespace, src);
    return cw_cmd_feed_live(o.common.kubeconfig, o.common.context, src, n, add_object, a, err);
}

/* "snapshot=2m" rows into the config's overrides (owned by *out). */
static int parse_durations(cw_audit_duration **out, cw_error *err)
{
    *out = calloc(o.durations.len + 1, sizeof(**out));
    if (!*out)
        return cw_error_oom(err);
    for (size_t i = 0; i < o.durations.len; i++) {
        char *eq = strchr(o.durations.items[i], '=');
        double secs;
        if (!eq || eq == o.durations.items[i] || cw_opts_parse_duration(eq + 1, &secs) != CW_OK ||
            secs < 1)
            return cw_error_set(err, CW_EUSAGE,
                                "--assume-duration: expected TASK=DURATION of at least 1s (e.g. "
                                "backup=30m), got '%s'",
                                o.durations.items[i]);
        *eq = '\0';
        (*out)[i] = (cw_audit_duration){.task = o.durations.items[i], .seconds = (int64_t)secs};
    }
    return CW_OK;
}

static int configure(cw_audit_config *c, cw_tzdb *tzdb, cw_error *err)
{
    cw_audit_config_init(c);
    c->tzdb = tzdb;
    c->default_group = o.default_group;
    c->max_starts = (long)o.max_starts;
    c->window = (int64_t)o.window;
    c->step = (int64_t)o.step;
    if (c->step < 1 || (double)c->step != o.step)
        return cw_error_set(err, CW_EUSAGE,
                            "--step must be a whole number of seconds, at least 1s");
    if (c->window < c->step || c->window / c->step > 10 * 1000 * 1000)
        return cw_error_set(err, CW_EUSAGE,
                            "--window must hold at least one and at most 10,000,000 steps");
    if (o.from && *o.from)
        return cw_tz_parse_rfc3339(o.from, &c->from, &c->display_offset, err) == CW_OK
                   ? CW_OK
                   : cw_error_prefix(err, "--from");
    c->from = (int64_t)time(NULL) / 60 * 60;
    return CW_OK;
}

/* The patch goes into a new file: written beside it under a temporary name, then linked into
 * place, so a failed run leaves nothing and an existing file (an input) is never touched. */
static int write_patch(const cw_audit *a, int live, cw_error *err)
{
    size_t n = strlen(o.patch) + 32;
    char *tmp = malloc(n);
    if (!tmp)
        return cw_error_oom(err);
    snprintf(tmp, n, "%s.tmp.%ld", o.patch, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644), rc = CW_OK;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        rc = cw_error_set(err, CW_EIO, "--patch %s: %s", o.patch, strerror(errno));
    if (rc == CW_OK)
        rc = cw_audit_write_patch(a, live, f, err);
    if (f && (fclose(f) != 0) && rc == CW_OK)
        rc = cw_error_set(err, CW_EIO, "--patch %s: %s", o.patch, strerror(errno));
    else if (!f && fd >= 0)
        close(fd);
    if (rc == CW_OK && link(tmp, o.patch) != 0)
        rc = cw_error_set(err, CW_EIO, "--patch %s: %s", o.patch, strerror(errno));
    if (fd >= 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

static int report(cw_audit *a, cw_error *err)
{
    if (!strcmp(o.output, "json"))
        return cw_audit_render_json(a, stdout, err);
    if (!strcmp(o.output, "svg"))
        return cw_audit_render_svg(a, stdout, err);
    return cw_audit_render_text(a, stdout, err);
}

int cw_cmd_cron_audit(int argc, char **argv)
{
    int code = CW_EXIT_FAIL, rc, tz_ok = 0, audit_ok = 0;
    cw_error err;
    cw_tzdb tzdb;
    cw_audit audit;
    cw_audit_config cfg;
    cw_audit_duration *durations = NULL;
    cw_error_init(&err);
    cw_strlist_init(&o.from_files);
    cw_strlist_init(&o.durations);
    rc = cw_opts_parse(&spec, argc, argv, NULL, stdout, &err);
    if (rc == 1) {
        code = CW_EXIT_OK;
        goto done;
    }
    struct stat st;
    if (rc == CW_OK)
        rc = cw_k8sname_check_flag("--namespace", o.namespace, 0, &err);
    if (rc == CW_OK)
        rc = cw_k8sname_check_flag("--velero-namespace", o.velero_namespace, 0, &err);
    if (rc == CW_OK)
        rc = cw_recurringjob_check_group_flag("--default-group", o.default_group, &err);
    if (rc == CW_OK && o.patch && *o.patch && !o.suggest)
        rc = cw_error_set(&err, CW_EUSAGE, "--patch goes with --suggest");
    if (rc == CW_OK && o.patch && *o.patch && lstat(o.patch, &st) == 0)
        rc = cw_error_set(&err, CW_EUSAGE, "--patch %s exists; name a new file", o.patch);
    if (rc == CW_OK && (rc = cw_tzdb_init(&tzdb, NULL, &err)) == CW_OK)
        tz_ok = 1;
    if (rc == CW_OK)
        rc = configure(&cfg, &tzdb, &err);
    if (rc == CW_OK && (rc = parse_durations(&durations, &err)) == CW_OK)
        cfg.durations = durations;
    if (rc != CW_OK) {
        code = cw_cmd_usage_error("cron audit", err.message);
        goto done;
    }
    if ((rc = cw_audit_init(&audit, &cfg, &err)) != CW_OK) {
        code = cw_cmd_usage_error("cron audit", err.message);
        goto done;
    }
    audit_ok = 1;
    int live = o.from_files.len == 0;
    rc = live ? feed_live(&audit, &err)
              : cw_cmd_feed_files(&o.from_files, o.max_input_bytes, NULL, add_object, &audit, &err);
    if (rc != CW_OK) {
        fprintf(stderr, "cronwarden cron audit: %s\n", err.message);
        code = live ? CW_EXIT_FAIL : CW_EXIT_USAGE;
        goto done;
    }
    if ((rc = cw_audit_run(&audit, &err)) != CW_OK ||
        (o.suggest && (rc = cw_audit_suggest(&audit, o.max_starts > 0 ? (uint64_t)o.max_starts : 0,
                                             &err)) != CW_OK) ||
        (rc = report(&audit, &err)) != CW_OK ||
        (o.suggest && o.patch && *o.patch && (rc = write_patch(&audit, live, &err)) != CW_OK))
        goto fail;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cw_error_set(&err, CW_EIO, "writing the report to standard output failed: %s",
                     strerror(errno));
        goto fail;
    }
    code = o.max_starts >= 0 && audit.max_starts_seen > (uint64_t)o.max_starts ? CW_EXIT_FAIL
                                                                               : CW_EXIT_OK;
    goto done;
fail:
    fprintf(stderr, "cronwarden cron audit: %s\n", err.message);
    code = CW_EXIT_FAIL;
done:
    if (audit_ok)
        cw_audit_free(&audit);
    if (tz_ok)
        cw_tzdb_free(&tzdb);
    free(durations);
    cw_opts_free(&spec);
    return code;
}
