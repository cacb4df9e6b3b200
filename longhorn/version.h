/* Which Longhorn a cluster runs, and what each Longhorn minor's manager does with the CronJob of a
 * RecurringJob. Pure: the shell reads the longhorn-manager DaemonSet, the served CRDs and the
 * --longhorn-version flag, and this file turns them into one identity and one decision per
 * reconciler — write as that minor's manager would, or stand down.
 *
 * Why it matters: every Longhorn manager compares the CronJob's
 * longhorn.io/last-applied-cronjob-spec annotation with its own bytes and rewrites the CronJob on
 * any difference. Writing another minor's bytes next to it starts a write war; writing for a
 * version nobody has read is a guess. So an unknown version stands down (no CronJob write), and
 * each known minor is a row of the table below, read from longhorn-manager at that minor's latest
 * patch release (docs/compat.md mirrors it). */
#ifndef CW_LONGHORN_VERSION_H
#define CW_LONGHORN_VERSION_H

#include <json-c/json.h>
#include <stddef.h>

#include "lib/error.h"

/* The minors cronwarden knows: Longhorn 1.2 (the first with RecurringJobs) to 1.12. */
#define CW_LH_MINOR_FIRST 2
#define CW_LH_MINOR_LAST  12
/* "1.2 to 1.12", for texts fixed at compile time (a flag's help, a message). The two ends are the
 * first and last rows of profiles[] (longhorn/version.c; unit/controller_lhversion holds them to
 * it): a new release changes CW_LH_MINOR_LAST and its row, no text. */
#define CW_LH_STR_(x_)    #x_
#define CW_LH_STR(x_)     CW_LH_STR_(x_)
#define CW_LH_MINORS_TEXT "1." CW_LH_STR(CW_LH_MINOR_FIRST) " to 1." CW_LH_STR(CW_LH_MINOR_LAST)

/* What one Longhorn minor's manager writes (controller/recurring_job_controller.go, newCronJob,
 * createCronJob, checkAndUpdateCronJob at tag v<release>, and the helpers named in docs/compat.md).
 * Byte-level facts come from the Kubernetes types that release vendors (k8s_api). */
typedef struct cw_lh_profile {
    int minor;                /* Longhorn 1.<minor> */
    int first_patch;          /* the row holds from 1.<minor>.<first_patch> to the next row */
    const char *release;      /* the patch release read: "1.4.4" */
    const char *cronjob_api;  /* the CronJob version that manager writes: batch/v1beta1, batch/v1 */
    const char *owner_api;    /* the ownerReference's apiVersion (longhorn.SchemeGroupVersion) */
    const char *k8s_api;      /* vendored k8s.io/api: where the JSON field order comes from */
    unsigned pull_secret : 1; /* imagePullSecrets from the registry-secret Setting (1.3+) */
    unsigned history_limits : 1;     /* successful/failedJobsHistoryLimit from Settings (1.4+); else
                                        successfulJobsHistoryLimit 1 and no failedJobsHistoryLimit */
    unsigned creation_timestamp : 1; /* "creationTimestamp":null in the templates' metadata (to
                                        1.9; apimachinery v0.34's omitzero drops it from 1.10) */
    int settings_reading;            /* the minor whose reading of taint-toleration and the node
                                        selector applies: 2, 3 (len(pair) fixed) or 4 (spaces
                                        removed, new messages; longhorn/settings.h) */
    unsigned json_short_escapes : 1; /* built with Go >= 1.22, whose encoding/json writes \b and
                                        \f (from v1.6.2); older Go \u0008 and \u000c */
    const char *golden; /* "upstream" (fixture made by that release's code) or "none" (no
                           fixture of its own: the release-range rows) */
} cw_lh_profile;

/* The table, one row per release range where upstream's behaviour changes (1.3.0-1.3.2 and 1.3.3;
 * 1.4.0, 1.4.1 and 1.4.2+; 1.6.0-1.6.1 and 1.6.2+; one row for each other minor), oldest first;
 * *n gets its length. */
const cw_lh_profile *cw_lh_profiles(size_t *n);
/* The newest row of Longhorn 1.<minor> (what its latest patch release does), NULL for a minor
 * cronwarden does not know. */
const cw_lh_profile *cw_lh_profile_find(int minor);
/* The row of Longhorn 1.<minor>.<patch>; patch < 0 (not known): the newest row of the minor. */
const cw_lh_profile *cw_lh_profile_find_release(int minor, int patch);

typedef enum {
    CW_LH_SOURCE_NONE,      /* nothing identified */
    CW_LH_SOURCE_FLAG,      /* --longhorn-version */
    CW_LH_SOURCE_DAEMONSET, /* the longhorn-manager DaemonSet's image tag */
    CW_LH_SOURCE_CRDS,      /* what the longhorn.io CRDs serve */
} cw_lh_source;

/* Reasons an identity is unknown: the label values of
 * cronwarden_controller_standing_down{controller,reason} (short, stable, lower-case). */
#define CW_LH_REASON_NO_IMAGE       "no-image"
#define CW_LH_REASON_DIGEST_ONLY    "digest-only"
#define CW_LH_REASON_NO_TAG         "no-tag"
#define CW_LH_REASON_PRERELEASE     "prerelease"
#define CW_LH_REASON_DEV_BUILD      "dev-build"
#define CW_LH_REASON_CUSTOM_TAG     "custom-tag"
#define CW_LH_REASON_UNRECOGNISED   "unrecognised-tag"
#define CW_LH_REASON_UNSUPPORTED    "unsupported-version"
#define CW_LH_REASON_CRDS_AMBIGUOUS "crds-ambiguous"
#define CW_LH_REASON_NOT_DETECTED   "not-detected"

