#include "lib/buf.h"
#include "lib/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cw_buf_init(cw_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->err = CW_OK;
}

int cw_buf_error(const cw_buf *b)
{
    return b->err;
}

void cw_buf_free(cw_buf *b)
{
    free(b->data);
    cw_buf_init(b);
}

void cw_buf_reset(cw_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

int cw_buf_reserve(cw_buf *b, size_t extra)
{
    if (b->err)
        return b->err;
    if (b->len + extra + 1 <= b->cap)
        return CW_OK;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) {
        if (cap > ((size_t)-1) / 2 || extra > ((size_t)-1) / 2)
            return b->err = CW_ENOMEM;
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p)
        return b->err = CW_ENOMEM;
    b->data = p;
    b->cap = cap;
    return CW_OK;
}

int cw_buf_append(cw_buf *b, const void *data, size_t len)
{
    int rc = cw_buf_reserve(b, len);
    if (rc != CW_OK)
        return rc;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return CW_OK;
}

int cw_buf_puts(cw_buf *b, const char *s)
{
    return cw_buf_append(b, s, strlen(s));
}

int cw_buf_putc(cw_buf *b, char c)
{
    return cw_buf_append(b, &c, 1);
}

int cw_buf_vprintf(cw_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof(small), fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return CW_EINVAL;
    if ((size_t)n < sizeof(small))
        return cw_buf_append(b, small, (size_t)n);
    int rc = cw_buf_reserve(b, (size_t)n);
    if (rc != CW_OK)
        return rc;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return CW_OK;
}

int cw_buf_printf(cw_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = cw_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

const char *cw_buf_str(const cw_buf *b)
{
    return b->data ? b->data : "";
}

char *cw_buf_detach(cw_buf *b)
{
    if (cw_buf_reserve(b, 0) != CW_OK) {
        cw_buf_free(b);
        return NULL;
    }
    if (b->len == 0)
        b->data[0] = '\0';
    char *p = b->data;
    cw_buf_init(b);
    return p;
}
