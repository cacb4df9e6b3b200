#include "migrate/scbackup.h"
#include "lib/failpoint.h"
#include "lib/json.h"
#include "lib/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_RETRIES         5
#define DELETE_WAIT_SECONDS 30

static cw_kube_resource cms(const cw_apply *a)
{
    return (cw_kube_resource){NULL, "v1", "configmaps", a->cfg.namespace};
}

static const cw_kube_resource scs = {"storage.k8s.io", "v1", "storageclasses", NULL};

/* Drops what the server owns so the object can be created again. */
static void strip_server_fields(json_object *obj)
{
    static const char *fields[] = {
        "resourceVersion", "uid",        "creationTimestamp", "managedFields",
        "selfLink",        "generation", "deletionTimestamp", "deletionGracePeriodSeconds"};
    json_object *meta = cw_json_member(obj, "metadata");
    for (size_t i = 0; meta && i < sizeof(fields) / sizeof(fields[0]); i++)
        json_object_object_del(meta, fields[i]);
    json_object_object_add(obj, "apiVersion", json_object_new_string("storage.k8s.io/v1"));
    json_object_object_add(obj, "kind", json_object_new_string("StorageClass"));
}

/* Sets (text != NULL) or removes (text == NULL) one key of the backup ConfigMap; deletes the
 * ConfigMap when its last key goes. Conditional on resourceVersion, retried on conflict. */
static int backup_set(cw_apply *a, const char *key, const char *text, cw_error *err)
{
    cw_kube_resource r = cms(a);
    cw_kube_write_opts w;
    cw_apply_write_opts(a, &w);
    for (int attempt = 0;; attempt++) {
        json_object *cm = NULL;
        int rc = cw_kube_get(a->kube, &r, CW_SC_BACKUP_CONFIGMAP, &cm, err);
        if (rc == CW_ENOTFOUND) {
            if (!text)
                return CW_OK;
            cm = json_object_new_object();
            json_object *meta = json_object_new_object(), *labels = json_object_new_object(),
                        *data = json_object_new_object();
            json_object_object_add(cm, "apiVersion", json_object_new_string("v1"));
            json_object_object_add(cm, "kind", json_object_new_string("ConfigMap"));
            json_object_object_add(meta, "name", json_object_new_string(CW_SC_BACKUP_CONFIGMAP));
            json_object_object_add(meta, "namespace", json_object_new_string(a->cfg.namespace));
            json_object_object_add(labels, "app.kubernetes.io/managed-by",
                                   json_object_new_string("cronwarden"));
            json_object_object_add(meta, "labels", labels);
            json_object_object_add(cm, "metadata", meta);
            json_object_object_add(data, key, json_object_new_string(text));
            json_object_object_add(cm, "data", data);
            rc = cw_kube_create(a->kube, &r, cm, &w, NULL, err);
        } else if (rc == CW_OK) {
            json_object *data = cw_json_member(cm, "data");
            if (!json_object_is_type(data, json_type_object)) {
                data = json_object_new_object();
                json_object_object_add(cm, "data", data);
            }
            if (text) {
                json_object_object_add(data, key, json_object_new_string(text));
                rc = cw_kube_update(a->kube, &r, CW_SC_BACKUP_CONFIGMAP, cm, &w, NULL, err);
            } else if (!json_object_object_get_ex(data, key, NULL)) {
                rc = CW_OK;
            } else {
                json_object_object_del(data, key);
                if (json_object_object_length(data) == 0) {
                    cw_kube_delete_opts d;
                    cw_kube_delete_opts_init(&d);
                    d.dry_run = a->cfg.dry_run;
                    d.resource_version = cw_json_path_string(cm, "metadata.resourceVersion");
                    rc = cw_kube_delete(a->kube, &r, CW_SC_BACKUP_CONFIGMAP, &d, NULL, err);
                    if (rc == CW_ENOTFOUND)
                        rc = CW_OK;
                } else {
                    rc = cw_kube_update(a->kube, &r, CW_SC_BACKUP_CONFIGMAP, cm, &w, NULL, err);
                }
            }
        }
        json_object_put(cm);
        if (rc != CW_ECONFLICT || attempt >= MAX_RETRIES)
            return rc == CW_OK
                       ? CW_OK
                       : cw_error_prefix(err, "%s backup of StorageClass %s in ConfigMap %s/%s",
                                         text ? "writing" : "removing", key, a->cfg.namespace,
                                         CW_SC_BACKUP_CONFIGMAP);
    }
}

