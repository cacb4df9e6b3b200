/* Admission through dispatch, per kind: exact responses, decoded patches, warnings and denials.
 * The expectations follow the policy's documented rules (the headers in defaults/ and
 * docs/policy.md); the webhook only has to carry them unchanged. In `want`, "@" stands for the
 * base64 of `patch`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>

#include "lib/buf.h"
#include "cron/tz.h"
#include "webhook/admit.h"

#define REVIEW(api, uid, gvk, op, rest)                                                            \
    "{\"apiVersion\":\"admission.k8s.io/" api "\",\"kind\":\"AdmissionReview\",\"request\":{"      \
    "\"uid\":\"" uid "\",\"kind\":" gvk ",\"operation\":\"" op "\"" rest "}}"
#define RJ2 "{\"group\":\"longhorn.io\",\"version\":\"v1beta2\",\"kind\":\"RecurringJob\"}"
#define RJ1 "{\"group\":\"longhorn.io\",\"version\":\"v1beta1\",\"kind\":\"RecurringJob\"}"
#define VOL "{\"group\":\"longhorn.io\",\"version\":\"v1beta2\",\"kind\":\"Volume\"}"
#define SCH "{\"group\":\"velero.io\",\"version\":\"v1\",\"kind\":\"Schedule\"}"
#define ANSWER(uid, rest)                                                                          \
    "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{"          \
    "\"uid\":\"" uid "\"," rest "}}"
#define PATCHED(uid, rest)                                                                         \
    ANSWER(uid, "\"allowed\":true,\"patchType\":\"JSONPatch\",\"patch\":\"@\"" rest)
#define ALLOWED(uid) ANSWER(uid, "\"allowed\":true")
#define DENIED(uid, msg)                                                                           \
    ANSWER(uid, "\"allowed\":false,\"status\":{\"code\":403,\"message\":\"" msg                    \
                "\",\"reason\":\"Forbidden\"}")

#define LEGACY_MSG                                                                                 \
    "spec.recurringJobs: legacy per-volume recurring jobs are not accepted (Longhorn 1.2 "         \
    "replaced them and 1.5 removed the field); create RecurringJob objects and label the volume "  \
    "\\\"recurring-job.longhorn.io/<name>: enabled\\\" (or "                                       \
    "\\\"recurring-job-group.longhorn.io/<group>: enabled\\\") instead; for manifests, "           \
    "\\\"cronwarden migrate --from-file <file>\\\" does this"

typedef struct {
    const char *what;
    cw_webhook_route route;
    int max_retain;            /* 0: default (100) */
    const char *default_group; /* NULL: default ("default"); "" disables */
    int skip_immediately;
    const char *body;
    unsigned status;
    const char *outcome, *kind_label;
    const char *want;  /* exact body */
    const char *patch; /* decoded patch, NULL: none */
} admit_case;

