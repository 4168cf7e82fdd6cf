/*  =========================================================================
    drover_fleet - the scheduler's view of the connected workers, as one
    frame (see the header)

    The frame: a uint32 count, then each worker as procs(4) procs-used(4)
    state(4) tasks(4) mem(8) mem-used(8) id-length(4) id labels-length(4)
    labels; native byte order, unaligned reads through memcpy.
    =========================================================================
*/

#include "drover_fleet.h"
#include "drover_framecursor.h"

struct _drover_fleet_t {
    drover_fleet_worker_t *workers; //  workers in the order added; id, labels owned
    size_t count;               //  entries used
    size_t size;                //  entries allocated
};


//  Create an empty fleet
drover_fleet_t *
drover_fleet_new (void)
{
    drover_fleet_t *self = (drover_fleet_t *) zmalloc (sizeof (drover_fleet_t));
    return self;
}

//  Destroy a fleet
void
drover_fleet_destroy (drover_fleet_t **self_p)
{
    assert (self_p);
    drover_fleet_t *self = *self_p;
    if (self) {
        for (size_t index = 0; index < self->count; index++) {
            free ((char *) self->workers [index].id);
            free ((char *) self->workers [index].labels);
        }
        free (self->workers);
        free (self);
        *self_p = NULL;
    }
}

//  Add a worker
void
drover_fleet_add (drover_fleet_t *self, const drover_fleet_worker_t *worker)
{
    assert (self && worker && worker->id);
    if (self->count == self->size) {
        self->size = self->size? self->size * 2: 16;
        self->workers = (drover_fleet_worker_t *) realloc (self->workers,
                                                          self->size * sizeof *self->workers);
        assert (self->workers);
    }
    drover_fleet_worker_t *copy = &self->workers [self->count++];
    *copy = *worker;
    copy->id = strdup (worker->id);
    copy->labels = strdup (worker->labels? worker->labels: "");
    assert (copy->id && copy->labels);
}

//  Encode the fleet as one frame
zframe_t *
drover_fleet_encode (drover_fleet_t *self)
{
    assert (self);
    size_t size = 4;
    for (size_t index = 0; index < self->count; index++)
        size += 40 + strlen (self->workers [index].id) + strlen (self->workers [index].labels);
    zframe_t *frame = zframe_new (NULL, size);
    byte *cursor = zframe_data (frame);
    uint32_t count = (uint32_t) self->count;
    drover_framecursor_put (&cursor, &count, 4);
    for (size_t index = 0; index < self->count; index++) {
        const drover_fleet_worker_t *worker = &self->workers [index];
        uint32_t state = (uint32_t) worker->state;
        drover_framecursor_put (&cursor, &worker->procs, 4);
        drover_framecursor_put (&cursor, &worker->procs_used, 4);
        drover_framecursor_put (&cursor, &state, 4);
        drover_framecursor_put (&cursor, &worker->tasks, 4);
        drover_framecursor_put (&cursor, &worker->mem, 8);
        drover_framecursor_put (&cursor, &worker->mem_used, 8);
        drover_framecursor_put_string (&cursor, worker->id);
        drover_framecursor_put_string (&cursor, worker->labels);
    }
    assert (cursor == zframe_data (frame) + size);
    return frame;
}

//  Decode a frame encode made
drover_fleet_t *
drover_fleet_decode (zframe_t *frame)
{
    assert (frame);
    const byte *cursor = zframe_data (frame);
    const byte *end = cursor + zframe_size (frame);
    drover_fleet_t *self = drover_fleet_new ();
    uint32_t count;
    bool ok = drover_framecursor_get (&cursor, end, &count, 4);
    for (uint32_t index = 0; ok && index < count; index++) {
        drover_fleet_worker_t worker = { 0 };
        uint32_t state;
        ok = drover_framecursor_get (&cursor, end, &worker.procs, 4)
          && drover_framecursor_get (&cursor, end, &worker.procs_used, 4)
          && drover_framecursor_get (&cursor, end, &state, 4)
          && drover_framecursor_get (&cursor, end, &worker.tasks, 4)
          && drover_framecursor_get (&cursor, end, &worker.mem, 8)
          && drover_framecursor_get (&cursor, end, &worker.mem_used, 8)
          && state <= DROVER_FLEET_LOW_DISK;
        char *id = ok? drover_framecursor_get_string (&cursor, end): NULL;
        char *labels = id? drover_framecursor_get_string (&cursor, end): NULL;
        ok = labels != NULL;
        if (ok) {
            worker.state = (drover_fleet_state_t) state;
            worker.id = id;
            worker.labels = labels;
            drover_fleet_add (self, &worker);
        }
        free (id);
        free (labels);
    }
    if (!ok || cursor != end) {
        zsys_error ("fleet: a FLEET frame of %zu bytes does not decode", zframe_size (frame));
        drover_fleet_destroy (&self);
    }
    return self;
}

//  The fleet's workers in the order added
const drover_fleet_worker_t *
drover_fleet_workers (drover_fleet_t *self, size_t *count_p)
{
    assert (self && count_p);
    *count_p = self->count;
    return self->workers;
}

//  Return true if text ("k=v" joined by "\n") holds the line of length
//  bytes at line as one of its lines
static bool
s_has_line (const char *text, const char *line, size_t length)
{
    while (*text) {
        const char *newline = strchr (text, '\n');
        size_t size = newline? (size_t) (newline - text): strlen (text);
        if (size == length && memcmp (text, line, length) == 0)
            return true;
        if (!newline)
            break;
        text = newline + 1;
    }
    return false;
}

//  Return true if a worker has every label of labels, byte for byte
bool
drover_fleet_has_labels (const drover_fleet_worker_t *worker, const char *labels)
{
    assert (worker);
    if (!labels)
        return true;
    const char *have = worker->labels? worker->labels: "";
    while (*labels) {
        const char *newline = strchr (labels, '\n');
        size_t length = newline? (size_t) (newline - labels): strlen (labels);
        if (length && !s_has_line (have, labels, length))
            return false;
        if (!newline)
            break;
        labels = newline + 1;
    }
    return true;
}
