/*  =========================================================================
    drover_broker - the broker process

    The main owns the TCP sockets: a ROUTER where workers and clients talk,
    and a PUB for the event stream. It decodes what arrives, hands each
    message to the actor that owns its subject, and forwards what actors say
    to the actors that hear it, using one routing table (drover_routing,
    said in words in actors/ACTORS.md). It keeps no state about tasks or
    workers: that lives in the actors, which drover_crew starts and halts.

    Actor pipes are polled before the ROUTER, so internal traffic drains
    before more external work is read in.

    Beside it: the command line is read by drover_brokerflags, and the
    connections are watched against the descriptor limit by drover_connwatch
    (the main polls its monitors and refuses what it says).

    In this file, top down: the broker's state and life (new, destroy);
    the peers' side of the ROUTER (reading, admitting, answering, sending
    at each peer's level); what the actors say, routed; start-up, the loop
    and halt; what the broker's owner (drover_ha, drover_cell) calls; and
    `drover broker` itself.
    =========================================================================
*/

#include "drover_broker.h"
#include "drover_allocator.h"
#include "drover_routing.h"
#include "drover_crew.h"
#include "drover_msg.h"
#include "drover_metrics.h"
#include "drover_outbox.h"
#include "drover_poller.h"
#include "drover_connwatch.h"
#include "drover_guard.h"
#include "drover_peerlevels.h"
#include "drover_eventstream.h"
#include "drover_queuetable.h"
#include "drover_poolwire.h"
#include "drover_config.h"
#include "drover_defaults.h"
#include "drover_actor.h"
#include "drover_brokerflags.h"
#include "drover_log.h"
#include "drover_ha.h"
#include "drover_cpus.h"
#include "drover_event.h"
#include "drover_reload.h"


//  Connections the kernel may hold for a bound socket before libzmq
//  accepts them (listen's backlog; the kernel caps it at somaxconn).
//  libzmq's default, 100, is filled by one burst of connects (a flood, or
//  a thousand workers starting at once): connects past it lose their SYN
//  and try again a second later, so a worker waited over a second
#define S_BACKLOG       4096
//  Most BATCHes read from one actor in one turn of the loop
#define S_ACTOR_BATCHES 8

//  What the main's poller watches: the actors' pipes at their index
//  (DROVER_ROUTING_HEALTH ...), then these
enum { S_ROUTER_AT = DROVER_ROUTING_ACTORS, S_PUBLISHER_AT, S_MONITOR_AT, S_MONITORS = 2 };
//  ... and the socket watched for the broker's owner (several brokers: the
//  elector), and the signalfd that hears SIGHUP (a reload)
enum { S_WATCH_AT = S_MONITOR_AT + S_MONITORS, S_SIGNAL_AT };

struct _drover_broker_t {
    drover_config_t *config;    //  settings, read once
    zsock_t *router;            //  workers and clients
    drover_eventstream_t *events;   //  the event stream (its XPUB)
    drover_crew_t *crew;        //  the actors, each with its outbox for this turn
    drover_routing_t *routing;  //  who hears what: the routing table's indexes
    drover_poller_t *poller;    //  the actors' pipes, the ROUTER, the XPUB
    drover_guard_t *guard;      //  CURVE, keys and roles (or none of them)
    drover_peerlevels_t *levels;    //  each peer connection's protocol level
    bool router_sent;           //  something went out on the ROUTER this turn
    bool publisher_sent;        //  something went out on the XPUB this turn
    uint64_t malformed;         //  messages that did not decode
    uint64_t answered [DROVER_METRICS];     //  errors the main answered, by DROVER_METRIC_BAD_*
    uint64_t refused;           //  sends the ROUTER refused
    uint64_t suppressed;        //  warnings held back by the rate limit
    int64_t warned_at;          //  last warning, msec monotonic
    zsock_t *monitors [S_MONITORS]; //  connection events of the ROUTER and the XPUB, borrowed
    drover_connwatch_t *connwatch;  //  connections against the descriptor limit
    bool verbose;               //  log each routed message
    int speaker;                //  the actor whose commands are being routed, -1 the main
    bool loaded;                //  the store said LOADED: serving
    char *fatal;                //  the store said FATAL: why the broker cannot start
    char *fenced;               //  the store said FENCED: why the broker stopped serving
    bool stop;                  //  run returns after this turn
    drover_broker_watch_fn *standby_fn; //  reads the ROUTER while no actors run, or NULL
    void *standby_arg;          //  its argument
    zsock_t *watched;           //  the owner's socket (borrowed), or NULL
    drover_broker_watch_fn *watch_fn;   //  called when watched is readable
    void *watch_arg;            //  its argument
    drover_queuetable_t *queues;    //  what QUEUES is answered: the owner's copy, or empty
    int64_t wake_at;            //  mono msec the watch function is called unasked, 0 never
    drover_reload_t *reload;    //  SIGHUP: the settings read again (borrowed), or NULL
    bool several;               //  one of several brokers: named queues keep their settings
};

//  Bind one socket, saying why if it fails
static int
s_bind (zsock_t *sock, const char *endpoint)
{
    if (zsock_bind (sock, "%s", endpoint) == -1) {
        zsys_error ("broker: cannot bind endpoint=%s: %s", endpoint, zmq_strerror (zmq_errno ()));
        return -1;
    }
    return 0;
}

//  Messages libzmq may queue from one peer: it counts messages, not bytes,
//  and each may be as large as the ROUTER's max message size, so peer-bytes
//  bounds the count (at least one, at most hwm)
static int
s_peer_hwm (drover_config_t *config)
{
    uint64_t largest = (uint64_t) config->max_message * 2;
    uint64_t count = config->peer_bytes / largest;
    return count < 1? 1: count < config->hwm? (int) count: (int) config->hwm;
}

