/*  =========================================================================
    drover_waitset - the tasks one client wait waits for

    The seq range is the first and the last TASK WAIT sent: a wait sends
    its WAITs one after another, so the range holds them all, even when
    the seq wraps past 2^32-1 (then the range wraps too).
    =========================================================================
*/

#include "drover_waitset.h"

#define S_EMPTY     0
#define S_PENDING   1
#define S_DELIVERED 2

struct _drover_waitset_t {
    uint64_t *keys;                 //  task ids
    uint8_t *marks;                 //  S_EMPTY, S_PENDING or S_DELIVERED per slot
    size_t mask;                    //  capacity - 1 (capacity a power of two)
    size_t total;                   //  distinct tasks
    size_t delivered;               //  tasks marked delivered
    uint32_t seq_low;               //  first seq of the WAITs sent, 0 = none yet
    uint32_t seq_high;              //  last seq of the WAITs sent
};

//  Mix a task id into a slot number (splitmix64's finaliser)
static size_t
s_hash (uint64_t key)
{
    key ^= key >> 30;
    key *= 0xbf58476d1ce4e5b9ULL;
    key ^= key >> 27;
    key *= 0x94d049bb133111ebULL;
    key ^= key >> 31;
    return (size_t) key;
}

//  Return the slot holding key, or the empty slot where it would go
static size_t
s_find (drover_waitset_t *self, uint64_t key)
{
    size_t slot = s_hash (key) & self->mask;
    while (self->marks [slot] != S_EMPTY && self->keys [slot] != key)
        slot = (slot + 1) & self->mask;
    return slot;
}


//  --------------------------------------------------------------------------
//  Create a set of the count tasks, sized to be at most half full

drover_waitset_t *
drover_waitset_new (const uint64_t *tasks, size_t count)
{
    drover_waitset_t *self = (drover_waitset_t *) zmalloc (sizeof (drover_waitset_t));
    size_t capacity = 16;
    while (capacity < count * 2)
        capacity *= 2;
    self->keys = (uint64_t *) zmalloc (sizeof (uint64_t) * capacity);
    self->marks = (uint8_t *) zmalloc (capacity);
    self->mask = capacity - 1;
    for (size_t index = 0; index < count; index++) {
        size_t slot = s_find (self, tasks [index]);
        if (self->marks [slot] == S_EMPTY) {
            self->keys [slot] = tasks [index];
            self->marks [slot] = S_PENDING;
            self->total++;
        }
    }
    return self;
}


//  --------------------------------------------------------------------------
//  Destroy a set

void
drover_waitset_destroy (drover_waitset_t **self_p)
{
    assert (self_p);
    drover_waitset_t *self = *self_p;
    if (!self)
        return;
    free (self->keys);
    free (self->marks);
    free (self);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Return the number of distinct tasks

size_t
drover_waitset_total (drover_waitset_t *self)
{
    assert (self);
    return self->total;
}


//  --------------------------------------------------------------------------
//  Return the number of tasks delivered

size_t
drover_waitset_delivered (drover_waitset_t *self)
{
    assert (self);
    return self->delivered;
}


//  --------------------------------------------------------------------------
//  Mark task delivered: 1 now, 0 before, -1 not in the set

int
drover_waitset_deliver (drover_waitset_t *self, uint64_t task)
{
    assert (self);
    size_t slot = s_find (self, task);
    if (self->marks [slot] == S_EMPTY)
        return -1;
    if (self->marks [slot] == S_DELIVERED)
        return 0;
    self->marks [slot] = S_DELIVERED;
    self->delivered++;
    return 1;
}


//  --------------------------------------------------------------------------
//  Copy up to max pending tasks, going on from *cursor

size_t
drover_waitset_pending (drover_waitset_t *self, size_t *cursor,
                        uint64_t *tasks, size_t max)
{
    assert (self);
    assert (cursor);
    size_t count = 0;
    size_t capacity = self->mask + 1;
    for (; *cursor < capacity && count < max; (*cursor)++)
        if (self->marks [*cursor] == S_PENDING)
            tasks [count++] = self->keys [*cursor];
    return count;
}


//  --------------------------------------------------------------------------
//  Note that a TASK WAIT for this set went under seq

void
drover_waitset_sent (drover_waitset_t *self, uint32_t seq)
{
    assert (self);
    if (self->seq_low == 0)
        self->seq_low = seq;
    self->seq_high = seq;
}


//  --------------------------------------------------------------------------
//  Return true if seq is one of this set's TASK WAITs

bool
drover_waitset_owns (drover_waitset_t *self, uint32_t seq)
{
    assert (self);
    if (self->seq_low == 0)
        return false;
    if (self->seq_low <= self->seq_high)
        return seq >= self->seq_low && seq <= self->seq_high;
    return seq >= self->seq_low || seq <= self->seq_high;      //  seq wrapped
}
