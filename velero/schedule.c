#include "velero/schedule.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>

#include "defaults/patch.h"
#include "lib/json.h"
#include "cron/tz.h"

/* A boolean member: 1 true, 0 false, -1 absent or null, -2 another type. */
static int tri_bool(json_object *obj, const char *key)
{
    json_object *v = cw_json_member(obj, key);
    if (!v)
        return -1;
    if (!json_object_is_type(v, json_type_boolean))
        return -2;
    return json_object_get_boolean(v);
}

int cw_schedule_default(const cw_policy_config *cfg, cw_operation op, json_object *old,
                        json_object *obj, cw_decision *d, cw_error *err)
{
    cw_patch p = {0};
    int rc = CW_OK;
    json_object *spec = cw_json_member(obj, "spec");
    const char *why = NULL;
    if (!d->patch) {
        rc = CW_ENOMEM;
        goto done;
    }
    if (!json_object_is_type(obj, json_type_object) ||
        (spec && !json_object_is_type(spec, json_type_object)) ||
        tri_bool(spec, "skipImmediately") != -1)
        goto done;
    if (op == CW_OP_CREATE) {
        why = "made explicit at creation";
    } else if (op == CW_OP_UPDATE) {
        json_object *old_spec = cw_json_member(old, "spec");
        int was = tri_bool(old_spec, "paused"), is = tri_bool(spec, "paused");
        if (was == 1 && (is == 0 || is == -1))
            why = "because the schedule is being unpaused";
    }
    if (!why)
        goto done;
    if ((rc = cw_patch_init(&p, d->patch, obj)) != CW_OK ||
        (rc = cw_patch_set(&p, json_object_new_boolean(cfg->schedule_skip_immediately), "spec",
                           "skipImmediately", NULL)) != CW_OK)
        goto done;
    rc = cw_strlist_addf(&d->warnings,
                         "spec.skipImmediately: set to %s, the server default "
                         "(--schedule-skip-immediately), %s",
                         cfg->schedule_skip_immediately ? "true" : "false", why);
done:
    if (rc == CW_ENOMEM)
        cw_error_set(err, rc, "defaulting Schedule: out of memory");
    cw_patch_free(&p);
    return rc;
}

static int check_object(const cw_policy_config *cfg, json_object *obj, cw_strlist *problems,
                        cw_strlist *warnings)
{
    json_object *api = cw_json_member(obj, "apiVersion");
    json_object *spec = cw_json_member(obj, "spec");
    const char *text = NULL;
    cw_error e;
    cw_cron cron;
    int rc = CW_OK;
    cw_error_init(&e);
    if (!json_object_is_type(obj, json_type_object))
        return cw_policy_problem(problems, NULL, "object", "expected object, got %s",
                                 cw_json_type_name(obj));
    if (api && (!json_object_is_type(api, json_type_string) ||
                strcmp(json_object_get_string(api), "velero.io/v1") != 0))
        return cw_policy_problem(problems, NULL, "apiVersion",
                                 "%s is not a Schedule version (expected velero.io/v1)",
                                 cw_json_compact(api));
    if (spec && !json_object_is_type(spec, json_type_object))
        return cw_policy_problem(problems, NULL, "spec", "expected object, got %s",
                                 cw_json_type_name(spec));
    if (cw_json_opt_string(spec, "spec", "schedule", &text, &e) != CW_OK)
        rc = cw_strlist_add(problems, e.message);
    else if (!text || !*text)
        rc = cw_strlist_add(problems, CW_SCHEDULE_MSG_EMPTY);
    else if ((rc = cw_cron_parse(text, cfg->tzdb, &cron, &e)) == CW_ENOMEM)
        return rc;
    else if (rc != CW_OK)
        rc = cw_strlist_addf(problems, CW_SCHEDULE_MSG_INVALID_PREFIX "%s", e.message);
    else if (warnings && cron.every == 0 && !(cron.dom & CW_CRON_STAR_BIT) &&
             !(cron.dow & CW_CRON_STAR_BIT))
        rc = cw_strlist_add(warnings,
                            "spec.schedule: day-of-month and day-of-week are both restricted; "
                            "Velero up to 1.18 runs when either matches, newer Velero only when "
                            "both match");
    static const char *const bools[] = {"paused", "skipImmediately"};
    for (size_t i = 0; rc == CW_OK && i < 2; i++)
        if (tri_bool(spec, bools[i]) == -2)
            rc = cw_policy_problem(problems, "spec", bools[i], "expected boolean, got %s",
                                   cw_json_type_name(cw_json_member(spec, bools[i])));
    return rc;
}

