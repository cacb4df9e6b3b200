/* lib/jsonprune: values at member paths replaced by null (or by their text as a string, or
 * over a size their length), the rest of the text byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/jsonprune.h"

/* Room for one path over the limit and the NULL after it: every row is NULL-terminated, so a
 * limit that stops being enforced shows as a wrong answer, not as a read past the row. */
#define ROW_PATHS (CW_JSON_PRUNE_MAX_PATHS + 2)

typedef struct {
    const char *text;
    const char *paths[ROW_PATHS];
    int rc;
    size_t pruned;
    const char *want; /* the text out (CW_OK) */
} prune_case;

#define JOB                                                                                        \
    "{\"kind\": \"Job\", \"metadata\": {\"name\": \"j\"},\n \"spec\": {\"backoffLimit\": 3, "      \
    "\"template\": {\"metadata\": {}, \"spec\": {\"containers\": [{\"name\": \"c\"}]}}},\n "       \
    "\"status\": {\"failed\": 1}}"

static const prune_case cases[] = {
    /* A Job's Pod spec goes; everything around it stays as written, whitespace included. */
    {JOB,
     {"spec.template.spec", "spec.jobTemplate"},
     CW_OK,
     1,
     "{\"kind\": \"Job\", \"metadata\": {\"name\": \"j\"},\n \"spec\": {\"backoffLimit\": 3, "
     "\"template\": {\"metadata\": {}, \"spec\": null}},\n \"status\": {\"failed\": 1}}"},
    /* A CronJob's whole job template. */
    {"{\"spec\":{\"schedule\":\"0 * * * *\",\"jobTemplate\":{\"spec\":{\"template\":{}}},"
     "\"suspend\":true}}",
     {"spec.template.spec", "spec.jobTemplate"},
     CW_OK,
     1,
     "{\"spec\":{\"schedule\":\"0 * * * *\",\"jobTemplate\":null,\"suspend\":true}}"},
    /* A Velero Schedule's template is a BackupSpec: it has no "spec", nothing goes. */
    {"{\"spec\":{\"template\":{\"ttl\":\"720h0m0s\"}}}",
     {"spec.template.spec", "spec.jobTemplate"},
     CW_OK,
     0,
     "{\"spec\":{\"template\":{\"ttl\":\"720h0m0s\"}}}"},
    /* The path must start at the top: a "spec.template.spec" deeper down stays. */
    {"{\"x\":{\"spec\":{\"template\":{\"spec\":1}}}}",
     {"spec.template.spec"},
     CW_OK,
     0,
     "{\"x\":{\"spec\":{\"template\":{\"spec\":1}}}}"},
    /* Arrays on the way are passed through. */
    {"{\"spec\":[{\"template\":{\"spec\":[1,2]}},{\"template\":{}}]}",
     {"spec.template.spec"},
     CW_OK,
     1,
     "{\"spec\":[{\"template\":{\"spec\":null}},{\"template\":{}}]}"},
    /* Every value of a repeated key goes (duplicates are the caller's check), scalars too. */
    {"{\"a\":{\"b\":\"x\",\"b\":{\"c\":1}},\"d\":2}",
     {"a.b", "d"},
     CW_OK,
     3,
     "{\"a\":{\"b\":null,\"b\":null},\"d\":null}"},
    /* A key spelt with an escape is not the path's (only the saving is lost). */
    {"{\"sp\\u0065c\":{\"jobTemplate\":1}}",
     {"spec.jobTemplate"},
     CW_OK,
     0,
     "{\"sp\\u0065c\":{\"jobTemplate\":1}}"},
    /* Not an object at the top, no paths: the text as it was. */
    {"[1,{\"spec\":2}]", {"spec"}, CW_OK, 0, "[1,{\"spec\":2}]"},
    {JOB, {NULL}, CW_OK, 0, JOB},
    /* Not JSON, or deeper than allowed: the caller parses the original for its message. */
    {"{\"spec\":{\"template\":", {"spec.template"}, CW_EINVAL, 0, NULL},
    {"{\"spec\":{'template':1}}", {"spec.template"}, CW_EINVAL, 0, NULL},
    {"{\"a\":[[[[[[[[1]]]]]]]]}", {"a"}, CW_EINVAL, 0, NULL}, /* max_depth 8 */
    /* Paths the call refuses: one inside another, empty segments, too many. */
    {JOB, {"spec", "spec.template"}, CW_EINVAL, 0, NULL},
    {JOB, {"spec..template"}, CW_EINVAL, 0, NULL},
    {JOB, {"a", "b", "c", "d", "e", NULL}, CW_EINVAL, 0, NULL},
    /* As many paths as allowed is fine. */
    {JOB,
     {"a", "b", "c", "spec.template.spec", NULL},
     CW_OK,
     1,
     "{\"kind\": \"Job\", \"metadata\": {\"name\": \"j\"},\n \"spec\": {\"backoffLimit\": 3, "
     "\"template\": {\"metadata\": {}, \"spec\": null}},\n \"status\": {\"failed\": 1}}"},
    {JOB, {"a.b.c.d.e.f.g"}, CW_EINVAL, 0, NULL},
    {JOB, {"a.b.c.d.e.f"}, CW_OK, 0, JOB}, /* as many segments as allowed */
};

