/*  =========================================================================
    drover_sqlbatch - a batch of state changes grouped by task (see the
    header)
    =========================================================================
*/

#include "drover_sqlbatch.h"

struct _drover_sqlbatch_t {
    drover_sqlbatch_task_t *slots; //  the batch's tasks, open addressing on the id
    size_t nslots;                  //  slots allocated, a power of two (0: none yet)
    size_t *order;                  //  slot of each task met, first met first
    size_t ntasks;                  //  tasks met by the last grouping
};

//  Create an empty grouping
drover_sqlbatch_t *
drover_sqlbatch_new (void)
{
    return (drover_sqlbatch_t *) zmalloc (sizeof (drover_sqlbatch_t));
}

//  Destroy it
void
drover_sqlbatch_destroy (drover_sqlbatch_t **self_p)
{
    drover_sqlbatch_t *self = *self_p;
    if (!self)
        return;
    free (self->slots);
    free (self->order);
    free (self);
    *self_p = NULL;
}

//  Find or add task's slot
static drover_sqlbatch_task_t *
s_slot (drover_sqlbatch_t *self, uint64_t task)
{
    size_t mask = self->nslots - 1;
    size_t index = (size_t) (task * 0x9E3779B97F4A7C15ull >> 20) & mask;
    while (self->slots [index].task && self->slots [index].task != task)
        index = (index + 1) & mask;
    drover_sqlbatch_task_t *slot = &self->slots [index];
    if (!slot->task) {
        slot->task = task;
        slot->submit = -1;
        slot->done = -1;
        self->order [self->ntasks++] = index;
    }
    return slot;
}

//  Make room for count tasks at most, the table at most half full
static void
s_reserve (drover_sqlbatch_t *self, size_t count)
{
    if (self->nslots >= 2 * count)
        return;
    size_t nslots = 1024;
    while (nslots < 2 * count)
        nslots *= 2;
    free (self->slots);
    free (self->order);
    self->slots = (drover_sqlbatch_task_t *) zmalloc (nslots * sizeof (drover_sqlbatch_task_t));
    self->order = (size_t *) zmalloc (nslots * sizeof (size_t));
    self->nslots = nslots;
}

//  Group count changes by task, forgetting the grouping before
size_t
drover_sqlbatch_group (drover_sqlbatch_t *self, drover_change_t **changes, size_t count)
{
    assert (self);
    for (size_t index = 0; index < self->ntasks; index++)
        self->slots [self->order [index]].task = 0;
    self->ntasks = 0;
    s_reserve (self, count);
    for (size_t index = 0; index < count; index++) {
        drover_change_t *change = changes [index];
        if (!change->task)
            continue;
        drover_sqlbatch_task_t *slot = s_slot (self, change->task);
        if (change->submit)
            slot->submit = (int64_t) index;
        if (change->done)
            slot->done = (int64_t) index;
        slot->last = (int64_t) index;
    }
    return self->ntasks;
}

//  The index-th task of the last grouping
const drover_sqlbatch_task_t *
drover_sqlbatch_at (drover_sqlbatch_t *self, size_t index)
{
    assert (self);
    assert (index < self->ntasks);
    return &self->slots [self->order [index]];
}

//  Join a submit's labels into text, one a line
size_t
drover_sqlbatch_labels_join (const drover_msg_t *submit, char *text, size_t size)
{
    assert (submit);
    assert (text && size > 0);
    size_t length = 0;
    for (uint32_t index = 0; index < submit->nlabels && index < DROVER_LABELS_MAX; index++) {
        int written = snprintf (text + length, size - length, "%s%s",
                                index? "\n": "", submit->labels [index]);
        length += (size_t) written;
        if (length >= size)
            length = size - 1;
    }
    return length;
}

//  Add the labels of a labels column's text to a submit
void
drover_sqlbatch_labels_split (drover_msg_t *submit, const char *text)
{
    assert (submit);
    while (text && *text && submit->nlabels < DROVER_LABELS_MAX) {
        size_t length = strcspn (text, "\n");
        submit->labels [submit->nlabels++] = strndup (text, length);
        text += length + (text [length] == '\n');
    }
}