int cw_schedule_validate(const cw_policy_config *cfg, cw_operation op, json_object *old,
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
    if ((rc = check_object(cfg, obj, &now, &d->warnings)) != CW_OK)
        goto done;
    /* Velero writes Schedule status through the main resource (no status subresource): a
     * schedule that is already invalid must still take its FailedValidation status. */
    if (op == CW_OP_UPDATE && old && (rc = check_object(cfg, old, &before, NULL)) != CW_OK)
        goto done;
    rc = cw_decision_add_problems(d, &now, op == CW_OP_UPDATE && old ? &before : NULL);
done:
    if (rc != CW_OK)
        cw_error_set(err, rc, "validating Schedule: out of memory");
    cw_strlist_free(&now);
    cw_strlist_free(&before);
    return rc;
}

int cw_schedule_effective_skip(const cw_policy_config *cfg, json_object *schedule, int *out,
                               cw_error *err)
{
    int present = 0, v = 0;
    int rc = cw_json_opt_bool(cw_json_member(schedule, "spec"), "spec", "skipImmediately", &v,
                              &present, err);
    if (rc != CW_OK)
        return rc;
    *out = present ? v : cfg->schedule_skip_immediately;
    return CW_OK;
}

void cw_schedule_next_from(const cw_cron *cron, int32_t caller_offset, int64_t created,
                           const int64_t *last_backup, const int64_t *last_skipped, int64_t now,
                           cw_schedule_run *out)
{
    out->base = last_backup ? *last_backup : created;
    if (last_skipped && *last_skipped > out->base)
        out->base = *last_skipped;
    out->next = 0;
    out->fires = cw_cron_next(cron, out->base, caller_offset, &out->next);
    out->due = out->fires && now > out->next;
}

/* An optional RFC 3339 member: 1 and *out when set, 0 when absent or null. */
static int opt_time(json_object *schedule, const char *dotted, int64_t *out, cw_error *err)
{
    json_object *v = cw_json_path(schedule, dotted);
    if (!v)
        return 0;
    if (!json_object_is_type(v, json_type_string))
        return cw_error_set(err, CW_EINVAL, "%s: expected string, got %s", dotted,
                            cw_json_type_name(v));
    int32_t offset;
    if (cw_tz_parse_rfc3339(json_object_get_string(v), out, &offset, err) != CW_OK)
        return cw_error_prefix(err, "%s", dotted);
    return 1;
}

int cw_schedule_next_run(json_object *schedule, const cw_cron *cron, int32_t caller_offset,
                         int64_t now, cw_schedule_run *out, cw_error *err)
{
    int64_t created = 0, backup = 0, skipped = 0;
    int has_backup, has_skipped, has_created = 0;
    if ((has_backup = opt_time(schedule, "status.lastBackup", &backup, err)) < 0)
        return has_backup;
    if ((has_skipped = opt_time(schedule, "status.lastSkipped", &skipped, err)) < 0)
        return has_skipped;
    if (!has_backup) {
        if ((has_created = opt_time(schedule, "metadata.creationTimestamp", &created, err)) < 0)
            return has_created;
        if (!has_created)
            return cw_error_set(err, CW_EINVAL,
                                "metadata.creationTimestamp: missing (needed "
                                "while status.lastBackup is not set)");
    }
    cw_schedule_next_from(cron, caller_offset, created, has_backup ? &backup : NULL,
                          has_skipped ? &skipped : NULL, now, out);
    return CW_OK;
}

void cw_schedule_label_value(const char *schedule, char *out, size_t outlen)
{
    size_t n = strlen(schedule);
    if (n <= CW_SCHEDULE_LABEL_MAX) {
        snprintf(out, outlen, "%s", schedule);
        return;
    }
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)schedule, n, md);
    snprintf(out, outlen, "%.*s%02x%02x%02x", CW_SCHEDULE_LABEL_MAX - 6, schedule, md[0], md[1],
             md[2]);
}
