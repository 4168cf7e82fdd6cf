/*  =========================================================================
    drover_connwatch - the broker's peer connections, watched against its
    descriptor limit (see the header)

    Each watched socket gets a libzmq monitor (accepted, disconnected)
    read through a PAIR the caller polls. Not "accept failed": out of
    descriptors, libzmq retries accept() at once and says so each time,
    hundreds of thousands of events a second that would keep the main
    from the cuts that end it. Warnings about connections are rate limited
    to one a second, counting what was held back.

    A connection is known by descriptor and by its peer (getpeername): a
    descriptor whose peer is not the one counted (or that is no socket
    any more) was closed without libzmq saying so, or the close and the
    accept of a reused descriptor came in the wrong order (several I/O
    threads): it is forgotten, never cut.
    =========================================================================
*/

#include "drover_connwatch.h"
#include "drover_handshakelog.h"
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

//  Descriptors kept for connections past the limit (at least; or 1/16 of
//  the limit), for what the broker opens later, and how long an excess
//  or trial connection stays to say who it is, or to hear why it is
//  refused, msec
#define S_FD_SPARE      4
#define S_FD_MARGIN     8
#define S_EXCESS_GRACE  1000
#define S_EXCESS_TOLD   100
//  Descriptors the broker's own sockets, pipes and threads take, about
#define S_FD_OWN        32
//  Least msec between two audits of every connection
#define S_AUDIT_EVERY   1000
//  Counted connections at most that are checked at every refusal, however
//  recent the last check: so few cost nothing, and a broker with a small
//  descriptor limit must not refuse for a second on a close it missed
#define S_AUDIT_ALWAYS  64

struct _drover_connwatch_t {
    zsock_t *watched [DROVER_CONNWATCH_MAX];    //  the sockets monitored, borrowed
    zsock_t *monitors [DROVER_CONNWATCH_MAX];   //  their connection events
    bool listeners [DROVER_CONNWATCH_MAX];      //  its peers only listen
    size_t nwatched;            //  sockets monitored
    int fd_limit;               //  the descriptor limit in force
    size_t spare;               //  descriptors kept for excess connections
    int silent;                 //  msec a stranger may say nothing valid
    uint32_t reserve;           //  percent of the connections kept for members
    uint32_t per_address;       //  strangers from one address at most; 0: no cap
    uint32_t max_workers;       //  as fitted to the descriptors, to log
    drover_conns_t *conns;      //  connections against the limit; from start
    uint64_t cut;               //  connections cut
    uint64_t suppressed;        //  warnings held back by the rate limit
    int64_t warned_at;          //  last warning, msec monotonic
    int64_t audited_at;         //  last audit, msec monotonic
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
drover_connwatch_new (int silent, uint32_t reserve, uint32_t per_address)
{
    assert (silent > 0);
    assert (reserve < 100);
    drover_connwatch_t *self = (drover_connwatch_t *) zmalloc (sizeof (drover_connwatch_t));
    self->silent = silent;
    self->reserve = reserve;
    self->per_address = per_address;
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
drover_connwatch_watch (drover_connwatch_t *self, zsock_t *sock, bool listeners)
{
    assert (self);
    assert (self->nwatched < DROVER_CONNWATCH_MAX);
    size_t index = self->nwatched++;
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "inproc://drover-monitor-%zu-%p", index, (void *) self);
    int rc = zmq_socket_monitor (zsock_resolve (sock), endpoint,
                                 ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED
                                 | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
                                 | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL);
    assert (rc == 0);
    self->watched [index] = sock;
    self->listeners [index] = listeners;
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
    drover_conns_rules_t rules = {
        .fd_limit = self->fd_limit, .limit = s_connection_limit (self, used),
        .spare = self->spare, .per_address = self->per_address, .grace = S_EXCESS_GRACE, .told = S_EXCESS_TOLD
    };
    //  Some reserve as soon as there are two places, and always one for a stranger
    rules.reserve = rules.limit * self->reserve / 100;
    if (rules.reserve == 0 && self->reserve && rules.limit > 1)
        rules.reserve = 1;
    if (rules.reserve >= rules.limit)
        rules.reserve = rules.limit - 1;
    self->conns = drover_conns_new (&rules);
    zsys_info ("broker: connection limit=%zu reserve=%zu per_address=%u silent=%d descriptors=%d "
               "used=%d spare=%zu max_workers=%u", rules.limit, rules.reserve, self->per_address,
               self->silent, self->fd_limit, used, self->spare, self->max_workers);
}

//  Cut silent connections while serving
void
drover_connwatch_serve (drover_connwatch_t *self, bool serving)
{
    assert (self);
    if (self->conns)
        drover_conns_set_silent (self->conns, serving? self->silent: 0, zclock_mono ());
}

//  The peer of a descriptor, as text, and its port. Returns 0, 1 if it is
//  a socket not connected (a connection reset, or one not made yet), -1
//  if it is no socket (closed, or a file).
static int
s_peer (int fd, char *address, size_t size, int *port_p)
{
    struct sockaddr_storage peer;
    socklen_t length = sizeof peer;
    *address = 0;
    *port_p = 0;
    if (getpeername (fd, (struct sockaddr *) &peer, &length))
        return errno == ENOTCONN? 1: -1;
    if (peer.ss_family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *) &peer;
        inet_ntop (AF_INET, &in->sin_addr, address, (socklen_t) size);
        *port_p = ntohs (in->sin_port);
    }
    else
    if (peer.ss_family == AF_INET6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &peer;
        inet_ntop (AF_INET6, &in6->sin6_addr, address, (socklen_t) size);
        *port_p = ntohs (in6->sin6_port);
    }
    return 0;
}

