/* The NonAdmin reconcilers in their shell (controller/nonadmin_apply.c) against scripted API
 * answers, request by request:
 *   - nonadminbackup: first sight (status through /status); 409, 404, 403 (WriteForbidden once)
 *     and 500 on that write; the Velero Backup of a recorded nacuuid looked up in the API when the
 *     cache lacks it, created, then the status; a 409 on the create that is this object's own
 *     Backup (adopted) or a stranger's (never adopted: retried);
 *   - a create the API server refuses (422): BackingOff with its message, not retried; a nacuuid
 *     someone else wrote into the status is never looked up or created under;
 *   - nonadminrestore with its flags parsed as the command parses them: the NonAdminBackup and its
 *     Velero Backup read live, an init-container hook the administrator allows made, a forged
 *     NonAdminBackup status refused without a look at the Backup it names, a refused Restore,
 *     backupNames no object can have ('?', "..", upper case) refused with OADP's NotFound answer
 *     and no request but the status; a bad --allowed-resource-policies a usage error. */
#include "shell_test.h"

#include "controller/nonadmin_apply.h"
#include "controller/nonadminbackup_apply.h"
#include "controller/nonadminrestore_apply.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define NAC "shop-ready-0d0b7b2c-ee76-412d-a867-2c23b8aa51ab"
#define NAB(name, extra, status)                                                                   \
    "{\"apiVersion\":\"oadp.openshift.io/v1alpha1\",\"kind\":\"NonAdminBackup\",\"metadata\":{"    \
    "\"name\":\"" name "\",\"namespace\":\"shop\",\"uid\":\"u-" name "\",\"resourceVersion\":"     \
    "\"5\"" extra "},\"spec\":{\"backupSpec\":{}},\"status\":" status "}"
#define READY                                                                                      \
    NAB("ready", ",\"finalizers\":[\"nonadminbackup.oadp.openshift.io/finalizer\"]",               \
        "{\"phase\":\"New\",\"conditions\":[{\"type\":\"Accepted\",\"status\":\"True\","           \
        "\"reason\":\"BackupAccepted\",\"message\":\"backup accepted\",\"lastTransitionTime\":"    \
        "\"2026-01-01T00:00:00Z\"}],\"veleroBackup\":{\"nacuuid\":\"" NAC "\",\"name\":\"" NAC     \
        "\",\"namespace\":\"openshift-adp\"}}")
#define VELERO(origin_ns)                                                                          \
    "200 {\"apiVersion\":\"velero.io/v1\",\"kind\":\"Backup\",\"metadata\":{\"name\":\"" NAC       \
    "\",\"namespace\":\"openshift-adp\",\"labels\":{\"openshift.io/oadp\":\"True\","               \
    "\"app.kubernetes.io/managed-by\":\"oadp-nac-controller\","                                    \
    "\"openshift.io/oadp-nab-origin-nacuuid\":\"" NAC "\"},\"annotations\":{"                      \
    "\"openshift.io/oadp-nab-origin-name\":\"ready\",\"openshift.io/oadp-nab-origin-namespace\":"  \
    "\"" origin_ns "\"}}}"
#define OADP_BACKUPS "/apis/velero.io/v1/namespaces/openshift-adp/backups"
#define STATUS_PUT(name)                                                                           \
    "PUT /apis/oadp.openshift.io/v1alpha1/namespaces/shop/nonadminbackups/" name "/status "
#define GET_VELERO "GET " OADP_BACKUPS "/" NAC " "
#define CREATE     "POST " OADP_BACKUPS "?fieldManager=cronwarden "
#define WRITES(verb, result)                                                                       \
    "cronwarden_controller_nonadminbackup_writes_total{verb=\"" verb "\",result=\"" result "\"}"

