/*  =========================================================================
    drover_handshakelog - the handshakes the broker refuses before ZAP is
    asked, told to its log with the peer's address and why

    A peer without CURVE at a CURVE broker (or with CURVE at one without),
    or with a server key that is not the broker's public key, fails its
    handshake inside libzmq (a peer without a key sees the mismatch too,
    and may break the connection off before the broker does: the broker
    then logs that the peer broke the handshake off): ZAP is never asked (drover_zap logs the keys
    it refuses), nothing reaches the broker's sockets, and the peer's
    retries are silent. The broker's socket monitor reports, in order, the
    connection accepted (its descriptor), the handshake failed (why), the
    connection closed (its descriptor): the watcher of the monitor
    (drover_connwatch) looks up the peer's address when it hears of the
    accept and tells this class each event; this class pairs them and
    logs, rate limited by drover_refusals:

        guard: refused a handshake on endpoint=tcp://0.0.0.0:5555 from
        address=10.0.0.7: the peer does not speak CURVE (it has no key: give
        it --key and --server-key) held=0

    An address the watcher could not learn (the connection had closed
    before it heard of the accept) is logged as "?". One owner thread, the
    main's; no I/O but the log.
    =========================================================================
*/

#ifndef DROVER_HANDSHAKELOG_H_INCLUDED
#define DROVER_HANDSHAKELOG_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_handshakelog_t drover_handshakelog_t;

//  Create; secure says whether the broker speaks CURVE (for the words)
drover_handshakelog_t *
    drover_handshakelog_new (bool secure);

//  Destroy; harmless on NULL
void
    drover_handshakelog_destroy (drover_handshakelog_t **self_p);

//  A connection was accepted on fd, from address (IP text; NULL unknown)
void
    drover_handshakelog_accepted (drover_handshakelog_t *self, int fd, const char *address);

//  A handshake failed: event is ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL (value
//  its ZMQ_PROTOCOL_ERROR_*) or _NO_DETAIL (value an errno: with CURVE,
//  EPIPE or ECONNRESET is a peer that broke the handshake off, as one
//  without a key does when it sees the broker's mechanism first; others
//  are not logged); AUTH is drover_zap's to log. endpoint is the
//  monitor's (the broker's own).
void
    drover_handshakelog_failed (drover_handshakelog_t *self, int event, uint32_t value,
                                const char *endpoint);

//  The connection on fd closed at now (msec, monotonic): a failure told
//  just before is logged, with fd's address
void
    drover_handshakelog_closed (drover_handshakelog_t *self, int fd, int64_t now);

//  Return the handshakes refused so far
uint64_t
    drover_handshakelog_refused (drover_handshakelog_t *self);

//  Say in plain words why a handshake failed (value: ZMQ_PROTOCOL_ERROR_*,
//  or 1 for a handshake the peer broke off) at a broker that speaks CURVE
//  (secure) or not (borrowed, static)
const char *
    drover_handshakelog_why (uint32_t value, bool secure);

#ifdef __cplusplus
}
#endif

#endif