//  Create the broker: sockets bound, no actor running
drover_broker_t *
drover_broker_new (drover_config_t *config, bool verbose)
{
    drover_broker_t *self = (drover_broker_t *) zmalloc (sizeof (drover_broker_t));
    self->config = config;
    self->verbose = verbose;
    self->connwatch = drover_connwatch_new ((int) config->silent_timeout, config->member_reserve,
                                            config->max_per_address);
    config->max_workers = drover_connwatch_fit_workers (self->connwatch, config->max_workers);
    self->speaker = -1;
    self->queues = drover_queuetable_new ("");
    self->levels = drover_peerlevels_new (DROVER_PEERLEVELS_KEPT);
    self->routing = drover_routing_new ();
    self->crew = drover_crew_new (config, verbose);
    char *error = NULL;
    self->guard = drover_guard_new (config, verbose, &error);
    if (!self->guard) {
        zsys_error ("broker: cannot start: %s", error);
        zstr_free (&error);
        drover_connwatch_destroy (&self->connwatch);
        drover_queuetable_destroy (&self->queues);
        drover_peerlevels_destroy (&self->levels);
        drover_routing_destroy (&self->routing);
        drover_crew_destroy (&self->crew);
        free (self);
        return NULL;
    }
    drover_connwatch_log_handshakes (self->connwatch, drover_guard_secure (self->guard));

    self->router = zsock_new (ZMQ_ROUTER);
    zsock_set_router_mandatory (self->router, 1);
    //  Past max-message the codec answers 413; past twice that, libzmq
    //  drops the connection before anything is allocated for it
    zsock_set_maxmsgsize (self->router, (int64_t) config->max_message * 2);
    zsock_set_backlog (self->router, S_BACKLOG);
    zsock_set_sndhwm (self->router, config->hwm);
    zsock_set_rcvhwm (self->router, s_peer_hwm (config));
    zsock_set_linger (self->router, 0);
    //  Liveness of a worker is judged by its application heartbeats (health
    //  actor); what remains is to drop the TCP connections of peers that
    //  vanished. The kernel does that at no cost to our threads, where ZMTP
    //  PINGs would wake the I/O thread for every peer every interval:
    //  keepalives probe an idle connection, and data left unacknowledged
    //  for twice lost-after closes a busy one (TCP_USER_TIMEOUT)
    zsock_set_tcp_maxrt (self->router, (int) config->lost_after * 2);
    int idle = (int) (config->lost_after * 2 / 1000);
    zsock_set_tcp_keepalive (self->router, 1);
    zsock_set_tcp_keepalive_idle (self->router, idle > 1? idle: 1);
    zsock_set_tcp_keepalive_intvl (self->router, idle / 4 > 1? idle / 4: 1);
    zsock_set_tcp_keepalive_cnt (self->router, 4);
    drover_guard_apply (self->guard, self->router, (int) config->handshake);
    self->events = drover_eventstream_new (self->guard, config->hwm, (int) config->handshake);
    zsock_t *publisher = drover_eventstream_sock (self->events);
    zsock_set_backlog (publisher, S_BACKLOG);
    //  Every connection is seen, from before the first can be accepted
    self->monitors [0] = drover_connwatch_watch (self->connwatch, self->router, false);
    self->monitors [1] = drover_connwatch_watch (self->connwatch, publisher, true);
    if (s_bind (self->router, config->endpoint)
    ||  s_bind (publisher, config->events)) {
        drover_connwatch_destroy (&self->connwatch);
        zsock_destroy (&self->router);
        drover_eventstream_destroy (&self->events);
        drover_guard_destroy (&self->guard);
        drover_queuetable_destroy (&self->queues);
        drover_peerlevels_destroy (&self->levels);
        drover_routing_destroy (&self->routing);
        drover_crew_destroy (&self->crew);
        free (self);
        return NULL;
    }
    self->poller = drover_poller_new ();
    for (int index = 0; index < DROVER_ROUTING_ACTORS; index++)
        drover_poller_add (self->poller, NULL);     //  none: never readable
    drover_poller_add (self->poller, self->router);
    drover_poller_add (self->poller, publisher);
    for (int index = 0; index < S_MONITORS; index++)
        drover_poller_add (self->poller, self->monitors [index]);
    drover_poller_add (self->poller, NULL);         //  the owner's socket, if any
    drover_poller_add (self->poller, NULL);         //  the signalfd, if any
    return self;
}

//  Destroy the broker: actors in reverse order of start, then sockets
void
drover_broker_destroy (drover_broker_t **self_p)
{
    drover_broker_t *self = *self_p;
    if (!self)
        return;
    drover_broker_halt (self);
    drover_crew_destroy (&self->crew);
    drover_routing_destroy (&self->routing);
    drover_poller_destroy (&self->poller);
    drover_connwatch_destroy (&self->connwatch);
    zstr_free (&self->fenced);
    drover_eventstream_destroy (&self->events);
    zsock_destroy (&self->router);
    drover_guard_destroy (&self->guard);
    drover_queuetable_destroy (&self->queues);
    drover_peerlevels_destroy (&self->levels);
    free (self);
    *self_p = NULL;
}


//  -------------------------------------------------------------------------
//  The peers' side of the ROUTER: read, admit, route or answer, send

//  A peer's ROUTER routing id, borrowed from the message it came with
typedef struct {
    const byte *data;           //  its bytes
    size_t size;                //  1..255 of them
} s_route_t;

//  Most messages read from the ROUTER in one turn of the loop
#define S_ROUTER_BATCH  1024
//  Longest one turn may spend reading the ROUTER, usec: a peer's burst of
//  expensive messages must not hold every actor hop behind it
#define S_ROUTER_BUDGET 2000
//  Messages, or bytes, read between looks at the clock: small messages are
//  cheap and many, and a look costs a clock read; big ones cost their size
#define S_ROUTER_CLOCK  8
#define S_ROUTER_CLOCK_BYTES    (64 << 10)

