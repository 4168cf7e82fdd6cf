/*  =========================================================================
    drover_client - the client API (see drover_client.h): one object, one
    DEALER to one broker at a time, and all that rides on it

    Everything the broker sends comes in through one path: s_receive
    polls the DEALER, decodes each frame into a reused message and
    s_dispatch hands it to whoever is waiting for it, by seq and by kind:

    - the reply to the synchronous request in flight (self->awaited);
    - an async submit's ACCEPTED or ERROR (its seq is in the slot ring);
    - a TASK DONE: to the wait in progress if it asks for that task, else,
      when it is a submit's notify (seq 0), to the done handler, or kept
      for a later wait if there is none;
    - a reply to one of the current wait's WAITs (its seq range);
    - a REDIRECT: a broker that does not serve (PROTOCOL.md §17); the
      client moves once the batch is read (Moving between brokers, below);
    - anything else is a late reply to an abandoned request: dropped.

    With several brokers the client talks to one at a time, and
    drover_endpoints decides where to go next: the leader a REDIRECT
    names, or the next of the list when the connection is down for
    DEAD_AFTER (the handshake monitor sees a killed broker's connection
    close), a request gets no answer for the timeout, or no leader is
    known. A move is a new DEALER; what the old broker had (the request in
    flight, async submits, WAITs) goes again, unchanged, once the move's
    delay has passed (s_resend_when_due), except a SUBMIT without a key
    that a broker which did not redirect may have accepted: that one
    fails.

    The file reads top-down, a section each: the object and its
    settings; sending and receiving, and the synchronous request
    (drover_client_request, on which the requests of one question and one
    answer in drover_client_requests.c are built); routing what comes in;
    moving between brokers; submitting (one at a time, or many through a
    ring of `window` async slots indexed by seq); waiting for TASK DONEs.

    A system call costs about a microsecond on the machines we measure,
    more than handling a message, so s_receive reads with ZMQ_DONTWAIT
    until the socket is empty and only then sleeps, in a
    drover_poller (one epoll_wait on the socket's ZMQ_FD, as the broker
    sleeps): its ZMQ_FD signals news only once a read found the
    socket empty, and a send may take that signal in, so every read that
    says EAGAIN marks the socket drained and every send marks it sent.
    =========================================================================
*/

#include "drover_client_wire.h"
#include "drover_poller.h"
#include "drover_waitset.h"
#include "drover_handshake.h"
#include "drover_endpoints.h"
#include "drover_serverkeys.h"
#include "drover_keys.h"
#include <errno.h>

//  Most messages handled per s_receive call after the first
#define S_BATCH             4096
//  Messages queued towards us before the broker's ROUTER drops them
#define S_RCVHWM            1000000

//  The dealer's index in the poller
#define S_DEALER_AT         0
//  Its handshake monitor's
#define S_MONITOR_AT        1

//  One async submit waiting for its reply
typedef struct {
    uint32_t seq;               //  request seq, 0 if the slot is free
    uintptr_t tag;              //  the caller's tag
    zframe_t *frame;            //  the encoded submit when it has a key (sent again
                                //  after a silence), or when the client may move
                                //  between brokers (sent again to the next), else NULL; owned
    bool keyed;                 //  the submit has a key: sending it twice is harmless
    uint64_t sent_in;           //  the client's moves when it was last sent
    bool sent_up;               //  the connection was up when it was sent
    uint64_t sent_connects;     //  the connection's handshakes then
    bool maybe_taken;           //  the broker we left may have accepted it
} drover_client_slot_t;

//  The wait in progress
typedef struct {
    drover_waitset_t *tasks;    //  the tasks waited on, which were delivered, the WAITs' seqs, owned
    drover_client_done_fn *on_done;     //  caller's handler, or NULL
    void *arg;                  //  its argument
    bool progressed;            //  a task was delivered since the last check
    bool failed;                //  the broker refused a WAIT; error is set
} drover_client_waiting_t;

struct _drover_client_t {
    char *endpoint;             //  the broker ROUTER endpoint we talk to now, owned
    drover_endpoints_t *endpoints;  //  the brokers we may talk to, and which next, owned
    uint64_t moves;             //  times we moved to another broker (or asked one again)
    uint64_t served_in;         //  moves when a broker last answered as one that serves
    bool move_due;              //  a REDIRECT came: move once this batch is read
    int move_delay;             //  msec to wait after that move before sending again
    int64_t resend_due;         //  msec (mono) to send again what the old broker had, 0 none
    zframe_t *awaited_frame;    //  the synchronous request in flight, encoded, owned
    uint64_t awaited_sent_in;   //  moves when it was last sent
    bool awaited_up;            //  the connection was up when it was sent
    uint64_t awaited_connects;  //  the connection's handshakes then
    bool awaited_maybe_taken;   //  the broker we left may have acted on it
    bool awaited_lost;          //  it cannot go again (an unkeyed SUBMIT) and its broker left
    zsock_t *dealer;            //  our one socket to the broker
    void *handle;               //  its libzmq handle, for zmq_msg_recv
    drover_poller_t *poller;    //  the dealer, at S_DEALER_AT, its monitor at S_MONITOR_AT
    drover_handshake_t *handshake;  //  watches the dealer's handshakes, owned
    zcert_t *pair;              //  our CURVE key pair (set_keys), or NULL: plain
    drover_serverkeys_t *serverkeys;    //  the brokers' public keys, with pair, owned
    int timeout;                //  msec for a reply
    int resend;                 //  msec of silence before WAIT (or a keyed SUBMIT) goes again
    uint32_t seq;               //  last request seq used
    char state_id [DROVER_STATE_ID_SIZE + 1];   //  the broker's, from the last TASK
                                    //  ACCEPTED that had one, sent in WAIT; "" if none
    drover_msg_t *inbox;        //  reused to decode each incoming frame
    uint64_t received;          //  frames received, ever
    uint64_t malformed;         //  frames that did not decode
    uint64_t dropped;           //  replies nobody waited for
    int error_code;             //  last error: broker code or DROVER_CLIENT_ERR_*
    char error_text [DROVER_REASON_MAX + 160];  //  last error's text
    uint32_t awaited;           //  seq of the synchronous request in flight, or 0
    bool hello_said;            //  a CLIENT HELLO went on this dealer
    uint64_t hello_connects;    //  the dealer's handshakes when it went
    int broker_level;           //  the broker's protocol level (CLIENT WELCOME), 0 not heard
    drover_msg_t *reply;        //  its reply, once in
    drover_client_ack_fn *ack_handler;  //  async submit replies go here
    void *ack_arg;              //  its argument
    drover_client_done_fn *done_handler;    //  NOTIFY TASK DONEs no wait takes, or NULL
    void *done_arg;             //  its argument
    bool in_handler;            //  a handler runs: it must not call us
    drover_client_slot_t *slots;    //  async submits outstanding, by seq % window
    uint32_t window;            //  slots
    size_t outstanding;         //  slots taken
    drover_client_waiting_t *wait;  //  the wait in progress, or NULL
    zlistx_t *kept;             //  TASK DONEs that came before anyone waited
    size_t kept_bytes;          //  output bytes in kept
    uint64_t kept_dropped;      //  TASK DONEs not kept for lack of room
};

