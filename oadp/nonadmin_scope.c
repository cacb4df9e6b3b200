#include "oadp/nonadmin_scope.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/json.h"
#include "lib/k8sname.h"

const char *const cw_nac_excluded_namespaced[] = {"nonadminbackups", "nonadminrestores",
                                                  "nonadminbackupstoragelocations", NULL};
const char *const cw_nac_excluded_cluster[] = {"securitycontextconstraints",
                                               "clusterroles",
                                               "clusterrolebindings",
                                               "priorityclasses",
                                               "customresourcedefinitions",
                                               "virtualmachineclusterinstancetypes",
                                               "virtualmachineclusterpreferences",
                                               NULL};
const char *const cw_nac_excluded_restore[] = {"volumesnapshotclasses", NULL};

int cw_nac_msgf(char **msg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !(*msg = malloc((size_t)n + 1)))
        return CW_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(*msg, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return CW_OK;
}

int cw_nac_policy_check(const cw_nac_policy *p, cw_error *err)
{
    const cw_strlist *l = p ? p->allowed_resource_policies : NULL;
    for (size_t i = 0; l && i < l->len; i++) {
        const char *why = cw_k8sname_check_subdomain(l->items[i]);
        if (why)
            return cw_error_set(err, CW_EINVAL, "\"%s\" is not a ConfigMap name: %s%s", l->items[i],
                                why,
                                strchr(l->items[i], ',') ? " (give the flag once per name)" : "");
    }
    return CW_OK;
}

/* ---- building the Velero objects ---- */

static int listed(json_object *arr, const char *s)
{
    for (size_t i = 0; i < json_object_array_length(arr); i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        if (json_object_is_type(e, json_type_string) && strcmp(json_object_get_string(e), s) == 0)
            return 1;
    }
    return 0;
}

/* vspec.<field> (a list; made one when absent or not a list) gets the names it lacks. */
static int append(json_object *vspec, const char *field, const char *const *names)
{
    json_object *arr = cw_json_member(vspec, field);
    if (!json_object_is_type(arr, json_type_array)) {
        if (!(arr = json_object_new_array()) || json_object_object_add(vspec, field, arr)) {
            json_object_put(arr);
            return CW_ENOMEM;
        }
    }
    for (size_t i = 0; names[i]; i++)
        if (!listed(arr, names[i]) && json_object_array_add(arr, json_object_new_string(names[i])))
            return CW_ENOMEM;
    return CW_OK;
}

static int nonempty_list(json_object *v)
{
    return json_object_is_type(v, json_type_array) && json_object_array_length(v) > 0;
}

int cw_nac_exclude_backup(json_object *vspec)
{
    static const char *const scoped[] = {
        "includedClusterScopedResources", "excludedClusterScopedResources",
        "includedNamespaceScopedResources", "excludedNamespaceScopedResources", NULL};
    int new_style = 0;
    for (size_t i = 0; scoped[i]; i++)
        new_style |= nonempty_list(cw_json_member(vspec, scoped[i]));
    if (new_style)
        return append(vspec, "excludedNamespaceScopedResources", cw_nac_excluded_namespaced) ||
                       append(vspec, "excludedClusterScopedResources", cw_nac_excluded_cluster)
                   ? CW_ENOMEM
                   : CW_OK;
    return append(vspec, "excludedResources", cw_nac_excluded_namespaced) ||
                   append(vspec, "excludedResources", cw_nac_excluded_cluster)
               ? CW_ENOMEM
               : CW_OK;
}

int cw_nac_exclude_restore(json_object *vspec)
{
    return append(vspec, "excludedResources", cw_nac_excluded_namespaced) ||
                   append(vspec, "excludedResources", cw_nac_excluded_cluster) ||
                   append(vspec, "excludedResources", cw_nac_excluded_restore)
               ? CW_ENOMEM
               : CW_OK;
}

int cw_nac_confine_hooks(json_object *vspec, const char *ns)
{
    json_object *res = cw_json_path(vspec, "hooks.resources");
    size_t n = json_object_is_type(res, json_type_array) ? json_object_array_length(res) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *h = json_object_array_get_idx(res, i), *nss = json_object_new_array();
        if (!json_object_is_type(h, json_type_object)) {
            json_object_put(nss);
            continue;
        }
        if (!nss || json_object_array_add(nss, json_object_new_string(ns)) ||
            json_object_object_add(h, "includedNamespaces", nss)) {
            json_object_put(nss);
            return CW_ENOMEM;
        }
    }
    return CW_OK;
}

/* ---- checks ---- */

/* What is wrong with a hooks value, found once for users' and the administrator's specs. */
typedef enum { PB_NONE, PB_TYPE, PB_NAMESPACES, PB_INIT, PB_EXCLUDED } pb_kind;
typedef struct problem {
    pb_kind kind;
    char path[96];    /* below the spec: "hooks.resources[0].includedNamespaces" */
    const char *want; /* PB_TYPE: "an object", "a list" */
    json_object *got;
} problem;

