/* oadp/nonadmin.c: OADP's non-admin rules. Tables of real cases with exact results: the
 * backupSpec checks and their messages (the attacker's tries among them), the enforced spec, the
 * Velero spec built from a NonAdminBackup, nacuuid shortening, the queue-position rule (ties in
 * creation time, finished Backups, the backup queue's own position) and condition bookkeeping. */
#include "nac_test.h"

#include <ctype.h>

#include "oadp/nonadmin.h"

#define R(f) "NonAdminBackup spec.backupSpec." f " is restricted"
#define ENF                                                                                        \
    "{'ttl':'720h0m0s','snapshotVolumes':false,'defaultVolumesToFsBackup':true,'storageLocation':" \
    "''}"

typedef struct {
    const char *label, *spec, *enforced, *msg; /* msg NULL: accepted */
} spec_case;

static const spec_case spec_cases[] = {
    {"empty spec", "{}", NULL, NULL},
    {"absent spec", NULL, NULL, NULL},
    {"own namespace named", "{'includedNamespaces':['shop']}", NULL, NULL},
    {"own namespace twice", "{'includedNamespaces':['shop','shop']}", NULL, NULL},
    {"empty includedNamespaces (forced to the own one)", "{'includedNamespaces':[]}", NULL, NULL},
    {"null fields are absent", "{'excludedNamespaces':null,'volumeSnapshotLocations':null}", NULL,
     NULL},
    {"labelSelector is the user's business (the namespace is forced)",
     "{'labelSelector':{'matchLabels':{'app':'x'}},'orLabelSelectors':[{'matchLabels':{'a':'b'}}]}",
     NULL, NULL},
    {"includeClusterResources false", "{'includeClusterResources':false}", NULL, NULL},
    {"includedClusterScopedResources empty", "{'includedClusterScopedResources':[]}", NULL, NULL},
    {"another namespace", "{'includedNamespaces':['bank']}", NULL,
     R("includedNamespaces") ", can not contain namespaces other than: shop"},
    {"own and another", "{'includedNamespaces':['shop','bank']}", NULL,
     R("includedNamespaces") ", can not contain namespaces other than: shop"},
    {"every namespace (*)", "{'includedNamespaces':['*']}", NULL,
     R("includedNamespaces") ", can not contain namespaces other than: shop"},
    {"a glob", "{'includedNamespaces':['sho*']}", NULL,
     R("includedNamespaces") ", can not contain namespaces other than: shop"},
    {"a string instead of a list", "{'includedNamespaces':'bank'}", NULL,
     R("includedNamespaces") ", can not contain namespaces other than: shop"},
    {"a number in the list", "{'includedNamespaces':[1]}", NULL,
     R("includedNamespaces") ", can not contain namespaces other than: shop"},
    {"excludedNamespaces (empty list still set)", "{'excludedNamespaces':[]}", NULL,
     R("excludedNamespaces")},
    {"excludedNamespaces of the own", "{'excludedNamespaces':['shop']}", NULL,
     R("excludedNamespaces")},
    {"includeClusterResources true", "{'includeClusterResources':true}", NULL,
     R("includeClusterResources") ", can only be set to false"},
    {"includeClusterResources as a string", "{'includeClusterResources':'true'}", NULL,
     R("includeClusterResources") ", can only be set to false"},
    {"cluster-scoped resources", "{'includedClusterScopedResources':['namespaces']}", NULL,
     R("includedClusterScopedResources") ", must remain empty"},
    {"storageLocation", "{'storageLocation':'other'}", NULL,
     R("storageLocation") ", must remain empty (NonAdminBackupStorageLocation is not supported by "
                          "cronwarden: backups go to the default location)"},
    {"storageLocation empty", "{'storageLocation':''}", NULL, NULL},
    {"volumeSnapshotLocations", "{'volumeSnapshotLocations':[]}", NULL,
     R("volumeSnapshotLocations")},
    {"first problem wins (OADP's order)",
     "{'volumeSnapshotLocations':['a'],'includedNamespaces':['bank'],'excludedNamespaces':['x']}",
     NULL, R("includedNamespaces") ", can not contain namespaces other than: shop"},
    {"spec not an object", "[]", NULL,
     "NonAdminBackup spec.backupSpec is invalid: expected an object, got array"},
    {"enforced: absent is fine", "{'includedResources':['pods']}", ENF, NULL},
    {"enforced: equal is fine", "{'ttl':'720h0m0s','snapshotVolumes':false}", ENF, NULL},
    {"enforced: a string differs", "{'ttl':'1h0m0s'}", ENF,
     "the administrator has restricted spec.backupSpec.ttl field value to 720h0m0s"},
    {"enforced: a bool differs", "{'defaultVolumesToFsBackup':false}", ENF,
     "the administrator has restricted spec.backupSpec.defaultVolumesToFsBackup field value to "
     "true"},
    {"enforced: a zero enforced value enforces nothing", "{'storageLocation':''}", ENF, NULL},
    {"enforced: a list", "{'includedResources':['secrets']}", "{'includedResources':['pods']}",
     "the administrator has restricted spec.backupSpec.includedResources field value to "
     "[\"pods\"]"},
};

static void test_check_spec(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(spec_cases); i++) {
        const spec_case *c = &spec_cases[i];
        json_object *spec = tjson(c->spec), *enf = tjson(c->enforced);
        char *msg = (char *)"unset";
        assert_int_equal(cw_nab_check_spec(spec, "shop", enf, NULL, &msg), CW_OK);
        expect_msg(c->label, msg, c->msg);
        json_object_put(spec);
        json_object_put(enf);
    }
}

