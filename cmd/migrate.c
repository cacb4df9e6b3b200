/* cronwarden migrate: the upgrade Job (online) and the manifest audit/rewrite (offline). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/migrate.h"
#include "lib/buf.h"
#include "lib/failpoint.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/opts.h"
#include "lib/yaml.h"
#include "migrate/load.h"
#include "migrate/outsafe.h"
#include "migrate/plan.h"
#include "migrate/report.h"
#include "migrate/write.h"

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

static int write_report(const cw_plan *p, const cw_report_info *info, const cw_migrate_opts *o,
                        const cw_inputs *inputs, cw_error *err)
{
    int rc = CW_OK;
    json_object *report = NULL;
    cw_buf yaml;
    cw_buf_init(&yaml);
    int need_json = strcmp(o->output, "text") != 0 || (o->report && *o->report);
    if (need_json && (rc = cw_report_json(p, info, &report, err)) != CW_OK)
        goto done;
    if (o->report && *o->report) {
        const char *s = json_object_to_json_string_ext(report, JSON_C_TO_STRING_PRETTY |
                                                                   JSON_C_TO_STRING_SPACED |
                                                                   JSON_C_TO_STRING_NOSLASHESCAPE);
        cw_buf text;
        cw_buf_init(&text);
        rc = cw_buf_puts(&text, s);
        if (rc == CW_OK)
            rc = cw_buf_putc(&text, '\n');
        if (rc == CW_OK)
            rc = cw_report_path_write(o->report, text.data, text.len, inputs, err);
        cw_buf_free(&text);
        if (rc != CW_OK)
            goto done;
    }
    if (strcmp(o->output, "json") == 0) {
        fputs(json_object_to_json_string_ext(report, JSON_C_TO_STRING_PRETTY |
                                                         JSON_C_TO_STRING_SPACED |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE),
              stdout);
        fputc('\n', stdout);
    } else if (strcmp(o->output, "yaml") == 0) {
        if ((rc = cw_yaml_emit(report, &yaml, err)) != CW_OK)
            goto done;
        fputs(cw_buf_str(&yaml), stdout);
    } else {
        rc = cw_report_text(p, info, stdout);
    }
    fflush(stdout);
done:
    json_object_put(report);
    cw_buf_free(&yaml);
    return rc;
}

typedef struct {
    cw_plan *plan;
} feed_ctx;

static int feed(void *ud, const cw_load_unit *u, cw_error *err)
{
    feed_ctx *c = ud;
    char where[4200];
    cw_load_where(u, where, sizeof(where));
    int rc = cw_plan_add(c->plan, u->obj, where, err);
    if (rc != CW_OK && rc != CW_ENOMEM)
        cw_error_prefix(err, "%s", where);
    return rc;
}

/* Pass 2: every input file rewritten into a stage beside the output directory, plus
 * recurringjobs.yaml, then moved into place (migrate/outsafe.h has the rules). */
static int write_outputs(const cw_plan *p, const cw_migrate_opts *o, const cw_strlist *files,
                         const cw_strlist *args_of_files, const cw_inputs *inputs, cw_error *err)
{
    cw_outtree tree;
    cw_buf out;
    cw_buf_init(&out);
    char *data = NULL;
    size_t len, total_changed = 0, njobs = 0;
    int rc = cw_outtree_plan(&tree, o->output_dir, files, args_of_files, "recurringjobs.yaml",
                             o->overwrite, inputs, err);
    for (size_t i = 0; rc == CW_OK && i < files->len; i++) {
        size_t changed = 0;
        cw_buf_reset(&out);
        if ((rc = cw_load_read(files->items[i], &data, &len, err)) != CW_OK ||
            (rc = cw_write_transform(p, files->items[i], data, len, &out, &changed, err)) !=
                CW_OK ||
            (rc = cw_write_atomic(tree.staged.items[i], cw_buf_str(&out), out.len, err)) != CW_OK)
            break;
        free(data);
        data = NULL;
        total_changed += changed;
        cw_failpoint("offline-write"); /* a crash between two files: nothing reaches the target */
        cw_log(CW_LOG_DEBUG, "wrote manifest", CW_LS("input", files->items[i]),
               CW_LS("output", tree.finals.items[i]), CW_LI("changed", changed));
    }
    cw_buf_reset(&out);
    if (rc == CW_OK)
        rc = cw_write_recurringjobs(p, &out, &njobs, err);
    if (rc == CW_OK && njobs && tree.extra_owner >= 0)
        rc = cw_error_set(err, CW_EUSAGE,
                          "the input %s maps to %s/recurringjobs.yaml, which holds the new "
                          "RecurringJobs; choose another --output-dir",
                          files->items[tree.extra_owner], o->output_dir);
    else if (rc == CW_OK && njobs)
        rc = cw_write_atomic(tree.staged.items[files->len], out.data, out.len, err);
    if (rc == CW_OK)
        rc = cw_outtree_commit(&tree, err);
    if (rc == CW_OK)
        cw_log(CW_LOG_INFO, "wrote migrated manifests", CW_LS("dir", o->output_dir),
               CW_LI("files", files->len), CW_LI("objects_changed", total_changed),
               CW_LI("recurringjobs", njobs));
    free(data);
    cw_buf_free(&out);
    cw_outtree_free(&tree); /* a failed run: the stage and all in it go */
    return rc;
}

