/*  =========================================================================
    drover_poller - waits on a few ZeroMQ sockets with one epoll_wait(2) on
    their ZMQ_FDs, or with one poll(2) when plain fds are watched beside them

    The poller of every loop on a task's path: the broker's main and its
    actors, the worker (its DEALER, its actor pipe and its children's
    pipes and pidfds) and the client (its DEALER) each sleep in one. (The
    CLI's event watch keeps a zpoller and the benchmark's simulated
    workers an epoll set over a thousand sockets: tools, off that path.)

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
                                 signalled; when the only sockets flagged
                                 are ones sent on since they drained (most
                                 often empty), it returns without a poll(2)
                                 at once, the caller reads them, and the
                                 wait after looks at every fd: so a send
                                 costs one poll(2), not two, and a loop
                                 that sends every turn still hears the rest
        drover_poller_readable   the flag: read the socket with ZMQ_DONTWAIT
        drover_poller_drained    a read said EAGAIN: clear the flag
        drover_poller_sent       a send went out on it: set the flag

    A socket destroyed and created again (the worker's DEALER on each
    reconnect) takes its slot back with drover_poller_set. Plain fds (pipes,
    pidfds) are level-triggered and need no flags: the caller lists them
    for one wait with drover_poller_items and reads their revents after.

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
#define DROVER_POLLER_MAX   16

typedef struct _drover_poller_t drover_poller_t;

//  Create a poller watching nothing
drover_poller_t *
    drover_poller_new (void);

//  Destroy the poller (not the sockets)
void
    drover_poller_destroy (drover_poller_t **self_p);

//  Watch a socket (borrowed); returns its index, 0 for the first added.
//  It starts as holding unread input. A NULL sock keeps the slot empty
//  (never readable) until drover_poller_set fills it.
size_t
    drover_poller_add (drover_poller_t *self, zsock_t *sock);

//  Watch sock (borrowed) at index instead of what was there, or nothing if
//  NULL: call it as the socket there is destroyed, and again when one is
//  created in its place. A new socket starts as holding unread input.
void
    drover_poller_set (drover_poller_t *self, size_t index, zsock_t *sock);

//  Watch a plain fd (a signalfd, a pipe; borrowed) at index in every wait
//  instead of what was there, or nothing if fd is -1. It is readable
//  (drover_poller_readable) after a wait its fd was ready in; the caller
//  reads it to the end and calls drover_poller_drained.
void
    drover_poller_set_fd (drover_poller_t *self, size_t index, int fd);

//  Watch plain fds too, in the next wait only: returns room for count
//  items, each { NULL, -1, 0, 0 } (an fd of -1 is not watched), that the
//  caller fills with { NULL, fd, ZMQ_POLLIN, 0 }. After that wait their
//  revents say ZMQ_POLLIN and/or ZMQ_POLLERR as zmq_poll would (all 0 if
//  the wait was interrupted). The room is the poller's, valid until the
//  next call of this function.
zmq_pollitem_t *
    drover_poller_items (drover_poller_t *self, size_t count);

//  Wait up to msec (-1: no limit) until some socket may hold input or a
//  plain fd is ready; do not sleep at all if a socket already may hold
//  input, and do not even look at the fds if every such socket was only
//  sent on since it drained (never two waits running, nor with plain fds).
//  Returns 0, or -1 if interrupted by a signal while zsys_interrupted is set.
int
    drover_poller_wait (drover_poller_t *self, int msec);

//  Return true if the socket at index may hold unread input
bool
    drover_poller_readable (drover_poller_t *self, size_t index);

//  A read from the socket at index said EAGAIN: its fd signals what comes
void
    drover_poller_drained (drover_poller_t *self, size_t index);

//  Something was sent on the socket at index, or read from it outside the
//  owner's read of it (and kept for that read): it may hold input its fd
//  will not signal
void
    drover_poller_sent (drover_poller_t *self, size_t index);

#ifdef __cplusplus
}
#endif

#endif
