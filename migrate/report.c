#include "migrate/report.h"
#include "lib/json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void count_items(const cw_plan *p, const char *kind, cw_report_counts *c)
{
    memset(c, 0, sizeof(*c));
    /* From the store's in-memory entries: no item is read. */
    for (size_t i = 0; i < p->nitems; i++) {
        if (strcmp(cw_plan_item_kind(p, i), kind) != 0)
            continue;
        c->scanned++;
        switch (cw_plan_item_action(p, i)) {
        case CW_ACT_MIGRATE:
            c->to_change++;
            if (cw_plan_item_result(p, i) == CW_RES_DONE)
                c->done++;
            else if (cw_plan_item_result(p, i) == CW_RES_FAILED)
                c->failed++;
            else if (cw_plan_item_result(p, i) == CW_RES_SKIPPED)
                c->skipped++;
            break;
        case CW_ACT_INVALID:
            c->invalid++;
            break;
        case CW_ACT_CONFLICT:
            c->conflicting++;
            break;
        default:
            c->unchanged++;
            break;
        }
    }
}

void cw_report_summarize(const cw_plan *p, cw_report_summary *s)
{
    memset(s, 0, sizeof(*s));
    count_items(p, "Volume", &s->volumes);
    count_items(p, "StorageClass", &s->storage_classes);
    count_items(p, "ConfigMap", &s->config_maps);
    for (size_t i = 0; i < p->jobs.len; i++) {
        const cw_plan_job *j = cw_plan_job_at(p, i);
        switch (j->rj.action) {
        case CW_ACT_CREATE:
            s->jobs_create++;
            s->jobs_created += j->result == CW_RES_DONE;
            s->jobs_failed += j->result == CW_RES_FAILED;
            break;
        case CW_ACT_EXISTS:
            s->jobs_existing++;
            break;
        case CW_ACT_CONFLICT:
            s->jobs_conflicting++;
            break;
        case CW_ACT_INVALID:
            s->jobs_invalid++;
            break;
        case CW_ACT_UNUSED:
            s->jobs_unused++;
            break;
        default:
            break;
        }
    }
    for (size_t i = 0; i < p->ncronjobs; i++) {
        const cw_plan_cronjob *c = &p->cronjobs[i];
        if (c->action == CW_ACT_DELETE) {
            s->cron_delete++;
            s->cron_deleted += c->result == CW_RES_DONE;
            s->cron_failed += c->result == CW_RES_FAILED;
        } else {
            s->cron_kept++;
        }
    }
    s->errors = p->nerrors + s->volumes.failed + s->storage_classes.failed + s->config_maps.failed +
                s->jobs_failed + s->cron_failed;
    size_t pending = (s->volumes.to_change - s->volumes.done) +
                     (s->storage_classes.to_change - s->storage_classes.done) +
                     (s->config_maps.to_change - s->config_maps.done) +
                     (s->jobs_create - s->jobs_created) + (s->cron_delete - s->cron_deleted);
    s->changes_pending = pending > 0;
    s->problems = s->errors || s->volumes.invalid || s->volumes.conflicting ||
                  s->storage_classes.invalid || s->storage_classes.conflicting ||
                  s->config_maps.invalid || s->config_maps.conflicting || s->jobs_conflicting;
}

int cw_report_exit_code(const cw_report_summary *s, int detailed)
{
    if (s->problems)
        return 1;
    if (detailed && s->changes_pending)
        return 3;
    return 0;
}

/* ---- JSON ---- */

static json_object *str(const char *s)
{
    return json_object_new_string(s ? s : "");
}

static json_object *counts_json(const cw_report_counts *c)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "scanned", json_object_new_uint64(c->scanned));
    json_object_object_add(o, "toMigrate", json_object_new_uint64(c->to_change));
    json_object_object_add(o, "migrated", json_object_new_uint64(c->done));
    json_object_object_add(o, "unchanged", json_object_new_uint64(c->unchanged));
    json_object_object_add(o, "invalid", json_object_new_uint64(c->invalid));
    json_object_object_add(o, "conflicting", json_object_new_uint64(c->conflicting));
    json_object_object_add(o, "failed", json_object_new_uint64(c->failed));
    json_object_object_add(o, "skipped", json_object_new_uint64(c->skipped));
    return o;
}

