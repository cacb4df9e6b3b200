#include "controller/volume_apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/core/shell.h"
#include "controller/longhorn_watch.h"
#include "longhorn/recurringjob.h"
#include "longhorn/volume.h"
#include "lib/json.h"
#include "lib/log.h"

/* ---- its flags and config ---- */

static const cw_opt opts[] = {
    CW_CTRL_OPT_LONGHORN_NAMESPACE,
    CW_CTRL_OPT_LONGHORN_VERSION,
    CW_CTRL_OPT_DEFAULT_GROUP,
    CW_POLICY_OPT_NAME_SCHEME("volume: as `migrate --name-scheme`, ",
                              CW_OPT_IN(CW_RECONCILER_AT_CONFIG, cw_volume_config, name_scheme)),
    CW_CTRL_OPT_MAX_RETAIN,
};

static int config_init(void *p, const cw_ctrl_flags *f, cw_error *err)
{
    cw_volume_config *c = p;
    const char *ns = f->longhorn_namespace;
    int rc = cw_lh_parse_version_flag(f->longhorn_version, &c->longhorn, err);
    if (rc == CW_OK)
        rc = cw_ctrl_policy_config_init(c, f, "--longhorn-namespace", ns, 0, err);
    if (rc == CW_OK)
        rc = cw_recurringjob_check_group_flag("--default-group", f->default_group, err);
    if (rc == CW_OK &&
        (rc = cw_names_scheme_parse(c->name_scheme, &c->decide.scheme, err)) == CW_OK)
        rc = cw_policy_config_set_default_group(&c->base.policy, f->default_group, err);
    c->decide.policy = &c->base.policy;
    c->decide.namespace = ns;
    return rc == CW_EINVAL ? CW_EUSAGE : rc;
}

/* Its state: which Longhorn runs (controller/longhorn_watch.h). */
static int init(cw_shell *s, void **state, cw_error *err)
{
    const cw_volume_config *c = s->env.config;
    return cw_lh_watch_new(s, CW_LH_RECONCILER_VOLUME, CW_VOLUME_MANAGERS, CW_VOLUME_VOLUMES,
                           &c->longhorn, state, err);
}

/* ---- what it reads ---- */

/* A Volume as the decision reads it, in as few json-c objects as it takes (10,000 volumes are
 * kept): identity, its job labels (no map without one: the label patch is a merge patch, which
 * keeps whatever other labels the volume has) and the members of spec the rules read
 * (cw_volume_spec_members: spec.recurringJobs, spec.cloneMode) when present. */
static json_object *volume_fields(json_object *obj)
{
    static const char *const keep[] = {"metadata.name", "metadata.namespace", "metadata.uid",
                                       "metadata.resourceVersion", NULL};
    json_object *o = cw_json_keep(obj, keep), *l = NULL, *labels, *spec = NULL;
    json_object *from = cw_json_member(obj, "spec");
    for (size_t i = 0; o && cw_volume_spec_members[i]; i++) {
        json_object *v = cw_json_member(from, cw_volume_spec_members[i]);
        if (!v)
            continue;
        if (!spec &&
            (!(spec = json_object_new_object()) || json_object_object_add(o, "spec", spec))) {
            json_object_put(spec);
            json_object_put(o);
            return NULL;
        }
        json_object_object_add(spec, cw_volume_spec_members[i], json_object_get(v));
    }
    if (!o || !json_object_is_type(labels = cw_json_path(obj, "metadata.labels"), json_type_object))
        return o;
    json_object_object_foreach(labels, k, v)
    {
        if (!cw_volume_is_job_label(k))
            continue;
        if (!l && (!(l = json_object_new_object()) ||
                   json_object_object_add(cw_json_member(o, "metadata"), "labels", l))) {
            json_object_put(l);
            json_object_put(o);
            return NULL;
        }
        json_object_object_add(l, k, json_object_get(v));
    }
    return o;
}

/* The cache keeps each volume as one JSON string of those fields: 10,000 volumes as json-c trees
 * of three maps each would take some 25 MiB; as text, a tenth of that. Parsed again (a few
 * microseconds) when the volume is reconciled or indexed. */
static json_object *volume_slim(void *ud, json_object *obj)
{
    (void)ud;
    json_object *f = volume_fields(obj);
    json_object *text = f ? json_object_new_string(json_object_to_json_string_ext(
                                f, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE))
                          : NULL;
    json_object_put(f);
    return text;
}

