#include "kube/manifest.h"
#include "lib/log.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/jsonscan.h"
#include "lib/yaml.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int has_manifest_ext(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot &&
           (strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0 || strcmp(dot, ".json") == 0);
}

static int walk(const char *dir, cw_strlist *files, int depth, cw_error *err)
{
    int rc = CW_OK;
    cw_strlist names;
    cw_strlist_init(&names);
    DIR *d = NULL;
    if (depth > 64)
        return cw_error_set(err, CW_ELIMIT, "%s: directories nested too deeply", dir);
    d = opendir(dir);
    if (!d)
        return cw_error_set(err, CW_EIO, "%s: %s", dir, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if ((rc = cw_strlist_add(&names, e->d_name)) != CW_OK) {
            rc = cw_error_oom(err);
            goto done;
        }
    }
    cw_strlist_sort(&names);
    for (size_t i = 0; i < names.len; i++) {
        char path[4096];
        struct stat st, lst;
        int n = snprintf(path, sizeof(path), "%s/%s", dir, names.items[i]);
        if (n < 0 || (size_t)n >= sizeof(path)) {
            cw_log(CW_LOG_INFO, "skipped", CW_LS("path", names.items[i]),
                   CW_LS("why", "the path is longer than 4095 bytes"));
            continue;
        }
        if (stat(path, &st) != 0 || lstat(path, &lst) != 0) {
            cw_log(CW_LOG_INFO, "skipped", CW_LS("path", path),
                   CW_LS("why", "a symlink to nothing"));
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            if (S_ISLNK(lst.st_mode)) {
                cw_log(CW_LOG_INFO, "skipped", CW_LS("path", path),
                       CW_LS("why", "a link to a directory (links can loop)"));
                continue;
            }
            if ((rc = walk(path, files, depth + 1, err)) != CW_OK)
                goto done;
        } else if (S_ISREG(st.st_mode) && has_manifest_ext(names.items[i])) {
            if ((rc = cw_strlist_add(files, path)) != CW_OK) {
                rc = cw_error_oom(err);
                goto done;
            }
        } else {
            cw_log(CW_LOG_INFO, "skipped", CW_LS("path", path),
                   CW_LS("why",
                         S_ISREG(st.st_mode) ? "not .yaml, .yml or .json" : "not a regular file"));
        }
    }
done:
    closedir(d);
    cw_strlist_free(&names);
    return rc;
}

int cw_load_expand(const cw_strlist *paths, cw_strlist *files, cw_error *err)
{
    for (size_t i = 0; i < paths->len; i++) {
        const char *p = paths->items[i];
        struct stat st;
        if (strcmp(p, "-") == 0) {
            if (cw_strlist_add(files, p) != CW_OK)
                return cw_error_oom(err);
            continue;
        }
        if (stat(p, &st) != 0)
            return cw_error_set(err, errno == ENOENT ? CW_ENOTFOUND : CW_EIO, "%s: %s", p,
                                strerror(errno));
        if (S_ISDIR(st.st_mode)) {
            char dir[4096];
            snprintf(dir, sizeof(dir), "%s", p);
            size_t n = strlen(dir);
            while (n > 1 && dir[n - 1] == '/')
                dir[--n] = '\0';
            size_t before = files->len;
            int rc = walk(dir, files, 0, err);
            if (rc != CW_OK)
                return rc;
            if (files->len == before)
                return cw_error_set(err, CW_ENOTFOUND,
                                    "%s: no *.yaml, *.yml or *.json files in this directory", p);
        } else if (cw_strlist_add(files, p) != CW_OK) {
            return cw_error_oom(err);
        }
    }
    return CW_OK;
}

cw_load_format cw_load_detect(const char *data, size_t len)
{
    size_t i = 0;
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
        i++;
    return i < len && (data[i] == '{' || data[i] == '[') ? CW_LOAD_JSON : CW_LOAD_YAML;
}

int cw_load_read(const char *path, char **data, size_t *len, cw_error *err)
{
    if (strcmp(path, "-") != 0)
        return cw_file_read(path, data, len, err);
    cw_buf b;
    cw_buf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
        if (cw_buf_append(&b, chunk, n) != CW_OK) {
            cw_buf_free(&b);
            return cw_error_set(err, CW_ENOMEM, "standard input: out of memory");
        }
    if (ferror(stdin)) {
        cw_buf_free(&b);
        return cw_error_set(err, CW_EIO, "standard input: read failed");
    }
    *len = b.len;
    *data = cw_buf_detach(&b);
    return *data ? CW_OK : cw_error_oom(err);
}