//  Used before the sections that have them
static int s_msec_left (int64_t deadline);
static void s_dispatch (drover_client_t *self);
static bool s_may_move (drover_client_t *self);
static void s_note_link (drover_client_t *self, bool *up_p, uint64_t *connects_p);
static bool s_refused (drover_client_t *self);
static bool s_move_on_silence (drover_client_t *self, int64_t started);
static void s_redirected (drover_client_t *self, drover_msg_t *redirect);
static void s_move_when_due (drover_client_t *self);
static int64_t s_wake_at (drover_client_t *self);
static void s_resend_when_due (drover_client_t *self);
static void s_dispatch_ack (drover_client_t *self, drover_client_slot_t *slot);
static void s_fail_slot (drover_client_t *self, drover_client_slot_t *slot, int code,
                         const char *reason);
static void s_dispatch_done (drover_client_t *self);


//  ---------------------------------------------------------------------
//  The object: its errors, its connection, making it, its settings

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
static void
s_set_timeout_error (drover_client_t *self)
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
static void
s_disconnect (drover_client_t *self)
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
static int
s_connect (drover_client_t *self)
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
    zsock_set_heartbeat_timeout (self->dealer, s_may_move (self)? 3000: 5000);
    if (self->pair) {
        zcert_apply (self->pair, self->dealer);
        zsock_set_curve_serverkey (self->dealer, server_key);
    }
    self->handle = zsock_resolve (self->dealer);
    self->hello_said = false;           //  a new connection: say our level first
    self->broker_level = 0;             //  and hear the broker's again
    self->handshake = drover_handshake_new (self->dealer, self->pair != NULL);
    drover_poller_set (self->poller, S_DEALER_AT, self->dealer);
    drover_poller_set (self->poller, S_MONITOR_AT, drover_handshake_sock (self->handshake));
    if (zsock_connect (self->dealer, "%s", self->endpoint) == -1) {
        s_disconnect (self);
        return -1;
    }
    return 0;
}

//  Connect the dealer if the client has none: it connects on its first
//  use, not when it is made, so that no connection goes out without the
//  keys set after drover_client_new (a broker with CURVE would refuse it,
//  and log it). Returns 0, or -1 with the error set if ZeroMQ does not
//  take the endpoint, or no key of its broker is known.
static int
s_ensure_connected (drover_client_t *self)
{
    if (self->dealer)
        return 0;
    if (s_connect (self) == 0)
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
        s_disconnect (self);
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
    s_disconnect (self);
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
//  Sending and receiving, and the synchronous request

//  Take the next request seq; never 0, which TASK DONE uses for notifies
static uint32_t
s_next_seq (drover_client_t *self)
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

//  Send a frame (taken) on the dealer, after HELLO when due. Returns 0, or
//  -1 with the error set: the broker refused the connection (the monitor
//  said so, or the send found no pipe: ZeroMQ drops a refused
//  connection's, and the send says EAGAIN), an interrupt, or the send's own
static int
s_send_frame (drover_client_t *self, zframe_t **frame_p)
{
    s_say_hello_when_due (self);
    if (drover_handshake_pending (self->handshake) && s_refused (self)) {
        zframe_destroy (frame_p);
        return -1;
    }
    int rc = zframe_send (frame_p, self->dealer, 0);
    drover_poller_sent (self->poller, S_DEALER_AT);    //  it may have taken in the read signal
    if (rc == 0)
        return 0;
    zframe_destroy (frame_p);
    int error = zmq_errno ();
    if (zsys_interrupted)
        drover_client_set_error (self, DROVER_CLIENT_ERR_INTERRUPTED, "interrupted");
    else
    if (!s_refused (self))
        drover_client_set_error (self, DROVER_CLIENT_ERR_SEND, "cannot send to %s: %s",
                                 self->endpoint, zmq_strerror (error));
    return -1;
}

//  Encode and send one request. Returns 0 or -1 with the error set.
static int
s_send_msg (drover_client_t *self, drover_msg_t *request)
{
    if (s_ensure_connected (self))
        return -1;
    zframe_t *frame = drover_msg_encode (request);
    if (!frame) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "%s breaks a protocol limit",
                     drover_msg_name (request->id));
        return -1;
    }
    return s_send_frame (self, &frame);
}

