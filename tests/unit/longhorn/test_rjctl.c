/* The RecurringJob reconciler's decision (longhorn/rjctl.c) and Longhorn's Settings
 * (longhorn/settings.c): tables of real cases with exact expected output.
 * Golden: for each Longhorn minor, cronwarden's CronJob for the RecurringJobs of
 * tests/fixtures/longhorn-<release>/ has a byte-identical longhorn.io/last-applied-cronjob-spec and
 * equal fields elsewhere. Every one of those files was made by longhorn-manager's own newCronJob
 * and createCronJob: 1.2.6, 1.3.3 and 1.4.4 at that tag; 1.5.5 to 1.12.1 at that tag too, over
 * tests/fixtures/longhorn-oracle/golden-cases.json (each README names tag, commit, Go, and for
 * 1.9.3 the one generated function patched so that the tag builds). */
#include "tests/unit/controller/ctrl_test.h"

#include <dirent.h>

#include "longhorn/settings.h"
#include "longhorn/version.h"
#include "longhorn/rjctl.h"
#include "longhorn/recurringjob.h"
#include "defaults/policy.h"
#include "lib/buf.h"
#include "tests/unit/tzdb_fixture.h"

static cw_policy_config policy;

/* The controller's policy, with the system's zone database as the controller has it. */
static int setup(void **state)
{
    if (cw_policy_config_init(&policy) != CW_OK || tzdb_setup(state) != 0)
        return -1;
    policy.tzdb = &tzdb;
    return 0;
}

static int teardown(void **state)
{
    cw_policy_config_free(&policy);
    return tzdb_teardown(state);
}

static cw_rjctl_config fresh_install(void)
{
    return (cw_rjctl_config){
        .policy = &policy,
        .image = "longhornio/longhorn-manager:v1.2.6",
        .cronjob_api_version = "batch/v1beta1",
        .rj_api_version = "longhorn.io/v1beta1",
    };
}

static json_object *read_fixture(const char *release, const char *file)
{
    char path[512];
    const char *src = getenv("CW_SOURCE_DIR");
    snprintf(path, sizeof(path), "%s/tests/fixtures/longhorn-%s/%s", src ? src : ".", release,
             file);
    json_object *o = json_object_from_file(path);
    if (!o)
        fail_msg("cannot read %s", path);
    return o;
}

/* ---- golden: each minor's own CronJobs ---- */

typedef struct {
    const char *file, *rj;
} golden_case;

/* As a Longhorn 1.2 cluster stores them: no spec.name (the v1beta1 CRD prunes it), read back in
 * v1beta1 even where the manager's owner version is v1beta2. */
static const golden_case golden[] = {
    {"cronjob-backup-7-7bc5443b-4fc79c10.json",
     "{'apiVersion':'longhorn.io/v1beta1','kind':'RecurringJob','metadata':{'name':"
     "'backup-7-7bc5443b-4fc79c10','namespace':'longhorn-system','uid':"
     "'0e9b7c1d-2f3a-4b5c-8d6e-7f8091a2b3c4'},'spec':{"
     "'task':'backup','cron':'0 2 * * *','retain':7,'concurrency':10,'groups':[],'labels':{}}}"},
    {"cronjob-snapshot-4-0520073e-8a390c6d.json",
     "{'apiVersion':'longhorn.io/v1beta1','kind':'RecurringJob','metadata':{'name':"
     "'snapshot-4-0520073e-8a390c6d','namespace':'longhorn-system','uid':"
     "'7d1c2a34-5b6e-4f70-8a91-b2c3d4e5f607'},'spec':{'name':'snapshot-4-0520073e-8a390c6d',"
     "'task':'snapshot','cron':'0 */6 * * *','retain':4,'concurrency':10}}"},
};

/* Every Longhorn Setting absent (a fresh install), read as that minor reads them. */
static void use_defaults(cw_rjctl_config *cfg, const cw_lh_profile *p, cw_rjctl_settings *s)
{
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_rjctl_settings_read(p, NULL, s, &err), CW_OK);
    cw_rjctl_config_use(cfg, p, s);
}

static void check_golden(const cw_lh_profile *p, const golden_case *g)
{
    char image[64];
    cw_rjctl_settings set;
    cw_rjctl_config cfg = fresh_install();
    snprintf(image, sizeof(image), "longhornio/longhorn-manager:v%s", p->release);
    cfg.image = image;
    cfg.cronjob_api_version = p->cronjob_api;
    use_defaults(&cfg, p, &set);
    json_object *want = read_fixture(p->release, g->file), *rj = tjson(g->rj), *got = NULL;
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_rjctl_cronjob(&cfg, rj, &got, &err), CW_OK);
    /* Byte for byte where Longhorn compares bytes. */
    json_object *wann =
        cw_json_member(cw_json_path(want, "metadata.annotations"), CW_RJCTL_ANNOTATION);
    json_object *gann =
        cw_json_member(cw_json_path(got, "metadata.annotations"), CW_RJCTL_ANNOTATION);
    assert_non_null(gann);
    if (strcmp(json_object_get_string(gann), json_object_get_string(wann)) != 0)
        fail_msg("Longhorn %s (%s golden) %s annotation:\n got %s\nwant %s", p->release, p->golden,
                 g->file, json_object_get_string(gann), json_object_get_string(wann));
    /* Field for field elsewhere (the fixture's client-side creationTimestamp and empty status
     * are not part of what is written). */
    json_object_object_del(cw_json_member(want, "metadata"), "creationTimestamp");
    json_object_object_del(want, "status");
    if (!json_object_equal(got, want))
        fail_msg("Longhorn %s (%s golden) %s:\n got %s\nwant %s", p->release, p->golden, g->file,
                 cw_json_compact(got), cw_json_compact(want));
    json_object_put(want);
    json_object_put(rj);
    json_object_put(got);
    cw_rjctl_settings_free(&set);
}

static void test_golden(void **state)
{
    (void)state;
    /* Each minor's newest row: the release its fixture was made at. */
    for (int minor = CW_LH_MINOR_FIRST; minor <= CW_LH_MINOR_LAST; minor++)
        for (size_t i = 0; i < N(golden); i++)
            check_golden(cw_lh_profile_find(minor), &golden[i]);
}

/* Without a profile (until the shell passes one) the CronJob is 1.2.6's, owned in the cached
 * object's version: what cronwarden wrote before it knew Longhorn versions. */
static void test_no_profile(void **state)
{
    (void)state;
    cw_rjctl_config cfg = fresh_install();
    json_object *want = read_fixture("1.2.6", golden[0].file), *rj = tjson(golden[0].rj), *got;
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_rjctl_cronjob(&cfg, rj, &got, &err), CW_OK);
    json_object_object_del(cw_json_member(want, "metadata"), "creationTimestamp");
    json_object_object_del(want, "status");
    assert_true(json_object_equal(got, want));
    json_object_put(want);
    json_object_put(rj);
    json_object_put(got);
}

/* ---- the spec with Longhorn's Settings and flags ---- */

#define POD_HEAD(name)                                                                             \
    "{'schedule':'*/5 * * * *','concurrencyPolicy':'Forbid','jobTemplate':{'metadata':{"           \
    "'creationTimestamp':null},'spec':{'backoffLimit':3,'template':{'metadata':{'name':'" name     \
    "','creationTimestamp':null,'labels':{'longhorn.io/managed-by':'longhorn-manager',"            \
    "'recurring-job.longhorn.io':'" name "'}},'spec':{'volumes':[{'name':'engine-binaries',"       \
    "'hostPath':{'path':'/var/lib/longhorn/engine-binaries/'}}],'containers':[{'name':'" name      \
    "','image':'img:1','command':['longhorn-manager','-d','recurring-job','" name "',"             \
    "'--manager-url','%s'],'env':[{'name':'POD_NAMESPACE','valueFrom':{'fieldRef':{"               \
    "'fieldPath':'metadata.namespace'}}}],'resources':{},'volumeMounts':[{'name':"                 \
    "'engine-binaries','mountPath':'/var/lib/longhorn/engine-binaries/'}]}],"                      \
    "'restartPolicy':'OnFailure',"
#define POD_TAIL "}}}},'successfulJobsHistoryLimit':1}"

typedef struct {
    const char *label;
    const char *tolerations, *node_selector, *priority, *sa, *url;
    const char *want; /* POD_HEAD ... POD_TAIL, ' for " */
} spec_case;

