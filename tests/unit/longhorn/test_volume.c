/* Volume defaulting (default-group label) and validation (legacy spec.recurringJobs). JSON in the
 * tables uses ' for " (see policy_case.h); messages are exact. */
#include "tests/unit/defaults/policy_case.h"

#include "longhorn/volume.h"

#define VOL(meta, spec)                                                                            \
    "{'apiVersion':'longhorn.io/v1beta2','kind':'Volume','metadata':" meta ",'spec':" spec "}"
#define M(labels) "{'name':'pvc-1','namespace':'longhorn-system','labels':" labels "}"
#define LEGACY1   "[{'name':'snap','task':'snapshot','cron':'*/5 * * * *','retain':3}]"
#define ADD_DEFAULT_KEY                                                                            \
    "[{'op':'add','path':'/metadata/labels/recurring-job-group.longhorn.io~1default',"             \
    "'value':'enabled'}]"
#define LEGACY_MSG                                                                                 \
    "spec.recurringJobs: legacy per-volume recurring jobs are not accepted (Longhorn 1.2 "         \
    "replaced them and 1.5 removed the field); create RecurringJob objects and label the volume "  \
    "\"recurring-job.longhorn.io/<name>: enabled\" (or "                                           \
    "\"recurring-job-group.longhorn.io/<group>: "                                                  \
    "enabled\") instead; for manifests, \"cronwarden migrate --from-file <file>\" does this"

typedef struct {
    const char *label;
    cw_operation op;
    const char *group; /* NULL: the default "default" */
    const char *old, *obj, *patch, *warnings, *problems;
} vol_case;

static void run_cases(policy_fn fn, const vol_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cw_policy_config cfg;
        assert_int_equal(cw_policy_config_init(&cfg), CW_OK);
        if (cases[i].group)
            assert_int_equal(cw_policy_config_set_default_group(&cfg, cases[i].group, NULL), CW_OK);
        test_policy_case(fn, &cfg, cases[i].op, cases[i].old, cases[i].obj, cases[i].patch,
                         cases[i].warnings, cases[i].problems, cases[i].label);
        cw_policy_config_free(&cfg);
    }
}

