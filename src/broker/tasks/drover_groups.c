/*  =========================================================================
    drover_groups - arrays and workflows: tasks whose members follow them

    The groups sit in an array of pointers sorted by id: ids are given in
    order, so an add appends; a member's group is the last group whose id
    is below the member's, if the member is within its range.
    =========================================================================
*/

#include "drover_groups.h"

struct _drover_groups_t {
    drover_group_t **groups;    //  by id, ascending, owned
    size_t size;                //  groups held
    size_t capacity;            //  room
    uint32_t widest;            //  the widest span of a workflow
};


//  --------------------------------------------------------------------------
//  Create an empty set

drover_groups_t *
drover_groups_new (void)
{
    return (drover_groups_t *) zmalloc (sizeof (drover_groups_t));
}


//  --------------------------------------------------------------------------
//  Destroy the set and its groups; harmless on NULL

void
drover_groups_destroy (drover_groups_t **self_p)
{
    assert (self_p);
    drover_groups_t *self = *self_p;
    if (!self)
        return;
    for (size_t index = 0; index < self->size; index++)
        free (self->groups [index]);
    free (self->groups);
    free (self);
    *self_p = NULL;
}

//  Return the position of the first group whose id is >= id
static size_t
s_position (drover_groups_t *self, uint64_t id)
{
    size_t low = 0, high = self->size;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (self->groups [middle]->id < id)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}


//  --------------------------------------------------------------------------
//  Add a group of members (an array if array is given)

drover_group_t *
drover_groups_add (drover_groups_t *self, uint64_t id, uint32_t members, uint32_t span,
                   const drover_array_spec_t *array)
{
    assert (self && members > 0);
    assert (!drover_groups_lookup (self, id));
    drover_group_t *group = (drover_group_t *) zmalloc (sizeof (drover_group_t));
    group->id = id;
    group->members = members;
    group->span = span;
    if (array) {
        group->array = true;
        group->first = array->first;
        group->step = array->step? array->step: 1;
        group->limit = array->limit;
    }
    if (self->size == self->capacity) {
        self->capacity = self->capacity? self->capacity * 2: 16;
        self->groups = (drover_group_t **) realloc (self->groups,
                                                     self->capacity * sizeof (drover_group_t *));
        assert (self->groups);
    }
    if (!array && span > self->widest)
        self->widest = span;
    size_t at = s_position (self, id);
    memmove (self->groups + at + 1, self->groups + at,
             (self->size - at) * sizeof (drover_group_t *));
    self->groups [at] = group;
    self->size++;
    return group;
}


//  --------------------------------------------------------------------------
//  Return the group whose own id is id, or NULL

drover_group_t *
drover_groups_lookup (drover_groups_t *self, uint64_t id)
{
    assert (self);
    size_t at = s_position (self, id);
    return at < self->size && self->groups [at]->id == id? self->groups [at]: NULL;
}


//  --------------------------------------------------------------------------
//  Return the group task is a member of, or NULL

drover_group_t *
drover_groups_of (drover_groups_t *self, uint64_t task)
{
    assert (self);
    //  The nearest group below it whose span holds it: an array step of a
    //  workflow lies within the workflow's span, its elements within its own
    for (size_t at = s_position (self, task); at > 0; at--) {
        drover_group_t *group = self->groups [at - 1];
        if (task - group->id <= group->span)
            return group;
        if (group->array && task - group->id <= self->widest)
            continue;           //  a sibling array step: the workflow is further down
        return NULL;
    }
    return NULL;
}


//  --------------------------------------------------------------------------
//  Forget a group

void
drover_groups_remove (drover_groups_t *self, uint64_t id)
{
    assert (self);
    size_t at = s_position (self, id);
    if (at == self->size || self->groups [at]->id != id)
        return;
    free (self->groups [at]);
    memmove (self->groups + at, self->groups + at + 1,
             (self->size - at - 1) * sizeof (drover_group_t *));
    self->size--;
}


//  --------------------------------------------------------------------------
//  Return the elements of arrays not made yet, over every array

uint64_t
drover_groups_unmade (drover_groups_t *self)
{
    assert (self);
    uint64_t unmade = 0;
    for (size_t index = 0; index < self->size; index++)
        if (self->groups [index]->array)
            unmade += self->groups [index]->members - self->groups [index]->made;
    return unmade;
}


//  --------------------------------------------------------------------------
//  Return how many more elements an array may make now

uint32_t
drover_groups_room (const drover_group_t *group)
{
    assert (group);
    if (!group->array || !group->started || group->stopped || group->made >= group->members)
        return 0;
    uint32_t most = group->limit? group->limit: DROVER_GROUPS_WINDOW;
    uint32_t room = group->live < most? most - group->live: 0;
    uint32_t left = group->members - group->made;
    return room < left? room: left;
}


//  --------------------------------------------------------------------------
//  Return the highest id of the group's that may be a task held now

uint64_t
drover_groups_last (const drover_group_t *group)
{
    assert (group);
    return group->id + (group->array? group->made: group->span);
}


//  --------------------------------------------------------------------------
//  Return the index of an array's element task

uint32_t
drover_groups_index (const drover_group_t *group, uint64_t task)
{
    assert (group && task > group->id);
    return group->first + (uint32_t) (task - group->id - 1) * group->step;
}


//  --------------------------------------------------------------------------
//  Return the members ended, in all

uint64_t
drover_groups_ended (const drover_group_t *group)
{
    assert (group);
    return group->ended [DROVER_TASK_SUCCEEDED] + group->ended [DROVER_TASK_FAILED]
         + group->ended [DROVER_TASK_CANCELLED];
}


//  --------------------------------------------------------------------------
//  Return the state a group ends in

int
drover_groups_outcome (const drover_group_t *group)
{
    assert (group);
    if (group->ended [DROVER_TASK_FAILED])
        return DROVER_TASK_FAILED;
    if (group->ended [DROVER_TASK_CANCELLED] > group->skipped)
        return DROVER_TASK_CANCELLED;
    return DROVER_TASK_SUCCEEDED;
}
