#include "controller/core/shell.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/json.h"
#include "lib/log.h"

int cw_shell_metrics_register(cw_metrics *m, cw_shell_metrics *out, cw_error *err)
{
    static const char *const ctl_verb[] = {"controller", "verb", NULL};
    static const char *const ctl_reason[] = {"controller", "reason", NULL};
    static const char *const ctl[] = {"controller", NULL};
    int rc;
    if ((rc = cw_metrics_counter(m, "cronwarden_controller_forbidden_writes_total",
                                 "API writes the API server refused with 403 Forbidden, by "
                                 "controller and verb (the RBAC lacks a verb; a Warning Event on "
                                 "the object says which).",
                                 ctl_verb, &out->forbidden, err)) ||
        (rc = cw_metrics_gauge(m, "cronwarden_controller_standing_down",
                               "1 while a controller stands down (makes no writes), by the "
                               "reason; its log line says why and which flag overrides it.",
                               ctl_reason, &out->standing, err)) ||
        (rc = cw_metrics_counter(m, "cronwarden_controller_write_wars_total",
                                 "Objects a controller stopped writing because another writer "
                                 "kept undoing its writes (more than 3 times in 10 minutes).",
                                 ctl, &out->wars, err)))
        return rc;
    return CW_OK;
}

/* ---- making and running ---- */

static int writes_metric(cw_shell *s, cw_error *err)
{
    static const char *const verb_result[] = {"verb", "result", NULL};
    char name[128], help[512];
    size_t n = (size_t)snprintf(name, sizeof(name), "cronwarden_controller_");
    for (const char *p = s->r->name; *p && n + 1 < sizeof(name); p++)
        if (*p != '-')
            name[n++] = *p;
    snprintf(name + n, sizeof(name) - n, "_writes_total");
    snprintf(help, sizeof(help),
             "API writes of the %s reconciler by verb (%s) and result (ok, conflict, not_found, "
             "invalid: the API server refused the object with 422, error).",
             s->r->name, s->r->verbs ? s->r->verbs : "");
    return s->env.metrics
               ? cw_metrics_counter(s->env.metrics, name, help, verb_result, &s->m_writes, err)
               : CW_OK;
}

/* Every informer's version: given, discovered, or another informer's. */
static int discover(cw_shell *s, cw_error *err)
{
    for (size_t i = 0; i < s->r->ninformers; i++) {
        const cw_informer_def *d = &s->r->informers[i];
        struct cw_shell_informer *si = &s->infs[i];
        if (d->version_of > 0 && (size_t)d->version_of <= i) {
            memcpy(si->version, s->infs[d->version_of - 1].version, sizeof(si->version));
            si->absent = s->infs[d->version_of - 1].absent;
        } else if (d->version) {
            snprintf(si->version, sizeof(si->version), "%s", d->version);
        } else if (cw_kube_pick_version(s->env.kube, d->group, d->resource, si->version,
                                        sizeof(si->version), err) != CW_OK) {
            if (!d->optional || err->code != CW_ENOTFOUND)
                return cw_error_prefix(err, "%s reconciler", s->r->name);
            si->absent = 1; /* what it would report, it has nothing of */
            cw_log(CW_LOG_INFO, "resource not served: this reconciler goes without it",
                   CW_LS("controller", s->r->name), CW_LS("informer", d->name),
                   CW_LS("why", err->message));
            cw_error_init(err);
        }
        snprintf(si->api_version, sizeof(si->api_version), "%s%s%s", d->group, *d->group ? "/" : "",
                 si->version);
    }
    return CW_OK;
}

static json_object *keep(void *paths, json_object *obj)
{
    return cw_json_keep(obj, paths);
}