typedef struct {
    const char *label, *enforced, *error; /* error NULL: accepted */
    int restore;                          /* a RestoreSpec (--enforce-restore-spec) */
} enforced_case;

static const enforced_case enforced_cases[] = {
    {"none", NULL, NULL, 0},
    {"usual fields", ENF, NULL, 0},
    {"includeClusterResources false", "{'includeClusterResources':false}", NULL, 0},
    {"a list", "[]", "expected a Velero BackupSpec (a map), got array", 0},
    {"namespaces", "{'includedNamespaces':['a']}",
     "includedNamespaces: non-admin backups may not set it, so it cannot be enforced", 0},
    {"excluded", "{'excludedNamespaces':['a']}",
     "excludedNamespaces: non-admin backups may not set it, so it cannot be enforced", 0},
    {"storage location", "{'storageLocation':'s3'}",
     "storageLocation: non-admin backups may not set it, so it cannot be enforced", 0},
    {"cluster resources", "{'includeClusterResources':true}",
     "includeClusterResources: non-admin backups can only set it to false", 0},
    /* What an enforced spec cannot loosen. */
    {"restore: namespaceMapping", "{'namespaceMapping':{'a':'b'}}",
     "namespaceMapping: non-admin restores may not set it, so it cannot be enforced", 1},
    {"restore: includeClusterResources true", "{'includeClusterResources':true}",
     "includeClusterResources: non-admin restores can only set it to false", 1},
    {"restore: includeClusterResources false", "{'includeClusterResources':false}", NULL, 1},
    {"restore: includedResources naming an always-excluded kind",
     "{'includedResources':['volumesnapshotclasses']}",
     "includedResources: names volumesnapshotclasses, which every non-admin restore excludes", 1},
    {"restore: excludedResources of its own (the exclusions are added to it)",
     "{'excludedResources':['secrets']}", NULL, 1},
    {"restore: excludedResources not a list", "{'excludedResources':'secrets'}",
     "excludedResources: expected a list, got string", 1},
    {"restore: hooks naming a namespace",
     "{'hooks':{'resources':[{'name':'h','includedNamespaces':['shop']}]}}",
     "hooks.resources[0].includedNamespaces: non-admin restores may not name namespaces, so it "
     "cannot be enforced",
     1},
    {"restore: the administrator's own init hook is the administrator's",
     "{'hooks':{'resources':[{'name':'h','postHooks':[{'init':{'initContainers':[{'name':'i',"
     "'image':'busybox'}]}}]}]}}",
     NULL, 1},
    {"restore: the administrator's resource modifier",
     "{'resourceModifier':{'kind':'ConfigMap','name':'admin-modifier'}}", NULL, 1},
    {"backup: includedNamespaceScopedResources naming a non-admin kind",
     "{'includedNamespaceScopedResources':['nonadminbackups']}",
     "includedNamespaceScopedResources: names nonadminbackups, which every non-admin backup "
     "excludes",
     0},
    {"backup: includedResources naming a cluster kind", "{'includedResources':['clusterroles']}",
     "includedResources: names clusterroles, which every non-admin backup excludes", 0},
    {"backup: excludedClusterScopedResources not a list",
     "{'excludedClusterScopedResources':{'a':1}}",
     "excludedClusterScopedResources: expected a list, got object", 0},
    {"backup: hooks excluding a namespace",
     "{'hooks':{'resources':[{'name':'h'},{'name':'g','excludedNamespaces':['kube-system']}]}}",
     "hooks.resources[1].excludedNamespaces: non-admin backups may not name namespaces, so it "
     "cannot be enforced",
     0},
    {"backup: hooks of the wrong shape", "{'hooks':{'resources':{}}}",
     "hooks.resources: expected a list, got object", 0},
    {"backup: includeClusterResources as a string", "{'includeClusterResources':'true'}",
     "includeClusterResources: non-admin backups can only set it to false", 0},
    {"backup: the administrator's resource policy",
     "{'resourcePolicy':{'kind':'configmap','name':'admin-policy'}}", NULL, 0},
};

static void test_check_enforced(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(enforced_cases); i++) {
        const enforced_case *c = &enforced_cases[i];
        json_object *enf = tjson(c->enforced);
        cw_error err;
        cw_error_init(&err);
        int rc = c->restore ? cw_nar_check_enforced(enf, &err) : cw_nab_check_enforced(enf, &err);
        if (!c->error && rc != CW_OK)
            fail_msg("%s: %s", c->label, err.message);
        if (c->error && (rc != CW_EINVAL || strcmp(err.message, c->error)))
            fail_msg("%s:\n got: %d %s\nwant: %s", c->label, rc, err.message, c->error);
        json_object_put(enf);
    }
}

typedef struct {
    const char *label, *spec, *enforced, *want;
} velero_case;

/* OADP's exclusions, spelled out here (not taken from the code under test). */
#define EXCL_NAC "'nonadminbackups','nonadminrestores','nonadminbackupstoragelocations'"
#define EXCL_CLUSTER                                                                               \
    "'securitycontextconstraints','clusterroles','clusterrolebindings','priorityclasses',"         \
    "'customresourcedefinitions','virtualmachineclusterinstancetypes',"                            \
    "'virtualmachineclusterpreferences'"
#define EXCL_OLD "'excludedResources':[" EXCL_NAC "," EXCL_CLUSTER "]"

