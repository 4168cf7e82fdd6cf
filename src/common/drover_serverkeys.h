/*  =========================================================================
    drover_serverkeys - the brokers' public keys a client or a worker
    trusts, and which one each broker endpoint gets (PROTOCOL.md §16, §17)

    With CURVE a peer must know a broker's public key before it connects
    to it. Several brokers (one leads, the others redirect to it) may
    each have a key pair of their own, as `drover keygen` makes them:
    then the peer trusts a set of keys, each with a name, the name of
    its file less ".key" (b1.key is "b1"), given as files or directories
    of them. Each broker endpoint gets one key of the set:

    1. the key the list of brokers names with the endpoint,
       `tcp://hub1:5555=b1` (a key's name), or
       `tcp://hub1:5555=/etc/drover/b1.key` (a file, trusted from then on);
    2. else the key named as the broker a REDIRECT named at that endpoint
       (its leader_name: the broker's --name; so name each broker's key
       pair after the broker, and a leader not in the list is reached);
    3. else the only key, when one alone is trusted (one key pair shared
       by every broker, or a single broker).

    An endpoint that none of these gives a key is not talked to: a list
    whose endpoint has none is refused when the keys are set (saying
    which), and a REDIRECT to such a broker moves the peer to the next of
    its list instead. No key is tried on a broker it may not be for: a
    wrong server key fails the handshake, and the broker logs it as
    refused. A plain class, no I/O but reading key files.
    =========================================================================
*/

#ifndef DROVER_SERVERKEYS_H_INCLUDED
#define DROVER_SERVERKEYS_H_INCLUDED

#include <czmq.h>
#include "drover_endpoints.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_serverkeys_t drover_serverkeys_t;

//  Create an empty set
drover_serverkeys_t *
    drover_serverkeys_new (void);

//  Destroy; harmless on NULL
void
    drover_serverkeys_destroy (drover_serverkeys_t **self_p);

//  Trust the public key in file path, or every NAME.key in directory path
//  (at least one). Returns 0, or -1 with why in *error_p (caller frees):
//  not a key file, a directory without one, or two keys of one name.
int
    drover_serverkeys_add (drover_serverkeys_t *self, const char *path, char **error_p);

//  Trust the keys of a comma-separated list of files and directories (as
//  --server-key and DROVER_SERVER_KEY take them). Returns 0, or -1.
int
    drover_serverkeys_add_list (drover_serverkeys_t *self, const char *list, char **error_p);

//  Return how many keys are trusted
size_t
    drover_serverkeys_size (drover_serverkeys_t *self);

//  Give the broker at endpoint the key key: a trusted key's name, or the
//  path of a public key file (with a '/'), then trusted. Returns 0, or -1
//  with why in *error_p.
int
    drover_serverkeys_pair (drover_serverkeys_t *self, const char *endpoint, const char *key,
                            char **error_p);

//  Give each endpoint of list the key it names ("=KEY"), then check that
//  every endpoint has a key. Returns 0, or -1 with why in *error_p
//  (which endpoint, and how to name its key).
int
    drover_serverkeys_pair_list (drover_serverkeys_t *self, drover_endpoints_t *list,
                                 char **error_p);

//  A REDIRECT named broker name at endpoint: it gets the key of that name
//  if one is trusted (and the list named none for it)
void
    drover_serverkeys_learn (drover_serverkeys_t *self, const char *endpoint, const char *name);

//  Return the public key (Z85, 40 characters) of the broker at endpoint,
//  or NULL if it has none (borrowed)
const char *
    drover_serverkeys_for (drover_serverkeys_t *self, const char *endpoint);

//  Return the name of the key of the broker at endpoint, or NULL (borrowed)
const char *
    drover_serverkeys_name_for (drover_serverkeys_t *self, const char *endpoint);

#ifdef __cplusplus
}
#endif

#endif
