/* What the subcommands share: usage errors, signal handling, heap trimming, the policy. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#ifdef __GLIBC__ /* defined by the headers above */
#include <malloc.h>
#endif

#include "cmd/cmd.h"
#include "lib/error.h"
#include "lib/log.h"

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

cw_cmd_common_flags cw_cmd_common;

const cw_opt cw_cmd_common_opts[] = {
    {.name = "kubeconfig",
     .type = CW_OPT_STRING,
     .metavar = "PATH",
     .help = "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)",
     .target = &cw_cmd_common.kubeconfig},
    {.name = "context",
     .type = CW_OPT_STRING,
     .metavar = "NAME",
     .help = "kubeconfig context",
     .target = &cw_cmd_common.context},
    {.name = "log-level",
     .type = CW_OPT_ENUM,
     .metavar = "LEVEL",
     .help = "debug, info, warn or error",
     .target = &cw_cmd_common.log_level,
     .def = "info",
     .choices = "debug|info|warn|error"},
    {.name = "log-format",
     .type = CW_OPT_ENUM,
     .metavar = "FORMAT",
     .help = "text (logfmt) or json",
     .target = &cw_cmd_common.log_format,
     .def = "text",
     .choices = "text|json"},
};
const size_t cw_cmd_common_nopts = sizeof(cw_cmd_common_opts) / sizeof(cw_cmd_common_opts[0]);

int cw_cmd_opts(const cw_opt *own, size_t nown, cw_opt *out, size_t cap, size_t *n, cw_error *err)
{
    *n = 0;
    int rc = cw_opts_append(out, cap, n, own, nown, err);
    return rc != CW_OK ? rc
                       : cw_opts_append(out, cap, n, cw_cmd_common_opts, cw_cmd_common_nopts, err);
}

/* A list flag's values as the environment gives them: comma-separated (cut at len). */
static const char *join(const cw_strlist *l, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < l->len && used + 1 < len; i++) {
        int w = snprintf(out + used, len - used, "%s%s", i ? "," : "", l->items[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return out;
}

void cw_cmd_log_config(const cw_cmd_spec *spec, const cw_log_field *extra, size_t nextra)
{
    cw_log_field f[128];
    char keys[128][64], lists[8][512];
    size_t n = 0, nlists = 0;
    for (size_t i = 0; i < nextra && n < 128; i++)
        f[n++] = extra[i];
    for (size_t i = 0; i < spec->nopts && n < 128; i++) {
        const cw_opt *r = &spec->opts[i];
        size_t k = 0;
        for (const char *p = r->name; *p && k < 60; p++)
            keys[n][k++] = *p == '-' ? '_' : *p;
        snprintf(keys[n] + k, sizeof(keys[n]) - k, "%s", r->type == CW_OPT_DURATION ? "_s" : "");
        if (r->type == CW_OPT_INT)
            f[n] = CW_LI(keys[n], *(long long *)r->target);
        else if (r->type == CW_OPT_BOOL)
            f[n] = CW_LB(keys[n], *(int *)r->target);
        else if (r->type == CW_OPT_DURATION || r->type == CW_OPT_DOUBLE)
            f[n] = CW_LD(keys[n], *(double *)r->target);
        else if (r->type == CW_OPT_STRING || r->type == CW_OPT_ENUM)
            f[n] = CW_LS(keys[n], *(char **)r->target ? *(char **)r->target : "");
        else if (r->type == CW_OPT_LIST && nlists < 8)
            f[n] = CW_LS(keys[n], join(r->target, lists[nlists++], sizeof(lists[0])));
        else
            continue;
        n++;
    }
    cw_log_emit(CW_LOG_INFO, "configuration", f, n);
}
