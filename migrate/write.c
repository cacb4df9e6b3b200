#include "migrate/write.h"
#include "lib/json.h"
#include "lib/jsonscan.h"
#include "lib/yaml.h"
#include "kube/manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the plan says about one object: keep, replace (with *out), or drop. */
typedef enum { KEEP, REPLACE, DROP } fate;

static int object_fate(const cw_plan *p, json_object *obj, fate *f, cw_error *err)
{
    *f = KEEP;
    const char *kind = cw_json_path_string(obj, "kind");
    const char *av = cw_json_path_string(obj, "apiVersion");
    if (kind && av && strcmp(kind, "CronJob") == 0 && strncmp(av, "batch/", 6) == 0) {
        const char *ns = cw_json_path_string(obj, "metadata.namespace");
        const char *name = cw_json_path_string(obj, "metadata.name");
        for (size_t i = 0; name && i < p->ncronjobs; i++) {
            const cw_plan_cronjob *c = &p->cronjobs[i];
            if (strcmp(c->name, name) == 0 && strcmp(c->namespace, ns ? ns : "") == 0 &&
                c->action == CW_ACT_DELETE)
                *f = DROP;
        }
        return CW_OK;
    }
    cw_plan_item it;
    int rc = cw_plan_decide(p, obj, &it, err);
    if (rc == CW_OK && it.action == CW_ACT_MIGRATE) {
        rc = cw_plan_apply_item(&it, obj, err);
        *f = REPLACE;
    }
    cw_plan_item_free(&it);
    return rc;
}

static int json_text(json_object *o, cw_buf *out)
{
    const char *s = json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    return s ? cw_buf_puts(out, s) : CW_ENOMEM;
}

typedef struct {
    const cw_plan *p;
    cw_jsonscan *scan;
    const char *data;
    cw_buf *out;
    size_t *changed;
    size_t prev_end; /* end of the previous item, or the '[' + 1 */
    int kept;        /* items written so far */
} list_ctx;

static int on_list_item(list_ctx *c, size_t index, cw_error *err)
{
    json_object *obj = NULL;
    fate f = KEEP;
    size_t start = c->scan->spans[index].start, end = c->scan->spans[index].end;
    int rc = cw_jsonscan_parse(c->scan, c->data, index, &obj, err);
    if (rc == CW_OK && obj)
        rc = object_fate(c->p, obj, &f, err);
    if (rc != CW_OK)
        goto done;
    /* The separator before this item: the original text, minus a leading comma when it is now
     * the first item written. */
    const char *sep = c->data + c->prev_end;
    size_t seplen = start - c->prev_end;
    if (index > 0 && c->kept == 0) {
        const char *comma = memchr(sep, ',', seplen);
        if (comma) {
            seplen -= (size_t)(comma + 1 - sep);
            sep = comma + 1;
        }
    } else if (index > 0 && c->kept > 0 && !memchr(sep, ',', seplen)) {
        sep = ",";
        seplen = 1;
    }
    c->prev_end = end;
    if (f == DROP) {
        (*c->changed)++;
        goto done;
    }
    rc = cw_buf_append(c->out, sep, seplen);
    if (rc == CW_OK)
        rc = f == REPLACE ? json_text(obj, c->out)
                          : cw_buf_append(c->out, c->data + start, end - start);
    if (f == REPLACE)
        (*c->changed)++;
    c->kept++;
done:
    json_object_put(obj);
    return rc;
}

