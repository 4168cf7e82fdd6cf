/*  =========================================================================
    drover_poller - waits on a few ZeroMQ sockets with one poll(2) on their
    ZMQ_FDs

    zmq_poll (and so zpoller) asks every socket for ZMQ_EVENTS before it
    sleeps and again after it wakes, and each ask costs a poll(2) and a
    getpid(2): with six sockets, some twenty-five system calls a turn, at
    over a microsecond each on these machines, more than routing the
    message itself. A socket's ZMQ_FD is cheaper but edge-triggered: it
    signals only news that comes after a read found the socket empty, and
    a send may take in the socket's pending commands, and the signal with
    them. So the poller keeps one flag per socket, "may hold unread
    input", and the caller keeps it true:

        drover_poller_wait       sleeps only while no socket holds unread
                                 input, and sets the flag of each whose fd
                                 signalled
        drover_poller_readable   the flag: read the socket with ZMQ_DONTWAIT
        drover_poller_drained    a read said EAGAIN: clear the flag
        drover_poller_sent       a send went out on it: set the flag

    One owner thread, like the sockets it watches; the sockets are borrowed.
    =========================================================================
*/

#ifndef DROVER_POLLER_H_INCLUDED
#define DROVER_POLLER_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  Sockets one poller watches at most
#define DROVER_POLLER_MAX   8

typedef struct _drover_poller_t drover_poller_t;

//  Create a poller watching nothing
drover_poller_t *
    drover_poller_new (void);

//  Destroy the poller (not the sockets)
void
    drover_poller_destroy (drover_poller_t **self_p);

//  Watch a socket (borrowed); returns its index, 0 for the first added.
//  It starts as holding unread input.
size_t
    drover_poller_add (drover_poller_t *self, zsock_t *sock);

//  Wait up to msec (-1: no limit) until some socket may hold input; do
//  not sleep at all if one already may. Returns 0, or -1 if interrupted
//  by a signal while zsys_interrupted is set.
int
    drover_poller_wait (drover_poller_t *self, int msec);

//  Return true if the socket at index may hold unread input
bool
    drover_poller_readable (drover_poller_t *self, size_t index);

//  A read from the socket at index said EAGAIN: its fd signals what comes
void
    drover_poller_drained (drover_poller_t *self, size_t index);

//  Something was sent on the socket at index: it may hold input its fd
//  will not signal
void
    drover_poller_sent (drover_poller_t *self, size_t index);

#ifdef __cplusplus
}
#endif

#endif
