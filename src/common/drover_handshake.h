/*  =========================================================================
    drover_handshake - watches a socket's handshakes with the broker (a zmq
    socket monitor) and says in plain words why the broker refused one

    A CURVE handshake the broker refuses (a key it does not hold, the wrong
    server key, CURVE on one side only) is silent on the socket: ZeroMQ
    reconnects and tries again, and a request just waits. The socket's
    monitor reports each failure (ZMQ_EVENT_HANDSHAKE_FAILED_AUTH, _PROTOCOL,
    _NO_DETAIL) and each success: the client fails its request with the
    refusal's text, the worker logs it, the CLI's event watch gives up.
    A plain (not CURVE) connection closed during its handshake is taken
    for a refusal only the third time in a row: a broker going away closes
    one, and ZeroMQ retries; a CURVE-only broker closes every one, and
    often before its greeting has named CURVE (ZeroMQ retries those too).
    It also tells since when the connection has been down (disconnected,
    or connects failing): a peer with several brokers moves on when its
    broker is gone (a killed broker's kernel closes its connections).

    Create it before the socket connects (events before it are lost), poll
    drover_handshake_sock beside the socket, and destroy it before the
    socket. One owner thread, like the socket it watches (borrowed).
    =========================================================================
*/

#ifndef DROVER_HANDSHAKE_H_INCLUDED
#define DROVER_HANDSHAKE_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_handshake_t drover_handshake_t;

//  Watch sock's handshakes (borrowed; not yet connected). curve says
//  whether sock speaks CURVE (the refusal then names "this key").
drover_handshake_t *
    drover_handshake_new (zsock_t *sock, bool curve);

//  Stop watching and destroy; before the socket. Harmless on NULL.
void
    drover_handshake_destroy (drover_handshake_t **self_p);

//  Return the monitor's socket, to poll beside the watched one (readable
//  when an event came; drover_handshake_read takes them all)
zsock_t *
    drover_handshake_sock (drover_handshake_t *self);

//  Take every event that has come, without blocking. Returns -1 if a
//  handshake was refused and no handshake succeeded after it (the reason
//  is drover_handshake_reason), 1 if one succeeded last, 0 if no
//  handshake ended since the last call.
int
    drover_handshake_read (drover_handshake_t *self);

//  Return why the last refused handshake was refused, "the broker refused
//  this key (...)", or "" if none was (borrowed)
const char *
    drover_handshake_reason (drover_handshake_t *self);

//  Take the events that have come (keeping a refusal for the next
//  drover_handshake_read) and return true if the connection is up: a
//  handshake succeeded, and nothing failed since
bool
    drover_handshake_up (drover_handshake_t *self);

//  True if drover_handshake_up took events whose outcome (a refusal, a
//  success) drover_handshake_read has yet to return. Their signal on
//  drover_handshake_sock went with them: the owner checks this before it
//  sleeps, or it sleeps through the refusal (drover_poller_sent).
bool
    drover_handshake_pending (drover_handshake_t *self);

//  Return how many handshakes succeeded since creation
uint64_t
    drover_handshake_connects (drover_handshake_t *self);

//  Return since when (msec, zclock_mono) the connection has been failing:
//  the first disconnect or failed connect seen since the last handshake
//  that succeeded (or since creation); 0 while up, or while nothing has
//  failed yet. drover_handshake_read takes the events that set it.
int64_t
    drover_handshake_down_since (drover_handshake_t *self);

//  Return the handshakes refused since creation
uint64_t
    drover_handshake_refusals (drover_handshake_t *self);

//  Say in plain words why a handshake failed: event is a ZMQ_EVENT_
//  HANDSHAKE_FAILED_* and value its value; curve as for _new. Writes
//  "the broker refused this key (...)" (or "this connection" without
//  CURVE) into buffer.
void
    drover_handshake_describe (int event, uint32_t value, bool curve, char *buffer,
                               size_t size);

#ifdef __cplusplus
}
#endif

#endif