static int transform_json(const cw_plan *p, const char *data, size_t len, cw_buf *out,
                          size_t *changed, cw_error *err)
{
    cw_jsonscan scan;
    cw_jsonscan_init(&scan);
    json_object *doc = NULL;
    int rc = cw_jsonscan_open(&scan, data, len, err);
    if (rc != CW_OK)
        goto done;
    if (scan.is_list && (!scan.envelope || cw_load_is_list(scan.envelope))) {
        list_ctx c = {p, &scan, data, out, changed, scan.items_start + 1, 0};
        if ((rc = cw_buf_append(out, data, scan.items_start + 1)) != CW_OK)
            goto done;
        for (size_t i = 0; i < scan.nspans; i++)
            if ((rc = on_list_item(&c, i, err)) != CW_OK)
                goto done;
        rc = cw_buf_append(out, data + c.prev_end, len - c.prev_end);
        goto done;
    }
    if ((rc = cw_json_parse_span(data, 0, len, &doc, err)) != CW_OK)
        goto done;
    fate f = KEEP;
    if (json_object_is_type(doc, json_type_object) && (rc = object_fate(p, doc, &f, err)) != CW_OK)
        goto done;
    if (f == KEEP) {
        rc = cw_buf_append(out, data, len);
    } else if (f == REPLACE) {
        (*changed)++;
        rc = json_text(doc, out);
        if (rc == CW_OK)
            rc = cw_buf_putc(out, '\n');
    } else {
        (*changed)++; /* a file holding only a deleted CronJob becomes empty */
    }
done:
    json_object_put(doc);
    cw_jsonscan_free(&scan);
    return rc;
}

/* A YAML List document: transforms its items; *f says whether the document changed. */
static int transform_yaml_list(const cw_plan *p, json_object *doc, fate *f, size_t *changed,
                               cw_error *err)
{
    json_object *items = cw_json_member(doc, "items");
    json_object *kept = json_object_new_array();
    int rc = CW_OK;
    *f = KEEP;
    if (!kept)
        return cw_error_oom(err);
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        json_object *it = json_object_array_get_idx(items, i);
        fate g = KEEP;
        if (json_object_is_type(it, json_type_object) &&
            (rc = object_fate(p, it, &g, err)) != CW_OK)
            goto done;
        if (g != KEEP) {
            *f = REPLACE;
            (*changed)++;
        }
        if (g != DROP)
            json_object_array_add(kept, json_object_get(it));
    }
    if (*f == REPLACE) {
        json_object_object_add(doc, "items", kept);
        kept = NULL;
    }
done:
    json_object_put(kept);
    return rc;
}

/* The line starting at s[i]: returns where it ends (at its line break or n) and sets *k to its
 * first character that is not a blank. YAML breaks lines at CR too. */
static size_t line_at(const char *s, size_t n, size_t i, size_t *k)
{
    size_t e = i;
    while (e < n && s[e] != '\n' && s[e] != '\r')
        e++;
    *k = i;
    while (*k < e && (s[*k] == ' ' || s[*k] == '\t'))
        (*k)++;
    return e;
}

static int starts_explicit(const char *s, size_t n)
{
    /* Skips comment and blank lines; true when the first content line is "---", or a directive
     * ("%YAML", "%TAG"), which YAML only allows before a "---". */
    for (size_t i = 0, k; i < n;) {
        size_t e = line_at(s, n, i, &k);
        if (k < e && s[k] != '#')
            return (k == i && s[k] == '%') || (e - k >= 3 && strncmp(s + k, "---", 3) == 0);
        i = e + 1;
    }
    return 0;
}

/* Length of the leading comment and blank lines (and a "---" line) of a document span. */
static size_t leading_comments(const char *s, size_t n)
{
    for (size_t i = 0, k; i < n;) {
        size_t e = line_at(s, n, i, &k);
        int marker = e - k == 3 && strncmp(s + k, "---", 3) == 0;
        if (k < e && s[k] != '#' && !marker)
            return i;
        i = e < n ? e + 1 : n;
    }
    return n;
}

static int transform_yaml(const cw_plan *p, const char *data, size_t len, cw_buf *out,
                          size_t *changed, cw_error *err)
{
    cw_yaml_docs docs;
    cw_yaml_docs_init(&docs);
    int rc = cw_yaml_parse(data, len, NULL, &docs, err);
    size_t written = 0;
    for (size_t i = 0; rc == CW_OK && i < docs.len; i++) {
        cw_yaml_doc *d = &docs.items[i];
        fate f = KEEP;
        if (json_object_is_type(d->value, json_type_object))
            rc = cw_load_is_list(d->value) ? transform_yaml_list(p, d->value, &f, changed, err)
                                           : object_fate(p, d->value, &f, err);
        if (rc != CW_OK)
            break;
        if (f != KEEP && !cw_load_is_list(d->value))
            (*changed)++;
        if (f == DROP)
            continue;
        if (out->len && out->data[out->len - 1] != '\n')
            rc = cw_buf_putc(out, '\n');
        const char *span = data + d->start;
        size_t slen = d->end - d->start;
        if (f == KEEP) {
            if (written > 0 && !starts_explicit(span, slen))
                rc = cw_buf_puts(out, "---\n");
            if (rc == CW_OK)
                rc = cw_buf_append(out, span, slen);
        } else {
            /* Keep the comments that lead the document; re-emit the rest. */
            size_t lead = leading_comments(span, slen);
            if ((written > 0 || d->explicit_start) && !starts_explicit(span, lead))
                rc = cw_buf_puts(out, "---\n");
            if (rc == CW_OK)
                rc = cw_buf_append(out, span, lead);
            if (rc == CW_OK)
                rc = cw_yaml_emit(d->value, out, err);
        }
        written++;
    }
    cw_yaml_docs_free(&docs);
    return rc;
}