/* A cached volume as the decision reads it (NULL: not JSON, or out of memory). */
static json_object *volume_parse(json_object *cached)
{
    return json_object_is_type(cached, json_type_string)
               ? json_tokener_parse(json_object_get_string(cached))
               : NULL;
}

/* Volumes that still carry legacy jobs, under one index key. */
static int volume_index(void *ud, json_object *obj, char *out, size_t outlen)
{
    (void)ud;
    json_object *vol = volume_parse(obj);
    int legacy = cw_volume_has_legacy_jobs(vol);
    json_object_put(vol);
    if (legacy)
        snprintf(out, outlen, "legacy");
    return legacy;
}

static json_object *rj_slim(void *ud, json_object *obj)
{
    return cw_informer_copy_spec(obj, cw_shell_api_version(ud, CW_VOLUME_RECURRINGJOBS),
                                 "RecurringJob");
}

/* Every RecurringJob under its namespace: the plan of a volume sees them all. */
static int rj_index(void *ud, json_object *obj, char *out, size_t outlen)
{
    (void)ud;
    const char *ns = cw_json_path_string(obj, "metadata.namespace");
    int n = snprintf(out, outlen, "%s", ns ? ns : "");
    return n >= 0 && (size_t)n < outlen;
}

/* A RecurringJob appeared, changed or went: a volume refused for a name conflict, or waiting for
 * a job created a moment ago, may go on. Only volumes with legacy jobs care. */
static void on_rj(void *ud, cw_informer_op op, const char *key, json_object *old, json_object *obj)
{
    (void)op;
    (void)key;
    (void)old;
    (void)obj;
    cw_shell *s = ud;
    cw_strlist keys;
    cw_strlist_init(&keys);
    if (cw_ctrl_store_index_keys(cw_shell_store(s, CW_VOLUME_VOLUMES), "legacy", &keys) == CW_OK)
        for (size_t i = 0; i < keys.len; i++)
            cw_queue_add(s->env.queue, keys.items[i]);
    cw_strlist_free(&keys);
}

/* Which Longhorn runs, again (a new term, a resync); then every volume. */
static int enqueue_all(cw_shell *s)
{
    cw_lh_watch_refresh(s);
    return cw_informer_enqueue_all(cw_shell_informer(s, CW_VOLUME_VOLUMES), s->env.queue);
}

/* ---- what it does ---- */

/* Creates the plan's new RecurringJobs. 409: one appeared since the cache was read; the watch
 * brings it and the next decision reuses it or reports the conflict. */
static int create_jobs(cw_shell *s, json_object *vol, json_object *jobs, cw_error *err)
{
    cw_kube_resource r = cw_shell_resource(s, CW_VOLUME_RECURRINGJOBS, s->home);
    for (size_t i = 0; i < json_object_array_length(jobs); i++) {
        json_object *rj = json_object_array_get_idx(jobs, i);
        int rc = cw_shell_create(s, "create_recurringjob", vol, &r, rj, NULL, err);
        if (rc != CW_OK)
            return cw_error_prefix(err, "creating RecurringJob %s",
                                   cw_json_path_string(rj, "metadata.name"));
        cw_log(CW_LOG_INFO, "RecurringJob created for a volume's legacy jobs",
               CW_LS("recurringjob", cw_json_path_string(rj, "metadata.name")),
               CW_LS("cron", cw_json_path_string(rj, "spec.cron")));
    }
    return CW_OK;
}

static void report(cw_shell *s, json_object *vol, const cw_volctl_actions *a)
{
    int refused = a->outcome == CW_VOLCTL_REFUSED;
    char *what = cw_strlist_join(refused ? &a->problems : &a->labels, refused ? "; " : ", ");
    char msg[2048];
    const char *name = cw_json_path_string(vol, "metadata.name");
    if (refused) {
        snprintf(msg, sizeof(msg), "legacy spec.recurringJobs left as they are: %s",
                 what ? what : "");
        if (cw_shell_event(s, vol,
                           &(cw_event){.type = "Warning",
                                       .reason = "LegacyRecurringJobsNotMigrated",
                                       .message = msg}))
            cw_log(CW_LOG_WARN, "volume's legacy jobs cannot be migrated", CW_LS("volume", name),
                   CW_LS("problems", what ? what : ""));
    } else if (a->outcome == CW_VOLCTL_MIGRATE) {
        snprintf(msg, sizeof(msg), "legacy spec.recurringJobs migrated to labels %s",
                 what ? what : "");
        cw_shell_event(
            s, vol,
            &(cw_event){.type = "Normal", .reason = "LegacyRecurringJobsMigrated", .message = msg});
        cw_log(CW_LOG_INFO, "volume's legacy jobs migrated", CW_LS("volume", name),
               CW_LS("labels", what ? what : ""));
    } else {
        cw_log(CW_LOG_INFO, "volume labelled with the default group", CW_LS("volume", name),
               CW_LS("label", what ? what : ""));
    }
    free(what);
}

