/*  =========================================================================
    drover_peerlevels - the protocol level each peer connection speaks, and
    fitting what the broker sends to it (PROTOCOL.md §12)

    A peer says its level in WORKER HELLO or CLIENT HELLO; a message of a
    later level's id, or with a later level's fields, shows it too. A
    connection nothing has shown a level for is of level 1: a peer of
    2026-11-23, which knows nothing of levels. Whatever an actor encoded
    for a peer is fitted to its level on the way out: as it is for a peer
    of this codec's level (the common case, one lookup), re-encoded with
    the fields and values of an older level, or not sent at all when that
    level has no such message (a REDIRECT becomes an ERROR 300 naming the
    leader). Connections are known by their ROUTER routing id, which
    libzmq never gives twice on one socket; the table forgets the oldest
    of its routes past its size. A plain class: no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_PEERLEVELS_H_INCLUDED
#define DROVER_PEERLEVELS_H_INCLUDED

#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_peerlevels_t drover_peerlevels_t;

//  Routes of a level above 1 a broker remembers (past it, the oldest are
//  taken for level 1 again)
#define DROVER_PEERLEVELS_KEPT  65536

//  Create a table that remembers up to max routes of a level above 1
drover_peerlevels_t *
    drover_peerlevels_new (size_t max);

//  Destroy; harmless on NULL or when called twice
void
    drover_peerlevels_destroy (drover_peerlevels_t **self_p);

//  The peer at route sent msg (decoded): remember the level it shows. A
//  HELLO sets the level it declares (1 without one: for a WORKER HELLO,
//  whatever fields it has); any other message can only raise it, by its
//  id or its fields.
void
    drover_peerlevels_heard (drover_peerlevels_t *self, const byte *route, size_t size,
                             const drover_msg_t *msg);

//  Return the level of the peer at route: 1 if nothing showed one
int
    drover_peerlevels_level (drover_peerlevels_t *self, const byte *route, size_t size);

//  Fit an encoded message to the peer at route (see above): *payload_p is
//  left, replaced, or destroyed (NULL). Returns 0 if it is to be sent,
//  -1 if the peer's level has no such message (and *payload_p is NULL).
int
    drover_peerlevels_fit (drover_peerlevels_t *self, const byte *route, size_t size,
                           zframe_t **payload_p);

//  Return how many routes of a level above 1 are remembered
size_t
    drover_peerlevels_size (drover_peerlevels_t *self);

//  Return how many messages were re-encoded for an older peer, and how
//  many were not sent because its level has no such message
uint64_t
    drover_peerlevels_fitted (drover_peerlevels_t *self);
uint64_t
    drover_peerlevels_unsent (drover_peerlevels_t *self);

//  Build the CLIENT WELCOME that answers a CLIENT HELLO: this broker's
//  level, release and name (NULL or "": none), echoing its seq
drover_msg_t *
    drover_peerlevels_welcome (const drover_msg_t *hello, const char *name);

#ifdef __cplusplus
}
#endif

#endif
