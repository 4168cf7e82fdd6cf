/*  =========================================================================
    drover_handshake - watches a socket's handshakes with the broker (see
    drover_handshake.h)

    libzmq's monitor sends each event as two frames on an inproc PAIR: six
    bytes (the event, 16 bits, and its value, 32 bits, in host order) and
    the endpoint. Each monitor needs an inproc endpoint of its own: a
    process-wide counter names them.
    =========================================================================
*/

#include "drover_handshake.h"

//  The events we ask the monitor for
#define S_EVENTS    (ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL \
                   | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
//  ... and those that say the connection is down
#define S_DOWN      (ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_CONNECT_RETRIED)
//  Plain connections closed during their handshake, in a row with no
//  handshake between, that make a refusal: a broker going away closes one;
//  a CURVE-only broker closes each, often before its greeting names CURVE
#define S_CLOSES_REFUSED    3

struct _drover_handshake_t {
    zsock_t *watched;           //  the socket watched, borrowed
    zsock_t *monitor;           //  PAIR the monitor says its events on
    bool curve;                 //  the watched socket speaks CURVE
    char reason [256];          //  the last refusal in words, "" if none
    uint64_t refusals;          //  handshakes refused, ever
    int64_t down_since;         //  msec (mono) the connection began failing, 0 if not
    uint64_t connects;          //  handshakes that succeeded, ever
    uint32_t closes;            //  plain handshakes closed since the last success
    int outcome;                //  what the events taken since the last read say
};

//  Watch a socket's handshakes
drover_handshake_t *
drover_handshake_new (zsock_t *sock, bool curve)
{
    assert (sock);
    static uint32_t s_next = 0;     //  names monitors apart, process-wide
    uint32_t number = __atomic_add_fetch (&s_next, 1, __ATOMIC_RELAXED);
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "inproc://drover-handshake-%u", number);
    int rc = zmq_socket_monitor (zsock_resolve (sock), endpoint, S_EVENTS | S_DOWN);
    assert (rc == 0);
    drover_handshake_t *self = (drover_handshake_t *) zmalloc (sizeof (drover_handshake_t));
    self->watched = sock;
    self->curve = curve;
    self->monitor = zsock_new (ZMQ_PAIR);
    assert (self->monitor);
    zsock_set_linger (self->monitor, 0);
    rc = zsock_connect (self->monitor, "%s", endpoint);
    assert (rc == 0);
    return self;
}

//  Stop watching and destroy
void
drover_handshake_destroy (drover_handshake_t **self_p)
{
    assert (self_p);
    drover_handshake_t *self = *self_p;
    if (!self)
        return;
    zmq_socket_monitor (zsock_resolve (self->watched), NULL, 0);
    zsock_destroy (&self->monitor);
    free (self);
    *self_p = NULL;
}

//  Return the monitor's socket
zsock_t *
drover_handshake_sock (drover_handshake_t *self)
{
    assert (self);
    return self->monitor;
}

//  Take every event that has come, into self->outcome and the state
static void
s_take_events (drover_handshake_t *self)
{
    void *handle = zsock_resolve (self->monitor);
    while (true) {
        zmq_msg_t frame;
        zmq_msg_init (&frame);
        if (zmq_msg_recv (&frame, handle, ZMQ_DONTWAIT) == -1) {
            zmq_msg_close (&frame);
            break;
        }
        uint16_t event = 0;
        uint32_t value = 0;
        if (zmq_msg_size (&frame) >= 6) {
            memcpy (&event, zmq_msg_data (&frame), 2);
            memcpy (&value, (byte *) zmq_msg_data (&frame) + 2, 4);
        }
        while (zmq_msg_more (&frame)) {         //  the endpoint: not needed
            zmq_msg_close (&frame);
            zmq_msg_init (&frame);
            if (zmq_msg_recv (&frame, handle, ZMQ_DONTWAIT) == -1)
                break;
        }
        zmq_msg_close (&frame);
        if (event & S_DOWN) {
            if (!self->down_since)
                self->down_since = zclock_mono ();
        }
        else
        if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
            self->outcome = 1;
            self->connects++;
            self->closes = 0;
            self->down_since = 0;
        }
        else
        if (event == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL && !self->curve
        &&  ++self->closes < S_CLOSES_REFUSED)
            ;   //  a plain connection closed early (a broker going away): ZeroMQ retries
        else
        if (event & S_EVENTS) {
            drover_handshake_describe (event, value, self->curve, self->reason,
                                       sizeof self->reason);
            self->refusals++;
            self->outcome = -1;
        }
    }
}

//  Take every event that has come
int
drover_handshake_read (drover_handshake_t *self)
{
    assert (self);
    s_take_events (self);
    int outcome = self->outcome;
    self->outcome = 0;
    return outcome;
}

//  Tell whether events taken outside drover_handshake_read hold an outcome
bool
drover_handshake_pending (drover_handshake_t *self)
{
    assert (self);
    return self->outcome != 0;
}

//  Take the events that have come; true if the connection is up
bool
drover_handshake_up (drover_handshake_t *self)
{
    assert (self);
    s_take_events (self);
    return self->connects > 0 && self->down_since == 0;
}

//  Return how many handshakes succeeded since creation
uint64_t
drover_handshake_connects (drover_handshake_t *self)
{
    assert (self);
    return self->connects;
}

//  Return why the last refused handshake was refused
const char *
drover_handshake_reason (drover_handshake_t *self)
{
    assert (self);
    return self->reason;
}

//  Return since when the connection has been failing, 0 if it is not
int64_t
drover_handshake_down_since (drover_handshake_t *self)
{
    assert (self);
    return self->down_since;
}

//  Return the handshakes refused since creation
uint64_t
drover_handshake_refusals (drover_handshake_t *self)
{
    assert (self);
    return self->refusals;
}

//  Say in plain words why a handshake failed
void
drover_handshake_describe (int event, uint32_t value, bool curve, char *buffer, size_t size)
{
    const char *whom = curve? "this key": "this connection";
    if (event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
        snprintf (buffer, size, "the broker refused %s (authentication status %u: %s)", whom,
                  value, curve? "the key is not among those the broker accepts, or was revoked"
                              : "it accepts CURVE connections only");
    else
    if (event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
    &&  value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH)
        snprintf (buffer, size, "the broker refused %s (%s)", whom,
                  curve? "the broker does not speak CURVE: drop the key, or turn CURVE on at "
                         "the broker"
                       : "the broker speaks CURVE only: give a key pair and the broker's "
                         "public key (--key and --server-key)");
    else
    if (event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL)
        snprintf (buffer, size, "the broker refused %s (handshake protocol error 0x%x%s)", whom,
                  value, curve? ": is the server key the broker's public key?": "");
    else
        snprintf (buffer, size, "the broker refused %s (the connection closed during the "
                  "handshake%s)", whom,
                  curve? ": is the server key the broker's public key, and this key one it "
                         "accepts?"
                       : ": does the broker want CURVE keys?");
}
