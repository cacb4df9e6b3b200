/* RecurringJob names for migrated legacy jobs. Nothing else in cronwarden knows how names are made.
 *
 * Primary form, both schemes: <task>-<retain>-<h(cron)>-<h(labelsJSON)>
 *   retain      decimal (a negative retain keeps its '-', as Longhorn printed it)
 *   labelsJSON  cw_gojson_write of the job's labels: absent or JSON null → "null", {} → "{}"
 *   CW_NAMES_XXH32    ("xxh32", default): h = XXH32 seed 0, 8 lower-case hex digits, zero-padded
 *   CW_NAMES_LONGHORN ("longhorn"): h = 32-bit FNV-1a, lower-case hex without padding (1–8
 *                     digits) — byte-for-byte what the Longhorn 1.2 upgrade produced.
 *
 * Fallback: when the primary form is not a valid RecurringJob name (see cw_names_valid: too long,
 * or odd task text such as "Snapshot", "snap shot" or ""), the name is
 *   <prefix>-<16 lower-case hex digits of XXH64 (seed 0) over the tuple text>
 * where the tuple text is cw_gojson_write of the array [task, retain, cron, labels] (e.g.
 * ["snapshot-force-create",3,"0 * * * *",null]) and prefix is the task when it matches
 * ^[a-z0-9][a-z0-9_.-]*$ and is at most 23 characters, else "job". Both schemes share the fallback
 * (there is no Longhorn behaviour to reproduce: Longhorn 1.3+ rejects such names). The result is
 * at most 40 characters, valid, and a pure function of (task, retain, cron, labels). See
 * docs/names.md. */
#ifndef CW_NAMES_H
#define CW_NAMES_H

#include <json-c/json.h>
#include <stdint.h>

#include "lib/error.h"

#define CW_NAMES_MAX 40 /* RecurringJob name limit (Longhorn's NameMaximumLength) */

typedef enum { CW_NAMES_XXH32 = 0, CW_NAMES_LONGHORN } cw_names_scheme;

/* "xxh32" or "longhorn"; anything else: CW_EINVAL naming the accepted values. */
int cw_names_scheme_parse(const char *s, cw_names_scheme *out, cw_error *err) CW_MUST_CHECK;
const char *cw_names_scheme_name(cw_names_scheme scheme);

/* 1 when `name` is a valid RecurringJob name: ^[a-z0-9][a-z0-9_.-]+$ and at most 40 bytes. */
int cw_names_valid(const char *name);
/* 1 when `name` matches ^[a-z0-9][a-z0-9_.-]+$, whatever its length. */
int cw_names_pattern_ok(const char *name);

/* Name for a legacy job. task and cron NULL read as "". labels: NULL, JSON null or an object
 * (its values are serialised as they are; validate the job first). Errors: CW_EINVAL (labels
 * of another type, or a value Go cannot marshal), CW_ENOMEM. */
int cw_names_job(cw_names_scheme scheme, const char *task, int64_t retain, const char *cron,
                 json_object *labels, char out[CW_NAMES_MAX + 1], cw_error *err) CW_MUST_CHECK;

/* The hashes as the schemes print them (exposed for tests and reports). */
uint32_t cw_names_fnv1a32(const void *data, size_t len);

#endif