static const vol_case default_cases[] = {
    {"no labels at all: the labels map is added", CW_OP_CREATE, NULL, NULL,
     VOL("{'name':'pvc-1'}", "{'size':'1Gi'}"),
     "[{'op':'add','path':'/metadata/labels','value':"
     "{'recurring-job-group.longhorn.io/default':'enabled'}}]",
     NULL, NULL},
    {"other labels: one key is added, '/' escaped as ~1", CW_OP_CREATE, NULL, NULL,
     VOL(M("{'app':'db'}"), "{}"), ADD_DEFAULT_KEY, NULL, NULL},
    {"null labels are replaced", CW_OP_CREATE, NULL, NULL, VOL(M("null"), "{}"),
     "[{'op':'replace','path':'/metadata/labels','value':"
     "{'recurring-job-group.longhorn.io/default':'enabled'}}]",
     NULL, NULL},
    {"no metadata: added as one object", CW_OP_CREATE, NULL, NULL, "{'spec':{}}",
     "[{'op':'add','path':'/metadata','value':{'labels':"
     "{'recurring-job-group.longhorn.io/default':'enabled'}}}]",
     NULL, NULL},
    {"a job label", CW_OP_CREATE, NULL, NULL,
     VOL(M("{'recurring-job.longhorn.io/daily':'enabled'}"), "{}"), NULL, NULL, NULL},
    {"a linked clone (Longhorn 1.10+): no default group, as Longhorn's FixupRecurringJob",
     CW_OP_CREATE, NULL, NULL, VOL(M("{'app':'db'}"), "{'cloneMode':'linked-clone'}"), NULL, NULL,
     NULL},
    {"a full-copy clone gets it", CW_OP_CREATE, NULL, NULL,
     VOL(M("{'app':'db'}"), "{'cloneMode':'full-copy'}"), ADD_DEFAULT_KEY, NULL, NULL},
    {"a group label, whatever its value", CW_OP_CREATE, NULL, NULL,
     VOL(M("{'recurring-job-group.longhorn.io/gold':'disabled'}"), "{}"), NULL, NULL, NULL},
    {"Longhorn's prefix test has no slash: the CronJob key counts", CW_OP_CREATE, NULL, NULL,
     VOL(M("{'recurring-job.longhorn.io':'daily'}"), "{}"), NULL, NULL, NULL},
    {"... and so does a longer prefix", CW_OP_CREATE, NULL, NULL,
     VOL(M("{'recurring-job.longhorn.io-x/y':'z'}"), "{}"), NULL, NULL, NULL},
    {"the prefix must be at the start", CW_OP_CREATE, NULL, NULL,
     VOL(M("{'x.recurring-job.longhorn.io/a':'enabled'}"), "{}"),
     "[{'op':'add','path':'/metadata/labels/recurring-job-group.longhorn.io~1default',"
     "'value':'enabled'}]",
     NULL, NULL},
    {"another default group", CW_OP_CREATE, "gold", NULL, VOL(M("{}"), "{}"),
     "[{'op':'add','path':'/metadata/labels/recurring-job-group.longhorn.io~1gold',"
     "'value':'enabled'}]",
     NULL, NULL},
    {"default group disabled", CW_OP_CREATE, "", NULL, VOL(M("{}"), "{}"), NULL, NULL, NULL},
    {"'~' in a key is escaped as ~0 (escaping only: config validation refuses such a group)",
     CW_OP_CREATE, "a~b", NULL, VOL(M("{}"), "{}"),
     "[{'op':'add','path':'/metadata/labels/recurring-job-group.longhorn.io~1a~0b',"
     "'value':'enabled'}]",
     NULL, NULL},
    {"legacy jobs present: they become job labels on migration", CW_OP_CREATE, NULL, NULL,
     VOL(M("{}"), "{'recurringJobs':" LEGACY1 "}"), NULL, NULL, NULL},
    {"empty legacy list does not count", CW_OP_CREATE, NULL, NULL,
     VOL(M("{'app':'db'}"), "{'recurringJobs':[]}"), ADD_DEFAULT_KEY, NULL, NULL},
    {"update re-adds it after all job labels were removed", CW_OP_UPDATE, NULL,
     VOL(M("{'app':'db','recurring-job.longhorn.io/daily':'enabled'}"), "{}"),
     VOL(M("{'app':'db'}"), "{}"), ADD_DEFAULT_KEY, NULL, NULL},
    {"labels of the wrong type are left to validation", CW_OP_CREATE, NULL, NULL,
     VOL(M("['a']"), "{}"), NULL, NULL, NULL},
    {"metadata of the wrong type", CW_OP_CREATE, NULL, NULL, VOL("'m'", "{}"), NULL, NULL, NULL},
    {"delete decides nothing", CW_OP_DELETE, NULL, NULL, VOL(M("{}"), "{}"), NULL, NULL, NULL},
    {"not an object", CW_OP_CREATE, NULL, NULL, "'v'", NULL, NULL, NULL},
};

static void defaulting(void **state)
{
    (void)state;
    run_cases(cw_volume_default, default_cases, sizeof(default_cases) / sizeof(default_cases[0]));
}

