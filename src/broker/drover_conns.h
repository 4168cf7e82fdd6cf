/*  =========================================================================
    drover_conns - the broker's TCP connections against its file
    descriptors: how many are open, which are past the limit, and when
    each of those is cut

    libzmq accepts every connection it can; when accept() fails for want
    of descriptors it retries at once, forever (its I/O thread spins and
    nobody can connect). So the broker keeps descriptors in reserve: a
    connection accepted past `limit` is excess. Its requests are refused
    (302, "too many connections") and it is cut a short grace later, or at
    once when excess connections eat half the reserve. Connections are
    known by descriptor, from the ROUTER's monitor events. A plain class:
    no threads, no I/O; `now` is msec, monotonic.
    =========================================================================
*/

#ifndef DROVER_CONNS_H_INCLUDED
#define DROVER_CONNS_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_conns_t drover_conns_t;

//  Create for descriptors below fd_limit, of which limit connections are
//  served and up to spare more may be open, excess, for grace msec each
drover_conns_t *
    drover_conns_new (int fd_limit, size_t limit, size_t spare, int grace);

//  Destroy; harmless on NULL
void
    drover_conns_destroy (drover_conns_t **self_p);

//  A connection was accepted on fd at now. Returns true if it is excess.
bool
    drover_conns_accepted (drover_conns_t *self, int fd, int64_t now);

//  The connection on fd closed
void
    drover_conns_closed (drover_conns_t *self, int fd);

//  Tell whether the connection on fd is excess (its requests are refused)
bool
    drover_conns_excess (drover_conns_t *self, int fd);

//  An excess connection was told why: cut it at now + delay, unless due sooner
void
    drover_conns_cut_after (drover_conns_t *self, int fd, int64_t now, int delay);

//  Take the next excess connection due to be cut at now: its fd, or -1.
//  It stays counted until drover_conns_closed.
int
    drover_conns_next_cut (drover_conns_t *self, int64_t now);

//  When the next cut is due, msec monotonic; -1 if none
int64_t
    drover_conns_deadline (drover_conns_t *self);

//  Connections open, served and excess
size_t
    drover_conns_count (drover_conns_t *self);

//  Connections served at most
size_t
    drover_conns_limit (drover_conns_t *self);

#ifdef __cplusplus
}
#endif

#endif
