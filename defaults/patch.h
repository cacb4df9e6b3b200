/* Builds RFC 6902 ops that apply to the object as given: each op is also applied to a private
 * working view, so a later op sees the parents an earlier one added and every op list is
 * applicable in order by construction. The view is copy-on-write: only the objects on a patched
 * path are copied (shallowly), never the whole document, which keeps admission cheap.
 * Internal to defaults/. */
#ifndef CW_PATCH_H
#define CW_PATCH_H

#include <json-c/json.h>

#define CW_PATCH_MAX_OWNED 32

typedef struct cw_patch {
    json_object *ops;                       /* borrowed: the decision's array */
    json_object *doc;                       /* borrowed: the document as given */
    json_object *work;                      /* owned root of the view; NULL until the first op */
    json_object *owned[CW_PATCH_MAX_OWNED]; /* objects private to the view (safe to change) */
    size_t nowned;
} cw_patch;

/* ops NULL (a decision whose init failed): CW_ENOMEM. */
int cw_patch_init(cw_patch *p, json_object *ops, json_object *doc);
void cw_patch_free(cw_patch *p);

/* Sets the member at the NULL-terminated token path to value (owned, freed on failure; NULL
 * means a failed allocation: CW_ENOMEM). A missing parent becomes one "add" of the parent holding
 * the rest; an existing member (null included) is "replace"d, a missing one "add"ed. CW_EINVAL
 * (nothing emitted) when a parent exists but is not an object — callers check types first and
 * leave such objects to validation. */
int cw_patch_set(cw_patch *p, json_object *value, const char *first, ...) __attribute__((sentinel));

#endif
