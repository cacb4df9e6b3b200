/* A kube client for unit tests that never reaches the network: the caller's hook
 * (cw_kube_client_opts.fault) answers every request. Shared by the kube and controller tests. */
#ifndef CW_TEST_FAKE_CLIENT_H
#define CW_TEST_FAKE_CLIENT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kube/client.h"
#include "kube/config.h"

/* token and token_file may be NULL. Fails the test when the client cannot be made. */
__attribute__((unused)) static cw_kube_client *
fake_kube_client(const cw_kube_client_opts *o, const char *token, const char *token_file)
{
    cw_kube_config cfg;
    cw_kube_client *c = NULL;
    cw_error err;
    cw_kube_config_init(&cfg);
    cfg.server = strdup("https://127.0.0.1:1");
    cfg.source = strdup("test");
    cfg.namespace = strdup("default");
    if (token)
        cfg.token = strdup(token);
    if (token_file)
        cfg.token_file = strdup(token_file);
    if (cw_kube_client_new(&cfg, o, &c, &err) != CW_OK)
        fail_msg("client: %s", err.message);
    cw_kube_config_free(&cfg);
    return c;
}

#endif
