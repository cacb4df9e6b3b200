/* The one reconciler shell (controller/core/shell.c), with a toy reconciler of ConfigMaps whose
 * data says what to write: the mapping of every API answer to an outcome (409 decided again after
 * conflict_ms, 404 gone, 403 a Warning Event once and the forbidden metric, 429/500 retried,
 * a refused object waiting), the writes counter, standing down, a resource the server does not
 * serve (named by /readyz), and the write-war guard (another writer undoing a write more than
 * three times: held, one Event naming it, the metric; the count starts over for new content). */
#include "shell_test.h"

#include "controller/core/writewar.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* ---- the toy: data.do is "patch", "update" (guarded), "refuse" or "nothing" ---- */

static int toy_reconcile(cw_shell *s, const char *key, cw_verdict *res, cw_error *err)
{
    json_object *cm = NULL, *live = NULL, *out = NULL;
    int rc = cw_ctrl_store_get(cw_shell_store(s, 0), key, &cm);
    if (rc != CW_OK)
        return rc;
    const char *what = cw_json_path_string(cm, "data.do");
    const char *name = cw_json_path_string(cm, "metadata.name");
    cw_kube_resource r = cw_shell_resource(s, 0, cw_json_path_string(cm, "metadata.namespace"));
    json_object *want = tjson("{'data':{'do':'update','v':'ours'}}");
    /* The outcome outlives cm: a literal, not what points into it. */
    static const char *const outcomes[] = {"patch", "update", "refuse", "nothing"};
    for (size_t i = 0; i < N(outcomes); i++)
        if (!strcmp(what, outcomes[i]))
            cw_verdict_done(res, outcomes[i]);
    if (!strcmp(what, "patch")) {
        rc = cw_shell_patch(s, "patch_cm", cm, &r, name, want, err);
    } else if (!strcmp(what, "update")) {
        if ((rc = cw_kube_get(s->env.kube, &r, name, &live, err)) == CW_OK &&
            (rc = cw_shell_war_check(s, &r, live, want, err)) == CW_OK &&
            (rc = cw_shell_update(s, "update_cm", cm, &r, name, want, &out, err)) == CW_OK)
            cw_shell_war_wrote(s, &r, out, want);
    } else if (!strcmp(what, "refuse")) {
        rc = cw_error_set(err, CW_EINVAL, "data.do: refused");
    }
    json_object_put(cm);
    json_object_put(live);
    json_object_put(out);
    json_object_put(want);
    return rc;
}

static const cw_reconciler_config toy_config = {.home = "ns"};

static const cw_informer_def toy_informers[] = {
    {.name = "configmaps", .group = "", .version = "v1", .resource = "configmaps"},
};

static const cw_reconciler_ops toy = {
    .name = "toy-maps",
    .object = "ConfigMap",
    .verbs = "patch_cm, update_cm",
    .informers = toy_informers,
    .ninformers = 1,
    .reconcile = toy_reconcile,
    .conflict_ms = 250,
};

#define CM(name, what)                                                                             \
    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" name                 \
    "\",\"namespace\":\"ns\",\"uid\":\"u-" name "\",\"resourceVersion\":\"1\"},\"data\":{\"do\":"  \
    "\"" what "\"}}"
#define CMS   "GET /api/v1/namespaces/ns/configmaps 200 " LIST(CM("p", "patch") "," CM("r", "refuse"))
#define PATCH "PATCH /api/v1/namespaces/ns/configmaps/p?fieldManager=cronwarden "
#define EVENT "POST /api/v1/namespaces/ns/events 201 {}"
#define WRITES(verb, result)                                                                       \
    "cronwarden_controller_toymaps_writes_total{verb=\"" verb "\",result=\"" result "\"}"

static const char *const answers[] = {
    CMS,
    PATCH "200 {}",
    PATCH "409 " STATUS(409, "Conflict"),
    PATCH "404 " STATUS(404, "NotFound"),
    PATCH "403 " STATUS(403, "Forbidden"),
    EVENT, /* WriteForbidden on the ConfigMap, once */
    PATCH "403 " STATUS(403, "Forbidden"),
    PATCH "429 " STATUS(429, "TooManyRequests"),
    PATCH "500 " STATUS(500, "InternalError"),
    /* standing down: nothing is sent; after resume: */
    PATCH "200 {}",
};

