/* Base64 (RFC 4648 standard alphabet, padded), with OpenSSL: the one encoder and decoder for
 * admission patches, kubeconfig *-data fields and Secret data. */
#ifndef CW_BASE64_H
#define CW_BASE64_H

#include <stddef.h>

#include "lib/buf.h"

/* Appends the encoding of n bytes (no line breaks) to out. CW_OK or CW_ENOMEM. */
int cw_base64_encode(cw_buf *out, const void *data, size_t n);
/* Decodes len characters (line breaks and spaces between groups are allowed, as in PEM and
 * kubeconfig files) into *out (caller frees; NUL-terminated for convenience) and *outlen.
 * CW_EINVAL when it is not base64, CW_ENOMEM. */
int cw_base64_decode(const char *in, size_t len, char **out, size_t *outlen);

#endif