static const spec_case spec_cases[] = {
    {"defaults: no tolerations, selector or priority class", "", "", "", NULL, NULL,
     POD_HEAD("j") "'serviceAccountName':'longhorn-service-account'" POD_TAIL},
    {"every setting: fields in PodSpec's order (nodeSelector, serviceAccountName, tolerations, "
     "priorityClassName), selector keys sorted, toleration fields in Go's order",
     "key1=value1:NoSchedule; key2:NoExecute", "zone:b; disk : ssd", "longhorn-critical", "sa-x",
     "http://lh:9500/v1",
     POD_HEAD("j") "'nodeSelector':{'disk':'ssd','zone':'b'},'serviceAccountName':'sa-x',"
                   "'tolerations':[{'key':'key1','operator':'Equal','value':'value1','effect':"
                   "'NoSchedule'},{'key':'key2','operator':'Exists','effect':'NoExecute'}],"
                   "'priorityClassName':'longhorn-critical'" POD_TAIL},
    {"a repeated toleration is written once; an empty effect and key are left out", ":; a:; a:", "",
     "", NULL, NULL,
     POD_HEAD("j") "'serviceAccountName':'longhorn-service-account','tolerations':[{'operator':"
                   "'Exists'},{'key':'a','operator':'Exists'}]" POD_TAIL},
};

static char *quotes(const char *s)
{
    char *out = strdup(s);
    for (char *p = out; *p; p++)
        if (*p == '\'')
            *p = '"';
    return out;
}

static void test_spec(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(spec_cases); i++) {
        const spec_case *c = &spec_cases[i];
        cw_error err;
        cw_error_init(&err);
        cw_rjctl_config cfg = fresh_install();
        cfg.image = "img:1";
        cfg.service_account = c->sa;
        cfg.manager_url = c->url;
        cfg.priority_class = c->priority;
        assert_int_equal(cw_lh_parse_tolerations_as(2, c->tolerations, &cfg.tolerations, &err),
                         CW_OK);
        assert_int_equal(
            cw_lh_parse_node_selector_as(2, c->node_selector, &cfg.node_selector, &err), CW_OK);
        char want[4096];
        char *fmt = quotes(c->want);
        snprintf(want, sizeof(want), fmt, c->url ? c->url : "http://longhorn-backend:9500/v1");
        cw_buf b;
        cw_buf_init(&b);
        /* The cron is the job's own, written as Go writes strings. */
        assert_int_equal(cw_rjctl_spec_json(&cfg, "j", "*/5 * * * *", &b), CW_OK);
        if (strcmp(cw_buf_str(&b), want) != 0)
            fail_msg("%s:\n got %s\nwant %s", c->label, cw_buf_str(&b), want);
        cw_buf_free(&b);
        free(fmt);
        json_object_put(cfg.tolerations);
        json_object_put(cfg.node_selector);
    }
}

/* ---- what differs between minors, with the Settings that shape it ---- */

/* The spec up to serviceAccountName; the two %s are the creationTimestamps (to 1.9). */
#define VHEAD                                                                                      \
    "{'schedule':'0 1 * * *','concurrencyPolicy':'Forbid','jobTemplate':{'metadata':{%s},"         \
    "'spec':{'backoffLimit':3,'template':{'metadata':{'name':'j'%s,'labels':{"                     \
    "'longhorn.io/managed-by':'longhorn-manager','recurring-job.longhorn.io':'j'}},"               \
    "'spec':{'volumes':[{'name':'engine-binaries','hostPath':{'path':"                             \
    "'/var/lib/longhorn/engine-binaries/'}}],'containers':[{'name':'j','image':'img:1',"           \
    "'command':['longhorn-manager','-d','recurring-job','j','--manager-url',"                      \
    "'http://longhorn-backend:9500/v1'],'env':[{'name':'POD_NAMESPACE','valueFrom':{'fieldRef':{"  \
    "'fieldPath':'metadata.namespace'}}}],'resources':{},'volumeMounts':[{'name':"                 \
    "'engine-binaries','mountPath':'/var/lib/longhorn/engine-binaries/'}]}],"                      \
    "'restartPolicy':'OnFailure','serviceAccountName':'longhorn-service-account'"
#define TS "'creationTimestamp':null"

typedef struct {
    const char *label;
    int minor;
    const char *settings; /* {name: value} (' for ") */
    int stamp;            /* the two creationTimestamps */
    const char *tail;     /* after serviceAccountName */
} version_case;

static const version_case version_cases[] = {
    {"1.2 reads neither registry-secret nor the history limits", 2,
     "{'registry-secret':'regcred','recurring-successful-jobs-history-limit':'7'}", 1,
     "}}}},'successfulJobsHistoryLimit':1}"},
    {"1.3: imagePullSecrets after serviceAccountName, before tolerations", 3,
     "{'registry-secret':'regcred','taint-toleration':'a:NoSchedule',"
     "'recurring-failed-jobs-history-limit':'7'}",
     1,
     ",'imagePullSecrets':[{'name':'regcred'}],'tolerations':[{'key':'a','operator':'Exists',"
     "'effect':'NoSchedule'}]}}}},'successfulJobsHistoryLimit':1}"},
    {"1.4: both limits from the Settings; a pointer to 0 is written", 4,
     "{'recurring-successful-jobs-history-limit':'0','recurring-failed-jobs-history-limit':'5'}", 1,
     "}}}},'successfulJobsHistoryLimit':0,'failedJobsHistoryLimit':5}"},
    {"1.4: Go's int32 conversion keeps the low 32 bits", 4,
     "{'recurring-successful-jobs-history-limit':'4294967297',"
     "'recurring-failed-jobs-history-limit':'-1'}",
     1, "}}}},'successfulJobsHistoryLimit':1,'failedJobsHistoryLimit':-1}"},
    {"1.9: still creationTimestamp null", 9, "{}", 1,
     "}}}},'successfulJobsHistoryLimit':1,'failedJobsHistoryLimit':1}"},
    {"1.10: apimachinery's omitzero leaves both creationTimestamps out", 10,
     "{'registry-secret':'r'}", 0,
     ",'imagePullSecrets':[{'name':'r'}]}}}},'successfulJobsHistoryLimit':1,"
     "'failedJobsHistoryLimit':1}"},
    {"1.12: the same as 1.10", 12, "{'priority-class':'p'}", 0,
     ",'priorityClassName':'p'}}}},'successfulJobsHistoryLimit':1,'failedJobsHistoryLimit':1}"},
};

static void test_spec_versions(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(version_cases); i++) {
        const version_case *c = &version_cases[i];
        cw_rjctl_settings set;
        cw_rjctl_config cfg = fresh_install();
        cw_error err;
        cw_error_init(&err);
        json_object *values = tjson(c->settings);
        assert_int_equal(cw_rjctl_settings_read(cw_lh_profile_find(c->minor), values, &set, &err),
                         CW_OK);
        cw_rjctl_config_use(&cfg, cw_lh_profile_find(c->minor), &set);
        cfg.image = "img:1";
        char fmt[4096], want[4096];
        snprintf(fmt, sizeof(fmt), "%s%s", VHEAD, c->tail);
        snprintf(want, sizeof(want), fmt, c->stamp ? TS : "", c->stamp ? "," TS : "");
        char *q = quotes(want);
        cw_buf b;
        cw_buf_init(&b);
        assert_int_equal(cw_rjctl_spec_json(&cfg, "j", "0 1 * * *", &b), CW_OK);
        if (strcmp(cw_buf_str(&b), q) != 0)
            fail_msg("%s:\n got %s\nwant %s", c->label, cw_buf_str(&b), q);
        free(q);
        cw_buf_free(&b);
        cw_rjctl_settings_free(&set);
        json_object_put(values);
    }
}

/* The Settings as each minor reads them: the first error in that manager's order. */
typedef struct {
    const char *label;
    int minor;
    const char *settings, *error;
} read_case;

