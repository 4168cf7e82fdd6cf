/*  =========================================================================
    drover_taskworker - a worker as the task table knows it, from UP until
    LOST: its id, the route to send to, and its live attempts

    The per-worker index of the table: each worker keeps its ASSIGNED and
    RUNNING tasks in an unordered array, and each task its slot in it
    (its drover_taskrun_t worker, worker_slot), so that taking one off is
    O(1) and a LOST touches only that worker's tasks. A plain record the
    table reads directly. No threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_TASKWORKER_H_INCLUDED
#define DROVER_TASKWORKER_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"
#include "drover_taskrecord.h"

#ifdef __cplusplus
extern "C" {
#endif

//  A worker we can send to
struct _drover_taskworker_t {
    char id [DROVER_ID_MAX + 1];    //  worker id
    byte route [256];           //  ROUTER routing id
    size_t route_size;          //  bytes in route
    drover_taskrecord_t **tasks;    //  its ASSIGNED and RUNNING tasks, unordered
    uint32_t ntasks;            //  entries in tasks
    uint32_t tasks_size;        //  entries allocated
    drover_taskref_t *killed;   //  attempts its last UP listed that were not current:
                                //  killed there, their RESULT not yet come
    uint32_t nkilled;           //  entries in killed
    uint32_t killed_size;       //  entries allocated
    bool settling;              //  its last UP listed attempts and schedq has not yet
                                //  been told SETTLED (said once none of killed runs)
};

//  Create a worker with no route and no tasks yet
drover_taskworker_t *
    drover_taskworker_new (const char *id);

//  Destroy the worker (not its tasks); harmless on NULL
void
    drover_taskworker_destroy (drover_taskworker_t **self_p);

//  Remember the route the worker registered from (1..255 bytes)
void
    drover_taskworker_set_route (drover_taskworker_t *self, const byte *route,
                                 size_t route_size);

//  Tell whether route is the one the worker registered from
bool
    drover_taskworker_routed (drover_taskworker_t *self, const byte *route,
                              size_t route_size);

//  Put a task (on no worker) among the worker's live attempts
void
    drover_taskworker_attach (drover_taskworker_t *self, drover_taskrecord_t *task);

//  Take a task off the worker it is on (the last task takes its slot)
void
    drover_taskworker_detach (drover_taskworker_t *self, drover_taskrecord_t *task);

//  Remember an attempt the worker runs that we told it to kill, until its
//  RESULT comes
void
    drover_taskworker_await_end (drover_taskworker_t *self, uint64_t task, uint32_t attempt);

//  An attempt's RESULT came from the worker: forget it among those killed.
//  Returns true if it was one of them.
bool
    drover_taskworker_ended (drover_taskworker_t *self, uint64_t task, uint32_t attempt);

#ifdef __cplusplus
}
#endif

#endif