static int make_informers(cw_shell *s, cw_error *err)
{
    for (; s->ninit < s->r->ninformers; s->ninit++) {
        const cw_informer_def *d = &s->r->informers[s->ninit];
        struct cw_shell_informer *si = &s->infs[s->ninit];
        cw_informer_config c = {
            .name = d->name,
            .kube = s->env.kube,
            .resource = cw_shell_resource(s, s->ninit,
                                          d->scope == CW_SHELL_HOME    ? s->home
                                          : d->scope == CW_SHELL_ASIDE ? s->aside
                                                                       : NULL),
            .label_selector = d->label_selector,
            .field_selector = d->field_selector,
            .page_size = d->page_size ? d->page_size : s->env.page_size,
            .prune = d->storeless ? NULL : d->prune,
            .prune_over = d->storeless ? 0 : d->prune_over,
            .metrics = s->env.informer_metrics,
        };
        cw_informer_sink k = {
            .storeless = d->storeless,
            .transform = d->storeless ? NULL
                         : d->keep    ? keep
                                      : d->transform,
            .transform_ud = d->storeless ? NULL
                            : d->keep    ? (void *)d->keep
                                         : s,
            .index = d->storeless ? NULL : d->index,
            .index_ud = s,
            .handler = d->handler,
            .handler_ud = s,
            .queue = s->env.queue,
        };
        int rc;
        if (si->absent) { /* never started: an empty cache of its own */
            if ((rc = cw_informer_init(&si->own, &c, err)) == CW_OK)
                rc = cw_informer_add_sink(&si->own, &k, &si->sink, err);
            si->inf = &si->own;
        } else {
            rc = cw_informer_set_join(s->set, &c, &k, &si->inf, &si->sink, err);
        }
        if (rc != CW_OK) {
            if (si->absent)
                cw_informer_free(&si->own);
            return rc;
        }
    }
    return CW_OK;
}

int cw_shell_new(const cw_reconciler_ops *r, const cw_shell_env *env, cw_shell **out, cw_error *err)
{
    cw_shell *s = calloc(1, sizeof(*s));
    int rc;
    *out = NULL;
    if (!s || !(s->infs = calloc(r->ninformers ? r->ninformers : 1, sizeof(*s->infs)))) {
        free(s);
        return cw_error_oom(err);
    }
    s->r = r;
    s->env = *env;
    cw_informer_set_init(&s->own_set);
    s->set = env->informers ? env->informers : &s->own_set;
    const cw_reconciler_config *head = env->config;
    s->home = head && head->home && *head->home ? head->home : NULL;
    s->aside = head && head->aside && *head->aside ? head->aside : NULL;
    atomic_init(&s->standing, NULL);
    if ((rc = cw_ctrl_events_init(&s->events, env->kube, err)) != CW_OK)
        goto fail;
    s->events_ok = 1;
    if ((rc = cw_ctrl_warguard_init(&s->war, err)) != CW_OK)
        goto fail;
    s->war_ok = 1;
    if ((rc = writes_metric(s, err)) != CW_OK || (rc = discover(s, err)) != CW_OK ||
        (rc = make_informers(s, err)) != CW_OK ||
        (r->init && (rc = r->init(s, &s->state, err)) != CW_OK))
        goto fail;
    *out = s;
    return CW_OK;
fail:
    cw_shell_free(s);
    return rc;
}

void cw_shell_free(cw_shell *s)
{
    if (!s)
        return;
    cw_shell_stop(s);
    cw_informer_set_free(&s->own_set); /* a shared set is its owner's to free */
    while (s->ninit > 0)
        if (s->infs[--s->ninit].absent)
            cw_informer_free(&s->infs[s->ninit].own);
    if (s->state && s->r->fini)
        s->r->fini(s->state);
    if (s->events_ok)
        cw_ctrl_events_free(&s->events);
    if (s->war_ok)
        cw_ctrl_warguard_free(&s->war);
    free(s->infs);
    free(s);
}

int cw_shell_start(cw_shell *s, cw_error *err)
{
    s->started = 1;
    return s->set == &s->own_set ? cw_informer_set_start(s->set, err) : CW_OK;
}

void cw_shell_ask_stop(cw_shell *s)
{
    if (s->set == &s->own_set)
        cw_informer_set_ask_stop(s->set);
}

void cw_shell_stop(cw_shell *s)
{
    if (s->set == &s->own_set)
        cw_informer_set_stop(s->set);
    s->started = 0;
}

int cw_shell_synced(cw_shell *s, char *why, size_t whylen)
{
    cw_informer *infs[32];
    size_t n = 0;
    for (size_t i = 0; i < s->ninit && n < 32; i++) {
        /* An optional resource not served has nothing to wait for. */
        if (s->r->informers[i].optional &&
            (s->infs[i].absent || cw_informer_missing(s->infs[i].inf)))
            continue;
        infs[n++] = s->infs[i].inf;
    }
    return cw_informers_synced(infs, n, why, whylen);
}

