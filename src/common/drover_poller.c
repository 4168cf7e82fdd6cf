/*  =========================================================================
    drover_poller - waits on a few ZeroMQ sockets with one poll(2) on their
    ZMQ_FDs (see the header for why, and the rules the caller keeps)
    =========================================================================
*/

#include "drover_poller.h"
#include <poll.h>

struct _drover_poller_t {
    size_t count;                               //  sockets watched
    struct pollfd fds [DROVER_POLLER_MAX];      //  their ZMQ_FDs
    bool unread [DROVER_POLLER_MAX];            //  may hold input no fd will signal
};


//  --------------------------------------------------------------------------
//  Create a poller watching nothing

drover_poller_t *
drover_poller_new (void)
{
    drover_poller_t *self = (drover_poller_t *) zmalloc (sizeof (drover_poller_t));
    return self;
}


//  --------------------------------------------------------------------------
//  Destroy the poller (not the sockets)

void
drover_poller_destroy (drover_poller_t **self_p)
{
    assert (self_p);
    free (*self_p);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Watch a socket; returns its index

size_t
drover_poller_add (drover_poller_t *self, zsock_t *sock)
{
    assert (self && sock);
    assert (self->count < DROVER_POLLER_MAX);
    size_t index = self->count++;
    self->fds [index] = (struct pollfd) { zsock_fd (sock), POLLIN, 0 };
    self->unread [index] = true;
    return index;
}


//  --------------------------------------------------------------------------
//  Wait until some socket may hold input, or msec pass

int
drover_poller_wait (drover_poller_t *self, int msec)
{
    assert (self);
    for (size_t index = 0; index < self->count; index++)
        if (self->unread [index])
            msec = 0;           //  still look at the others, but do not sleep
    int rc = poll (self->fds, (nfds_t) self->count, msec);
    if (rc == -1)
        return (errno == EINTR && zsys_interrupted)? -1: 0;
    for (size_t index = 0; rc > 0 && index < self->count; index++)
        if (self->fds [index].revents)
            self->unread [index] = true;
    return 0;
}


//  --------------------------------------------------------------------------
//  Return true if the socket at index may hold unread input

bool
drover_poller_readable (drover_poller_t *self, size_t index)
{
    assert (self && index < self->count);
    return self->unread [index];
}


//  --------------------------------------------------------------------------
//  A read said EAGAIN: the socket's fd signals what comes next

void
drover_poller_drained (drover_poller_t *self, size_t index)
{
    assert (self && index < self->count);
    self->unread [index] = false;
}


//  --------------------------------------------------------------------------
//  A send went out on the socket: it may hold input its fd will not signal

void
drover_poller_sent (drover_poller_t *self, size_t index)
{
    assert (self && index < self->count);
    self->unread [index] = true;
}
