/*  =========================================================================
    drover_probation - the probation set: workers on probation after a transport
    failure, each until its last failure plus the probation timeout

    Entries live in a hash map by worker id (which owns them) and in a
    binary heap by release deadline; each entry knows its heap index, so a
    timer reset or a release is O(log n) and the next deadline is the head.
    =========================================================================
*/

#include "drover_probation.h"

//  One worker on probation
typedef struct {
    char *id;                   //  worker id, the key of self->entries
    char *reason;               //  last failure's reason
    int64_t deadline;           //  release time, msec (caller's clock)
    size_t index;               //  position in self->heap
} s_entry_t;

struct _drover_probation_t {
    zhashx_t *entries;          //  worker id -> s_entry_t (owned)
    s_entry_t **heap;           //  entries, earliest deadline first
    size_t size;                //  entries in the heap
    size_t capacity;            //  entries allocated in the heap
    uint32_t timeout;           //  probation timeout, msec
};


//  Free an entry; the hash map's destructor
static void
s_entry_destroy (void **item_p)
{
    s_entry_t *entry = (s_entry_t *) *item_p;
    if (entry) {
        free (entry->id);
        free (entry->reason);
        free (entry);
        *item_p = NULL;
    }
}

//  Create an empty set
drover_probation_t *
drover_probation_new (uint32_t timeout)
{
    drover_probation_t *self =
        (drover_probation_t *) zmalloc (sizeof (drover_probation_t));
    self->entries = zhashx_new ();
    zhashx_set_destructor (self->entries, s_entry_destroy);
    self->timeout = timeout;
    return self;
}

//  Destroy the set
void
drover_probation_destroy (drover_probation_t **self_p)
{
    assert (self_p);
    drover_probation_t *self = *self_p;
    if (self) {
        zhashx_destroy (&self->entries);
        free (self->heap);
        free (self);
        *self_p = NULL;
    }
}

//  Change the probation timeout
void
drover_probation_set_timeout (drover_probation_t *self, uint32_t timeout)
{
    assert (self);
    self->timeout = timeout;
}


//  Put entry at index and tell it where it is
static void
s_place (drover_probation_t *self, size_t index, s_entry_t *entry)
{
    self->heap [index] = entry;
    entry->index = index;
}

//  Restore heap order around an entry whose deadline changed
static void
s_fix (drover_probation_t *self, s_entry_t *entry)
{
    size_t index = entry->index;
    while (index > 0 && entry->deadline < self->heap [(index - 1) / 2]->deadline) {
        s_place (self, index, self->heap [(index - 1) / 2]);
        index = (index - 1) / 2;
    }
    while (true) {
        size_t child = 2 * index + 1;
        if (child >= self->size)
            break;
        if (child + 1 < self->size && self->heap [child + 1]->deadline < self->heap [child]->deadline)
            child++;
        if (self->heap [child]->deadline >= entry->deadline)
            break;
        s_place (self, index, self->heap [child]);
        index = child;
    }
    s_place (self, index, entry);
}

//  Take an entry out of the heap and destroy it
static void
s_release (drover_probation_t *self, s_entry_t *entry)
{
    s_entry_t *last = self->heap [--self->size];
    if (entry->index < self->size) {
        s_place (self, entry->index, last);
        s_fix (self, last);
    }
    zhashx_delete (self->entries, entry->id);
}

//  Record a failure: put the worker on probation, or restart its timer
drover_probation_change_t
drover_probation_failure (drover_probation_t *self, const char *id, const char *reason,
                             int64_t now)
{
    assert (self);
    assert (id);
    s_entry_t *entry = (s_entry_t *) zhashx_lookup (self->entries, id);
    drover_probation_change_t change = DROVER_PROBATION_RESET;
    if (!entry) {
        if (self->size == self->capacity) {
            self->capacity = self->capacity? self->capacity * 2: 16;
            self->heap = (s_entry_t **) realloc (self->heap, self->capacity * sizeof (s_entry_t *));
            assert (self->heap);
        }
        entry = (s_entry_t *) zmalloc (sizeof (s_entry_t));
        entry->id = strdup (id);
        assert (entry->id);
        zhashx_insert (self->entries, id, entry);
        s_place (self, self->size++, entry);
        change = DROVER_PROBATION_ENTERED;
    }
    free (entry->reason);
    entry->reason = strdup (reason? reason: "");
    assert (entry->reason);
    entry->deadline = now + self->timeout;
    s_fix (self, entry);
    return change;
}

//  Record a success: release the worker if on probation
bool
drover_probation_success (drover_probation_t *self, const char *id)
{
    return drover_probation_forget (self, id);
}

//  Forget a worker
bool
drover_probation_forget (drover_probation_t *self, const char *id)
{
    assert (self);
    s_entry_t *entry = (s_entry_t *) zhashx_lookup (self->entries, id);
    if (!entry)
        return false;           //  not on probation
    s_release (self, entry);
    return true;
}

//  Return the earliest release deadline, or -1
int64_t
drover_probation_next_deadline (drover_probation_t *self)
{
    assert (self);
    return self->size? self->heap [0]->deadline: -1;
}

//  Release one worker that is due
char *
drover_probation_expire (drover_probation_t *self, int64_t now)
{
    assert (self);
    if (self->size == 0 || self->heap [0]->deadline > now)
        return NULL;            //  nothing due
    s_entry_t *entry = self->heap [0];
    char *id = strdup (entry->id);
    assert (id);
    s_release (self, entry);
    return id;
}

//  Return true if the worker is on probation
bool
drover_probation_contains (drover_probation_t *self, const char *id)
{
    assert (self);
    return zhashx_lookup (self->entries, id) != NULL;
}

//  Return the reason of the last failure of a worker on probation
const char *
drover_probation_reason (drover_probation_t *self, const char *id)
{
    assert (self);
    s_entry_t *entry = (s_entry_t *) zhashx_lookup (self->entries, id);
    return entry? entry->reason: NULL;
}

//  Return how many workers are on probation
size_t
drover_probation_size (drover_probation_t *self)
{
    assert (self);
    return self->size;
}