//  Send an encoded request again (a copy of frame). Returns 0 or -1 with
//  the error set.
static int
s_send_again (drover_client_t *self, zframe_t *frame)
{
    if (s_ensure_connected (self))
        return -1;
    zframe_t *copy = zframe_dup (frame);
    return s_send_frame (self, &copy);
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

//  Take what the handshake monitor said; true (the error set, the dealer
//  dropped) if the broker refused the connection. Nothing will come on
//  it: say why now, not after the timeout (ZeroMQ goes on trying)
static bool
s_refused (drover_client_t *self)
{
    if (drover_handshake_read (self->handshake) != -1)
        return false;
    drover_client_set_error (self, DROVER_CLIENT_ERR_REFUSED, "%s at %s",
                             drover_handshake_reason (self->handshake), self->endpoint);
    //  ZeroMQ gives up a connection whose handshake was refused: a new
    //  socket on the next use, so the next request tries (and is told) again
    s_disconnect (self);
    return true;
}

//  Wait up to msec for something from the broker, then handle all that
//  has arrived (up to a batch). Returns frames handled, 0 on timeout (or
//  when what woke us was not a message), or -1 with the error set if
//  interrupted or the broker refused our handshake.
static int
s_receive (drover_client_t *self, int msec)
{
    if (s_ensure_connected (self))
        return -1;
    s_resend_when_due (self);
    int64_t wake = s_wake_at (self);
    if (wake && s_msec_left (wake) < msec)
        msec = s_msec_left (wake);
    if (drover_handshake_pending (self->handshake))
        drover_poller_sent (self->poller, S_MONITOR_AT);    //  a send took in a refusal
    if (zsys_interrupted || drover_poller_wait (self->poller, msec) == -1) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INTERRUPTED, "interrupted");
        return -1;
    }
    if (drover_poller_readable (self->poller, S_MONITOR_AT)) {
        drover_poller_drained (self->poller, S_MONITOR_AT);
        if (s_refused (self))
            return -1;
    }
    int count = 0;
    while (count < S_BATCH && drover_poller_readable (self->poller, S_DEALER_AT)
    &&     s_receive_one (self))
        count++;
    s_move_when_due (self);
    s_resend_when_due (self);
    return count;
}

//  Milliseconds left until deadline, at least 0, at most INT_MAX
static int
s_msec_left (int64_t deadline)
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
        int left = s_msec_left (deadline);
        if (left == 0 && s_move_on_silence (self, started))
            continue;
        if (left == 0) {
            s_set_timeout_error (self);
            break;
        }
        if (again && s_msec_left (resend_at) == 0) {
            if (s_send_again (self, again))
                break;
            resend_at = zclock_mono () + self->resend;
        }
        if (again && s_msec_left (resend_at) < left)
            left = s_msec_left (resend_at);
        if (s_receive (self, left) == -1)
            break;                  //  interrupted, or refused: error set
    }
    self->awaited = 0;
    self->awaited_lost = false;
    zframe_destroy (&self->awaited_frame);
    drover_msg_t *reply = self->reply;
    self->reply = NULL;
    return reply;
}

//  Name what a submit (or a workflow's step) carries of level 4, or NULL:
//  its devices or PREEMPTIBLE (its owner the client leaves out instead)
static const char *
s_level4_submit_field (const drover_msg_t *submit)
{
    if (submit->ndevices)
        return "--device";
    if (submit->flags & DROVER_SUBMIT_PREEMPTIBLE)
        return "--preemptible";
    return NULL;
}

//  Name what a request carries of level 4, or NULL if nothing
static const char *
s_level4_field (const drover_msg_t *request)
{
    if (request->id == DROVER_MSG_SHARE_ADMIN || request->id == DROVER_MSG_SHARE_LIST)
        return "drover share";
    if (request->id == DROVER_MSG_TASK_SUBMIT)
        return s_level4_submit_field (request);
    for (uint32_t index = 0; request->id == DROVER_MSG_WORKFLOW_SUBMIT && request->steps
                             && index < request->nsteps; index++) {
        const char *field = request->steps [index]? s_level4_submit_field (request->steps [index])
                                                  : NULL;
        if (field)
            return field;
    }
    return NULL;
}

//  True if a request names an owner (a submit, or a workflow's step): a
//  level-4 field the client leaves out for a broker below level 4
static bool
s_names_owner (const drover_msg_t *request)
{
    if (request->id == DROVER_MSG_TASK_SUBMIT)
        return request->owner [0] != 0;
    for (uint32_t index = 0; request->id == DROVER_MSG_WORKFLOW_SUBMIT && request->steps
                             && index < request->nsteps; index++)
        if (request->steps [index] && request->steps [index]->owner [0])
            return true;
    return false;
}

//  Name what a request carries of level 3, or NULL if nothing: such a
//  request must not go to a broker of a lower level, which would read a
//  TASK SUBMIT without its trailing fields (a task that does not wait) and
//  answer a WORKFLOW SUBMIT ERROR 400
static const char *
s_level3_field (const drover_msg_t *request)
{
    if (request->id == DROVER_MSG_WORKFLOW_SUBMIT)
        return "a workflow";
    if (request->id == DROVER_MSG_TASK_LIST && request->group)
        return "--array (a group's members)";
    if (request->id != DROVER_MSG_TASK_SUBMIT)
        return NULL;
    if (request->nafter) {
        int kind = request->after [0].kind & ~DROVER_AFTER_STEP;
        return kind == DROVER_AFTER_ANY? "--after-any":
               kind == DROVER_AFTER_FAIL? "--after-fail": "--after";
    }
    if (request->begin)
        return "--begin";
    if (request->retry_delay || request->retry_max_delay)
        return "--retry-delay";
    if (request->array.count)
        return "--array";
    return NULL;
}

