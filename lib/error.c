#include "lib/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cw_error_init(cw_error *err)
{
    if (!err)
        return;
    err->code = CW_OK;
    err->http_status = 0;
    err->message[0] = '\0';
}

int cw_error_set(cw_error *err, int code, const char *fmt, ...)
{
    if (!err)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    err->code = code;
    return code;
}

int cw_error_prefix(cw_error *err, const char *fmt, ...)
{
    if (!err)
        return CW_EINVAL;
    char prefix[512];
    char old[sizeof(err->message)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, err->message, sizeof(old));
    /* Truncation is acceptable: the start of the message carries the context. */
    size_t n = strlen(prefix);
    if (n > sizeof(err->message) - 3)
        n = sizeof(err->message) - 3;
    memcpy(err->message, prefix, n);
    memcpy(err->message + n, ": ", 2);
    size_t rest = sizeof(err->message) - n - 3;
    size_t olen = strnlen(old, rest);
    memcpy(err->message + n + 2, old, olen);
    err->message[n + 2 + olen] = '\0';
    return err->code;
}

const char *cw_error_code_name(int code)
{
    switch (code) {
    case CW_OK:
        return "ok";
    case CW_EINVAL:
        return "invalid";
    case CW_ENOMEM:
        return "out of memory";
    case CW_EIO:
        return "i/o error";
    case CW_ENOTFOUND:
        return "not found";
    case CW_ECONFLICT:
        return "conflict";
    case CW_EHTTP:
        return "api error";
    case CW_ETRANSPORT:
        return "transport error";
    case CW_EUSAGE:
        return "usage error";
    case CW_ELIMIT:
        return "limit exceeded";
    case CW_EDEFER:
        return "held back";
    default:
        return "error";
    }
}

int cw_error_oom(cw_error *err)
{
    return err ? cw_error_set(err, CW_ENOMEM, "out of memory") : CW_ENOMEM;
}
