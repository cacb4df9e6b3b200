/* API paths: /api/v1/... for the core group, /apis/<group>/<version>/... otherwise; namespaced or
 * cluster-scoped; every segment and query value percent-escaped. */
#ifndef CW_KUBE_PATH_H
#define CW_KUBE_PATH_H

#include "lib/buf.h"
#include "lib/error.h"

typedef struct cw_kube_resource {
    const char *group;     /* NULL or "": the core group (/api/v1) */
    const char *version;   /* "v1", "v1beta2" */
    const char *resource;  /* plural, lower case: "configmaps", "recurringjobs" */
    const char *namespace; /* NULL or "": cluster-scoped, or every namespace for list and watch */
} cw_kube_resource;

/* Appends the path of a collection (name NULL) or an object, optionally of a subresource
 * ("status"). Names must not be empty, "." or "..". */
int cw_kube_path(cw_buf *out, const cw_kube_resource *r, const char *name, const char *subresource,
                 cw_error *err) CW_MUST_CHECK;
/* Appends one escaped segment (no slash); `what` names it in the error for "", "." and "..". */
int cw_kube_path_segment(cw_buf *out, const char *what, const char *s, cw_error *err) CW_MUST_CHECK;
/* Appends "?key=value" (or "&key=value" when the buffer already holds a '?'), both escaped. */
int cw_kube_query(cw_buf *out, const char *key, const char *value, cw_error *err) CW_MUST_CHECK;

#endif
