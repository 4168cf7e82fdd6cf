/*  =========================================================================
    drover_tasktags - what assign knows of a task besides the task table:
    the service and slot of a replica, the affinity key of a batch task,
    and why a replica was told to stop

    Tags are found by task id in an open-addressing hash (drover_idhash);
    each is one small allocation. Tasks without a tag cost nothing but a
    lookup in a hash that is most often empty.
    =========================================================================
*/

#include "drover_tasktags.h"
#include "drover_idhash.h"

//  One task's tag
typedef struct {
    uint64_t task;              //  task id (first: drover_idhash's key)
    char *service;              //  its service, or NULL: not a replica
    uint32_t slot;              //  its replica slot
    char *affinity;             //  its affinity key, or NULL
    char *stop;                 //  why it was told to stop, or NULL
} s_tag_t;

struct _drover_tasktags_t {
    drover_idhash_t *tags;      //  task id -> s_tag_t (owned)
};

//  Free a tag
static void
s_tag_destroy (s_tag_t **tag_p)
{
    s_tag_t *tag = *tag_p;
    if (tag) {
        zstr_free (&tag->service);
        zstr_free (&tag->affinity);
        zstr_free (&tag->stop);
        free (tag);
        *tag_p = NULL;
    }
}

//  Create an empty set of tags
drover_tasktags_t *
drover_tasktags_new (void)
{
    drover_tasktags_t *self = (drover_tasktags_t *) zmalloc (sizeof (drover_tasktags_t));
    self->tags = drover_idhash_new ();
    return self;
}

//  Destroy the tags; harmless on NULL
void
drover_tasktags_destroy (drover_tasktags_t **self_p)
{
    assert (self_p);
    drover_tasktags_t *self = *self_p;
    if (!self)
        return;
    for (size_t slot = 0; slot < drover_idhash_slots (self->tags); slot++) {
        s_tag_t *tag = (s_tag_t *) drover_idhash_slot (self->tags, slot);
        s_tag_destroy (&tag);
    }
    drover_idhash_destroy (&self->tags);
    free (self);
    *self_p = NULL;
}

//  Find a task's tag, or NULL (no lookup while none is held: the hot path)
static s_tag_t *
s_lookup (drover_tasktags_t *self, uint64_t task)
{
    return drover_idhash_size (self->tags)? (s_tag_t *) drover_idhash_lookup (self->tags, task)
                                          : NULL;
}

//  Tag a task from its submit
void
drover_tasktags_add (drover_tasktags_t *self, uint64_t task, const drover_msg_t *submit)
{
    assert (self && submit);
    if (!submit->service [0] && !submit->affinity)
        return;                 //  nothing to keep
    drover_tasktags_remove (self, task);
    s_tag_t *tag = (s_tag_t *) zmalloc (sizeof (s_tag_t));
    tag->task = task;
    if (submit->service [0]) {
        tag->service = strdup (submit->service);
        tag->slot = submit->slot;
    }
    if (submit->affinity)
        tag->affinity = strdup (submit->affinity);
    drover_idhash_insert (self->tags, tag);
}

//  Forget a task's tag
void
drover_tasktags_remove (drover_tasktags_t *self, uint64_t task)
{
    assert (self);
    s_tag_t *tag = s_lookup (self, task);
    if (tag) {
        drover_idhash_delete (self->tags, tag);
        s_tag_destroy (&tag);
    }
}

//  Return a replica's service and slot, or NULL
const char *
drover_tasktags_service (drover_tasktags_t *self, uint64_t task, uint32_t *slot_p)
{
    assert (self);
    s_tag_t *tag = s_lookup (self, task);
    if (!tag || !tag->service)
        return NULL;
    if (slot_p)
        *slot_p = tag->slot;
    return tag->service;
}

//  Return a task's affinity key, or NULL
const char *
drover_tasktags_affinity (drover_tasktags_t *self, uint64_t task)
{
    assert (self);
    s_tag_t *tag = s_lookup (self, task);
    return tag? tag->affinity: NULL;
}

//  Remember why a replica was told to stop
int
drover_tasktags_set_stop (drover_tasktags_t *self, uint64_t task, const char *reason)
{
    assert (self && reason);
    s_tag_t *tag = s_lookup (self, task);
    if (!tag || !tag->service)
        return -1;
    zstr_free (&tag->stop);
    tag->stop = strdup (reason);
    return 0;
}

//  Return why a replica was told to stop, or NULL
const char *
drover_tasktags_stop (drover_tasktags_t *self, uint64_t task)
{
    assert (self);
    s_tag_t *tag = s_lookup (self, task);
    return tag? tag->stop: NULL;
}

//  Call fn for each replica held
void
drover_tasktags_each_replica (drover_tasktags_t *self, drover_tasktags_replica_fn *fn, void *arg)
{
    assert (self && fn);
    for (size_t slot = 0; slot < drover_idhash_slots (self->tags); slot++) {
        s_tag_t *tag = (s_tag_t *) drover_idhash_slot (self->tags, slot);
        if (tag && tag->service)
            fn (tag->task, tag->service, tag->slot, arg);
    }
}

//  Return how many tasks are tagged
size_t
drover_tasktags_size (drover_tasktags_t *self)
{
    assert (self);
    return drover_idhash_size (self->tags);
}