//  Send an encoded message to a peer without ever blocking the broker,
//  fitted to the peer's protocol level: the payload goes (and *payload_p
//  is NULL), or stays the caller's. Returns 0 (also for a message the
//  peer's level does not have: not sent), or -1 if the peer is gone or not
//  reading (the caller decides).
static int
s_send_to_peer (drover_broker_t *self, const byte *route, size_t route_size,
                zframe_t **payload_p)
{
    if (drover_peerlevels_fit (self->levels, route, route_size, payload_p) == -1)
        return 0;               //  an older peer's level has no such message
    self->router_sent = true;
    if (zmq_send (zsock_resolve (self->router), route, route_size,
                  ZMQ_SNDMORE | ZMQ_DONTWAIT) == -1)
        return -1;
    //  libzmq accepts the rest of a message once its first frame is in
    return zframe_send (payload_p, self->router, ZFRAME_DONTWAIT);
}

//  Answer a peer with ERROR code and reason (echoing seq)
static void
s_reply_error (drover_broker_t *self, s_route_t route, uint32_t seq, int code, const char *reason)
{
    int counted = drover_metrics_bad_code (code);
    if (counted >= 0)
        self->answered [counted]++;
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_ERROR);
    reply->seq = seq;
    reply->code = code;
    drover_msg_set_reason (reply, reason);
    zframe_t *payload = drover_msg_encode (reply);
    if (payload && s_send_to_peer (self, route.data, route.size, &payload) == -1)
        self->refused++;
    zframe_destroy (&payload);
    drover_msg_destroy (&reply);
}

//  Log a bad message from a peer, at most once a second, with a sample
static void
s_warn_bad_input (drover_broker_t *self, const char *what, const byte *data, size_t size)
{
    int64_t now = zclock_mono ();
    if (now - self->warned_at < 1000) {
        self->suppressed++;
        return;                 //  rate limited: counted, not logged
    }
    char sample [3 * 16 + 1] = "";
    for (size_t index = 0; index < size && index < 16; index++)
        snprintf (sample + 3 * index, 4, "%02x ", data [index]);
    zsys_warning ("broker: bad input reason=\"%s\" size=%zu sample=[%s] malformed=%" PRIu64
                  " suppressed=%" PRIu64, what, size, sample, self->malformed, self->suppressed);
    self->suppressed = 0;
    self->warned_at = now;
}

//  Answer QUEUES with the queue table, here in the main: no actor knows it
static void
s_answer_queues (drover_broker_t *self, s_route_t route, drover_msg_t *msg)
{
    drover_msg_t *reply = drover_queuetable_encode (self->queues);
    reply->seq = msg->seq;
    zframe_t *payload = drover_msg_encode (reply);
    assert (payload);           //  the table holds only what the wire carries
    if (s_send_to_peer (self, route.data, route.size, &payload) == -1)
        self->refused++;
    zframe_destroy (&payload);
    drover_msg_destroy (&reply);
}

//  Answer CLIENT HELLO with this broker's level (the sender's is kept)
static void
s_answer_hello (drover_broker_t *self, s_route_t route, drover_msg_t *msg)
{
    drover_msg_t *reply = drover_peerlevels_welcome (msg, self->config->ha.name);
    zframe_t *payload = drover_msg_encode (reply);
    assert (payload);
    if (s_send_to_peer (self, route.data, route.size, &payload) == -1)
        self->refused++;
    zframe_destroy (&payload);
    drover_msg_destroy (&reply);
}

//  True if a message id is a status (OK, ERROR, REDIRECT): never answered,
//  even when broken, so that two peers cannot loop
static bool
s_is_status (int id)
{
    return id == DROVER_MSG_OK || id == DROVER_MSG_ERROR || id == DROVER_MSG_REDIRECT;
}

//  Route one decoded message by the routing table; consumes msg. The
//  actor it is handed to owns it from then on (ACTORS.md, MSG).
static void
s_route_request (drover_broker_t *self, s_route_t route, drover_msg_t *msg)
{
    int targets = drover_routing_wire (self->routing, msg->id);
    for (int actor = 0; actor < DROVER_ROUTING_ACTORS; actor++)
        if (targets == DROVER_ROUTING_TO (actor) && (drover_crew_started (self->crew) & targets)) {
            drover_outbox_say_msg (drover_crew_outbox (self->crew, actor), route.data,
                                   route.size, &msg);
            return;
        }
    if (msg->id == DROVER_MSG_QUEUES)
        s_answer_queues (self, route, msg);
    else
    if (msg->id == DROVER_MSG_CLIENT_HELLO)
        s_answer_hello (self, route, msg);
    else
    if (targets == DROVER_ROUTING_SELF || targets == DROVER_ROUTING_TO (DROVER_ROUTING_POOL)) {
        //  A pool message, and no pool actor to own it: there is no pool
        drover_msg_t *reply = drover_poolwire_none (msg);
        zframe_t *payload = drover_msg_encode (reply);
        if (payload && s_send_to_peer (self, route.data, route.size, &payload) == -1)
            self->refused++;
        zframe_destroy (&payload);
        drover_msg_destroy (&reply);
    }
    else
    if (s_is_status (msg->id))
        //  Never answer a status with a status: two peers could loop
        self->malformed++;
    else {
        char *reason = zsys_sprintf ("%s is not a message the broker accepts",
                                     drover_msg_name (msg->id));
        s_reply_error (self, route, msg->seq, DROVER_CODE_UNEXPECTED, reason);
        zstr_free (&reason);
    }
    drover_msg_destroy (&msg);
}

//  Refuse a payload that is not decoded (more than one frame, too large),
//  echoing its seq when its header can be read (PROTOCOL.md §5); like any
//  status, one that says it is an OK, ERROR or REDIRECT is not answered
static void
s_refuse_undecoded (drover_broker_t *self, s_route_t route, const byte *data, size_t size,
                    const char *what, int code, const char *reason)
{
    self->malformed++;
    s_warn_bad_input (self, what, data, size);
    uint32_t seq;
    int id = drover_msg_peek (data, size, &seq);
    if (!s_is_status (id))
        s_reply_error (self, route, seq, code, reason);
}

