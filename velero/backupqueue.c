#include "velero/backupqueue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "velero/backupqueue_ns.h"
#include "cron/tz.h"
#include "lib/grow.h"
#include "lib/json.h"
#include "lib/strmap.h"

/* One Backup of the snapshot as the decision sees it (strings borrowed from the snapshot). */
typedef struct item {
    json_object *obj;
    const char *name, *rv, *created;
    int64_t position; /* status.queuePosition; 0 when absent or not a number */
    cw_strlist ns;    /* the namespaces it covers (running and queued Backups only) */
} item;

/* The per-decision state. */
typedef struct decision {
    item *running, *queued, *fresh;
    size_t nrunning, nqueued, nfresh;
    size_t *left; /* indices into queued of those that stay Queued, in order */
    size_t nleft;
    cw_strmap claims;     /* namespace -> 1 + order of the first Backup holding it */
    size_t order;         /* claims given so far */
    const char **holders; /* order -> name of the Backup holding a claim */
} decision;

void cw_bqctl_actions_init(cw_bqctl_actions *a)
{
    memset(a, 0, sizeof(*a));
    cw_strlist_init(&a->refused);
}

void cw_bqctl_actions_free(cw_bqctl_actions *a)
{
    for (size_t i = 0; i < a->nwaits; i++)
        free(a->waits[i].namespace);
    free(a->writes);
    free(a->waits);
    cw_strlist_free(&a->refused);
    memset(a, 0, sizeof(*a));
}

int cw_bqctl_running(const char *phase)
{
    return phase && (!strcmp(phase, "InProgress") || !strcmp(phase, "ReadyToStart"));
}

int cw_bqctl_new(const char *phase)
{
    return !phase || !*phase || !strcmp(phase, "New");
}

const char *cw_bqctl_kind_name(cw_bqctl_kind k)
{
    static const char *const names[] = {"dequeue", "renumber", "enqueue"};
    return (unsigned)k < 3 ? names[k] : "?";
}

/* ---- ordering ---- */

static int cmp_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

/* Queue order: position (none goes last), then creation (RFC 3339 UTC sorts as text), name. */
static int cmp_queued(const void *pa, const void *pb)
{
    const item *a = pa, *b = pb;
    int64_t x = a->position > 0 ? a->position : INT64_MAX;
    int64_t y = b->position > 0 ? b->position : INT64_MAX;
    if (x != y)
        return x < y ? -1 : 1;
    int c = cmp_str(a->created, b->created);
    return c ? c : strcmp(a->name, b->name);
}

static int cmp_fresh(const void *pa, const void *pb)
{
    const item *a = pa, *b = pb;
    int c = cmp_str(a->created, b->created);
    return c ? c : strcmp(a->name, b->name);
}

static int cmp_name(const void *pa, const void *pb)
{
    return strcmp(((const item *)pa)->name, ((const item *)pb)->name);
}

/* ---- building the picture ---- */

static int push_item(item **arr, size_t *n, size_t *cap, const item *it)
{
    if (cw_grow((void **)arr, cap, *n, sizeof(**arr), 16) != CW_OK)
        return CW_ENOMEM;
    (*arr)[(*n)++] = *it;
    return CW_OK;
}

static int64_t position_of(json_object *b)
{
    json_object *v = cw_json_path(b, "status.queuePosition");
    return json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
}

/* Sorts the snapshot into running, queued and new Backups; resolves the namespaces of the
 * first two. */