static void add_result(json_object *o, cw_plan_action a, cw_plan_result r, const char *msg)
{
    if (a != CW_ACT_MIGRATE && a != CW_ACT_CREATE && a != CW_ACT_DELETE)
        return;
    json_object_object_add(o, "result", str(cw_plan_result_name(r)));
    if (msg)
        json_object_object_add(o, "error", str(msg));
}

static json_object *job_refs(const cw_plan *p, const cw_plan_item *it)
{
    json_object *arr = json_object_new_array();
    for (size_t r = 0; r < it->nrefs; r++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "legacyName", str(it->refs[r].legacy_name));
        json_object_object_add(e, "recurringJob", str(cw_plan_job_at(p, it->refs[r].job)->rj.name));
        json_object_array_add(arr, e);
    }
    return arr;
}

/* The items are read one at a time from the plan's item file; a read that fails ends the
 * report with that error (*rc, err): the first one, which later sections leave alone. */
static json_object *items_json(const cw_plan *p, const char *kind, int *rc, cw_error *err)
{
    size_t n = 0, *idx = NULL;
    json_object *arr = json_object_new_array();
    int volume = strcmp(kind, "Volume") == 0;
    cw_plan_item item, *it = &item;
    memset(&item, 0, sizeof(item));
    if (*rc == CW_OK)
        *rc = cw_plan_sorted_items(p, kind, &idx, &n, err);
    for (size_t k = 0; k < n && *rc == CW_OK; k++) {
        cw_plan_item_free(&item);
        if ((*rc = cw_plan_item_load(p, idx[k], &item, err)) != CW_OK)
            break;
        json_object *o = json_object_new_object();
        if (*it->namespace)
            json_object_object_add(o, "namespace", str(it->namespace));
        json_object_object_add(o, "name", str(it->name));
        json_object_object_add(o, "action", str(cw_plan_action_name(it->action)));
        add_result(o, it->action, it->result, it->result_msg);
        if (it->reason)
            json_object_object_add(o, "reason", str(it->reason));
        if (it->nrefs)
            json_object_object_add(o, "jobs", job_refs(p, it));
        if (it->action == CW_ACT_MIGRATE) {
            if (volume) {
                json_object *labels = json_object_new_array();
                for (size_t i = 0; i < it->add_labels.len; i++)
                    json_object_array_add(labels, str(it->add_labels.items[i]));
                json_object_object_add(o, "addLabels", labels);
                json_object_object_add(o, "removeRecurringJobs", json_object_new_boolean(1));
            } else {
                if (it->new_selector)
                    json_object_object_add(o, "recurringJobSelector", str(it->new_selector));
                json_object_object_add(o, "removeRecurringJobs", json_object_new_boolean(1));
            }
        }
        if (*it->source)
            json_object_object_add(o, "source", str(it->source));
        json_object_array_add(arr, o);
    }
    cw_plan_item_free(&item);
    free(idx);
    return arr;
}

/* Job j's sources in order, as one line each: "kind", "namespace", "name" members (obj) or
 * "Kind ns/name" strings (!obj). */
static json_object *sources_json(const cw_plan *p, const cw_plan_job *j, int obj, int *rc,
                                 cw_error *err)
{
    json_object *arr = json_object_new_array();
    size_t *order = NULL;
    cw_plan_item it;
    memset(&it, 0, sizeof(it));
    if (*rc == CW_OK)
        *rc = cw_plan_sorted_sources(p, j, &order, err);
    for (size_t s = 0; *rc == CW_OK && s < j->nsrcs; s++) {
        cw_plan_item_free(&it);
        if ((*rc = cw_plan_item_load(p, order[s], &it, err)) != CW_OK)
            break;
        if (!obj) {
            char name[600];
            snprintf(name, sizeof(name), "%s %s%s%s", it.kind, it.namespace,
                     *it.namespace ? "/" : "", it.name);
            json_object_array_add(arr, str(name));
            continue;
        }
        json_object *e = json_object_new_object();
        json_object_object_add(e, "kind", str(it.kind));
        if (*it.namespace)
            json_object_object_add(e, "namespace", str(it.namespace));
        json_object_object_add(e, "name", str(it.name));
        json_object_array_add(arr, e);
    }
    cw_plan_item_free(&it);
    free(order);
    return arr;
}

