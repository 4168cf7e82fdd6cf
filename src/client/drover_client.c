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
    - anything else is a late reply to an abandoned request: dropped.

    Submitting is drover_client_submit.c (async submits live there in a
    ring of `window` slots indexed by seq), waiting for TASK DONEs is
    drover_client_wait.c; this file has the object, sending and
    receiving, routing what comes in, and the plain requests.

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
//  The dealer's index in the poller
#define S_DEALER_AT         0
//  Its handshake monitor's
#define S_MONITOR_AT        1

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
//  understand the endpoint (the client then has no dealer).
static int
s_connect (drover_client_t *self)
{
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
    zsock_set_heartbeat_timeout (self->dealer, 5000);
    if (self->pair) {
        zcert_apply (self->pair, self->dealer);
        zsock_set_curve_serverkey (self->dealer, self->server_key);
    }
    self->handle = zsock_resolve (self->dealer);
    self->handshake = drover_handshake_new (self->dealer, self->pair != NULL);
    drover_poller_set (self->poller, S_DEALER_AT, self->dealer);
    drover_poller_set (self->poller, S_MONITOR_AT, drover_handshake_sock (self->handshake));
    if (zsock_connect (self->dealer, "%s", self->endpoint) == -1) {
        s_disconnect (self);
        return -1;
    }
    return 0;
}

//  Create a client for the broker at endpoint
drover_client_t *
drover_client_new (const char *endpoint)
{
    if (!endpoint)
        endpoint = getenv ("DROVER_BROKER");
    if (!endpoint || !*endpoint)
        endpoint = DROVER_CLIENT_ENDPOINT;

    drover_client_t *self = (drover_client_t *) zmalloc (sizeof (drover_client_t));
    self->endpoint = strdup (endpoint);
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
    if (s_connect (self)) {
        drover_client_destroy (&self);
        return NULL;    //  not an endpoint ZeroMQ understands
    }
    return self;
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
    drover_msg_destroy (&self->inbox);
    drover_msg_destroy (&self->reply);
    zlistx_destroy (&self->kept);
    for (uint32_t index = 0; index < self->window; index++)
        zframe_destroy (&self->slots [index].frame);
    free (self->slots);
    free (self->endpoint);
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
    assert (key_path);
    assert (server_key_path);
    char *error = NULL;
    zcert_t *pair = drover_keys_load_pair (key_path, &error);
    zcert_t *server = pair? drover_keys_load_public (server_key_path, &error): NULL;
    if (!server) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_KEY, "%s", error);
        zstr_free (&error);
        zcert_destroy (&pair);
        return -1;
    }
    zcert_destroy (&self->pair);
    self->pair = pair;
    snprintf (self->server_key, sizeof self->server_key, "%s", zcert_public_txt (server));
    zcert_destroy (&server);
    //  A new socket: nothing of the connection made without keys (its
    //  handshake, its monitor's events) is left to be taken for ours
    s_disconnect (self);
    int rc = s_connect (self);
    assert (rc == 0);                   //  it connected before
    return 0;
}

//  Set the reply deadline
void
drover_client_set_timeout (drover_client_t *self, int msec)
{
    assert (self);
    if (msec > 0) {
        self->timeout = msec;
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

//  Encode and send one request. Returns 0 or -1 with the error set.
int
drover_client_send_msg (drover_client_t *self, drover_msg_t *request)
{
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
            //  a new socket, so the next request tries (and is told) again
            s_disconnect (self);
            int rc = s_connect (self);
            assert (rc == 0);           //  it connected before
            return -1;
        }
    }
    int count = 0;
    while (count < S_BATCH && drover_poller_readable (self->poller, S_DEALER_AT)
    &&     s_receive_one (self))
        count++;
    return count;
}

//  Milliseconds left until deadline, at least 0, at most INT_MAX
int
drover_client_msec_left (int64_t deadline)
{
    int64_t left = deadline - zclock_mono ();
    return left < 0? 0: left > INT_MAX? INT_MAX: (int) left;
}

//  Wait for the reply to request seq, within the timeout. If again is
//  set (an encoded request that may go twice: a SUBMIT with a key), send
//  it again after each resend interval of silence. Returns the reply
//  (caller owns; ERROR included), or NULL with the error set.
static drover_msg_t *
s_await (drover_client_t *self, uint32_t seq, zframe_t *again)
{
    self->awaited = seq;
    int64_t deadline = zclock_mono () + self->timeout;
    int64_t resend_at = zclock_mono () + self->resend;
    while (!self->reply) {
        int left = drover_client_msec_left (deadline);
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
    //  A keyed SUBMIT is kept encoded, to go again while unanswered: the
    //  broker gives a repeat of a key it holds the same task id
    zframe_t *again = NULL;
    if (request->id == DROVER_MSG_TASK_SUBMIT && request->key) {
        again = drover_msg_encode (request);
        if (!again) {
            drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "%s breaks a protocol limit",
                                     drover_msg_name (request->id));
            return NULL;
        }
    }
    if (again? drover_client_send_again (self, again): drover_client_send_msg (self, request)) {
        zframe_destroy (&again);
        return NULL;
    }
    drover_msg_t *reply = s_await (self, request->seq, again);
    zframe_destroy (&again);
    if (reply && reply->id == DROVER_MSG_ERROR) {
        drover_client_set_error (self, reply->code, "%s", reply->reason? reply->reason: "");
        drover_msg_destroy (&reply);
    }
    return reply;
}

