/*  =========================================================================
    drover_broker_peers - the main's side of the ROUTER: reading what peers
    send, admitting and routing it, answering what the main answers itself
    (refusals, QUEUES, CLIENT HELLO), and sending to peers at their level

    Part of the broker main (drover_broker.c runs the loop); it shares the
    main's state through drover_broker_internal.h, as the owner, actors and
    routes files do.
    =========================================================================
*/

#include "drover_broker_internal.h"
#include "drover_poolwire.h"

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
int
drover_broker_send_to_peer (s_broker_t *self, const byte *route, size_t route_size, zframe_t **payload_p)
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
s_reply_error (s_broker_t *self, s_route_t route, uint32_t seq, int code, const char *reason)
{
    int counted = drover_metrics_bad_code (code);
    if (counted >= 0)
        self->answered [counted]++;
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_ERROR);
    reply->seq = seq;
    reply->code = code;
    drover_msg_set_reason (reply, reason);
    zframe_t *payload = drover_msg_encode (reply);
    if (payload && drover_broker_send_to_peer (self, route.data, route.size, &payload) == -1)
        self->refused++;
    zframe_destroy (&payload);
    drover_msg_destroy (&reply);
}

//  Log a bad message from a peer, at most once a second, with a sample
static void
s_warn_bad_input (s_broker_t *self, const char *what, const byte *data, size_t size)
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
s_answer_queues (s_broker_t *self, s_route_t route, drover_msg_t *msg)
{
    drover_msg_t *reply = drover_queuetable_encode (self->queues);
    reply->seq = msg->seq;
    zframe_t *payload = drover_msg_encode (reply);
    assert (payload);           //  the table holds only what the wire carries
    if (drover_broker_send_to_peer (self, route.data, route.size, &payload) == -1)
        self->refused++;
    zframe_destroy (&payload);
    drover_msg_destroy (&reply);
}

//  Answer CLIENT HELLO with this broker's level (the sender's is kept)
static void
s_answer_hello (s_broker_t *self, s_route_t route, drover_msg_t *msg)
{
    drover_msg_t *reply = drover_peerlevels_welcome (msg, self->config->ha.name);
    zframe_t *payload = drover_msg_encode (reply);
    assert (payload);
    if (drover_broker_send_to_peer (self, route.data, route.size, &payload) == -1)
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
s_route_request (s_broker_t *self, s_route_t route, drover_msg_t *msg)
{
    int targets = msg->id <= DROVER_MSG_ID_MAX? self->wire_targets [msg->id]: 0;
    for (int actor = 0; actor < S_ACTORS; actor++)
        if (targets == S_TO (actor) && (self->started & targets)) {
            drover_outbox_say_msg (self->outboxes [actor], route.data, route.size, &msg);
            return;
        }
    if (msg->id == DROVER_MSG_QUEUES)
        s_answer_queues (self, route, msg);
    else
    if (msg->id == DROVER_MSG_CLIENT_HELLO)
        s_answer_hello (self, route, msg);
    else
    if (targets == S_SELF || targets == S_TO (S_POOL)) {
        //  A pool message, and no pool actor to own it: there is no pool
        drover_msg_t *reply = drover_poolwire_none (msg);
        zframe_t *payload = drover_msg_encode (reply);
        if (payload && drover_broker_send_to_peer (self, route.data, route.size, &payload) == -1)
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
s_refuse_undecoded (s_broker_t *self, s_route_t route, const byte *data, size_t size,
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
s_admit_connection (s_broker_t *self, s_route_t route, zmq_msg_t *payload, drover_msg_t *msg)
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
s_accept_payload (s_broker_t *self, s_route_t route, zmq_msg_t *payload, bool extra_frames)
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
    drover_msg_t *msg = drover_msg_new (0);
    if (drover_msg_decode (msg, data, size) == 0) {
        char *reason = NULL;
        uint8_t roles = msg->id <= DROVER_MSG_ID_MAX? self->wire_roles [msg->id]: 0;
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
//  without blocking; what is left is read next turn
void
drover_broker_read_peers (s_broker_t *self)
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

