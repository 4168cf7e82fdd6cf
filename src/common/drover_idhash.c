/*  =========================================================================
    drover_idhash - items found by a uint64 id, in an open-addressing hash

    Ids are mostly sequential, so Fibonacci hashing spreads them evenly;
    a deletion pulls later entries of the run back into the hole instead
    of leaving tombstones.
    =========================================================================
*/

#include "drover_idhash.h"
#include "drover_zeroed.h"

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
    self->slots = (void **) drover_zeroed_new (self->capacity * sizeof (void *));
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

//  How far ahead of the slot it places the grow loop starts loading an
//  item (its id gives the new slot), and that new slot: each a cache miss
//  on a large hash, overlapped this way
#define S_AHEAD_ITEM    16
#define S_AHEAD_SLOT    8

//  Double the slots and place every item again
static void
s_grow (drover_idhash_t *self)
{
    void **slots = self->slots;
    size_t capacity = self->capacity;
    self->capacity *= 2;
    self->shift--;
    self->slots = (void **) drover_zeroed_new (self->capacity * sizeof (void *));
    for (size_t index = 0; index < capacity; index++) {
        if (index + S_AHEAD_ITEM < capacity && slots [index + S_AHEAD_ITEM])
            __builtin_prefetch (slots [index + S_AHEAD_ITEM]);
        if (index + S_AHEAD_SLOT < capacity && slots [index + S_AHEAD_SLOT])
            __builtin_prefetch (&self->slots [s_home (self, s_id (slots [index + S_AHEAD_SLOT]))],
                                1);
        if (slots [index])
            s_place (self, slots [index]);
    }
    free (slots);
}

//  Add an item, doubling the slots past 70% load
void
drover_idhash_insert (drover_idhash_t *self, void *item)
{
    assert (self && item);
    if ((self->size + 1) * 10 > self->capacity * 7)
        s_grow (self);
    s_place (self, item);
    self->size++;
}

//  Start loading the slot where an id's probe begins
void
drover_idhash_prefetch (drover_idhash_t *self, uint64_t id)
{
    assert (self);
    __builtin_prefetch (&self->slots [s_home (self, id)]);
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

//  Order items newest (highest id) first
static int
s_newest_first (const void *left, const void *right)
{
    uint64_t left_id = s_id (*(void * const *) left);
    uint64_t right_id = s_id (*(void * const *) right);
    return left_id < right_id? 1: left_id > right_id? -1: 0;
}

//  Keep the newest `limit` items in a min-heap on id (heap [0] oldest)
static void
s_heap_offer (void **heap, size_t *count_p, size_t limit, void *item)
{
    size_t count = *count_p;
    size_t index;
    if (count < limit) {
        index = count++;
        while (index && s_id (heap [(index - 1) / 2]) > s_id (item)) {
            heap [index] = heap [(index - 1) / 2];
            index = (index - 1) / 2;
        }
        heap [index] = item;
        *count_p = count;
        return;
    }
    if (s_id (item) < s_id (heap [0]))
        return;                 //  older than all we keep
    index = 0;
    while (true) {
        size_t child = 2 * index + 1;
        if (child >= count)
            break;
        if (child + 1 < count && s_id (heap [child + 1]) < s_id (heap [child]))
            child++;
        if (s_id (heap [child]) >= s_id (item))
            break;
        heap [index] = heap [child];
        index = child;
    }
    heap [index] = item;
}

//  Fill items with up to limit wanted items, newest first
size_t
drover_idhash_newest (drover_idhash_t *self, void **items, size_t limit,
                      drover_idhash_filter_fn *filter, void *arg)
{
    assert (self && filter);
    assert (items || limit == 0);
    if (limit == 0)
        return 0;
    size_t count = 0;
    for (size_t slot = 0; slot < self->capacity; slot++)
        if (self->slots [slot] && filter (self->slots [slot], arg))
            s_heap_offer (items, &count, limit, self->slots [slot]);
    qsort (items, count, sizeof (void *), s_newest_first);
    return count;
}

//  Sift an item down from the top of a heap of count items kept with the
//  last in order on top
static void
s_sift_down (void **heap, size_t count, void *item, drover_idhash_order_fn *order)
{
    size_t index = 0;
    while (true) {
        size_t child = 2 * index + 1;
        if (child >= count)
            break;
        if (child + 1 < count && order (heap [child + 1], heap [child]) > 0)
            child++;
        if (order (heap [child], item) <= 0)
            break;
        heap [index] = heap [child];
        index = child;
    }
    heap [index] = item;
}

//  Fill items with up to limit wanted items, the first in order first
size_t
drover_idhash_first (drover_idhash_t *self, void **items, size_t limit,
                     drover_idhash_filter_fn *filter, void *arg, drover_idhash_order_fn *order)
{
    assert (self && filter && order);
    assert (items || limit == 0);
    if (limit == 0)
        return 0;
    //  A heap of the first `limit` so far, the last of them on top
    size_t count = 0;
    for (size_t slot = 0; slot < self->capacity; slot++) {
        void *item = self->slots [slot];
        if (!item || !filter (item, arg))
            continue;
        if (count < limit) {
            size_t index = count++;
            while (index && order (items [(index - 1) / 2], item) < 0) {
                items [index] = items [(index - 1) / 2];
                index = (index - 1) / 2;
            }
            items [index] = item;
        }
        else
        if (order (item, items [0]) < 0)
            s_sift_down (items, count, item, order);
    }
    //  Heapsort: the last in order goes to the end, and so on
    for (size_t end = count; end > 1; end--) {
        void *last = items [end - 1];
        items [end - 1] = items [0];
        s_sift_down (items, end - 1, last, order);
    }
    return count;
}
