/* The OADP NonAdminBackup reconciler: the shared NonAdmin shell (controller/nonadmin_apply.h)
 * with the NonAdminBackup decision; besides the caches it lists the DeleteBackupRequests labelled
 * with the nacuuid while a NonAdminBackup is being deleted. docs/controller.md. */
#ifndef CW_NABCTL_APPLY_H
#define CW_NABCTL_APPLY_H

#include "controller/core/reconciler.h"

/* The reconciler `--controllers nonadminbackup` runs (controller/reconcilers.c). */
extern const cw_reconciler_ops cw_nonadminbackup_reconciler;

#endif
