/*  =========================================================================
    drover_client - the client API (see drover_client.h)

    Everything the broker sends comes in through one path: s_receive polls
    the DEALER, decodes each frame into a reused message and s_dispatch
    hands it to whoever is waiting for it, by seq and by kind:

    - the reply to the synchronous request in flight (self->awaited);
    - an async submit's ACCEPTED or ERROR (its seq is in the slot ring);
    - a TASK DONE: to the wait in progress if it asks for that task, else,
      when it is a submit's notify (seq 0), to the done handler, or kept
      for a later wait if there is none;
    - a reply to one of the current wait's WAITs (its seq range);
    - anything else is a late reply to an abandoned request: dropped.

    Async submits live in a ring of `window` slots indexed by seq; a send
    blocks while its slot is taken, which bounds what is outstanding.

    A system call costs about a microsecond on the machines we measure,
    more than handling a message, so s_receive reads with ZMQ_DONTWAIT
    until the socket is empty and only then sleeps, in a drover_poller
    (one poll(2) on the socket's ZMQ_FD, as the broker and the worker
    sleep): its ZMQ_FD signals news only once a read found the socket
    empty, and a send may take that signal in, so every read that says
    EAGAIN marks the socket drained and every send marks it sent.
    =========================================================================
*/

#include "drover_client.h"
#include "drover_poller.h"
#include <errno.h>

//  Most messages handled per s_receive call after the first
#define S_BATCH             4096
//  Progress callbacks at most this often, msec
#define S_PROGRESS_EVERY    100
//  Messages queued towards us before the broker's ROUTER drops them
#define S_RCVHWM            1000000
//  The dealer's index in the poller
#define S_DEALER_AT         0

//  One async submit waiting for its reply
typedef struct {
    uint32_t seq;               //  request seq, 0 if the slot is free
    uintptr_t tag;              //  the caller's tag
} s_slot_t;

//  A set of task ids for one wait: open addressing, linear probing
typedef struct {
    uint64_t *keys;             //  task ids
    uint8_t *marks;             //  S_EMPTY, S_PENDING or S_DELIVERED per slot
    size_t mask;                //  capacity - 1 (capacity a power of two)
} s_idset_t;

#define S_EMPTY     0
#define S_PENDING   1
#define S_DELIVERED 2

//  The wait in progress
typedef struct {
    s_idset_t ids;              //  the tasks waited on and whether delivered
    size_t total;               //  distinct tasks
    size_t delivered;           //  tasks whose TASK DONE was handed over
    uint32_t seq_low;           //  first seq of this wait's WAITs
    uint32_t seq_high;          //  last seq of this wait's WAITs
    drover_client_done_fn *on_done;     //  caller's handler, or NULL
    void *arg;                  //  its argument
    bool progressed;            //  a task was delivered since the last check
    bool failed;                //  the broker refused a WAIT; error is set
} s_wait_t;

struct _drover_client_t {
    char *endpoint;             //  broker ROUTER endpoint
    zsock_t *dealer;            //  our one socket to the broker
    void *handle;               //  its libzmq handle, for zmq_msg_recv
    drover_poller_t *poller;    //  the dealer, at S_DEALER_AT
    int timeout;                //  msec for a reply
    int resend;                 //  msec of silence before WAIT goes again
    uint32_t seq;               //  last request seq used
    drover_msg_t *inbox;        //  reused to decode each incoming frame
    uint64_t received;          //  frames received, ever
    uint64_t malformed;         //  frames that did not decode
    uint64_t dropped;           //  replies nobody waited for
    int error_code;             //  last error: broker code or DROVER_CLIENT_ERR_*
    char error_text [DROVER_REASON_MAX + 160];  //  last error's text
    uint32_t awaited;           //  seq of the synchronous request in flight, or 0
    drover_msg_t *reply;        //  its reply, once in
    drover_client_ack_fn *ack_handler;  //  async submit replies go here
    void *ack_arg;              //  its argument
    drover_client_done_fn *done_handler;    //  NOTIFY TASK DONEs no wait takes, or NULL
    void *done_arg;             //  its argument
    bool in_handler;            //  a handler runs: it must not call us
    s_slot_t *slots;            //  async submits outstanding, by seq % window
    uint32_t window;            //  slots
    size_t outstanding;         //  slots taken
    s_wait_t *wait;             //  the wait in progress, or NULL
    zlistx_t *kept;             //  TASK DONEs that came before anyone waited
    size_t kept_bytes;          //  output bytes in kept
    uint64_t kept_dropped;      //  TASK DONEs not kept for lack of room
};

