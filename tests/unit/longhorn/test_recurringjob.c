/* RecurringJob defaulting and validation: every rule of docs/policy.md with its edges. JSON in
 * the tables uses ' for " (see policy_case.h); messages are exact. */
#include "tests/unit/defaults/policy_case.h"

#include <stdint.h>
#include <stdio.h>

#include "longhorn/recurringjob.h"
#include "tests/unit/tzdb_fixture.h"

#define RJ(api, spec)                                                                              \
    "{'apiVersion':'longhorn.io/" api "','kind':'RecurringJob','metadata':{'name':'daily',"        \
    "'namespace':'longhorn-system'},'spec':" spec "}"
#define RJ2(spec) RJ("v1beta2", spec)
#define RJN(name, spec)                                                                            \
    "{'apiVersion':'longhorn.io/v1beta2','kind':'RecurringJob','metadata':{'name':" name           \
    "},'spec':" spec "}"
/* No spec.name: Longhorn 1.2's CRD prunes it, and the job's name is metadata.name. */
#define SPEC_OK "{'task':'snapshot','cron':'0 0 * * *','retain':1}"
#define FULL_FILL                                                                                  \
    "{'op':'add','path':'/spec/groups','value':[]},{'op':'add','path':'/spec/labels','value':{}},"
#define ALL_TASKS                                                                                  \
    "snapshot, snapshot-force-create, snapshot-cleanup, snapshot-delete, backup, "                 \
    "backup-force-create, filesystem-trim, system-backup"
#define NEGATIVE_CONCURRENCY(n)                                                                    \
    "spec.concurrency: " n " is negative: Longhorn accepts it, but its recurring-job command "     \
    "then fails every run of a volume task (Go's make(chan) panics on a negative size)"
#define MAX_RETAIN_MSG(n, max)                                                                     \
    "spec.retain: " n " exceeds the maximum of " max                                               \
    " (Longhorn setting recurring-job-max-retention)"

typedef struct {
    const char *label;
    cw_operation op;
    int max_retain; /* 0: the default 100 */
    const char *old, *obj, *patch, *warnings, *problems;
} rj_case;

static void run_cases(policy_fn fn, const rj_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cw_policy_config cfg;
        assert_int_equal(cw_policy_config_init(&cfg), CW_OK);
        if (cases[i].max_retain)
            cfg.max_retain = cases[i].max_retain;
        test_policy_case(fn, &cfg, cases[i].op, cases[i].old, cases[i].obj, cases[i].patch,
                         cases[i].warnings, cases[i].problems, cases[i].label);
        cw_policy_config_free(&cfg);
    }
}