static const velero_case velero_cases[] = {
    {"empty: the namespace is forced, OADP's exclusions added", "{}", NULL,
     "{'includedNamespaces':['shop']," EXCL_OLD "}"},
    {"absent spec", NULL, NULL, "{'includedNamespaces':['shop']," EXCL_OLD "}"},
    {"own namespace kept, the rest copied", "{'includedNamespaces':[],'ttl':'1h0m0s'}", NULL,
     "{'includedNamespaces':['shop'],'ttl':'1h0m0s'," EXCL_OLD "}"},
    {"enforced fields filled in where unset", "{'ttl':'720h0m0s','storageLocation':''}", ENF,
     "{'includedNamespaces':['shop'],'ttl':'720h0m0s','snapshotVolumes':false,"
     "'defaultVolumesToFsBackup':true,'storageLocation':''," EXCL_OLD "}"},
    {"the user's exclusions first, none repeated",
     "{'excludedResources':['secrets','clusterroles'],'includeClusterResources':false}", NULL,
     "{'includedNamespaces':['shop'],'includeClusterResources':false,'excludedResources':["
     "'secrets','clusterroles','nonadminbackups','nonadminrestores',"
     "'nonadminbackupstoragelocations','securitycontextconstraints','clusterrolebindings',"
     "'priorityclasses','customresourcedefinitions','virtualmachineclusterinstancetypes',"
     "'virtualmachineclusterpreferences']}"},
    {"new-style filters: the exclusions go to the scoped lists",
     "{'excludedClusterScopedResources':['storageclasses']}", NULL,
     "{'includedNamespaces':['shop'],'excludedClusterScopedResources':['storageclasses'"
     "," EXCL_CLUSTER "],'excludedNamespaceScopedResources':[" EXCL_NAC "]}"},
    {"new style by includedNamespaceScopedResources",
     "{'includedNamespaceScopedResources':['pods']}", NULL,
     "{'includedNamespaces':['shop'],'includedNamespaceScopedResources':['pods'],"
     "'excludedNamespaceScopedResources':[" EXCL_NAC
     "],'excludedClusterScopedResources':[" EXCL_CLUSTER "]}"},
    {"an empty new-style list is no filter: old style", "{'excludedClusterScopedResources':[]}",
     NULL, "{'includedNamespaces':['shop'],'excludedClusterScopedResources':[]," EXCL_OLD "}"},
    {"an enforced new-style filter decides the style (filled in first, as OADP)", "{}",
     "{'excludedNamespaceScopedResources':['events']}",
     "{'includedNamespaces':['shop'],'excludedNamespaceScopedResources':['events'," EXCL_NAC
     "],'excludedClusterScopedResources':[" EXCL_CLUSTER "]}"},
    {"hooks are held to the namespace",
     "{'hooks':{'resources':[{'name':'a','pre':[{'exec':{'command':['x']}}]},{'name':'b',"
     "'includedNamespaces':['shop'],'excludedNamespaces':['shop']}]}}",
     NULL,
     "{'includedNamespaces':['shop'],'hooks':{'resources':[{'name':'a','pre':[{'exec':{'command':"
     "['x']}}],'includedNamespaces':['shop']},{'name':'b','includedNamespaces':['shop'],"
     "'excludedNamespaces':['shop']}]}," EXCL_OLD "}"},
};

static void test_velero_spec(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(velero_cases); i++) {
        const velero_case *c = &velero_cases[i];
        json_object *spec = tjson(c->spec), *enf = tjson(c->enforced), *out = NULL;
        assert_int_equal(cw_nab_velero_spec(spec, "shop", enf, &out), CW_OK);
        expect_json(out, c->want, "velero spec", c->label);
        json_object_put(out);
        json_object_put(spec);
        json_object_put(enf);
    }
}

#define U "0d0b7b2c-ee76-412d-a867-2c23b8aa51ab"

typedef struct {
    const char *label, *ns, *name, *want;
} nacuuid_case;

static const nacuuid_case nacuuid_cases[] = {
    {"fits", "shop", "daily", "shop-daily-" U},
    {"exactly 26 before the uuid", "mongo-persistent", "anotherte",
     "mongo-persistent-anotherte-" U},
    {"the name is shortened first (OADP's example)", "mongo-persistent", "anothertest",
     "mongo-persistent-anotherte-" U},
    {"two name characters left", "abcdefghijklmnopqrstuvw", "name",
     "abcdefghijklmnopqrstuvw-na-" U},
    {"one name character left", "abcdefghijklmnopqrstuvwx", "name",
     "abcdefghijklmnopqrstuvwx-n-" U},
    {"no room for the name: namespace alone", "abcdefghijklmnopqrstuvwxy", "name",
     "abcdefghijklmnopqrstuvwxy-" U},
    {"a namespace over 25 is cut to 25, the name dropped (OADP)",
     "a-very-long-namespace-name-that-goes-on", "n", "a-very-long-namespace-nam-" U},
    {"a namespace of the longest kind (63)",
     "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij123", "daily",
     "abcdefghijabcdefghijabcde-" U},
    {"the issue's case: a '.' at the cut is dropped", "team-a", "aaaaaaaaaaaaaaaaaa.b",
     "team-a-aaaaaaaaaaaaaaaaaa-" U},
    {"a '-' at the cut is dropped", "team-a", "aaaaaaaaaaaaaaaaaa-b",
     "team-a-aaaaaaaaaaaaaaaaaa-" U},
    {"'.' and '-' at the cut, all dropped", "team-a", "aaaaaaaaaaaaaaaa.-.bbb",
     "team-a-aaaaaaaaaaaaaaaa-" U},
    {"a dot inside the kept part stays", "team-a", "web.db-backup-of-today",
     "team-a-web.db-backup-of-to-" U},
    {"a dot that fits stays", "shop", "db.daily", "shop-db.daily-" U},
    {"a namespace cut on '-'", "abcdefghijklmnopqrstuvwx-yz", "daily",
     "abcdefghijklmnopqrstuvwx-" U},
    {"nothing of the name left after the cut", "abcdefghijklmnopqrstuvw", "..x",
     "abcdefghijklmnopqrstuvw-" U},
    {"bytes no name holds become '-' and a part starts on a letter or digit", "shop",
     "N\xc3\xa4me_1", "shop-me-1-" U},
};

