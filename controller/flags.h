/* The flags more than one reconciler reads, one row each (a macro every reader lists, so the rows
 * are the same name and target: cmd/controller.c keeps each flag once) and one home for their
 * values; and the start of a config that carries its own policy. A reconciler's other flags are
 * its own, in its _apply.c. */
#ifndef CW_CTRL_FLAGS_H
#define CW_CTRL_FLAGS_H

#include "controller/core/reconciler.h"
#include "cron/tz.h"
#include "defaults/opts.h"
#include "defaults/policy.h"
#include "lib/strlist.h"
#include "lib/opts.h"
#include "longhorn/version.h"

typedef struct cw_ctrl_flags {
    char *namespace;      /* schedule, backup-queue: Velero's namespace ("": every one) */
    char *oadp_namespace; /* nonadminbackup, nonadminrestore */
    cw_strlist allowed_resource_policies; /* nonadminbackup, nonadminrestore */
    char *longhorn_namespace;             /* recurringjob, volume */
    char *longhorn_version;               /* recurringjob, volume: "auto", "1.4", "v1.4.4" */
    long long max_retain;                 /* recurringjob, volume: the policy's */
    char *default_group;                  /* volume, schedule-health */
} cw_ctrl_flags;

extern cw_ctrl_flags cw_ctrl_flag;

#define CW_CTRL_OPT_NAMESPACE                                                                      \
    {                                                                                              \
        .name = "namespace", .short_name = 'n', .type = CW_OPT_STRING, .metavar = "NS",            \
        .help = "Velero's namespace: watch Schedules and Backups there only (\"\": every "         \
                "namespace)",                                                                      \
        .target = &cw_ctrl_flag.namespace, .def = ""                                               \
    }
#define CW_CTRL_OPT_OADP_NAMESPACE                                                                 \
    CW_OPT_STR("oadp-namespace", "NS", &cw_ctrl_flag.oadp_namespace, "openshift-adp",              \
               "nonadminbackup, nonadminrestore: the OADP namespace, where the Velero objects of " \
               "non-admin users live")
#define CW_CTRL_OPT_ALLOWED_RESOURCE_POLICIES                                                      \
    {                                                                                              \
        .name = "allowed-resource-policies", .type = CW_OPT_LIST, .metavar = "NAME",               \
        .help = "nonadminbackup, nonadminrestore: a ConfigMap of the OADP namespace that "         \
                "spec.backupSpec.resourcePolicy and spec.restoreSpec.resourceModifier may name",   \
        .target = &cw_ctrl_flag.allowed_resource_policies                                          \
    }
#define CW_CTRL_OPT_LONGHORN_NAMESPACE                                                             \
    CW_OPT_STR("longhorn-namespace", "NS", &cw_ctrl_flag.longhorn_namespace, "longhorn-system",    \
               "recurringjob, volume: Longhorn's namespace (RecurringJobs, CronJobs, Settings, "   \
               "the longhorn-manager DaemonSet, Volumes)")
#define CW_CTRL_OPT_LONGHORN_VERSION                                                               \
    CW_POLICY_OPT_LONGHORN_VERSION(                                                                \
        "recurringjob, volume: the Longhorn to write as: auto (the longhorn-manager DaemonSet's "  \
        "image tag, else what the longhorn.io CRDs serve; a version cronwarden does not know "     \
        "makes them stand down), or 1.<minor> / v1.<minor>.<patch> to force one "                  \
        "(" CW_LH_MINORS_TEXT ")",                                                                 \
        &cw_ctrl_flag.longhorn_version)
#define CW_CTRL_OPT_MAX_RETAIN CW_POLICY_OPT_MAX_RETAIN(&cw_ctrl_flag.max_retain)
#define CW_CTRL_OPT_DEFAULT_GROUP                                                                  \
    CW_POLICY_OPT_DEFAULT_GROUP("volume, schedule-health: the ", &cw_ctrl_flag.default_group)

/* The start of a config that carries a policy (defaults/) of its own: its namespace and the
 * policy, with the zone database it reads. */
typedef struct cw_ctrl_policy_config {
    cw_reconciler_config head;
    cw_policy_config policy;
    cw_tzdb tzdb;
    int ok;
} cw_ctrl_policy_config;

/* cfg (beginning with a cw_ctrl_policy_config): home = the namespace flag `flag` (value ns; ""
 * only when empty_ok), the policy's defaults with --max-retain (when set) and the system's zones.
 */
int cw_ctrl_policy_config_init(void *cfg, const char *flag, const char *ns, int empty_ok,
                               cw_error *err) CW_MUST_CHECK;
void cw_ctrl_policy_config_fini(void *cfg);

#endif
