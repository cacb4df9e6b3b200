#include "longhorn/version.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* One row per release range, read at the range's latest patch release (docs/compat.md, "The
 * CronJob each Longhorn minor writes", names the functions). Columns: minor, first patch, release,
 * CronJob version, owner version, vendored k8s.io/api, imagePullSecrets, history limits from
 * Settings, creationTimestamp, the Settings reading (longhorn/settings.h), \b and \f, where the
 * golden test comes from. A new row starts where upstream's behaviour changes: v1.3.3 (the
 * len(pair) fix and four tasks), v1.4.1 (snapshot-cleanup, snapshot-delete), v1.4.2 (the
 * parser that removes spaces, the force-create tasks), v1.6.2 (Go 1.22). The tasks of each row are
 * longhorn/recurringjob.c's, keyed by the same first patch. */
static const cw_lh_profile profiles[] = {
    {2, 0, "1.2.6", "batch/v1beta1", "longhorn.io/v1beta1", "v0.18.19", 0, 0, 1, 2, 0, "upstream"},
    {3, 0, "1.3.2", "batch/v1beta1", "longhorn.io/v1beta2", "v0.23.6", 1, 0, 1, 2, 0, "none"},
    {3, 3, "1.3.3", "batch/v1beta1", "longhorn.io/v1beta2", "v0.23.6", 1, 0, 1, 3, 0, "upstream"},
    {4, 0, "1.4.0", "batch/v1", "longhorn.io/v1beta2", "v0.23.6", 1, 1, 1, 2, 0, "none"},
    {4, 1, "1.4.1", "batch/v1", "longhorn.io/v1beta2", "v0.23.6", 1, 1, 1, 2, 0, "none"},
    {4, 2, "1.4.4", "batch/v1", "longhorn.io/v1beta2", "v0.23.6", 1, 1, 1, 4, 0, "upstream"},
    {5, 0, "1.5.5", "batch/v1", "longhorn.io/v1beta2", "v0.28.2", 1, 1, 1, 4, 0, "upstream"},
    {6, 0, "1.6.1", "batch/v1", "longhorn.io/v1beta2", "v0.28.6", 1, 1, 1, 4, 0, "none"},
    {6, 2, "1.6.4", "batch/v1", "longhorn.io/v1beta2", "v0.28.15", 1, 1, 1, 4, 1, "upstream"},
    {7, 0, "1.7.4", "batch/v1", "longhorn.io/v1beta2", "v0.31.3", 1, 1, 1, 4, 1, "upstream"},
    {8, 0, "1.8.2", "batch/v1", "longhorn.io/v1beta2", "v0.32.3", 1, 1, 1, 4, 1, "upstream"},
    {9, 0, "1.9.3", "batch/v1", "longhorn.io/v1beta2", "v0.33.4", 1, 1, 1, 4, 1, "upstream"},
    {10, 0, "1.10.2", "batch/v1", "longhorn.io/v1beta2", "v0.34.3", 1, 1, 0, 4, 1, "upstream"},
    {11, 0, "1.11.3", "batch/v1", "longhorn.io/v1beta2", "v0.35.4", 1, 1, 0, 4, 1, "upstream"},
    {12, 0, "1.12.1", "batch/v1", "longhorn.io/v1beta2", "v0.36.3", 1, 1, 0, 4, 1, "upstream"},
};

const cw_lh_profile *cw_lh_profiles(size_t *n)
{
    *n = N(profiles);
    return profiles;
}

const cw_lh_profile *cw_lh_profile_find_release(int minor, int patch)
{
    const cw_lh_profile *found = NULL;
    for (size_t i = 0; i < N(profiles); i++)
        if (profiles[i].minor == minor && (patch < 0 || profiles[i].first_patch <= patch))
            found = &profiles[i];
    return found;
}

const cw_lh_profile *cw_lh_profile_find(int minor)
{
    return cw_lh_profile_find_release(minor, -1);
}

