/*  =========================================================================
    drover_change - one change the store keeps: an event, and for a task
    event the task's state after it

    assign says one for every change of a task (a CHANGE record to the
    store); the other actors' events (worker.up, worker.lost...) become
    changes with no task. The store numbers them (seq), hands each turn's
    changes to its backend in one batch, and publishes them. A backend's
    load gives each kept task back as a change too (RESTORE, to assign):
    the same fields, the submit always attached, the result once final.
    A plain value; no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_CHANGE_H_INCLUDED
#define DROVER_CHANGE_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_taskrecord_t drover_taskrecord_t;

//  One change. For a worker event task is 0 and the task fields are zero.
typedef struct {
    uint64_t seq;                   //  event sequence number, set by the store (0 until then)
    uint64_t time;                  //  wall clock, msec since the epoch
    char topic [32];                //  the event: "task.queued", "worker.lost"...
    uint64_t task;                  //  task id, 0 for a worker event
    uint32_t attempt;               //  current attempt, 0 if never assigned
    char worker [DROVER_ID_MAX + 1];    //  worker of the attempt (or of the event), or ""
    char reason [DROVER_REASON_MAX + 1];    //  free text, or ""
    uint8_t state;                  //  drover_task_state_t after the change
    uint32_t retries_left;          //  the task's own failures still allowed
    uint16_t lost;                  //  workers lost with the task so far
    char owner [DROVER_ID_MAX + 1]; //  the task's owner (its submitter's key name), or ""
    int64_t queued_at;              //  the task's times after the change, wall clock msec
                                    //  since the epoch: submitted (0: unknown)
    int64_t started_at;             //  its current (or last) attempt started, 0 if not yet
    int64_t offered_at;             //  its current (or last) attempt offered, 0 if none
    int64_t ended_at;               //  it ended, 0 if not final
    drover_msg_t *submit;           //  a new task: its TASK SUBMIT (priority, procs, mem,
                                    //  labels, timeout, retries, flags, body, key), owned
    drover_taskrecord_t *record;    //  a restored plain QUEUED task (no workflow, array,
                                    //  service, affinity, begin nor retry delay), when the
                                    //  load was asked for records: its record, made by the
                                    //  store, owned; submit is then NULL
    drover_msg_t *done;             //  a final task: a TASK DONE with its result (state,
                                    //  end, exit_code, signal, duration, truncated, out,
                                    //  err, reason), owned
    //  Workflows (format 5 of the state): what the task waits for now
    uint8_t waits;                  //  drover_waits_t after the change (QUEUED only)
    int64_t due_at;                 //  wall clock msec its begin or retry wait ends, 0 none
    uint64_t group;                 //  the array or workflow it is a member of, 0 none
    uint32_t made;                  //  an array's own id: elements made so far
    byte *history;                  //  a task with past attempts: them, encoded
                                    //  (drover_taskhistory_encode), owned, or NULL
    size_t history_size;            //  bytes
    //  Sharing a cluster (format 6 of the state)
    char *assigned;                 //  the device indices its current (or last) attempt was
                                    //  given, "gpu=0,2;fpga=4" (TASK STARTED's assigned),
                                    //  owned, or NULL none. Kept as the task's state after
                                    //  the change: each change writes it (NULL clears it)
} drover_change_t;

//  Create a change about task (0 for none) with topic; time is now
drover_change_t *
    drover_change_new (const char *topic, uint64_t task);

//  Destroy a change and the messages it holds; harmless on NULL
void
    drover_change_destroy (drover_change_t **self_p);

//  Tell whether the change ends its task (SUCCEEDED, FAILED or CANCELLED)
bool
    drover_change_final (const drover_change_t *self);

//  Fill an event (as published) from the change
void
    drover_change_event (const drover_change_t *self, drover_event_t *event);

#ifdef __cplusplus
}
#endif

#endif