static const read_case read_cases[] = {
    {"1.4 names the Go constant", 4,
     "{'recurring-successful-jobs-history-limit':'one','taint-toleration':'x'}",
     "failed to get setting of RecurringSuccessfulJobsHistoryLimit: strconv.ParseInt: parsing "
     "\"one\": invalid syntax"},
    {"1.5 names the Setting", 5, "{'recurring-failed-jobs-history-limit':' 2'}",
     "failed to get setting of recurring-failed-jobs-history-limit: strconv.ParseInt: parsing "
     "\" 2\": invalid syntax"},
    {"beyond int64", 12, "{'recurring-failed-jobs-history-limit':'9223372036854775808'}",
     "failed to get setting of recurring-failed-jobs-history-limit: strconv.ParseInt: parsing "
     "\"9223372036854775808\": value out of range"},
    {"1.3 does not read the limits: the toleration is the first error", 3,
     "{'recurring-successful-jobs-history-limit':'one','taint-toleration':'a=1=2:NoSchedule'}",
     "Setting taint-toleration: invalid toleration setting a=1=2: invalid key/value pair"},
    {"tolerations before the node selector", 4,
     "{'system-managed-components-node-selector':'zone','taint-toleration':'a'}",
     "Setting taint-toleration: failed to parse toleration: nil: missing key/value and effect "
     "pair"},
    {"the node selector", 4, "{'system-managed-components-node-selector':'zone'}",
     "Setting system-managed-components-node-selector: Error while unmarshal node selector: "
     "invalid label zone: should contain the separator ':'"},
};

static void test_settings_read(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(read_cases); i++) {
        const read_case *c = &read_cases[i];
        cw_rjctl_settings set;
        cw_error err;
        cw_error_init(&err);
        json_object *values = tjson(c->settings);
        assert_int_equal(cw_rjctl_settings_read(cw_lh_profile_find(c->minor), values, &set, &err),
                         CW_EINVAL);
        if (strcmp(err.message, c->error) != 0)
            fail_msg("%s:\n got %s\nwant %s", c->label, err.message, c->error);
        assert_null(set.tolerations);
        json_object_put(values);
    }
}

/* ---- Longhorn's setting formats ---- */

typedef struct {
    const char *label, *in;
    int node_selector; /* 0: taint-toleration */
    int rc;
    const char *want; /* JSON (' for ") or the error message */
    int reading;      /* the minor whose reading: 2, 3, 4 */
} setting_case;

static const setting_case setting_cases[] = {
    {"empty and blank are none", "  ", 0, CW_OK, "[]", 2},
    {"key=value:effect and key:effect", "a=1:NoSchedule;b:PreferNoSchedule", 0, CW_OK,
     "[{'key':'a','operator':'Equal','value':'1','effect':'NoSchedule'},{'key':'b','operator':"
     "'Exists','effect':'PreferNoSchedule'}]",
     2},
    {"1.2: text after a second '=' is dropped (it checks the wrong slice's length)",
     "a=1=2:NoExecute", 0, CW_OK,
     "[{'key':'a','operator':'Equal','value':'1','effect':'NoExecute'}]", 2},
    {"no effect separator", "a=1", 0, CW_EINVAL,
     "Setting taint-toleration: invalid toleration setting a=1: should contain both effect and "
     "key/value pair",
     2},
    {"two separators", "a:b:NoSchedule", 0, CW_EINVAL,
     "Setting taint-toleration: invalid toleration setting a:b:NoSchedule: should contain both "
     "effect and key/value pair",
     2},
    {"unknown effect, named as Longhorn names it (untrimmed)", "a: Never", 0, CW_EINVAL,
     "Setting taint-toleration: invalid toleration setting  Never: invalid effect", 2},
    {"a trailing ';' is an empty entry, which Longhorn refuses", "a:NoSchedule;", 0, CW_EINVAL,
     "Setting taint-toleration: invalid toleration setting : should contain both effect and "
     "key/value pair",
     2},
    {"node selector: trimmed keys and values", " zone : a ;disk:ssd", 1, CW_OK,
     "{'zone':'a','disk':'ssd'}", 2},
    {"node selector: a later key wins", "zone:a;zone:b", 1, CW_OK, "{'zone':'b'}", 2},
    {"node selector: no separator", "zone", 1, CW_EINVAL,
     "Setting system-managed-components-node-selector: Error while unmarshal node selector: "
     "invalid label zone: should contain the seprator ':'",
     2},
    /* Longhorn 1.3 (ValidateAndUnmarshalToleration with len(pair) checked) */
    {"1.3 refuses a second '='", "a=1=2 :NoExecute", 0, CW_EINVAL,
     "Setting taint-toleration: invalid toleration setting a=1=2 : invalid key/value pair", 3},
    {"1.3 reads key=value:effect as 1.2 does", " a = 1 : NoSchedule ", 0, CW_OK,
     "[{'key':'a','operator':'Equal','value':'1','effect':'NoSchedule'}]", 3},
    {"1.3 still spells 'seprator'", "zone", 1, CW_EINVAL,
     "Setting system-managed-components-node-selector: Error while unmarshal node selector: "
     "invalid label zone: should contain the seprator ':'",
     3},
    /* Longhorn 1.4+ (parseToleration: every space removed first) */
    {"1.4: spaces anywhere are removed", "key 1 = val ue:No Schedule; b :", 0, CW_OK,
     "[{'key':'key1','operator':'Equal','value':'value','effect':'NoSchedule'},{'key':'b',"
     "'operator':'Exists'}]",
     4},
    {"1.4: a second '=' leaves key, value and operator empty", "a=1=2:NoExecute", 0, CW_OK,
     "[{'effect':'NoExecute'}]", 4},
    {"1.4: ':' tolerates everything", ":", 0, CW_OK, "[{'operator':'Exists'}]", 4},
    {"1.4: the wrapped message names a nil toleration", "a=1", 0, CW_EINVAL,
     "Setting taint-toleration: failed to parse toleration: nil: missing key/value and effect "
     "pair",
     4},
    {"1.4: unknown effect", "a:Never", 0, CW_EINVAL,
     "Setting taint-toleration: failed to parse toleration: nil: invalid effect: Never", 4},
    {"1.4: a trailing ';' is an empty entry", "a:NoSchedule;", 0, CW_EINVAL,
     "Setting taint-toleration: failed to parse toleration: nil: missing key/value and effect "
     "pair",
     4},
    {"1.4: repeated ones once", "a:NoSchedule;a : NoSchedule", 0, CW_OK,
     "[{'key':'a','operator':'Exists','effect':'NoSchedule'}]", 4},
    {"1.4 spells 'separator'", "zone", 1, CW_EINVAL,
     "Setting system-managed-components-node-selector: Error while unmarshal node selector: "
     "invalid label zone: should contain the separator ':'",
     4},
};

static void test_settings(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(setting_cases); i++) {
        const setting_case *c = &setting_cases[i];
        json_object *got = NULL;
        cw_error err;
        cw_error_init(&err);
        int rc = c->node_selector ? cw_lh_parse_node_selector_as(c->reading, c->in, &got, &err)
                                  : cw_lh_parse_tolerations_as(c->reading, c->in, &got, &err);
        if (rc != c->rc)
            fail_msg("%s: rc %d, want %d (%s)", c->label, rc, c->rc, err.message);
        if (rc != CW_OK) {
            assert_string_equal(err.message, c->want);
            assert_null(got);
            continue;
        }
        json_object *want = tjson(c->want);
        if (!json_object_equal(got, want))
            fail_msg("%s: got %s", c->label, cw_json_compact(got));
        json_object_put(want);
        json_object_put(got);
    }
}

/* ---- the decision ---- */

#define RJ(cron)                                                                                   \
    "{'apiVersion':'longhorn.io/v1beta2','kind':'RecurringJob','metadata':{'name':'nightly',"      \
    "'namespace':'longhorn-system','uid':'u-1','resourceVersion':'5'},'spec':{'name':'nightly',"   \
    "'task':'snapshot','cron':'" cron "','retain':3,'concurrency':1}}"
/* As Longhorn 1.2's CRD stores it: no spec.name. */
#define RJ_PRUNED(task)                                                                            \
    "{'apiVersion':'longhorn.io/v1beta1','kind':'RecurringJob','metadata':{'name':'nightly',"      \
    "'namespace':'longhorn-system','uid':'u-1','resourceVersion':'5'},'spec':{'task':'" task       \
    "','cron':'0 2 * * *','retain':3,'concurrency':1,'groups':[],'labels':{}}}"
/* A CronJob labelled for j; @SPEC@ is replaced with the desired annotation. */
#define CJ(name, ann)                                                                              \
    "{'metadata':{'name':'" name "','labels':{'longhorn.io/managed-by':'longhorn-manager',"        \
    "'recurring-job.longhorn.io':'nightly'},'annotations':{'longhorn.io/"                          \
    "last-applied-cronjob-spec':"                                                                  \
    "'" ann "'}}}"

