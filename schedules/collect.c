/* The collector: objects in any order (files, LIST pages, watch events) into compact records
 * keyed by kind, namespace and name; schedules judged with their CronJob and runs. */
#include "schedules/internal.h"

#include <stdlib.h>
#include <string.h>

#include "defaults/kinds.h"
#include "velero/schedule.h"
#include "lib/grow.h"
#include "lib/json.h"

typedef struct run_group {
    cw_health_run *runs;
    size_t n, cap;
} run_group;

static void free_sched(void *v)
{
    if (v)
        cw_health_sched_free(v);
    free(v);
}

static void free_cronjob(void *v)
{
    if (v)
        cw_health__cronjob_free(v);
    free(v);
}

static void free_group(void *v)
{
    run_group *g = v;
    for (size_t i = 0; g && i < g->n; i++)
        cw_health_run_free(&g->runs[i]);
    if (g)
        free(g->runs);
    free(g);
}

static void free_backup(void *v)
{
    cw_health_backup *b = v;
    if (b)
        free(b->volume);
    free(b);
}

int cw_health_init(cw_health *h, const cw_health_config *cfg, cw_error *err)
{
    memset(h, 0, sizeof(*h));
    h->cfg = *cfg;
    if (!h->cfg.default_group)
        h->cfg.default_group = "";
    if (h->cfg.window < 0)
        return cw_error_set(err, CW_EINVAL, "the window must not be negative");
    cw_strmap_init(&h->scheds);
    cw_strmap_init(&h->cronjobs);
    cw_strmap_init(&h->runs);
    cw_strmap_init(&h->run_of);
    cw_strmap_init(&h->labels);
    cw_strmap_init(&h->volumes);
    cw_strmap_init(&h->backups);
    cw_strmap_init(&h->sigs);
    return CW_OK;
}

static void free_results(cw_health *h)
{
    for (size_t i = 0; i < h->nresults; i++)
        cw_health_result_free(&h->results[i].result);
    free(h->results);
    h->results = NULL;
    h->nresults = 0;
    cw_health_counts_free(h->counts, h->ncounts);
    h->counts = NULL;
    h->ncounts = 0;
    cw_health__volume_results_free(h);
}

static int free_volume_cb(void *ud, const char *key, void *value)
{
    (void)key;
    cw_health__volume_free(ud, value);
    return 0;
}

void cw_health_free(cw_health *h)
{
    free_results(h);
    cw_strmap_walk(&h->volumes, free_volume_cb, h);
    cw_strmap_free(&h->volumes, NULL);
    cw_strmap_free(&h->scheds, free_sched);
    cw_strmap_free(&h->cronjobs, free_cronjob);
    cw_strmap_free(&h->runs, free_group);
    cw_strmap_free(&h->run_of, free);
    cw_strmap_free(&h->labels, free);
    cw_strmap_free(&h->backups, free_backup);
    cw_strmap_free(&h->sigs, NULL);
    memset(h, 0, sizeof(*h));
}

static int keyf(cw_buf *b, const char *prefix, const char *ns, const char *name)
{
    cw_buf_reset(b);
    return cw_buf_printf(b, "%s%s/%s", prefix, ns, name);
}

/* Stores value under key, freeing what it replaces with fn. */
static int replace(cw_strmap *m, const char *key, void *value, cw_strmap_free_fn fn)
{
    void *old = NULL;
    if (cw_strmap_set_s(m, key, value, &old) != CW_OK)
        return CW_ENOMEM;
    if (old && fn)
        fn(old);
    return CW_OK;
}

static int add_sched(cw_health *h, json_object *obj, cw_health_kind kind, const char *ns,
                     const char *name, const char *source, cw_error *err)
{
    cw_health_sched *s = malloc(sizeof(*s));
    cw_buf key;
    cw_buf_init(&key);
    if (!s)
        return cw_error_oom(err);
    cw_health_sched_init(s);
    int rc = kind == CW_HEALTH_RECURRINGJOB ? cw_health_sched_from_recurringjob(s, obj, err)
                                            : cw_health_sched_from_schedule(s, obj, err);
    if (rc != CW_OK) {
        free_sched(s);
        return rc == CW_ENOMEM ? rc : cw_error_prefix(err, "%s", source);
    }
    if (keyf(&key, kind == CW_HEALTH_RECURRINGJOB ? "R/" : "S/", ns, name) != CW_OK ||
        replace(&h->scheds, cw_buf_str(&key), s, free_sched) != CW_OK) {
        free_sched(s);
        rc = cw_error_oom(err);
    }
    cw_buf_free(&key);
    return rc;
}