/* Creates obj, waiting while an older object of the same name is still being deleted. */
static int create_class(cw_apply *a, json_object *obj, cw_error *err)
{
    cw_kube_write_opts w;
    cw_apply_write_opts(a, &w);
    for (int waited = 0;; waited++) {
        int rc = cw_kube_create(a->kube, &scs, obj, &w, NULL, err);
        if (rc != CW_ECONFLICT || waited >= DELETE_WAIT_SECONDS * 2)
            return rc;
        usleep(500 * 1000);
    }
}

int cw_apply_recover_storageclasses(cw_apply *a, cw_error *err)
{
    cw_kube_resource r = cms(a);
    json_object *cm = NULL;
    int rc = cw_kube_get(a->kube, &r, CW_SC_BACKUP_CONFIGMAP, &cm, err);
    if (rc == CW_ENOTFOUND)
        return CW_OK;
    if (rc != CW_OK)
        return cw_error_prefix(err, "reading StorageClass backups");
    json_object *data = cw_json_member(cm, "data");
    cw_strlist keys;
    cw_strlist_init(&keys);
    if (json_object_is_type(data, json_type_object)) {
        json_object_object_foreach(data, k, v)
        {
            (void)v;
            cw_strlist_add(&keys, k);
        }
    }
    for (size_t i = 0; i < keys.len && rc == CW_OK; i++) {
        const char *name = keys.items[i];
        if (a->cfg.dry_run || a->cfg.read_only) {
            cw_log(CW_LOG_WARN, "a previous run left a StorageClass backup; a real run restores it",
                   CW_LS("storageclass", name));
            continue;
        }
        rc = cw_kube_get(a->kube, &scs, name, NULL, err);
        if (rc == CW_OK) {
            cw_log(CW_LOG_INFO, "StorageClass exists; its backup is no longer needed",
                   CW_LS("storageclass", name));
            rc = backup_set(a, name, NULL, err);
            continue;
        }
        if (rc != CW_ENOTFOUND)
            break;
        json_object *orig = json_tokener_parse(cw_json_path_string(data, name));
        if (!json_object_is_type(orig, json_type_object)) {
            json_object_put(orig);
            rc = cw_error_set(err, CW_EINVAL,
                              "ConfigMap %s/%s key %s does not hold a StorageClass; restore it by "
                              "hand",
                              a->cfg.namespace, CW_SC_BACKUP_CONFIGMAP, name);
            break;
        }
        strip_server_fields(orig);
        rc = create_class(a, orig, err);
        json_object_put(orig);
        if (rc == CW_OK) {
            cw_log(CW_LOG_WARN, "restored StorageClass from the backup a crashed run left",
                   CW_LS("storageclass", name));
            rc = backup_set(a, name, NULL, err);
        } else {
            cw_error_prefix(err, "restoring StorageClass %s from ConfigMap %s/%s", name,
                            a->cfg.namespace, CW_SC_BACKUP_CONFIGMAP);
        }
    }
    cw_strlist_free(&keys);
    json_object_put(cm);
    return rc;
}

static void result(cw_plan_item *it, cw_plan_result r, const char *msg)
{
    cw_plan_set_result(&it->result, &it->result_msg, r, msg);
}

