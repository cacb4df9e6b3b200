/* What the subcommands share: usage errors, signal handling, heap trimming, the policy. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
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

const cw_cmd_entry *cw_cmd_find(const cw_cmd_entry *t, const char *name)
{
    for (size_t i = 0; t[i].name; i++)
        if (strcmp(t[i].name, name) == 0)
            return &t[i];
    return NULL;
}

int cw_cmd_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0 || strcmp(arg, "help") == 0;
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

int cw_cmd_opts(const cw_opt *own, size_t nown, cw_cmd_common_flags *common, cw_opt *out,
                size_t cap, size_t *n, cw_error *err)
{
    const cw_opt rows[] = {
        CW_CMD_OPT_KUBECONFIG("", &common->kubeconfig, 0),
        CW_CMD_OPT_CONTEXT("", &common->context, 0),
        CW_CMD_OPT_LOG_LEVEL(&common->log_level),
        CW_CMD_OPT_LOG_FORMAT(&common->log_format),
    };
    *n = 0;
    int rc = cw_opts_append(out, cap, n, own, nown, err);
    return rc != CW_OK ? rc
                       : cw_opts_append(out, cap, n, rows, sizeof(rows) / sizeof(rows[0]), err);
}

void cw_cmd_log_configure(const cw_cmd_common_flags *f)
{
    cw_log_level level;
    cw_log_format format;
    cw_log_parse_level(f->log_level, &level);
    cw_log_parse_format(f->log_format, &format);
    cw_log_configure(level, format, stderr);
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
        void *v = cw_opts_value(spec, i);
        size_t k = 0;
        for (const char *p = r->name; *p && k < 60; p++)
            keys[n][k++] = *p == '-' ? '_' : *p;
        snprintf(keys[n] + k, sizeof(keys[n]) - k, "%s", r->type == CW_OPT_DURATION ? "_s" : "");
        if (r->type == CW_OPT_INT)
            f[n] = CW_LI(keys[n], *(long long *)v);
        else if (r->type == CW_OPT_BOOL)
            f[n] = CW_LB(keys[n], *(int *)v);
        else if (r->type == CW_OPT_DURATION || r->type == CW_OPT_DOUBLE)
            f[n] = CW_LD(keys[n], *(double *)v);
        else if (r->type == CW_OPT_STRING || r->type == CW_OPT_ENUM)
            f[n] = CW_LS(keys[n], *(char **)v ? *(char **)v : "");
        else if (r->type == CW_OPT_LIST && nlists < 8)
            f[n] = CW_LS(keys[n], join(v, lists[nlists++], sizeof(lists[0])));
        else
            continue;
        n++;
    }
    cw_log_emit(CW_LOG_INFO, "configuration", f, n);
}
