#include "migrate/outsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/strmap.h"
#include "migrate/write.h"

int cw_inputs_init(cw_inputs *in, const cw_strlist *files, cw_error *err)
{
    memset(in, 0, sizeof(*in));
    in->dev = calloc(files->len + 1, sizeof(*in->dev));
    in->ino = calloc(files->len + 1, sizeof(*in->ino));
    in->path = calloc(files->len + 1, sizeof(*in->path));
    if (!in->dev || !in->ino || !in->path) {
        cw_inputs_free(in);
        return cw_error_oom(err);
    }
    for (size_t i = 0; i < files->len; i++) {
        struct stat st;
        if (!strcmp(files->items[i], "-") || stat(files->items[i], &st) != 0)
            continue;
        in->dev[in->len] = st.st_dev;
        in->ino[in->len] = st.st_ino;
        in->path[in->len++] = files->items[i];
    }
    return CW_OK;
}

void cw_inputs_free(cw_inputs *in)
{
    free(in->dev);
    free(in->ino);
    free(in->path);
    memset(in, 0, sizeof(*in));
}

const char *cw_inputs_find(const cw_inputs *in, const char *path)
{
    struct stat st;
    if (!in || stat(path, &st) != 0)
        return NULL;
    for (size_t i = 0; i < in->len; i++)
        if (in->dev[i] == st.st_dev && in->ino[i] == st.st_ino)
            return in->path[i];
    return NULL;
}

/* ---- the output tree ---- */

static int is_empty_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int empty = 1;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            empty = 0;
    if (d)
        closedir(d);
    return empty;
}

/* The real path dir will have: realpath of dir, or of its parent plus its last name. */
static int future_realpath(const char *dir, char *out, cw_error *err)
{
    char parent[PATH_MAX], base[PATH_MAX], real[PATH_MAX];
    if (realpath(dir, out))
        return CW_OK;
    snprintf(parent, sizeof(parent), "%s", dir);
    snprintf(base, sizeof(base), "%s", dir);
    if (!realpath(dirname(parent), real))
        return cw_error_set(err, CW_EUSAGE,
                            "--output-dir %s: its parent directory does not exist (%s)", dir,
                            strerror(errno));
    int n = snprintf(out, PATH_MAX, "%s/%s", real, basename(base));
    return n > 0 && n < PATH_MAX
               ? CW_OK
               : cw_error_set(err, CW_EUSAGE, "--output-dir %s: path too long", dir);
}

/* An output directory inside a directory that is read would read itself next time. */
static int inside_input(const char *dir, const cw_strlist *origins, cw_error *err)
{
    char out[PATH_MAX], in[PATH_MAX];
    int rc = future_realpath(dir, out, err);
    for (size_t i = 0; rc == CW_OK && i < origins->len; i++) {
        struct stat st;
        if (stat(origins->items[i], &st) != 0 || !S_ISDIR(st.st_mode) ||
            !realpath(origins->items[i], in))
            continue;
        size_t n = strlen(in);
        if (!strncmp(out, in, n) && (out[n] == '\0' || out[n] == '/' || n == 1))
            rc = cw_error_set(err, CW_EUSAGE,
                              "--output-dir %s is inside the input directory %s; choose a "
                              "directory outside it",
                              dir, origins->items[i]);
    }
    return rc;
}

static int target_dir(cw_outtree *t, const char *dir, int overwrite, cw_error *err)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return cw_error_set(err, CW_EUSAGE, "--output-dir %s exists and is not a directory",
                                dir);
        if (!overwrite && !is_empty_dir(dir))
            return cw_error_set(err, CW_EUSAGE,
                                "--output-dir %s is not empty; pass --overwrite to write into it "
                                "(files the run does not produce are left alone)",
                                dir);
        t->dir_existed = 1;
    }
    return CW_OK;
}

static int make_stage(cw_outtree *t, cw_error *err)
{
    char copy[PATH_MAX], base[PATH_MAX], tmpl[PATH_MAX + 64];
    snprintf(copy, sizeof(copy), "%s", t->dir);
    snprintf(base, sizeof(base), "%s", t->dir);
    snprintf(tmpl, sizeof(tmpl), "%s/.%s.cronwarden-XXXXXX", dirname(copy), basename(base));
    if (!mkdtemp(tmpl))
        return cw_error_set(err, CW_EIO, "%s: %s", tmpl, strerror(errno));
    return (t->stage = strdup(tmpl)) ? CW_OK : cw_error_oom(err);
}

/* Index of the input whose output is `final`, or -1. */
static long owner_of(const cw_outtree *t, const char *final)
{
    for (size_t i = 0; i < t->finals.len; i++)
        if (!strcmp(t->finals.items[i], final))
            return (long)i;
    return -1;
}