int cw_load_is_list(json_object *doc)
{
    const char *kind = cw_json_path_string(doc, "kind");
    json_object *items = cw_json_member(doc, "items");
    size_t kl = kind ? strlen(kind) : 0;
    return json_object_is_type(items, json_type_array) && kl >= 4 &&
           strcmp(kind + kl - 4, "List") == 0;
}

void cw_load_where(const cw_load_unit *u, char *out, size_t n)
{
    const char *path = strcmp(u->path, "-") == 0 ? "<stdin>" : u->path;
    if (u->item >= 0)
        snprintf(out, n, "%s: document %zu, items[%ld]", path, u->doc, u->item);
    else
        snprintf(out, n, "%s: document %zu", path, u->doc);
}

/* Objects go to fn; anything else (`[1,2,3]`, `42`) is no manifest: said at info level. */
static int deliver(cw_load_fn fn, void *ud, const cw_load_unit *u, cw_error *err)
{
    if (json_object_is_type(u->obj, json_type_object))
        return fn(ud, u, err);
    char where[512];
    cw_load_where(u, where, sizeof(where));
    cw_log(CW_LOG_INFO, "skipped", CW_LS("document", where),
           CW_LS("why", "not an object (a manifest is a mapping)"));
    return CW_OK;
}

static int emit_doc(const char *path, size_t doc, size_t line, json_object *v, cw_load_fn fn,
                    void *ud, cw_error *err)
{
    cw_load_unit u = {v, path, doc, -1, line};
    if (!v)
        return CW_OK;
    if (!cw_load_is_list(v))
        return deliver(fn, ud, &u, err);
    json_object *items = cw_json_member(v, "items");
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        u.obj = json_object_array_get_idx(items, i);
        u.item = (long)i;
        if (!u.obj)
            continue;
        int rc = deliver(fn, ud, &u, err);
        if (rc != CW_OK)
            return rc;
    }
    return CW_OK;
}

/* ---- JSON Lists: one item parsed at a time ---- */

/* A file read through a read-only mapping: the pages below `upto` are given back to the kernel
 * (they are read again from the page cache if touched), a few MiB at a time. */
typedef struct release {
    char *base;
    size_t done;             /* pages below this were given back */
    const char *const *drop; /* the lean reader's: cw_load_file_lean */
} release;

#define RELEASE_STEP ((size_t)4 << 20)

static void release_upto(void *ud, size_t upto)
{
    release *r = ud;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), end = upto / page * page;
    if (!r || end < r->done + RELEASE_STEP)
        return;
    madvise(r->base + r->done, end - r->done, MADV_DONTNEED); /* advice: failure is harmless */
    r->done = end;
}

