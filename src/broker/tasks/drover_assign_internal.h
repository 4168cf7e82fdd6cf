/*  =========================================================================
    drover_assign_internal - what the task table's own files share: its
    state, and the steps its parts are made of

    Only the table's parts include this: drover_assign.c,
    drover_taskattempts.c, drover_taskquery.c, drover_taskshow.c,
    drover_taskrestore.c (the table after a restart) and
    drover_taskreplica.c; everyone else uses drover_assign.h.
    =========================================================================
*/

#ifndef DROVER_ASSIGN_INTERNAL_H_INCLUDED
#define DROVER_ASSIGN_INTERNAL_H_INCLUDED

#include "drover_assign.h"
#include "drover_owners.h"
#include "drover_idhash.h"
#include "drover_ring.h"
#include "drover_taskresult.h"
#include "drover_taskrecord.h"
#include "drover_taskworker.h"
#include "drover_taskactions.h"
#include "drover_waiters.h"
#include "drover_taskhistory.h"

//  One ack deadline: the attempt must be STARTED before it
typedef struct {
    uint64_t task;              //  task id
    uint32_t attempt;           //  attempt offered
    int64_t deadline;           //  msec, monotonic
} drover_assign_ack_t;

struct _drover_assign_t {
    drover_idhash_t *tasks;     //  id -> drover_taskrecord_t, every task held
    drover_idhash_t *histories; //  id -> drover_taskhistory_t, of tasks with past attempts
    const drover_msg_t *reporting;  //  the TASK RESULT being handled, while it is
    uint64_t counts [DROVER_TASK_STATES];   //  tasks held per state
    uint64_t next_id;           //  id of the next task
    zhashx_t *workers;          //  worker id -> drover_taskworker_t (route_size 0: restored,
                                //  not registered since the restart)
    zhashx_t *keys;             //  submit key -> task id (uintptr_t), of tasks held
    drover_waiters_t *waiters;  //  who waits on which task, and their routes
    drover_ring_t *acks;        //  drover_assign_ack_t, oldest first
    drover_ring_t *finished;    //  uint64_t ids of finished tasks, oldest first
    drover_taskactions_t *actions;  //  decided, not all taken yet
    size_t kept_bytes;          //  output bytes held by results, and their tasks' bodies
    size_t queued_bytes;        //  body and label bytes of tasks not yet final
    drover_exec_t *exec;        //  scratch for TASK LIST summaries
    drover_owners_t *owners;    //  the names tasks belong to, by record's owner index
    char reason [96];           //  text behind a reason_p, until the next call
    drover_assign_clock_fn *clock;   //  wall clock, msec since the epoch (tests fake it)
    void *clock_arg;            //  its argument
    uint32_t ack_timeout;       //  msec for a worker to take an offer
    uint32_t lost_retries;      //  worker losses a task survives
    uint32_t max_queued;        //  tasks not yet final, at most
    uint32_t keep_finished;     //  finished tasks kept
    size_t max_kept_bytes;      //  output bytes kept, at most
    size_t max_queued_bytes;    //  body and label bytes of tasks not yet final, at most
    bool loaded;                //  LOADED heard: a RESTORE now is a task read back
    uint64_t recalled;          //  finished tasks read back from the history (RESTORE
                                //  after LOADED) for requests not yet answered: kept
                                //  past keep-finished and the output budget meanwhile
};

//  Start a call: drop the actions already taken and, once all are, the
//  finished tasks past keep-finished or the output budget
void
    drover_assign_begin (drover_assign_t *self);

//  Return the wall clock, msec since the epoch (the table's clock)
int64_t
    drover_assign_now (drover_assign_t *self);

//  Make a QUEUED record with id from a checked TASK SUBMIT, owned by the
//  submit's principal (not in the table yet)
drover_taskrecord_t *
    drover_assign_new_record (drover_assign_t *self, uint64_t id, const drover_msg_t *msg);

//  Find a task by id, or NULL
drover_taskrecord_t *
    drover_assign_lookup (drover_assign_t *self, uint64_t id);

//  Add a task, and its submit key
void
    drover_assign_insert (drover_assign_t *self, drover_taskrecord_t *task);

//  Remove a task from the table and free it
void
    drover_assign_remove (drover_assign_t *self, drover_taskrecord_t *task);

//  Move a task to a state, keeping the counts
void
    drover_assign_set_state (drover_assign_t *self, drover_taskrecord_t *task, int state);

//  End a task (already off its worker) with a result: tell its waiters,
//  say the event, and remember it among the finished
void
    drover_assign_finish (drover_assign_t *self, drover_taskrecord_t *task, int state,
                             drover_taskresult_t *result);

//  Put a task back in the queue after an attempt on worker ended (kept in
//  its history, with the RESULT being handled if it is this task's)
void
    drover_assign_requeue (drover_assign_t *self, drover_taskrecord_t *task,
                              const char *worker, const char *reason);

#endif