static const char *const answers[] = {
    "GET /apis/oadp.openshift.io/v1alpha1/nonadminbackups 200 " LIST(
        NAB("daily", "", "{}") "," READY),
    "GET " OADP_BACKUPS " 200 " LIST(),
    STATUS_PUT("daily") "200 {}",
    STATUS_PUT("daily") "409 " STATUS(409, "Conflict"),
    STATUS_PUT("daily") "404 " STATUS(404, "NotFound"),
    STATUS_PUT("daily") "403 " STATUS(403, "Forbidden"),
    "POST /api/v1/namespaces/shop/events 201 {}", /* WriteForbidden */
    STATUS_PUT("daily") "500 " STATUS(500, "InternalError"),
    /* ready: the recorded nacuuid's Backup, not in the cache: asked for, then made */
    GET_VELERO "404 " STATUS(404, "NotFound"),
    CREATE "201 {}",
    STATUS_PUT("ready") "200 {}",
    /* a crash came between: the create answers 409 and the Backup is this object's */
    GET_VELERO "404 " STATUS(404, "NotFound"),
    CREATE "409 " STATUS(409, "AlreadyExists"),
    GET_VELERO VELERO("shop"),
    STATUS_PUT("ready") "200 {}",
    /* a stranger's Backup under the name: never adopted */
    GET_VELERO "404 " STATUS(404, "NotFound"),
    CREATE "409 " STATUS(409, "AlreadyExists"),
    GET_VELERO VELERO("bank"),
};

/* The shared flags as parsed: the OADP namespace. */
static const cw_ctrl_flags adp = {.oadp_namespace = "openshift-adp"};

static void every_answer_of_the_api(void **state)
{
    (void)state;
    shell_fixture f;
    cw_nonadmin_config cfg = {0};
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_nonadminbackup_reconciler.config_init(&cfg, &adp, &err), CW_OK);
    shell_start(&f, &cw_nonadminbackup_reconciler, &cfg, answers, N(answers));
    shell_reconcile(&f, "shop/daily", "new", -1, 0, 1, "first sight: phase New");
    shell_reconcile(&f, "shop/daily", "conflict", 1000, 0, 1, "409: decided again");
    shell_reconcile(&f, "shop/daily", "deleted", -1, 0, 1, "404: gone");
    shell_reconcile(&f, "shop/daily", "error", -1, 1, 2, "403: WriteForbidden, retried");
    shell_reconcile(&f, "shop/daily", "error", -1, 1, 1, "500: retried");
    shell_reconcile(&f, "shop/ready", "created", -1, 0, 3, "looked up, created, status");
    shell_reconcile(&f, "shop/ready", "created", -1, 0, 4, "409: its own Backup, adopted");
    shell_reconcile(&f, "shop/ready", "error", -1, 1, 3, "409: a stranger's, never adopted");
    shell_reconcile(&f, "shop/gone", "deleted", -1, 0, 0, "not in the cache");
    static const shell_series want[] = {
        {WRITES("update_status", "ok"), 3},        {WRITES("update_status", "conflict"), 1},
        {WRITES("update_status", "not_found"), 1}, {WRITES("update_status", "error"), 2},
        {WRITES("create_velero", "ok"), 1},        {WRITES("create_velero", "conflict"), 2},
    };
    shell_expect(&f, want, N(want));
    shell_finish(&f);
    cw_nacshell_config_fini(&cfg);
}

/* The status a PUT of script line i sent, its conditions' times removed (they are the wall
 * clock's). */
static json_object *sent_status(shell_fixture *f, size_t i)
{
    json_object *body = shell_sent(f, i), *st = NULL;
    if (!body)
        fail_msg("request %zu sent nothing", i);
    assert_int_equal(cw_json_copy(cw_json_member(body, "status"), &st), CW_OK);
    json_object *conds = cw_json_member(st, "conditions");
    for (size_t c = 0; conds && c < json_object_array_length(conds); c++)
        json_object_object_del(json_object_array_get_idx(conds, c), "lastTransitionTime");
    json_object_put(body);
    return st;
}

/* Accepted=True as the decision writes it (Kind: "Backup", kind: "backup"). */
#define ACC(Kind, kind)                                                                            \
    "\"conditions\":[{\"type\":\"Accepted\",\"status\":\"True\",\"reason\":\"" Kind                \
    "Accepted\",\"message\":\"" kind                                                               \
    " accepted\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]"
#define GEN2 ",\"generation\":2,\"finalizers\":[\"nonadminbackup.oadp.openshift.io/finalizer\"]"
#define VELERO_422                                                                                 \
    "Backup.velero.io \\\"" NAC "\\\" is invalid: spec.ttl: Invalid value: \\\"integer\\\": "      \
    "spec.ttl in body must be of type string: \\\"integer\\\""
#define FORGED_NAC "nightly-20260102010000"

