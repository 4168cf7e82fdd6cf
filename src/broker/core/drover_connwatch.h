/*  =========================================================================
    drover_connwatch - the broker's peer connections, watched against its
    descriptor limit: the I/O around drover_conns

    At start it raises the soft descriptor limit to the hard one and sizes
    what connections may take (max-workers is lowered to fit). It monitors
    the broker's sockets for accepted and closed connections, tells
    drover_conns of each (with the peer's address), tells it which
    connections spoke and which registered, and shuts down the connections
    drover_conns says are due: silent ones, those evicted for a newcomer,
    those refused (docs/operating.md, "Bounds and connections"). Before a cut, and before
    it refuses anyone for want of room, it makes sure each descriptor is
    still the connection counted, so a close libzmq did not report gives
    its place back. drover_conns decides; this class reads the monitors,
    looks at descriptors, logs and cuts. One owner thread, the main's; the
    watched sockets are borrowed and must outlive it.
    =========================================================================
*/

#ifndef DROVER_CONNWATCH_H_INCLUDED
#define DROVER_CONNWATCH_H_INCLUDED

#include <czmq.h>
#include "drover_conns.h"
#include "drover_metrics.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Sockets one connwatch monitors at most
#define DROVER_CONNWATCH_MAX    2

typedef struct _drover_connwatch_t drover_connwatch_t;

//  Raise the descriptor limit to the hard one (logged) and watch nothing
//  yet. silent: msec a stranger may say nothing valid; reserve: percent of
//  the connections kept for members; per_address: strangers from one
//  address at most (0: no cap).
drover_connwatch_t *
    drover_connwatch_new (int silent, uint32_t reserve, uint32_t per_address);

//  Stop monitoring and destroy; harmless on NULL
void
    drover_connwatch_destroy (drover_connwatch_t **self_p);

//  Fit max_workers to the connections the descriptors allow once the
//  broker's own sockets, pipes and threads are open: returns it, lowered
//  (with a warning) if they allow fewer
uint32_t
    drover_connwatch_fit_workers (drover_connwatch_t *self, uint32_t max_workers);

//  Monitor sock's connections; call before it binds, so that every one is
//  seen. listeners: its peers only listen (an event stream), so none is
//  silent. Returns the monitor, for the caller to poll (borrowed): it is
//  the next index, 0 for the first socket watched.
zsock_t *
    drover_connwatch_watch (drover_connwatch_t *self, zsock_t *sock, bool listeners);

//  Set the connection limit from the descriptors open now: call once the
//  broker has bound its sockets and started its actors (logged). With
//  ahead, the actors are not started yet (a broker standing by): room is
//  kept for what they will open. A second call does nothing.
void
    drover_connwatch_start (drover_connwatch_t *self, bool ahead);

//  Tell whether the broker serves (it reads its peers' requests), so that
//  connections that say nothing valid are cut; a broker standing by does
//  not read them, and cuts none for silence. Call after start.
void
    drover_connwatch_serve (drover_connwatch_t *self, bool serving);

//  Log the handshakes the broker refuses before ZAP is asked (a peer
//  without CURVE, a wrong server key: drover_handshakelog), with the
//  peer's address; secure: the broker speaks CURVE. Before the first read.
void
    drover_connwatch_log_handshakes (drover_connwatch_t *self, bool secure);

//  Read the connection events waiting on monitor index, without blocking
void
    drover_connwatch_read (drover_connwatch_t *self, size_t index);

//  When the next connection is due to be cut, msec monotonic; -1 if none
int64_t
    drover_connwatch_deadline (drover_connwatch_t *self);

//  Cut the connections due at now: shutdown, not close (the descriptor
//  stays libzmq's, which sees the end and closes it). Read every monitor
//  first; a descriptor that is no longer the connection counted is not
//  cut, and that connection is forgotten.
void
    drover_connwatch_cut (drover_connwatch_t *self, int64_t now);

//  A valid request came on fd from the peer with that routing id (route,
//  route_size) at now; member: it registers a worker or comes with an
//  admin key. Returns NULL if it is served, or why not (borrowed): its
//  connection is cut shortly after.
const char *
    drover_connwatch_admit (drover_connwatch_t *self, int fd, const byte *route,
                            size_t route_size, bool member, int64_t now);

//  Connections open, of every class
size_t
    drover_connwatch_count (drover_connwatch_t *self);

//  Connections served at most
size_t
    drover_connwatch_limit (drover_connwatch_t *self);

//  Set the connections' series (drover_connections...) in metrics;
//  nothing before start
void
    drover_connwatch_metrics (drover_connwatch_t *self, drover_metrics_t *metrics);

#ifdef __cplusplus
}
#endif

#endif
