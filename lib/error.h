/* Error reporting shared by every module: a code plus a message a user can act on. */
#ifndef CW_ERROR_H
#define CW_ERROR_H

/* On a function whose result must be looked at: an ignored one is a compiler warning (an error
 * with -Werror). A (void) cast does not silence it; handle the result. */
#define CW_MUST_CHECK __attribute__((warn_unused_result))

#include <stddef.h>

enum {
    CW_OK = 0,
    CW_EINVAL = -1,     /* the input is wrong (bad cron, bad field type, bad flag value) */
    CW_ENOMEM = -2,     /* allocation failed */
    CW_EIO = -3,        /* file or socket I/O failed */
    CW_ENOTFOUND = -4,  /* the object or file does not exist */
    CW_ECONFLICT = -5,  /* optimistic concurrency or naming conflict */
    CW_EHTTP = -6,      /* the API server answered with an error Status */
    CW_ETRANSPORT = -7, /* the request did not complete (connect, TLS, timeout) */
    CW_EUSAGE = -8,     /* command-line misuse */
    CW_ELIMIT = -9,     /* a size, depth or count limit was exceeded */
    CW_EDEFER = -10,    /* held back on purpose (a reconciler standing down, a write war) */
};

typedef struct cw_error {
    int code;
    int http_status; /* for CW_EHTTP: the HTTP status code; 0 otherwise */
    char message[1024];
} cw_error;

void cw_error_init(cw_error *err);
/* Sets code and message; returns code so callers can write `return cw_error_set(...)`.
 * Accepts err == NULL. */
int cw_error_set(cw_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prepends "context: " to the existing message (keeps the code). Returns err->code. */
int cw_error_prefix(cw_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The one out-of-memory report: CW_ENOMEM with "out of memory" (err may be NULL). */
int cw_error_oom(cw_error *err);

const char *cw_error_code_name(int code);

#endif