static const admit_case cases[] = {
    /* ---- RecurringJob ---- */
    {"RecurringJob v1beta2 create is defaulted", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1", "rj-1", RJ2, "CREATE",
            ",\"namespace\":\"longhorn-system\",\"name\":\"daily\",\"object\":{\"apiVersion\":"
            "\"longhorn.io/v1beta2\",\"kind\":\"RecurringJob\",\"metadata\":{\"name\":\"daily\","
            "\"namespace\":\"longhorn-system\"},\"spec\":{\"task\":\"snapshot\",\"cron\":\"0 0 * * "
            "*\","
            "\"retain\":0}}"),
     200, "patched", "RecurringJob",
     PATCHED("rj-1", ",\"warnings\":[\"spec.retain: 0 changed to 1 (task \\\"snapshot\\\" needs a "
                     "retain of at least 1)\"]"),
     "[{\"op\":\"add\",\"path\":\"/spec/name\",\"value\":\"daily\"},"
     "{\"op\":\"add\",\"path\":\"/spec/groups\",\"value\":[]},"
     "{\"op\":\"add\",\"path\":\"/spec/labels\",\"value\":{}},"
     "{\"op\":\"add\",\"path\":\"/spec/parameters\",\"value\":{}},"
     "{\"op\":\"add\",\"path\":\"/spec/concurrency\",\"value\":10},"
     "{\"op\":\"replace\",\"path\":\"/spec/retain\",\"value\":1}]"},
    {"RecurringJob v1beta1 has no parameters; cleanup retains 0", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1", "rj-2", RJ1, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta1\",\"kind\":\"RecurringJob\","
            "\"metadata\":{\"name\":\"nightly\"},\"spec\":{\"name\":\"nightly\",\"task\":"
            "\"snapshot-cleanup\",\"cron\":\"@daily\",\"retain\":5,\"groups\":[\"default\"]}}"),
     200, "patched", "RecurringJob",
     PATCHED("rj-2", ",\"warnings\":[\"spec.retain: 5 changed to 0 (task \\\"snapshot-cleanup\\\" "
                     "ignores retain)\"]"),
     "[{\"op\":\"add\",\"path\":\"/spec/labels\",\"value\":{}},"
     "{\"op\":\"add\",\"path\":\"/spec/concurrency\",\"value\":10},"
     "{\"op\":\"replace\",\"path\":\"/spec/retain\",\"value\":0}]"},
    {"RecurringJob that needs nothing is allowed untouched", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1", "rj-3", RJ2, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"RecurringJob\","
            "\"metadata\":{\"name\":\"weekly\"},\"spec\":{\"name\":\"weekly\",\"task\":\"backup\","
            "\"cron\":\"0 3 * * 0\",\"retain\":4,\"concurrency\":2,\"groups\":[],\"labels\":{},"
            "\"parameters\":{}}}"),
     200, "allowed", "RecurringJob", ALLOWED("rj-3"), NULL},
    {"RecurringJob: every problem in one denial", CW_WEBHOOK_VALIDATE, 0, NULL, 0,
     REVIEW("v1", "rj-4", RJ2, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"RecurringJob\","
            "\"metadata\":{\"name\":\"daily\"},\"spec\":{\"name\":\"daily\",\"task\":\"backup\","
            "\"cron\":\"0 0 * *\",\"retain\":101,\"concurrency\":2,\"groups\":[],\"labels\":{}}}"),
     200, "denied", "RecurringJob",
     DENIED("rj-4", "spec.cron: invalid cron expression \\\"0 0 * *\\\": expected exactly 5 "
                    "fields, found 4: [0 0 * *]; spec.retain: 101 exceeds the maximum of 100 "
                    "(Longhorn setting recurring-job-max-retention)"),
     NULL},
    {"RecurringJob: --max-retain is honoured", CW_WEBHOOK_VALIDATE, 5, NULL, 0,
     REVIEW("v1", "rj-5", RJ2, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"RecurringJob\","
            "\"metadata\":{\"name\":\"daily\"},\"spec\":{\"name\":\"daily\",\"task\":\"snapshot\","
            "\"cron\":\"0 0 * * *\",\"retain\":6,\"concurrency\":1,\"groups\":[],\"labels\":{}}}"),
     200, "denied", "RecurringJob",
     DENIED("rj-5", "spec.retain: 6 exceeds the maximum of 5 (Longhorn setting "
                    "recurring-job-max-retention)"),
     NULL},
    {"RecurringJob: upper-case name is refused, not renamed", CW_WEBHOOK_VALIDATE, 0, NULL, 0,
     REVIEW("v1", "rj-6", RJ2, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"RecurringJob\","
            "\"metadata\":{\"name\":\"Daily\"},\"spec\":{\"name\":\"Daily\",\"task\":\"snapshot\","
            "\"cron\":\"0 0 * * *\",\"retain\":1,\"concurrency\":1}}"),
     200, "denied", "RecurringJob",
     DENIED("rj-6", "metadata.name: \\\"Daily\\\" must match ^[a-z0-9][a-z0-9_.-]+$; cronwarden "
                    "does not rename objects, use \\\"daily\\\""),
     NULL},
    {"RecurringJob valid after defaulting passes validation", CW_WEBHOOK_VALIDATE, 0, NULL, 0,
     REVIEW("v1", "rj-7", RJ2, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"RecurringJob\","
            "\"metadata\":{\"name\":\"daily\"},\"spec\":{\"name\":\"daily\",\"task\":\"snapshot\","
            "\"cron\":\"0 0 * * *\",\"retain\":1,\"concurrency\":10,\"groups\":[],\"labels\":{},"
            "\"parameters\":{}}}"),
     200, "allowed", "RecurringJob", ALLOWED("rj-7"), NULL},
    /* Longhorn not known to the webhook: a zone prefix is admitted with a warning (Longhorn 1.3+
     * and Kubernetes 1.29+ refuse it; docs/compat.md) */
    {"RecurringJob with CRON_TZ: allowed with a warning", CW_WEBHOOK_VALIDATE, 0, NULL, 0,
     REVIEW("v1", "rj-10", RJ2, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"RecurringJob\","
            "\"metadata\":{\"name\":\"daily\"},\"spec\":{\"name\":\"daily\",\"task\":\"snapshot\","
            "\"cron\":\"CRON_TZ=Europe/Berlin 0 2 * * *\",\"retain\":1,\"concurrency\":10,"
            "\"groups\":[],\"labels\":{},\"parameters\":{}}}"),
     200, "allowed", "RecurringJob",
     ANSWER("rj-10",
            "\"allowed\":true,\"warnings\":[\"spec.cron: \\\"CRON_TZ=Europe/Berlin 0 2 * * *\\\" "
            "starts with a time zone (CRON_TZ=Europe/Berlin), which Longhorn 1.3 and later refuse "
            "(their cron parser, robfig/cron v1, has none); and Kubernetes 1.29 and later (and "
            "1.21 and earlier) refuse to create a CronJob whose schedule holds TZ, so no CronJob "
            "may run this job: write the time without the prefix, in kube-controller-manager's "
            "time zone (usually UTC)\"]"),
     NULL},
    {"RecurringJob DELETE reaches no rule", CW_WEBHOOK_VALIDATE, 0, NULL, 0,
     REVIEW("v1", "rj-8", RJ2, "DELETE", ",\"object\":null,\"oldObject\":{\"spec\":{}}"), 200,
     "allowed", "RecurringJob", ALLOWED("rj-8"), NULL},
    {"RecurringJob status subresource is not policed", CW_WEBHOOK_VALIDATE, 0, NULL, 0,
     REVIEW("v1", "rj-9", RJ2, "UPDATE",
            ",\"subResource\":\"status\",\"object\":{\"spec\":{\"cron\":\"bad\"}},"
            "\"oldObject\":{\"spec\":{\"cron\":\"bad\"}}"),
     200, "allowed", "RecurringJob", ALLOWED("rj-9"), NULL},
    {"RecurringJob in a version the policy does not know", CW_WEBHOOK_VALIDATE, 0, NULL, 0,
     REVIEW("v1", "rj-10",
            "{\"group\":\"longhorn.io\",\"version\":\"v1\",\"kind\":\"RecurringJob\"}", "CREATE",
            ",\"object\":{\"spec\":{\"cron\":\"bad\"}}"),
     200, "allowed", "other", ALLOWED("rj-10"), NULL},

    /* ---- Volume ---- */
    {"Volume without labels gets the default group", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1", "vol-1", VOL, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{"
            "\"name\":\"pvc-1\",\"namespace\":\"longhorn-system\"},\"spec\":{\"size\":"
            "\"1073741824\"}}"),
     200, "patched", "Volume", PATCHED("vol-1", ""),
     "[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{"
     "\"recurring-job-group.longhorn.io/default\":\"enabled\"}}]"},
    {"Volume with other labels gets the default group label added", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1", "vol-2", VOL, "UPDATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{"
            "\"name\":\"pvc-1\",\"labels\":{\"app\":\"db\"}},\"spec\":{}},\"oldObject\":{"
            "\"metadata\":{\"name\":\"pvc-1\"},\"spec\":{}}"),
     200, "patched", "Volume", PATCHED("vol-2", ""),
     "[{\"op\":\"add\",\"path\":\"/metadata/labels/recurring-job-group.longhorn.io~1default\","
     "\"value\":\"enabled\"}]"},
    {"Volume with a job label is left alone", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1", "vol-3", VOL, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{"
            "\"name\":\"pvc-1\",\"labels\":{\"recurring-job.longhorn.io/daily\":\"enabled\"}},"
            "\"spec\":{}}"),
     200, "allowed", "Volume", ALLOWED("vol-3"), NULL},
    {"Volume: --default-group=\"\" disables the label", CW_WEBHOOK_MUTATE, 0, "", 0,
     REVIEW("v1", "vol-4", VOL, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{"
            "\"name\":\"pvc-1\"},\"spec\":{}}"),
     200, "allowed", "Volume", ALLOWED("vol-4"), NULL},
    {"Volume: --default-group names the group", CW_WEBHOOK_MUTATE, 0, "gold", 0,
     REVIEW("v1", "vol-5", VOL, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{"
            "\"name\":\"pvc-1\",\"labels\":{}},\"spec\":{}}"),
     200, "patched", "Volume", PATCHED("vol-5", ""),
     "[{\"op\":\"add\",\"path\":\"/metadata/labels/recurring-job-group.longhorn.io~1gold\","
     "\"value\":\"enabled\"}]"},
    {"Volume with legacy jobs is not given the default group", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1", "vol-6", VOL, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{"
            "\"name\":\"pvc-1\"},\"spec\":{\"recurringJobs\":[{\"name\":\"snap\",\"task\":"
            "\"snapshot\",\"cron\":\"*/5 * * * *\",\"retain\":3}]}}"),
     200, "allowed", "Volume", ALLOWED("vol-6"), NULL},
    {"Volume legacy recurringJobs are denied", CW_WEBHOOK_VALIDATE, 0, NULL, 0,
     REVIEW("v1", "vol-7", VOL, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{"
            "\"name\":\"pvc-1\"},\"spec\":{\"recurringJobs\":[{\"name\":\"snap\",\"task\":"
            "\"snapshot\",\"cron\":\"*/5 * * * *\",\"retain\":3}]}}"),
     200, "denied", "Volume", DENIED("vol-7", LEGACY_MSG), NULL},
    {"Volume validation never patches", CW_WEBHOOK_VALIDATE, 0, NULL, 0,
     REVIEW("v1", "vol-8", VOL, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{"
            "\"name\":\"pvc-1\"},\"spec\":{}}"),
     200, "allowed", "Volume", ALLOWED("vol-8"), NULL},
    {"Volume review in v1beta1 is answered in v1beta1", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1beta1", "vol-9", VOL, "CREATE",
            ",\"object\":{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{"
            "\"name\":\"pvc-1\"},\"spec\":{}}"),
     200, "patched", "Volume",
     "{\"apiVersion\":\"admission.k8s.io/v1beta1\",\"kind\":\"AdmissionReview\",\"response\":{"
     "\"uid\":\"vol-9\",\"allowed\":true,\"patchType\":\"JSONPatch\",\"patch\":\"@\"}}",
     "[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{"
     "\"recurring-job-group.longhorn.io/default\":\"enabled\"}}]"},

    /* ---- Schedule ---- */
    {"Schedule create gets skipImmediately made explicit", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1", "sch-1", SCH, "CREATE",
            ",\"object\":{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{"
            "\"name\":\"nightly\",\"namespace\":\"velero\"},\"spec\":{\"schedule\":\"0 1 * * *\","
            "\"template\":{}}}"),
     200, "patched", "Schedule",
     PATCHED("sch-1", ",\"warnings\":[\"spec.skipImmediately: set to false, the server default "
                      "(--schedule-skip-immediately), made explicit at creation\"]"),
     "[{\"op\":\"add\",\"path\":\"/spec/skipImmediately\",\"value\":false}]"},
    {"Schedule dry run gets the same decision", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1", "sch-1", SCH, "CREATE",
            ",\"dryRun\":true,\"object\":{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\","
            "\"metadata\":{\"name\":\"nightly\",\"namespace\":\"velero\"},\"spec\":{\"schedule\":"
            "\"0 1 * * *\",\"template\":{}}}"),
     200, "patched", "Schedule",
     PATCHED("sch-1", ",\"warnings\":[\"spec.skipImmediately: set to false, the server default "
                      "(--schedule-skip-immediately), made explicit at creation\"]"),
     "[{\"op\":\"add\",\"path\":\"/spec/skipImmediately\",\"value\":false}]"},
    {"Schedule: --schedule-skip-immediately is the value", CW_WEBHOOK_MUTATE, 0, NULL, 1,
     REVIEW("v1", "sch-2", SCH, "CREATE",
            ",\"object\":{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{"
            "\"name\":\"nightly\"},\"spec\":{\"schedule\":\"0 1 * * *\"}}"),
     200, "patched", "Schedule",
     PATCHED("sch-2", ",\"warnings\":[\"spec.skipImmediately: set to true, the server default "
                      "(--schedule-skip-immediately), made explicit at creation\"]"),
     "[{\"op\":\"add\",\"path\":\"/spec/skipImmediately\",\"value\":true}]"},
    {"Schedule with skipImmediately set is left alone", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW(
         "v1", "sch-3", SCH, "CREATE",
         ",\"object\":{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{"
         "\"name\":\"nightly\"},\"spec\":{\"schedule\":\"0 1 * * *\",\"skipImmediately\":true}}"),
     200, "allowed", "Schedule", ALLOWED("sch-3"), NULL},
    {"Schedule unpause gets skipImmediately", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1", "sch-4", SCH, "UPDATE",
            ",\"object\":{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{"
            "\"name\":\"nightly\"},\"spec\":{\"schedule\":\"0 1 * * *\",\"paused\":false}},"
            "\"oldObject\":{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{"
            "\"name\":\"nightly\"},\"spec\":{\"schedule\":\"0 1 * * *\",\"paused\":true}}"),
     200, "patched", "Schedule",
     PATCHED("sch-4", ",\"warnings\":[\"spec.skipImmediately: set to false, the server default "
                      "(--schedule-skip-immediately), because the schedule is being unpaused\"]"),
     "[{\"op\":\"add\",\"path\":\"/spec/skipImmediately\",\"value\":false}]"},
    {"Schedule update that stays paused is left alone", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1", "sch-5", SCH, "UPDATE",
            ",\"object\":{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{"
            "\"name\":\"nightly\"},\"spec\":{\"schedule\":\"0 2 * * *\",\"paused\":true}},"
            "\"oldObject\":{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{"
            "\"name\":\"nightly\"},\"spec\":{\"schedule\":\"0 1 * * *\",\"paused\":true}}"),
     200, "allowed", "Schedule", ALLOWED("sch-5"), NULL},
    {"Schedule with a bad cron is denied with Velero's message", CW_WEBHOOK_VALIDATE, 0, NULL, 0,
     REVIEW("v1", "sch-6", SCH, "CREATE",
            ",\"object\":{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{"
            "\"name\":\"nightly\"},\"spec\":{\"schedule\":\"61 * * * *\"}}"),
     200, "denied", "Schedule",
     DENIED("sch-6", "invalid schedule: end of range (61) above maximum (59): 61"), NULL},
    {"Schedule without a cron is denied with Velero's message", CW_WEBHOOK_VALIDATE, 0, NULL, 0,
     REVIEW("v1", "sch-7", SCH, "CREATE",
            ",\"object\":{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"metadata\":{"
            "\"name\":\"nightly\"},\"spec\":{}}"),
     200, "denied", "Schedule",
     DENIED("sch-7", "Schedule must be a non-empty valid Cron expression"), NULL},

    /* ---- anything else ---- */
    {"unknown kinds are allowed untouched", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1", "x-1", "{\"group\":\"apps\",\"version\":\"v1\",\"kind\":\"Deployment\"}",
            "CREATE", ",\"object\":{\"metadata\":{\"name\":\"web\"},\"spec\":{}}"),
     200, "allowed", "other", ALLOWED("x-1"), NULL},
    {"CONNECT is allowed", CW_WEBHOOK_VALIDATE, 0, NULL, 0, REVIEW("v1", "x-2", VOL, "CONNECT", ""),
     200, "allowed", "Volume", ALLOWED("x-2"), NULL},
    {"an undecodable review is a 400 with the reason", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1", "", VOL, "CREATE", ",\"object\":{}"), 400, "invalid", "",
     "request.uid: missing\n", NULL},
    /* found by fuzzing: blanking managedFields before parsing must not hide bad bytes */
    {"invalid UTF-8 in managedFields is a 400 as anywhere else", CW_WEBHOOK_MUTATE, 0, NULL, 0,
     REVIEW("v1", "x-3", VOL, "CREATE",
            ",\"object\":{\"metadata\":{\"name\":\"v\",\"managedFields\":[\"\xff\"]}}"),
     400, "invalid", "", "invalid JSON: invalid UTF-8 at offset 223\n", NULL},
};

