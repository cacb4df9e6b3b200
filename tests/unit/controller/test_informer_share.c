/* controller/core: the reconcilers `--controllers` enables share one informer per (resource,
 * namespace, selectors) — the real descriptors of controller/reconcilers.c, made by the manager
 * against a fake API server that serves every resource. Per reconciler set: which informers there
 * are and how many rows (sinks) read each; every row of a shared informer is told of a change;
 * and the informer metrics have one series per informer (none overwritten by another). */
#include "ctrl_test.h"

#include "controller/core/manager.h"
#include "controller/core/reconciler.h"
#include "controller/flags.h"
#include "kube/client.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/strlist.h"
#include "tests/unit/kube/fake_client.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define RJ_LIST                                                                                    \
    "{'kind':'RecurringJobList','metadata':{'resourceVersion':'7'},'items':[{'metadata':{'name':"  \
    "'daily','namespace':'longhorn-system','uid':'u-1','resourceVersion':'5'},'spec':{'cron':"     \
    "'0 0 * * *','task':'backup','groups':['default'],'retain':1,'concurrency':1}}]}"

/* Discovery of every group (one version each, serving every resource), empty LISTs, and the
 * RecurringJob LIST of RJ_LIST. */
static int serve(void *ud, const char *method, const char *path, int attempt, cw_kube_fault *f)
{
    static const struct {
        const char *group, *version;
    } groups[] = {{"longhorn.io", "v1beta2"},
                  {"batch", "v1"},
                  {"velero.io", "v1"},
                  {"apps", "v1"},
                  {"oadp.openshift.io", "v1alpha1"}};
    static char body[4096];
    (void)ud, (void)attempt, (void)method;
    f->status = 200;
    f->body = body;
    for (size_t i = 0; i < N(groups); i++) {
        char g[64];
        snprintf(g, sizeof(g), "/apis/%s", groups[i].group);
        if (!strcmp(path, g)) {
            snprintf(body, sizeof(body),
                     "{\"versions\":[{\"version\":\"%s\"}],\"preferredVersion\":{\"version\":"
                     "\"%s\"}}",
                     groups[i].version, groups[i].version);
            return 1;
        }
        snprintf(g + strlen(g), sizeof(g) - strlen(g), "/%s", groups[i].version);
        if (!strcmp(path, g)) {
            snprintf(body, sizeof(body), "{\"resources\":[");
            static const char *const plurals[] = {
                "recurringjobs", "volumes",         "backups",
                "backupvolumes", "settings",        "cronjobs",
                "jobs",          "schedules",       "restores",
                "daemonsets",    "nonadminbackups", "nonadminrestores"};
            for (size_t p = 0; p < N(plurals); p++)
                snprintf(body + strlen(body), sizeof(body) - strlen(body),
                         "%s{\"name\":\"%s\",\"kind\":\"X\",\"namespaced\":true}", p ? "," : "",
                         plurals[p]);
            snprintf(body + strlen(body), sizeof(body) - strlen(body), "]}");
            return 1;
        }
    }
    json_object *rj = tjson(RJ_LIST);
    snprintf(body, sizeof(body), "%s",
             strstr(path, "/recurringjobs?")
                 ? json_object_to_json_string_ext(rj, JSON_C_TO_STRING_PLAIN)
                 : "{\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[]}");
    json_object_put(rj);
    return 1;
}

/* "<resource>.<group>/<version> <namespace or *> [<selectors>] x<rows>" per informer, sorted. */
static char *informers_of(cw_ctrl *c)
{
    cw_strlist lines;
    cw_strlist_init(&lines);
    for (size_t i = 0; i < c->informers.n; i++) {
        cw_informer *inf = c->informers.items[i];
        char res[256];
        cw_informer_resource_name(inf, res, sizeof(res));
        cw_strlist_addf(&lines, "%s %s [%s%s%s] x%zu", res,
                        inf->cfg.resource.namespace ? inf->cfg.resource.namespace : "*",
                        inf->cfg.label_selector ? inf->cfg.label_selector : "",
                        inf->cfg.field_selector ? " " : "",
                        inf->cfg.field_selector ? inf->cfg.field_selector : "", inf->nsinks);
    }
    cw_strlist_sort(&lines);
    char *out = cw_strlist_join(&lines, "\n");
    cw_strlist_free(&lines);
    return out;
}

/* The lines of text, sorted. */
static char *sorted(const char *text)
{
    cw_strlist lines;
    cw_strlist_init(&lines);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        assert_int_equal(cw_strlist_addf(&lines, "%.*s", (int)len, p), CW_OK);
        p += len + (nl != NULL);
    }
    cw_strlist_sort(&lines);
    char *out = cw_strlist_join(&lines, "\n");
    cw_strlist_free(&lines);
    return out;
}

