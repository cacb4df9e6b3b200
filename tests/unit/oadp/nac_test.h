/* What the non-admin rule tests share (tests/unit/oadp/test_nonadmin*.c). */
#ifndef CW_TEST_NAC_H
#define CW_TEST_NAC_H

#include "tests/unit/controller/ctrl_test.h"

/* A check's message against a table row: want NULL means accepted. Frees msg. */
__attribute__((unused)) static void expect_msg(const char *label, char *msg, const char *want)
{
    if (!want && msg)
        fail_msg("%s: refused: %s", label, msg);
    if (want && (!msg || strcmp(msg, want)))
        fail_msg("%s:\n got: %s\nwant: %s", label, msg ? msg : "(accepted)", want);
    free(msg);
}

#endif
