#include "defaults/policy.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/k8sname.h"

int cw_policy_config_init(cw_policy_config *cfg)
{
    cfg->max_retain = CW_POLICY_MAX_RETAIN_DEFAULT;
    cfg->schedule_skip_immediately = 0;
    cfg->tzdb = NULL;
    cfg->longhorn_minor = 0;
    cfg->longhorn_patch = -1;
    cfg->cron_zone_ok = 0;
    cfg->default_group = strdup(CW_POLICY_DEFAULT_GROUP);
    return cfg->default_group ? CW_OK : CW_ENOMEM;
}

void cw_policy_config_free(cw_policy_config *cfg)
{
    free(cfg->default_group);
    cfg->default_group = NULL;
}

int cw_policy_config_set_default_group(cw_policy_config *cfg, const char *group, cw_error *err)
{
    char *copy = NULL;
    if (group && *group && !(copy = strdup(group)))
        return cw_error_oom(err);
    free(cfg->default_group);
    cfg->default_group = copy;
    return CW_OK;
}

const char *cw_policy_group_problem(const char *group)
{
    char key[sizeof(CW_LABEL_GROUP_PREFIX) + CW_K8SNAME_QUALIFIED_MAX + 1];
    size_t n = strlen(group);
    int ok = n >= 2 && isalnum((unsigned char)group[0]);
    for (size_t i = 1; ok && i < n; i++)
        ok = isalnum((unsigned char)group[i]) || strchr("_.-", group[i]);
    if (!ok)
        return "must match ^[a-zA-Z0-9][a-zA-Z0-9_.-]+$";
    if (n <= CW_K8SNAME_QUALIFIED_MAX) {
        snprintf(key, sizeof(key), "%s%s", CW_LABEL_GROUP_PREFIX, group);
        if (!cw_k8sname_check_qualified(key))
            return NULL;
    }
    return "must end with a letter or digit and have at most 63 characters, so that the volume "
           "label key " CW_LABEL_GROUP_PREFIX "<group> is valid";
}

int cw_policy_config_validate(const cw_policy_config *cfg, cw_error *err)
{
    if (cfg->max_retain < 1 || cfg->max_retain > CW_POLICY_MAX_RETAIN_LIMIT)
        return cw_error_set(err, CW_EINVAL, "max-retain: %d is outside 1..%d", cfg->max_retain,
                            CW_POLICY_MAX_RETAIN_LIMIT);
    if (cfg->schedule_skip_immediately != 0 && cfg->schedule_skip_immediately != 1)
        return cw_error_set(err, CW_EINVAL, "schedule-skip-immediately: must be true or false");
    if (cfg->default_group && *cfg->default_group) {
        const char *why = cw_policy_group_problem(cfg->default_group);
        if (why)
            return cw_error_set(err, CW_EINVAL, "default-group: \"%s\" %s", cfg->default_group,
                                why);
    }
    return CW_OK;
}
int cw_operation_parse(const char *s, cw_operation *out, cw_error *err)
{
    static const char *const names[] = {"CREATE", "UPDATE", "DELETE", "CONNECT"};
    for (int i = 0; i < 4; i++) {
        if (s && strcmp(s, names[i]) == 0) {
            *out = (cw_operation)i;
            return CW_OK;
        }
    }
    return cw_error_set(err, CW_EINVAL,
                        "unknown operation \"%s\" (expected CREATE, UPDATE, DELETE or CONNECT)",
                        s ? s : "");
}

const char *cw_operation_name(cw_operation op)
{
    switch (op) {
    case CW_OP_CREATE:
        return "CREATE";
    case CW_OP_UPDATE:
        return "UPDATE";
    case CW_OP_DELETE:
        return "DELETE";
    case CW_OP_CONNECT:
        return "CONNECT";
    }
    return "UNKNOWN";
}

void cw_decision_init(cw_decision *d)
{
    d->patch = json_object_new_array();
    cw_strlist_init(&d->warnings);
    cw_strlist_init(&d->problems);
}

void cw_decision_free(cw_decision *d)
{
    json_object_put(d->patch);
    d->patch = NULL;
    cw_strlist_free(&d->warnings);
    cw_strlist_free(&d->problems);
}

int cw_decision_denied(const cw_decision *d)
{
    return d->problems.len > 0;
}

char *cw_decision_message(const cw_decision *d)
{
    return cw_strlist_join(&d->problems, "; ");
}

int cw_decision_add_problems(cw_decision *d, const cw_strlist *now, const cw_strlist *before)
{
    for (size_t i = 0; i < now->len; i++) {
        int rc;
        if (before && cw_strlist_contains(before, now->items[i]))
            rc = cw_strlist_addf(&d->warnings, "%s (already in the stored object, not blocking)",
                                 now->items[i]);
        else
            rc = cw_strlist_add(&d->problems, now->items[i]);
        if (rc != CW_OK)
            return rc;
    }
    return CW_OK;
}

static int vproblem(cw_strlist *problems, const char *where, const char *field, const char *item,
                    const char *fmt, va_list ap)
{
    cw_buf b;
    int rc = CW_OK;
    cw_buf_init(&b);
    if (where && *where)
        rc = cw_buf_printf(&b, field ? "%s." : "%s", where);
    if (rc == CW_OK && field)
        rc = cw_buf_puts(&b, field);
    if (rc == CW_OK && item)
        rc = cw_buf_printf(&b, "[%s]", item);
    if (rc == CW_OK)
        rc = cw_buf_puts(&b, ": ");
    if (rc == CW_OK)
        rc = cw_buf_vprintf(&b, fmt, ap);
    if (rc != CW_OK) {
        cw_buf_free(&b);
        return rc;
    }
    return cw_strlist_take(problems, cw_buf_detach(&b));
}

int cw_policy_problem(cw_strlist *problems, const char *where, const char *field, const char *fmt,
                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vproblem(problems, where, field, NULL, fmt, ap);
    va_end(ap);
    return rc;
}

int cw_policy_item_problem(cw_strlist *problems, const char *where, const char *field,
                           const char *item, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vproblem(problems, where, field, item, fmt, ap);
    va_end(ap);
    return rc;
}

int cw_policy_config_init_tzdb(cw_policy_config *cfg, cw_tzdb *tzdb, cw_error *err)
{
    int rc = cw_tzdb_init(tzdb, NULL, err);
    if (rc != CW_OK)
        return rc;
    if ((rc = cw_policy_config_init(cfg)) != CW_OK) {
        cw_tzdb_free(tzdb);
        return cw_error_oom(err);
    }
    cfg->tzdb = tzdb;
    return CW_OK;
}

void cw_policy_config_free_tzdb(cw_policy_config *cfg, cw_tzdb *tzdb)
{
    cw_policy_config_free(cfg);
    cw_tzdb_free(tzdb);
}
