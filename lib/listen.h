/* "ADDR:PORT", "[v6]:PORT" or ":PORT" (every address) to a socket address, as the servers'
 * --listen / --metrics-listen flags take them. */
#ifndef CW_LISTEN_H
#define CW_LISTEN_H

#include <sys/socket.h>

#include "lib/error.h"

/* *family_flags: 0 IPv4, 1 IPv6, 2 IPv6 unspecified ("[::]": every address, IPv4 included, as Go
 * servers read it). `flag` names the option in messages ("--metrics-listen"). */
int cw_listen_parse(const char *flag, const char *listen, struct sockaddr_storage *ss,
                    int *family_flags, cw_error *err) CW_MUST_CHECK;

#endif
