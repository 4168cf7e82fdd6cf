/*  =========================================================================
    drover_idhash - items found by a uint64 id, in an open-addressing hash

    Ids are mostly sequential, so Fibonacci hashing spreads them evenly;
    a deletion pulls later entries of the run back into the hole instead
    of leaving tombstones.
    =========================================================================
*/

#include "drover_idhash.h"

struct _drover_idhash_t {
    void **slots;               //  items, each beginning with its id; NULL is free
    size_t capacity;            //  slots, a power of two
    int shift;                  //  64 - log2 (capacity)
    size_t size;                //  items held
};

//  The id an item begins with
#define s_id(item)  (*(const uint64_t *) (item))

//  Create an empty hash
drover_idhash_t *
drover_idhash_new (void)
{
    drover_idhash_t *self = (drover_idhash_t *) zmalloc (sizeof (drover_idhash_t));
    self->capacity = 1024;
    self->shift = 64 - 10;
    self->slots = (void **) zmalloc (self->capacity * sizeof (void *));
    return self;
}

//  Destroy the hash (not its items); harmless on NULL
void
drover_idhash_destroy (drover_idhash_t **self_p)
{
    assert (self_p);
    drover_idhash_t *self = *self_p;
    if (!self)
        return;
    free (self->slots);
    free (self);
    *self_p = NULL;
}

//  Home slot of an id (Fibonacci hashing: ids are sequential)
static size_t
s_home (drover_idhash_t *self, uint64_t id)
{
    return (size_t) ((id * 0x9E3779B97F4A7C15ull) >> self->shift);
}

//  Find an item by id, or NULL
void *
drover_idhash_lookup (drover_idhash_t *self, uint64_t id)
{
    assert (self);
    size_t mask = self->capacity - 1;
    for (size_t slot = s_home (self, id); self->slots [slot]; slot = (slot + 1) & mask)
        if (s_id (self->slots [slot]) == id)
            return self->slots [slot];
    return NULL;
}

//  Put an item in its slot (the hash has room)
static void
s_place (drover_idhash_t *self, void *item)
{
    size_t mask = self->capacity - 1;
    size_t slot = s_home (self, s_id (item));
    while (self->slots [slot])
        slot = (slot + 1) & mask;
    self->slots [slot] = item;
}

//  Add an item, doubling the slots past 70% load
void
drover_idhash_insert (drover_idhash_t *self, void *item)
{
    assert (self && item);
    if ((self->size + 1) * 10 > self->capacity * 7) {
        void **slots = self->slots;
        size_t capacity = self->capacity;
        self->capacity *= 2;
        self->shift--;
        self->slots = (void **) zmalloc (self->capacity * sizeof (void *));
        for (size_t index = 0; index < capacity; index++)
            if (slots [index])
                s_place (self, slots [index]);
        free (slots);
    }
    s_place (self, item);
    self->size++;
}

//  Remove an item the hash holds
void
drover_idhash_delete (drover_idhash_t *self, void *item)
{
    assert (self && item);
    size_t mask = self->capacity - 1;
    size_t hole = s_home (self, s_id (item));
    while (self->slots [hole] != item) {
        assert (self->slots [hole]);    //  the item must be held
        hole = (hole + 1) & mask;
    }
    //  Backward shift: pull later entries of the run into the hole when
    //  their home slot is at or before it
    for (size_t next = (hole + 1) & mask; self->slots [next]; next = (next + 1) & mask) {
        size_t home = s_home (self, s_id (self->slots [next]));
        if (((next - home) & mask) >= ((next - hole) & mask)) {
            self->slots [hole] = self->slots [next];
            hole = next;
        }
    }
    self->slots [hole] = NULL;
    self->size--;
}

//  Return how many items the hash holds
size_t
drover_idhash_size (drover_idhash_t *self)
{
    assert (self);
    return self->size;
}

//  Return how many slots there are
size_t
drover_idhash_slots (drover_idhash_t *self)
{
    assert (self);
    return self->capacity;
}

//  Return the item in a slot, or NULL
void *
drover_idhash_slot (drover_idhash_t *self, size_t index)
{
    assert (self && index < self->capacity);
    return self->slots [index];
}
