/* Used by cron/ and lib/opts: the pieces of Go's standard library whose exact behaviour shows in
 * robfig/cron's accept/reject decisions and error texts (UTF-8 decoding, unicode.IsSpace,
 * strings.Fields/TrimSpace, strconv.Atoi, strconv.Quote, time.ParseDuration). Strings are
 * (pointer, length) pairs because Go strings may hold any byte. */
#ifndef CW_GOSTR_H
#define CW_GOSTR_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

#define CW_GO_RUNE_ERROR 0xFFFD

/* utf8.DecodeRuneInString: invalid or truncated sequences decode as (U+FFFD, 1). */
int32_t cw_go_decode_rune(const char *s, size_t n, size_t *width);
/* utf8.DecodeLastRuneInString. */
int32_t cw_go_decode_last_rune(const char *s, size_t n, size_t *width);
/* unicode.IsSpace. */
int cw_go_is_space(int32_t r);
/* strings.TrimSpace: narrows [*s, *s + *n). */
void cw_go_trim_space(const char **s, size_t *n);
/* strings.Fields, one field at a time: finds the field starting at or after *pos, sets
 * [*start, *start + *len) and advances *pos. Returns 0 when there are no more fields. */
int cw_go_next_field(const char *s, size_t n, size_t *pos, size_t *start, size_t *len);

/* strconv.Atoi outcome. */
enum { CW_GO_ATOI_OK = 0, CW_GO_ATOI_SYNTAX = 1, CW_GO_ATOI_RANGE = 2 };
int cw_go_atoi(const char *s, size_t n, int64_t *out);

/* strconv.IsPrint and strconv.Quote (appends to b). */
int cw_go_is_print(int32_t r);
int cw_go_quote(cw_buf *b, const char *s, size_t n);
/* time's own quote() used in ParseDuration errors: bytes >= 0x80 and < 0x20 become \xHH. */
int cw_go_time_quote(cw_buf *b, const char *s, size_t n);

/* time.ParseDuration: 0 and *ns on success; otherwise -1 with Go's message appended to msg. */
int cw_go_parse_duration(const char *s, size_t n, int64_t *ns, cw_buf *msg);
/* Duration.String() of seconds rounded to the second ("1h2m3s", "2m0s", "3s"; not negative). */
void cw_go_format_seconds(double seconds, char *out, size_t outlen);

extern const uint16_t cw_go_isprint16[];
extern const uint16_t cw_go_isnotprint16[];
extern const uint32_t cw_go_isprint32[];
extern const uint16_t cw_go_isnotprint32[];
extern const size_t cw_go_isprint16_len, cw_go_isnotprint16_len, cw_go_isprint32_len,
    cw_go_isnotprint32_len;

#endif
