/* Item store: records in an unlinked temporary file, a compact entry per record in memory. */
#include "migrate/itemstore.h"
#include "lib/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

/* Records added since the last merge into by_hash: a lookup scans at most this many. */
#define TAIL_MAX 1024

uint64_t cw_itemstore_hash(const void *key, size_t len)
{
    return XXH64(key, len, 0);
}

static int cannot_create(const char *dir, int e, cw_error *err)
{
    return cw_error_set(err, CW_EIO,
                        "cannot create the plan's item file in %s: %s; set TMPDIR to a writable "
                        "directory (in a Pod with a read-only root filesystem, mount an emptyDir "
                        "there)",
                        dir, strerror(e));
}

/* An unlinked file: nothing to clean up, whatever way the process ends. */
static int open_unlinked(const char *dir, cw_error *err)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
        return cannot_create(dir, errno, err);
    /* A file system without O_TMPFILE: create, then unlink at once. */
    char path[4096];
    if (snprintf(path, sizeof(path), "%s/cronwarden-plan-XXXXXX", dir) >= (int)sizeof(path))
        return cannot_create(dir, ENAMETOOLONG, err);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
        return cannot_create(dir, errno, err);
    unlink(path);
    return fd;
}

int cw_itemstore_init(cw_itemstore *s, const char *dir, cw_error *err)
{
    memset(s, 0, sizeof(*s));
    s->fd = -1;
    if (!dir) {
        dir = getenv("TMPDIR");
        if (!dir || !*dir)
            dir = "/tmp";
    }
    if (!(s->dir = strdup(*dir ? dir : "memory")) || !(s->mu = malloc(sizeof(*s->mu)))) {
        free(s->dir);
        s->dir = NULL;
        return cw_error_oom(err);
    }
    pthread_mutex_init(s->mu, NULL);
    if (!*dir)
        return CW_OK;
    s->fd = open_unlinked(dir, err);
    return s->fd >= 0 ? CW_OK : err->code;
}

void cw_itemstore_free(cw_itemstore *s)
{
    /* dir is set first by init: a store never initialised (all zero) has no fd 0 to close. */
    if (s->dir && s->fd >= 0)
        close(s->fd);
    if (s->mu)
        pthread_mutex_destroy(s->mu);
    free(s->mu);
    free(s->dir);
    cw_buf_free(&s->mem);
    free(s->entries);
    free(s->by_hash);
    memset(s, 0, sizeof(*s));
    s->fd = -1;
}

static int io_error(cw_itemstore *s, const char *what, int e, cw_error *err)
{
    return cw_error_set(err, CW_EIO, "cannot %s the plan's item file in %s: %s", what, s->dir,
                        e ? strerror(e) : "short read");
}

/* A store in memory: the buffer grows to the end of what is written. */
static int mem_write(cw_itemstore *s, uint64_t off, const void *data, size_t len, cw_error *err)
{
    if (off + len > s->mem.len) {
        size_t old = s->mem.len;
        if (cw_buf_reserve(&s->mem, (size_t)(off + len - old)) != CW_OK)
            return cw_error_oom(err);
        memset(s->mem.data + old, 0, (size_t)(off + len - old));
        s->mem.len = (size_t)(off + len);
    }
    memcpy(s->mem.data + off, data, len);
    return CW_OK;
}

