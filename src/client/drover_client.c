/*  =========================================================================
    drover_client - the client API (see drover_client.h)

    Everything the broker sends comes in through one path:
    drover_client_receive polls the DEALER, decodes each frame into a
    reused message and s_dispatch hands it to whoever is waiting for it,
    by seq and by kind:

    - the reply to the synchronous request in flight (self->awaited);
    - an async submit's ACCEPTED or ERROR (its seq is in the slot ring);
    - a TASK DONE: to the wait in progress if it asks for that task, else,
      when it is a submit's notify (seq 0), to the done handler, or kept
      for a later wait if there is none;
    - a reply to one of the current wait's WAITs (its seq range);
    - a REDIRECT: a broker that does not serve (PROTOCOL.md §17); the
      client moves once the batch is read (drover_client_move.c);
    - anything else is a late reply to an abandoned request: dropped.

    With several brokers the client talks to one at a time, and
    drover_endpoints decides where to go next: the leader a REDIRECT
    names, or the next of the list when the connection is down for
    DEAD_AFTER (the handshake monitor sees a killed broker's connection
    close), a request gets no answer for the timeout, or no leader is
    known. A move is a new DEALER; what the old broker had (the request in
    flight, async submits, WAITs) goes again, unchanged, once the move's
    delay has passed (drover_client_resend_when_due), except a SUBMIT
    without a key that a broker which did not redirect may have accepted:
    that one fails. Moving is drover_client_move.c.

    Submitting is drover_client_submit.c (async submits live there in a
    ring of `window` slots indexed by seq), waiting for TASK DONEs is
    drover_client_wait.c; the requests of one question and one answer are
    drover_client_requests.c, over drover_client_request; this file has
    the object, sending and receiving, the synchronous request, and
    routing what comes in.

    A system call costs about a microsecond on the machines we measure,
    more than handling a message, so drover_client_receive reads with
    ZMQ_DONTWAIT until the socket is empty and only then sleeps, in a
    drover_poller (one epoll_wait on the socket's ZMQ_FD, as the broker
    sleeps): its ZMQ_FD signals news only once a read found the
    socket empty, and a send may take that signal in, so every read that
    says EAGAIN marks the socket drained and every send marks it sent.
    =========================================================================
*/

#include "drover_client_internal.h"
#include "drover_keys.h"
#include <errno.h>

//  Most messages handled per drover_client_receive call after the first
#define S_BATCH             4096
//  Messages queued towards us before the broker's ROUTER drops them
#define S_RCVHWM            1000000

static void s_dispatch (drover_client_t *self);


//  Set the last error from a code and printf-style text
void
drover_client_set_error (drover_client_t *self, int code, const char *format, ...)
{
    self->error_code = code;
    va_list args;
    va_start (args, format);
    vsnprintf (self->error_text, sizeof self->error_text, format, args);
    va_end (args);
}

//  Say that the broker did not answer in time
void
drover_client_set_timeout_error (drover_client_t *self)
{
    drover_client_set_error (self, DROVER_CLIENT_ERR_TIMEOUT,
                 "no reply from the broker at %s within %d msec (is it running?)",
                 self->endpoint, self->timeout);
}

//  Destructor for kept TASK DONEs in the zlistx
static void
s_msg_destructor (void **item)
{
    drover_msg_destroy ((drover_msg_t **) item);
}

//  Drop the dealer and its handshake monitor
void
drover_client_disconnect (drover_client_t *self)
{
    drover_poller_set (self->poller, S_DEALER_AT, NULL);
    drover_poller_set (self->poller, S_MONITOR_AT, NULL);
    drover_handshake_destroy (&self->handshake);
    zsock_destroy (&self->dealer);
    self->handle = NULL;
}

