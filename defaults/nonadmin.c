#include "defaults/nonadmin.h"

#include <openssl/rand.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cron/tz.h"
#include "lib/json.h"

/* OADP's constant.NABRestrictedErr. */
#define RESTRICTED "NonAdminBackup spec.backupSpec.%s is restricted"

static int set_msg(char **msg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_msg(char **msg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !(*msg = malloc((size_t)n + 1)))
        return CW_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(*msg, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return CW_OK;
}

/* Go's zero value as OADP's reflect.IsZero sees a decoded field: absent or null (nil pointers,
 * nil slices and maps), "" for strings. */
static int is_zero(json_object *v)
{
    return !v || (json_object_is_type(v, json_type_string) && !*json_object_get_string(v));
}

static int is_null(json_object *v)
{
    return !v;
}

/* includedNamespaces: absent, or an array of strings each equal to ns. */
static int namespaces_ok(json_object *v, const char *ns)
{
    if (is_null(v))
        return 1;
    if (!json_object_is_type(v, json_type_array))
        return 0;
    for (size_t i = 0; i < json_object_array_length(v); i++) {
        json_object *e = json_object_array_get_idx(v, i);
        if (!json_object_is_type(e, json_type_string) || strcmp(json_object_get_string(e), ns))
            return 0;
    }
    return 1;
}

/* The text a Go %v gives for a simple value; JSON for the rest. */
static const char *value_text(json_object *v)
{
    return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                    : cw_json_compact(v);
}

/* A field the administrator enforces may be unset or equal. */
static int enforced_msg(json_object *spec, json_object *enforced, const char *where, char **msg)
{
    if (!json_object_is_type(enforced, json_type_object))
        return CW_OK;
    json_object_object_foreach(enforced, k, want)
    {
        json_object *have = cw_json_member(spec, k);
        if (!is_zero(want) && !is_zero(have) && !json_object_equal(want, have))
            return set_msg(msg, "the administrator has restricted spec.%s.%s field value to %s",
                           where, k, value_text(want));
    }
    return CW_OK;
}

int cw_nab_check_spec(json_object *spec, const char *ns, json_object *enforced, char **msg)
{
    *msg = NULL;
    if (spec && !json_object_is_type(spec, json_type_object))
        return set_msg(msg, "NonAdminBackup spec.backupSpec is invalid: expected an object, got %s",
                       cw_json_type_name(spec));
    if (!namespaces_ok(cw_json_member(spec, "includedNamespaces"), ns))
        return set_msg(msg, RESTRICTED ", can not contain namespaces other than: %s",
                       "includedNamespaces", ns);
    if (!is_null(cw_json_member(spec, "excludedNamespaces")))
        return set_msg(msg, RESTRICTED, "excludedNamespaces");
    json_object *icr = cw_json_member(spec, "includeClusterResources");
    if (!is_null(icr) &&
        !(json_object_is_type(icr, json_type_boolean) && !json_object_get_boolean(icr)))
        return set_msg(msg, RESTRICTED ", can only be set to false", "includeClusterResources");
    json_object *icsr = cw_json_member(spec, "includedClusterScopedResources");
    if (!is_null(icsr) &&
        !(json_object_is_type(icsr, json_type_array) && json_object_array_length(icsr) == 0))
        return set_msg(msg, RESTRICTED ", must remain empty", "includedClusterScopedResources");
    if (!is_zero(cw_json_member(spec, "storageLocation")))
        return set_msg(msg,
                       RESTRICTED ", must remain empty (NonAdminBackupStorageLocation is not "
                                  "supported by cronwarden: backups go to the default location)",
                       "storageLocation");
    if (!is_null(cw_json_member(spec, "volumeSnapshotLocations")))
        return set_msg(msg, RESTRICTED, "volumeSnapshotLocations");
    return enforced_msg(spec, enforced, "backupSpec", msg);
}

/* An enforced spec: a map that sets none of the refused fields. */
static int check_enforced(json_object *enforced, const char *what, const char *users,
                          const char *const *refused, cw_error *err)
{
    if (!enforced)
        return CW_OK;
    if (!json_object_is_type(enforced, json_type_object))
        return cw_error_set(err, CW_EINVAL, "expected a Velero %s (a map), got %s", what,
                            cw_json_type_name(enforced));
    for (size_t i = 0; refused[i]; i++)
        if (!is_zero(cw_json_member(enforced, refused[i])))
            return cw_error_set(err, CW_EINVAL,
                                "%s: non-admin %s may not set it, so it cannot be enforced",
                                refused[i], users);
    return CW_OK;
}

int cw_nab_check_enforced(json_object *enforced, cw_error *err)
{
    static const char *const refused[] = {
        "includedNamespaces",      "excludedNamespaces", "includedClusterScopedResources",
        "volumeSnapshotLocations", "storageLocation",    NULL};
    int rc = check_enforced(enforced, "BackupSpec", "backups", refused, err);
    if (rc != CW_OK)
        return rc;
    json_object *icr = cw_json_member(enforced, "includeClusterResources");
    if (json_object_is_type(icr, json_type_boolean) && json_object_get_boolean(icr))
        return cw_error_set(err, CW_EINVAL,
                            "includeClusterResources: non-admin backups can only set it to false");
    return CW_OK;
}

/* Every enforced field s leaves unset, copied in. */
static int fill_enforced(json_object *s, json_object *enforced)
{
    if (!json_object_is_type(enforced, json_type_object))
        return CW_OK;
    json_object_object_foreach(enforced, k, want)
    {
        json_object *copy = NULL;
        if (is_zero(want) || !is_zero(cw_json_member(s, k)))
            continue;
        if (cw_json_copy(want, &copy) != CW_OK || json_object_object_add(s, k, copy)) {
            json_object_put(copy);
            return CW_ENOMEM;
        }
    }
    return CW_OK;
}

/* A copy of spec (an object; {} when it is not one). */
static json_object *spec_copy(json_object *spec)
{
    json_object *s = NULL;
    if (json_object_is_type(spec, json_type_object))
        return cw_json_copy(spec, &s) == CW_OK ? s : NULL;
    return json_object_new_object();
}

int cw_nab_velero_spec(json_object *spec, const char *ns, json_object *enforced, json_object **out)
{
    json_object *s = NULL, *nss = json_object_new_array();
    *out = NULL;
    if (!nss)
        return CW_ENOMEM;
    if (!(s = spec_copy(spec)))
        goto oom;
    if (json_object_array_add(nss, json_object_new_string(ns)) ||
        json_object_object_add(s, "includedNamespaces", nss)) {
        nss = NULL;
        goto oom;
    }
    nss = NULL;
    if (fill_enforced(s, enforced) != CW_OK)
        goto oom;
    *out = s;
    return CW_OK;
oom:
    json_object_put(nss);
    json_object_put(s);
    return CW_ENOMEM;
}

/* Absent, null, or an empty list or map: Go's len() == 0. */
static int is_empty(json_object *v)
{
    return !v || (json_object_is_type(v, json_type_array) && json_object_array_length(v) == 0) ||
           (json_object_is_type(v, json_type_object) && json_object_object_length(v) == 0);
}

int cw_nar_check_spec(json_object *spec, json_object *nab, json_object *enforced, char **msg)
{
    static const char *const restricted[] = {"includedNamespaces", "excludedNamespaces",
                                             "namespaceMapping"};
    *msg = NULL;
    if (spec && !json_object_is_type(spec, json_type_object))
        return set_msg(msg,
                       "NonAdminRestore spec.restoreSpec is invalid: expected an object, got %s",
                       cw_json_type_name(spec));
    if (!is_zero(cw_json_member(spec, "scheduleName")))
        return set_msg(msg, "NonAdminRestore spec.restoreSpec.scheduleName is restricted");
    json_object *bn = cw_json_member(spec, "backupName");
    if (is_zero(bn) || !json_object_is_type(bn, json_type_string))
        return set_msg(msg, "NonAdminRestore spec.restoreSpec.backupName is not set");
    for (size_t i = 0; i < sizeof(restricted) / sizeof(restricted[0]); i++)
        if (!is_empty(cw_json_member(spec, restricted[i])))
            return set_msg(msg, "NonAdminRestore spec.restoreSpec.%s is restricted", restricted[i]);
    const char *phase = cw_json_path_string(nab, "status.phase");
    const char *nacuuid = cw_json_path_string(nab, "status.veleroBackup.nacuuid");
    if (!phase || strcmp(phase, "Created") || !nacuuid || !*nacuuid ||
        cw_json_path(nab, "metadata.deletionTimestamp"))
        return set_msg(msg, "NonAdminRestore spec.restoreSpec.backupName is invalid: "
                            "NonAdminBackup is not ready to be restored");
    return enforced_msg(spec, enforced, "restoreSpec", msg);
}

int cw_nar_check_enforced(json_object *enforced, cw_error *err)
{
    static const char *const refused[] = {"scheduleName",       "backupName",
                                          "includedNamespaces", "excludedNamespaces",
                                          "namespaceMapping",   NULL};
    return check_enforced(enforced, "RestoreSpec", "restores", refused, err);
}

int cw_nar_velero_spec(json_object *spec, const char *backup, json_object *enforced,
                       json_object **out)
{
    json_object *s = spec_copy(spec), *b = NULL;
    *out = NULL;
    if (!s || !(b = json_object_new_string(backup)) || json_object_object_add(s, "backupName", b)) {
        json_object_put(b);
        json_object_put(s);
        return CW_ENOMEM;
    }
    if (fill_enforced(s, enforced) != CW_OK) {
        json_object_put(s);
        return CW_ENOMEM;
    }
    *out = s;
    return CW_OK;
}

void cw_nacuuid_format(const char *ns, const char *name, const char *uuid, char *out, size_t outlen)
{
    /* Room for "<ns>-<name>" (or "<ns>") before "-<uuid>". */
    const int room = CW_NACUUID_MAX - CW_UUID4_LEN - 1;
    int nsl = (int)strlen(ns), namel = (int)strlen(name);
    if (nsl + 1 + namel > room)
        namel = room - nsl - 1; /* the name part goes first */
    if (namel <= 0) {
        if (nsl > room)
            nsl = room;
        snprintf(out, outlen, "%.*s-%s", nsl, ns, uuid);
        return;
    }
    snprintf(out, outlen, "%.*s-%.*s-%s", nsl, ns, namel, name, uuid);
}

int cw_uuid4(char *out, size_t outlen, cw_error *err)
{
    unsigned char b[16];
    if (outlen < CW_UUID4_LEN + 1)
        return cw_error_set(err, CW_ELIMIT, "uuid: buffer too small");
    if (RAND_bytes(b, sizeof(b)) != 1)
        return cw_error_set(err, CW_EIO, "uuid: OpenSSL RAND_bytes failed");
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    snprintf(out, outlen, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
    return CW_OK;
}

int cw_nac_finished(json_object *velero)
{
    return cw_json_path_string(velero, "status.completionTimestamp") != NULL;
}

static int created_at(json_object *o, int64_t *t)
{
    const char *s = cw_json_path_string(o, "metadata.creationTimestamp");
    int32_t off;
    return s && cw_tz_parse_rfc3339(s, t, &off, NULL) == CW_OK;
}

int64_t cw_nac_queue_position(json_object *target, json_object *all)
{
    int64_t mine, theirs, ahead = 0;
    if (!target || cw_nac_finished(target))
        return 0;
    const char *phase = cw_json_path_string(target, "status.phase");
    json_object *qp = cw_json_path(target, "status.queuePosition");
    if (phase && strcmp(phase, "Queued") == 0 && json_object_is_type(qp, json_type_int) &&
        json_object_get_int64(qp) > 0)
        return json_object_get_int64(qp);
    if (!created_at(target, &mine))
        return 0; /* not yet seen by the apiserver: no estimate */
    size_t n = json_object_is_type(all, json_type_array) ? json_object_array_length(all) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *b = json_object_array_get_idx(all, i);
        if (!cw_nac_finished(b) && created_at(b, &theirs) && theirs < mine)
            ahead++;
    }
    return ahead + 1;
}

json_object *cw_nac_condition(json_object *conds, const char *type)
{
    size_t n = json_object_is_type(conds, json_type_array) ? json_object_array_length(conds) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *c = json_object_array_get_idx(conds, i);
        const char *t = cw_json_path_string(c, "type");
        if (t && strcmp(t, type) == 0)
            return c;
    }
    return NULL;
}

