/* Bearer tokens: a static token, or a token file (projected service-account tokens rotate) that
 * is re-read every token_reread seconds and whenever the server answers 401. */
#include "kube/internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/secret.h"
#include "lib/log.h"
#include "lib/clock.h"

int cw_kube_auth_token(cw_kube_client *c, int force, char **out, cw_error *err)
{
    int rc = CW_OK;
    *out = NULL;
    pthread_mutex_lock(&c->mu);
    double now = cw_clock_mono();
    if (c->cfg.token_file && (force || now - c->token_read_at >= c->opts.token_reread)) {
        char *fresh = NULL;
        cw_error rerr;
        cw_error_init(&rerr);
        c->token_read_at = now;
        if (cw_kube_read_trimmed(c->cfg.token_file, &fresh, &rerr) == CW_OK && *fresh) {
            c->stats.token_reads++;
            if (!c->token || strcmp(c->token, fresh) != 0) {
                cw_log(CW_LOG_INFO, "bearer token reloaded", CW_LS("file", c->cfg.token_file));
                cw_secret_free(c->token);
                c->token = fresh;
                fresh = NULL;
            }
        } else {
            /* Keep the token we have: a failed read is often a rotation in progress. */
            cw_log(CW_LOG_WARN, "cannot re-read the bearer token; keeping the previous one",
                   CW_LS("file", c->cfg.token_file),
                   CW_LS("error", rerr.message[0] ? rerr.message : "empty file"));
        }
        free(fresh);
    }
    if (c->token && !(*out = strdup(c->token)))
        rc = cw_error_oom(err);
    pthread_mutex_unlock(&c->mu);
    return rc;
}
