/*  =========================================================================
    drover_loadreport - the scheduler's load report to the elastic pool, as
    one frame: what waits unplaced, by shape (procs, memory, labels,
    count), and what each worker has (tasks, procs and memory used, the
    last task given it)

    schedq builds one after a pass that changed something (its demand
    shapes are the queue's groups, counted as requests come and go: a
    report costs O(shapes + workers), never O(tasks)) and says LOAD with
    it; the pool actor decodes it into the arrays drover_pool_set_load
    takes. The frame is native layout: it never leaves the process.
    A plain class: no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_LOADREPORT_H_INCLUDED
#define DROVER_LOADREPORT_H_INCLUDED

#include <czmq.h>
#include "drover_pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_loadreport_t drover_loadreport_t;

//  Demand shapes one report carries at most (the largest counts are kept)
#define DROVER_LOADREPORT_SHAPES_MAX  1000

//  Create an empty report
drover_loadreport_t *
    drover_loadreport_new (void);

//  Destroy a report; harmless on NULL
void
    drover_loadreport_destroy (drover_loadreport_t **self_p);

//  Add a demand shape (labels "k=v" joined by "\n", devices "gpu=1", ""
//  or NULL none; copied). Past DROVER_LOADREPORT_SHAPES_MAX, the smallest
//  counts drop when the report is encoded.
void
    drover_loadreport_add_demand (drover_loadreport_t *self, uint32_t procs, uint64_t mem,
                                const char *labels, const char *devices, uint32_t count);

//  Add a worker's load (id copied)
void
    drover_loadreport_add_worker (drover_loadreport_t *self, const char *id, uint32_t tasks,
                                uint32_t procs_used, uint64_t mem_used, uint64_t last_task);

//  Encode the report as one frame (caller owns it)
zframe_t *
    drover_loadreport_encode (drover_loadreport_t *self);

//  Decode a frame encode made. Returns a report, or NULL if the frame is
//  not one (our bug: logged).
drover_loadreport_t *
    drover_loadreport_decode (zframe_t *frame);

//  The report's demand shapes and workers, borrowed until it is destroyed
const drover_pooldemand_t *
    drover_loadreport_demand (drover_loadreport_t *self, size_t *count_p);
const drover_poolload_t *
    drover_loadreport_workers (drover_loadreport_t *self, size_t *count_p);

#ifdef __cplusplus
}
#endif

#endif