//  Tell whether the connection a valid message came on may stay: if not
//  (too many connections, or a stranger where only registered workers and
//  admin keys have room) it hears why (a status is never answered), and
//  it is cut soon. A worker's HELLO, or an admin key's request, makes its
//  connection a member's.
static bool
s_admit_connection (drover_broker_t *self, s_route_t route, zmq_msg_t *payload, drover_msg_t *msg)
{
    bool member = msg->id == DROVER_MSG_WORKER_HELLO
               || ((msg->roles & DROVER_ROLE_ADMIN) && *msg->principal);
    const char *reason = drover_connwatch_admit (self->connwatch,
                                                 zmq_msg_get (payload, ZMQ_SRCFD), route.data,
                                                 route.size, member, zclock_mono ());
    if (!reason)
        return true;
    if (msg->id != DROVER_MSG_OK && msg->id != DROVER_MSG_ERROR)
        s_reply_error (self, route, msg->seq, DROVER_CODE_TOO_MANY, reason);
    return false;
}

//  Decode one payload from a peer and, if its sender's key may send it,
//  route it; or answer why not
static void
s_accept_payload (drover_broker_t *self, s_route_t route, zmq_msg_t *payload, bool extra_frames)
{
    const byte *data = (const byte *) zmq_msg_data (payload);
    size_t size = zmq_msg_size (payload);
    if (extra_frames) {
        s_refuse_undecoded (self, route, data, size, "more than one frame",
                            DROVER_CODE_BAD_REQUEST, "a message is exactly one frame");
        return;
    }
    if (size > self->config->max_message) {
        s_refuse_undecoded (self, route, data, size, "message too large",
                            DROVER_CODE_TOO_LARGE, "message larger than max-message");
        return;
    }
    drover_msg_t *msg = drover_msg_decode_new (data, size);
    if (!msg->error) {
        char *reason = NULL;
        uint8_t roles = drover_routing_senders (self->routing, msg->id);
        int code = roles? drover_guard_admit (self->guard, payload, msg, roles, &reason): 0;
        if (code == 0) {
            if (s_admit_connection (self, route, payload, msg)) {
                drover_peerlevels_heard (self->levels, route.data, route.size, msg);
                s_route_request (self, route, msg);
            }
            else
                drover_msg_destroy (&msg);
            return;
        }
        //  Well-formed, refused by key: the guard logged it, by key
        s_reply_error (self, route, msg->seq, code, reason);
        zstr_free (&reason);
        drover_msg_destroy (&msg);
        return;
    }
    self->malformed++;
    const char *error = msg->error? msg->error: "malformed";
    s_warn_bad_input (self, error, data, size);
    if (s_is_status (msg->id)) {
        drover_msg_destroy (&msg);
        return;                 //  a status is never answered, even a broken one
    }
    int code = msg->bad_version? DROVER_CODE_BAD_VERSION
             : msg->too_large? DROVER_CODE_TOO_LARGE: DROVER_CODE_BAD_REQUEST;
    s_reply_error (self, route, msg->seq, code, error);
    drover_msg_destroy (&msg);
}

//  Read what peers sent, up to one batch or the turn's time budget,
//  without blocking, and route or answer each; what is left is read next
//  turn
static void
s_read_peers (drover_broker_t *self)
{
    void *handle = zsock_resolve (self->router);
    int64_t started = zclock_usecs ();
    size_t bytes = 0;           //  read since the last look at the clock
    for (int count = 0, unclocked = 0; count < S_ROUTER_BATCH; count++) {
        if (++unclocked > S_ROUTER_CLOCK || bytes > S_ROUTER_CLOCK_BYTES) {
            if (zclock_usecs () - started > S_ROUTER_BUDGET)
                break;          //  the poller still says readable: next turn
            unclocked = 1;
            bytes = 0;
        }
        zmq_msg_t first;
        zmq_msg_init (&first);
        if (zmq_msg_recv (&first, handle, ZMQ_DONTWAIT) == -1) {
            zmq_msg_close (&first);
            drover_poller_drained (self->poller, S_ROUTER_AT);
            break;              //  nothing more ready (or interrupted)
        }
        s_route_t route = { (const byte *) zmq_msg_data (&first), zmq_msg_size (&first) };
        zmq_msg_t payload;
        zmq_msg_init (&payload);
        bool received = !zmq_msg_more (&first) || zmq_msg_recv (&payload, handle, 0) != -1;
        bool extra_frames = drover_msg_drop_more (handle, received && zmq_msg_more (&payload));
        bytes += zmq_msg_size (&payload);
        if (received)
            s_accept_payload (self, route, &payload, extra_frames);
        zmq_msg_close (&payload);
        zmq_msg_close (&first);
    }
}


//  -------------------------------------------------------------------------
//  What the actors say, routed by the table

static void
    s_route_command (drover_broker_t *self, const char *command, zmsg_t *msg);

//  A send to a worker was refused (peer gone): the main's own I/O outcome,
//  said as UNSENT worker route to whoever the routing table says hears it
static void
s_send_refused (drover_broker_t *self, const char *worker, const byte *route, size_t route_size)
{
    self->refused++;
    if (*worker) {
        zsys_warning ("broker: send refused worker=%s: %s", worker, zmq_strerror (zmq_errno ()));
        zmsg_t *unsent = zmsg_new ();
        zmsg_addstr (unsent, worker);
        zmsg_addmem (unsent, route, route_size);    //  the connection it was refused on
        s_route_command (self, "UNSENT", unsent);
        zmsg_destroy (&unsent);
    }
}

//  SEND route payload worker: deliver to a peer
static void
s_send_record (drover_broker_t *self, drover_record_t *record)
{
    if (s_send_to_peer (self, drover_record_route (record), record->route_size,
                       &record->payload) == -1)
        s_send_refused (self, record->worker, drover_record_route (record), record->route_size);
}

