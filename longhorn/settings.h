/* Longhorn's Settings that shape the CronJob of a RecurringJob, read the way each Longhorn minor's
 * manager reads them (types/setting.go UnmarshalTolerations and UnmarshalNodeSelector,
 * datastore GetSettingAsInt, at that minor's tag), so a cluster's own values mean the same to
 * cronwarden as to Longhorn, and a value Longhorn refuses is refused with Longhorn's message:
 *   taint-toleration                         "key1=value1:NoSchedule; key2:NoExecute"   all
 *   system-managed-components-node-selector  "label-key1:label-value1; label-key2:value2" all
 *   priority-class                           a PriorityClass name                       all
 *   registry-secret                          a Secret name -> imagePullSecrets           1.3+
 *   recurring-successful-jobs-history-limit  integer, default 1                          1.4+
 *   recurring-failed-jobs-history-limit      integer, default 1                          1.4+
 * An absent Setting has Longhorn's default (GetSetting / GetSettingWithAutoFillingRO fill it).
 * Pure. */
#ifndef CW_LONGHORN_SETTINGS_H
#define CW_LONGHORN_SETTINGS_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "longhorn/version.h"
#include "lib/error.h"

#define CW_LH_SETTING_TOLERATION     "taint-toleration"
#define CW_LH_SETTING_NODE_SELECTOR  "system-managed-components-node-selector"
#define CW_LH_SETTING_PRIORITY       "priority-class"
#define CW_LH_SETTING_REGISTRY       "registry-secret"
#define CW_LH_SETTING_HISTORY_OK     "recurring-successful-jobs-history-limit"
#define CW_LH_SETTING_HISTORY_FAILED "recurring-failed-jobs-history-limit"

/* A Setting a minor's newCronJob reads: its name, its default (types/setting.go's
 * SettingDefinition), the first minor that reads it for the CronJob. */
typedef struct cw_lh_setting_def {
    const char *name;
    const char *def;
    int since;
} cw_lh_setting_def;

/* Every Setting any minor's CronJob depends on, in the order above. */
const cw_lh_setting_def *cw_lh_setting_defs(size_t *n);
/* 1 when Longhorn 1.<minor>'s newCronJob reads the Setting `name`. */
int cw_lh_setting_read_by(const char *name, int minor);

/* *out: a new JSON array of core/v1 Tolerations in Go's field order (key, operator, value,
 * effect; empty ones left out), distinct ones only, in the setting's order (Longhorn keeps them
 * in a Go map, so with two or more its own order is random; cronwarden's is the setting's).
 * reading: the profile's settings_reading — 2: Longhorn 1.2, 1.3.0-1.3.2, 1.4.0-1.4.1 (entries
 * trimmed; text after a second '=' dropped); 3: 1.3.3 (a second '=' refused); 4: 1.4.2+ (every
 * space removed first; a second '=' leaves key, value and operator empty). Distinct: keyed as
 * util.GetDistinctTolerations keys them (key+operator+value+effect joined), the later one kept.
 * CW_EINVAL with that minor's message for a malformed entry. An empty setting gives an empty array.
 */
int cw_lh_parse_tolerations_as(int reading, const char *setting, json_object **out,
                               cw_error *err) CW_MUST_CHECK;

/* *out: a new JSON object label -> value. A later entry with the same key wins (Go's map
 * assignment). CW_EINVAL with Longhorn's message for an entry without exactly one ':' (1.2 and
 * 1.3 spell it "seprator", 1.4.0 and later "separator"). reading: the minor. */
int cw_lh_parse_node_selector_as(int reading, const char *setting, json_object **out,
                                 cw_error *err) CW_MUST_CHECK;

/* A history-limit Setting as Longhorn 1.<minor> (4+) reads it: strconv.ParseInt(value, 10, 64)
 * (optional sign, decimal digits, within int64; no spaces), then Go's int32 conversion (the low
 * 32 bits, two's complement). NULL value: the default, 1. CW_EINVAL with Longhorn's message:
 *   failed to get setting of <what>: strconv.ParseInt: parsing "<value>": invalid syntax
 * where <what> is RecurringSuccessfulJobsHistoryLimit / RecurringFailedJobsHistoryLimit in 1.4 and
 * the Setting's name from 1.5 on ("value out of range" beyond int64). */
int cw_lh_parse_history_limit(int minor, const char *name, const char *value, int32_t *out,
                              cw_error *err) CW_MUST_CHECK;

#endif
