/*  =========================================================================
    drover_endpoints - a peer's list of brokers, and where to talk next
    (PROTOCOL.md §17)

    Workers and clients take `tcp://a:5555,tcp://b:5555`: several brokers
    of which one, the leader, serves and the others answer REDIRECT. This
    class decides which broker a peer talks to: the first of the list, the
    leader a REDIRECT names, or the next of the list when the current one
    is gone, silent, or knows no leader. It remembers for a few seconds
    which brokers it found dead, so that a standby still naming a killed
    leader does not send the peer back there, and it backs off once a
    round of the list found no leader (during an election none serves).
    A plain class: no I/O, time from the caller's `now` (msec, monotonic).
    =========================================================================
*/

#ifndef DROVER_ENDPOINTS_H_INCLUDED
#define DROVER_ENDPOINTS_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DROVER_ENDPOINTS_DEAD_AFTER     1000    //  msec a connection may stay down before
                                                //  its broker counts as gone
#define DROVER_ENDPOINTS_DEAD_MEMORY    10000   //  msec a broker found dead is not gone back to:
                                                //  past a lease TTL (5 s) and an election
#define DROVER_ENDPOINTS_BACKOFF_MIN    100     //  msec before asking again after a round
#define DROVER_ENDPOINTS_BACKOFF_MAX    400     //  msec, the backoff's cap: a standby's
                                                //  REDIRECT is cheap, a late return to the
                                                //  new leader is failover time

typedef struct _drover_endpoints_t drover_endpoints_t;

//  Parse a comma-separated list of endpoints (spaces around items, empty
//  items and repeats are dropped). NULL if it holds no endpoint. An item
//  may name its broker's CURVE public key after its last '=',
//  "tcp://a:5555=b1" (a key's name, or a key file's path: see
//  drover_serverkeys): the endpoint is what is before, the key kept apart.
drover_endpoints_t *
    drover_endpoints_new (const char *list);

//  Destroy; harmless on NULL
void
    drover_endpoints_destroy (drover_endpoints_t **self_p);

//  Return how many endpoints the list has
size_t
    drover_endpoints_size (drover_endpoints_t *self);

//  Return the list's endpoint at index (0..size - 1), in the list's order
//  (borrowed); NULL past the end. For `drover status`, which asks each.
const char *
    drover_endpoints_item (drover_endpoints_t *self, size_t index);

//  Return true if every endpoint of the list passes the checks ZeroMQ makes
//  before it connects (tcp://[SOURCE;]HOST:PORT, ipc://PATH, inproc://NAME):
//  a peer checks its list at once without connecting anywhere
bool
    drover_endpoints_valid (drover_endpoints_t *self);

//  Return the server key the list gives the endpoint at index ("=KEY"),
//  or NULL if it gives none (borrowed)
const char *
    drover_endpoints_item_key (drover_endpoints_t *self, size_t index);

//  Return the endpoint to talk to now (borrowed: valid until the next move)
const char *
    drover_endpoints_current (drover_endpoints_t *self);

//  The current broker answered REDIRECT naming leader ("" or NULL: none
//  known). Moves to the leader, unless it is the current broker or one
//  found dead lately: then to the next of the list (the current broker
//  is alive, so it is not marked dead), or stays when there is no other.
//  Returns the msec to wait before talking to the new current broker.
int
    drover_endpoints_redirected (drover_endpoints_t *self, const char *leader, int64_t now);

//  The current broker is gone (its connection down for DEAD_AFTER) or did
//  not answer in time: mark it dead and move to the next of the list.
//  Returns the msec to wait before talking to the new current broker.
int
    drover_endpoints_failed (drover_endpoints_t *self, int64_t now);

//  The current broker serves (a WELCOME, a reply that is not REDIRECT):
//  the next trouble starts a new round, without backoff
void
    drover_endpoints_served (drover_endpoints_t *self);

//  Return how many moves were made, ever
uint64_t
    drover_endpoints_moves (drover_endpoints_t *self);

#ifdef __cplusplus
}
#endif

#endif
