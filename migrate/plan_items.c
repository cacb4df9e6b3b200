/* The planner's items in the item store: one record per item (its encoding below), lookups by
 * the hash of "kind/namespace/name", and the report orders sorted outside memory. */
#include "migrate/plan_items.h"
#include "lib/grow.h"

#include <stdlib.h>
#include <string.h>

/* Entry tags: the kinds in the order of their names (the report sorts by kind name). */
enum { TAG_CONFIGMAP = 0, TAG_STORAGECLASS = 1, TAG_VOLUME = 2 };
static const char *const kinds[] = {"ConfigMap", "StorageClass", "Volume"};

/* Entry flags. */
#define F_COUNTED 1 /* the item's refs count among their jobs' sources */
#define F_MSG     2 /* the record holds a result message */

/* Bytes of sort keys sorted in memory at once; more go to sorted runs in the item file. */
#define SORT_CHUNK (1u << 20)
/* Indices read or written per call when walking an order in the file. */
#define IDX_BATCH 4096

/* The plan's store: lookups and reads do not change the plan, but they take its mutex. */
static cw_itemstore *store(const cw_plan *p)
{
    return (cw_itemstore *)&p->store;
}

static int kind_tag(const char *kind)
{
    for (int t = 0; t < 3; t++)
        if (strcmp(kinds[t], kind) == 0)
            return t;
    return -1;
}

/* ---- the record: namespace and name first (sort keys and lookups read only those) ---- */

static int put_u32(cw_buf *b, uint32_t v)
{
    return cw_buf_append(b, &v, sizeof(v));
}

static int put_str(cw_buf *b, const char *s)
{
    size_t n = strlen(s);
    int rc = put_u32(b, (uint32_t)n);
    return rc != CW_OK ? rc : cw_buf_append(b, s, n + 1);
}

static int put_opt(cw_buf *b, const char *s)
{
    int rc = cw_buf_putc(b, s ? 1 : 0);
    return rc != CW_OK || !s ? rc : put_str(b, s);
}

static int put_list(cw_buf *b, const cw_strlist *l)
{
    int rc = put_u32(b, (uint32_t)l->len);
    for (size_t i = 0; i < l->len && rc == CW_OK; i++)
        rc = put_str(b, l->items[i]);
    return rc;
}

static int encode(const cw_plan_item *it, cw_buf *b)
{
    int rc = CW_OK;
    const char *strs[] = {it->namespace, it->name, it->resource_version, it->api_version,
                          it->source};
    for (size_t i = 0; i < 5 && rc == CW_OK; i++)
        rc = put_str(b, strs[i] ? strs[i] : "");
    if (rc == CW_OK)
        rc = cw_buf_putc(b, (char)it->has_legacy);
    if (rc == CW_OK)
        rc = cw_buf_putc(b, (char)it->any_job_label);
    if (rc == CW_OK)
        rc = put_u32(b, (uint32_t)it->nrefs);
    for (size_t r = 0; r < it->nrefs && rc == CW_OK; r++) {
        rc = put_u32(b, (uint32_t)it->refs[r].job);
        if (rc == CW_OK)
            rc = put_str(b, it->refs[r].legacy_name);
    }
    if (rc == CW_OK)
        rc = put_list(b, &it->problems);
    if (rc == CW_OK)
        rc = put_list(b, &it->present);
    if (rc == CW_OK)
        rc = put_opt(b, it->selector);
    if (rc == CW_OK)
        rc = put_opt(b, it->reason);
    if (rc == CW_OK)
        rc = put_list(b, &it->add_labels);
    if (rc == CW_OK)
        rc = put_opt(b, it->new_selector);
    if (rc == CW_OK)
        rc = put_opt(b, it->result_msg);
    return rc;
}

/* A cursor over a record; `bad` once it ran past the end (a record this file did not write). */
typedef struct {
    char *at, *end;
    int bad;
} reader;

static uint32_t get_u32(reader *r)
{
    uint32_t v = 0;
    if (r->bad || (size_t)(r->end - r->at) < sizeof(v)) {
        r->bad = 1;
        return 0;
    }
    memcpy(&v, r->at, sizeof(v));
    r->at += sizeof(v);
    return v;
}

static int get_byte(reader *r)
{
    if (r->bad || r->at >= r->end) {
        r->bad = 1;
        return 0;
    }
    return (unsigned char)*r->at++;
}

