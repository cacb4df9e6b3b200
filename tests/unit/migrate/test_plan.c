/* Planner rules as a table: YAML input -> one line per planned object (see plan_helpers.h).
 * Expected names were computed independently (a Python XXH32/FNV-1a implementation). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "migrate/write.h"
#include "plan_helpers.h"

#define VOL(name, jobs)                                                                            \
    "---\napiVersion: longhorn.io/v1beta1\nkind: Volume\nmetadata:\n  name: " name                 \
    "\n  namespace: longhorn-system\n  resourceVersion: \"7\"\nspec:\n  numberOfReplicas: "        \
    "3\n" jobs
#define SNAP6H "  - {name: s6, task: snapshot, cron: \"0 */6 * * *\", retain: 4}\n"
#define GOLD                                                                                       \
    "  - {name: gold, task: backup, cron: \"0 2 * * *\", retain: 7, labels: {tier: gold, team: "   \
    "payments}}\n"
#define GOLD_SWAPPED                                                                               \
    "  - {name: other, task: backup, cron: \"0 2 * * *\", retain: 7, labels: {team: payments, "    \
    "tier: gold}}\n"
#define JOBS   "  recurringJobs:\n"
#define N_SNAP "snapshot-4-0520073e-8a390c6d"
#define N_GOLD "backup-7-7bc5443b-4fc79c10"
#define L(n)   "recurring-job.longhorn.io/" n

