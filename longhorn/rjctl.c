#include "longhorn/rjctl.h"

#include <stdlib.h>
#include <string.h>

#include "longhorn/recurringjob.h"
#include "lib/gojson.h"
#include "lib/json.h"

void cw_rjctl_actions_init(cw_rjctl_actions *a)
{
    memset(a, 0, sizeof(*a));
    cw_strlist_init(&a->delete);
    cw_strlist_init(&a->problems);
}

void cw_rjctl_actions_free(cw_rjctl_actions *a)
{
    json_object_put(a->cronjob);
    free(a->update_name);
    cw_strlist_free(&a->delete);
    cw_strlist_free(&a->problems);
    memset(a, 0, sizeof(*a));
}

const char *cw_rjctl_outcome_name(cw_rjctl_outcome o)
{
    static const char *const names[] = {"insync", "created", "updated", "invalid", "gone"};
    return (unsigned)o < sizeof(names) / sizeof(names[0]) ? names[o] : "unknown";
}

/* ---- the spec, in Go's bytes ---- */

static void key(cw_buf *b, int *first, const char *k)
{
    if (!*first)
        cw_buf_putc(b, ',');
    *first = 0;
    cw_gojson_write_string(b, k, strlen(k));
    cw_buf_putc(b, ':');
}

static void str(cw_buf *b, int *first, const char *k, const char *v)
{
    key(b, first, k);
    cw_gojson_write_string(b, v, strlen(v));
}

/* types.GetCronJobLabels: a Go map, so sorted; the two keys happen to sort this way. */
static void labels(cw_buf *b, int *first, const char *name)
{
    int f = 1;
    key(b, first, "labels");
    cw_buf_putc(b, '{');
    str(b, &f, CW_RJCTL_MANAGED_BY, CW_RJCTL_MANAGED_BY_VALUE);
    str(b, &f, CW_RJCTL_LABEL, name);
    cw_buf_putc(b, '}');
}

/* corev1.Container: name, image, command, env, resources (not omitempty), volumeMounts. */
static void container(cw_buf *b, const cw_rjctl_config *cfg, const char *name)
{
    int f = 1;
    const char *cmd[] = {"longhorn-manager",
                         "-d",
                         "recurring-job",
                         name,
                         "--manager-url",
                         cfg->manager_url && *cfg->manager_url ? cfg->manager_url
                                                               : CW_RJCTL_MANAGER_URL};
    cw_buf_putc(b, '{');
    str(b, &f, "name", name);
    str(b, &f, "image", cfg->image ? cfg->image : "");
    key(b, &f, "command");
    for (size_t i = 0; i < sizeof(cmd) / sizeof(cmd[0]); i++) {
        cw_buf_putc(b, i ? ',' : '[');
        cw_gojson_write_string(b, cmd[i], strlen(cmd[i]));
    }
    cw_buf_puts(b, "],\"env\":[{\"name\":\"POD_NAMESPACE\",\"valueFrom\":{\"fieldRef\":{"
                   "\"fieldPath\":\"metadata.namespace\"}}}],\"resources\":{},"
                   "\"volumeMounts\":[{\"name\":\"engine-binaries\",\"mountPath\":"
                   "\"" CW_RJCTL_ENGINE_BINARIES "\"}]}");
}

static int nonempty(json_object *v)
{
    return (json_object_is_type(v, json_type_array) && json_object_array_length(v) > 0) ||
           (json_object_is_type(v, json_type_object) && json_object_object_length(v) > 0);
}

/* corev1.PodSpec in field order: volumes, containers, restartPolicy, nodeSelector,
 * serviceAccountName, imagePullSecrets (1.3+), tolerations, priorityClassName. */
