#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/json.h"

static void pointer_tokens_are_escaped(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b, *want;
    } cases[] = {
        {"metadata", "labels", "/metadata/labels"},
        {"labels", "recurring-job.longhorn.io/daily", "/labels/recurring-job.longhorn.io~1daily"},
        {"a~b", "c/d~e", "/a~0b/c~1d~0e"},
        {"", "x", "//x"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *p = cw_jptr(cases[i].a, cases[i].b, NULL);
        assert_string_equal(p, cases[i].want);
        free(p);
    }
}

static void typed_getters_name_the_field(void **state)
{
    (void)state;
    json_object *o =
        json_tokener_parse("{\"retain\":\"x\",\"task\":\"backup\",\"n\":null,\"c\":3}");
    cw_error err;
    cw_error_init(&err);
    int64_t v = 0;
    int present = 0;
    assert_int_equal(cw_json_opt_int(o, "spec.recurringJobs[2]", "retain", &v, &present, &err),
                     CW_EINVAL);
    assert_string_equal(err.message, "spec.recurringJobs[2].retain: expected integer, got string");
    const char *s = NULL;
    assert_int_equal(cw_json_opt_string(o, "spec", "task", &s, &err), CW_OK);
    assert_string_equal(s, "backup");
    assert_int_equal(cw_json_opt_string(o, "spec", "n", &s, &err), CW_OK);
    assert_null(s);
    assert_int_equal(cw_json_opt_int(o, "", "c", &v, &present, &err), CW_OK);
    assert_int_equal(v, 3);
    assert_int_equal(present, 1);
    assert_int_equal(cw_json_opt_string(o, "", "c", &s, &err), CW_EINVAL);
    assert_string_equal(err.message, "c: expected string, got integer");
    json_object_put(o);
}

static void patch_ops_are_built_in_order(void **state)
{
    (void)state;
    json_object *ops = json_object_new_array();
    cw_jpatch_op(ops, "add", "/metadata/labels", json_object_new_object());
    cw_jpatch_op(ops, "remove", "/spec/recurringJobs", NULL);
    cw_jpatch_op(ops, "replace", "/spec/concurrency", json_object_new_int(10));
    assert_string_equal(cw_json_compact(ops),
                        "[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{}},"
                        "{\"op\":\"remove\",\"path\":\"/spec/recurringJobs\"},"
                        "{\"op\":\"replace\",\"path\":\"/spec/concurrency\",\"value\":10}]");
    json_object_put(ops);
}

static void dotted_path_walks_objects(void **state)
{
    (void)state;
    json_object *o =
        json_tokener_parse("{\"metadata\":{\"name\":\"v1\",\"labels\":{\"a\":\"b\"}}}");
    assert_string_equal(cw_json_path_string(o, "metadata.name"), "v1");
    assert_null(cw_json_path_string(o, "metadata.namespace"));
    assert_null(cw_json_path_string(o, "metadata.name.x"));
    assert_non_null(cw_json_path(o, "metadata.labels"));
    json_object_put(o);
}

static void keep_copies_only_the_members_named(void **state)
{
    (void)state;
    static const char *const paths[] = {"metadata.name", "metadata.labels|a.b/c", "status.phase",
                                        "spec.missing",  "metadata.labels|x/y",   NULL};
    json_object *o = json_tokener_parse(
        "{\"metadata\":{\"name\":\"v\",\"uid\":\"u\",\"labels\":{\"a.b/c\":\"1\",\"d\":\"2\"}},"
        "\"spec\":{\"big\":[1,2,3]},\"status\":{\"phase\":\"Done\",\"n\":3}}");
    json_object *k = cw_json_keep(o, paths);
    assert_string_equal(cw_json_compact(k), "{\"metadata\":{\"name\":\"v\",\"labels\":{\"a.b/c\":"
                                            "\"1\"}},\"status\":{\"phase\":\"Done\"}}");
    json_object_put(o); /* the kept members are shared, not freed with the original */
    assert_string_equal(cw_json_path_string(k, "status.phase"), "Done");
    json_object_put(k);
}

static void owner_references_as_kubernetes_writes_them(void **state)
{
    (void)state;
    json_object *gc = cw_json_owner_refs("longhorn.io/v1beta2", "RecurringJob", "daily", "u-1", 0);
    json_object *ctl = cw_json_owner_refs("velero.io/v1", "Schedule", "nightly", "u-2", 1);
    assert_string_equal(cw_json_compact(gc),
                        "[{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":"
                        "\"RecurringJob\",\"name\":\"daily\",\"uid\":\"u-1\"}]");
    assert_string_equal(cw_json_compact(ctl),
                        "[{\"apiVersion\":\"velero.io/v1\",\"kind\":\"Schedule\",\"name\":"
                        "\"nightly\",\"uid\":\"u-2\",\"controller\":true}]");
    json_object_put(gc);
    json_object_put(ctl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pointer_tokens_are_escaped),
        cmocka_unit_test(typed_getters_name_the_field),
        cmocka_unit_test(patch_ops_are_built_in_order),
        cmocka_unit_test(dotted_path_walks_objects),
        cmocka_unit_test(keep_copies_only_the_members_named),
        cmocka_unit_test(owner_references_as_kubernetes_writes_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
