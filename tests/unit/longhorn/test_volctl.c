/* The Volume reconciler's decision (longhorn/volctl.c): one table of real cases, compared
 * exactly (outcome, RecurringJobs to create, merge patch, problems). Names use Longhorn's scheme,
 * whose published example is snapshot-1-97893a05-77074ba4 (cron "* /1 * * * *", retain 1, no
 * labels). */
#include "tests/unit/controller/ctrl_test.h"

#include "longhorn/volctl.h"
#include "defaults/policy.h"

#define VOL(labels, spec)                                                                          \
    "{'apiVersion':'longhorn.io/v1beta1','kind':'Volume','metadata':{'name':'pvc-1',"              \
    "'namespace':'longhorn-system','uid':'v-1','resourceVersion':'5'" labels "},'spec':{" spec     \
    "}}"
#define LEGACY(cron)                                                                               \
    "'recurringJobs':[{'name':'snap','task':'snapshot','cron':'" cron "','retain':1}]"
#define EXAMPLE "snapshot-1-97893a05-77074ba4"
#define RJ(cron)                                                                                   \
    "{'apiVersion':'longhorn.io/v1beta2','kind':'RecurringJob','metadata':{'name':'" EXAMPLE       \
    "','namespace':'longhorn-system'},'spec':{'name':'" EXAMPLE                                    \
    "','task':'snapshot','cron':'" cron                                                            \
    "','retain':1,'concurrency':10,'groups':[],'labels':null}}"

typedef struct {
    const char *label;
    const char *group; /* --default-group */
    const char *volume, *rjs;
    cw_volctl_outcome outcome;
    const char *jobs, *patch, *problems; /* JSON with ' for "; problems joined with "\n" */
} vol_case;

static const vol_case cases[] = {
    {"no job label: the default group, conditional on the version seen", "default", VOL("", ""),
     NULL, CW_VOLCTL_DEFAULT_LABEL, NULL,
     "{'metadata':{'resourceVersion':'5','labels':{'recurring-job-group.longhorn.io/default':"
     "'enabled'}}}",
     ""},
    {"other labels only: the default group is added to them (a merge patch keeps them)", "nightly",
     VOL(",'labels':{'app':'db'}", ""), NULL, CW_VOLCTL_DEFAULT_LABEL, NULL,
     "{'metadata':{'resourceVersion':'5','labels':{'recurring-job-group.longhorn.io/nightly':"
     "'enabled'}}}",
     ""},
    {"a job label: nothing", "default",
     VOL(",'labels':{'recurring-job.longhorn.io/backup-1':'enabled'}", ""), NULL, CW_VOLCTL_INSYNC,
     NULL, NULL, ""},
    {"a group label, whatever its value (Longhorn's test): nothing", "default",
     VOL(",'labels':{'recurring-job-group.longhorn.io/gold':'disabled'}", ""), NULL,
     CW_VOLCTL_INSYNC, NULL, NULL, ""},
    {"--default-group \"\": nothing", "", VOL("", ""), NULL, CW_VOLCTL_INSYNC, NULL, NULL, ""},
    {"an empty legacy list is no legacy: the default group", "default",
     VOL("", "'recurringJobs':[]"), NULL, CW_VOLCTL_DEFAULT_LABEL, NULL,
     "{'metadata':{'resourceVersion':'5','labels':{'recurring-job-group.longhorn.io/default':"
     "'enabled'}}}",
     ""},
    {"legacy jobs: the migrator's RecurringJob, then labels and the list removed", "default",
     VOL("", LEGACY("*/1 * * * *")), NULL, CW_VOLCTL_MIGRATE,
     "[{'apiVersion':'longhorn.io/v1beta2','kind':'RecurringJob','metadata':{'name':'" EXAMPLE
     "','namespace':'longhorn-system'},'spec':{'name':'" EXAMPLE
     "','task':'snapshot','cron':'*/1 * * * "
     "*','retain':1,'concurrency':10,'groups':[],'labels':{}}}]",
     "{'metadata':{'resourceVersion':'5','labels':{'recurring-job.longhorn.io/" EXAMPLE
     "':'enabled'}},'spec':{'recurringJobs':null}}",
     ""},
    {"legacy jobs whose RecurringJob exists with the same spec: reused, not created", "default",
     VOL("", LEGACY("*/1 * * * *")), "[" RJ("*/1 * * * *") "]", CW_VOLCTL_MIGRATE, "[]",
     "{'metadata':{'resourceVersion':'5','labels':{'recurring-job.longhorn.io/" EXAMPLE
     "':'enabled'}},'spec':{'recurringJobs':null}}",
     ""},
    {"the name is taken by another spec: nothing written, the conflict named", "default",
     VOL("", LEGACY("*/1 * * * *")), "[" RJ("0 * * * *") "]", CW_VOLCTL_REFUSED, NULL, NULL,
     "RecurringJob " EXAMPLE " already exists in longhorn-system with a different spec: cron \"0 * "
     "* * *\" (want \"*/1 * * * *\")"},
    {"a linked clone (Longhorn 1.10+) gets no default group, as in Longhorn", "default",
     VOL("", "'cloneMode':'linked-clone'"), NULL, CW_VOLCTL_INSYNC, NULL, NULL, ""},
    {"an invalid legacy job: nothing written, the migrator's problem text", "default",
     VOL("", LEGACY("61 * * * *")), NULL, CW_VOLCTL_REFUSED, NULL, NULL,
     "spec.recurringJobs[0] (snap): cron: invalid cron expression \"61 * * * *\": end of range "
     "(61) above maximum (59): 61"},
};

