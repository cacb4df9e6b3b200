/* The volume reconciler in its shell (controller/volume_apply.c) against scripted API answers: the
 * default group by a conditional merge patch; legacy jobs migrated (the RecurringJob created
 * first, then the volume's patch, a Normal Event); invalid legacy jobs refused (a Warning Event,
 * once); 409, 404, 403 and 500 on the patch and on the create; a labelled volume and a linked
 * clone left alone. Which Longhorn runs: a development build stands it down (no request at all,
 * the gauge) until the DaemonSet names a release. */
#include "shell_test.h"

#include "controller/volume_apply.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define NS "/namespaces/longhorn-system"
#define VOL(name, labels, spec)                                                                    \
    "{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"Volume\",\"metadata\":{\"name\":\"" name   \
    "\",\"namespace\":\"longhorn-system\",\"uid\":\"v-" name "\",\"resourceVersion\":\"5\","       \
    "\"labels\":{" labels "}},\"spec\":{\"numberOfReplicas\":3" spec "}}"
#define LEGACY(cron)                                                                               \
    ",\"recurringJobs\":[{\"name\":\"snap\",\"task\":\"snapshot\",\"cron\":\"" cron                \
    "\",\"retain\":1}]"
#define GROUP       "200 {\"versions\":[{\"version\":\"v1beta1\"}]}"
#define SERVES(res) "200 {\"resources\":[{\"name\":\"" res "\",\"namespaced\":true}]}"
#define VOLUMES     "/apis/longhorn.io/v1beta1" NS "/volumes"
#define PATCH(name) "PATCH " VOLUMES "/" name "?fieldManager=cronwarden "
#define CREATE_RJ   "POST /apis/longhorn.io/v1beta1" NS "/recurringjobs?fieldManager=cronwarden "
#define EVENT       "POST /api/v1" NS "/events 201 {}"
#define MANAGER(tag)                                                                               \
    "{\"metadata\":{\"name\":\"longhorn-manager\",\"namespace\":\"longhorn-system\","              \
    "\"resourceVersion\":\"1\"},\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":"      \
    "\"longhorn-manager\",\"image\":\"longhornio/longhorn-manager:" tag "\"}]}}}}"
#define WRITES(verb, result)                                                                       \
    "cronwarden_controller_volume_writes_total{verb=\"" verb "\",result=\"" result "\"}"

/* Versions discovered, the three caches listed: these volumes, no job, the DaemonSet running tag.
 */
#define STARTS_WITH(tag, ...)                                                                      \
    "GET /apis/longhorn.io " GROUP, "GET /apis/longhorn.io/v1beta1 " SERVES("volumes"),            \
        "GET /apis/longhorn.io " GROUP, "GET /apis/longhorn.io/v1beta1 " SERVES("recurringjobs"),  \
        "GET " VOLUMES " 200 " LIST(__VA_ARGS__),                                                  \
        "GET /apis/longhorn.io/v1beta1" NS "/recurringjobs 200 " LIST(),                           \
        "GET /apis/apps/v1" NS "/daemonsets 200 " LIST(MANAGER(tag))

static const char *const answers[] = {
    STARTS_WITH(
        "v1.2.6",
        VOL("bare", "\"app\":\"db\"", "") "," VOL("legacy", "", LEGACY("*/1 * * * *")) "," VOL(
            "invalid", "",
            LEGACY("61 * * * *")) "," VOL("labelled",
                                          "\"recurring-job-group.longhorn.io/gold\":\"disabled\"",
                                          "") "," VOL("clone", "",
                                                      ",\"cloneMode\":\"linked-clone\"")),
    PATCH("bare") "200 {}",
    PATCH("bare") "409 " STATUS(409, "Conflict"),
    PATCH("bare") "404 " STATUS(404, "NotFound"),
    PATCH("bare") "403 " STATUS(403, "Forbidden"),
    EVENT, /* WriteForbidden */
    CREATE_RJ "201 {}",
    PATCH("legacy") "200 {}",
    EVENT, /* LegacyRecurringJobsMigrated */
    CREATE_RJ "409 " STATUS(409, "AlreadyExists"),
    CREATE_RJ "500 " STATUS(500, "InternalError"),
    EVENT, /* LegacyRecurringJobsNotMigrated, once */
};

/* The reconciler's config as the flags make it (Longhorn's namespace, --name-scheme longhorn,
 * --longhorn-version auto), the shell started on the script. */
