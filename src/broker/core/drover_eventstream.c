/*  =========================================================================
    drover_eventstream - the broker's event stream: an XPUB, who listens
    to it, and publishing an event (with CURVE, also its owner's copy)
    =========================================================================
*/

#include "drover_eventstream.h"
#include "drover_msg.h"

struct _drover_eventstream_t {
    zsock_t *publisher;         //  the XPUB: we see subscriptions
    drover_guard_t *guard;      //  applies them by key; borrowed
    int64_t subscriptions;      //  subscriptions less unsubscriptions; 0: events are off
};

//  Create the stream's XPUB
drover_eventstream_t *
drover_eventstream_new (drover_guard_t *guard, uint32_t hwm, int handshake)
{
    assert (guard);
    drover_eventstream_t *self = (drover_eventstream_t *) zmalloc (sizeof (drover_eventstream_t));
    self->guard = guard;
    self->publisher = zsock_new (ZMQ_XPUB);
    zsock_set_sndhwm (self->publisher, (int) hwm);
    zsock_set_linger (self->publisher, 0);
    drover_guard_apply (guard, self->publisher, handshake);
    return self;
}

//  Destroy the stream
void
drover_eventstream_destroy (drover_eventstream_t **self_p)
{
    assert (self_p);
    drover_eventstream_t *self = *self_p;
    if (self) {
        zsock_destroy (&self->publisher);
        free (self);
        *self_p = NULL;
    }
}

//  The XPUB
zsock_t *
drover_eventstream_sock (drover_eventstream_t *self)
{
    assert (self);
    return self->publisher;
}

//  Read and apply the waiting subscriptions
bool
drover_eventstream_read (drover_eventstream_t *self)
{
    assert (self);
    bool before = self->subscriptions > 0;
    zmq_msg_t frame;
    zmq_msg_init (&frame);
    while (zmq_msg_recv (&frame, zsock_resolve (self->publisher), ZMQ_DONTWAIT) != -1) {
        int counted = drover_guard_subscribe (self->guard, self->publisher, &frame);
        if (counted > 0 || self->subscriptions > 0)
            self->subscriptions += counted;
    }
    zmq_msg_close (&frame);
    return before != (self->subscriptions > 0);
}

//  Tell whether anyone subscribes
bool
drover_eventstream_on (drover_eventstream_t *self)
{
    assert (self);
    return self->subscriptions > 0;
}

//  Publish an event, and its owner's copy
void
drover_eventstream_publish (drover_eventstream_t *self, const char *topic, zframe_t **body_p,
                            const char *owner)
{
    assert (self && topic && body_p && *body_p && owner);
    char buffer [DROVER_ID_MAX + 64];
    const char *copy = drover_guard_owner_topic (self->guard, topic, owner, buffer,
                                                 sizeof buffer);
    if (copy) {
        zstr_sendm (self->publisher, copy);
        zframe_t *duplicate = zframe_dup (*body_p);
        zframe_send (&duplicate, self->publisher, ZFRAME_DONTWAIT);
        zframe_destroy (&duplicate);
    }
    zstr_sendm (self->publisher, topic);
    zframe_send (body_p, self->publisher, ZFRAME_DONTWAIT);
    zframe_destroy (body_p);
}