static int pod_spec(cw_buf *b, const cw_rjctl_config *cfg, const char *name)
{
    int f, rc = CW_OK;
    cw_buf_puts(b, "{\"volumes\":[{\"name\":\"engine-binaries\",\"hostPath\":{\"path\":"
                   "\"" CW_RJCTL_ENGINE_BINARIES "\"}}]");
    f = 0;
    key(b, &f, "containers");
    cw_buf_putc(b, '[');
    container(b, cfg, name);
    cw_buf_putc(b, ']');
    str(b, &f, "restartPolicy", "OnFailure");
    if (nonempty(cfg->node_selector)) {
        key(b, &f, "nodeSelector");
        rc = cw_gojson_write(cfg->node_selector, b);
    }
    str(b, &f, "serviceAccountName",
        cfg->service_account && *cfg->service_account ? cfg->service_account
                                                      : CW_RJCTL_SERVICE_ACCOUNT);
    if (cfg->profile && cfg->profile->pull_secret && cfg->registry_secret &&
        *cfg->registry_secret) {
        int sf = 1;
        key(b, &f, "imagePullSecrets");
        cw_buf_puts(b, "[{");
        str(b, &sf, "name", cfg->registry_secret);
        cw_buf_puts(b, "}]");
    }
    if (rc == CW_OK && nonempty(cfg->tolerations)) {
        /* Toleration objects are built in Go's field order (key, operator, value, effect):
         * written as they are, not sorted as a map would be. */
        key(b, &f, "tolerations");
        for (size_t i = 0; i < json_object_array_length(cfg->tolerations); i++) {
            int tf = 1;
            cw_buf_putc(b, i ? ',' : '[');
            cw_buf_putc(b, '{');
            json_object_object_foreach(json_object_array_get_idx(cfg->tolerations, i), k, v)
            {
                key(b, &tf, k);
                if (rc == CW_OK)
                    rc = cw_gojson_write(v, b);
            }
            cw_buf_putc(b, '}');
        }
        cw_buf_putc(b, ']');
    }
    if (cfg->priority_class && *cfg->priority_class)
        str(b, &f, "priorityClassName", cfg->priority_class);
    cw_buf_putc(b, '}');
    return rc;
}

int cw_rjctl_spec_json(const cw_rjctl_config *cfg, const char *name, const char *cron, cw_buf *b)
{
    /* metav1.ObjectMeta's zero creationTimestamp is "null" until apimachinery v0.34 tags it
     * omitzero (Longhorn 1.10). */
    int f = 1, rc, stamp = !cfg->profile || cfg->profile->creation_timestamp;
    int history = cfg->profile && cfg->profile->history_limits;
    size_t start = b->len;
    cw_buf_putc(b, '{');
    str(b, &f, "schedule", cron);
    str(b, &f, "concurrencyPolicy", "Forbid");
    cw_buf_puts(b, stamp ? ",\"jobTemplate\":{\"metadata\":{\"creationTimestamp\":null},"
                         : ",\"jobTemplate\":{\"metadata\":{},");
    cw_buf_puts(b, "\"spec\":{\"backoffLimit\":3,\"template\":{\"metadata\":{");
    int mf = 1;
    str(b, &mf, "name", name);
    if (stamp)
        cw_buf_puts(b, ",\"creationTimestamp\":null");
    labels(b, &mf, name);
    cw_buf_puts(b, "},\"spec\":");
    rc = pod_spec(b, cfg, name);
    /* CronJobSpec: successfulJobsHistoryLimit, then failedJobsHistoryLimit (*int32, omitempty:
     * a pointer to 0 is written). */
    cw_buf_printf(b, "}}},\"successfulJobsHistoryLimit\":%d",
                  history ? (int)cfg->successful_history : 1);
    if (history)
        cw_buf_printf(b, ",\"failedJobsHistoryLimit\":%d", (int)cfg->failed_history);
    cw_buf_putc(b, '}');
    if (rc == CW_OK && cw_buf_error(b))
        rc = CW_ENOMEM;
    if (rc == CW_OK && cfg->profile && cfg->profile->json_short_escapes)
        cw_gojson_short_escapes(b, start);
    return rc;
}

/* ---- the Settings ---- */

void cw_rjctl_settings_free(cw_rjctl_settings *s)
{
    json_object_put(s->tolerations);
    json_object_put(s->node_selector);
    free(s->priority_class);
    free(s->registry_secret);
    memset(s, 0, sizeof(*s));
}

/* The Setting's value, or its default; NULL when that minor does not read it. */
static const char *setting(const cw_lh_profile *p, json_object *values, const char *name)
{
    size_t n;
    const cw_lh_setting_def *defs = cw_lh_setting_defs(&n);
    if (!cw_lh_setting_read_by(name, p->minor))
        return NULL;
    const char *v = json_object_get_string(cw_json_member(values, name));
    for (size_t i = 0; !v && i < n; i++)
        if (strcmp(defs[i].name, name) == 0)
            v = defs[i].def;
    return v;
}