int cw_shell_enqueue_all(cw_shell *s)
{
    if (s->r->enqueue_all)
        return s->r->enqueue_all(s);
    return s->ninit ? cw_informer_enqueue_all(s->infs[0].inf, s->env.queue) : CW_OK;
}

void cw_shell_tick(cw_shell *s)
{
    if (s->r->tick)
        s->r->tick(s);
}

/* The verdict of a failed reconcile that did not say one (controller/core/verdict.h): from the
 * API's answer, the one mapping for every reconciler. CW_OK when that is no failure. */
static int judge(cw_shell *s, const char *key, int rc, cw_verdict *v, cw_error *err)
{
    switch (rc) {
    case CW_ECONFLICT: /* the cache is behind the object: its watch event brings the new one */
        cw_log(CW_LOG_DEBUG, "changed meanwhile; deciding again", CW_LS("controller", s->r->name),
               CW_LS("key", key), CW_LS("error", err->message));
        cw_verdict_requeue_at(
            v, cw_shell_now_ms(s) + (s->r->conflict_ms ? s->r->conflict_ms : 1000), "conflict");
        return CW_OK;
    case CW_ENOTFOUND: /* gone meanwhile: its watch event says what comes next */
        cw_verdict_gone(v, "deleted");
        return CW_OK;
    case CW_EDEFER:
        cw_log(CW_LOG_DEBUG, "write held back", CW_LS("controller", s->r->name), CW_LS("key", key),
               CW_LS("why", err->message));
        cw_verdict_held(v, "held");
        return CW_OK;
    case CW_EINVAL: /* an object we cannot act on waits for its next change */
        cw_verdict_wait(v);
        return rc;
    default:
        /* 429 and 5xx after the client's retries, 403 and 422 until RBAC or the object is fixed,
         * transport errors */
        cw_verdict_backoff(v);
        return rc;
    }
}

int cw_shell_reconcile(void *ud, const char *key, cw_verdict *res, cw_error *err)
{
    cw_shell *s = ud;
    if (cw_shell_standing_down(s)) {
        cw_verdict_held(res, "standing_down");
        return CW_OK;
    }
    int rc = s->r->reconcile(s, key, res, err);
    if (rc == CW_OK || (!cw_verdict_failed(res) && (rc = judge(s, key, rc, res, err)) == CW_OK))
        return CW_OK;
    if (!err->message[0]) /* e.g. a cache read out of memory */
        cw_error_set(err, rc, "%s", cw_error_code_name(rc));
    cw_error_prefix(err, "%s %s", s->r->object ? s->r->object : s->r->name, key);
    return rc;
}

/* ---- what a reconciler reads ---- */

int64_t cw_shell_now_ms(const cw_shell *s)
{
    return s->env.clock ? s->env.clock(s->env.clock_ud) : cw_clock_wall_ms();
}

cw_informer *cw_shell_informer(cw_shell *s, size_t i)
{
    return s->infs[i].inf;
}

cw_ctrl_store *cw_shell_store(cw_shell *s, size_t i)
{
    return cw_informer_sink_store(s->infs[i].inf, s->infs[i].sink);
}

cw_kube_resource cw_shell_resource(const cw_shell *s, size_t i, const char *ns)
{
    const cw_informer_def *d = &s->r->informers[i];
    return (cw_kube_resource){d->group, s->infs[i].version, d->resource, ns && *ns ? ns : NULL};
}

const char *cw_shell_api_version(const cw_shell *s, size_t i)
{
    return s->infs[i].api_version;
}

/* ---- writes ---- */

/* A 403: the RBAC lacks a verb. Said on the object once; counted every time. */
static void forbidden(cw_shell *s, const char *verb, json_object *about, const cw_error *err)
{
    const char *v[] = {s->r->name, verb};
    char msg[1400];
    if (s->env.shell_metrics)
        cw_metrics_add(s->env.shell_metrics->forbidden, v, 1);
    if (!about)
        return;
    snprintf(msg, sizeof(msg),
             "cronwarden's %s reconciler may not %s: %s (grant it in the controller's RBAC: "
             "docs/controller.md)",
             s->r->name, verb, err->message);
    cw_shell_event(s, about,
                   &(cw_event){.type = "Warning", .reason = "WriteForbidden", .message = msg});
}

