/* Which Longhorn runs, followed at runtime by the Longhorn reconcilers (recurringjob, volume): the
 * I/O side of longhorn/version.h, one per reconciler (in its state), with an informer on
 * the longhorn-manager DaemonSet (CW_LH_MANAGER_INFORMER in its table).
 *
 * The identity is --longhorn-version when it forces one, else the DaemonSet's image tag, else what
 * the longhorn.io CRDs serve (discovery: the API groups every authenticated user may read). It is
 * worked out when the reconciler starts (with the flag), when the DaemonSet changes, at every new
 * term and resync (enqueue_all) and before the first reconcile. When it changes it is logged and
 * exported, cronwarden_controller_longhorn_version_info{version,minor,source} = 1 (the previous
 * identity's series 0), and cw_lh_decide says what follows: the reconciler writes as that minor,
 * or stands down (cw_shell_stand_down: no writes, the standing_down gauge with the reason, one
 * line naming --longhorn-version). */
#ifndef CW_LH_WATCH_H
#define CW_LH_WATCH_H

#include <pthread.h>

#include "controller/core/shell.h"
#include "longhorn/version.h"
#include "lib/metrics.h"

#define CW_LH_VERSION_INFO "cronwarden_controller_longhorn_version_info"

/* What the DaemonSet informer keeps: enough for cw_lh_manager_from_daemonset. */
extern const char *const cw_lh_manager_keep[];

/* The informer row of the longhorn-manager DaemonSet in the reconciler's namespace; its changes go
 * to cw_lh_watch_on_manager. */
#define CW_LH_MANAGER_INFORMER                                                                     \
    {                                                                                              \
        CW_INFORMER_RESOURCE("daemonsets", "apps", "v1", "daemonsets"),                            \
            .field_selector = "metadata.name=" CW_LH_MANAGER_NAME, .keep = cw_lh_manager_keep,     \
            .handler = cw_lh_watch_on_manager                                                      \
    }

typedef struct cw_lh_watch {
    pthread_mutex_t lock;
    cw_lh_reconciler who;
    size_t informer;       /* the shell's DaemonSet informer */
    size_t requeue;        /* the informer whose keys are queued again when the identity changes */
    cw_lh_identity flag;   /* --longhorn-version (source CW_LH_SOURCE_NONE: auto) */
    cw_metric *info;       /* the info family; NULL without metrics */
    int identified;        /* id and decision hold something */
    cw_lh_identity id;     /* the identity gone by */
    cw_lh_decision decide; /* write as decide.profile, or stand down */
    cw_lh_manager manager; /* the DaemonSet's image, job image, service account (NULL: none) */
    int manager_minor;     /* the Longhorn minor its image is (0: not known, or no DaemonSet) */
} cw_lh_watch;

/* A reconciler's state (the descriptor's init: *state, freed by cw_lh_watch_delete): the watch
 * for reconciler `who` in shell s, whose informer `informer` watches the DaemonSet and whose
 * informer `requeue`'s keys are queued again when the identity changes; flag: the parsed
 * --longhorn-version (copied). Registers the info family (or finds it: both reconcilers share it);
 * with a forced version, identifies at once. */
int cw_lh_watch_new(cw_shell *s, cw_lh_reconciler who, size_t informer, size_t requeue,
                    const cw_lh_identity *flag, void **state, cw_error *err) CW_MUST_CHECK;
void cw_lh_watch_delete(void *state);

/* The DaemonSet informer's handler (ud: the shell, whose state is the watch): the identity worked
 * out again; changed, the `requeue` informer's keys queued. */
void cw_lh_watch_on_manager(void *ud, cw_informer_op op, const char *key, json_object *old,
                            json_object *obj);
/* The identity worked out again (a new term, a resync: the reconciler's enqueue_all); a failure
 * is logged (the next try is the next change or resync). */
void cw_lh_watch_refresh(cw_shell *s);

/* Works the identity out again from the flag, the DaemonSet cache and (neither saying) discovery;
 * logs and exports a change, and makes the reconciler write or stand down. Without the flag and
 * a cached DaemonSet, before the DaemonSet informer has synced: nothing yet (it may still come).
 * *changed (may be NULL): 1 when the identity, the decision or the manager's images changed.
 * CW_OK, or the discovery's error (nothing changed then). */
int cw_lh_watch_update(cw_lh_watch *w, cw_shell *s, int *changed, cw_error *err) CW_MUST_CHECK;

/* What a reconcile writes as, copied out of the watch (identified first when it has not been).
 * The DaemonSet's image and service account only when it runs the minor written: a version forced
 * by the flag over another one (the upgrade flow: 1.1's manager still running, 1.2's CronJobs
 * wanted) takes --job-image and --job-service-account instead. */
typedef struct cw_lh_target {
    const cw_lh_profile *profile; /* NULL: standing down */
    char *job_image;              /* the DaemonSet's --manager-image (else its image); NULL: none */
    char *service_account;        /* its --service-account; NULL: not given */
} cw_lh_target;

int cw_lh_watch_target(cw_lh_watch *w, cw_shell *s, cw_lh_target *out, cw_error *err) CW_MUST_CHECK;
void cw_lh_target_free(cw_lh_target *t);

#endif
