/* The process's informers, one per (resource, namespace, selectors): a reconciler's informer row
 * joins the informer another reconciler made for the same resource, as a sink of its own
 * (controller/core/informer.h). */
#include "controller/core/informer.h"

#include <stdlib.h>
#include <string.h>

void cw_informer_set_init(cw_informer_set *set)
{
    memset(set, 0, sizeof(*set));
}

static int same(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

static int serves(const cw_informer *inf, const cw_informer_config *cfg)
{
    const cw_kube_resource *a = &inf->cfg.resource, *b = &cfg->resource;
    return same(a->group, b->group) && same(a->version, b->version) &&
           same(a->resource, b->resource) && same(a->namespace, b->namespace) &&
           same(inf->cfg.label_selector, cfg->label_selector) &&
           same(inf->cfg.field_selector, cfg->field_selector);
}

/* Readers of one informer that parse differently: values one reader wants as text another may
 * read as JSON, so a shared informer prunes only when every reader asks for the same prune (the
 * transforms take either form); its pages are the smallest any reader asks for. Joins happen
 * before the informer starts. */
static void settle_parsing(cw_informer *inf, const cw_informer_config *cfg)
{
    if (inf->cfg.prune != cfg->prune || inf->cfg.prune_over != cfg->prune_over) {
        inf->cfg.prune = NULL;
        inf->cfg.prune_over = 0;
    }
    if (cfg->page_size > 0 && (inf->cfg.page_size <= 0 || cfg->page_size < inf->cfg.page_size))
        inf->cfg.page_size = cfg->page_size;
}

int cw_informer_set_join(cw_informer_set *set, const cw_informer_config *cfg,
                         const cw_informer_sink *sink, cw_informer **inf, size_t *sink_id,
                         cw_error *err)
{
    cw_informer *found = NULL;
    for (size_t i = 0; i < set->n && !found; i++)
        if (serves(set->items[i], cfg))
            found = set->items[i];
    if (!found) {
        cw_informer_config bare = *cfg; /* the sinks join below */
        bare.sink = (cw_informer_sink){0};
        cw_informer **grown = realloc(set->items, (set->n + 1) * sizeof(*grown));
        if (!grown)
            return cw_error_oom(err);
        set->items = grown;
        if (!(found = calloc(1, sizeof(*found))))
            return cw_error_oom(err);
        int rc = cw_informer_init(found, &bare, err);
        if (rc != CW_OK) {
            cw_informer_free(found);
            free(found);
            return rc;
        }
        set->items[set->n++] = found;
    } else
        settle_parsing(found, cfg);
    *inf = found;
    return cw_informer_add_sink(found, sink, sink_id, err);
}

int cw_informer_set_start(cw_informer_set *set, cw_error *err)
{
    for (; set->started < set->n; set->started++) {
        int rc = cw_informer_start(set->items[set->started], err);
        if (rc != CW_OK)
            return rc;
    }
    return CW_OK;
}

void cw_informer_set_ask_stop(cw_informer_set *set)
{
    for (size_t i = 0; i < set->started; i++)
        cw_informer_ask_stop(set->items[i]);
}

void cw_informer_set_stop(cw_informer_set *set)
{
    cw_informer_set_ask_stop(set); /* all of them end at once, not one after another */
    while (set->started > 0)
        cw_informer_stop(set->items[--set->started]);
}

void cw_informer_set_free(cw_informer_set *set)
{
    cw_informer_set_stop(set);
    while (set->n > 0) {
        cw_informer *inf = set->items[--set->n];
        cw_informer_free(inf);
        free(inf);
    }
    free(set->items);
    memset(set, 0, sizeof(*set));
}
