/*  =========================================================================
    drover_health - when each worker was last heard from, and which have
    been silent for lost-after

    Entries live in a hash map by worker id (which owns them) and in a list
    in the order they were last heard; each entry keeps its list handle, so
    hearing from a worker moves it to the end in O(1). Workers told a longer
    heartbeat interval may be silent longer (lost-after times their scale):
    there is one list per scale, so within a list the head is always the
    next to be lost, and the next deadline is the earliest of a few heads.
    =========================================================================
*/

#include "drover_health.h"
#include "drover_defaults.h"

//  One worker's last sign of life
typedef struct {
    char *id;                   //  worker id, the key of self->entries
    int64_t heard;              //  last heard, msec (caller's clock)
    void *handle;               //  its node in its class's order
    struct _s_class_t *class_;  //  the scale it belongs to
} s_entry_t;

//  The workers of one scale, heard longest ago first
typedef struct _s_class_t {
    uint32_t scale;             //  they are lost after lost_after x scale msec of silence
    zlistx_t *order;            //  s_entry_t, heard longest ago first (not owned)
} s_class_t;

#define S_CLASSES_MAX   256     //  scales at most (larger ones count as the largest)

struct _drover_health_t {
    zhashx_t *entries;          //  worker id -> s_entry_t (owned)
    s_class_t classes [S_CLASSES_MAX];  //  by scale, classes [0] is scale 1
    size_t nclasses;            //  classes in use
    int64_t latest;             //  latest time observed, msec (the clock never goes back)
    uint32_t lost_after;        //  msec of silence before a worker of scale 1 is lost
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
    self->classes [0].scale = 1;
    self->classes [0].order = zlistx_new ();
    self->nclasses = 1;
    self->latest = INT64_MIN;
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
        for (size_t index = 0; index < self->nclasses; index++)
            zlistx_destroy (&self->classes [index].order);
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

//  Return the class of a scale, made if new (past S_CLASSES_MAX, the largest)
static s_class_t *
s_class_of (drover_health_t *self, uint32_t scale)
{
    if (scale < 1)
        scale = 1;
    s_class_t *largest = &self->classes [0];
    for (size_t index = 0; index < self->nclasses; index++) {
        if (self->classes [index].scale == scale)
            return &self->classes [index];
        if (self->classes [index].scale > largest->scale)
            largest = &self->classes [index];
    }
    if (self->nclasses == S_CLASSES_MAX)
        return largest;
    s_class_t *class_ = &self->classes [self->nclasses++];
    class_->scale = scale;
    class_->order = zlistx_new ();
    return class_;
}

//  Return lost-after
uint32_t
drover_health_lost_after (drover_health_t *self)
{
    assert (self);
    return self->lost_after;
}

//  Note that a worker was heard from, and put it in its class
static void
s_observe (drover_health_t *self, const char *id, int64_t now, uint32_t scale)
{
    assert (self);
    assert (id);
    //  Keep the lists sorted even if a caller's clock stepped back
    if (now < self->latest)
        now = self->latest;
    self->latest = now;
    s_entry_t *entry = (s_entry_t *) zhashx_lookup (self->entries, id);
    s_class_t *class_ = scale? s_class_of (self, scale): entry? entry->class_: &self->classes [0];
    if (entry && entry->class_ == class_)
        zlistx_move_end (class_->order, entry->handle);
    else {
        if (entry)
            zlistx_delete (entry->class_->order, entry->handle);
        else {
            entry = (s_entry_t *) zmalloc (sizeof (s_entry_t));
            entry->id = strdup (id);
            assert (entry->id);
            zhashx_insert (self->entries, id, entry);
        }
        entry->class_ = class_;
        entry->handle = zlistx_add_end (class_->order, entry);
    }
    entry->heard = now;
}

//  Note that a worker was heard from
void
drover_health_observe (drover_health_t *self, const char *id, int64_t now)
{
    s_observe (self, id, now, 0);
}

//  Note that a worker was heard from, and its scale
void
drover_health_observe_scaled (drover_health_t *self, const char *id, int64_t now,
                              uint32_t scale)
{
    s_observe (self, id, now, scale < 1? 1: scale);
}

//  Return a worker's scale, or 0 if unknown
uint32_t
drover_health_scale (drover_health_t *self, const char *id)
{
    assert (self);
    s_entry_t *entry = (s_entry_t *) zhashx_lookup (self->entries, id);
    return entry? entry->class_->scale: 0;
}

//  Move every last-heard forward by gap (the order stays as it is)
void
drover_health_shift (drover_health_t *self, int64_t gap)
{
    assert (self);
    assert (gap >= 0);
    for (size_t index = 0; index < self->nclasses; index++) {
        zlistx_t *order = self->classes [index].order;
        s_entry_t *entry = (s_entry_t *) zlistx_first (order);
        while (entry) {
            entry->heard += gap;
            entry = (s_entry_t *) zlistx_next (order);
        }
    }
    if (self->latest != INT64_MIN)
        self->latest += gap;
}

//  Forget a worker
bool
drover_health_forget (drover_health_t *self, const char *id)
{
    assert (self);
    s_entry_t *entry = (s_entry_t *) zhashx_lookup (self->entries, id);
    if (!entry)
        return false;           //  not known
    zlistx_delete (entry->class_->order, entry->handle);
    zhashx_delete (self->entries, id);
    return true;
}

//  Return the entry to be lost first, and its deadline, or NULL if none
static s_entry_t *
s_first (drover_health_t *self, int64_t *deadline_p)
{
    s_entry_t *first = NULL;
    for (size_t index = 0; index < self->nclasses; index++) {
        s_class_t *class_ = &self->classes [index];
        s_entry_t *head = (s_entry_t *) zlistx_first (class_->order);
        int64_t deadline = head? head->heard + (int64_t) self->lost_after * class_->scale: 0;
        if (head && (!first || deadline < *deadline_p)) {
            first = head;
            *deadline_p = deadline;
        }
    }
    return first;
}

//  Return when the next worker is lost, or -1
int64_t
drover_health_next_deadline (drover_health_t *self)
{
    assert (self);
    int64_t deadline = -1;
    return s_first (self, &deadline)? deadline: -1;
}

//  Take out one worker that has been silent too long
char *
drover_health_expire (drover_health_t *self, int64_t now)
{
    assert (self);
    int64_t deadline = -1;
    s_entry_t *first = s_first (self, &deadline);
    if (!first || deadline > now)
        return NULL;            //  everyone was heard recently enough
    char *id = strdup (first->id);
    assert (id);
    zlistx_delete (first->class_->order, first->handle);
    zhashx_delete (self->entries, id);
    return id;
}

//  Return true if told and fleet are half again or more apart
bool
drover_health_repace_due (uint32_t told, uint32_t fleet)
{
    uint64_t small = told < fleet? told: fleet;
    uint64_t large = told < fleet? fleet: told;
    return large * 2 >= small * 3;
}

//  Return the heartbeat interval to tell a worker, msec
uint32_t
drover_health_interval (uint32_t floor, uint32_t rate, size_t workers)
{
    if (rate == 0)
        return floor;
    //  Rounded up to a whole number of floors, so workers fall in few scales
    uint64_t interval = ((uint64_t) workers * 1000 + rate - 1) / rate;
    if (interval <= floor)
        return floor;
    uint64_t floors = (interval + floor - 1) / floor;
    if (floors > S_CLASSES_MAX)
        floors = S_CLASSES_MAX;
    interval = floors * floor;
    return interval > DROVER_HEALTH_INTERVAL_MAX? DROVER_HEALTH_INTERVAL_MAX: (uint32_t) interval;
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

//  Return the grace after start or leadership
uint32_t
drover_health_grace (uint32_t grace, uint32_t heartbeat, uint32_t lost_after)
{
    if (grace)
        return grace;
    return lost_after + (heartbeat < DROVER_RECONNECT_JITTER_MAX? heartbeat
                                                                : DROVER_RECONNECT_JITTER_MAX);
}