//  Refuse, here, a request with level-3 or level-4 fields, or a STATE
//  BACKUP (level 5), to a broker of a
//  lower level, which would drop them silently or refuse the request as
//  malformed; leave out the owner a submit names for a broker known to be
//  below level 4 (it has no fair share to use it for). The owner alone
//  does not make the client ask the broker's level: brokers are upgraded
//  first (PROTOCOL.md §12), and the CLI names an owner on every submit.
//  Returns 0 if it may go, or -1 with the error set.
static int
s_level_refuses (drover_client_t *self, drover_msg_t *request)
{
    //  Level 5 added only STATE BACKUP
    const char *field = request->id == DROVER_MSG_STATE_BACKUP? "backup": NULL;
    int needs = 5;
    if (!field) {
        field = s_level4_field (request);
        needs = 4;
    }
    if (!field) {
        field = s_level3_field (request);
        needs = 3;
    }
    bool owner = s_names_owner (request) && self->broker_level != 0;
    if (!field && !owner)
        return 0;
    int level = drover_client_broker_level (self);
    if (level < 0)
        return -1;              //  no answer: the error says so
    if (field && level < needs) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                                 "the broker speaks level %d; %s needs level %d",
                                 level, field, needs);
        return -1;
    }
    if (owner && level < 4) {
        request->owner [0] = 0;
        for (uint32_t index = 0; request->id == DROVER_MSG_WORKFLOW_SUBMIT && request->steps
                                 && index < request->nsteps; index++)
            if (request->steps [index])
                request->steps [index]->owner [0] = 0;
    }
    return 0;
}

//  Return the broker's protocol level, asking for it if not heard yet
int
drover_client_broker_level (drover_client_t *self)
{
    assert (self);
    if (self->broker_level)
        return self->broker_level;
    //  Any answer comes after the CLIENT WELCOME to the CLIENT HELLO that
    //  went first on this connection; a broker before levels sends none.
    //  WORKER LIST is of level 1 and cheap: a row per worker, no task.
    drover_msg_t *probe = drover_msg_new (DROVER_MSG_WORKER_LIST);
    drover_msg_t *reply = drover_client_request (self, probe);
    drover_msg_destroy (&probe);
    if (!reply && self->error_code < 300)
        return -1;              //  not answered: no level heard
    drover_msg_destroy (&reply);
    if (self->broker_level == 0)
        self->broker_level = 1;
    return self->broker_level;
}