static void maps_every_answer_to_one_outcome(void **state)
{
    (void)state;
    shell_fixture f;
    cw_error err;
    cw_error_init(&err);
    shell_start(&f, &toy, &toy_config, answers, N(answers));
    shell_reconcile(&f, "ns/p", "patch", -1, 0, 1, "200: done");
    shell_reconcile(&f, "ns/p", "conflict", 250, 0, 1, "409: decided again after conflict_ms");
    shell_reconcile(&f, "ns/p", "deleted", -1, 0, 1, "404: gone, its watch event says more");
    shell_reconcile(&f, "ns/p", "error", -1, 1, 2, "403: retried, a Warning Event");
    shell_reconcile(&f, "ns/p", "error", -1, 1, 1, "403 again: retried, no second Event");
    shell_reconcile(&f, "ns/p", "error", -1, 1, 1, "429 (the client's retries spent): retried");
    shell_reconcile(&f, "ns/p", "error", -1, 1, 1, "500: retried");
    shell_reconcile(&f, "ns/r", "error", -1, 0, 0, "refused by its decision: waits for a change");
    cw_shell_stand_down(f.shell, "unknown_version", "the test says so (--force overrides)");
    assert_int_equal(shell_metric(&f, "cronwarden_controller_standing_down{controller=\"toy-maps\","
                                      "reason=\"unknown_version\"}"),
                     1);
    shell_reconcile(&f, "ns/p", "standing_down", -1, 0, 0, "standing down: no request");
    json_object *cm = tjson(CM("p", "patch"));
    cw_kube_resource r = cw_shell_resource(f.shell, 0, "ns");
    assert_int_equal(cw_shell_patch(f.shell, "patch_cm", cm, &r, "p", cm, &err), CW_EDEFER);
    json_object_put(cm);
    cw_shell_resume(f.shell);
    assert_int_equal(shell_metric(&f, "cronwarden_controller_standing_down{controller=\"toy-maps\","
                                      "reason=\"unknown_version\"}"),
                     0);
    shell_reconcile(&f, "ns/p", "patch", -1, 0, 1, "writing again");
    assert_int_equal(shell_metric(&f, WRITES("patch_cm", "ok")), 2);
    assert_int_equal(shell_metric(&f, WRITES("patch_cm", "conflict")), 1);
    assert_int_equal(shell_metric(&f, WRITES("patch_cm", "not_found")), 1);
    assert_int_equal(shell_metric(&f, WRITES("patch_cm", "error")), 4);
    assert_int_equal(shell_metric(&f, "cronwarden_controller_forbidden_writes_total{controller="
                                      "\"toy-maps\",verb=\"patch_cm\"}"),
                     2);
    shell_finish(&f);
}

/* ---- a resource the server does not serve ---- */

static const char *const missing_answers[] = {
    "GET /api/v1/namespaces/ns/configmaps 404 " STATUS(404, "NotFound"),
};

static void a_missing_resource_is_named(void **state)
{
    (void)state;
    shell_fixture f;
    cw_error err;
    char why[256];
    memset(&f, 0, sizeof(f));
    f.s.answers = missing_answers;
    f.s.n = N(missing_answers);
    cw_kube_client_opts o;
    cw_kube_client_opts_init(&o);
    o.fault = scripted;
    o.fault_ud = &f.s;
    o.max_attempts = 1;
    f.kube = fake_kube_client(&o, NULL, NULL);
    cw_metrics_init(&f.metrics);
    assert_int_equal(cw_queue_init(&f.q, NULL, &err), CW_OK);
    assert_int_equal(cw_informer_metrics_register(&f.metrics, &f.im, &err), CW_OK);
    cw_shell_env env = {
        .kube = f.kube, .queue = &f.q, .config = &toy_config, .informer_metrics = &f.im};
    assert_int_equal(cw_shell_new(&toy, &env, &f.shell, &err), CW_OK);
    assert_int_equal(cw_shell_synced(f.shell, why, sizeof(why)), 0);
    assert_string_equal(why, "caches not synced yet: configmaps");
    assert_int_equal(cw_informer_relist(cw_shell_informer(f.shell, 0), &err), CW_ENOTFOUND);
    assert_int_equal(cw_informer_missing(cw_shell_informer(f.shell, 0)), 1);
    assert_int_equal(cw_shell_synced(f.shell, why, sizeof(why)), 0);
    assert_string_equal(why, "the API server does not serve configmaps/v1 (LIST answers 404)");
    assert_int_equal(
        shell_metric(&f,
                     "cronwarden_controller_informer_missing{resource=\"configmaps\",group=\"\","
                     "version=\"v1\",namespace=\"ns\",label_selector=\"\",field_selector="
                     "\"\"}"),
        1);
    shell_finish(&f);
}

