/*  =========================================================================
    drover_ring - a growable FIFO of fixed-size items, oldest first

    The items sit in one circular array from head; when it is full, a push
    copies them in order into an array twice as large.
    =========================================================================
*/

#include "drover_ring.h"

struct _drover_ring_t {
    byte *data;                 //  capacity items
    size_t item;                //  bytes per item
    size_t capacity;            //  items allocated
    size_t head;                //  index of the oldest item
    size_t count;               //  items held
};

//  Create an empty ring of items of item_size bytes
drover_ring_t *
drover_ring_new (size_t item_size)
{
    assert (item_size > 0);
    drover_ring_t *self = (drover_ring_t *) zmalloc (sizeof (drover_ring_t));
    self->item = item_size;
    return self;
}

//  Destroy the ring and the items it holds; harmless on NULL
void
drover_ring_destroy (drover_ring_t **self_p)
{
    assert (self_p);
    drover_ring_t *self = *self_p;
    if (!self)
        return;
    free (self->data);
    free (self);
    *self_p = NULL;
}

//  Append an item, growing the ring (items stay in order)
void
drover_ring_push (drover_ring_t *self, const void *item)
{
    assert (self && item);
    if (self->count == self->capacity) {
        size_t capacity = self->capacity? self->capacity * 2: 64;
        byte *data = (byte *) zmalloc (capacity * self->item);
        for (size_t index = 0; index < self->count; index++)
            memcpy (data + index * self->item,
                    self->data + ((self->head + index) % self->capacity) * self->item, self->item);
        free (self->data);
        self->data = data;
        self->capacity = capacity;
        self->head = 0;
    }
    memcpy (self->data + ((self->head + self->count) % self->capacity) * self->item,
            item, self->item);
    self->count++;
}

//  Return the oldest item, or NULL if the ring is empty
void *
drover_ring_head (drover_ring_t *self)
{
    assert (self);
    return self->count? self->data + self->head * self->item: NULL;
}

//  Drop the oldest item
void
drover_ring_pop (drover_ring_t *self)
{
    assert (self && self->count);
    self->head = (self->head + 1) % self->capacity;
    self->count--;
}

//  Return the item at index from the oldest
void *
drover_ring_at (drover_ring_t *self, size_t index)
{
    assert (self && index < self->count);
    return self->data + ((self->head + index) % self->capacity) * self->item;
}

//  Return how many items the ring holds
size_t
drover_ring_size (drover_ring_t *self)
{
    assert (self);
    return self->count;
}
