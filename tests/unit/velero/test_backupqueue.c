/* The backup queue's decision (velero/backupqueue.c) and namespace resolution
 * (velero/backupqueue_ns.c): tables of real cases compared exactly, the seed's worked example
 * (seed 002: five Backups, concurrency 2) played through to the end with every intermediate
 * position, and every case replayed with its writes applied: deciding again writes nothing. */
#include "tests/unit/controller/ctrl_test.h"

#include "velero/backupqueue.h"
#include "velero/backupqueue_ns.h"

/* A Backup: name, phase ("" for none), queuePosition (-1: absent), creation second, spec. */
#define BK(name, phase, pos, sec, spec)                                                            \
    "{'apiVersion':'velero.io/v1','kind':'Backup','metadata':{'name':'" name                       \
    "','namespace':'velero','uid':'u-" name "','resourceVersion':'7',"                             \
    "'creationTimestamp':'2026-01-01T00:00:" sec "Z'},'spec':" spec ",'status':{'phase':'" phase   \
    "'" pos "}}"
#define P(n)     ",'queuePosition':" #n
#define NOPOS    ""
#define INC(...) "{'includedNamespaces':[" __VA_ARGS__ "]}"
#define ALL      "{}"
#define LIVE     "ns1,ns2,ns3,ns4,ns5,ns6,ns7,ns8,ns9,app-a,app-b,app-c,db-1,db-2,kube-system"
#define NOW      "2026-01-01T00:01:40Z" /* 100 s after second 0 */

/* "a,b,c" into a list (NULL or "": empty). */
static void split(const char *csv, cw_strlist *out)
{
    cw_strlist_init(out);
    if (!csv || !*csv)
        return;
    char *copy = strdup(csv), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        assert_int_equal(cw_strlist_add(out, t), CW_OK);
    cw_strlist_sort(out);
    free(copy);
}

/* ---- patterns ---- */

static void glob_table(void **state)
{
    (void)state;
    static const struct {
        const char *pattern, *name;
        int match;
    } cases[] = {
        {"*", "anything", 1},    {"*", "", 1},
        {"app-*", "app-a", 1},   {"app-*", "app-", 1},
        {"app-*", "ap", 0},      {"*-a", "app-a", 1},
        {"*-a", "app-b", 0},     {"a*b*c", "axxbyyc", 1},
        {"a*b*c", "axxbyy", 0},  {"a*c", "abcbc", 1},
        {"db-?", "db-1", 1},     {"db-?", "db-10", 0},
        {"db-?", "db-", 0},      {"db-[12]", "db-2", 1},
        {"db-[12]", "db-3", 0},  {"db-[1-3]", "db-3", 1},
        {"db-[1-3]", "db-4", 0}, {"[ab]pp-*", "bpp-x", 1},
        {"ns1", "ns1", 1},       {"ns1", "ns10", 0},
        {"*[0-9]", "ns7", 1},    {"*[0-9]", "kube-system", 0},
    };
    for (size_t i = 0; i < N(cases); i++)
        if (cw_bq_glob_match(cases[i].pattern, cases[i].name) != cases[i].match)
            fail_msg("glob %s against %s: want %d", cases[i].pattern, cases[i].name,
                     cases[i].match);
}

static void refused_patterns(void **state)
{
    (void)state;
    static const char *const refused[] = {"**",   "app-**",  "a|b",  "(ns)", "{a,b}",
                                          "!ns1", "ns1,ns2", "ns[1", "ns[]", "a)"};
    static const char *const accepted[] = {"*",       "ns1",      "app-*", "db-?",
                                           "db-[12]", "db-[1-3]", "*-a*"};
    for (size_t i = 0; i < N(refused); i++)
        if (!cw_bq_pattern_refused(refused[i]))
            fail_msg("%s should be refused", refused[i]);
    for (size_t i = 0; i < N(accepted); i++)
        if (cw_bq_pattern_refused(accepted[i]))
            fail_msg("%s should be accepted", accepted[i]);
}