static void test_nacuuid(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(nacuuid_cases); i++) {
        const nacuuid_case *c = &nacuuid_cases[i];
        char out[CW_NACUUID_MAX + 1];
        cw_nacuuid_format(c->ns, c->name, U, out, sizeof(out));
        if (strcmp(out, c->want))
            fail_msg("%s:\n got: %s\nwant: %s", c->label, out, c->want);
        assert_true(strlen(out) <= CW_NACUUID_MAX);
        if (!cw_nacuuid_valid(out))
            fail_msg("%s: \"%s\" is not a valid name", c->label, out);
    }
}

typedef struct {
    const char *s;
    int valid;
} valid_case;

static void test_nacuuid_valid(void **state)
{
    (void)state;
    static const valid_case cases[] = {
        {"shop-daily-" U, 1},
        {"team-a-aaaaaaaaaaaaaaaaaa.-" U, 0}, /* what the old cut made */
        {"shop-db.daily-" U, 1},
        {"-shop-" U, 0},
        {"shop..x-" U, 0},
        {"Shop-" U, 0},
        {"a-very-long-namespace-name-x-" U, 0}, /* 65 characters */
        {"", 0},
    };
    for (size_t i = 0; i < N(cases); i++)
        if (cw_nacuuid_valid(cases[i].s) != cases[i].valid)
            fail_msg("\"%s\": valid %d, want %d", cases[i].s, !cases[i].valid, cases[i].valid);
    assert_false(cw_nacuuid_valid(NULL));
}

typedef struct {
    const char *label, *ns, *name, *nacuuid;
    int ours;
} for_case;

/* Which recorded nacuuids are used for shop/daily (and the other objects named): the ones
 * cw_nacuuid_format or OADP would make, and nothing a status writer chooses. */
static void test_nacuuid_for(void **state)
{
    (void)state;
    static const for_case cases[] = {
        {"cronwarden's", "shop", "daily", "shop-daily-" U, 1},
        {"any uuid", "shop", "daily", "shop-daily-ffffffff-0000-1111-2222-333333333333", 1},
        {"cut as cronwarden cuts", "team-a", "aaaaaaaaaaaaaaaaaa.b", "team-a-aaaaaaaaaaaaaaaaaa-" U,
         1},
        {"cut as OADP cuts, on a '-' (a valid name: OADP's objects are adopted)", "team-a",
         "aaaaaaaaaaaaaaaaaa-b", "team-a-aaaaaaaaaaaaaaaaaa--" U, 1},
        {"cut as OADP cuts, on a '.' (no valid name)", "team-a", "aaaaaaaaaaaaaaaaaa.b",
         "team-a-aaaaaaaaaaaaaaaaaa.-" U, 0},
        {"a long namespace alone", "a-very-long-namespace-name-that-goes-on", "n",
         "a-very-long-namespace-nam-" U, 1},
        {"another object's", "shop", "daily", "shop-weekly-" U, 0},
        {"another namespace's", "shop", "daily", "bank-daily-" U, 0},
        {"the Backup an administrator's Schedule makes next", "shop", "daily",
         "nightly-20260102010000", 0},
        {"an administrator's Backup ending in a uuid", "shop", "daily", "admin-" U, 0},
        {"no uuid at the end", "shop", "daily", "shop-daily-0d0b7b2c-ee76-412d-a867-2c23b8aa51a",
         0},
        {"a uuid in capitals", "shop", "daily", "shop-daily-0D0B7B2C-EE76-412D-A867-2C23B8AA51AB",
         0},
        {"dashes out of place", "shop", "daily", "shop-daily-0d0b7b2cee76-412d-a867--2c23b8aa51ab",
         0},
        {"the uuid alone", "shop", "daily", U, 0},
        {"empty", "shop", "daily", "", 0},
    };
    for (size_t i = 0; i < N(cases); i++)
        if (cw_nacuuid_for(cases[i].ns, cases[i].name, cases[i].nacuuid) != cases[i].ours)
            fail_msg("%s: \"%s\" for %s/%s: %d, want %d", cases[i].label, cases[i].nacuuid,
                     cases[i].ns, cases[i].name, !cases[i].ours, cases[i].ours);
    assert_false(cw_nacuuid_for("shop", "daily", NULL));
    assert_false(cw_nacuuid_for(NULL, "daily", "shop-daily-" U));
}

static void test_uuid4(void **state)
{
    (void)state;
    char a[CW_UUID4_LEN + 1], b[CW_UUID4_LEN + 1];
    cw_error err;
    assert_int_equal(cw_uuid4(a, sizeof(a), &err), CW_OK);
    assert_int_equal(cw_uuid4(b, sizeof(b), &err), CW_OK);
    assert_int_equal(strlen(a), 36);
    assert_string_not_equal(a, b);
    for (int i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23)
            assert_int_equal(a[i], '-');
        else
            assert_true(isxdigit((unsigned char)a[i]) && !isupper((unsigned char)a[i]));
    }
    assert_int_equal(a[14], '4');           /* version 4 */
    assert_non_null(strchr("89ab", a[19])); /* RFC 4122 variant */
    assert_int_equal(cw_uuid4(a, 10, &err), CW_ELIMIT);
}