typedef struct {
    const char *label, *rj, *cronjobs;
    cw_rjctl_outcome outcome;
    const char *update_name, *deletes, *problems; /* lists joined with "," */
} decide_case;

static const decide_case decide_cases[] = {
    {"a new job: create its CronJob", RJ("0 2 * * *"), NULL, CW_RJCTL_CREATE, NULL, "", ""},
    {"the CronJob has the desired annotation: nothing", RJ("0 2 * * *"),
     "[" CJ("nightly", "@SPEC@") "]", CW_RJCTL_INSYNC, NULL, "", ""},
    {"the cron changed: update", RJ("0 3 * * *"), "[" CJ("nightly", "{}") "]", CW_RJCTL_UPDATE,
     "nightly", "", ""},
    {"no annotation (written by someone else): update", RJ("0 2 * * *"),
     "[{'metadata':{'name':'nightly'}}]", CW_RJCTL_UPDATE, "nightly", "", ""},
    {"found by its label, not its name: adopted as it is", RJ("0 2 * * *"),
     "[" CJ("nightly-c", "@SPEC@") "]", CW_RJCTL_INSYNC, NULL, "", ""},
    {"the one named after the job wins; another labelled for it goes", RJ("0 2 * * *"),
     "[" CJ("a-copy", "@SPEC@") "," CJ("nightly", "@SPEC@") "]", CW_RJCTL_INSYNC, NULL, "a-copy",
     ""},
    {"invalid by the policy: no CronJob written, problems named", RJ("61 * * * *"),
     "[" CJ("nightly", "{}") "]", CW_RJCTL_INVALID, NULL, "",
     "spec.cron: invalid cron expression \"61 * * * *\": end of range (61) above maximum (59): 61"},
    {"the job is gone: its CronJobs go", NULL,
     "[" CJ("nightly", "{}") "," CJ("nightly-c", "{}") "]", CW_RJCTL_GONE, NULL,
     "nightly,nightly-c", ""},
    {"the job is gone and nothing is labelled for it", NULL, NULL, CW_RJCTL_GONE, NULL, "", ""},
    {"no spec.name (Longhorn 1.2's CRD prunes it): created, named after metadata.name",
     RJ_PRUNED("snapshot"), NULL, CW_RJCTL_CREATE, NULL, "", ""},
    {"no spec.name, CronJob in sync: nothing", RJ_PRUNED("snapshot"),
     "[" CJ("nightly", "@SPEC@") "]", CW_RJCTL_INSYNC, NULL, "", ""},
    {"a spec.name that is not metadata.name: written all the same, named after metadata.name "
     "(Longhorn's newCronJob never reads spec.name; the webhook refuses it)",
     "{'apiVersion':'longhorn.io/v1beta2','kind':'RecurringJob','metadata':{'name':'nightly',"
     "'namespace':'longhorn-system','uid':'u-1'},'spec':{'name':'daily','task':'snapshot',"
     "'cron':'0 2 * * *','retain':3,'concurrency':1}}",
     NULL, CW_RJCTL_CREATE, NULL, "", ""},
};

static char *joined(const cw_strlist *l)
{
    char *s = cw_strlist_join(l, ",");
    return s ? s : strdup("");
}

static json_object *with_spec(const char *text, const cw_rjctl_config *cfg, json_object *rj)
{
    if (!text)
        return NULL;
    cw_buf spec, esc, out;
    cw_buf_init(&spec);
    cw_buf_init(&esc);
    cw_buf_init(&out);
    if (rj)
        assert_int_equal(
            cw_rjctl_spec_json(cfg, "nightly", cw_json_path_string(rj, "spec.cron"), &spec), CW_OK);
    /* The annotation is a JSON string inside the table's JSON: escape its quotes. */
    for (const char *p = cw_buf_str(&spec); *p; p++)
        cw_buf_puts(&esc, *p == '"' ? "\\'" : (char[]){*p, 0});
    for (const char *p = text; *p; p++) {
        if (strncmp(p, "@SPEC@", 6) == 0) {
            cw_buf_puts(&out, cw_buf_str(&esc));
            p += 5;
        } else {
            cw_buf_putc(&out, *p);
        }
    }
    char *s = strdup(cw_buf_str(&out));
    /* tjson turns ' into "; the escaped quotes must stay escaped quotes. */
    json_object *o = NULL;
    for (char *q = s; *q; q++)
        if (*q == '\'')
            *q = '"';
    o = json_tokener_parse(s);
    assert_non_null(o);
    free(s);
    cw_buf_free(&spec);
    cw_buf_free(&esc);
    cw_buf_free(&out);
    return o;
}

static void test_decide(void **state)
{
    (void)state;
    cw_rjctl_config cfg = fresh_install();
    cfg.cronjob_api_version = "batch/v1";
    for (size_t i = 0; i < N(decide_cases); i++) {
        const decide_case *c = &decide_cases[i];
        json_object *rj = tjson(c->rj), *cjs = with_spec(c->cronjobs, &cfg, rj);
        cw_rjctl_actions a;
        cw_error err;
        cw_error_init(&err);
        cw_rjctl_actions_init(&a);
        assert_int_equal(cw_rjctl_decide(rj, "nightly", cjs, &cfg, &a, &err), CW_OK);
        if (a.outcome != c->outcome)
            fail_msg("%s: outcome %s, want %s (problems: %s)", c->label,
                     cw_rjctl_outcome_name(a.outcome), cw_rjctl_outcome_name(c->outcome),
                     a.problems.len ? a.problems.items[0] : "");
        char *dels = joined(&a.delete), *probs = joined(&a.problems);
        if (strcmp(dels, c->deletes) != 0 || strcmp(probs, c->problems) != 0)
            fail_msg("%s: deletes [%s] problems [%s]", c->label, dels, probs);
        if (c->update_name)
            assert_string_equal(a.update_name, c->update_name);
        else
            assert_null(a.update_name);
        /* CREATE and UPDATE carry the whole desired CronJob, in the discovered version. */
        if (c->outcome == CW_RJCTL_CREATE || c->outcome == CW_RJCTL_UPDATE) {
            assert_string_equal(cw_json_path_string(a.cronjob, "apiVersion"), "batch/v1");
            assert_string_equal(cw_json_path_string(a.cronjob, "metadata.name"), "nightly");
            assert_string_equal(cw_json_path_string(a.cronjob, "spec.schedule"),
                                cw_json_path_string(rj, "spec.cron"));
            /* No profile: the owner is in the cached object's version. */
            assert_string_equal(
                cw_json_path_string(json_object_array_get_idx(
                                        cw_json_path(a.cronjob, "metadata.ownerReferences"), 0),
                                    "apiVersion"),
                cw_json_path_string(rj, "apiVersion"));
        } else {
            assert_null(a.cronjob);
        }
        free(dels);
        free(probs);
        cw_rjctl_actions_free(&a);
        json_object_put(rj);
        json_object_put(cjs);
    }
}

/* Each minor's tasks: Longhorn 1.2 runs any task but backup as a snapshot, so a newer task there
 * is refused rather than run as its opposite. */
typedef struct {
    int minor;
    const char *task;
    cw_rjctl_outcome outcome;
    const char *problem;
} task_case;

static const task_case task_cases[] = {
    {2, "snapshot", CW_RJCTL_CREATE, ""},
    {2, "backup", CW_RJCTL_CREATE, ""},
    {2, "snapshot-delete", CW_RJCTL_INVALID,
     "spec.task: \"snapshot-delete\" is a task of Longhorn 1.3 and later; the cluster runs "
     "Longhorn 1.2, whose manager has snapshot, backup"},
    {3, "snapshot-delete", CW_RJCTL_CREATE, ""},
    {4, "filesystem-trim", CW_RJCTL_INVALID,
     "spec.task: \"filesystem-trim\" is a task of Longhorn 1.5 and later; the cluster runs "
     "Longhorn 1.4, whose manager has snapshot, snapshot-force-create, snapshot-cleanup, "
     "snapshot-delete, backup, backup-force-create"},
    {5, "filesystem-trim", CW_RJCTL_CREATE, ""},
    {8, "system-backup", CW_RJCTL_INVALID,
     "spec.task: \"system-backup\" is a task of Longhorn 1.9 and later; the cluster runs Longhorn "
     "1.8, whose manager has snapshot, snapshot-force-create, snapshot-cleanup, "
     "snapshot-delete, backup, backup-force-create, filesystem-trim"},
    {9, "system-backup", CW_RJCTL_CREATE, ""},
};