/* ---- write wars ---- */

/* The live object as another writer left it: managedFields name it as the newest Update. */
#define LIVE(rv, other)                                                                            \
    "200 {\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"u\","              \
    "\"namespace\":\"ns\",\"uid\":\"u-u\",\"resourceVersion\":\"" rv "\",\"managedFields\":["      \
    "{\"manager\":\"cronwarden\",\"operation\":\"Update\",\"time\":\"2026-01-01T00:00:00Z\"},"     \
    "{\"manager\":\"" other "\",\"operation\":\"Update\",\"time\":\"2026-01-01T00:00:05Z\"},"      \
    "{\"manager\":\"kubectl\",\"operation\":\"Apply\",\"time\":\"2026-01-01T00:00:09Z\"}]},"       \
    "\"data\":{\"do\":\"update\",\"v\":\"theirs\"}}"
#define WROTE(rv)                                                                                  \
    "200 {\"metadata\":{\"name\":\"u\",\"namespace\":\"ns\",\"uid\":\"u-u\",\"resourceVersion\":"  \
    "\"" rv "\"}}"
#define GET_U "GET /api/v1/namespaces/ns/configmaps/u "
#define PUT_U "PUT /api/v1/namespaces/ns/configmaps/u?fieldManager=cronwarden "

static const char *const war_answers[] = {
    "GET /api/v1/namespaces/ns/configmaps 200 " LIST(CM("u", "update")),
    GET_U LIVE("2", "longhorn-manager"),
    PUT_U WROTE("3"), /* the first write */
    GET_U LIVE("4", "longhorn-manager"),
    PUT_U WROTE("5"), /* undone, written again: 1 */
    GET_U LIVE("6", "longhorn-manager"),
    PUT_U WROTE("7"), /* 2 */
    GET_U LIVE("8", "longhorn-manager"),
    PUT_U WROTE("9"),                           /* 3 */
    GET_U LIVE("10", "longhorn-manager"),       /* a fourth time: held */
    "POST /api/v1/namespaces/ns/events 201 {}", /* WriteWar, naming the writer */
    GET_U LIVE("10", "longhorn-manager"),       /* held, no second Event */
};

static void a_write_war_stops_after_three_rewrites(void **state)
{
    (void)state;
    shell_fixture f;
    char *logged = NULL;
    size_t loglen = 0;
    FILE *log = open_memstream(&logged, &loglen);
    cw_log_configure(CW_LOG_WARN, CW_LOG_TEXT, log); /* the war's log line names the writer */
    shell_start(&f, &toy, &toy_config, war_answers, N(war_answers));
    shell_reconcile(&f, "ns/u", "update", -1, 0, 2, "first write");
    shell_reconcile(&f, "ns/u", "update", -1, 0, 2, "rewrite 1");
    shell_reconcile(&f, "ns/u", "update", -1, 0, 2, "rewrite 2");
    shell_reconcile(&f, "ns/u", "update", -1, 0, 2, "rewrite 3");
    shell_reconcile(&f, "ns/u", "held", -1, 0, 2, "undone a fourth time: held, the Event");
    shell_reconcile(&f, "ns/u", "held", -1, 0, 1, "still held, no second Event");
    assert_int_equal(shell_metric(&f, WRITES("update_cm", "ok")), 4);
    assert_int_equal(
        shell_metric(&f, "cronwarden_controller_write_wars_total{controller=\"toy-maps\"}"), 1);
    shell_finish(&f);
    cw_log_configure(CW_LOG_OFF, CW_LOG_TEXT, stderr);
    fclose(log);
    if (!strstr(logged, "object=configmaps/ns/u other_writer=longhorn-manager"))
        fail_msg("the war's log line: %s", logged);
    free(logged);
}

