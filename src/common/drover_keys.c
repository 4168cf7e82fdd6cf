/*  =========================================================================
    drover_keys - CURVE key files: load a key pair or a public key, and
    apply them to a socket
    =========================================================================
*/

#include "drover_keys.h"
#include <sys/stat.h>
#include <errno.h>

#define S_SECRET_SUFFIX "_secret"
//  Largest key file read, bytes (a key and a few lines of metadata)
#define S_KEY_FILE_MAX  65536

//  The secret file of a key path: PATH itself if it ends in _secret, else
//  PATH_secret. Caller frees.
static char *
s_secret_path (const char *path)
{
    size_t length = strlen (path);
    size_t suffix = strlen (S_SECRET_SUFFIX);
    if (length > suffix && streq (path + length - suffix, S_SECRET_SUFFIX))
        return strdup (path);
    return zsys_sprintf ("%s%s", path, S_SECRET_SUFFIX);
}

//  The public file of a key path: PATH less a trailing _secret. Caller frees.
static char *
s_public_path (const char *path)
{
    char *public_path = strdup (path);
    size_t length = strlen (public_path);
    size_t suffix = strlen (S_SECRET_SUFFIX);
    if (length > suffix && streq (public_path + length - suffix, S_SECRET_SUFFIX))
        public_path [length - suffix] = 0;
    return public_path;
}

//  Tell whether a certificate's secret key is all zero (a public key file)
static bool
s_secret_missing (zcert_t *cert)
{
    const byte *secret = zcert_secret_key (cert);
    for (int index = 0; index < 32; index++)
        if (secret [index])
            return false;
    return true;
}

//  Load a key pair, refusing a secret file others may read
zcert_t *
drover_keys_load_pair (const char *path, char **error_p)
{
    char *secret_path = s_secret_path (path);
    char *public_path = s_public_path (path);
    zcert_t *cert = NULL;
    struct stat status;
    if (stat (secret_path, &status) == -1)
        *error_p = zsys_sprintf ("%s: %s (a key pair is NAME.key with NAME.key_secret beside it; "
                                 "drover keygen NAME writes one)", secret_path, strerror (errno));
    else
    if (!S_ISREG (status.st_mode))
        *error_p = zsys_sprintf ("%s: not a regular file", secret_path);
    else
    if (status.st_mode & (S_IRWXG | S_IRWXO))
        *error_p = zsys_sprintf ("%s: a secret key must be readable by its owner only "
                                 "(mode %03o; chmod 600 it)", secret_path,
                                 (unsigned) (status.st_mode & 0777));
    else {
        cert = zcert_load (public_path);
        if (!cert)
            *error_p = zsys_sprintf ("%s: not a key file (no curve/public-key)", secret_path);
        else
        if (s_secret_missing (cert)) {
            zcert_destroy (&cert);
            *error_p = zsys_sprintf ("%s: holds no secret key", secret_path);
        }
    }
    free (secret_path);
    free (public_path);
    return cert;
}

//  Load a public key file
zcert_t *
drover_keys_load_public (const char *path, char **error_p)
{
    struct stat status;
    if (stat (path, &status) == -1) {
        *error_p = zsys_sprintf ("%s: %s", path, strerror (errno));
        return NULL;
    }
    if (!S_ISREG (status.st_mode) || status.st_size > S_KEY_FILE_MAX) {
        *error_p = zsys_sprintf ("%s: not a key file (a regular file of at most %d bytes)",
                                 path, S_KEY_FILE_MAX);
        return NULL;
    }
    //  Read here, parsed from memory: czmq's zconfig_load leaks its file
    //  object when the text does not parse, and a keys directory may hold junk
    zconfig_t *root = NULL;
    FILE *file = fopen (path, "r");
    if (file) {
        char text [S_KEY_FILE_MAX + 1];
        size_t size = fread (text, 1, S_KEY_FILE_MAX, file);
        fclose (file);
        zchunk_t *chunk = zchunk_new (text, size);
        root = zconfig_chunk_load (chunk);
        zchunk_destroy (&chunk);
    }
    if (!root) {
        *error_p = zsys_sprintf ("%s: not a key file", path);
        return NULL;
    }
    char *text = zconfig_get (root, "/curve/public-key", NULL);
    zcert_t *cert = NULL;
    if (text && strlen (text) == 40) {
        byte public_key [32];
        byte secret_key [32] = { 0 };
        if (zmq_z85_decode (public_key, text))
            cert = zcert_new_from (public_key, secret_key);
    }
    if (cert) {
        zconfig_t *item = zconfig_locate (root, "/metadata");
        for (item = item? zconfig_child (item): NULL; item; item = zconfig_next (item))
            zcert_set_meta (cert, zconfig_name (item), "%s", zconfig_value (item));
    }
    else
        *error_p = zsys_sprintf ("%s: not a key file (no valid curve/public-key)", path);
    zconfig_destroy (&root);
    return cert;
}

//  Make a socket a CURVE client of the server whose public key is given
int
drover_keys_apply_client (zsock_t *sock, const char *key_path,
                          const char *server_key_path, char **error_p)
{
    zcert_t *pair = drover_keys_load_pair (key_path, error_p);
    if (!pair)
        return -1;
    zcert_t *server = drover_keys_load_public (server_key_path, error_p);
    if (!server) {
        zcert_destroy (&pair);
        return -1;
    }
    zcert_apply (pair, sock);
    zsock_set_curve_serverkey (sock, zcert_public_txt (server));
    zcert_destroy (&pair);
    zcert_destroy (&server);
    return 0;
}
