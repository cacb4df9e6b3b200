#include "longhorn/recurringjob.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "defaults/patch.h"
#include "lib/buf.h"
#include "cron/cron.h"
#include "lib/json.h"
#include "lib/k8sname.h"
#include "longhorn/names.h"

static const char *const tasks[] = {
    "snapshot", "snapshot-force-create", "snapshot-cleanup", "snapshot-delete",
    "backup",   "backup-force-create",   "filesystem-trim",  "system-backup",
};
/* The Longhorn minor each of tasks[] appeared in. */
static const int task_since[] = {2, 3, 3, 3, 2, 3, 5, 9};

/* Which of tasks[] (bit i: tasks[i]) each release range has, from 1.<minor>.<first_patch> to the
 * next row: the RecurringJob CRD's task enum of each tag. Not monotonic: v1.3.3 has the four
 * tasks that v1.4.0 lacks (v1.4.1 adds snapshot-cleanup and snapshot-delete, v1.4.2 the
 * force-create ones). And which of param_keys[] (bit i: param_keys[i]) that range's webhook accepts
 * on a backup task (datastore.validateRecurringJobBackupParameter): none before v1.7.0, which adds
 * the field and full-backup-interval; v1.9.0 adds volume-backup-policy (v1.7.0-v1.8.2 say of it "is
 * not a valid parameter"). */
#define T_SB  0x11u /* snapshot, backup */
#define T_CD  0x0cu /* snapshot-cleanup, snapshot-delete */
#define T_FC  0x22u /* snapshot-force-create, backup-force-create */
#define T_FT  0x40u /* filesystem-trim */
#define T_SYS 0x80u /* system-backup */
#define P_FBI 0x1u  /* full-backup-interval */
#define P_VBP 0x2u  /* volume-backup-policy */
static const struct {
    int minor, first_patch;
    unsigned tasks, params;
} task_ranges[] = {
    {2, 0, T_SB, 0},
    {3, 0, T_SB, 0},
    {3, 3, T_SB | T_CD | T_FC, 0},
    {4, 0, T_SB, 0},
    {4, 1, T_SB | T_CD, 0},
    {4, 2, T_SB | T_CD | T_FC, 0},
    {5, 0, T_SB | T_CD | T_FC | T_FT, 0},
    {7, 0, T_SB | T_CD | T_FC | T_FT, P_FBI},
    {9, 0, T_SB | T_CD | T_FC | T_FT | T_SYS, P_FBI | P_VBP},
};
static const char *const param_keys[] = {CW_RECURRINGJOB_PARAM_FULL_BACKUP_INTERVAL,
                                         CW_RECURRINGJOB_PARAM_VOLUME_BACKUP_POLICY};
#define N_RANGES (sizeof(task_ranges) / sizeof(task_ranges[0]))

/* The row of Longhorn 1.<minor>.<patch> (patch < 0: the minor's newest release; minor <= 0: not
 * known, the newest row); N_RANGES for a release older than every row. */
static size_t range_of_release(int minor, int patch)
{
    size_t row = N_RANGES;
    if (minor <= 0)
        return N_RANGES - 1;
    for (size_t i = 0; i < N_RANGES; i++)
        if (task_ranges[i].minor < minor ||
            (task_ranges[i].minor == minor && (patch < 0 || task_ranges[i].first_patch <= patch)))
            row = i;
    return row;
}

/* The tasks of Longhorn 1.<minor>.<patch> (patch < 0: the minor's newest release). */
static unsigned tasks_of_release(int minor, int patch)
{
    size_t row = range_of_release(minor, patch);
    return minor > 0 && row < N_RANGES ? task_ranges[row].tasks : 0;
}

/* The parameters the webhook of Longhorn 1.<minor>.<patch> accepts on a backup task (minor <= 0:
 * not known, the newest release's). */
static unsigned params_of_release(int minor, int patch)
{
    size_t row = range_of_release(minor, patch);
    return row < N_RANGES ? task_ranges[row].params : 0;
}

/* The bit of a parameter in param_keys[]; 0 for an unknown key. */
static unsigned param_bit(const char *key)
{
    for (size_t i = 0; i < sizeof(param_keys) / sizeof(param_keys[0]); i++)
        if (strcmp(key, param_keys[i]) == 0)
            return 1u << i;
    return 0;
}

/* The first release range (1.<*minor>.<*patch>) whose webhook accepts the parameter `bit`. */
static void param_since(unsigned bit, int *minor, int *patch)
{
    for (size_t i = 0; i < N_RANGES; i++)
        if (task_ranges[i].params & bit) {
            *minor = task_ranges[i].minor;
            *patch = task_ranges[i].first_patch;
            return;
        }
}

