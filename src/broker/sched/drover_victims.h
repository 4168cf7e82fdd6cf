/*  =========================================================================
    drover_victims - which running tasks to stop on one worker to make room
    for a waiting one: preemption's choice, bounded and explainable

    A candidate may be stopped only if it is preemptible, of another
    account than the waiting task's, and stopping it is justified: the
    waiting task has a higher priority (a lower value), or the waiting
    task's account is below its fair share while the candidate's is
    above. Among those, as few as possible, the newest first (the least
    work lost): the newest one alone that frees enough if there is one,
    else the newest in turn until enough is free, then any of those no
    longer needed dropped, the oldest first. At most max. A plain
    function: no state, no threads, no I/O, no clock.
    =========================================================================
*/

#ifndef DROVER_VICTIMS_H_INCLUDED
#define DROVER_VICTIMS_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Counted devices of a demand or a worker's free ones, by name
typedef struct {
    const drover_device_t *devices; //  entries (borrowed), or NULL
    size_t ndevices;            //  how many
} drover_victims_devices_t;

//  What the waiting task needs, and what the worker has free now
typedef struct {
    int32_t priority;           //  the waiting task's priority (lower first)
    uint32_t account;           //  its account (any number telling accounts apart)
    bool below_share;           //  its account is below its fair share
    uint32_t procs;             //  procs it asks
    uint64_t mem;               //  memory it asks, bytes
    drover_victims_devices_t devices;   //  devices it asks
    uint32_t free_procs;        //  the worker's free procs
    uint64_t free_mem;          //  its free memory, bytes
    drover_victims_devices_t free_devices;  //  its free devices
} drover_victims_need_t;

//  A running task on the worker
typedef struct {
    uint64_t task;              //  task id: a larger one is newer
    int32_t priority;           //  its priority
    uint32_t account;           //  its account
    bool above_share;           //  its account is above its fair share
    bool preemptible;           //  submitted preemptible
    uint32_t procs;             //  procs it holds
    uint64_t mem;               //  memory it holds, bytes
    drover_victims_devices_t devices;   //  devices it holds
} drover_victims_task_t;

//  Return true if stopping a task for the waiting one is allowed and
//  justified
bool
    drover_victims_allowed (const drover_victims_need_t *need, const drover_victims_task_t *task);

//  Choose the tasks to stop among count running on the worker, at most
//  max, writing their indexes into chosen (room for max), newest first.
//  Returns how many, or 0 if no such set frees enough (or enough is free
//  already: nothing to stop).
size_t
    drover_victims_choose (const drover_victims_need_t *need, const drover_victims_task_t *tasks,
                           size_t count, size_t max, size_t *chosen);

#ifdef __cplusplus
}
#endif

#endif