static const char *const refused_answers[] = {
    "GET /apis/oadp.openshift.io/v1alpha1/nonadminbackups 200 " LIST(NAB(
        "ready", GEN2,
        "{\"phase\":\"New\"," ACC(
            "Backup",
            "backup") ",\"veleroBackup\":{\"nacuuid\":\"" NAC "\",\"name\":\"" NAC
                      "\",\"namespace\":\"openshift-adp\"}}") "," NAB("forged", GEN2,
                                                                      "{\"phase\":\"New\","
                                                                      "\"veleroBackup\":{"
                                                                      "\"nacuuid\":\"" FORGED_NAC
                                                                      "\"}}")),
    "GET " OADP_BACKUPS " 200 " LIST(),
    /* ready: looked up, created: 422 -> the refusal, through /status */
    GET_VELERO "404 " STATUS(404, "NotFound"),
    CREATE "422 {\"kind\":\"Status\",\"code\":422,\"reason\":\"Invalid\",\"message\":\"" VELERO_422
           "\"}",
    STATUS_PUT("ready") "200 {}",
    /* forged: the name in its status is not looked up; a nacuuid of its own is recorded */
    STATUS_PUT("forged") "200 {}",
};

static void a_refused_create(void **state)
{
    (void)state;
    shell_fixture f;
    cw_nonadmin_config cfg = {0};
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_nonadminbackup_reconciler.config_init(&cfg, &adp, &err), CW_OK);
    shell_start(&f, &cw_nonadminbackup_reconciler, &cfg, refused_answers, N(refused_answers));
    shell_reconcile(&f, "shop/ready", "refused", -1, 0, 3, "422: BackingOff, not retried");
    json_object *st = sent_status(&f, 4);
    expect_json(st,
                "{'phase':'BackingOff','conditions':[{'type':'Accepted','status':'False','reason':"
                "'InvalidBackupSpec','message':'Backup.velero.io \\'" NAC
                "\\' is invalid: spec.ttl: Invalid value: \\'integer\\': spec.ttl in body must be "
                "of type string: \\'integer\\'','observedGeneration':2}]}",
                "status", "the refusal");
    json_object_put(st);
    shell_reconcile(&f, "shop/forged", "accepted", -1, 0, 1, "a forged nacuuid: a new one");
    st = sent_status(&f, 5);
    const char *nac = cw_json_path_string(st, "veleroBackup.nacuuid");
    if (!nac || strncmp(nac, "shop-forged-", 12) || strlen(nac) != 12 + 36)
        fail_msg("forged's new nacuuid: %s", nac ? nac : "(none)");
    json_object_put(st);
    static const shell_series want[] = {
        {WRITES("create_velero", "invalid"), 1},
        SHELL_ABSENT(WRITES("create_velero", "error")),
        {WRITES("update_status", "ok"), 2},
    };
    shell_expect(&f, want, N(want));
    shell_finish(&f);
    cw_nacshell_config_fini(&cfg);
}

/* ---- nonadminrestore ---- */

#define RNAC "shop-undo-0d0b7b2c-ee76-412d-a867-2c23b8aa51ab"
#define ANAC "shop-again-0d0b7b2c-ee76-412d-a867-2c23b8aa51ab"
#define NAR(name, extra, spec, status)                                                             \
    "{\"apiVersion\":\"oadp.openshift.io/v1alpha1\",\"kind\":\"NonAdminRestore\",\"metadata\":{"   \
    "\"name\":\"" name "\",\"namespace\":\"shop\",\"uid\":\"u-" name "\",\"resourceVersion\":"     \
    "\"7\"" extra "},\"spec\":{\"restoreSpec\":" spec "},\"status\":" status "}"
#define RFIN ",\"generation\":1,\"finalizers\":[\"nonadminrestore.oadp.openshift.io/finalizer\"]"
#define RACCEPTED(nac)                                                                             \
    "{\"phase\":\"New\"," ACC("Restore", "restore") ",\"veleroRestore\":{\"nacuuid\":\"" nac       \
                                                    "\",\"name\":\"" nac                           \
                                                    "\",\"namespace\":\"openshift-adp\"}}"
#define INIT_HOOK                                                                                  \
    "{\"backupName\":\"ready\",\"hooks\":{\"resources\":[{\"name\":\"h\",\"postHooks\":[{"         \
    "\"init\":{\"initContainers\":[{\"name\":\"i\",\"image\":\"busybox\"}]}}]}]}}"
#define NAB_CREATED(name, nac)                                                                     \
    "200 " NAB(name, "",                                                                           \
               "{\"phase\":\"Created\",\"veleroBackup\":{\"nacuuid\":\"" nac "\",\"name\":\"" nac  \
               "\",\"namespace\":\"openshift-adp\"}}")