//  A record an actor said, routed by the table: SEND to a peer, CHANGE
//  and REPLY to the store, RESTORE to assign (moved, not copied: each has
//  one hearer); QUEUE, TAKE and FREE go on the link, MSG is the main's to say
static void
s_handle_actor_record (void *arg, drover_record_t *record)
{
    drover_broker_t *self = (drover_broker_t *) arg;
    if (self->verbose)
        zsys_debug ("broker: route command=%s", drover_record_word (record));
    int targets = drover_routing_record (self->routing, record->kind);
    if (targets == DROVER_ROUTING_PEER)
        s_send_record (self, record);
    else
    if (targets && __builtin_popcount (targets) == 1 && (targets & DROVER_ROUTING_ANY_ACTOR))
        drover_outbox_move (drover_crew_outbox (self->crew, __builtin_ctz (targets)), record,
                            record->kind);
    else {
        zsys_error ("broker: actor said record=%s on its pipe", drover_record_word (record));
        assert (false);         //  our own bug: the routing table says who hears it
    }
}

//  PUBLISH topic body owner: to the event stream
static void
s_forward_event (drover_broker_t *self, zmsg_t *msg)
{
    char *topic = zmsg_popstr (msg);
    zframe_t *body = zmsg_pop (msg);
    char *owner = zmsg_popstr (msg);
    assert (topic && body && owner);    //  an actor that says less is our bug
    self->publisher_sent = true;
    drover_eventstream_publish (self->events, topic, &body, owner);
    zstr_free (&topic);
    zstr_free (&owner);
}

//  Subscriptions on the event stream: when the first comes, or the last
//  goes, tell every actor whether to say events at all (an event nobody
//  reads still costs its encoding); when events are kept (durability not
//  off), every actor says them and only the store is told, for whether to
//  publish them
static void
s_handle_subscriptions (drover_broker_t *self)
{
    bool changed = drover_eventstream_read (self->events);
    drover_poller_drained (self->poller, S_PUBLISHER_AT);
    if (changed) {
        bool on = drover_eventstream_on (self->events);
        zsys_info ("broker: events %s", on? "on: someone subscribed": "off: no subscribers");
        drover_crew_say_events (self->crew, on);
    }
}

//  Tell each target actor the command (word, then msg's frames): copies
//  to all but the last, which gets the frames themselves
static void
s_forward_to_actors (drover_broker_t *self, const char *command, zmsg_t *msg, int targets)
{
    targets &= drover_crew_started (self->crew);   //  the pool may not run
    int last = -1;
    for (int index = 0; index < DROVER_ROUTING_ACTORS; index++)
        if (targets & DROVER_ROUTING_TO (index))
            last = index;
    for (int index = 0; index < last; index++)
        if (targets & DROVER_ROUTING_TO (index)) {
            zmsg_t *copy = zmsg_dup (msg);
            zmsg_pushstr (copy, command);
            drover_outbox_add (drover_crew_outbox (self->crew, index), &copy);
        }
    if (last == -1)
        return;                 //  nobody runs to hear it
    zmsg_t *moved = zmsg_new ();
    zmsg_addstr (moved, command);
    zframe_t *frame;
    while ((frame = zmsg_pop (msg)))
        zmsg_append (moved, &frame);
    drover_outbox_add (drover_crew_outbox (self->crew, last), &moved);
}

//  LOADED, FATAL or FENCED from the store: serving may start, the broker
//  stops, or a newer leader holds the state (logged: the HA code acts on it);
//  then to the actors that hear it too
static void
s_handle_start_up (drover_broker_t *self, const char *command, zmsg_t *msg, int targets)
{
    if (streq (command, "LOADED"))
        self->loaded = true;
    else
    if (streq (command, "FENCED")) {
        zstr_free (&self->fenced);
        self->fenced = zmsg_popstr (msg);
        self->stop = true;
        zsys_error ("broker: stops serving: %s", self->fenced? self->fenced: "fenced");
    }
    else {
        zstr_free (&self->fatal);
        self->fatal = zmsg_popstr (msg);
    }
    if (targets)
        s_forward_to_actors (self, command, msg, targets);
}

//  METRICS round: the main's own counts, answered to the metrics actor as
//  an actor would; then to the actors that answer too
static void
s_answer_metrics (drover_broker_t *self, const char *command, zmsg_t *msg, int targets)
{
    zframe_t *round = zmsg_first (msg);
    assert (round);             //  the metrics actor says it
    drover_metrics_t *counts = drover_metrics_new ();
    for (int id = DROVER_METRIC_BAD_400; id <= DROVER_METRIC_BAD_302; id++)
        drover_metrics_set (counts, (drover_metric_t) id, self->answered [id]);
    drover_metrics_set (counts, DROVER_METRIC_LEVEL_FITTED,
                          drover_peerlevels_fitted (self->levels));
    drover_metrics_set (counts, DROVER_METRIC_LEVEL_UNSENT,
                          drover_peerlevels_unsent (self->levels));
    drover_connwatch_metrics (self->connwatch, counts);
    drover_metrics_say (counts, drover_crew_outbox (self->crew, DROVER_ROUTING_METRICS),
                          drover_actor_number (zframe_data (round), zframe_size (round)));
    drover_metrics_destroy (&counts);
    s_forward_to_actors (self, command, msg, targets);
}

//  Route a command (its word, then msg's frames) by the routing table: to
//  the event stream, or to the actors that hear it
static void
s_route_command (drover_broker_t *self, const char *command, zmsg_t *msg)
{
    int targets = drover_routing_command (self->routing, command);
    if (targets & DROVER_ROUTING_OTHERS)
        targets &= ~(DROVER_ROUTING_OTHERS
                     | (self->speaker >= 0? DROVER_ROUTING_TO (self->speaker): 0));
    if (self->verbose)
        zsys_debug ("broker: route command=%s", command);
    if (targets == DROVER_ROUTING_PUBLISH)
        s_forward_event (self, msg);
    else
    if (targets & DROVER_ROUTING_SELF)
        s_handle_start_up (self, command, msg, targets & ~DROVER_ROUTING_SELF);
    else
    if (targets & DROVER_ROUTING_COUNTS)
        s_answer_metrics (self, command, msg, targets & ~DROVER_ROUTING_COUNTS);
    else
    if (targets && (targets & (DROVER_ROUTING_PEER | DROVER_ROUTING_LINK)) == 0)
        s_forward_to_actors (self, command, msg, targets);
    else {
        zsys_error ("broker: command=%s is not for the main to route", command);
        assert (false);         //  our own bug: the routing table says who hears it
    }
}