#define VB(name, created, status)                                                                  \
    "{'metadata':{'name':'" name "','creationTimestamp':'" created "'},'status':" status "}"
#define DONE "{'phase':'Completed','completionTimestamp':'2026-01-01T01:00:00Z'}"
#define ALL_BACKUPS                                                                                \
    "[" VB("a", "2026-01-01T00:00:00Z", "{'phase':'InProgress'}") "," VB(                          \
        "b", "2026-01-01T00:00:01Z",                                                               \
        DONE) "," VB("c", "2026-01-01T00:00:02Z",                                                  \
                     "{}") "," VB("d", "2026-01-01T00:00:02Z",                                     \
                                  "{'phase':'New'}") "," VB("e", "2026-01-01T00:00:03Z", "{}") "]"

typedef struct {
    const char *label, *target, *all;
    int64_t want;
} queue_case;

static const queue_case queue_cases[] = {
    {"no Velero Backup yet", NULL, ALL_BACKUPS, 0},
    {"finished", VB("b", "2026-01-01T00:00:01Z", DONE), ALL_BACKUPS, 0},
    {"first in line", VB("a", "2026-01-01T00:00:00Z", "{'phase':'InProgress'}"), ALL_BACKUPS, 1},
    {"a finished one ahead does not count", VB("c", "2026-01-01T00:00:02Z", "{}"), ALL_BACKUPS, 2},
    {"a tie in creation time is not ahead", VB("d", "2026-01-01T00:00:02Z", "{'phase':'New'}"),
     ALL_BACKUPS, 2},
    {"both of the tie are ahead of a later one", VB("e", "2026-01-01T00:00:03Z", "{}"), ALL_BACKUPS,
     4},
    {"alone", VB("z", "2026-01-01T00:00:09Z", "{}"), "[]", 1},
    {"the backup queue's own position wins while Queued",
     VB("e", "2026-01-01T00:00:03Z", "{'phase':'Queued','queuePosition':7}"), ALL_BACKUPS, 7},
    {"Queued without a position: the estimate",
     VB("e", "2026-01-01T00:00:03Z", "{'phase':'Queued','queuePosition':0}"), ALL_BACKUPS, 4},
    {"a position outside Queued is ignored",
     VB("e", "2026-01-01T00:00:03Z", "{'phase':'InProgress','queuePosition':7}"), ALL_BACKUPS, 4},
    {"no creation time yet: no estimate", "{'metadata':{'name':'n'},'status':{}}", ALL_BACKUPS, 0},
};

static void test_queue_position(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(queue_cases); i++) {
        const queue_case *c = &queue_cases[i];
        json_object *t = tjson(c->target), *all = tjson(c->all);
        int64_t got = cw_nac_queue_position(t, all);
        if (got != c->want)
            fail_msg("%s: got %lld, want %lld", c->label, (long long)got, (long long)c->want);
        json_object_put(t);
        json_object_put(all);
    }
}

#define T0 "2026-01-01T00:00:00Z"
#define T1 "2026-01-01T00:00:05Z"
#define C(type, st, reason, msg, t)                                                                \
    "{'type':'" type "','lastTransitionTime':'" t "','status':'" st "','reason':'" reason          \
    "','message':'" msg "'}"

#define CG(type, st, reason, msg, t, gen)                                                          \
    "{'type':'" type "','lastTransitionTime':'" t "','status':'" st "','reason':'" reason          \
    "','message':'" msg "','observedGeneration':" gen "}"

typedef struct {
    const char *label, *conds, *type, *status, *reason, *msg;
    int changed;
    const char *want;
    int64_t gen;
} cond_case;

static const cond_case cond_cases[] = {
    {"added to nothing", NULL, "Accepted", "True", "BackupAccepted", "backup accepted", 1,
     "[" C("Accepted", "True", "BackupAccepted", "backup accepted", T1) "]", 0},
    {"the same again: unchanged",
     "[" C("Accepted", "True", "BackupAccepted", "backup accepted", T0) "]", "Accepted", "True",
     "BackupAccepted", "backup accepted", 0,
     "[" C("Accepted", "True", "BackupAccepted", "backup accepted", T0) "]", 0},
    {"status flips: a new transition time",
     "[" C("Accepted", "False", "InvalidBackupSpec", "x", T0) "]", "Accepted", "True",
     "BackupAccepted", "backup accepted", 1,
     "[" C("Accepted", "True", "BackupAccepted", "backup accepted", T1) "]", 0},
    {"same status, new message: the time stays",
     "[" C("Accepted", "False", "InvalidBackupSpec", "x", T0) "]", "Accepted", "False",
     "InvalidBackupSpec", "y", 1, "[" C("Accepted", "False", "InvalidBackupSpec", "y", T0) "]", 0},
    {"another type is appended",
     "[" C("Accepted", "True", "BackupAccepted", "backup accepted", T0) "]", "Queued", "True",
     "BackupScheduled", "Created Velero Backup object", 1,
     "[" C("Accepted", "True", "BackupAccepted", "backup accepted",
           T0) "," C("Queued", "True", "BackupScheduled", "Created Velero Backup object", T1) "]",
     0},
    {"a refusal records the generation it was made from",
     "[" C("Accepted", "True", "BackupAccepted", "backup accepted", T0) "]", "Accepted", "False",
     "InvalidBackupSpec", "refused", 1,
     "[" CG("Accepted", "False", "InvalidBackupSpec", "refused", T1, "3") "]", 3},
    {"the same refusal of the same generation: unchanged",
     "[" CG("Accepted", "False", "InvalidBackupSpec", "refused", T0, "3") "]", "Accepted", "False",
     "InvalidBackupSpec", "refused", 0,
     "[" CG("Accepted", "False", "InvalidBackupSpec", "refused", T0, "3") "]", 3},
    {"only the generation differs: changed, the time stays",
     "[" CG("Accepted", "False", "InvalidBackupSpec", "refused", T0, "3") "]", "Accepted", "False",
     "InvalidBackupSpec", "refused", 1,
     "[" CG("Accepted", "False", "InvalidBackupSpec", "refused", T0, "4") "]", 4},
    {"a condition set without one drops it (metav1 omits a zero)",
     "[" CG("Accepted", "False", "InvalidBackupSpec", "refused", T0, "3") "]", "Accepted", "True",
     "BackupAccepted", "backup accepted", 1,
     "[" C("Accepted", "True", "BackupAccepted", "backup accepted", T1) "]", 0},
};

