/*  =========================================================================
    drover_connwatch - the broker's peer connections, watched against its
    descriptor limit (see the header)

    Each watched socket gets a libzmq monitor (accepted, disconnected,
    accept failed) read through a PAIR the caller polls. Warnings about
    connections are rate limited to one a second, counting what was held
    back.
    =========================================================================
*/

#include "drover_connwatch.h"
#include "drover_conns.h"
#include "drover_handshakelog.h"
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>

//  Descriptors kept for connections past the limit (at least; or 1/16 of
//  the limit), for what the broker opens later, and how long an excess
//  connection stays to hear why it is refused, msec
#define S_FD_SPARE      16
#define S_FD_MARGIN     8
#define S_EXCESS_GRACE  1000
#define S_EXCESS_TOLD   100
//  Descriptors the broker's own sockets, pipes and threads take, about
#define S_FD_OWN        32

struct _drover_connwatch_t {
    zsock_t *watched [DROVER_CONNWATCH_MAX];    //  the sockets monitored, borrowed
    zsock_t *monitors [DROVER_CONNWATCH_MAX];   //  their connection events
    size_t nwatched;            //  sockets monitored
    int fd_limit;               //  the descriptor limit in force
    size_t spare;               //  descriptors kept for excess connections
    uint32_t max_workers;       //  as fitted to the descriptors, to log
    drover_conns_t *conns;      //  connections against the limit; from start
    uint64_t cut;               //  connections cut for the limit
    uint64_t suppressed;        //  warnings held back by the rate limit
    int64_t warned_at;          //  last warning, msec monotonic
    drover_handshakelog_t *handshakes;  //  refused handshakes to log, or NULL
};


//  Raise the soft descriptor limit to the hard one, saying both; returns
//  the limit in force
static int
s_raise_fd_limit (void)
{
    struct rlimit limit;
    if (getrlimit (RLIMIT_NOFILE, &limit))
        return 1024;
    rlim_t soft = limit.rlim_cur;
    if (limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        if (setrlimit (RLIMIT_NOFILE, &limit))
            limit.rlim_cur = soft;
    }
    zsys_notice ("broker: descriptor limit soft=%llu hard=%llu (soft was %llu)",
                 (unsigned long long) limit.rlim_cur, (unsigned long long) limit.rlim_max,
                 (unsigned long long) soft);
    return limit.rlim_cur > (1 << 24)? (1 << 24): (int) limit.rlim_cur;
}

//  Create: the descriptor limit raised, the spare sized from it
drover_connwatch_t *
drover_connwatch_new (void)
{
    drover_connwatch_t *self = (drover_connwatch_t *) zmalloc (sizeof (drover_connwatch_t));
    self->fd_limit = s_raise_fd_limit ();
    self->spare = self->fd_limit / 16 > S_FD_SPARE? (size_t) self->fd_limit / 16: S_FD_SPARE;
    return self;
}

//  Destroy: monitors stopped first, then their sockets
void
drover_connwatch_destroy (drover_connwatch_t **self_p)
{
    assert (self_p);
    drover_connwatch_t *self = *self_p;
    if (!self)
        return;
    for (size_t index = 0; index < self->nwatched; index++) {
        zmq_socket_monitor (zsock_resolve (self->watched [index]), NULL, 0);
        zsock_destroy (&self->monitors [index]);
    }
    drover_conns_destroy (&self->conns);
    drover_handshakelog_destroy (&self->handshakes);
    free (self);
    *self_p = NULL;
}

//  Count the descriptors this process has open
static int
s_open_fds (int fd_limit)
{
    DIR *dir = opendir ("/proc/self/fd");
    int count = 0;
    if (dir) {
        struct dirent *entry;
        while ((entry = readdir (dir)))
            count += entry->d_name [0] != '.';
        closedir (dir);
        return count - 1;       //  not the directory's own
    }
    for (int fd = 0; fd < fd_limit && fd < 65536; fd++)
        count += fcntl (fd, F_GETFD) != -1;
    return count;
}

//  Connections the descriptors allow once used are open and the spare kept
static size_t
s_connection_limit (drover_connwatch_t *self, int used)
{
    int64_t room = (int64_t) self->fd_limit - used - (int64_t) self->spare - S_FD_MARGIN;
    return room > 1? (size_t) room: 1;
}

