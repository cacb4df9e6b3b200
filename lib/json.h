/* Helpers over json-c: typed getters that say which field is wrong, RFC 6901 pointers and
 * RFC 6902 patch op builders. Objects travel as json_object *; nothing here mirrors a K8s type. */
#ifndef CW_JSON_H
#define CW_JSON_H

#include <json-c/json.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/error.h"

/* "string", "integer", "number", "boolean", "object", "array" or "null". */
const char *cw_json_type_name(json_object *o);

/* Member `key` of `obj` (NULL when obj is not an object or the key is absent). */
json_object *cw_json_member(json_object *obj, const char *key);
/* Walks dot-separated keys ("metadata.name"); NULL when any step is missing or not an object. */
json_object *cw_json_path(json_object *obj, const char *dotted);
/* String at a dotted path, or NULL when absent or not a string. */
const char *cw_json_path_string(json_object *obj, const char *dotted);

/* Typed optional getters. `where` is obj's location for messages ("spec.recurringJobs[2]");
 * absent and JSON null both give "not present". A wrong type fails with
 * "<where>.<key>: expected <type>, got <type>". */
int cw_json_opt_string(json_object *obj, const char *where, const char *key, const char **out,
                       cw_error *err) CW_MUST_CHECK;
int cw_json_opt_int(json_object *obj, const char *where, const char *key, int64_t *out,
                    int *present, cw_error *err) CW_MUST_CHECK;
int cw_json_opt_bool(json_object *obj, const char *where, const char *key, int *out, int *present,
                     cw_error *err) CW_MUST_CHECK;
int cw_json_opt_object(json_object *obj, const char *where, const char *key, json_object **out,
                       cw_error *err) CW_MUST_CHECK;
int cw_json_opt_array(json_object *obj, const char *where, const char *key, json_object **out,
                      cw_error *err) CW_MUST_CHECK;

/* RFC 6901: appends "/" plus the escaped token (~ -> ~0, / -> ~1). */
int cw_jptr_append(cw_buf *b, const char *token);
/* Builds a pointer from NULL-terminated tokens; caller frees. NULL on allocation failure. */
char *cw_jptr(const char *first, ...) __attribute__((sentinel));

/* RFC 6902: appends {"op":op,"path":path[,"value":value]} to the array `ops`. Takes ownership of
 * value (may be NULL for remove). */
int cw_jpatch_op(json_object *ops, const char *op, const char *path, json_object *value);

/* obj.<key> := the string v (a copy). CW_OK or CW_ENOMEM (obj unchanged). */
int cw_json_set_string(json_object *obj, const char *key, const char *v);

/* Deep copy (json_object_deep_copy with error mapping). */
int cw_json_copy(json_object *src, json_object **out);
/* Serialises compactly without escaping '/' (the form Kubernetes accepts byte-for-byte). */
const char *cw_json_compact(json_object *o);
/* A Kubernetes metadata.ownerReferences list of one (metav1.OwnerReference's apiVersion, kind,
 * name, uid; controller: true only when `controller`); NULL when out of memory. */
json_object *cw_json_owner_refs(const char *api_version, const char *kind, const char *name,
                                const char *uid, int controller);
/* A new object holding only obj's members at `paths` (NULL-terminated), each dotted
 * ("metadata.name"), the last step after a '|' taken whole ("metadata.labels|velero.io/x": a key
 * with dots); members obj lacks are left out. They are shared with obj (json_object_get): a cache's
 * slim copy. NULL: out of memory. */
json_object *cw_json_keep(json_object *obj, const char *const *paths);

#endif
