/* What the NonAdmin reconcilers' cache keeps of a NonAdminBackup or NonAdminRestore, and how a
 * reconcile reads it back. A tenant writes these objects, and json-c spends some 30 times an
 * object's JSON size on its tree (an array of empty strings: 90 bytes a 3-byte element), so the
 * cache keeps only what the decisions read (metadata's identity, generation, deletion and
 * finalizers; the status; spec's small members) and the spec's one large member
 * (spec.backupSpec, spec.restoreSpec) as its compact JSON text, parsed again for the one
 * reconcile that reads it — and only while the object waits to be created (New, BackingOff):
 * nothing reads it later. A text over CW_NAC_SPEC_MAX, or one that would take its namespace's
 * kept texts over CW_NAC_NS_SPEC_MAX, is not kept: the object carries why, and the decision
 * refuses it with that message (BackingOff) before anything is built from it. docs/controller.md,
 * "Memory". */
#ifndef CW_NAC_KEEP_H
#define CW_NAC_KEEP_H

#include <json-c/json.h>
#include <pthread.h>
#include <stddef.h>

#include "oadp/nonadmin_lifecycle.h"
#include "lib/error.h"
#include "lib/strmap.h"

/* The bytes of spec text kept, per object and per namespace (one per reconciler). */
typedef struct cw_nac_share {
    pthread_mutex_t mu;
    cw_strmap held; /* "ns/name" -> bytes (uintptr_t) */
    cw_strmap ns;   /* namespace -> bytes (uintptr_t) */
} cw_nac_share;

/* What the NonAdmin informers ask of the API client: a spec member over the limit arrives as its
 * length, never parsed (cw_kube_list_opts' prune); LIST pages of 20 (a page of objects of the
 * API server's 1.5 MiB each is 30 MB of text, at most). */
#define CW_NACSHELL_PAGE 20

int cw_nac_share_init(cw_nac_share *sh, cw_error *err) CW_MUST_CHECK;
void cw_nac_share_free(cw_nac_share *sh);
/* The bytes of spec text namespace ns holds now. */
size_t cw_nac_share_held(cw_nac_share *sh, const char *ns);
/* The object ns/name left the cache: its bytes are given back. */
void cw_nac_share_release(cw_nac_share *sh, const char *key);

/* The informer's projection of obj (borrowed): a new object, NULL when out of memory. share
 * counts what it keeps (replacing what it kept for the same key). */
json_object *cw_nac_keep(const cw_nac_kind *k, json_object *obj, cw_nac_share *share);
/* The object the decisions read, made from a kept one (borrowed): *out a new object, its members
 * shared with kept but spec, which holds the large member parsed again; *refused (caller frees)
 * the BackingOff message when the cache did not keep the spec (cw_nac_size_msg,
 * cw_nac_share_msg), else NULL. CW_OK, CW_EINVAL (a kept text that does not parse: not ours),
 * CW_ENOMEM. */
int cw_nac_kept_read(const cw_nac_kind *k, json_object *kept, json_object **out, char **refused,
                     cw_error *err) CW_MUST_CHECK;

#endif
