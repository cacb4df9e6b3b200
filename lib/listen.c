#include "lib/listen.h"

#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cw_listen_parse(const char *flag, const char *listen, struct sockaddr_storage *ss,
                    int *family_flags, cw_error *err)
{
    char host[256];
    const char *colon, *port;
    if (listen[0] == '[') {
        const char *end = strchr(listen, ']');
        if (!end || end[1] != ':')
            goto bad;
        snprintf(host, sizeof(host), "%.*s", (int)(end - listen - 1), listen + 1);
        port = end + 2;
    } else {
        if (!(colon = strrchr(listen, ':')))
            goto bad;
        snprintf(host, sizeof(host), "%.*s", (int)(colon - listen), listen);
        port = colon + 1;
    }
    char *end = NULL;
    long p = strtol(port, &end, 10);
    if (!*port || *end || p < 0 || p > 65535)
        goto bad;
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    int g = getaddrinfo(host[0] ? host : "0.0.0.0", port, &hints, &ai);
    if (g != 0)
        return cw_error_set(err, CW_EINVAL, "%s %s: %s", flag, listen, gai_strerror(g));
    memset(ss, 0, sizeof(*ss));
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    *family_flags = ai->ai_family == AF_INET6;
    if (*family_flags && IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr))
        *family_flags = 2;
    freeaddrinfo(ai);
    return CW_OK;
bad:
    return cw_error_set(err, CW_EINVAL, "%s %s: expected ADDR:PORT ([ADDR]:PORT for IPv6)", flag,
                        listen);
}