#define OADP_RESTORES "/apis/velero.io/v1/namespaces/openshift-adp/restores"
#define GET_NAB(name)                                                                              \
    "GET /apis/oadp.openshift.io/v1alpha1/namespaces/shop/nonadminbackups/" name " "
#define RSTATUS_PUT(name)                                                                          \
    "PUT /apis/oadp.openshift.io/v1alpha1/namespaces/shop/nonadminrestores/" name "/status "
#define NO_VB(nac, name)                                                                           \
    "NonAdminRestore spec.restoreSpec.backupName is invalid: no Velero Backup openshift-adp/" nac  \
    " with the origin label and annotations of NonAdminBackup shop/" name

/* A NonAdminRestore seen before (New) whose backupName names no object. */
#define UNNAMED(name, backup)                                                                      \
    NAR(name, "", "{\"backupName\":\"" backup "\"}", "{\"phase\":\"New\"}")
#define NOT_FOUND(q)                                                                               \
    "NonAdminRestore spec.restoreSpec.backupName is invalid: NonAdminBackup.oadp.openshift.io " q  \
    " not found"

static const char *const restore_answers[] = {
    "GET /apis/oadp.openshift.io/v1alpha1/nonadminrestores 200 " LIST(
        NAR("undo", RFIN, INIT_HOOK, RACCEPTED(RNAC)) "," NAR(
            "steal", "", "{\"backupName\":\"forged\"}",
            "{\"phase\":\"New\"}") "," NAR("again", RFIN, "{\"backupName\":\"ready\"}",
                                           RACCEPTED(
                                               ANAC)) "," UNNAMED("query",
                                                                  "ready?watch=1") "," UNNAMED("dot"
                                                                                               "do"
                                                                                               "t",
                                                                                               "..") "," UNNAMED("upper",
                                                                                                                 "Ready")),
    "GET " OADP_RESTORES " 200 " LIST(),
    /* undo: its Velero Restore looked up; the NonAdminBackup, then its Velero Backup, read live;
     * the init hook the administrator allows, made; then the status */
    "GET " OADP_RESTORES "/" RNAC " 404 " STATUS(404, "NotFound"),
    GET_NAB("ready") NAB_CREATED("ready", NAC),
    GET_VELERO VELERO("shop"),
    "POST " OADP_RESTORES "?fieldManager=cronwarden 201 {}",
    RSTATUS_PUT("undo") "200 {}",
    /* steal: forged's status names bank's Backup: not looked at; refused */
    GET_NAB("forged") NAB_CREATED("forged", "bank-vault-0d0b7b2c-ee76-412d-a867-2c23b8aa51ab"),
    RSTATUS_PUT("steal") "200 {}",
    /* again: the create refused (422): BackingOff with the API server's message */
    "GET " OADP_RESTORES "/" ANAC " 404 " STATUS(404, "NotFound"),
    GET_NAB("ready") NAB_CREATED("ready", NAC),
    GET_VELERO VELERO("shop"),
    "POST " OADP_RESTORES "?fieldManager=cronwarden 422 " STATUS(422, "Restore is invalid"),
    RSTATUS_PUT("again") "200 {}",
    /* backupNames no object can have: not asked for (no GET), BackingOff with OADP's NotFound */
    RSTATUS_PUT("query") "200 {}",
    RSTATUS_PUT("dotdot") "200 {}",
    RSTATUS_PUT("upper") "200 {}",
};

/* The descriptor's rows parsed from argv into cfg and the shared flags as `cronwarden controller`
 * parses them. */
static cw_opt rows[16];
static void *bases[16];
static cw_ctrl_flags flags;

static int parse_flags(const cw_reconciler_ops *r, void *cfg, cw_cmd_spec *spec, char **argv,
                       int argc, cw_error *err)
{
    void *at[] = {[CW_RECONCILER_AT_CONFIG - 1] = cfg, [CW_RECONCILER_AT_SHARED - 1] = &flags};
    size_t n = 0;
    int rc = cw_opts_append_at(rows, bases, N(rows), &n, r->opts, r->nopts, at, 2, err);
    *spec = (cw_cmd_spec){.name = "controller", .opts = rows, .nopts = n, .bases = bases};
    return rc != CW_OK ? rc : cw_opts_parse(spec, argc, argv, NULL, stdout, err);
}