void cw_shell_count(cw_shell *s, const char *verb, json_object *about, int rc, const cw_error *err)
{
    int invalid = rc == CW_EHTTP && err && err->http_status == 422;
    const char *v[] = {verb, rc == CW_OK          ? "ok"
                             : rc == CW_ECONFLICT ? "conflict"
                             : rc == CW_ENOTFOUND ? "not_found"
                             : invalid            ? "invalid"
                                                  : "error"};
    if (s->m_writes)
        cw_metrics_add(s->m_writes, v, 1);
    if (rc == CW_EHTTP && err && err->http_status == 403)
        forbidden(s, verb, about, err);
}

static int held(cw_shell *s, const char *verb, cw_error *err)
{
    const char *reason = cw_shell_standing_down(s);
    return reason ? cw_error_set(err, CW_EDEFER, "standing down (%s): no %s", reason, verb) : CW_OK;
}

static cw_kube_write_opts ours(void)
{
    cw_kube_write_opts w;
    cw_kube_write_opts_init(&w);
    w.field_manager = CW_CTRL_FIELD_MANAGER;
    return w;
}

int cw_shell_create(cw_shell *s, const char *verb, json_object *about, const cw_kube_resource *r,
                    json_object *obj, json_object **out, cw_error *err)
{
    cw_kube_write_opts w = ours();
    int rc = held(s, verb, err);
    if (rc != CW_OK)
        return rc;
    rc = cw_kube_create(s->env.kube, r, obj, &w, out, err);
    cw_shell_count(s, verb, about, rc, err);
    return rc;
}

int cw_shell_update(cw_shell *s, const char *verb, json_object *about, const cw_kube_resource *r,
                    const char *name, json_object *obj, json_object **out, cw_error *err)
{
    cw_kube_write_opts w = ours();
    int rc = held(s, verb, err);
    if (rc != CW_OK)
        return rc;
    rc = cw_kube_update(s->env.kube, r, name, obj, &w, out, err);
    cw_shell_count(s, verb, about, rc, err);
    return rc;
}

int cw_shell_patch(cw_shell *s, const char *verb, json_object *about, const cw_kube_resource *r,
                   const char *name, json_object *patch, cw_error *err)
{
    cw_kube_write_opts w = ours();
    int rc = held(s, verb, err);
    if (rc != CW_OK)
        return rc;
    rc = cw_kube_patch(s->env.kube, r, name, CW_KUBE_PATCH_MERGE, patch, &w, NULL, err);
    cw_shell_count(s, verb, about, rc, err);
    return rc;
}

int cw_shell_delete(cw_shell *s, const char *verb, json_object *about, const cw_kube_resource *r,
                    const char *name, const cw_kube_delete_opts *d, cw_error *err)
{
    int rc = held(s, verb, err);
    if (rc != CW_OK)
        return rc;
    rc = cw_kube_delete(s->env.kube, r, name, d, NULL, err);
    cw_shell_count(s, verb, about, rc, err);
    return rc;
}

int cw_shell_request(cw_shell *s, const char *verb, json_object *about, const char *method,
                     const char *path, json_object *body, cw_error *err)
{
    int rc = held(s, verb, err);
    if (rc != CW_OK)
        return rc;
    rc = cw_kube_request(s->env.kube, method, path, NULL, body, NULL, err);
    cw_shell_count(s, verb, about, rc, err);
    return rc;
}

/* A step is posted every time, with the shell's clock, and counted as a write; a failed post is
 * logged, never fails the reconcile. The once-kinds remember what was said
 * (controller/core/events.h). */
int cw_shell_event(cw_shell *s, json_object *obj, const cw_event *ev)
{
    if (ev->kind == CW_EVENT_STATE)
        return cw_ctrl_event_once(&s->events, obj, ev->type, ev->reason, ev->message);
    if (ev->kind == CW_EVENT_OCCURRENCE)
        return cw_ctrl_event_once_at(&s->events, obj, ev->type, ev->reason, ev->message, ev->id);
    cw_error err;
    cw_error_init(&err);
    int rc = cw_ctrl_event_post(s->env.kube, obj, ev->type, ev->reason, ev->message,
                                cw_shell_now_ms(s), &err);
    cw_shell_count(s, "create_event", NULL, rc, &err);
    if (rc != CW_OK)
        cw_log(CW_LOG_WARN, "could not post an Event", CW_LS("reason", ev->reason),
               CW_LS("object", cw_json_path_string(obj, "metadata.name")),
               CW_LS("error", err.message));
    return rc == CW_OK;
}