//  Tell whether fd is still the connection counted there (an audit's
//  check): a socket not connected may be ours, reset, whose close is
//  coming
static bool
s_still_counted (int fd, const char *address, int port, void *arg)
{
    (void) arg;
    char peer [INET6_ADDRSTRLEN];
    int peer_port;
    int rc = s_peer (fd, peer, sizeof peer, &peer_port);
    return rc == 1 || (rc == 0 && peer_port == port && streq (peer, address));
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
    drover_conns_t *conns = self->conns;
    zsys_warning ("broker: %s (%d): connections=%zu limit=%zu members=%zu strangers=%zu "
                  "silent=%zu reserve=%zu; cut silent=%" PRIu64 " evicted=%" PRIu64
                  " refused=%" PRIu64 " lost=%" PRIu64 " suppressed=%" PRIu64, what, value,
                  drover_conns_count (conns), drover_conns_limit (conns),
                  drover_conns_class_count (conns, DROVER_CONN_MEMBER),
                  drover_conns_class_count (conns, DROVER_CONN_SILENT)
                  + drover_conns_class_count (conns, DROVER_CONN_CLIENT),
                  drover_conns_class_count (conns, DROVER_CONN_SILENT), drover_conns_reserve (conns),
                  drover_conns_gone (conns, DROVER_CONNS_SILENT),
                  drover_conns_gone (conns, DROVER_CONNS_EVICTED),
                  drover_conns_gone (conns, DROVER_CONNS_REFUSED),
                  drover_conns_gone (conns, DROVER_CONNS_LOST), self->suppressed);
    self->suppressed = 0;
    self->warned_at = now;
}

//  Before anyone is refused for want of room, make sure the count is
//  true: forget the connections whose close was not reported
static void
s_audit (drover_connwatch_t *self, int64_t now)
{
    if (now - self->audited_at < S_AUDIT_EVERY
    &&  drover_conns_count (self->conns) > S_AUDIT_ALWAYS)
        return;
    self->audited_at = now;
    size_t lost = drover_conns_audit (self->conns, s_still_counted, NULL);
    if (lost)
        zsys_warning ("broker: %zu connections had closed unreported: their places are free "
                      "again", lost);
}

