/*  =========================================================================
    drover_handshakelog - the handshakes the broker refuses before ZAP is
    asked, told to its log (see the header)

    Addresses are kept by descriptor from the accept to the close. A
    failure waits for the close that follows it: libzmq reports both from
    the connection's I/O thread, one right after the other.
    =========================================================================
*/

#include "drover_handshakelog.h"
#include "drover_refusals.h"
#include <errno.h>

//  Our value for a handshake the peer broke off (NO_DETAIL, EPIPE or
//  ECONNRESET): no ZMQ_PROTOCOL_ERROR_* has it
#define S_BROKEN_OFF    1

struct _drover_handshakelog_t {
    bool secure;                //  the broker speaks CURVE
    zhashx_t *addresses;        //  "fd" -> address text, owned
    bool pending;               //  a failure waits for its close
    uint32_t value;             //  its ZMQ_PROTOCOL_ERROR_*
    char endpoint [256];        //  the broker's endpoint it was on
    drover_refusals_t *refusals;    //  which to log
    uint64_t refused;           //  handshakes refused
};


//  Create
drover_handshakelog_t *
drover_handshakelog_new (bool secure)
{
    drover_handshakelog_t *self =
        (drover_handshakelog_t *) zmalloc (sizeof (drover_handshakelog_t));
    self->secure = secure;
    self->addresses = zhashx_new ();
    zhashx_set_destructor (self->addresses, (zhashx_destructor_fn *) zstr_free);
    zhashx_set_duplicator (self->addresses, (zhashx_duplicator_fn *) strdup);
    self->refusals = drover_refusals_new ();
    return self;
}

//  Destroy
void
drover_handshakelog_destroy (drover_handshakelog_t **self_p)
{
    assert (self_p);
    drover_handshakelog_t *self = *self_p;
    if (!self)
        return;
    zhashx_destroy (&self->addresses);
    drover_refusals_destroy (&self->refusals);
    free (self);
    *self_p = NULL;
}

//  A connection was accepted
void
drover_handshakelog_accepted (drover_handshakelog_t *self, int fd, const char *address)
{
    assert (self);
    char key [16];
    snprintf (key, sizeof key, "%d", fd);
    if (address)
        zhashx_update (self->addresses, key, (void *) address);
    else
        zhashx_delete (self->addresses, key);
}

//  A handshake failed
void
drover_handshakelog_failed (drover_handshakelog_t *self, int event, uint32_t value,
                            const char *endpoint)
{
    assert (self);
    //  A peer that breaks the connection off during a CURVE handshake: a
    //  peer without a key does when it sees the broker's mechanism, and
    //  the broker's next write or read fails (its greeting, the peer's
    //  bytes dropped by the reset) before it saw the mismatch itself
    bool broken_off = event == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL && self->secure
                   && (value == EPIPE || value == ECONNRESET);
    if (event != ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL && !broken_off)
        return;
    self->pending = true;
    self->value = broken_off? S_BROKEN_OFF: value;
    snprintf (self->endpoint, sizeof self->endpoint, "%s", endpoint? endpoint: "?");
}

//  A connection closed
void
drover_handshakelog_closed (drover_handshakelog_t *self, int fd, int64_t now)
{
    assert (self);
    char key [16];
    snprintf (key, sizeof key, "%d", fd);
    if (self->pending) {
        self->pending = false;
        self->refused++;
        const char *address = (const char *) zhashx_lookup (self->addresses, key);
        const char *why = drover_handshakelog_why (self->value, self->secure);
        char subject [512];
        snprintf (subject, sizeof subject, "%s %s %s", self->endpoint, address? address: "?",
                  why);
        uint64_t held = 0;
        if (drover_refusals_due (self->refusals, subject, now, &held))
            zsys_warning ("guard: refused a handshake on endpoint=%s from address=%s: %s "
                          "held=%" PRIu64, self->endpoint, address? address: "?", why, held);
    }
    zhashx_delete (self->addresses, key);
}

//  Return the handshakes refused so far
uint64_t
drover_handshakelog_refused (drover_handshakelog_t *self)
{
    assert (self);
    return self->refused;
}

//  Say why a handshake failed
const char *
drover_handshakelog_why (uint32_t value, bool secure)
{
    if (value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH)
        return secure? "the peer does not speak CURVE (it has no key: give it --key and "
                       "--server-key)"
                     : "the peer speaks CURVE, this broker does not (no security/key)";
    if (value == S_BROKEN_OFF)
        return "the peer broke the handshake off (a peer without a key does, as soon as it "
               "sees the broker speaks CURVE: give it --key and --server-key; so does one "
               "that gave up)";
    if (value == ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC)
        return "the peer's server key is not this broker's public key (or its handshake "
               "was corrupt)";
    if (value >= ZMQ_PROTOCOL_ERROR_ZMTP_UNSPECIFIED && value < ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC)
        return "the peer broke the ZMTP handshake (not a ZeroMQ peer, or a broken one)";
    return "a protocol error in the handshake";
}
