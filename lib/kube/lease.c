#include "migrate/lease.h"
#include "lib/failpoint.h"
#include "lib/json.h"
#include "lib/log.h"

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

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Kubernetes MicroTime: RFC 3339 with microseconds, UTC. */
static json_object *micro_now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char s[64];
    snprintf(s, sizeof(s), "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (long)tv.tv_usec);
    return json_object_new_string(s);
}

int cw_lease_init(cw_lease *l, cw_kube_client *kube, const char *ns, const char *name,
                  const char *holder, int duration, int dry_run, cw_error *err)
{
    memset(l, 0, sizeof(*l));
    char id[300];
    if (!holder) {
        const char *pod = getenv("POD_NAME");
        char host[256] = "unknown";
        gethostname(host, sizeof(host) - 1);
        snprintf(id, sizeof(id), "%s_%ld", pod && *pod ? pod : host, (long)getpid());
        holder = id;
    }
    l->kube = kube;
    l->duration = duration > 0 ? duration : 30;
    l->dry_run = dry_run;
    l->namespace = strdup(ns);
    l->name = strdup(name);
    l->holder = strdup(holder);
    pthread_mutex_init(&l->lock, NULL);
    atomic_init(&l->stop, 0);
    atomic_init(&l->lost, 0);
    if (!l->namespace || !l->name || !l->holder)
        return cw_error_set(err, CW_ENOMEM, "out of memory");
    return CW_OK;
}

void cw_lease_free(cw_lease *l)
{
    free(l->namespace);
    free(l->name);
    free(l->holder);
    free(l->rv);
    pthread_mutex_destroy(&l->lock);
    memset(l, 0, sizeof(*l));
}

int cw_lease_lost(cw_lease *l)
{
    return atomic_load(&l->lost);
}

static void keep_rv(cw_lease *l, json_object *obj)
{
    const char *rv = cw_json_path_string(obj, "metadata.resourceVersion");
    pthread_mutex_lock(&l->lock);
    free(l->rv);
    l->rv = rv ? strdup(rv) : NULL;
    pthread_mutex_unlock(&l->lock);
}

static json_object *lease_object(const cw_lease *l, json_object *base, int transitions)
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
    json_object *spec = json_object_new_object();
    json_object_object_add(spec, "holderIdentity", json_object_new_string(l->holder));
    json_object_object_add(spec, "leaseDurationSeconds", json_object_new_int(l->duration));
    json_object_object_add(spec, "acquireTime", micro_now());
    json_object_object_add(spec, "renewTime", micro_now());
    json_object_object_add(spec, "leaseTransitions", json_object_new_int(transitions));
    json_object_object_add(o, "spec", spec);
    return o;
}

static void *renew_loop(void *arg)
{
    cw_lease *l = arg;
    double last_ok = mono();
    while (!atomic_load(&l->stop)) {
        for (int i = 0; i < l->duration * 10 / 3 && !atomic_load(&l->stop); i++)
            usleep(100 * 1000);
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
                         l->namespace, l->name, h ? h : "nobody");
                atomic_store(&l->lost, 1);
                json_object_put(cur);
                break;
            }
            json_object *spec = cw_json_member(cur, "spec");
            json_object_object_add(spec, "renewTime", micro_now());
            rc = cw_kube_update(l->kube, &r, l->name, cur, NULL, &out, &err);
            if (rc == CW_OK) {
                keep_rv(l, out);
                last_ok = mono();
            }
        }
        json_object_put(cur);
        json_object_put(out);
        if (rc != CW_OK) {
            cw_log(CW_LOG_WARN, "lease renewal failed", CW_LS("error", err.message));
            if (mono() - last_ok > l->duration) {
                snprintf(l->lost_why, sizeof(l->lost_why),
                         "lease %s/%s could not be renewed for %ds: %.300s", l->namespace, l->name,
                         l->duration, err.message);
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
    double deadline = mono() + wait, seen_at = 0;
    char seen_rv[128] = "";
    int announced = 0;
    cw_kube_write_opts w;
    cw_kube_write_opts_init(&w);
    w.dry_run = l->dry_run;
    for (;;) {
        json_object *cur = NULL, *out = NULL;
        int rc = cw_kube_get(l->kube, leases(l, &r), l->name, &cur, err);
        if (rc == CW_ENOTFOUND) {
            json_object *o = lease_object(l, NULL, 0);
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
        int d = dur ? json_object_get_int(dur) : l->duration;
        double t = mono();
        if (!rv || strcmp(rv, seen_rv) != 0) {
            snprintf(seen_rv, sizeof(seen_rv), "%s", rv ? rv : "");
            seen_at = t;
        }
        int free_now = !holder || !*holder || strcmp(holder, l->holder) == 0 || t - seen_at > d;
        if (free_now) {
            json_object *tr = cw_json_path(cur, "spec.leaseTransitions");
            int transitions = (tr ? json_object_get_int(tr) : 0) + (holder && *holder ? 1 : 0);
            cur = lease_object(l, cur, transitions);
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
        json_object_put(cur);
        if (t >= deadline)
            return cw_error_set(err, CW_ECONFLICT,
                                "another migration holds lease %s/%s (holder %s); it ends or "
                                "expires %ds after its last renewal. Wait, or raise --lease-wait",
                                l->namespace, l->name, holder, d);
        if (!announced) {
            cw_log(CW_LOG_INFO, "waiting for the migration lease", CW_LS("holder", holder),
                   CW_LS("lease", l->name));
            announced = 1;
        }
        usleep(500 * 1000);
    }
    cw_failpoint("lease-acquired");
    cw_log(CW_LOG_INFO, "lease acquired", CW_LS("lease", l->name), CW_LS("holder", l->holder),
           CW_LB("dry_run", l->dry_run));
    if (!l->dry_run && pthread_create(&l->renewer, NULL, renew_loop, l) == 0)
        l->renewing = 1;
    return CW_OK;
}

void cw_lease_release(cw_lease *l)
{
    atomic_store(&l->stop, 1);
    if (l->renewing) {
        pthread_join(l->renewer, NULL);
        l->renewing = 0;
    }
    if (l->dry_run || atomic_load(&l->lost))
        return;
    cw_error err;
    cw_error_init(&err);
    cw_kube_resource r;
    cw_kube_delete_opts d;
    cw_kube_delete_opts_init(&d);
    pthread_mutex_lock(&l->lock);
    d.resource_version = l->rv;
    int rc = cw_kube_delete(l->kube, leases(l, &r), l->name, &d, NULL, &err);
    pthread_mutex_unlock(&l->lock);
    if (rc != CW_OK && rc != CW_ENOTFOUND)
        cw_log(CW_LOG_WARN, "could not release the lease (it expires on its own)",
               CW_LS("error", err.message));
}