static char *b64(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(4 * ((n + 2) / 3) + 1);
    EVP_EncodeBlock((unsigned char *)out, (const unsigned char *)s, (int)n);
    return out;
}

static void admissions_follow_the_policy(void **state)
{
    (void)state;
    cw_tzdb tzdb;
    cw_error err;
    cw_error_init(&err);
    assert_int_equal(cw_tzdb_init(&tzdb, NULL, &err), CW_OK);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const admit_case *c = &cases[i];
        cw_policy_config policy;
        assert_int_equal(cw_policy_config_init(&policy), CW_OK);
        policy.tzdb = &tzdb;
        if (c->max_retain)
            policy.max_retain = c->max_retain;
        if (c->default_group)
            assert_int_equal(cw_policy_config_set_default_group(&policy, c->default_group, &err),
                             CW_OK);
        policy.schedule_skip_immediately = c->skip_immediately;

        cw_webhook_result res;
        cw_webhook_result_init(&res);
        char *body = strdup(c->body);
        cw_webhook_admit(&policy, c->route, body, strlen(body), &res);
        free(body);

        cw_buf want;
        cw_buf_init(&want);
        const char *at = strchr(c->want, '@');
        if (c->patch) {
            char *enc = b64(c->patch);
            cw_buf_append(&want, c->want, (size_t)(at - c->want));
            cw_buf_puts(&want, enc);
            cw_buf_puts(&want, at + 1);
            free(enc);
        } else {
            cw_buf_puts(&want, c->want);
        }
        if (res.status != c->status || strcmp(cw_buf_str(&res.body), cw_buf_str(&want)) != 0)
            fail_msg("%s:\n got  %u %s\n want %u %s", c->what, res.status, cw_buf_str(&res.body),
                     c->status, cw_buf_str(&want));
        if (strcmp(res.outcome, c->outcome) != 0 || strcmp(res.kind_label, c->kind_label) != 0)
            fail_msg("%s: outcome %s kind %s", c->what, res.outcome, res.kind_label);
        cw_buf_free(&want);
        cw_webhook_result_free(&res);
        cw_policy_config_free(&policy);
    }
    cw_tzdb_free(&tzdb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(admissions_follow_the_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
