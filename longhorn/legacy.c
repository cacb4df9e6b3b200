#include "longhorn/legacy.h"
#include "lib/json.h"
#include "lib/yaml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cw_legacy_jobs_init(cw_legacy_jobs *l)
{
    memset(l, 0, sizeof(*l));
}

void cw_legacy_jobs_free(cw_legacy_jobs *l)
{
    free(l->items);
    json_object_put(l->owner);
    cw_legacy_jobs_init(l);
}

int cw_legacy_decode_array(json_object *arr, const char *where, cw_legacy_jobs *out, cw_error *err)
{
    size_t n = json_object_array_length(arr);
    out->present = 1;
    if (n == 0)
        return CW_OK;
    out->items = calloc(n, sizeof(*out->items));
    if (!out->items)
        return cw_error_oom(err);
    for (size_t i = 0; i < n; i++) {
        json_object *j = json_object_array_get_idx(arr, i);
        char at[160];
        snprintf(at, sizeof(at), "%s[%zu]", where, i);
        if (!json_object_is_type(j, json_type_object))
            return cw_error_set(err, CW_EINVAL, "%s: expected object, got %s", at,
                                cw_json_type_name(j));
        cw_legacy_job *job = &out->items[i];
        int rc;
        if ((rc = cw_json_opt_string(j, at, "name", &job->name, err)) != CW_OK ||
            (rc = cw_json_opt_string(j, at, "task", &job->task, err)) != CW_OK ||
            (rc = cw_json_opt_string(j, at, "cron", &job->cron, err)) != CW_OK ||
            (rc = cw_json_opt_int(j, at, "retain", &job->retain, NULL, err)) != CW_OK ||
            (rc = cw_json_opt_object(j, at, "labels", &job->labels, err)) != CW_OK)
            return rc;
        if (job->labels) {
            json_object_object_foreach(job->labels, k, v)
            {
                if (!json_object_is_type(v, json_type_string))
                    return cw_error_set(err, CW_EINVAL, "%s.labels.%s: expected string, got %s", at,
                                        k, cw_json_type_name(v));
            }
        }
        out->len++;
    }
    return CW_OK;
}

int cw_legacy_decode_volume(json_object *vol, cw_legacy_jobs *out, cw_error *err)
{
    json_object *spec = NULL, *arr = NULL;
    int rc = cw_json_opt_object(vol, "", "spec", &spec, err);
    if (rc != CW_OK || !spec)
        return rc;
    if ((rc = cw_json_opt_array(spec, "spec", "recurringJobs", &arr, err)) != CW_OK)
        return rc;
    if (!arr) {
        out->present = cw_json_member(spec, "recurringJobs") != NULL; /* explicit null */
        return CW_OK;
    }
    return cw_legacy_decode_array(arr, "spec.recurringJobs", out, err);
}

int cw_legacy_decode_storageclass(json_object *sc, cw_legacy_jobs *out, cw_error *err)
{
    json_object *params = NULL;
    const char *text = NULL;
    int rc = cw_json_opt_object(sc, "", "parameters", &params, err);
    if (rc != CW_OK || !params)
        return rc;
    if ((rc = cw_json_opt_string(params, "parameters", "recurringJobs", &text, err)) != CW_OK)
        return rc;
    if (!text)
        return CW_OK;
    out->present = 1;
    /* An empty parameter means no jobs, as Longhorn reads it. */
    const char *p = text;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (!*p)
        return CW_OK;
    enum json_tokener_error jerr;
    out->owner = json_tokener_parse_verbose(text, &jerr);
    if (!out->owner)
        return cw_error_set(err, CW_EINVAL, "parameters.recurringJobs: not valid JSON: %s",
                            json_tokener_error_desc(jerr));
    if (!json_object_is_type(out->owner, json_type_array))
        return cw_error_set(err, CW_EINVAL,
                            "parameters.recurringJobs: expected a JSON array of jobs, got %s",
                            cw_json_type_name(out->owner));
    return cw_legacy_decode_array(out->owner, "parameters.recurringJobs", out, err);
}

int cw_legacy_configmap_storageclass(json_object *cm, json_object **sc, cw_error *err)
{
    json_object *data = NULL;
    const char *text = NULL;
    cw_yaml_docs docs;
    cw_yaml_docs_init(&docs);
    *sc = NULL;
    int rc = cw_json_opt_object(cm, "", "data", &data, err);
    if (rc != CW_OK || !data)
        return rc;
    if ((rc = cw_json_opt_string(data, "data", CW_LONGHORN_SC_KEY, &text, err)) != CW_OK || !text)
        return rc;
    rc = cw_yaml_parse(text, strlen(text), NULL, &docs, err);
    if (rc != CW_OK) {
        cw_error_prefix(err, "data.%s", CW_LONGHORN_SC_KEY);
        goto done;
    }
    if (docs.len != 1 || !json_object_is_type(docs.items[0].value, json_type_object)) {
        rc = cw_error_set(err, CW_EINVAL, "data.%s: expected one YAML StorageClass document",
                          CW_LONGHORN_SC_KEY);
        goto done;
    }
    *sc = json_object_get(docs.items[0].value);
done:
    cw_yaml_docs_free(&docs);
    return rc;
}

int cw_legacy_read_meta(json_object *obj, const char *kind, const char **ns, const char **name,
                        const char **rv, cw_error *err)
{
    json_object *meta = NULL;
    int rc = cw_json_opt_object(obj, "", "metadata", &meta, err);
    if (rc != CW_OK)
        return rc;
    if (!meta)
        return cw_error_set(err, CW_EINVAL, "%s without metadata.name", kind);
    if ((rc = cw_json_opt_string(meta, "metadata", "name", name, err)) != CW_OK ||
        (rc = cw_json_opt_string(meta, "metadata", "namespace", ns, err)) != CW_OK ||
        (rc = cw_json_opt_string(meta, "metadata", "resourceVersion", rv, err)) != CW_OK)
        return rc;
    if (!*name || !**name)
        return cw_error_set(err, CW_EINVAL, "%s without metadata.name", kind);
    return CW_OK;
}
