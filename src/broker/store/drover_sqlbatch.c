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

//  Write value big-endian in size bytes at data
static void
s_put (byte *data, uint64_t value, size_t size)
{
    for (size_t index = 0; index < size; index++)
        data [index] = (byte) (value >> (8 * (size - 1 - index)));
}

//  Read a big-endian value of size bytes at data
static uint64_t
s_get (const byte *data, size_t size)
{
    uint64_t value = 0;
    for (size_t index = 0; index < size; index++)
        value = value << 8 | data [index];
    return value;
}

//  Pack a submit's after list into data
size_t
drover_sqlbatch_after_pack (const drover_msg_t *submit, byte *data)
{
    assert (submit && data);
    uint32_t count = !submit->after? 0
                   : submit->nafter < DROVER_AFTER_MAX? submit->nafter: DROVER_AFTER_MAX;
    for (uint32_t index = 0; index < count; index++) {
        byte *entry = data + index * DROVER_SQLBATCH_AFTER_ENTRY;
        entry [0] = submit->after [index].kind;
        s_put (entry + 1, submit->after [index].task, 8);
    }
    return count * DROVER_SQLBATCH_AFTER_ENTRY;
}

//  Set a submit's after list from an after column's bytes
int
drover_sqlbatch_after_unpack (drover_msg_t *submit, const byte *data, size_t size)
{
    assert (submit);
    if (!data || size == 0)
        return 0;
    if (size % DROVER_SQLBATCH_AFTER_ENTRY || size > DROVER_SQLBATCH_AFTER_MAX)
        return -1;
    size_t count = size / DROVER_SQLBATCH_AFTER_ENTRY;
    for (size_t index = 0; index < count; index++)
        if ((data [index * DROVER_SQLBATCH_AFTER_ENTRY] & ~DROVER_AFTER_STEP)
            > DROVER_AFTER_KIND_MAX)
            return -1;
    drover_after_t *after = (drover_after_t *) zmalloc (count * sizeof (drover_after_t));
    for (size_t index = 0; index < count; index++) {
        const byte *entry = data + index * DROVER_SQLBATCH_AFTER_ENTRY;
        after [index].kind = entry [0];
        after [index].task = s_get (entry + 1, 8);
    }
    free (submit->after);
    submit->after = after;
    submit->nafter = (uint32_t) count;
    return 0;
}

//  Pack a submit's array into data
size_t
drover_sqlbatch_array_pack (const drover_msg_t *submit, byte *data)
{
    assert (submit && data);
    if (submit->array.count == 0)
        return 0;
    s_put (data, submit->array.first, 4);
    s_put (data + 4, submit->array.step, 4);
    s_put (data + 8, submit->array.count, 4);
    s_put (data + 12, submit->array.limit, 4);
    return DROVER_SQLBATCH_ARRAY_SIZE;
}

//  Set a submit's array from an array column's bytes
int
drover_sqlbatch_array_unpack (drover_msg_t *submit, const byte *data, size_t size)
{
    assert (submit);
    if (!data || size == 0)
        return 0;
    if (size != DROVER_SQLBATCH_ARRAY_SIZE)
        return -1;
    drover_array_spec_t array = {
        .first = (uint32_t) s_get (data, 4), .step = (uint32_t) s_get (data + 4, 4),
        .count = (uint32_t) s_get (data + 8, 4), .limit = (uint32_t) s_get (data + 12, 4)
    };
    if (array.count == 0 || array.count > DROVER_ARRAY_MAX || array.step == 0)
        return -1;
    submit->array = array;
    return 0;
}

//  Set a submit's devices from a devices column's text
int
drover_sqlbatch_devices_unpack (drover_msg_t *submit, const char *text)
{
    assert (submit);
    drover_device_t devices [DROVER_DEVICES_MAX];
    int count = drover_devicelist_parse (text, devices, NULL);
    if (count < 0)
        return -1;
    memcpy (submit->devices, devices, (size_t) count * sizeof devices [0]);
    submit->ndevices = (uint32_t) count;
    return 0;
}