//  Create the dealer (a CURVE client with the keys, if set), watch its
//  handshakes and connect it. Returns 0, or -1 if ZeroMQ does not
//  understand the endpoint or, with keys, no broker key is known for it
//  (the client then has no dealer).
int
drover_client_connect (drover_client_t *self)
{
    const char *server_key = self->pair
                           ? drover_serverkeys_for (self->serverkeys, self->endpoint): NULL;
    if (self->pair && !server_key)
        return -1;              //  a leader a REDIRECT named, of no key we hold
    self->dealer = zsock_new (ZMQ_DEALER);
    assert (self->dealer);
    zsock_set_linger (self->dealer, 0);                 //  destroy never blocks
    zsock_set_maxmsgsize (self->dealer, DROVER_MSG_MAX);
    zsock_set_sndhwm (self->dealer, 0);                 //  the window bounds what we queue
    zsock_set_rcvhwm (self->dealer, S_RCVHWM);          //  don't make the broker drop results
    zsock_set_sndtimeo (self->dealer, self->timeout);
    zsock_set_reconnect_ivl (self->dealer, 100);
    zsock_set_reconnect_ivl_max (self->dealer, 2000);
    zsock_set_heartbeat_ivl (self->dealer, 1000);
    //  With several brokers a stopped one is left sooner (PROTOCOL.md §17)
    zsock_set_heartbeat_timeout (self->dealer, drover_client_may_move (self)? 3000: 5000);
    if (self->pair) {
        zcert_apply (self->pair, self->dealer);
        zsock_set_curve_serverkey (self->dealer, server_key);
    }
    self->handle = zsock_resolve (self->dealer);
    self->hello_said = false;           //  a new connection: say our level first
    self->handshake = drover_handshake_new (self->dealer, self->pair != NULL);
    drover_poller_set (self->poller, S_DEALER_AT, self->dealer);
    drover_poller_set (self->poller, S_MONITOR_AT, drover_handshake_sock (self->handshake));
    if (zsock_connect (self->dealer, "%s", self->endpoint) == -1) {
        drover_client_disconnect (self);
        return -1;
    }
    return 0;
}

//  Connect the dealer if the client has none: it connects on its first
//  use, not when it is made, so that no connection goes out without the
//  keys set after drover_client_new (a broker with CURVE would refuse it,
//  and log it). Returns 0, or -1 with the error set if ZeroMQ does not
//  take the endpoint, or no key of its broker is known.
int
drover_client_ensure_connected (drover_client_t *self)
{
    if (self->dealer)
        return 0;
    if (drover_client_connect (self) == 0)
        return 0;
    if (self->pair && !drover_serverkeys_for (self->serverkeys, self->endpoint))
        drover_client_set_error (self, DROVER_CLIENT_ERR_KEY, "no key of the broker at %s is "
                                 "trusted", self->endpoint);
    else
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "'%s' is not a broker endpoint",
                                 self->endpoint);
    return -1;
}

//  Create a client for the broker at endpoint (or a list of brokers)
drover_client_t *
drover_client_new (const char *endpoint)
{
    if (!endpoint)
        endpoint = getenv ("DROVER_BROKER");
    if (!endpoint || !*endpoint)
        endpoint = DROVER_CLIENT_ENDPOINT;
    //  What ZeroMQ checks of an endpoint before it connects: its syntax
    drover_endpoints_t *endpoints = drover_endpoints_new (endpoint);
    if (!endpoints || !drover_endpoints_valid (endpoints)) {
        drover_endpoints_destroy (&endpoints);
        return NULL;
    }

    drover_client_t *self = (drover_client_t *) zmalloc (sizeof (drover_client_t));
    self->endpoints = endpoints;
    self->endpoint = strdup (drover_endpoints_current (endpoints));
    self->timeout = DROVER_CLIENT_TIMEOUT;
    self->resend = DROVER_CLIENT_RESEND;
    self->inbox = drover_msg_new (0);
    self->kept = zlistx_new ();
    zlistx_set_destructor (self->kept, s_msg_destructor);
    self->window = DROVER_CLIENT_WINDOW;
    self->slots = (drover_client_slot_t *) zmalloc (sizeof (drover_client_slot_t) * self->window);

    self->poller = drover_poller_new ();
    drover_poller_add (self->poller, NULL);     //  S_DEALER_AT
    drover_poller_add (self->poller, NULL);     //  S_MONITOR_AT
    return self;        //  it connects on its first use

}

//  Destroy the client
void
drover_client_destroy (drover_client_t **self_p)
{
    assert (self_p);
    drover_client_t *self = *self_p;
    if (!self)
        return;
    if (self->poller)
        drover_client_disconnect (self);
    drover_poller_destroy (&self->poller);
    zcert_destroy (&self->pair);
    drover_serverkeys_destroy (&self->serverkeys);
    drover_msg_destroy (&self->inbox);
    drover_msg_destroy (&self->reply);
    zlistx_destroy (&self->kept);
    for (uint32_t index = 0; index < self->window; index++)
        zframe_destroy (&self->slots [index].frame);
    free (self->slots);
    free (self->endpoint);
    drover_endpoints_destroy (&self->endpoints);
    zframe_destroy (&self->awaited_frame);
    free (self);
    *self_p = NULL;
}