//  Handle one control command an actor said (drover_outbox_receive calls this)
static void
s_handle_actor_command (void *arg, zmsg_t *msg)
{
    drover_broker_t *self = (drover_broker_t *) arg;
    char command [16];
    drover_actor_pop_text (msg, command, sizeof command);
    s_route_command (self, command, msg);
}

//  Send what this turn held for each actor, and note the sends: a send may
//  take in a socket's pending commands, so the poller reads it again
static void
s_flush_turn (drover_broker_t *self)
{
    for (int index = 0; index < DROVER_ROUTING_ACTORS; index++) {
        zsock_t *sock = drover_crew_sock (self->crew, index);
        if (sock)
            drover_actor_flush (self->poller, (size_t) index,
                                drover_crew_outbox (self->crew, index), sock);
    }
    if (self->router_sent)
        drover_poller_sent (self->poller, S_ROUTER_AT);
    if (self->publisher_sent)
        drover_poller_sent (self->poller, S_PUBLISHER_AT);
    self->router_sent = self->publisher_sent = false;
}


//  -------------------------------------------------------------------------
//  Start-up, the loop, halt

//  Start-up: route what the store says (every kept task, RESTORE, to
//  assign) and what assign says (RESTORED, to the store, which waits for it
//  to go on) until the store says LOADED; meanwhile the ROUTER is not read,
//  so no peer is served from a half-loaded state. Returns 0, or -1 if the
//  state cannot be read (FATAL: logged) or the broker was interrupted.
static int
s_broker_load (drover_broker_t *self)
{
    zsock_t *actors [] = { drover_crew_sock (self->crew, DROVER_ROUTING_STORE),
                           drover_crew_sock (self->crew, DROVER_ROUTING_ASSIGN) };
    zmq_pollitem_t items [] = { { zsock_resolve (actors [0]), 0, ZMQ_POLLIN, 0 },
                                { zsock_resolve (actors [1]), 0, ZMQ_POLLIN, 0 } };
    while (!self->loaded && !self->fatal && !zsys_interrupted) {
        if (zmq_poll (items, 2, -1) == -1)
            return -1;          //  interrupted
        for (int index = 0; index < 2; index++) {
            self->speaker = index? DROVER_ROUTING_ASSIGN: DROVER_ROUTING_STORE;
            while (!self->loaded
               &&  drover_outbox_receive (actors [index], ZMQ_DONTWAIT, s_handle_actor_command,
                                          s_handle_actor_record, self) != -1)
                ;
        }
        self->speaker = -1;
        s_flush_turn (self);
    }
    if (self->fatal)
        zsys_error ("broker: cannot start: %s", self->fatal);
    return self->loaded? 0: -1;
}

//  Read the connection events of one monitored socket
static void
s_handle_monitor (drover_broker_t *self, int index)
{
    drover_connwatch_read (self->connwatch, (size_t) index);
    drover_poller_drained (self->poller, S_MONITOR_AT + index);
}

//  Cut the excess connections whose time has come
static void
s_cut_connections (drover_broker_t *self)
{
    if (drover_connwatch_deadline (self->connwatch) == -1)
        return;
    //  Hear of closes first, so a descriptor reused since is not cut
    for (int index = 0; index < S_MONITORS; index++)
        s_handle_monitor (self, index);
    drover_connwatch_cut (self->connwatch, zclock_mono ());
}

//  Keys gone from the keys directory: their messages are refused from now
//  on (drover_guard_admit); their workers are told to health, to be LOST
static void
s_end_revoked (drover_broker_t *self)
{
    size_t revoked = drover_guard_refresh (self->guard, zclock_mono ());
    for (size_t index = 0; index < revoked; index++) {
        zmsg_t *msg = zmsg_new ();
        zmsg_addstr (msg, drover_guard_revoked (self->guard, index));
        s_route_command (self, "REVOKED", msg);
        zmsg_destroy (&msg);
    }
}

//  What the ROUTER holds while no actor runs goes to the standby function
//  (or is left unread, alone: nothing serves it)
static void
s_handle_router_idle (drover_broker_t *self)
{
    if (self->standby_fn)
        self->standby_fn (self->standby_arg, self->router);
    if (!(zsock_events (self->router) & ZMQ_POLLIN))
        drover_poller_drained (self->poller, S_ROUTER_AT);
}

//  The log level the settings ask: -v is debug while broker/log-level
//  is left at its default
static int
s_log_level (drover_config_t *config, bool verbose)
{
    if (verbose && streq (config->log_level, DROVER_DEFAULT_LOG_LEVEL))
        return DROVER_LOG_DEBUG;
    int level = drover_log_level_parse (config->log_level);
    return level >= 0? level: DROVER_LOG_INFO;
}

//  Say each line of text at error, after "reload: "
static void
s_log_errors (const char *text)
{
    while (text && *text) {
        const char *end = strchr (text, '\n');
        int length = end? (int) (end - text): (int) strlen (text);
        zsys_error ("reload: %.*s", length, text);
        text = end? end + 1: NULL;
    }
}