static int reconcile(cw_shell *s, const char *key, cw_verdict *res, cw_error *err)
{
    const cw_volume_config *c = s->env.config;
    json_object *cached = NULL, *vol = NULL, *rjs = NULL;
    cw_volctl_actions a;
    cw_volctl_config cfg = c->decide;
    int rc;
    cw_lh_target t;
    cw_volctl_actions_init(&a);
    cfg.rj_api_version = cw_shell_api_version(s, CW_VOLUME_RECURRINGJOBS);
    if ((rc = cw_lh_watch_target(s->state, s, &t, err)) != CW_OK) {
        cw_verdict_backoff(res);
        goto done;
    }
    const cw_lh_profile *writes_as = t.profile;
    cw_lh_target_free(&t);
    if (!writes_as) { /* standing down: which Longhorn runs is not known */
        cw_verdict_held(res, "standing_down");
        goto done;
    }
    if ((rc = cw_ctrl_store_get(cw_shell_store(s, CW_VOLUME_VOLUMES), key, &cached)) != CW_OK)
        goto done;
    if (!(vol = volume_parse(cached)))
        rc = CW_ENOMEM;
    else if (cw_volume_has_legacy_jobs(vol))
        rc = cw_ctrl_store_by_index(cw_shell_store(s, CW_VOLUME_RECURRINGJOBS), c->base.head.home,
                                    &rjs);
    if (rc != CW_OK || (rc = cw_volctl_decide(vol, rjs, &cfg, &a, err)) != CW_OK)
        goto done;
    cw_verdict_done(res, cw_volctl_outcome_name(a.outcome));
    /* A 409 or 404 anywhere: the volume (or a job) moved on, its watch event queues it again;
     * nothing was written to a volume whose version the decision did not see. */
    if (a.outcome == CW_VOLCTL_MIGRATE && (rc = create_jobs(s, vol, a.jobs, err)) != CW_OK)
        goto done;
    if (a.patch) {
        cw_kube_resource r = cw_shell_resource(s, CW_VOLUME_VOLUMES, c->base.head.home);
        rc = cw_shell_patch(s, a.outcome == CW_VOLCTL_MIGRATE ? "migrate_volume" : "label_volume",
                            vol, &r, cw_json_path_string(vol, "metadata.name"), a.patch, err);
        if (rc != CW_OK)
            goto done;
    }
    if (a.outcome != CW_VOLCTL_INSYNC)
        report(s, vol, &a);
done:
    cw_volctl_actions_free(&a);
    json_object_put(cached);
    json_object_put(vol);
    json_object_put(rjs);
    return rc;
}

static const cw_informer_def informers[] = {
    [CW_VOLUME_VOLUMES] = {CW_INFORMER_RESOURCE("volumes", "longhorn.io", NULL, "volumes"),
                           .transform = volume_slim, .index = volume_index},
    [CW_VOLUME_RECURRINGJOBS] = {CW_INFORMER_RESOURCE("recurringjobs", "longhorn.io", NULL,
                                                      "recurringjobs"),
                                 .transform = rj_slim, .index = rj_index, .handler = on_rj},
    [CW_VOLUME_MANAGERS] = CW_LH_MANAGER_INFORMER,
};

const cw_reconciler_ops cw_volume_reconciler = {
    CW_RECONCILER_NAMED("volume", "Volume", "create_recurringjob, label_volume, migrate_volume"),
    .summary = "Longhorn Volumes keep their job labels: the default group, legacy "
               "spec.recurringJobs migrated (Longhorn's manager applies the same default; for a "
               "Longhorn it does not know it stands down)",
    .default_enabled = 1,
    CW_RECONCILER_TABLES(opts, informers),
    CW_RECONCILER_CONFIG(cw_volume_config, config_init, cw_ctrl_policy_config_fini),
    CW_RECONCILER_STATE(init, cw_lh_watch_delete),
    .enqueue_all = enqueue_all,
    .reconcile = reconcile,
};