static const vol_case validate_cases[] = {
    {"a labelled volume", CW_OP_CREATE, NULL, NULL,
     VOL(M("{'recurring-job.longhorn.io/daily':'enabled'}"), "{'size':'1Gi'}"), NULL, NULL, NULL},
    {"legacy jobs on create", CW_OP_CREATE, NULL, NULL,
     VOL(M("{}"), "{'recurringJobs':" LEGACY1 "}"), NULL, NULL, LEGACY_MSG},
    {"empty or null legacy list", CW_OP_CREATE, NULL, NULL, VOL(M("{}"), "{'recurringJobs':[]}"),
     NULL, NULL, NULL},
    {"null legacy list", CW_OP_CREATE, NULL, NULL, VOL(M("{}"), "{'recurringJobs':null}"), NULL,
     NULL, NULL},
    {"legacy list of the wrong type", CW_OP_CREATE, NULL, NULL,
     VOL(M("{}"), "{'recurringJobs':'x'}"), NULL, NULL,
     "spec.recurringJobs: expected array, got string"},
    {"update keeping the stored legacy list: allowed, with a warning", CW_OP_UPDATE, NULL,
     VOL(M("{}"), "{'recurringJobs':" LEGACY1 ",'nodeID':''}"),
     VOL(M("{}"), "{'recurringJobs':" LEGACY1 ",'nodeID':'node-1'}"), NULL,
     "spec.recurringJobs: legacy recurring jobs are not migrated yet; run \"cronwarden migrate\"",
     NULL},
    {"update changing the legacy list", CW_OP_UPDATE, NULL,
     VOL(M("{}"), "{'recurringJobs':" LEGACY1 "}"),
     VOL(M("{}"), "{'recurringJobs':[{'name':'snap','task':'snapshot','cron':'*/5 * * * *',"
                  "'retain':4}]}"),
     NULL, NULL, LEGACY_MSG},
    {"update adding a legacy list", CW_OP_UPDATE, NULL, VOL(M("{}"), "{}"),
     VOL(M("{}"), "{'recurringJobs':" LEGACY1 "}"), NULL, NULL, LEGACY_MSG},
    {"update removing the legacy list (what migration does)", CW_OP_UPDATE, NULL,
     VOL(M("{}"), "{'recurringJobs':" LEGACY1 "}"),
     VOL(M("{'recurring-job.longhorn.io/snapshot-3-abc-def':'enabled'}"), "{}"), NULL, NULL, NULL},
    {"labels of the wrong type", CW_OP_CREATE, NULL, NULL, VOL(M("['a']"), "{}"), NULL, NULL,
     "metadata.labels: expected object, got array"},
    {"metadata of the wrong type", CW_OP_CREATE, NULL, NULL, VOL("'m'", "{}"), NULL, NULL,
     "metadata: expected object, got string"},
    {"spec of the wrong type", CW_OP_CREATE, NULL, NULL, VOL(M("{}"), "5"), NULL, NULL,
     "spec: expected object, got integer"},
    {"not an object", CW_OP_CREATE, NULL, NULL, "'v'", NULL, NULL,
     "object: expected object, got string"},
    {"delete decides nothing", CW_OP_DELETE, NULL, NULL,
     VOL(M("{}"), "{'recurringJobs':" LEGACY1 "}"), NULL, NULL, NULL},
};

static void validation(void **state)
{
    (void)state;
    run_cases(cw_volume_validate, validate_cases,
              sizeof(validate_cases) / sizeof(validate_cases[0]));
}

static void helpers(void **state)
{
    (void)state;
    static const struct {
        const char *labels;
        int want;
    } cases[] = {
        {NULL, 0},
        {"{}", 0},
        {"{'app':'x'}", 0},
        {"{'recurring-job.longhorn.io/a':'enabled'}", 1},
        {"{'recurring-job-group.longhorn.io/default':''}", 1},
        {"{'recurring-job.longhorn.io':'a'}", 1},
        {"{'Recurring-job.longhorn.io/a':'enabled'}", 0},
        {"['recurring-job.longhorn.io/a']", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_object *l = test_parse(cases[i].labels);
        assert_int_equal(cw_volume_has_job_label(l), cases[i].want);
        json_object_put(l);
    }
    json_object *v = test_parse(VOL(M("{}"), "{'recurringJobs':" LEGACY1 "}"));
    assert_true(cw_volume_has_legacy_jobs(v));
    json_object_put(v);
    v = test_parse(VOL(M("{}"), "{'recurringJobs':[]}"));
    assert_false(cw_volume_has_legacy_jobs(v));
    json_object_put(v);
    assert_false(cw_volume_has_legacy_jobs(NULL));
    cw_buf b;
    cw_buf_init(&b);
    assert_int_equal(cw_volume_job_label(&b, "daily"), CW_OK);
    assert_string_equal(cw_buf_str(&b), "recurring-job.longhorn.io/daily");
    cw_buf_reset(&b);
    assert_int_equal(cw_volume_group_label(&b, "gold"), CW_OK);
    assert_string_equal(cw_buf_str(&b), "recurring-job-group.longhorn.io/gold");
    cw_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaulting),
        cmocka_unit_test(validation),
        cmocka_unit_test(helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