static void start(shell_fixture *f, cw_volume_config *cfg, const char *const *lines, size_t n)
{
    static const cw_ctrl_flags flags; /* no --max-retain: the policy's */
    cw_error err;
    cw_error_init(&err);
    memset(cfg, 0, sizeof(*cfg));
    assert_int_equal(
        cw_ctrl_policy_config_init(cfg, &flags, "--longhorn-namespace", "longhorn-system", 0, &err),
        CW_OK);
    cfg->decide = (cw_volctl_config){
        .policy = &cfg->base.policy, .scheme = CW_NAMES_LONGHORN, .namespace = "longhorn-system"};
    assert_int_equal(cw_lh_parse_version_flag("auto", &cfg->longhorn, &err), CW_OK);
    shell_start(f, &cw_volume_reconciler, cfg, lines, n);
}

static void every_answer_of_the_api(void **state)
{
    (void)state;
    shell_fixture f;
    cw_volume_config cfg;
    start(&f, &cfg, answers, N(answers));
    const char *bare = "longhorn-system/bare", *legacy = "longhorn-system/legacy";
    shell_reconcile(&f, bare, "default_label", -1, 0, 1, "no job label: the default group");
    shell_reconcile(&f, bare, "conflict", 1000, 0, 1, "409: decided again on the new version");
    shell_reconcile(&f, bare, "deleted", -1, 0, 1, "404: gone");
    shell_reconcile(&f, bare, "error", -1, 1, 2, "403: WriteForbidden, retried");
    shell_reconcile(&f, legacy, "migrated", -1, 0, 3, "the job, then the volume, an Event");
    shell_reconcile(&f, legacy, "conflict", 1000, 0, 1, "409 on the job: the watch brings it");
    shell_reconcile(&f, legacy, "error", -1, 1, 1, "500 on the job: retried");
    shell_reconcile(&f, "longhorn-system/invalid", "refused", -1, 0, 1, "invalid: an Event");
    shell_reconcile(&f, "longhorn-system/invalid", "refused", -1, 0, 0, "not twice");
    shell_reconcile(&f, "longhorn-system/labelled", "insync", -1, 0, 0, "a group label");
    shell_reconcile(&f, "longhorn-system/clone", "insync", -1, 0, 0,
                    "a linked clone (spec.cloneMode kept in the cache): no default group");
    shell_reconcile(&f, "longhorn-system/gone", "deleted", -1, 0, 0, "not in the cache");
    static const shell_series want[] = {
        {WRITES("label_volume", "ok"), 1},           {WRITES("label_volume", "conflict"), 1},
        {WRITES("label_volume", "not_found"), 1},    {WRITES("label_volume", "error"), 1},
        {WRITES("create_recurringjob", "ok"), 1},    {WRITES("create_recurringjob", "conflict"), 1},
        {WRITES("create_recurringjob", "error"), 1}, {WRITES("migrate_volume", "ok"), 1},
    };
    shell_expect(&f, want, N(want));
    shell_finish(&f);
    cw_ctrl_policy_config_fini(&cfg);
}

static const char *const dev_answers[] = {
    STARTS_WITH("master-head", VOL("bare", "", "")),
    PATCH("bare") "200 {}",
};

static void a_development_build_stands_it_down(void **state)
{
    (void)state;
    shell_fixture f;
    cw_volume_config cfg;
    start(&f, &cfg, dev_answers, N(dev_answers));
    const char *bare = "longhorn-system/bare";
    shell_reconcile(&f, bare, "standing_down", -1, 0, 0, "master-head: no request at all");
    static const shell_series down[] = {
        {"cronwarden_controller_standing_down{controller=\"volume\",reason=\"dev-build\"}", 1},
        {"cronwarden_controller_longhorn_version_info{version=\"master-head\",minor=\"\","
         "source=\"daemonset\"}",
         1},
    };
    shell_expect(&f, down, N(down));
    shell_manager_runs(&f, CW_VOLUME_MANAGERS, "longhornio/longhorn-manager:v1.10.2");
    shell_reconcile(&f, bare, "default_label", -1, 0, 1, "Longhorn 1.10: the default group");
    static const shell_series up[] = {
        {"cronwarden_controller_standing_down{controller=\"volume\",reason=\"dev-build\"}", 0},
    };
    shell_expect(&f, up, N(up));
    shell_finish(&f);
    cw_ctrl_policy_config_fini(&cfg);
}

SHELL_TEST_MAIN(cmocka_unit_test(every_answer_of_the_api),
                cmocka_unit_test(a_development_build_stands_it_down))
