/* Longhorn's Settings that shape the CronJob of a RecurringJob, read the way Longhorn 1.2.6's
 * manager reads them (types.UnmarshalTolerations, types.UnmarshalNodeSelector; setting.go), so a
 * cluster's own values mean the same to cronwarden as to Longhorn:
 *   taint-toleration                         "key1=value1:NoSchedule; key2:NoExecute"
 *   system-managed-components-node-selector  "label-key1:label-value1; label-key2:label-value2"
 *   priority-class                           a PriorityClass name
 * An absent Setting has Longhorn's default: "" (none). Pure. */
#ifndef CW_LONGHORN_SETTINGS_H
#define CW_LONGHORN_SETTINGS_H

#include <json-c/json.h>

#include "lib/error.h"

#define CW_LH_SETTING_TOLERATION    "taint-toleration"
#define CW_LH_SETTING_NODE_SELECTOR "system-managed-components-node-selector"
#define CW_LH_SETTING_PRIORITY      "priority-class"

/* *out: a new JSON array of core/v1 Tolerations in Go's field order (key, operator, value,
 * effect; empty ones left out), distinct ones only, in the setting's order. Longhorn keeps them in
 * a Go map, so with two or more its own order is random; cronwarden's is the setting's. CW_EINVAL
 * with Longhorn's message for a malformed entry. An empty setting gives an empty array. */
int cw_lh_parse_tolerations(const char *setting, json_object **out, cw_error *err) CW_MUST_CHECK;
/* *out: a new JSON object label -> value. A later entry with the same key wins (Go's map
 * assignment). CW_EINVAL with Longhorn's message for an entry without exactly one ':'. */
int cw_lh_parse_node_selector(const char *setting, json_object **out, cw_error *err) CW_MUST_CHECK;

#endif
