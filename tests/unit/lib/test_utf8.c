/* lib/utf8: the well-formedness rules Go's utf8 package applies, byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/utf8.h"

static void sequences_and_their_lengths(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        const char *s;
        size_t len;
        size_t want_seq;     /* cw_utf8_seq_len of the first byte */
        size_t want_invalid; /* cw_utf8_invalid_at of the whole */
    } cases[] = {
        {"ASCII", "a", 1, 1, 1},
        {"NUL is ASCII", "\0", 1, 1, 1},
        {"DEL", "\x7f", 1, 1, 1},
        {"2 bytes lowest (U+0080)", "\xc2\x80", 2, 2, 2},
        {"2 bytes highest (U+07FF)", "\xdf\xbf", 2, 2, 2},
        {"overlong 2 bytes C0", "\xc0\x80", 2, 0, 0},
        {"overlong 2 bytes C1", "\xc1\xbf", 2, 0, 0},
        {"3 bytes lowest (U+0800)", "\xe0\xa0\x80", 3, 3, 3},
        {"overlong 3 bytes", "\xe0\x9f\xbf", 3, 0, 0},
        {"euro sign", "\xe2\x82\xac", 3, 3, 3},
        {"last before surrogates (U+D7FF)", "\xed\x9f\xbf", 3, 3, 3},
        {"high surrogate U+D800", "\xed\xa0\x80", 3, 0, 0},
        {"low surrogate U+DFFF", "\xed\xbf\xbf", 3, 0, 0},
        {"first after surrogates (U+E000)", "\xee\x80\x80", 3, 3, 3},
        {"U+FFFF", "\xef\xbf\xbf", 3, 3, 3},
        {"4 bytes lowest (U+10000)", "\xf0\x90\x80\x80", 4, 4, 4},
        {"overlong 4 bytes", "\xf0\x8f\xbf\xbf", 4, 0, 0},
        {"U+10FFFF", "\xf4\x8f\xbf\xbf", 4, 4, 4},
        {"above U+10FFFF", "\xf4\x90\x80\x80", 4, 0, 0},
        {"F5 lead byte", "\xf5\x80\x80\x80", 4, 0, 0},
        {"FF byte", "\xff", 1, 0, 0},
        {"stray continuation", "\x80", 1, 0, 0},
        {"truncated 2 of 3", "\xe2\x82", 2, 0, 0},
        {"truncated 3 of 4", "\xf0\x9f\x98", 3, 0, 0},
        {"bad second byte", "\xc3\x28", 2, 0, 0},
        {"bad third byte", "\xe2\x82\x28", 3, 0, 0},
        {"bad fourth byte", "\xf0\x9f\x98\x28", 4, 0, 0},
        {"valid then invalid", "caf\xc3\xa9\xff!", 7, 1, 5},
        {"emoji in text", "ok \xf0\x9f\x98\x80 ok", 10, 1, 10},
        {"truncated at the end", "abc\xe2\x82", 5, 1, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        print_message("case %s\n", cases[i].name);
        assert_int_equal(cw_utf8_seq_len((const unsigned char *)cases[i].s, cases[i].len),
                         cases[i].want_seq);
        assert_int_equal(cw_utf8_invalid_at(cases[i].s, cases[i].len), cases[i].want_invalid);
    }
    assert_int_equal(cw_utf8_invalid_at("", 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sequences_and_their_lengths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
