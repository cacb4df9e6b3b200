#include "lib/log.h"
#include "lib/buf.h"
#include "lib/error.h"

#include <json-c/json.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

/* Process configuration (the only globals the style allows). */
static cw_log_level g_level = CW_LOG_INFO;
static cw_log_format g_format = CW_LOG_TEXT;
static FILE *g_stream = NULL;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *level_names[] = {"debug", "info", "warn", "error", "off"};

void cw_log_configure(cw_log_level level, cw_log_format format, FILE *stream)
{
    g_level = level;
    g_format = format;
    g_stream = stream;
}

int cw_log_parse_level(const char *s, cw_log_level *out)
{
    for (int i = 0; i <= CW_LOG_OFF; i++) {
        if (strcmp(s, level_names[i]) == 0) {
            *out = (cw_log_level)i;
            return CW_OK;
        }
    }
    if (strcmp(s, "warning") == 0) {
        *out = CW_LOG_WARN;
        return CW_OK;
    }
    return CW_EINVAL;
}

int cw_log_parse_format(const char *s, cw_log_format *out)
{
    if (strcmp(s, "text") == 0)
        *out = CW_LOG_TEXT;
    else if (strcmp(s, "json") == 0)
        *out = CW_LOG_JSON;
    else
        return CW_EINVAL;
    return CW_OK;
}

int cw_log_enabled(cw_log_level level)
{
    return level >= g_level && level < CW_LOG_OFF;
}

/* logfmt quoting: bare when the value has no space, quote, equals sign or control byte. */
static void text_value(cw_buf *b, const char *s)
{
    int bare = *s != '\0';
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == '"' || *p == '=' || *p == '\\')
            bare = 0;
    if (bare) {
        cw_buf_puts(b, s);
        return;
    }
    cw_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            cw_buf_putc(b, '\\');
            cw_buf_putc(b, (char)*p);
        } else if (*p == '\n') {
            cw_buf_puts(b, "\\n");
        } else if (*p < 0x20) {
            cw_buf_printf(b, "\\x%02x", *p);
        } else {
            cw_buf_putc(b, (char)*p);
        }
    }
    cw_buf_putc(b, '"');
}

static void json_string(cw_buf *b, const char *s)
{
    json_object *o = json_object_new_string(s);
    cw_buf_puts(b, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
}

void cw_log_emit(cw_log_level level, const char *msg, const cw_log_field *fields, size_t n)
{
    if (!cw_log_enabled(level))
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[96];
    snprintf(when, sizeof(when), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);

    cw_buf b;
    cw_buf_init(&b);
    cw_buf_reserve(&b,
                   480); /* a request's line in one allocation (the buffer would double 4 times) */
    int json = g_format == CW_LOG_JSON;
    if (json) {
        cw_buf_printf(&b, "{\"ts\":\"%s\",\"level\":\"%s\",\"msg\":", when, level_names[level]);
        json_string(&b, msg);
    } else {
        cw_buf_printf(&b, "ts=%s level=%s msg=", when, level_names[level]);
        text_value(&b, msg);
    }
    for (size_t i = 0; i < n; i++) {
        const cw_log_field *f = &fields[i];
        if (json) {
            cw_buf_putc(&b, ',');
            json_string(&b, f->key);
            cw_buf_putc(&b, ':');
        } else {
            cw_buf_putc(&b, ' ');
            cw_buf_puts(&b, f->key);
            cw_buf_putc(&b, '=');
        }
        switch (f->type) {
        case CW_LF_STR:
            if (json)
                json_string(&b, f->v.s ? f->v.s : "");
            else
                text_value(&b, f->v.s ? f->v.s : "");
            break;
        case CW_LF_INT:
            cw_buf_printf(&b, "%lld", f->v.i);
            break;
        case CW_LF_DBL:
            cw_buf_printf(&b, "%.6g", f->v.d);
            break;
        case CW_LF_BOOL:
            cw_buf_puts(&b, f->v.b ? "true" : "false");
            break;
        }
    }
    cw_buf_puts(&b, json ? "}\n" : "\n");
    FILE *out = g_stream ? g_stream : stderr;
    pthread_mutex_lock(&g_lock);
    fwrite(cw_buf_str(&b), 1, b.len, out);
    fflush(out);
    pthread_mutex_unlock(&g_lock);
    cw_buf_free(&b);
}
