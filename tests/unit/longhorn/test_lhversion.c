/* Which Longhorn runs and whether a reconciler writes (longhorn/version.c): tables of
 * image references as clusters and mirrors spell them, --longhorn-version values, the CRD sets
 * of each release's install manifest (listed, and read whole from tests/fixtures/longhorn-<v>/
 * crds.yaml), DaemonSets as Longhorn's deploy manifests write them, and the stand-down decision
 * with its log line. */
#include "tests/unit/controller/ctrl_test.h"

#include "lib/yaml.h"
#include "longhorn/version.h"

/* ---- image tags ---- */

typedef struct {
    const char *image;
    int minor;
    const char *version, *reason, *detail;
} image_case;

static const image_case images[] = {
    {"longhornio/longhorn-manager:v1.4.4", 4, "v1.4.4", NULL,
     "the longhorn-manager image longhornio/longhorn-manager:v1.4.4 is Longhorn 1.4"},
    {"longhornio/longhorn-manager:v1.2.6", 2, "v1.2.6", NULL, NULL},
    {"longhornio/longhorn-manager:v1.12.1", 12, "v1.12.1", NULL, NULL},
    {"longhornio/longhorn-manager:v1.10.0", 10, "v1.10.0", NULL, NULL},
    /* a registry with a port: the port's ':' is not the tag's */
    {"registry.example.com:5000/mirror/longhornio/longhorn-manager:v1.5.5", 5, "v1.5.5", NULL,
     NULL},
    /* Rancher's mirror renames the repository; only the tag counts */
    {"registry.rancher.com/rancher/mirrored-longhornio-longhorn-manager:v1.6.4", 6, "v1.6.4", NULL,
     NULL},
    {"longhornio/longhorn-manager:v1.7.4@sha256:"
     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
     7, "v1.7.4", NULL, NULL},
    {"longhornio/longhorn-manager:1.8.2", 8, "1.8.2", NULL, NULL},
    {"longhornio/longhorn-manager:v1.9.0-hotfix-1", 9, "v1.9.0-hotfix-1", NULL, NULL},
    {"longhornio/longhorn-manager@sha256:"
     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
     0, "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
     CW_LH_REASON_DIGEST_ONLY,
     "the longhorn-manager image longhornio/longhorn-manager@sha256:"
     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef is pinned by digest "
     "without a tag, which does not say its version"},
    {"localhost:5000/longhorn-manager", 0, "latest", CW_LH_REASON_NO_TAG,
     "the longhorn-manager image localhost:5000/longhorn-manager has no tag (\"latest\"), which "
     "does not say its version"},
    {"longhornio/longhorn-manager:master-head", 0, "master-head", CW_LH_REASON_DEV_BUILD,
     "the longhorn-manager image longhornio/longhorn-manager:master-head is a development build, "
     "whose CronJobs no release table describes"},
    {"longhornio/longhorn-manager:v1.2.x-head", 0, "v1.2.x-head", CW_LH_REASON_DEV_BUILD, NULL},
    /* The image as current charts and mirrors write it. Longhorn >= 1.10.2's chart writes the
     * docker.io/ prefix: */
    {"docker.io/longhornio/longhorn-manager:v1.10.2", 10, "v1.10.2", NULL,
     "the longhorn-manager image docker.io/longhornio/longhorn-manager:v1.10.2 is Longhorn 1.10"},
    {"longhornio/longhorn-manager:v1.9.3", 9, "v1.9.3", NULL,
     "the longhorn-manager image longhornio/longhorn-manager:v1.9.3 is Longhorn 1.9"},
    /* a private registry with a port: neither the port's ':' nor the path counts */
    {"registry.example.com:5000/longhornio/longhorn-manager:v1.12.1", 12, "v1.12.1", NULL,
     "the longhorn-manager image registry.example.com:5000/longhornio/longhorn-manager:v1.12.1 "
     "is Longhorn 1.12"},
    {"registry.example.com:5000/mirror/longhorn/longhorn-manager:v1.11.3", 11, "v1.11.3", NULL,
     "the longhorn-manager image registry.example.com:5000/mirror/longhorn/longhorn-manager:"
     "v1.11.3 is Longhorn 1.11"},
    {"localhost:5000/longhorn-manager:v1.8.2", 8, "v1.8.2", NULL,
     "the longhorn-manager image localhost:5000/longhorn-manager:v1.8.2 is Longhorn 1.8"},
    /* a port and no tag: the port is not a tag */
    {"registry.example.com:5000/longhornio/longhorn-manager", 0, "latest", CW_LH_REASON_NO_TAG,
     NULL},
    /* tag and digest: the tag says the version (the digest pins the bytes) */
    {"docker.io/longhornio/longhorn-manager:v1.10.2@sha256:"
     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
     10, "v1.10.2", NULL,
     "the longhorn-manager image docker.io/longhornio/longhorn-manager:v1.10.2@sha256:"
     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef is Longhorn 1.10"},
    /* a digest only, behind a registry with a port: unknown (stand down) */
    {"registry.example.com:5000/longhornio/longhorn-manager@sha256:"
     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
     0, "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
     CW_LH_REASON_DIGEST_ONLY, NULL},
    /* a hotfix build is its release's code */
    {"longhornio/longhorn-manager:v1.10.2-hotfix-1", 10, "v1.10.2-hotfix-1", NULL,
     "the longhorn-manager image longhornio/longhorn-manager:v1.10.2-hotfix-1 is Longhorn 1.10"},
    {"longhornio/longhorn-manager:v1.10.2-hotfix", 0, "v1.10.2-hotfix", CW_LH_REASON_CUSTOM_TAG,
     NULL},
    {"longhornio/longhorn-manager:v1.6.0-rc1", 0, "v1.6.0-rc1", CW_LH_REASON_PRERELEASE,
     "the longhorn-manager image longhornio/longhorn-manager:v1.6.0-rc1 is a pre-release, whose "
     "code may differ from the release's"},
    {"longhornio/longhorn-manager:v1.9.3-dev-20251005", 0, "v1.9.3-dev-20251005",
     CW_LH_REASON_PRERELEASE, NULL},
    {"longhornio/longhorn-manager:v1.3.0-preview1", 0, "v1.3.0-preview1", CW_LH_REASON_PRERELEASE,
     NULL},
    {"example.com/lh-manager:v1.4.4-patched", 0, "v1.4.4-patched", CW_LH_REASON_CUSTOM_TAG,
     "the longhorn-manager image example.com/lh-manager:v1.4.4-patched carries a custom tag "
     "suffix, so its code may differ from the release's"},
    {"longhornio/longhorn-manager:latest", 0, "latest", CW_LH_REASON_UNRECOGNISED,
     "the longhorn-manager image longhornio/longhorn-manager:latest has a tag that is not a "
     "Longhorn version"},
    {"longhornio/longhorn-manager:v9.0.0", 0, "v9.0.0", CW_LH_REASON_UNSUPPORTED,
     "the longhorn-manager image longhornio/longhorn-manager:v9.0.0 is a Longhorn version "
     "cronwarden has no table for (it knows 1.2 to 1.12)"},
    {"longhornio/longhorn-manager:v1.1.3", 0, "v1.1.3", CW_LH_REASON_UNSUPPORTED, NULL},
    {"longhornio/longhorn-manager:v1.13.0", 0, "v1.13.0", CW_LH_REASON_UNSUPPORTED, NULL},
    {"longhornio/longhorn-manager:v1.4", 0, "v1.4", CW_LH_REASON_UNRECOGNISED, NULL},
    {"", 0, "", CW_LH_REASON_NO_IMAGE, "the longhorn-manager DaemonSet names no image"},
};

static void test_images(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(images); i++) {
        const image_case *c = &images[i];
        cw_lh_identity id;
        cw_lh_identify_image(c->image, &id);
        if (id.minor != c->minor || strcmp(id.version, c->version) != 0 ||
            (c->reason ? !id.reason || strcmp(id.reason, c->reason) != 0 : id.reason != NULL) ||
            id.source != CW_LH_SOURCE_DAEMONSET)
            fail_msg("%s: minor %d version %s reason %s source %s", c->image, id.minor, id.version,
                     id.reason ? id.reason : "NULL", cw_lh_source_name(id.source));
        if (c->detail)
            assert_string_equal(id.detail, c->detail);
    }
}

