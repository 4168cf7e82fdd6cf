/*  =========================================================================
    drover_poller - waits on a few ZeroMQ sockets with one epoll_wait(2) on
    their ZMQ_FDs, or one poll(2) on them and on plain fds beside them (see
    the header for why, and the rules the caller keeps)
    =========================================================================
*/

#include "drover_poller.h"
#include <poll.h>
#include <sys/epoll.h>

struct _drover_poller_t {
    size_t count;                               //  socket slots
    bool unread [DROVER_POLLER_MAX];            //  may hold input no fd will signal
    bool sent [DROVER_POLLER_MAX];              //  unread only for a send since the last wait
    bool skipped;                               //  the last wait looked at no fd
    struct pollfd *fds;                         //  the slots' ZMQ_FDs (-1: empty), then the plain fds
    int epoll;                                  //  the slots' ZMQ_FDs, data = slot; -1: poll(2) only
    zmq_pollitem_t *items;                      //  plain fds for the next wait, the caller's to fill
    size_t nitems;                              //  items in use, 0 after a wait
    size_t items_alloc;                         //  room in items, and in fds past the slots
};


//  --------------------------------------------------------------------------
//  Create a poller watching nothing

drover_poller_t *
drover_poller_new (void)
{
    drover_poller_t *self = (drover_poller_t *) zmalloc (sizeof (drover_poller_t));
    self->fds = (struct pollfd *) zmalloc (DROVER_POLLER_MAX * sizeof (struct pollfd));
    //  The main sleeps once a message: epoll keeps its sockets registered,
    //  where each poll(2) visits every fd twice and queues a wait on each
    self->epoll = epoll_create1 (EPOLL_CLOEXEC);
    return self;
}


//  --------------------------------------------------------------------------
//  Destroy the poller (not the sockets)

void
drover_poller_destroy (drover_poller_t **self_p)
{
    assert (self_p);
    drover_poller_t *self = *self_p;
    if (!self)
        return;
    if (self->epoll != -1)
        close (self->epoll);
    free (self->fds);
    free (self->items);
    free (self);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Watch a socket (or keep the slot empty); returns its index

size_t
drover_poller_add (drover_poller_t *self, zsock_t *sock)
{
    assert (self);
    assert (self->count < DROVER_POLLER_MAX);
    size_t index = self->count++;
    self->fds [index].fd = -1;  //  nothing there before
    drover_poller_set (self, index, sock);
    return index;
}


//  Watch fd (-1: nothing) at index, in the epoll set when there is one
static void
s_watch (drover_poller_t *self, size_t index, int fd)
{
    if (self->epoll != -1) {
        if (self->fds [index].fd != -1)
            epoll_ctl (self->epoll, EPOLL_CTL_DEL, self->fds [index].fd, NULL);
        struct epoll_event event = { .events = EPOLLIN, .data.u32 = (uint32_t) index };
        if (fd != -1 && epoll_ctl (self->epoll, EPOLL_CTL_ADD, fd, &event) == -1) {
            zsys_warning ("poller: epoll_ctl: %s; polling instead", strerror (errno));
            close (self->epoll);
            self->epoll = -1;
        }
    }
    self->fds [index] = (struct pollfd) { fd, POLLIN, 0 };
}


//  --------------------------------------------------------------------------
//  Watch sock at index instead, or nothing if NULL

void
drover_poller_set (drover_poller_t *self, size_t index, zsock_t *sock)
{
    assert (self && index < self->count);
    int fd = sock? zsock_fd (sock): -1;
    s_watch (self, index, fd);
    self->unread [index] = sock != NULL;
    self->sent [index] = false;
}


//  --------------------------------------------------------------------------
//  Watch a plain fd at index in every wait (level-triggered), or nothing

void
drover_poller_set_fd (drover_poller_t *self, size_t index, int fd)
{
    assert (self && index < self->count);
    s_watch (self, index, fd);
    self->unread [index] = false;   //  level-triggered: its fd says when
    self->sent [index] = false;
}


//  --------------------------------------------------------------------------
//  Watch plain fds in the next wait: room for count items, unwatched

zmq_pollitem_t *
drover_poller_items (drover_poller_t *self, size_t count)
{
    assert (self);
    if (count > self->items_alloc) {
        self->items_alloc = count * 2;
        self->items = (zmq_pollitem_t *) realloc (self->items,
                                                  self->items_alloc * sizeof (zmq_pollitem_t));
        self->fds = (struct pollfd *) realloc (self->fds, (DROVER_POLLER_MAX + self->items_alloc)
                                                          * sizeof (struct pollfd));
        assert (self->items && self->fds);
    }
    for (size_t index = 0; index < count; index++)
        self->items [index] = (zmq_pollitem_t) { NULL, -1, 0, 0 };
    self->nitems = count;
    return self->items;
}


//  --------------------------------------------------------------------------
//  Wait until some socket may hold input, a plain fd is ready, or msec pass

int
drover_poller_wait (drover_poller_t *self, int msec)
{
    assert (self);
    bool news = self->nitems > 0;       //  could a poll tell anything we do not know
    size_t unread = 0;                  //  sockets that may hold input
    size_t guesses = 0;                 //  of which sent on since they drained
    for (size_t index = 0; index < self->count; index++) {
        if (self->unread [index]) {
            msec = 0;           //  still look at the others, but do not sleep
            unread++;
            guesses += self->sent [index];
        }
        else
        if (self->fds [index].fd != -1)
            news = true;
        self->sent [index] = false;
    }
    //  Sockets only sent on are most often empty: read them first and poll
    //  when they are, rather than poll now and again then; but never twice
    //  running, so a loop that sends every turn still hears its other sockets
    bool skip = msec == 0 && (!news || (unread && guesses == unread && !self->skipped
                                        && self->nitems == 0));
    self->skipped = skip && news;
    if (skip)
        return 0;               //  every socket gets read anyway: spare the poll(2)
    if (self->nitems == 0 && self->epoll != -1) {
        struct epoll_event events [DROVER_POLLER_MAX];
        int rc = epoll_wait (self->epoll, events, DROVER_POLLER_MAX, msec);
        if (rc == -1)
            return (errno == EINTR && zsys_interrupted)? -1: 0;
        for (int event = 0; event < rc; event++)
            self->unread [events [event].data.u32] = true;
        return 0;
    }
    size_t nitems = self->nitems;
    self->nitems = 0;           //  plain fds are watched for one wait
    struct pollfd *plain = self->fds + self->count;
    for (size_t index = 0; index < nitems; index++)
        plain [index] = (struct pollfd) { self->items [index].fd, POLLIN, 0 };
    int rc = poll (self->fds, (nfds_t) (self->count + nitems), msec);
    for (size_t index = 0; index < nitems; index++) {
        short revents = rc > 0? plain [index].revents: 0;
        self->items [index].revents = (short) ((revents & POLLIN? ZMQ_POLLIN: 0)
                                    | (revents & (POLLERR | POLLHUP | POLLNVAL)? ZMQ_POLLERR: 0));
    }
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
    self->sent [index] = false;
}


//  --------------------------------------------------------------------------
//  A send went out on the socket: it may hold input its fd will not signal

void
drover_poller_sent (drover_poller_t *self, size_t index)
{
    assert (self && index < self->count);
    if (!self->unread [index])
        self->sent [index] = true;
    self->unread [index] = true;
}
