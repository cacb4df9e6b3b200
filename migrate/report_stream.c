/* The JSON report written as it is produced: byte for byte what json-c prints for the tree of
 * cw_report_json() with JSON_C_TO_STRING_PRETTY | SPACED | NOSLASHESCAPE (two-space indent,
 * "key": value, an empty container as "[\n<indent>]"), without building that tree. The text goes
 * into a cw_buf that is flushed to a FILE every 64 KiB when one is given, so memory stays flat
 * in the number of volumes. tests/unit/migrate/test_report.c compares both renderings. */
#include "migrate/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FLUSH_AT  (64 * 1024)
#define MAX_DEPTH 8

typedef struct w {
    cw_buf *b;
    FILE *out;
    int level; /* containers open; members of the innermost are indented 2 * level */
    int first[MAX_DEPTH];
    int rc;
    int errno_;    /* of a failed write */
    cw_error *err; /* filled when the item file cannot be read (rc: its code, read_failed: 1) */
    int read_failed;
} w;

static void flush(w *x)
{
    if (x->rc == CW_OK && x->out && x->b->len) {
        if (fwrite(x->b->data, 1, x->b->len, x->out) != x->b->len) {
            x->rc = CW_EIO;
            x->errno_ = errno;
        }
        cw_buf_reset(x->b);
    }
}

static void put(w *x, const char *s, size_t n)
{
    if (x->rc == CW_OK && cw_buf_append(x->b, s, n) != CW_OK)
        x->rc = CW_ENOMEM;
    if (x->b->len >= FLUSH_AT)
        flush(x);
}

static void puts_(w *x, const char *s)
{
    put(x, s, strlen(s));
}

static void indent(w *x, int level)
{
    static const char sp[] = "                                ";
    put(x, sp, (size_t)level * 2 < sizeof(sp) - 1 ? (size_t)level * 2 : sizeof(sp) - 1);
}

/* json-c's json_escape_str with NOSLASHESCAPE: \b \n \r \t \f \" \\, other controls \u00xx. */
static void string(w *x, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const char *run = s;
    put(x, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        const char *esc = NULL;
        char u[7];
        switch (c) {
        case '\b':
            esc = "\\b";
            break;
        case '\n':
            esc = "\\n";
            break;
        case '\r':
            esc = "\\r";
            break;
        case '\t':
            esc = "\\t";
            break;
        case '\f':
            esc = "\\f";
            break;
        case '"':
            esc = "\\\"";
            break;
        case '\\':
            esc = "\\\\";
            break;
        default:
            if (c < ' ') {
                u[0] = '\\', u[1] = 'u', u[2] = '0', u[3] = '0', u[4] = hex[c >> 4],
                u[5] = hex[c & 15], u[6] = '\0';
                esc = u;
            }
        }
        if (esc) {
            put(x, run, (size_t)(s - run));
            puts_(x, esc);
            run = s + 1;
        }
    }
    put(x, run, (size_t)(s - run));
    put(x, "\"", 1);
}

/* Before a member or an element: the separator, the indent and the key. */
static void prefix(w *x, const char *key)
{
    put(x, x->first[x->level] ? "\n" : ",\n", x->first[x->level] ? 1 : 2);
    x->first[x->level] = 0;
    indent(x, x->level);
    if (key) {
        string(x, key);
        put(x, ": ", 2);
    }
}

static void open_(w *x, const char *key, char ch)
{
    if (x->level > 0)
        prefix(x, key);
    put(x, &ch, 1);
    if (x->level + 1 >= MAX_DEPTH) {
        x->rc = CW_EINVAL;
        return;
    }
    x->first[++x->level] = 1;
}

static void close_(w *x, char ch)
{
    put(x, "\n", 1);
    indent(x, x->level - 1);
    put(x, &ch, 1);
    x->level--;
}

static void str(w *x, const char *key, const char *s)
{
    prefix(x, key);
    string(x, s ? s : "");
}

static void u64(w *x, const char *key, uint64_t v)
{
    char n[32];
    prefix(x, key);
    snprintf(n, sizeof(n), "%" PRIu64, v);
    puts_(x, n);
}

static void raw(w *x, const char *key, const char *text)
{
    prefix(x, key);
    puts_(x, text);
}

