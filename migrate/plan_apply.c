/* A plan item's decision applied to its object: the rewritten StorageClass or ConfigMap of the
 * manifest writer, a volume's JSON patch (online, with its resourceVersion as a test) and merge
 * patch. Pure: objects in, objects out. */
#include "migrate/plan.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/yaml.h"
#include "longhorn/volume.h"

#include <stdlib.h>
#include <string.h>

static int apply_storageclass(const cw_plan_item *it, json_object *sc)
{
    json_object *params = cw_json_member(sc, "parameters");
    if (!json_object_is_type(params, json_type_object))
        return CW_OK;
    json_object_object_del(params, "recurringJobs");
    if (it->new_selector)
        json_object_object_add(params, "recurringJobSelector",
                               json_object_new_string(it->new_selector));
    return CW_OK;
}

int cw_plan_apply_item(const cw_plan_item *it, json_object *obj, cw_error *err)
{
    if (it->action != CW_ACT_MIGRATE)
        return CW_OK;
    if (strcmp(it->kind, "StorageClass") == 0)
        return apply_storageclass(it, obj);
    if (strcmp(it->kind, "ConfigMap") == 0) {
        json_object *sc = NULL;
        cw_buf text;
        cw_buf_init(&text);
        int rc = cw_legacy_configmap_storageclass(obj, &sc, err);
        if (rc == CW_OK && sc && (rc = apply_storageclass(it, sc)) == CW_OK &&
            (rc = cw_yaml_emit(sc, &text, err)) == CW_OK)
            json_object_object_add(cw_json_member(obj, "data"), CW_LONGHORN_SC_KEY,
                                   json_object_new_string(cw_buf_str(&text)));
        json_object_put(sc);
        cw_buf_free(&text);
        return rc;
    }
    json_object *meta = cw_json_member(obj, "metadata");
    json_object *labels = cw_json_member(meta, "labels");
    if (!json_object_is_type(labels, json_type_object)) {
        labels = json_object_new_object();
        if (!labels)
            return cw_error_oom(err);
        json_object_object_add(meta, "labels", labels);
    }
    for (size_t i = 0; i < it->add_labels.len; i++)
        json_object_object_add(labels, it->add_labels.items[i],
                               json_object_new_string(CW_LABEL_ENABLED));
    json_object_object_del(cw_json_member(obj, "spec"), "recurringJobs");
    return CW_OK;
}

int cw_plan_volume_patch(const cw_plan_item *it, json_object *vol, json_object **ops, cw_error *err)
{
    int rc = CW_OK;
    char *path = NULL;
    json_object *arr = json_object_new_array();
    *ops = NULL;
    if (!arr)
        return cw_error_oom(err);
    if (it->resource_version && *it->resource_version &&
        (rc = cw_jpatch_op(arr, "test", "/metadata/resourceVersion",
                           json_object_new_string(it->resource_version))) != CW_OK)
        goto nomem;
    json_object *labels = cw_json_path(vol, "metadata.labels");
    if (!json_object_is_type(labels, json_type_object)) {
        json_object *all = json_object_new_object();
        for (size_t i = 0; all && i < it->add_labels.len; i++)
            json_object_object_add(all, it->add_labels.items[i],
                                   json_object_new_string(CW_LABEL_ENABLED));
        if (it->add_labels.len && cw_jpatch_op(arr, "add", "/metadata/labels", all) != CW_OK)
            goto nomem;
        if (!it->add_labels.len)
            json_object_put(all);
    } else {
        for (size_t i = 0; i < it->add_labels.len; i++) {
            if (!(path = cw_jptr("metadata", "labels", it->add_labels.items[i], NULL)) ||
                cw_jpatch_op(arr, "add", path, json_object_new_string(CW_LABEL_ENABLED)) != CW_OK)
                goto nomem;
            free(path);
            path = NULL;
        }
    }
    if (cw_json_path(vol, "spec") &&
        json_object_object_get_ex(cw_json_member(vol, "spec"), "recurringJobs", NULL) &&
        cw_jpatch_op(arr, "remove", "/spec/recurringJobs", NULL) != CW_OK)
        goto nomem;
    *ops = arr;
    return CW_OK;
nomem:
    free(path);
    json_object_put(arr);
    return cw_error_oom(err);
}

json_object *cw_plan_volume_merge_patch(const cw_plan_item *it)
{
    return cw_volplan_merge_patch(it->resource_version, &it->add_labels);
}