static int task_index(const char *task)
{
    for (size_t i = 0; task && i < sizeof(tasks) / sizeof(tasks[0]); i++)
        if (strcmp(task, tasks[i]) == 0)
            return (int)i;
    return -1;
}

int cw_recurringjob_task_in(const char *task, int minor, int patch)
{
    int i = task_index(task);
    return i >= 0 && (tasks_of_release(minor, patch) >> i & 1u);
}

int cw_recurringjob_task_first_patch(const char *task, int minor)
{
    for (int p = 0; p < 100; p++)
        if (cw_recurringjob_task_in(task, minor, p))
            return p;
    return -1;
}

int cw_recurringjob_version_parse(const char *api_version, cw_recurringjob_version *out)
{
    if (!api_version || strcmp(api_version, "longhorn.io/v1beta2") == 0)
        *out = CW_RECURRINGJOB_V1BETA2;
    else if (strcmp(api_version, "longhorn.io/v1beta1") == 0)
        *out = CW_RECURRINGJOB_V1BETA1;
    else
        return CW_EINVAL;
    return CW_OK;
}

int cw_recurringjob_task_known(const char *task)
{
    for (size_t i = 0; task && i < sizeof(tasks) / sizeof(tasks[0]); i++)
        if (strcmp(task, tasks[i]) == 0)
            return 1;
    return 0;
}

int cw_recurringjob_task_since(const char *task)
{
    for (size_t i = 0; task && i < sizeof(tasks) / sizeof(tasks[0]); i++)
        if (strcmp(task, tasks[i]) == 0)
            return task_since[i];
    return 0;
}

void cw_recurringjob_tasks_of_release(int minor, int patch, char *buf, size_t cap)
{
    size_t used = 0;
    unsigned set = tasks_of_release(minor, patch);
    if (cap)
        buf[0] = '\0';
    for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]) && used < cap; i++)
        if (set >> i & 1u)
            used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", tasks[i]);
}

void cw_recurringjob_tasks_of(int minor, char *buf, size_t cap)
{
    cw_recurringjob_tasks_of_release(minor, -1, buf, cap);
}

int cw_recurringjob_task_takes_parameters(const char *task)
{
    return task && (strcmp(task, "backup") == 0 || strcmp(task, "backup-force-create") == 0 ||
                    strcmp(task, "system-backup") == 0);
}

int64_t cw_recurringjob_default_retain(const char *task, int64_t retain)
{
    task = task ? task : "";
    if (strcmp(task, "snapshot-cleanup") == 0 || strcmp(task, "filesystem-trim") == 0)
        return 0;
    if (strcmp(task, "snapshot-delete") == 0)
        return retain < 0 ? 0 : retain;
    return retain < 1 ? 1 : retain;
}

/* Records a typed-getter failure as a problem; only ENOMEM is an error of ours. */
static int type_problem(cw_strlist *problems, int rc, const cw_error *e)
{
    if (rc == CW_EINVAL)
        return cw_strlist_add(problems, e->message);
    return rc;
}