static int gather(decision *d, json_object *backups, const cw_strlist *live, cw_bqctl_actions *out,
                  cw_error *err)
{
    size_t caps[3] = {0};
    size_t n = backups ? json_object_array_length(backups) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *b = json_object_array_get_idx(backups, i);
        item it = {.obj = b};
        const char *phase = cw_json_path_string(b, "status.phase");
        it.name = cw_json_path_string(b, "metadata.name");
        if (!it.name || !*it.name)
            return cw_error_set(err, CW_EINVAL, "a Backup without metadata.name");
        it.rv = cw_json_path_string(b, "metadata.resourceVersion");
        it.created = cw_json_path_string(b, "metadata.creationTimestamp");
        it.position = position_of(b);
        cw_strlist_init(&it.ns);
        int rc = CW_OK;
        if (cw_bqctl_new(phase))
            rc = push_item(&d->fresh, &d->nfresh, &caps[2], &it);
        else if (phase && !strcmp(phase, "Queued"))
            rc = push_item(&d->queued, &d->nqueued, &caps[1], &it);
        else if (cw_bqctl_running(phase))
            rc = push_item(&d->running, &d->nrunning, &caps[0], &it);
        if (rc != CW_OK)
            return cw_error_oom(err);
    }
    item *lists[2] = {d->running, d->queued};
    size_t lens[2] = {d->nrunning, d->nqueued};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < lens[l]; i++) {
            char why[160];
            int rc = cw_bq_backup_namespaces(lists[l][i].obj, live, &lists[l][i].ns, why,
                                             sizeof(why), err);
            if (rc != CW_OK)
                return rc;
            if (*why && cw_strlist_addf(&out->refused, "%s: %s", lists[l][i].name, why) != CW_OK)
                return cw_error_oom(err);
        }
    if (d->nrunning > 1) /* qsort wants an array, even of nothing */
        qsort(d->running, d->nrunning, sizeof(item), cmp_name);
    if (d->nqueued > 1)
        qsort(d->queued, d->nqueued, sizeof(item), cmp_queued);
    if (d->nfresh > 1)
        qsort(d->fresh, d->nfresh, sizeof(item), cmp_fresh);
    return CW_OK;
}

/* The earliest holder of any of it's namespaces: its order (SIZE_MAX: none) and the namespace. */
static size_t first_overlap(decision *d, const item *it, const char **ns)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < it->ns.len; i++) {
        void *v = cw_strmap_get_s(&d->claims, it->ns.items[i]);
        if (v && (size_t)(uintptr_t)v - 1 < best) {
            best = (size_t)(uintptr_t)v - 1;
            *ns = it->ns.items[i];
        }
    }
    return best;
}

/* it holds its namespaces from now on (those nobody held before it). */
static int claim(decision *d, const item *it)
{
    size_t order = d->order++;
    d->holders[order] = it->name;
    for (size_t i = 0; i < it->ns.len; i++)
        if (!cw_strmap_has_s(&d->claims, it->ns.items[i]) &&
            cw_strmap_set_s(&d->claims, it->ns.items[i], (void *)(uintptr_t)(order + 1), NULL) !=
                CW_OK)
            return CW_ENOMEM;
    return CW_OK;
}

/* ---- the writes ---- */

static int add_write(cw_bqctl_actions *a, cw_bqctl_kind kind, const item *it, int64_t position,
                     double waited)
{
    if (cw_grow((void **)&a->writes, &a->capwrites, a->nwrites, sizeof(*a->writes), 64) != CW_OK)
        return CW_ENOMEM;
    a->writes[a->nwrites++] = (cw_bqctl_write){
        .kind = kind,
        .name = it->name,
        .resource_version = it->rv ? it->rv : "",
        .position = position,
        .old_position = it->position,
        .waited = waited,
    };
    return CW_OK;
}

int cw_bqctl_write_patch(const cw_bqctl_write *w, json_object **out, cw_error *err)
{
    json_object *p = json_object_new_object(), *meta = json_object_new_object(),
                *status = json_object_new_object();
    int bad = !p || !meta || !status;
    *out = NULL;
    if (!bad) {
        bad = json_object_object_add(p, "metadata", meta);
        meta = bad ? meta : NULL;
    }
    if (!bad) {
        bad = json_object_object_add(p, "status", status);
        status = bad ? status : NULL;
    }
    json_object *m = cw_json_member(p, "metadata"), *s = cw_json_member(p, "status");
    if (!bad)
        bad = json_object_object_add(m, "resourceVersion",
                                     json_object_new_string(w->resource_version)) ||
              (w->kind != CW_BQCTL_RENUMBER &&
               json_object_object_add(s, "phase",
                                      json_object_new_string(w->kind == CW_BQCTL_DEQUEUE
                                                                 ? "ReadyToStart"
                                                                 : "Queued"))) ||
              json_object_object_add(s, "queuePosition", json_object_new_int64(w->position));
    json_object_put(meta);
    json_object_put(status);
    if (bad) {
        json_object_put(p);
        return cw_error_oom(err);
    }
    *out = p;
    return CW_OK;
}

