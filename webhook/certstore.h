/* The serving credentials, swappable while the server runs. Handshakes take a reference to the
 * current credential and keep it until their connection closes, so a swap never pulls a key
 * from under a session; a broken new pair is refused and the current one stays. */
#ifndef CW_CERTSTORE_H
#define CW_CERTSTORE_H

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <pthread.h>
#include <sys/types.h>
#include <time.h>

#include "lib/error.h"

typedef struct cw_certs_cred cw_certs_cred; /* refcounted, immutable once published */

/* Identity of a file as seen through symlinks: Kubernetes swaps a `..data` symlink atomically,
 * which changes the inode; in-place writers change mtime or size. */
typedef struct cw_certs_filesig {
    dev_t dev;
    ino_t ino;
    struct timespec mtime;
    off_t size;
    int exists;
} cw_certs_filesig;

typedef struct cw_certs_store {
    pthread_mutex_t lock; /* guards current; held only to swap or to take a reference */
    cw_certs_cred *current;
    char *cert_path, *key_path;         /* file mode; NULL when credentials come from memory */
    cw_certs_filesig cert_sig, key_sig; /* of the loaded pair */
    cw_certs_filesig failed_cert, failed_key; /* of the last refused pair (log once) */
} cw_certs_store;

void cw_certs_store_init(cw_certs_store *s);
void cw_certs_store_free(cw_certs_store *s);

/* Publishes a new pair from memory (PEM: certificate chain, leaf first; private key). On any
 * problem the current pair stays and the error says why. */
int cw_certs_store_set_pem(cw_certs_store *s, const char *cert_pem, size_t cert_len,
                           const char *key_pem, size_t key_len, cw_error *err) CW_MUST_CHECK;

/* File mode: loads the pair now (failing when it is unusable) and remembers the paths. */
int cw_certs_store_watch(cw_certs_store *s, const char *cert_path, const char *key_path,
                         cw_error *err) CW_MUST_CHECK;
/* Reloads the files when either changed since the last look. *changed is 1 after a successful
 * swap. A refused change returns its error once and stays quiet (CW_OK) until the files change
 * again. */
int cw_certs_store_poll(cw_certs_store *s, int *changed, cw_error *err) CW_MUST_CHECK;

/* A reference to the current credential (NULL when none is loaded); release it when done. */
cw_certs_cred *cw_certs_store_acquire(cw_certs_store *s);
void cw_certs_cred_release(cw_certs_cred *c);
/* For the GnuTLS retrieve callback: the chain and key of a credential. */
void cw_certs_cred_gnutls(cw_certs_cred *c, gnutls_pcert_st **pcerts, unsigned *npcerts,
                          gnutls_privkey_t *key);
time_t cw_certs_cred_not_after(const cw_certs_cred *c);
/* notAfter of the current leaf (0 when none). */
time_t cw_certs_store_not_after(cw_certs_store *s);

#endif
