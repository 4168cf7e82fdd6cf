/*  =========================================================================
    drover_idheap - a binary heap of drover_slab handles

    The records may move whenever their pool grows, so the heap keeps
    handles and takes the pool's base address afresh at the start of each
    operation; inside one, a record is base + handle * record_size.
    =========================================================================
*/

#include "drover_idheap.h"

//  Elements allocated at first
#define S_FIRST_CAPACITY    64

struct _drover_idheap_t {
    uint32_t *items;            //  the heap array, handles
    size_t size;                //  elements in use
    size_t capacity;            //  elements allocated
    drover_slab_t *pool;      //  where the records are (borrowed)
    size_t record_size;         //  bytes per record in the pool
    drover_idheap_less_fn *less;    //  ordering
    size_t offset;              //  offset of the uint32_t index in a record
};

//  Create an empty heap over a pool's records
drover_idheap_t *
drover_idheap_new (drover_slab_t *pool, drover_idheap_less_fn *less, size_t offset)
{
    assert (pool && less);
    drover_idheap_t *self = (drover_idheap_t *) zmalloc (sizeof (drover_idheap_t));
    self->pool = pool;
    self->record_size = drover_slab_record_size (pool);
    assert (offset + sizeof (uint32_t) <= self->record_size);
    self->less = less;
    self->offset = offset;
    return self;
}

//  Destroy the heap
void
drover_idheap_destroy (drover_idheap_t **self_p)
{
    assert (self_p);
    drover_idheap_t *self = *self_p;
    if (self) {
        free (self->items);
        free (self);
        *self_p = NULL;
    }
}

//  Return a record from the pool's base address
static inline void *
s_record (drover_idheap_t *self, byte *base, uint32_t handle)
{
    return base + (size_t) handle * self->record_size;
}

//  Return the index field of a record
static inline uint32_t *
s_index (drover_idheap_t *self, byte *base, uint32_t handle)
{
    return (uint32_t *) ((byte *) s_record (self, base, handle) + self->offset);
}

//  Put a handle at index and tell its record where it is
static inline void
s_place (drover_idheap_t *self, byte *base, size_t index, uint32_t handle)
{
    self->items [index] = handle;
    *s_index (self, base, handle) = (uint32_t) index;
}

//  Move the element at index up until its parent comes before it
static size_t
s_up (drover_idheap_t *self, byte *base, size_t index)
{
    uint32_t handle = self->items [index];
    void *item = s_record (self, base, handle);
    while (index > 0) {
        size_t parent = (index - 1) / 2;
        if (!self->less (item, s_record (self, base, self->items [parent])))
            break;
        s_place (self, base, index, self->items [parent]);
        index = parent;
    }
    s_place (self, base, index, handle);
    return index;
}

//  Move the element at index down until its children come after it
static void
s_down (drover_idheap_t *self, byte *base, size_t index)
{
    uint32_t handle = self->items [index];
    void *item = s_record (self, base, handle);
    while (true) {
        size_t child = 2 * index + 1;
        if (child >= self->size)
            break;
        if (child + 1 < self->size
        &&  self->less (s_record (self, base, self->items [child + 1]),
                        s_record (self, base, self->items [child])))
            child++;
        if (!self->less (s_record (self, base, self->items [child]), item))
            break;
        s_place (self, base, index, self->items [child]);
        index = child;
    }
    s_place (self, base, index, handle);
}

//  Add a record that is in no heap
void
drover_idheap_push (drover_idheap_t *self, uint32_t handle)
{
    assert (self && handle);
    if (self->size == self->capacity) {
        self->capacity = self->capacity? self->capacity * 2: S_FIRST_CAPACITY;
        assert (self->capacity < UINT32_MAX);
        self->items = (uint32_t *) realloc (self->items, self->capacity * sizeof (uint32_t));
        assert (self->items);
    }
    byte *base = (byte *) drover_slab_base (self->pool);
    s_place (self, base, self->size++, handle);
    s_up (self, base, self->size - 1);
}

//  Remove a record from wherever it is
void
drover_idheap_remove (drover_idheap_t *self, uint32_t handle)
{
    assert (self && handle);
    byte *base = (byte *) drover_slab_base (self->pool);
    size_t index = *s_index (self, base, handle);
    assert (index < self->size && self->items [index] == handle);
    uint32_t last = self->items [--self->size];
    if (index < self->size) {
        s_place (self, base, index, last);
        if (s_up (self, base, index) == index)
            s_down (self, base, index);
    }
    *s_index (self, base, handle) = DROVER_IDHEAP_NOWHERE;
    if (self->size == 0 && self->capacity > S_FIRST_CAPACITY) {
        free (self->items);     //  give a drained heap's memory back
        self->items = NULL;
        self->capacity = 0;
    }
}

//  Restore the order around a record whose key changed
void
drover_idheap_fix (drover_idheap_t *self, uint32_t handle)
{
    assert (self && handle);
    byte *base = (byte *) drover_slab_base (self->pool);
    size_t index = *s_index (self, base, handle);
    assert (index < self->size && self->items [index] == handle);
    if (s_up (self, base, index) == index)
        s_down (self, base, index);
}

//  Return the first record's handle, or 0
uint32_t
drover_idheap_top (drover_idheap_t *self)
{
    assert (self);
    return self->size? self->items [0]: 0;
}

//  Return the handle at an index
uint32_t
drover_idheap_at (drover_idheap_t *self, size_t index)
{
    assert (self);
    assert (index < self->size);
    return self->items [index];
}

//  Return how many records are in the heap
size_t
drover_idheap_size (drover_idheap_t *self)
{
    assert (self);
    return self->size;
}