/* ---- --longhorn-version ---- */

typedef struct {
    const char *value;
    int rc, minor;
    const char *want; /* the error message, or the detail */
} flag_case;

static const flag_case flags[] = {
    {"auto", CW_OK, 0, ""},
    {"", CW_OK, 0, ""},
    {"1.4", CW_OK, 4, "--longhorn-version=1.4 forces Longhorn 1.4"},
    {"v1.4", CW_OK, 4, "--longhorn-version=v1.4 forces Longhorn 1.4"},
    {"1.12.1", CW_OK, 12, "--longhorn-version=1.12.1 forces Longhorn 1.12"},
    {"v1.2.6", CW_OK, 2, "--longhorn-version=v1.2.6 forces Longhorn 1.2"},
    {"1.13", CW_EINVAL, 0, "--longhorn-version: cronwarden knows Longhorn 1.2 to 1.12, not 1.13"},
    {"2.0", CW_EINVAL, 0, "--longhorn-version: cronwarden knows Longhorn 1.2 to 1.12, not 2.0"},
    {"1.1.9", CW_EINVAL, 0, "--longhorn-version: cronwarden knows Longhorn 1.2 to 1.12, not 1.1.9"},
    {"1", CW_EINVAL, 0,
     "--longhorn-version: \"1\" is not a version: expected auto, 1.<minor> or 1.<minor>.<patch> "
     "(e.g. 1.4 or v1.4.4)"},
    {"1.4.4-rc1", CW_EINVAL, 0,
     "--longhorn-version: \"1.4.4-rc1\" is not a version: expected auto, 1.<minor> or "
     "1.<minor>.<patch> (e.g. 1.4 or v1.4.4)"},
    {"latest", CW_EINVAL, 0,
     "--longhorn-version: \"latest\" is not a version: expected auto, 1.<minor> or "
     "1.<minor>.<patch> (e.g. 1.4 or v1.4.4)"},
    {"1.4.", CW_EINVAL, 0,
     "--longhorn-version: \"1.4.\" is not a version: expected auto, 1.<minor> or "
     "1.<minor>.<patch> (e.g. 1.4 or v1.4.4)"},
};