//  Return the endpoint
const char *
drover_client_endpoint (drover_client_t *self)
{
    assert (self);
    return self->endpoint;
}

//  Speak CURVE to the broker with a key pair and the broker's public key
int
drover_client_set_keys (drover_client_t *self, const char *key_path,
                        const char *server_key_path)
{
    assert (self);
    assert (server_key_path);
    return drover_client_set_server_keys (self, key_path, &server_key_path, 1);
}

//  Speak CURVE to brokers with keys of their own: a key pair and the
//  brokers' public keys (files, directories), each broker's found by
//  drover_serverkeys
int
drover_client_set_server_keys (drover_client_t *self, const char *key_path,
                               const char *const *server_keys, size_t count)
{
    assert (self);
    assert (key_path);
    assert (server_keys || count == 0);
    char *error = NULL;
    zcert_t *pair = drover_keys_load_pair (key_path, &error);
    drover_serverkeys_t *serverkeys = drover_serverkeys_new ();
    for (size_t index = 0; pair && !error && index < count; index++)
        drover_serverkeys_add (serverkeys, server_keys [index], &error);
    if (pair && !error)
        drover_serverkeys_pair_list (serverkeys, self->endpoints, &error);
    if (error) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_KEY, "%s", error);
        zstr_free (&error);
        zcert_destroy (&pair);
        drover_serverkeys_destroy (&serverkeys);
        return -1;
    }
    zcert_destroy (&self->pair);
    drover_serverkeys_destroy (&self->serverkeys);
    self->pair = pair;
    self->serverkeys = serverkeys;
    //  A new socket, made on the next use: nothing of a connection made
    //  without keys (its handshake, its monitor's events) is left to be
    //  taken for ours
    drover_client_disconnect (self);
    return 0;
}

//  Set the reply deadline
void
drover_client_set_timeout (drover_client_t *self, int msec)
{
    assert (self);
    if (msec > 0) {
        self->timeout = msec;
        if (self->dealer)
            zsock_set_sndtimeo (self->dealer, msec);
    }
}

//  Return the reply deadline
int
drover_client_timeout (drover_client_t *self)
{
    assert (self);
    return self->timeout;
}

//  Set the WAIT re-send interval
void
drover_client_set_resend (drover_client_t *self, int msec)
{
    assert (self);
    if (msec > 0)
        self->resend = msec;
}

//  Return the last error's code
int
drover_client_error_code (drover_client_t *self)
{
    assert (self);
    return self->error_code;
}

//  Return the last error's text
const char *
drover_client_error_text (drover_client_t *self)
{
    assert (self);
    return self->error_text;
}

//  Return the broker state id of the last TASK ACCEPTED that had one
const char *
drover_client_state_id (drover_client_t *self)
{
    assert (self);
    return self->state_id;
}

//  A status code in plain words
const char *
drover_client_code_name (int code)
{
    switch (code) {
        case 0:                             return "no error";
        case DROVER_CLIENT_ERR_TIMEOUT:     return "broker unreachable";
        case DROVER_CLIENT_ERR_INTERRUPTED: return "interrupted";
        case DROVER_CLIENT_ERR_PROTOCOL:    return "protocol error";
        case DROVER_CLIENT_ERR_INVALID:     return "invalid request";
        case DROVER_CLIENT_ERR_SEND:        return "send failed";
        case DROVER_CLIENT_ERR_KEY:         return "unusable key file";
        case DROVER_CLIENT_ERR_REFUSED:     return "refused by the broker";
        case DROVER_CODE_OK:                return "ok";
        case DROVER_CODE_RETRY:             return "busy, try again later";
        case DROVER_CODE_QUEUE_FULL:        return "queue full";
        case DROVER_CODE_TOO_MANY:          return "too many";
        case DROVER_CODE_BAD_REQUEST:       return "bad request";
        case DROVER_CODE_NOT_REGISTERED:    return "not registered";
        case DROVER_CODE_FORBIDDEN:         return "forbidden";
        case DROVER_CODE_NOT_FOUND:         return "not found";
        case DROVER_CODE_STALE:             return "stale";
        case DROVER_CODE_CONFLICT:          return "not possible now";
        case DROVER_CODE_STATE_CHANGED:     return "broker state changed";
        case DROVER_CODE_TOO_LARGE:         return "too large";
        case DROVER_CODE_UNEXPECTED:        return "unexpected request";
        case DROVER_CODE_BAD_VERSION:       return "protocol version mismatch";
        case DROVER_CODE_INTERNAL:          return "broker fault";
        case DROVER_CODE_UNAVAILABLE:       return "not offered by this broker";
        case DROVER_CODE_NOT_SAVED:         return "not saved, try again later";
    }
    if (code >= 300 && code < 400)
        return "try again later";
    if (code >= 400 && code < 500)
        return "request refused";
    if (code >= 500 && code < 600)
        return "broker fault";
    return "error";
}


