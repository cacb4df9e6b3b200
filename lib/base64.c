#include "lib/base64.h"

#include <limits.h>
#include <openssl/evp.h>
#include <stdlib.h>

#include "lib/error.h"

int cw_base64_encode(cw_buf *out, const void *data, size_t n)
{
    if (n > (size_t)INT_MAX / 4 * 3)
        return CW_ENOMEM;
    size_t need = 4 * ((n + 2) / 3);
    int rc = cw_buf_reserve(out, need + 1);
    if (rc != CW_OK)
        return rc;
    out->len += (size_t)EVP_EncodeBlock((unsigned char *)out->data + out->len, data, (int)n);
    out->data[out->len] = '\0';
    return CW_OK;
}

int cw_base64_decode(const char *in, size_t len, char **out, size_t *outlen)
{
    int rc = CW_EINVAL;
    EVP_ENCODE_CTX *ctx = NULL;
    unsigned char *buf = NULL;
    int n1 = 0, n2 = 0;
    *out = NULL;
    *outlen = 0;
    if (len > (size_t)INT_MAX / 2)
        goto done;
    ctx = EVP_ENCODE_CTX_new();
    buf = malloc(len / 4 * 3 + 80);
    if (!ctx || !buf) {
        rc = CW_ENOMEM;
        goto done;
    }
    EVP_DecodeInit(ctx);
    if (EVP_DecodeUpdate(ctx, buf, &n1, (const unsigned char *)in, (int)len) < 0 ||
        EVP_DecodeFinal(ctx, buf + n1, &n2) < 0)
        goto done;
    buf[n1 + n2] = '\0';
    *out = (char *)buf;
    *outlen = (size_t)(n1 + n2);
    buf = NULL;
    rc = CW_OK;
done:
    free(buf);
    EVP_ENCODE_CTX_free(ctx);
    return rc;
}