/* A string of the record, NUL-terminated in place. */
static const char *get_str(reader *r)
{
    uint32_t n = get_u32(r);
    if (r->bad || (size_t)(r->end - r->at) <= n) {
        r->bad = 1;
        return "";
    }
    const char *s = r->at;
    r->at += n + 1;
    return s;
}

static int get_opt(reader *r, char **out)
{
    *out = NULL;
    if (!get_byte(r))
        return CW_OK;
    const char *s = get_str(r);
    if (r->bad)
        return CW_OK;
    return (*out = strdup(s)) ? CW_OK : CW_ENOMEM;
}

static int get_list(reader *r, cw_strlist *l)
{
    uint32_t n = get_u32(r);
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        const char *s = get_str(r);
        if (!r->bad && cw_strlist_add(l, s) != CW_OK)
            return CW_ENOMEM;
    }
    return CW_OK;
}

static int decode_refs(reader *r, cw_plan_item *it)
{
    uint32_t n = get_u32(r);
    if (r->bad || n > (size_t)(r->end - r->at) / 8) {
        r->bad = 1;
        return CW_OK;
    }
    if (n && !(it->refs = calloc(n, sizeof(*it->refs))))
        return CW_ENOMEM;
    for (; it->nrefs < n && !r->bad; it->nrefs++) {
        it->refs[it->nrefs].job = get_u32(r);
        if (!(it->refs[it->nrefs].legacy_name = strdup(get_str(r))))
            return CW_ENOMEM;
    }
    return CW_OK;
}

/* The record in `rec` becomes the item's string block (it->strings). */
static int decode(cw_buf *rec, cw_plan_item *it)
{
    reader r = {rec->data, rec->data + rec->len, 0};
    if (!(it->strings = cw_buf_detach(rec)))
        return CW_ENOMEM;
    it->namespace = get_str(&r);
    it->name = get_str(&r);
    it->resource_version = get_str(&r);
    it->api_version = get_str(&r);
    it->source = get_str(&r);
    it->has_legacy = get_byte(&r);
    it->any_job_label = get_byte(&r);
    int rc = decode_refs(&r, it);
    if (rc == CW_OK)
        rc = get_list(&r, &it->problems);
    if (rc == CW_OK)
        rc = get_list(&r, &it->present);
    if (rc == CW_OK)
        rc = get_opt(&r, &it->selector);
    if (rc == CW_OK)
        rc = get_opt(&r, &it->reason);
    if (rc == CW_OK)
        rc = get_list(&r, &it->add_labels);
    if (rc == CW_OK)
        rc = get_opt(&r, &it->new_selector);
    if (rc == CW_OK)
        rc = get_opt(&r, &it->result_msg);
    if (rc == CW_OK && r.bad)
        rc = CW_EIO;
    return rc;
}

/* ---- items ---- */

static uint64_t key_hash(const char *kind, const char *ns, const char *name)
{
    cw_buf key;
    cw_buf_init(&key);
    uint64_t h = 0;
    if (cw_buf_printf(&key, "%s/%s/%s", kind, ns ? ns : "", name) == CW_OK)
        h = cw_itemstore_hash(key.data, key.len);
    cw_buf_free(&key);
    return h;
}