static void test_flag(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(flags); i++) {
        const flag_case *c = &flags[i];
        cw_lh_identity id;
        cw_error err;
        cw_error_init(&err);
        int rc = cw_lh_parse_version_flag(c->value, &id, &err);
        if (rc != c->rc)
            fail_msg("%s: rc %d (%s)", c->value, rc, err.message);
        if (rc != CW_OK) {
            assert_string_equal(err.message, c->want);
            continue;
        }
        assert_int_equal(id.minor, c->minor);
        assert_int_equal(id.source, c->minor ? CW_LH_SOURCE_FLAG : CW_LH_SOURCE_NONE);
        assert_string_equal(id.detail, c->want);
    }
}

/* ---- the CRDs each minor installs ---- */

#define BASE                                                                                       \
    "backingimagedatasources", "backingimagemanagers", "backingimages", "backups",                 \
        "backuptargets", "backupvolumes", "engineimages", "engines", "instancemanagers", "nodes",  \
        "recurringjobs", "replicas", "settings", "sharemanagers", "volumes"
#define R13   BASE, "orphans", "snapshots"
#define R14   R13, "supportbundles", "systembackups", "systemrestores"
#define R15   R14, "volumeattachments"
#define R16   R15, "backupbackingimages"
#define R1120 R16, "enginefrontends"
#define R112  R1120, "shardgroups", "shards"

static const char *const r12[] = {BASE, NULL}, *const r13[] = {R13, NULL},
                         *const r14[] = {R14, NULL}, *const r15[] = {R15, NULL},
                         *const r16[] = {R16, NULL}, *const r112[] = {R112, NULL},
                         *const r1120[] = {R1120, NULL};

