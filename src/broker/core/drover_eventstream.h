/*  =========================================================================
    drover_eventstream - the broker's event stream: an XPUB, who listens
    to it, and publishing an event (with CURVE, also its owner's copy)

    The main owns one and calls it from its loop: the XPUB tells of every
    subscription, which the guard applies by the subscriber's key (with
    CURVE) and which are counted, so that the actors say no events while
    nobody listens. A plain class over one socket; the main polls it.
    =========================================================================
*/

#ifndef DROVER_EVENTSTREAM_H_INCLUDED
#define DROVER_EVENTSTREAM_H_INCLUDED

#include <czmq.h>
#include "drover_guard.h"

typedef struct _drover_eventstream_t drover_eventstream_t;

//  Create the stream's XPUB (not bound yet): hwm events queued per
//  subscriber, secured by guard (borrowed, it must outlive the stream)
drover_eventstream_t *
    drover_eventstream_new (drover_guard_t *guard, uint32_t hwm, int handshake);

//  Destroy the stream and its socket; harmless on NULL
void
    drover_eventstream_destroy (drover_eventstream_t **self_p);

//  The XPUB, to bind, poll and watch
zsock_t *
    drover_eventstream_sock (drover_eventstream_t *self);

//  Read the subscriptions waiting on the XPUB and apply them. Returns true
//  if the stream went from no subscriber to some, or back
bool
    drover_eventstream_read (drover_eventstream_t *self);

//  Tell whether anyone subscribes
bool
    drover_eventstream_on (drover_eventstream_t *self);

//  Publish an event: topic and body, and with CURVE a copy of it for its
//  owner (owner "" for none). Takes the body.
void
    drover_eventstream_publish (drover_eventstream_t *self, const char *topic,
                                zframe_t **body_p, const char *owner);

#endif
