/*  =========================================================================
    drover_taskactions - what the task table decided to say, in order: the
    actions its caller drains and turns into messages

    The table appends actions as it decides (queue this task, offer this
    attempt to that worker, tell this waiter, publish this event...); the
    caller takes them one by one with drover_taskactions_next. Each action
    is worded here from the task it is about (drover_taskrecord), so the
    table says what happens, not how it is spelled. drover_action_t and
    the action types are in drover_assign.h, the table's public face.
    No threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_TASKACTIONS_H_INCLUDED
#define DROVER_TASKACTIONS_H_INCLUDED

#include <czmq.h>
#include "drover_assign.h"
#include "drover_taskrecord.h"
#include "drover_taskworker.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_taskactions_t drover_taskactions_t;

//  Create an empty list of actions
drover_taskactions_t *
    drover_taskactions_new (void);

//  Destroy the list; harmless on NULL
void
    drover_taskactions_destroy (drover_taskactions_t **self_p);

//  Start over once every action was taken: returns true if so (the list is
//  empty now, and nothing borrows from the table), false if the caller
//  still holds some (nothing is dropped)
bool
    drover_taskactions_reset (drover_taskactions_t *self);

//  Take the next action to carry out, or NULL when all are taken
const drover_action_t *
    drover_taskactions_next (drover_taskactions_t *self);

//  Append an action of type about task (or NULL): its id, attempt and
//  worker (current or last) filled in, other fields zero. The action is
//  the list's; fill in the rest before the next append.
drover_action_t *
    drover_taskactions_add (drover_taskactions_t *self, int type,
                            const drover_taskrecord_t *task);

//  Append an action about task naming worker and reason (either NULL:
//  unchanged)
drover_action_t *
    drover_taskactions_tell (drover_taskactions_t *self, int type, const drover_taskrecord_t *task,
                             const char *worker, const char *reason);

//  Append an EVENT topic about task in its present state (reason may be NULL)
void
    drover_taskactions_event (drover_taskactions_t *self, const drover_taskrecord_t *task,
                              const char *topic, const char *reason);

//  Append QUEUE: schedq is to place task
void
    drover_taskactions_queue (drover_taskactions_t *self, const drover_taskrecord_t *task);

//  Append OFFER of task's current attempt to the worker it is on
void
    drover_taskactions_offer (drover_taskactions_t *self, const drover_taskrecord_t *task);

//  Append KILL of an attempt, sent to worker
void
    drover_taskactions_kill (drover_taskactions_t *self, drover_taskworker_t *worker,
                             uint64_t task, uint32_t attempt);

//  Append TASK DONE for task id to a waiter at route, echoing seq: from
//  the task's result if it is held (final), else UNKNOWN, ended EXPIRED if
//  expired (the id was given out) or UNKNOWN if not; returns the action
drover_action_t *
    drover_taskactions_done (drover_taskactions_t *self, const drover_taskrecord_t *task,
                             uint64_t id, bool expired, const byte *route, size_t route_size,
                             uint32_t seq);

#ifdef __cplusplus
}
#endif

#endif
