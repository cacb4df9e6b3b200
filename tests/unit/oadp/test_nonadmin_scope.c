/* oadp/nonadmin_scope.c: what keeps a non-admin backup or restore in its namespace. Tables of
 * real cases with exact messages: hooks (init containers, exec hooks, namespace selectors of every
 * form), resource policies and modifiers against the administrator's list, resource filters that
 * would clash with the exclusions, the list flag's names. The user's namespace is shop. */
#include "nac_test.h"

#include "oadp/nonadmin_scope.h"

#define NAB "NonAdminBackup spec.backupSpec"
#define NAR "NonAdminRestore spec.restoreSpec"

static char *allowed_items[] = {"tenant-policies", "shared-modifiers"};
static cw_strlist allowed = {allowed_items, 2, 2, CW_OK};
static cw_strlist nothing = {NULL, 0, 0, CW_OK};
/* The administrator allows init hooks and two ConfigMaps. */
static const cw_nac_policy LIBERAL = {.allow_restore_init_hooks = 1,
                                      .allowed_resource_policies = &allowed};
/* Set but empty: nothing allowed, as with no policy at all. */
static const cw_nac_policy STRICT = {.allowed_resource_policies = &nothing};

#define HOOK(fields) "{'resources':[{'name':'h'" fields "}]}"
#define INIT         "'postHooks':[{'init':{'initContainers':[{'name':'i','image':'busybox'}]}}]"
#define EXEC         "'postHooks':[{'exec':{'command':['/bin/sync']}}]"
#define OTHERS(f)    f " is restricted, can not contain namespaces other than: shop"
#define INIT_MSG(f)                                                                                \
    f " is restricted, init container restore hooks are allowed only by the administrator "        \
      "(--allow-restore-init-hooks)"

typedef struct {
    const char *label, *hooks;
    int restore;
    const cw_nac_policy *p;
    const char *msg; /* NULL: accepted */
} hooks_case;

static const hooks_case hooks_cases[] = {
    {"no hooks", NULL, 1, NULL, NULL},
    {"empty hooks", "{}", 1, NULL, NULL},
    {"an exec hook without selectors (held to shop when built)", HOOK("," EXEC), 1, NULL, NULL},
    {"an exec hook selecting shop", HOOK(",'includedNamespaces':['shop']," EXEC), 1, NULL, NULL},
    {"shop twice, and excluded shop",
     HOOK(",'includedNamespaces':['shop','shop'],"
          "'excludedNamespaces':['shop']"),
     1, NULL, NULL},
    {"an empty selector list", HOOK(",'includedNamespaces':[],'excludedNamespaces':[]"), 1, NULL,
     NULL},
    {"null selectors", HOOK(",'includedNamespaces':null"), 1, NULL, NULL},
    {"another namespace", HOOK(",'includedNamespaces':['bank']," EXEC), 1, NULL,
     OTHERS(NAR ".hooks.resources[0].includedNamespaces")},
    {"every namespace (*)", HOOK(",'includedNamespaces':['*']"), 1, NULL,
     OTHERS(NAR ".hooks.resources[0].includedNamespaces")},
    {"a glob that matches shop", HOOK(",'includedNamespaces':['sho*']"), 1, NULL,
     OTHERS(NAR ".hooks.resources[0].includedNamespaces")},
    {"shop and another", HOOK(",'includedNamespaces':['shop','bank']"), 1, NULL,
     OTHERS(NAR ".hooks.resources[0].includedNamespaces")},
    {"excluding another namespace names it too", HOOK(",'excludedNamespaces':['kube-system']"), 1,
     NULL, OTHERS(NAR ".hooks.resources[0].excludedNamespaces")},
    {"a string instead of a list", HOOK(",'includedNamespaces':'shop'"), 1, NULL,
     OTHERS(NAR ".hooks.resources[0].includedNamespaces")},
    {"a number in the list", HOOK(",'includedNamespaces':[1]"), 1, NULL,
     OTHERS(NAR ".hooks.resources[0].includedNamespaces")},
    {"the second entry is the one",
     "{'resources':[{'name':'a'},{'name':'b','includedNamespaces':['bank']}]}", 1, NULL,
     OTHERS(NAR ".hooks.resources[1].includedNamespaces")},
    {"a backup hook naming another namespace", HOOK(",'includedNamespaces':['bank']"), 0, NULL,
     OTHERS(NAB ".hooks.resources[0].includedNamespaces")},
    {"a backup exec hook in shop", HOOK(",'pre':[{'exec':{'command':['fsfreeze']}}]"), 0, NULL,
     NULL},
    {"an init container hook", HOOK("," INIT), 1, NULL,
     INIT_MSG(NAR ".hooks.resources[0].postHooks[0].init")},
    {"an init container hook, nothing allowed", HOOK("," INIT), 1, &STRICT,
     INIT_MSG(NAR ".hooks.resources[0].postHooks[0].init")},
    {"an init container hook the administrator allows", HOOK("," INIT), 1, &LIBERAL, NULL},
    {"an allowed init hook still may not name another namespace",
     HOOK(",'includedNamespaces':['bank']," INIT), 1, &LIBERAL,
     OTHERS(NAR ".hooks.resources[0].includedNamespaces")},
    {"an empty init hook is an init hook", HOOK(",'postHooks':[{'exec':null},{'init':{}}]"), 1,
     NULL, INIT_MSG(NAR ".hooks.resources[0].postHooks[1].init")},
    {"init null is no init hook", HOOK(",'postHooks':[{'init':null,'exec':{'command':['x']}}]"), 1,
     NULL, NULL},
    {"hooks not an object", "[]", 1, NULL, NAR ".hooks is invalid: expected an object, got array"},
    {"resources not a list", "{'resources':{'name':'h'}}", 1, NULL,
     NAR ".hooks.resources is invalid: expected a list, got object"},
    {"an entry not an object", "{'resources':['h']}", 0, NULL,
     NAB ".hooks.resources[0] is invalid: expected an object, got string"},
    {"postHooks not a list", HOOK(",'postHooks':{}"), 1, NULL,
     NAR ".hooks.resources[0].postHooks is invalid: expected a list, got object"},
    {"a post hook not an object", HOOK(",'postHooks':[true]"), 1, NULL,
     NAR ".hooks.resources[0].postHooks[0] is invalid: expected an object, got boolean"},
};

