#include "controller/longhorn_watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/log.h"
#include "lib/strlist.h"

const char *const cw_lh_manager_keep[] = {"metadata.name", "metadata.namespace",
                                          "metadata.resourceVersion",
                                          "spec.template.spec.containers", NULL};

static void watch_free(cw_lh_watch *w)
{
    cw_lh_manager_free(&w->manager);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

int cw_lh_watch_new(cw_shell *s, cw_lh_reconciler who, size_t informer, size_t requeue,
                    const cw_lh_identity *flag, void **state, cw_error *err)
{
    static const char *const labels[] = {"version", "minor", "source", NULL};
    cw_lh_watch *w = calloc(1, sizeof(*w));
    int rc = CW_OK;
    if (!w)
        return cw_error_oom(err);
    pthread_mutex_init(&w->lock, NULL);
    w->who = who;
    w->informer = informer;
    w->requeue = requeue;
    w->flag = *flag;
    if (s->env.metrics && !(w->info = cw_metrics_find(s->env.metrics, CW_LH_VERSION_INFO)))
        rc = cw_metrics_gauge(s->env.metrics, CW_LH_VERSION_INFO,
                              "1 for the Longhorn version the Longhorn reconcilers go by: its "
                              "version as found, its minor (\"\" when cronwarden does not know "
                              "it), and where it was read (flag, daemonset, crds, none).",
                              labels, &w->info, err);
    if (rc == CW_OK && flag->source == CW_LH_SOURCE_FLAG)
        rc = cw_lh_watch_update(w, s, NULL, err);
    if (rc != CW_OK) {
        watch_free(w);
        return rc;
    }
    *state = w;
    return CW_OK;
}

void cw_lh_watch_delete(void *state)
{
    if (state)
        watch_free(state);
}

/* cw_lh_watch_update on the shell's watch, a failure logged. */
static void update_logged(cw_shell *s, int *changed)
{
    cw_error err;
    cw_error_init(&err);
    if (cw_lh_watch_update(s->state, s, changed, &err) != CW_OK)
        cw_log(CW_LOG_WARN, "could not tell which Longhorn runs", CW_LS("controller", s->r->name),
               CW_LS("error", err.message));
}

void cw_lh_watch_refresh(cw_shell *s)
{
    update_logged(s, NULL);
}

void cw_lh_watch_on_manager(void *ud, cw_informer_op op, const char *key, json_object *old,
                            json_object *obj)
{
    cw_shell *s = ud;
    int changed = 0;
    (void)op, (void)key, (void)old, (void)obj;
    update_logged(s, &changed);
    if (changed) /* its status changing alone changes nothing */
        cw_informer_enqueue_all(cw_shell_informer(s, ((cw_lh_watch *)s->state)->requeue),
                                s->env.queue);
}

/* ---- reading ---- */

/* The DaemonSet as cached: 1 with *m filled, 0 when there is none (or it names no image: *m
 * empty, and the image's identity says so). */
static int read_manager(cw_lh_watch *w, cw_shell *s, cw_lh_manager *m)
{
    char key[CW_CTRL_KEY_MAX];
    json_object *ds = NULL;
    cw_error e;
    cw_error_init(&e);
    memset(m, 0, sizeof(*m));
    snprintf(key, sizeof(key), "%s/%s", s->home ? s->home : "", CW_LH_MANAGER_NAME);
    if (cw_ctrl_store_get(cw_shell_store(s, w->informer), key, &ds) != CW_OK || !ds)
        return 0;
    if (cw_lh_manager_from_daemonset(ds, m, &e) != CW_OK)
        memset(m, 0, sizeof(*m));
    json_object_put(ds);
    return 1;
}

/* What the longhorn.io group serves (discovery): recurringjobs in v1beta1 and v1beta2, and the
 * plural of every resource (a group or version not served is a fact too, not an error). */
static int read_crds(cw_shell *s, cw_lh_identity *out, cw_error *err)
{
    static const char *const versions[] = {"v1beta1", "v1beta2"};
    int served[2] = {0, 0}, rc = CW_OK;
    cw_strlist names;
    const char **list = NULL;
    cw_strlist_init(&names);
    for (size_t v = 0; rc == CW_OK && v < 2; v++) {
        cw_kube_api_resources l;
        cw_kube_api_resources_init(&l);
        rc = cw_kube_discover_resources(s->env.kube, "longhorn.io", versions[v], &l, err);
        served[v] = rc == CW_OK && cw_kube_api_resources_find(&l, "recurringjobs") != NULL;
        for (size_t i = 0; rc == CW_OK && i < l.len; i++)
            if (!strchr(l.items[i].name, '/') && !cw_strlist_contains(&names, l.items[i].name) &&
                cw_strlist_add(&names, l.items[i].name) != CW_OK)
                rc = cw_error_oom(err);
        cw_kube_api_resources_free(&l);
        if (rc == CW_ENOTFOUND) {
            rc = CW_OK;
            cw_error_init(err);
        }
    }
    if (rc == CW_OK && !(list = calloc(names.len + 1, sizeof(*list))))
        rc = cw_error_oom(err);
    if (rc == CW_OK) {
        for (size_t i = 0; i < names.len; i++)
            list[i] = names.items[i];
        cw_lh_crd_facts f = {served[0], served[1], -1, list};
        cw_lh_identify_crds(&f, out);
    } else {
        cw_error_prefix(err, "finding out which Longhorn the longhorn.io CRDs are");
    }
    free(list);
    cw_strlist_free(&names);
    return rc;
}

/* ---- saying it ---- */

static void minor_of(const cw_lh_identity *id, char *buf, size_t len)
{
    if (id->minor)
        snprintf(buf, len, "1.%d", id->minor);
    else
        snprintf(buf, len, "%s", "");
}

static int same_identity(const cw_lh_identity *a, const cw_lh_identity *b)
{
    return a->minor == b->minor && a->source == b->source && !strcmp(a->version, b->version) &&
           a->reason == b->reason;
}

static int same_manager(const cw_lh_manager *a, const cw_lh_manager *b)
{
    const char *x[] = {a->image, a->job_image, a->service_account};
    const char *y[] = {b->image, b->job_image, b->service_account};
    for (size_t i = 0; i < 3; i++)
        if ((!x[i]) != (!y[i]) || (x[i] && strcmp(x[i], y[i])))
            return 0;
    return 1;
}

/* The info series: the old identity's to 0, the new one's to 1. Under the lock. */
static void export(cw_lh_watch *w, const cw_lh_identity *old, const cw_lh_identity *id)
{
    char minor[16];
    if (!w->info)
        return;
    if (old) {
        minor_of(old, minor, sizeof(minor));
        const char *v[] = {old->version, minor, cw_lh_source_name(old->source)};
        cw_metrics_set(w->info, v, 0);
    }
    minor_of(id, minor, sizeof(minor));
    const char *v[] = {id->version, minor, cw_lh_source_name(id->source)};
    cw_metrics_set(w->info, v, 1);
}

/* ---- working it out ---- */

int cw_lh_watch_update(cw_lh_watch *w, cw_shell *s, int *changed, cw_error *err)
{
    cw_lh_identity from_ds, from_crds, id;
    cw_lh_manager m;
    char minor[16];
    int rc = CW_OK, has_ds, forced = w->flag.source == CW_LH_SOURCE_FLAG;
    if (changed)
        *changed = 0;
    pthread_mutex_lock(&w->lock);
    has_ds = read_manager(w, s, &m);
    if (!forced && !has_ds && !cw_informer_synced(cw_shell_informer(s, w->informer)))
        goto done; /* the DaemonSet may still come */
    if (has_ds)
        cw_lh_identify_image(m.image, &from_ds);
    if (!forced && !has_ds && (rc = read_crds(s, &from_crds, err)) != CW_OK)
        goto done;
    cw_lh_choose(&w->flag, has_ds ? &from_ds : NULL, !forced && !has_ds ? &from_crds : NULL, &id);
    int new_id = !w->identified || !same_identity(&w->id, &id);
    int new_manager =
        !same_manager(&w->manager, &m) || w->manager_minor != (has_ds ? from_ds.minor : 0);
    if (new_id) {
        export(w, w->identified ? &w->id : NULL, &id);
        minor_of(&id, minor, sizeof(minor));
        cw_log(CW_LOG_INFO, "Longhorn version", CW_LS("controller", cw_lh_reconciler_name(w->who)),
               CW_LS("version", id.version), CW_LS("minor", minor),
               CW_LS("source", cw_lh_source_name(id.source)), CW_LS("detail", id.detail));
        cw_lh_decide(w->who, &id, &w->decide);
        if (w->decide.write) {
            cw_shell_resume(s);
            cw_log(CW_LOG_INFO, w->decide.message,
                   CW_LS("controller", cw_lh_reconciler_name(w->who)));
        } else {
            cw_shell_stand_down(s, w->decide.reason, w->decide.message);
        }
        w->id = id;
        w->identified = 1;
    }
    if (new_manager) {
        cw_lh_manager_free(&w->manager);
        w->manager = m;
        w->manager_minor = has_ds ? from_ds.minor : 0;
        memset(&m, 0, sizeof(m));
    }
    if (changed)
        *changed = new_id || new_manager;
done:
    pthread_mutex_unlock(&w->lock);
    cw_lh_manager_free(&m);
    return rc;
}

void cw_lh_target_free(cw_lh_target *t)
{
    free(t->job_image);
    free(t->service_account);
    memset(t, 0, sizeof(*t));
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

int cw_lh_watch_target(cw_lh_watch *w, cw_shell *s, cw_lh_target *out, cw_error *err)
{
    int rc = CW_OK, known;
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&w->lock);
    known = w->identified;
    pthread_mutex_unlock(&w->lock);
    if (!known && (rc = cw_lh_watch_update(w, s, NULL, err)) != CW_OK)
        return rc;
    pthread_mutex_lock(&w->lock);
    out->profile = w->identified && w->decide.write ? w->decide.profile : NULL;
    if (out->profile && w->manager_minor == out->profile->minor) {
        out->job_image = dup_or_null(w->manager.job_image);
        out->service_account = dup_or_null(w->manager.service_account);
        if ((w->manager.job_image && !out->job_image) ||
            (w->manager.service_account && !out->service_account))
            rc = cw_error_oom(err);
    }
    pthread_mutex_unlock(&w->lock);
    if (rc != CW_OK)
        cw_lh_target_free(out);
    return rc;
}