static int add_cronjob(cw_health *h, json_object *obj, const char *ns, const char *source,
                       cw_error *err)
{
    cw_health_cronjob *c = malloc(sizeof(*c));
    cw_buf key;
    cw_buf_init(&key);
    if (!c)
        return cw_error_oom(err);
    int rc = cw_health__read_cronjob(obj, c, err);
    if (rc != CW_OK) {
        free(c);
        return rc == CW_ENOMEM ? rc : cw_error_prefix(err, "%s", source);
    }
    if (!c->recurringjob) { /* not one of Longhorn's */
        free_cronjob(c);
        h->ignored++;
        return CW_OK;
    }
    if (keyf(&key, "", ns, c->recurringjob) != CW_OK ||
        replace(&h->cronjobs, cw_buf_str(&key), c, free_cronjob) != CW_OK) {
        free_cronjob(c);
        rc = cw_error_oom(err);
    }
    cw_buf_free(&key);
    return rc;
}

/* Drops the run stored under run key rk (a Job or Backup read before). */
static void drop_run(cw_health *h, const char *rk)
{
    char *gk = cw_strmap_del_s(&h->run_of, rk);
    run_group *g = gk ? cw_strmap_get_s(&h->runs, gk) : NULL;
    const char *name = strrchr(rk, '/') + 1;
    for (size_t i = 0; g && i < g->n; i++)
        if (!strcmp(g->runs[i].name, name)) {
            cw_health_run_free(&g->runs[i]);
            g->runs[i] = g->runs[--g->n];
            break;
        }
    free(gk);
}

static int add_run(cw_health *h, json_object *obj, int job, const char *ns, const char *name,
                   const char *source, cw_error *err)
{
    cw_health_run r;
    int rc = job ? cw_health_run_from_job(obj, &r, err) : cw_health_run_from_backup(obj, &r, err);
    if (rc != CW_OK)
        return rc == CW_ENOMEM ? rc : cw_error_prefix(err, "%s", source);
    cw_buf rk, gk;
    cw_buf_init(&rk);
    cw_buf_init(&gk);
    if (keyf(&rk, job ? "J/" : "B/", ns, name) != CW_OK)
        goto oom;
    drop_run(h, cw_buf_str(&rk));
    if (!r.owner) { /* a Job of no CronJob, a Backup of no schedule */
        h->ignored++;
        goto done;
    }
    if (keyf(&gk, job ? "J/" : "B/", ns, r.owner) != CW_OK)
        goto oom;
    run_group *g = cw_strmap_get_s(&h->runs, cw_buf_str(&gk));
    if (!g) {
        if (!(g = calloc(1, sizeof(*g))) || cw_strmap_set_s(&h->runs, cw_buf_str(&gk), g, NULL)) {
            free(g);
            goto oom;
        }
    }
    if (cw_grow((void **)&g->runs, &g->cap, g->n, sizeof(*g->runs), 8) != CW_OK)
        goto oom;
    char *gcopy = strdup(cw_buf_str(&gk));
    if (!gcopy || cw_strmap_set_s(&h->run_of, cw_buf_str(&rk), gcopy, NULL) != CW_OK) {
        free(gcopy);
        goto oom;
    }
    g->runs[g->n++] = r;
    memset(&r, 0, sizeof(r));
    goto done;
oom:
    rc = cw_error_oom(err);
done:
    cw_health_run_free(&r);
    cw_buf_free(&rk);
    cw_buf_free(&gk);
    return rc;
}

const char *const cw_health_unread[] = {"spec.template.spec", "spec.jobTemplate", NULL};

/* Remembers (or, forget, forgets) which Schedule a hashed velero.io/schedule-name value stands
 * for: its Backups carry the value, not the name. Names short enough to be their own value need
 * no entry. CW_ENOMEM. */
static int schedule_label(cw_health *h, const char *ns, const char *schedule, int forget)
{
    char label[CW_SCHEDULE_LABEL_MAX + 1];
    cw_buf key;
    cw_schedule_label_value(schedule, label, sizeof(label));
    if (!strcmp(label, schedule))
        return CW_OK;
    cw_buf_init(&key);
    int rc = keyf(&key, "", ns, label);
    if (rc == CW_OK && forget)
        free(cw_strmap_del_s(&h->labels, cw_buf_str(&key)));
    else if (rc == CW_OK) {
        char *copy = strdup(schedule);
        void *old = NULL;
        rc = copy ? cw_strmap_set_s(&h->labels, cw_buf_str(&key), copy, &old) : CW_ENOMEM;
        free(rc == CW_OK ? old : copy);
    }
    cw_buf_free(&key);
    return rc;
}