static void namespaces_table(void **state)
{
    (void)state;
    static const struct {
        const char *label, *spec, *want;
        int refused;
    } cases[] = {
        {"no includes: every live namespace", "{}", LIVE, 0},
        {"an empty include list: every live namespace", "{'includedNamespaces':[]}", LIVE, 0},
        {"'*': every live namespace", "{'includedNamespaces':['*']}", LIVE, 0},
        {"'*' among names still means all", "{'includedNamespaces':['ns1','*']}", LIVE, 0},
        {"plain names, live or not (a namespace created later is still the Backup's)",
         "{'includedNamespaces':['ns2','ns1','later']}", "later,ns1,ns2", 0},
        {"wildcard includes expand against live namespaces only",
         "{'includedNamespaces':['app-*','db-?','nothing-*']}", "app-a,app-b,app-c,db-1,db-2", 0},
        {"character classes and ranges", "{'includedNamespaces':['db-[2]','ns[13-4]']}",
         "db-2,ns1,ns3,ns4", 0},
        {"two patterns matching the same namespace: once", "{'includedNamespaces':['app-*','*-a']}",
         "app-a,app-b,app-c", 0},
        {"excludes take away from all",
         "{'excludedNamespaces':['kube-system','ns*','app-[ab]','db-?']}", "app-c", 0},
        {"excludes take away from plain includes",
         "{'includedNamespaces':['ns1','ns2'],"
         "'excludedNamespaces':['ns2']}",
         "ns1", 0},
        {"excludes take away from wildcard includes",
         "{'includedNamespaces':['app-*'],'excludedNamespaces':['*-b']}", "app-a,app-c", 0},
        {"a refused include: no namespace at all", "{'includedNamespaces':['ns1','app-**']}", "",
         1},
        {"a refused exclude: no namespace at all",
         "{'includedNamespaces':['ns1'],'excludedNamespaces':['{ns2,ns3}']}", "", 1},
        {"a comma inside a name is refused", "{'includedNamespaces':['ns1,ns2']}", "", 1},
        {"includes that are not a list of strings", "{'includedNamespaces':'ns1'}", "", 1},
        {"excludes with a number", "{'excludedNamespaces':[1]}", "", 1},
    };
    cw_strlist live;
    split(LIVE, &live);
    for (size_t i = 0; i < N(cases); i++) {
        json_object *b = tjson("{'metadata':{'name':'b'}}");
        json_object_object_add(b, "spec", tjson(cases[i].spec));
        cw_strlist got, want;
        char why[160];
        cw_error err;
        cw_strlist_init(&got);
        split(cases[i].want, &want);
        assert_int_equal(cw_bq_backup_namespaces(b, &live, &got, why, sizeof(why), &err), CW_OK);
        char *g = cw_strlist_join(&got, ","), *w = cw_strlist_join(&want, ",");
        if (strcmp(g, w) || (*why != 0) != cases[i].refused)
            fail_msg("%s\n got: %s (refused: %s)\nwant: %s", cases[i].label, g, why, w);
        free(g);
        free(w);
        cw_strlist_free(&got);
        cw_strlist_free(&want);
        json_object_put(b);
    }
    cw_strlist_free(&live);
}

/* ---- the decision ---- */

/* "dequeue b5 0; renumber b4 3; enqueue b6 4" */
static char *writes_of(const cw_bqctl_actions *a)
{
    cw_strlist l;
    cw_strlist_init(&l);
    for (size_t i = 0; i < a->nwrites; i++)
        cw_strlist_addf(&l, "%s %s %lld", cw_bqctl_kind_name(a->writes[i].kind), a->writes[i].name,
                        (long long)a->writes[i].position);
    char *s = cw_strlist_join(&l, "; ");
    cw_strlist_free(&l);
    return s;
}

/* "b3<b2@ns3; b4<b2@ns5": who waits for whom, and a namespace they share. */
static char *waits_of(const cw_bqctl_actions *a)
{
    cw_strlist l;
    cw_strlist_init(&l);
    for (size_t i = 0; i < a->nwaits; i++)
        cw_strlist_addf(&l, "%s<%s@%s", a->waits[i].name, a->waits[i].blocker,
                        a->waits[i].namespace);
    char *s = cw_strlist_join(&l, "; ");
    cw_strlist_free(&l);
    return s;
}

