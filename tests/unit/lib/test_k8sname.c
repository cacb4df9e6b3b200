/* Cases and texts follow k8s.io/apimachinery/pkg/util/validation IsQualifiedName and
 * IsDNS1123Subdomain (first reason only). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/k8sname.h"

#define SIXTY "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij" /* 60 characters */
#define NAME_CHARS                                                                                 \
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "  \
    "with an alphanumeric character"
#define PREFIX_CHARS                                                                               \
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "          \
    "characters, '-' or '.', and must start and end with an alphanumeric character"

static void qualified_names(void **state)
{
    (void)state;
    static const struct {
        const char *in, *why; /* why NULL: valid */
    } cases[] = {
        {"app", NULL},
        {"MyName", NULL},
        {"my.name_x-1", NULL},
        {"recurring-job.longhorn.io/daily", NULL},
        {"recurring-job-group.longhorn.io/default", NULL},
        {"example.com/A", NULL},
        {"", "name part must be non-empty"},
        {"example.com/", "name part must be non-empty"},
        {"/name", "prefix part must be non-empty"},
        {"a-", NAME_CHARS},
        {"-a", NAME_CHARS},
        {"a b", NAME_CHARS},
        {"recurring-job.longhorn.io/job-", NAME_CHARS},
        {"Example.com/a", PREFIX_CHARS},
        {"example..com/a", PREFIX_CHARS},
        {"-example.com/a", PREFIX_CHARS},
        {"a/b/c", "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and "
                  "must start and end with an alphanumeric character, with an optional DNS "
                  "subdomain prefix and '/' (e.g. 'example.com/MyName')"},
        {SIXTY "abc", NULL},
        {SIXTY "abcd", "name part must be no more than 63 characters"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *why = cw_k8sname_check_qualified(cases[i].in);
        if (!cases[i].why)
            assert_null(why);
        else
            assert_string_equal(why, cases[i].why);
    }
}

static void subdomains(void **state)
{
    (void)state;
    char long_name[300];
    memset(long_name, 'a', 254);
    long_name[254] = '\0';
    assert_null(cw_k8sname_check_subdomain("longhorn.io"));
    assert_null(cw_k8sname_check_subdomain("a"));
    assert_non_null(cw_k8sname_check_subdomain(""));
    assert_non_null(cw_k8sname_check_subdomain("a."));
    assert_non_null(cw_k8sname_check_subdomain("A"));
    assert_string_equal(cw_k8sname_check_subdomain(long_name),
                        "must be no more than 253 characters");
    long_name[253] = '\0';
    assert_null(cw_k8sname_check_subdomain(long_name));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(qualified_names),
        cmocka_unit_test(subdomains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
