/* What the subcommands share: usage errors, signal handling, heap trimming, the policy. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#ifdef __GLIBC__ /* defined by the headers above */
#include <malloc.h>
#endif

#include "cmd/cmd.h"
#include "defaults/recurringjob.h"
#include "lib/k8sname.h"
#include "lib/error.h"

int cw_cmd_usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "cronwarden %s: %s (see 'cronwarden %s --help')\n", cmd, msg, cmd);
    return CW_EXIT_USAGE;
}

void cw_cmd_block_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    pthread_sigmask(SIG_BLOCK, set, NULL);
    signal(SIGPIPE, SIG_IGN);
}

void cw_cmd_limit_arenas(int n)
{
#ifdef __GLIBC__
    mallopt(M_ARENA_MAX, n);
#else
    (void)n;
#endif
}

void cw_cmd_trim_heap(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

int cw_cmd_policy_init(cw_policy_config *policy, cw_tzdb *tzdb, cw_error *err)
{
    int rc = cw_tzdb_init(tzdb, NULL, err);
    if (rc != CW_OK)
        return rc;
    if ((rc = cw_policy_config_init(policy)) != CW_OK) {
        cw_tzdb_free(tzdb);
        return cw_error_oom(err);
    }
    policy->tzdb = tzdb;
    return CW_OK;
}

void cw_cmd_policy_free(cw_policy_config *policy, cw_tzdb *tzdb)
{
    cw_policy_config_free(policy);
    cw_tzdb_free(tzdb);
}

int cw_cmd_check_namespace(const char *flag, const char *ns, int empty_ok, cw_error *err)
{
    const char *why = ns && *ns  ? cw_k8sname_check_label(ns)
                      : empty_ok ? NULL
                                 : "must not be empty";
    return why ? cw_error_set(err, CW_EUSAGE, "%s \"%s\": %s", flag, ns ? ns : "", why) : CW_OK;
}

int cw_cmd_check_group(const char *flag, const char *group, cw_error *err)
{
    const char *why = group && *group ? cw_recurringjob_group_problem(group) : NULL;
    return why ? cw_error_set(err, CW_EUSAGE, "%s \"%s\" %s", flag, group, why) : CW_OK;
}