static json_object *find(json_object *backups, const char *name)
{
    for (size_t i = 0; i < json_object_array_length(backups); i++) {
        json_object *b = json_object_array_get_idx(backups, i);
        if (!strcmp(cw_json_path_string(b, "metadata.name"), name))
            return b;
    }
    fail_msg("no Backup %s", name);
    return NULL;
}

/* Applies the writes as the apiserver would (merge patch of status; a new resourceVersion). */
static void apply(json_object *backups, const cw_bqctl_actions *a)
{
    for (size_t i = 0; i < a->nwrites; i++) {
        json_object *b = find(backups, a->writes[i].name);
        json_object *status = cw_json_member(b, "status");
        assert_string_equal(cw_json_path_string(b, "metadata.resourceVersion"),
                            a->writes[i].resource_version);
        json_object *patch = NULL;
        cw_error err;
        assert_int_equal(cw_bqctl_write_patch(&a->writes[i], &patch, &err), CW_OK);
        json_object_object_foreach(cw_json_member(patch, "status"), k, v)
            json_object_object_add(status, k, json_object_get(v));
        json_object_put(patch);
        json_object_object_add(cw_json_member(b, "metadata"), "resourceVersion",
                               json_object_new_string("8"));
    }
}

static void set_phase(json_object *backups, const char *name, const char *phase)
{
    json_object *status = cw_json_member(find(backups, name), "status");
    json_object_object_add(status, "phase", json_object_new_string(phase));
    json_object_object_del(status, "queuePosition");
}

/* Decides; the writes, waits and counts must be exactly these. */
static void expect_decision(json_object *backups, const char *live, int64_t concurrency,
                            const char *writes, const char *waits, size_t queued, size_t running,
                            const char *label, cw_bqctl_actions *out)
{
    cw_strlist ns;
    cw_error err;
    cw_bqctl_config cfg = {.concurrency = concurrency};
    split(live, &ns);
    cw_bqctl_actions_init(out);
    if (cw_bqctl_decide(backups, &ns, &cfg, ttime(NOW) * 1000, out, &err) != CW_OK)
        fail_msg("%s: %s", label, err.message);
    char *w = writes_of(out), *x = waits_of(out);
    if (strcmp(w, writes) || strcmp(x, waits) || out->queued != queued || out->running != running)
        fail_msg("%s\n got writes: %s\nwant writes: %s\n got waits: %s\nwant waits: %s\n"
                 " got queued %zu running %zu, want %zu %zu",
                 label, w, writes, x, waits, out->queued, out->running, queued, running);
    free(w);
    free(x);
    cw_strlist_free(&ns);
}