static const struct plan_case {
    const char *name;
    const char *yaml;
    cw_names_scheme scheme;
    int default_group;
    const char *want;
} cases[] = {
    {"equal jobs collapse whatever their legacy name and label order",
     VOL("v1", JOBS SNAP6H GOLD) VOL("v2", JOBS GOLD_SWAPPED)
         VOL("v3", JOBS "  - {name: renamed, task: snapshot, cron: \"0 */6 * * *\", retain: 4}\n"),
     CW_NAMES_XXH32, 1,
     "job " N_GOLD " create\n"
     "job " N_SNAP " create\n"
     "Volume longhorn-system/v1 migrate +" L(N_SNAP) " +" L(
         N_GOLD) "\n"
                 "Volume longhorn-system/v2 migrate +" L(
                     N_GOLD) "\n"
                             "Volume longhorn-system/v3 migrate +" L(N_SNAP) "\n"},

    {"absent labels and empty labels are different jobs (they hash differently)",
     VOL("v1", JOBS "  - {name: a, task: snapshot, cron: \"@daily\", retain: 2}\n"
                    "  - {name: b, task: snapshot, cron: \"@daily\", retain: 2, labels: {}}\n"),
     CW_NAMES_XXH32, 1,
     "job snapshot-2-c22f292c-18473489 create\n"
     "job snapshot-2-c22f292c-8a390c6d create\n"
     "Volume longhorn-system/v1 migrate +" L("snapshot-2-c22f292c-8a390c6d") " +" L(
         "snapshot-2-c22f292c-18473489") "\n"},

    {"the longhorn scheme reproduces Longhorn 1.2's published name",
     VOL("v1", JOBS "  - {name: x, task: snapshot, cron: \"*/1 * * * *\", retain: 1}\n"),
     CW_NAMES_LONGHORN, 1,
     "job snapshot-1-97893a05-77074ba4 create\n"
     "Volume longhorn-system/v1 migrate +" L("snapshot-1-97893a05-77074ba4") "\n"},

    {"two different jobs that hash to one name conflict and touch nothing",
     VOL("v1", JOBS "  - {name: a, task: snapshot, cron: \"13 13 11 11 *\", retain: 1}\n")
         VOL("v2", JOBS "  - {name: b, task: snapshot, cron: \"17 17 4 4 *\", retain: 1}\n")
             VOL("v3", JOBS SNAP6H),
     CW_NAMES_LONGHORN, 1,
     "job snapshot-1-2f2b61c9-77074ba4 conflict: two different legacy jobs get this name (task "
     "snapshot cron \"13 13 11 11 *\" retain 1 labels null, and task snapshot cron \"17 17 4 4 *\" "
     "retain 1 labels null); use --name-scheme=xxh32 or rename one\n"
     "job snapshot-1-2f2b61c9-77074ba4 conflict: two different legacy jobs get this name (task "
     "snapshot cron \"13 13 11 11 *\" retain 1 labels null, and task snapshot cron \"17 17 4 4 *\" "
     "retain 1 labels null); use --name-scheme=xxh32 or rename one\n"
     "job snapshot-4-1e583466-77074ba4 create\n"
     "Volume longhorn-system/v1 conflict: RecurringJob snapshot-1-2f2b61c9-77074ba4: two different "
     "legacy jobs get this name (task snapshot cron \"13 13 11 11 *\" retain 1 labels null, and "
     "task "
     "snapshot cron \"17 17 4 4 *\" retain 1 labels null); use --name-scheme=xxh32 or rename one\n"
     "Volume longhorn-system/v2 conflict: RecurringJob snapshot-1-2f2b61c9-77074ba4: two different "
     "legacy jobs get this name (task snapshot cron \"13 13 11 11 *\" retain 1 labels null, and "
     "task "
     "snapshot cron \"17 17 4 4 *\" retain 1 labels null); use --name-scheme=xxh32 or rename one\n"
     "Volume longhorn-system/v3 migrate +" L("snapshot-4-1e583466-77074ba4") "\n"},

    {"an existing RecurringJob with the same spec is kept; a different one is a conflict",
     "apiVersion: longhorn.io/v1beta1\nkind: RecurringJob\nmetadata: {name: " N_SNAP
     ", namespace: longhorn-system}\nspec: {task: snapshot, cron: \"0 */6 * * *\", retain: 4, "
     "concurrency: 3, groups: [g1], labels: {}}\n"
     "---\napiVersion: longhorn.io/v1beta1\nkind: RecurringJob\nmetadata: {name: " N_GOLD
     ", namespace: longhorn-system}\nspec: {task: backup, cron: \"0 3 * * *\", retain: 7, "
     "labels: {tier: gold}}\n" VOL("v1", JOBS SNAP6H)
         VOL("v2", JOBS SNAP6H GOLD) "---\napiVersion: batch/v1beta1\nkind: CronJob\nmetadata: "
                                     "{name: v2-gold-c, namespace: "
                                     "longhorn-system, labels: {longhornvolume: v2}}\nspec: "
                                     "{schedule: \"0 2 * * *\"}\n",
     CW_NAMES_XXH32, 1,
     "job " N_GOLD
     " conflict: already exists in longhorn-system with a different spec: cron \"0 3 * "
     "* *\" (want \"0 2 * * *\"), labels {\"tier\":\"gold\"} (want "
     "{\"team\":\"payments\",\"tier\":\"gold\"})\n"
     "job " N_SNAP " exists\n"
     "Volume longhorn-system/v1 migrate +" L(
         N_SNAP) "\n"
                 "Volume longhorn-system/v2 conflict: RecurringJob " N_GOLD
                 ": already exists in longhorn-system "
                 "with a different spec: cron \"0 3 * * *\" (want \"0 2 * * *\"), labels "
                 "{\"tier\":\"gold\"} "
                 "(want {\"team\":\"payments\",\"tier\":\"gold\"})\n"
                 "CronJob longhorn-system/v2-gold-c keep\n"},

    {"any invalid legacy job leaves the whole volume alone and says which job and why",
     VOL("bad-cron",
         JOBS SNAP6H "  - {name: broken, task: snapshot, cron: \"0 25 * * *\", retain: 3}\n")
         VOL("bad-task", JOBS "  - {name: typo, task: snapshots, cron: \"0 1 * * *\", retain: 3}\n")
             VOL("bad-retain",
                 JOBS "  - {name: neg, task: backup, cron: \"0 1 * * *\", retain: -1}\n")
                 VOL("too-many",
                     JOBS "  - {name: big, task: backup, cron: \"0 1 * * *\", retain: 101}\n")
                     VOL("bad-label", JOBS "  - {name: l, task: backup, cron: \"0 1 * * *\", "
                                           "retain: 2, labels: {\"a b\": c}}\n"),
     CW_NAMES_XXH32, 1,
     "job backup--1-1acb7f9f-8a390c6d invalid: retain: -1 would be changed to 1 by defaulting "
     "(task backup)\n"
     "job backup-101-1acb7f9f-8a390c6d invalid: retain: 101 exceeds the maximum of 100 (Longhorn "
     "setting "
     "recurring-job-max-retention)\n"
     "job backup-2-1acb7f9f-4bdb46c2 invalid: labels: invalid key \"a b\": name part must consist "
     "of "
     "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
     "character\n"
     "job snapshot-3-e8c0e017-8a390c6d invalid: cron: invalid cron expression \"0 25 * * *\": end "
     "of "
     "range (25) above maximum (23): 25\n"
     "job " N_SNAP " unused: only wanted by objects that are not migrated\n"
     "job snapshots-3-1acb7f9f-8a390c6d invalid: task: unknown task \"snapshots\" (expected one of "
     "snapshot, snapshot-force-create, snapshot-cleanup, snapshot-delete, backup, "
     "backup-force-create, filesystem-trim, system-backup)\n"
     "Volume longhorn-system/bad-cron invalid: spec.recurringJobs[1] (broken): cron: invalid cron "
     "expression \"0 25 * * *\": end of range (25) above maximum (23): 25\n"
     "Volume longhorn-system/bad-label invalid: spec.recurringJobs[0] (l): labels: invalid key \"a "
     "b\": "
     "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
     "with an alphanumeric character\n"
     "Volume longhorn-system/bad-retain invalid: spec.recurringJobs[0] (neg): retain: -1 would be "
     "changed to 1 by defaulting (task backup)\n"
     "Volume longhorn-system/bad-task invalid: spec.recurringJobs[0] (typo): task: unknown task "
     "\"snapshots\" (expected one of snapshot, snapshot-force-create, snapshot-cleanup, "
     "snapshot-delete, backup, backup-force-create, filesystem-trim, system-backup)\n"
     "Volume longhorn-system/too-many invalid: spec.recurringJobs[0] (big): retain: 101 exceeds "
     "the "
     "maximum of 100 (Longhorn setting recurring-job-max-retention)\n"},

    {"default group label only when the volume would end with no job or group label",
     VOL("empty", JOBS "    []\n") VOL(
         "none",
         "") "---\napiVersion: longhorn.io/v1beta1\nkind: Volume\nmetadata:\n  name: grouped\n  "
             "namespace: longhorn-system\n  labels: {recurring-job-group.longhorn.io/nightly: "
             "enabled}\n"
             "spec:\n  recurringJobs: []\n"
             "---\napiVersion: longhorn.io/v1beta1\nkind: Volume\nmetadata:\n  name: has-some\n  "
             "namespace: longhorn-system\n  labels: {" L(N_SNAP) ": enabled, " L(
                 N_GOLD) ": disabled}\n"
                         "spec:\n  recurringJobs:\n" SNAP6H GOLD,
     CW_NAMES_XXH32, 1,
     "job " N_GOLD " create\n"
     "job " N_SNAP " create\n"
     "Volume longhorn-system/empty migrate +recurring-job-group.longhorn.io/default\n"
     "Volume longhorn-system/grouped migrate\n"
     "Volume longhorn-system/has-some migrate +" L(N_GOLD) "\n"
                                                           "Volume longhorn-system/none none\n"},

    {"--no-default-group removes the empty legacy list without adding a label",
     VOL("empty", JOBS "    []\n"), CW_NAMES_XXH32, 0, "Volume longhorn-system/empty migrate\n"},

    {"storage classes: merged selector without duplicates, non-Longhorn and job-less classes "
     "untouched",
     "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: lh}\nprovisioner: "
     "driver.longhorn.io\nparameters:\n  recurringJobs: '[{\"name\":\"s6\",\"task\":\"snapshot\","
     "\"cron\":\"0 */6 * * *\",\"retain\":4}]'\n  recurringJobSelector: '[{\"name\":\"" N_SNAP
     "\",\"isGroup\":false},{\"name\":\"g\",\"isGroup\":true}]'\n"
     "---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: lh-empty}\n"
     "provisioner: driver.longhorn.io\nparameters: {recurringJobs: \"\"}\n"
     "---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: lh-plain}\n"
     "provisioner: driver.longhorn.io\nparameters: {numberOfReplicas: \"2\"}\n"
     "---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: lh-broken}\n"
     "provisioner: driver.longhorn.io\nparameters: {recurringJobs: '[{\"name\": 1'}\n"
     "---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: other}\n"
     "provisioner: example.com/other\nparameters: {recurringJobs: x}\n",
     CW_NAMES_XXH32, 1,
     "job " N_SNAP " create\n"
     "StorageClass lh migrate selector=[{\"name\":\"" N_SNAP
     "\",\"isGroup\":false},{\"name\":\"g\","
     "\"isGroup\":true}]\n"
     "StorageClass lh-broken invalid: parameters.recurringJobs: not valid JSON: unexpected end of "
     "data\n"
     "StorageClass lh-empty migrate\n"
     "StorageClass lh-plain none\n"},

    {"the longhorn-storageclass ConfigMap is migrated only in the Longhorn namespace",
     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: longhorn-storageclass, namespace: "
     "longhorn-system}\ndata:\n  storageclass.yaml: |\n    kind: StorageClass\n    apiVersion: "
     "storage.k8s.io/v1\n    metadata: {name: longhorn}\n    provisioner: driver.longhorn.io\n    "
     "parameters:\n      recurringJobs: '[{\"name\":\"s6\",\"task\":\"snapshot\",\"cron\":\"0 */6 "
     "* * "
     "*\",\"retain\":4}]'\n"
     "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: longhorn-storageclass, namespace: "
     "elsewhere}\ndata: {storageclass.yaml: 'x: 1'}\n",
     CW_NAMES_XXH32, 1,
     "job " N_SNAP " create\n"
     "ConfigMap longhorn-system/longhorn-storageclass migrate selector=[{\"name\":\"" N_SNAP
     "\",\"isGroup\":false}]\n"},

    {"legacy CronJobs go once their volume has no legacy jobs left; others stay; ones already "
     "being deleted are not counted",
     VOL("done", "") VOL("todo", JOBS SNAP6H)
         VOL("broken", JOBS "  - {name: b, task: snapshot, cron: \"0 25 * * *\", retain: "
                            "3}\n") "---\napiVersion: batch/v1beta1\nkind: "
                                    "CronJob\nmetadata: {name: done-c, namespace: "
                                    "longhorn-system, labels: {longhornvolume: done}}\n"
                                    "---\napiVersion: batch/v1beta1\nkind: "
                                    "CronJob\nmetadata: {name: todo-c, namespace: "
                                    "longhorn-system, labels: {longhornvolume: todo}}\n"
                                    "---\napiVersion: batch/v1beta1\nkind: "
                                    "CronJob\nmetadata: {name: broken-c, namespace: "
                                    "longhorn-system, labels: {longhornvolume: broken}}\n"
                                    "---\napiVersion: batch/v1beta1\nkind: "
                                    "CronJob\nmetadata: {name: orphan-c, namespace: "
                                    "longhorn-system, labels: {longhornvolume: gone}}\n"
                                    "---\napiVersion: batch/v1beta1\nkind: "
                                    "CronJob\nmetadata: {name: going-c, namespace: "
                                    "longhorn-system, deletionTimestamp: "
                                    "\"2026-01-01T00:00:00Z\", labels: {longhornvolume: "
                                    "todo}}\n"
                                    "---\napiVersion: batch/v1\nkind: CronJob\nmetadata: "
                                    "{name: app, namespace: shop}\n",
     CW_NAMES_XXH32, 1,
     "job snapshot-3-e8c0e017-8a390c6d invalid: cron: invalid cron expression \"0 25 * * *\": end "
     "of "
     "range (25) above maximum (23): 25\n"
     "job " N_SNAP " create\n"
     "Volume longhorn-system/broken invalid: spec.recurringJobs[0] (b): cron: invalid cron "
     "expression "
     "\"0 25 * * *\": end of range (25) above maximum (23): 25\n"
     "Volume longhorn-system/done none\n"
     "Volume longhorn-system/todo migrate +" L(N_SNAP) "\n"
                                                       "CronJob longhorn-system/broken-c keep\n"
                                                       "CronJob longhorn-system/done-c delete\n"
                                                       "CronJob longhorn-system/orphan-c keep\n"
                                                       "CronJob longhorn-system/todo-c delete\n"},
};