int cw_health_add(cw_health *h, json_object *obj, const char *source, cw_error *err)
{
    const char *kind = cw_json_path_string(obj, "kind");
    const char *api = cw_json_path_string(obj, "apiVersion");
    const char *name = cw_json_path_string(obj, "metadata.name");
    const char *ns = cw_json_path_string(obj, "metadata.namespace");
    if (!kind || !api || !name) {
        h->ignored++;
        return CW_OK;
    }
    if (!ns)
        ns = "";
    const cw_kind *k = cw_kind_of(api, kind, CW_READ_STATUS);
    switch (k ? k->id : CW_KIND_COUNT) {
    case CW_KIND_RECURRINGJOB:
        return add_sched(h, obj, CW_HEALTH_RECURRINGJOB, ns, name, source, err);
    case CW_KIND_SCHEDULE: {
        int rc = add_sched(h, obj, CW_HEALTH_SCHEDULE, ns, name, source, err);
        if (rc == CW_OK && schedule_label(h, ns, name, 0) != CW_OK)
            rc = cw_error_oom(err);
        return rc;
    }
    case CW_KIND_CRONJOB:
        return add_cronjob(h, obj, ns, source, err);
    case CW_KIND_JOB:
        return add_run(h, obj, 1, ns, name, source, err);
    case CW_KIND_BACKUP:
        return add_run(h, obj, 0, ns, name, source, err);
    case CW_KIND_VOLUME:
        return cw_health__add_volume(h, obj, ns, name, source, err);
    case CW_KIND_LHBACKUP:
    case CW_KIND_BACKUPVOLUME:
        return cw_health__add_backup(h, obj, k->id == CW_KIND_BACKUPVOLUME, ns, name, source, err);
    default:
        h->ignored++;
        return CW_OK;
    }
}

void cw_health_remove(cw_health *h, const char *api, const char *kind, const char *ns,
                      const char *name)
{
    cw_buf key;
    cw_buf_init(&key);
    const cw_kind *k = cw_kind_of_group(api, kind, CW_READ_STATUS);
    cw_kind_id id = k ? k->id : CW_KIND_COUNT;
    /* the model's key of each kind (keyf) */
    const char *prefix = id == CW_KIND_RECURRINGJOB   ? "R/"
                         : id == CW_KIND_SCHEDULE     ? "S/"
                         : id == CW_KIND_JOB          ? "J/"
                         : id == CW_KIND_BACKUP       ? "B/"
                         : id == CW_KIND_LHBACKUP     ? "L/"
                         : id == CW_KIND_BACKUPVOLUME ? "V/"
                                                      : "";
    if (keyf(&key, prefix, ns, name) != CW_OK)
        goto done;
    if (id == CW_KIND_RECURRINGJOB || id == CW_KIND_SCHEDULE)
        free_sched(cw_strmap_del_s(&h->scheds, cw_buf_str(&key)));
    if (id == CW_KIND_SCHEDULE)
        (void)schedule_label(h, ns, name, 1); /* forgetting allocates nothing */
    else if (id == CW_KIND_JOB || id == CW_KIND_BACKUP)
        drop_run(h, cw_buf_str(&key));
    else if (*prefix)
        free_backup(cw_strmap_del_s(&h->backups, cw_buf_str(&key)));
    else if (id == CW_KIND_VOLUME)
        cw_health__volume_free(h, cw_strmap_del_s(&h->volumes, cw_buf_str(&key)));
    else if (id == CW_KIND_CRONJOB) {
        /* stored under its RecurringJob's name, which is its own in Longhorn */
        cw_health_cronjob *c = cw_strmap_get_s(&h->cronjobs, cw_buf_str(&key));
        if (c && c->name && !strcmp(c->name, name))
            free_cronjob(cw_strmap_del_s(&h->cronjobs, cw_buf_str(&key)));
    }
done:
    cw_buf_free(&key);
}

/* The schedule stored under kind/ns/name with its CronJob applied (s borrows from the store) and
 * its run group. */