static const struct {
    const char *label;
    int64_t concurrency;
    const char *backups; /* a JSON array */
    const char *writes, *waits;
    size_t queued, running;
} cases[] = {
    /* ---- New -> Queued ---- */
    {"no phase and New are queued after the last position, in creation order", 1,
     "[" BK("late", "", NOPOS, "30", INC("'ns3'")) "," BK(
         "early", "New", NOPOS, "10", INC("'ns4'")) "," BK("q1", "Queued", P(1), "00",
                                                           INC("'ns1'")) "," BK("run", "InProgress",
                                                                                NOPOS, "00",
                                                                                INC("'ns1'")) "]",
     "enqueue early 2; enqueue late 3", "q1<run@ns1", 3, 1},
    {"an empty queue starts at 1; two created in the same second: by name", 1,
     "[" BK("b", "", NOPOS, "05", ALL) "," BK("a", "", NOPOS, "05", ALL) "]",
     "enqueue a 1; enqueue b 2", "", 2, 0},
    {"a new Backup is never dequeued in the same decision (Queued first, its own Event)", 3,
     "[" BK("a", "", NOPOS, "05", INC("'ns1'")) "]", "enqueue a 1", "", 1, 0},
    /* ---- the concurrency limit ---- */
    {"a free slot: the head of the queue starts", 1,
     "[" BK("a", "Queued", P(1), "01", INC("'ns1'")) "," BK("b", "Queued", P(2), "02",
                                                            INC("'ns2'")) "]",
     "dequeue a 0; renumber b 1", "", 1, 1},
    {"InProgress and ReadyToStart both count as running: no slot", 2,
     "[" BK("r1", "InProgress", NOPOS, "00",
            INC("'ns8'")) "," BK("r2", "ReadyToStart", NOPOS, "00",
                                 INC("'ns9'")) "," BK("a", "Queued", P(1), "01", INC("'ns1'")) "]",
     "", "", 1, 2},
    {"finished phases do not count", 1,
     "[" BK("c", "Completed", NOPOS, "00", ALL) "," BK("f", "Failed", NOPOS, "00", ALL) "," BK(
         "p", "PartiallyFailed", NOPOS, "00",
         ALL) "," BK("w", "WaitingForPluginOperations", NOPOS, "00",
                     ALL) "," BK("z", "Finalizing", NOPOS, "00",
                                 ALL) "," BK("v", "FailedValidation", NOPOS, "00",
                                             ALL) "," BK("a", "Queued", P(1), "01", ALL) "]",
     "dequeue a 0", "", 0, 1},
    {"several free slots: several start in one decision, in order", 3,
     "[" BK("a", "Queued", P(1), "01", INC("'ns1'")) "," BK(
         "b", "Queued", P(2), "02",
         INC("'ns2'")) "," BK("c", "Queued", P(3), "03",
                              INC("'ns3'")) "," BK("d", "Queued", P(4), "04", INC("'ns4'")) "]",
     "dequeue a 0; dequeue b 0; dequeue c 0; renumber d 1", "", 1, 3},
    {"one slot, two runnable: the one ahead by position goes, not the older one (no Backup "
     "ahead of the released one is itself runnable)",
     1,
     "[" BK("old", "Queued", P(2), "01", INC("'ns1'")) "," BK("ahead", "Queued", P(1), "09",
                                                              INC("'ns2'")) "]",
     "dequeue ahead 0; renumber old 1", "", 1, 1},
    {"concurrency below 1 counts as 1", 0,
     "[" BK("a", "Queued", P(1), "01", INC("'ns1'")) "," BK("b", "Queued", P(2), "02",
                                                            INC("'ns2'")) "]",
     "dequeue a 0; renumber b 1", "", 1, 1},
    /* ---- overlap ---- */
    {"overlap with a running Backup holds it; one behind it that does not overlap starts", 2,
     "[" BK("r", "InProgress", NOPOS, "00", INC("'ns1'")) "," BK(
         "a", "Queued", P(1), "01", INC("'ns1','ns2'")) "," BK("b", "Queued", P(2), "02",
                                                               INC("'ns3'")) "]",
     "dequeue b 0", "a<r@ns1", 1, 2},
    {"overlap with a queued Backup ahead holds it too", 3,
     "[" BK("r", "InProgress", NOPOS, "00", INC("'ns1'")) "," BK(
         "a", "Queued", P(1), "01", INC("'ns1','ns2'")) "," BK("b", "Queued", P(2), "02",
                                                               INC("'ns2'")) "]",
     "", "a<r@ns1; b<a@ns2", 2, 1},
    {"an all-namespace Backup running holds everything", 3,
     "[" BK("r", "InProgress", NOPOS, "00",
            ALL) "," BK("a", "Queued", P(1), "01", INC("'ns1'")) "," BK("b", "Queued", P(2), "02",
                                                                        INC("'db-*'")) "]",
     "", "a<r@ns1; b<r@db-1", 2, 1},
    {"an all-namespace Backup queued waits for the running one and holds those behind it", 3,
     "[" BK("r", "InProgress", NOPOS, "00", INC("'ns1'")) "," BK(
         "all", "Queued", P(1), "01", ALL) "," BK("b", "Queued", P(2), "02", INC("'ns5'")) "]",
     "", "all<r@ns1; b<all@ns5", 2, 1},
    {"the blocker named is the earliest: running before queued", 3,
     "[" BK("q", "Queued", P(1), "01", INC("'ns2'")) "," BK(
         "r", "InProgress", NOPOS, "00", INC("'ns3'")) "," BK("b", "Queued", P(2), "02",
                                                              INC("'ns2','ns3'")) "]",
     "dequeue q 0; renumber b 1", "b<r@ns3", 1, 2},
    {"wildcards overlap through the live namespaces they match", 2,
     "[" BK("r", "InProgress", NOPOS, "00", INC("'app-*'")) "," BK(
         "a", "Queued", P(1), "01", INC("'*-b'")) "," BK("b", "Queued", P(2), "02",
                                                         INC("'db-?'")) "]",
     "dequeue b 0", "a<r@app-b", 1, 2},
    {"excludes remove the overlap", 2,
     "[" BK("r", "InProgress", NOPOS, "00", INC("'app-*'")) "," BK(
         "a", "Queued", P(1), "01", "{'excludedNamespaces':['app-*']}") "]",
     "dequeue a 0", "", 0, 2},
    {"a refused pattern covers no namespace: no conflict, it starts when a slot is free", 2,
     "[" BK("r", "InProgress", NOPOS, "00", ALL) "," BK("bad", "Queued", P(1), "01",
                                                        INC("'ns**'")) "]",
     "dequeue bad 0", "", 0, 2},
    {"a wildcard that matches nothing overlaps nothing", 2,
     "[" BK("r", "InProgress", NOPOS, "00", ALL) "," BK("none", "Queued", P(1), "01",
                                                        INC("'zz-*'")) "]",
     "dequeue none 0", "", 0, 2},
    /* ---- numbering ---- */
    {"a gap (a crash between the dequeue and the renumbering) is closed", 1,
     "[" BK("r", "ReadyToStart", NOPOS, "00",
            ALL) "," BK("a", "Queued", P(2), "01", ALL) "," BK("b", "Queued", P(3), "02", ALL) "]",
     "renumber a 1; renumber b 2", "a<r@app-a; b<r@app-a", 2, 1},
    {"duplicates are ordered by creation, then name, and renumbered", 1,
     "[" BK("r", "InProgress", NOPOS, "00", ALL) "," BK(
         "x", "Queued", P(1), "03",
         INC("'ns1'")) "," BK("y", "Queued", P(1), "02",
                              INC("'ns2'")) "," BK("z", "Queued", P(2), "01", INC("'ns3'")) "]",
     "renumber x 2; renumber z 3", "y<r@ns2; x<r@ns1; z<r@ns3", 3, 1},
    {"a Queued Backup without a position goes last", 1,
     "[" BK("r", "InProgress", NOPOS, "00",
            ALL) "," BK("n", "Queued", NOPOS, "00", INC("'ns1'")) "," BK("a", "Queued", P(1), "05",
                                                                         INC("'ns2'")) "]",
     "renumber n 2", "a<r@ns2; n<r@ns1", 2, 1},
    {"a queue in order writes nothing", 1,
     "[" BK("r", "InProgress", NOPOS, "00",
            INC("'ns1'")) "," BK("a", "Queued", P(1), "01",
                                 INC("'ns2'")) "," BK("b", "Queued", P(2), "02", INC("'ns3'")) "]",
     "", "", 2, 1},
    {"renumbering writes only the positions that change", 1,
     "[" BK("a", "Queued", P(1), "01",
            INC("'ns1'")) "," BK("b", "Queued", P(2), "02",
                                 INC("'ns1'")) "," BK("c", "Queued", P(3), "03", INC("'ns2'")) "]",
     "dequeue a 0; renumber b 1; renumber c 2", "b<a@ns1", 2, 1},
    {"nothing at all", 1, "[]", "", "", 0, 0},
};

