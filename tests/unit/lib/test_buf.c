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

/* The first failure sticks (curl's dynbuf): later appends change nothing, one check says it. */
static void failures_are_sticky(void **state)
{
    (void)state;
    cw_buf b;
    cw_buf_init(&b);
    assert_int_equal(cw_buf_puts(&b, "kept"), CW_OK);
    assert_int_equal(cw_buf_append(&b, "", (size_t)-1 / 2 + 1), CW_ENOMEM); /* cannot be had */
    assert_int_equal(cw_buf_puts(&b, "x"), CW_ENOMEM);
    assert_int_equal(cw_buf_printf(&b, "%d", 1), CW_ENOMEM);
    assert_int_equal(cw_buf_putc(&b, 'y'), CW_ENOMEM);
    assert_string_equal(cw_buf_str(&b), "kept");
    assert_int_equal(cw_buf_error(&b), CW_ENOMEM);
    assert_null(cw_buf_detach(&b)); /* and the buffer is freed */
    assert_int_equal(cw_buf_error(&b), CW_OK);
    assert_int_equal(cw_buf_puts(&b, "again"), CW_OK);
    assert_string_equal(cw_buf_str(&b), "again");
    cw_buf_free(&b);

    cw_strlist l;
    cw_strlist_init(&l);
    assert_int_equal(cw_strlist_add(&l, "a"), CW_OK);
    assert_int_equal(cw_strlist_take(&l, NULL), CW_ENOMEM); /* a failed strdup */
    assert_int_equal(cw_strlist_add(&l, "b"), CW_ENOMEM);
    assert_int_equal(cw_strlist_addf(&l, "%s", "c"), CW_ENOMEM);
    assert_int_equal(l.len, 1);
    assert_int_equal(cw_strlist_error(&l), CW_ENOMEM);
    cw_strlist_free(&l);
    assert_int_equal(cw_strlist_error(&l), CW_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(failures_are_sticky),
        cmocka_unit_test(buf_appends_and_formats),
        cmocka_unit_test(buf_printf_grows_past_stack_scratch),
        cmocka_unit_test(strlist_joins_sorts_and_finds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