static void the_guard_counts_rewrites_of_the_same_content(void **state)
{
    (void)state;
    cw_ctrl_warguard g;
    cw_error err;
    const int64_t min = 60000;
    assert_int_equal(cw_ctrl_warguard_init(&g, &err), CW_OK);
    assert_int_equal(cw_ctrl_warguard_check(&g, "k", "u1", 7, 0), CW_WAR_WRITE);
    cw_ctrl_warguard_wrote(&g, "k", "u1", 7, 0); /* first write: no rewrite */
    for (int i = 1; i <= 3; i++) {
        assert_int_equal(cw_ctrl_warguard_check(&g, "k", "u1", 7, i * min), CW_WAR_WRITE);
        cw_ctrl_warguard_wrote(&g, "k", "u1", 7, i * min);
    }
    /* new content (a cron edited): no war, the count starts over */
    assert_int_equal(cw_ctrl_warguard_check(&g, "k", "u1", 8, 4 * min), CW_WAR_WRITE);
    cw_ctrl_warguard_wrote(&g, "k", "u1", 8, 4 * min);
    for (int i = 5; i <= 7; i++) {
        assert_int_equal(cw_ctrl_warguard_check(&g, "k", "u1", 8, i * min), CW_WAR_WRITE);
        cw_ctrl_warguard_wrote(&g, "k", "u1", 8, i * min);
    }
    /* three rewrites, spread over more than ten minutes: the oldest has expired */
    assert_int_equal(cw_ctrl_warguard_check(&g, "k", "u1", 8, 15 * min + 1), CW_WAR_WRITE);
    cw_ctrl_warguard_wrote(&g, "k", "u1", 8, 15 * min + 1);
    assert_int_equal(cw_ctrl_warguard_check(&g, "k", "u1", 8, 15 * min + 2), CW_WAR_NEW);
    assert_int_equal(cw_ctrl_warguard_check(&g, "k", "u1", 8, 15 * min + 3), CW_WAR_CONTESTED);
    /* the object made anew (another uid): written again */
    assert_int_equal(cw_ctrl_warguard_check(&g, "k", "u2", 8, 16 * min), CW_WAR_WRITE);
    cw_ctrl_warguard_wrote(&g, "k", "u2", 8, 16 * min);
    assert_int_equal(cw_ctrl_warguard_check(&g, "k", "u2", 8, 16 * min + 1), CW_WAR_WRITE);
    cw_ctrl_warguard_free(&g);
}

static void the_other_writer_is_the_newest_update_not_ours(void **state)
{
    (void)state;
    static const struct {
        const char *obj, *want;
    } cases[] = {
        {"{'metadata':{'managedFields':[{'manager':'a','operation':'Update','time':"
         "'2026-01-01T00:00:01Z'},{'manager':'b','operation':'Update','time':"
         "'2026-01-01T00:00:03Z'},{'manager':'cronwarden','operation':'Update','time':"
         "'2026-01-01T00:00:09Z'},{'manager':'c','operation':'Apply','time':"
         "'2026-01-01T00:00:09Z'}]}}",
         "b"},
        {"{'metadata':{'managedFields':[{'manager':'cronwarden','operation':'Update'}]}}", NULL},
        {"{'metadata':{}}", NULL},
    };
    for (size_t i = 0; i < N(cases); i++) {
        json_object *o = tjson(cases[i].obj);
        const char *got = cw_ctrl_war_other_writer(o, CW_CTRL_FIELD_MANAGER);
        if ((got == NULL) != (cases[i].want == NULL) || (got && strcmp(got, cases[i].want) != 0))
            fail_msg("case %zu: %s, want %s", i, got ? got : "NULL",
                     cases[i].want ? cases[i].want : "NULL");
        json_object_put(o);
    }
}

SHELL_TEST_MAIN(cmocka_unit_test(maps_every_answer_to_one_outcome),
                cmocka_unit_test(a_missing_resource_is_named),
                cmocka_unit_test(a_write_war_stops_after_three_rewrites),
                cmocka_unit_test(the_guard_counts_rewrites_of_the_same_content),
                cmocka_unit_test(the_other_writer_is_the_newest_update_not_ours))
