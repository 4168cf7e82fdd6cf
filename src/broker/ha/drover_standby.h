/*  =========================================================================
    drover_standby - a broker that does not serve: every request is
    answered REDIRECT, naming the leader (PROTOCOL.md §7.38, §17)

    One of several brokers leads; the others run this on their ROUTER
    while they stand by. It keeps no state about peers: each message with
    a readable header gets a REDIRECT echoing its seq (QUEUES excepted:
    it gets the queue table its owner set, PROTOCOL.md §7.39; a HEARTBEAT or a
    GOODBYE too, seq 0), a message that does not decode gets the ERROR
    400 (or 426) the serving broker would send, and a status (OK, ERROR,
    REDIRECT) is never answered. A plain class over a ROUTER the caller
    binds, polls and owns: handle never blocks, and never reads more than
    a batch at once.
    =========================================================================
*/

#ifndef DROVER_STANDBY_H_INCLUDED
#define DROVER_STANDBY_H_INCLUDED

#include <czmq.h>
#include "drover_queuetable.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "drover_peerlevels.h"

typedef struct _drover_standby_t drover_standby_t;

//  Create a standby over router (a bound ROUTER, with the broker's socket
//  options and security) and the protocol levels of its connections
//  (those the broker heard while it served: a reconnect-free peer keeps
//  its level across the broker's change of role), or NULL for a table of
//  its own. It borrows both; the caller still owns them.
drover_standby_t *
    drover_standby_new (zsock_t *router, drover_peerlevels_t *levels);

//  Destroy the standby (not the router); harmless on NULL
void
    drover_standby_destroy (drover_standby_t **self_p);

//  Set this broker's own name, which CLIENT WELCOME says ("" or NULL none)
void
    drover_standby_set_name (drover_standby_t *self, const char *name);

//  Set the leader that REDIRECTs name: its name and endpoint; NULL or ""
//  for not known (REDIRECT then says "": peers try another broker).
//  Texts past the wire's limits (64, 256 bytes) count as not known. While
//  its endpoint (tcp://HOST:PORT, resolved here) refuses connections, as
//  a killed leader's does, REDIRECT names no leader either.
void
    drover_standby_set_leader (drover_standby_t *self, const char *name, const char *endpoint);

//  Answer QUEUES with table from now on (a copy is kept; the caller still
//  owns table). Until it is set, QUEUES gets an empty table, strategy "".
void
    drover_standby_set_queues (drover_standby_t *self, drover_queuetable_t *table);

//  Answer what is ready on the router (at most a batch): each decodable
//  request gets a REDIRECT echoing its seq; undecodable input gets the
//  ERROR 400 the broker would send (or nothing when even the header cannot
//  be read). Never blocks.
void
    drover_standby_handle (drover_standby_t *self);

//  Return how many REDIRECTs were sent
uint64_t
    drover_standby_redirects (drover_standby_t *self);

//  Return how many messages were malformed
uint64_t
    drover_standby_malformed (drover_standby_t *self);

#ifdef __cplusplus
}
#endif

#endif
