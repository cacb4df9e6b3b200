/* Longhorn Volume: the default-group label and the refusal of legacy spec.recurringJobs.
 * Rules and messages: docs/policy.md. */
#ifndef CW_VOLUME_H
#define CW_VOLUME_H

#include <json-c/json.h>

#include "defaults/policy.h"
#include "lib/buf.h"
#include "lib/error.h"

/* Longhorn's test of one label key, kept exactly: it starts with "recurring-job.longhorn.io" or
 * "recurring-job-group.longhorn.io" (no slash). */
int cw_volume_is_job_label(const char *key);
/* Some label key is a job label (values not looked at). labels: an object or NULL. */
int cw_volume_has_job_label(json_object *labels);
/* 1 when spec.recurringJobs is a non-empty array. */
int cw_volume_has_legacy_jobs(json_object *volume);
/* 1 when spec.cloneMode is "linked-clone" (Longhorn 1.10+): such a volume cannot be snapshotted or
 * backed up, and Longhorn's FixupRecurringJob gives it no default group. */
int cw_volume_linked_clone(json_object *volume);
/* Appends "recurring-job.longhorn.io/<job>" / "recurring-job-group.longhorn.io/<group>". */
int cw_volume_job_label(cw_buf *out, const char *job);
int cw_volume_group_label(cw_buf *out, const char *group);
/* The selectors a volume carries, as Longhorn's recurring-job runner selects volumes: "j:<job>"
 * for each label recurring-job.longhorn.io/<job>: enabled, "g:<group>" for each label
 * recurring-job-group.longhorn.io/<group>: enabled, and "g:<default_group>" when the volume has
 * no job or group label at all (values not looked at), carries no legacy jobs (legacy: 1) and
 * default_group is non-empty (the label Longhorn and cw_volume_default add). Appended to out,
 * which is then sorted. labels: an object or NULL. CW_OK or CW_ENOMEM. */
int cw_volume_selectors(json_object *labels, int legacy, const char *default_group,
                        cw_strlist *out) CW_MUST_CHECK;

/* The members of spec the rules below read (NULL-terminated): the webhook's fast decode builds
 * no other member of a Volume's spec. A rule that reads another adds it here. */
extern const char *const cw_volume_spec_members[];

/* CREATE/UPDATE: adds recurring-job-group.longhorn.io/<cfg->default_group>: enabled when the
 * volume has no job label, cfg->default_group is non-empty, the volume carries no legacy jobs
 * (those become job labels on migration; the default group would then run on top of them) and is
 * not a linked clone (Longhorn 1.10+ leaves those without jobs). */
int cw_volume_default(const cw_policy_config *cfg, cw_operation op, json_object *old,
                      json_object *obj, cw_decision *d, cw_error *err) CW_MUST_CHECK;
/* CREATE/UPDATE: denies a non-empty legacy spec.recurringJobs (an UPDATE that keeps the stored
 * list unchanged passes with a warning, so Longhorn can still attach, detach and finalize volumes
 * that are not migrated yet), and labels that are not an object. */
int cw_volume_validate(const cw_policy_config *cfg, cw_operation op, json_object *old,
                       json_object *obj, cw_decision *d, cw_error *err) CW_MUST_CHECK;

#endif
