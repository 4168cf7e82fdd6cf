/*  =========================================================================
    drover_loadreport - the scheduler's load report to the elastic pool, as
    one frame (see the header)

    The frame: two uint32 counts (shapes, workers), then each shape as
    procs(4) count(4) mem(8) length(4) labels, then each worker as tasks(4)
    procs-used(4) mem-used(8) last-task(8) length(4) id; native byte
    order, unaligned reads through memcpy.
    =========================================================================
*/

#include "drover_loadreport.h"
#include "drover_framecursor.h"

struct _drover_loadreport_t {
    drover_pooldemand_t *demand;    //  shapes; labels owned
    size_t ndemand;             //  entries used
    size_t demand_size;         //  entries allocated
    drover_poolload_t *workers; //  workers; ids owned
    size_t nworkers;            //  entries used
    size_t workers_size;        //  entries allocated
};


//  Create an empty report
drover_loadreport_t *
drover_loadreport_new (void)
{
    drover_loadreport_t *self = (drover_loadreport_t *) zmalloc (sizeof (drover_loadreport_t));
    return self;
}

//  Destroy a report
void
drover_loadreport_destroy (drover_loadreport_t **self_p)
{
    assert (self_p);
    drover_loadreport_t *self = *self_p;
    if (self) {
        for (size_t index = 0; index < self->ndemand; index++) {
            free ((char *) self->demand [index].labels);
            free ((char *) self->demand [index].devices);
        }
        for (size_t index = 0; index < self->nworkers; index++)
            free ((char *) self->workers [index].id);
        free (self->demand);
        free (self->workers);
        free (self);
        *self_p = NULL;
    }
}

//  Make room for one more entry of size bytes in an array
static void *
s_grow (void *array, size_t used, size_t *allocated_p, size_t size)
{
    if (used < *allocated_p)
        return array;
    *allocated_p = *allocated_p? *allocated_p * 2: 16;
    array = realloc (array, *allocated_p * size);
    assert (array);
    return array;
}

//  Add a demand shape
void
drover_loadreport_add_demand (drover_loadreport_t *self, uint32_t procs, uint64_t mem,
                            const char *labels, const char *devices, uint32_t count)
{
    assert (self);
    self->demand = (drover_pooldemand_t *) s_grow (self->demand, self->ndemand,
                                                  &self->demand_size, sizeof *self->demand);
    drover_pooldemand_t *shape = &self->demand [self->ndemand++];
    shape->procs = procs;
    shape->mem = mem;
    shape->labels = strdup (labels? labels: "");
    shape->devices = strdup (devices? devices: "");
    assert (shape->labels && shape->devices);
    shape->count = count;
}

//  Add a worker's load
void
drover_loadreport_add_worker (drover_loadreport_t *self, const char *id, uint32_t tasks,
                            uint32_t procs_used, uint64_t mem_used, uint64_t last_task)
{
    assert (self && id);
    self->workers = (drover_poolload_t *) s_grow (self->workers, self->nworkers,
                                                 &self->workers_size, sizeof *self->workers);
    drover_poolload_t *worker = &self->workers [self->nworkers++];
    worker->id = strdup (id);
    assert (worker->id);
    worker->tasks = tasks;
    worker->procs_used = procs_used;
    worker->mem_used = mem_used;
    worker->last_task = last_task;
}

//  Order shapes by count, largest first
static int
s_compare_count (const void *one, const void *two)
{
    uint32_t a = ((const drover_pooldemand_t *) one)->count;
    uint32_t b = ((const drover_pooldemand_t *) two)->count;
    return a > b? -1: a < b? 1: 0;
}