typedef struct {
    const char *label;
    cw_lh_crd_facts facts;
    int minor;
    const char *version, *reason;
} crd_case;

static const crd_case crds[] = {
    {"1.2.6: v1beta1 only", {1, 0, 1, r12}, 2, "1.2", NULL},
    {"1.2 without the resource list", {1, 0, -1, NULL}, 2, "1.2", NULL},
    {"1.3.3: both versions, orphans", {1, 1, 1, r13}, 3, "1.3", NULL},
    {"1.4.4: supportbundles", {1, 1, 1, r14}, 4, "1.4", NULL},
    {"1.5.5: volumeattachments", {1, 1, 1, r15}, 5, "1.5", NULL},
    {"1.6.4 to 1.8.2 install the same CRDs",
     {1, 1, 1, r16},
     0,
     "1.6-1.8",
     CW_LH_REASON_CRDS_AMBIGUOUS},
    {"1.9.3: v1beta1 declared, not served", {0, 1, 1, r16}, 9, "1.9", NULL},
    {"1.9 to 1.11 when the CRD object cannot be read",
     {0, 1, -1, r16},
     0,
     "1.9-1.11",
     CW_LH_REASON_CRDS_AMBIGUOUS},
    {"1.10.2 and 1.11.3: v1beta2 only",
     {0, 1, 0, r16},
     0,
     "1.10-1.11",
     CW_LH_REASON_CRDS_AMBIGUOUS},
    {"1.12.1: shards", {0, 1, 0, r112}, 12, "1.12", NULL},
    /* v1.12.0's crds.yaml has enginefrontends but not yet shardgroups and shards (v1.12.1). */
    {"1.12.0: enginefrontends, no shards yet", {0, 1, 0, r1120}, 12, "1.12.0", NULL},
    {"both served without the list: 1.3 to 1.8",
     {1, 1, -1, NULL},
     0,
     "1.3-1.8",
     CW_LH_REASON_CRDS_AMBIGUOUS},
    {"no recurringjobs at all (Longhorn 1.1, or none)",
     {0, 0, -1, NULL},
     0,
     "",
     CW_LH_REASON_NOT_DETECTED},
    {"v1beta1 only, but a 1.3 CRD among them: no minor",
     {1, 0, 1, r13},
     0,
     "",
     CW_LH_REASON_NOT_DETECTED},
};

static void test_crds(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(crds); i++) {
        const crd_case *c = &crds[i];
        cw_lh_identity id;
        cw_lh_identify_crds(&c->facts, &id);
        if (id.minor != c->minor || strcmp(id.version, c->version) != 0 ||
            (c->reason ? !id.reason || strcmp(id.reason, c->reason) != 0 : id.reason != NULL))
            fail_msg("%s: minor %d version %s reason %s", c->label, id.minor, id.version,
                     id.reason ? id.reason : "NULL");
        assert_int_equal(id.source, CW_LH_SOURCE_CRDS);
    }
    cw_lh_identity id;
    cw_lh_identify_crds(&crds[5].facts, &id);
    assert_string_equal(id.detail, "the longhorn.io CRDs are those of Longhorn 1.6-1.8, which "
                                   "write different CronJobs");
}

/* ---- the CRDs of each release's install manifest ---- */

/* tests/fixtures/longhorn-<release>/crds.yaml: every CustomResourceDefinition of
 * longhorn/longhorn's deploy/longhorn.yaml at that tag (its README names tag and commit). What
 * discovery shows of it: the plural of every longhorn.io CRD served in v1beta1 or v1beta2, and
 * where recurringjobs is served; declared: whether the recurringjobs object lists v1beta1 (served
 * or not). */
typedef struct {
    cw_yaml_docs docs; /* owns the strings below */
    const char *plurals[40];
    size_t crds; /* CustomResourceDefinition documents */
    cw_lh_crd_facts facts;
} manifest_crds;

