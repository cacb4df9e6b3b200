#include "controller/core/reconciler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cw_reconcilers_names(const cw_reconciler_ops *const *all, char *buf, size_t len,
                          int defaults_only)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; all[i]; i++) {
        if (defaults_only && !all[i]->default_enabled)
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", all[i]->name);
        if (n < 0 || (size_t)n >= len - used)
            return;
        used += (size_t)n;
    }
}

static int find(const cw_reconciler_ops *const *all, const char *name, size_t len)
{
    for (int i = 0; all[i]; i++)
        if (strlen(all[i]->name) == len && !strncmp(all[i]->name, name, len))
            return i;
    return -1;
}

static int unknown(const cw_reconciler_ops *const *all, const char *name, size_t len, cw_error *err)
{
    char known[512];
    cw_reconcilers_names(all, known, sizeof(known), 0);
    return cw_error_set(err, CW_EINVAL, "--controllers: unknown controller \"%.*s\" (known: %s)",
                        (int)len, name, known);
}

/* Applies one comma-separated item to the on/off table. */
static int apply_item(const cw_reconciler_ops *const *all, const char *item, size_t len, int *on,
                      cw_error *err)
{
    int off = 0;
    if (len == 1 && item[0] == '*') {
        for (size_t i = 0; all[i]; i++)
            on[i] = 1;
        return CW_OK;
    }
    if (len && item[0] == '-') {
        off = 1;
        item++;
        len--;
    }
    int i = find(all, item, len);
    if (i < 0)
        return unknown(all, item, len, err);
    on[i] = !off;
    return CW_OK;
}

int cw_reconcilers_select(const cw_reconciler_ops *const *all, const char *spec,
                          const cw_reconciler_ops **out, size_t *n, cw_error *err)
{
    int on[CW_RECONCILERS_MAX] = {0}, rc;
    *n = 0;
    for (size_t i = 0; all[i] && i < CW_RECONCILERS_MAX; i++)
        on[i] = !spec || !*spec ? all[i]->default_enabled : 0;
    for (const char *p = spec; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && (*p == ' '))
            p++, len--;
        while (len && p[len - 1] == ' ')
            len--;
        if (len && (rc = apply_item(all, p, len, on, err)) != CW_OK)
            return rc;
        if (!end)
            break;
        p = end + 1;
    }
    for (size_t i = 0; all[i] && i < CW_RECONCILERS_MAX; i++)
        if (on[i])
            out[(*n)++] = all[i];
    if (!*n)
        return cw_error_set(err, CW_EINVAL,
                            "--controllers: no controller is enabled (give at least one of the "
                            "names, or `*` for all)");
    return CW_OK;
}

int cw_reconciler_configs_init(cw_reconciler_configs *c, const cw_reconciler_ops *const *all,
                               cw_error *err)
{
    memset(c, 0, sizeof(*c));
    if (!(c->shared = calloc(1, cw_ctrl_flags_size)))
        return cw_error_oom(err);
    for (size_t i = 0; all[i] && i < CW_RECONCILERS_MAX; i++)
        if (all[i]->config_size && !(c->cfgs[i] = calloc(1, all[i]->config_size))) {
            cw_reconciler_configs_free(c);
            return cw_error_oom(err);
        }
    return CW_OK;
}

void cw_reconciler_configs_free(cw_reconciler_configs *c)
{
    free(c->shared);
    for (size_t i = 0; i < CW_RECONCILERS_MAX; i++)
        free(c->cfgs[i]);
    memset(c, 0, sizeof(*c));
}

int cw_reconcilers_opts(const cw_reconciler_ops *const *all, cw_reconciler_configs *c, cw_opt *out,
                        void **bases, size_t cap, size_t *n, cw_error *err)
{
    int rc = CW_OK;
    for (size_t r = 0; rc == CW_OK && all[r] && r < CW_RECONCILERS_MAX; r++) {
        void *at[] = {[CW_RECONCILER_AT_CONFIG - 1] = c->cfgs[r],
                      [CW_RECONCILER_AT_SHARED - 1] = c->shared};
        rc = cw_opts_append_at(out, bases, cap, n, all[r]->opts, all[r]->nopts, at, 2, err);
    }
    return rc;
}

/* config_fini of the first n reconcilers of all. */
static void fini_first(const cw_reconciler_ops *const *all, cw_reconciler_configs *c, size_t n)
{
    for (size_t i = 0; i < n && all[i] && i < CW_RECONCILERS_MAX; i++)
        if (c->cfgs[i] && all[i]->config_fini)
            all[i]->config_fini(c->cfgs[i]);
}

int cw_reconcilers_configure(const cw_reconciler_ops *const *all, cw_reconciler_configs *c,
                             cw_error *err)
{
    for (size_t i = 0; all[i] && i < CW_RECONCILERS_MAX; i++) {
        int rc = all[i]->config_init ? all[i]->config_init(c->cfgs[i], c->shared, err) : CW_OK;
        if (rc != CW_OK) {
            fini_first(all, c, i + 1);
            return rc;
        }
    }
    return CW_OK;
}

void cw_reconcilers_unconfigure(const cw_reconciler_ops *const *all, cw_reconciler_configs *c)
{
    fini_first(all, c, CW_RECONCILERS_MAX);
}