static int write_all(cw_itemstore *s, uint64_t off, const void *data, size_t len, cw_error *err)
{
    const char *p = data;
    if (!len)
        return CW_OK;
    if (s->fd < 0)
        return mem_write(s, off, data, len, err);
    while (len) {
        ssize_t w = pwrite(s->fd, p, len, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return io_error(s, "write", w < 0 ? errno : ENOSPC, err);
        p += w;
        off += (uint64_t)w;
        len -= (size_t)w;
    }
    return CW_OK;
}

static int read_all(cw_itemstore *s, uint64_t off, void *data, size_t len, cw_error *err)
{
    char *p = data;
    if (!len)
        return CW_OK;
    if (s->fd < 0) {
        if (off > s->mem.len || len > s->mem.len - off)
            return io_error(s, "read", 0, err);
        memcpy(data, s->mem.data + off, len);
        return CW_OK;
    }
    while (len) {
        ssize_t r = pread(s->fd, p, len, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return io_error(s, "read", r < 0 ? errno : 0, err);
        p += r;
        off += (uint64_t)r;
        len -= (size_t)r;
    }
    return CW_OK;
}

/* Sorting the tail by hash (qsort_r: the indices point into the entries). */
static int cmp_hash(const void *a, const void *b, void *ud)
{
    const cw_itemstore_entry *e = ud;
    uint64_t x = e[*(const uint32_t *)a].hash, y = e[*(const uint32_t *)b].hash;
    return x < y ? -1 : x > y;
}

/* Moves the tail into by_hash: sort it, then merge from the back in place. */
static int merge_tail(cw_itemstore *s)
{
    size_t t = s->n - s->nsorted;
    if (s->capsorted < s->n) {
        size_t cap = s->capsorted ? s->capsorted : TAIL_MAX;
        while (cap < s->n)
            cap *= 2;
        uint32_t *p = realloc(s->by_hash, cap * sizeof(*p));
        if (!p)
            return CW_ENOMEM;
        s->by_hash = p;
        s->capsorted = cap;
    }
    uint32_t tail[TAIL_MAX];
    for (size_t k = 0; k < t; k++)
        tail[k] = (uint32_t)(s->nsorted + k);
    qsort_r(tail, t, sizeof(*tail), cmp_hash, s->entries);
    size_t a = s->nsorted, b = t, out = s->n;
    while (b) {
        if (a && s->entries[s->by_hash[a - 1]].hash > s->entries[tail[b - 1]].hash)
            s->by_hash[--out] = s->by_hash[--a];
        else
            s->by_hash[--out] = tail[--b];
    }
    s->nsorted = s->n;
    return CW_OK;
}

int cw_itemstore_add(cw_itemstore *s, uint64_t hash, uint8_t tag, const void *data, size_t len,
                     cw_error *err)
{
    int rc = CW_OK;
    pthread_mutex_lock(s->mu);
    if (s->n >= UINT32_MAX || len > UINT32_MAX) {
        rc = cw_error_set(err, CW_ELIMIT, "the plan's item file holds at most %u records",
                          UINT32_MAX);
        goto done;
    }
    if (s->n - s->nsorted >= TAIL_MAX && merge_tail(s) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    if (cw_grow((void **)&s->entries, &s->cap, s->n, sizeof(*s->entries), 64) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    if ((rc = write_all(s, s->end, data, len, err)) != CW_OK)
        goto done;
    s->entries[s->n++] = (cw_itemstore_entry){hash, s->end, (uint32_t)len, tag, 0, 0, 0};
    s->end += len;
done:
    pthread_mutex_unlock(s->mu);
    return rc;
}

int cw_itemstore_put(cw_itemstore *s, size_t i, const void *data, size_t len, cw_error *err)
{
    int rc = CW_OK;
    pthread_mutex_lock(s->mu);
    cw_itemstore_entry *e = &s->entries[i];
    /* In place when it fits; otherwise at the end (a result message, the final labels). */
    uint64_t off = len <= e->len ? e->off : s->end;
    if (len > UINT32_MAX) {
        rc = cw_error_set(err, CW_ELIMIT, "a plan record of %zu bytes is too large", len);
        goto done;
    }
    if ((rc = write_all(s, off, data, len, err)) != CW_OK)
        goto done;
    if (off == s->end)
        s->end += len;
    e->off = off;
    e->len = (uint32_t)len;
done:
    pthread_mutex_unlock(s->mu);
    return rc;
}

int cw_itemstore_get(cw_itemstore *s, size_t i, cw_buf *out, cw_error *err)
{
    int rc = CW_OK;
    cw_buf_reset(out);
    /* Held while reading: a store in memory may move its bytes when another thread writes. */
    pthread_mutex_lock(s->mu);
    cw_itemstore_entry e = s->entries[i];
    if (cw_buf_reserve(out, (size_t)e.len + 1) != CW_OK) {
        rc = cw_error_oom(err);
        goto done;
    }
    if ((rc = read_all(s, e.off, out->data, e.len, err)) == CW_OK) {
        out->len = e.len;
        out->data[e.len] = '\0';
    }
done:
    pthread_mutex_unlock(s->mu);
    return rc;
}

cw_itemstore_entry cw_itemstore_entry_at(cw_itemstore *s, size_t i)
{
    pthread_mutex_lock(s->mu);
    cw_itemstore_entry e = s->entries[i];
    pthread_mutex_unlock(s->mu);
    return e;
}

void cw_itemstore_set_tags(cw_itemstore *s, size_t i, uint8_t action, uint8_t result, uint8_t flags)
{
    pthread_mutex_lock(s->mu);
    s->entries[i].action = action;
    s->entries[i].result = result;
    s->entries[i].flags = flags;
    pthread_mutex_unlock(s->mu);
}

long cw_itemstore_find(cw_itemstore *s, uint64_t hash, int (*match)(void *ud, size_t i), void *ud)
{
    size_t lo = 0, hi = s->nsorted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->entries[s->by_hash[mid]].hash < hash)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Equal hashes are neighbours; a collision costs one more read. */
    for (; lo < s->nsorted && s->entries[s->by_hash[lo]].hash == hash; lo++)
        if (match(ud, s->by_hash[lo]))
            return (long)s->by_hash[lo];
    for (size_t i = s->nsorted; i < s->n; i++)
        if (s->entries[i].hash == hash && match(ud, i))
            return (long)i;
    return -1;
}

int cw_itemstore_reserve(cw_itemstore *s, uint64_t len, uint64_t *off, cw_error *err)
{
    (void)err;
    pthread_mutex_lock(s->mu);
    *off = s->end;
    s->end += len;
    pthread_mutex_unlock(s->mu);
    return CW_OK;
}

int cw_itemstore_write_at(cw_itemstore *s, uint64_t off, const void *data, size_t len,
                          cw_error *err)
{
    return write_all(s, off, data, len, err);
}

int cw_itemstore_read_at(cw_itemstore *s, uint64_t off, void *data, size_t len, cw_error *err)
{
    return read_all(s, off, data, len, err);
}
