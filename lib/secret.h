/* Secrets (bearer tokens, private keys) are wiped before their memory is freed, with a wipe the
 * compiler may not drop as a dead store (memset before free may be removed). */
#ifndef CW_SECRET_H
#define CW_SECRET_H

#include <stddef.h>

/* Overwrites n bytes at p with zeros (OPENSSL_cleanse). */
void cw_secret_wipe(void *p, size_t n);
/* Wipes the NUL-terminated string s, then frees it; NULL is fine. */
void cw_secret_free(char *s);

#endif
