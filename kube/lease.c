#include "kube/lease.h"
#include "lib/failpoint.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const cw_kube_resource *leases(const cw_lease *l, cw_kube_resource *r)
{
    *r = (cw_kube_resource){"coordination.k8s.io", "v1", "leases", l->namespace};
    return r;
}

/* Sleeps up to `seconds`, waking early when the lease is released (or, with `caller`, when the
 * caller's stop flag is set). */
static void nap(cw_lease *l, double seconds, int caller)
{
    double end = cw_clock_mono() + seconds;
    while (!atomic_load(&l->stop) && !(caller && l->opts.stop && atomic_load(l->opts.stop))) {
        double left = end - cw_clock_mono();
        if (left <= 0)
            break;
        usleep((useconds_t)((left < 0.1 ? left : 0.1) * 1e6));
    }
}

/* Kubernetes MicroTime: RFC 3339 with microseconds, UTC. */
static json_object *micro_now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char s[64];
    snprintf(s, sizeof(s), "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (long)tv.tv_usec);
    return json_object_new_string(s);
}

void cw_lease_opts_init(cw_lease_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->duration = 30;
    o->purpose = "migration";
}

static char *dup_or_null(const char *s, int *oom)
{
    char *d = s ? strdup(s) : NULL;
    if (s && !d)
        *oom = 1;
    return d;
}

int cw_lease_init(cw_lease *l, cw_kube_client *kube, const char *ns, const char *name,
                  const cw_lease_opts *o, cw_error *err)
{
    cw_lease_opts defaults;
    char id[300];
    int oom = 0;
    memset(l, 0, sizeof(*l));
    pthread_mutex_init(&l->lock, NULL);
    atomic_init(&l->stop, 0);
    atomic_init(&l->lost, 0);
    if (!o) {
        cw_lease_opts_init(&defaults);
        o = &defaults;
    }
    l->opts = *o;
    if (l->opts.duration <= 0)
        l->opts.duration = 30;
    if (l->opts.renew_interval <= 0)
        l->opts.renew_interval = l->opts.duration / 3.0;
    if (l->opts.renew_deadline <= 0)
        l->opts.renew_deadline = l->opts.duration;
    if (l->opts.retry_interval <= 0)
        l->opts.retry_interval = 0.5;
    const char *holder = o->holder;
    if (!holder) {
        const char *pod = getenv("POD_NAME");
        char host[256] = "unknown";
        gethostname(host, sizeof(host) - 1);
        snprintf(id, sizeof(id), "%s_%ld", pod && *pod ? pod : host, (long)getpid());
        holder = id;
    }
    l->kube = kube;
    l->namespace = dup_or_null(ns, &oom);
    l->name = dup_or_null(name, &oom);
    l->holder = dup_or_null(holder, &oom);
    l->purpose = dup_or_null(o->purpose ? o->purpose : "holder", &oom);
    l->wait_hint = dup_or_null(o->wait_hint, &oom);
    l->opts.holder = l->holder;
    l->opts.purpose = l->purpose;
    l->opts.wait_hint = l->wait_hint;
    if (oom || !l->namespace || !l->name)
        return cw_error_oom(err);
    return CW_OK;
}

void cw_lease_free(cw_lease *l)
{
    free(l->namespace);
    free(l->name);
    free(l->holder);
    free(l->purpose);
    free(l->wait_hint);
    free(l->rv);
    pthread_mutex_destroy(&l->lock);
    memset(l, 0, sizeof(*l));
}

int cw_lease_lost(cw_lease *l)
{
    return atomic_load(&l->lost);
}

const char *cw_lease_holder(const cw_lease *l)
{
    return l->holder;
}

static void keep_rv(cw_lease *l, json_object *obj)
{
    const char *rv = cw_json_path_string(obj, "metadata.resourceVersion");
    pthread_mutex_lock(&l->lock);
    free(l->rv);
    l->rv = rv ? strdup(rv) : NULL;
    pthread_mutex_unlock(&l->lock);
}