int cw_write_transform(const cw_plan *p, const char *path, const char *data, size_t len,
                       cw_buf *out, size_t *changed, cw_error *err)
{
    int rc = cw_load_detect(data, len) == CW_LOAD_JSON
                 ? transform_json(p, data, len, out, changed, err)
                 : transform_yaml(p, data, len, out, changed, err);
    if (rc != CW_OK && rc != CW_ENOMEM)
        cw_error_prefix(err, "%s", path);
    return rc;
}

int cw_write_recurringjobs(const cw_plan *p, cw_buf *out, size_t *count, cw_error *err)
{
    size_t n;
    size_t *idx = cw_plan_sorted_jobs(p, &n);
    int rc = idx ? CW_OK : cw_error_oom(err);
    *count = 0;
    for (size_t k = 0; rc == CW_OK && k < n; k++) {
        if (cw_plan_job_at(p, idx[k])->rj.action != CW_ACT_CREATE)
            continue;
        json_object *o = NULL;
        if ((rc = cw_plan_job_object(p, idx[k], &o, err)) != CW_OK)
            break;
        rc = cw_buf_puts(out, "---\n");
        if (rc == CW_OK)
            rc = cw_yaml_emit(o, out, err);
        json_object_put(o);
        (*count)++;
    }
    free(idx);
    return rc;
}

static int mkdirs(const char *dir, cw_error *err)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s", dir);
    for (char *s = tmp + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return cw_error_set(err, CW_EIO, "%s: %s", tmp, strerror(errno));
        *s = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        return cw_error_set(err, CW_EIO, "%s: %s", tmp, strerror(errno));
    return CW_OK;
}

int cw_write_atomic(const char *path, const char *data, size_t len, cw_error *err)
{
    char dir[4096], tmp[4200];
    snprintf(dir, sizeof(dir), "%s", path);
    int rc = mkdirs(dirname(dir), err);
    if (rc != CW_OK)
        return rc;
    snprintf(tmp, sizeof(tmp), "%s.cronwarden-XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return cw_error_set(err, CW_EIO, "%s: %s", tmp, strerror(errno));
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            rc = cw_error_set(err, CW_EIO, "%s: %s", path, strerror(errno));
            goto fail;
        }
        off += (size_t)w;
    }
    if (fchmod(fd, 0644) != 0 || fsync(fd) != 0) {
        rc = cw_error_set(err, CW_EIO, "%s: %s", path, strerror(errno));
        goto fail;
    }
    close(fd);
    if (rename(tmp, path) != 0) {
        rc = cw_error_set(err, CW_EIO, "%s: %s", path, strerror(errno));
        unlink(tmp);
        return rc;
    }
    return CW_OK;
fail:
    close(fd);
    unlink(tmp);
    return rc;
}

int cw_write_output_path(const char *outdir, const char *arg, const char *file, cw_buf *out)
{
    struct stat st;
    if (strcmp(file, "-") == 0)
        return cw_buf_printf(out, "%s/stdin.yaml", outdir);
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
        size_t n = strlen(arg);
        while (n > 1 && arg[n - 1] == '/')
            n--;
        const char *rel = file + n;
        while (*rel == '/')
            rel++;
        return cw_buf_printf(out, "%s/%s", outdir, rel);
    }
    const char *base = strrchr(file, '/');
    return cw_buf_printf(out, "%s/%s", outdir, base ? base + 1 : file);
}
