#include "webhook/dispatch.h"

#include <string.h>

#include "longhorn/recurringjob.h"
#include "velero/schedule.h"
#include "longhorn/volume.h"

typedef int (*policy_fn)(const cw_policy_config *cfg, cw_operation op, json_object *old,
                         json_object *obj, cw_decision *d, cw_error *err);

static const struct {
    const char *group, *kind;
    const char *versions[3];
    policy_fn mutate, validate;
} kinds[] = {
    {"longhorn.io",
     "RecurringJob",
     {"v1beta1", "v1beta2"},
     cw_recurringjob_default,
     cw_recurringjob_validate},
    {"longhorn.io", "Volume", {"v1beta1", "v1beta2"}, cw_volume_default, cw_volume_validate},
    {"velero.io", "Schedule", {"v1"}, cw_schedule_default, cw_schedule_validate},
};

static int covers(size_t i, const cw_review_request *req)
{
    if (strcmp(kinds[i].group, req->group) != 0 || strcmp(kinds[i].kind, req->kind) != 0)
        return 0;
    for (size_t v = 0; v < 3 && kinds[i].versions[v]; v++)
        if (strcmp(kinds[i].versions[v], req->kind_version) == 0)
            return 1;
    return 0;
}

int cw_webhook_dispatch(const cw_policy_config *cfg, cw_webhook_route route,
                        const cw_review_request *req, cw_decision *d, const char **kind_label,
                        cw_error *err)
{
    static const cw_operation ops[] = {CW_OP_CREATE, CW_OP_UPDATE, CW_OP_DELETE, CW_OP_CONNECT};
    *kind_label = "other";
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (!covers(i, req))
            continue;
        *kind_label = kinds[i].kind;
        /* Status and other subresources carry no spec to default or validate. */
        if (req->subresource[0] || req->operation == CW_REVIEW_DELETE ||
            req->operation == CW_REVIEW_CONNECT)
            return CW_OK;
        policy_fn fn = route == CW_WEBHOOK_MUTATE ? kinds[i].mutate : kinds[i].validate;
        return fn(cfg, ops[req->operation], req->old_object, req->object, d, err);
    }
    return CW_OK;
}