static void every_case(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const prune_case *c = &cases[i];
        assert_null(c->paths[ROW_PATHS - 1]); /* the row's terminator */
        cw_buf out;
        cw_buf_init(&out);
        size_t pruned = 99;
        int rc = cw_json_prune(c->text, strlen(c->text), 8, c->paths, &out, &pruned);
        if (rc != c->rc ||
            (rc == CW_OK && (pruned != c->pruned || strcmp(cw_buf_str(&out), c->want))))
            fail_msg("case %zu: rc %d pruned %zu out %s", i, rc, pruned, cw_buf_str(&out));
        if (rc != CW_OK)
            assert_int_equal(out.len, 0);
        cw_buf_free(&out);
    }
}

/* cw_json_prune_text: values as strings of their text, those over `max` bytes as their length. */
static const struct {
    const char *text, *path;
    size_t max, pruned;
    const char *want;
} text_cases[] = {
    /* {"a":[1]} is 9 bytes: at the limit its text, over it its length. */
    {"{\"items\":[{\"spec\":{\"a\":[1]}},{\"spec\":{\"b\":[1,2,3,4]}}]}", "items.spec", 9, 2,
     "{\"items\":[{\"spec\":\"{\\\"a\\\":[1]}\"},{\"spec\":15}]}"},
    {"{\"items\":[{\"spec\":{\"a\":[1]}},{\"spec\":{\"b\":[1,2,3,4]}}]}", "items.spec", 8, 2,
     "{\"items\":[{\"spec\":9},{\"spec\":15}]}"},
    /* A watch event's object; whitespace around the value stays, inside it is escaped; a string
     * value's escapes are escaped again. */
    {"{\"type\":\"ADDED\",\"object\":{\"spec\":{\"backupSpec\": {\"x\":\n\"a\\\\b\"} }}}",
     "object.spec.backupSpec", 100, 1,
     "{\"type\":\"ADDED\",\"object\":{\"spec\":{\"backupSpec\": "
     "\"{\\\"x\\\":\\u000a\\\"a\\\\\\\\b\\\"}\" }}}"},
    {"{\"object\":{\"spec\":{\"other\":1}}}", "object.spec.backupSpec", 5, 0,
     "{\"object\":{\"spec\":{\"other\":1}}}"},
};

static void text_case(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(text_cases) / sizeof(text_cases[0]); i++) {
        const char *paths[] = {text_cases[i].path, NULL};
        cw_buf out;
        size_t pruned = 99;
        cw_buf_init(&out);
        int rc = cw_json_prune_text(text_cases[i].text, strlen(text_cases[i].text), 8, paths,
                                    text_cases[i].max, &out, &pruned);
        if (rc != CW_OK || pruned != text_cases[i].pruned ||
            strcmp(cw_buf_str(&out), text_cases[i].want))
            fail_msg("text case %zu: rc %d pruned %zu out %s", i, rc, pruned, cw_buf_str(&out));
        cw_buf_free(&out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(every_case), cmocka_unit_test(text_case)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