//  Send any request and return its reply
drover_msg_t *
drover_client_request (drover_client_t *self, drover_msg_t *request)
{
    assert (self);
    assert (request);
    assert (!self->in_handler);     //  handlers must not call the client
    if (s_level_refuses (self, request))
        return NULL;
    request->seq = s_next_seq (self);
    //  Every request is kept encoded, to go again to the next broker if
    //  this one redirects or goes away (s_resend_when_due); a keyed SUBMIT
    //  also goes again while unanswered: the broker gives a repeat of a
    //  key it holds the same task id
    zframe_t *frame = drover_msg_encode (request);
    if (!frame) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "%s breaks a protocol limit",
                                 drover_msg_name (request->id));
        return NULL;
    }
    s_note_link (self, &self->awaited_up, &self->awaited_connects);
    if (s_send_again (self, frame)) {
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
        s_redirected (self, msg);
        return;
    }
    if (self->served_in != self->moves) {
        drover_endpoints_served (self->endpoints);  //  this broker serves
        self->served_in = self->moves;
    }
    if (msg->id == DROVER_MSG_TASK_DONE) {
        s_dispatch_done (self);
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
            s_dispatch_ack (self, slot);
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


//  ---------------------------------------------------------------------
//  Moving between brokers
//
//  When to move (a REDIRECT, a connection down for DEAD_AFTER, a request
//  unanswered for its timeout), where (drover_endpoints decides), and
//  what goes again to the broker moved to once the move's delay has
//  passed: the request in flight, the async submits, the WAITs, except a
//  SUBMIT without a key that the broker left may have accepted, which
//  fails instead (PROTOCOL.md §17).

//  True if the client may move between brokers: it has several, or a
//  REDIRECT sent it to one not in its list
static bool
s_may_move (drover_client_t *self)
{
    return drover_endpoints_size (self->endpoints) > 1
        || drover_endpoints_moves (self->endpoints) > 0;
}

//  Note in *up_p and *connects_p whether the connection is up now and its
//  handshakes so far, for a request about to go (with several brokers: a
//  request sent while the connection was down, and not up since, cannot
//  have reached the broker, and may go to the next one)
static void
s_note_link (drover_client_t *self, bool *up_p, uint64_t *connects_p)
{
    *up_p = true;               //  one broker: never asked
    *connects_p = 0;
    if (s_may_move (self) && s_ensure_connected (self) == 0) {
        *up_p = drover_handshake_up (self->handshake);
        *connects_p = drover_handshake_connects (self->handshake);
        drover_poller_drained (self->poller, S_MONITOR_AT);     //  we read it empty
    }
}

//  We leave the broker we sent to: note which requests it may have taken.
//  Not one it redirected (a standby does nothing), nor one sent while the
//  connection was down and not up since (it never left us).
static void
s_note_taken (drover_client_t *self, bool redirected)
{
    bool up = false;
    uint64_t connects = 0;
    if (!redirected)
        s_note_link (self, &up, &connects);
    if (self->awaited && self->awaited_sent_in == self->moves)
        self->awaited_maybe_taken = !redirected
            && (self->awaited_up || connects > self->awaited_connects);
    for (uint32_t index = 0; self->outstanding && index < self->window; index++) {
        drover_client_slot_t *slot = &self->slots [index];
        if (slot->seq && slot->sent_in == self->moves)
            slot->maybe_taken = !redirected && (slot->sent_up || connects > slot->sent_connects);
    }
}

//  Talk to the endpoints' current broker from now on: a new DEALER (what
//  was queued for the old broker is dropped; the same one when the
//  current broker is where we are), and what the old one had goes again
//  after delay msec. redirected: the broker we leave answered REDIRECT,
//  so it did nothing with what we sent it.
static void
s_move (drover_client_t *self, int delay, bool redirected, const char *why)
{
    s_note_taken (self, redirected);
    self->moves++;
    //  Told to stay where we are (nowhere else to go): the same connection
    //  asks again after the delay
    bool stay = self->dealer && streq (drover_endpoints_current (self->endpoints),
                                       self->endpoint);
    for (size_t tries = 0; !stay; tries++) {
        const char *next = drover_endpoints_current (self->endpoints);
        //  A redirect is the protocol at work, said at every command a
        //  standby answers first: only a broker left for silence is news
        if (!redirected && strneq (next, self->endpoint))
            zsys_info ("client: moving from broker=%s to broker=%s in %d ms: %s",
                       self->endpoint, next, delay, why);
        free (self->endpoint);
        self->endpoint = strdup (next);
        assert (self->endpoint);
        s_disconnect (self);
        if (s_connect (self) == 0)
            break;
        //  Only a leader a REDIRECT named can be unusable (the list was
        //  checked, and each of its brokers has a key): the next of the
        //  list is not
        assert (tries <= drover_endpoints_size (self->endpoints));
        why = "cannot connect there";
        if (self->pair && !drover_serverkeys_for (self->serverkeys, self->endpoint)) {
            why = "no key of that broker is trusted";
            zsys_warning ("client: broker=%s is named leader, but no key of it is trusted "
                          "(give it as %s=KEY in the list of brokers)", self->endpoint,
                          self->endpoint);
        }
        delay += drover_endpoints_failed (self->endpoints, zclock_mono ());
    }
    int64_t due = zclock_mono () + delay;
    self->resend_due = due > 0? due: 1;
}

//  A REDIRECT came: move once the batch is read (the first one decides)
static void
s_redirected (drover_client_t *self, drover_msg_t *redirect)
{
    if (self->move_due)
        return;
    if (self->serverkeys)       //  the leader's key, by its name, if we trust one
        drover_serverkeys_learn (self->serverkeys, redirect->leader, redirect->leader_name);
    self->move_due = true;
    self->move_delay = drover_endpoints_redirected (self->endpoints, redirect->leader,
                                                    zclock_mono ());
}

//  Move if a REDIRECT came, or if the connection has been down for
//  DEAD_AFTER and there is another broker to try
static void
s_move_when_due (drover_client_t *self)
{
    if (self->move_due) {
        self->move_due = false;
        s_move (self, self->move_delay, true, "redirected");
        return;
    }
    int64_t down = self->handshake? drover_handshake_down_since (self->handshake): 0;
    int64_t now = zclock_mono ();
    if (down && now - down >= DROVER_ENDPOINTS_DEAD_AFTER && s_may_move (self))
        s_move (self, drover_endpoints_failed (self->endpoints, now), false,
                "connection down");
}

//  Return when the client must next act by itself (send again after a
//  move, or check a connection that is down), 0 if never
static int64_t
s_wake_at (drover_client_t *self)
{
    int64_t wake = self->resend_due;
    int64_t down = self->handshake? drover_handshake_down_since (self->handshake): 0;
    if (down && s_may_move (self)
    &&  (!wake || down + DROVER_ENDPOINTS_DEAD_AFTER < wake))
        wake = down + DROVER_ENDPOINTS_DEAD_AFTER;
    return wake;
}

//  True if a frame holds a request that may go twice: anything but a
//  SUBMIT without a key (two tasks)
static bool
s_repeatable (zframe_t *frame)
{
    drover_msg_t *msg = drover_msg_new (0);
    bool repeatable = drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)) == 0
                   && (msg->id != DROVER_MSG_TASK_SUBMIT || msg->key != NULL);
    drover_msg_destroy (&msg);
    return repeatable;
}

//  After a move, once its delay has passed: send again what the broker we
//  left had not answered. A request that may not go twice (a SUBMIT
//  without a key) fails instead, unless that broker redirected.
static void
s_resend_when_due (drover_client_t *self)
{
    if (!self->resend_due || zclock_mono () < self->resend_due)
        return;
    self->resend_due = 0;
    if (self->awaited && self->awaited_frame && self->awaited_sent_in < self->moves) {
        if (!self->awaited_maybe_taken || s_repeatable (self->awaited_frame)) {
            s_note_link (self, &self->awaited_up, &self->awaited_connects);
            s_send_again (self, self->awaited_frame);
            self->awaited_sent_in = self->moves;
        }
        else
            self->awaited_lost = true;
    }
    size_t failed = 0;
    for (uint32_t index = 0; self->outstanding && index < self->window; index++) {
        drover_client_slot_t *slot = &self->slots [index];
        if (slot->seq == 0 || slot->sent_in >= self->moves)
            continue;
        if (slot->frame && (!slot->maybe_taken || slot->keyed)) {
            s_note_link (self, &slot->sent_up, &slot->sent_connects);
            s_send_again (self, slot->frame);
            slot->sent_in = self->moves;
        }
        else {
            s_fail_slot (self, slot, DROVER_CLIENT_ERR_TIMEOUT,
                         "the broker went away before it answered; not sent "
                         "again (no submit key: it may have been accepted)");
            failed++;
        }
    }
    if (failed)
        zsys_warning ("client: %zu submits without a key not sent again to broker=%s", failed,
                      self->endpoint);
}

