/*  =========================================================================
    drover_conns - the broker's TCP connections against its file
    descriptors (see the header)

    Open descriptors are a bitmap, so that a close libzmq did not report is
    noticed when the descriptor is accepted again; excess connections, few
    by construction (past half the spare each is cut at once), sit in a
    small array with their cut deadlines.
    =========================================================================
*/

#include "drover_conns.h"

//  An excess connection and when it is cut
typedef struct {
    int fd;                     //  its descriptor
    int64_t due;                //  when it is cut, msec monotonic; -1 once taken
} s_excess_t;

struct _drover_conns_t {
    byte *open;                 //  bit per descriptor: a connection is open on it
    int fd_limit;               //  descriptors below it
    size_t count;               //  connections open
    size_t limit;               //  connections served, at most
    size_t spare;               //  excess connections open, at most
    int grace;                  //  msec an excess connection stays, at most
    s_excess_t *excess;         //  excess connections
    size_t nexcess;             //  entries in use
    size_t excess_size;         //  entries allocated
};


//  Create with the limits
drover_conns_t *
drover_conns_new (int fd_limit, size_t limit, size_t spare, int grace)
{
    assert (fd_limit > 0);
    drover_conns_t *self = (drover_conns_t *) zmalloc (sizeof (drover_conns_t));
    self->open = (byte *) zmalloc ((size_t) fd_limit / 8 + 1);
    self->fd_limit = fd_limit;
    self->limit = limit;
    self->spare = spare > 0? spare: 1;
    self->grace = grace;
    self->excess_size = self->spare;
    self->excess = (s_excess_t *) zmalloc (self->excess_size * sizeof (s_excess_t));
    return self;
}

//  Destroy
void
drover_conns_destroy (drover_conns_t **self_p)
{
    assert (self_p);
    drover_conns_t *self = *self_p;
    if (self) {
        free (self->open);
        free (self->excess);
        free (self);
        *self_p = NULL;
    }
}

//  Index of fd among the excess, or -1
static int
s_excess_index (drover_conns_t *self, int fd)
{
    for (size_t index = 0; index < self->nexcess; index++)
        if (self->excess [index].fd == fd)
            return (int) index;
    return -1;
}

//  Count a connection on fd, served or excess
bool
drover_conns_accepted (drover_conns_t *self, int fd, int64_t now)
{
    assert (self);
    if (fd < 0 || fd >= self->fd_limit)
        return false;           //  not a descriptor we can have
    if (self->open [fd / 8] & (1 << (fd % 8)))
        drover_conns_closed (self, fd);     //  its close was not reported
    self->open [fd / 8] |= (byte) (1 << (fd % 8));
    self->count++;
    if (self->count <= self->limit)
        return false;
    //  Excess: cut after the grace, or at once when half the spare is used
    if (self->nexcess == self->excess_size) {
        self->excess_size *= 2;
        self->excess = (s_excess_t *) realloc (self->excess,
                                               self->excess_size * sizeof (s_excess_t));
        assert (self->excess);
    }
    int64_t due = self->nexcess * 2 >= self->spare? now: now + self->grace;
    self->excess [self->nexcess++] = (s_excess_t) { fd, due };
    return true;
}

//  Forget a connection
void
drover_conns_closed (drover_conns_t *self, int fd)
{
    assert (self);
    if (fd < 0 || fd >= self->fd_limit || !(self->open [fd / 8] & (1 << (fd % 8))))
        return;
    self->open [fd / 8] &= (byte) ~(1 << (fd % 8));
    self->count--;
    int index = s_excess_index (self, fd);
    if (index >= 0)
        self->excess [index] = self->excess [--self->nexcess];
}

//  Tell whether fd is excess
bool
drover_conns_excess (drover_conns_t *self, int fd)
{
    assert (self);
    return s_excess_index (self, fd) >= 0;
}

//  Bring an excess connection's cut forward
void
drover_conns_cut_after (drover_conns_t *self, int fd, int64_t now, int delay)
{
    assert (self);
    int index = s_excess_index (self, fd);
    if (index >= 0 && self->excess [index].due != -1 && now + delay < self->excess [index].due)
        self->excess [index].due = now + delay;
}

//  Take an excess connection whose cut is due
int
drover_conns_next_cut (drover_conns_t *self, int64_t now)
{
    assert (self);
    for (size_t index = 0; index < self->nexcess; index++)
        if (self->excess [index].due != -1 && self->excess [index].due <= now) {
            self->excess [index].due = -1;
            return self->excess [index].fd;
        }
    return -1;
}

//  The earliest cut still to come
int64_t
drover_conns_deadline (drover_conns_t *self)
{
    assert (self);
    int64_t deadline = -1;
    for (size_t index = 0; index < self->nexcess; index++)
        if (self->excess [index].due != -1
        &&  (deadline == -1 || self->excess [index].due < deadline))
            deadline = self->excess [index].due;
    return deadline;
}

//  Connections open
size_t
drover_conns_count (drover_conns_t *self)
{
    assert (self);
    return self->count;
}

//  Connections served at most
size_t
drover_conns_limit (drover_conns_t *self)
{
    assert (self);
    return self->limit;
}
