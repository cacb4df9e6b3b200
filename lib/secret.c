#include "lib/secret.h"

#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

void cw_secret_wipe(void *p, size_t n)
{
    if (p && n)
        OPENSSL_cleanse(p, n);
}

void cw_secret_free(char *s)
{
    if (!s)
        return;
    cw_secret_wipe(s, strlen(s));
    free(s);
}
