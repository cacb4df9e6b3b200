/* An owned list of strings (warnings, problems, flag values). Allocation failures are sticky as
 * in cw_buf: after the first, adds return it at once, and cw_strlist_error says it once. */
#ifndef CW_STRLIST_H
#define CW_STRLIST_H

#include <stddef.h>

#include "lib/error.h"

typedef struct cw_strlist {
    char **items;
    size_t len;
    size_t cap;
    int err; /* CW_OK, or the first failure (CW_ENOMEM) */
} cw_strlist;

void cw_strlist_init(cw_strlist *l);
void cw_strlist_free(cw_strlist *l);
void cw_strlist_clear(cw_strlist *l);
int cw_strlist_add(cw_strlist *l, const char *s);
int cw_strlist_addf(cw_strlist *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Takes ownership of s (freed on failure too). */
int cw_strlist_take(cw_strlist *l, char *s);
int cw_strlist_contains(const cw_strlist *l, const char *s);
/* CW_OK, or the first failure of an add since cw_strlist_init. */
int cw_strlist_error(const cw_strlist *l);
/* Joins with sep into a new string owned by the caller (NULL on allocation failure). */
char *cw_strlist_join(const cw_strlist *l, const char *sep) CW_MUST_CHECK;
void cw_strlist_sort(cw_strlist *l);

#endif
