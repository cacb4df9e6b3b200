/* Option rows (lib/opts.h) for the policy's settings, worded once for every command that has
 * them (webhook, migrate, the controller's reconcilers): `what` starts the help text, `where` says
 * where the value goes (CW_OPT_TO(&x), or CW_OPT_IN(...) for a member of a struct made later). */
#ifndef CW_POLICY_OPTS_H
#define CW_POLICY_OPTS_H

#include "lib/opts.h"

#define CW_POLICY_OPT_MAX_RETAIN(where)                                                            \
    {                                                                                              \
        .name = "max-retain", .type = CW_OPT_INT, .metavar = "N",                                  \
        .help = "highest retain a RecurringJob may have (Longhorn's recurring-job-max-retention)", \
        where, .def = "100", .min = 1, .max = 250                                                  \
    }
#define CW_POLICY_OPT_NAME_SCHEME(what, where)                                                     \
    {                                                                                              \
        .name = "name-scheme", .type = CW_OPT_ENUM,                                                \
        .help = what "RecurringJob names of migrated legacy jobs: xxh32, or longhorn (Longhorn "   \
                     "1.2's FNV names)",                                                           \
        where, .def = "xxh32", .choices = "xxh32|longhorn"                                         \
    }
#define CW_POLICY_OPT_DEFAULT_GROUP(what, where)                                                   \
    {                                                                                              \
        .name = "default-group", .type = CW_OPT_STRING, .metavar = "NAME",                         \
        .help = what "recurring-job group label given to Volumes without job labels (\"\": none)", \
        where, .def = "default"                                                                    \
    }
#define CW_POLICY_OPT_SKIP_IMMEDIATELY(what, where)                                                \
    {                                                                                              \
        .name = "schedule-skip-immediately", .type = CW_OPT_BOOL,                                  \
        .help = "Velero's --schedule-skip-immediately: " what, where, .def = "false"               \
    }
#define CW_POLICY_OPT_LONGHORN_VERSION(help_, where)                                               \
    {                                                                                              \
        .name = "longhorn-version", .type = CW_OPT_STRING, .metavar = "VERSION", .help = help_,    \
        where, .def = "auto"                                                                       \
    }

#endif
