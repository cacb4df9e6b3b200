#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "lib/strlist.h"

static void buf_appends_and_formats(void **state)
{
    (void)state;
    cw_buf b;
    cw_buf_init(&b);
    assert_string_equal(cw_buf_str(&b), "");
    assert_int_equal(cw_buf_puts(&b, "abc"), 0);
    assert_int_equal(cw_buf_printf(&b, "-%d-%s", 42, "x"), 0);
    assert_string_equal(cw_buf_str(&b), "abc-42-x");
    assert_int_equal(b.len, 8);
    cw_buf_reset(&b);
    assert_string_equal(cw_buf_str(&b), "");
    cw_buf_free(&b);
}

static void buf_printf_grows_past_stack_scratch(void **state)
{
    (void)state;
    cw_buf b;
    cw_buf_init(&b);
    char big[1000];
    memset(big, 'z', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    assert_int_equal(cw_buf_printf(&b, "<%s>", big), 0);
    assert_int_equal(b.len, 1001);
    assert_int_equal(b.data[0], '<');
    assert_int_equal(b.data[1000], '>');
    char *s = cw_buf_detach(&b);
    assert_int_equal(strlen(s), 1001);
    assert_null(b.data);
    free(s);
}

static void strlist_joins_sorts_and_finds(void **state)
{
    (void)state;
    cw_strlist l;
    cw_strlist_init(&l);
    cw_strlist_add(&l, "b");
    cw_strlist_addf(&l, "a%d", 1);
    cw_strlist_add(&l, "c");
    cw_strlist_sort(&l);
    char *j = cw_strlist_join(&l, ", ");
    assert_string_equal(j, "a1, b, c");
    free(j);
    assert_true(cw_strlist_contains(&l, "b"));
    assert_false(cw_strlist_contains(&l, "a"));
    cw_strlist_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buf_appends_and_formats),
        cmocka_unit_test(buf_printf_grows_past_stack_scratch),
        cmocka_unit_test(strlist_joins_sorts_and_finds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
