/* Volumes: which backup jobs apply to each (longhorn/volume's selectors against the RecurringJobs'
 * names and groups), its last successful backup (backups.longhorn.io, backupvolumes.longhorn.io),
 * and the verdicts: unprotected (no backup job applies) and stale (no successful backup within
 * twice the shortest interval of its jobs). Volumes are grouped by the set of selectors they
 * carry, so jobs are resolved once per set and namespace, not once per volume. */
#include "schedules/internal.h"

#include <stdlib.h>
#include <string.h>

#include "longhorn/volume.h"
#include "lib/grow.h"
#include "lib/json.h"

#define BACKUP_VOLUME_LABEL "backup-volume"

typedef struct sig_entry {
    char *sig;
    size_t refs;
} sig_entry;

/* The shared copy of a signature, counted. */
static const char *intern(cw_health *h, const char *sig)
{
    sig_entry *e = cw_strmap_get_s(&h->sigs, sig);
    if (e) {
        e->refs++;
        return e->sig;
    }
    if (!(e = malloc(sizeof(*e))) || !(e->sig = strdup(sig))) {
        free(e);
        return NULL;
    }
    e->refs = 1;
    if (cw_strmap_set_s(&h->sigs, sig, e, NULL) != CW_OK) {
        free(e->sig);
        free(e);
        return NULL;
    }
    return e->sig;
}

static void release(cw_health *h, const char *sig)
{
    sig_entry *e = sig ? cw_strmap_get_s(&h->sigs, sig) : NULL;
    if (e && --e->refs == 0) {
        cw_strmap_del_s(&h->sigs, sig);
        free(e->sig);
        free(e);
    }
}

void cw_health__volume_free(cw_health *h, cw_health_volume *v)
{
    if (!v)
        return;
    release(h, v->sig);
    free(v->namespace);
    free(v->name);
    free(v->legacy);
    free(v);
}

static int is_backup_task(const char *task)
{
    return task && (!strcmp(task, "backup") || !strcmp(task, "backup-force-create"));
}

/* Legacy spec.recurringJobs (Longhorn < 1.2) of a backup task: "<cron>\n" each. */
static int legacy_backups(json_object *legacy, char **out)
{
    cw_buf b;
    cw_buf_init(&b);
    for (size_t i = 0;
         json_object_is_type(legacy, json_type_array) && i < json_object_array_length(legacy);
         i++) {
        json_object *job = json_object_array_get_idx(legacy, i);
        const char *cron = cw_json_path_string(job, "cron");
        if (is_backup_task(cw_json_path_string(job, "task")) && cron && !strchr(cron, '\n'))
            cw_buf_printf(&b, "%s\n", cron);
    }
    *out = NULL;
    int rc = cw_buf_error(&b);
    if (rc == CW_OK && b.len && !(*out = cw_buf_detach(&b)))
        rc = CW_ENOMEM;
    cw_buf_free(&b);
    return rc;
}

int cw_health__add_volume(cw_health *h, json_object *obj, const char *ns, const char *name,
                          const char *source, cw_error *err)
{
    json_object *labels = cw_json_path(obj, "metadata.labels");
    json_object *legacy = cw_json_path(obj, "spec.recurringJobs");
    if (labels && !json_object_is_type(labels, json_type_object))
        return cw_error_set(err, CW_EINVAL, "%s: metadata.labels: expected object, got %s", source,
                            cw_json_type_name(labels));
    if (legacy && !json_object_is_type(legacy, json_type_array))
        return cw_error_set(err, CW_EINVAL, "%s: spec.recurringJobs: expected array, got %s",
                            source, cw_json_type_name(legacy));
    cw_health_volume *v = calloc(1, sizeof(*v));
    cw_strlist sel;
    cw_buf sig, key;
    cw_strlist_init(&sel);
    cw_buf_init(&sig);
    cw_buf_init(&key);
    int rc = CW_ENOMEM;
    if (!v || !(v->namespace = strdup(ns)) || !(v->name = strdup(name)) ||
        cw_volume_selectors(labels, cw_volume_has_legacy_jobs(obj), h->cfg.default_group, &sel) !=
            CW_OK ||
        legacy_backups(legacy, &v->legacy) != CW_OK)
        goto done;
    for (size_t i = 0; i < sel.len; i++)
        cw_buf_printf(&sig, "%s\n", sel.items[i]);
    if (cw_buf_error(&sig) || !(v->sig = intern(h, cw_buf_str(&sig))) ||
        cw_buf_printf(&key, "%s/%s", ns, name) != CW_OK)
        goto done;
    if ((rc = cw_health__time(cw_json_member(obj, "metadata"), "metadata", "creationTimestamp",
                              &v->created, err)) != CW_OK) {
        rc = cw_error_prefix(err, "%s", source);
        goto done;
    }
    cw_health_volume *old = NULL;
    if (cw_strmap_set_s(&h->volumes, cw_buf_str(&key), v, (void **)&old) != CW_OK)
        goto done;
    cw_health__volume_free(h, old);
    v = NULL;
    rc = CW_OK;
done:
    if (rc == CW_ENOMEM)
        cw_error_oom(err);
    cw_health__volume_free(h, v);
    cw_strlist_free(&sel);
    cw_buf_free(&sig);
    cw_buf_free(&key);
    return rc;
}

