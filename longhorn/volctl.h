/* The Volume reconciler's decision: a pure function of one Longhorn Volume, the RecurringJobs of
 * the Longhorn namespace and the configuration. The rules are the webhook's and the migrator's,
 * not copies of them: the default group label is longhorn/volume's cw_volume_default, and legacy
 * spec.recurringJobs go through longhorn/volplan's cw_volplan_decide, the decision `cronwarden
 * migrate` makes for every volume (names by --name-scheme, existing RecurringJobs reused,
 * conflicts and invalid jobs refused).
 *
 *   legacy spec.recurringJobs, all valid -> create the RecurringJobs that are not there yet, then
 *                                           one merge patch: job labels, spec.recurringJobs gone
 *   legacy jobs invalid, or a name taken -> nothing written; the problems (for a Warning Event)
 *   no job or group label                -> merge patch: the default group label
 *   otherwise                            -> nothing
 * Every patch carries metadata.resourceVersion: a volume that moved on answers 409. */
#ifndef CW_VOLCTL_H
#define CW_VOLCTL_H

#include <json-c/json.h>

#include "longhorn/names.h"
#include "defaults/policy.h"
#include "lib/error.h"
#include "lib/strlist.h"

typedef struct cw_volctl_config {
    const cw_policy_config *policy; /* default group ("" or NULL: none), max retain */
    cw_names_scheme scheme;         /* names of migrated jobs */
    const char *namespace;          /* Longhorn's: where the RecurringJobs go */
    const char *rj_api_version;     /* "longhorn.io/v1beta2": RecurringJobs to create */
} cw_volctl_config;

typedef enum {
    CW_VOLCTL_INSYNC,
    CW_VOLCTL_DEFAULT_LABEL,
    CW_VOLCTL_MIGRATE,
    CW_VOLCTL_REFUSED, /* legacy jobs that cannot be migrated: problems */
} cw_volctl_outcome;

typedef struct cw_volctl_actions {
    cw_volctl_outcome outcome;
    json_object *jobs;   /* MIGRATE: array of RecurringJobs to create first (may be empty) */
    json_object *patch;  /* DEFAULT_LABEL, MIGRATE: the merge patch */
    cw_strlist problems; /* REFUSED: why, as the migrate report says it */
    cw_strlist labels;   /* DEFAULT_LABEL, MIGRATE: the label keys the patch sets */
} cw_volctl_actions;

void cw_volctl_actions_init(cw_volctl_actions *a);
void cw_volctl_actions_free(cw_volctl_actions *a);
const char *cw_volctl_outcome_name(cw_volctl_outcome o);

/* volume: metadata (name, namespace, resourceVersion, labels) and spec.recurringJobs when it has
 * them; rjs: a JSON array of the RecurringJobs there are (NULL:
 * none). CW_EINVAL when the volume is malformed (err names the field), CW_ENOMEM. */
int cw_volctl_decide(json_object *volume, json_object *rjs, const cw_volctl_config *cfg,
                     cw_volctl_actions *out, cw_error *err) CW_MUST_CHECK;

#endif