static void planner_rules(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        test_plan t;
        int rc = test_plan_run(&t, cases[i].yaml, cases[i].scheme, cases[i].default_group);
        if (rc != CW_OK)
            fail_msg("case '%s': %s", cases[i].name, t.err.message);
        char *got = test_plan_describe(&t.plan);
        if (strcmp(got, cases[i].want) != 0) {
            fprintf(stderr, "case '%s':\n--- got\n%s--- want\n%s", cases[i].name, got,
                    cases[i].want);
            fail_msg("case '%s' differs", cases[i].name);
        }
        free(got);
        test_plan_free(&t);
    }
}

/* Malformed related objects are input errors naming the document and the field. */
static void malformed_input_names_the_field(void **state)
{
    (void)state;
    static const struct {
        const char *yaml, *msg;
    } bad[] = {
        {VOL("v", JOBS "  - {name: a, task: snapshot, cron: \"@daily\", retain: \"x\"}\n"),
         "spec.recurringJobs[0].retain: expected integer, got string"},
        {VOL("v",
             JOBS "  - {name: a, task: snapshot, cron: \"@daily\", retain: 1, labels: {a: 1}}\n"),
         "spec.recurringJobs[0].labels.a: expected string, got integer"},
        {VOL("v", "  recurringJobs: {a: 1}\n"), "spec.recurringJobs: expected array, got object"},
        {VOL("v", JOBS "  - just-a-string\n"),
         "spec.recurringJobs[0]: expected object, got string"},
        {"apiVersion: longhorn.io/v1beta1\nkind: Volume\nmetadata: {namespace: longhorn-system}\n",
         "Volume without metadata.name"},
        {"apiVersion: longhorn.io/v1beta1\nkind: Volume\nmetadata: {name: [x]}\n",
         "metadata.name: expected string, got array"},
        {VOL("twice", "") VOL("twice", ""),
         "Volume longhorn-system/twice appears twice (also in test.yaml: document 1)"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        test_plan t;
        int rc = test_plan_run(&t, bad[i].yaml, CW_NAMES_XXH32, 1);
        assert_int_equal(rc, CW_EINVAL);
        if (strcmp(t.err.message, bad[i].msg) != 0)
            fail_msg("case %zu: got '%s' want '%s'", i, t.err.message, bad[i].msg);
        test_plan_free(&t);
    }
}

/* The volume patch: a resourceVersion test, label adds (escaped), removal of the legacy list. */
static void volume_patch_is_conditional_and_escaped(void **state)
{
    (void)state;
    const char *yaml = VOL("v1", JOBS SNAP6H) VOL("v2", JOBS "    []\n");
    test_plan t;
    if (test_plan_run(&t, yaml, CW_NAMES_XXH32, 1) != CW_OK)
        fail_msg("%s", t.err.message);
    static const char *want[] = {
        "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"7\"},"
        "{\"op\":\"add\",\"path\":\"/metadata/"
        "labels\",\"value\":{\"recurring-job.longhorn.io/" N_SNAP
        "\":\"enabled\"}},{\"op\":\"remove\",\"path\":\"/spec/recurringJobs\"}]",
        "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"7\"},"
        "{\"op\":\"add\",\"path\":\"/metadata/labels/recurring-job-group.longhorn.io~1default\","
        "\"value\":\"enabled\"},{\"op\":\"remove\",\"path\":\"/spec/recurringJobs\"}]",
    };
    cw_load_unit *none = NULL;
    (void)none;
    for (int v = 0; v < 2; v++) {
        json_object *vol = json_tokener_parse(
            v == 0
                ? "{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"Volume\",\"metadata\":"
                  "{\"name\":\"v1\",\"namespace\":\"longhorn-system\",\"resourceVersion\":\"7\"},"
                  "\"spec\":{\"recurringJobs\":[{\"name\":\"s6\",\"task\":\"snapshot\",\"cron\":"
                  "\"0 */6 * * *\",\"retain\":4}]}}"
                : "{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"Volume\",\"metadata\":"
                  "{\"name\":\"v2\",\"namespace\":\"longhorn-system\",\"resourceVersion\":\"7\","
                  "\"labels\":{\"app\":\"db\"}},\"spec\":{\"recurringJobs\":[]}}");
        cw_plan_item it;
        cw_error err;
        cw_error_init(&err);
        if (cw_plan_decide(&t.plan, vol, &it, &err) != CW_OK)
            fail_msg("decide: %s", err.message);
        assert_int_equal(it.action, CW_ACT_MIGRATE);
        json_object *ops = NULL;
        assert_int_equal(cw_plan_volume_patch(&it, vol, &ops, &err), CW_OK);
        assert_string_equal(json_object_to_json_string_ext(ops, JSON_C_TO_STRING_PLAIN |
                                                                    JSON_C_TO_STRING_NOSLASHESCAPE),
                            want[v]);
        json_object_put(ops);
        cw_plan_item_free(&it);
        json_object_put(vol);
    }
    test_plan_free(&t);
}

/* A re-read object that gained a job the plan never saw is not migrated half-way. */
static void changed_object_is_not_half_migrated(void **state)
{
    (void)state;
    test_plan t;
    assert_int_equal(test_plan_run(&t, VOL("v1", JOBS SNAP6H), CW_NAMES_XXH32, 1), CW_OK);
    json_object *vol = json_tokener_parse(
        "{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"Volume\",\"metadata\":{\"name\":\"v1\","
        "\"namespace\":\"longhorn-system\",\"resourceVersion\":\"9\"},\"spec\":{\"recurringJobs\":"
        "[{\"name\":\"new\",\"task\":\"backup\",\"cron\":\"0 1 * * *\",\"retain\":2}]}}");
    cw_plan_item it;
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_plan_decide(&t.plan, vol, &it, &err), CW_OK);
    assert_int_equal(it.action, CW_ACT_INVALID);
    assert_string_equal(it.reason, "spec.recurringJobs[0] (new) is not in the plan: the object "
                                   "changed since planning; run migrate again");
    cw_plan_item_free(&it);
    json_object_put(vol);
    test_plan_free(&t);
}

