/*  =========================================================================
    drover_sqlbatch - a batch of state changes grouped by task (see the
    header)
    =========================================================================
*/

#include "drover_sqlbatch.h"
#include "drover_varint.h"

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

//  The fresh column's flags: which fields follow the priority and procs
#define S_FRESH_MEM         0x01
#define S_FRESH_TIMEOUT     0x02
#define S_FRESH_RETRIES     0x04
#define S_FRESH_FLAGS       0x08
#define S_FRESH_LABELS      0x10
#define S_FRESH_DEVICES     0x20
#define S_FRESH_PLAIN       DROVER_SQLBATCH_FRESH_PLAIN   //  priority 0 and procs 1: neither
                                                        //  follows

//  Write text NUL-ended at data; returns the bytes written
static size_t
s_put_text (byte *data, const char *text, size_t max)
{
    size_t length = strnlen (text, max);
    memcpy (data, text, length);
    data [length] = 0;
    return length + 1;
}

//  Read a NUL-ended text of at most max bytes (NUL included) at *data_p,
//  before end; moves *data_p past it. Returns the text, or NULL.
static const char *
s_get_text (const byte **data_p, const byte *end, size_t max)
{
    const byte *data = *data_p;
    size_t room = (size_t) (end - data) < max? (size_t) (end - data): max;
    const byte *nul = (const byte *) memchr (data, 0, room);
    if (!nul)
        return NULL;
    *data_p = nul + 1;
    return (const char *) data;
}

//  Pack a submit's small fields
size_t
drover_sqlbatch_fresh_pack (const drover_msg_t *submit, byte *data)
{
    assert (submit && data);
    char devices [DROVER_DEVICELIST_TEXT_MAX];
    drover_devicelist_format (submit->devices, submit->ndevices, devices);
    byte flags = (submit->mem? S_FRESH_MEM: 0) | (submit->timeout? S_FRESH_TIMEOUT: 0)
               | (submit->retries? S_FRESH_RETRIES: 0) | (submit->flags? S_FRESH_FLAGS: 0)
               | (submit->nlabels? S_FRESH_LABELS: 0) | (*devices? S_FRESH_DEVICES: 0)
               | (submit->priority == 0 && submit->procs == 1? S_FRESH_PLAIN: 0);
    size_t size = 0;
    data [size++] = flags;
    if (!(flags & S_FRESH_PLAIN)) {
        size += drover_varint_put (data + size, drover_varint_zigzag (submit->priority));
        size += drover_varint_put (data + size, submit->procs);
    }
    if (flags & S_FRESH_MEM)
        size += drover_varint_put (data + size, submit->mem);
    if (flags & S_FRESH_TIMEOUT)
        size += drover_varint_put (data + size, submit->timeout);
    if (flags & S_FRESH_RETRIES)
        size += drover_varint_put (data + size, submit->retries);
    if (flags & S_FRESH_FLAGS)
        size += drover_varint_put (data + size, submit->flags);
    if (flags & S_FRESH_LABELS) {
        size_t length = drover_sqlbatch_labels_join (submit, (char *) data + size,
                                                     DROVER_LABELS_MAX * (DROVER_LABEL_MAX + 1));
        data [size + length] = 0;
        size += length + 1;
    }
    if (flags & S_FRESH_DEVICES)
        size += s_put_text (data + size, devices, DROVER_DEVICELIST_TEXT_MAX - 1);
    assert (size <= DROVER_SQLBATCH_FRESH_MAX);
    return size;
}

//  Set an empty submit's small fields from a fresh column's bytes
int
drover_sqlbatch_fresh_unpack (drover_msg_t *submit, const byte *data, size_t size)
{
    assert (submit);
    if (!data || size < 1)
        return -1;
    const byte *end = data + size;
    byte flags = *data++;
    bool plain = flags & S_FRESH_PLAIN;
    uint64_t priority = 0, procs = 1, mem = 0, timeout = 0, retries = 0, bits = 0;
    if ((flags & ~(S_FRESH_MEM | S_FRESH_TIMEOUT | S_FRESH_RETRIES | S_FRESH_FLAGS
                   | S_FRESH_LABELS | S_FRESH_DEVICES | S_FRESH_PLAIN))
    ||  (!plain && drover_varint_get (&data, end, 33, &priority))
    ||  (!plain && drover_varint_get (&data, end, 32, &procs))
    || ((flags & S_FRESH_MEM) && drover_varint_get (&data, end, 64, &mem))
    || ((flags & S_FRESH_TIMEOUT) && drover_varint_get (&data, end, 32, &timeout))
    || ((flags & S_FRESH_RETRIES) && drover_varint_get (&data, end, 32, &retries))
    || ((flags & S_FRESH_FLAGS) && drover_varint_get (&data, end, 32, &bits)))
        return -1;
    const char *labels = NULL, *devices = NULL;
    if (((flags & S_FRESH_LABELS)
        && !(labels = s_get_text (&data, end, DROVER_LABELS_MAX * (DROVER_LABEL_MAX + 1))))
    || ((flags & S_FRESH_DEVICES)
        && !(devices = s_get_text (&data, end, DROVER_DEVICELIST_TEXT_MAX)))
    ||  data != end)
        return -1;
    if (drover_sqlbatch_devices_unpack (submit, devices))
        return -1;
    submit->priority = (int32_t) drover_varint_unzigzag (priority);
    submit->procs = (uint32_t) procs;
    submit->mem = mem;
    submit->timeout = (uint32_t) timeout;
    submit->retries = (uint32_t) retries;
    submit->flags = (uint32_t) bits;
    drover_sqlbatch_labels_split (submit, labels);
    return 0;
}
