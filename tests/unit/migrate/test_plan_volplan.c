/* The planner and the Volume reconciler decide a volume alike (issue 32): one table of real
 * volumes with legacy spec.recurringJobs, each beside the RecurringJobs there are, decided by the
 * migration planner over that cluster (migrate/plan.c: cw_plan_add, cw_plan_finish) and by
 * cw_volplan_decide (longhorn/volplan_decide.c) alone. Both must give the row's action, labels
 * and RecurringJobs to create, exactly; the reconciler's problems are the row's, and every
 * problem the planner's item records is among them. Names use Longhorn's scheme, whose published
 * example is snapshot-1-97893a05-77074ba4 (cron "* /1 * * * *", retain 1, no labels). */
#include "tests/unit/controller/ctrl_test.h"

#include "defaults/policy.h"
#include "kube/manifest.h"
#include "lib/buf.h"
#include "longhorn/volplan.h"
#include "migrate/plan.h"

#define RJV "longhorn.io/v1beta2"
#define VOL(labels, jobs)                                                                          \
    "{'apiVersion':'longhorn.io/v1beta1','kind':'Volume','metadata':{'name':'pvc-1',"              \
    "'namespace':'longhorn-system','uid':'v-1','resourceVersion':'5'" labels                       \
    "},'spec':{'recurringJobs':[" jobs "]}}"
#define SNAP(cron, retain)                                                                         \
    "{'name':'snap','task':'snapshot','cron':'" cron "','retain':" #retain "}"
#define BACKUP  "{'name':'nightly','task':'backup','cron':'0 2 * * *','retain':7,'labels':{'a':'b'}}"
#define EXAMPLE "snapshot-1-97893a05-77074ba4"
#define RJ(retain)                                                                                 \
    "{'apiVersion':'" RJV "','kind':'RecurringJob','metadata':{'name':'" EXAMPLE                   \
    "','namespace':'longhorn-system'},'spec':{'name':'" EXAMPLE                                    \
    "','task':'snapshot','cron':'*/1 * * * *','retain':" #retain                                   \
    ",'concurrency':10,'groups':[],'labels':{}}}"

typedef struct {
    const char *label;
    const char *volume, *rj; /* rj: one RecurringJob there is, or NULL */
    const char *action;      /* cw_plan_action_name */
    const char *labels;      /* the label keys set, joined with "," */
    const char *created;     /* names of the RecurringJobs to create, joined with "," */
    const char *problems;    /* the reconciler's, joined with "\n" */
} agree_case;

static const agree_case cases[] = {
    {"one legacy job, no RecurringJob: created, labelled", VOL("", SNAP("*/1 * * * *", 1)), NULL,
     "migrate", "recurring-job.longhorn.io/" EXAMPLE, EXAMPLE, ""},
    {"the same RecurringJob there: reused, labelled", VOL("", SNAP("*/1 * * * *", 1)), RJ(1),
     "migrate", "recurring-job.longhorn.io/" EXAMPLE, "", ""},
    {"a RecurringJob of the name with another spec: refused", VOL("", SNAP("*/1 * * * *", 1)),
     RJ(2), "conflict", "", "",
     "RecurringJob " EXAMPLE " already exists in longhorn-system with a different spec: retain 2 "
     "(want 1)"},
    {"an invalid cron: refused, naming the field", VOL("", SNAP("61 * * * *", 1)), NULL, "invalid",
     "", "",
     "spec.recurringJobs[0] (snap): cron: invalid cron expression \"61 * * * *\": end of "
     "range (61) above maximum (59): 61"},
    {"two jobs, one with labels: both created, both labels",
     VOL("", SNAP("*/1 * * * *", 1) "," BACKUP), NULL, "migrate",
     "recurring-job.longhorn.io/" EXAMPLE ",recurring-job.longhorn.io/backup-7-c9964a87-c01368ca",
     EXAMPLE ",backup-7-c9964a87-c01368ca", ""},
    {"the same job twice: one RecurringJob, one label",
     VOL("", SNAP("*/1 * * * *", 1) "," SNAP("*/1 * * * *", 1)), NULL, "migrate",
     "recurring-job.longhorn.io/" EXAMPLE, EXAMPLE, ""},
    {"a group label already: the job's label beside it",
     VOL(",'labels':{'recurring-job-group.longhorn.io/gold':'enabled'}", SNAP("*/1 * * * *", 1)),
     NULL, "migrate", "recurring-job.longhorn.io/" EXAMPLE, EXAMPLE, ""},
    {"retain over the maximum (100): refused", VOL("", SNAP("*/1 * * * *", 101)), NULL, "invalid",
     "", "",
     "spec.recurringJobs[0] (snap): retain: 101 exceeds the maximum of 100 (Longhorn "
     "setting recurring-job-max-retention)"},
    {"an empty legacy list: only the default group", VOL("", ""), NULL, "migrate",
     "recurring-job-group.longhorn.io/default", "", ""},
};

typedef struct {
    char *action, *labels, *created, *problems;
} decision;

static void decision_free(decision *d)
{
    free(d->action);
    free(d->labels);
    free(d->created);
    free(d->problems);
}

static char *joined(const cw_strlist *l, const char *sep)
{
    cw_buf b;
    cw_buf_init(&b);
    for (size_t i = 0; i < l->len; i++)
        assert_int_equal(cw_buf_printf(&b, "%s%s", i ? sep : "", l->items[i]), CW_OK);
    char *s = strdup(cw_buf_str(&b));
    cw_buf_free(&b);
    return s;
}