//  Encode the report as one frame
zframe_t *
drover_loadreport_encode (drover_loadreport_t *self)
{
    assert (self);
    if (self->ndemand > DROVER_LOADREPORT_SHAPES_MAX) {
        qsort (self->demand, self->ndemand, sizeof *self->demand, s_compare_count);
        for (size_t index = DROVER_LOADREPORT_SHAPES_MAX; index < self->ndemand; index++) {
            free ((char *) self->demand [index].labels);
            free ((char *) self->demand [index].devices);
        }
        self->ndemand = DROVER_LOADREPORT_SHAPES_MAX;
    }
    size_t size = 8;
    for (size_t index = 0; index < self->ndemand; index++)
        size += 20 + strlen (self->demand [index].labels) + 4
              + strlen (self->demand [index].devices);
    for (size_t index = 0; index < self->nworkers; index++)
        size += 28 + strlen (self->workers [index].id);
    zframe_t *frame = zframe_new (NULL, size);
    byte *cursor = zframe_data (frame);
    uint32_t counts [2] = { (uint32_t) self->ndemand, (uint32_t) self->nworkers };
    drover_framecursor_put (&cursor, counts, sizeof counts);
    for (size_t index = 0; index < self->ndemand; index++) {
        const drover_pooldemand_t *shape = &self->demand [index];
        drover_framecursor_put (&cursor, &shape->procs, 4);
        drover_framecursor_put (&cursor, &shape->count, 4);
        drover_framecursor_put (&cursor, &shape->mem, 8);
        drover_framecursor_put_string (&cursor, shape->labels);
        drover_framecursor_put_string (&cursor, shape->devices);
    }
    for (size_t index = 0; index < self->nworkers; index++) {
        const drover_poolload_t *worker = &self->workers [index];
        drover_framecursor_put (&cursor, &worker->tasks, 4);
        drover_framecursor_put (&cursor, &worker->procs_used, 4);
        drover_framecursor_put (&cursor, &worker->mem_used, 8);
        drover_framecursor_put (&cursor, &worker->last_task, 8);
        drover_framecursor_put_string (&cursor, worker->id);
    }
    assert (cursor == zframe_data (frame) + size);
    return frame;
}

//  Decode a frame encode made
drover_loadreport_t *
drover_loadreport_decode (zframe_t *frame)
{
    assert (frame);
    const byte *cursor = zframe_data (frame);
    const byte *end = cursor + zframe_size (frame);
    drover_loadreport_t *self = drover_loadreport_new ();
    uint32_t counts [2];
    bool ok = drover_framecursor_get (&cursor, end, counts, sizeof counts);
    for (uint32_t index = 0; ok && index < counts [0]; index++) {
        uint32_t procs, count;
        uint64_t mem;
        ok = drover_framecursor_get (&cursor, end, &procs, 4)
          && drover_framecursor_get (&cursor, end, &count, 4)
          && drover_framecursor_get (&cursor, end, &mem, 8);
        char *labels = ok? drover_framecursor_get_string (&cursor, end): NULL;
        char *devices = labels? drover_framecursor_get_string (&cursor, end): NULL;
        if (devices)
            drover_loadreport_add_demand (self, procs, mem, labels, devices, count);
        ok = devices != NULL;
        free (labels);
        free (devices);
    }
    for (uint32_t index = 0; ok && index < counts [1]; index++) {
        uint32_t tasks, procs_used;
        uint64_t mem_used, last_task;
        ok = drover_framecursor_get (&cursor, end, &tasks, 4)
          && drover_framecursor_get (&cursor, end, &procs_used, 4)
          && drover_framecursor_get (&cursor, end, &mem_used, 8)
          && drover_framecursor_get (&cursor, end, &last_task, 8);
        char *id = ok? drover_framecursor_get_string (&cursor, end): NULL;
        if (id)
            drover_loadreport_add_worker (self, id, tasks, procs_used, mem_used, last_task);
        ok = id != NULL;
        free (id);
    }
    if (!ok || cursor != end) {
        zsys_error ("loadreport: a LOAD frame of %zu bytes does not decode", zframe_size (frame));
        drover_loadreport_destroy (&self);
    }
    return self;
}

//  The report's demand shapes
const drover_pooldemand_t *
drover_loadreport_demand (drover_loadreport_t *self, size_t *count_p)
{
    assert (self && count_p);
    *count_p = self->ndemand;
    return self->demand;
}

//  The report's workers
const drover_poolload_t *
drover_loadreport_workers (drover_loadreport_t *self, size_t *count_p)
{
    assert (self && count_p);
    *count_p = self->nworkers;
    return self->workers;
}
