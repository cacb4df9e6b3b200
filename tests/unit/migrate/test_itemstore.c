/* The planner's item store as a table: a script of operations -> the exact transcript.
 *   add KEY DATA        append "KEY=DATA" under hash(KEY)       -> #index
 *   addh HASH KEY DATA  the same under a given hash (collisions)  -> #index
 *   put I DATA          replace record I by "DATA"                -> off=O len=L
 *   get I               record I's bytes
 *   find KEY / findh HASH KEY   the record whose bytes start "KEY=" -> index or -1
 *   tags I A R F        set action, result, flags; entry I prints the entry
 *   many N              N records, each found again by its key   -> many N ok
 *   scratch DATA        a reserved region written and read back
 *   badfd               the file replaced by a read-only one (a disk that refuses writes) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "migrate/itemstore.h"

static const struct store_case {
    const char *name;
    const char *dir; /* "" keeps the store in memory */
    const char *script;
    const char *want;
} cases[] = {
    {"records come back as they were added", "/tmp",
     "add v/a one;add v/b two;add sc/c three;get 0;get 1;get 2",
     "#0\n#1\n#2\nv/a=one\nv/b=two\nsc/c=three\n"},
    {"a record that shrinks stays in place, one that grows moves to the end", "/tmp",
     "add a 1234567;add b x;put 0 short;get 0;put 1 longer-than-before;get 1;get 0",
     "#0\n#1\noff=0 len=5\nshort\noff=12 len=18\nlonger-than-before\nshort\n"},
    {"action, result and flags live in memory beside the record", "/tmp",
     "add a x;tags 0 3 1 2;entry 0;tags 0 3 4 0;entry 0",
     "#0\ntag=7 action=3 result=1 flags=2 off=0 len=3\ntag=7 action=3 result=4 flags=0 off=0 "
     "len=3\n"},
    {"lookups verify the key behind the hash: equal hashes are told apart", "/tmp",
     "addh 5 a x;addh 5 b y;addh 9 c z;findh 5 a;findh 5 b;findh 9 c;findh 5 c;find a",
     "#0\n#1\n#2\n0\n1\n2\n-1\n-1\n"},
    {"many records: lookups over the sorted index and the unsorted tail", "/tmp", "many 5000",
     "many 5000 ok\n"},
    {"scratch regions sit after the records", "/tmp", "add a x;scratch sorted-run;add b y;get 1",
     "#0\nsorted-run\n#1\nb=y\n"},
    {"in memory: the same", "",
     "add v/a one;add v/b two;put 0 v/a=uno!;get 0;find v/b;addh 5 c x;findh 5 c;many 3000;"
     "scratch run",
     "#0\n#1\noff=14 len=8\nv/a=uno!\n1\n#2\n2\nmany 3000 ok\nrun\n"},
    {"a write that fails says which file and why", "/tmp", "add a x;badfd;add b y;put 0 zz",
     "#0\ncannot write the plan's item file in /tmp: Bad file descriptor\n"
     "cannot write the plan's item file in /tmp: Bad file descriptor\n"},
    {"no file in the directory: the message says what to do", "/nonexistent/cronwarden", "",
     "cannot create the plan's item file in /nonexistent/cronwarden: No such file or directory; "
     "set TMPDIR to a writable directory (in a Pod with a read-only root filesystem, mount an "
     "emptyDir there)\n"},
};

static int starts_with_key(void *ud, size_t i)
{
    void **c = ud;
    cw_itemstore *s = c[0];
    const char *key = c[1];
    cw_buf b;
    cw_buf_init(&b);
    cw_error err;
    cw_error_init(&err);
    size_t n = strlen(key);
    int same = cw_itemstore_get(s, i, &b, &err) == CW_OK && b.len > n &&
               memcmp(b.data, key, n) == 0 && b.data[n] == '=';
    cw_buf_free(&b);
    return same;
}

static long find(cw_itemstore *s, uint64_t h, const char *key)
{
    void *c[] = {s, (void *)key};
    return cw_itemstore_find(s, h, starts_with_key, c);
}

static int add(cw_itemstore *s, uint64_t h, const char *key, const char *data, cw_buf *out,
               cw_error *err)
{
    char rec[256];
    snprintf(rec, sizeof(rec), "%s=%s", key, data);
    size_t i = s->n;
    int rc = cw_itemstore_add(s, h, 7, rec, strlen(rec), err);
    if (rc == CW_OK)
        cw_buf_printf(out, "#%zu\n", i);
    return rc;
}