static void decide_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(cases); i++) {
        json_object *backups = tjson(cases[i].backups);
        cw_bqctl_actions a, again;
        expect_decision(backups, LIVE, cases[i].concurrency, cases[i].writes, cases[i].waits,
                        cases[i].queued, cases[i].running, cases[i].label, &a);
        /* Replayed with its writes applied: nothing more to write, the same counts; a Backup
         * the first decision queued may start now (its Queued came first), never queue twice. */
        apply(backups, &a);
        cw_strlist ns;
        cw_error err;
        cw_bqctl_config cfg = {.concurrency = cases[i].concurrency};
        split(LIVE, &ns);
        cw_bqctl_actions_init(&again);
        assert_int_equal(cw_bqctl_decide(backups, &ns, &cfg, ttime(NOW) * 1000, &again, &err),
                         CW_OK);
        int enqueued = 0;
        for (size_t k = 0; k < a.nwrites; k++)
            enqueued |= a.writes[k].kind == CW_BQCTL_ENQUEUE;
        int more = enqueued ? 0 : again.nwrites != 0;
        for (size_t k = 0; k < again.nwrites; k++)
            more |= again.writes[k].kind == CW_BQCTL_ENQUEUE;
        if (more || (!enqueued && (again.queued != a.queued || again.running != a.running))) {
            char *w = writes_of(&again);
            fail_msg("%s: deciding again wrote %s", cases[i].label, w);
        }
        cw_bqctl_actions_free(&again);
        cw_bqctl_actions_free(&a);
        cw_strlist_free(&ns);
        json_object_put(backups);
    }
}