//  The broker said nothing for a request's timeout: if the client may
//  move, and has not been trying for DROVER_CLIENT_FAILOVER since started,
//  move to the next broker and return true (the caller waits anew); else
//  false (the caller gives up)
static bool
s_move_on_silence (drover_client_t *self, int64_t started)
{
    int64_t now = zclock_mono ();
    if (!s_may_move (self) || now - started >= DROVER_CLIENT_FAILOVER)
        return false;
    s_move (self, drover_endpoints_failed (self->endpoints, now), false, "no answer");
    return true;
}


//  ---------------------------------------------------------------------
//  Submitting
//
//  One at a time (drover_client_submit: a request and its reply), or
//  many without waiting (drover_client_submit_async): async submits live
//  in a ring of `window` slots indexed by seq; a send blocks while its
//  slot is taken, which bounds what is outstanding, and each reply frees
//  its slot and goes to the ack handler.
//
//  A submit with a key is kept encoded until its reply, and sent again
//  (same seq, same key) after each resend interval in which the broker
//  said nothing: a broker that saved the first answers the same task id,
//  one that never got it (it died, the connection dropped it) takes it
//  now. A submit without a key is never sent twice: it would be two tasks.
//  With several brokers every submit is kept encoded: one that a standby
//  answered REDIRECT goes again to the leader (the standby did nothing
//  with it); one whose broker went away unanswered goes again only if it
//  has a key, and fails otherwise (s_fail_slot).

//  Free a slot and tell its handler how it ended
static void
s_slot_end (drover_client_t *self, drover_client_slot_t *slot, uint64_t task, int code,
            const char *reason)
{
    drover_client_slot_t taken = *slot;
    slot->seq = 0;
    zframe_destroy (&slot->frame);
    self->outstanding--;
    if (code != DROVER_CODE_OK)
        drover_client_set_error (self, code, "%s", reason);
    if (self->ack_handler) {
        self->in_handler = true;
        self->ack_handler (taken.seq, taken.tag, task, code, reason, self->ack_arg);
        self->in_handler = false;
    }
}

//  An async submit's reply arrived (ACCEPTED or ERROR)
static void
s_dispatch_ack (drover_client_t *self, drover_client_slot_t *slot)
{
    drover_msg_t *reply = self->inbox;
    if (reply->id == DROVER_MSG_ERROR)
        s_slot_end (self, slot, 0, reply->code, reply->reason? reply->reason: "");
    else
        s_slot_end (self, slot, reply->task, DROVER_CODE_OK, NULL);
}

//  End an async submit without a reply from a broker: its handler hears
//  code and reason, and the slot is free
static void
s_fail_slot (drover_client_t *self, drover_client_slot_t *slot, int code,
             const char *reason)
{
    s_slot_end (self, slot, 0, code, reason);
}


//  Submit a task and wait for its id
int
drover_client_submit (drover_client_t *self, drover_submit_t *submit, uint64_t *task_p)
{
    assert (self);
    assert (submit);
    drover_msg_t *reply = drover_client_request (self, drover_submit_msg (submit));
    if (!reply)
        return -1;
    int rc = 0;
    if (reply->id == DROVER_MSG_TASK_ACCEPTED) {
        if (task_p)
            *task_p = reply->task;
    }
    else {
        drover_client_set_error (self, DROVER_CLIENT_ERR_PROTOCOL, "broker answered %s to TASK SUBMIT",
                     drover_msg_name (reply->id));
        rc = -1;
    }
    drover_msg_destroy (&reply);
    return rc;
}

//  Set the async reply handler
void
drover_client_set_ack_handler (drover_client_t *self, drover_client_ack_fn *handler, void *arg)
{
    assert (self);
    self->ack_handler = handler;
    self->ack_arg = arg;
}

//  Set the handler for NOTIFY TASK DONEs that no wait takes
void
drover_client_set_done_handler (drover_client_t *self, drover_client_done_fn *handler, void *arg)
{
    assert (self);
    self->done_handler = handler;
    self->done_arg = arg;
}

//  Resize the window while nothing is outstanding
int
drover_client_set_window (drover_client_t *self, uint32_t window)
{
    assert (self);
    if (self->outstanding)
        return -1;          //  slots are indexed by seq % window
    if (window < 1)
        window = 1;
    if (window > DROVER_CLIENT_WINDOW_MAX)
        window = DROVER_CLIENT_WINDOW_MAX;
    free (self->slots);
    self->slots = (drover_client_slot_t *) zmalloc (sizeof (drover_client_slot_t) * window);
    self->window = window;
    return 0;
}

//  Send again every outstanding submit that has a key: the broker did not
//  answer them for a while (it may have died before saving them, or the
//  connection dropped them); a broker that has one already answers the
//  same task id
static int
s_resend_keyed (drover_client_t *self)
{
    size_t resent = 0;
    for (uint32_t index = 0; index < self->window; index++) {
        drover_client_slot_t *slot = &self->slots [index];
        if (slot->seq && slot->frame && slot->keyed) {
            if (s_send_again (self, slot->frame))
                return -1;
            resent++;
        }
    }
    if (resent)
        zsys_info ("client: broker=%s silent for %d msec, sent %zu keyed submits again",
                   self->endpoint, self->resend, resent);
    return 0;
}