static const rj_case default_cases[] = {
    {"v1beta2 create fills every absent field", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'0 0 * * *'}"),
     "[{'op':'add','path':'/spec/name','value':'daily'}," FULL_FILL
     "{'op':'add','path':'/spec/parameters','value':{}},"
     "{'op':'add','path':'/spec/concurrency','value':10},"
     "{'op':'add','path':'/spec/retain','value':1}]",
     NULL, NULL},
    {"v1beta1: no parameters field, and no spec.name (Longhorn 1.2's CRD prunes it)", CW_OP_CREATE,
     0, NULL, RJ("v1beta1", "{'task':'backup','cron':'0 0 * * *'}"),
     "[" FULL_FILL "{'op':'add','path':'/spec/concurrency','value':10},"
     "{'op':'add','path':'/spec/retain','value':1}]",
     NULL, NULL},
    {"no apiVersion reads as v1beta2", CW_OP_CREATE, 0, NULL,
     "{'metadata':{'name':'daily'},'spec':{'name':'daily','task':'snapshot','groups':[],"
     "'labels':{},'concurrency':1,'retain':1}}",
     "[{'op':'add','path':'/spec/parameters','value':{}}]", NULL, NULL},
    {"update defaults like create", CW_OP_UPDATE, 0, RJ2("{}"),
     RJ2("{'task':'backup','cron':'0 0 * * *'}"),
     "[{'op':'add','path':'/spec/name','value':'daily'}," FULL_FILL
     "{'op':'add','path':'/spec/parameters','value':{}},"
     "{'op':'add','path':'/spec/concurrency','value':10},"
     "{'op':'add','path':'/spec/retain','value':1}]",
     NULL, NULL},
    {"complete object is left alone", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'other','task':'snapshot','cron':'0 0 * * *','groups':['default'],"
         "'labels':{'a':'b'},'parameters':{},'concurrency':2,'retain':3}"),
     NULL, NULL, NULL},
    {"explicit empty values are replaced; 0s are changes and warn", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'','task':'snapshot','cron':'0 0 * * *','groups':null,'labels':null,"
         "'parameters':null,'concurrency':0,'retain':0}"),
     "[{'op':'replace','path':'/spec/name','value':'daily'},"
     "{'op':'replace','path':'/spec/groups','value':[]},"
     "{'op':'replace','path':'/spec/labels','value':{}},"
     "{'op':'replace','path':'/spec/parameters','value':{}},"
     "{'op':'replace','path':'/spec/concurrency','value':10},"
     "{'op':'replace','path':'/spec/retain','value':1}]",
     "spec.concurrency: 0 changed to the default 10\n"
     "spec.retain: 0 changed to 1 (task \"snapshot\" needs a retain of at least 1)",
     NULL},
    {"snapshot-cleanup ignores retain", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'d','task':'snapshot-cleanup','cron':'0 0 * * *','groups':[],'labels':{},"
         "'parameters':{},'concurrency':1,'retain':5}"),
     "[{'op':'replace','path':'/spec/retain','value':0}]",
     "spec.retain: 5 changed to 0 (task \"snapshot-cleanup\" ignores retain)", NULL},
    {"filesystem-trim without retain needs nothing (absent is 0)", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'d','task':'filesystem-trim','cron':'0 0 * * *','groups':[],'labels':{},"
         "'parameters':{},'concurrency':1}"),
     NULL, NULL, NULL},
    {"filesystem-trim negative retain", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'d','task':'filesystem-trim','cron':'0 0 * * *','groups':[],'labels':{},"
         "'parameters':{},'concurrency':1,'retain':-1}"),
     "[{'op':'replace','path':'/spec/retain','value':0}]",
     "spec.retain: -1 changed to 0 (task \"filesystem-trim\" ignores retain)", NULL},
    {"snapshot-delete negative retain", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'d','task':'snapshot-delete','cron':'0 0 * * *','groups':[],'labels':{},"
         "'parameters':{},'concurrency':1,'retain':-2}"),
     "[{'op':'replace','path':'/spec/retain','value':0}]",
     "spec.retain: -2 changed to 0 (task \"snapshot-delete\" does not accept a negative retain)",
     NULL},
    {"snapshot-delete retain 0 is fine", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'d','task':'snapshot-delete','cron':'0 0 * * *','groups':[],'labels':{},"
         "'parameters':{},'concurrency':1,'retain':0}"),
     NULL, NULL, NULL},
    {"backup negative retain", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'d','task':'backup','cron':'0 0 * * *','groups':[],'labels':{},"
         "'parameters':{},'concurrency':1,'retain':-5}"),
     "[{'op':'replace','path':'/spec/retain','value':1}]",
     "spec.retain: -5 changed to 1 (task \"backup\" needs a retain of at least 1)", NULL},
    {"unknown task takes Longhorn's default branch", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'d','task':'weird','groups':[],'labels':{},'parameters':{},'concurrency':1}"),
     "[{'op':'add','path':'/spec/retain','value':1}]", NULL, NULL},
    {"missing spec is added as one object, then filled", CW_OP_CREATE, 0, NULL,
     "{'apiVersion':'longhorn.io/v1beta2','metadata':{'name':'daily'}}",
     "[{'op':'add','path':'/spec','value':{'name':'daily'}}," FULL_FILL
     "{'op':'add','path':'/spec/parameters','value':{}},"
     "{'op':'add','path':'/spec/concurrency','value':10},"
     "{'op':'add','path':'/spec/retain','value':1}]",
     NULL, NULL},
    {"null spec is replaced", CW_OP_CREATE, 0, NULL,
     "{'apiVersion':'longhorn.io/v1beta1','metadata':{},'spec':null}",
     "[{'op':'replace','path':'/spec','value':{'groups':[]}},"
     "{'op':'add','path':'/spec/labels','value':{}},"
     "{'op':'add','path':'/spec/concurrency','value':10},"
     "{'op':'add','path':'/spec/retain','value':1}]",
     NULL, NULL},
    {"wrong types are left to validation", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'d','task':5,'groups':'g','labels':[],'parameters':'p','concurrency':'5',"
         "'retain':'x'}"),
     NULL, NULL, NULL},
    {"retain of the wrong type is not defaulted", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'d','task':'backup','groups':[],'labels':{},'parameters':{},'concurrency':1,"
         "'retain':1.5}"),
     NULL, NULL, NULL},
    {"negative concurrency is not changed (validation warns)", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'d','task':'backup','groups':[],'labels':{},'parameters':{},"
         "'concurrency':-3,'retain':1}"),
     NULL, NULL, NULL},
    {"no metadata.name: spec.name stays empty", CW_OP_CREATE, 0, NULL,
     "{'apiVersion':'longhorn.io/v1beta2','metadata':{},'spec':{'groups':[],'labels':{},"
     "'parameters':{},'concurrency':1,'retain':1}}",
     NULL, NULL, NULL},
    {"spec that is not an object", CW_OP_CREATE, 0, NULL, RJ2("'x'"), NULL, NULL, NULL},
    {"unknown apiVersion", CW_OP_CREATE, 0, NULL,
     "{'apiVersion':'longhorn.io/v1','metadata':{'name':'d'},'spec':{}}", NULL, NULL, NULL},
    {"not an object", CW_OP_CREATE, 0, NULL, "[]", NULL, NULL, NULL},
    {"delete decides nothing", CW_OP_DELETE, 0, NULL, RJ2("{}"), NULL, NULL, NULL},
    {"connect decides nothing", CW_OP_CONNECT, 0, NULL, RJ2("{}"), NULL, NULL, NULL},
};

static void defaulting(void **state)
{
    (void)state;
    run_cases(cw_recurringjob_default, default_cases,
              sizeof(default_cases) / sizeof(default_cases[0]));
}

#define NAME45  "abcdefghij-abcdefghij-abcdefghij-abcdefghij-x"
#define UPPER43 "ABCDEFGHIJ-abcdefghij-abcdefghij-abcdefghij"