static void test_conditions(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(cond_cases); i++) {
        const cond_case *c = &cond_cases[i];
        json_object *conds = tjson(c->conds);
        int rc = c->gen ? cw_nac_set_condition_gen(&conds, c->type, c->status, c->reason, c->msg,
                                                   T1, c->gen)
                        : cw_nac_set_condition(&conds, c->type, c->status, c->reason, c->msg, T1);
        if (rc != c->changed)
            fail_msg("%s: changed %d, want %d", c->label, rc, c->changed);
        expect_json(conds, c->want, "conditions", c->label);
        json_object_put(conds);
    }
}

static void test_phase_rank(void **state)
{
    (void)state;
    assert_int_equal(cw_nac_phase_rank(NULL), 0);
    assert_true(cw_nac_phase_rank("New") < cw_nac_phase_rank("BackingOff"));
    assert_true(cw_nac_phase_rank("BackingOff") < cw_nac_phase_rank("Created"));
    assert_true(cw_nac_phase_rank("Created") < cw_nac_phase_rank("Deleting"));
    assert_int_equal(cw_nac_phase_rank("Deletion"), -1);
}

#define NR(f) "NonAdminRestore spec.restoreSpec." f " is restricted"
#define NOT_READY                                                                                  \
    "NonAdminRestore spec.restoreSpec.backupName is invalid: NonAdminBackup is not ready to be "   \
    "restored"
#define NAB_READY                                                                                  \
    "{'metadata':{'name':'daily','namespace':'shop'},'status':{'phase':'Created',"                 \
    "'veleroBackup':{'nacuuid':'shop-daily-" U "'}}}"

#define NAC_D "shop-daily-" U
/* daily's Velero Backup as the NonAdminBackup reconciler made it. */
#define VB_OF(name, labels, ann)                                                                   \
    "{'metadata':{'name':'" name "','namespace':'openshift-adp','labels':{" labels                 \
    "},'annotations':{" ann "}}}"
#define LBL(nac) "'openshift.io/oadp':'True','openshift.io/oadp-nab-origin-nacuuid':'" nac "'"
#define ANN(n, ns)                                                                                 \
    "'openshift.io/oadp-nab-origin-name':'" n "','openshift.io/oadp-nab-origin-namespace':'" ns "'"
#define VB_OK VB_OF(NAC_D, LBL(NAC_D), ANN("daily", "shop"))
#define NO_BACKUP                                                                                  \
    "NonAdminRestore spec.restoreSpec.backupName is invalid: no Velero Backup "                    \
    "openshift-adp/" NAC_D " with the origin label and annotations of NonAdminBackup shop/daily"

typedef struct {
    const char *label, *spec, *nab, *backup, *enforced, *msg;
} restore_case;