static void s_dispatch (drover_client_t *self);


//  Set the last error from a code and printf-style text
static void
s_set_error (drover_client_t *self, int code, const char *format, ...)
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
    s_set_error (self, DROVER_CLIENT_ERR_TIMEOUT,
                 "no reply from the broker at %s within %d msec (is it running?)",
                 self->endpoint, self->timeout);
}

//  Destructor for kept TASK DONEs in the zlistx
static void
s_msg_destructor (void **item)
{
    drover_msg_destroy ((drover_msg_t **) item);
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
    self->slots = (s_slot_t *) zmalloc (sizeof (s_slot_t) * self->window);

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
    if (zsock_connect (self->dealer, "%s", self->endpoint) == -1) {
        drover_client_destroy (&self);
        return NULL;    //  not an endpoint ZeroMQ understands
    }
    self->handle = zsock_resolve (self->dealer);
    self->poller = drover_poller_new ();
    drover_poller_add (self->poller, self->dealer);
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
    drover_poller_destroy (&self->poller);
    zsock_destroy (&self->dealer);
    drover_msg_destroy (&self->inbox);
    drover_msg_destroy (&self->reply);
    zlistx_destroy (&self->kept);
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
        case DROVER_CODE_OK:                return "ok";
        case DROVER_CODE_RETRY:             return "busy, try again later";
        case DROVER_CODE_QUEUE_FULL:        return "queue full";
        case DROVER_CODE_TOO_MANY:          return "too many";
        case DROVER_CODE_BAD_REQUEST:       return "bad request";
        case DROVER_CODE_NOT_REGISTERED:    return "not registered";
        case DROVER_CODE_NOT_FOUND:         return "not found";
        case DROVER_CODE_STALE:             return "stale";
        case DROVER_CODE_CONFLICT:          return "not possible now";
        case DROVER_CODE_TOO_LARGE:         return "too large";
        case DROVER_CODE_UNEXPECTED:        return "unexpected request";
        case DROVER_CODE_BAD_VERSION:       return "protocol version mismatch";
        case DROVER_CODE_INTERNAL:          return "broker fault";
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
static uint32_t
s_next_seq (drover_client_t *self)
{
    if (++self->seq == 0)
        self->seq = 1;
    return self->seq;
}

//  Encode and send one request. Returns 0 or -1 with the error set.
static int
s_send (drover_client_t *self, drover_msg_t *request)
{
    zframe_t *frame = drover_msg_encode (request);
    if (!frame) {
        s_set_error (self, DROVER_CLIENT_ERR_INVALID, "%s breaks a protocol limit",
                     drover_msg_name (request->id));
        return -1;
    }
    int rc = zframe_send (&frame, self->dealer, 0);
    drover_poller_sent (self->poller, S_DEALER_AT);    //  it may have taken in the read signal
    if (rc == -1) {
        zframe_destroy (&frame);
        if (zsys_interrupted)
            s_set_error (self, DROVER_CLIENT_ERR_INTERRUPTED, "interrupted");
        else
            s_set_error (self, DROVER_CLIENT_ERR_SEND, "cannot send to %s: %s",
                         self->endpoint, zmq_strerror (zmq_errno ()));
        return -1;
    }
    return 0;
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
//  when what woke us was not a message), or -1 if interrupted.
static int
s_receive (drover_client_t *self, int msec)
{
    if (zsys_interrupted)
        return -1;
    if (drover_poller_wait (self->poller, msec) == -1)
        return -1;
    int count = 0;
    while (count < S_BATCH && drover_poller_readable (self->poller, S_DEALER_AT)
    &&     s_receive_one (self))
        count++;
    return count;
}

//  Milliseconds left until deadline, at least 0, at most INT_MAX
static int
s_left (int64_t deadline)
{
    int64_t left = deadline - zclock_mono ();
    return left < 0? 0: left > INT_MAX? INT_MAX: (int) left;
}

//  Wait for the reply to request seq, within the timeout. Returns the reply
//  (caller owns; ERROR included), or NULL with the error set.
static drover_msg_t *
s_await (drover_client_t *self, uint32_t seq)
{
    self->awaited = seq;
    int64_t deadline = zclock_mono () + self->timeout;
    while (!self->reply) {
        int left = s_left (deadline);
        if (left == 0) {
            s_set_timeout_error (self);
            break;
        }
        if (s_receive (self, left) == -1) {
            s_set_error (self, DROVER_CLIENT_ERR_INTERRUPTED, "interrupted");
            break;
        }
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
    request->seq = s_next_seq (self);
    if (s_send (self, request))
        return NULL;
    drover_msg_t *reply = s_await (self, request->seq);
    if (reply && reply->id == DROVER_MSG_ERROR) {
        s_set_error (self, reply->code, "%s", reply->reason? reply->reason: "");
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
        s_set_error (self, DROVER_CLIENT_ERR_PROTOCOL, "broker answered %s to %s",
                     drover_msg_name (reply->id), drover_msg_name (request->id));
        rc = -1;
    }
    drover_msg_destroy (&reply);
    return rc;
}


//  ---------------------------------------------------------------------
//  The id set of a wait

//  Mix a task id into a slot number (splitmix64's finaliser)
static size_t
s_hash (uint64_t key)
{
    key ^= key >> 30;
    key *= 0xbf58476d1ce4e5b9ULL;
    key ^= key >> 27;
    key *= 0x94d049bb133111ebULL;
    key ^= key >> 31;
    return (size_t) key;
}

//  Size an empty set for count ids, at most half full
static void
s_idset_init (s_idset_t *set, size_t count)
{
    size_t capacity = 16;
    while (capacity < count * 2)
        capacity *= 2;
    set->keys = (uint64_t *) zmalloc (sizeof (uint64_t) * capacity);
    set->marks = (uint8_t *) zmalloc (capacity);
    set->mask = capacity - 1;
}

//  Free the set's arrays
static void
s_idset_fini (s_idset_t *set)
{
    free (set->keys);
    free (set->marks);
    memset (set, 0, sizeof *set);
}

//  Return the slot holding key, or the empty slot where it would go
static size_t
s_idset_find (s_idset_t *set, uint64_t key)
{
    size_t slot = s_hash (key) & set->mask;
    while (set->marks [slot] != S_EMPTY && set->keys [slot] != key)
        slot = (slot + 1) & set->mask;
    return slot;
}


//  ---------------------------------------------------------------------
//  Dispatching what the broker sends

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
    s_wait_t *wait = self->wait;
    size_t slot = s_idset_find (&wait->ids, done->task);
    if (wait->ids.marks [slot] == S_EMPTY)
        return false;
    if (wait->ids.marks [slot] == S_PENDING) {
        wait->ids.marks [slot] = S_DELIVERED;
        wait->delivered++;
        wait->progressed = true;
        if (wait->on_done) {
            self->in_handler = true;
            wait->on_done (done, wait->arg);
            self->in_handler = false;
        }
    }
    return true;            //  a duplicate: already delivered
}

//  Is seq one of the current wait's WAITs?
static bool
s_wait_seq (s_wait_t *wait, uint32_t seq)
{
    if (!wait || wait->seq_low == 0)
        return false;
    if (wait->seq_low <= wait->seq_high)
        return seq >= wait->seq_low && seq <= wait->seq_high;
    return seq >= wait->seq_low || seq <= wait->seq_high;      //  seq wrapped
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
        self->done_handler (done, self->done_arg);
        self->in_handler = false;
    }
    else
    if (done->seq == 0)
        s_keep_done (self);     //  a notify: someone may wait for it later
    else
        self->dropped++;        //  for an earlier wait, already answered
}

//  An async submit's reply arrived (ACCEPTED or ERROR)
static void
s_dispatch_ack (drover_client_t *self, s_slot_t *slot)
{
    drover_msg_t *reply = self->inbox;
    s_slot_t taken = *slot;
    slot->seq = 0;
    self->outstanding--;
    int code = DROVER_CODE_OK;
    const char *reason = NULL;
    if (reply->id == DROVER_MSG_ERROR) {
        code = reply->code;
        reason = reply->reason? reply->reason: "";
        s_set_error (self, code, "%s", reason);
    }
    if (self->ack_handler) {
        self->in_handler = true;
        self->ack_handler (taken.seq, taken.tag,
                           code == DROVER_CODE_OK? reply->task: 0,
                           code, reason, self->ack_arg);
        self->in_handler = false;
    }
}

//  Route the message in self->inbox to whoever waits for it
static void
s_dispatch (drover_client_t *self)
{
    drover_msg_t *msg = self->inbox;
    if (msg->id == DROVER_MSG_TASK_DONE) {
        s_dispatch_done (self);
        return;
    }
    if (msg->seq != 0 && msg->seq == self->awaited && !self->reply) {
        self->reply = msg;                  //  the synchronous request's answer
        self->inbox = drover_msg_new (0);
        return;
    }
    if ((msg->id == DROVER_MSG_TASK_ACCEPTED || msg->id == DROVER_MSG_ERROR)
    &&  msg->seq != 0 && self->outstanding) {
        s_slot_t *slot = &self->slots [msg->seq % self->window];
        if (slot->seq == msg->seq) {
            s_dispatch_ack (self, slot);
            return;
        }
    }
    if (s_wait_seq (self->wait, msg->seq)) {
        //  A 3xx (e.g. too many waiters) is retried by the next re-send
        if (msg->id == DROVER_MSG_ERROR && msg->code >= 400) {
            s_set_error (self, msg->code, "%s", msg->reason? msg->reason: "");
            self->wait->failed = true;
        }
        return;
    }
    self->dropped++;            //  a late reply to an abandoned request
}


//  ---------------------------------------------------------------------
//  Submitting

//  Build a TASK SUBMIT that runs argv
drover_msg_t *
drover_client_submit_msg (int argc, const char **argv)
{
    if (argc < 1 || !argv)
        return NULL;
    drover_exec_t *exec = drover_exec_new ();
    drover_msg_t *msg = NULL;
    size_t size = 0;
    byte *body = NULL;
    if (drover_exec_set_argv (exec, argc, argv) == 0)
        body = drover_exec_encode (exec, &size);
    if (body) {
        msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
        msg->procs = 1;
        drover_msg_set_body (msg, body, size);
        free (body);
    }
    drover_exec_destroy (&exec);
    return msg;
}

//  Submit a task and wait for its id
int
drover_client_submit (drover_client_t *self, drover_msg_t *submit, uint64_t *task_p)
{
    assert (self);
    assert (submit);
    drover_msg_t *reply = drover_client_request (self, submit);
    if (!reply)
        return -1;
    int rc = 0;
    if (reply->id == DROVER_MSG_TASK_ACCEPTED) {
        if (task_p)
            *task_p = reply->task;
    }
    else {
        s_set_error (self, DROVER_CLIENT_ERR_PROTOCOL, "broker answered %s to TASK SUBMIT",
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
    self->slots = (s_slot_t *) zmalloc (sizeof (s_slot_t) * window);
    self->window = window;
    return 0;
}

//  Handle replies until the slot is free; 0, or -1 if replies stopped
//  coming for the timeout or on interrupt
static int
s_wait_for_slot (drover_client_t *self, s_slot_t *slot)
{
    int64_t deadline = zclock_mono () + self->timeout;
    while (slot->seq) {
        uint64_t received = self->received;
        int rc = s_receive (self, s_left (deadline));
        if (rc == -1) {
            s_set_error (self, DROVER_CLIENT_ERR_INTERRUPTED, "interrupted");
            return -1;
        }
        if (self->received != received)
            deadline = zclock_mono () + self->timeout;      //  the broker is answering
        else
        if (s_left (deadline) == 0) {
            s_set_timeout_error (self);
            return -1;
        }
    }
    return 0;
}

//  Send a TASK SUBMIT without waiting for its reply
uint32_t
drover_client_submit_async (drover_client_t *self, drover_msg_t *submit, uintptr_t tag)
{
    assert (self);
    assert (submit);
    assert (!self->in_handler);
    uint32_t seq = s_next_seq (self);
    s_slot_t *slot = &self->slots [seq % self->window];
    if (slot->seq && s_wait_for_slot (self, slot))
        return 0;
    submit->seq = seq;
    if (s_send (self, submit))
        return 0;
    slot->seq = seq;
    slot->tag = tag;
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
    int64_t deadline = zclock_mono () + self->timeout;
    while (self->outstanding) {
        uint64_t received = self->received;
        if (s_receive (self, s_left (deadline)) == -1) {
            s_set_error (self, DROVER_CLIENT_ERR_INTERRUPTED, "interrupted");
            return -1;
        }
        if (self->received != received)
            deadline = zclock_mono () + self->timeout;
        else
        if (s_left (deadline) == 0) {
            s_set_error (self, DROVER_CLIENT_ERR_TIMEOUT,
                         "the broker at %s did not answer %zu submits within %d msec",
                         self->endpoint, self->outstanding, self->timeout);
            return -1;
        }
    }
    return 0;
}

//  Return how many async submits are outstanding
size_t
drover_client_outstanding (drover_client_t *self)
{
    assert (self);
    return self->outstanding;
}


//  ---------------------------------------------------------------------
//  Waiting

//  Send WAIT for every task still pending, in chunks of DROVER_WAIT_MAX.
//  Returns 0 or -1 with the error set.
static int
s_send_waits (drover_client_t *self, s_wait_t *wait)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_WAIT);
    size_t chunk = wait->total - wait->delivered;
    if (chunk > DROVER_WAIT_MAX)
        chunk = DROVER_WAIT_MAX;
    request->tasks = (uint64_t *) zmalloc (sizeof (uint64_t) * (chunk? chunk: 1));
    int rc = 0;
    size_t slot = 0;
    size_t capacity = wait->ids.mask + 1;
    while (rc == 0 && slot < capacity) {
        request->ntasks = 0;
        for (; slot < capacity && request->ntasks < chunk; slot++)
            if (wait->ids.marks [slot] == S_PENDING)
                request->tasks [request->ntasks++] = wait->ids.keys [slot];
        if (request->ntasks == 0)
            break;
        request->seq = s_next_seq (self);
        if (wait->seq_low == 0)
            wait->seq_low = request->seq;
        wait->seq_high = request->seq;
        rc = s_send (self, request);
    }
    drover_msg_destroy (&request);
    return rc;
}

//  Hand over the kept TASK DONEs the wait asks for
static void
s_take_kept (drover_client_t *self, s_wait_t *wait)
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
    s_wait_t wait = { .on_done = on_done, .arg = arg };
    s_idset_init (&wait.ids, count);
    for (size_t index = 0; index < count; index++) {
        size_t slot = s_idset_find (&wait.ids, tasks [index]);
        if (wait.ids.marks [slot] == S_EMPTY) {
            wait.ids.keys [slot] = tasks [index];
            wait.ids.marks [slot] = S_PENDING;
            wait.total++;
        }
    }
    self->wait = &wait;
    if (on_progress)
        on_progress (0, wait.total, arg);
    s_take_kept (self, &wait);

    int rc = 0;
    int interval = self->resend;            //  re-send after this much silence
    int64_t now = zclock_mono ();
    int64_t next_resend = now;              //  send the first WAIT at once
    int64_t unanswered_since = 0;           //  a WAIT went out and nothing came back
    int64_t next_progress = now + S_PROGRESS_EVERY;
    size_t shown = 0;                       //  delivered, as last told on_progress
    while (wait.delivered < wait.total) {
        now = zclock_mono ();
        if (wait.progressed) {
            wait.progressed = false;
            interval = self->resend;
            next_resend = now + interval;
        }
        if (on_progress && wait.delivered != shown && now >= next_progress) {
            on_progress (wait.delivered, wait.total, arg);
            shown = wait.delivered;
            next_progress = now + S_PROGRESS_EVERY;
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
        if (unanswered_since && now - unanswered_since >= self->timeout) {
            s_set_timeout_error (self);
            rc = -1;
            break;
        }
        int64_t until = next_resend;
        if (unanswered_since && unanswered_since + self->timeout < until)
            until = unanswered_since + self->timeout;
        if (on_progress && wait.delivered != shown && next_progress < until)
            until = next_progress;
        uint64_t received = self->received;
        if (s_receive (self, s_left (until)) == -1) {
            s_set_error (self, DROVER_CLIENT_ERR_INTERRUPTED, "interrupted");
            rc = -1;
            break;
        }
        if (self->received != received)
            unanswered_since = 0;           //  the broker is there
        if (wait.failed) {
            rc = -1;
            break;
        }
    }
    if (on_progress && wait.delivered != shown)
        on_progress (wait.delivered, wait.total, arg);
    self->wait = NULL;
    s_idset_fini (&wait.ids);
    return rc;
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
        s_set_error (self, DROVER_CLIENT_ERR_INVALID,
                     "'%.64s' is not a worker id (printable, no spaces, 1..64 bytes)", worker);
        return -1;
    }
    if (admin < 0 || admin > DROVER_ADMIN_MAX) {
        s_set_error (self, DROVER_CLIENT_ERR_INVALID, "no admin setting %d", admin);
        return -1;
    }
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (request->worker, worker);
    request->admin = (uint8_t) admin;
    int rc = s_request_ok (self, request);
    drover_msg_destroy (&request);
    return rc;
}

//  Return the reply if it is the expected table, else NULL with the error set
static drover_msg_t *
s_expect (drover_client_t *self, drover_msg_t *reply, int id, int request_id)
{
    if (reply && reply->id != id) {
        s_set_error (self, DROVER_CLIENT_ERR_PROTOCOL, "broker answered %s to %s",
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

//  Ask for task counts and rows
drover_msg_t *
drover_client_tasks (drover_client_t *self, int state, uint32_t limit)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->state = (uint8_t) state;
    request->limit = limit;
    drover_msg_t *reply = drover_client_request (self, request);
    drover_msg_destroy (&request);
    return s_expect (self, reply, DROVER_MSG_TASK_TABLE, DROVER_MSG_TASK_LIST);
}