static const rj_case validate_cases[] = {
    {"a complete valid job", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'daily','task':'backup','cron':'0 0 * * *','groups':['default','db_1.x'],"
         "'labels':{'app':'db','example.com/tier':'gold'},"
         "'parameters':{'full-backup-interval':'5','volume-backup-policy':'if-not-present'},"
         "'concurrency':10,'retain':100}"),
     NULL, NULL, NULL},
    {"upper-case name: rejected with the lower-case suggestion", CW_OP_CREATE, 0, NULL,
     RJN("'Daily-Backup'", SPEC_OK), NULL, NULL,
     "metadata.name: \"Daily-Backup\" must match ^[a-z0-9][a-z0-9_.-]+$; cronwarden does not "
     "rename objects, use \"daily-backup\""},
    {"one-character name", CW_OP_CREATE, 0, NULL, RJN("'a'", SPEC_OK), NULL, NULL,
     "metadata.name: \"a\" must match ^[a-z0-9][a-z0-9_.-]+$ (lower-case letters, digits, '_', "
     "'.', '-'; at least 2 characters)"},
    {"leading underscore", CW_OP_CREATE, 0, NULL, RJN("'_x'", SPEC_OK), NULL, NULL,
     "metadata.name: \"_x\" must match ^[a-z0-9][a-z0-9_.-]+$ (lower-case letters, digits, '_', "
     "'.', '-'; at least 2 characters)"},
    {"too long", CW_OP_CREATE, 0, NULL, RJN("'" NAME45 "'", SPEC_OK), NULL, NULL,
     "metadata.name: \"" NAME45 "\" has 45 characters, at most 40 are allowed (Longhorn's "
     "limit: the CronJob named after the job and its Jobs must stay valid); cronwarden does not "
     "shorten names"},
    {"upper case and too long: both reported", CW_OP_CREATE, 0, NULL, RJN("'" UPPER43 "'", SPEC_OK),
     NULL, NULL,
     "metadata.name: \"" UPPER43 "\" must match ^[a-z0-9][a-z0-9_.-]+$ (lower-case letters, "
     "digits, '_', '.', '-'; at least 2 characters)\n"
     "metadata.name: \"" UPPER43 "\" has 43 characters, at most 40 are allowed (Longhorn's "
     "limit: the CronJob named after the job and its Jobs must stay valid); cronwarden does not "
     "shorten names"},
    {"exactly 40 characters", CW_OP_CREATE, 0, NULL,
     RJN("'abcdefghij-abcdefghij-abcdefghij-abcdefg'", SPEC_OK), NULL, NULL, NULL},
    {"name ending in '-' cannot be a label key", CW_OP_CREATE, 0, NULL, RJN("'job-'", SPEC_OK),
     NULL, NULL,
     "metadata.name: \"job-\" must end with a letter or digit, so that the volume label key "
     "recurring-job.longhorn.io/job- is valid"},
    {"missing name", CW_OP_CREATE, 0, NULL,
     "{'apiVersion':'longhorn.io/v1beta2','metadata':{},'spec':" SPEC_OK "}", NULL, NULL,
     "metadata.name: must not be empty"},
    {"name of the wrong type", CW_OP_CREATE, 0, NULL, RJN("5", SPEC_OK), NULL, NULL,
     "metadata.name: expected string, got integer"},
    {"metadata of the wrong type", CW_OP_CREATE, 0, NULL,
     "{'apiVersion':'longhorn.io/v1beta2','metadata':'m','spec':" SPEC_OK "}", NULL, NULL,
     "metadata: expected object, got string"},
    {"update does not check the (immutable) name", CW_OP_UPDATE, 0, RJN("'Daily-Backup'", SPEC_OK),
     RJN("'Daily-Backup'", SPEC_OK), NULL, NULL, NULL},
    {"empty spec: every required field", CW_OP_CREATE, 0, NULL, RJ2("{}"), NULL, NULL,
     "spec.task: must not be empty\nspec.cron: must not be empty"},
    {"missing spec: the same", CW_OP_CREATE, 0, NULL,
     "{'apiVersion':'longhorn.io/v1beta2','metadata':{'name':'daily'}}", NULL, NULL,
     "spec.task: must not be empty\nspec.cron: must not be empty"},
    {"spec.name equal to metadata.name", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'daily','task':'backup','cron':'@daily'}"), NULL, NULL, NULL},
    {"empty or null spec.name is as absent", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'','task':'backup','cron':'@daily'}"), NULL, NULL, NULL},
    {"v1beta1 as Longhorn 1.2's docs write it (no spec.name)", CW_OP_CREATE, 0, NULL,
     RJ("v1beta1", "{'cron':'*/1 * * * *','task':'snapshot','groups':['default'],'retain':1,"
                   "'concurrency':2,'labels':{'label/1':'a'}}"),
     NULL, NULL, NULL},
    {"spec.name differing from metadata.name", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':'weekly','task':'backup','cron':'@daily'}"), NULL, NULL,
     "spec.name: \"weekly\" differs from metadata.name \"daily\": Longhorn names the job and its "
     "CronJob after metadata.name (leave spec.name out, or make it the same)"},
    {"spec.name differing on update too", CW_OP_UPDATE, 0, RJ2("{'task':'backup','cron':'@daily'}"),
     RJ2("{'name':'weekly','task':'backup','cron':'@daily'}"), NULL, NULL,
     "spec.name: \"weekly\" differs from metadata.name \"daily\": Longhorn names the job and its "
     "CronJob after metadata.name (leave spec.name out, or make it the same)"},
    {"spec.name of the wrong type", CW_OP_CREATE, 0, NULL,
     RJ2("{'name':5,'task':'backup','cron':'@daily'}"), NULL, NULL,
     "spec.name: expected string, got integer"},
    {"spec of the wrong type", CW_OP_CREATE, 0, NULL, RJ2("'x'"), NULL, NULL,
     "spec: expected object, got string"},
    {"unknown task", CW_OP_CREATE, 0, NULL, RJ2("{'task':'snap','cron':'0 0 * * *'}"), NULL, NULL,
     "spec.task: unknown task \"snap\" (expected one of " ALL_TASKS ")"},
    {"task of the wrong type", CW_OP_CREATE, 0, NULL, RJ2("{'task':5,'cron':'0 0 * * *'}"), NULL,
     NULL, "spec.task: expected string, got integer"},
    {"cron with one field keeps robfig's text", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'x'}"), NULL, NULL,
     "spec.cron: invalid cron expression \"x\": expected exactly 5 fields, found 1: [x]"},
    {"cron weekday 7", CW_OP_CREATE, 0, NULL, RJ2("{'task':'backup','cron':'0 0 * * 7'}"), NULL,
     NULL,
     "spec.cron: invalid cron expression \"0 0 * * 7\": end of range (7) above maximum (6): 7"},
    {"groups: pattern, type and label-key rules", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','groups':['ok1','bad group',5,'gold-','x']}"), NULL,
     NULL,
     "spec.groups[1]: \"bad group\" must match ^[a-zA-Z0-9][a-zA-Z0-9_.-]+$\n"
     "spec.groups[2]: expected string, got integer\n"
     "spec.groups[3]: \"gold-\" must end with a letter or digit and have at most 63 characters, "
     "so that the volume label key recurring-job-group.longhorn.io/<group> is valid\n"
     "spec.groups[4]: \"x\" must match ^[a-zA-Z0-9][a-zA-Z0-9_.-]+$"},
    {"groups of the wrong type", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','groups':'default'}"), NULL, NULL,
     "spec.groups: expected array, got string"},
    {"labels: keys are qualified names, values non-empty strings", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','labels':{'a b':'x','env':'','n':1,"
         "'example.com/ok':'y','Example.com/x':'z'}}"),
     NULL, NULL,
     "spec.labels: invalid key \"a b\": name part must consist of alphanumeric characters, '-', "
     "'_' or '.', and must start and end with an alphanumeric character\n"
     "spec.labels[env]: value must not be empty\n"
     "spec.labels[n]: expected string, got integer\n"
     "spec.labels: invalid key \"Example.com/x\": prefix part a lowercase RFC 1123 subdomain must "
     "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
     "alphanumeric character"},
    {"labels of the wrong type", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','labels':[]}"), NULL, NULL,
     "spec.labels: expected object, got array"},
    {"retain above the default maximum", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','retain':101}"), NULL, NULL,
     MAX_RETAIN_MSG("101", "100")},
    {"retain within a raised maximum", CW_OP_CREATE, 250, NULL,
     RJ2("{'task':'backup','cron':'@daily','retain':250}"), NULL, NULL, NULL},
    {"retain above a raised maximum", CW_OP_CREATE, 250, NULL,
     RJ2("{'task':'backup','cron':'@daily','retain':251}"), NULL, NULL,
     MAX_RETAIN_MSG("251", "250")},
    {"retain of the wrong type", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','retain':'x'}"), NULL, NULL,
     "spec.retain: expected integer, got string"},
    {"fractional retain", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','retain':1.5}"), NULL, NULL,
     "spec.retain: expected integer, got number"},
    /* Every Longhorn webhook accepts it (issue 34 (3)): a warning, never a refusal. */
    {"negative concurrency: what Longhorn accepts and then fails to run", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','concurrency':-1}"), NULL, NEGATIVE_CONCURRENCY("-1"),
     NULL},
    {"concurrency of the wrong type", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','concurrency':'5'}"), NULL, NULL,
     "spec.concurrency: expected integer, got string"},
    /* Longhorn (ValidateRecurringJobParameters) checks backup and backup-force-create only:
     * elsewhere a warning, never a refusal of what Longhorn runs (issue 34 (3)). */
    {"parameters on a snapshot task: a warning", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'snapshot','cron':'@daily','parameters':"
         "{'full-backup-interval':'3'}}"),
     NULL,
     "spec.parameters: task \"snapshot\" takes no parameters (only backup, backup-force-create "
     "and system-backup do): Longhorn ignores them",
     NULL},
    {"system-backup's parameters: warnings", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'system-backup','cron':'@daily','parameters':"
         "{'volume-backup-policy':'sometimes'}}"),
     NULL,
     "spec.parameters[volume-backup-policy]: \"sometimes\" is not one of always, if-not-present, "
     "disabled",
     NULL},
    {"empty parameters on a snapshot task are fine", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'snapshot','cron':'@daily','parameters':{}}"), NULL, NULL, NULL},
    {"parameter keys and values", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','parameters':{'full-backup-interval':'x',"
         "'volume-backup-policy':'sometimes','foo':'1'}}"),
     NULL, NULL,
     "spec.parameters[full-backup-interval]: \"x\" is not an integer\n"
     "spec.parameters[volume-backup-policy]: \"sometimes\" is not one of always, if-not-present, "
     "disabled\n"
     "spec.parameters[foo]: unknown parameter (expected full-backup-interval or "
     "volume-backup-policy)"},
    /* strconv.Atoi is Longhorn's only rule (v1.12.1 datastore/longhorn.go:6241). */
    {"negative full-backup-interval: a warning", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup-force-create','cron':'@daily','parameters':"
         "{'full-backup-interval':'-1'}}"),
     NULL,
     "spec.parameters[full-backup-interval]: \"-1\" is negative: Longhorn accepts it and reads "
     "it as \"1\" (a full backup when the run count is a multiple of it)",
     NULL},
    {"full-backup-interval as Go's Atoi reads it", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','parameters':"
         "{'full-backup-interval':'+007'}}"),
     NULL, NULL, NULL},
    {"full-backup-interval out of int64 range, spaces, empty", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','parameters':"
         "{'full-backup-interval':'99999999999999999999'}}"),
     NULL, NULL,
     "spec.parameters[full-backup-interval]: \"99999999999999999999\" is not an integer"},
    {"full-backup-interval with a space", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','parameters':"
         "{'full-backup-interval':' 5'}}"),
     NULL, NULL, "spec.parameters[full-backup-interval]: \" 5\" is not an integer"},
    {"parameter value of the wrong type", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','parameters':{'full-backup-interval':5}}"), NULL, NULL,
     "spec.parameters[full-backup-interval]: expected string, got integer"},
    {"system-backup policy", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'system-backup','cron':'@daily','parameters':"
         "{'volume-backup-policy':'disabled'}}"),
     NULL, NULL, NULL},
    {"parameters of the wrong type", CW_OP_CREATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','parameters':'p'}"), NULL, NULL,
     "spec.parameters: expected object, got string"},
    {"parameters do not exist in v1beta1", CW_OP_CREATE, 0, NULL,
     RJ("v1beta1", "{'task':'backup','cron':'@daily','parameters':{}}"), NULL, NULL,
     "spec.parameters: not a field of longhorn.io/v1beta1 (parameters exist from "
     "longhorn.io/v1beta2, Longhorn 1.7)"},
    {"v1beta1 with null parameters", CW_OP_CREATE, 0, NULL,
     RJ("v1beta1", "{'task':'backup','cron':'@daily','parameters':null}"), NULL, NULL, NULL},
    {"unknown apiVersion", CW_OP_CREATE, 0, NULL,
     "{'apiVersion':'longhorn.io/v1','metadata':{'name':'d'},'spec':{}}", NULL, NULL,
     "apiVersion: \"longhorn.io/v1\" is not a RecurringJob version (expected longhorn.io/v1beta1 "
     "or longhorn.io/v1beta2)"},
    {"apiVersion of the wrong type", CW_OP_CREATE, 0, NULL,
     "{'apiVersion':1,'metadata':{'name':'d'},'spec':{}}", NULL, NULL,
     "apiVersion: expected string, got integer"},
    {"not an object", CW_OP_CREATE, 0, NULL, "[]", NULL, NULL,
     "object: expected object, got array"},
    {"all problems at once, in field order", CW_OP_CREATE, 0, NULL,
     RJN("'Bad'", "{'task':'','cron':'','retain':'x','concurrency':-2,'groups':['-']}"), NULL,
     NEGATIVE_CONCURRENCY("-2"),
     "metadata.name: \"Bad\" must match ^[a-z0-9][a-z0-9_.-]+$; cronwarden does not rename "
     "objects, use \"bad\"\n"
     "spec.task: must not be empty\nspec.cron: must not be empty\n"
     "spec.groups[0]: \"-\" must match ^[a-zA-Z0-9][a-zA-Z0-9_.-]+$\n"
     "spec.retain: expected integer, got string"},
    {"update keeps a stored violation as a warning", CW_OP_UPDATE, 0,
     RJ2("{'task':'backup','cron':'@daily','retain':300}"),
     RJ2("{'task':'backup','cron':'@daily','retain':300,'labels':{'a':'b'}}"), NULL,
     MAX_RETAIN_MSG("300", "100") " (already in the stored object, not blocking)", NULL},
    {"update that changes the violation is denied", CW_OP_UPDATE, 0,
     RJ2("{'task':'backup','cron':'@daily','retain':300}"),
     RJ2("{'task':'backup','cron':'@daily','retain':301}"), NULL, NULL,
     MAX_RETAIN_MSG("301", "100")},
    {"update without the old object", CW_OP_UPDATE, 0, NULL,
     RJ2("{'task':'backup','cron':'@daily','retain':300}"), NULL, NULL,
     MAX_RETAIN_MSG("300", "100")},
    {"delete decides nothing", CW_OP_DELETE, 0, NULL, "[]", NULL, NULL, NULL},
};