int cw_shell_absent(const cw_shell *s, size_t i)
{
    return s->infs[i].absent;
}

/* ---- standing down ---- */

static void standing_gauge(cw_shell *s, const char *reason, double v)
{
    const char *lv[] = {s->r->name, reason};
    if (s->env.shell_metrics)
        cw_metrics_set(s->env.shell_metrics->standing, lv, v);
}

void cw_shell_stand_down(cw_shell *s, const char *reason, const char *why)
{
    const char *old = atomic_exchange(&s->standing, reason);
    if (old && !strcmp(old, reason))
        return;
    if (old)
        standing_gauge(s, old, 0);
    standing_gauge(s, reason, 1);
    cw_log(CW_LOG_WARN, "standing down: this reconciler makes no writes",
           CW_LS("controller", s->r->name), CW_LS("reason", reason), CW_LS("why", why));
}

void cw_shell_resume(cw_shell *s)
{
    const char *old = atomic_exchange(&s->standing, NULL);
    if (!old)
        return;
    standing_gauge(s, old, 0);
    cw_log(CW_LOG_INFO, "writing again", CW_LS("controller", s->r->name), CW_LS("was", old));
}

const char *cw_shell_standing_down(cw_shell *s)
{
    return atomic_load(&s->standing);
}

/* ---- write wars ---- */

/* "cronjobs.batch/ns/name": the guard's key of an object of r. */
static void war_key(const cw_kube_resource *r, json_object *obj, char *out, size_t len)
{
    const char *ns = cw_json_path_string(obj, "metadata.namespace");
    const char *name = cw_json_path_string(obj, "metadata.name");
    snprintf(out, len, "%s%s%s/%s/%s", r->resource, r->group && *r->group ? "." : "",
             r->group ? r->group : "", ns ? ns : "", name ? name : "");
}

int cw_shell_war_check(cw_shell *s, const cw_kube_resource *r, json_object *live, json_object *want,
                       cw_error *err)
{
    char key[CW_CTRL_KEY_MAX], msg[1024];
    const char *ctl[] = {s->r->name};
    war_key(r, live, key, sizeof(key));
    cw_ctrl_war v = cw_ctrl_warguard_check(&s->war, key, cw_json_path_string(live, "metadata.uid"),
                                           cw_ctrl_war_fingerprint(want), cw_shell_now_ms(s));
    if (v == CW_WAR_WRITE)
        return CW_OK;
    const char *who = cw_ctrl_war_other_writer(live, CW_CTRL_FIELD_MANAGER);
    if (!who)
        who = "another writer";
    if (v == CW_WAR_NEW) {
        snprintf(msg, sizeof(msg),
                 "%s keeps rewriting this object after cronwarden's %s reconciler writes it "
                 "(more than %d times in %d minutes): cronwarden stops writing it, so the two do "
                 "not fight; it writes it again after a restart or when the object is made anew",
                 who, s->r->name, CW_CTRL_WAR_REWRITES, CW_CTRL_WAR_WINDOW_S / 60);
        cw_shell_event(s, live,
                       &(cw_event){.type = "Warning", .reason = "WriteWar", .message = msg});
        if (s->env.shell_metrics)
            cw_metrics_add(s->env.shell_metrics->wars, ctl, 1);
        cw_log(CW_LOG_WARN,
               "another writer keeps undoing this reconciler's writes; stopped writing the object",
               CW_LS("controller", s->r->name), CW_LS("object", key), CW_LS("other_writer", who));
    }
    return cw_error_set(err, CW_EDEFER, "%s: contested with %s, not written", key, who);
}

void cw_shell_war_wrote(cw_shell *s, const cw_kube_resource *r, json_object *written,
                        json_object *want)
{
    char key[CW_CTRL_KEY_MAX];
    war_key(r, written, key, sizeof(key));
    cw_ctrl_warguard_wrote(&s->war, key, cw_json_path_string(written, "metadata.uid"),
                           cw_ctrl_war_fingerprint(want), cw_shell_now_ms(s));
}
