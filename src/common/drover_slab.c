/*  =========================================================================
    drover_slab - fixed-size records found by a uint64 key

    Records sit in one array grown by doubling (realloc: a large block is
    remapped, not copied, and its untouched tail costs no memory); handle h
    is record h, record 0 is never used. Deleted records form a free list
    chained through their key field. The index is an array of handles,
    open addressing with linear probing and backward-shift deletion, at
    most 70% full; a slot holds only the handle, the key is read from the
    record. Keys are hashed by Fibonacci hashing, which spreads sequential
    ids (task ids) evenly. When the last record goes, both arrays shrink
    back to their first size.
    =========================================================================
*/

#include "drover_slab.h"
#include "drover_zeroed.h"

//  Records and slots of a new or emptied pool
#define S_FIRST_RECORDS     64
#define S_FIRST_SLOTS       128
//  How far ahead of the slot it places the index's growth loads a record
#define S_AHEAD             16

struct _drover_slab_t {
    byte *records;              //  capacity records of record_size bytes
    size_t record_size;         //  bytes per record, a multiple of 8
    size_t capacity;            //  records allocated, record 0 included
    uint32_t high;              //  handles below this have been used
    uint32_t free_list;         //  first deleted handle, chained by key; 0 = none
    uint32_t *slots;            //  the index: handles, 0 = free slot
    size_t nslots;              //  slots, a power of two
    int shift;                  //  64 - log2 (nslots)
    size_t size;                //  records held
};

//  Give the pool its first, empty arrays
static void
s_start (drover_slab_t *self)
{
    self->capacity = S_FIRST_RECORDS;
    self->records = (byte *) malloc (self->capacity * self->record_size);
    assert (self->records);
    self->high = 1;
    self->free_list = 0;
    self->nslots = S_FIRST_SLOTS;
    self->shift = 64 - 7;
    self->slots = (uint32_t *) drover_zeroed_new (self->nslots * sizeof (uint32_t));
    self->size = 0;
}

//  Create an empty pool
drover_slab_t *
drover_slab_new (size_t record_size)
{
    assert (record_size >= sizeof (uint64_t) && record_size % 8 == 0);
    drover_slab_t *self = (drover_slab_t *) zmalloc (sizeof (drover_slab_t));
    self->record_size = record_size;
    s_start (self);
    return self;
}

//  Destroy the pool and every record in it
void
drover_slab_destroy (drover_slab_t **self_p)
{
    assert (self_p);
    drover_slab_t *self = *self_p;
    if (self) {
        free (self->records);
        free (self->slots);
        free (self);
        *self_p = NULL;
    }
}

//  Return the key of a record
static inline uint64_t
s_key (drover_slab_t *self, uint32_t handle)
{
    return *(uint64_t *) (self->records + (size_t) handle * self->record_size);
}

//  Home slot of a key
static inline size_t
s_home (drover_slab_t *self, uint64_t key)
{
    return (size_t) ((key * 0x9E3779B97F4A7C15ull) >> self->shift);
}

//  Put a handle in the first free slot from its key's home (there is one)
static void
s_place (drover_slab_t *self, uint32_t handle)
{
    size_t mask = self->nslots - 1;
    size_t slot = s_home (self, s_key (self, handle));
    while (self->slots [slot])
        slot = (slot + 1) & mask;
    self->slots [slot] = handle;
}

//  Double the index and place every handle again
static void
s_grow_index (drover_slab_t *self)
{
    uint32_t *slots = self->slots;
    size_t nslots = self->nslots;
    self->nslots *= 2;
    self->shift--;
    self->slots = (uint32_t *) drover_zeroed_new (self->nslots * sizeof (uint32_t));
    //  Each handle's record (its key) is a cache miss on a large pool:
    //  start loading it a few slots ahead
    for (size_t slot = 0; slot < nslots; slot++) {
        if (slot + S_AHEAD < nslots && slots [slot + S_AHEAD])
            __builtin_prefetch (self->records
                                + (size_t) slots [slot + S_AHEAD] * self->record_size);
        if (slots [slot])
            s_place (self, slots [slot]);
    }
    free (slots);
}

