/*  =========================================================================
    drover_health - when each worker was last heard from, and which have
    been silent for lost-after

    Entries live in a hash map by worker id (which owns them) and in a list
    in the order they were last heard; each entry keeps its list handle, so
    hearing from a worker moves it to the end in O(1), and the head of the
    list is always the next to be lost.
    =========================================================================
*/

#include "drover_health.h"

//  One worker's last sign of life
typedef struct {
    char *id;                   //  worker id, the key of self->entries
    int64_t heard;              //  last heard, msec (caller's clock)
    void *handle;               //  its node in self->order
} s_entry_t;

struct _drover_health_t {
    zhashx_t *entries;          //  worker id -> s_entry_t (owned)
    zlistx_t *order;            //  s_entry_t, heard longest ago first (not owned)
    uint32_t lost_after;        //  msec of silence before a worker is lost
};


//  Free an entry; the hash map's destructor
static void
s_entry_destroy (void **item_p)
{
    s_entry_t *entry = (s_entry_t *) *item_p;
    if (entry) {
        free (entry->id);
        free (entry);
        *item_p = NULL;
    }
}

//  Create an empty table
drover_health_t *
drover_health_new (uint32_t lost_after)
{
    drover_health_t *self = (drover_health_t *) zmalloc (sizeof (drover_health_t));
    self->entries = zhashx_new ();
    zhashx_set_destructor (self->entries, s_entry_destroy);
    self->order = zlistx_new ();
    self->lost_after = lost_after;
    return self;
}

//  Destroy the table
void
drover_health_destroy (drover_health_t **self_p)
{
    assert (self_p);
    drover_health_t *self = *self_p;
    if (self) {
        zlistx_destroy (&self->order);
        zhashx_destroy (&self->entries);
        free (self);
        *self_p = NULL;
    }
}

//  Change lost-after
void
drover_health_set_lost_after (drover_health_t *self, uint32_t lost_after)
{
    assert (self);
    self->lost_after = lost_after;
}

//  Note that a worker was heard from
void
drover_health_observe (drover_health_t *self, const char *id, int64_t now)
{
    assert (self);
    assert (id);
    //  Keep the list sorted even if a caller's clock stepped back
    s_entry_t *last = (s_entry_t *) zlistx_last (self->order);
    if (last && now < last->heard)
        now = last->heard;
    s_entry_t *entry = (s_entry_t *) zhashx_lookup (self->entries, id);
    if (entry)
        zlistx_move_end (self->order, entry->handle);
    else {
        entry = (s_entry_t *) zmalloc (sizeof (s_entry_t));
        entry->id = strdup (id);
        assert (entry->id);
        entry->handle = zlistx_add_end (self->order, entry);
        zhashx_insert (self->entries, id, entry);
    }
    entry->heard = now;
}

//  Move every last-heard forward by gap (the order stays as it is)
void
drover_health_shift (drover_health_t *self, int64_t gap)
{
    assert (self);
    assert (gap >= 0);
    s_entry_t *entry = (s_entry_t *) zlistx_first (self->order);
    while (entry) {
        entry->heard += gap;
        entry = (s_entry_t *) zlistx_next (self->order);
    }
}

//  Forget a worker
bool
drover_health_forget (drover_health_t *self, const char *id)
{
    assert (self);
    s_entry_t *entry = (s_entry_t *) zhashx_lookup (self->entries, id);
    if (!entry)
        return false;           //  not known
    zlistx_delete (self->order, entry->handle);
    zhashx_delete (self->entries, id);
    return true;
}

//  Return when the next worker is lost, or -1
int64_t
drover_health_next_deadline (drover_health_t *self)
{
    assert (self);
    s_entry_t *first = (s_entry_t *) zlistx_first (self->order);
    return first? first->heard + self->lost_after: -1;
}

//  Take out one worker that has been silent too long
char *
drover_health_expire (drover_health_t *self, int64_t now)
{
    assert (self);
    s_entry_t *first = (s_entry_t *) zlistx_first (self->order);
    if (!first || first->heard + self->lost_after > now)
        return NULL;            //  everyone was heard recently enough
    char *id = strdup (first->id);
    assert (id);
    zlistx_delete (self->order, first->handle);
    zhashx_delete (self->entries, id);
    return id;
}

//  Return true if the worker is known
bool
drover_health_contains (drover_health_t *self, const char *id)
{
    assert (self);
    return zhashx_lookup (self->entries, id) != NULL;
}

//  Return when the worker was last heard from, or -1
int64_t
drover_health_last_heard (drover_health_t *self, const char *id)
{
    assert (self);
    s_entry_t *entry = (s_entry_t *) zhashx_lookup (self->entries, id);
    return entry? entry->heard: -1;
}

//  Return how many workers are known
size_t
drover_health_size (drover_health_t *self)
{
    assert (self);
    return zhashx_size (self->entries);
}
