/* Reports of a plan and its results: the JSON schema in docs/report.md (also rendered as YAML)
 * and a terminal-friendly text form. Everything is sorted, so one input gives one report. */
#ifndef CW_REPORT_H
#define CW_REPORT_H

#include <json-c/json.h>
#include <stdio.h>

#include "lib/buf.h"
#include "migrate/plan.h"

typedef struct cw_report_info {
    const char *mode;       /* "offline" or "online" */
    const char *dry_run;    /* online: "none", "client", "server"; offline: NULL */
    const char *output_dir; /* offline: where manifests were written, or NULL (audit) */
    size_t files;           /* offline: input files read */
} cw_report_info;

typedef struct cw_report_counts {
    size_t scanned, to_change, done, unchanged, invalid, conflicting, failed, skipped;
} cw_report_counts;

typedef struct cw_report_summary {
    cw_report_counts volumes, storage_classes, config_maps;
    size_t jobs_create, jobs_created, jobs_existing, jobs_conflicting, jobs_invalid, jobs_unused,
        jobs_failed;
    size_t cron_delete, cron_deleted, cron_kept, cron_failed;
    size_t errors;       /* plan errors + failed results */
    int changes_pending; /* something to do that is not done yet */
    int problems;        /* errors, invalid objects or conflicts: exit 1 */
} cw_report_summary;

void cw_report_summarize(const cw_plan *p, cw_report_summary *s);
/* 0 success; 1 errors, invalid objects or conflicts; 3 with `detailed` when changes are pending. */
int cw_report_exit_code(const cw_report_summary *s, int detailed);

int cw_report_json(const cw_plan *p, const cw_report_info *info, json_object **out,
                   cw_error *err) CW_MUST_CHECK;
/* The same report as JSON text (json-c's pretty, spaced, no-slash-escape rendering of
 * cw_report_json, byte for byte, and a final newline) without building the tree: appended to b,
 * which is flushed to out every 64 KiB when out is not NULL (then b holds nothing at the end). */
int cw_report_json_write(const cw_plan *p, const cw_report_info *info, cw_buf *b, FILE *out,
                         cw_error *err) CW_MUST_CHECK;
/* Summary table plus one line per action. A failed read of the plan's item file stops it with
 * that error (what was printed so far stays printed). */
int cw_report_text(const cw_plan *p, const cw_report_info *info, FILE *out,
                   cw_error *err) CW_MUST_CHECK;

#endif