//  SIGHUP: read the settings again; apply those that may change while the
//  broker runs (drover_reload_live), say which others changed and need a
//  restart, look at the keys directory now; settings that do not read or
//  check change nothing. Says broker.reloaded on the event stream.
static void
s_reload (drover_broker_t *self)
{
    zsys_notice ("reload: SIGHUP: reading the settings again");
    char *applied = NULL, *restart = NULL, *errors = NULL;
    const char *name = self->config->ha.name;
    if (drover_reload_compare (self->reload, self->config, &applied, &restart, &errors)) {
        s_log_errors (errors);
        zsys_error ("reload: refused: every running setting stays as it is");
        drover_broker_publish (self, "broker.reloaded", name, "refused: the settings do not "
                               "read or check (see the log)");
        zstr_free (&errors);
        return;
    }
    if (drover_guard_secure (self->guard))
        drover_guard_refresh_soon (self->guard);    //  s_end_revoked looks this turn
    if (applied)
        drover_crew_reconfigure (self->crew);       //  to the actors, if they run
    if (restart)
        zsys_warning ("reload: needs a restart: %s", restart);
    if (applied && self->several)
        zsys_warning ("reload: the named queues (ha/queues) keep their settings until a restart");
    if (applied)
        zsys_info ("reload: applied %s", applied);
    else
        zsys_info ("reload: nothing changed%s", restart? " that applies while running": "");
    char *reason = zsys_sprintf ("applied: %s; needs a restart: %s", applied? applied: "none",
                                 restart? restart: "none");
    drover_broker_publish (self, "broker.reloaded", name, reason);
    zstr_free (&reason);
    //  Last: a quieter level must not hide what the reload said
    drover_log_set_level (s_log_level (self->config, self->verbose));
    zstr_free (&applied);
    zstr_free (&restart);
}

//  Serve until interrupted or told to stop. Each turn handles everything
//  ready: what the actors said, then up to a batch from the ROUTER (or a
//  few msec of it, whichever comes first); what that tells each actor goes
//  out as one BATCH per actor at the end of the turn.
int
drover_broker_run (drover_broker_t *self)
{
    self->stop = false;
    while (!zsys_interrupted && !self->stop) {
        int timeout = drover_actor_poll_timeout (drover_connwatch_deadline (self->connwatch),
                                                zclock_mono ());
        if (drover_guard_secure (self->guard)
        &&  (timeout == -1 || timeout > DROVER_GUARD_REFRESH))
            timeout = DROVER_GUARD_REFRESH;
        if (self->wake_at) {
            int64_t left = self->wake_at - zclock_mono ();
            left = left < 0? 0: left;
            if (timeout == -1 || timeout > left)
                timeout = (int) left;
        }
        if (drover_poller_wait (self->poller, timeout) == -1)
            break;              //  SIGINT or SIGTERM
        if (self->reload && drover_poller_readable (self->poller, S_SIGNAL_AT)) {
            if (drover_reload_heard (self->reload))
                s_reload (self);
            drover_poller_drained (self->poller, S_SIGNAL_AT);
        }
        s_end_revoked (self);
        for (int index = 0; index < S_MONITORS; index++)
            if (drover_poller_readable (self->poller, S_MONITOR_AT + index))
                s_handle_monitor (self, index);
        if (drover_poller_readable (self->poller, S_PUBLISHER_AT))
            s_handle_subscriptions (self);
        for (int index = 0; index < DROVER_ROUTING_ACTORS; index++) {
            self->speaker = index;
            zsock_t *sock = drover_crew_sock (self->crew, index);
            if (sock
            &&  drover_actor_drain (self->poller, (size_t) index, sock, S_ACTOR_BATCHES,
                                   s_handle_actor_command, s_handle_actor_record, NULL,
                                   self) == -1)
                return 0;       //  the context is ending
        }
        self->speaker = -1;
        if (drover_poller_readable (self->poller, S_ROUTER_AT)) {
            if (self->loaded)
                s_read_peers (self);
            else
                s_handle_router_idle (self);
        }
        s_flush_turn (self);
        s_cut_connections (self);
        bool woken = self->wake_at && zclock_mono () >= self->wake_at;
        if (woken)
            self->wake_at = 0;
        if (self->watched && (woken || drover_poller_readable (self->poller, S_WATCH_AT))) {
            self->watch_fn (self->watch_arg, self->watched);
            if (!(zsock_events (self->watched) & ZMQ_POLLIN))
                drover_poller_drained (self->poller, S_WATCH_AT);
        }
    }
    return self->stop? 1: 0;
}

//  Start the actors and load the state, held with fence; the actors'
//  pipes join the poller at their index once every actor runs
int
drover_broker_start (drover_broker_t *self, uint64_t fence)
{
    zstr_free (&self->fenced);
    if (drover_crew_start (self->crew, fence, drover_eventstream_on (self->events))) {
        drover_broker_halt (self);
        return -1;
    }
    for (int index = 0; index < DROVER_ROUTING_ACTORS; index++)
        drover_poller_set (self->poller, (size_t) index, drover_crew_sock (self->crew, index));
    if (s_broker_load (self)) {
        drover_broker_halt (self);
        return -1;
    }
    drover_connwatch_start (self->connwatch, false);    //  sized past what the actors opened
    drover_connwatch_serve (self->connwatch, true);     //  silent connections are cut now
    drover_config_t *config = self->config;
    zsys_notice ("broker: ready endpoint=%s events=%s%s", config->endpoint, config->events,
                 fence? " (leader)": "");
    zsys_info ("broker: bounds peer_messages=%d peer_bytes=%u max_queued=%u max_queued_bytes=%u",
               s_peer_hwm (config), config->peer_bytes, config->max_queued,
               config->max_queued_bytes);
    return 0;
}

//  Stop every actor, in reverse order of start; the sockets stay
void
drover_broker_halt (drover_broker_t *self)
{
    if (self->poller)
        for (int index = 0; index < DROVER_ROUTING_ACTORS; index++)
            drover_poller_set (self->poller, (size_t) index, NULL);
    drover_crew_halt (self->crew);
    self->loaded = false;
    zstr_free (&self->fatal);
    if (self->connwatch)
        drover_connwatch_serve (self->connwatch, false);    //  nobody reads the peers now
}