//  A connection accepted on fd, by a socket whose peers are listeners or not
static void
s_accepted (drover_connwatch_t *self, int fd, bool listener)
{
    char address [INET6_ADDRSTRLEN];
    int port;
    if (s_peer (fd, address, sizeof address, &port) == -1) {
        if (self->handshakes)
            drover_handshakelog_accepted (self->handshakes, fd, NULL);
        return;                 //  closed already (its close was read first)
    }
    if (self->handshakes)
        drover_handshakelog_accepted (self->handshakes, fd, *address? address: NULL);
    int64_t now = zclock_mono ();
    if (drover_conns_full (self->conns))
        s_audit (self, now);
    //  One evicted for it is excess now, until cut
    size_t excess = drover_conns_class_count (self->conns, DROVER_CONN_EXCESS);
    drover_conn_class_t klass = drover_conns_accepted (self->conns, fd, address, port,
                                                       listener, now);
    if (klass == DROVER_CONN_EXCESS)
        s_warn (self, "refusing a connection past the connection limit, fd", fd);
    else
    if (klass == DROVER_CONN_TRIAL)
        s_warn (self, "a connection may stay only to register a worker or as an admin, fd", fd);
    else
    if (drover_conns_class_count (self->conns, DROVER_CONN_EXCESS) > excess)
        s_warn (self, "closing the oldest silent connection for a new one, fd", fd);
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

//  Read the connection events of one monitored socket
void
drover_connwatch_read (drover_connwatch_t *self, size_t index)
{
    assert (self);
    assert (self->conns);
    assert (index < self->nwatched);
    zmsg_t *event;
    while ((event = zmsg_recv_nowait (self->monitors [index]))) {
        zframe_t *head = zmsg_first (event);
        zframe_t *endpoint = zmsg_next (event);
        if (head && zframe_size (head) == 6) {
            uint16_t id;
            uint32_t value;
            memcpy (&id, zframe_data (head), 2);
            memcpy (&value, zframe_data (head) + 2, 4);
            if (id == ZMQ_EVENT_ACCEPTED)
                s_accepted (self, (int) value, self->listeners [index]);
            else
            if (id == ZMQ_EVENT_DISCONNECTED) {
                if (self->handshakes)
                    drover_handshakelog_closed (self->handshakes, (int) value, zclock_mono ());
                drover_conns_closed (self->conns, (int) value);
            }
            else
            if ((id == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
            ||   id == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL) && self->handshakes) {
                char text [256] = "";
                size_t size = endpoint? zframe_size (endpoint): 0;
                if (size >= sizeof text)
                    size = sizeof text - 1;
                if (size)
                    memcpy (text, zframe_data (endpoint), size);
                text [size] = 0;
                drover_handshakelog_failed (self->handshakes, id, value, text);
            }
        }
        zmsg_destroy (&event);
    }
}

//  The next cut due
int64_t
drover_connwatch_deadline (drover_connwatch_t *self)
{
    assert (self);
    assert (self->conns);
    return drover_conns_deadline (self->conns);
}

//  Cut what is due, if each descriptor is still the connection counted
void
drover_connwatch_cut (drover_connwatch_t *self, int64_t now)
{
    assert (self);
    assert (self->conns);
    int fd;
    while ((fd = drover_conns_next_cut (self->conns, now)) != -1) {
        int port;
        const char *address = drover_conns_address (self->conns, fd, &port);
        char peer [INET6_ADDRSTRLEN];
        int peer_port;
        int rc = s_peer (fd, peer, sizeof peer, &peer_port);
        if (rc == 0 && peer_port == port && streq (peer, address)) {
            shutdown (fd, SHUT_RDWR);
            self->cut++;
        }
        else
        if (rc != 1)            //  not reset: another descriptor now, or none
            drover_conns_closed (self->conns, fd);
    }
}

//  A key of a routing id (FNV-1a), never 0
static uint64_t
s_route_key (const byte *route, size_t size)
{
    uint64_t key = 14695981039346656037ULL;
    for (size_t index = 0; index < size; index++)
        key = (key ^ route [index]) * 1099511628211ULL;
    return key | 1;
}

//  A valid request on fd: serve it, or say why not
const char *
drover_connwatch_admit (drover_connwatch_t *self, int fd, const byte *route, size_t route_size,
                        bool member, int64_t now)
{
    assert (self);
    assert (self->conns);
    uint64_t key = s_route_key (route, route_size);
    if (!drover_conns_same (self->conns, fd, key))
        //  A new connection on that descriptor, whose ACCEPTED (and the old
        //  one's DISCONNECTED) may wait behind its request: hear them first
        for (size_t index = 0; index < self->nwatched; index++)
            drover_connwatch_read (self, index);
    return drover_conns_admit (self->conns, fd, key, member, now);
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

//  Set the connections' series in a metricset
void
drover_connwatch_metrics (drover_connwatch_t *self, drover_metrics_t *metrics)
{
    assert (self);
    assert (metrics);
    drover_conns_t *conns = self->conns;
    if (!conns)
        return;                 //  not started: nothing counted yet
    drover_metrics_set (metrics, DROVER_METRIC_CONNECTIONS_SILENT,
                          drover_conns_class_count (conns, DROVER_CONN_SILENT));
    drover_metrics_set (metrics, DROVER_METRIC_CONNECTIONS_CLIENT,
                          drover_conns_class_count (conns, DROVER_CONN_CLIENT));
    drover_metrics_set (metrics, DROVER_METRIC_CONNECTIONS_MEMBER,
                          drover_conns_class_count (conns, DROVER_CONN_MEMBER));
    drover_metrics_set (metrics, DROVER_METRIC_CONNECTIONS_TRIAL,
                          drover_conns_class_count (conns, DROVER_CONN_TRIAL));
    drover_metrics_set (metrics, DROVER_METRIC_CONNECTIONS_REFUSED,
                          drover_conns_class_count (conns, DROVER_CONN_EXCESS)
                          + drover_conns_class_count (conns, DROVER_CONN_CUT));
    drover_metrics_set (metrics, DROVER_METRIC_CONNECTION_LIMIT, drover_conns_limit (conns));
    drover_metrics_set (metrics, DROVER_METRIC_CONNECTION_RESERVE, drover_conns_reserve (conns));
    drover_metrics_set (metrics, DROVER_METRIC_CONNECTIONS_ACCEPTED,
                          drover_conns_accepted_total (conns));
    drover_metrics_set (metrics, DROVER_METRIC_CLOSED_SILENT,
                          drover_conns_gone (conns, DROVER_CONNS_SILENT));
    drover_metrics_set (metrics, DROVER_METRIC_CLOSED_EVICTED,
                          drover_conns_gone (conns, DROVER_CONNS_EVICTED));
    drover_metrics_set (metrics, DROVER_METRIC_CLOSED_REFUSED,
                          drover_conns_gone (conns, DROVER_CONNS_REFUSED));
    drover_metrics_set (metrics, DROVER_METRIC_CLOSED_UNREPORTED,
                          drover_conns_gone (conns, DROVER_CONNS_LOST));
}