static int version_served(json_object *crd, const char *name, int *declared)
{
    json_object *vs = cw_json_path(crd, "spec.versions");
    size_t n = json_object_is_type(vs, json_type_array) ? json_object_array_length(vs) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *v = json_object_array_get_idx(vs, i);
        const char *vn = cw_json_path_string(v, "name");
        if (vn && strcmp(vn, name) == 0) {
            *declared = 1;
            return json_object_get_boolean(cw_json_member(v, "served"));
        }
    }
    return 0;
}

static void read_manifest_crds(const char *release, manifest_crds *out)
{
    char path[512];
    const char *src = getenv("CW_SOURCE_DIR");
    cw_error err;
    size_t np = 0;
    cw_error_init(&err);
    memset(out, 0, sizeof(*out));
    cw_yaml_docs_init(&out->docs);
    snprintf(path, sizeof(path), "%s/tests/fixtures/longhorn-%s/crds.yaml", src ? src : ".",
             release);
    if (cw_yaml_parse_file(path, &out->docs, &err) != CW_OK)
        fail_msg("%s", err.message);
    out->facts.resources = out->plurals;
    for (size_t i = 0; i < out->docs.len; i++) {
        json_object *d = out->docs.items[i].value;
        const char *kind = cw_json_path_string(d, "kind");
        const char *group = cw_json_path_string(d, "spec.group");
        const char *plural = cw_json_path_string(d, "spec.names.plural");
        if (!kind || strcmp(kind, "CustomResourceDefinition") != 0)
            fail_msg("%s: document %zu is a %s", path, i + 1, kind ? kind : "(no kind)");
        out->crds++;
        if (!group || strcmp(group, "longhorn.io") != 0 || !plural)
            continue;
        int d1 = 0, d2 = 0;
        int s1 = version_served(d, "v1beta1", &d1), s2 = version_served(d, "v1beta2", &d2);
        if ((s1 || s2) && np + 1 < N(out->plurals))
            out->plurals[np++] = plural;
        if (strcmp(plural, "recurringjobs") == 0)
            out->facts = (cw_lh_crd_facts){s1, s2, d1, out->plurals};
    }
    out->plurals[np] = NULL;
}

/* Each release's whole CRD set, as the controller sees it (discovery: v1beta1_declared unknown)
 * and with the recurringjobs object read: the identity, and the row written by. */