//  Every worker and client is a connection, and every connection a
//  descriptor: size max-workers against them and keep a spare for
//  connections past the limit, which are refused rather than let libzmq
//  run out (it would spin on accept, deaf to everyone)
uint32_t
drover_connwatch_fit_workers (drover_connwatch_t *self, uint32_t max_workers)
{
    assert (self);
    size_t workers = s_connection_limit (self, s_open_fds (self->fd_limit) + S_FD_OWN);
    if (max_workers > workers) {
        zsys_warning ("broker: max-workers=%u lowered to %zu: the descriptor limit (%d) allows "
                      "no more connections", max_workers, workers, self->fd_limit);
        max_workers = (uint32_t) workers;
    }
    self->max_workers = max_workers;
    return max_workers;
}

//  Monitor one more socket, through a PAIR of our own
zsock_t *
drover_connwatch_watch (drover_connwatch_t *self, zsock_t *sock)
{
    assert (self);
    assert (self->nwatched < DROVER_CONNWATCH_MAX);
    size_t index = self->nwatched++;
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "inproc://drover-monitor-%zu-%p", index, (void *) self);
    int rc = zmq_socket_monitor (zsock_resolve (sock), endpoint,
                                 ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED
                                 | ZMQ_EVENT_ACCEPT_FAILED
                                 | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
                                 | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL);
    assert (rc == 0);
    self->watched [index] = sock;
    self->monitors [index] = zsock_new (ZMQ_PAIR);
    assert (self->monitors [index]);
    rc = zsock_connect (self->monitors [index], "%s", endpoint);
    assert (rc == 0);
    return self->monitors [index];
}

//  Size the connection limit from what is open now
void
drover_connwatch_start (drover_connwatch_t *self, bool ahead)
{
    assert (self);
    if (self->conns)
        return;                 //  started already, ahead of the actors
    int used = s_open_fds (self->fd_limit) + (ahead? S_FD_OWN: 0);
    self->conns = drover_conns_new (self->fd_limit, s_connection_limit (self, used),
                                    self->spare, S_EXCESS_GRACE);
    zsys_info ("broker: connection limit=%zu descriptors=%d used=%d spare=%zu max_workers=%u",
               drover_conns_limit (self->conns), self->fd_limit, used, self->spare,
               self->max_workers);
}

//  Log a connection trouble, at most once a second
static void
s_warn (drover_connwatch_t *self, const char *what, int value)
{
    int64_t now = zclock_mono ();
    if (now - self->warned_at < 1000) {
        self->suppressed++;
        return;                 //  rate limited: counted, not logged
    }
    zsys_warning ("broker: %s (%d): connections=%zu past the connection limit=%zu set by the "
                  "descriptor limit; cut=%" PRIu64 " suppressed=%" PRIu64, what, value,
                  drover_conns_count (self->conns), drover_conns_limit (self->conns),
                  self->cut, self->suppressed);
    self->suppressed = 0;
    self->warned_at = now;
}

//  Log the handshakes refused before ZAP is asked (no key, a wrong server
//  key), with the peer's address
void
drover_connwatch_log_handshakes (drover_connwatch_t *self, bool secure)
{
    assert (self);
    if (!self->handshakes)
        self->handshakes = drover_handshakelog_new (secure);
}

//  A peer's IP address as text into buffer, or NULL if fd is no socket now
static const char *
s_peer_address (int fd, char *buffer, size_t size)
{
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    if (getpeername (fd, (struct sockaddr *) &address, &length))
        return NULL;
    const void *raw = address.ss_family == AF_INET6
                    ? (const void *) &((struct sockaddr_in6 *) &address)->sin6_addr
                    : (const void *) &((struct sockaddr_in *) &address)->sin_addr;
    if (address.ss_family != AF_INET && address.ss_family != AF_INET6)
        return NULL;
    return inet_ntop (address.ss_family, raw, buffer, (socklen_t) size);
}

//  An event of a monitor: its id, value and endpoint
typedef struct {
    uint16_t id;                //  ZMQ_EVENT_*
    uint32_t value;             //  its value: a descriptor, an error
    char endpoint [256];        //  the socket's endpoint it is about
} s_event_t;