static void validation(void **state)
{
    (void)state;
    run_cases(cw_recurringjob_validate, validate_cases,
              sizeof(validate_cases) / sizeof(validate_cases[0]));
}

/* The cluster's Longhorn minor known (the webhook's and the controller's --longhorn-version): a
 * task its manager does not have is refused, on CREATE; a stored one stays updatable (warning). */
typedef struct {
    int minor;
    cw_operation op;
    const char *old_task, *task, *warnings, *problems;
} minor_task_case;

#define NEWER_THAN_12(task, since)                                                                 \
    "spec.task: \"" task "\" is a task of Longhorn 1." since " and later; the cluster runs "       \
    "Longhorn 1.2, whose manager has snapshot, backup"

static const minor_task_case minor_task_cases[] = {
    {0, CW_OP_CREATE, NULL, "system-backup", NULL, NULL},
    {2, CW_OP_CREATE, NULL, "snapshot", NULL, NULL},
    {2, CW_OP_CREATE, NULL, "backup", NULL, NULL},
    {2, CW_OP_CREATE, NULL, "snapshot-cleanup", NULL, NEWER_THAN_12("snapshot-cleanup", "3")},
    {2, CW_OP_CREATE, NULL, "system-backup", NULL, NEWER_THAN_12("system-backup", "9")},
    {2, CW_OP_UPDATE, "snapshot-cleanup", "snapshot-cleanup",
     NEWER_THAN_12("snapshot-cleanup", "3") " (already in the stored object, not blocking)", NULL},
    {2, CW_OP_UPDATE, "snapshot", "snapshot-delete", NULL, NEWER_THAN_12("snapshot-delete", "3")},
    {4, CW_OP_CREATE, NULL, "filesystem-trim", NULL,
     "spec.task: \"filesystem-trim\" is a task of Longhorn 1.5 and later; the cluster runs "
     "Longhorn 1.4, whose manager has snapshot, snapshot-force-create, snapshot-cleanup, "
     "snapshot-delete, backup, backup-force-create"},
    {5, CW_OP_CREATE, NULL, "filesystem-trim", NULL, NULL},
    {9, CW_OP_CREATE, NULL, "system-backup", NULL, NULL},
    {2, CW_OP_CREATE, NULL, "nap", NULL,
     "spec.task: unknown task \"nap\" (expected one of " ALL_TASKS ")"},
};