static void test_decide_versions(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(task_cases); i++) {
        const task_case *c = &task_cases[i];
        char text[512];
        snprintf(text, sizeof(text), RJ_PRUNED("%s"), c->task);
        json_object *rj = tjson(text);
        cw_rjctl_settings set;
        cw_rjctl_config cfg = fresh_install();
        use_defaults(&cfg, cw_lh_profile_find(c->minor), &set);
        cw_rjctl_actions a;
        cw_error err;
        cw_error_init(&err);
        cw_rjctl_actions_init(&a);
        assert_int_equal(cw_rjctl_decide(rj, "nightly", NULL, &cfg, &a, &err), CW_OK);
        char *probs = joined(&a.problems);
        if (a.outcome != c->outcome || strcmp(probs, c->problem) != 0)
            fail_msg("1.%d %s: %s [%s]", c->minor, c->task, cw_rjctl_outcome_name(a.outcome),
                     probs);
        if (a.outcome == CW_RJCTL_CREATE)
            assert_string_equal(
                cw_json_path_string(json_object_array_get_idx(
                                        cw_json_path(a.cronjob, "metadata.ownerReferences"), 0),
                                    "apiVersion"),
                cw_lh_profile_find(c->minor)->owner_api);
        free(probs);
        cw_rjctl_actions_free(&a);
        cw_rjctl_settings_free(&set);
        json_object_put(rj);
    }
}

/* A TZ=/CRON_TZ= prefix in spec.cron: every minor's newCronJob copies the cron into
 * spec.schedule as it is and sets no spec.timeZone, so the CronJob is written with it (on
 * Kubernetes 1.29+ the API server refuses its create: the apply side reports that). */
static void test_decide_zone_prefix(void **state)
{
    (void)state;
    static const int minors[] = {2, 3, 4, 9, 10, 12};
    for (size_t i = 0; i < N(minors); i++) {
        json_object *rj = tjson(RJ("CRON_TZ=UTC 0 2 * * *"));
        cw_rjctl_settings set;
        cw_rjctl_config cfg = fresh_install();
        use_defaults(&cfg, cw_lh_profile_find(minors[i]), &set);
        cw_rjctl_actions a;
        cw_error err;
        cw_error_init(&err);
        cw_rjctl_actions_init(&a);
        assert_int_equal(cw_rjctl_decide(rj, "nightly", NULL, &cfg, &a, &err), CW_OK);
        if (a.outcome != CW_RJCTL_CREATE)
            fail_msg("1.%d: %s (%s)", minors[i], cw_rjctl_outcome_name(a.outcome),
                     a.problems.len ? a.problems.items[0] : "");
        assert_string_equal(cw_json_path_string(a.cronjob, "spec.schedule"),
                            "CRON_TZ=UTC 0 2 * * *");
        assert_null(cw_json_path(a.cronjob, "spec.timeZone"));
        const char *spec = json_object_get_string(
            json_object_object_get(cw_json_path(a.cronjob, "metadata.annotations"),
                                   "longhorn.io/last-applied-cronjob-spec"));
        if (strncmp(spec,
                    "{\"schedule\":\"CRON_TZ=UTC 0 2 * * *\",\"concurrencyPolicy\":\"Forbid\",",
                    65) != 0)
            fail_msg("1.%d: annotation %s", minors[i], spec);
        cw_rjctl_actions_free(&a);
        cw_rjctl_settings_free(&set);
        json_object_put(rj);
    }
}

/* Longhorn writes tolerations from a Go map: any order of the same ones is in sync, so neither
 * side rewrites the other's CronJob; a different set is not. */
static void test_toleration_order(void **state)
{
    (void)state;
    cw_rjctl_config cfg = fresh_install();
    cw_error err;
    cw_error_init(&err);
    json_object *rj = tjson(RJ("0 2 * * *"));
    const char *orders[][2] = {{"a:NoSchedule;b:NoExecute", "b:NoExecute;a:NoSchedule"},
                               {"a:NoSchedule;b:NoExecute", "a:NoSchedule"}};
    const cw_rjctl_outcome want[] = {CW_RJCTL_INSYNC, CW_RJCTL_UPDATE};
    for (size_t i = 0; i < N(orders); i++) {
        cw_buf spec;
        cw_buf_init(&spec);
        assert_int_equal(cw_lh_parse_tolerations_as(2, orders[i][1], &cfg.tolerations, &err),
                         CW_OK);
        assert_int_equal(cw_rjctl_spec_json(&cfg, "nightly", "0 2 * * *", &spec), CW_OK);
        json_object_put(cfg.tolerations);
        json_object *cj = tjson(CJ("nightly", "x")), *arr = json_object_new_array();
        json_object_object_add(cw_json_path(cj, "metadata.annotations"), CW_RJCTL_ANNOTATION,
                               json_object_new_string(cw_buf_str(&spec)));
        json_object_array_add(arr, cj);
        assert_int_equal(cw_lh_parse_tolerations_as(2, orders[i][0], &cfg.tolerations, &err),
                         CW_OK);
        cw_rjctl_actions a;
        cw_rjctl_actions_init(&a);
        assert_int_equal(cw_rjctl_decide(rj, "nightly", arr, &cfg, &a, &err), CW_OK);
        assert_int_equal(a.outcome, want[i]);
        /* What the shell asks of the live CronJob before a rewrite: the same answer. */
        json_object *desired = NULL;
        assert_int_equal(cw_rjctl_cronjob(&cfg, rj, &desired, &err), CW_OK);
        assert_int_equal(cw_rjctl_in_sync(cj, desired), want[i] == CW_RJCTL_INSYNC);
        assert_int_equal(cw_rjctl_in_sync(desired, desired), 1);
        json_object *other = tjson(CJ("nightly", "x")), *bare = tjson("{'metadata':{}}");
        assert_int_equal(cw_rjctl_in_sync(other, desired), 0);
        assert_int_equal(cw_rjctl_in_sync(bare, desired), 0);
        json_object_put(other);
        json_object_put(bare);
        json_object_put(desired);
        cw_rjctl_actions_free(&a);
        json_object_put(cfg.tolerations);
        json_object_put(arr);
        cw_buf_free(&spec);
    }
    json_object_put(rj);
}

/* ---- what each release does: identified from the manager's image tag, as the shell does ---- */

#define RJ_TASK(task, cron, params)                                                                \
    "{'apiVersion':'longhorn.io/v1beta2','kind':'RecurringJob','metadata':{'name':'nightly',"      \
    "'namespace':'longhorn-system','uid':'u-1'},'spec':{'task':'" task "','cron':'" cron "',"      \
    "'retain':3,'concurrency':1,'parameters':" params "}}"

/* Any spec, named as given. */
#define RJ_FIELDS(name, fields)                                                                    \
    "{'apiVersion':'longhorn.io/v1beta2','kind':'RecurringJob','metadata':{'name':'" name "',"     \
    "'namespace':'longhorn-system','uid':'u-1'},'spec':{" fields "}}"

typedef struct {
    const char *label, *tag; /* the longhorn-manager image's tag */
    const char *settings;    /* {name: value} (' for ") */
    const char *rj;
    cw_rjctl_outcome outcome;
    const char *problem;     /* INVALID: the one problem */
    const char *tolerations; /* CREATE: the pod's tolerations (' for "; NULL: none) */
    const char *annotation;  /* CREATE: a part of the annotation (NULL: not checked) */
} release_case;