//  ---------------------------------------------------------------------
//  Sending and receiving

//  Take the next request seq; never 0, which TASK DONE uses for notifies
uint32_t
drover_client_next_seq (drover_client_t *self)
{
    if (++self->seq == 0)
        self->seq = 1;
    return self->seq;
}

//  Say our protocol level (CLIENT HELLO) before a request, when this
//  connection has not heard it: first on a new dealer, and again after
//  each new handshake (a reconnect is a new connection to the broker,
//  which tells peers apart by connection and takes one it has not heard
//  say a level for a peer of level 1: PROTOCOL.md §12). It goes with seq
//  0 and its answer is not waited for: a broker before levels answers
//  ERROR 400 with seq 0, which is dropped like any unawaited reply.
static void
s_say_hello_when_due (drover_client_t *self)
{
    bool up = drover_handshake_up (self->handshake);     //  reads the news first
    uint64_t connects = drover_handshake_connects (self->handshake);
    if (self->hello_said && connects == self->hello_connects)
        return;
    if (drover_msg_say_level (self->dealer) == 0) {
        self->hello_said = true;
        //  Said while no connection is up, it goes on the next one made
        self->hello_connects = up? connects: connects + 1;
    }
}

//  Encode and send one request. Returns 0 or -1 with the error set.
int
drover_client_send_msg (drover_client_t *self, drover_msg_t *request)
{
    if (drover_client_ensure_connected (self))
        return -1;
    s_say_hello_when_due (self);
    zframe_t *frame = drover_msg_encode (request);
    if (!frame) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "%s breaks a protocol limit",
                     drover_msg_name (request->id));
        return -1;
    }
    int rc = zframe_send (&frame, self->dealer, 0);
    drover_poller_sent (self->poller, S_DEALER_AT);    //  it may have taken in the read signal
    if (rc == -1) {
        zframe_destroy (&frame);
        if (zsys_interrupted)
            drover_client_set_error (self, DROVER_CLIENT_ERR_INTERRUPTED, "interrupted");
        else
            drover_client_set_error (self, DROVER_CLIENT_ERR_SEND, "cannot send to %s: %s",
                         self->endpoint, zmq_strerror (zmq_errno ()));
        return -1;
    }
    return 0;
}

//  Send an encoded request again (a copy of frame)
int
drover_client_send_again (drover_client_t *self, zframe_t *frame)
{
    if (drover_client_ensure_connected (self))
        return -1;
    s_say_hello_when_due (self);
    zframe_t *copy = zframe_dup (frame);
    int rc = zframe_send (&copy, self->dealer, 0);
    drover_poller_sent (self->poller, S_DEALER_AT);
    if (rc == -1) {
        zframe_destroy (&copy);
        drover_client_set_error (self, DROVER_CLIENT_ERR_SEND, "cannot send to %s: %s",
                                 self->endpoint, zmq_strerror (zmq_errno ()));
    }
    return rc;
}


