#include "controller/flags.h"

#include "lib/k8sname.h"

const size_t cw_ctrl_flags_size = sizeof(cw_ctrl_flags);

int cw_ctrl_policy_config_init(void *cfg, const cw_ctrl_flags *f, const char *flag, const char *ns,
                               int empty_ok, cw_error *err)
{
    cw_ctrl_policy_config *c = cfg;
    int rc = cw_k8sname_check_flag(flag, ns, empty_ok, err);
    if (rc != CW_OK || (rc = cw_policy_config_init_tzdb(&c->policy, &c->tzdb, err)) != CW_OK)
        return rc;
    c->ok = 1;
    c->head.home = ns;
    if (f->max_retain)
        c->policy.max_retain = (int)f->max_retain;
    return CW_OK;
}

void cw_ctrl_policy_config_fini(void *cfg)
{
    cw_ctrl_policy_config *c = cfg;
    if (c->ok)
        cw_policy_config_free_tzdb(&c->policy, &c->tzdb);
    c->ok = 0;
}