const char *cw_lh_source_name(cw_lh_source s)
{
    static const char *const names[] = {"none", "flag", "daemonset", "crds"};
    return (unsigned)s < N(names) ? names[s] : "none";
}

const char *cw_lh_reconciler_name(cw_lh_reconciler r)
{
    return r == CW_LH_RECONCILER_VOLUME ? "volume" : "recurringjob";
}

static void set_unknown(cw_lh_identity *out, cw_lh_source src, const char *version,
                        const char *reason, const char *fmt, const char *arg)
{
    memset(out, 0, sizeof(*out));
    out->patch = -1;
    out->source = src;
    out->reason = reason;
    snprintf(out->version, sizeof(out->version), "%s", version);
    snprintf(out->detail, sizeof(out->detail), fmt, arg);
}

static void set_known(cw_lh_identity *out, cw_lh_source src, int minor, int patch,
                      const char *version, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static void set_known(cw_lh_identity *out, cw_lh_source src, int minor, int patch,
                      const char *version, const char *fmt, ...)
{
    va_list ap;
    memset(out, 0, sizeof(*out));
    out->minor = minor;
    out->patch = patch;
    out->source = src;
    snprintf(out->version, sizeof(out->version), "%s", version);
    va_start(ap, fmt);
    vsnprintf(out->detail, sizeof(out->detail), fmt, ap);
    va_end(ap);
}

/* Decimal digits at *p (at most 4, no sign): their value, -1 when none. */
static int number(const char **p)
{
    int v = 0, n = 0;
    while (isdigit((unsigned char)**p) && n < 4) {
        v = v * 10 + (**p - '0');
        (*p)++;
        n++;
    }
    return n ? v : -1;
}

/* "v1.4.4", "1.4.4", "v1.4" (patch optional when allow_short): major, minor, patch (-1 when
 * absent); *rest points after them. 0 when the text does not start that way. */
static int semver(const char *s, int allow_short, int *major, int *minor, int *patch,
                  const char **rest)
{
    const char *p = s + (*s == 'v');
    *patch = -1;
    if ((*major = number(&p)) < 0 || *p != '.')
        return 0;
    p++;
    if ((*minor = number(&p)) < 0)
        return 0;
    if (*p == '.') {
        p++;
        if ((*patch = number(&p)) < 0)
            return 0;
    } else if (!allow_short) {
        return 0;
    }
    *rest = p;
    return 1;
}

/* A -hotfix-<n> suffix: Longhorn's hotfix builds of a release (same code as the release). */
static int hotfix(const char *rest)
{
    const char *p = rest;
    if (strncmp(p, "-hotfix-", 8) != 0)
        return 0;
    p += 8;
    return number(&p) >= 0 && *p == '\0';
}

static int prerelease(const char *rest)
{
    return strncmp(rest, "-rc", 3) == 0 || strncmp(rest, "-preview", 8) == 0 ||
           strncmp(rest, "-dev", 4) == 0;
}

/* The tag of an image reference, in buf; NULL when it has none. *digest: it is pinned by one. */
static const char *image_tag(const char *image, char *buf, size_t cap, int *digest)
{
    const char *at = strchr(image, '@');
    size_t len = at ? (size_t)(at - image) : strlen(image);
    *digest = at != NULL;
    const char *slash = NULL;
    for (const char *p = image; p < image + len; p++)
        if (*p == '/')
            slash = p;
    const char *colon = NULL;
    for (const char *p = slash ? slash + 1 : image; p < image + len; p++)
        if (*p == ':')
            colon = p;
    if (!colon)
        return NULL;
    snprintf(buf, cap, "%.*s", (int)(image + len - colon - 1), colon + 1);
    return buf;
}

void cw_lh_identify_image(const char *image, cw_lh_identity *out)
{
    char tag[128];
    int digest, major, minor, patch;
    const char *rest;
    const cw_lh_source src = CW_LH_SOURCE_DAEMONSET;
    if (!image || !*image) {
        set_unknown(out, src, "", CW_LH_REASON_NO_IMAGE,
                    "the longhorn-manager DaemonSet names no image%s", "");
        return;
    }
    if (!image_tag(image, tag, sizeof(tag), &digest)) {
        set_unknown(out, src, digest ? strchr(image, '@') + 1 : "latest",
                    digest ? CW_LH_REASON_DIGEST_ONLY : CW_LH_REASON_NO_TAG,
                    digest ? "the longhorn-manager image %s is pinned by digest without a tag, "
                             "which does not say its version"
                           : "the longhorn-manager image %s has no tag (\"latest\"), which does "
                             "not say its version",
                    image);
        return;
    }
    if (!semver(tag, 0, &major, &minor, &patch, &rest)) {
        int dev = strstr(tag, "-head") || strcmp(tag, "master") == 0;
        set_unknown(out, src, tag, dev ? CW_LH_REASON_DEV_BUILD : CW_LH_REASON_UNRECOGNISED,
                    dev ? "the longhorn-manager image %s is a development build, whose CronJobs no "
                          "release table describes"
                        : "the longhorn-manager image %s has a tag that is not a Longhorn version",
                    image);
        return;
    }
    if (*rest && !hotfix(rest)) {
        int pre = prerelease(rest);
        set_unknown(out, src, tag, pre ? CW_LH_REASON_PRERELEASE : CW_LH_REASON_CUSTOM_TAG,
                    pre ? "the longhorn-manager image %s is a pre-release, whose code may differ "
                          "from the release's"
                        : "the longhorn-manager image %s carries a custom tag suffix, so its code "
                          "may differ from the release's",
                    image);
        return;
    }
    const cw_lh_profile *p = major == 1 ? cw_lh_profile_find(minor) : NULL;
    if (!p) {
        set_unknown(out, src, tag, CW_LH_REASON_UNSUPPORTED,
                    "the longhorn-manager image %s is a Longhorn version cronwarden has no table "
                    "for (it knows " CW_LH_MINORS_TEXT ")",
                    image);
        return;
    }
    set_known(out, src, minor, patch, tag, "the longhorn-manager image %s is Longhorn 1.%d", image,
              minor);
}

int cw_lh_parse_version_flag(const char *value, cw_lh_identity *out, cw_error *err)
{
    int major, minor, patch;
    const char *rest;
    memset(out, 0, sizeof(*out));
    out->patch = -1;
    if (!value || !*value || strcmp(value, "auto") == 0)
        return CW_OK;
    if (!semver(value, 1, &major, &minor, &patch, &rest) || *rest)
        return cw_error_set(err, CW_EINVAL,
                            "--longhorn-version: \"%s\" is not a version: expected auto, "
                            "1.<minor> or 1.<minor>.<patch> (e.g. 1.4 or v1.4.4)",
                            value);
    if (major != 1 || !cw_lh_profile_find(minor))
        return cw_error_set(err, CW_EINVAL,
                            "--longhorn-version: cronwarden knows Longhorn 1.%d to 1.%d, not %s",
                            CW_LH_MINOR_FIRST, CW_LH_MINOR_LAST, value);
    set_known(out, CW_LH_SOURCE_FLAG, minor, patch, value,
              "--longhorn-version=%s forces Longhorn 1.%d", value, minor);
    return CW_OK;
}

/* ---- the CRDs ---- */

/* What each minor's crds.yaml serves for recurringjobs.longhorn.io. */
static const struct {
    int minor, v1beta1_served, v1beta2_served, v1beta1_declared;
} crd_rows[] = {
    {2, 1, 0, 1}, {3, 1, 1, 1}, {4, 1, 1, 1},  {5, 1, 1, 1},  {6, 1, 1, 1},  {7, 1, 1, 1},
    {8, 1, 1, 1}, {9, 0, 1, 1}, {10, 0, 1, 0}, {11, 0, 1, 0}, {12, 0, 1, 0},
};

/* A CRD each release from 1.<since>.<patch> on installs and no earlier one does (the install
 * manifests, docs/compat.md). A marker with a patch tells releases of one minor apart; the others
 * tell minors apart. */
static const struct {
    const char *resource;
    int since, patch;
} markers[] = {
    {"orphans", 3, 0},           {"supportbundles", 4, 0},
    {"volumeattachments", 5, 0}, {"backupbackingimages", 6, 0},
    {"enginefrontends", 12, 0},  {"shards", 12, 1},
};

static int has(const char *const *list, const char *name)
{
    for (; list && *list; list++)
        if (strcmp(*list, name) == 0)
            return 1;
    return 0;
}

static int crds_match(const cw_lh_crd_facts *f, size_t row)
{
    if (f->v1beta1_served != crd_rows[row].v1beta1_served ||
        f->v1beta2_served != crd_rows[row].v1beta2_served ||
        (f->v1beta1_declared >= 0 && f->v1beta1_declared != crd_rows[row].v1beta1_declared))
        return 0;
    for (size_t m = 0; f->resources && m < N(markers); m++)
        if (!markers[m].patch &&
            has(f->resources, markers[m].resource) != (crd_rows[row].minor >= markers[m].since))
            return 0;
    return 1;
}

/* The patch of Longhorn 1.<minor> the CRDs show: the release before a patch marker that is
 * absent (v1.12.0 has no shards, v1.12.1 does); -1 when none says. */
static int crds_patch(const cw_lh_crd_facts *f, int minor)
{
    for (size_t m = 0; f->resources && m < N(markers); m++)
        if (markers[m].patch && markers[m].since == minor &&
            !has(f->resources, markers[m].resource))
            return markers[m].patch - 1;
    return -1;
}

void cw_lh_identify_crds(const cw_lh_crd_facts *f, cw_lh_identity *out)
{
    int lo = 0, hi = 0;
    char range[32];
    for (size_t i = 0; i < N(crd_rows); i++)
        if (crds_match(f, i)) {
            lo = lo ? lo : crd_rows[i].minor;
            hi = crd_rows[i].minor;
        }
    if (!lo) {
        set_unknown(out, CW_LH_SOURCE_CRDS, "", CW_LH_REASON_NOT_DETECTED,
                    "the longhorn.io CRDs match no Longhorn version cronwarden knows%s", "");
        return;
    }
    if (lo != hi) {
        snprintf(range, sizeof(range), "1.%d-1.%d", lo, hi);
        set_unknown(out, CW_LH_SOURCE_CRDS, range, CW_LH_REASON_CRDS_AMBIGUOUS,
                    "the longhorn.io CRDs are those of Longhorn %s, which write different "
                    "CronJobs",
                    range);
        return;
    }
    int patch = crds_patch(f, lo);
    if (patch >= 0)
        snprintf(range, sizeof(range), "1.%d.%d", lo, patch);
    else
        snprintf(range, sizeof(range), "1.%d", lo);
    set_known(out, CW_LH_SOURCE_CRDS, lo, patch, range,
              "the longhorn.io CRDs are those of Longhorn %s", range);
}

void cw_lh_choose(const cw_lh_identity *flag, const cw_lh_identity *daemonset,
                  const cw_lh_identity *crds, cw_lh_identity *out)
{
    if (flag && flag->source == CW_LH_SOURCE_FLAG)
        *out = *flag;
    else if (daemonset && daemonset->source == CW_LH_SOURCE_DAEMONSET)
        *out = *daemonset;
    else if (crds && crds->source == CW_LH_SOURCE_CRDS)
        *out = *crds;
    else
        set_unknown(out, CW_LH_SOURCE_NONE, "", CW_LH_REASON_NOT_DETECTED,
                    "neither a longhorn-manager DaemonSet nor the longhorn.io CRDs say which "
                    "Longhorn runs%s",
                    "");
}

/* ---- the DaemonSet ---- */

void cw_lh_manager_free(cw_lh_manager *m)
{
    free(m->image);
    free(m->job_image);
    free(m->service_account);
    memset(m, 0, sizeof(*m));
}

/* The value of --name (or -name, --name=value) in the container's command and args. */
static const char *argument(json_object *c, const char *name)
{
    static const char *const lists[] = {"command", "args"};
    size_t n = strlen(name);
    for (size_t l = 0; l < N(lists); l++) {
        json_object *a = cw_json_member(c, lists[l]);
        size_t len = json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
        for (size_t i = 0; i < len; i++) {
            const char *s = json_object_get_string(json_object_array_get_idx(a, i));
            if (!s || s[0] != '-')
                continue;
            s += s[1] == '-' ? 2 : 1;
            if (strncmp(s, name, n) != 0)
                continue;
            if (s[n] == '=')
                return s + n + 1;
            if (s[n] == '\0' && i + 1 < len)
                return json_object_get_string(json_object_array_get_idx(a, i + 1));
        }
    }
    return NULL;
}

static json_object *manager_container(json_object *ds)
{
    json_object *cs = cw_json_path(ds, "spec.template.spec.containers");
    size_t n = json_object_is_type(cs, json_type_array) ? json_object_array_length(cs) : 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = cw_json_path_string(json_object_array_get_idx(cs, i), "name");
        if (name && strcmp(name, CW_LH_MANAGER_NAME) == 0)
            return json_object_array_get_idx(cs, i);
    }
    return n ? json_object_array_get_idx(cs, 0) : NULL;
}

