/* The OADP NonAdminBackup reconciler: two informers (NonAdminBackups in every namespace; the
 * Velero Backups of the OADP namespace, slimmed to what the status and the queue need) and the
 * I/O shell around cw_nabctl_decide: read the caches (and the API where a cache may lag: the
 * Velero Backup named by a recorded nacuuid, DeleteBackupRequests while deleting), decide, write
 * in the order the decision needs, every write conditional. docs/controller.md. */
#ifndef CW_NABCTL_APPLY_H
#define CW_NABCTL_APPLY_H

#include "controller/core/informer.h"
#include "controller/core/reconciler.h"
#include "controller/nonadminbackup.h"
#include "kube/client.h"
#include "lib/metrics.h"

typedef struct cw_nabctl {
    cw_kube_client *kube;
    cw_queue *queue;
    cw_nabctl_config decide;
    cw_informer nabs, backups;
    int nabs_ok, backups_ok;
    cw_metric *m_writes; /* cronwarden_controller_nonadminbackup_writes_total{verb,result} */
} cw_nabctl;

/* The reconciler `--controllers nonadminbackup` runs (controller/reconcilers.c). */
extern const cw_reconciler_ops cw_nonadminbackup_reconciler;

#endif