static int lookup(cw_health *h, const cw_health_sched *stored, cw_health_sched *s, run_group **g)
{
    cw_buf key;
    cw_buf_init(&key);
    *s = *stored;
    *g = NULL;
    int rc = CW_OK;
    if (stored->kind == CW_HEALTH_RECURRINGJOB) {
        if ((rc = keyf(&key, "", stored->namespace, stored->name)) != CW_OK)
            goto done;
        cw_health_cronjob *c = cw_strmap_get_s(&h->cronjobs, cw_buf_str(&key));
        if (c)
            cw_health__apply_cronjob(s, c);
        rc = keyf(&key, "J/", stored->namespace, c && c->name ? c->name : stored->name);
    } else {
        char label[CW_SCHEDULE_LABEL_MAX + 1];
        cw_schedule_label_value(stored->name, label, sizeof(label));
        rc = keyf(&key, "B/", stored->namespace, label);
    }
    if (rc == CW_OK)
        *g = cw_strmap_get_s(&h->runs, cw_buf_str(&key));
done:
    cw_buf_free(&key);
    return rc;
}

static int eval_stored(cw_health *h, const cw_health_sched *stored, cw_health_result *out,
                       cw_error *err)
{
    cw_health_sched s;
    run_group *g;
    if (lookup(h, stored, &s, &g) != CW_OK)
        return cw_error_oom(err);
    return cw_health_eval(&h->cfg, &s, g ? g->runs : NULL, g ? g->n : 0, out, err);
}

int cw_health_run_owner(const cw_health *h, cw_health_run_kind kind, const char *ns,
                        const char *name, char *out, size_t len)
{
    cw_buf rk;
    const char *prefix = kind == CW_HEALTH_RUN_JOB ? "J/" : "B/";
    cw_buf_init(&rk);
    const char *gk =
        keyf(&rk, prefix, ns, name) == CW_OK ? cw_strmap_get_s(&h->run_of, cw_buf_str(&rk)) : NULL;
    size_t skip = strlen(prefix) + strlen(ns) + 1; /* the group's key: "J/<ns>/<owner>" */
    const char *owner = gk && strlen(gk) > skip ? gk + skip : NULL;
    if (owner && kind == CW_HEALTH_RUN_BACKUP) { /* a label value: the Schedule's name */
        const char *sched = cw_strmap_get_s(&h->labels, gk + strlen(prefix));
        owner = sched ? sched : owner;
    }
    int found = owner && snprintf(out, len, "%s", owner) < (int)len;
    cw_buf_free(&rk);
    return found;
}

int cw_health_eval_one(cw_health *h, cw_health_kind kind, const char *ns, const char *name,
                       int64_t now, cw_health_result *out, cw_error *err)
{
    cw_buf key;
    h->cfg.now = now;
    cw_buf_init(&key);
    if (keyf(&key, kind == CW_HEALTH_RECURRINGJOB ? "R/" : "S/", ns, name) != CW_OK) {
        cw_buf_free(&key);
        return cw_error_oom(err);
    }
    cw_health_sched *stored = cw_strmap_get_s(&h->scheds, cw_buf_str(&key));
    cw_buf_free(&key);
    if (!stored)
        return cw_error_set(err, CW_ENOTFOUND, "%s %s/%s: not known",
                            kind == CW_HEALTH_RECURRINGJOB ? "RecurringJob" : "Schedule", ns, name);
    return eval_stored(h, stored, out, err);
}

typedef struct {
    cw_health_sched_result *r;
    size_t n;
} collect_ctx;

static int collect_cb(void *ud, const char *key, void *value)
{
    collect_ctx *c = ud;
    (void)key;
    c->r[c->n++].sched = value;
    return 0;
}

static int by_identity(const void *a, const void *b)
{
    const cw_health_sched *x = ((const cw_health_sched_result *)a)->sched;
    const cw_health_sched *y = ((const cw_health_sched_result *)b)->sched;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    int c = strcmp(x->namespace, y->namespace);
    return c ? c : strcmp(x->name, y->name);
}

int cw_health_eval_all(cw_health *h, int with_volumes, cw_error *err)
{
    free_results(h);
    h->unhealthy = 0;
    collect_ctx c = {calloc(h->scheds.len ? h->scheds.len : 1, sizeof(*c.r)), 0};
    if (!c.r)
        return cw_error_oom(err);
    cw_strmap_walk(&h->scheds, collect_cb, &c);
    qsort(c.r, c.n, sizeof(*c.r), by_identity);
    h->results = c.r;
    for (size_t i = 0; i < c.n; i++) {
        int rc = eval_stored(h, c.r[i].sched, &c.r[i].result, err);
        if (rc != CW_OK)
            return rc;
        h->nresults = i + 1;
        h->unhealthy += !c.r[i].result.healthy;
    }
    return cw_health__volumes(h, with_volumes, err);
}