static int add_output(cw_outtree *t, const char *origin, const char *file, const cw_strlist *files,
                      const cw_inputs *inputs, cw_error *err)
{
    cw_buf final, staged;
    cw_buf_init(&final);
    cw_buf_init(&staged);
    int rc = cw_write_output_path(t->dir, origin, file, &final);
    if (rc == CW_OK)
        rc = cw_write_output_path(t->stage, origin, file, &staged);
    if (rc != CW_OK) {
        rc = cw_error_oom(err);
    } else if (owner_of(t, final.data) >= 0) {
        rc = cw_error_set(err, CW_EUSAGE,
                          "the inputs %s and %s would both be written to %s; migrate them in "
                          "separate runs or from different directories",
                          files->items[owner_of(t, final.data)], file, final.data);
    } else if (cw_inputs_find(inputs, final.data)) {
        rc = cw_error_set(err, CW_EUSAGE,
                          "%s would overwrite the input file %s; choose another --output-dir",
                          final.data, cw_inputs_find(inputs, final.data));
    } else if (cw_strlist_add(&t->finals, final.data) != CW_OK ||
               cw_strlist_add(&t->staged, staged.data) != CW_OK) {
        rc = cw_error_oom(err);
    }
    cw_buf_free(&final);
    cw_buf_free(&staged);
    return rc;
}

/* Two outputs where one is a directory on the other's path ("x.yaml" and "x.yaml/y.yaml", from
 * two inputs) cannot both be written: refused before anything is. */
static int file_and_directory(const cw_outtree *t, const cw_strlist *files, cw_error *err)
{
    cw_strmap finals;
    cw_strmap_init(&finals);
    int rc = CW_OK;
    for (size_t i = 0; rc == CW_OK && i < files->len; i++)
        if (cw_strmap_put(&finals, t->finals.items[i], strlen(t->finals.items[i]),
                          (void *)(uintptr_t)(i + 1), NULL) < 0)
            rc = cw_error_oom(err);
    for (size_t i = 0; rc == CW_OK && i < files->len; i++) {
        const char *f = t->finals.items[i];
        for (const char *slash = strchr(f + strlen(t->dir) + 1, '/'); slash && rc == CW_OK;
             slash = strchr(slash + 1, '/')) {
            void *other = NULL;
            if (cw_strmap_get(&finals, f, (size_t)(slash - f), &other))
                rc = cw_error_set(err, CW_EUSAGE,
                                  "the inputs %s and %s would need %.*s as a file and as a "
                                  "directory; migrate them in separate runs",
                                  files->items[(uintptr_t)other - 1], files->items[i],
                                  (int)(slash - f), f);
        }
    }
    cw_strmap_free(&finals, NULL);
    return rc;
}

int cw_outtree_plan(cw_outtree *t, const char *dir, const cw_strlist *roots,
                    const cw_strlist *files, const cw_strlist *origins, const char *extra,
                    int overwrite, const cw_inputs *inputs, cw_error *err)
{
    memset(t, 0, sizeof(*t));
    t->extra_owner = -1;
    cw_strlist_init(&t->finals);
    cw_strlist_init(&t->staged);
    if (!(t->dir = strdup(dir)))
        return cw_error_oom(err);
    int rc = target_dir(t, dir, overwrite, err);
    if (rc == CW_OK)
        rc = inside_input(dir, roots, err);
    if (rc == CW_OK)
        rc = make_stage(t, err);
    for (size_t i = 0; rc == CW_OK && i < files->len; i++)
        rc = add_output(t, origins->items[i], files->items[i], files, inputs, err);
    if (rc == CW_OK)
        rc = file_and_directory(t, files, err);
    if (rc == CW_OK && extra) {
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", dir, extra);
        if ((t->extra_owner = owner_of(t, path)) >= 0)
            return CW_OK; /* an input lands there: refused only if the run has jobs to write */
        snprintf(path, sizeof(path), "%s/%s", t->stage, extra);
        char final[PATH_MAX];
        snprintf(final, sizeof(final), "%s/%s", dir, extra);
        if (cw_inputs_find(inputs, final))
            return cw_error_set(err, CW_EUSAGE, "%s would overwrite the input file %s", final,
                                cw_inputs_find(inputs, final));
        if (cw_strlist_add(&t->finals, final) != CW_OK || cw_strlist_add(&t->staged, path) != CW_OK)
            return cw_error_oom(err);
    }
    return rc;
}

