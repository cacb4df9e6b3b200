/* Serialisation byte-identical to Go's encoding/json Marshal of the equivalent Go value (objects as
 * maps, arrays as slices). Longhorn hashes such bytes into RecurringJob names, so every byte
 * counts.
 *
 * - Objects: keys sorted bytewise (Go sorts map keys as strings), no whitespace.
 * - Strings: `"` and `\` backslash-escaped; \n \r \t short escapes; every other byte < 0x20 as
 *   \u00XX (lower-case hex; this is Go before 1.22, which Longhorn 1.2 was built with — Go 1.22+
 *   writes \b and \f for 0x08 and 0x0c); `<` `>` `&` as \u003c \u003e \u0026 (HTML-safe);
 *   U+2028 and U+2029 as \u2028 \u2029; each byte that is not part of valid UTF-8 (stray
 *   continuation, overlong form, surrogate, beyond U+10FFFF, truncated sequence) as \ufffd;
 *   '/' and DEL are written as is.
 * - Integers (json-c int64/uint64): decimal, exactly, as a Go int64/uint64 field would be.
 * - Doubles: as Go marshals a float64 — the shortest decimal that reads back to the same double;
 *   plain notation ('f') when 1e-6 <= |v| < 1e21 or v == 0, otherwise exponent notation ('e')
 *   with a signed exponent of at least one digit for negative and two for positive exponents,
 *   as Go's "e-07" → "e-7" clean-up leaves it (1e-07 → 1e-7, 1e21 → 1e+21). -0 is "-0".
 *   NaN and ±Inf fail with CW_EINVAL, as Go's Marshal fails on them.
 * - NULL and JSON null: null. */
#ifndef CW_GOJSON_H
#define CW_GOJSON_H

#include <json-c/json.h>
#include <stddef.h>

#include "lib/buf.h"

/* Nesting deeper than this fails with CW_ELIMIT (json-c's own parser stops at 32). */
#define CW_GOJSON_MAX_DEPTH 1000

/* Appends the serialisation of v to out. Returns CW_OK, CW_ENOMEM, CW_EINVAL (NaN/Inf) or
 * CW_ELIMIT; on failure out may hold a partial serialisation. */
int cw_gojson_write(json_object *v, cw_buf *out);
/* Appends one quoted, escaped string of len bytes (may contain NUL). */
int cw_gojson_write_string(cw_buf *out, const char *s, size_t len);
/* Appends a float64 as Go formats it (CW_EINVAL for NaN/Inf). */
int cw_gojson_write_double(cw_buf *out, double d);
/* Turns what the functions above wrote into buf (from byte `from` on) into what Go 1.22 and later
 * write: \u0008 and \u000c become \b and \f, in place; every other byte stays. For values
 * marshalled by a program built with Go >= 1.22 (Longhorn from v1.6.2). */
void cw_gojson_short_escapes(cw_buf *buf, size_t from);

#endif
