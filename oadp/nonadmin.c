#include "oadp/nonadmin.h"

#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cron/tz.h"
#include "lib/buf.h"
#include "lib/gostr.h"
#include "lib/json.h"
#include "lib/k8sname.h"

/* OADP's constant.NABRestrictedErr. */
#define RESTRICTED "NonAdminBackup spec.backupSpec.%s is restricted"

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

/* includeClusterResources asks for cluster-scoped resources: set and not false. */
static int cluster_resources(json_object *spec)
{
    json_object *icr = cw_json_member(spec, "includeClusterResources");
    return !is_null(icr) &&
           !(json_object_is_type(icr, json_type_boolean) && !json_object_get_boolean(icr));
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
            return cw_nac_msgf(msg, "the administrator has restricted spec.%s.%s field value to %s",
                               where, k, value_text(want));
    }
    return CW_OK;
}

#define NAB_WHAT "NonAdminBackup spec.backupSpec"
#define NAR_WHAT "NonAdminRestore spec.restoreSpec"

/* What keeps the Velero object in the namespace, after OADP's checks (each runs only while *msg
 * is still NULL). */
static int scope_msg(json_object *spec, const char *ns, json_object *enforced,
                     const cw_nac_policy *p, int restore, char **msg)
{
    const char *what = restore ? NAR_WHAT : NAB_WHAT;
    int rc = cw_nac_check_resources(spec, what, restore, msg);
    if (rc == CW_OK && !*msg)
        rc = cw_nac_check_hooks(cw_json_member(spec, "hooks"), what, ns, restore, p, msg);
    if (rc == CW_OK && !*msg)
        rc = cw_nac_check_policy_ref(spec, enforced,
                                     restore ? "resourceModifier" : "resourcePolicy", what, p, msg);
    return rc;
}

int cw_nab_check_spec(json_object *spec, const char *ns, json_object *enforced,
                      const cw_nac_policy *p, char **msg)
{
    *msg = NULL;
    if (spec && !json_object_is_type(spec, json_type_object))
        return cw_nac_msgf(msg,
                           "NonAdminBackup spec.backupSpec is invalid: expected an object, got %s",
                           cw_json_type_name(spec));
    if (!namespaces_ok(cw_json_member(spec, "includedNamespaces"), ns))
        return cw_nac_msgf(msg, RESTRICTED ", can not contain namespaces other than: %s",
                           "includedNamespaces", ns);
    if (!is_null(cw_json_member(spec, "excludedNamespaces")))
        return cw_nac_msgf(msg, RESTRICTED, "excludedNamespaces");
    if (cluster_resources(spec))
        return cw_nac_msgf(msg, RESTRICTED ", can only be set to false", "includeClusterResources");
    json_object *icsr = cw_json_member(spec, "includedClusterScopedResources");
    if (!is_null(icsr) &&
        !(json_object_is_type(icsr, json_type_array) && json_object_array_length(icsr) == 0))
        return cw_nac_msgf(msg, RESTRICTED ", must remain empty", "includedClusterScopedResources");
    if (!is_zero(cw_json_member(spec, "storageLocation")))
        return cw_nac_msgf(msg,
                           RESTRICTED
                           ", must remain empty (NonAdminBackupStorageLocation is not "
                           "supported by cronwarden: backups go to the default location)",
                           "storageLocation");
    if (!is_null(cw_json_member(spec, "volumeSnapshotLocations")))
        return cw_nac_msgf(msg, RESTRICTED, "volumeSnapshotLocations");
    int rc = enforced_msg(spec, enforced, "backupSpec", msg);
    if (rc != CW_OK || *msg)
        return rc;
    return scope_msg(spec, ns, enforced, p, 0, msg);
}

/* An enforced spec: a map that sets none of the refused fields, asks for no cluster-scoped
 * resources and loosens none of the tenancy rules. */