static void tasks_of_the_clusters_minor(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(minor_task_cases) / sizeof(minor_task_cases[0]); i++) {
        const minor_task_case *c = &minor_task_cases[i];
        char obj[256], old[256], label[64];
        snprintf(obj, sizeof(obj), RJ("v1beta1", "{'task':'%s','cron':'@daily'}"), c->task);
        if (c->old_task)
            snprintf(old, sizeof(old), RJ("v1beta1", "{'task':'%s','cron':'@daily'}"), c->old_task);
        snprintf(label, sizeof(label), "1.%d %s", c->minor, c->task);
        cw_policy_config cfg;
        assert_int_equal(cw_policy_config_init(&cfg), CW_OK);
        cfg.longhorn_minor = c->minor;
        test_policy_case(cw_recurringjob_validate, &cfg, c->op, c->old_task ? old : NULL, obj, NULL,
                         c->warnings, c->problems, label);
        cw_policy_config_free(&cfg);
    }
}

/* The parameters each release range's webhook accepts on a backup task
 * (datastore.validateRecurringJobBackupParameter): full-backup-interval from v1.7.0 (v1.7.0
 * datastore/longhorn.go:4487), volume-backup-policy from v1.9.0 (v1.9.0 :5155; v1.7.0 :4493 and
 * v1.8.2 :5054 say "is not a valid parameter"); minor 0: not known, the newest release's. */
typedef struct {
    int minor, patch;
    const char *task, *params, *warnings, *problems;
} param_case;

