/* Discovery and the paged listing that feeds the planner. */
#include "lib/failpoint.h"
#include "lib/json.h"
#include "lib/log.h"
#include "migrate/apply.h"

#include <stdio.h>
#include <string.h>

/* A restarted LIST (expired continue token) invalidates what earlier pages fed the plan. */
#define RESTART_GATHER (-100)

int cw_apply_discover(cw_apply *a, cw_kube_client *kube, const cw_apply_config *cfg, cw_error *err)
{
    memset(a, 0, sizeof(*a));
    a->cfg = *cfg;
    a->kube = kube;
    int rc = cw_kube_pick_version(kube, "longhorn.io", "volumes", a->longhorn_version,
                                  sizeof(a->longhorn_version), err);
    if (rc == CW_OK)
        rc = cw_kube_pick_version(kube, "longhorn.io", "recurringjobs", a->rj_version,
                                  sizeof(a->rj_version), err);
    if (rc == CW_ENOTFOUND)
        return cw_error_prefix(err, "Longhorn's CRDs are missing (install Longhorn 1.2 or later, "
                                    "or crds/ from cronwarden)");
    if (rc != CW_OK)
        return rc;
    rc = cw_kube_pick_version(kube, "batch", "cronjobs", a->cronjob_version,
                              sizeof(a->cronjob_version), err);
    if (rc != CW_OK)
        return rc;
    cw_log(CW_LOG_INFO, "discovered API versions", CW_LS("volumes", a->longhorn_version),
           CW_LS("recurringjobs", a->rj_version), CW_LS("cronjobs", a->cronjob_version));
    return CW_OK;
}

typedef struct {
    cw_plan *plan;
    const char *api_version, *kind;
    cw_progress *progress;
    size_t seen;
} feed_ctx;

/* Items of built-in Lists come without apiVersion and kind; the planner classifies by them. */
static int feed_page(void *ud, const cw_kube_page *page, cw_error *err)
{
    feed_ctx *c = ud;
    if (page->restarted)
        return cw_error_set(err, RESTART_GATHER, "list restarted");
    for (size_t i = 0; i < json_object_array_length(page->items); i++) {
        json_object *obj = json_object_array_get_idx(page->items, i);
        if (!cw_json_member(obj, "apiVersion"))
            json_object_object_add(obj, "apiVersion", json_object_new_string(c->api_version));
        if (!cw_json_member(obj, "kind"))
            json_object_object_add(obj, "kind", json_object_new_string(c->kind));
        cw_error oerr;
        cw_error_init(&oerr);
        int rc = cw_plan_add(c->plan, obj, NULL, &oerr);
        if (rc == CW_ENOMEM)
            return cw_error_oom(err);
        if (rc != CW_OK) {
            /* Online, one malformed object must not stop the rest: it is reported. */
            char what[600];
            const char *ns = cw_json_path_string(obj, "metadata.namespace");
            snprintf(what, sizeof(what), "%s %s%s%s", c->kind, ns ? ns : "", ns ? "/" : "",
                     cw_json_path_string(obj, "metadata.name") ?: "?");
            if (cw_plan_record_error(c->plan, what, "", oerr.message) != CW_OK)
                return cw_error_oom(err);
        }
        c->seen++;
    }
    if (c->progress)
        cw_progress_add(c->progress, json_object_array_length(page->items));
    cw_failpoint("list-page");
    return 0;
}

static int list_into(cw_apply *a, cw_plan *p, const cw_kube_resource *r, const char *api_version,
                     const char *kind, const char *selector, cw_error *err)
{
    cw_kube_list_opts lo;
    cw_kube_list_opts_init(&lo);
    lo.limit = a->cfg.page_size;
    lo.label_selector = selector;
    feed_ctx c = {p, api_version, kind, a->cfg.progress, 0};
    char phase[64];
    snprintf(phase, sizeof(phase), "listing %s", r->resource);
    if (a->cfg.progress)
        cw_progress_phase(a->cfg.progress, phase, 0);
    int rc = cw_kube_list(a->kube, r, &lo, feed_page, &c, err);
    if (a->cfg.progress && rc == CW_OK)
        cw_progress_done(a->cfg.progress);
    return rc;
}

static int gather_once(cw_apply *a, cw_plan *p, cw_error *err)
{
    const char *ns = a->cfg.namespace;
    char lh[64], cj[64];
    snprintf(lh, sizeof(lh), "longhorn.io/%s", a->longhorn_version);
    snprintf(cj, sizeof(cj), "batch/%s", a->cronjob_version);
    cw_kube_resource rjs = {"longhorn.io", a->rj_version, "recurringjobs", ns};
    cw_kube_resource vols = {"longhorn.io", a->longhorn_version, "volumes", ns};
    cw_kube_resource scs = {"storage.k8s.io", "v1", "storageclasses", NULL};
    cw_kube_resource cms = {NULL, "v1", "configmaps", ns};
    cw_kube_resource cjs = {"batch", a->cronjob_version, "cronjobs", ns};
    char rjv[64];
    snprintf(rjv, sizeof(rjv), "longhorn.io/%s", a->rj_version);
    int rc;
    if ((rc = list_into(a, p, &rjs, rjv, "RecurringJob", NULL, err)) != CW_OK ||
        (rc = list_into(a, p, &vols, lh, "Volume", NULL, err)) != CW_OK ||
        (rc = list_into(a, p, &scs, "storage.k8s.io/v1", "StorageClass", NULL, err)) != CW_OK ||
        (rc = list_into(a, p, &cjs, cj, "CronJob", CW_LEGACY_CRONJOB_LABEL, err)) != CW_OK)
        return rc;
    json_object *cm = NULL;
    rc = cw_kube_get(a->kube, &cms, CW_LONGHORN_SC_CONFIGMAP, &cm, err);
    if (rc == CW_ENOTFOUND)
        return CW_OK;
    if (rc != CW_OK)
        return rc;
    json_object_object_add(cm, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(cm, "kind", json_object_new_string("ConfigMap"));
    rc = cw_plan_add(p, cm, NULL, err);
    json_object_put(cm);
    return rc;
}

int cw_apply_gather(cw_apply *a, cw_plan *p, cw_error *err)
{
    char rjv[64];
    snprintf(rjv, sizeof(rjv), "longhorn.io/%s", a->rj_version);
    for (int attempt = 0;; attempt++) {
        cw_plan fresh;
        int rc = cw_plan_init(&fresh, &p->cfg, err);
        if (rc == CW_OK)
            rc = cw_plan_set_rj_api_version(&fresh, rjv);
        if (rc == CW_OK)
            rc = gather_once(a, &fresh, err);
        if (rc == RESTART_GATHER && attempt < 3) {
            cw_log(CW_LOG_WARN, "a list continue token expired; listing everything again");
            cw_plan_free(&fresh);
            continue;
        }
        if (rc == CW_OK)
            rc = cw_plan_finish(&fresh, err);
        if (rc != CW_OK) {
            cw_plan_free(&fresh);
            return rc;
        }
        cw_plan_free(p);
        *p = fresh;
        return CW_OK;
    }
}