static const release_case release_cases[] = {
    /* (1) util.GetDistinctTolerations keys each toleration by key+operator+value+effect joined
     * with no separator, the last one winning: these two are one toleration upstream. */
    {"1.9.3: xEqual: and x=Exists: are one toleration", "v1.9.3",
     "{'taint-toleration':'xEqual:;x=Exists:'}", RJ_TASK("snapshot", "0 2 * * *", "{}"),
     CW_RJCTL_CREATE, NULL, "[{'key':'x','operator':'Equal','value':'Exists'}]", NULL},
    {"1.2.6: k=vNoSchedule: then k=v:NoSchedule, the last wins", "v1.2.6",
     "{'taint-toleration':'k=vNoSchedule:;k=v:NoSchedule'}", RJ_TASK("snapshot", "0 2 * * *", "{}"),
     CW_RJCTL_CREATE, NULL, "[{'key':'k','operator':'Equal','value':'v','effect':'NoSchedule'}]",
     NULL},
    {"1.12.1: the other way round", "v1.12.1",
     "{'taint-toleration':'k=v:NoSchedule;k=vNoSchedule:'}", RJ_TASK("snapshot", "0 2 * * *", "{}"),
     CW_RJCTL_CREATE, NULL, "[{'key':'k','operator':'Equal','value':'vNoSchedule'}]", NULL},
    {"1.12.1: different effects stay apart", "v1.12.1",
     "{'taint-toleration':'k:NoSchedule;k:NoExecute;k:NoSchedule'}",
     RJ_TASK("snapshot", "0 2 * * *", "{}"), CW_RJCTL_CREATE, NULL,
     "[{'key':'k','operator':'Exists','effect':'NoSchedule'},"
     "{'key':'k','operator':'Exists','effect':'NoExecute'}]",
     NULL},
    /* (2) v1.4.0 and v1.4.1 still parse taint-toleration as 1.2 does (trim, len(parts)). */
    {"1.4.0: a=b=c keeps a and b", "v1.4.0", "{'taint-toleration':'a=b=c:NoSchedule'}",
     RJ_TASK("snapshot", "0 2 * * *", "{}"), CW_RJCTL_CREATE, NULL,
     "[{'key':'a','operator':'Equal','value':'b','effect':'NoSchedule'}]", NULL},
    {"1.4.1: spaces inside are kept", "v1.4.1", "{'taint-toleration':' my key = v 1 :NoSchedule'}",
     RJ_TASK("snapshot", "0 2 * * *", "{}"), CW_RJCTL_CREATE, NULL,
     "[{'key':'my key','operator':'Equal','value':'v 1','effect':'NoSchedule'}]", NULL},
    {"1.4.2: spaces removed", "v1.4.2", "{'taint-toleration':' my key = v 1 :NoSchedule'}",
     RJ_TASK("snapshot", "0 2 * * *", "{}"), CW_RJCTL_CREATE, NULL,
     "[{'key':'mykey','operator':'Equal','value':'v1','effect':'NoSchedule'}]", NULL},
    {"1.3.2: a=1=2 keeps a and 1", "v1.3.2", "{'taint-toleration':'a=1=2:NoSchedule'}",
     RJ_TASK("snapshot", "0 2 * * *", "{}"), CW_RJCTL_CREATE, NULL,
     "[{'key':'a','operator':'Equal','value':'1','effect':'NoSchedule'}]", NULL},
    /* (2) the tasks: v1.3.0-v1.3.2 and v1.4.0 have snapshot and backup; v1.4.1 adds
     * snapshot-cleanup and snapshot-delete; v1.3.3 and v1.4.2 the force-create tasks. */
    {"1.3.2: no snapshot-delete", "v1.3.2", "{}", RJ_TASK("snapshot-delete", "0 2 * * *", "{}"),
     CW_RJCTL_INVALID,
     "spec.task: \"snapshot-delete\" is a task of Longhorn 1.3 from 1.3.3; the cluster runs an "
     "earlier 1.3 release, whose manager has snapshot, backup",
     NULL, NULL},
    {"1.3.3: snapshot-delete", "v1.3.3", "{}", RJ_TASK("snapshot-delete", "0 2 * * *", "{}"),
     CW_RJCTL_CREATE, NULL, NULL, NULL},
    {"1.4.0: no snapshot-cleanup", "v1.4.0", "{}", RJ_TASK("snapshot-cleanup", "0 2 * * *", "{}"),
     CW_RJCTL_INVALID,
     "spec.task: \"snapshot-cleanup\" is a task of Longhorn 1.4 from 1.4.1; the cluster runs an "
     "earlier 1.4 release, whose manager has snapshot, backup",
     NULL, NULL},
    {"1.4.1: snapshot-cleanup, no backup-force-create", "v1.4.1", "{}",
     RJ_TASK("backup-force-create", "0 2 * * *", "{}"), CW_RJCTL_INVALID,
     "spec.task: \"backup-force-create\" is a task of Longhorn 1.4 from 1.4.2; the cluster runs "
     "an earlier 1.4 release, whose manager has snapshot, snapshot-cleanup, snapshot-delete, "
     "backup",
     NULL, NULL},
    {"1.4.2: backup-force-create", "v1.4.2", "{}",
     RJ_TASK("backup-force-create", "0 2 * * *", "{}"), CW_RJCTL_CREATE, NULL, NULL, NULL},
    /* (3) ValidateRecurringJobParameters checks backup and backup-force-create only. */
    {"1.9.3: parameters on a snapshot task are Longhorn's to ignore", "v1.9.3", "{}",
     RJ_TASK("snapshot", "0 2 * * *", "{'full-backup-interval':'x','anything':'1'}"),
     CW_RJCTL_CREATE, NULL, NULL, NULL},
    {"1.12.1: system-backup's parameters are not checked either", "v1.12.1", "{}",
     RJ_TASK("system-backup", "0 2 * * *", "{'volume-backup-policy':'sometimes'}"), CW_RJCTL_CREATE,
     NULL, NULL, NULL},
    {"1.6.4: no parameters checked (from v1.7.0)", "v1.6.4", "{}",
     RJ_TASK("backup", "0 2 * * *", "{'full-backup-interval':'x'}"), CW_RJCTL_CREATE, NULL, NULL,
     NULL},
    /* A backup task's parameters are checked by Longhorn's webhook, never by its controller,
     * whose newCronJob reads no field but the name and the cron (every tag): what the webhook
     * would refuse, the controller still writes (issue 34 (3)). */
    {"1.12.1: a backup task's are the webhook's, not the controller's", "v1.12.1", "{}",
     RJ_TASK("backup", "0 2 * * *", "{'full-backup-interval':'x'}"), CW_RJCTL_CREATE, NULL, NULL,
     NULL},
    {"1.12.1: a negative full-backup-interval", "v1.12.1", "{}",
     RJ_TASK("backup", "0 2 * * *", "{'full-backup-interval':'-1'}"), CW_RJCTL_CREATE, NULL, NULL,
     NULL},
    {"1.12.1: an unknown parameter on a backup task", "v1.12.1", "{}",
     RJ_TASK("backup-force-create", "0 2 * * *", "{'foo':'bar'}"), CW_RJCTL_CREATE, NULL, NULL,
     NULL},
    {"1.8.2: volume-backup-policy, a parameter of 1.9", "v1.8.2", "{}",
     RJ_TASK("backup", "0 2 * * *", "{'volume-backup-policy':'always'}"), CW_RJCTL_CREATE, NULL,
     NULL, NULL},
    {"1.12.1: a negative concurrency", "v1.12.1", "{}",
     RJ_FIELDS("nightly", "'task':'snapshot','cron':'0 2 * * *','concurrency':-1"), CW_RJCTL_CREATE,
     NULL, NULL, NULL},
    {"1.12.1: a retain over the maximum", "v1.12.1", "{}",
     RJ_FIELDS("nightly", "'task':'snapshot','cron':'0 2 * * *','retain':500"), CW_RJCTL_CREATE,
     NULL, NULL, NULL},
    {"1.12.1: labels and groups the webhook refuses", "v1.12.1", "{}",
     RJ_FIELDS("nightly",
               "'task':'snapshot','cron':'0 2 * * *','labels':{'a b':''},'groups':['bad group']"),
     CW_RJCTL_CREATE, NULL, NULL, NULL},
    {"1.12.1: a spec.name that is not metadata.name (newCronJob reads metadata.name)", "v1.12.1",
     "{}", RJ_FIELDS("nightly", "'name':'daily','task':'snapshot','cron':'0 2 * * *'"),
     CW_RJCTL_CREATE, NULL, NULL, NULL},
    {"1.12.1: a name of 41 characters (upstream's webhook would shorten it on create)", "v1.12.1",
     "{}",
     RJ_FIELDS("abcdefghij-abcdefghij-abcdefghij-abcdefgh", "'task':'snapshot','cron':'0 2 * * *'"),
     CW_RJCTL_CREATE, NULL, NULL, NULL},
    /* What no CronJob is made of: a schedule the API server refuses (Kubernetes parses it with
     * robfig/cron too), a task the release does not have (its CRD refuses it from 1.3; 1.2 would
     * run it as a snapshot). */
    {"1.12.1: a cron that does not parse", "v1.12.1", "{}",
     RJ_FIELDS("nightly", "'task':'snapshot','cron':'61 * * * *','concurrency':-1"),
     CW_RJCTL_INVALID,
     "spec.cron: invalid cron expression \"61 * * * *\": end of range (61) above maximum (59): 61",
     NULL, NULL},
    /* (5) Go 1.22's encoding/json writes \b and \f (v1.6.2 on); older Go \u0008 and \u000c. */
    {"1.6.1: Go 1.21 writes \\u000c", "v1.6.1", "{}", RJ_TASK("snapshot", "0\\f2 * * *", "{}"),
     CW_RJCTL_CREATE, NULL, NULL, "{\"schedule\":\"0\\u000c2 * * *\","},
    {"1.6.2: Go 1.22 writes \\f", "v1.6.2", "{}", RJ_TASK("snapshot", "0\\f2 * * *", "{}"),
     CW_RJCTL_CREATE, NULL, NULL, "{\"schedule\":\"0\\f2 * * *\","},
    /* (6) a fresh install from 1.6: the deploy manifest's default Settings set priority-class. */
    {"1.6.4 fresh install: longhorn-critical after the tolerations", "v1.6.4",
     "{'priority-class':'longhorn-critical','taint-toleration':'k:NoSchedule'}",
     RJ_TASK("snapshot", "0 2 * * *", "{}"), CW_RJCTL_CREATE, NULL,
     "[{'key':'k','operator':'Exists','effect':'NoSchedule'}]",
     "\"serviceAccountName\":\"longhorn-service-account\",\"tolerations\":[{\"key\":\"k\","
     "\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}],\"priorityClassName\":"
     "\"longhorn-critical\"}}}},"},
    {"1.12.1: \\b too", "v1.12.1", "{'priority-class':'p\\bq'}",
     RJ_TASK("snapshot", "0 2 * * *", "{}"), CW_RJCTL_CREATE, NULL, NULL,
     "\"priorityClassName\":\"p\\bq\""},
};