//  -------------------------------------------------------------------------
//  What the broker's owner calls (drover_ha, drover_cell)

//  True while the actors run and the state is loaded
bool
drover_broker_serving (drover_broker_t *self)
{
    return self->loaded;
}

//  The ROUTER where workers and clients talk
zsock_t *
drover_broker_router (drover_broker_t *self)
{
    return self->router;
}

//  The protocol levels of the ROUTER's connections
drover_peerlevels_t *
drover_broker_levels (drover_broker_t *self)
{
    return self->levels;
}

//  Watch the owner's socket in the loop
void
drover_broker_watch (drover_broker_t *self, zsock_t *sock, drover_broker_watch_fn *fn, void *arg)
{
    self->watched = sock;
    self->watch_fn = fn;
    self->watch_arg = arg;
    drover_poller_set (self->poller, S_WATCH_AT, sock);
}

//  While no actor runs, fn reads the ROUTER
void
drover_broker_set_standby (drover_broker_t *self, drover_broker_watch_fn *fn, void *arg)
{
    self->standby_fn = fn;
    self->standby_arg = arg;
    drover_connwatch_start (self->connwatch, true);     //  peers connect before any actor runs
}

//  Answer QUEUES with a copy of table from now on
void
drover_broker_set_queues (drover_broker_t *self, drover_queuetable_t *table)
{
    assert (self);
    assert (table);
    drover_queuetable_t *copy = drover_queuetable_dup (table);
    drover_queuetable_destroy (&self->queues);
    self->queues = copy;
}

//  Publish an event about the broker itself (seq 0: not kept)
void
drover_broker_publish (drover_broker_t *self, const char *topic, const char *name,
                       const char *reason)
{
    drover_event_t event = { .time = (uint64_t) zclock_time () };
    snprintf (event.topic, sizeof event.topic, "%s", topic);
    snprintf (event.worker, sizeof event.worker, "%s", name);
    snprintf (event.reason, sizeof event.reason, "%s", reason);
    zframe_t *body = drover_event_encode (&event);
    drover_eventstream_publish (self->events, topic, &body, "");
    drover_poller_sent (self->poller, S_PUBLISHER_AT);
}

//  Read the settings again on SIGHUP, with reload (borrowed)
void
drover_broker_set_reload (drover_broker_t *self, drover_reload_t *reload, bool several)
{
    assert (self);
    self->reload = reload;
    self->several = several;
    drover_poller_set_fd (self->poller, S_SIGNAL_AT, reload? drover_reload_fd (reload): -1);
}

//  Call the watch function at mono msec at (once; 0 cancels)
void
drover_broker_wake (drover_broker_t *self, int64_t at)
{
    self->wake_at = at;
}

//  Make run return after this turn (1, with no fenced reason)
void
drover_broker_stop (drover_broker_t *self)
{
    self->stop = true;
}

//  Why the store stopped serving, or NULL
const char *
drover_broker_fenced (drover_broker_t *self)
{
    return self->fenced;
}

//  -------------------------------------------------------------------------
//  `drover broker`

//  Keep the broker's threads on the CPUs of broker/cpus, before any starts,
//  and log where it runs. Returns 0, or -1 after saying why.
static int
s_keep_to_cpus (const char *cpus)
{
    char *error = NULL;
    if (drover_cpus_apply (cpus, &error)) {
        fprintf (stderr, "drover broker: broker/cpus: %s\n", error);
        zstr_free (&error);
        return -1;
    }
    char text [256];
    drover_cpus_describe_own (text, sizeof text);
    zsys_info ("broker: cpus %s%s", text, *cpus? " (broker/cpus)": "");
    return 0;
}

//  Run `drover broker`: alone, or one of several (drover_ha)
int
drover_broker_main (int argc, char **argv)
{
    //  SIGHUP is heard on a signalfd (drover_reload): blocked in every
    //  thread, so it never interrupts a call nor ends the process
    drover_reload_block ();
    drover_config_t *config = drover_config_new ();
    bool verbose = false;
    int status = 2;
    if (drover_brokerflags_parse (config, argc, argv, &verbose, &status)) {
        drover_config_destroy (&config);
        return status;          //  0 after --help, --print-config or a good --check-config
    }
    zsys_set_logident ("drover-broker");
    drover_log_init (STDOUT_FILENO);    //  dates in ISO 8601 UTC, or the journal's priorities
    drover_log_set_level (s_log_level (config, verbose));
    //  Freed pages go back to the system while the actors are idle
    drover_allocator_tune_broker ();
    char *idle = drover_config_idle (config);
    if (idle)
        zsys_warning ("broker: settings that do nothing: %s", idle);
    zstr_free (&idle);
    if (s_keep_to_cpus (config->cpus)) {
        drover_config_destroy (&config);
        return 2;
    }
    //  Actor pipes are unbounded: a full pipe would block the main while
    //  the actor blocks on the main. External input is bounded instead.
    zsys_set_pipehwm (0);
    drover_reload_t *reload = drover_reload_new (argc, argv, config);
    if (*config->ha.etcd) {
        status = drover_ha_main (config, verbose, reload);
        drover_reload_destroy (&reload);
        drover_config_destroy (&config);
        return status;
    }
    drover_broker_t *broker = drover_broker_new (config, verbose);
    if (!broker || drover_broker_start (broker, 0)) {
        drover_broker_destroy (&broker);
        drover_reload_destroy (&reload);
        drover_config_destroy (&config);
        return 1;
    }
    drover_broker_set_reload (broker, reload, false);
    drover_broker_run (broker);
    zsys_notice ("broker: stopping malformed=%" PRIu64 " refused=%" PRIu64 " forbidden=%" PRIu64,
                 broker->malformed, broker->refused, drover_guard_refused (broker->guard));
    drover_broker_destroy (&broker);
    drover_reload_destroy (&reload);
    drover_config_destroy (&config);
    zsys_notice ("broker: stopped cleanly");
    return 0;
}