/* migrate/write: the offline rewrite of a file's text. Unchanged documents are copied as they are,
 * and the result is a fixed point (migrating it again changes nothing). Rows found by fuzzing
 * (tests/fuzz/fuzz_manifests.c) say so. */
static void rewrite_keeps_and_migrates(void **state)
{
    (void)state;
    static const struct {
        const char *name, *text, *want;
    } rows[] = {
        {"fuzz: a document led by a directive gets no second \"---\"",
         "a: 1\n...\n%YAML 1.1\n---\nb: 2\n", "a: 1\n...\n%YAML 1.1\n---\nb: 2\n"},
        {"fuzz: a comment line ended by a CR alone keeps the content after it out of the comment",
         "# exported\rapiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: lh\n"
         "provisioner: driver.longhorn.io\nparameters:\n  recurringJobs: '[]'\n",
         "# exported\rapiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: lh\n"
         "provisioner: driver.longhorn.io\nparameters: {}\n"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const char *text = rows[i].text;
        for (int pass = 0; pass < 2; pass++) {
            test_plan t;
            cw_buf out;
            size_t changed = 0;
            cw_buf_init(&out);
            if (test_plan_run(&t, text, CW_NAMES_XXH32, 1) != CW_OK)
                fail_msg("case '%s' pass %d: %s", rows[i].name, pass, t.err.message);
            if (cw_write_transform(&t.plan, "test.yaml", text, strlen(text), &out, &changed,
                                   &t.err) != CW_OK)
                fail_msg("case '%s' pass %d: %s", rows[i].name, pass, t.err.message);
            if (strcmp(cw_buf_str(&out), rows[i].want) != 0) {
                fprintf(stderr, "case '%s' pass %d:\n--- got\n%s--- want\n%s", rows[i].name, pass,
                        cw_buf_str(&out), rows[i].want);
                fail_msg("case '%s' differs", rows[i].name);
            }
            cw_buf_free(&out);
            test_plan_free(&t);
            text = rows[i].want; /* the second pass migrates the result */
        }
    }
}

/* The RecurringJobs migrate creates are named by metadata.name; spec.name is written only in the
 * version whose CRD keeps it (Longhorn 1.2's v1beta1 prunes it, so a manifest with it would never
 * match the stored object), and a pruned existing job is reused by its metadata.name. */
static void created_jobs_and_spec_name(void **state)
{
    (void)state;
    static const struct {
        const char *label, *yaml;
        const char *want; /* the created object, compact JSON */
    } rows[] = {
        {"v1beta1 (Longhorn 1.2): no spec.name", VOL("v1", JOBS SNAP6H),
         "{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"RecurringJob\",\"metadata\":{"
         "\"name\":\"" N_SNAP "\",\"namespace\":\"longhorn-system\"},\"spec\":{\"groups\":[],"
         "\"task\":\"snapshot\",\"cron\":\"0 */6 * * *\",\"retain\":4,\"concurrency\":10,"
         "\"labels\":{}}}"},
        {"v1beta2 (Longhorn 1.3+): spec.name = metadata.name",
         "apiVersion: longhorn.io/v1beta2\nkind: Volume\nmetadata: {name: v1, namespace: "
         "longhorn-system}\nspec:\n" JOBS SNAP6H,
         "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"RecurringJob\",\"metadata\":{"
         "\"name\":\"" N_SNAP "\",\"namespace\":\"longhorn-system\"},\"spec\":{\"name\":\"" N_SNAP
         "\",\"groups\":[],\"task\":\"snapshot\",\"cron\":\"0 */6 * * *\",\"retain\":4,"
         "\"concurrency\":10,\"labels\":{}}}"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        test_plan t;
        json_object *o = NULL;
        if (test_plan_run(&t, rows[i].yaml, CW_NAMES_XXH32, 1) != CW_OK)
            fail_msg("%s: %s", rows[i].label, t.err.message);
        assert_int_equal(t.plan.jobs.len, 1);
        assert_int_equal(cw_plan_job_at(&t.plan, 0)->rj.action, CW_ACT_CREATE);
        assert_int_equal(cw_plan_job_object(&t.plan, 0, &o, &t.err), CW_OK);
        const char *got = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE);
        if (strcmp(got, rows[i].want) != 0)
            fail_msg("%s:\n got %s\nwant %s", rows[i].label, got, rows[i].want);
        json_object_put(o);
        test_plan_free(&t);
    }
}

/* Volume i of the many below: 200-character names so that the sort keys fill several 1 MiB
 * chunks (plan_items.c merges their runs from the item file); two namespaces; one or two jobs. */
/* A StorageClass (its merged selector is derived at finish) and a volume with a job. */
#define SC_AND_VOLUME                                                                              \
    "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: lh}\nprovisioner: "       \
    "driver.longhorn.io\nparameters:\n  recurringJobs: '[{\"name\":\"s6\",\"task\":\"snapshot\","  \
    "\"cron\":\"0 */6 * * *\",\"retain\":4}]'\n" VOL("v1", JOBS SNAP6H)
#define SC_AND_VOLUME_PLAN                                                                         \
    "job " N_SNAP " create\n"                                                                      \
    "Volume longhorn-system/v1 migrate +" L(                                                       \
        N_SNAP) "\n"                                                                               \
                "StorageClass lh migrate selector=[{\"name\":\"" N_SNAP "\",\"isGroup\":false}]\n"

/* A plan is finished once: a second cw_plan_finish (which used to decide every item again and
 * leak the StorageClass's first selector) and a cw_plan_add after the finish are refused, and the
 * plan stays as the first finish left it. */
static void finished_once(void **state)
{
    (void)state;
    test_plan t;
    assert_int_equal(test_plan_run(&t, SC_AND_VOLUME, CW_NAMES_XXH32, 1), CW_OK);
    char *first = test_plan_describe(&t.plan);
    assert_string_equal(first, SC_AND_VOLUME_PLAN);
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_plan_finish(&t.plan, &err), CW_EINVAL);
    assert_string_equal(err.message, "the plan is already finished: it is finished once");
    json_object *vol =
        json_tokener_parse("{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":"
                           "\"Volume\",\"metadata\":{\"name\":\"late\",\"namespace\":"
                           "\"longhorn-system\"},\"spec\":{\"recurringJobs\":[]}}");
    assert_non_null(vol);
    cw_error_init(&err);
    assert_int_equal(cw_plan_add(&t.plan, vol, NULL, &err), CW_EINVAL);
    assert_string_equal(err.message, "the plan is already finished: no object can be added to it");
    json_object_put(vol);
    char *again = test_plan_describe(&t.plan);
    assert_string_equal(again, first);
    assert_int_equal(t.plan.nitems, 2);
    free(first);
    free(again);
    test_plan_free(&t);
}