static json_object *jobs_json(const cw_plan *p, int *rc, cw_error *err)
{
    size_t n;
    size_t *idx = cw_plan_sorted_jobs(p, &n);
    json_object *arr = json_object_new_array();
    for (size_t k = 0; idx && k < n; k++) {
        const cw_plan_job *j = cw_plan_job_at(p, idx[k]);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", str(j->rj.name));
        json_object_object_add(o, "namespace", str(p->cfg.namespace));
        json_object_object_add(o, "action", str(cw_plan_action_name(j->rj.action)));
        add_result(o, j->rj.action, j->result, j->result_msg);
        if (j->rj.reason)
            json_object_object_add(o, "reason", str(j->rj.reason));
        if (j->rj.invalid)
            json_object_object_add(o, "reason", str(j->rj.invalid));
        json_object_object_add(o, "task", str(j->rj.task));
        json_object_object_add(o, "cron", str(j->rj.cron));
        json_object_object_add(o, "retain", json_object_new_int64(j->rj.retain));
        json_object *labels = NULL;
        cw_json_copy(j->rj.labels, &labels);
        json_object_object_add(o, "labels", labels);
        json_object_object_add(o, "sources", sources_json(p, j, 1, rc, err));
        json_object_array_add(arr, o);
    }
    free(idx);
    return arr;
}

static json_object *cronjobs_json(const cw_plan *p)
{
    size_t n;
    size_t *idx = cw_plan_sorted_cronjobs(p, &n);
    json_object *arr = json_object_new_array();
    for (size_t k = 0; idx && k < n; k++) {
        const cw_plan_cronjob *c = &p->cronjobs[idx[k]];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "namespace", str(c->namespace));
        json_object_object_add(o, "name", str(c->name));
        json_object_object_add(o, "volume", str(c->volume));
        json_object_object_add(o, "action", str(cw_plan_action_name(c->action)));
        add_result(o, c->action, c->result, c->result_msg);
        if (c->reason)
            json_object_object_add(o, "reason", str(c->reason));
        if (*c->source)
            json_object_object_add(o, "source", str(c->source));
        json_object_array_add(arr, o);
    }
    free(idx);
    return arr;
}

static json_object *conflicts_json(const cw_plan *p, int *rc, cw_error *err)
{
    size_t n;
    size_t *idx = cw_plan_sorted_jobs(p, &n);
    json_object *arr = json_object_new_array();
    for (size_t k = 0; idx && k < n; k++) {
        const cw_plan_job *j = cw_plan_job_at(p, idx[k]);
        if (j->rj.action != CW_ACT_CONFLICT)
            continue;
        json_object *o = json_object_new_object();
        json_object_object_add(o, "kind", str("RecurringJob"));
        json_object_object_add(o, "namespace", str(p->cfg.namespace));
        json_object_object_add(o, "name", str(j->rj.name));
        json_object_object_add(o, "reason", str(j->rj.reason));
        json_object_object_add(o, "affected", sources_json(p, j, 0, rc, err));
        json_object_array_add(arr, o);
    }
    free(idx);
    return arr;
}