/* A Longhorn Backup: its volume (status.volumeName, else the backup-volume label) and, when
 * Completed, when (backupCreatedAt: the upload finished; else snapshotCreatedAt). A BackupVolume:
 * its volume (spec.volumeName from Longhorn 1.8, else the label, else its name up to 1.7) and
 * status.lastBackupAt. */
int cw_health__add_backup(cw_health *h, json_object *obj, int bv, const char *ns, const char *name,
                          const char *source, cw_error *err)
{
    json_object *status = cw_json_member(obj, "status");
    const char *label = cw_health__key(cw_json_path(obj, "metadata.labels"), BACKUP_VOLUME_LABEL);
    const char *vol = cw_json_path_string(bv ? cw_json_member(obj, "spec") : status,
                                          bv ? "volumeName" : "volumeName");
    const char *state = cw_json_path_string(status, "state");
    int64_t at = CW_HEALTH_NONE;
    int rc;
    if (!vol || !*vol)
        vol = label && *label ? label : bv ? name : NULL;
    if (bv)
        rc = cw_health__time(status, "status", "lastBackupAt", &at, err);
    else if (state && !strcmp(state, "Completed") &&
             (rc = cw_health__time(status, "status", "backupCreatedAt", &at, err)) == CW_OK &&
             at == CW_HEALTH_NONE)
        rc = cw_health__time(status, "status", "snapshotCreatedAt", &at, err);
    else
        rc = CW_OK;
    if (rc != CW_OK)
        return cw_error_prefix(err, "%s", source);
    cw_buf key;
    cw_buf_init(&key);
    cw_health_backup *b = calloc(1, sizeof(*b));
    void *old = NULL;
    if (!vol) {
        h->ignored++;
        free(b);
        return CW_OK;
    }
    if (!b || cw_buf_printf(&key, "%s/%s", ns, vol) != CW_OK ||
        !(b->volume = cw_buf_detach(&key)) ||
        cw_buf_printf(&key, "%s%s/%s", bv ? "V/" : "L/", ns, name) != CW_OK ||
        cw_strmap_set_s(&h->backups, cw_buf_str(&key), b, &old) != CW_OK) {
        if (b)
            free(b->volume);
        free(b);
        cw_buf_free(&key);
        return cw_error_oom(err);
    }
    b->at = at;
    if (old) {
        free(((cw_health_backup *)old)->volume);
        free(old);
    }
    cw_buf_free(&key);
    return CW_OK;
}

/* ---- judging ---- */

typedef struct job_entry {
    const char *name;
    int64_t interval; /* NONE: the job never fires (invalid cron): it protects nothing */
} job_entry;

typedef struct group_entry {
    job_entry **jobs;
    size_t n, cap;
} group_entry;

/* The jobs and via of one selector set in one namespace. */
typedef struct sig_result {
    cw_strlist jobs, via;
    int64_t interval;
} sig_result;

typedef struct judge_ctx {
    cw_health *h;
    cw_strmap jobs;   /* "<ns>/<job>" -> job_entry (backup tasks only) */
    cw_strmap groups; /* "<ns>/<group>" -> group_entry */
    cw_strmap last;   /* "<ns>/<volume>" -> int64_t * */
    int rc;
} judge_ctx;