//  Add a zeroed record with this key, or return 0 if the key is held
uint32_t
drover_slab_insert (drover_slab_t *self, uint64_t key)
{
    assert (self);
    size_t mask = self->nslots - 1;
    size_t slot = s_home (self, key);
    for (; self->slots [slot]; slot = (slot + 1) & mask)
        if (s_key (self, self->slots [slot]) == key)
            return 0;           //  held already
    uint32_t handle = self->free_list;
    if (handle)
        self->free_list = (uint32_t) s_key (self, handle);
    else {
        assert (self->high < UINT32_MAX);
        if (self->high == self->capacity) {
            self->capacity *= 2;
            self->records = (byte *) realloc (self->records, self->capacity * self->record_size);
            assert (self->records);
        }
        handle = self->high++;
    }
    byte *record = self->records + (size_t) handle * self->record_size;
    memset (record, 0, self->record_size);
    *(uint64_t *) record = key;
    self->size++;
    if (self->size * 10 > self->nslots * 7) {
        s_grow_index (self);
        s_place (self, handle);
    }
    else
        self->slots [slot] = handle;
    return handle;
}

//  Start loading the index slot where a key's probe begins
void
drover_slab_prefetch (drover_slab_t *self, uint64_t key)
{
    assert (self);
    __builtin_prefetch (&self->slots [s_home (self, key)]);
}

//  Return the handle of the record with this key, or 0
uint32_t
drover_slab_find (drover_slab_t *self, uint64_t key)
{
    assert (self);
    size_t mask = self->nslots - 1;
    for (size_t slot = s_home (self, key); self->slots [slot]; slot = (slot + 1) & mask)
        if (s_key (self, self->slots [slot]) == key)
            return self->slots [slot];
    return 0;
}

//  Return the record behind a held handle
void *
drover_slab_get (drover_slab_t *self, uint32_t handle)
{
    assert (self);
    assert (handle > 0 && handle < self->high);
    return self->records + (size_t) handle * self->record_size;
}

//  Return the address of record 0
void *
drover_slab_base (drover_slab_t *self)
{
    assert (self);
    return self->records;
}

//  Delete the record behind a held handle
void
drover_slab_delete (drover_slab_t *self, uint32_t handle)
{
    assert (self);
    assert (handle > 0 && handle < self->high);
    size_t mask = self->nslots - 1;
    size_t hole = s_home (self, s_key (self, handle));
    while (self->slots [hole] != handle) {
        assert (self->slots [hole]);        //  a held handle is in the index
        hole = (hole + 1) & mask;
    }
    //  Backward shift: pull later entries of the run into the hole when
    //  their home slot is at or before it
    for (size_t next = (hole + 1) & mask; self->slots [next]; next = (next + 1) & mask) {
        size_t home = s_home (self, s_key (self, self->slots [next]));
        if (((next - home) & mask) >= ((next - hole) & mask)) {
            self->slots [hole] = self->slots [next];
            hole = next;
        }
    }
    self->slots [hole] = 0;
    *(uint64_t *) (self->records + (size_t) handle * self->record_size) = self->free_list;
    self->free_list = handle;
    if (--self->size == 0 && self->capacity > S_FIRST_RECORDS) {
        free (self->records);
        free (self->slots);
        s_start (self);         //  give a drained pool's memory back
    }
}

//  Return how many records are held
size_t
drover_slab_size (drover_slab_t *self)
{
    assert (self);
    return self->size;
}

//  Return the bytes of one record
size_t
drover_slab_record_size (drover_slab_t *self)
{
    assert (self);
    return self->record_size;
}

//  Return the bytes the pool has allocated
size_t
drover_slab_footprint (drover_slab_t *self)
{
    assert (self);
    return self->capacity * self->record_size + self->nslots * sizeof (uint32_t);
}