static int many(cw_itemstore *s, size_t n, cw_buf *out, cw_error *err)
{
    char key[32], data[32];
    for (size_t i = 0; i < n; i++) {
        snprintf(key, sizeof(key), "k%zu", i);
        snprintf(data, sizeof(data), "v%zu", i);
        char rec[80];
        snprintf(rec, sizeof(rec), "%s=%s", key, data);
        int rc = cw_itemstore_add(s, cw_itemstore_hash(key, strlen(key)), 1, rec, strlen(rec), err);
        if (rc != CW_OK)
            return rc;
    }
    size_t base = s->n - n;
    for (size_t i = 0; i < n; i++) {
        snprintf(key, sizeof(key), "k%zu", i);
        long got = find(s, cw_itemstore_hash(key, strlen(key)), key);
        if (got != (long)(base + i))
            return cw_buf_printf(out, "many: %s found at %ld\n", key, got);
    }
    return cw_buf_printf(out, "many %zu ok\n", n);
}

static int scratch(cw_itemstore *s, const char *data, cw_buf *out, cw_error *err)
{
    uint64_t off;
    char back[256] = {0};
    size_t n = strlen(data);
    int rc = cw_itemstore_reserve(s, n, &off, err);
    if (rc == CW_OK)
        rc = cw_itemstore_write_at(s, off, data, n, err);
    if (rc == CW_OK)
        rc = cw_itemstore_read_at(s, off, back, n, err);
    if (rc == CW_OK)
        cw_buf_printf(out, "%s\n", back);
    return rc;
}

/* One operation of a script; a failing one prints its error. */
static void op(cw_itemstore *s, char *line, cw_buf *out)
{
    cw_error err;
    cw_error_init(&err);
    char *w[5] = {0};
    int n = 0;
    for (char *t = strtok(line, " "); t && n < 5; t = strtok(NULL, " "))
        w[n++] = t;
    int rc = CW_OK;
    cw_buf b;
    cw_buf_init(&b);
    if (!strcmp(w[0], "add")) {
        rc = add(s, cw_itemstore_hash(w[1], strlen(w[1])), w[1], w[2], out, &err);
    } else if (!strcmp(w[0], "addh")) {
        rc = add(s, strtoull(w[1], NULL, 10), w[2], w[3], out, &err);
    } else if (!strcmp(w[0], "put")) {
        size_t i = strtoul(w[1], NULL, 10);
        rc = cw_itemstore_put(s, i, w[2], strlen(w[2]), &err);
        cw_itemstore_entry e = cw_itemstore_entry_at(s, i);
        if (rc == CW_OK)
            cw_buf_printf(out, "off=%" PRIu64 " len=%u\n", e.off, e.len);
    } else if (!strcmp(w[0], "get")) {
        if ((rc = cw_itemstore_get(s, strtoul(w[1], NULL, 10), &b, &err)) == CW_OK)
            cw_buf_printf(out, "%s\n", b.data);
    } else if (!strcmp(w[0], "find") || !strcmp(w[0], "findh")) {
        const char *key = w[0][4] ? w[2] : w[1];
        uint64_t h = w[0][4] ? strtoull(w[1], NULL, 10) : cw_itemstore_hash(key, strlen(key));
        cw_buf_printf(out, "%ld\n", find(s, h, key));
    } else if (!strcmp(w[0], "tags")) {
        cw_itemstore_set_tags(s, strtoul(w[1], NULL, 10), (uint8_t)atoi(w[2]), (uint8_t)atoi(w[3]),
                              (uint8_t)atoi(w[4]));
    } else if (!strcmp(w[0], "entry")) {
        cw_itemstore_entry e = cw_itemstore_entry_at(s, strtoul(w[1], NULL, 10));
        cw_buf_printf(out, "tag=%u action=%u result=%u flags=%u off=%" PRIu64 " len=%u\n", e.tag,
                      e.action, e.result, e.flags, e.off, e.len);
    } else if (!strcmp(w[0], "many")) {
        rc = many(s, strtoul(w[1], NULL, 10), out, &err);
    } else if (!strcmp(w[0], "scratch")) {
        rc = scratch(s, w[1], out, &err);
    } else if (!strcmp(w[0], "badfd")) {
        int ro = open("/dev/null", O_RDONLY);
        assert_true(ro >= 0);
        assert_int_equal(dup2(ro, s->fd), s->fd);
        close(ro);
    } else {
        fail_msg("unknown operation %s", w[0]);
    }
    if (rc != CW_OK)
        cw_buf_printf(out, "%s\n", err.message);
    cw_buf_free(&b);
}

static void test_store_table(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const struct store_case *c = &cases[k];
        cw_itemstore s;
        cw_error err;
        cw_error_init(&err);
        cw_buf out;
        cw_buf_init(&out);
        if (cw_itemstore_init(&s, c->dir, &err) != CW_OK) {
            cw_buf_printf(&out, "%s\n", err.message);
        } else {
            char *script = strdup(c->script), *save = NULL;
            for (char *line = strtok_r(script, ";", &save); line; line = strtok_r(NULL, ";", &save))
                op(&s, line, &out);
            free(script);
        }
        cw_itemstore_free(&s);
        if (strcmp(cw_buf_str(&out), c->want) != 0)
            fail_msg("%s:\n--- got\n%s--- want\n%s", c->name, cw_buf_str(&out), c->want);
        cw_buf_free(&out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_store_table)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