int cw_report_json(const cw_plan *p, const cw_report_info *info, json_object **out, cw_error *err)
{
    cw_report_summary s;
    cw_report_summarize(p, &s);
    json_object *o = json_object_new_object();
    if (!o)
        return cw_error_oom(err);
    json_object_object_add(o, "apiVersion", str("cronwarden.io/v1alpha1"));
    json_object_object_add(o, "kind", str("MigrationReport"));
    json_object_object_add(o, "mode", str(info->mode));
    if (info->dry_run)
        json_object_object_add(o, "dryRun", str(info->dry_run));
    if (strcmp(info->mode, "offline") == 0) {
        json_object_object_add(o, "outputDir", info->output_dir ? str(info->output_dir) : NULL);
        json_object_object_add(o, "files", json_object_new_uint64(info->files));
    }
    json_object_object_add(o, "nameScheme", str(cw_names_scheme_name(p->cfg.scheme)));
    json_object_object_add(o, "namespace", str(p->cfg.namespace));
    json_object_object_add(o, "recurringJobApiVersion", str(p->jobs.rj_api_version));

    json_object *sum = json_object_new_object();
    json_object_object_add(sum, "volumes", counts_json(&s.volumes));
    json_object_object_add(sum, "storageClasses", counts_json(&s.storage_classes));
    json_object_object_add(sum, "configMaps", counts_json(&s.config_maps));
    json_object *rj = json_object_new_object();
    json_object_object_add(rj, "toCreate", json_object_new_uint64(s.jobs_create));
    json_object_object_add(rj, "created", json_object_new_uint64(s.jobs_created));
    json_object_object_add(rj, "existing", json_object_new_uint64(s.jobs_existing));
    json_object_object_add(rj, "conflicting", json_object_new_uint64(s.jobs_conflicting));
    json_object_object_add(rj, "invalid", json_object_new_uint64(s.jobs_invalid));
    json_object_object_add(rj, "unused", json_object_new_uint64(s.jobs_unused));
    json_object_object_add(rj, "failed", json_object_new_uint64(s.jobs_failed));
    json_object_object_add(sum, "recurringJobs", rj);
    json_object *cj = json_object_new_object();
    json_object_object_add(cj, "toDelete", json_object_new_uint64(s.cron_delete));
    json_object_object_add(cj, "deleted", json_object_new_uint64(s.cron_deleted));
    json_object_object_add(cj, "kept", json_object_new_uint64(s.cron_kept));
    json_object_object_add(cj, "failed", json_object_new_uint64(s.cron_failed));
    json_object_object_add(sum, "cronJobs", cj);
    json_object_object_add(sum, "errors", json_object_new_uint64(s.errors));
    json_object_object_add(sum, "changesPending", json_object_new_boolean(s.changes_pending));
    json_object_object_add(o, "summary", sum);

    int rc = CW_OK;
    json_object_object_add(o, "recurringJobs", jobs_json(p, &rc, err));
    json_object_object_add(o, "volumes", items_json(p, "Volume", &rc, err));
    json_object_object_add(o, "storageClasses", items_json(p, "StorageClass", &rc, err));
    json_object_object_add(o, "configMaps", items_json(p, "ConfigMap", &rc, err));
    json_object_object_add(o, "cronJobs", cronjobs_json(p));
    json_object_object_add(o, "conflicts", conflicts_json(p, &rc, err));
    json_object *errs = json_object_new_array();
    for (size_t i = 0; i < p->nerrors; i++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "object", str(p->errors[i].object));
        json_object_object_add(e, "source", str(p->errors[i].source));
        json_object_object_add(e, "message", str(p->errors[i].message));
        json_object_array_add(errs, e);
    }
    json_object_object_add(o, "errors", errs);
    if (rc != CW_OK) {
        json_object_put(o);
        return rc;
    }
    *out = o;
    return CW_OK;
}

/* ---- text ---- */

static void row(FILE *out, const char *kind, const cw_report_counts *c, int online)
{
    fprintf(out, "%-14s %8zu %8zu %8zu %10zu %8zu %9zu", kind, c->scanned, c->to_change, c->done,
            c->unchanged, c->invalid, c->conflicting);
    if (online)
        fprintf(out, " %7zu", c->failed + c->skipped);
    fputc('\n', out);
}

static const char *verb(cw_plan_action a, cw_plan_result r)
{
    if (r == CW_RES_FAILED)
        return "FAILED";
    if (r == CW_RES_SKIPPED)
        return "skipped";
    switch (a) {
    case CW_ACT_CREATE:
        return r == CW_RES_DONE ? "created" : "create";
    case CW_ACT_MIGRATE:
        return r == CW_RES_DONE ? "migrated" : "migrate";
    case CW_ACT_DELETE:
        return r == CW_RES_DONE ? "deleted" : "delete";
    default:
        return cw_plan_action_name(a);
    }
}

static void result_suffix(FILE *out, cw_plan_result r, const char *msg)
{
    if (r == CW_RES_DRYRUN)
        fputs(" [dry-run ok]", out);
    if (msg)
        fprintf(out, ": %s", msg);
    fputc('\n', out);
}

static int text_items(const cw_plan *p, const char *kind, FILE *out, cw_error *err)
{
    size_t n = 0, *idx = NULL;
    cw_plan_item item, *it = &item;
    memset(&item, 0, sizeof(item));
    int rc = cw_plan_sorted_items(p, kind, &idx, &n, err);
    for (size_t k = 0; k < n && rc == CW_OK; k++) {
        if (cw_plan_item_action(p, idx[k]) == CW_ACT_NONE)
            continue;
        cw_plan_item_free(&item);
        if ((rc = cw_plan_item_load(p, idx[k], &item, err)) != CW_OK)
            break;
        fprintf(out, "%-9s %s %s%s%s", verb(it->action, it->result), it->kind, it->namespace,
                *it->namespace ? "/" : "", it->name);
        if (it->action == CW_ACT_MIGRATE) {
            for (size_t i = 0; i < it->add_labels.len; i++)
                fprintf(out, " +%s", it->add_labels.items[i]);
            if (it->new_selector)
                fprintf(out, " recurringJobSelector=%s", it->new_selector);
            fputs(strcmp(kind, "Volume") == 0 ? " -spec.recurringJobs"
                                              : " -parameters.recurringJobs",
                  out);
        } else if (it->reason) {
            fprintf(out, "  %s", it->reason);
        }
        result_suffix(out, it->result, it->result_msg);
    }
    cw_plan_item_free(&item);
    free(idx);
    return rc;
}

