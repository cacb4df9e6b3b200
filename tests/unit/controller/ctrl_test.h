/* Helpers shared by the controller's unit tests: JSON written with ' for " in tables, RFC 3339
 * times, and exact comparison of JSON values with both sides printed on a mismatch. */
#ifndef CW_TEST_CTRL_H
#define CW_TEST_CTRL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/json.h"
#include "cron/tz.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Tables write JSON with ' for " to stay readable; this parses such text (NULL stays NULL). */
__attribute__((unused)) static json_object *tjson(const char *text)
{
    if (!text)
        return NULL;
    char *s = strdup(text);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    json_object *o = json_tokener_parse(s);
    if (!o)
        fail_msg("bad JSON in a table: %s", s);
    free(s);
    return o;
}

__attribute__((unused)) static int64_t ttime(const char *rfc3339)
{
    int64_t t;
    int32_t off;
    cw_error err;
    if (cw_tz_parse_rfc3339(rfc3339, &t, &off, &err) != CW_OK)
        fail_msg("bad time in a table: %s: %s", rfc3339, err.message);
    return t;
}

/* got must equal the table's JSON (want, ' for "; NULL: got must be NULL). */
__attribute__((unused)) static void expect_json(json_object *got, const char *want,
                                                const char *what, const char *label)
{
    json_object *w = tjson(want);
    if (!w && !got) {
        return;
    }
    if (!w || !got || !json_object_equal(w, got)) {
        char *g = strdup(got ? cw_json_compact(got) : "NULL");
        fail_msg("%s: %s\n got: %s\nwant: %s", label, what, g, w ? cw_json_compact(w) : "NULL");
    }
    json_object_put(w);
}

#endif