static void free_group_entry(void *v)
{
    group_entry *g = v;
    if (g)
        free(g->jobs);
    free(g);
}

static void free_sig_result(void *v)
{
    sig_result *r = v;
    if (!r)
        return;
    cw_strlist_free(&r->jobs);
    cw_strlist_free(&r->via);
    free(r);
}

/* The interval between a cron's last two fire times (an @every schedule: its delay). */
static int64_t job_interval(const cw_health_config *cfg, const cw_health_sched *s)
{
    cw_health_cron c;
    cw_error err;
    if (cw_health__parse(cfg, s, &c, &err) != CW_OK)
        return CW_HEALTH_NONE;
    if (c.every)
        return c.parsed.every;
    int64_t last, prev, n1, n2;
    cw_health__last_two(&c, cfg->now, &last, &prev);
    if (prev != CW_HEALTH_NONE)
        return last - prev;
    if (cw_cron_next(&c.parsed, cfg->now, c.offset, &n1) &&
        cw_cron_next(&c.parsed, n1, c.offset, &n2))
        return n2 - n1;
    return CW_HEALTH_NONE;
}

static int add_job_cb(void *ud, const char *key, void *value)
{
    judge_ctx *c = ud;
    const cw_health_sched *s = value;
    (void)key;
    if (s->kind != CW_HEALTH_RECURRINGJOB || !is_backup_task(s->task))
        return 0;
    job_entry *j = malloc(sizeof(*j));
    cw_buf k;
    cw_buf_init(&k);
    if (!j || cw_buf_printf(&k, "%s/%s", s->namespace, s->name) != CW_OK ||
        cw_strmap_set_s(&c->jobs, cw_buf_str(&k), j, NULL) != CW_OK) {
        free(j);
        goto oom;
    }
    *j = (job_entry){s->name, job_interval(&c->h->cfg, s)};
    for (size_t i = 0; i < s->groups.len; i++) {
        cw_buf_reset(&k);
        if (cw_buf_printf(&k, "%s/%s", s->namespace, s->groups.items[i]) != CW_OK)
            goto oom;
        group_entry *g = cw_strmap_get_s(&c->groups, cw_buf_str(&k));
        if (!g && (!(g = calloc(1, sizeof(*g))) ||
                   cw_strmap_set_s(&c->groups, cw_buf_str(&k), g, NULL) != CW_OK)) {
            free(g);
            goto oom;
        }
        if (cw_grow((void **)&g->jobs, &g->cap, g->n, sizeof(*g->jobs), 4) != CW_OK)
            goto oom;
        size_t at = g->n++; /* by name: reports do not depend on the map's order */
        while (at > 0 && strcmp(g->jobs[at - 1]->name, j->name) > 0) {
            g->jobs[at] = g->jobs[at - 1];
            at--;
        }
        g->jobs[at] = j;
    }
    cw_buf_free(&k);
    return 0;
oom:
    cw_buf_free(&k);
    c->rc = CW_ENOMEM;
    return 1;
}

static int last_cb(void *ud, const char *key, void *value)
{
    judge_ctx *c = ud;
    const cw_health_backup *b = value;
    (void)key;
    if (b->at == CW_HEALTH_NONE)
        return 0;
    int64_t *t = cw_strmap_get_s(&c->last, b->volume);
    if (t) {
        *t = *t > b->at ? *t : b->at;
        return 0;
    }
    if (!(t = malloc(sizeof(*t))) || cw_strmap_set_s(&c->last, b->volume, t, NULL) != CW_OK) {
        free(t);
        c->rc = CW_ENOMEM;
        return 1;
    }
    *t = b->at;
    return 0;
}

static int take_job(sig_result *r, const job_entry *j, const char *via)
{
    if (j->interval == CW_HEALTH_NONE)
        return CW_OK;
    for (size_t i = 0; i < r->jobs.len; i++)
        if (!strcmp(r->jobs.items[i], j->name))
            return CW_OK; /* selected twice: runs once */
    if (r->interval == CW_HEALTH_NONE || j->interval < r->interval)
        r->interval = j->interval;
    if (cw_strlist_add(&r->jobs, j->name) != CW_OK || cw_strlist_add(&r->via, via) != CW_OK)
        return CW_ENOMEM;
    return CW_OK;
}