int cw_plan_item_append(cw_plan *p, const cw_plan_item *it, int counted, cw_error *err)
{
    cw_buf rec;
    cw_buf_init(&rec);
    int tag = kind_tag(it->kind);
    int rc = encode(it, &rec);
    if (rc != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    uint64_t h = key_hash(it->kind, it->namespace, it->name);
    if ((rc = cw_itemstore_add(&p->store, h, (uint8_t)tag, rec.data, rec.len, err)) != CW_OK)
        goto done;
    cw_itemstore_set_tags(&p->store, p->nitems, (uint8_t)it->action, (uint8_t)it->result,
                          (uint8_t)((counted ? F_COUNTED : 0) | (it->result_msg ? F_MSG : 0)));
    p->nitems++;
done:
    cw_buf_free(&rec);
    return rc;
}

int cw_plan_item_counted(const cw_plan *p, size_t i)
{
    return (cw_itemstore_entry_at(store(p), i).flags & F_COUNTED) != 0;
}

int cw_plan_item_load(const cw_plan *p, size_t i, cw_plan_item *it, cw_error *err)
{
    cw_buf rec;
    cw_buf_init(&rec);
    memset(it, 0, sizeof(*it));
    cw_itemstore_entry e = cw_itemstore_entry_at(store(p), i);
    int rc = cw_itemstore_get(store(p), i, &rec, err);
    if (rc != CW_OK)
        goto done;
    it->kind = kinds[e.tag < 3 ? e.tag : TAG_VOLUME];
    it->action = (cw_plan_action)e.action;
    it->result = (cw_plan_result)e.result;
    if ((rc = decode(&rec, it)) == CW_ENOMEM)
        rc = cw_error_oom(err);
    else if (rc != CW_OK)
        rc = cw_error_set(err, CW_EIO, "the plan's item file in %s: item %zu is damaged",
                          p->store.dir, i);
done:
    cw_buf_free(&rec);
    if (rc != CW_OK)
        cw_plan_item_free(it);
    return rc;
}

int cw_plan_item_store(cw_plan *p, size_t i, const cw_plan_item *it, cw_error *err)
{
    cw_buf rec;
    cw_buf_init(&rec);
    int rc = encode(it, &rec);
    if (rc != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    if ((rc = cw_itemstore_put(&p->store, i, rec.data, rec.len, err)) != CW_OK)
        goto done;
    uint8_t counted = cw_itemstore_entry_at(&p->store, i).flags & F_COUNTED;
    cw_itemstore_set_tags(&p->store, i, (uint8_t)it->action, (uint8_t)it->result,
                          (uint8_t)(counted | (it->result_msg ? F_MSG : 0)));
done:
    cw_buf_free(&rec);
    return rc;
}

const char *cw_plan_item_kind(const cw_plan *p, size_t i)
{
    uint8_t tag = cw_itemstore_entry_at(store(p), i).tag;
    return kinds[tag < 3 ? tag : TAG_VOLUME];
}

cw_plan_action cw_plan_item_action(const cw_plan *p, size_t i)
{
    return (cw_plan_action)cw_itemstore_entry_at(store(p), i).action;
}

cw_plan_result cw_plan_item_result(const cw_plan *p, size_t i)
{
    return (cw_plan_result)cw_itemstore_entry_at(store(p), i).result;
}

int cw_plan_item_set_result(cw_plan *p, size_t i, cw_plan_result r, const char *msg, cw_error *err)
{
    cw_itemstore_entry e = cw_itemstore_entry_at(&p->store, i);
    /* No message before or after: the entry alone changes, the record is not rewritten. */
    if (!msg && !(e.flags & F_MSG)) {
        cw_itemstore_set_tags(&p->store, i, e.action, (uint8_t)r, e.flags);
        return CW_OK;
    }
    cw_plan_item it;
    int rc = cw_plan_item_load(p, i, &it, err);
    if (rc != CW_OK)
        return rc;
    if (cw_plan_set_result(&it.result, &it.result_msg, r, msg) != CW_OK)
        rc = cw_error_oom(err);
    else
        rc = cw_plan_item_store(p, i, &it, err);
    cw_plan_item_free(&it);
    return rc;
}

/* The namespace and name of record i (pointers into rec). */
static int read_key(const cw_plan *p, size_t i, cw_buf *rec, const char **ns, const char **name,
                    cw_error *err)
{
    int rc = cw_itemstore_get(store(p), i, rec, err);
    if (rc != CW_OK)
        return rc;
    reader r = {rec->data, rec->data + rec->len, 0};
    *ns = get_str(&r);
    *name = get_str(&r);
    return r.bad ? cw_error_set(err, CW_EIO, "the plan's item file in %s: item %zu is damaged",
                                p->store.dir, i)
                 : CW_OK;
}

typedef struct {
    const cw_plan *p;
    int tag;
    const char *ns, *name;
} find_ctx;

static int same_key(void *ud, size_t i)
{
    find_ctx *c = ud;
    cw_buf rec;
    cw_buf_init(&rec);
    const char *ns, *name;
    cw_error err;
    cw_error_init(&err);
    int same = cw_itemstore_entry_at(store(c->p), i).tag == c->tag &&
               read_key(c->p, i, &rec, &ns, &name, &err) == CW_OK && strcmp(ns, c->ns) == 0 &&
               strcmp(name, c->name) == 0;
    cw_buf_free(&rec);
    return same;
}

long cw_plan_find_item(const cw_plan *p, const char *kind, const char *ns, const char *name)
{
    int tag = kind_tag(kind);
    if (tag < 0)
        return -1;
    /* A StorageClass has no namespace, whatever the caller passes. */
    ns = tag == TAG_STORAGECLASS || !ns ? "" : ns;
    find_ctx c = {p, tag, ns, name};
    return cw_itemstore_find(store(p), key_hash(kind, ns, name), same_key, &c);
}

/* ---- the (kind, namespace, name) order: sorted in chunks, merged from runs in the file ---- */

/* A sort entry in a chunk or run: uint32 key length, the key ("<tag><ns>\0<name>\0": byte order
 * is the report's order), uint32 item index. */
static int cmp_entry(const char *a, const char *b)
{
    uint32_t la, lb, ia, ib;
    memcpy(&la, a, 4);
    memcpy(&lb, b, 4);
    int c = memcmp(a + 4, b + 4, la < lb ? la : lb);
    if (c || la != lb)
        return c ? c : la < lb ? -1 : 1;
    memcpy(&ia, a + 4 + la, 4);
    memcpy(&ib, b + 4 + lb, 4);
    return ia < ib ? -1 : ia > ib;
}

static int cmp_at(const void *a, const void *b, void *ud)
{
    const char *base = ud;
    return cmp_entry(base + *(const uint32_t *)a, base + *(const uint32_t *)b);
}

typedef struct {
    uint64_t off, end;
} run;

typedef struct {
    cw_plan *p;
    cw_buf keys;  /* the chunk's entries */
    uint32_t *at; /* where each starts in keys */
    size_t n, cap;
    run *runs;
    size_t nruns, capruns;
    cw_buf out;     /* a batch of item indices for the order region */
    uint64_t order; /* where the next goes */
} sorter;

static int add_entry(sorter *s, size_t i, const char *ns, const char *name, int tag)
{
    uint32_t klen = (uint32_t)(strlen(ns) + strlen(name) + 3), idx = (uint32_t)i;
    char t = (char)tag;
    if (cw_grow((void **)&s->at, &s->cap, s->n, sizeof(*s->at), 1024) != CW_OK)
        return CW_ENOMEM;
    s->at[s->n++] = (uint32_t)s->keys.len;
    int rc = put_u32(&s->keys, klen);
    if (rc == CW_OK)
        rc = cw_buf_append(&s->keys, &t, 1);
    if (rc == CW_OK)
        rc = cw_buf_append(&s->keys, ns, strlen(ns) + 1);
    if (rc == CW_OK)
        rc = cw_buf_append(&s->keys, name, strlen(name) + 1);
    return rc == CW_OK ? put_u32(&s->keys, idx) : rc;
}

static size_t entry_size(const char *e)
{
    uint32_t klen;
    memcpy(&klen, e, 4);
    return 4 + (size_t)klen + 4;
}

/* The chunk, sorted, as a run at the end of the file. */
static int flush_chunk(sorter *s, cw_error *err)
{
    cw_buf sorted;
    cw_buf_init(&sorted);
    qsort_r(s->at, s->n, sizeof(*s->at), cmp_at, s->keys.data);
    int rc = CW_OK;
    for (size_t k = 0; k < s->n && rc == CW_OK; k++)
        rc = cw_buf_append(&sorted, s->keys.data + s->at[k], entry_size(s->keys.data + s->at[k]));
    if (rc != CW_OK || cw_grow((void **)&s->runs, &s->capruns, s->nruns, sizeof(*s->runs), 8)) {
        rc = cw_error_oom(err);
        goto done;
    }
    run *r = &s->runs[s->nruns];
    if ((rc = cw_itemstore_reserve(&s->p->store, sorted.len, &r->off, err)) != CW_OK ||
        (rc = cw_itemstore_write_at(&s->p->store, r->off, sorted.data, sorted.len, err)) != CW_OK)
        goto done;
    r->end = r->off + sorted.len;
    s->nruns++;
    s->n = 0;
    cw_buf_reset(&s->keys);
done:
    cw_buf_free(&sorted);
    return rc;
}

/* One item index into the order region (written a batch at a time). */
static int emit(sorter *s, uint32_t idx, int last, cw_error *err)
{
    if (!last && put_u32(&s->out, idx) != CW_OK)
        return cw_error_oom(err);
    if (s->out.len < IDX_BATCH * 4 && !last)
        return CW_OK;
    int rc = cw_itemstore_write_at(&s->p->store, s->order, s->out.data, s->out.len, err);
    s->order += s->out.len;
    cw_buf_reset(&s->out);
    return rc;
}

/* The head of a run during the merge: its current entry. */
typedef struct {
    run r;
    cw_buf e;
    int live;
} head;

static int next_entry(cw_plan *p, head *h, cw_error *err)
{
    uint32_t klen;
    h->live = h->r.off < h->r.end;
    if (!h->live)
        return CW_OK;
    int rc = cw_itemstore_read_at(&p->store, h->r.off, &klen, 4, err);
    if (rc != CW_OK)
        return rc;
    cw_buf_reset(&h->e);
    if (cw_buf_reserve(&h->e, (size_t)klen + 8) != CW_OK)
        return cw_error_oom(err);
    memcpy(h->e.data, &klen, 4);
    rc = cw_itemstore_read_at(&p->store, h->r.off + 4, h->e.data + 4, (size_t)klen + 4, err);
    h->e.len = (size_t)klen + 8;
    h->r.off += h->e.len;
    return rc;
}

/* The runs merged into the order region: the smallest head first, again and again. */
static int merge_runs(sorter *s, cw_error *err)
{
    int rc = CW_OK;
    head *h = calloc(s->nruns, sizeof(*h));
    if (!h)
        return cw_error_oom(err);
    for (size_t k = 0; k < s->nruns && rc == CW_OK; k++) {
        h[k].r = s->runs[k];
        rc = next_entry(s->p, &h[k], err);
    }
    while (rc == CW_OK) {
        long min = -1;
        for (size_t k = 0; k < s->nruns; k++)
            if (h[k].live && (min < 0 || cmp_entry(h[k].e.data, h[min].e.data) < 0))
                min = (long)k;
        if (min < 0)
            break;
        uint32_t idx;
        memcpy(&idx, h[min].e.data + h[min].e.len - 4, 4);
        if ((rc = emit(s, idx, 0, err)) == CW_OK)
            rc = next_entry(s->p, &h[min], err);
    }
    for (size_t k = 0; k < s->nruns; k++)
        cw_buf_free(&h[k].e);
    free(h);
    return rc;
}

static int write_order(sorter *s, cw_error *err)
{
    cw_plan *p = s->p;
    cw_buf rec;
    cw_buf_init(&rec);
    int rc = cw_itemstore_reserve(&p->store, (uint64_t)p->nitems * 4, &p->order_off, err);
    s->order = p->order_off;
    for (size_t i = 0; i < p->nitems && rc == CW_OK; i++) {
        const char *ns, *name;
        if ((rc = read_key(p, i, &rec, &ns, &name, err)) != CW_OK)
            break;
        if (add_entry(s, i, ns, name, cw_itemstore_entry_at(&p->store, i).tag) != CW_OK)
            rc = cw_error_oom(err);
        else if (s->keys.len >= SORT_CHUNK)
            rc = flush_chunk(s, err);
    }
    if (rc == CW_OK && !s->nruns) {
        /* One chunk held them all (or there are none): no run to merge. */
        if (s->n)
            qsort_r(s->at, s->n, sizeof(*s->at), cmp_at, s->keys.data);
        for (size_t k = 0; k < s->n && rc == CW_OK; k++) {
            const char *e = s->keys.data + s->at[k];
            uint32_t idx;
            memcpy(&idx, e + entry_size(e) - 4, 4);
            rc = emit(s, idx, 0, err);
        }
    } else if (rc == CW_OK) {
        if (s->n)
            rc = flush_chunk(s, err);
        if (rc == CW_OK)
            rc = merge_runs(s, err);
    }
    if (rc == CW_OK)
        rc = emit(s, 0, 1, err);
    cw_buf_free(&rec);
    return rc;
}

/* `n` indices of an order region from position `from`. */
static int read_indices(const cw_plan *p, uint64_t off, size_t from, uint32_t *out, size_t n,
                        cw_error *err)
{
    return cw_itemstore_read_at(store(p), off + (uint64_t)from * 4, out, n * 4, err);
}

/* Each job's sources, in the items' order: a counting sort into the sources region. */
static int write_sources(cw_plan *p, cw_error *err)
{
    size_t total = 0, *fill = calloc(p->jobs.len + 1, sizeof(*fill));
    uint32_t batch[IDX_BATCH];
    int rc = CW_OK;
    if (!fill)
        return cw_error_oom(err);
    for (size_t j = 0; j < p->jobs.len; j++) {
        cw_plan_job_at(p, j)->src_start = total;
        total += cw_plan_job_at(p, j)->nsrcs;
    }
    if ((rc = cw_itemstore_reserve(&p->store, (uint64_t)total * 4, &p->srcs_off, err)) != CW_OK)
        goto done;
    for (size_t k = 0; k < p->nitems && rc == CW_OK; k += IDX_BATCH) {
        size_t n = p->nitems - k < IDX_BATCH ? p->nitems - k : IDX_BATCH;
        if ((rc = read_indices(p, p->order_off, k, batch, n, err)) != CW_OK)
            break;
        for (size_t b = 0; b < n && rc == CW_OK; b++) {
            if (!cw_plan_item_counted(p, batch[b]))
                continue;
            cw_plan_item it;
            if ((rc = cw_plan_item_load(p, batch[b], &it, err)) != CW_OK)
                break;
            for (size_t r = 0; r < it.nrefs && rc == CW_OK; r++) {
                cw_plan_job *j = cw_plan_job_at(p, it.refs[r].job);
                size_t at = j->src_start + fill[it.refs[r].job]++;
                rc = cw_itemstore_write_at(&p->store, p->srcs_off + (uint64_t)at * 4, &batch[b], 4,
                                           err);
            }
            cw_plan_item_free(&it);
        }
    }
done:
    free(fill);
    return rc;
}

int cw_plan_sort_items(cw_plan *p, cw_error *err)
{
    sorter s = {.p = p};
    cw_buf_init(&s.keys);
    cw_buf_init(&s.out);
    int rc = write_order(&s, err);
    if (rc == CW_OK)
        rc = write_sources(p, err);
    if (rc == CW_OK)
        p->sorted = 1;
    cw_buf_free(&s.keys);
    cw_buf_free(&s.out);
    free(s.at);
    free(s.runs);
    return rc;
}

int cw_plan_sorted_items(const cw_plan *p, const char *kind, size_t **out, size_t *n, cw_error *err)
{
    int tag = kind_tag(kind), rc = CW_OK;
    size_t count = 0, *idx = NULL;
    uint32_t batch[IDX_BATCH];
    *out = NULL;
    *n = 0;
    /* Only a finished plan has its order; a plan sorted early is sorted once. */
    if (!p->sorted && (rc = cw_plan_sort_items((cw_plan *)p, err)) != CW_OK)
        return rc;
    for (size_t i = 0; i < p->nitems; i++)
        count += cw_itemstore_entry_at(store(p), i).tag == tag;
    if (!(idx = malloc((count + 1) * sizeof(*idx))))
        return cw_error_oom(err);
    for (size_t k = 0; k < p->nitems && rc == CW_OK; k += IDX_BATCH) {
        size_t m = p->nitems - k < IDX_BATCH ? p->nitems - k : IDX_BATCH;
        if ((rc = read_indices(p, p->order_off, k, batch, m, err)) != CW_OK)
            break;
        for (size_t b = 0; b < m; b++)
            if (cw_itemstore_entry_at(store(p), batch[b]).tag == tag)
                idx[(*n)++] = batch[b];
    }
    if (rc != CW_OK) {
        free(idx);
        *n = 0;
        return rc;
    }
    *out = idx;
    return CW_OK;
}

int cw_plan_sorted_sources(const cw_plan *p, const cw_plan_job *j, size_t **out, cw_error *err)
{
    uint32_t batch[IDX_BATCH];
    int rc = CW_OK;
    size_t *order = NULL;
    *out = NULL;
    if (!p->sorted && (rc = cw_plan_sort_items((cw_plan *)p, err)) != CW_OK)
        return rc;
    if (!(order = malloc((j->nsrcs + 1) * sizeof(*order))))
        return cw_error_oom(err);
    for (size_t k = 0; k < j->nsrcs && rc == CW_OK; k += IDX_BATCH) {
        size_t m = j->nsrcs - k < IDX_BATCH ? j->nsrcs - k : IDX_BATCH;
        if ((rc = read_indices(p, p->srcs_off, j->src_start + k, batch, m, err)) != CW_OK)
            break;
        for (size_t b = 0; b < m; b++)
            order[k + b] = batch[b];
    }
    if (rc != CW_OK) {
        free(order);
        return rc;
    }
    *out = order;
    return CW_OK;
}
