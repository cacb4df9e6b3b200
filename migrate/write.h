/* Offline output: migrated manifests mirroring the input tree, plus recurringjobs.yaml with the
 * RecurringJobs to create. Unchanged documents and List items are copied byte for byte; changed
 * ones are re-serialised; legacy CronJobs the plan deletes are left out. Files are written to a
 * temporary name, synced and renamed, so a crash never leaves a half-written manifest. */
#ifndef CW_WRITE_H
#define CW_WRITE_H

#include "lib/buf.h"
#include "migrate/plan.h"

/* Rewrites the text of one input file into `out`; *changed counts rewritten or dropped objects. */
int cw_write_transform(const cw_plan *p, const char *path, const char *data, size_t len,
                       cw_buf *out, size_t *changed, cw_error *err) CW_MUST_CHECK;

/* The RecurringJobs the plan creates, as a multi-document YAML stream (sorted by name). */
int cw_write_recurringjobs(const cw_plan *p, cw_buf *out, size_t *count,
                           cw_error *err) CW_MUST_CHECK;

/* Writes data to path atomically (temporary file, fsync, rename), creating parent directories. */
int cw_write_atomic(const char *path, const char *data, size_t len, cw_error *err) CW_MUST_CHECK;

/* Output path for input file `file` that came from command-line path `arg` (a file or a
 * directory): OUT/<path relative to arg> for directories, OUT/<basename> for files. */
int cw_write_output_path(const char *outdir, const char *arg, const char *file, cw_buf *out);

#endif