//  Send a request whose answer is OK. Returns 0, or -1 with the error set.
static int
s_request_ok (drover_client_t *self, drover_msg_t *request)
{
    drover_msg_t *reply = drover_client_request (self, request);
    if (!reply)
        return -1;
    int rc = 0;
    if (reply->id != DROVER_MSG_OK) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_PROTOCOL, "broker answered %s to %s",
                     drover_msg_name (reply->id), drover_msg_name (request->id));
        rc = -1;
    }
    drover_msg_destroy (&reply);
    return rc;
}


//  ---------------------------------------------------------------------
//  Dispatching what the broker sends

//  Route the message in self->inbox to whoever waits for it
static void
s_dispatch (drover_client_t *self)
{
    drover_msg_t *msg = self->inbox;
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



//  ---------------------------------------------------------------------
//  Other requests

//  Cancel a task
int
drover_client_cancel (drover_client_t *self, uint64_t task)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    request->task = task;
    int rc = s_request_ok (self, request);
    drover_msg_destroy (&request);
    return rc;
}

//  Set a worker's admin setting
int
drover_client_admin (drover_client_t *self, const char *worker, int admin)
{
    assert (self);
    assert (worker);
    if (!drover_id_valid (worker)) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                     "'%.64s' is not a worker id (printable, no spaces, 1..64 bytes)", worker);
        return -1;
    }
    if (admin < 0 || admin > DROVER_ADMIN_MAX) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "no admin setting %d", admin);
        return -1;
    }
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (request->worker, worker);
    request->admin = (uint8_t) admin;
    int rc = s_request_ok (self, request);
    drover_msg_destroy (&request);
    return rc;
}

//  Set a worker's admin setting with a reason and flags; return the answer
char *
drover_client_admin_reason (drover_client_t *self, const char *worker, int admin,
                            const char *reason, uint32_t flags)
{
    assert (self);
    assert (worker);
    if (!drover_id_valid (worker)) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                     "'%.64s' is not a worker id (printable, no spaces, 1..64 bytes)", worker);
        return NULL;
    }
    if (admin < 0 || admin > DROVER_ADMIN_MAX) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "no admin setting %d", admin);
        return NULL;
    }
    if (reason && strlen (reason) > DROVER_REASON_MAX) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                                 "a reason is at most %d bytes", DROVER_REASON_MAX);
        return NULL;
    }
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (request->worker, worker);
    request->admin = (uint8_t) admin;
    request->flags = flags;
    if (reason && *reason)
        drover_msg_set_reason (request, reason);
    drover_msg_t *reply = drover_client_request (self, request);
    char *answer = NULL;
    if (reply && reply->id != DROVER_MSG_OK)
        drover_client_set_error (self, DROVER_CLIENT_ERR_PROTOCOL, "broker answered %s to %s",
                     drover_msg_name (reply->id), drover_msg_name (request->id));
    else
    if (reply) {
        answer = strdup (reply->reason? reply->reason: "");
        assert (answer);
    }
    drover_msg_destroy (&reply);
    drover_msg_destroy (&request);
    return answer;
}

//  Return the reply if it is the expected table, else NULL with the error set
static drover_msg_t *
s_expect (drover_client_t *self, drover_msg_t *reply, int id, int request_id)
{
    if (reply && reply->id != id) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_PROTOCOL, "broker answered %s to %s",
                     drover_msg_name (reply->id), drover_msg_name (request_id));
        drover_msg_destroy (&reply);
    }
    return reply;
}

//  Ask for the worker table
drover_msg_t *
drover_client_workers (drover_client_t *self)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_LIST);
    drover_msg_t *reply = drover_client_request (self, request);
    drover_msg_destroy (&request);
    return s_expect (self, reply, DROVER_MSG_WORKER_TABLE, DROVER_MSG_WORKER_LIST);
}

//  Ask for kept events after a seq
drover_msg_t *
drover_client_events (drover_client_t *self, uint64_t since, uint32_t limit)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_EVENT_REPLAY);
    request->since = since;
    request->limit = limit;
    drover_msg_t *reply = drover_client_request (self, request);
    drover_msg_destroy (&request);
    return s_expect (self, reply, DROVER_MSG_EVENT_LIST, DROVER_MSG_EVENT_REPLAY);
}

//  Ask for task counts and rows
drover_msg_t *
drover_client_tasks (drover_client_t *self, int state, uint32_t limit)
{
    return drover_client_tasks_labeled (self, state, limit, NULL, 0);
}

//  Ask for task counts and the rows of tasks with every one of the labels
drover_msg_t *
drover_client_tasks_labeled (drover_client_t *self, int state, uint32_t limit,
                             const char *const *labels, uint32_t nlabels)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->state = (uint8_t) state;
    request->limit = limit;
    for (uint32_t index = 0; index < nlabels; index++)
        if (drover_msg_add_label (request, labels [index])) {
            drover_msg_destroy (&request);
            drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                                     "'%s' is not a label (k=v), or more than %d", labels [index],
                                     DROVER_LABELS_MAX);
            return NULL;
        }
    drover_msg_t *reply = drover_client_request (self, request);
    drover_msg_destroy (&request);
    return s_expect (self, reply, DROVER_MSG_TASK_TABLE, DROVER_MSG_TASK_LIST);
}

//  Ask for everything about one task
drover_msg_t *
drover_client_show (drover_client_t *self, uint64_t task)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_SHOW);
    request->task = task;
    drover_msg_t *reply = drover_client_request (self, request);
    drover_msg_destroy (&request);
    return s_expect (self, reply, DROVER_MSG_TASK_INFO, DROVER_MSG_TASK_SHOW);
}
