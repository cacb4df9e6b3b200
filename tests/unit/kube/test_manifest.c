/* kube/manifest: cw_load_file_lean (a read-only mapping given back as a JSON List is read) delivers
 * exactly what cw_load_file delivers — the same objects, the same places, the same errors — for
 * a List larger than what is given back at a time, a file whose size is a whole number of pages
 * (the byte after it must still read as NUL), YAML, an empty file and a missing one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "kube/manifest.h"

static int record(void *ud, const cw_load_unit *u, cw_error *err)
{
    char where[512];
    (void)err;
    cw_load_where(u, where, sizeof(where));
    return cw_buf_printf(ud, "%s line %zu %s\n", where, u->line, cw_json_compact(u->obj));
}

/* Both loaders over path: the same return code, the same objects or the same message. */
static void same(const char *path, int want_rc)
{
    cw_buf a, b;
    cw_error ea, eb;
    cw_buf_init(&a);
    cw_buf_init(&b);
    cw_error_init(&ea);
    cw_error_init(&eb);
    int ra = cw_load_file(path, record, &a, &ea),
        rb = cw_load_file_lean(path, NULL, record, &b, &eb);
    assert_int_equal(ra, want_rc);
    assert_int_equal(rb, want_rc);
    assert_string_equal(cw_buf_str(&a), cw_buf_str(&b));
    assert_string_equal(ea.message, eb.message);
    cw_buf_free(&a);
    cw_buf_free(&b);
}

static char *write_file(const char *text, size_t len, const char *ext)
{
    char *path = malloc(64);
    snprintf(path, 64, "/tmp/cw-test-load-XXXXXX%s", ext);
    int fd = mkstemps(path, (int)strlen(ext));
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

/* A List of n Jobs-sized items, padded with spaces to `pad_to` bytes when that is larger. */
static void big_list(cw_buf *b, size_t n, size_t pad_to, int broken_at)
{
    cw_buf_puts(b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n");
    for (size_t i = 0; i < n; i++) {
        cw_buf_printf(b,
                      "%s{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":"
                      "\"job-%zu\",\"namespace\":\"longhorn-system\"},\"spec\":{\"x\":\"",
                      i ? ",\n" : "", i);
        for (int k = 0; k < 2000; k++)
            cw_buf_putc(b, (char)('a' + (i + (size_t)k) % 26));
        cw_buf_puts(b, (int)i == broken_at ? "\"}" : "\"}}");
    }
    cw_buf_puts(b, "\n]}");
    while (b->len + 1 < pad_to)
        cw_buf_putc(b, ' ');
    if (pad_to)
        cw_buf_putc(b, '\n');
}

static void lean_is_the_same(void **state)
{
    (void)state;
    cw_buf b;
    long page = sysconf(_SC_PAGESIZE);
    /* 12 MB: three times what is given back at a time */
    cw_buf_init(&b);
    big_list(&b, 6000, 0, -1);
    char *p = write_file(b.data, b.len, ".json");
    same(p, CW_OK);
    unlink(p);
    free(p);
    /* a whole number of pages, the last byte the List's end */
    size_t pages = (b.len + (size_t)page) / (size_t)page * (size_t)page;
    cw_buf_reset(&b);
    big_list(&b, 6000, pages, -1);
    assert_int_equal(b.len % (size_t)page, 0);
    p = write_file(b.data, b.len, ".json");
    same(p, CW_OK);
    unlink(p);
    free(p);
    /* broken past the first pages given back: the same message, line and column */
    cw_buf_reset(&b);
    big_list(&b, 6000, 0, 5000);
    p = write_file(b.data, b.len, ".json");
    same(p, CW_EINVAL);
    unlink(p);
    free(p);
    cw_buf_free(&b);
    /* YAML, a document that is no List, an empty file, a missing file */
    static const char yaml[] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n"
                               "apiVersion: v1\nkind: List\nitems:\n- {kind: Secret, "
                               "apiVersion: v1, metadata: {name: b}}\n";
    p = write_file(yaml, sizeof(yaml) - 1, ".yaml");
    same(p, CW_OK);
    unlink(p);
    free(p);
    static const char one[] = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}";
    p = write_file(one, sizeof(one) - 1, ".json");
    same(p, CW_OK);
    unlink(p);
    free(p);
    p = write_file("", 0, ".json");
    same(p, CW_OK);
    unlink(p);
    free(p);
    same("/tmp/cw-test-load-does-not-exist.json", CW_ENOTFOUND);
}

/* drop: the dropped members arrive as null; an item whose fault lies inside a dropped member
 * (a duplicate key, bad JSON, nesting too deep) fails exactly as without drop. */
static void dropped_members_are_null(void **state)
{
    static const char *const drop[] = {"spec.template.spec", "spec.jobTemplate", NULL};
    static const struct {
        const char *items;
        const char *want; /* the objects delivered; NULL: cw_load_file's error */
    } cases[] = {
        {"{\"kind\":\"Job\",\"spec\":{\"completions\":1,\"template\":{\"spec\":{\"c\":[1]}}}},"
         "{\"kind\":\"CronJob\",\"spec\":{\"jobTemplate\":{\"a\":1},\"suspend\":true}},"
         "{\"kind\":\"Schedule\",\"spec\":{\"template\":{\"ttl\":\"1h\"}}}",
         "F: document 1, items[0] line 1 "
         "{\"kind\":\"Job\",\"spec\":{\"completions\":1,\"template\":{\"spec\":null}}}\n"
         "F: document 1, items[1] line 1 "
         "{\"kind\":\"CronJob\",\"spec\":{\"jobTemplate\":null,\"suspend\":true}}\n"
         "F: document 1, items[2] line 1 "
         "{\"kind\":\"Schedule\",\"spec\":{\"template\":{\"ttl\":\"1h\"}}}\n"},
        {"{\"spec\":{\"template\":{\"spec\":{\"a\":1,\"a\":2}}}}", NULL},
        {"{\"spec\":{\"jobTemplate\":{\"a\":tru}}}", NULL},
        {"{\"spec\":{\"jobTemplate\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
         "]]}}",
         NULL},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cw_buf text, a, b;
        cw_error ea, eb;
        cw_buf_init(&text);
        cw_buf_init(&a);
        cw_buf_init(&b);
        cw_error_init(&ea);
        cw_error_init(&eb);
        cw_buf_printf(&text, "{\"kind\":\"List\",\"items\":[%s]}", cases[i].items);
        char *p = write_file(text.data, text.len, ".json");
        int ra = cw_load_file(p, record, &a, &ea), rb = cw_load_file_lean(p, drop, record, &b, &eb);
        if (cases[i].want) {
            assert_int_equal(rb, CW_OK);
            char *want = NULL;
            cw_buf w;
            cw_buf_init(&w);
            for (const char *c = cases[i].want; *c; c++) /* F: the file's path */
                c[0] == 'F' && c[1] == ':' ? cw_buf_puts(&w, p) : cw_buf_putc(&w, *c);
            want = cw_buf_detach(&w);
            assert_string_equal(cw_buf_str(&b), want);
            free(want);
        } else {
            assert_int_equal(ra, CW_EINVAL);
            assert_int_equal(rb, CW_EINVAL);
            assert_string_equal(ea.message, eb.message);
        }
        unlink(p);
        free(p);
        cw_buf_free(&text);
        cw_buf_free(&a);
        cw_buf_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(lean_is_the_same),
                                       cmocka_unit_test(dropped_members_are_null)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