/* The sorted views read the item file: a read that fails is reported as it is, not as "out of
 * memory". */
static void sorted_views_report_a_failing_item_file(void **state)
{
    (void)state;
    test_plan t;
    assert_int_equal(test_plan_run_in(&t, SC_AND_VOLUME, CW_NAMES_XXH32, 1, "/tmp"), CW_OK);
    test_plan_break_item_file(&t.plan);
    size_t n = 7, *idx = (size_t *)&n;
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_plan_sorted_items(&t.plan, "Volume", &idx, &n, &err), CW_EIO);
    assert_string_equal(err.message, TEST_ITEM_FILE_EIO);
    assert_null(idx);
    assert_int_equal(n, 0);
    idx = (size_t *)&n;
    cw_error_init(&err);
    assert_int_equal(cw_plan_sorted_sources(&t.plan, cw_plan_job_at(&t.plan, 0), &idx, &err),
                     CW_EIO);
    assert_string_equal(err.message, TEST_ITEM_FILE_EIO);
    assert_null(idx);
    test_plan_free(&t);
}

static json_object *many_volume(size_t i)
{
    char name[256], buf[1024];
    snprintf(name, sizeof(name), "v-%05zu-%0190d", i, 0);
    snprintf(buf, sizeof(buf),
             "{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"Volume\",\"metadata\":{"
             "\"name\":\"%s\",\"namespace\":\"ns-%c\"},\"spec\":{\"recurringJobs\":["
             "{\"name\":\"a\",\"task\":\"snapshot\",\"cron\":\"@daily\",\"retain\":%zu}%s]}}",
             name, i % 2 ? 'a' : 'b', 1 + i % 3,
             i % 5 ? ""
                   : ",{\"name\":\"b\",\"task\":\"backup\",\"cron\":\"@weekly\",\"retain\":9}");
    return json_tokener_parse(buf);
}