int cw_rjctl_settings_read(const cw_lh_profile *p, json_object *values, cw_rjctl_settings *out,
                           cw_error *err)
{
    const char *ok = setting(p, values, CW_LH_SETTING_HISTORY_OK);
    const char *failed = setting(p, values, CW_LH_SETTING_HISTORY_FAILED);
    const char *prio = setting(p, values, CW_LH_SETTING_PRIORITY);
    const char *reg = setting(p, values, CW_LH_SETTING_REGISTRY);
    int rc = CW_OK;
    memset(out, 0, sizeof(*out));
    out->successful_history = out->failed_history = 1;
    if ((ok && (rc = cw_lh_parse_history_limit(p->minor, CW_LH_SETTING_HISTORY_OK, ok,
                                               &out->successful_history, err)) != CW_OK) ||
        (failed && (rc = cw_lh_parse_history_limit(p->minor, CW_LH_SETTING_HISTORY_FAILED, failed,
                                                   &out->failed_history, err)) != CW_OK) ||
        (rc = cw_lh_parse_tolerations_as(p->settings_reading,
                                         setting(p, values, CW_LH_SETTING_TOLERATION),
                                         &out->tolerations, err)) != CW_OK ||
        /* UnmarshalNodeSelector's message changed in 1.4.0 ("separator"), with the minor; the
         * toleration parser not before 1.4.2 (settings_reading). */
        (rc =
             cw_lh_parse_node_selector_as(p->minor, setting(p, values, CW_LH_SETTING_NODE_SELECTOR),
                                          &out->node_selector, err)) != CW_OK)
        goto done;
    if ((prio && !(out->priority_class = strdup(prio))) ||
        (reg && !(out->registry_secret = strdup(reg))))
        rc = cw_error_oom(err);
done:
    if (rc != CW_OK)
        cw_rjctl_settings_free(out);
    return rc;
}

void cw_rjctl_config_use(cw_rjctl_config *cfg, const cw_lh_profile *p, const cw_rjctl_settings *s)
{
    cfg->profile = p;
    cfg->tolerations = s->tolerations;
    cfg->node_selector = s->node_selector;
    cfg->priority_class = s->priority_class;
    cfg->registry_secret = s->registry_secret;
    cfg->successful_history = s->successful_history;
    cfg->failed_history = s->failed_history;
}

/* ---- the CronJob ---- */

static int add(json_object *obj, const char *k, json_object *v)
{
    if (!v)
        return CW_ENOMEM;
    if (json_object_object_add(obj, k, v)) {
        json_object_put(v);
        return CW_ENOMEM;
    }
    return CW_OK;
}

static json_object *job_labels(const char *name)
{
    json_object *l = json_object_new_object();
    if (l && (add(l, CW_RJCTL_MANAGED_BY, json_object_new_string(CW_RJCTL_MANAGED_BY_VALUE)) ||
              add(l, CW_RJCTL_LABEL, json_object_new_string(name)))) {
        json_object_put(l);
        return NULL;
    }
    return l;
}

/* datastore.GetOwnerReferencesForRecurringJob: the manager's own scheme version (v1beta1 in 1.2,
 * v1beta2 from 1.3), whatever version the cached object was read in. */
static json_object *owner(json_object *rj, const cw_rjctl_config *cfg)
{
    const char *api_version = cfg->rj_api_version;
    const char *av = cfg->profile ? cfg->profile->owner_api : cw_json_path_string(rj, "apiVersion");
    return cw_json_owner_refs(av            ? av
                              : api_version ? api_version
                                            : "",
                              "RecurringJob", cw_json_path_string(rj, "metadata.name"),
                              cw_json_path_string(rj, "metadata.uid"), 0);
}

int cw_rjctl_cronjob(const cw_rjctl_config *cfg, json_object *rj, json_object **out, cw_error *err)
{
    const char *name = cw_json_path_string(rj, "metadata.name");
    const char *ns = cw_json_path_string(rj, "metadata.namespace");
    const char *uid = cw_json_path_string(rj, "metadata.uid");
    const char *cron = cw_json_path_string(rj, "spec.cron");
    json_object *cj = json_object_new_object(), *meta = json_object_new_object();
    json_object *ann = json_object_new_object();
    cw_buf b;
    int rc = CW_ENOMEM;
    *out = NULL;
    cw_buf_init(&b);
    /* Each object goes into its parent at once, so the one cleanup below frees everything. */
    if (!cj || !meta || !ann) {
        json_object_put(meta);
        json_object_put(ann);
        goto done;
    }
    if (add(cj, "metadata", meta)) {
        json_object_put(ann);
        goto done;
    }
    if (add(meta, "annotations", ann))
        goto done;
    if (!name || !uid || !cron) {
        rc = cw_error_set(err, CW_EINVAL,
                          "RecurringJob %s: metadata.name, metadata.uid and spec.cron are "
                          "required to make its CronJob",
                          name ? name : "(no name)");
        goto done;
    }
    if (cw_rjctl_spec_json(cfg, name, cron, &b) != CW_OK ||
        add(cj, "apiVersion", json_object_new_string(cfg->cronjob_api_version)) ||
        add(cj, "kind", json_object_new_string("CronJob")) ||
        add(meta, "name", json_object_new_string(name)) ||
        (ns && add(meta, "namespace", json_object_new_string(ns))) ||
        add(meta, "labels", job_labels(name)) ||
        add(ann, CW_RJCTL_ANNOTATION, json_object_new_string(cw_buf_str(&b))) ||
        add(meta, "ownerReferences", owner(rj, cfg)) ||
        add(cj, "spec", json_tokener_parse(cw_buf_str(&b))))
        goto done;
    rc = CW_OK;
    *out = cj;
    cj = NULL;
done:
    json_object_put(cj); /* NULL when handed out */
    cw_buf_free(&b);
    return rc == CW_ENOMEM ? cw_error_oom(err) : rc;
}