static int check_enforced(json_object *enforced, const char *what, const char *users,
                          const char *const *refused, int restore, cw_error *err)
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
    if (cluster_resources(enforced))
        return cw_error_set(err, CW_EINVAL,
                            "includeClusterResources: non-admin %s can only set it to false",
                            users);
    return cw_nac_check_enforced_scope(enforced, users, restore, err);
}

int cw_nab_check_enforced(json_object *enforced, cw_error *err)
{
    static const char *const refused[] = {
        "includedNamespaces",      "excludedNamespaces", "includedClusterScopedResources",
        "volumeSnapshotLocations", "storageLocation",    NULL};
    return check_enforced(enforced, "BackupSpec", "backups", refused, 0, err);
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

/* s.<key> := [ns] */
static int only_namespace(json_object *s, const char *key, const char *ns)
{
    json_object *nss = json_object_new_array();
    if (!nss || json_object_array_add(nss, json_object_new_string(ns)) ||
        json_object_object_add(s, key, nss)) {
        json_object_put(nss);
        return CW_ENOMEM;
    }
    return CW_OK;
}

/* The Velero spec of both kinds: the user's, held to ns, the enforced fields filled in, OADP's
 * exclusions added, the hooks held to ns; a restore's backupName is the Velero Backup. */
static int velero_spec(json_object *spec, const char *ns, const char *backup, json_object *enforced,
                       json_object **out)
{
    json_object *s = spec_copy(spec), *b = NULL;
    *out = NULL;
    if (!s || only_namespace(s, "includedNamespaces", ns) != CW_OK ||
        fill_enforced(s, enforced) != CW_OK)
        goto oom;
    if (backup &&
        (!(b = json_object_new_string(backup)) || json_object_object_add(s, "backupName", b))) {
        json_object_put(b);
        goto oom;
    }
    if ((backup ? cw_nac_exclude_restore(s) : cw_nac_exclude_backup(s)) != CW_OK ||
        cw_nac_confine_hooks(s, ns) != CW_OK)
        goto oom;
    *out = s;
    return CW_OK;
oom:
    json_object_put(s);
    return CW_ENOMEM;
}

int cw_nab_velero_spec(json_object *spec, const char *ns, json_object *enforced, json_object **out)
{
    return velero_spec(spec, ns, NULL, enforced, out);
}

int cw_nar_velero_spec(json_object *spec, const char *ns, const char *backup, json_object *enforced,
                       json_object **out)
{
    return velero_spec(spec, ns, backup, enforced, out);
}

int cw_nac_size_msg(int restore, size_t bytes, char **msg)
{
    *msg = NULL;
    return cw_nac_msgf(msg, "%s is too large: %zu bytes, the limit is %d bytes (compact JSON)",
                       restore ? NAR_WHAT : NAB_WHAT, bytes, CW_NAC_SPEC_MAX);
}

int cw_nac_share_msg(int restore, const char *ns, size_t held, char **msg)
{
    *msg = NULL;
    return cw_nac_msgf(msg,
                       "%s is not accepted: the %s of namespace %s waiting to be created already "
                       "hold %zu bytes of specs, its share is %d bytes; edit this one again once "
                       "fewer are waiting",
                       restore ? NAR_WHAT : NAB_WHAT,
                       restore ? "NonAdminRestores" : "NonAdminBackups", ns, held,
                       CW_NAC_NS_SPEC_MAX);
}

/* Absent, null, or an empty list or map: Go's len() == 0. */
static int is_empty(json_object *v)
{
    return !v || (json_object_is_type(v, json_type_array) && json_object_array_length(v) == 0) ||
           (json_object_is_type(v, json_type_object) && json_object_object_length(v) == 0);
}

/* o.<key> is the string want (label and annotation keys hold dots: not a path). */
static int member_is(json_object *o, const char *key, const char *want)
{
    json_object *v = cw_json_member(o, key);
    return want && json_object_is_type(v, json_type_string) &&
           strcmp(json_object_get_string(v), want) == 0;
}

int cw_nac_origin_is(json_object *velero, const char *label_nacuuid, const char *ann_name,
                     const char *ann_namespace, const char *ns, const char *name,
                     const char *nacuuid)
{
    json_object *ann = cw_json_path(velero, "metadata.annotations");
    json_object *labels = cw_json_path(velero, "metadata.labels");
    return velero && member_is(ann, ann_namespace, ns) && member_is(ann, ann_name, name) &&
           member_is(labels, label_nacuuid, nacuuid);
}

/* The NonAdminBackup's Velero Backup is there under its nacuuid and carries its origin. */
static int backup_msg(const cw_nar_context *c, const char *name, const char *nacuuid, char **msg)
{
    const char *bname = cw_json_path_string(c->backup, "metadata.name");
    const char *bns = cw_json_path_string(c->backup, "metadata.namespace");
    if (bname && strcmp(bname, nacuuid) == 0 && (!bns || !c->oadp || strcmp(bns, c->oadp) == 0) &&
        cw_nac_origin_is(c->backup, CW_NAB_LABEL_NACUUID, CW_NAB_ANN_NAME, CW_NAB_ANN_NAMESPACE,
                         c->ns, name, nacuuid))
        return CW_OK;
    /* One message whether it is missing or another's: no probing of names that exist. */
    return cw_nac_msgf(msg,
                       "NonAdminRestore spec.restoreSpec.backupName is invalid: no Velero Backup "
                       "%s/%s with the origin label and annotations of NonAdminBackup %s/%s",
                       c->oadp, nacuuid, c->ns, name);
}

int cw_nar_backup_addressable(json_object *bn)
{
    const char *s = json_object_is_type(bn, json_type_string) ? json_object_get_string(bn) : NULL;
    /* json-c's C string ends at a NUL (JSON may hold "\u0000"): the whole value must be the name */
    return s && *s && (size_t)json_object_get_string_len(bn) == strlen(s) &&
           !cw_k8sname_check_subdomain(s);
}

/* The longest part of a backupName quoted in the message: a condition's message holds at most
 * 32768 bytes (OADP's CRD), Go's quoting may take 10 bytes for one rune. */
#define NOT_FOUND_NAME_MAX 1024

/* OADP's answer to a backupName that names no NonAdminBackup, word for word: ValidateRestoreSpec
 * (internal/common/function/function.go, migtools/oadp-non-admin 4e22229) returns
 * fmt.Errorf("NonAdminRestore spec.restoreSpec.backupName is invalid: %v", err) for the error of
 * its client's Get, and the controller puts it in Accepted=False InvalidRestoreSpec, BackingOff,
 * without retrying (a TerminalError). Its client is the manager's, which reads through
 * controller-runtime's cache, whose NotFound (pkg/cache/internal/cache_reader.go) names the Kind:
 * apimachinery's NewNotFound, `%s %q not found` of "NonAdminBackup.oadp.openshift.io" and the name
 * (Go's strconv.Quote). (Its unit test's fake client names the resource instead,
 * "nonadminbackups.oadp.openshift.io"; the running controller says the Kind.) A name that is no
 * object name can name nothing, so this is what OADP answers for it, here without a request. A
 * name past NOT_FOUND_NAME_MAX bytes is quoted cut there (on a whole UTF-8 sequence), then
 * "...": OADP would write the whole of it and have its status refused. */
static int not_found_msg(json_object *bn, char **msg)
{
    const char *s = json_object_get_string(bn);
    size_t n = (size_t)json_object_get_string_len(bn), cut = n;
    cw_buf b;
    cw_buf_init(&b);
    if (cut > NOT_FOUND_NAME_MAX)
        for (cut = NOT_FOUND_NAME_MAX; cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80; cut--)
            ;
    cw_buf_puts(&b, NAR_WHAT ".backupName is invalid: NonAdminBackup.oadp.openshift.io ");
    cw_go_quote(&b, s, cut);
    cw_buf_puts(&b, cut < n ? "... not found" : " not found");
    int rc = cw_buf_error(&b) ? CW_ENOMEM : cw_nac_msgf(msg, "%s", cw_buf_str(&b));
    cw_buf_free(&b);
    return rc;
}

int cw_nar_check_spec(json_object *spec, const cw_nar_context *c, char **msg)
{
    static const char *const restricted[] = {"includedNamespaces", "excludedNamespaces",
                                             "namespaceMapping"};
    *msg = NULL;
    if (spec && !json_object_is_type(spec, json_type_object))
        return cw_nac_msgf(msg, NAR_WHAT " is invalid: expected an object, got %s",
                           cw_json_type_name(spec));
    if (!is_zero(cw_json_member(spec, "scheduleName")))
        return cw_nac_msgf(msg, NAR_WHAT ".scheduleName is restricted");
    json_object *bn = cw_json_member(spec, "backupName");
    if (is_zero(bn) || !json_object_is_type(bn, json_type_string))
        return cw_nac_msgf(msg, NAR_WHAT ".backupName is not set");
    if (!cw_nar_backup_addressable(bn)) /* where OADP's Get answers NotFound */
        return not_found_msg(bn, msg);
    for (size_t i = 0; i < sizeof(restricted) / sizeof(restricted[0]); i++)
        if (!is_empty(cw_json_member(spec, restricted[i])))
            return cw_nac_msgf(msg, NAR_WHAT ".%s is restricted", restricted[i]);
    const char *phase = cw_json_path_string(c->nab, "status.phase");
    const char *nacuuid = cw_json_path_string(c->nab, "status.veleroBackup.nacuuid");
    if (!phase || strcmp(phase, "Created") || !nacuuid || !*nacuuid ||
        cw_json_path(c->nab, "metadata.deletionTimestamp"))
        return cw_nac_msgf(msg, NAR_WHAT ".backupName is invalid: "
                                         "NonAdminBackup is not ready to be restored");
    int rc = backup_msg(c, json_object_get_string(bn), nacuuid, msg);
    if (rc != CW_OK || *msg)
        return rc;
    if (cluster_resources(spec))
        return cw_nac_msgf(msg, NAR_WHAT ".includeClusterResources is restricted, can only be set "
                                         "to false");
    if ((rc = enforced_msg(spec, c->enforced, "restoreSpec", msg)) != CW_OK || *msg)
        return rc;
    return scope_msg(spec, c->ns, c->enforced, c->p, 1, msg);
}

int cw_nar_check_enforced(json_object *enforced, cw_error *err)
{
    static const char *const refused[] = {"scheduleName",       "backupName",
                                          "includedNamespaces", "excludedNamespaces",
                                          "namespaceMapping",   NULL};
    return check_enforced(enforced, "RestoreSpec", "restores", refused, 1, err);
}

/* OADP's cut: what is left of 63 after the uuid and two '-'. */
#define NAC_PARTS_MAX (CW_NACUUID_MAX - CW_UUID4_LEN - 2)

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* At most max bytes of s as a part of a name, into out (max + 1 bytes): a byte a name cannot
 * hold becomes '-', a '.' not between letters or digits too, and the part starts and ends on a
 * letter or digit; or, !clean, the bytes as they are (OADP's cut). Its length (0: nothing is
 * left). */
static size_t name_part(const char *s, size_t max, char *out, int clean)
{
    size_t n = strnlen(s, max), start = 0;
    if (!clean) {
        memcpy(out, s, n);
        out[n] = '\0';
        return n;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = name_char(s[i]) || s[i] == '.' || s[i] == '-' ? s[i] : '-';
    for (size_t i = 0; i < n; i++)
        if (out[i] == '.' &&
            (i == 0 || !name_char(out[i - 1]) || i + 1 == n || !name_char(out[i + 1])))
            out[i] = '-';
    while (start < n && !name_char(out[start]))
        start++;
    while (n > start && !name_char(out[n - 1]))
        n--;
    memmove(out, out + start, n - start);
    out[n - start] = '\0';
    return n - start;
}

static void nacuuid_build(const char *ns, const char *name, const char *uuid, char *out,
                          size_t outlen, int clean)
{
    char p_ns[CW_NACUUID_MAX + 1], p_name[CW_NACUUID_MAX + 1];
    size_t nsl = strlen(ns), namel = strlen(name);
    if (nsl + namel > NAC_PARTS_MAX) { /* "<ns>-<name>-<uuid>" is longer than 63 */
        if (nsl > NAC_PARTS_MAX) {
            nsl = NAC_PARTS_MAX;
            namel = 0; /* the name goes, the namespace is cut */
        } else {
            namel = NAC_PARTS_MAX - nsl; /* the name is cut first */
        }
    }
    nsl = name_part(ns, nsl, p_ns, clean);
    namel = name_part(name, namel, p_name, clean);
    int w =
        snprintf(out, outlen, "%s%s%s%s%s", p_ns, nsl ? "-" : "", p_name, namel ? "-" : "", uuid);
    /* The cuts above keep it within outlen; were it ever cut short it would be no nacuuid at all,
     * so an empty one that matches nothing (cw_nacuuid_for fails closed). */
    if (w < 0 || (size_t)w >= outlen)
        out[0] = '\0';
}

void cw_nacuuid_format(const char *ns, const char *name, const char *uuid, char *out, size_t outlen)
{
    nacuuid_build(ns, name, uuid, out, outlen, 1);
}

/* A uuid as Go's uuid.String() and cw_uuid4 write it: 8-4-4-4-12 lower-case hex digits. */
static int uuid_form(const char *s)
{
    for (size_t i = 0; i < CW_UUID4_LEN; i++)
        if (i == 8 || i == 13 || i == 18 || i == 23
                ? s[i] != '-'
                : !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return s[CW_UUID4_LEN] == '\0';
}

int cw_nacuuid_for(const char *ns, const char *name, const char *nacuuid)
{
    char want[CW_NACUUID_MAX + 1];
    size_t n = nacuuid ? strlen(nacuuid) : 0;
    if (!ns || !name || !cw_nacuuid_valid(nacuuid) || n < CW_UUID4_LEN ||
        !uuid_form(nacuuid + n - CW_UUID4_LEN))
        return 0;
    for (int clean = 1; clean >= 0; clean--) {
        nacuuid_build(ns, name, nacuuid + n - CW_UUID4_LEN, want, sizeof(want), clean);
        if (strcmp(want, nacuuid) == 0)
            return 1;
    }
    return 0;
}

int cw_nacuuid_valid(const char *s)
{
    return s && strlen(s) <= CW_NACUUID_MAX && !cw_k8sname_check_subdomain(s);
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

/* c.observedGeneration is gen (0: absent). */
static int gen_is(json_object *c, int64_t gen)
{
    json_object *g = cw_json_member(c, "observedGeneration");
    return gen ? json_object_is_type(g, json_type_int) && json_object_get_int64(g) == gen : !g;
}

int cw_nac_set_condition_gen(json_object **conds, const char *type, const char *status,
                             const char *reason, const char *message, const char *now, int64_t gen)
{
    if (!json_object_is_type(*conds, json_type_array) && !(*conds = json_object_new_array()))
        return CW_ENOMEM;
    json_object *c = cw_nac_condition(*conds, type);
    if (c && same(c, "status", status) && same(c, "reason", reason) &&
        same(c, "message", message) && gen_is(c, gen))
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
    if (!gen)
        json_object_object_del(c, "observedGeneration");
    else if (json_object_object_add(c, "observedGeneration", json_object_new_int64(gen)))
        return CW_ENOMEM;
    return 1;
}

int cw_nac_set_condition(json_object **conds, const char *type, const char *status,
                         const char *reason, const char *message, const char *now)
{
    return cw_nac_set_condition_gen(conds, type, status, reason, message, now, 0);
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
