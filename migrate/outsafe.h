/* What offline migrate may write, and how, so that nothing the user gave is ever destroyed
 * (docs/migrate.md, "What is never written over"):
 *   - nothing written resolves (after symlinks, `..` and hard links: device + inode) to a file
 *     that was read;
 *   - the output directory is not inside an input tree, and is new or empty unless --overwrite
 *     (which still touches only the files the run produces);
 *   - two inputs that would land on the same output file are refused before anything is written,
 *     naming both;
 *   - the tree is written into a temporary directory beside the target and moved into place at
 *     the end, so a run that fails leaves no partial output;
 *   - the report: a regular file (or a symlink to one) is replaced atomically (a temporary file
 *     beside it, renamed); a character device, a FIFO or a symlink to one (`/dev/stdout`) is
 *     opened and written in place; a missing parent directory is an error. */
#ifndef CW_OUTSAFE_H
#define CW_OUTSAFE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "lib/error.h"
#include "lib/strlist.h"

/* The identities (device, inode) of every file read. */
typedef struct cw_inputs {
    dev_t *dev;
    ino_t *ino;
    const char **path; /* borrowed */
    size_t len;
} cw_inputs;

int cw_inputs_init(cw_inputs *in, const cw_strlist *files, cw_error *err) CW_MUST_CHECK;
void cw_inputs_free(cw_inputs *in);
/* The input file that `path` resolves to (the file there, following symlinks), or NULL. */
const char *cw_inputs_find(const cw_inputs *in, const char *path);

/* The output tree: final paths, and where each is written first. */
typedef struct cw_outtree {
    char *dir;         /* the target directory, as given */
    char *stage;       /* the temporary directory beside it */
    cw_strlist finals; /* per input file (then recurringjobs.yaml): the final path */
    cw_strlist staged; /* the same under stage */
    int dir_existed;
    long extra_owner; /* the input whose output is the extra file's path, or -1 */
} cw_outtree;

/* Decides every output path for `files` (each from command-line argument origins[i]; roots are
 * all the arguments, which the output directory must not be inside) plus
 * `extra` (e.g. "recurringjobs.yaml", NULL for none; when an input's output lands on it,
 * extra_owner says which, and the extra file is not planned) and checks the rules above; creates
 * the stage directory. CW_EUSAGE with a message naming the paths for a refusal. */
int cw_outtree_plan(cw_outtree *t, const char *dir, const cw_strlist *roots,
                    const cw_strlist *files, const cw_strlist *origins, const char *extra,
                    int overwrite, const cw_inputs *inputs, cw_error *err) CW_MUST_CHECK;
/* Moves the staged files into place (the whole stage directory, when the target did not exist)
 * and removes the stage. */
int cw_outtree_commit(cw_outtree *t, cw_error *err) CW_MUST_CHECK;
/* Removes the stage and what is in it (a failed run); frees t. Safe after commit. */
void cw_outtree_free(cw_outtree *t);

/* Checks the --report path before anything runs: not an input, its directory exists. */
int cw_report_path_check(const char *path, const cw_inputs *inputs, cw_error *err) CW_MUST_CHECK;
/* --report written as it is produced: a regular file (new, or replaced; through a symlink the file
 * it names) goes to a temporary file beside it that cw_report_file_commit renames into place, so a
 * failed run leaves the old report whole; a device or FIFO (/dev/stdout) is written in place. */
typedef struct cw_report_file {
    FILE *f;
    char path[PATH_MAX];
    char tmp[PATH_MAX + 32]; /* "" when written in place */
} cw_report_file;
int cw_report_file_open(cw_report_file *rf, const char *path, const cw_inputs *inputs,
                        cw_error *err) CW_MUST_CHECK;
/* Flushes, syncs and renames into place; closes in any case. */
int cw_report_file_commit(cw_report_file *rf, cw_error *err) CW_MUST_CHECK;
/* Closes and removes the temporary file (nothing when already committed). */
void cw_report_file_abort(cw_report_file *rf);

#endif