static const param_case param_cases[] = {
    {8, 2, "backup", "{'volume-backup-policy':'always'}", NULL,
     "spec.parameters[volume-backup-policy]: a parameter of Longhorn 1.9.0 and later; the "
     "cluster runs Longhorn 1.8, whose webhook refuses it (\"is not a valid parameter\")"},
    {7, 0, "backup-force-create", "{'full-backup-interval':'2','volume-backup-policy':'disabled'}",
     NULL,
     "spec.parameters[volume-backup-policy]: a parameter of Longhorn 1.9.0 and later; the "
     "cluster runs Longhorn 1.7, whose webhook refuses it (\"is not a valid parameter\")"},
    {8, -1, "backup", "{'foo':'1'}", NULL,
     "spec.parameters[foo]: unknown parameter (expected full-backup-interval)"},
    {9, 0, "backup", "{'volume-backup-policy':'always'}", NULL, NULL},
    {12, 1, "backup", "{'foo':'1'}", NULL,
     "spec.parameters[foo]: unknown parameter (expected full-backup-interval or "
     "volume-backup-policy)"},
    {0, -1, "backup", "{'volume-backup-policy':'if-not-present'}", NULL, NULL},
    {12, 1, "backup", "{'full-backup-interval':'-3'}",
     "spec.parameters[full-backup-interval]: \"-3\" is negative: Longhorn accepts it and reads "
     "it as \"3\" (a full backup when the run count is a multiple of it)",
     NULL},
    /* 1.6 has no parameters (its CRD prunes them): what 1.7 would refuse is a warning. */
    {6, 4, "backup", "{'full-backup-interval':'x'}",
     "spec.parameters[full-backup-interval]: \"x\" is not an integer", NULL},
    /* system-backup's are read, never checked (v1.12.1 datastore/longhorn.go:6224). */
    {12, 1, "system-backup", "{'volume-backup-policy':'sometimes'}",
     "spec.parameters[volume-backup-policy]: \"sometimes\" is not one of always, if-not-present, "
     "disabled",
     NULL},
};

static void parameters_of_each_release(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(param_cases) / sizeof(param_cases[0]); i++) {
        const param_case *c = &param_cases[i];
        char obj[512], label[96];
        snprintf(obj, sizeof(obj), RJ2("{'task':'%s','cron':'@daily','parameters':%s}"), c->task,
                 c->params);
        snprintf(label, sizeof(label), "1.%d.%d %s %s", c->minor, c->patch, c->task, c->params);
        cw_policy_config cfg;
        assert_int_equal(cw_policy_config_init(&cfg), CW_OK);
        cfg.longhorn_minor = c->minor;
        cfg.longhorn_patch = c->patch;
        test_policy_case(cw_recurringjob_validate, &cfg, CW_OP_CREATE, NULL, obj, NULL, c->warnings,
                         c->problems, label);
        cw_policy_config_free(&cfg);
    }
}

/* A TZ=/CRON_TZ= prefix in spec.cron (docs/policy.md, docs/compat.md "CRON_TZ= in a
 * RecurringJob's cron"): refused where the cluster's Longhorn is known to refuse it (1.3+, its
 * webhook), a warning where it is not known or is 1.2 (no webhook); never a word from the
 * controller's copy of the policy (cron_zone_ok), which writes spec.cron as Longhorn does. */
typedef struct {
    int minor, zone_ok;
    cw_operation op;
    const char *old_cron, *cron, *warnings, *problems;
} zone_case;

#define BERLIN "CRON_TZ=Europe/Berlin 0 2 * * *"
#define ZONE_REFUSED(cron, prefix, minor)                                                          \
    "spec.cron: \"" cron "\" starts with a time zone (" prefix "), which Longhorn 1." minor        \
    " refuses (its cron parser, robfig/cron v1, has none); and Kubernetes 1.29 and later refuse "  \
    "to create a CronJob whose schedule holds TZ: write the time without the prefix, in "          \
    "kube-controller-manager's time zone (usually UTC)"
#define ZONE_WARNED(cron, prefix)                                                                  \
    "spec.cron: \"" cron "\" starts with a time zone (" prefix "), which Longhorn 1.3 and later "  \
    "refuse (their cron parser, robfig/cron v1, has none); and Kubernetes 1.29 and later (and "    \
    "1.21 and earlier) refuse to create a CronJob whose schedule holds TZ, so no CronJob may run " \
    "this job: write the time without the prefix, in kube-controller-manager's time zone "         \
    "(usually UTC)"

static const zone_case zone_cases[] = {
    /* Longhorn not known (the webhook without --longhorn-version): admitted, with a warning */
    {0, 0, CW_OP_CREATE, NULL, BERLIN, ZONE_WARNED(BERLIN, "CRON_TZ=Europe/Berlin"), NULL},
    {0, 0, CW_OP_CREATE, NULL, "TZ=UTC @daily", ZONE_WARNED("TZ=UTC @daily", "TZ=UTC"), NULL},
    {0, 0, CW_OP_UPDATE, BERLIN, BERLIN, ZONE_WARNED(BERLIN, "CRON_TZ=Europe/Berlin"), NULL},
    /* Longhorn 1.2 has no webhook: its controller copies the cron; a warning */
    {2, 0, CW_OP_CREATE, NULL, BERLIN, ZONE_WARNED(BERLIN, "CRON_TZ=Europe/Berlin"), NULL},
    /* Longhorn 1.3 and later refuse it at admission: so does cronwarden */
    {3, 0, CW_OP_CREATE, NULL, BERLIN, NULL, ZONE_REFUSED(BERLIN, "CRON_TZ=Europe/Berlin", "3")},
    {12, 0, CW_OP_CREATE, NULL, "TZ=America/New_York 30 1 * * *", NULL,
     ZONE_REFUSED("TZ=America/New_York 30 1 * * *", "TZ=America/New_York", "12")},
    {12, 0, CW_OP_UPDATE, "0 2 * * *", BERLIN, NULL,
     ZONE_REFUSED(BERLIN, "CRON_TZ=Europe/Berlin", "12")},
    /* stored with it before (an object older than the webhook): still updatable */
    {12, 0, CW_OP_UPDATE, BERLIN, BERLIN,
     ZONE_REFUSED(BERLIN, "CRON_TZ=Europe/Berlin", "12") " (already in the stored object, not "
                                                         "blocking)",
     NULL},
    /* a cron that does not parse says only that */
    {12, 0, CW_OP_CREATE, NULL, "CRON_TZ=Nowhere/City 0 2 * * *", NULL,
     "spec.cron: invalid cron expression \"CRON_TZ=Nowhere/City 0 2 * * *\": provided bad "
     "location Nowhere/City: unknown time zone Nowhere/City"},
    {0, 0, CW_OP_CREATE, NULL, "TZ=UTC", NULL,
     "spec.cron: invalid cron expression \"TZ=UTC\": missing space after time zone prefix: "
     "TZ=UTC"},
    /* no prefix: nothing to say */
    {12, 0, CW_OP_CREATE, NULL, "0 2 * * *", NULL, NULL},
    /* the controller's copy of the policy */
    {12, 1, CW_OP_CREATE, NULL, BERLIN, NULL, NULL},
    {0, 1, CW_OP_CREATE, NULL, BERLIN, NULL, NULL},
};