static void test_hooks(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(hooks_cases); i++) {
        const hooks_case *c = &hooks_cases[i];
        json_object *hooks = tjson(c->hooks);
        char *msg = (char *)"unset";
        assert_int_equal(
            cw_nac_check_hooks(hooks, c->restore ? NAR : NAB, "shop", c->restore, c->p, &msg),
            CW_OK);
        expect_msg(c->label, msg, c->msg);
        json_object_put(hooks);
    }
}

#define LIST_MSG(f, names)                                                                         \
    f " is restricted, can only name a ConfigMap the administrator allows "                        \
      "(--allowed-resource-policies): " names

typedef struct {
    const char *label, *spec, *enforced;
    const cw_nac_policy *p;
    const char *msg;
} ref_case;

static const ref_case ref_cases[] = {
    {"none asked for", "{}", NULL, NULL, NULL},
    {"null", "{'resourcePolicy':null}", NULL, NULL, NULL},
    {"on the list", "{'resourcePolicy':{'kind':'configmap','name':'tenant-policies'}}", NULL,
     &LIBERAL, NULL},
    {"kind in any case, as Velero compares",
     "{'resourcePolicy':{'kind':'ConfigMap','name':'shared-modifiers'}}", NULL, &LIBERAL, NULL},
    {"no list: refused, the message says none",
     "{'resourcePolicy':{'kind':'configmap','name':'tenant-policies'}}", NULL, NULL,
     LIST_MSG(NAB ".resourcePolicy", "none")},
    {"an empty list", "{'resourcePolicy':{'kind':'configmap','name':'tenant-policies'}}", NULL,
     &STRICT, LIST_MSG(NAB ".resourcePolicy", "none")},
    {"not on the list: the message names the list",
     "{'resourcePolicy':{'kind':'configmap','name':'velero-admin-policy'}}", NULL, &LIBERAL,
     LIST_MSG(NAB ".resourcePolicy", "tenant-policies, shared-modifiers")},
    {"another kind", "{'resourcePolicy':{'kind':'Secret','name':'tenant-policies'}}", NULL,
     &LIBERAL, LIST_MSG(NAB ".resourcePolicy", "tenant-policies, shared-modifiers")},
    {"no kind", "{'resourcePolicy':{'name':'tenant-policies'}}", NULL, &LIBERAL,
     LIST_MSG(NAB ".resourcePolicy", "tenant-policies, shared-modifiers")},
    {"a string", "{'resourcePolicy':'tenant-policies'}", NULL, &LIBERAL,
     LIST_MSG(NAB ".resourcePolicy", "tenant-policies, shared-modifiers")},
    {"the one the administrator enforces",
     "{'resourcePolicy':{'kind':'configmap','name':'admin-policy'}}",
     "{'resourcePolicy':{'kind':'configmap','name':'admin-policy'}}", NULL, NULL},
    {"a restore's resourceModifier",
     "{'resourceModifier':{'kind':'configmap','name':'shared-modifiers'}}", NULL, &LIBERAL, NULL},
    {"a restore's resourceModifier not allowed",
     "{'resourceModifier':{'kind':'configmap','name':'rewrite-rolebindings'}}", NULL, NULL,
     LIST_MSG(NAR ".resourceModifier", "none")},
};