static void test_decide(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        const vol_case *c = &cases[i];
        cw_policy_config policy;
        cw_error err;
        cw_error_init(&err);
        assert_int_equal(cw_policy_config_init(&policy), CW_OK);
        assert_int_equal(cw_policy_config_set_default_group(&policy, c->group, &err), CW_OK);
        cw_volctl_config cfg = {.policy = &policy,
                                .scheme = CW_NAMES_LONGHORN,
                                .namespace = "longhorn-system",
                                .rj_api_version = "longhorn.io/v1beta2"};
        json_object *vol = tjson(c->volume), *rjs = tjson(c->rjs);
        cw_volctl_actions a;
        cw_volctl_actions_init(&a);
        assert_int_equal(cw_volctl_decide(vol, rjs, &cfg, &a, &err), CW_OK);
        char *probs = cw_strlist_join(&a.problems, "\n");
        if (a.outcome != c->outcome || strcmp(probs ? probs : "", c->problems) != 0)
            fail_msg("%s: outcome %s (want %s), problems [%s]", c->label,
                     cw_volctl_outcome_name(a.outcome), cw_volctl_outcome_name(c->outcome),
                     probs ? probs : "");
        json_object *wj = tjson(c->jobs), *wp = tjson(c->patch);
        if (!json_object_equal(a.jobs, wj) || !json_object_equal(a.patch, wp))
            fail_msg("%s:\n jobs %s\npatch %s", c->label, cw_json_compact(a.jobs),
                     cw_json_compact(a.patch));
        free(probs);
        json_object_put(wj);
        json_object_put(wp);
        json_object_put(vol);
        json_object_put(rjs);
        cw_volctl_actions_free(&a);
        cw_policy_config_free(&policy);
    }
}

/* On Longhorn 1.2's CRDs (v1beta1): RecurringJobs have no spec.name (pruned), an existing one is
 * reused by its metadata.name, and the ones created carry none either. */
static void test_decide_pruned(void **state)
{
    (void)state;
    static const struct {
        const char *label, *rjs, *jobs;
    } rows[] = {
        {"created without spec.name", NULL,
         "[{'apiVersion':'longhorn.io/v1beta1','kind':'RecurringJob','metadata':{'name':'" EXAMPLE
         "','namespace':'longhorn-system'},'spec':{'task':'snapshot','cron':'*/1 * * * *',"
         "'retain':1,'concurrency':10,'groups':[],'labels':{}}}]"},
        {"a pruned one of that name and spec is reused",
         "[{'apiVersion':'longhorn.io/v1beta1','kind':'RecurringJob','metadata':{'name':'" EXAMPLE
         "','namespace':'longhorn-system'},'spec':{'task':'snapshot','cron':'*/1 * * * *',"
         "'retain':1,'concurrency':2,'groups':[],'labels':{}}}]",
         "[]"},
    };
    for (size_t i = 0; i < N(rows); i++) {
        cw_policy_config policy;
        cw_error err;
        cw_error_init(&err);
        assert_int_equal(cw_policy_config_init(&policy), CW_OK);
        cw_volctl_config cfg = {.policy = &policy,
                                .scheme = CW_NAMES_LONGHORN,
                                .namespace = "longhorn-system",
                                .rj_api_version = "longhorn.io/v1beta1"};
        json_object *vol = tjson(VOL("", LEGACY("*/1 * * * *"))), *rjs = tjson(rows[i].rjs);
        cw_volctl_actions a;
        cw_volctl_actions_init(&a);
        assert_int_equal(cw_volctl_decide(vol, rjs, &cfg, &a, &err), CW_OK);
        assert_int_equal(a.outcome, CW_VOLCTL_MIGRATE);
        expect_json(a.jobs, rows[i].jobs, "jobs", rows[i].label);
        expect_json(
            a.patch,
            "{'metadata':{'resourceVersion':'5','labels':{'recurring-job.longhorn.io/" EXAMPLE
            "':'enabled'}},'spec':{'recurringJobs':null}}",
            "patch", rows[i].label);
        json_object_put(vol);
        json_object_put(rjs);
        cw_volctl_actions_free(&a);
        cw_policy_config_free(&policy);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_decide),
                                       cmocka_unit_test(test_decide_pruned)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
