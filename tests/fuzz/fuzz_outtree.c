/* migrate/outsafe: the offline output tree over a tree of arbitrary file names. The input is a
 * list of names (one per line, the first byte choosing input directory a or b, the second whether
 * the output directory is new, an empty one, or inside input a); the files are made, expanded as
 * `migrate --from-file a --from-file b` does, planned into the output, written and committed.
 * Invariants, besides no crash, leak or UB:
 *   - a refusal carries a message and leaves no output directory and no stage;
 *   - every staged path lies in the stage and every final path in the output directory, none of
 *     them with a `..` step, none resolving to an input file;
 *   - after the commit every final path exists, and every input file is still there with its
 *     content; nothing appears in the scratch root but a, b and the output. */
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "kube/manifest.h"
#include "migrate/outsafe.h"
#include "migrate/write.h"

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void make_file(const char *root, const char *name)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/%s", root, name) >= (int)sizeof(path))
        return;
    for (char *s = path + strlen(root) + 1; *s; s++) { /* parents, inside root only */
        if (*s != '/')
            continue;
        *s = '\0';
        if (strstr(path + strlen(root), "/..") || mkdir(path, 0755) != 0) {
            struct stat st;
            if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
                *s = '/';
                return;
            }
        }
        *s = '/';
    }
    if (strstr(name, ".."))
        return;
    FILE *f = fopen(path, "wx");
    if (f) {
        fputs(name, f); /* each file holds its own name: checked after the commit */
        fclose(f);
    }
}

static size_t count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static void check_inputs(const cw_strlist *files, const cw_strlist *contents)
{
    for (size_t i = 0; i < files->len; i++) {
        char buf[512] = "";
        FILE *f = fopen(files->items[i], "r");
        FUZZ_CHECK(f != NULL, "input %s is gone", files->items[i]);
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        FUZZ_CHECK(!strcmp(buf, contents->items[i]), "input %s was written over", files->items[i]);
    }
}

static void check_paths(const cw_outtree *t, const char *out)
{
    for (size_t i = 0; i < t->finals.len; i++) {
        FUZZ_CHECK(!strncmp(t->staged.items[i], t->stage, strlen(t->stage)) &&
                       t->staged.items[i][strlen(t->stage)] == '/',
                   "staged %s outside %s", t->staged.items[i], t->stage);
        FUZZ_CHECK(!strncmp(t->finals.items[i], out, strlen(out)) &&
                       t->finals.items[i][strlen(out)] == '/',
                   "final %s outside %s", t->finals.items[i], out);
        FUZZ_CHECK(!strstr(t->finals.items[i], "/../"), "final %s climbs", t->finals.items[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > 4096)
        return 0;
    char root[] = "/tmp/cw-fuzz-out.XXXXXX", a[64], b[64], out[96];
    FUZZ_CHECK(mkdtemp(root) != NULL, "mkdtemp");
    snprintf(a, sizeof(a), "%s/a", root);
    snprintf(b, sizeof(b), "%s/b", root);
    mkdir(a, 0755);
    mkdir(b, 0755);
    int where = data[1] % 3; /* a new directory, an empty one, one inside input a */
    snprintf(out, sizeof(out), where == 2 ? "%s/a/out" : "%s/out", root);
    if (where == 1)
        mkdir(out, 0755);
    char *text = fuzz_dup(data + 2, size - 2), *save = NULL;
    text = realloc(text, size - 1);
    text[size - 2] = '\0';
    size_t made = 0;
    for (char *name = strtok_r(text, "\n", &save); name && made < 16;
         name = strtok_r(NULL, "\n", &save), made++)
        if (*name && *name != '/')
            make_file((data[0] + made) % 2 ? b : a, name);
    free(text);

    cw_strlist args, files, origins, contents;
    cw_strlist_init(&args);
    cw_strlist_init(&files);
    cw_strlist_init(&origins);
    cw_strlist_init(&contents);
    cw_error err;
    cw_error_init(&err);
    FUZZ_CHECK(cw_strlist_add(&args, a) == CW_OK && cw_strlist_add(&args, b) == CW_OK, "oom");
    for (size_t i = 0; i < 2; i++) {
        cw_strlist one, got;
        cw_strlist_init(&one);
        cw_strlist_init(&got);
        FUZZ_CHECK(cw_strlist_add(&one, args.items[i]) == CW_OK, "oom");
        if (cw_load_expand(&one, &got, &err) == CW_OK)
            for (size_t k = 0; k < got.len; k++) {
                char buf[512] = "";
                FILE *f = fopen(got.items[k], "r");
                size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
                if (f)
                    fclose(f);
                buf[n] = '\0';
                FUZZ_CHECK(cw_strlist_add(&files, got.items[k]) == CW_OK &&
                               cw_strlist_add(&origins, args.items[i]) == CW_OK &&
                               cw_strlist_add(&contents, buf) == CW_OK,
                           "oom");
            }
        cw_strlist_free(&one);
        cw_strlist_free(&got);
    }
    cw_inputs inputs;
    FUZZ_CHECK(cw_inputs_init(&inputs, &files, &err) == CW_OK, "%s", err.message);
    struct stat st;
    int existed = stat(out, &st) == 0; /* made empty (where 1) or by the input names */
    cw_outtree t;
    int rc =
        cw_outtree_plan(&t, out, &args, &files, &origins, "recurringjobs.yaml", 0, &inputs, &err);
    if (rc != CW_OK) {
        FUZZ_CHECK(err.message[0], "a refusal without a message");
        cw_outtree_free(&t);
        FUZZ_CHECK(existed || stat(out, &st) != 0, "a refused run made %s", out);
        FUZZ_CHECK(count_entries(root) == 2 + (where == 1), "a refused run left something");
    } else {
        FUZZ_CHECK(where != 2, "an output inside input a was planned");
        check_paths(&t, out);
        for (size_t i = 0; i < files.len; i++)
            FUZZ_CHECK(cw_write_atomic(t.staged.items[i], "out", 3, &err) == CW_OK, "%s",
                       err.message);
        FUZZ_CHECK(cw_outtree_commit(&t, &err) == CW_OK, "commit: %s", err.message);
        for (size_t i = 0; i < files.len; i++)
            FUZZ_CHECK(access(t.finals.items[i], F_OK) == 0, "%s missing", t.finals.items[i]);
        cw_outtree_free(&t);
        FUZZ_CHECK(count_entries(root) == 3, "something beside a, b and the output");
    }
    check_inputs(&files, &contents);
    cw_inputs_free(&inputs);
    cw_strlist_free(&args);
    cw_strlist_free(&files);
    cw_strlist_free(&origins);
    cw_strlist_free(&contents);
    nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}