//  Tell the handshake log of an accept: the peer's address, unless the
//  connection closes later in this batch (its descriptor may be another's
//  by now: libzmq reports the close before it closes the descriptor)
static void
s_tell_accepted (drover_connwatch_t *self, s_event_t *events, size_t count, size_t index)
{
    int fd = (int) events [index].value;
    bool closed = false;
    for (size_t later = index + 1; later < count && !closed; later++)
        closed = events [later].id == ZMQ_EVENT_DISCONNECTED && (int) events [later].value == fd;
    char buffer [INET6_ADDRSTRLEN];
    drover_handshakelog_accepted (self->handshakes, fd,
                                  closed? NULL: s_peer_address (fd, buffer, sizeof buffer));
}

//  Events read from a monitor in one batch at most
#define S_EVENT_BATCH   256

//  Read the connection events of one monitored socket: a batch at a time,
//  so that an accept knows whether its connection closed already
void
drover_connwatch_read (drover_connwatch_t *self, size_t index)
{
    assert (self);
    assert (self->conns);
    assert (index < self->nwatched);
    s_event_t *events = (s_event_t *) zmalloc (S_EVENT_BATCH * sizeof (s_event_t));
    size_t count;
    do {
        count = 0;
        zmsg_t *event;
        while (count < S_EVENT_BATCH && (event = zmsg_recv_nowait (self->monitors [index]))) {
            zframe_t *head = zmsg_first (event);
            zframe_t *endpoint = zmsg_next (event);
            if (head && zframe_size (head) == 6) {
                memcpy (&events [count].id, zframe_data (head), 2);
                memcpy (&events [count].value, zframe_data (head) + 2, 4);
                size_t size = endpoint? zframe_size (endpoint): 0;
                if (size >= sizeof events [count].endpoint)
                    size = sizeof events [count].endpoint - 1;
                if (size)
                    memcpy (events [count].endpoint, zframe_data (endpoint), size);
                events [count].endpoint [size] = 0;
                count++;
            }
            zmsg_destroy (&event);
        }
        for (size_t at = 0; at < count; at++) {
            uint16_t id = events [at].id;
            uint32_t value = events [at].value;
            if (id == ZMQ_EVENT_ACCEPTED) {
                if (self->handshakes)
                    s_tell_accepted (self, events, count, at);
                if (drover_conns_accepted (self->conns, (int) value, zclock_mono ()))
                    s_warn (self, "refusing a connection, fd", (int) value);
            }
            else
            if (id == ZMQ_EVENT_DISCONNECTED) {
                if (self->handshakes)
                    drover_handshakelog_closed (self->handshakes, (int) value, zclock_mono ());
                drover_conns_closed (self->conns, (int) value);
            }
            else
            if (id == ZMQ_EVENT_ACCEPT_FAILED)
                s_warn (self, "accept failed", (int) value);
            else
            if ((id == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
            ||   id == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL) && self->handshakes)
                drover_handshakelog_failed (self->handshakes, id, value, events [at].endpoint);
        }
    } while (count == S_EVENT_BATCH);
    free (events);
}

//  The next cut due
int64_t
drover_connwatch_deadline (drover_connwatch_t *self)
{
    assert (self);
    assert (self->conns);
    return drover_conns_deadline (self->conns);
}

//  Cut what is due
void
drover_connwatch_cut (drover_connwatch_t *self, int64_t now)
{
    assert (self);
    assert (self->conns);
    int fd;
    while ((fd = drover_conns_next_cut (self->conns, now)) != -1) {
        shutdown (fd, SHUT_RDWR);
        self->cut++;
    }
}

//  More open than served
bool
drover_connwatch_over (drover_connwatch_t *self)
{
    assert (self);
    assert (self->conns);
    return drover_conns_count (self->conns) > drover_conns_limit (self->conns);
}

//  An excess connection's request: it hears why, then it is cut soon
bool
drover_connwatch_refuse (drover_connwatch_t *self, int fd, int64_t now)
{
    assert (self);
    assert (self->conns);
    if (!drover_conns_excess (self->conns, fd))
        return false;
    drover_conns_cut_after (self->conns, fd, now, S_EXCESS_TOLD);
    return true;
}

//  Connections open
size_t
drover_connwatch_count (drover_connwatch_t *self)
{
    assert (self);
    assert (self->conns);
    return drover_conns_count (self->conns);
}

//  Connections served at most
size_t
drover_connwatch_limit (drover_connwatch_t *self)
{
    assert (self);
    assert (self->conns);
    return drover_conns_limit (self->conns);
}
