/* StorageClass parameters are immutable, so migrating one means delete and create. The original is
 * written to the ConfigMap cronwarden-storageclass-backup (one key per class) before the delete
 * and dropped only after the new class exists; if the create fails the original is re-created.
 * A rerun after a crash at any point first restores (or finishes) from that ConfigMap, so no
 * StorageClass is ever lost. */
#ifndef CW_SCBACKUP_H
#define CW_SCBACKUP_H

#include "migrate/apply.h"

int cw_scbackup_run(cw_apply *a, cw_plan *p, cw_error *err) CW_MUST_CHECK;

#endif