//  Receive one frame if there is one (flags: ZMQ_DONTWAIT) and dispatch it.
//  Returns 1 if a frame was taken, 0 if none was there (the socket is
//  drained: its ZMQ_FD signals what comes).
static int
s_receive_one (drover_client_t *self)
{
    zmq_msg_t frame;
    zmq_msg_init (&frame);
    if (zmq_msg_recv (&frame, self->handle, ZMQ_DONTWAIT) == -1) {
        zmq_msg_close (&frame);
        drover_poller_drained (self->poller, S_DEALER_AT);
        return 0;
    }
    self->received++;
    bool more = zmq_msg_more (&frame);
    if (more) {
        //  Our protocol is one frame per message: drop the rest, uncounted
        while (more) {
            zmq_msg_close (&frame);
            zmq_msg_init (&frame);
            if (zmq_msg_recv (&frame, self->handle, ZMQ_DONTWAIT) == -1)
                break;
            more = zmq_msg_more (&frame);
        }
        self->malformed++;
    }
    else
    if (drover_msg_decode (self->inbox, (byte *) zmq_msg_data (&frame),
                           zmq_msg_size (&frame)) == 0)
        s_dispatch (self);
    else {
        if (self->malformed++ == 0)
            zsys_warning ("client: broker=%s sent a malformed message: %s",
                          self->endpoint, self->inbox->error? self->inbox->error: "?");
    }
    zmq_msg_close (&frame);
    return 1;
}

//  Wait up to msec for something from the broker, then handle all that
//  has arrived (up to a batch). Returns frames handled, 0 on timeout (or
//  when what woke us was not a message), or -1 with the error set if
//  interrupted or the broker refused our handshake.
int
drover_client_receive (drover_client_t *self, int msec)
{
    if (drover_client_ensure_connected (self))
        return -1;
    drover_client_resend_when_due (self);
    int64_t wake = drover_client_wake_at (self);
    if (wake && drover_client_msec_left (wake) < msec)
        msec = drover_client_msec_left (wake);
    if (zsys_interrupted || drover_poller_wait (self->poller, msec) == -1) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INTERRUPTED, "interrupted");
        return -1;
    }
    if (drover_poller_readable (self->poller, S_MONITOR_AT)) {
        int outcome = drover_handshake_read (self->handshake);
        drover_poller_drained (self->poller, S_MONITOR_AT);
        if (outcome == -1) {
            //  Nothing will come on this connection: say why now, not
            //  after the timeout (ZeroMQ goes on trying)
            drover_client_set_error (self, DROVER_CLIENT_ERR_REFUSED, "%s at %s",
                                     drover_handshake_reason (self->handshake), self->endpoint);
            //  ZeroMQ gives up a connection whose handshake was refused:
            //  a new socket on the next use, so the next request tries
            //  (and is told) again
            drover_client_disconnect (self);
            return -1;
        }
    }
    int count = 0;
    while (count < S_BATCH && drover_poller_readable (self->poller, S_DEALER_AT)
    &&     s_receive_one (self))
        count++;
    drover_client_move_when_due (self);
    drover_client_resend_when_due (self);
    return count;
}

//  Milliseconds left until deadline, at least 0, at most INT_MAX
int
drover_client_msec_left (int64_t deadline)
{
    int64_t left = deadline - zclock_mono ();
    return left < 0? 0: left > INT_MAX? INT_MAX: (int) left;
}

//  Wait for the reply to request seq, within the timeout (each broker
//  moved to gets the timeout anew, within DROVER_CLIENT_FAILOVER). If
//  again is set (an encoded request that may go twice: a SUBMIT with a
//  key), send it again after each resend interval of silence. Returns the
//  reply (caller owns; ERROR included), or NULL with the error set.
static drover_msg_t *
s_await (drover_client_t *self, uint32_t seq, zframe_t *again)
{
    self->awaited = seq;
    self->awaited_lost = false;
    int64_t started = zclock_mono ();
    int64_t deadline = started + self->timeout;
    int64_t resend_at = started + self->resend;
    uint64_t moves = self->moves;
    while (!self->reply) {
        if (self->awaited_lost) {
            drover_client_set_error (self, DROVER_CLIENT_ERR_TIMEOUT,
                                     "the broker went away before it answered; the submit "
                                     "was not sent again to %s (it has no key: it may have "
                                     "been accepted)", self->endpoint);
            break;
        }
        if (self->moves != moves) {
            //  Another broker: it gets the whole timeout, within the failover's
            moves = self->moves;
            deadline = zclock_mono () + self->timeout;
            if (deadline > started + self->timeout + DROVER_CLIENT_FAILOVER)
                deadline = started + self->timeout + DROVER_CLIENT_FAILOVER;
        }
        int left = drover_client_msec_left (deadline);
        if (left == 0 && drover_client_move_on_silence (self, started))
            continue;
        if (left == 0) {
            drover_client_set_timeout_error (self);
            break;
        }
        if (again && drover_client_msec_left (resend_at) == 0) {
            if (drover_client_send_again (self, again))
                break;
            resend_at = zclock_mono () + self->resend;
        }
        if (again && drover_client_msec_left (resend_at) < left)
            left = drover_client_msec_left (resend_at);
        if (drover_client_receive (self, left) == -1)
            break;                  //  interrupted, or refused: error set
    }
    self->awaited = 0;
    self->awaited_lost = false;
    zframe_destroy (&self->awaited_frame);
    drover_msg_t *reply = self->reply;
    self->reply = NULL;
    return reply;
}

