#include "lib/strlist.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cw_strlist_init(cw_strlist *l)
{
    l->items = NULL;
    l->len = 0;
    l->cap = 0;
    l->err = CW_OK;
}

int cw_strlist_error(const cw_strlist *l)
{
    return l->err;
}

void cw_strlist_clear(cw_strlist *l)
{
    for (size_t i = 0; i < l->len; i++)
        free(l->items[i]);
    l->len = 0;
}

void cw_strlist_free(cw_strlist *l)
{
    cw_strlist_clear(l);
    free(l->items);
    cw_strlist_init(l);
}

int cw_strlist_take(cw_strlist *l, char *s)
{
    if (l->err || !s ||
        cw_grow((void **)&l->items, &l->cap, l->len, sizeof(*l->items), 4) != CW_OK) {
        free(s);
        return l->err = CW_ENOMEM;
    }
    l->items[l->len++] = s;
    return CW_OK;
}

int cw_strlist_add(cw_strlist *l, const char *s)
{
    return cw_strlist_take(l, strdup(s));
}

int cw_strlist_addf(cw_strlist *l, const char *fmt, ...)
{
    cw_buf b;
    cw_buf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    int rc = cw_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (rc != CW_OK) {
        cw_buf_free(&b);
        return l->err = CW_ENOMEM;
    }
    return cw_strlist_take(l, cw_buf_detach(&b));
}

int cw_strlist_contains(const cw_strlist *l, const char *s)
{
    for (size_t i = 0; i < l->len; i++)
        if (strcmp(l->items[i], s) == 0)
            return 1;
    return 0;
}

char *cw_strlist_join(const cw_strlist *l, const char *sep)
{
    cw_buf b;
    cw_buf_init(&b);
    for (size_t i = 0; i < l->len; i++) {
        if ((i && cw_buf_puts(&b, sep) != CW_OK) || cw_buf_puts(&b, l->items[i]) != CW_OK) {
            cw_buf_free(&b);
            return NULL;
        }
    }
    return cw_buf_detach(&b);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void cw_strlist_sort(cw_strlist *l)
{
    if (l->len > 1)
        qsort(l->items, l->len, sizeof(char *), cmp_str);
}
