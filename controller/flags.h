/* The flags more than one reconciler reads, one row each (a macro every reader lists, so the rows
 * are the same name and member: cmd/controller.c keeps each flag once) and the struct their values
 * go into, one per controller, which its command owns and hands to every config_init; and the
 * start of a config that carries its own policy. A reconciler's other flags are its own: rows in
 * its _apply.c, values in its config. */
#ifndef CW_CTRL_FLAGS_H
#define CW_CTRL_FLAGS_H

#include "controller/core/reconciler.h"
#include "cron/tz.h"
#include "defaults/opts.h"
#include "defaults/policy.h"
#include "lib/strlist.h"
#include "lib/opts.h"
#include "longhorn/version.h"

struct cw_ctrl_flags {
    char *namespace;      /* schedule, backup-queue: Velero's namespace ("": every one) */
    char *oadp_namespace; /* nonadminbackup, nonadminrestore */
    cw_strlist allowed_resource_policies; /* nonadminbackup, nonadminrestore */
    char *longhorn_namespace;             /* recurringjob, volume */
    char *longhorn_version;               /* recurringjob, volume: "auto", "1.4", "v1.4.4" */
    long long max_retain;                 /* recurringjob, volume: the policy's */
    char *default_group;                  /* volume, schedule-health */
};

/* A shared row's place: a member of cw_ctrl_flags. */
#define CW_CTRL_FLAG(member_) CW_OPT_IN(CW_RECONCILER_AT_SHARED, cw_ctrl_flags, member_)

#define CW_CTRL_OPT_NAMESPACE                                                                      \
    {                                                                                              \
        .name = "namespace", .short_name = 'n', .type = CW_OPT_STRING, .metavar = "NS",            \
        .help = "Velero's namespace: watch Schedules and Backups there only (\"\": every "         \
                "namespace)",                                                                      \
        CW_CTRL_FLAG(namespace), .def = ""                                                         \
    }
#define CW_CTRL_OPT_OADP_NAMESPACE                                                                 \
    {                                                                                              \
        .name = "oadp-namespace", .type = CW_OPT_STRING, .metavar = "NS",                          \
        .help = "nonadminbackup, nonadminrestore: the OADP namespace, where the Velero objects "   \
                "of non-admin users live",                                                         \
        CW_CTRL_FLAG(oadp_namespace), .def = "openshift-adp"                                       \
    }
#define CW_CTRL_OPT_ALLOWED_RESOURCE_POLICIES                                                      \
    {                                                                                              \
        .name = "allowed-resource-policies", .type = CW_OPT_LIST, .metavar = "NAME",               \
        .help = "nonadminbackup, nonadminrestore: a ConfigMap of the OADP namespace that "         \
                "spec.backupSpec.resourcePolicy and spec.restoreSpec.resourceModifier may name",   \
        CW_CTRL_FLAG(allowed_resource_policies)                                                    \
    }
#define CW_CTRL_OPT_LONGHORN_NAMESPACE                                                             \
    {                                                                                              \
        .name = "longhorn-namespace", .type = CW_OPT_STRING, .metavar = "NS",                      \
        .help = "recurringjob, volume: Longhorn's namespace (RecurringJobs, CronJobs, Settings, "  \
                "the longhorn-manager DaemonSet, Volumes)",                                        \
        CW_CTRL_FLAG(longhorn_namespace), .def = "longhorn-system"                                 \
    }
#define CW_CTRL_OPT_LONGHORN_VERSION                                                               \
    CW_POLICY_OPT_LONGHORN_VERSION(                                                                \
        "recurringjob, volume: the Longhorn to write as: auto (the longhorn-manager DaemonSet's "  \
        "image tag, else what the longhorn.io CRDs serve; a version cronwarden does not know "     \
        "makes them stand down), or 1.<minor> / v1.<minor>.<patch> to force one "                  \
        "(" CW_LH_MINORS_TEXT ")",                                                                 \
        CW_CTRL_FLAG(longhorn_version))
#define CW_CTRL_OPT_MAX_RETAIN CW_POLICY_OPT_MAX_RETAIN(CW_CTRL_FLAG(max_retain))
#define CW_CTRL_OPT_DEFAULT_GROUP                                                                  \
    CW_POLICY_OPT_DEFAULT_GROUP("volume, schedule-health: the ", CW_CTRL_FLAG(default_group))

/* The start of a config that carries a policy (defaults/) of its own: its namespace and the
 * policy, with the zone database it reads. */
typedef struct cw_ctrl_policy_config {
    cw_reconciler_config head;
    cw_policy_config policy;
    cw_tzdb tzdb;
    int ok;
} cw_ctrl_policy_config;

/* cfg (beginning with a cw_ctrl_policy_config): home = the namespace flag `flag` (value ns; ""
 * only when empty_ok), the policy's defaults with f's --max-retain (when set) and the system's
 * zones. */
int cw_ctrl_policy_config_init(void *cfg, const cw_ctrl_flags *f, const char *flag, const char *ns,
                               int empty_ok, cw_error *err) CW_MUST_CHECK;
void cw_ctrl_policy_config_fini(void *cfg);

#endif