/* Any json-c value as json-c prints it, its lines indented to this depth. */
static void value(w *x, const char *key, json_object *v)
{
    prefix(x, key);
    const char *s = json_object_to_json_string_ext(
        v, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    for (const char *nl; (nl = strchr(s, '\n')); s = nl + 1) {
        put(x, s, (size_t)(nl - s + 1));
        indent(x, x->level);
    }
    puts_(x, s);
}

static void counts(w *x, const char *key, const cw_report_counts *c)
{
    open_(x, key, '{');
    u64(x, "scanned", c->scanned);
    u64(x, "toMigrate", c->to_change);
    u64(x, "migrated", c->done);
    u64(x, "unchanged", c->unchanged);
    u64(x, "invalid", c->invalid);
    u64(x, "conflicting", c->conflicting);
    u64(x, "failed", c->failed);
    u64(x, "skipped", c->skipped);
    close_(x, '}');
}

static void result(w *x, cw_plan_action a, cw_plan_result r, const char *msg)
{
    if (a != CW_ACT_MIGRATE && a != CW_ACT_CREATE && a != CW_ACT_DELETE)
        return;
    str(x, "result", cw_plan_result_name(r));
    if (msg)
        str(x, "error", msg);
}

/* The result of a call that filled x->err (a read of the plan's item file): a failure ends the
 * report with that error. */
static int failed(w *x, int rc)
{
    if (rc != CW_OK) {
        x->rc = rc;
        x->read_failed = 1;
    }
    return rc;
}

/* Item i of the plan's item file into `it` (freed first). */
static int load(w *x, const cw_plan *p, size_t i, cw_plan_item *it)
{
    cw_plan_item_free(it);
    return failed(x, cw_plan_item_load(p, i, it, x->err));
}

static void items(w *x, const cw_plan *p, const char *key, const char *kind)
{
    size_t n = 0, *idx = NULL;
    int volume = strcmp(kind, "Volume") == 0;
    if (x->rc == CW_OK)
        failed(x, cw_plan_sorted_items(p, kind, &idx, &n, x->err));
    cw_plan_item item, *it = &item;
    memset(&item, 0, sizeof(item));
    open_(x, key, '[');
    for (size_t k = 0; k < n && x->rc == CW_OK; k++) {
        if (load(x, p, idx[k], &item) != CW_OK)
            break;
        open_(x, NULL, '{');
        if (*it->namespace)
            str(x, "namespace", it->namespace);
        str(x, "name", it->name);
        str(x, "action", cw_plan_action_name(it->action));
        result(x, it->action, it->result, it->result_msg);
        if (it->reason)
            str(x, "reason", it->reason);
        if (it->nrefs) {
            open_(x, "jobs", '[');
            for (size_t r = 0; r < it->nrefs; r++) {
                open_(x, NULL, '{');
                str(x, "legacyName", it->refs[r].legacy_name);
                str(x, "recurringJob", cw_plan_job_at(p, it->refs[r].job)->rj.name);
                close_(x, '}');
            }
            close_(x, ']');
        }
        if (it->action == CW_ACT_MIGRATE) {
            if (volume) {
                open_(x, "addLabels", '[');
                for (size_t i = 0; i < it->add_labels.len; i++)
                    str(x, NULL, it->add_labels.items[i]);
                close_(x, ']');
            } else if (it->new_selector) {
                str(x, "recurringJobSelector", it->new_selector);
            }
            raw(x, "removeRecurringJobs", "true");
        }
        if (*it->source)
            str(x, "source", it->source);
        close_(x, '}');
    }
    close_(x, ']');
    cw_plan_item_free(&item);
    free(idx);
}

static void jobs(w *x, const cw_plan *p, size_t *idx, size_t n)
{
    open_(x, "recurringJobs", '[');
    for (size_t k = 0; k < n && x->rc == CW_OK; k++) {
        const cw_plan_job *j = cw_plan_job_at(p, idx[k]);
        open_(x, NULL, '{');
        str(x, "name", j->rj.name);
        str(x, "namespace", p->cfg.namespace);
        str(x, "action", cw_plan_action_name(j->rj.action));
        result(x, j->rj.action, j->result, j->result_msg);
        /* json-c replaces a member added twice in place: the last "reason" wins, first place. */
        if (j->rj.reason || j->rj.invalid)
            str(x, "reason", j->rj.invalid ? j->rj.invalid : j->rj.reason);
        str(x, "task", j->rj.task);
        str(x, "cron", j->rj.cron);
        char n64[32];
        snprintf(n64, sizeof(n64), "%" PRId64, j->rj.retain);
        raw(x, "retain", n64);
        if (j->rj.labels)
            value(x, "labels", j->rj.labels);
        else
            raw(x, "labels", "null");
        open_(x, "sources", '[');
        size_t *order = NULL;
        cw_plan_item it;
        memset(&it, 0, sizeof(it));
        if (x->rc == CW_OK)
            failed(x, cw_plan_sorted_sources(p, j, &order, x->err));
        for (size_t s = 0; order && s < j->nsrcs && load(x, p, order[s], &it) == CW_OK; s++) {
            open_(x, NULL, '{');
            str(x, "kind", it.kind);
            if (*it.namespace)
                str(x, "namespace", it.namespace);
            str(x, "name", it.name);
            close_(x, '}');
        }
        cw_plan_item_free(&it);
        free(order);
        close_(x, ']');
        close_(x, '}');
    }
    close_(x, ']');
}

static void cronjobs(w *x, const cw_plan *p)
{
    size_t n;
    size_t *idx = cw_plan_sorted_cronjobs(p, &n);
    if (!idx)
        x->rc = CW_ENOMEM;
    open_(x, "cronJobs", '[');
    for (size_t k = 0; idx && k < n && x->rc == CW_OK; k++) {
        const cw_plan_cronjob *c = &p->cronjobs[idx[k]];
        open_(x, NULL, '{');
        str(x, "namespace", c->namespace);
        str(x, "name", c->name);
        str(x, "volume", c->volume);
        str(x, "action", cw_plan_action_name(c->action));
        result(x, c->action, c->result, c->result_msg);
        if (c->reason)
            str(x, "reason", c->reason);
        if (*c->source)
            str(x, "source", c->source);
        close_(x, '}');
    }
    close_(x, ']');
    free(idx);
}

static void conflicts(w *x, const cw_plan *p, size_t *idx, size_t n)
{
    open_(x, "conflicts", '[');
    for (size_t k = 0; k < n && x->rc == CW_OK; k++) {
        const cw_plan_job *j = cw_plan_job_at(p, idx[k]);
        if (j->rj.action != CW_ACT_CONFLICT)
            continue;
        open_(x, NULL, '{');
        str(x, "kind", "RecurringJob");
        str(x, "namespace", p->cfg.namespace);
        str(x, "name", j->rj.name);
        str(x, "reason", j->rj.reason);
        open_(x, "affected", '[');
        size_t *order = NULL;
        cw_plan_item it;
        memset(&it, 0, sizeof(it));
        if (x->rc == CW_OK)
            failed(x, cw_plan_sorted_sources(p, j, &order, x->err));
        for (size_t s = 0; order && s < j->nsrcs && load(x, p, order[s], &it) == CW_OK; s++) {
            char name[600];
            snprintf(name, sizeof(name), "%s %s%s%s", it.kind, it.namespace,
                     *it.namespace ? "/" : "", it.name);
            str(x, NULL, name);
        }
        cw_plan_item_free(&it);
        free(order);
        close_(x, ']');
        close_(x, '}');
    }
    close_(x, ']');
}

int cw_report_json_write(const cw_plan *p, const cw_report_info *info, cw_buf *b, FILE *out,
                         cw_error *err)
{
    cw_report_summary s;
    cw_report_summarize(p, &s);
    w x = {.b = b, .out = out, .level = 0, .rc = CW_OK, .err = err};
    size_t nj;
    size_t *jidx = cw_plan_sorted_jobs(p, &nj);
    if (!jidx)
        return cw_error_oom(err);
    open_(&x, NULL, '{');
    str(&x, "apiVersion", "cronwarden.io/v1alpha1");
    str(&x, "kind", "MigrationReport");
    str(&x, "mode", info->mode);
    if (info->dry_run)
        str(&x, "dryRun", info->dry_run);
    if (strcmp(info->mode, "offline") == 0) {
        if (info->output_dir)
            str(&x, "outputDir", info->output_dir);
        else
            raw(&x, "outputDir", "null");
        u64(&x, "files", info->files);
    }
    str(&x, "nameScheme", cw_names_scheme_name(p->cfg.scheme));
    str(&x, "namespace", p->cfg.namespace);
    str(&x, "recurringJobApiVersion", p->jobs.rj_api_version);

    open_(&x, "summary", '{');
    counts(&x, "volumes", &s.volumes);
    counts(&x, "storageClasses", &s.storage_classes);
    counts(&x, "configMaps", &s.config_maps);
    open_(&x, "recurringJobs", '{');
    u64(&x, "toCreate", s.jobs_create);
    u64(&x, "created", s.jobs_created);
    u64(&x, "existing", s.jobs_existing);
    u64(&x, "conflicting", s.jobs_conflicting);
    u64(&x, "invalid", s.jobs_invalid);
    u64(&x, "unused", s.jobs_unused);
    u64(&x, "failed", s.jobs_failed);
    close_(&x, '}');
    open_(&x, "cronJobs", '{');
    u64(&x, "toDelete", s.cron_delete);
    u64(&x, "deleted", s.cron_deleted);
    u64(&x, "kept", s.cron_kept);
    u64(&x, "failed", s.cron_failed);
    close_(&x, '}');
    u64(&x, "errors", s.errors);
    raw(&x, "changesPending", s.changes_pending ? "true" : "false");
    close_(&x, '}');

    jobs(&x, p, jidx, nj);
    items(&x, p, "volumes", "Volume");
    items(&x, p, "storageClasses", "StorageClass");
    items(&x, p, "configMaps", "ConfigMap");
    cronjobs(&x, p);
    conflicts(&x, p, jidx, nj);
    open_(&x, "errors", '[');
    for (size_t i = 0; i < p->nerrors; i++) {
        open_(&x, NULL, '{');
        str(&x, "object", p->errors[i].object);
        str(&x, "source", p->errors[i].source);
        str(&x, "message", p->errors[i].message);
        close_(&x, '}');
    }
    close_(&x, ']');
    close_(&x, '}');
    put(&x, "\n", 1);
    flush(&x);
    free(jidx);
    if (x.read_failed)
        return x.rc;
    if (x.rc == CW_ENOMEM)
        return cw_error_oom(err);
    if (x.rc != CW_OK)
        return cw_error_set(err, x.rc, "writing the JSON report: %s",
                            x.rc == CW_EIO ? strerror(x.errno_) : "nested too deep");
    return CW_OK;
}