int cw_recurringjob_check_name(json_object *name, const char *where, cw_strlist *problems)
{
    char key[sizeof(CW_LABEL_JOB_PREFIX) + CW_NAMES_MAX + 1];
    const char *s = json_object_is_type(name, json_type_string) ? json_object_get_string(name) : "";
    size_t n = strlen(s);
    int rc = CW_OK;
    if (name && !json_object_is_type(name, json_type_string) &&
        !json_object_is_type(name, json_type_null))
        return cw_policy_problem(problems, where, "name", "expected string, got %s",
                                 cw_json_type_name(name));
    if (n == 0)
        return cw_policy_problem(problems, where, "name", "must not be empty");
    if (!cw_names_pattern_ok(s)) {
        /* Suggest the lower-case spelling when that alone fixes it (Longhorn would rename). */
        char *lower = strdup(s);
        if (!lower)
            return CW_ENOMEM;
        for (char *p = lower; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        if (cw_names_valid(lower))
            rc = cw_policy_problem(problems, where, "name",
                                   "\"%s\" must match ^[a-z0-9][a-z0-9_.-]+$; cronwarden does not "
                                   "rename objects, use \"%s\"",
                                   s, lower);
        else
            rc = cw_policy_problem(problems, where, "name",
                                   "\"%s\" must match ^[a-z0-9][a-z0-9_.-]+$ (lower-case letters, "
                                   "digits, '_', '.', '-'; at least 2 characters)",
                                   s);
        free(lower);
        if (rc != CW_OK)
            return rc;
    }
    if (n > CW_NAMES_MAX)
        return cw_policy_problem(problems, where, "name",
                                 "\"%s\" has %zu characters, at most %d are allowed (Longhorn's "
                                 "limit: the CronJob named after the job and its Jobs must stay "
                                 "valid); cronwarden does not shorten names",
                                 s, n, CW_NAMES_MAX);
    snprintf(key, sizeof(key), "%s%s", CW_LABEL_JOB_PREFIX, s);
    if (cw_names_pattern_ok(s) && cw_k8sname_check_qualified(key))
        return cw_policy_problem(problems, where, "name",
                                 "\"%s\" must end with a letter or digit, so that the volume label "
                                 "key " CW_LABEL_JOB_PREFIX "%s is valid",
                                 s, s);
    return CW_OK;
}

int cw_recurringjob_check_labels(json_object *labels, const char *where, cw_strlist *problems)
{
    int rc = CW_OK;
    if (!labels || json_object_is_type(labels, json_type_null))
        return CW_OK;
    if (!json_object_is_type(labels, json_type_object))
        return cw_policy_problem(problems, where, "labels", "expected object, got %s",
                                 cw_json_type_name(labels));
    json_object_object_foreach(labels, key, val)
    {
        const char *why = cw_k8sname_check_qualified(key);
        if (why)
            rc = cw_policy_problem(problems, where, "labels", "invalid key \"%s\": %s", key, why);
        else if (!json_object_is_type(val, json_type_string))
            rc = cw_policy_item_problem(problems, where, "labels", key, "expected string, got %s",
                                        cw_json_type_name(val));
        else if (json_object_get_string_len(val) == 0)
            rc = cw_policy_item_problem(problems, where, "labels", key, "value must not be empty");
        if (rc != CW_OK)
            return rc;
    }
    return CW_OK;
}

/* Non-empty string field; returns the string or NULL (problem recorded). */
static int required_string(json_object *obj, const char *where, const char *key,
                           cw_strlist *problems, const char **out)
{
    cw_error e;
    cw_error_init(&e);
    *out = NULL;
    int rc = cw_json_opt_string(obj, where, key, out, &e);
    if (rc != CW_OK) {
        *out = NULL;
        return type_problem(problems, rc, &e);
    }
    if (!*out || !**out) {
        *out = NULL;
        return cw_policy_problem(problems, where, key, "must not be empty");
    }
    return CW_OK;
}

static int check_cron(const cw_policy_config *cfg, const char *cron, const char *where,
                      cw_strlist *problems)
{
    cw_cron parsed;
    cw_error e;
    cw_error_init(&e);
    int rc = cw_cron_parse(cron, cfg->tzdb, &parsed, &e);
    if (rc == CW_ENOMEM)
        return rc;
    if (rc != CW_OK)
        return cw_policy_problem(problems, where, "cron", "invalid cron expression \"%s\": %s",
                                 cron, e.message);
    return CW_OK;
}

/* A TZ=/CRON_TZ= prefix: robfig/cron v3 (cron/) reads it, but Longhorn's validator parses with
 * robfig/cron v1, which has none (datastore.ValidateRecurringJob, every minor), and Kubernetes
 * refuses to create a CronJob whose schedule holds TZ from 1.29 (and up to 1.21, whose parser was
 * v1 too): docs/compat.md. Refused when the cluster's Longhorn is known to have a webhook (1.3+);
 * otherwise (1.2, or not known) `warning` gets the same text instead. */
static int check_cron_zone(const cw_policy_config *cfg, const char *cron, const char *where,
                           cw_strlist *problems, cw_strlist *warnings)
{
    size_t n = cw_cron_zone_prefix(cron);
    if (!n || cfg->cron_zone_ok)
        return CW_OK;
    if (cfg->longhorn_minor >= 3)
        return cw_policy_problem(
            problems, where, "cron",
            "\"%s\" starts with a time zone (%.*s), which Longhorn 1.%d refuses "
            "(its cron parser, robfig/cron v1, has none); and Kubernetes 1.29 "
            "and later refuse to create a CronJob whose schedule holds TZ: "
            "write the time without the prefix, in kube-controller-manager's "
            "time zone (usually UTC)",
            cron, (int)n, cron, cfg->longhorn_minor);
    if (!warnings)
        return CW_OK;
    return cw_policy_problem(
        warnings, where, "cron",
        "\"%s\" starts with a time zone (%.*s), which Longhorn 1.3 and later "
        "refuse (their cron parser, robfig/cron v1, has none); and Kubernetes "
        "1.29 and later (and 1.21 and earlier) refuse to create a CronJob whose "
        "schedule holds TZ, so no CronJob may run this job: write the time "
        "without the prefix, in kube-controller-manager's time zone (usually "
        "UTC)",
        cron, (int)n, cron);
}

/* A task the newest Longhorn has, and the cluster's minor too when it is known: Longhorn 1.2's
 * recurring-job command runs every task but "backup" as a snapshot, so a newer task there would
 * do the opposite of its name (from 1.3 the CRDs' enum refuses it first). */
static int check_task(const cw_policy_config *cfg, const char *task, const char *where,
                      cw_strlist *problems)
{
    char known[256];
    int since = cw_recurringjob_task_since(task);
    if (task && !since)
        return cw_policy_problem(problems, where, "task",
                                 "unknown task \"%s\" (expected one of " CW_RECURRINGJOB_TASKS ")",
                                 task);
    if (!task || cfg->longhorn_minor <= 0 ||
        cw_recurringjob_task_in(task, cfg->longhorn_minor, cfg->longhorn_patch))
        return CW_OK;
    cw_recurringjob_tasks_of_release(cfg->longhorn_minor, cfg->longhorn_patch, known,
                                     sizeof(known));
    if (since > cfg->longhorn_minor)
        return cw_policy_problem(problems, where, "task",
                                 "\"%s\" is a task of Longhorn 1.%d and later; the cluster runs "
                                 "Longhorn 1.%d, whose manager has %s",
                                 task, since, cfg->longhorn_minor, known);
    /* A later patch release of the cluster's minor has it (v1.3.3, v1.4.1, v1.4.2). */
    return cw_policy_problem(problems, where, "task",
                             "\"%s\" is a task of Longhorn 1.%d from 1.%d.%d; the cluster runs an "
                             "earlier 1.%d release, whose manager has %s",
                             task, cfg->longhorn_minor, cfg->longhorn_minor,
                             cw_recurringjob_task_first_patch(task, cfg->longhorn_minor),
                             cfg->longhorn_minor, known);
}

static int check_groups(json_object *spec, const char *where, cw_strlist *problems)
{
    json_object *groups = NULL;
    cw_error e;
    cw_error_init(&e);
    int rc = cw_json_opt_array(spec, where, "groups", &groups, &e);
    if (rc != CW_OK)
        return type_problem(problems, rc, &e);
    for (size_t i = 0; groups && i < json_object_array_length(groups); i++) {
        json_object *g = json_object_array_get_idx(groups, i);
        const char *why;
        char idx[24];
        snprintf(idx, sizeof(idx), "%zu", i);
        if (!json_object_is_type(g, json_type_string))
            rc = cw_policy_item_problem(problems, where, "groups", idx, "expected string, got %s",
                                        cw_json_type_name(g));
        else if ((why = cw_policy_group_problem(json_object_get_string(g))))
            rc = cw_policy_item_problem(problems, where, "groups", idx, "\"%s\" %s",
                                        json_object_get_string(g), why);
        if (rc != CW_OK)
            return rc;
    }
    return CW_OK;
}

/* strconv.Atoi: optional sign, decimal digits, within int64. */
static int go_atoi(const char *s, int64_t *out)
{
    const char *p = s + (*s == '+' || *s == '-');
    char *end;
    if (*p < '0' || *p > '9')
        return 0;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return 0;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE || *end)
        return 0;
    *out = v;
    return 1;
}