/* The Lease object (base: the stored one, updated in place; NULL: a new one) held by `holder`. */
static json_object *lease_object(const cw_lease *l, json_object *base, const char *holder,
                                 int duration, int transitions, int keep_acquire)
{
    json_object *o = base ? base : json_object_new_object();
    if (!base) {
        json_object *meta = json_object_new_object();
        json_object_object_add(o, "apiVersion", json_object_new_string("coordination.k8s.io/v1"));
        json_object_object_add(o, "kind", json_object_new_string("Lease"));
        json_object_object_add(meta, "name", json_object_new_string(l->name));
        json_object_object_add(meta, "namespace", json_object_new_string(l->namespace));
        json_object_object_add(o, "metadata", meta);
    }
    json_object *old = cw_json_member(o, "spec"), *acquired = cw_json_member(old, "acquireTime");
    json_object *spec = json_object_new_object();
    json_object_object_add(spec, "holderIdentity", json_object_new_string(holder));
    json_object_object_add(spec, "leaseDurationSeconds", json_object_new_int(duration));
    json_object_object_add(spec, "acquireTime",
                           keep_acquire && acquired ? json_object_get(acquired) : micro_now());
    json_object_object_add(spec, "renewTime", micro_now());
    json_object_object_add(spec, "leaseTransitions", json_object_new_int(transitions));
    json_object_object_add(o, "spec", spec);
    return o;
}

static void *renew_loop(void *arg)
{
    cw_lease *l = arg;
    double last_ok = cw_clock_mono();
    while (!atomic_load(&l->stop)) {
        nap(l, l->opts.renew_interval, 0);
        if (atomic_load(&l->stop))
            break;
        cw_error err;
        cw_error_init(&err);
        cw_kube_resource r;
        json_object *cur = NULL, *out = NULL;
        int rc = cw_kube_get(l->kube, leases(l, &r), l->name, &cur, &err);
        if (rc == CW_OK) {
            const char *h = cw_json_path_string(cur, "spec.holderIdentity");
            if (!h || strcmp(h, l->holder) != 0) {
                snprintf(l->lost_why, sizeof(l->lost_why), "lease %s/%s is now held by %s",
                         l->namespace, l->name, h && *h ? h : "nobody");
                atomic_store(&l->lost, 1);
                json_object_put(cur);
                break;
            }
            json_object *spec = cw_json_member(cur, "spec");
            json_object_object_add(spec, "renewTime", micro_now());
            rc = cw_kube_update(l->kube, &r, l->name, cur, NULL, &out, &err);
            if (rc == CW_OK) {
                keep_rv(l, out);
                last_ok = cw_clock_mono();
            }
        }
        json_object_put(cur);
        json_object_put(out);
        if (rc != CW_OK) {
            cw_log(CW_LOG_WARN, "lease renewal failed", CW_LS("lease", l->name),
                   CW_LS("error", err.message));
            if (cw_clock_mono() - last_ok > l->opts.renew_deadline) {
                snprintf(l->lost_why, sizeof(l->lost_why),
                         "lease %s/%s could not be renewed for %gs: %.300s", l->namespace, l->name,
                         l->opts.renew_deadline, err.message);
                atomic_store(&l->lost, 1);
                break;
            }
        }
    }
    return NULL;
}