static void test_crds_of_manifests(void **state)
{
    (void)state;
    static const struct {
        const char *release;
        size_t crds;
        const char *discovery, *object; /* the version said; "1.6-1.8": a range, unknown */
        const char *writes;             /* the row a known identity writes as */
    } cases[] = {
        {"1.2.6", 15, "1.2", "1.2", "1.2.6"},
        {"1.3.3", 17, "1.3", "1.3", "1.3.3"},
        {"1.4.4", 20, "1.4", "1.4", "1.4.4"},
        {"1.5.5", 21, "1.5", "1.5", "1.5.5"},
        {"1.6.4", 22, "1.6-1.8", "1.6-1.8", NULL},
        {"1.7.4", 22, "1.6-1.8", "1.6-1.8", NULL},
        {"1.8.2", 22, "1.6-1.8", "1.6-1.8", NULL},
        /* 1.9 declares v1beta1 without serving it: only the CRD object tells it from 1.10 */
        {"1.9.3", 22, "1.9-1.11", "1.9", "1.9.3"},
        {"1.10.2", 22, "1.9-1.11", "1.10-1.11", NULL},
        {"1.11.3", 22, "1.9-1.11", "1.10-1.11", NULL},
        /* enginefrontends without shardgroups and shards */
        {"1.12.0", 23, "1.12.0", "1.12.0", "1.12.1"},
        {"1.12.1", 25, "1.12", "1.12", "1.12.1"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        manifest_crds m;
        read_manifest_crds(cases[i].release, &m);
        if (m.crds != cases[i].crds)
            fail_msg("%s: %zu CRDs, want %zu", cases[i].release, m.crds, cases[i].crds);
        for (int object = 0; object < 2; object++) {
            cw_lh_crd_facts f = m.facts;
            const char *want = object ? cases[i].object : cases[i].discovery;
            cw_lh_identity id;
            cw_lh_decision dec;
            if (!object)
                f.v1beta1_declared = -1;
            cw_lh_identify_crds(&f, &id);
            cw_lh_decide(CW_LH_RECONCILER_RECURRINGJOB, &id, &dec);
            int range = strchr(want, '-') != NULL;
            if (strcmp(id.version, want) != 0 || id.source != CW_LH_SOURCE_CRDS ||
                (range ? !id.reason || strcmp(id.reason, CW_LH_REASON_CRDS_AMBIGUOUS) != 0 ||
                             dec.write
                       : id.reason || !dec.write ||
                             strcmp(dec.profile->release, cases[i].writes) != 0))
                fail_msg("%s (%s): version %s reason %s writes as %s", cases[i].release,
                         object ? "CRD object" : "discovery", id.version,
                         id.reason ? id.reason : "NULL",
                         dec.write ? dec.profile->release : "nothing");
        }
        cw_yaml_docs_free(&m.docs);
    }
}

/* ---- which identity counts ---- */

static void test_choose(void **state)
{
    (void)state;
    cw_lh_identity flag, none, ds_known, ds_unknown, crd, out;
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_lh_parse_version_flag("1.3", &flag, &err), CW_OK);
    assert_int_equal(cw_lh_parse_version_flag("auto", &none, &err), CW_OK);
    cw_lh_identify_image("longhornio/longhorn-manager:v1.4.4", &ds_known);
    cw_lh_identify_image("longhornio/longhorn-manager:master-head", &ds_unknown);
    cw_lh_identify_crds(&crds[0].facts, &crd);
    const struct {
        const char *label;
        const cw_lh_identity *flag, *ds, *crd;
        int minor;
        cw_lh_source source;
    } cases[] = {
        {"the flag wins over the DaemonSet", &flag, &ds_known, &crd, 3, CW_LH_SOURCE_FLAG},
        {"the flag wins over an unknown image", &flag, &ds_unknown, NULL, 3, CW_LH_SOURCE_FLAG},
        {"auto: the DaemonSet", &none, &ds_known, &crd, 4, CW_LH_SOURCE_DAEMONSET},
        {"an unknown image is not replaced by the CRDs", &none, &ds_unknown, &crd, 0,
         CW_LH_SOURCE_DAEMONSET},
        {"no DaemonSet: the CRDs", &none, NULL, &crd, 2, CW_LH_SOURCE_CRDS},
        {"nothing read", &none, NULL, NULL, 0, CW_LH_SOURCE_NONE},
    };
    for (size_t i = 0; i < N(cases); i++) {
        cw_lh_choose(cases[i].flag, cases[i].ds, cases[i].crd, &out);
        if (out.minor != cases[i].minor || out.source != cases[i].source)
            fail_msg("%s: minor %d source %s", cases[i].label, out.minor,
                     cw_lh_source_name(out.source));
    }
    cw_lh_choose(&none, NULL, NULL, &out);
    assert_string_equal(out.reason, CW_LH_REASON_NOT_DETECTED);
}

/* ---- the DaemonSet ---- */

/* Longhorn 1.2.6's deploy/install/02-components/01-manager.yaml, as far as it matters. */
#define DS_126                                                                                     \
    "{'apiVersion':'apps/v1','kind':'DaemonSet','metadata':{'name':'longhorn-manager'},"           \
    "'spec':{'template':{'spec':{'containers':[{'name':'longhorn-manager','image':"                \
    "'longhornio/longhorn-manager:v1.2.6','command':['longhorn-manager','-d','daemon',"            \
    "'--engine-image','longhornio/longhorn-engine:v1.2.6','--manager-image',"                      \
    "'longhornio/longhorn-manager:v1.2.6','--service-account','longhorn-service-account']}]}}}}"

typedef struct {
    const char *label, *ds;
    int rc;
    const char *image, *job_image, *sa; /* or the error */
} ds_case;