//  Handle replies until the slot is free (with no slot: until nothing is
//  outstanding); keyed submits go again after each resend interval of
//  silence. Returns 0, or -1 with the error set if replies stopped coming
//  for the timeout, the broker refused our handshake, or on interrupt
static int
s_handle_replies (drover_client_t *self, drover_client_slot_t *slot)
{
    int64_t started = zclock_mono ();
    int64_t deadline = started + self->timeout;
    int64_t resend_at = started + self->resend;
    uint64_t moves = self->moves;
    while (slot? slot->seq != 0: self->outstanding > 0) {
        if (self->moves != moves) {
            moves = self->moves;                            //  another broker: time anew
            deadline = zclock_mono () + self->timeout;
        }
        uint64_t received = self->received;
        int64_t until = resend_at < deadline? resend_at: deadline;
        int rc = s_receive (self, s_msec_left (until));
        if (rc == -1)
            return -1;                  //  interrupted, or refused: error set
        if (self->received != received) {
            deadline = zclock_mono () + self->timeout;      //  the broker is answering
            resend_at = zclock_mono () + self->resend;
        }
        else
        if (s_msec_left (deadline) == 0
        &&  !s_move_on_silence (self, started)) {
            s_set_timeout_error (self);
            return -1;
        }
        else
        if (s_msec_left (resend_at) == 0) {
            if (s_resend_keyed (self))
                return -1;
            resend_at = zclock_mono () + self->resend;
        }
    }
    return 0;
}


//  Send a TASK SUBMIT without waiting for its reply
uint32_t
drover_client_submit_async (drover_client_t *self, drover_submit_t *submit_view, uintptr_t tag)
{
    assert (self);
    assert (submit_view);
    drover_msg_t *submit = drover_submit_msg (submit_view);
    assert (!self->in_handler);
    if (s_level_refuses (self, submit))
        return 0;
    uint32_t seq = s_next_seq (self);
    drover_client_slot_t *slot = &self->slots [seq % self->window];
    if (slot->seq && s_handle_replies (self, slot))
        return 0;
    submit->seq = seq;
    s_note_link (self, &slot->sent_up, &slot->sent_connects);
    zframe_t *frame = NULL;
    if (submit->key || s_may_move (self)) {
        //  Kept encoded, to go again if the broker stays silent (keyed),
        //  redirects, or goes away (keyed)
        frame = drover_msg_encode (submit);
        if (!frame) {
            drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "%s breaks a protocol limit",
                                     drover_msg_name (submit->id));
            return 0;
        }
        if (s_send_again (self, frame)) {
            zframe_destroy (&frame);
            return 0;
        }
    }
    else
    if (s_send_msg (self, submit))
        return 0;
    slot->seq = seq;
    slot->tag = tag;
    slot->frame = frame;
    slot->keyed = submit->key != NULL;
    slot->sent_in = self->moves;
    self->outstanding++;
    if ((seq & 255) == 0)
        s_receive (self, 0);    //  take what has come, keeping our queue short
    return seq;
}

//  Handle async replies that have arrived
int
drover_client_poll (drover_client_t *self, int msec)
{
    assert (self);
    assert (!self->in_handler);
    if (s_receive (self, msec) == -1)
        return -1;
    return (int) self->outstanding;
}

//  Wait for every async submit's reply
int
drover_client_flush (drover_client_t *self)
{
    assert (self);
    assert (!self->in_handler);
    if (s_handle_replies (self, NULL) == 0)
        return 0;
    if (self->error_code == DROVER_CLIENT_ERR_TIMEOUT)
        drover_client_set_error (self, DROVER_CLIENT_ERR_TIMEOUT,
                     "the broker at %s did not answer %zu submits within %d msec",
                     self->endpoint, self->outstanding, self->timeout);
    return -1;
}

//  Return how many async submits are outstanding
size_t
drover_client_outstanding (drover_client_t *self)
{
    assert (self);
    return self->outstanding;
}


//  ---------------------------------------------------------------------
//  Waiting for TASK DONEs
//
//  A TASK DONE goes to the wait in progress if it asks for that task,
//  else, when it is a submit's notify (seq 0), to the done handler, or is
//  kept for a later wait if there is none. A wait sends TASK WAIT for
//  every task still pending, again after a silence that doubles each time
//  (up to DROVER_CLIENT_RESEND_MAX), and gives up when the broker says
//  nothing for the timeout. When the client moves to another broker
//  (PROTOCOL.md §17) the WAITs go there as soon as the move's delay has
//  passed, and that broker gets the whole timeout.

//  Progress callbacks at most this often, msec
#define S_PROGRESS_EVERY    100
#define S_QUIET_EVERY       1000    //  msec: progress is told this often while nothing comes

//  Keep a notify's TASK DONE that came before anyone waited for it, if
//  there is room; a wait that asks later will get it again from the broker
static void
s_keep_done (drover_client_t *self)
{
    size_t bytes = self->inbox->out_size + self->inbox->err_size;
    if (zlistx_size (self->kept) >= DROVER_CLIENT_KEPT_MAX
    ||  self->kept_bytes + bytes > DROVER_CLIENT_KEPT_BYTES) {
        self->kept_dropped++;
        return;
    }
    zlistx_add_end (self->kept, self->inbox);
    self->kept_bytes += bytes;
    self->inbox = drover_msg_new (0);
}

//  Hand one TASK DONE to the wait if it is pending there. Returns true if
//  the wait knows the task (delivered now or before).
static bool
s_wait_take (drover_client_t *self, const drover_msg_t *done)
{
    drover_client_waiting_t *wait = self->wait;
    int rc = drover_waitset_deliver (wait->tasks, done->task);
    if (rc == -1)
        return false;
    if (rc == 1) {
        wait->progressed = true;
        if (wait->on_done) {
            self->in_handler = true;
            wait->on_done (drover_result_of (done), wait->arg);
            self->in_handler = false;
        }
    }
    return true;            //  delivered now, or a duplicate delivered before
}