static int same(json_object *c, const char *key, const char *want)
{
    const char *v = cw_json_path_string(c, key);
    return v && strcmp(v, want) == 0;
}

int cw_nac_set_condition(json_object **conds, const char *type, const char *status,
                         const char *reason, const char *message, const char *now)
{
    if (!json_object_is_type(*conds, json_type_array) && !(*conds = json_object_new_array()))
        return CW_ENOMEM;
    json_object *c = cw_nac_condition(*conds, type);
    if (c && same(c, "status", status) && same(c, "reason", reason) && same(c, "message", message))
        return 0;
    if (!c) {
        if (!(c = json_object_new_object()) || json_object_array_add(*conds, c)) {
            json_object_put(c);
            return CW_ENOMEM;
        }
        if (cw_json_set_string(c, "type", type) || cw_json_set_string(c, "lastTransitionTime", now))
            return CW_ENOMEM;
    } else if (!same(c, "status", status) && cw_json_set_string(c, "lastTransitionTime", now)) {
        return CW_ENOMEM;
    }
    if (cw_json_set_string(c, "status", status) || cw_json_set_string(c, "reason", reason) ||
        cw_json_set_string(c, "message", message))
        return CW_ENOMEM;
    return 1;
}

int cw_nac_phase_rank(const char *phase)
{
    static const char *const order[] = {"", "New", "BackingOff", "Created", "Deleting"};
    if (!phase)
        return 0;
    for (int i = 0; i < (int)(sizeof(order) / sizeof(order[0])); i++)
        if (strcmp(phase, order[i]) == 0)
            return i;
    return -1;
}