static void test_policy_refs(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(ref_cases); i++) {
        const ref_case *c = &ref_cases[i];
        json_object *spec = tjson(c->spec), *enf = tjson(c->enforced);
        int restore = strstr(c->spec, "resourceModifier") != NULL;
        char *msg = (char *)"unset";
        assert_int_equal(cw_nac_check_policy_ref(spec, enf,
                                                 restore ? "resourceModifier" : "resourcePolicy",
                                                 restore ? NAR : NAB, c->p, &msg),
                         CW_OK);
        expect_msg(c->label, msg, c->msg);
        json_object_put(spec);
        json_object_put(enf);
    }
}

typedef struct {
    const char *label, *spec;
    int restore;
    const char *msg;
} resources_case;

static const resources_case resources_cases[] = {
    {"nothing", "{}", 0, NULL},
    {"wildcard (the exclusions win in Velero)", "{'includedResources':['*']}", 0, NULL},
    {"the full name passes Velero's validation and is excluded anyway",
     "{'includedResources':['clusterrolebindings.rbac.authorization.k8s.io']}", 0, NULL},
    {"a cluster kind", "{'includedResources':['pods','clusterrolebindings']}", 0,
     NAB ".includedResources is restricted, can not contain clusterrolebindings (excluded from "
         "every non-admin backup)"},
    {"a non-admin kind, new style", "{'includedNamespaceScopedResources':['nonadminrestores']}", 0,
     NAB ".includedNamespaceScopedResources is restricted, can not contain nonadminrestores "
         "(excluded from every non-admin backup)"},
    {"volumesnapshotclasses may be backed up", "{'includedResources':['volumesnapshotclasses']}", 0,
     NULL},
    {"but not restored", "{'includedResources':['volumesnapshotclasses']}", 1,
     NAR ".includedResources is restricted, can not contain volumesnapshotclasses (excluded from "
         "every non-admin restore)"},
    {"excludedResources not a list", "{'excludedResources':'secrets'}", 1,
     NAR ".excludedResources is invalid: expected a list, got string"},
    {"excludedNamespaceScopedResources not a list", "{'excludedNamespaceScopedResources':1}", 0,
     NAB ".excludedNamespaceScopedResources is invalid: expected a list, got integer"},
    {"a restore has no scoped lists to check", "{'excludedNamespaceScopedResources':1}", 1, NULL},
};

static void test_resources(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(resources_cases); i++) {
        const resources_case *c = &resources_cases[i];
        json_object *spec = tjson(c->spec);
        char *msg = (char *)"unset";
        assert_int_equal(cw_nac_check_resources(spec, c->restore ? NAR : NAB, c->restore, &msg),
                         CW_OK);
        expect_msg(c->label, msg, c->msg);
        json_object_put(spec);
    }
}

static void test_policy_names(void **state)
{
    (void)state;
    static char *bad_items[] = {"tenant-policies", "a,b"};
    static char *upper_items[] = {"Policies"};
    cw_strlist bad = {bad_items, 2, 2, CW_OK}, upper = {upper_items, 1, 1, CW_OK};
    cw_nac_policy p = {.allowed_resource_policies = &bad};
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_nac_policy_check(&LIBERAL, &err), CW_OK);
    assert_int_equal(cw_nac_policy_check(NULL, &err), CW_OK);
    assert_int_equal(cw_nac_policy_check(&p, &err), CW_EINVAL);
    assert_string_equal(err.message,
                        "\"a,b\" is not a ConfigMap name: a lowercase RFC 1123 subdomain must "
                        "consist of lower case alphanumeric characters, '-' or '.', and must start "
                        "and end with an alphanumeric character (give the flag once per name)");
    p.allowed_resource_policies = &upper;
    assert_int_equal(cw_nac_policy_check(&p, &err), CW_EINVAL);
    assert_string_equal(err.message,
                        "\"Policies\" is not a ConfigMap name: a lowercase RFC 1123 subdomain must "
                        "consist of lower case alphanumeric characters, '-' or '.', and must start "
                        "and end with an alphanumeric character");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hooks),
        cmocka_unit_test(test_policy_refs),
        cmocka_unit_test(test_resources),
        cmocka_unit_test(test_policy_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
