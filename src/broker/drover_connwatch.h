/*  =========================================================================
    drover_connwatch - the broker's peer connections, watched against its
    descriptor limit: the I/O around drover_conns

    At start it raises the soft descriptor limit to the hard one and sizes
    what connections may take (max-workers is lowered to fit). It monitors
    the broker's sockets for accepted and closed connections, tells
    drover_conns of each, and shuts down the excess connections drover_conns
    says are due (README, "file descriptors"). drover_conns decides; this
    class reads the monitors, logs and cuts. One owner thread, the main's;
    the watched sockets are borrowed and must outlive it.
    =========================================================================
*/

#ifndef DROVER_CONNWATCH_H_INCLUDED
#define DROVER_CONNWATCH_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  Sockets one connwatch monitors at most
#define DROVER_CONNWATCH_MAX    2

typedef struct _drover_connwatch_t drover_connwatch_t;

//  Raise the descriptor limit to the hard one (logged) and watch nothing yet
drover_connwatch_t *
    drover_connwatch_new (void);

//  Stop monitoring and destroy; harmless on NULL
void
    drover_connwatch_destroy (drover_connwatch_t **self_p);

//  Fit max_workers to the connections the descriptors allow once the
//  broker's own sockets, pipes and threads are open: returns it, lowered
//  (with a warning) if they allow fewer
uint32_t
    drover_connwatch_fit_workers (drover_connwatch_t *self, uint32_t max_workers);

//  Monitor sock's connections; call before it binds, so that every one is
//  seen. Returns the monitor, for the caller to poll (borrowed): it is
//  the next index, 0 for the first socket watched.
zsock_t *
    drover_connwatch_watch (drover_connwatch_t *self, zsock_t *sock);

//  Set the connection limit from the descriptors open now: call once the
//  broker has bound its sockets and started its actors (logged). With
//  ahead, the actors are not started yet (a broker standing by): room is
//  kept for what they will open. A second call does nothing.
void
    drover_connwatch_start (drover_connwatch_t *self, bool ahead);

//  Log the handshakes the broker refuses before ZAP is asked (a peer
//  without CURVE, a wrong server key: drover_handshakelog), with the
//  peer's address; secure: the broker speaks CURVE. Before the first read.
void
    drover_connwatch_log_handshakes (drover_connwatch_t *self, bool secure);

//  Read the connection events waiting on monitor index, without blocking
void
    drover_connwatch_read (drover_connwatch_t *self, size_t index);

//  When the next excess connection is due to be cut, msec monotonic; -1 if none
int64_t
    drover_connwatch_deadline (drover_connwatch_t *self);

//  Cut the excess connections due at now: shutdown, not close (the
//  descriptor stays libzmq's, which sees the end and closes it). Read
//  every monitor first, so that a descriptor reused since is not cut.
void
    drover_connwatch_cut (drover_connwatch_t *self, int64_t now);

//  Tell whether more connections are open than are served, so that
//  requests must be checked with drover_connwatch_refuse
bool
    drover_connwatch_over (drover_connwatch_t *self);

//  Tell whether a request that came on fd is to be refused (its
//  connection is excess); if so, that connection is cut shortly after now
bool
    drover_connwatch_refuse (drover_connwatch_t *self, int fd, int64_t now);

//  Connections open, served and excess
size_t
    drover_connwatch_count (drover_connwatch_t *self);

//  Connections served at most
size_t
    drover_connwatch_limit (drover_connwatch_t *self);

#ifdef __cplusplus
}
#endif

#endif