static int mkdirs_for(const char *file, cw_error *err)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof(tmp), "%s", file);
    for (char *s = tmp + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return cw_error_set(err, CW_EIO, "%s: %s", tmp, strerror(errno));
        *s = '/';
    }
    return CW_OK;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int cw_outtree_commit(cw_outtree *t, cw_error *err)
{
    if (!t->dir_existed || is_empty_dir(t->dir)) {
        if (t->dir_existed)
            rmdir(t->dir); /* an empty directory: replaced by the stage as a whole */
        if (rename(t->stage, t->dir) != 0)
            return cw_error_set(err, CW_EIO, "%s: %s", t->dir, strerror(errno));
        free(t->stage);
        t->stage = NULL;
        return CW_OK;
    }
    for (size_t i = 0; i < t->staged.len; i++) {
        struct stat st;
        if (lstat(t->staged.items[i], &st) != 0)
            continue; /* not produced by this run */
        int rc = mkdirs_for(t->finals.items[i], err);
        if (rc != CW_OK)
            return rc;
        if (rename(t->staged.items[i], t->finals.items[i]) != 0)
            return cw_error_set(err, CW_EIO, "%s: %s", t->finals.items[i], strerror(errno));
    }
    return CW_OK;
}

void cw_outtree_free(cw_outtree *t)
{
    if (t->stage)
        nftw(t->stage, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(t->stage);
    free(t->dir);
    cw_strlist_free(&t->finals);
    cw_strlist_free(&t->staged);
    memset(t, 0, sizeof(*t));
}

/* ---- the report ---- */

int cw_report_path_check(const char *path, const cw_inputs *inputs, cw_error *err)
{
    const char *input = cw_inputs_find(inputs, path);
    if (input)
        return cw_error_set(err, CW_EUSAGE,
                            "--report %s is the input file %s; name a file that is not read", path,
                            input);
    struct stat st;
    if (stat(path, &st) == 0)
        return S_ISDIR(st.st_mode)
                   ? cw_error_set(err, CW_EUSAGE, "--report %s is a directory", path)
                   : CW_OK;
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", path);
    if (stat(dirname(dir), &st) != 0 || !S_ISDIR(st.st_mode))
        return cw_error_set(err, CW_EUSAGE,
                            "--report %s: the directory %s does not exist; create it first", path,
                            dir);
    return CW_OK;
}

int cw_report_file_open(cw_report_file *rf, const char *path, const cw_inputs *inputs,
                        cw_error *err)
{
    memset(rf, 0, sizeof(*rf));
    int rc = cw_report_path_check(path, inputs, err);
    if (rc != CW_OK)
        return rc;
    struct stat st;
    int fd;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* a device, a FIFO, /dev/stdout */
        snprintf(rf->path, sizeof(rf->path), "%s", path);
        fd = open(path, O_WRONLY | O_CLOEXEC);
    } else {
        /* A symlink to a regular file: the file it names is replaced, the link stays. */
        char real[PATH_MAX];
        snprintf(rf->path, sizeof(rf->path), "%s", realpath(path, real) ? real : path);
        snprintf(rf->tmp, sizeof(rf->tmp), "%s.cronwarden-XXXXXX", rf->path);
        fd = mkstemp(rf->tmp);
        if (fd < 0)
            rf->tmp[0] = '\0';
    }
    if (fd < 0)
        return cw_error_set(err, CW_EIO, "--report %s: %s", path, strerror(errno));
    if (!(rf->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        cw_report_file_abort(rf);
        return cw_error_set(err, CW_EIO, "--report %s: %s", path, strerror(e));
    }
    return CW_OK;
}

int cw_report_file_commit(cw_report_file *rf, cw_error *err)
{
    int rc = CW_OK;
    if (fflush(rf->f) != 0 || ferror(rf->f) ||
        (rf->tmp[0] && (fchmod(fileno(rf->f), 0644) != 0 || fsync(fileno(rf->f)) != 0)))
        rc = cw_error_set(err, CW_EIO, "--report %s: %s", rf->path, strerror(errno));
    if (fclose(rf->f) != 0 && rc == CW_OK)
        rc = cw_error_set(err, CW_EIO, "--report %s: %s", rf->path, strerror(errno));
    rf->f = NULL;
    if (rc == CW_OK && rf->tmp[0] && rename(rf->tmp, rf->path) != 0)
        rc = cw_error_set(err, CW_EIO, "--report %s: %s", rf->path, strerror(errno));
    if (rc != CW_OK && rf->tmp[0])
        unlink(rf->tmp);
    rf->tmp[0] = '\0';
    return rc;
}

void cw_report_file_abort(cw_report_file *rf)
{
    if (rf->f)
        fclose(rf->f);
    rf->f = NULL;
    if (rf->tmp[0])
        unlink(rf->tmp);
    rf->tmp[0] = '\0';
}