static void patches_and_waits(void **state)
{
    (void)state;
    json_object *backups = tjson("[" BK("a", "Queued", P(1), "00", INC("'ns1'")) "," BK(
        "b", "Queued", P(2), "10", INC("'ns1'")) "," BK("c", "", NOPOS, "20", ALL) "]");
    cw_bqctl_actions a;
    expect_decision(backups, LIVE, 1, "dequeue a 0; renumber b 1; enqueue c 2", "b<a@ns1", 2, 1,
                    "patches", &a);
    assert_int_equal(a.ndequeues, 1);
    json_object *p[3];
    cw_error err;
    for (int i = 0; i < 3; i++)
        assert_int_equal(cw_bqctl_write_patch(&a.writes[i], &p[i], &err), CW_OK);
    expect_json(p[0],
                "{'metadata':{'resourceVersion':'7'},'status':{'phase':'ReadyToStart',"
                "'queuePosition':0}}",
                "dequeue patch", "patches");
    expect_json(p[1], "{'metadata':{'resourceVersion':'7'},'status':{'queuePosition':1}}",
                "renumber patch", "patches");
    expect_json(p[2],
                "{'metadata':{'resourceVersion':'7'},'status':{'phase':'Queued',"
                "'queuePosition':2}}",
                "enqueue patch", "patches");
    assert_int_equal((long long)a.writes[0].waited, 100); /* NOW - creation */
    assert_int_equal(a.writes[1].old_position, 2);
    for (int i = 0; i < 3; i++)
        json_object_put(p[i]);
    cw_bqctl_actions_free(&a);
    json_object_put(backups);

    cw_bqctl_config cfg = {.concurrency = 1};
    json_object *nameless = tjson("[{'metadata':{},'status':{'phase':'Queued'}}]");
    cw_bqctl_actions_init(&a);
    assert_int_equal(cw_bqctl_decide(nameless, NULL, &cfg, 0, &a, &err), CW_EINVAL);
    assert_string_equal(err.message, "a Backup without metadata.name");
    cw_bqctl_actions_free(&a);
    json_object_put(nameless);
}

/* Seed 002's worked example, concurrency 2, played to the end: the test completes Backups as
 * Velero would and checks every decision. The seed lists backup3 and backup4 both at position 2
 * (a duplicate, as left by Velero); they keep their creation order. */