/* datastore.ValidateRecurringJobParameters (from v1.7.0, which adds the field) checks the
 * parameters of backup and backup-force-create against the keys of its release range
 * (task_ranges[]) and accepts anything on every other task: what it refuses is a problem, the
 * rest a warning (dropped where `warnings` is NULL). */
static int check_parameters(const cw_policy_config *cfg, json_object *obj, const char *task,
                            const char *where, cw_strlist *problems, cw_strlist *warnings)
{
    int rc = CW_OK;
    if (json_object_object_length(obj) == 0)
        return CW_OK;
    unsigned known = params_of_release(cfg->longhorn_minor, cfg->longhorn_patch);
    int checked =
        task && known && (strcmp(task, "backup") == 0 || strcmp(task, "backup-force-create") == 0);
    if (!checked && !warnings)
        return CW_OK;
    if (!checked && !cw_recurringjob_task_takes_parameters(task))
        return cw_policy_problem(warnings, where, "parameters",
                                 "task \"%s\" takes no parameters (only backup, "
                                 "backup-force-create and system-backup do): Longhorn ignores "
                                 "them",
                                 task ? task : "");
    if (!checked) { /* system-backup: read, but not checked, by Longhorn */
        problems = warnings;
        known = task_ranges[N_RANGES - 1].params;
    }
    json_object_object_foreach(obj, key, val)
    {
        const char *v = json_object_get_string(val);
        unsigned bit = param_bit(key);
        int64_t n;
        int since_minor = 0, since_patch = 0;
        if (!bit)
            rc = cw_policy_item_problem(problems, where, "parameters", key,
                                        "unknown parameter (expected %s%s%s)",
                                        known & P_FBI ? param_keys[0] : "",
                                        (known & P_FBI) && (known & P_VBP) ? " or " : "",
                                        known & P_VBP ? param_keys[1] : "");
        else if (!(bit & known)) {
            param_since(bit, &since_minor, &since_patch);
            rc = cw_policy_item_problem(problems, where, "parameters", key,
                                        "a parameter of Longhorn 1.%d.%d and later; the cluster "
                                        "runs Longhorn 1.%d, whose webhook refuses it (\"is not a "
                                        "valid parameter\")",
                                        since_minor, since_patch, cfg->longhorn_minor);
        } else if (!json_object_is_type(val, json_type_string))
            rc = cw_policy_item_problem(problems, where, "parameters", key,
                                        "expected string, got %s", cw_json_type_name(val));
        else if (bit == P_FBI && !go_atoi(v, &n))
            rc = cw_policy_item_problem(problems, where, "parameters", key,
                                        "\"%s\" is not an integer", v);
        else if (bit == P_FBI && n < 0 && warnings) /* Go: x % -n == x % n */
            rc = cw_policy_item_problem(warnings, where, "parameters", key,
                                        "\"%s\" is negative: Longhorn accepts it and reads it as "
                                        "\"%s\" (a full backup when the run count is a multiple "
                                        "of it)",
                                        v, v + 1);
        else if (bit == P_VBP && strcmp(v, "always") != 0 && strcmp(v, "if-not-present") != 0 &&
                 strcmp(v, "disabled") != 0)
            rc = cw_policy_item_problem(problems, where, "parameters", key,
                                        "\"%s\" is not one of always, if-not-present, disabled", v);
        if (rc != CW_OK)
            return rc;
    }
    return CW_OK;
}

