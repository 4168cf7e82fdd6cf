/*  =========================================================================
    drover_taskrecord - one task as the task table holds it: its fields,
    then its encoded exec body and its labels, in one allocation

    A plain record the table reads and writes directly (as drover_taskresult
    is): a million queued tasks must fit in a few hundred MiB, so it is
    kept small and sized to end exactly after its labels. What is its own:
    checking a TASK SUBMIT's fields, packing one into a record, the bytes it
    holds, its row in a TASK TABLE and its description for TASK SHOW (with
    its past attempts, which the table holds apart). Its worker, waiters
    and result are the table's to set. No threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_TASKRECORD_H_INCLUDED
#define DROVER_TASKRECORD_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"
#include "drover_exec.h"
#include "drover_waiters.h"
#include "drover_taskresult.h"
#include "drover_taskhistory.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_taskworker_t drover_taskworker_t;
typedef struct _drover_taskrecord_t drover_taskrecord_t;

//  A task's current or last attempt: what only a task that was offered
//  (or restored on a worker) needs. A queued task that never ran has none,
//  so a million queued tasks do not carry these bytes; once made, it stays
//  with the task until the task is destroyed (show and explain read it).
typedef struct {
    drover_taskworker_t *worker;    //  worker of the current attempt while ASSIGNED/RUNNING
    int64_t offered_at;         //  wall clock: the current attempt offered, 0 if none
    int64_t started_at;         //  wall clock: the current attempt STARTED (or its RESULT
                                //  when no STARTED came), 0 if not yet
    uint32_t worker_slot;       //  index in worker->tasks
    uint32_t attempt;           //  current attempt, 0 if never assigned
    uint32_t retries_left;      //  own failures still allowed before FAILED
    uint16_t lost;              //  workers lost with the task so far (lost-retries)
    uint8_t cancel : 1;         //  cancel asked while ASSIGNED or RUNNING
    uint8_t adopted : 1;        //  seen in a worker's running list (during UP)
    uint8_t restored : 1;       //  its attempt was restored, schedq does not hold it yet
    uint8_t preempting : 1;     //  its attempt is being stopped to make room for another:
                                //  its RESULT queues it again, retries untouched
} drover_taskrun_t;

//  One task; body and labels follow the fields in the same allocation,
//  which is sized to end exactly after them (offsetof data, not sizeof). A
//  million queued tasks are a million of these: with a 100-byte command
//  the fields and body fit in jemalloc's 160-byte class, so the fields a
//  submit rarely sets (mem, timeout, retries) are kept in data, only by
//  the tasks that set them, and what only an attempt needs is in run,
//  which only a task that was offered has; both are read through their
//  functions.
struct _drover_taskrecord_t {
    uint64_t id;                //  task id, from 1
    drover_taskrun_t *run;      //  its current or last attempt, NULL if never offered
    union {
        drover_waitlist_t *waiters;     //  while live: waiters past the first, or NULL
        drover_taskresult_t *result;    //  once final: the last result
    };
    int64_t queued_at;          //  wall clock, msec since the epoch: submitted (0: unknown)
    drover_waiter_t waiter;     //  first waiter (route 0: none), while live
    int32_t priority;           //  lower runs first
    uint32_t procs;             //  procs demanded
    uint32_t body_size : 22;    //  bytes of body at data, <= DROVER_BODY_MAX
    uint32_t state : 3;         //  drover_task_state_t, never UNKNOWN
    uint32_t has_labels : 1;    //  labels follow the body
    uint32_t has_key : 1;       //  a submit key follows the labels
    uint32_t has_history : 1;   //  the table holds past attempts of it (drover_taskhistory)
    uint32_t replica : 1;       //  a service's replica (its submit named a service): never
                                //  requeued, an attempt that ends with its worker ends it
    uint32_t has_devices : 1;   //  a device demand follows the key (level 4)
    uint32_t preemptible : 1;   //  submitted DROVER_SUBMIT_PREEMPTIBLE (level 4)
    uint32_t has_extra : 1;     //  data begins with the rare submit fields (a mem,
                                //  timeout or retries other than 0): drover_taskrecord_mem
    uint16_t owner;             //  its owner's index in the table's drover_owners (0: "")
    byte data [];               //  the rare submit fields if has_extra, then body, then
                                //  labels "\n"-joined and NUL-ended, then key NUL-ended,
                                //  then devices ("gpu=2,fpga=1") NUL-ended
};

//  Return the task's attempt, made (empty, its retries left those asked)
//  if it has none yet: what sets an attempt's fields calls this
drover_taskrun_t *
    drover_taskrecord_run (drover_taskrecord_t *self);

//  Return the worker of the current attempt while ASSIGNED/RUNNING, or NULL
static inline drover_taskworker_t *
drover_taskrecord_on (const drover_taskrecord_t *self)
{
    return self->run? self->run->worker: NULL;
}

//  Return the current attempt, 0 if never assigned
static inline uint32_t
drover_taskrecord_attempt (const drover_taskrecord_t *self)
{
    return self->run? self->run->attempt: 0;
}

//  Return the time the current attempt started, 0 if not yet
static inline int64_t
drover_taskrecord_started_at (const drover_taskrecord_t *self)
{
    return self->run? self->run->started_at: 0;
}

//  Return the time the current attempt was offered, 0 if none
static inline int64_t
drover_taskrecord_offered_at (const drover_taskrecord_t *self)
{
    return self->run? self->run->offered_at: 0;
}

//  Return the workers lost with the task so far
static inline uint16_t
drover_taskrecord_lost (const drover_taskrecord_t *self)
{
    return self->run? self->run->lost: 0;
}

//  Tell whether a cancel was asked while ASSIGNED or RUNNING
static inline bool
drover_taskrecord_cancel (const drover_taskrecord_t *self)
{
    return self->run && self->run->cancel;
}

//  Check a TASK SUBMIT's fields. Returns 200, or the ERROR code (400, 413)
//  with *reason_p set, pointing into buffer when the reason is composed.
int
    drover_taskrecord_check (const drover_msg_t *msg, char *buffer, size_t buffer_size,
                             const char **reason_p);

//  Return the bytes a checked TASK SUBMIT's labels take in a record
size_t
    drover_taskrecord_labels_size (const drover_msg_t *msg);

//  Create a QUEUED record with id from a checked TASK SUBMIT (only reads msg)
drover_taskrecord_t *
    drover_taskrecord_new (uint64_t id, const drover_msg_t *msg);

//  Destroy a record and its waiters (while live) or its result (once
//  final); harmless on NULL. It must be off its worker.
void
    drover_taskrecord_destroy (drover_taskrecord_t **self_p);

//  Tell whether the task is final: SUCCEEDED, FAILED or CANCELLED
bool
    drover_taskrecord_final (const drover_taskrecord_t *self);

//  Return the bytes of body, labels, key and devices the record holds
size_t
    drover_taskrecord_bytes (const drover_taskrecord_t *self);

//  Return the exec body, body_size bytes (borrowed)
const byte *
    drover_taskrecord_body (const drover_taskrecord_t *self);

//  Return the bytes of memory demanded (0: none)
uint64_t
    drover_taskrecord_mem (const drover_taskrecord_t *self);

//  Return the timeout in msec (0: none)
uint32_t
    drover_taskrecord_timeout (const drover_taskrecord_t *self);

//  Return the retries asked at submit
uint32_t
    drover_taskrecord_retries (const drover_taskrecord_t *self);

//  Return the own failures still allowed before FAILED
uint32_t
    drover_taskrecord_retries_left (const drover_taskrecord_t *self);

//  Set the retries asked to 0 (a replica is never retried)
void
    drover_taskrecord_clear_retries (drover_taskrecord_t *self);

//  Return the submit key, or NULL if none (borrowed)
const char *
    drover_taskrecord_key (const drover_taskrecord_t *self);

//  Return the device demand, canonical ("gpu=2,fpga=1"), or "" (borrowed)
const char *
    drover_taskrecord_devices (const drover_taskrecord_t *self);

//  Return the labels, "k=v" joined by "\n", or "" (borrowed)
const char *
    drover_taskrecord_labels (const drover_taskrecord_t *self);

//  Return the worker of the current or last attempt, or "" (borrowed)
const char *
    drover_taskrecord_worker (const drover_taskrecord_t *self);

//  Fill a TASK TABLE row for the task; its summary (argv, decoded with
//  exec as scratch) is the row's to free
void
    drover_taskrecord_row (const drover_taskrecord_t *self, drover_exec_t *exec,
                           drover_task_row_t *row);

//  Describe the task for TASK SHOW: its fields, command (the environment's
//  names, not values; decoded with exec as scratch), times, result, and
//  attempts (history's, NULL if none, then the current or last one);
//  owner is its owner's name. Returns a new info the caller destroys.
drover_taskinfo_t *
    drover_taskrecord_info (const drover_taskrecord_t *self,
                            const drover_taskhistory_t *history, const char *owner,
                            drover_exec_t *exec);

#ifdef __cplusplus
}
#endif

#endif