#define LH               "longhorn-system"
#define RJS              "recurringjobs.longhorn.io/v1beta2 " LH " [] "
#define VOLS             "volumes.longhorn.io/v1beta2 " LH " [] "
#define DS               "daemonsets.apps/v1 " LH " [ metadata.name=longhorn-manager] "
#define BACKUPS_LABELLED "backups.velero.io/v1 velero [velero.io/schedule-name] "
#define BACKUPS_ALL      "backups.velero.io/v1 velero [] "
#define OWNED_CRONJOBS                                                                             \
    "cronjobs.batch/v1 " LH " [longhorn.io/"                                                       \
    "managed-by=longhorn-manager,recurring-job.longhorn.io] "
#define SH_ONLY                                                                                    \
    "backups.longhorn.io/v1beta2 " LH " [] x1\n"                                                   \
    "backupvolumes.longhorn.io/v1beta2 " LH " [] x1\n"                                             \
    "cronjobs.batch/v1 " LH " [] x1\n"                                                             \
    "jobs.batch/v1 " LH " [] x1\n"
#define RJ_ONLY "settings.longhorn.io/v1beta2 " LH " [] x1\n"

static const struct {
    const char *controllers; /* --controllers */
    const char *want;        /* informers_of */
} sets[] = {
    /* the default set: RecurringJobs read by three reconcilers (schedule-health twice: its model
     * and its schedules' identities), Volumes by two, the DaemonSet by two */
    {NULL, BACKUPS_LABELLED "x1\n" SH_ONLY OWNED_CRONJOBS "x1\n" DS "x2\n" RJS "x4\n"
                            "schedules."
                            "velero.io/v1 velero [] x2\n" RJ_ONLY VOLS "x2"},
    {"recurringjob", OWNED_CRONJOBS "x1\n" DS "x1\n" RJS "x1\n" RJ_ONLY},
    {"volume", DS "x1\n" RJS "x1\n" VOLS "x1"},
    {"schedule-health", BACKUPS_LABELLED "x1\n" SH_ONLY RJS "x2\n"
                                         "schedules.velero.io/v1 velero [] x2\n" VOLS "x1"},
    {"schedule", BACKUPS_LABELLED "x1\nschedules.velero.io/v1 velero [] x1"},
    {"backup-queue", BACKUPS_ALL "x1\nnamespaces/v1 * [] x1"},
    {"nonadminbackup", BACKUPS_ALL "x1\nnonadminbackups.oadp.openshift.io/v1alpha1 * [] x1"},
    {"nonadminrestore",
     "nonadminrestores.oadp.openshift.io/v1alpha1 * [] x1\nrestores.velero.io/v1 velero [] x1"},
    /* all: Velero's Backups twice (two selectors), each read by two reconcilers */
    {"*", BACKUPS_LABELLED
     "x2\n" BACKUPS_ALL "x2\n" SH_ONLY OWNED_CRONJOBS "x1\n" DS "x2\n" RJS
     "x4\nnamespaces/v1 * [] x1\nnonadminbackups.oadp.openshift.io/v1alpha1 * [] x1\n"
     "nonadminrestores.oadp.openshift.io/v1alpha1 * [] x1\nrestores.velero.io/v1 velero [] "
     "x1\nschedules.velero.io/v1 velero [] x3\n" RJ_ONLY VOLS "x2"},
};

/* The flags as cmd/controller.c parses them, into every reconciler's config. */
typedef struct parsed {
    cw_opt rows[128];
    void *bases[128];
    cw_cmd_spec spec;
    cw_reconciler_configs configs;
} parsed;

static void configure(parsed *p)
{
    size_t n = 0;
    cw_error err;
    char *argv[] = {"controller", "--namespace=velero", "--longhorn-namespace=" LH,
                    "--oadp-namespace=velero", NULL};
    assert_int_equal(cw_reconciler_configs_init(&p->configs, cw_reconcilers, &err), CW_OK);
    assert_int_equal(
        cw_reconcilers_opts(cw_reconcilers, &p->configs, p->rows, p->bases, N(p->rows), &n, &err),
        CW_OK);
    p->spec = (cw_cmd_spec){
        .name = "controller", .opts = p->rows, .nopts = n, .bases = p->bases, .max_args = 0};
    assert_int_equal(cw_opts_parse(&p->spec, 4, argv, NULL, stdout, &err), CW_OK);
    if (cw_reconcilers_configure(cw_reconcilers, &p->configs, &err) != CW_OK)
        fail_msg("configure: %s", err.message);
}

static void unconfigure(parsed *p)
{
    cw_reconcilers_unconfigure(cw_reconcilers, &p->configs);
    cw_opts_free(&p->spec);
    cw_reconciler_configs_free(&p->configs);
}

static cw_kube_client *server(void)
{
    cw_kube_client_opts o;
    cw_kube_client_opts_init(&o);
    o.fault = serve;
    o.max_attempts = 1;
    return fake_kube_client(&o, NULL, NULL);
}

