/* The webhook server answering a constant body: the same libmicrohttpd/GnuTLS transport, limits,
 * request bookkeeping and metrics as `cronwarden webhook`, without decoding or deciding. What it
 * serves per second is the transport ceiling the decision path is compared with.
 *
 *   cw_bench_webhook_ceiling LISTEN CERT KEY THREADS BODYFILE   (stops on SIGTERM/SIGINT) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/log.h"
#include "lib/yaml.h"
#include "webhook/certstore.h"
#include "webhook/server.h"

int main(int argc, char **argv)
{
    int code = 1;
    cw_error err;
    cw_certs_store certs;
    cw_webhook_server srv;
    char *body = NULL;
    size_t len = 0;
    if (argc != 6) {
        fprintf(stderr, "usage: %s LISTEN CERT KEY THREADS BODYFILE\n", argv[0]);
        return 2;
    }
    cw_error_init(&err);
    cw_certs_store_init(&certs);
    cw_webhook_server_init(&srv);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    cw_log_configure(CW_LOG_WARN, CW_LOG_TEXT, stderr);

    if (cw_certs_store_watch(&certs, argv[2], argv[3], &err) != CW_OK ||
        cw_file_read(argv[5], &body, &len, &err) != CW_OK)
        goto done;
    while (len && (body[len - 1] == '\n'))
        body[--len] = '\0';
    cw_webhook_config cfg = {.listen = argv[1],
                             .threads = (unsigned)atoi(argv[4]),
                             .certs = &certs,
                             .constant_response = body};
    if (cw_webhook_server_start(&srv, &cfg, &err) != CW_OK)
        goto done;
    fprintf(stderr, "ceiling server on port %u\n", srv.port);
    int sig;
    sigwait(&set, &sig);
    cw_webhook_server_drain(&srv, 5);
    code = 0;
done:
    if (code)
        fprintf(stderr, "%s\n", err.message);
    cw_webhook_server_free(&srv);
    cw_certs_store_free(&certs);
    free(body);
    return code;
}