/* The backup jobs a selector set (and legacy crons) selects in ns. */
static sig_result *resolve(judge_ctx *c, const cw_health_volume *v)
{
    cw_buf key;
    cw_buf_init(&key);
    if (cw_buf_printf(&key, "%s\n%s%s", v->namespace, v->sig, v->legacy ? v->legacy : "")) {
        cw_buf_free(&key);
        return NULL;
    }
    sig_result *r = cw_strmap_get_s(&c->h->sigcache, cw_buf_str(&key));
    if (r) {
        cw_buf_free(&key);
        return r;
    }
    if (!(r = calloc(1, sizeof(*r))))
        goto fail;
    cw_strlist_init(&r->jobs);
    cw_strlist_init(&r->via);
    r->interval = CW_HEALTH_NONE;
    cw_buf sel, name;
    cw_buf_init(&sel);
    cw_buf_init(&name);
    int rc = CW_OK;
    for (const char *p = v->sig; rc == CW_OK && *p;) {
        const char *nl = strchr(p, '\n');
        cw_buf_reset(&sel);
        if ((rc = cw_buf_printf(&sel, "%s/%.*s", v->namespace, (int)(nl - p - 2), p + 2)))
            break;
        if (p[0] == 'j') {
            job_entry *j = cw_strmap_get_s(&c->jobs, cw_buf_str(&sel));
            rc = j ? take_job(r, j, "label") : CW_OK;
        } else {
            group_entry *g = cw_strmap_get_s(&c->groups, cw_buf_str(&sel));
            cw_buf_reset(&name);
            rc = cw_buf_printf(&name, "group %.*s", (int)(nl - p - 2), p + 2);
            for (size_t i = 0; rc == CW_OK && g && i < g->n; i++)
                rc = take_job(r, g->jobs[i], cw_buf_str(&name));
        }
        p = nl + 1;
    }
    for (const char *p = v->legacy; rc == CW_OK && p && *p;) { /* Longhorn < 1.2 */
        const char *nl = strchr(p, '\n');
        cw_health_sched s;
        cw_health_sched_init(&s);
        cw_buf_reset(&name);
        if ((rc = cw_buf_printf(&name, "%.*s", (int)(nl - p), p)) == CW_OK) {
            s.cron = name.data;
            job_entry j = {NULL, job_interval(&c->h->cfg, &s)};
            cw_buf_reset(&sel);
            if ((rc = cw_buf_printf(&sel, "legacy '%s'", name.data)) == CW_OK) {
                j.name = cw_buf_str(&sel);
                rc = take_job(r, &j, "legacy");
            }
        }
        p = nl + 1;
    }
    cw_buf_free(&sel);
    cw_buf_free(&name);
    if (rc != CW_OK || cw_strmap_set_s(&c->h->sigcache, cw_buf_str(&key), r, NULL) != CW_OK)
        goto fail;
    cw_buf_free(&key);
    return r;
fail:
    free_sig_result(r);
    cw_buf_free(&key);
    return NULL;
}

void cw_health__volume_results_free(cw_health *h)
{
    free(h->vols);
    h->vols = NULL;
    h->nvols = 0;
    cw_strmap_free(&h->sigcache, free_sig_result);
    cw_strmap_init(&h->sigcache);
    h->unprotected = h->stale = 0;
}

void cw_health_counts_free(cw_health_ns_count *counts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(counts[i].namespace);
    free(counts);
}

typedef struct volume_walk {
    judge_ctx *c;
    cw_health_volume_result *out; /* NULL: counts only */
    size_t n;
    cw_strmap ns; /* "<ns>" -> index + 1 into counts */
    cw_health_ns_count *counts;
    size_t ncounts, capcounts;
} volume_walk;

static cw_health_ns_count *count_of(volume_walk *w, const char *ns)
{
    void *idx = NULL;
    if (cw_strmap_get(&w->ns, ns, strlen(ns), &idx))
        return &w->counts[(uintptr_t)idx - 1];
    if (cw_grow((void **)&w->counts, &w->capcounts, w->ncounts, sizeof(*w->counts), 4) != CW_OK)
        return NULL;
    cw_health_ns_count *e = &w->counts[w->ncounts];
    *e = (cw_health_ns_count){strdup(ns), 0, 0, 0};
    if (!e->namespace ||
        cw_strmap_set(&w->ns, ns, strlen(ns), (void *)(uintptr_t)(w->ncounts + 1), NULL)) {
        free(e->namespace);
        return NULL;
    }
    w->ncounts++;
    return e;
}

