/* Retry policy and client-side throttling: pure functions of their inputs, so they are tested as
 * tables; the request engine supplies the clock and the random numbers. */
#include "kube/internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RETRY_AFTER 86400.0

void cw_kube_sleep(double seconds)
{
    if (!(seconds > 0))
        return;
    struct timespec ts;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

double cw_kube_backoff(int retry, double base, double cap, double u)
{
    if (retry < 1)
        retry = 1;
    double ceiling = base * ldexp(1.0, retry > 62 ? 62 : retry - 1);
    if (ceiling > cap)
        ceiling = cap;
    if (u < 0)
        u = 0;
    if (u >= 1)
        u = 0.999999;
    return u * ceiling;
}

int cw_kube_parse_retry_after(const char *value, time_t now, double *seconds)
{
    *seconds = 0;
    if (!value)
        return CW_EINVAL;
    while (isspace((unsigned char)*value))
        value++;
    size_t len = strlen(value);
    while (len > 0 && isspace((unsigned char)value[len - 1]))
        len--;
    if (len == 0)
        return CW_EINVAL;
    size_t digits = 0;
    while (digits < len && isdigit((unsigned char)value[digits]))
        digits++;
    if (digits == len) {
        /* delta-seconds; long runs of digits just mean "a long time" */
        double v = digits > 9 ? MAX_RETRY_AFTER : (double)strtol(value, NULL, 10);
        *seconds = v > MAX_RETRY_AFTER ? MAX_RETRY_AFTER : v;
        return CW_OK;
    }
    if (len >= 64)
        return CW_EINVAL;
    char date[64];
    memcpy(date, value, len);
    date[len] = '\0';
    /* An HTTP-date has a weekday, a day, a month and a time: insist on a comma or letters. */
    if (!isalpha((unsigned char)date[0]))
        return CW_EINVAL;
    time_t t = curl_getdate(date, NULL);
    if (t == -1)
        return CW_EINVAL;
    double d = difftime(t, now);
    *seconds = d < 0 ? 0 : d > MAX_RETRY_AFTER ? MAX_RETRY_AFTER : d;
    return CW_OK;
}

int cw_kube_status_retryable(long status)
{
    return status == 429 || (status >= 500 && status <= 599);
}

int cw_kube_curl_retryable(CURLcode code)
{
    switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return 1;
    default:
        return 0;
    }
}

double cw_kube_rand(unsigned long long *state)
{
    unsigned long long x = *state ? *state : 0x9E3779B97F4A7C15ULL;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0; /* 2^53 */
}

void cw_kube_bucket_init(cw_kube_bucket *b, double qps, double burst, double now)
{
    b->qps = qps;
    b->burst = burst < 1 ? 1 : burst;
    b->tokens = b->burst;
    b->last = now;
}

double cw_kube_bucket_reserve(cw_kube_bucket *b, double now)
{
    if (!(b->qps > 0))
        return 0;
    if (now > b->last) {
        b->tokens += (now - b->last) * b->qps;
        if (b->tokens > b->burst)
            b->tokens = b->burst;
        b->last = now;
    }
    b->tokens -= 1;
    if (b->tokens >= 0)
        return 0;
    return -b->tokens / b->qps;
}

void cw_kube_choose_limit(const cw_kube_client_opts *o, int apf, cw_kube_limit *out)
{
    out->qps = o->qps;
    out->burst = o->burst;
    if (!o->qps_auto)
        out->why = o->qps > 0 ? "set explicitly" : "none set";
    else if (apf) {
        out->qps = 0;
        out->why = "none: the server has API Priority and Fairness (bounded by concurrency and "
                   "the server's 429 + Retry-After)";
    } else
        out->why = out->qps > 0 ? "the server has no API Priority and Fairness" : "none set";
}
