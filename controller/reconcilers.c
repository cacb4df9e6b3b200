/* Every reconciler of this binary, in the order they start and appear in --help: one line each.
 * A reconciler is added here and nowhere else in the machinery (docs/architecture.md). */
#include "controller/core/reconciler.h"
#include "controller/schedule_apply.h"
#include "controller/backupqueue_apply.h"
#include "controller/nonadminbackup_apply.h"
#include "controller/nonadminrestore_apply.h"
#include "controller/recurringjob_apply.h"
#include "controller/volume_apply.h"
#include "controller/schedulehealth_apply.h"

/* clang-format off */
const cw_reconciler_ops *const cw_reconcilers[] = {
    &cw_schedule_reconciler,
    &cw_backupqueue_reconciler,
    &cw_nonadminbackup_reconciler,
    &cw_nonadminrestore_reconciler,
    &cw_recurringjob_reconciler,
    &cw_volume_reconciler,
    &cw_schedulehealth_reconciler,
    NULL,
};
/* clang-format on */
