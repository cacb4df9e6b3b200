/* lib/strmap: a table of operations with their exact results, and a churn run against a plain
 * array (insert, replace, remove across many grow steps and wrap-arounds of the probe runs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/strmap.h"

typedef enum { PUT, SET, GET, DEL, LEN } op_kind;

typedef struct op {
    op_kind kind;
    const char *key;
    uintptr_t value; /* PUT/SET: the value; GET/DEL: the value expected (0: absent) */
    int want;        /* PUT: 1 inserted / 0 present; GET, DEL: 1 present; LEN: the length */
    uintptr_t other; /* PUT: the existing value reported; SET: the old value reported */
} op;

static const op script[] = {
    {GET, "a", 0, 0, 0},  {DEL, "a", 0, 0, 0},  {LEN, NULL, 0, 0, 0},
    {PUT, "a", 1, 1, 0},  {PUT, "a", 9, 0, 1}, /* put never replaces */
    {GET, "a", 1, 1, 0},  {SET, "a", 2, 0, 1}, /* set replaces and reports the old value */
    {GET, "a", 2, 1, 0},  {SET, "b", 3, 0, 0},  {PUT, "", 4, 1, 0}, /* the empty key is a key */
    {GET, "", 4, 1, 0},   {LEN, NULL, 0, 3, 0}, {DEL, "a", 2, 1, 0},
    {GET, "a", 0, 0, 0},  {GET, "b", 3, 1, 0},  {DEL, "a", 0, 0, 0},
    {LEN, NULL, 0, 2, 0}, {PUT, "a", 5, 1, 0},  {GET, "a", 5, 1, 0},
};

static void strmap_script(void **state)
{
    (void)state;
    cw_strmap m;
    cw_strmap_init(&m);
    for (size_t i = 0; i < sizeof(script) / sizeof(script[0]); i++) {
        const op *o = &script[i];
        void *v = (void *)(uintptr_t)0xdead;
        size_t klen = o->key ? strlen(o->key) : 0;
        switch (o->kind) {
        case PUT:
            assert_int_equal(cw_strmap_put(&m, o->key, klen, (void *)o->value, &v), o->want);
            if (!o->want)
                assert_int_equal((uintptr_t)v, o->other);
            break;
        case SET:
            assert_int_equal(cw_strmap_set(&m, o->key, klen, (void *)o->value, &v), 0);
            assert_int_equal((uintptr_t)v, o->other);
            break;
        case GET:
            assert_int_equal(cw_strmap_get(&m, o->key, klen, &v), o->want);
            assert_int_equal((uintptr_t)cw_strmap_get_s(&m, o->key), o->value);
            break;
        case DEL:
            assert_int_equal(cw_strmap_del(&m, o->key, klen, &v), o->want);
            if (o->want)
                assert_int_equal((uintptr_t)v, o->value);
            break;
        case LEN:
            assert_int_equal(m.len, (size_t)o->want);
            break;
        }
    }
    cw_strmap_free(&m, NULL);
}

/* xorshift: the same sequence on every run. */
static uint32_t next_rand(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void strmap_churn_matches_an_array(void **state)
{
    (void)state;
    enum { KEYS = 3000, STEPS = 60000 };
    static uintptr_t truth[KEYS]; /* 0: absent */
    cw_strmap m;
    cw_strmap_init(&m);
    memset(truth, 0, sizeof(truth));
    uint32_t seed = 2463534242u;
    size_t live = 0;
    char key[32];
    for (uintptr_t step = 1; step <= STEPS; step++) {
        uint32_t r = next_rand(&seed);
        size_t k = r % KEYS;
        snprintf(key, sizeof(key), "ns-%zu/volume-%zu", k % 7, k);
        if (r >> 30) { /* three in four: set */
            void *old = NULL;
            assert_int_equal(cw_strmap_set_s(&m, key, (void *)step, &old), 0);
            assert_int_equal((uintptr_t)old, truth[k]);
            live += truth[k] ? 0 : 1;
            truth[k] = step;
        } else {
            assert_int_equal((uintptr_t)cw_strmap_del_s(&m, key), truth[k]);
            live -= truth[k] ? 1 : 0;
            truth[k] = 0;
        }
        assert_int_equal(m.len, live);
    }
    for (size_t k = 0; k < KEYS; k++) {
        snprintf(key, sizeof(key), "ns-%zu/volume-%zu", k % 7, k);
        assert_int_equal((uintptr_t)cw_strmap_get_s(&m, key), truth[k]);
        assert_int_equal(cw_strmap_has_s(&m, key), truth[k] != 0);
    }
    cw_strmap_free(&m, NULL);
}

static int count_entry(void *ud, const char *key, void *value)
{
    (void)key;
    *(uintptr_t *)ud += (uintptr_t)value;
    return 0;
}

static void strmap_walk_and_free_values(void **state)
{
    (void)state;
    cw_strmap m;
    cw_strmap_init(&m);
    for (uintptr_t i = 1; i <= 100; i++) {
        char key[16];
        snprintf(key, sizeof(key), "k%u", (unsigned)i);
        assert_int_equal(cw_strmap_put(&m, key, strlen(key), (void *)i, NULL), 1);
    }
    uintptr_t sum = 0;
    cw_strmap_walk(&m, count_entry, &sum);
    assert_int_equal(sum, 5050);
    cw_strmap_free(&m, NULL);
    assert_int_equal(m.len, 0);
    /* owned values go through the free function */
    assert_int_equal(cw_strmap_set_s(&m, "x", strdup("value"), NULL), 0);
    cw_strmap_free(&m, free);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strmap_script),
        cmocka_unit_test(strmap_churn_matches_an_array),
        cmocka_unit_test(strmap_walk_and_free_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