static void worked_example(void **state)
{
    (void)state;
    json_object *q = tjson("[" BK("backup1", "InProgress", NOPOS, "01", INC("'ns1','ns2'")) "," BK(
        "backup2", "Queued", P(1), "02",
        INC("'ns2','ns3','ns5'")) "," BK("backup3", "Queued", P(2), "03",
                                         INC("'ns4','ns3'")) "," BK("backup4", "Queued", P(2), "04",
                                                                    INC("'ns5','ns6'")) "," BK("bac"
                                                                                               "kup"
                                                                                               "5",
                                                                                               "Que"
                                                                                               "ue"
                                                                                               "d",
                                                                                               P(3),
                                                                                               "05",
                                                                                               INC("'ns8','ns9'")) "]");
    static const struct {
        const char *complete; /* the Backup Velero finishes before the decision (NULL: none) */
        const char *writes, *waits;
        size_t queued, running;
        const char *positions; /* backup2..backup5 after the writes: Queued positions or a phase */
    } steps[] = {
        /* backup2 overlaps running backup1 (ns2); backup3 and backup4 overlap queued backup2
         * (ns3, ns5); backup5 overlaps nothing: it runs. */
        {NULL, "dequeue backup5 0; renumber backup4 3",
         "backup2<backup1@ns2; backup3<backup2@ns3; backup4<backup2@ns5", 3, 2,
         "1,2,3,ReadyToStart"},
        /* Velero starts backup5; nothing else changed: nothing written */
        {NULL, "", "backup2<backup1@ns2; backup3<backup2@ns3; backup4<backup2@ns5", 3, 2,
         "1,2,3,InProgress"},
        /* backup1 completes: backup2 is free and runs. */
        {"backup1", "dequeue backup2 0; renumber backup3 1; renumber backup4 2",
         "backup3<backup2@ns3; backup4<backup2@ns5", 2, 2, "ReadyToStart,1,2,InProgress"},
        /* backup5 completes: a slot, but backup3 and backup4 still overlap running backup2. */
        {"backup5", "", "backup3<backup2@ns3; backup4<backup2@ns5", 2, 1,
         "InProgress,1,2,Completed"},
        /* backup2 completes: backup3 and backup4 do not overlap each other: both run. */
        {"backup2", "dequeue backup3 0; dequeue backup4 0", "", 0, 2,
         "Completed,ReadyToStart,ReadyToStart,Completed"},
    };
    static const char *const names[] = {"backup2", "backup3", "backup4", "backup5"};
    for (size_t i = 0; i < N(steps); i++) {
        char label[64];
        snprintf(label, sizeof(label), "worked example, step %zu", i + 1);
        /* Velero's backup controller: ReadyToStart -> InProgress, then the completion. */
        for (size_t k = 0; k < N(names); k++) {
            const char *phase = cw_json_path_string(find(q, names[k]), "status.phase");
            if (!strcmp(phase, "ReadyToStart"))
                set_phase(q, names[k], "InProgress");
        }
        if (steps[i].complete)
            set_phase(q, steps[i].complete, "Completed");
        cw_bqctl_actions a;
        expect_decision(q, LIVE, 2, steps[i].writes, steps[i].waits, steps[i].queued,
                        steps[i].running, label, &a);
        apply(q, &a);
        cw_bqctl_actions_free(&a);
        cw_strlist got;
        cw_strlist_init(&got);
        for (size_t k = 0; k < N(names); k++) {
            json_object *b = find(q, names[k]);
            const char *phase = cw_json_path_string(b, "status.phase");
            if (!strcmp(phase, "Queued"))
                cw_strlist_addf(&got, "%d",
                                json_object_get_int(cw_json_path(b, "status.queuePosition")));
            else
                cw_strlist_add(&got, phase);
        }
        char *g = cw_strlist_join(&got, ",");
        if (strcmp(g, steps[i].positions))
            fail_msg("%s: positions %s, want %s", label, g, steps[i].positions);
        free(g);
        cw_strlist_free(&got);
    }
    json_object_put(q);
}

static void phases(void **state)
{
    (void)state;
    assert_true(cw_bqctl_new(NULL));
    assert_true(cw_bqctl_new(""));
    assert_true(cw_bqctl_new("New"));
    assert_false(cw_bqctl_new("Queued"));
    assert_true(cw_bqctl_running("InProgress"));
    assert_true(cw_bqctl_running("ReadyToStart"));
    assert_false(cw_bqctl_running("Queued"));
    assert_false(cw_bqctl_running("WaitingForPluginOperations"));
    assert_false(cw_bqctl_running(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(glob_table),
        cmocka_unit_test(refused_patterns),
        cmocka_unit_test(namespaces_table),
        cmocka_unit_test(decide_table),
        cmocka_unit_test(patches_and_waits),
        cmocka_unit_test(worked_example),
        cmocka_unit_test(phases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