static int item_unit(const char *path, const char *data, size_t index, size_t start,
                     json_object *obj, size_t *line_off, size_t *line, cw_load_fn fn, void *ud,
                     cw_error *err)
{
    /* Line counting resumes where the previous item left off (linear overall). */
    for (const char *p = data + *line_off, *e = data + start;
         (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
        (*line)++;
    *line_off = start;
    cw_load_unit u = {obj, path, 1, (long)index, *line};
    return obj ? deliver(fn, ud, &u, err) : CW_OK;
}

static int load_items(const char *path, const char *data, cw_jsonscan *scan, release *rel,
                      cw_load_fn fn, void *ud, cw_error *err)
{
    size_t line_off = 0, line = 1;
    if (rel)
        rel->done = 0; /* the scan gave everything back: start again */
    for (size_t i = 0; i < scan->nspans; i++) {
        if (rel)
            release_upto(rel, scan->spans[i].start);
        json_object *obj = NULL;
        int rc = cw_jsonscan_parse(scan, data, i, &obj, err);
        if (rc != CW_OK)
            return cw_error_prefix(err, "%s: items[%zu]", path, i);
        rc = item_unit(path, data, i, scan->spans[i].start, obj, &line_off, &line, fn, ud, err);
        json_object_put(obj);
        if (rc != CW_OK)
            return rc;
    }
    return CW_OK;
}

static int load_json(const char *path, const char *data, size_t len, release *rel, cw_load_fn fn,
                     void *ud, cw_error *err)
{
    cw_jsonscan scan;
    cw_jsonscan_init(&scan);
    json_object *doc = NULL;
    if (rel) {
        scan.release = release_upto;
        scan.release_ud = rel;
        scan.drop = rel->drop;
    }
    int rc = cw_jsonscan_open(&scan, data, len, err);
    if (rc != CW_OK)
        goto fail;
    if (scan.is_list && (!scan.envelope || cw_load_is_list(scan.envelope))) {
        rc = load_items(strcmp(path, "-") == 0 ? "<stdin>" : path, data, &scan, rel, fn, ud, err);
        goto done;
    }
    rc = cw_json_parse_span(data, 0, len, &doc, err);
    if (rc != CW_OK)
        goto fail;
    if (json_object_is_type(doc, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(doc) && rc == CW_OK; i++) {
            cw_load_unit u = {json_object_array_get_idx(doc, i), path, 1, (long)i, 1};
            if (u.obj)
                rc = deliver(fn, ud, &u, err);
        }
    } else {
        rc = emit_doc(path, 1, 1, doc, fn, ud, err);
    }
    goto done;
fail:
    cw_error_prefix(err, "%s", strcmp(path, "-") == 0 ? "<stdin>" : path);
done:
    json_object_put(doc);
    cw_jsonscan_free(&scan);
    return rc;
}

static int load_text(const char *path, const char *data, size_t len, release *rel, cw_load_fn fn,
                     void *ud, cw_error *err)
{
    if (cw_load_detect(data, len) == CW_LOAD_JSON)
        return load_json(path, data, len, rel, fn, ud, err);
    cw_yaml_docs docs;
    cw_yaml_docs_init(&docs);
    int rc = cw_yaml_parse(data, len, NULL, &docs, err);
    if (rc != CW_OK) {
        cw_error_prefix(err, "%s", strcmp(path, "-") == 0 ? "<stdin>" : path);
        goto done;
    }
    for (size_t i = 0; i < docs.len && rc == CW_OK; i++)
        rc = emit_doc(path, i + 1, docs.items[i].line, docs.items[i].value, fn, ud, err);
done:
    cw_yaml_docs_free(&docs);
    return rc;
}

int cw_load_text(const char *path, const char *data, size_t len, cw_load_fn fn, void *ud,
                 cw_error *err)
{
    return load_text(path, data, len, NULL, fn, ud, err);
}

/* The file mapped read-only over a zeroed reservation one byte longer, so data[len] is NUL as
 * cw_file_read leaves it. NULL (nothing mapped) when it cannot be. */
static char *map_file(const char *path, size_t *len, size_t *maplen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    char *base = NULL;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        *len = (size_t)st.st_size;
        *maplen = (*len + 1 + page - 1) / page * page;
        base = mmap(NULL, *maplen, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED)
            base = NULL;
        else if (mmap(base, *len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
            munmap(base, *maplen);
            base = NULL;
        }
    }
    close(fd);
    return base;
}

int cw_load_file_lean(const char *path, const char *const *drop, cw_load_fn fn, void *ud,
                      cw_error *err)
{
    size_t len = 0, maplen = 0;
    char *base = strcmp(path, "-") == 0 ? NULL : map_file(path, &len, &maplen);
    if (!base)
        return cw_load_file(path, fn, ud, err);
    release rel = {base, 0, drop};
    int rc = load_text(path, base, len, &rel, fn, ud, err);
    munmap(base, maplen);
    return rc;
}

int cw_load_file(const char *path, cw_load_fn fn, void *ud, cw_error *err)
{
    char *data = NULL;
    size_t len = 0;
    int rc = cw_load_read(path, &data, &len, err);
    if (rc == CW_OK)
        rc = cw_load_text(path, data, len, fn, ud, err);
    free(data);
    return rc;
}

int cw_load_check_budget(const cw_strlist *files, long long max_bytes, cw_error *err)
{
    long long total = 0;
    for (size_t i = 0; i < files->len; i++) {
        struct stat st;
        if (strcmp(files->items[i], "-") == 0 || stat(files->items[i], &st) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        total += (long long)st.st_size;
        if (total > max_bytes)
            return cw_error_set(err, CW_ELIMIT,
                                "%s: the input reaches %lld bytes here, more than "
                                "--max-input-bytes %lld; raise it to read more",
                                files->items[i], total, max_bytes);
    }
    return CW_OK;
}