/* One StorageClass through backup -> delete -> create -> drop backup. */
static int migrate_class(cw_apply *a, cw_plan *p, cw_plan_item *it, cw_error *fatal)
{
    cw_error err;
    cw_error_init(&err);
    json_object *sc = NULL, *next = NULL, *orig = NULL;
    cw_plan_item d;
    memset(&d, 0, sizeof(d));
    int rc = cw_kube_get(a->kube, &scs, it->name, &sc, &err);
    if (rc == CW_ENOTFOUND) {
        result(it, CW_RES_SKIPPED, "the StorageClass was deleted meanwhile");
        goto done;
    }
    if (rc == CW_OK) {
        json_object_object_add(sc, "apiVersion", json_object_new_string("storage.k8s.io/v1"));
        json_object_object_add(sc, "kind", json_object_new_string("StorageClass"));
        rc = cw_plan_decide(p, sc, &d, &err);
    }
    if (rc != CW_OK) {
        result(it, CW_RES_FAILED, err.message);
        goto done;
    }
    if (d.action != CW_ACT_MIGRATE) {
        result(it, d.action == CW_ACT_NONE ? CW_RES_SKIPPED : CW_RES_FAILED,
               d.action == CW_ACT_NONE ? "migrated meanwhile" : d.reason);
        goto done;
    }
    const char *text = cw_json_compact(sc);
    if (cw_json_copy(sc, &orig) != CW_OK || cw_json_copy(sc, &next) != CW_OK ||
        cw_plan_apply_item(&d, next, &err) != CW_OK) {
        rc = cw_error_oom(fatal);
        goto done;
    }
    strip_server_fields(next);
    strip_server_fields(orig);
    if ((rc = backup_set(a, it->name, text, &err)) != CW_OK) {
        result(it, CW_RES_FAILED, err.message);
        rc = CW_OK;
        goto done;
    }
    cw_failpoint("sc-backed-up");
    cw_kube_delete_opts del;
    cw_kube_delete_opts_init(&del);
    del.dry_run = a->cfg.dry_run;
    del.uid = cw_json_path_string(sc, "metadata.uid");
    del.resource_version = cw_json_path_string(sc, "metadata.resourceVersion");
    rc = cw_kube_delete(a->kube, &scs, it->name, &del, NULL, &err);
    /* 404: an earlier attempt whose answer was lost did delete it; carry on with the create. */
    if (rc == CW_ENOTFOUND)
        rc = CW_OK;
    if (rc == CW_OK)
        cw_failpoint("sc-deleted");
    if (rc != CW_OK) {
        /* Nothing was deleted (changed meanwhile, or refused): the backup is not needed. */
        result(it, CW_RES_FAILED, err.message);
        cw_error e2;
        cw_error_init(&e2);
        if (backup_set(a, it->name, NULL, &e2) != CW_OK)
            cw_log(CW_LOG_WARN, "could not drop a StorageClass backup", CW_LS("error", e2.message));
        rc = CW_OK;
        goto done;
    }
    if (a->cfg.dry_run) {
        /* The class was not really deleted, so a create of the same name would collide: prove
         * the create (schema, admission, RBAC) under a scratch name instead. */
        char scratch[300];
        snprintf(scratch, sizeof(scratch), "%.230s-cronwarden-dry-run", it->name);
        json_object_object_add(cw_json_member(next, "metadata"), "name",
                               json_object_new_string(scratch));
    }
    rc = create_class(a, next, &err);
    if (rc == CW_OK) {
        cw_failpoint("sc-created");
        cw_error e2;
        cw_error_init(&e2);
        if (backup_set(a, it->name, NULL, &e2) != CW_OK)
            cw_log(CW_LOG_WARN, "could not drop a StorageClass backup; the next run drops it",
                   CW_LS("error", e2.message));
        result(it, a->cfg.dry_run ? CW_RES_DRYRUN : CW_RES_DONE, NULL);
        goto done;
    }
    char why[1400];
    cw_error e2;
    cw_error_init(&e2);
    if (!a->cfg.dry_run && create_class(a, orig, &e2) == CW_OK) {
        backup_set(a, it->name, NULL, &e2);
        snprintf(why, sizeof(why),
                 "creating the migrated StorageClass failed (%.600s); the original was re-created",
                 err.message);
    } else {
        snprintf(why, sizeof(why),
                 "creating the migrated StorageClass failed (%.500s) and so did re-creating the "
                 "original; it is kept in ConfigMap %s/%s key %s and the next run restores it",
                 err.message, a->cfg.namespace, CW_SC_BACKUP_CONFIGMAP, it->name);
    }
    result(it, CW_RES_FAILED, why);
    rc = CW_OK;
done:
    json_object_put(sc);
    json_object_put(next);
    json_object_put(orig);
    cw_plan_item_free(&d);
    return rc;
}

int cw_scbackup_run(cw_apply *a, cw_plan *p, cw_error *err)
{
    size_t n = 0, *idx = NULL;
    int rc = cw_plan_sorted_items(p, "StorageClass", &idx, &n, err);
    cw_plan_item item, *it = &item;
    memset(&item, 0, sizeof(item));
    for (size_t k = 0; k < n && rc == CW_OK; k++) {
        if (cw_plan_item_action(p, idx[k]) != CW_ACT_MIGRATE)
            continue;
        /* A copy from the plan's item file: its result is written back. */
        cw_plan_item_free(&item);
        if ((rc = cw_plan_item_load(p, idx[k], &item, err)) != CW_OK)
            break;
        if (a->cfg.lease && cw_lease_lost(a->cfg.lease))
            result(it, CW_RES_FAILED, "stopped: the lease was lost");
        else if (cw_apply_missing_job(p, it))
            result(it, CW_RES_SKIPPED, "a RecurringJob it needs was not created");
        else
            rc = migrate_class(a, p, it, err);
        /* Recorded also when the run stops here: the report shows how far it got. */
        cw_error serr;
        cw_error_init(&serr);
        int src = cw_plan_item_set_result(p, idx[k], it->result, it->result_msg,
                                          rc == CW_OK ? err : &serr);
        if (rc == CW_OK)
            rc = src;
    }
    cw_plan_item_free(&item);
    free(idx);
    return rc;
}
