/* A growable byte buffer, always NUL-terminated. Allocation failures are sticky, as in curl's
 * dynbuf: the first one is remembered, every later append returns it at once and changes
 * nothing, so a caller can append many pieces and check once, with cw_buf_error (or the result of
 * the last append). cw_buf_init/cw_buf_free clear it. */
#ifndef CW_BUF_H
#define CW_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "lib/error.h"

typedef struct cw_buf {
    char *data; /* NUL-terminated; NULL until the first append */
    size_t len;
    size_t cap;
    int err; /* CW_OK, or the first failure (CW_ENOMEM) */
} cw_buf;

void cw_buf_init(cw_buf *b);
void cw_buf_free(cw_buf *b);
void cw_buf_reset(cw_buf *b); /* len = 0, keeps the allocation */
int cw_buf_reserve(cw_buf *b, size_t extra);
int cw_buf_append(cw_buf *b, const void *data, size_t len);
int cw_buf_puts(cw_buf *b, const char *s);
int cw_buf_putc(cw_buf *b, char c);
int cw_buf_printf(cw_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cw_buf_vprintf(cw_buf *b, const char *fmt, va_list ap);
/* CW_OK, or the first failure of an append since cw_buf_init. */
int cw_buf_error(const cw_buf *b);
/* Returns the string ("" when empty); the buffer keeps ownership. */
const char *cw_buf_str(const cw_buf *b);
/* Hands the allocation to the caller and re-initialises the buffer; NULL (and the buffer freed)
 * when an append failed or memory ran out. */
char *cw_buf_detach(cw_buf *b) CW_MUST_CHECK;

#endif