//  A TASK DONE arrived
static void
s_dispatch_done (drover_client_t *self)
{
    drover_msg_t *done = self->inbox;
    if (self->wait && s_wait_take (self, done))
        return;
    if (done->seq == 0 && self->done_handler) {
        self->in_handler = true;
        self->done_handler (drover_result_of (done), self->done_arg);
        self->in_handler = false;
    }
    else
    if (done->seq == 0)
        s_keep_done (self);     //  a notify: someone may wait for it later
    else
        self->dropped++;        //  for an earlier wait, already answered
}

//  Send WAIT for every task still pending, in chunks of DROVER_WAIT_MAX.
//  Returns 0 or -1 with the error set.
static int
s_send_waits (drover_client_t *self, drover_client_waiting_t *wait)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_WAIT);
    size_t chunk = drover_waitset_total (wait->tasks) - drover_waitset_delivered (wait->tasks);
    if (chunk > DROVER_WAIT_MAX)
        chunk = DROVER_WAIT_MAX;
    request->tasks = (uint64_t *) zmalloc (sizeof (uint64_t) * (chunk? chunk: 1));
    strcpy (request->state_id, self->state_id);     //  412 if the broker's is another
    int rc = 0;
    size_t cursor = 0;
    while (rc == 0) {
        request->ntasks = (uint32_t) drover_waitset_pending (wait->tasks, &cursor,
                                                             request->tasks, chunk);
        if (request->ntasks == 0)
            break;
        request->seq = s_next_seq (self);
        drover_waitset_sent (wait->tasks, request->seq);
        rc = s_send_msg (self, request);
    }
    drover_msg_destroy (&request);
    return rc;
}

//  Hand over the kept TASK DONEs the wait asks for
static void
s_take_kept (drover_client_t *self, drover_client_waiting_t *wait)
{
    drover_msg_t *done = (drover_msg_t *) zlistx_first (self->kept);
    while (done) {
        if (s_wait_take (self, done)) {
            self->kept_bytes -= done->out_size + done->err_size;
            zlistx_delete (self->kept, zlistx_cursor (self->kept));    //  cursor moves back
        }
        done = (drover_msg_t *) zlistx_next (self->kept);
    }
}

//  Wait until each task has its TASK DONE
int
drover_client_wait (drover_client_t *self, const uint64_t *tasks, size_t count,
                    drover_client_done_fn *on_done, drover_client_progress_fn *on_progress,
                    void *arg)
{
    assert (self);
    assert (!self->wait && !self->in_handler);     //  not re-entrant from a handler
    drover_client_waiting_t wait = { .on_done = on_done, .arg = arg };
    wait.tasks = drover_waitset_new (tasks, count);
    size_t total = drover_waitset_total (wait.tasks);
    self->wait = &wait;
    if (on_progress)
        on_progress (0, total, arg);
    s_take_kept (self, &wait);

    int rc = 0;
    int interval = self->resend;            //  re-send after this much silence
    int64_t now = zclock_mono ();
    int64_t next_resend = now;              //  send the first WAIT at once
    int64_t unanswered_since = 0;           //  a WAIT went out and nothing came back
    int64_t next_progress = now + S_PROGRESS_EVERY;
    int64_t next_quiet = now + S_QUIET_EVERY;   //  told on_progress, if nothing came
    size_t shown = 0;                       //  delivered, as last told on_progress
    uint64_t moves = self->moves;           //  the client's moves when WAITs last went
    int patience = self->timeout;           //  msec of silence we bear: more while moving
    int64_t broker_since = now;             //  we moved, or last heard the broker
    while (drover_waitset_delivered (wait.tasks) < total) {
        size_t delivered = drover_waitset_delivered (wait.tasks);
        now = zclock_mono ();
        if (self->moves != moves && !self->resend_due) {
            moves = self->moves;            //  another broker: WAIT there now
            interval = self->resend;
            next_resend = now;
            patience = self->timeout + DROVER_CLIENT_FAILOVER;
            broker_since = now;
        }
        if (unanswered_since && now - broker_since >= self->timeout
        &&  s_move_on_silence (self, unanswered_since)) {
            broker_since = now;             //  a silent broker: the next one
            continue;
        }
        if (wait.progressed) {
            wait.progressed = false;
            interval = self->resend;
            next_resend = now + interval;
        }
        if (on_progress && ((delivered != shown && now >= next_progress) || now >= next_quiet)) {
            on_progress (delivered, total, arg);
            shown = delivered;
            next_progress = now + S_PROGRESS_EVERY;
            next_quiet = now + S_QUIET_EVERY;
        }
        if (now >= next_resend) {
            if (s_send_waits (self, &wait)) {
                rc = -1;
                break;
            }
            if (!unanswered_since)
                unanswered_since = now;
            next_resend = now + interval;
            interval = interval * 2 > DROVER_CLIENT_RESEND_MAX? DROVER_CLIENT_RESEND_MAX
                     : interval * 2;
        }
        if (unanswered_since && now - unanswered_since >= patience) {
            s_set_timeout_error (self);
            rc = -1;
            break;
        }
        int64_t until = next_resend;
        if (unanswered_since && unanswered_since + patience < until)
            until = unanswered_since + patience;
        if (on_progress && delivered != shown && next_progress < until)
            until = next_progress;
        if (on_progress && next_quiet < until)
            until = next_quiet;
        uint64_t received = self->received;
        if (s_receive (self, s_msec_left (until)) == -1) {
            rc = -1;                        //  interrupted, or refused: error set
            break;
        }
        if (self->received != received) {
            unanswered_since = 0;           //  the broker is there
            patience = self->timeout;
            broker_since = zclock_mono ();
        }
        if (wait.failed) {
            rc = -1;
            break;
        }
    }
    if (on_progress && drover_waitset_delivered (wait.tasks) != shown)
        on_progress (drover_waitset_delivered (wait.tasks), total, arg);
    self->wait = NULL;
    drover_waitset_destroy (&wait.tasks);
    return rc;
}