static void set_pb(problem *pb, pb_kind kind, const char *want, json_object *got, const char *fmt,
                   ...) __attribute__((format(printf, 5, 6)));
static void set_pb(problem *pb, pb_kind kind, const char *want, json_object *got, const char *fmt,
                   ...)
{
    va_list ap;
    pb->kind = kind;
    pb->want = want;
    pb->got = got;
    va_start(ap, fmt);
    vsnprintf(pb->path, sizeof(pb->path), fmt, ap);
    va_end(ap);
}

/* Absent, null, or a list of strings each equal to ns (ns NULL: an empty list). */
static int names_only(json_object *v, const char *ns)
{
    if (!v)
        return 1;
    if (!json_object_is_type(v, json_type_array))
        return 0;
    for (size_t i = 0; i < json_object_array_length(v); i++) {
        json_object *e = json_object_array_get_idx(v, i);
        if (!ns || !json_object_is_type(e, json_type_string) ||
            strcmp(json_object_get_string(e), ns))
            return 0;
    }
    return 1;
}

/* A restore hook entry's postHooks: init only when allowed. */
static void post_hooks(json_object *post, size_t i, int allow_init, problem *pb)
{
    if (!post)
        return;
    if (!json_object_is_type(post, json_type_array)) {
        set_pb(pb, PB_TYPE, "a list", post, "hooks.resources[%zu].postHooks", i);
        return;
    }
    for (size_t j = 0; j < json_object_array_length(post); j++) {
        json_object *h = json_object_array_get_idx(post, j);
        if (!json_object_is_type(h, json_type_object)) {
            set_pb(pb, PB_TYPE, "an object", h, "hooks.resources[%zu].postHooks[%zu]", i, j);
            return;
        }
        if (!allow_init && cw_json_member(h, "init")) {
            set_pb(pb, PB_INIT, NULL, NULL, "hooks.resources[%zu].postHooks[%zu].init", i, j);
            return;
        }
    }
}

static void hooks_problem(json_object *hooks, const char *ns, int restore, int allow_init,
                          problem *pb)
{
    static const char *const sel[] = {"includedNamespaces", "excludedNamespaces"};
    pb->kind = PB_NONE;
    if (!hooks)
        return;
    if (!json_object_is_type(hooks, json_type_object)) {
        set_pb(pb, PB_TYPE, "an object", hooks, "hooks");
        return;
    }
    json_object *res = cw_json_member(hooks, "resources");
    if (res && !json_object_is_type(res, json_type_array)) {
        set_pb(pb, PB_TYPE, "a list", res, "hooks.resources");
        return;
    }
    for (size_t i = 0; res && i < json_object_array_length(res) && pb->kind == PB_NONE; i++) {
        json_object *r = json_object_array_get_idx(res, i);
        if (!json_object_is_type(r, json_type_object)) {
            set_pb(pb, PB_TYPE, "an object", r, "hooks.resources[%zu]", i);
            return;
        }
        for (size_t s = 0; s < 2; s++)
            if (!names_only(cw_json_member(r, sel[s]), ns)) {
                set_pb(pb, PB_NAMESPACES, NULL, NULL, "hooks.resources[%zu].%s", i, sel[s]);
                return;
            }
        if (restore)
            post_hooks(cw_json_member(r, "postHooks"), i, allow_init, pb);
    }
}

int cw_nac_check_hooks(json_object *hooks, const char *what, const char *ns, int restore,
                       const cw_nac_policy *p, char **msg)
{
    problem pb;
    *msg = NULL;
    hooks_problem(hooks, ns, restore, p && p->allow_restore_init_hooks, &pb);
    switch (pb.kind) {
    case PB_TYPE:
        return cw_nac_msgf(msg, "%s.%s is invalid: expected %s, got %s", what, pb.path, pb.want,
                           cw_json_type_name(pb.got));
    case PB_NAMESPACES:
        return cw_nac_msgf(msg, "%s.%s is restricted, can not contain namespaces other than: %s",
                           what, pb.path, ns);
    case PB_INIT:
        return cw_nac_msgf(msg,
                           "%s.%s is restricted, init container restore hooks are allowed only "
                           "by the administrator (--allow-restore-init-hooks)",
                           what, pb.path);
    case PB_EXCLUDED:
    case PB_NONE:
        break;
    }
    return CW_OK;
}