int cw_report_text(const cw_plan *p, const cw_report_info *info, FILE *out, cw_error *err)
{
    cw_report_summary s;
    cw_report_summarize(p, &s);
    int online = strcmp(info->mode, "online") == 0;
    if (online)
        fprintf(out, "cronwarden migrate: online, dry-run=%s, name scheme %s, namespace %s\n\n",
                info->dry_run, cw_names_scheme_name(p->cfg.scheme), p->cfg.namespace);
    else
        fprintf(out,
                "cronwarden migrate: offline %s of %zu file%s, name scheme %s, namespace %s\n\n",
                info->output_dir ? "rewrite" : "audit", info->files, info->files == 1 ? "" : "s",
                cw_names_scheme_name(p->cfg.scheme), p->cfg.namespace);
    fprintf(out, "%-14s %8s %8s %8s %10s %8s %9s%s\n", "KIND", "SCANNED", "MIGRATE", "DONE",
            "UNCHANGED", "INVALID", "CONFLICT", online ? "  FAILED" : "");
    row(out, "Volume", &s.volumes, online);
    row(out, "StorageClass", &s.storage_classes, online);
    row(out, "ConfigMap", &s.config_maps, online);
    fprintf(
        out,
        "\nRecurringJobs: %zu to create (%zu done), %zu existing, %zu conflicting, %zu invalid, "
        "%zu unused\n",
        s.jobs_create, s.jobs_created, s.jobs_existing, s.jobs_conflicting, s.jobs_invalid,
        s.jobs_unused);
    fprintf(out, "Legacy CronJobs: %zu to delete (%zu done), %zu kept\n", s.cron_delete,
            s.cron_deleted, s.cron_kept);
    fprintf(out, "Errors: %zu\n\n", s.errors);

    size_t n;
    size_t *idx = cw_plan_sorted_jobs(p, &n);
    for (size_t k = 0; idx && k < n; k++) {
        const cw_plan_job *j = cw_plan_job_at(p, idx[k]);
        if (j->rj.action == CW_ACT_EXISTS)
            continue;
        fprintf(out, "%-9s RecurringJob %s/%s  %s, cron \"%s\", retain %" PRId64 ", labels %s",
                verb(j->rj.action, j->result), p->cfg.namespace, j->rj.name, j->rj.task, j->rj.cron,
                j->rj.retain, j->rj.labels_json);
        if (j->rj.reason || j->rj.invalid)
            fprintf(out, "  %s", j->rj.reason ? j->rj.reason : j->rj.invalid);
        else
            fprintf(out, " (%zu source%s)", j->nsrcs, j->nsrcs == 1 ? "" : "s");
        result_suffix(out, j->result, j->result_msg);
    }
    free(idx);
    int rc = text_items(p, "Volume", out, err);
    if (rc == CW_OK)
        rc = text_items(p, "StorageClass", out, err);
    if (rc == CW_OK)
        rc = text_items(p, "ConfigMap", out, err);
    idx = cw_plan_sorted_cronjobs(p, &n);
    for (size_t k = 0; idx && k < n; k++) {
        const cw_plan_cronjob *c = &p->cronjobs[idx[k]];
        fprintf(out, "%-9s CronJob %s/%s (volume %s)", verb(c->action, c->result), c->namespace,
                c->name, c->volume);
        if (c->reason)
            fprintf(out, "  %s", c->reason);
        result_suffix(out, c->result, c->result_msg);
    }
    free(idx);
    for (size_t i = 0; i < p->nerrors; i++) {
        const cw_plan_error *e = &p->errors[i];
        fprintf(out, "error     %s%s", e->object, *e->object ? " " : "");
        if (*e->source)
            fprintf(out, "(%s) ", e->source);
        fprintf(out, "%s\n", e->message);
    }
    if (!online && !info->output_dir && s.changes_pending)
        fprintf(out, "\nAudit only: nothing was written. Pass --output-dir DIR to write migrated "
                     "manifests.\n");
    return rc;
}