typedef struct cw_lh_identity {
    int minor;           /* Longhorn 1.<minor>; 0: unknown */
    int patch;           /* 1.<minor>.<patch>; -1: not known (the minor's newest row applies) */
    cw_lh_source source; /* where it was read */
    char version[128];   /* as found ("v1.4.4", "1.4", "master-head", "1.6-1.8"): the info
                            metric's version label */
    const char *reason;  /* unknown: one of CW_LH_REASON_*; known: NULL */
    char detail[320];    /* one sentence for the log: what was read and what it means */
} cw_lh_identity;

const char *cw_lh_source_name(cw_lh_source s); /* "none", "flag", "daemonset", "crds" */

/* The identity an image reference names: [registry[:port]/]repository[:tag][@digest]. Only the tag
 * counts (mirrors and renamed repositories are fine): v1.<minor>.<patch>, optionally with a
 * -hotfix-<n> suffix (a hotfix build of that release), is Longhorn 1.<minor> when the table has
 * it; release candidates, previews, dev and -head builds, other suffixes, a digest without a tag
 * and other majors are unknown, each with its reason. Never fails. */
void cw_lh_identify_image(const char *image, cw_lh_identity *out);

/* --longhorn-version: "auto" (or "" / NULL: detect) leaves out->source CW_LH_SOURCE_NONE;
 * "1.4", "v1.4", "1.4.4", "v1.4.4" force Longhorn 1.4 (source CW_LH_SOURCE_FLAG). CW_EINVAL with
 * a message naming the flag for any other text and for a minor the table does not have. */
int cw_lh_parse_version_flag(const char *value, cw_lh_identity *out, cw_error *err) CW_MUST_CHECK;

/* What the recurringjobs.longhorn.io CRD and the longhorn.io group serve (from discovery; the CRD
 * object itself when it can be read). */
typedef struct cw_lh_crd_facts {
    int v1beta1_served;           /* recurringjobs served in longhorn.io/v1beta1 */
    int v1beta2_served;           /* ... in longhorn.io/v1beta2 */
    int v1beta1_declared;         /* the CRD lists v1beta1 (served or not); -1: CRD not read */
    const char *const *resources; /* plural names served in longhorn.io, NULL-terminated */
} cw_lh_crd_facts;

/* The minors whose CRDs look like that (the CRD sets and served versions of each minor's
 * crds.yaml, docs/compat.md): exactly one is known (source CW_LH_SOURCE_CRDS); a range or none is
 * unknown with CW_LH_REASON_CRDS_AMBIGUOUS / CW_LH_REASON_NOT_DETECTED. Never fails. */
void cw_lh_identify_crds(const cw_lh_crd_facts *f, cw_lh_identity *out);

/* The identity the controller goes by: the flag when it forces a version; else the DaemonSet's
 * when the DaemonSet was found (an unknown image stays unknown: it says what runs); else the
 * CRDs'. daemonset or crds may be NULL (not read). */
void cw_lh_choose(const cw_lh_identity *flag, const cw_lh_identity *daemonset,
                  const cw_lh_identity *crds, cw_lh_identity *out);

/* The DaemonSet (and its container) that runs Longhorn's manager, in Longhorn's namespace. */
#define CW_LH_MANAGER_NAME "longhorn-manager"

/* What cronwarden reads from the longhorn-manager DaemonSet. */
typedef struct cw_lh_manager {
    char *image;           /* the longhorn-manager container's image (else the first's): the
                              version */
    char *job_image;       /* its --manager-image argument (what the manager puts in CronJobs),
                              else image */
    char *service_account; /* its --service-account argument; NULL when not given */
} cw_lh_manager;

void cw_lh_manager_free(cw_lh_manager *m);
/* ds: an apps/v1 DaemonSet. CW_EINVAL (message names the field) when it has no container with an
 * image; CW_ENOMEM. Arguments are read from command and args, as --flag value, --flag=value or
 * with one dash (Go's flag package, under urfave/cli). */
int cw_lh_manager_from_daemonset(json_object *ds, cw_lh_manager *out, cw_error *err) CW_MUST_CHECK;

/* The reconcilers whose writes depend on the Longhorn version. */
typedef enum {
    CW_LH_RECONCILER_RECURRINGJOB, /* CronJobs: must be the manager's bytes */
    CW_LH_RECONCILER_VOLUME,       /* Volume labels, legacy spec.recurringJobs */
} cw_lh_reconciler;

const char *cw_lh_reconciler_name(cw_lh_reconciler r); /* "recurringjob", "volume" */

typedef struct cw_lh_decision {
    int write;                    /* 1: write; 0: stand down */
    const cw_lh_profile *profile; /* write: the minor to write as */
    const char *reason;           /* stand down: the gauge's reason label */
    char message[640];            /* the one log line (either way) */
} cw_lh_decision;

/* Write or stand down, per reconciler and version (the table in docs/controller.md): a known
 * minor writes; an unknown one stands down, and the message says what was read, that nothing is
 * written, and that --longhorn-version=1.<minor> forces a version. */
void cw_lh_decide(cw_lh_reconciler r, const cw_lh_identity *id, cw_lh_decision *out);

#endif