int cw_lease_acquire(cw_lease *l, double wait, cw_error *err)
{
    cw_kube_resource r;
    double deadline = cw_clock_mono() + wait, seen_at = 0;
    char seen_rv[128] = "";
    int announced = 0;
    cw_kube_write_opts w;
    cw_kube_write_opts_init(&w);
    w.dry_run = l->opts.dry_run;
    for (;;) {
        json_object *cur = NULL, *out = NULL;
        if (l->opts.stop && atomic_load(l->opts.stop))
            return 1;
        int rc = cw_kube_get(l->kube, leases(l, &r), l->name, &cur, err);
        if (rc == CW_ENOTFOUND) {
            json_object *o = lease_object(l, NULL, l->holder, l->opts.duration, 0, 0);
            rc = cw_kube_create(l->kube, &r, o, &w, &out, err);
            json_object_put(o);
            if (rc == CW_OK)
                keep_rv(l, out);
            json_object_put(out);
            if (rc == CW_OK)
                break;
            if (rc != CW_ECONFLICT)
                return cw_error_prefix(err, "taking lease %s/%s", l->namespace, l->name);
            continue; /* somebody created it first: look again */
        }
        if (rc != CW_OK)
            return cw_error_prefix(err, "reading lease %s/%s", l->namespace, l->name);
        const char *holder = cw_json_path_string(cur, "spec.holderIdentity");
        const char *rv = cw_json_path_string(cur, "metadata.resourceVersion");
        json_object *dur = cw_json_path(cur, "spec.leaseDurationSeconds");
        int d = dur ? json_object_get_int(dur) : l->opts.duration;
        double t = cw_clock_mono();
        if (!rv || strcmp(rv, seen_rv) != 0) {
            snprintf(seen_rv, sizeof(seen_rv), "%s", rv ? rv : "");
            seen_at = t;
        }
        int ours = holder && strcmp(holder, l->holder) == 0;
        int free_now = !holder || !*holder || ours || t - seen_at > d;
        if (free_now) {
            json_object *tr = cw_json_path(cur, "spec.leaseTransitions");
            /* client-go: the count goes up whenever the holder changes (a released lease too). */
            int transitions = (tr ? json_object_get_int(tr) : 0) + (ours ? 0 : 1);
            cur = lease_object(l, cur, l->holder, l->opts.duration, transitions, ours);
            rc = cw_kube_update(l->kube, &r, l->name, cur, &w, &out, err);
            json_object_put(cur);
            if (rc == CW_OK)
                keep_rv(l, out);
            json_object_put(out);
            if (rc == CW_OK)
                break;
            if (rc != CW_ECONFLICT)
                return cw_error_prefix(err, "taking lease %s/%s", l->namespace, l->name);
            continue;
        }
        if (wait >= 0 && t >= deadline) {
            cw_error_set(err, CW_ECONFLICT,
                         "another %s holds lease %s/%s (holder %s); it ends or expires %ds after "
                         "its last renewal%s%s",
                         l->purpose, l->namespace, l->name, holder, d, l->wait_hint ? ". " : "",
                         l->wait_hint ? l->wait_hint : "");
            json_object_put(cur);
            return CW_ECONFLICT;
        }
        if (!announced) {
            cw_log(CW_LOG_INFO, "waiting for the lease", CW_LS("holder", holder),
                   CW_LS("lease", l->name), CW_LS("purpose", l->purpose));
            announced = 1;
        }
        json_object_put(cur);
        nap(l, l->opts.retry_interval, 1);
    }
    cw_failpoint("lease-acquired");
    cw_log(CW_LOG_INFO, "lease acquired", CW_LS("lease", l->name), CW_LS("holder", l->holder),
           CW_LB("dry_run", l->opts.dry_run));
    if (!l->opts.dry_run && pthread_create(&l->renewer, NULL, renew_loop, l) == 0)
        l->renewing = 1;
    return CW_OK;
}

/* client-go's ReleaseOnCancel: an empty holder, a one-second duration, our transition count. */
static int release_clear(cw_lease *l, cw_error *err)
{
    cw_kube_resource r;
    json_object *cur = NULL;
    int rc = cw_kube_get(l->kube, leases(l, &r), l->name, &cur, err);
    if (rc == CW_OK) {
        const char *h = cw_json_path_string(cur, "spec.holderIdentity");
        const char *rv = cw_json_path_string(cur, "metadata.resourceVersion");
        pthread_mutex_lock(&l->lock);
        int same = h && strcmp(h, l->holder) == 0 && rv && l->rv && strcmp(rv, l->rv) == 0;
        pthread_mutex_unlock(&l->lock);
        if (same) {
            json_object *tr = cw_json_path(cur, "spec.leaseTransitions");
            cur = lease_object(l, cur, "", 1, tr ? json_object_get_int(tr) : 0, 0);
            rc = cw_kube_update(l->kube, &r, l->name, cur, NULL, NULL, err);
        }
    }
    json_object_put(cur);
    return rc;
}

void cw_lease_release(cw_lease *l)
{
    atomic_store(&l->stop, 1);
    if (l->renewing) {
        pthread_join(l->renewer, NULL);
        l->renewing = 0;
    }
    if (l->opts.dry_run || atomic_load(&l->lost))
        return;
    cw_error err;
    cw_error_init(&err);
    int rc;
    if (l->opts.release_clear) {
        rc = release_clear(l, &err);
    } else {
        cw_kube_resource r;
        cw_kube_delete_opts d;
        cw_kube_delete_opts_init(&d);
        pthread_mutex_lock(&l->lock);
        d.resource_version = l->rv;
        rc = cw_kube_delete(l->kube, leases(l, &r), l->name, &d, NULL, &err);
        pthread_mutex_unlock(&l->lock);
    }
    if (rc != CW_OK && rc != CW_ENOTFOUND)
        cw_log(CW_LOG_WARN, "could not release the lease (it expires on its own)",
               CW_LS("lease", l->name), CW_LS("error", err.message));
    else
        cw_log(CW_LOG_INFO, "lease released", CW_LS("lease", l->name), CW_LS("holder", l->holder));
}