static void check_release(const release_case *c)
{
    char image[64];
    cw_lh_identity id;
    cw_lh_decision d;
    cw_rjctl_settings set;
    cw_rjctl_config cfg = fresh_install();
    cw_rjctl_actions a;
    cw_error err;
    cw_error_init(&err);
    snprintf(image, sizeof(image), "longhornio/longhorn-manager:%s", c->tag);
    cw_lh_identify_image(image, &id);
    cw_lh_decide(CW_LH_RECONCILER_RECURRINGJOB, &id, &d);
    if (!d.write)
        fail_msg("%s: %s", c->label, d.message);
    json_object *values = tjson(c->settings), *rj = tjson(c->rj);
    if (cw_rjctl_settings_read(d.profile, values, &set, &err) != CW_OK)
        fail_msg("%s: %s", c->label, err.message);
    cw_rjctl_config_use(&cfg, d.profile, &set);
    cfg.cronjob_api_version = d.profile->cronjob_api;
    cw_rjctl_actions_init(&a);
    assert_int_equal(cw_rjctl_decide(rj, "nightly", NULL, &cfg, &a, &err), CW_OK);
    char *probs = joined(&a.problems);
    if (a.outcome != c->outcome || strcmp(probs, c->problem ? c->problem : "") != 0)
        fail_msg("%s: %s [%s]", c->label, cw_rjctl_outcome_name(a.outcome), probs);
    if (a.outcome == CW_RJCTL_CREATE) {
        expect_json(cw_json_path(a.cronjob, "spec.jobTemplate.spec.template.spec.tolerations"),
                    c->tolerations, "tolerations", c->label);
        const char *ann = json_object_get_string(
            cw_json_member(cw_json_path(a.cronjob, "metadata.annotations"), CW_RJCTL_ANNOTATION));
        if (c->annotation && !strstr(ann, c->annotation))
            fail_msg("%s: annotation\n%s\nlacks %s", c->label, ann, c->annotation);
    }
    free(probs);
    cw_rjctl_actions_free(&a);
    cw_rjctl_settings_free(&set);
    json_object_put(values);
    json_object_put(rj);
}

static void test_releases(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(release_cases); i++)
        check_release(&release_cases[i]);
}

/* ---- the oracle: CronJobs made by longhorn-manager's own code at each tag ---- */

/* tests/fixtures/longhorn-oracle/ (its README says how they were made): cases.json holds
 * RecurringJobs with Settings; each <tag>.json what that tag's newCronJob and createCronJob wrote
 * for every case, or the error it returned. cronwarden's CronJob builder, as the row of that
 * release, must write the same: the annotation byte for byte, the rest equal as JSON; an error
 * upstream must be cronwarden's too, with upstream's text in its message. */
static int by_text(const void *a, const void *b)
{
    return strcmp(json_object_to_json_string(*(json_object *const *)a),
                  json_object_to_json_string(*(json_object *const *)b));
}

static void sort_by_text(json_object *arr)
{
    if (json_object_is_type(arr, json_type_array))
        json_object_array_sort(arr, by_text);
}

static int many_tolerations(json_object *cj)
{
    json_object *t = cw_json_path(cj, "spec.jobTemplate.spec.template.spec.tolerations");
    return json_object_is_type(t, json_type_array) && json_object_array_length(t) > 1;
}

static int check_oracle_case(const cw_lh_profile *p, json_object *tagged, json_object *c)
{
    const char *name = cw_json_path_string(c, "name");
    json_object *want = cw_json_member(cw_json_member(tagged, "results"), name);
    cw_rjctl_settings set;
    cw_rjctl_config cfg = fresh_install();
    cw_error err;
    cw_error_init(&err);
    if (!want)
        fail_msg("%s: no result for case %s", cw_json_path_string(tagged, "tag"), name);
    const char *want_err = cw_json_path_string(want, "error");
    int rc = cw_rjctl_settings_read(p, cw_json_member(c, "settings"), &set, &err);
    json_object *got = NULL;
    if (rc == CW_OK) {
        cw_rjctl_config_use(&cfg, p, &set);
        cfg.image = cw_json_path_string(tagged, "image");
        cfg.service_account = cw_json_path_string(tagged, "serviceAccount");
        cfg.cronjob_api_version = p->cronjob_api;
        rc = cw_rjctl_cronjob(&cfg, cw_json_member(c, "recurringJob"), &got, &err);
        cw_rjctl_settings_free(&set);
    }
    if (want_err) {
        if (rc == CW_OK || !strstr(err.message, want_err))
            fail_msg("%s %s: upstream fails with \"%s\"; cronwarden: %s",
                     cw_json_path_string(tagged, "tag"), name, want_err,
                     rc == CW_OK ? "a CronJob" : err.message);
        json_object_put(got);
        return 1;
    }
    if (rc != CW_OK)
        fail_msg("%s %s: %s", cw_json_path_string(tagged, "tag"), name, err.message);
    json_object *cj = cw_json_member(want, "cronJob");
    const char *wann = json_object_get_string(
        cw_json_member(cw_json_path(cj, "metadata.annotations"), CW_RJCTL_ANNOTATION));
    const char *gann = json_object_get_string(
        cw_json_member(cw_json_path(got, "metadata.annotations"), CW_RJCTL_ANNOTATION));
    /* Upstream writes two or more tolerations from a Go map, in a random order: there the same
     * spec up to that order is what a byte-for-byte comparison can ask (cw_rjctl_in_sync). */
    if (!wann || !gann ||
        (strcmp(wann, gann) != 0 && !(many_tolerations(cj) && cw_rjctl_in_sync(got, cj))))
        fail_msg("%s %s annotation:\n got %s\nwant %s", cw_json_path_string(tagged, "tag"), name,
                 gann ? gann : "NULL", wann ? wann : "NULL");
    /* Go marshals the object's empty status and (to 1.9) a null creationTimestamp: not part of
     * what is written. */
    json_object *w = NULL;
    assert_int_equal(json_object_deep_copy(cj, &w, NULL), 0);
    json_object_object_del(w, "status");
    json_object_object_del(cw_json_member(w, "metadata"), "creationTimestamp");
    sort_by_text(cw_json_path(w, "spec.jobTemplate.spec.template.spec.tolerations"));
    sort_by_text(cw_json_path(got, "spec.jobTemplate.spec.template.spec.tolerations"));
    json_object_object_del(cw_json_path(w, "metadata.annotations"), CW_RJCTL_ANNOTATION);
    json_object_object_del(cw_json_path(got, "metadata.annotations"), CW_RJCTL_ANNOTATION);
    if (!json_object_equal(got, w))
        fail_msg("%s %s:\n got %s\nwant %s", cw_json_path_string(tagged, "tag"), name,
                 cw_json_compact(got), cw_json_compact(w));
    json_object_put(w);
    json_object_put(got);
    return 0;
}