static const restore_case restore_cases[] = {
    {"plain", "{'backupName':'daily'}", NAB_READY, VB_OK, NULL, NULL},
    {"empty lists and maps are absent",
     "{'backupName':'daily','includedNamespaces':[],'namespaceMapping':{}}", NAB_READY, VB_OK, NULL,
     NULL},
    {"no backupName", "{}", NAB_READY, VB_OK, NULL,
     "NonAdminRestore spec.restoreSpec.backupName is not set"},
    {"backupName not a string", "{'backupName':['daily']}", NAB_READY, VB_OK, NULL,
     "NonAdminRestore spec.restoreSpec.backupName is not set"},
    {"scheduleName", "{'backupName':'daily','scheduleName':'nightly'}", NAB_READY, VB_OK, NULL,
     NR("scheduleName")},
    {"includedNamespaces", "{'backupName':'daily','includedNamespaces':['bank']}", NAB_READY, VB_OK,
     NULL, NR("includedNamespaces")},
    {"includedNamespaces *", "{'backupName':'daily','includedNamespaces':['*']}", NAB_READY, VB_OK,
     NULL, NR("includedNamespaces")},
    {"excludedNamespaces", "{'backupName':'daily','excludedNamespaces':['shop']}", NAB_READY, VB_OK,
     NULL, NR("excludedNamespaces")},
    {"namespaceMapping into another namespace",
     "{'backupName':'daily','namespaceMapping':{'shop':'bank'}}", NAB_READY, VB_OK, NULL,
     NR("namespaceMapping")},
    {"no such NonAdminBackup here (another namespace's is never looked at)",
     "{'backupName':'daily'}", NULL, NULL, NULL, NOT_READY},
    {"the NonAdminBackup is not Created yet", "{'backupName':'daily'}",
     "{'status':{'phase':'New','veleroBackup':{'nacuuid':'x'}}}", NULL, NULL, NOT_READY},
    {"the NonAdminBackup is being deleted", "{'backupName':'daily'}",
     "{'metadata':{'deletionTimestamp':'2026-01-01T00:00:00Z'},'status':{'phase':'Created',"
     "'veleroBackup':{'nacuuid':'x'}}}",
     NULL, NULL, NOT_READY},
    /* A status written by someone with rights on nonadminbackups/status. */
    {"forged: the nacuuid of bank's backup", "{'backupName':'daily'}", NAB_READY,
     VB_OF(NAC_D, LBL(NAC_D), ANN("daily", "bank")), NULL, NO_BACKUP},
    {"forged: an administrator's Backup without origin", "{'backupName':'daily'}", NAB_READY,
     "{'metadata':{'name':'" NAC_D "','namespace':'openshift-adp'}}", NULL, NO_BACKUP},
    {"forged: the origin of another NonAdminBackup of shop", "{'backupName':'daily'}", NAB_READY,
     VB_OF(NAC_D, LBL(NAC_D), ANN("weekly", "shop")), NULL, NO_BACKUP},
    {"forged: the label names another nacuuid", "{'backupName':'daily'}", NAB_READY,
     VB_OF(NAC_D, LBL("shop-weekly-" U), ANN("daily", "shop")), NULL, NO_BACKUP},
    {"the Backup given is under another name", "{'backupName':'daily'}", NAB_READY,
     VB_OF("other", LBL(NAC_D), ANN("daily", "shop")), NULL, NO_BACKUP},
    {"the Velero Backup does not exist", "{'backupName':'daily'}", NAB_READY, NULL, NULL,
     NO_BACKUP},
    {"the Backup given is in another namespace", "{'backupName':'daily'}", NAB_READY,
     "{'metadata':{'name':'" NAC_D
     "','namespace':'velero','labels':{" LBL(NAC_D) "},'annotations':{" ANN("daily", "shop") "}}}",
     NULL, NO_BACKUP},
    {"includeClusterResources true", "{'backupName':'daily','includeClusterResources':true}",
     NAB_READY, VB_OK, NULL, NR("includeClusterResources") ", can only be set to false"},
    {"includeClusterResources as a string",
     "{'backupName':'daily','includeClusterResources':'true'}", NAB_READY, VB_OK, NULL,
     NR("includeClusterResources") ", can only be set to false"},
    {"includeClusterResources false", "{'backupName':'daily','includeClusterResources':false}",
     NAB_READY, VB_OK, NULL, NULL},
    {"enforced", "{'backupName':'daily','existingResourcePolicy':'update'}", NAB_READY, VB_OK,
     "{'existingResourcePolicy':'none'}",
     "the administrator has restricted spec.restoreSpec.existingResourcePolicy field value to "
     "none"},
    {"tenancy after OADP's checks: includedResources naming an excluded kind",
     "{'backupName':'daily','includedResources':['clusterrolebindings']}", NAB_READY, VB_OK, NULL,
     NR("includedResources") ", can not contain clusterrolebindings (excluded from every "
                             "non-admin restore)"},
    {"a resource modifier (no policy: none allowed)",
     "{'backupName':'daily','resourceModifier':{'kind':'ConfigMap','name':'m'}}", NAB_READY, VB_OK,
     NULL,
     NR("resourceModifier") ", can only name a ConfigMap the administrator allows "
                            "(--allowed-resource-policies): none"},
};

static void test_check_restore(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(restore_cases); i++) {
        const restore_case *c = &restore_cases[i];
        json_object *spec = tjson(c->spec), *nab = tjson(c->nab), *enf = tjson(c->enforced);
        json_object *vb = tjson(c->backup);
        cw_nar_context ctx = {
            .ns = "shop", .oadp = "openshift-adp", .nab = nab, .backup = vb, .enforced = enf};
        char *msg = NULL;
        assert_int_equal(cw_nar_check_spec(spec, &ctx, &msg), CW_OK);
        expect_msg(c->label, msg, c->msg);
        json_object_put(spec);
        json_object_put(nab);
        json_object_put(enf);
        json_object_put(vb);
    }
}

/* A backupName that no object can have: OADP's NotFound answer (its cache has no such object),
 * before anything is read, whatever the namespace holds (here: daily, ready to be restored). */
#define NOT_FOUND(q)                                                                               \
    "NonAdminRestore spec.restoreSpec.backupName is invalid: NonAdminBackup.oadp.openshift.io " q  \
    " not found"

static const struct {
    const char *label, *name, *msg; /* name: JSON text of the value */
} name_cases[] = {
    {"a name", "'daily'", NULL},
    {"dots and dashes: a name, checked on (daily's Backup is not its)", "'a-1.b-2'",
     "NonAdminRestore spec.restoreSpec.backupName is invalid: no Velero Backup openshift-adp/" NAC_D
     " with the origin label and annotations of NonAdminBackup shop/a-1.b-2"},
    {"a query", "'daily?watch=1'", NOT_FOUND("\"daily?watch=1\"")},
    {"a %-escape", "'%2e%2e'", NOT_FOUND("\"%2e%2e\"")},
    {"an escaped slash", "'daily%2Fstatus'", NOT_FOUND("\"daily%2Fstatus\"")},
    {"..", "'..'", NOT_FOUND("\"..\"")},
    {".", "'.'", NOT_FOUND("\".\"")},
    {"an empty label", "'a..b'", NOT_FOUND("\"a..b\"")},
    {"a path", "'../../bank/nonadminbackups/vault'",
     NOT_FOUND("\"../../bank/nonadminbackups/vault\"")},
    {"a slash", "'daily/status'", NOT_FOUND("\"daily/status\"")},
    {"upper case", "'Daily'", NOT_FOUND("\"Daily\"")},
    {"a leading dash", "'-daily'", NOT_FOUND("\"-daily\"")},
    {"a space", "' daily'", NOT_FOUND("\" daily\"")},
    {"a NUL after a real name (json-c's C string would read daily)", "'daily\\u0000x'",
     NOT_FOUND("\"daily\\x00x\"")},
    {"a newline and a quote (Go's %q)", "'daily\\n\\\"'", NOT_FOUND("\"daily\\n\\\"\"")},
    {"not ASCII (printed as is, as Go does)", "'caf\u00e9'", NOT_FOUND("\"caf\u00e9\"")},
};