static int volume_cb(void *ud, const char *key, void *value)
{
    volume_walk *w = ud;
    const cw_health_volume *v = value;
    sig_result *r = resolve(w->c, v);
    cw_health_ns_count *cnt = r ? count_of(w, v->namespace) : NULL;
    if (!cnt) {
        w->c->rc = CW_ENOMEM;
        return 1;
    }
    const int64_t *last = cw_strmap_get_s(&w->c->last, key);
    cw_health_volume_result res = {.namespace = v->namespace,
                                   .name = v->name,
                                   .jobs = &r->jobs,
                                   .via = &r->via,
                                   .last_backup = last ? *last : CW_HEALTH_NONE,
                                   .interval = r->interval,
                                   .created = v->created};
    int64_t since = res.last_backup != CW_HEALTH_NONE ? res.last_backup : v->created;
    res.never = res.last_backup == CW_HEALTH_NONE;
    res.unprotected = r->jobs.len == 0;
    res.stale =
        !res.unprotected && (since == CW_HEALTH_NONE || w->c->h->cfg.now - since > 2 * r->interval);
    cnt->volumes++;
    cnt->unprotected += res.unprotected;
    cnt->stale += res.stale;
    if (w->out)
        w->out[w->n++] = res;
    return 0;
}

static int by_volume(const void *a, const void *b)
{
    const cw_health_volume_result *x = a, *y = b;
    int c = strcmp(x->namespace, y->namespace);
    return c ? c : strcmp(x->name, y->name);
}

static int by_ns(const void *a, const void *b)
{
    return strcmp(((const cw_health_ns_count *)a)->namespace,
                  ((const cw_health_ns_count *)b)->namespace);
}

/* Judges every volume: counts per namespace into *counts, and the results into h->vols when
 * keep. */
static int judge(cw_health *h, int keep, cw_health_ns_count **counts, size_t *ncounts,
                 cw_error *err)
{
    judge_ctx c = {.h = h};
    volume_walk w = {.c = &c};
    cw_strmap_init(&c.jobs);
    cw_strmap_init(&c.groups);
    cw_strmap_init(&c.last);
    cw_strmap_init(&w.ns);
    cw_health__volume_results_free(h);
    if (keep && h->volumes.len && !(w.out = calloc(h->volumes.len, sizeof(*w.out))))
        c.rc = CW_ENOMEM;
    if (c.rc == CW_OK)
        cw_strmap_walk(&h->scheds, add_job_cb, &c);
    if (c.rc == CW_OK)
        cw_strmap_walk(&h->backups, last_cb, &c);
    if (c.rc == CW_OK)
        cw_strmap_walk(&h->volumes, volume_cb, &w);
    cw_strmap_free(&c.jobs, free);
    cw_strmap_free(&c.groups, free_group_entry);
    cw_strmap_free(&c.last, free);
    cw_strmap_free(&w.ns, NULL);
    if (c.rc != CW_OK) {
        free(w.out);
        cw_health_counts_free(w.counts, w.ncounts);
        return cw_error_oom(err);
    }
    if (w.out)
        qsort(w.out, w.n, sizeof(*w.out), by_volume);
    if (w.ncounts > 1)
        qsort(w.counts, w.ncounts, sizeof(*w.counts), by_ns);
    h->vols = w.out;
    h->nvols = w.n;
    for (size_t i = 0; i < w.ncounts; i++) {
        h->unprotected += w.counts[i].unprotected;
        h->stale += w.counts[i].stale;
    }
    *counts = w.counts;
    *ncounts = w.ncounts;
    return CW_OK;
}

int cw_health__volumes(cw_health *h, int keep, cw_error *err)
{
    return judge(h, keep, &h->counts, &h->ncounts, err);
}

int cw_health_volume_counts(cw_health *h, int64_t now, cw_health_ns_count **counts, size_t *n,
                            cw_error *err)
{
    h->cfg.now = now;
    int rc = judge(h, 0, counts, n, err);
    cw_health__volume_results_free(h); /* the counts are the caller's now; h keeps no results */
    return rc;
}
