/* Option rows (lib/opts.h) for the policy's settings, worded once for every command that has
 * them (webhook, migrate, the controller's reconcilers): `what` starts the help text. */
#ifndef CW_POLICY_OPTS_H
#define CW_POLICY_OPTS_H

#include "lib/opts.h"

#define CW_POLICY_OPT_MAX_RETAIN(tgt)                                                              \
    {                                                                                              \
        .name = "max-retain", .type = CW_OPT_INT, .metavar = "N",                                  \
        .help = "highest retain a RecurringJob may have (Longhorn's recurring-job-max-retention)", \
        .target = (tgt), .def = "100", .min = 1, .max = 250                                        \
    }
#define CW_POLICY_OPT_NAME_SCHEME(what, tgt)                                                       \
    {                                                                                              \
        .name = "name-scheme", .type = CW_OPT_ENUM,                                                \
        .help = what "RecurringJob names of migrated legacy jobs: xxh32, or longhorn (Longhorn "   \
                     "1.2's FNV names)",                                                           \
        .target = (tgt), .def = "xxh32", .choices = "xxh32|longhorn"                               \
    }
#define CW_POLICY_OPT_DEFAULT_GROUP(what, tgt)                                                     \
    {                                                                                              \
        .name = "default-group", .type = CW_OPT_STRING, .metavar = "NAME",                         \
        .help = what "recurring-job group label given to Volumes without job labels (\"\": none)", \
        .target = (tgt), .def = "default"                                                          \
    }
#define CW_POLICY_OPT_SKIP_IMMEDIATELY(what, tgt)                                                  \
    {                                                                                              \
        .name = "schedule-skip-immediately", .type = CW_OPT_BOOL,                                  \
        .help = "Velero's --schedule-skip-immediately: " what, .target = (tgt), .def = "false"     \
    }

#endif