/* encoding/json writes \b and \f from Go 1.22 (\u0008, \u000c before): the escapes are the
 * toolchain's, not the tag's code's. A file run with a newer Go than its release was built with
 * (v1.5.5.json: Go 1.26; the release, Go 1.21) is compared with that row written with the newer
 * Go's escapes; its README says so. */
static int go_short_escapes(const char *go)
{
    int major = 0, minor = 0;
    return go && sscanf(go, "go%d.%d", &major, &minor) == 2 && (major > 1 || minor >= 22);
}

/* Every output file the oracle's README lists, in byte order: a file deleted, renamed or added
 * without its row there fails test_oracle. */
static const char *const oracle_files[] = {
    "v1.10.2.json", "v1.11.3.json", "v1.12.0.json", "v1.12.1.json", "v1.2.6.json",
    "v1.3.2.json",  "v1.3.3.json",  "v1.4.0.json",  "v1.4.1.json",  "v1.4.4.json",
    "v1.5.5.json",  "v1.6.4.json",  "v1.7.4.json",  "v1.8.2.json",  "v1.9.3.json",
};

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The v*.json files of tests/fixtures/longhorn-oracle/, sorted; *n of them (caller frees). */
static char **oracle_listing(size_t *n)
{
    char dir[512];
    const char *src = getenv("CW_SOURCE_DIR");
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/longhorn-oracle", src ? src : ".");
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    *n = 0;
    if (!d)
        fail_msg("cannot open %s", dir);
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] != 'v' || len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        names = realloc(names, (*n + 1) * sizeof(*names));
        assert_non_null(names);
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (*n)
        qsort(names, *n, sizeof(*names), by_name);
    return names;
}

static void test_oracle(void **state)
{
    (void)state;
    json_object *cases = read_fixture("oracle", "cases.json");
    json_object *list = cw_json_member(cases, "cases");
    size_t tags = 0, compared = 0, errors = 0, rebuilt = 0, found;
    char **names = oracle_listing(&found);
    for (size_t i = 0; i < found || i < N(oracle_files); i++)
        if (i >= found || i >= N(oracle_files) || strcmp(names[i], oracle_files[i]) != 0)
            fail_msg("longhorn-oracle: file %zu is %s, the list says %s", i,
                     i < found ? names[i] : "missing",
                     i < N(oracle_files) ? oracle_files[i] : "none");
    for (size_t f = 0; f < found; f++) {
        json_object *tagged = read_fixture("oracle", names[f]);
        char image[128];
        cw_lh_identity id;
        cw_lh_decision dec;
        snprintf(image, sizeof(image), "longhornio/longhorn-manager:%s",
                 cw_json_path_string(tagged, "tag"));
        cw_lh_identify_image(image, &id);
        cw_lh_decide(CW_LH_RECONCILER_RECURRINGJOB, &id, &dec);
        if (!dec.write)
            fail_msg("%s: %s", names[f], dec.message);
        cw_lh_profile row = *dec.profile;
        row.json_short_escapes = go_short_escapes(cw_json_path_string(tagged, "go")) ? 1 : 0;
        /* Only the file its README says was run so: every other file checks the row's escapes. */
        if (row.json_short_escapes != dec.profile->json_short_escapes) {
            if (strcmp(cw_json_path_string(tagged, "tag"), "v1.5.5") != 0)
                fail_msg("%s: run with %s, whose escapes are not Longhorn %s's", names[f],
                         cw_json_path_string(tagged, "go"), dec.profile->release);
            rebuilt++;
        }
        for (size_t i = 0; i < json_object_array_length(list); i++) {
            errors += (size_t)check_oracle_case(&row, tagged, json_object_array_get_idx(list, i));
            compared++;
        }
        json_object_put(tagged);
        free(names[f]);
        tags++;
    }
    free(names);
    json_object_put(cases);
    /* Not vacuous: every listed release, and the table's 40+ cases each. */
    assert_int_equal(tags, N(oracle_files));
    assert_true(compared >= 40 * tags);
    print_message("oracle: %zu releases (%zu run with a Go whose escapes differ from the "
                  "release's), %zu cases compared (%zu upstream errors)\n",
                  tags, rebuilt, compared, errors);
}

/* The controller writes every CronJob upstream's controller writes (issue 34 (3)): over the
 * oracle's table at every release, a case upstream made a CronJob of (no Settings error) is
 * CREATE, or refused only for a task that release does not have (its CRD refuses the task from
 * 1.3; 1.2 would run it as a snapshot) or for the one cron Kubernetes' robfig parser refuses as
 * well (a backspace inside a field; a CRON_TZ= prefix is written, as upstream writes it). */
static void test_oracle_decide(void **state)
{
    (void)state;
    json_object *cases = read_fixture("oracle", "cases.json");
    json_object *list = cw_json_member(cases, "cases");
    size_t created = 0, refused = 0;
    for (size_t f = 0; f < N(oracle_files); f++) {
        json_object *tagged = read_fixture("oracle", oracle_files[f]);
        const char *tag = cw_json_path_string(tagged, "tag");
        char image[128];
        cw_lh_identity id;
        cw_lh_decision dec;
        snprintf(image, sizeof(image), "longhornio/longhorn-manager:%s", tag);
        cw_lh_identify_image(image, &id);
        cw_lh_decide(CW_LH_RECONCILER_RECURRINGJOB, &id, &dec);
        assert_true(dec.write);
        for (size_t i = 0; i < json_object_array_length(list); i++) {
            json_object *c = json_object_array_get_idx(list, i), *rj;
            const char *name = cw_json_path_string(c, "name");
            if (cw_json_path_string(cw_json_member(cw_json_member(tagged, "results"), name),
                                    "error"))
                continue; /* a Setting upstream refuses: no CronJob on either side */
            cw_rjctl_settings set;
            cw_rjctl_config cfg = fresh_install();
            cw_rjctl_actions a;
            cw_error err;
            cw_error_init(&err);
            assert_int_equal(
                cw_rjctl_settings_read(dec.profile, cw_json_member(c, "settings"), &set, &err),
                CW_OK);
            cw_rjctl_config_use(&cfg, dec.profile, &set);
            cfg.cronjob_api_version = dec.profile->cronjob_api;
            rj = cw_json_member(c, "recurringJob");
            cw_rjctl_actions_init(&a);
            assert_int_equal(
                cw_rjctl_decide(rj, cw_json_path_string(rj, "metadata.name"), NULL, &cfg, &a, &err),
                CW_OK);
            const char *task = cw_json_path_string(rj, "spec.task");
            for (size_t p = 0; a.outcome == CW_RJCTL_INVALID && p < a.problems.len; p++) {
                const char *why = a.problems.items[p];
                if (!(strncmp(why, "spec.task: ", 11) == 0 &&
                      !cw_recurringjob_task_in(task, id.minor, id.patch)) &&
                    !(strcmp(name, "cron-backspace") == 0 &&
                      strncmp(why, "spec.cron: invalid cron expression ", 35) == 0))
                    fail_msg("%s %s: upstream writes a CronJob, cronwarden refuses: %s", tag, name,
                             why);
            }
            if (a.outcome != CW_RJCTL_CREATE && a.outcome != CW_RJCTL_INVALID)
                fail_msg("%s %s: %s", tag, name, cw_rjctl_outcome_name(a.outcome));
            created += a.outcome == CW_RJCTL_CREATE;
            refused += a.outcome == CW_RJCTL_INVALID;
            cw_rjctl_actions_free(&a);
            cw_rjctl_settings_free(&set);
        }
        json_object_put(tagged);
    }
    json_object_put(cases);
    assert_true(created >= 40 * N(oracle_files));
    print_message("oracle decide: %zu CronJobs written, %zu refused (tasks the release lacks, "
                  "a cron the API server refuses)\n",
                  created, refused);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_no_profile),
        cmocka_unit_test(test_spec),
        cmocka_unit_test(test_spec_versions),
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_settings_read),
        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_decide_versions),
        cmocka_unit_test(test_decide_zone_prefix),
        cmocka_unit_test(test_toleration_order),
        cmocka_unit_test(test_releases),
        cmocka_unit_test(test_oracle),
        cmocka_unit_test(test_oracle_decide),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
