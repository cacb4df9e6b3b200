/* Structured logging (logfmt text or JSON lines) to stderr. The level, format and stream are
 * process configuration, set once at start-up by main(). */
#ifndef CW_LOG_H
#define CW_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { CW_LOG_DEBUG = 0, CW_LOG_INFO, CW_LOG_WARN, CW_LOG_ERROR, CW_LOG_OFF } cw_log_level;
typedef enum { CW_LOG_TEXT = 0, CW_LOG_JSON } cw_log_format;

typedef enum { CW_LF_STR, CW_LF_INT, CW_LF_DBL, CW_LF_BOOL } cw_log_field_type;

typedef struct cw_log_field {
    const char *key;
    cw_log_field_type type;
    union {
        const char *s;
        long long i;
        double d;
        int b;
    } v;
} cw_log_field;

#define CW_LS(k, x) ((cw_log_field){.key = (k), .type = CW_LF_STR, .v.s = (x)})
#define CW_LI(k, x) ((cw_log_field){.key = (k), .type = CW_LF_INT, .v.i = (long long)(x)})
#define CW_LD(k, x) ((cw_log_field){.key = (k), .type = CW_LF_DBL, .v.d = (double)(x)})
#define CW_LB(k, x) ((cw_log_field){.key = (k), .type = CW_LF_BOOL, .v.b = !!(x)})

void cw_log_configure(cw_log_level level, cw_log_format format, FILE *stream);
int cw_log_parse_level(const char *s, cw_log_level *out);
int cw_log_parse_format(const char *s, cw_log_format *out);
int cw_log_enabled(cw_log_level level);
void cw_log_emit(cw_log_level level, const char *msg, const cw_log_field *fields, size_t n);

/* cw_log(CW_LOG_INFO, "request", CW_LS("uid", uid), CW_LI("duration_us", us)); */
#define cw_log(level, msg, ...)                                                                    \
    do {                                                                                           \
        if (cw_log_enabled(level)) {                                                               \
            const cw_log_field cw_lf_[] = {{0}, ##__VA_ARGS__};                                    \
            cw_log_emit((level), (msg), cw_lf_ + 1, sizeof(cw_lf_) / sizeof(cw_lf_[0]) - 1);       \
        }                                                                                          \
    } while (0)

#endif