/* ---- the decision ---- */

static int cmp_compact(const void *a, const void *b)
{
    return strcmp(json_object_to_json_string(*(json_object *const *)a),
                  json_object_to_json_string(*(json_object *const *)b));
}

static void sort_tolerations(json_object *spec)
{
    json_object *t = cw_json_path(spec, "jobTemplate.spec.template.spec.tolerations");
    if (json_object_is_type(t, json_type_array))
        json_object_array_sort(t, cmp_compact);
}

/* The annotation says the desired spec: the same bytes, or (Longhorn writes tolerations from a Go
 * map, in random order) the same spec up to the order of its tolerations. Otherwise the two
 * would rewrite each other's CronJob for ever. */
static int same_spec(const char *have, const char *want)
{
    if (!have)
        return 0;
    if (strcmp(have, want) == 0)
        return 1;
    json_object *h = json_tokener_parse(have), *w = json_tokener_parse(want);
    int same = 0;
    if (h && w) {
        sort_tolerations(h);
        sort_tolerations(w);
        same = json_object_equal(h, w);
    }
    json_object_put(h);
    json_object_put(w);
    return same;
}

static const char *annotation(json_object *cj)
{
    return json_object_get_string(
        cw_json_member(cw_json_path(cj, "metadata.annotations"), CW_RJCTL_ANNOTATION));
}

/* The controller's rules (cw_recurringjob_check_runnable), with the tasks of the cluster's
 * release: what Longhorn's controller would not turn into a CronJob that runs. The webhook's
 * other rules (parameters, concurrency, retain, labels, groups, names) are not the controller's:
 * Longhorn's newCronJob reads none of them and writes the CronJob whatever they say. */
static int validate(const cw_rjctl_config *cfg, json_object *rj, cw_strlist *problems,
                    cw_error *err)
{
    cw_policy_config policy = *cfg->policy;
    if (cfg->profile) {
        policy.longhorn_minor = cfg->profile->minor;
        policy.longhorn_patch = cfg->profile->first_patch;
    }
    int rc = cw_recurringjob_check_runnable(&policy, rj, problems);
    return rc == CW_OK ? CW_OK : cw_error_oom(err);
}

int cw_rjctl_in_sync(json_object *cronjob, json_object *want)
{
    return same_spec(annotation(cronjob), annotation(want));
}

int cw_rjctl_decide(json_object *rj, const char *name, json_object *cronjobs,
                    const cw_rjctl_config *cfg, cw_rjctl_actions *out, cw_error *err)
{
    size_t n = cronjobs ? json_object_array_length(cronjobs) : 0;
    long own = -1;
    int rc;
    /* The one named after the job is its own; without it, the first one labelled for it. */
    for (size_t i = 0; rj && i < n; i++) {
        const char *cn =
            cw_json_path_string(json_object_array_get_idx(cronjobs, i), "metadata.name");
        if (own < 0 || (cn && strcmp(cn, name) == 0))
            own = (long)i;
    }
    for (size_t i = 0; i < n; i++) {
        const char *cn =
            cw_json_path_string(json_object_array_get_idx(cronjobs, i), "metadata.name");
        if ((long)i != own && cn && cw_strlist_add(&out->delete, cn) != CW_OK)
            return cw_error_oom(err);
    }
    if (!rj) {
        out->outcome = CW_RJCTL_GONE;
        return CW_OK;
    }
    if ((rc = validate(cfg, rj, &out->problems, err)) != CW_OK)
        return rc;
    if (out->problems.len) {
        out->outcome = CW_RJCTL_INVALID;
        return CW_OK;
    }
    if ((rc = cw_rjctl_cronjob(cfg, rj, &out->cronjob, err)) != CW_OK)
        return rc;
    json_object *cur = own >= 0 ? json_object_array_get_idx(cronjobs, (size_t)own) : NULL;
    if (!cur) {
        out->outcome = CW_RJCTL_CREATE;
    } else if (cw_rjctl_in_sync(cur, out->cronjob)) {
        out->outcome = CW_RJCTL_INSYNC;
        json_object_put(out->cronjob);
        out->cronjob = NULL;
    } else {
        out->outcome = CW_RJCTL_UPDATE;
        if (!(out->update_name = strdup(cw_json_path_string(cur, "metadata.name"))))
            return cw_error_oom(err);
    }
    return CW_OK;
}
