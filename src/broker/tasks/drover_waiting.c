/*  =========================================================================
    drover_waiting - the tasks held back from the queue, and why

    Holds by id in a drover_idhash; timed ones also in a binary min-heap
    of (due, id) pairs, kept as an array. A heap entry whose task is no
    longer held with that due is stale: dropped when it reaches the top.
    =========================================================================
*/

#include "drover_waiting.h"
#include "drover_idhash.h"

//  One task held back
typedef struct {
    uint64_t id;                //  the task (first: drover_idhash)
    int64_t due;                //  wall msec since the epoch it is due, 0 untimed
    uint8_t cause;              //  drover_waits_t
} s_hold_t;

//  One heap entry
typedef struct {
    int64_t due;                //  when
    uint64_t id;                //  which task
} s_timer_t;

struct _drover_waiting_t {
    drover_idhash_t *holds;     //  id -> s_hold_t
    s_timer_t *heap;            //  min-heap by due, owned
    size_t size;                //  entries in heap
    size_t capacity;            //  room in heap
    size_t counts [DROVER_WAITS_MAX + 1];   //  holds by cause
};


//  --------------------------------------------------------------------------
//  Create an empty set

drover_waiting_t *
drover_waiting_new (void)
{
    drover_waiting_t *self = (drover_waiting_t *) zmalloc (sizeof (drover_waiting_t));
    self->holds = drover_idhash_new ();
    return self;
}


//  --------------------------------------------------------------------------
//  Destroy the set; harmless on NULL

void
drover_waiting_destroy (drover_waiting_t **self_p)
{
    assert (self_p);
    drover_waiting_t *self = *self_p;
    if (!self)
        return;
    for (size_t index = 0; index < drover_idhash_slots (self->holds); index++)
        free (drover_idhash_slot (self->holds, index));
    drover_idhash_destroy (&self->holds);
    free (self->heap);
    free (self);
    *self_p = NULL;
}


//  Swap two heap entries
static void
s_swap (s_timer_t *a, s_timer_t *b)
{
    s_timer_t keep = *a;
    *a = *b;
    *b = keep;
}

//  Add a heap entry
static void
s_heap_push (drover_waiting_t *self, int64_t due, uint64_t id)
{
    if (self->size == self->capacity) {
        self->capacity = self->capacity? self->capacity * 2: 64;
        self->heap = (s_timer_t *) realloc (self->heap, self->capacity * sizeof (s_timer_t));
        assert (self->heap);
    }
    size_t at = self->size++;
    self->heap [at] = (s_timer_t) { due, id };
    while (at > 0 && self->heap [(at - 1) / 2].due > self->heap [at].due) {
        s_swap (&self->heap [(at - 1) / 2], &self->heap [at]);
        at = (at - 1) / 2;
    }
}

//  Remove the heap's top entry
static void
s_heap_pop (drover_waiting_t *self)
{
    assert (self->size > 0);
    self->heap [0] = self->heap [--self->size];
    size_t at = 0;
    while (true) {
        size_t least = at, left = 2 * at + 1, right = left + 1;
        if (left < self->size && self->heap [left].due < self->heap [least].due)
            least = left;
        if (right < self->size && self->heap [right].due < self->heap [least].due)
            least = right;
        if (least == at)
            break;
        s_swap (&self->heap [at], &self->heap [least]);
        at = least;
    }
}

//  Drop stale entries from the top: tasks no longer held with that due
static void
s_heap_clean (drover_waiting_t *self)
{
    while (self->size > 0) {
        s_hold_t *hold = (s_hold_t *) drover_idhash_lookup (self->holds, self->heap [0].id);
        if (hold && hold->due == self->heap [0].due)
            return;
        s_heap_pop (self);
    }
}


//  --------------------------------------------------------------------------
//  Hold task back for cause until due (0: until removed)

void
drover_waiting_add (drover_waiting_t *self, uint64_t task, int cause, int64_t due)
{
    assert (self && cause > 0 && cause <= DROVER_WAITS_MAX);
    s_hold_t *hold = (s_hold_t *) drover_idhash_lookup (self->holds, task);
    if (hold)
        self->counts [hold->cause]--;
    else {
        hold = (s_hold_t *) zmalloc (sizeof (s_hold_t));
        hold->id = task;
        drover_idhash_insert (self->holds, hold);
    }
    hold->cause = (uint8_t) cause;
    hold->due = due;
    self->counts [cause]++;
    if (due)
        s_heap_push (self, due, task);
}


//  --------------------------------------------------------------------------
//  Return the cause task is held for (0: none), and its due

int
drover_waiting_cause (drover_waiting_t *self, uint64_t task, int64_t *due_p)
{
    assert (self);
    s_hold_t *hold = (s_hold_t *) drover_idhash_lookup (self->holds, task);
    if (due_p)
        *due_p = hold? hold->due: 0;
    return hold? hold->cause: 0;
}


//  --------------------------------------------------------------------------
//  Stop holding task back; returns the cause it had

int
drover_waiting_remove (drover_waiting_t *self, uint64_t task)
{
    assert (self);
    s_hold_t *hold = (s_hold_t *) drover_idhash_lookup (self->holds, task);
    if (!hold)
        return 0;
    int cause = hold->cause;
    self->counts [cause]--;
    drover_idhash_delete (self->holds, hold);
    free (hold);
    return cause;
}


//  --------------------------------------------------------------------------
//  Release the next task due at or before now; 0 if none

uint64_t
drover_waiting_take_due (drover_waiting_t *self, int64_t now)
{
    assert (self);
    s_heap_clean (self);
    if (self->size == 0 || self->heap [0].due > now)
        return 0;
    uint64_t task = self->heap [0].id;
    s_heap_pop (self);
    drover_waiting_remove (self, task);
    return task;
}


//  --------------------------------------------------------------------------
//  Return the earliest due of a timed hold, or 0

int64_t
drover_waiting_next_due (drover_waiting_t *self)
{
    assert (self);
    s_heap_clean (self);
    return self->size? self->heap [0].due: 0;
}


//  --------------------------------------------------------------------------
//  Return how many tasks are held for cause

size_t
drover_waiting_count (drover_waiting_t *self, int cause)
{
    assert (self);
    return cause > 0 && cause <= DROVER_WAITS_MAX? self->counts [cause]: 0;
}