static void mark_written(cw_plan *p)
{
    for (size_t i = 0; i < p->njobs; i++)
        if (p->jobs[i].action == CW_ACT_CREATE)
            p->jobs[i].result = CW_RES_DONE;
    for (size_t i = 0; i < p->nitems; i++)
        if (p->items[i].action == CW_ACT_MIGRATE)
            p->items[i].result = CW_RES_DONE;
    for (size_t i = 0; i < p->ncronjobs; i++)
        if (p->cronjobs[i].action == CW_ACT_DELETE)
            p->cronjobs[i].result = CW_RES_DONE;
}

int cw_migrate_offline(const cw_migrate_opts *o, cw_plan *plan)
{
    cw_error err;
    cw_error_init(&err);
    cw_strlist files, origin;
    cw_strlist_init(&files);
    cw_strlist_init(&origin);
    cw_inputs inputs = {0};
    int code = CW_EXIT_USAGE;

    /* Expand each argument separately to remember which argument a file came from. */
    for (size_t i = 0; i < o->from_files.len; i++) {
        cw_strlist one = {0}, got = {0};
        cw_strlist_add(&one, o->from_files.items[i]);
        int rc = cw_load_expand(&one, &got, &err);
        for (size_t k = 0; rc == CW_OK && k < got.len; k++) {
            cw_strlist_add(&files, got.items[k]);
            cw_strlist_add(&origin, o->from_files.items[i]);
        }
        cw_strlist_free(&one);
        cw_strlist_free(&got);
        if (rc != CW_OK) {
            fprintf(stderr, "cronwarden migrate: %s\n", err.message);
            goto done;
        }
    }
    if (o->output_dir && *o->output_dir && cw_strlist_contains(&files, "-")) {
        fprintf(stderr, "cronwarden migrate: --output-dir cannot mirror standard input; name the "
                        "files instead\n");
        goto done;
    }
    /* Nothing written may be something read: checked before anything is read or written. */
    if (cw_inputs_init(&inputs, &files, &err) != CW_OK ||
        (o->report && *o->report && cw_report_path_check(o->report, &inputs, &err) != CW_OK)) {
        fprintf(stderr, "cronwarden migrate: %s\n", err.message);
        goto done;
    }
    feed_ctx fc = {plan};
    for (size_t i = 0; i < files.len; i++) {
        if (cw_load_file(files.items[i], feed, &fc, &err) != CW_OK) {
            fprintf(stderr, "cronwarden migrate: %s\n", err.message);
            goto done;
        }
    }
    if (cw_plan_finish(plan, &err) != CW_OK) {
        fprintf(stderr, "cronwarden migrate: %s\n", err.message);
        code = CW_EXIT_FAIL;
        goto done;
    }
    int writing = o->output_dir && *o->output_dir;
    if (writing) {
        int rc = write_outputs(plan, o, &files, &origin, &inputs, &err);
        if (rc != CW_OK) {
            fprintf(stderr, "cronwarden migrate: %s\n", err.message);
            code = rc == CW_EUSAGE || rc == CW_EINVAL ? CW_EXIT_USAGE : CW_EXIT_FAIL;
            goto done;
        }
        mark_written(plan);
    }
    cw_report_info info = {"offline", NULL, writing ? o->output_dir : NULL, files.len};
    if (write_report(plan, &info, o, &inputs, &err) != CW_OK) {
        fprintf(stderr, "cronwarden migrate: %s\n", err.message);
        code = CW_EXIT_FAIL;
        goto done;
    }
    cw_report_summary s;
    cw_report_summarize(plan, &s);
    code = cw_report_exit_code(&s, o->detailed_exitcode && !writing);
done:
    cw_inputs_free(&inputs);
    cw_strlist_free(&files);
    cw_strlist_free(&origin);
    return code;
}

int cw_migrate_report(const cw_plan *p, const cw_report_info *info, const cw_migrate_opts *o,
                      cw_error *err)
{
    return write_report(p, info, o, NULL, err);
}

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