//  Send any request and return its reply
drover_msg_t *
drover_client_request (drover_client_t *self, drover_msg_t *request)
{
    assert (self);
    assert (request);
    assert (!self->in_handler);     //  handlers must not call the client
    request->seq = drover_client_next_seq (self);
    //  Every request is kept encoded, to go again to the next broker if
    //  this one redirects or goes away (drover_client_resend_when_due); a keyed SUBMIT
    //  also goes again while unanswered: the broker gives a repeat of a
    //  key it holds the same task id
    zframe_t *frame = drover_msg_encode (request);
    if (!frame) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "%s breaks a protocol limit",
                                 drover_msg_name (request->id));
        return NULL;
    }
    drover_client_note_link (self, &self->awaited_up, &self->awaited_connects);
    if (drover_client_send_again (self, frame)) {
        zframe_destroy (&frame);
        return NULL;
    }
    zframe_destroy (&self->awaited_frame);
    self->awaited_frame = frame;
    self->awaited_sent_in = self->moves;
    bool keyed = request->id == DROVER_MSG_TASK_SUBMIT && request->key;
    drover_msg_t *reply = s_await (self, request->seq, keyed? frame: NULL);
    if (reply && reply->id == DROVER_MSG_ERROR) {
        drover_client_set_error (self, reply->code, "%s", reply->reason? reply->reason: "");
        drover_msg_destroy (&reply);
    }
    return reply;
}

//  ---------------------------------------------------------------------
//  Dispatching what the broker sends

//  Route the message in self->inbox to whoever waits for it
static void
s_dispatch (drover_client_t *self)
{
    drover_msg_t *msg = self->inbox;
    if (msg->id == DROVER_MSG_CLIENT_WELCOME) {
        self->broker_level = msg->level? msg->level: 1;
        return;
    }
    if (msg->id == DROVER_MSG_REDIRECT) {
        drover_client_redirected (self, msg);
        return;
    }
    if (self->served_in != self->moves) {
        drover_endpoints_served (self->endpoints);  //  this broker serves
        self->served_in = self->moves;
    }
    if (msg->id == DROVER_MSG_TASK_DONE) {
        drover_client_dispatch_done (self);
        return;
    }
    if (msg->id == DROVER_MSG_TASK_ACCEPTED && *msg->state_id)
        strcpy (self->state_id, msg->state_id);     //  for our WAITs
    if (msg->seq != 0 && msg->seq == self->awaited && !self->reply) {
        self->reply = msg;                  //  the synchronous request's answer
        self->inbox = drover_msg_new (0);
        return;
    }
    if ((msg->id == DROVER_MSG_TASK_ACCEPTED || msg->id == DROVER_MSG_ERROR)
    &&  msg->seq != 0 && self->outstanding) {
        drover_client_slot_t *slot = &self->slots [msg->seq % self->window];
        if (slot->seq == msg->seq) {
            drover_client_dispatch_ack (self, slot);
            return;
        }
    }
    if (self->wait && drover_waitset_owns (self->wait->tasks, msg->seq)) {
        //  A 3xx (e.g. too many waiters) is retried by the next re-send
        if (msg->id == DROVER_MSG_ERROR && msg->code == DROVER_CODE_STATE_CHANGED) {
            drover_client_set_error (self, msg->code, "broker state changed: tasks submitted "
                                     "before are unknown to it (%s)",
                                     msg->reason? msg->reason: "");
            self->wait->failed = true;
        }
        else
        if (msg->id == DROVER_MSG_ERROR && msg->code >= 400) {
            drover_client_set_error (self, msg->code, "%s", msg->reason? msg->reason: "");
            self->wait->failed = true;
        }
        return;
    }
    self->dropped++;            //  a late reply to an abandoned request
}
