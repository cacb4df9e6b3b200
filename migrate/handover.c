/* Is a legacy CronJob done with the fire times it owes before the new CronJob takes over? */
#include "migrate/handover.h"
#include "cron/cron.h"
#include "lib/json.h"

#include <string.h>

static int read_time(json_object *obj, const char *path, int64_t *t, int *present, cw_error *err)
{
    const char *s = cw_json_path_string(obj, path);
    int32_t offset = 0;
    *present = s != NULL;
    if (!s)
        return CW_OK;
    if (cw_tz_parse_rfc3339(s, t, &offset, err) != CW_OK)
        return cw_error_prefix(err, "%s", path);
    return CW_OK;
}

int cw_handover_check(json_object *cronjob, int64_t handover, cw_handover_state *state,
                      int64_t *due, cw_error *err)
{
    json_object *suspend = cw_json_path(cronjob, "spec.suspend");
    json_object *active = cw_json_path(cronjob, "status.active");
    const char *schedule = cw_json_path_string(cronjob, "spec.schedule");
    int64_t anchor = 0;
    int present = 0, rc;
    cw_cron cron;
    *state = CW_HANDOVER_DONE;
    *due = 0;
    if (suspend && json_object_get_boolean(suspend))
        return CW_OK;
    if (active && json_object_is_type(active, json_type_array) &&
        json_object_array_length(active) > 0) {
        *state = CW_HANDOVER_RUNNING;
        return CW_OK;
    }
    if (!schedule)
        return cw_error_set(err, CW_EINVAL, "spec.schedule: missing");
    /* No zone files here: a TZ=/CRON_TZ= prefix (which the API server refuses up to 1.21, where
     * legacy CronJobs live) is an error, and the caller does not wait for that CronJob. */
    if (cw_cron_zone_prefix(schedule))
        return cw_error_set(err, CW_EINVAL, "spec.schedule \"%s\": a zone prefix", schedule);
    if ((rc = cw_cron_parse(schedule, NULL, &cron, err)) != CW_OK)
        return cw_error_prefix(err, "spec.schedule \"%s\"", schedule);
    if ((rc = read_time(cronjob, "status.lastScheduleTime", &anchor, &present, err)) != CW_OK)
        return rc;
    if (!present &&
        (rc = read_time(cronjob, "metadata.creationTimestamp", &anchor, &present, err)) != CW_OK)
        return rc;
    if (!present)
        return cw_error_set(err, CW_EINVAL,
                            "status.lastScheduleTime and "
                            "metadata.creationTimestamp: both missing");
    /* The controller manager's zone: UTC, as in every kube-controller-manager image. */
    if (cw_cron_next(&cron, anchor, 0, due) && *due <= handover)
        *state = CW_HANDOVER_DUE;
    return CW_OK;
}
