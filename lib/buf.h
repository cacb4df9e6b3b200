/* A growable byte buffer, always NUL-terminated. */
#ifndef CW_BUF_H
#define CW_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct cw_buf {
    char *data; /* NUL-terminated; NULL until the first append */
    size_t len;
    size_t cap;
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
/* Returns the string ("" when empty); the buffer keeps ownership. */
const char *cw_buf_str(const cw_buf *b);
/* Hands the allocation to the caller (never NULL on success) and re-initialises the buffer. */
char *cw_buf_detach(cw_buf *b);

#endif
