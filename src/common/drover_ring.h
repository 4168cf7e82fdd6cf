/*  =========================================================================
    drover_ring - a growable FIFO of fixed-size items, oldest first

    Made for long queues of small records kept in order of arrival (the
    task table's ack deadlines and finished task ids): one array, no
    allocation per item, doubling when full. Items are copied in; a pointer
    from drover_ring_head or drover_ring_at is valid until the next push.
    A plain class: no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_RING_H_INCLUDED
#define DROVER_RING_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_ring_t drover_ring_t;

//  Create an empty ring of items of item_size bytes (> 0)
drover_ring_t *
    drover_ring_new (size_t item_size);

//  Destroy the ring and the items it holds; harmless on NULL
void
    drover_ring_destroy (drover_ring_t **self_p);

//  Append a copy of an item, growing the ring (items stay in order)
void
    drover_ring_push (drover_ring_t *self, const void *item);

//  Return the oldest item, or NULL if the ring is empty
void *
    drover_ring_head (drover_ring_t *self);

//  Drop the oldest item; the ring must not be empty
void
    drover_ring_pop (drover_ring_t *self);

//  Return the item at index, 0 being the oldest; index < size
void *
    drover_ring_at (drover_ring_t *self, size_t index);

//  Return how many items the ring holds
size_t
    drover_ring_size (drover_ring_t *self);

#ifdef __cplusplus
}
#endif

#endif
