/* Shared between the audit's own files; not for callers. */
#ifndef CW_AUDIT_INTERNAL_H
#define CW_AUDIT_INTERNAL_H

#include "audit/audit.h"

/* One volume-operation batch of a job: n operations start in bin `first` and run through the
 * bins before `last`. */
typedef void (*cw_audit_emit_fn)(void *ud, size_t first, size_t last, size_t n);

/* Fills a job's kind, identity, task and cron (parsing it) in a zeroed slot. */
int cw_audit__set_job(cw_audit *a, cw_audit_job *j, cw_audit_kind kind, const char *ns,
                      const char *name, const char *source, const char *task, const char *cron,
                      cw_error *err) CW_MUST_CHECK;
/* Runs job j over the window with every fire moved `shift` seconds later, calling emit for each
 * batch, and sets its per-job figures. */
void cw_audit__simulate(const cw_audit *a, cw_audit_job *j, int64_t shift, cw_audit_emit_fn emit,
                        void *ud);
/* starts and running (nbins each) for every valid job at its step_phase. CW_ENOMEM. */
int cw_audit__totals(cw_audit *a, uint64_t *starts, uint64_t *running);
/* The findings of a finished run (audit/findings.c). */
int cw_audit__findings(cw_audit *a, cw_error *err) CW_MUST_CHECK;
int cw_audit__add_finding(cw_audit *a, const char *kind, const char *job, int64_t at,
                          const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The window by display-local hours: hour 0 starts at the local hour boundary at or before the
 * window's start (unix seconds in *first); sums of starts and the most running per hour. */
typedef struct cw_audit_hours {
    int64_t first;
    size_t n;
    uint64_t *starts, *running;
} cw_audit_hours;
int cw_audit__hours(const cw_audit *a, cw_audit_hours *h);
void cw_audit__hours_free(cw_audit_hours *h);
/* "2026-11-24T00:00:00Z" in the display offset. */
void cw_audit__time(const cw_audit *a, int64_t t, char *out, size_t len);
/* "90s", "10m", "2h": a duration in its largest whole unit. */
void cw_audit__duration(int64_t seconds, char *out, size_t len);
/* A peak's "label: n" row split into label (out) and n. */
uint64_t cw_audit__split_row(const char *row, char *label, size_t len);

#endif
