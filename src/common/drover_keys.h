/*  =========================================================================
    drover_keys - CURVE key files: load a key pair or a public key, and
    apply them to a socket

    Key files are czmq's zcert files: NAME.key holds the public key (and
    optional metadata), NAME.key_secret beside it the secret key too. A
    secret file readable by group or others is refused, as ssh refuses an
    open private key: whoever reads it can speak as its owner.
    =========================================================================
*/

#ifndef DROVER_KEYS_H_INCLUDED
#define DROVER_KEYS_H_INCLUDED

#include <czmq.h>

//  Load a key pair from PATH (NAME.key or NAME.key_secret): the secret file
//  must exist, hold a secret key, and be readable by its owner only.
//  Returns the certificate, or NULL with a message in *error_p (caller
//  frees with zstr_free).
zcert_t *
    drover_keys_load_pair (const char *path, char **error_p);

//  Load a public key from PATH (NAME.key). Returns the certificate (its
//  secret key all zero), or NULL with a message in *error_p.
zcert_t *
    drover_keys_load_public (const char *path, char **error_p);

//  Make SOCK a CURVE client: its own pair from KEY_PATH, the server's public
//  key from SERVER_KEY_PATH. Call before connecting. Returns 0, or -1 with
//  a message in *error_p.
int
    drover_keys_apply_client (zsock_t *sock, const char *key_path,
                              const char *server_key_path, char **error_p);

#endif
