/*  =========================================================================
    drover_keyring - the public keys the broker knows, and each one's roles

    The keys directory (security/keys) has one subdirectory per role:
    workers/, clients/, admins/, each holding public key files NAME.key
    (czmq zcert files; drover keygen writes them). A key's name is its file
    name less ".key"; a key in several subdirectories has each of their
    roles. A worker's key may pin the worker ids it may register as, with
    the metadata `worker-ids = "a,b"` in its file.

    The broker's main looks up the sender of every message here; the ZAP
    handler (drover_zap), which checks the key at the handshake, keeps a
    keyring of its own over the same directory in its own thread. Refresh rescans when a subdirectory changed (a file
    added, removed or renamed) and at least every DROVER_KEYRING_RESCAN
    msec (a file rewritten in place), and lists the names whose key went
    away, so that their live sessions end too.
    =========================================================================
*/

#ifndef DROVER_KEYRING_H_INCLUDED
#define DROVER_KEYRING_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"

//  Longest gap between two full rescans, msec
#define DROVER_KEYRING_RESCAN   10000
//  Most bytes of metadata a key file may carry (czmq's zauth, the ZAP
//  handler the broker used before drover_zap and other tools may use on the
//  same directory, copies it into a 512-byte buffer at each handshake,
//  unchecked): a larger one stops the broker's start, and is refused
//  (logged) if it appears later
#define DROVER_KEYRING_METADATA_MAX     400

typedef struct _drover_keyring_t drover_keyring_t;

//  One known key
typedef struct {
    char name [DROVER_ID_MAX + 1];  //  file name less ".key"
    uint8_t roles;                  //  DROVER_ROLE_* bits, by subdirectory
    char *worker_ids;               //  "a,b": the ids it may register as, or NULL for any
} drover_keyring_entry_t;

//  Create a keyring over DIRECTORY; nothing is read until the first refresh
drover_keyring_t *
    drover_keyring_new (const char *directory);

//  Destroy a keyring; harmless on NULL
void
    drover_keyring_destroy (drover_keyring_t **self_p);

//  Say nothing in the log of the key files skipped (unreadable, too much
//  metadata, a name taken): for a second keyring over the directory, the
//  ZAP handler's, whose files the guard's keyring reports already
void
    drover_keyring_set_quiet (drover_keyring_t *self);

//  Read the keys for the first time: the directory and at least one of
//  its role subdirectories must exist, and no key file carry more than
//  DROVER_KEYRING_METADATA_MAX bytes of metadata. Returns 0, or -1 with a message in
//  *error_p (caller frees with zstr_free).
int
    drover_keyring_load (drover_keyring_t *self, char **error_p);

//  Rescan if a role subdirectory changed or the last full rescan is older
//  than DROVER_KEYRING_RESCAN. Returns the number of names whose key is
//  gone since the previous scan (see drover_keyring_revoked).
size_t
    drover_keyring_refresh (drover_keyring_t *self, int64_t now);

//  The names the last refresh found gone, or NULL past the end
const char *
    drover_keyring_revoked (drover_keyring_t *self, size_t index);

//  Find the key whose Z85 public key text is KEY, or NULL
const drover_keyring_entry_t *
    drover_keyring_lookup (drover_keyring_t *self, const char *key);

//  Tell whether ENTRY may register as worker ID (its pin list allows it)
bool
    drover_keyring_allows_worker (const drover_keyring_entry_t *entry, const char *id);

//  Keys known
size_t
    drover_keyring_size (drover_keyring_t *self);

#endif