/* spec.name is optional (Longhorn 1.2's CRD prunes it; no manager reads it); when given it must be
 * the object's name. */
static int check_spec_name(json_object *spec, const char *meta_name, const char *where,
                           cw_strlist *problems)
{
    const char *name = NULL;
    cw_error e;
    cw_error_init(&e);
    int rc = cw_json_opt_string(spec, where, "name", &name, &e);
    if (rc != CW_OK)
        return type_problem(problems, rc, &e);
    if (!name || !*name || !meta_name || strcmp(name, meta_name) == 0)
        return CW_OK;
    return cw_policy_problem(problems, where, "name",
                             "\"%s\" differs from metadata.name \"%s\": Longhorn names the job "
                             "and its CronJob after metadata.name (leave spec.name out, or make "
                             "it the same)",
                             name, meta_name);
}

/* cw_recurringjob_check_spec, with what is only a warning into `warnings` (NULL: dropped). */
static int check_spec(const cw_policy_config *cfg, cw_recurringjob_version version,
                      json_object *spec, const char *meta_name, const char *where,
                      cw_strlist *problems, cw_strlist *warnings)
{
    const char *task, *cron;
    json_object *labels = NULL, *params = NULL;
    int64_t retain = 0, concurrency = 0;
    int has_retain = 0, has_conc = 0, rc;
    cw_error e;
    cw_error_init(&e);
    if (spec && !json_object_is_type(spec, json_type_object))
        return cw_policy_problem(problems, where, NULL, "expected object, got %s",
                                 cw_json_type_name(spec));
    if ((rc = check_spec_name(spec, meta_name, where, problems)) != CW_OK ||
        (rc = required_string(spec, where, "task", problems, &task)) != CW_OK ||
        (rc = check_task(cfg, task, where, problems)) != CW_OK ||
        (rc = required_string(spec, where, "cron", problems, &cron)) != CW_OK)
        return rc;
    size_t had = problems->len;
    if ((cron && (rc = check_cron(cfg, cron, where, problems)) != CW_OK) ||
        /* a cron that does not parse says so already */
        (cron && problems->len == had &&
         (rc = check_cron_zone(cfg, cron, where, problems, warnings)) != CW_OK) ||
        (rc = check_groups(spec, where, problems)) != CW_OK)
        return rc;
    if ((rc = cw_json_opt_int(spec, where, "retain", &retain, &has_retain, &e)) != CW_OK) {
        if ((rc = type_problem(problems, rc, &e)) != CW_OK)
            return rc;
    } else if (has_retain && retain > cfg->max_retain) {
        rc = cw_policy_problem(problems, where, "retain",
                               "%" PRId64 " exceeds the maximum of %d (Longhorn setting "
                               "recurring-job-max-retention)",
                               retain, cfg->max_retain);
        if (rc != CW_OK)
            return rc;
    }
    if ((rc = cw_json_opt_int(spec, where, "concurrency", &concurrency, &has_conc, &e)) != CW_OK) {
        if ((rc = type_problem(problems, rc, &e)) != CW_OK)
            return rc;
    } else if (has_conc && concurrency < 0 && warnings) {
        /* Every release's webhook accepts it (ValidateRecurringJob never looks); its
         * recurring-job command then makes a channel of that size, which panics. */
        rc = cw_policy_problem(warnings, where, "concurrency",
                               "%" PRId64 " is negative: Longhorn accepts it, but its "
                               "recurring-job command then fails every run of a volume task (Go's "
                               "make(chan) panics on a negative size)",
                               concurrency);
        if (rc != CW_OK)
            return rc;
    }
    if ((rc = cw_json_opt_object(spec, where, "labels", &labels, &e)) != CW_OK)
        rc = type_problem(problems, rc, &e);
    else
        rc = cw_recurringjob_check_labels(labels, where, problems);
    if (rc != CW_OK)
        return rc;
    json_object *raw_params = cw_json_member(spec, "parameters");
    if (version == CW_RECURRINGJOB_V1BETA1 && raw_params &&
        !json_object_is_type(raw_params, json_type_null))
        return cw_policy_problem(problems, where, "parameters",
                                 "not a field of longhorn.io/v1beta1 (parameters exist from "
                                 "longhorn.io/v1beta2, Longhorn 1.7)");
    if ((rc = cw_json_opt_object(spec, where, "parameters", &params, &e)) != CW_OK)
        return type_problem(problems, rc, &e);
    return params ? check_parameters(cfg, params, task, where, problems, warnings) : CW_OK;
}