static int add_wait(cw_bqctl_actions *a, const char *name, const char *blocker, const char *ns)
{
    if (cw_grow((void **)&a->waits, &a->capwaits, a->nwaits, sizeof(*a->waits), 16) != CW_OK)
        return CW_ENOMEM;
    cw_bqctl_wait *w = &a->waits[a->nwaits++];
    w->name = name;
    w->blocker = blocker;
    w->namespace = strdup(ns);
    return w->namespace ? CW_OK : CW_ENOMEM;
}

static double waited_s(const item *it, int64_t now_ms)
{
    int64_t t;
    int32_t off;
    cw_error ignored;
    if (!it->created || cw_tz_parse_rfc3339(it->created, &t, &off, &ignored) != CW_OK)
        return 0;
    double w = (double)now_ms / 1000.0 - (double)t;
    return w > 0 ? w : 0;
}

/* Walks the queue in order: dequeues what may run, claims the namespaces of the rest, records
 * who waits for whom. */
static int dequeue(decision *d, const cw_bqctl_config *cfg, int64_t now_ms, cw_bqctl_actions *out)
{
    int64_t limit = cfg->concurrency < 1 ? 1 : cfg->concurrency;
    size_t running = d->nrunning;
    for (size_t i = 0; i < d->nrunning; i++)
        if (claim(d, &d->running[i]) != CW_OK)
            return CW_ENOMEM;
    for (size_t i = 0; i < d->nqueued; i++) {
        const item *q = &d->queued[i];
        const char *ns = NULL;
        size_t blocker = first_overlap(d, q, &ns);
        if (blocker == SIZE_MAX && (int64_t)running < limit) {
            if (add_write(out, CW_BQCTL_DEQUEUE, q, 0, waited_s(q, now_ms)) != CW_OK)
                return CW_ENOMEM;
            running++;
        } else {
            d->left[d->nleft++] = i;
            if (blocker != SIZE_MAX && add_wait(out, q->name, d->holders[blocker], ns) != CW_OK)
                return CW_ENOMEM;
        }
        if (claim(d, q) != CW_OK)
            return CW_ENOMEM;
    }
    out->ndequeues = out->nwrites;
    out->running = running;
    return CW_OK;
}

/* Positions 1..n for those left Queued, then n+1.. for the new ones. */
static int number(decision *d, cw_bqctl_actions *out)
{
    int64_t pos = 0;
    for (size_t k = 0; k < d->nleft; k++) {
        const item *q = &d->queued[d->left[k]];
        if (q->position != ++pos && add_write(out, CW_BQCTL_RENUMBER, q, pos, 0) != CW_OK)
            return CW_ENOMEM;
    }
    for (size_t i = 0; i < d->nfresh; i++)
        if (add_write(out, CW_BQCTL_ENQUEUE, &d->fresh[i], ++pos, 0) != CW_OK)
            return CW_ENOMEM;
    out->queued = (size_t)pos;
    return CW_OK;
}

int cw_bqctl_decide(json_object *backups, const cw_strlist *namespaces, const cw_bqctl_config *cfg,
                    int64_t now_ms, cw_bqctl_actions *out, cw_error *err)
{
    decision d;
    cw_strlist none;
    item *lists[3];
    size_t lens[3];
    int rc;
    memset(&d, 0, sizeof(d));
    cw_strmap_init(&d.claims);
    cw_strlist_init(&none);
    if (!namespaces)
        namespaces = &none;
    if ((rc = gather(&d, backups, namespaces, out, err)) != CW_OK)
        goto done;
    d.left = calloc(d.nqueued + 1, sizeof(*d.left));
    d.holders = calloc(d.nrunning + d.nqueued + 1, sizeof(*d.holders));
    if (!d.left || !d.holders || dequeue(&d, cfg, now_ms, out) != CW_OK ||
        number(&d, out) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
done:
    lists[0] = d.running, lists[1] = d.queued, lists[2] = d.fresh;
    lens[0] = d.nrunning, lens[1] = d.nqueued, lens[2] = d.nfresh;
    for (int l = 0; l < 3; l++) {
        for (size_t i = 0; i < lens[l]; i++)
            cw_strlist_free(&lists[l][i].ns);
        free(lists[l]);
    }
    free(d.left);
    free(d.holders);
    cw_strmap_free(&d.claims, NULL);
    return rc;
}