static const ds_case daemonsets[] = {
    {"Longhorn's manifest", DS_126, CW_OK, "longhornio/longhorn-manager:v1.2.6",
     "longhornio/longhorn-manager:v1.2.6", "longhorn-service-account"},
    {"a private registry: --manager-image is what the CronJobs run",
     "{'spec':{'template':{'spec':{'containers':[{'name':'sidecar','image':'s:1'},{'name':"
     "'longhorn-manager','image':'reg.local/lh/manager:v1.4.4','args':['-d','daemon',"
     "'--manager-image=reg.local/lh/manager:v1.4.4','-service-account','sa-x']}]}}}}",
     CW_OK, "reg.local/lh/manager:v1.4.4", "reg.local/lh/manager:v1.4.4", "sa-x"},
    {"no flags: the container's image, no service account",
     "{'spec':{'template':{'spec':{'containers':[{'name':'x','image':'m:v1.5.5'}]}}}}", CW_OK,
     "m:v1.5.5", "m:v1.5.5", NULL},
    {"a flag without its value is not a value",
     "{'spec':{'template':{'spec':{'containers':[{'name':'longhorn-manager','image':'m:v1.5.5',"
     "'command':['--manager-image']}]}}}}",
     CW_OK, "m:v1.5.5", "m:v1.5.5", NULL},
    {"no container", "{'metadata':{'name':'longhorn-manager'},'spec':{}}", CW_EINVAL,
     "DaemonSet longhorn-manager: spec.template.spec.containers: no longhorn-manager container "
     "with an image",
     NULL, NULL},
};

static void test_daemonset(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(daemonsets); i++) {
        const ds_case *c = &daemonsets[i];
        json_object *ds = tjson(c->ds);
        cw_lh_manager m;
        cw_error err;
        cw_error_init(&err);
        int rc = cw_lh_manager_from_daemonset(ds, &m, &err);
        if (rc != c->rc)
            fail_msg("%s: rc %d (%s)", c->label, rc, err.message);
        if (rc != CW_OK) {
            assert_string_equal(err.message, c->image);
        } else {
            assert_string_equal(m.image, c->image);
            assert_string_equal(m.job_image, c->job_image);
            if (c->sa)
                assert_string_equal(m.service_account, c->sa);
            else
                assert_null(m.service_account);
            cw_lh_manager_free(&m);
        }
        json_object_put(ds);
    }
}

/* ---- write or stand down ---- */

static void test_decide(void **state)
{
    (void)state;
    cw_lh_identity id;
    cw_lh_decision d;
    for (int minor = CW_LH_MINOR_FIRST; minor <= CW_LH_MINOR_LAST; minor++) {
        char image[64];
        snprintf(image, sizeof(image), "longhornio/longhorn-manager:v1.%d.0", minor);
        cw_lh_identify_image(image, &id);
        for (int r = CW_LH_RECONCILER_RECURRINGJOB; r <= CW_LH_RECONCILER_VOLUME; r++) {
            cw_lh_decide((cw_lh_reconciler)r, &id, &d);
            assert_int_equal(d.write, 1);
            assert_non_null(d.profile);
            assert_int_equal(d.profile->minor, minor);
            assert_null(d.reason);
        }
    }
    cw_lh_identify_image("longhornio/longhorn-manager:v1.4.4", &id);
    cw_lh_decide(CW_LH_RECONCILER_RECURRINGJOB, &id, &d);
    assert_string_equal(d.message,
                        "recurringjob: writing as Longhorn 1.4.4's manager does (the "
                        "longhorn-manager image longhornio/longhorn-manager:v1.4.4 is Longhorn "
                        "1.4, from the daemonset)");
    cw_lh_identify_image("longhornio/longhorn-manager:v9.0.0", &id);
    cw_lh_decide(CW_LH_RECONCILER_RECURRINGJOB, &id, &d);
    assert_int_equal(d.write, 0);
    assert_null(d.profile);
    assert_string_equal(d.reason, "unsupported-version");
    assert_string_equal(
        d.message, "recurringjob: standing down, no CronJob is written: the longhorn-manager image "
                   "longhornio/longhorn-manager:v9.0.0 is a Longhorn version cronwarden has no "
                   "table for (it knows 1.2 to 1.12); --longhorn-version=1.<minor> (1.2 to 1.12) "
                   "makes cronwarden write as that version's manager");
    cw_lh_decide(CW_LH_RECONCILER_VOLUME, &id, &d);
    assert_int_equal(d.write, 0);
    assert_string_equal(d.reason, "unsupported-version");
    assert_non_null(strstr(d.message, "volume: standing down, no Volume is written: "));
    cw_lh_choose(NULL, NULL, NULL, &id);
    cw_lh_decide(CW_LH_RECONCILER_RECURRINGJOB, &id, &d);
    assert_string_equal(d.reason, "not-detected");
}