static int allowed_ref(json_object *ref, const cw_nac_policy *p)
{
    const cw_strlist *l = p ? p->allowed_resource_policies : NULL;
    json_object *kind = cw_json_member(ref, "kind"), *name = cw_json_member(ref, "name");
    /* Velero reads the reference only when its kind is "configmap" in any case (EqualFold). */
    if (!json_object_is_type(kind, json_type_string) ||
        strcasecmp(json_object_get_string(kind), "configmap") ||
        !json_object_is_type(name, json_type_string))
        return 0;
    return l && cw_strlist_contains(l, json_object_get_string(name));
}

int cw_nac_check_policy_ref(json_object *spec, json_object *enforced, const char *field,
                            const char *what, const cw_nac_policy *p, char **msg)
{
    json_object *ref = cw_json_member(spec, field);
    const cw_strlist *l = p ? p->allowed_resource_policies : NULL;
    *msg = NULL;
    if (!ref || json_object_equal(ref, cw_json_member(enforced, field)) || allowed_ref(ref, p))
        return CW_OK;
    char *names = l && l->len ? cw_strlist_join(l, ", ") : strdup("none");
    if (!names)
        return CW_ENOMEM;
    int rc = cw_nac_msgf(msg,
                         "%s.%s is restricted, can only name a ConfigMap the administrator allows "
                         "(--allowed-resource-policies): %s",
                         what, field, names);
    free(names);
    return rc;
}

/* The first always-excluded kind the list names, or NULL. */
static const char *excluded_in(json_object *list, int restore)
{
    const char *const *lists[] = {cw_nac_excluded_namespaced, cw_nac_excluded_cluster,
                                  restore ? cw_nac_excluded_restore : NULL};
    if (!json_object_is_type(list, json_type_array))
        return NULL;
    for (size_t l = 0; l < 3 && lists[l]; l++)
        for (size_t i = 0; lists[l][i]; i++)
            if (listed(list, lists[l][i]))
                return lists[l][i];
    return NULL;
}

/* The resource filters of a spec: the lists the exclusions go into are lists, and the lists of
 * included kinds name none of the excluded ones. */
static void resources_problem(json_object *spec, int restore, problem *pb, const char **name)
{
    static const char *const backup_in[] = {"includedResources", "includedNamespaceScopedResources",
                                            NULL};
    static const char *const backup_out[] = {"excludedResources", "excludedClusterScopedResources",
                                             "excludedNamespaceScopedResources", NULL};
    static const char *const restore_in[] = {"includedResources", NULL};
    static const char *const restore_out[] = {"excludedResources", NULL};
    const char *const *in = restore ? restore_in : backup_in;
    const char *const *out = restore ? restore_out : backup_out;
    pb->kind = PB_NONE;
    for (size_t i = 0; out[i]; i++) {
        json_object *v = cw_json_member(spec, out[i]);
        if (v && !json_object_is_type(v, json_type_array)) {
            set_pb(pb, PB_TYPE, "a list", v, "%s", out[i]);
            return;
        }
    }
    for (size_t i = 0; in[i]; i++)
        if ((*name = excluded_in(cw_json_member(spec, in[i]), restore))) {
            set_pb(pb, PB_EXCLUDED, NULL, NULL, "%s", in[i]);
            return;
        }
}

int cw_nac_check_resources(json_object *spec, const char *what, int restore, char **msg)
{
    problem pb;
    const char *name = NULL;
    *msg = NULL;
    resources_problem(spec, restore, &pb, &name);
    if (pb.kind == PB_TYPE)
        return cw_nac_msgf(msg, "%s.%s is invalid: expected %s, got %s", what, pb.path, pb.want,
                           cw_json_type_name(pb.got));
    if (pb.kind == PB_EXCLUDED)
        return cw_nac_msgf(msg,
                           "%s.%s is restricted, can not contain %s (excluded from every "
                           "non-admin %s)",
                           what, pb.path, name, restore ? "restore" : "backup");
    return CW_OK;
}

int cw_nac_check_enforced_scope(json_object *enforced, const char *users, int restore,
                                cw_error *err)
{
    problem pb;
    const char *name = NULL;
    hooks_problem(cw_json_member(enforced, "hooks"), NULL, restore, 1, &pb);
    if (pb.kind == PB_NONE)
        resources_problem(enforced, restore, &pb, &name);
    switch (pb.kind) {
    case PB_TYPE:
        return cw_error_set(err, CW_EINVAL, "%s: expected %s, got %s", pb.path, pb.want,
                            cw_json_type_name(pb.got));
    case PB_NAMESPACES:
        return cw_error_set(err, CW_EINVAL,
                            "%s: non-admin %s may not name namespaces, so it cannot be enforced",
                            pb.path, users);
    case PB_EXCLUDED:
        return cw_error_set(err, CW_EINVAL, "%s: names %s, which every non-admin %s excludes",
                            pb.path, name, restore ? "restore" : "backup");
    case PB_INIT:
    case PB_NONE:
        break;
    }
    return CW_OK;
}
