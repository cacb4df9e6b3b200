/* The OADP NonAdminRestore reconciler: the shared NonAdmin shell (controller/nonadmin_apply.h)
 * with the NonAdminRestore decision; besides the caches it reads the NonAdminBackup that
 * spec.restoreSpec.backupName names, in the NonAdminRestore's own namespace only, while the
 * restore is being admitted. docs/controller.md. */
#ifndef CW_NARCTL_APPLY_H
#define CW_NARCTL_APPLY_H

#include "controller/core/reconciler.h"

/* The reconciler `--controllers nonadminrestore` runs (controller/reconcilers.c). */
extern const cw_reconciler_ops cw_nonadminrestore_reconciler;

#endif