/* The table: rows in release order, every minor from the first to the last, each minor's
 * newest row what cw_lh_profile_find gives, every column consistent with the upstream facts the
 * golden tests check byte by byte (test_rjctl.c). */
static void test_profiles(void **state)
{
    (void)state;
    size_t n;
    const cw_lh_profile *p = cw_lh_profiles(&n);
    int minor = CW_LH_MINOR_FIRST - 1, patch = -1;
    for (size_t i = 0; i < n; i++) {
        assert_true(p[i].minor == minor ? p[i].first_patch > patch
                                        : p[i].minor == minor + 1 && p[i].first_patch == 0);
        minor = p[i].minor;
        patch = p[i].first_patch;
        if (i + 1 == n || p[i + 1].minor != minor)
            assert_ptr_equal(cw_lh_profile_find(minor), &p[i]);
        char prefix[16];
        snprintf(prefix, sizeof(prefix), "1.%d.", p[i].minor);
        assert_int_equal(strncmp(p[i].release, prefix, strlen(prefix)), 0);
        assert_true(atoi(p[i].release + strlen(prefix)) >= p[i].first_patch);
    }
    assert_int_equal(minor, CW_LH_MINOR_LAST);
    /* The release ranges (issue 34): where the Settings reading, the tasks or Go change. */
    static const struct {
        int minor, patch, first_patch, reading, short_escapes;
    } ranges[] = {
        {3, 0, 0, 2, 0}, {3, 2, 0, 2, 0}, {3, 3, 3, 3, 0},  {3, -1, 3, 3, 0}, {4, 0, 0, 2, 0},
        {4, 1, 1, 2, 0}, {4, 2, 2, 4, 0}, {4, 4, 2, 4, 0},  {6, 1, 0, 4, 0},  {6, 2, 2, 4, 1},
        {6, 9, 2, 4, 1}, {7, 0, 0, 4, 1}, {12, 0, 0, 4, 1}, {2, 6, 0, 2, 0},
    };
    for (size_t i = 0; i < N(ranges); i++) {
        const cw_lh_profile *r = cw_lh_profile_find_release(ranges[i].minor, ranges[i].patch);
        assert_non_null(r);
        if (r->minor != ranges[i].minor || r->first_patch != ranges[i].first_patch ||
            r->settings_reading != ranges[i].reading ||
            (int)r->json_short_escapes != ranges[i].short_escapes)
            fail_msg("1.%d.%d: row 1.%d.%d reading %d escapes %d", ranges[i].minor, ranges[i].patch,
                     r->minor, r->first_patch, r->settings_reading, (int)r->json_short_escapes);
    }
    assert_null(cw_lh_profile_find_release(13, 0));
    assert_null(cw_lh_profile_find(1));
    assert_null(cw_lh_profile_find(13));
    assert_string_equal(cw_lh_profile_find(3)->cronjob_api, "batch/v1beta1");
    assert_string_equal(cw_lh_profile_find(4)->cronjob_api, "batch/v1");
    assert_string_equal(cw_lh_profile_find(2)->owner_api, "longhorn.io/v1beta1");
    assert_string_equal(cw_lh_profile_find(3)->owner_api, "longhorn.io/v1beta2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_images), cmocka_unit_test(test_flag),
        cmocka_unit_test(test_crds),   cmocka_unit_test(test_crds_of_manifests),
        cmocka_unit_test(test_choose), cmocka_unit_test(test_daemonset),
        cmocka_unit_test(test_decide), cmocka_unit_test(test_profiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