int cw_lh_manager_from_daemonset(json_object *ds, cw_lh_manager *out, cw_error *err)
{
    json_object *c = manager_container(ds);
    const char *image = cw_json_path_string(c, "image");
    memset(out, 0, sizeof(*out));
    if (!image || !*image)
        return cw_error_set(err, CW_EINVAL,
                            "DaemonSet %s: spec.template.spec.containers: no longhorn-manager "
                            "container with an image",
                            cw_json_path_string(ds, "metadata.name")
                                ? cw_json_path_string(ds, "metadata.name")
                                : "(no name)");
    const char *job = argument(c, "manager-image"), *sa = argument(c, "service-account");
    out->image = strdup(image);
    out->job_image = strdup(job && *job ? job : image);
    out->service_account = sa && *sa ? strdup(sa) : NULL;
    if (!out->image || !out->job_image || (sa && *sa && !out->service_account)) {
        cw_lh_manager_free(out);
        return cw_error_oom(err);
    }
    return CW_OK;
}

/* ---- write or stand down ---- */

void cw_lh_decide(cw_lh_reconciler r, const cw_lh_identity *id, cw_lh_decision *out)
{
    const char *what =
        r == CW_LH_RECONCILER_VOLUME ? "no Volume is written" : "no CronJob is written";
    memset(out, 0, sizeof(*out));
    out->profile = id->minor ? cw_lh_profile_find_release(id->minor, id->patch) : NULL;
    if (out->profile) {
        out->write = 1;
        snprintf(out->message, sizeof(out->message),
                 "%s: writing as Longhorn %s's manager does (%s, from the %s)",
                 cw_lh_reconciler_name(r), out->profile->release, id->detail,
                 cw_lh_source_name(id->source));
        return;
    }
    out->reason = id->reason ? id->reason : CW_LH_REASON_NOT_DETECTED;
    snprintf(out->message, sizeof(out->message),
             "%s: standing down, %s: %s; --longhorn-version=1.<minor> (1.%d to 1.%d) makes "
             "cronwarden write as that version's manager",
             cw_lh_reconciler_name(r), what, id->detail[0] ? id->detail : "no Longhorn version",
             CW_LH_MINOR_FIRST, CW_LH_MINOR_LAST);
}