static void cron_zone_prefixes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(zone_cases) / sizeof(zone_cases[0]); i++) {
        const zone_case *c = &zone_cases[i];
        char obj[256], old[256], label[128];
        snprintf(obj, sizeof(obj), RJ2("{'task':'snapshot','cron':'%s','retain':1}"), c->cron);
        if (c->old_cron)
            snprintf(old, sizeof(old), RJ2("{'task':'snapshot','cron':'%s','retain':1}"),
                     c->old_cron);
        snprintf(label, sizeof(label), "1.%d%s %s %s", c->minor, c->zone_ok ? " controller" : "",
                 cw_operation_name(c->op), c->cron);
        cw_policy_config cfg;
        assert_int_equal(cw_policy_config_init(&cfg), CW_OK);
        cfg.tzdb = &tzdb;
        cfg.longhorn_minor = c->minor;
        cfg.cron_zone_ok = c->zone_ok;
        test_policy_case(cw_recurringjob_validate, &cfg, c->op, c->old_cron ? old : NULL, obj, NULL,
                         c->warnings, c->problems, label);
        cw_policy_config_free(&cfg);
    }
    /* cw_recurringjob_check_spec (the planner's) has no warnings to give */
    cw_policy_config cfg;
    cw_strlist problems;
    assert_int_equal(cw_policy_config_init(&cfg), CW_OK);
    cfg.tzdb = &tzdb;
    cw_strlist_init(&problems);
    json_object *spec = test_parse("{'task':'snapshot','cron':'" BERLIN "'}");
    assert_int_equal(
        cw_recurringjob_check_spec(&cfg, CW_RECURRINGJOB_V1BETA2, spec, "daily", "spec", &problems),
        CW_OK);
    assert_int_equal(problems.len, 0);
    cfg.longhorn_minor = 4;
    assert_int_equal(
        cw_recurringjob_check_spec(&cfg, CW_RECURRINGJOB_V1BETA2, spec, "daily", "spec", &problems),
        CW_OK);
    test_expect_list(&problems, ZONE_REFUSED(BERLIN, "CRON_TZ=Europe/Berlin", "4"), "problems",
                     "check_spec on 1.4");
    json_object_put(spec);
    cw_strlist_free(&problems);
    cw_policy_config_free(&cfg);
}

static void every_task_is_accepted(void **state)
{
    (void)state;
    static const char *const tasks[] = {
        "snapshot", "snapshot-force-create", "snapshot-cleanup", "snapshot-delete",
        "backup",   "backup-force-create",   "filesystem-trim",  "system-backup",
    };
    for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
        char obj[256];
        snprintf(obj, sizeof(obj), RJ2("{'task':'%s','cron':'@daily'}"), tasks[i]);
        cw_policy_config cfg;
        cw_policy_config_init(&cfg);
        test_policy_case(cw_recurringjob_validate, &cfg, CW_OP_CREATE, NULL, obj, NULL, NULL, NULL,
                         tasks[i]);
        cw_policy_config_free(&cfg);
        assert_true(cw_recurringjob_task_known(tasks[i]));
    }
    assert_false(cw_recurringjob_task_known("Snapshot"));
    assert_false(cw_recurringjob_task_known(""));
    assert_false(cw_recurringjob_task_known(NULL));
    assert_true(cw_recurringjob_task_takes_parameters("backup"));
    assert_true(cw_recurringjob_task_takes_parameters("backup-force-create"));
    assert_true(cw_recurringjob_task_takes_parameters("system-backup"));
    assert_false(cw_recurringjob_task_takes_parameters("snapshot"));
    assert_false(cw_recurringjob_task_takes_parameters(NULL));
    /* The minor each task appeared in (RecurringJobType at each Longhorn tag). */
    static const int since[] = {2, 3, 3, 3, 2, 3, 5, 9};
    for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
        assert_int_equal(cw_recurringjob_task_since(tasks[i]), since[i]);
    assert_int_equal(cw_recurringjob_task_since("weird"), 0);
    assert_int_equal(cw_recurringjob_task_since(NULL), 0);
    char buf[256];
    cw_recurringjob_tasks_of(2, buf, sizeof(buf));
    assert_string_equal(buf, "snapshot, backup");
    cw_recurringjob_tasks_of(9, buf, sizeof(buf));
    assert_string_equal(buf, ALL_TASKS);
    cw_recurringjob_tasks_of(1, buf, sizeof(buf));
    assert_string_equal(buf, "");
}

/* The tasks of each release range: the RecurringJob CRD's task enum at each tag (v1.3.0-v1.3.2
 * and v1.4.0: snapshot, backup; v1.4.1 adds snapshot-cleanup and snapshot-delete; v1.3.3 and
 * v1.4.2 the force-create tasks too). */
