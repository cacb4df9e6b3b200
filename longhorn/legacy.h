/* Decoding of legacy Longhorn recurring jobs ({name, task, cron, retain, labels}) from the three
 * places they live: Volume spec.recurringJobs (typed JSON), StorageClass
 * parameters.recurringJobs (a JSON string) and the longhorn-storageclass ConfigMap (a YAML
 * StorageClass inside data). */
#ifndef CW_LEGACY_H
#define CW_LEGACY_H

#include <json-c/json.h>
#include <stdint.h>

#include "lib/error.h"

#define CW_LEGACY_CRONJOB_LABEL  "longhornvolume"        /* a legacy CronJob's volume */
#define CW_LONGHORN_SC_CONFIGMAP "longhorn-storageclass" /* in Longhorn's namespace */
#define CW_LONGHORN_SC_KEY       "storageclass.yaml"
#define CW_LONGHORN_PROVISIONER  "driver.longhorn.io"

typedef struct cw_legacy_job {
    const char *name, *task, *cron; /* borrowed from the decoded JSON; NULL when absent */
    int64_t retain;
    json_object *labels; /* borrowed; NULL when absent or null */
} cw_legacy_job;

typedef struct cw_legacy_jobs {
    cw_legacy_job *items;
    size_t len;
    json_object *owner; /* keeps parsed parameter text alive (owned), or NULL */
    int present;        /* the legacy field exists (even empty) */
} cw_legacy_jobs;

void cw_legacy_jobs_init(cw_legacy_jobs *l);
void cw_legacy_jobs_free(cw_legacy_jobs *l);

/* Decodes `arr` (a JSON array of job objects) found at `where` (for messages). Wrong types fail
 * with CW_EINVAL: "spec.recurringJobs[2].retain: expected integer, got string". */
int cw_legacy_decode_array(json_object *arr, const char *where, cw_legacy_jobs *out,
                           cw_error *err) CW_MUST_CHECK;
/* Volume: spec.recurringJobs. */
int cw_legacy_decode_volume(json_object *vol, cw_legacy_jobs *out, cw_error *err) CW_MUST_CHECK;
/* StorageClass: parameters.recurringJobs (JSON text). */
int cw_legacy_decode_storageclass(json_object *sc, cw_legacy_jobs *out,
                                  cw_error *err) CW_MUST_CHECK;

/* Parses the StorageClass YAML held by the longhorn-storageclass ConfigMap (data key
 * storageclass.yaml). *sc is NULL when the key is absent. */
int cw_legacy_configmap_storageclass(json_object *cm, json_object **sc,
                                     cw_error *err) CW_MUST_CHECK;

/* metadata.name (required), metadata.namespace and metadata.resourceVersion of an object of
 * `kind` (for messages: "Volume without metadata.name"), type-checked; borrowed from obj. */
int cw_legacy_read_meta(json_object *obj, const char *kind, const char **ns, const char **name,
                        const char **rv, cw_error *err) CW_MUST_CHECK;

#endif