/* The number of series of a family, and whether any two lines are the same series. */
static size_t series_of(cw_ctrl *c, const char *family, int *dup)
{
    cw_buf b;
    cw_strlist seen;
    size_t n = 0, len = strlen(family);
    cw_buf_init(&b);
    cw_strlist_init(&seen);
    assert_int_equal(cw_metrics_render(&c->metrics, &b), CW_OK);
    for (const char *p = cw_buf_str(&b); p && *p;) {
        const char *nl = strchr(p, '\n'), *sp = strchr(p, ' ');
        if (!strncmp(p, family, len) && p[len] == '{' && sp) {
            char *series = strndup(p, (size_t)(sp - p));
            *dup |= cw_strlist_contains(&seen, series);
            assert_int_equal(cw_strlist_add(&seen, series), CW_OK);
            free(series);
            n++;
        }
        p = nl ? nl + 1 : NULL;
    }
    cw_strlist_free(&seen);
    cw_buf_free(&b);
    return n;
}

static void reconciler_sets_share_informers(void **state)
{
    (void)state;
    parsed p;
    cw_kube_client *kube = server();
    cw_log_configure(CW_LOG_OFF, CW_LOG_TEXT, stderr);
    configure(&p);
    for (size_t i = 0; i < N(sets); i++) {
        cw_ctrl c;
        cw_error err;
        cw_ctrl_config cfg = {
            .kube = kube, .controllers = sets[i].controllers, .configs = p.configs.cfgs};
        if (cw_ctrl_init(&c, &cfg, &err) != CW_OK)
            fail_msg("%s: %s", sets[i].controllers, err.message);
        char *got = informers_of(&c), *want = sorted(sets[i].want);
        if (strcmp(got, want))
            fail_msg("--controllers %s: informers\n got:\n%s\nwant:\n%s",
                     sets[i].controllers ? sets[i].controllers : "(default)", got, want);
        free(got);
        free(want);
        /* Every informer LISTed once: one series each in every family, no two the same. */
        for (size_t k = 0; k < c.informers.n; k++)
            assert_int_equal(cw_informer_relist(c.informers.items[k], &err), CW_OK);
        int dup = 0;
        assert_int_equal(series_of(&c, "cronwarden_controller_informer_synced", &dup),
                         c.informers.n);
        assert_int_equal(series_of(&c, "cronwarden_controller_informer_objects", &dup),
                         c.informers.n);
        assert_false(dup);
        cw_ctrl_free(&c);
    }
    unconfigure(&p);
    cw_kube_client_free(kube);
    cw_log_configure(CW_LOG_INFO, CW_LOG_TEXT, stderr);
}

/* One RecurringJob LISTed once reaches all three default reconcilers: recurringjob queues it,
 * volume caches it (its index), schedule-health judges it (its key and the volume counts). */
static void every_row_hears_each_change(void **state)
{
    (void)state;
    parsed p;
    cw_kube_client *kube = server();
    cw_ctrl c;
    cw_error err;
    cw_log_configure(CW_LOG_OFF, CW_LOG_TEXT, stderr);
    configure(&p);
    cw_ctrl_config cfg = {.kube = kube, .configs = p.configs.cfgs};
    assert_int_equal(cw_ctrl_init(&c, &cfg, &err), CW_OK);
    cw_informer *rjs = cw_shell_informer(cw_ctrl_slot_named(&c, "recurringjob")->shell, 0);
    assert_int_equal(cw_informer_relist(rjs, &err), CW_OK);
    static const struct {
        const char *reconciler, *queued; /* its queue's keys, in order */
    } want[] = {
        {"recurringjob", "longhorn-system/daily"},
        {"volume", ""},
        {"schedule-health", "RecurringJob/longhorn-system/daily,volumes"},
    };
    for (size_t i = 0; i < N(want); i++) {
        cw_ctrl_slot *s = cw_ctrl_slot_named(&c, want[i].reconciler);
        cw_strlist keys;
        cw_strlist_init(&keys);
        char *key;
        while (cw_queue_get(&s->queue, 0, &key) == CW_OK) {
            assert_int_equal(cw_strlist_add(&keys, key), CW_OK);
            cw_queue_done(&s->queue, key);
            free(key);
        }
        char *got = cw_strlist_join(&keys, ",");
        if (strcmp(got, want[i].queued))
            fail_msg("%s queued %s, want %s", want[i].reconciler, got, want[i].queued);
        free(got);
        cw_strlist_free(&keys);
    }
    /* volume's own cache of RecurringJobs (what its index reads) has it */
    json_object *copy = NULL;
    cw_shell *vol = cw_ctrl_slot_named(&c, "volume")->shell;
    assert_ptr_equal(cw_shell_informer(vol, 1), rjs);
    assert_int_equal(cw_ctrl_store_get(cw_shell_store(vol, 1), "longhorn-system/daily", &copy),
                     CW_OK);
    json_object_put(copy);
    cw_ctrl_free(&c);
    unconfigure(&p);
    cw_kube_client_free(kube);
    cw_log_configure(CW_LOG_INFO, CW_LOG_TEXT, stderr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reconciler_sets_share_informers),
        cmocka_unit_test(every_row_hears_each_change),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