int cw_recurringjob_check_spec(const cw_policy_config *cfg, cw_recurringjob_version version,
                               json_object *spec, const char *meta_name, const char *where,
                               cw_strlist *problems)
{
    return check_spec(cfg, version, spec, meta_name, where, problems, NULL);
}

int cw_recurringjob_check_legacy(const cw_policy_config *cfg, json_object *job, const char *where,
                                 cw_strlist *problems)
{
    const char *name, *task, *cron;
    json_object *labels = NULL;
    int64_t retain = 0;
    int has_retain = 0, rc;
    cw_error e;
    cw_error_init(&e);
    if (!json_object_is_type(job, json_type_object))
        return cw_policy_problem(problems, where, NULL, "expected object, got %s",
                                 cw_json_type_name(job));
    if ((rc = cw_json_opt_string(job, where, "name", &name, &e)) != CW_OK &&
        (rc = type_problem(problems, rc, &e)) != CW_OK)
        return rc;
    if ((rc = required_string(job, where, "task", problems, &task)) != CW_OK ||
        (rc = check_task(cfg, task, where, problems)) != CW_OK ||
        (rc = required_string(job, where, "cron", problems, &cron)) != CW_OK ||
        (cron && (rc = check_cron(cfg, cron, where, problems)) != CW_OK))
        return rc;
    if ((rc = cw_json_opt_int(job, where, "retain", &retain, &has_retain, &e)) != CW_OK)
        rc = type_problem(problems, rc, &e);
    else if (!has_retain) /* Longhorn refused retain 0 for legacy jobs too */
        rc = cw_policy_problem(problems, where, "retain", "must be set (at least 1)");
    else if (retain < 1)
        rc = cw_policy_problem(problems, where, "retain", "must be at least 1, got %" PRId64,
                               retain);
    else if (retain > cfg->max_retain)
        rc = cw_policy_problem(problems, where, "retain",
                               "%" PRId64 " exceeds the maximum of %d (Longhorn setting "
                               "recurring-job-max-retention)",
                               retain, cfg->max_retain);
    if (rc != CW_OK)
        return rc;
    if ((rc = cw_json_opt_object(job, where, "labels", &labels, &e)) != CW_OK)
        return type_problem(problems, rc, &e);
    return cw_recurringjob_check_labels(labels, where, problems);
}

/* The object and its apiVersion: *version, or a problem (*version untouched) and 1. */
static int check_version(json_object *obj, cw_recurringjob_version *version, cw_strlist *problems,
                         int *rc)
{
    json_object *api = cw_json_member(obj, "apiVersion");
    *rc = CW_OK;
    if (!json_object_is_type(obj, json_type_object))
        *rc = cw_policy_problem(problems, NULL, "object", "expected object, got %s",
                                cw_json_type_name(obj));
    else if (api && !json_object_is_type(api, json_type_string))
        *rc = cw_policy_problem(problems, NULL, "apiVersion", "expected string, got %s",
                                cw_json_type_name(api));
    else if (cw_recurringjob_version_parse(api ? json_object_get_string(api) : NULL, version) !=
             CW_OK)
        *rc = cw_policy_problem(problems, NULL, "apiVersion",
                                "\"%s\" is not a RecurringJob version (expected "
                                "longhorn.io/v1beta1 or longhorn.io/v1beta2)",
                                json_object_get_string(api));
    else
        return 0;
    return 1;
}