static void check_name(const char *label, const char *name_json, const char *want)
{
    size_t len = strlen(name_json) + 32;
    char *text = malloc(len);
    assert_non_null(text);
    snprintf(text, len, "{'backupName':%s}", name_json);
    json_object *spec = tjson(text), *nab = tjson(NAB_READY), *vb = tjson(VB_OK);
    cw_nar_context ctx = {.ns = "shop", .oadp = "openshift-adp", .nab = nab, .backup = vb};
    char *msg = NULL;
    int named = !want || !strstr(want, " not found");
    if (cw_nar_backup_addressable(cw_json_member(spec, "backupName")) != named)
        fail_msg("%s: addressable %d", label, !named);
    assert_int_equal(cw_nar_check_spec(spec, &ctx, &msg), CW_OK);
    expect_msg(label, msg, want);
    json_object_put(spec);
    json_object_put(nab);
    json_object_put(vb);
    free(text);
}

static void test_restore_backup_names(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(name_cases); i++)
        check_name(name_cases[i].label, name_cases[i].name, name_cases[i].msg);
    /* 253 characters is a name; 254 is none; past 1024 bytes the quoted name is cut */
    char name[2100], json[2110], want[2300];
    memset(name, 'a', sizeof(name));
    name[253] = '\0';
    snprintf(json, sizeof(json), "'%s'", name);
    snprintf(want, sizeof(want),
             "NonAdminRestore spec.restoreSpec.backupName is invalid: no Velero Backup "
             "openshift-adp/" NAC_D " with the origin label and annotations of NonAdminBackup "
             "shop/%s",
             name);
    check_name("253 characters: a name, checked on", json, want);
    name[253] = 'a';
    name[254] = '\0';
    snprintf(json, sizeof(json), "'%s'", name);
    snprintf(want, sizeof(want), NOT_FOUND("\"%s\""), name);
    check_name("254 characters", json, want);
    name[254] = 'a';
    name[2000] = '\0';
    snprintf(json, sizeof(json), "'%s'", name);
    snprintf(want, sizeof(want), NOT_FOUND("\"%.1024s\"..."), name);
    check_name("2000 characters: cut", json, want);
    /* a cut that would split a two-byte sequence keeps it whole, or leaves it out */
    memcpy(name + 1023, "\xc3\xa9", 2);
    snprintf(json, sizeof(json), "'%s'", name);
    snprintf(want, sizeof(want), NOT_FOUND("\"%.1023s\"..."), name);
    check_name("a cut on a whole UTF-8 sequence", json, want);
}

#define EXCL_RESTORE "'excludedResources':[" EXCL_NAC "," EXCL_CLUSTER ",'volumesnapshotclasses']"

static const velero_case restore_velero_cases[] = {
    {"backupName replaced, the namespace forced, enforced filled, exclusions added",
     "{'backupName':'daily','restorePVs':true}",
     "{'existingResourcePolicy':'none','restorePVs':false}",
     "{'backupName':'" NAC_D "','includedNamespaces':['shop'],'restorePVs':true,"
     "'existingResourcePolicy':'none'," EXCL_RESTORE "}"},
    {"the user's exclusions kept first", "{'backupName':'daily','excludedResources':['secrets']}",
     NULL,
     "{'backupName':'" NAC_D
     "','includedNamespaces':['shop'],'excludedResources':['secrets'," EXCL_NAC "," EXCL_CLUSTER
     ",'volumesnapshotclasses']}"},
    {"exec hooks held to the namespace",
     "{'backupName':'daily','hooks':{'resources':[{'name':'h','postHooks':[{'exec':{'command':["
     "'true']}}]}]}}",
     NULL,
     "{'backupName':'" NAC_D "','includedNamespaces':['shop'],'hooks':{'resources':[{'name':'h',"
     "'postHooks':[{'exec':{'command':['true']}}],'includedNamespaces':['shop']}]}," EXCL_RESTORE
     "}"},
};

static void test_restore_spec(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(restore_velero_cases); i++) {
        const velero_case *c = &restore_velero_cases[i];
        json_object *spec = tjson(c->spec), *enf = tjson(c->enforced), *out = NULL;
        assert_int_equal(cw_nar_velero_spec(spec, "shop", NAC_D, enf, &out), CW_OK);
        expect_json(out, c->want, "velero restore spec", c->label);
        json_object_put(out);
        json_object_put(spec);
        json_object_put(enf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_spec),    cmocka_unit_test(test_check_enforced),
        cmocka_unit_test(test_velero_spec),   cmocka_unit_test(test_nacuuid),
        cmocka_unit_test(test_uuid4),         cmocka_unit_test(test_queue_position),
        cmocka_unit_test(test_conditions),    cmocka_unit_test(test_phase_rank),
        cmocka_unit_test(test_check_restore), cmocka_unit_test(test_restore_backup_names),
        cmocka_unit_test(test_restore_spec),  cmocka_unit_test(test_nacuuid_valid),
        cmocka_unit_test(test_nacuuid_for),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
