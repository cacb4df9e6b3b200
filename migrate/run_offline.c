/* Offline migrate: manifests in; the report, and with --output-dir the migrated tree, out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/failpoint.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/yaml.h"
#include "kube/manifest.h"
#include "migrate/outsafe.h"
#include "migrate/run.h"
#include "migrate/write.h"

int cw_migrate_report(const cw_plan *p, const cw_report_info *info, const cw_migrate_opts *o,
                      const cw_inputs *inputs, cw_error *err)
{
    int rc = CW_OK;
    json_object *report = NULL;
    cw_buf yaml, text;
    cw_buf_init(&yaml);
    cw_buf_init(&text);
    int to_file = o->report && *o->report;
    cw_report_file rf;
    memset(&rf, 0, sizeof(rf));
    /* JSON is written as it is produced (no json-c tree): into --report's file, and rendered again
     * for stdout; YAML is emitted from the tree. */
    if (to_file) {
        if ((rc = cw_report_file_open(&rf, o->report, inputs, err)) != CW_OK ||
            (rc = cw_report_json_write(p, info, &text, rf.f, err)) != CW_OK ||
            (rc = cw_report_file_commit(&rf, err)) != CW_OK)
            goto done;
    }
    if (strcmp(o->output, "json") == 0) {
        if ((rc = cw_report_json_write(p, info, &text, stdout, err)) != CW_OK)
            goto done;
    } else if (strcmp(o->output, "yaml") == 0) {
        if ((rc = cw_report_json(p, info, &report, err)) != CW_OK ||
            (rc = cw_yaml_emit(report, &yaml, err)) != CW_OK)
            goto done;
        fputs(cw_buf_str(&yaml), stdout);
    } else {
        rc = cw_report_text(p, info, stdout, err);
    }
    fflush(stdout);
done:
    cw_report_file_abort(&rf);
    json_object_put(report);
    cw_buf_free(&yaml);
    cw_buf_free(&text);
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
    int rc = cw_outtree_plan(&tree, o->output_dir, &o->from_files, files, args_of_files,
                             "recurringjobs.yaml", o->overwrite, inputs, err);
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

static int mark_written(cw_plan *p, cw_error *err)
{
    int rc = CW_OK;
    for (size_t i = 0; i < p->jobs.len; i++)
        if (cw_plan_job_at(p, i)->rj.action == CW_ACT_CREATE)
            cw_plan_job_at(p, i)->result = CW_RES_DONE;
    for (size_t i = 0; i < p->nitems && rc == CW_OK; i++)
        if (cw_plan_item_action(p, i) == CW_ACT_MIGRATE)
            rc = cw_plan_item_set_result(p, i, CW_RES_DONE, NULL, err);
    for (size_t i = 0; i < p->ncronjobs; i++)
        if (p->cronjobs[i].action == CW_ACT_DELETE)
            p->cronjobs[i].result = CW_RES_DONE;
    return rc;
}

int cw_migrate_offline(const cw_migrate_opts *o, cw_plan *plan)
{
    cw_error err;
    cw_error_init(&err);
    cw_strlist files, origin;
    cw_strlist_init(&files);
    cw_strlist_init(&origin);
    cw_inputs inputs = {0};
    int code = CW_MIGRATE_USAGE;

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
    if (cw_load_check_budget(&files, o->max_input_bytes > 0 ? o->max_input_bytes : 1LL << 30,
                             &err) != CW_OK) {
        fprintf(stderr, "cronwarden migrate: %s\n", err.message);
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
        code = CW_MIGRATE_FINDINGS;
        goto done;
    }
    int writing = o->output_dir && *o->output_dir;
    if (writing) {
        int rc = write_outputs(plan, o, &files, &origin, &inputs, &err);
        if (rc != CW_OK) {
            fprintf(stderr, "cronwarden migrate: %s\n", err.message);
            code = rc == CW_EUSAGE || rc == CW_EINVAL ? CW_MIGRATE_USAGE : CW_MIGRATE_FINDINGS;
            goto done;
        }
        if (mark_written(plan, &err) != CW_OK) {
            fprintf(stderr, "cronwarden migrate: %s\n", err.message);
            code = CW_MIGRATE_FINDINGS;
            goto done;
        }
    }
    cw_report_info info = {"offline", NULL, writing ? o->output_dir : NULL, files.len};
    if (cw_migrate_report(plan, &info, o, &inputs, &err) != CW_OK) {
        fprintf(stderr, "cronwarden migrate: %s\n", err.message);
        code = CW_MIGRATE_FINDINGS;
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
