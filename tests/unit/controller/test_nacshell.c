/* The nonadminbackup reconciler in the NonAdmin shell (controller/nonadmin_apply.c) against
 * scripted API answers: first sight (status through /status); 409, 404, 403 (WriteForbidden once)
 * and 500 on that write; the Velero Backup of a recorded nacuuid looked up in the API when the
 * cache lacks it, created, then the status; a 409 on the create that is this object's own Backup
 * (adopted) or a stranger's (never adopted: retried). */
#include "shell_test.h"

#include "controller/nonadmin_apply.h"
#include "controller/nonadminbackup_apply.h"

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

static void every_answer_of_the_api(void **state)
{
    (void)state;
    shell_fixture f;
    cw_nonadmin_config cfg = {0};
    cw_error err;
    cw_error_init(&err);
    cw_ctrl_flag.oadp_namespace = "openshift-adp"; /* the config from the flags, as parsed */
    assert_int_equal(cw_nonadminbackup_reconciler.config_init(&cfg, &err), CW_OK);
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

SHELL_TEST_MAIN(cmocka_unit_test(every_answer_of_the_api))