/* 1 when item a sorts before item b by (kind, namespace, name), as the report wants. */
static int before(const cw_plan_item *a, const cw_plan_item *b)
{
    int c = strcmp(a->kind, b->kind);
    if (!c)
        c = strcmp(a->namespace, b->namespace);
    return c ? c < 0 : strcmp(a->name, b->name) < 0;
}

static void check_orders(const char *scratch_dir)
{
    enum { N = 10000 };
    cw_error err;
    cw_error_init(&err);
    cw_tzdb tz;
    cw_policy_config policy;
    assert_int_equal(cw_tzdb_init(&tz, NULL, &err), CW_OK);
    assert_int_equal(cw_policy_config_init(&policy), CW_OK);
    policy.tzdb = &tz;
    cw_plan_config cfg = {.scheme = CW_NAMES_XXH32,
                          .namespace = "longhorn-system",
                          .policy = &policy,
                          .scratch_dir = scratch_dir};
    cw_plan p;
    assert_int_equal(cw_plan_init(&p, &cfg, &err), CW_OK);
    for (size_t k = 0; k < N; k++) {
        json_object *v = many_volume(k * 7919 % N); /* fed out of order */
        assert_int_equal(cw_plan_add(&p, v, NULL, &err), CW_OK);
        json_object_put(v);
    }
    assert_int_equal(cw_plan_finish(&p, &err), CW_OK);
    assert_true(p.store.end > 3 * (1u << 20)); /* the runs are in the file (or its memory) */

    size_t n, *idx;
    cw_plan_item prev, it;
    memset(&prev, 0, sizeof(prev));
    assert_int_equal(cw_plan_sorted_items(&p, "Volume", &idx, &n, &err), CW_OK);
    assert_int_equal(n, N);
    for (size_t k = 0; k < n; k++) {
        assert_int_equal(cw_plan_item_load(&p, idx[k], &it, &err), CW_OK);
        if (k && !before(&prev, &it))
            fail_msg("volume %zu (%s/%.8s) not after %s/%.8s", k, it.namespace, it.name,
                     prev.namespace, prev.name);
        assert_int_equal(cw_plan_find_item(&p, "Volume", it.namespace, it.name), (long)idx[k]);
        cw_plan_item_free(&prev);
        prev = it;
    }
    cw_plan_item_free(&prev);
    free(idx);

    /* Four jobs: retain 1, 2, 3 (a third of the volumes each) and the backup (every fifth). */
    assert_int_equal(p.jobs.len, 4);
    size_t total = 0;
    for (size_t j = 0; j < p.jobs.len; j++) {
        size_t *src;
        assert_int_equal(cw_plan_sorted_sources(&p, cw_plan_job_at(&p, j), &src, &err), CW_OK);
        memset(&prev, 0, sizeof(prev));
        for (size_t s = 0; s < cw_plan_job_at(&p, j)->nsrcs; s++) {
            assert_int_equal(cw_plan_item_load(&p, src[s], &it, &err), CW_OK);
            int wants = 0;
            for (size_t r = 0; r < it.nrefs; r++)
                wants |= it.refs[r].job == j;
            assert_true(wants);
            if (s && !before(&prev, &it))
                fail_msg("job %zu source %zu out of order", j, s);
            cw_plan_item_free(&prev);
            prev = it;
        }
        cw_plan_item_free(&prev);
        free(src);
        total += cw_plan_job_at(&p, j)->nsrcs;
    }
    assert_int_equal(total, N + N / 5);
    cw_plan_free(&p);
    cw_policy_config_free(&policy);
    cw_tzdb_free(&tz);
}

static void orders_beyond_one_sort_chunk(void **state)
{
    (void)state;
    check_orders(NULL); /* the item file in $TMPDIR or /tmp */
    check_orders("");   /* in memory */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(planner_rules),
        cmocka_unit_test(malformed_input_names_the_field),
        cmocka_unit_test(volume_patch_is_conditional_and_escaped),
        cmocka_unit_test(changed_object_is_not_half_migrated),
        cmocka_unit_test(rewrite_keeps_and_migrates),
        cmocka_unit_test(created_jobs_and_spec_name),
        cmocka_unit_test(orders_beyond_one_sort_chunk),
        cmocka_unit_test(finished_once),
        cmocka_unit_test(sorted_views_report_a_failing_item_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