/* Problems of one object (CREATE additionally checks metadata.name); its warnings into
 * `warnings` (NULL: dropped). */
static int check_object(const cw_policy_config *cfg, int check_name, json_object *obj,
                        cw_strlist *problems, cw_strlist *warnings)
{
    cw_recurringjob_version version;
    json_object *meta = cw_json_member(obj, "metadata");
    int rc;
    if (check_version(obj, &version, problems, &rc))
        return rc;
    if (check_name) {
        if (meta && !json_object_is_type(meta, json_type_object))
            rc = cw_policy_problem(problems, NULL, "metadata", "expected object, got %s",
                                   cw_json_type_name(meta));
        else
            rc = cw_recurringjob_check_name(cw_json_member(meta, "name"), "metadata", problems);
        if (rc != CW_OK)
            return rc;
    }
    const char *meta_name =
        json_object_is_type(meta, json_type_object) ? cw_json_path_string(meta, "name") : NULL;
    return check_spec(cfg, version, cw_json_member(obj, "spec"), meta_name, "spec", problems,
                      warnings);
}

/* Longhorn's controller (newCronJob, every tag from v1.2.6 to v1.12.1) reads metadata.name and
 * spec.cron and refuses nothing of the spec: it never validates. So the controller's rules are
 * what no CronJob can be made of (the shape, a task and a cron), a cron the API server would
 * refuse as well (Kubernetes parses the schedule with robfig/cron), and a task the cluster's
 * release does not have (its CRD's enum refuses one from 1.3; 1.2 would run it as a snapshot). */
int cw_recurringjob_check_runnable(const cw_policy_config *cfg, json_object *obj,
                                   cw_strlist *problems)
{
    cw_recurringjob_version version;
    json_object *spec = cw_json_member(obj, "spec");
    const char *task, *cron;
    int rc;
    if (check_version(obj, &version, problems, &rc))
        return rc;
    if (spec && !json_object_is_type(spec, json_type_object))
        return cw_policy_problem(problems, "spec", NULL, "expected object, got %s",
                                 cw_json_type_name(spec));
    if ((rc = required_string(spec, "spec", "task", problems, &task)) != CW_OK ||
        (rc = check_task(cfg, task, "spec", problems)) != CW_OK ||
        (rc = required_string(spec, "spec", "cron", problems, &cron)) != CW_OK)
        return rc;
    return cron ? check_cron(cfg, cron, "spec", problems) : CW_OK;
}

int cw_recurringjob_validate(const cw_policy_config *cfg, cw_operation op, json_object *old,
                             json_object *obj, cw_decision *d, cw_error *err)
{
    cw_strlist now, before;
    int rc = CW_OK;
    cw_strlist_init(&now);
    cw_strlist_init(&before);
    if (!d->patch) {
        rc = CW_ENOMEM;
        goto done;
    }
    if (op != CW_OP_CREATE && op != CW_OP_UPDATE)
        goto done;
    /* Names are immutable: only CREATE can choose one. */
    if ((rc = check_object(cfg, op == CW_OP_CREATE, obj, &now, &d->warnings)) != CW_OK)
        goto done;
    if (op == CW_OP_UPDATE && old && (rc = check_object(cfg, 0, old, &before, NULL)) != CW_OK)
        goto done;
    rc = cw_decision_add_problems(d, &now, op == CW_OP_UPDATE && old ? &before : NULL);
done:
    if (rc != CW_OK)
        cw_error_set(err, rc, "validating RecurringJob: out of memory");
    cw_strlist_free(&now);
    cw_strlist_free(&before);
    return rc;
}

static int default_retain(cw_patch *p, json_object *spec, const char *task, cw_strlist *warnings)
{
    task = task ? task : "";
    json_object *r = cw_json_member(spec, "retain");
    int64_t retain = 0;
    if (r && !json_object_is_type(r, json_type_null)) {
        if (!json_object_is_type(r, json_type_int))
            return CW_OK; /* validation reports the type */
        retain = json_object_get_int64(r);
    }
    int64_t want = cw_recurringjob_default_retain(task, retain);
    int present = r && !json_object_is_type(r, json_type_null);
    if (present && want == retain)
        return CW_OK;
    if (!present && want == 0)
        return CW_OK; /* absent already means 0 */
    int rc = cw_patch_set(p, json_object_new_int64(want), "spec", "retain", NULL);
    const char *why = "needs a retain of at least 1";
    if (strcmp(task, "snapshot-cleanup") == 0 || strcmp(task, "filesystem-trim") == 0)
        why = "ignores retain";
    else if (strcmp(task, "snapshot-delete") == 0)
        why = "does not accept a negative retain";
    if (rc == CW_OK && present)
        rc = cw_strlist_addf(warnings,
                             "spec.retain: %" PRId64 " changed to %" PRId64 " (task \"%s\" %s)",
                             retain, want, task, why);
    return rc;
}