static void tasks_of_each_release(void **state)
{
    (void)state;
    static const struct {
        int minor, patch;
        const char *tasks;
    } cases[] = {
        {3, 0, "snapshot, backup"},
        {3, 2, "snapshot, backup"},
        {3, 3,
         "snapshot, snapshot-force-create, snapshot-cleanup, snapshot-delete, backup, "
         "backup-force-create"},
        {4, 0, "snapshot, backup"},
        {4, 1, "snapshot, snapshot-cleanup, snapshot-delete, backup"},
        {4, 2,
         "snapshot, snapshot-force-create, snapshot-cleanup, snapshot-delete, backup, "
         "backup-force-create"},
        {4, -1,
         "snapshot, snapshot-force-create, snapshot-cleanup, snapshot-delete, backup, "
         "backup-force-create"},
        {8, 2,
         "snapshot, snapshot-force-create, snapshot-cleanup, snapshot-delete, backup, "
         "backup-force-create, filesystem-trim"},
        {9, 0, ALL_TASKS},
        {1, 10, ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[256];
        cw_recurringjob_tasks_of_release(cases[i].minor, cases[i].patch, buf, sizeof(buf));
        if (strcmp(buf, cases[i].tasks) != 0)
            fail_msg("1.%d.%d: %s", cases[i].minor, cases[i].patch, buf);
    }
    assert_int_equal(cw_recurringjob_task_first_patch("snapshot-cleanup", 4), 1);
    assert_int_equal(cw_recurringjob_task_first_patch("snapshot-force-create", 4), 2);
    assert_int_equal(cw_recurringjob_task_first_patch("snapshot-delete", 3), 3);
    assert_int_equal(cw_recurringjob_task_first_patch("system-backup", 8), -1);
    assert_false(cw_recurringjob_task_in("backup-force-create", 4, 1));
    assert_true(cw_recurringjob_task_in("backup-force-create", 3, 3));
    assert_false(cw_recurringjob_task_in("nap", 9, 0));
    /* The webhook with --longhorn-version=1.4.0 */
    cw_policy_config cfg;
    cw_policy_config_init(&cfg);
    cfg.longhorn_minor = 4;
    cfg.longhorn_patch = 0;
    test_policy_case(cw_recurringjob_validate, &cfg, CW_OP_CREATE, NULL,
                     RJ2("{'task':'snapshot-delete','cron':'@daily'}"), NULL, NULL,
                     "spec.task: \"snapshot-delete\" is a task of Longhorn 1.4 from 1.4.1; the "
                     "cluster runs an earlier 1.4 release, whose manager has snapshot, backup",
                     "1.4.0 snapshot-delete");
    cw_policy_config_free(&cfg);
}

static void retain_rule(void **state)
{
    (void)state;
    static const struct {
        const char *task;
        int64_t in, want;
    } cases[] = {
        {"snapshot-cleanup", 5, 0}, {"snapshot-cleanup", -1, 0}, {"filesystem-trim", 3, 0},
        {"snapshot-delete", -2, 0}, {"snapshot-delete", 0, 0},   {"snapshot-delete", 7, 7},
        {"snapshot", 0, 1},         {"snapshot", -9, 1},         {"backup", 100, 100},
        {"system-backup", 0, 1},    {"unknown", 0, 1},           {NULL, 0, 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_int_equal(cw_recurringjob_default_retain(cases[i].task, cases[i].in), cases[i].want);
    cw_recurringjob_version v;
    assert_int_equal(cw_recurringjob_version_parse("longhorn.io/v1beta1", &v), CW_OK);
    assert_int_equal(v, CW_RECURRINGJOB_V1BETA1);
    assert_int_equal(cw_recurringjob_version_parse(NULL, &v), CW_OK);
    assert_int_equal(v, CW_RECURRINGJOB_V1BETA2);
    assert_int_equal(cw_recurringjob_version_parse("v1beta2", &v), CW_EINVAL);
}

static void legacy_jobs(void **state)
{
    (void)state;
    static const struct {
        const char *job, *problems;
    } cases[] = {
        {"{'name':'a','task':'snapshot','cron':'*/5 * * * *','retain':3,'labels':{'k':'v'}}", NULL},
        {"{'task':'backup','cron':'0 0 * * *','retain':1,'labels':null}", NULL},
        {"'x'", "spec.recurringJobs[0]: expected object, got string"},
        {"{'task':'backup','cron':'0 0 * * *'}", "spec.recurringJobs[0].retain: must be set (at "
                                                 "least 1)"},
        {"{'task':'snap','cron':'','retain':0,'labels':[]}",
         "spec.recurringJobs[0].task: unknown task \"snap\" (expected one of " ALL_TASKS ")\n"
         "spec.recurringJobs[0].cron: must not be empty\n"
         "spec.recurringJobs[0].retain: must be at least 1, got 0\n"
         "spec.recurringJobs[0].labels: expected object, got array"},
        {"{'name':5,'task':'backup','cron':'0 0 * * * *','retain':500,'labels':{'k':''}}",
         "spec.recurringJobs[0].name: expected string, got integer\n"
         "spec.recurringJobs[0].cron: invalid cron expression \"0 0 * * * *\": expected exactly 5 "
         "fields, found 6: [0 0 * * * *]\n"
         "spec.recurringJobs[0].retain: 500 exceeds the maximum of 100 (Longhorn setting "
         "recurring-job-max-retention)\n"
         "spec.recurringJobs[0].labels[k]: value must not be empty"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_policy_config cfg;
        cw_strlist problems;
        cw_policy_config_init(&cfg);
        cw_strlist_init(&problems);
        json_object *job = test_parse(cases[i].job);
        assert_int_equal(
            cw_recurringjob_check_legacy(&cfg, job, "spec.recurringJobs[0]", &problems), CW_OK);
        test_expect_list(&problems, cases[i].problems, "problems", cases[i].job);
        json_object_put(job);
        cw_strlist_free(&problems);
        cw_policy_config_free(&cfg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaulting),
        cmocka_unit_test(validation),
        cmocka_unit_test(every_task_is_accepted),
        cmocka_unit_test(tasks_of_the_clusters_minor),
        cmocka_unit_test(tasks_of_each_release),
        cmocka_unit_test(parameters_of_each_release),
        cmocka_unit_test(retain_rule),
        cmocka_unit_test(legacy_jobs),
        cmocka_unit_test(cron_zone_prefixes),
    };
    return cmocka_run_group_tests(tests, tzdb_setup, tzdb_teardown);
}