/* Adds the name of RecurringJob rj to names, and rj itself to objs. */
static void add_job(cw_strlist *names, json_object *objs, json_object *rj)
{
    assert_int_equal(cw_strlist_add(names, cw_json_path_string(rj, "metadata.name")), CW_OK);
    assert_int_equal(json_object_array_add(objs, rj), 0);
}

static int feed(void *ud, const cw_load_unit *u, cw_error *err)
{
    return cw_plan_add(ud, u->obj, "test", err);
}

/* The planner over the cluster of c's volume and RecurringJob. */
static void by_planner(const agree_case *c, const cw_policy_config *pol, decision *d,
                       json_object *objs)
{
    cw_plan p;
    cw_plan_item it;
    cw_strlist names;
    cw_error err;
    cw_error_init(&err);
    cw_strlist_init(&names);
    const cw_plan_config cfg = {.scheme = CW_NAMES_LONGHORN,
                                .namespace = "longhorn-system",
                                .policy = pol,
                                .default_group = 1,
                                .rj_api_version = RJV,
                                .scratch_dir = ""};
    json_object *docs = json_object_new_array();
    json_object_array_add(docs, tjson(c->volume));
    if (c->rj)
        json_object_array_add(docs, tjson(c->rj));
    char *text = NULL;
    assert_int_equal(cw_plan_init(&p, &cfg, &err), CW_OK);
    for (size_t i = 0; i < json_object_array_length(docs); i++) { /* one document each */
        text = strdup(json_object_to_json_string(json_object_array_get_idx(docs, i)));
        assert_int_equal(cw_load_text("test.json", text, strlen(text), feed, &p, &err), CW_OK);
        free(text);
    }
    assert_int_equal(cw_plan_finish(&p, &err), CW_OK);
    assert_int_equal(p.nitems, 1);
    assert_int_equal(cw_plan_item_load(&p, 0, &it, &err), CW_OK);
    d->action = strdup(cw_plan_action_name(it.action));
    d->labels = joined(&it.add_labels, ",");
    d->problems = joined(&it.problems, "\n");
    for (size_t i = 0; it.action == CW_ACT_MIGRATE && i < it.nrefs; i++) {
        json_object *rj = NULL;
        if (cw_plan_job_at(&p, it.refs[i].job)->rj.action != CW_ACT_CREATE)
            continue;
        assert_int_equal(cw_plan_job_object(&p, it.refs[i].job, &rj, &err), CW_OK);
        add_job(&names, objs, rj);
    }
    d->created = joined(&names, ",");
    cw_strlist_free(&names);
    cw_plan_item_free(&it);
    json_object_put(docs);
    cw_plan_free(&p);
}

/* The Volume reconciler's decision of c's volume alone. */
static void by_reconciler(const agree_case *c, const cw_policy_config *pol, decision *d,
                          json_object *objs)
{
    cw_volplan_result r;
    cw_strlist names;
    cw_error err;
    cw_error_init(&err);
    cw_strlist_init(&names);
    cw_volplan_result_init(&r);
    const cw_volplan_config cfg = {CW_NAMES_LONGHORN, "longhorn-system", pol, RJV};
    json_object *vol = tjson(c->volume), *rjs = json_object_new_array();
    if (c->rj)
        json_object_array_add(rjs, tjson(c->rj));
    assert_int_equal(cw_volplan_decide(&cfg, vol, rjs, &r, &err), CW_OK);
    d->action = strdup(cw_plan_action_name(r.action));
    d->labels = joined(&r.labels, ",");
    d->problems = joined(&r.problems, "\n");
    for (size_t i = 0; r.jobs && i < json_object_array_length(r.jobs); i++)
        add_job(&names, objs, json_object_get(json_object_array_get_idx(r.jobs, i)));
    d->created = joined(&names, ",");
    cw_strlist_free(&names);
    cw_volplan_result_free(&r);
    json_object_put(vol);
    json_object_put(rjs);
}

static void test_agree(void **state)
{
    (void)state;
    cw_tzdb tz;
    cw_policy_config pol;
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_tzdb_init(&tz, NULL, &err), CW_OK);
    assert_int_equal(cw_policy_config_init(&pol), CW_OK);
    pol.tzdb = &tz;
    for (size_t i = 0; i < N(cases); i++) {
        const agree_case *c = &cases[i];
        decision plan = {0}, rec = {0};
        json_object *plan_jobs = json_object_new_array(), *rec_jobs = json_object_new_array();
        by_planner(c, &pol, &plan, plan_jobs);
        by_reconciler(c, &pol, &rec, rec_jobs);
        assert_string_equal(plan.action, c->action);
        assert_string_equal(rec.action, c->action);
        assert_string_equal(plan.labels, c->labels);
        assert_string_equal(rec.labels, c->labels);
        assert_string_equal(plan.created, c->created);
        assert_string_equal(rec.created, c->created);
        assert_true(json_object_equal(plan_jobs, rec_jobs)); /* the whole objects, not only names */
        assert_string_equal(rec.problems, c->problems);
        for (char *p = plan.problems, *nl; p && *p; p = nl ? nl + 1 : NULL) {
            if ((nl = strchr(p, '\n')))
                *nl = '\0';
            if (!strstr(rec.problems, p))
                fail_msg("%s: the planner's problem \"%s\" is not the reconciler's", c->label, p);
        }
        decision_free(&plan);
        decision_free(&rec);
        json_object_put(plan_jobs);
        json_object_put(rec_jobs);
    }
    cw_policy_config_free(&pol);
    cw_tzdb_free(&tz);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_agree)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