int cw_recurringjob_default(const cw_policy_config *cfg, cw_operation op, json_object *old,
                            json_object *obj, cw_decision *d, cw_error *err)
{
    cw_patch p = {0};
    cw_recurringjob_version version;
    int rc = CW_OK;
    json_object *spec = cw_json_member(obj, "spec"), *v;
    (void)cfg;
    (void)old;
    if (!d->patch) {
        rc = CW_ENOMEM;
        goto done;
    }
    /* Wrong shapes are left to validation: nothing here can be patched safely. */
    if ((op != CW_OP_CREATE && op != CW_OP_UPDATE) || !json_object_is_type(obj, json_type_object) ||
        (spec && !json_object_is_type(spec, json_type_object)) ||
        cw_recurringjob_version_parse(cw_json_path_string(obj, "apiVersion"), &version) != CW_OK)
        goto done;
    if ((rc = cw_patch_init(&p, d->patch, obj)) != CW_OK)
        goto done;
    /* Longhorn 1.3+'s mutator fills spec.name, which v1beta2 declares. Nothing relies on it:
     * Longhorn 1.2's v1beta1 CRD prunes it (so it is not written there), and every reader of a
     * job's name takes metadata.name. */
    const char *meta_name = cw_json_path_string(obj, "metadata.name");
    v = cw_json_member(spec, "name");
    if (version == CW_RECURRINGJOB_V1BETA2 && meta_name && *meta_name &&
        (!v || json_object_is_type(v, json_type_null) ||
         (json_object_is_type(v, json_type_string) && json_object_get_string_len(v) == 0)))
        rc = cw_patch_set(&p, json_object_new_string(meta_name), "spec", "name", NULL);
    /* Absent and null are both Go's nil: filled, no warning. */
    v = cw_json_member(spec, "groups");
    if (rc == CW_OK && (!v || json_object_is_type(v, json_type_null)))
        rc = cw_patch_set(&p, json_object_new_array(), "spec", "groups", NULL);
    v = cw_json_member(spec, "labels");
    if (rc == CW_OK && (!v || json_object_is_type(v, json_type_null)))
        rc = cw_patch_set(&p, json_object_new_object(), "spec", "labels", NULL);
    v = cw_json_member(spec, "parameters");
    if (rc == CW_OK && version == CW_RECURRINGJOB_V1BETA2 &&
        (!v || json_object_is_type(v, json_type_null)))
        rc = cw_patch_set(&p, json_object_new_object(), "spec", "parameters", NULL);
    v = cw_json_member(spec, "concurrency");
    if (rc == CW_OK && (!v || json_object_is_type(v, json_type_null) ||
                        (json_object_is_type(v, json_type_int) && json_object_get_int64(v) == 0))) {
        rc = cw_patch_set(&p, json_object_new_int(CW_RECURRINGJOB_CONCURRENCY_DEFAULT), "spec",
                          "concurrency", NULL);
        if (rc == CW_OK && json_object_is_type(v, json_type_int))
            rc = cw_strlist_addf(&d->warnings, "spec.concurrency: 0 changed to the default %d",
                                 CW_RECURRINGJOB_CONCURRENCY_DEFAULT);
    }
    v = cw_json_member(spec, "task");
    if (rc == CW_OK &&
        (!v || json_object_is_type(v, json_type_string) || json_object_is_type(v, json_type_null)))
        rc = default_retain(&p, spec, json_object_get_string(v), &d->warnings);
done:
    if (rc == CW_ENOMEM)
        cw_error_set(err, rc, "defaulting RecurringJob: out of memory");
    else if (rc == CW_EINVAL) /* a parent of the wrong type: not ours to patch */
        rc = CW_OK;
    cw_patch_free(&p);
    return rc;
}

int cw_recurringjob_check_group_flag(const char *flag, const char *group, cw_error *err)
{
    const char *why = group && *group ? cw_policy_group_problem(group) : NULL;
    return why ? cw_error_set(err, CW_EUSAGE, "%s \"%s\" %s", flag, group, why) : CW_OK;
}