static void restores_with_the_administrators_flags(void **state)
{
    (void)state;
    shell_fixture f;
    cw_nonadmin_config cfg = {0};
    cw_cmd_spec spec;
    cw_error err;
    cw_error_init(&err);
    char *argv[] = {"controller", "--allow-restore-init-hooks", "--allowed-resource-policies",
                    "restore-modifiers", NULL};
    assert_int_equal(parse_flags(&cw_nonadminrestore_reconciler, &cfg, &spec, argv, 4, &err),
                     CW_OK);
    assert_int_equal(cw_nonadminrestore_reconciler.config_init(&cfg, &flags, &err), CW_OK);
    assert_true(cfg.policy.allow_restore_init_hooks);
    assert_true(cw_strlist_contains(cfg.policy.allowed_resource_policies, "restore-modifiers"));
    shell_start(&f, &cw_nonadminrestore_reconciler, &cfg, restore_answers, N(restore_answers));

    shell_reconcile(&f, "shop/undo", "created", -1, 0, 5, "an allowed init hook: made");
    json_object *made = shell_sent(&f, 5);
    expect_json(cw_json_path(made, "spec.hooks"),
                "{'resources':[{'name':'h','postHooks':[{'init':{'initContainers':[{'name':'i',"
                "'image':'busybox'}]}}],'includedNamespaces':['shop']}]}",
                "the Velero Restore's hooks", "undo");
    assert_string_equal(cw_json_path_string(made, "spec.backupName"), NAC);
    json_object_put(made);

    shell_reconcile(&f, "shop/steal", "invalid", -1, 0, 2, "a forged NonAdminBackup status");
    json_object *st = sent_status(&f, 8);
    expect_json(st,
                "{'phase':'BackingOff','conditions':[{'type':'Accepted','status':'False','reason':"
                "'InvalidRestoreSpec','message':'" NO_VB(
                    "bank-vault-0d0b7b2c-ee76-412d-a867-2c23b8aa51ab", "forged") "'}]}",
                "status", "steal");
    json_object_put(st);

    shell_reconcile(&f, "shop/again", "refused", -1, 0, 5, "a refused Velero Restore");
    st = sent_status(&f, 13);
    expect_json(st,
                "{'phase':'BackingOff','conditions':[{'type':'Accepted','status':'False','reason':"
                "'InvalidRestoreSpec','message':'Restore is invalid','observedGeneration':1}]}",
                "status", "again");
    json_object_put(st);

    static const struct {
        const char *key, *msg;
    } unnamed[] = {{"shop/query", NOT_FOUND("\"ready?watch=1\"")},
                   {"shop/dotdot", NOT_FOUND("\"..\"")},
                   {"shop/upper", NOT_FOUND("\"Ready\"")}};
    for (size_t i = 0; i < N(unnamed); i++) {
        shell_reconcile(&f, unnamed[i].key, "invalid", -1, 0, 1, unnamed[i].key);
        st = sent_status(&f, 14 + i);
        json_object *cond = json_object_array_get_idx(cw_json_member(st, "conditions"), 0);
        assert_string_equal(cw_json_path_string(cond, "message"), unnamed[i].msg);
        json_object_object_del(cond, "message"); /* it holds '"': compared above */
        expect_json(st,
                    "{'phase':'BackingOff','conditions':[{'type':'Accepted','status':'False',"
                    "'reason':'InvalidRestoreSpec'}]}",
                    "status", unnamed[i].key);
        json_object_put(st);
    }
    shell_finish(&f);
    cw_nacshell_config_fini(&cfg);
    cw_opts_free(&spec);

    /* A name that is no ConfigMap's: a usage error naming the flag. */
    char *bad[] = {"controller", "--allowed-resource-policies", "Skip_Volumes", NULL};
    memset(&cfg, 0, sizeof(cfg));
    assert_int_equal(parse_flags(&cw_nonadminbackup_reconciler, &cfg, &spec, bad, 3, &err), CW_OK);
    assert_int_equal(cw_nonadminbackup_reconciler.config_init(&cfg, &flags, &err), CW_EUSAGE);
    assert_string_equal(err.message,
                        "--allowed-resource-policies: \"Skip_Volumes\" is not a ConfigMap name: a "
                        "lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                        "characters, '-' or '.', and must start and end with an alphanumeric "
                        "character");
    cw_nacshell_config_fini(&cfg);
    cw_opts_free(&spec);
}

SHELL_TEST_MAIN(cmocka_unit_test(every_answer_of_the_api), cmocka_unit_test(a_refused_create),
                cmocka_unit_test(restores_with_the_administrators_flags))
