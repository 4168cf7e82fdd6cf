/*  =========================================================================
    drover_assign - the task table: every task's state, attempt, worker,
    budgets, last result and waiters; fences results by (task, attempt)

    A task is one allocation (drover_taskrecord): a struct of plain fields
    followed by its encoded exec body and its labels, so that a million
    queued tasks fit in a few hundred MiB. Tasks are found by id in an
    open-addressing hash (drover_idhash); each worker (drover_taskworker)
    keeps its live attempts in an intrusive list, so a LOST touches only
    that worker's tasks. What the table decides to say is worded and
    queued by drover_taskactions. Ack deadlines all
    share one timeout, so they sit in a FIFO (drover_ring) and are checked
    from its head; finished tasks sit in another FIFO, oldest evicted
    first. Clients waiting on tasks are held as references into a registry
    of their routes (drover_clientids), one entry per client however many
    tasks it waits on. Nothing here scans the table, except TASK LIST
    rows.

    Execution is at-least-once; what a client sees is exactly one result:
    a TASK STARTED or RESULT counts only for the task's current attempt,
    from the worker it was offered to, while the task is ASSIGNED or
    RUNNING. Anything else is STALE and dropped. A task's own failures use
    up its retries; infrastructure failures (a lost worker, an offer not
    acknowledged in time) use up lost-retries instead, so that a task that
    kills every worker it lands on is stopped as poison.

    The file reads top-down: the table and its settings, its tasks by id,
    its actions, the state changes, the clients' requests (SUBMIT, CANCEL,
    WAIT), attempts on workers (offered, taken, ended, lost), queries (TASK
    LIST, TASK SHOW, a task's fields), the table after a restart, and a
    service's replicas. A task's TASK SHOW description is the record's own
    (drover_taskrecord_info).
    =========================================================================
*/

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
#include "drover_change.h"
#include "drover_defaults.h"

//  One ack deadline: the attempt must be STARTED before it
typedef struct {
    uint64_t task;              //  task id
    uint32_t attempt;           //  attempt offered
    int64_t deadline;           //  msec, monotonic
} s_ack_t;

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
    drover_ring_t *acks;        //  s_ack_t, oldest first
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

static void s_task_destroy (drover_assign_t *self, drover_taskrecord_t **task_p);
static void s_begin (drover_assign_t *self);
static void s_keep_attempt (drover_assign_t *self, drover_taskrecord_t *task,
                            const char *worker, const char *reason);


//  ---------------------------------------------------------------------
//  The table and its settings

//  The default clock: the system's wall clock
static int64_t
s_system_clock (void *arg)
{
    return zclock_time ();
}

//  Create an empty task table with the default settings
drover_assign_t *
drover_assign_new (void)
{
    drover_assign_t *self = (drover_assign_t *) zmalloc (sizeof (drover_assign_t));
    self->tasks = drover_idhash_new ();
    self->histories = drover_idhash_new ();
    self->next_id = 1;
    self->keys = zhashx_new ();
    self->workers = zhashx_new ();
    zhashx_set_destructor (self->workers, (zhashx_destructor_fn *) drover_taskworker_destroy);
    self->waiters = drover_waiters_new (DROVER_ASSIGN_MAX_WAITERS);
    self->acks = drover_ring_new (sizeof (s_ack_t));
    self->finished = drover_ring_new (sizeof (uint64_t));
    self->actions = drover_taskactions_new ();
    self->exec = drover_exec_new ();
    self->owners = drover_owners_new ();
    self->clock = s_system_clock;
    self->ack_timeout = DROVER_DEFAULT_ACK_TIMEOUT;
    self->lost_retries = DROVER_DEFAULT_LOST_RETRIES;
    self->max_queued = DROVER_DEFAULT_MAX_QUEUED;
    self->keep_finished = DROVER_DEFAULT_KEEP_FINISHED;
    self->max_kept_bytes = DROVER_DEFAULT_KEEP_FINISHED_BYTES;
    self->max_queued_bytes = DROVER_DEFAULT_MAX_QUEUED_BYTES;
    return self;
}

//  Destroy the table and every task in it; harmless on NULL
void
drover_assign_destroy (drover_assign_t **self_p)
{
    assert (self_p);
    drover_assign_t *self = *self_p;
    if (!self)
        return;
    for (size_t slot = 0; slot < drover_idhash_slots (self->tasks); slot++) {
        drover_taskrecord_t *task = (drover_taskrecord_t *) drover_idhash_slot (self->tasks, slot);
        s_task_destroy (self, &task);
    }
    drover_idhash_destroy (&self->tasks);
    for (size_t slot = 0; slot < drover_idhash_slots (self->histories); slot++) {
        drover_taskhistory_t *history = (drover_taskhistory_t *)
            drover_idhash_slot (self->histories, slot);
        drover_taskhistory_destroy (&history);
    }
    drover_idhash_destroy (&self->histories);
    zhashx_destroy (&self->workers);
    zhashx_destroy (&self->keys);
    drover_waiters_destroy (&self->waiters);
    drover_ring_destroy (&self->acks);
    drover_ring_destroy (&self->finished);
    drover_taskactions_destroy (&self->actions);
    drover_exec_destroy (&self->exec);
    drover_owners_destroy (&self->owners);
    free (self);
    *self_p = NULL;
}

//  Free one task and what hangs off it (not unlinked from anything, its
//  waiters' routes not released: only for final tasks or the whole table)
static void
s_task_destroy (drover_assign_t *self, drover_taskrecord_t **task_p)
{
    drover_taskrecord_t *task = *task_p;
    if (!task)
        return;
    if (drover_taskrecord_final (task))
        self->kept_bytes -= drover_taskresult_bytes (task->result) + drover_taskrecord_bytes (task);
    drover_taskrecord_destroy (task_p);
}

//  Apply the broker's settings
void
drover_assign_configure (drover_assign_t *self, uint32_t ack_timeout,
                            uint32_t lost_retries, uint32_t max_queued,
                            uint32_t keep_finished)
{
    assert (self);
    self->ack_timeout = ack_timeout;
    self->lost_retries = lost_retries;
    self->max_queued = max_queued;
    self->keep_finished = keep_finished;
}

//  Set the wall clock the table stamps times with
void
drover_assign_set_clock (drover_assign_t *self, drover_assign_clock_fn *clock, void *arg)
{
    assert (self && clock);
    self->clock = clock;
    self->clock_arg = arg;
}

//  Return the table's wall clock, msec since the epoch
static int64_t
s_now (drover_assign_t *self)
{
    return self->clock (self->clock_arg);
}

//  Set the most waiters on all tasks together
void
drover_assign_set_max_waiters (drover_assign_t *self, size_t max_waiters)
{
    assert (self);
    drover_waiters_set_max (self->waiters, max_waiters);
}

//  Set the most result output bytes kept for finished tasks
void
drover_assign_set_max_kept_bytes (drover_assign_t *self, size_t max_bytes)
{
    assert (self);
    self->max_kept_bytes = max_bytes;
}

//  Set the most body and label bytes held for tasks not yet final
void
drover_assign_set_max_queued_bytes (drover_assign_t *self, size_t max_bytes)
{
    assert (self);
    self->max_queued_bytes = max_bytes;
}


//  ---------------------------------------------------------------------
//  Tasks by id

//  Make a record from a submit, owned by the submit's principal
static drover_taskrecord_t *
s_new_record (drover_assign_t *self, uint64_t id, const drover_msg_t *msg)
{
    drover_taskrecord_t *task = drover_taskrecord_new (id, msg);
    task->owner = drover_owners_index (self->owners, msg->principal);
    task->queued_at = s_now (self);
    return task;
}

//  Find a task by id, or NULL
static drover_taskrecord_t *
s_lookup (drover_assign_t *self, uint64_t id)
{
    return (drover_taskrecord_t *) drover_idhash_lookup (self->tasks, id);
}

//  Add a task, and its submit key
static void
s_insert (drover_assign_t *self, drover_taskrecord_t *task)
{
    drover_idhash_insert (self->tasks, task);
    self->counts [task->state]++;
    if (task->has_key)
        zhashx_update (self->keys, drover_taskrecord_key (task), (void *) (uintptr_t) task->id);
}

//  Remove a finished task from the table and free it
static void
s_remove (drover_assign_t *self, drover_taskrecord_t *task)
{
    if (task->has_key)
        zhashx_delete (self->keys, drover_taskrecord_key (task));
    if (task->has_history) {
        drover_taskhistory_t *history = (drover_taskhistory_t *)
            drover_idhash_lookup (self->histories, task->id);
        drover_idhash_delete (self->histories, history);
        drover_taskhistory_destroy (&history);
    }
    drover_idhash_delete (self->tasks, task);
    self->counts [task->state]--;
    s_task_destroy (self, &task);
}


//  ---------------------------------------------------------------------
//  Actions

//  Take the next action to carry out, or NULL when all are done
const drover_action_t *
drover_assign_next_action (drover_assign_t *self)
{
    assert (self);
    return drover_taskactions_next (self->actions);
}

//  Tell whether an id not in the table was given out: ids grow from 1 and
//  are never reused, so such a task ended and its result was dropped
static bool
s_expired (drover_assign_t *self, uint64_t id)
{
    return id >= 1 && id < self->next_id;
}

//  Tell whether a task was given out and is no longer held: it ended and
//  its result was dropped past keep-finished (the durable history may
//  still have it)
bool
drover_assign_evicted (drover_assign_t *self, uint64_t id)
{
    assert (self);
    s_begin (self);
    return s_expired (self, id) && !s_lookup (self, id);
}

//  The requests the tasks read back were for are answered: those tasks are
//  finished tasks like any other from now on
void
drover_assign_recalled (drover_assign_t *self, uint64_t count)
{
    assert (self);
    self->recalled -= count < self->recalled? count: self->recalled;
}

//  Drop actions already taken and, once all are taken, the finished tasks
//  past keep-finished or past the output budget (nothing borrows them now)
static void
s_begin (drover_assign_t *self)
{
    self->reason [0] = 0;
    if (!drover_taskactions_reset (self->actions))
        return;                 //  the caller still holds actions: free nothing
    //  Oldest first: the tasks read back for a request, the newest, stay
    //  until it is answered
    while (drover_ring_size (self->finished) > self->keep_finished + self->recalled
    ||    (drover_ring_size (self->finished) > self->recalled
           && self->kept_bytes > self->max_kept_bytes)) {
        uint64_t id = *(uint64_t *) drover_ring_head (self->finished);
        drover_ring_pop (self->finished);
        drover_taskrecord_t *task = s_lookup (self, id);
        if (task)
            s_remove (self, task);
    }
}


//  ---------------------------------------------------------------------
//  State changes

//  Move a task to a state, keeping the counts
static void
s_set_state (drover_assign_t *self, drover_taskrecord_t *task, int state)
{
    self->counts [task->state]--;
    self->counts [state]++;
    task->state = (uint8_t) state;
}

//  Topic of the event for a final state
static const char *
s_final_topic (int state)
{
    return state == DROVER_TASK_SUCCEEDED? "task.succeeded":
           state == DROVER_TASK_FAILED? "task.failed": "task.cancelled";
}

//  Send TASK DONE to one waiter of a finished task, and let it go
static void
s_notify (drover_assign_t *self, drover_taskrecord_t *task, drover_waiter_t waiter)
{
    size_t route_size;
    const byte *route = drover_waiters_route (self->waiters, waiter, &route_size);
    drover_taskactions_done (self->actions, task, task->id, false, route, route_size,
                             waiter.seq);
    drover_waiters_release (self->waiters, waiter);
}

//  End a task (already off its worker) with a result: tell its waiters,
//  say the event, and remember it among the finished
static void
s_finish (drover_assign_t *self, drover_taskrecord_t *task, int state,
          drover_taskresult_t *result)
{
    assert (!task->worker && !drover_taskrecord_final (task));
    result->end = drover_taskresult_end_of (result, state);
    result->ended_at = s_now (self);
    drover_waitlist_t *more = task->waiters;    //  read before result takes its place
    drover_waiter_t first = task->waiter;
    task->waiter.route = 0;
    s_set_state (self, task, state);
    task->result = result;
    //  Its body is kept with its result now: bounded with the outputs
    self->queued_bytes -= drover_taskrecord_bytes (task);
    self->kept_bytes += drover_taskresult_bytes (result) + drover_taskrecord_bytes (task);
    drover_taskactions_event (self->actions, task, s_final_topic (state), result->reason);
    if (first.route)
        s_notify (self, task, first);
    for (uint32_t index = 0; index < drover_waitlist_size (more); index++)
        s_notify (self, task, drover_waitlist_at (more, index));
    drover_waitlist_destroy (&more);
    drover_ring_push (self->finished, &task->id);
}

//  Keep the current attempt, which ended without ending the task, in the
//  task's history: its worker, its times, and how it ended (the RESULT
//  being handled if it is this task's)
static void
s_keep_attempt (drover_assign_t *self, drover_taskrecord_t *task, const char *worker,
                const char *reason)
{
    drover_attempt_t attempt;
    memset (&attempt, 0, sizeof attempt);
    attempt.attempt = task->attempt;
    snprintf (attempt.worker, sizeof attempt.worker, "%s", worker? worker: "");
    attempt.offered_at = task->offered_at;
    attempt.started_at = task->started_at;
    attempt.ended_at = s_now (self);
    attempt.outcome = DROVER_ATTEMPT_NO_RESULT;
    attempt.exit_code = -1;
    attempt.requeued = true;
    const drover_msg_t *result = self->reporting;
    if (result && result->task == task->id) {
        attempt.outcome = result->outcome;
        attempt.exit_code = result->exit_code;
        attempt.signal = result->signal;
        if (!attempt.started_at)
            attempt.started_at = attempt.ended_at;      //  its STARTED never came
    }
    snprintf (attempt.reason, sizeof attempt.reason, "%s", reason? reason: "");
    drover_taskhistory_t *history = NULL;
    if (task->has_history)
        history = (drover_taskhistory_t *) drover_idhash_lookup (self->histories, task->id);
    if (!history) {
        history = drover_taskhistory_new (task->id);
        drover_idhash_insert (self->histories, history);
        task->has_history = true;
    }
    drover_taskhistory_add (history, &attempt);
}

//  Put a task back in the queue after an attempt on worker ended; a
//  replica is never requeued: it ends FAILED (LOST), and the reconciler
//  starts another where it chooses
static void
s_requeue (drover_assign_t *self, drover_taskrecord_t *task, const char *worker,
           const char *reason)
{
    if (task->replica) {
        drover_taskresult_t *result = drover_taskresult_new (worker, reason);
        result->end = DROVER_END_LOST;
        s_finish (self, task, DROVER_TASK_FAILED, result);
        return;
    }
    s_keep_attempt (self, task, worker, reason);
    s_set_state (self, task, DROVER_TASK_QUEUED);
    task->offered_at = task->started_at = 0;     //  no current attempt until the next offer
    drover_taskactions_tell (self->actions, DROVER_ACTION_EVENT, task, worker, reason)->topic
        = "task.requeued";
    drover_taskactions_queue (self->actions, task);
}

//  Add route as a waiter of a live task (see drover_waiters_add)
static int
s_waiter_add (drover_assign_t *self, drover_taskrecord_t *task,
              const byte *route, size_t route_size, uint32_t seq)
{
    return drover_waiters_add (self->waiters, &task->waiter, &task->waiters,
                               route, route_size, seq);
}

//  ---------------------------------------------------------------------
//  Requests from clients

//  TASK SUBMIT from route: validate, store, queue
int
drover_assign_submit (drover_assign_t *self, drover_msg_t *msg,
                         const byte *route, size_t route_size,
                         uint64_t *task_p, const char **reason_p)
{
    assert (self && msg && task_p && reason_p);
    s_begin (self);
    *task_p = 0;
    *reason_p = "";
    int code = drover_taskrecord_check (msg, self->reason, sizeof self->reason, reason_p);
    if (code != DROVER_CODE_OK)
        return code;
    uintptr_t known = msg->key? (uintptr_t) zhashx_lookup (self->keys, msg->key): 0;
    if (known) {
        //  Submitted before with this key: the same task, not another
        *task_p = (uint64_t) known;
        *reason_p = "submitted before with this key";
        return DROVER_CODE_OK;
    }
    uint64_t live = self->counts [DROVER_TASK_QUEUED] + self->counts [DROVER_TASK_ASSIGNED]
                  + self->counts [DROVER_TASK_RUNNING];
    if (live >= self->max_queued) {
        *reason_p = "queue full";
        return DROVER_CODE_QUEUE_FULL;
    }
    bool notify = (msg->flags & DROVER_SUBMIT_NOTIFY) != 0;
    if (notify && drover_waiters_full (self->waiters)) {
        *reason_p = "too many waiters";
        return DROVER_CODE_TOO_MANY;
    }
    size_t labels_size = drover_taskrecord_labels_size (msg);
    if (self->queued_bytes + msg->body_size + labels_size > self->max_queued_bytes) {
        *reason_p = "queue full: max-queued-bytes";
        return DROVER_CODE_QUEUE_FULL;
    }

    drover_taskrecord_t *task = s_new_record (self, self->next_id++, msg);
    s_insert (self, task);
    self->queued_bytes += drover_taskrecord_bytes (task);
    if (notify && s_waiter_add (self, task, route, route_size, 0) != 0)
        assert (false);         //  room was checked above, and the task is new
    drover_taskactions_event (self->actions, task, "task.queued", NULL);
    drover_taskactions_queue (self->actions, task);
    *task_p = task->id;
    return DROVER_CODE_OK;
}

//  TASK CANCEL: now if queued; by a kill if it runs; refused if final
int
drover_assign_cancel (drover_assign_t *self, uint64_t id, const char **reason_p)
{
    assert (self && reason_p);
    s_begin (self);
    *reason_p = "";
    drover_taskrecord_t *task = s_lookup (self, id);
    if (!task && s_expired (self, id)) {
        *reason_p = "already finished (its result expired)";
        return DROVER_CODE_CONFLICT;
    }
    if (!task) {
        *reason_p = "unknown task";
        return DROVER_CODE_NOT_FOUND;
    }
    if (drover_taskrecord_final (task)) {
        snprintf (self->reason, sizeof self->reason, "already %s",
                  drover_task_state_name (task->state));
        *reason_p = self->reason;
        return DROVER_CODE_CONFLICT;
    }
    if (task->state == DROVER_TASK_QUEUED) {
        drover_taskactions_tell (self->actions, DROVER_ACTION_DEQUEUE, task, NULL, NULL);
        s_finish (self, task, DROVER_TASK_CANCELLED, drover_taskresult_new (NULL, "cancelled while queued"));
        *reason_p = "cancelled";
        return DROVER_CODE_OK;
    }
    //  ASSIGNED or RUNNING: the result (or a loss) will say CANCELLED
    task->cancel = true;
    drover_taskactions_kill (self->actions, task->worker, task->id, task->attempt);
    *reason_p = "kill sent";
    return DROVER_CODE_OK;
}

//  TASK WAIT from route: answer what is known now, the rest when it ends
int
drover_assign_wait (drover_assign_t *self, const uint64_t *tasks,
                       size_t count, uint32_t seq,
                       const byte *route, size_t route_size,
                       const char **reason_p)
{
    assert (self && reason_p);
    s_begin (self);
    *reason_p = "";
    if (count == 0 || !tasks) {
        *reason_p = "no task ids to wait for";
        return DROVER_CODE_BAD_REQUEST;
    }
    size_t refused = 0;
    size_t repeated = 0;        //  already waited on by this route: seq updated
    for (size_t index = 0; index < count; index++) {
        drover_taskrecord_t *task = s_lookup (self, tasks [index]);
        int added = -1;
        if (!task || drover_taskrecord_final (task))
            drover_taskactions_done (self->actions, task, tasks [index],
                                     s_expired (self, tasks [index]), route, route_size, seq);
        else
        if ((added = s_waiter_add (self, task, route, route_size, seq)) < 0)
            refused++;
        else
        if (added > 0)
            repeated++;
    }
    if (refused) {
        snprintf (self->reason, sizeof self->reason, "too many waiters: %zu of %zu ids not waited on",
                  refused, count);
        *reason_p = self->reason;
        return DROVER_CODE_TOO_MANY;
    }
    if (repeated) {
        snprintf (self->reason, sizeof self->reason,
                  "%zu of %zu ids already waited on: their DONE has this seq", repeated, count);
        *reason_p = self->reason;
    }
    return DROVER_CODE_OK;
}


static void s_take_result (drover_assign_t *self, drover_taskrecord_t *task,
                           drover_msg_t *msg);

//  ---------------------------------------------------------------------
//  Attempts: those that end with their worker or its host
//
//  A report counts only from the connection the worker registered on, and
//  only for the task's current attempt (see the top). An attempt lost with
//  its worker uses up lost-retries; one its host could not run puts the
//  worker on probation and uses up nothing.

//  An attempt ended with its worker (lost, or registered again without
//  it): cancel it if asked, stop it as poison past lost-retries,
//  else queue it again. The task is already off its worker.
static void
s_lose (drover_assign_t *self, drover_taskrecord_t *task, const char *worker, const char *reason)
{
    char text [DROVER_REASON_MAX + 1];
    if (task->cancel) {
        snprintf (text, sizeof text, "cancelled (%s)", reason);
        s_finish (self, task, DROVER_TASK_CANCELLED, drover_taskresult_new (worker, text));
    }
    else
    if ((task->lost < UINT16_MAX? ++task->lost: task->lost) > self->lost_retries) {
        //  One loss ends it only when lost-retries is 0 (no rerun allowed):
        //  that is LOST; more than one, it keeps taking machines down
        drover_taskresult_t *result;
        if (task->lost == 1) {
            snprintf (text, sizeof text, "%s", reason);
            result = drover_taskresult_new (worker, text);
            result->end = DROVER_END_LOST;
        }
        else {
            snprintf (text, sizeof text, "poison: lost %u workers", task->lost);
            result = drover_taskresult_new (worker, text);
            result->end = DROVER_END_POISON;
        }
        s_finish (self, task, DROVER_TASK_FAILED, result);
    }
    else
        s_requeue (self, task, worker, reason);
}

//  The current attempt failed because of the worker's host (an offer it
//  did not acknowledge, a spawn the host could not do), not because of the
//  task: put the worker on probation, then queue the task again without
//  using up its retries or lost-retries. The FAILURE comes first, so schedq
//  holds the worker back before it places the requeued task (ACTORS.md).
static void
s_host_failed (drover_assign_t *self, drover_taskrecord_t *task, const char *reason)
{
    drover_taskworker_t *worker = task->worker;
    assert (worker);
    drover_taskactions_tell (self->actions, DROVER_ACTION_FAILURE, task, NULL, reason);
    drover_taskworker_detach (task->worker, task);
    drover_taskactions_tell (self->actions, DROVER_ACTION_FREE, task, worker->id, NULL);
    if (task->cancel) {
        char text [DROVER_REASON_MAX + 1];
        snprintf (text, sizeof text, "cancelled (%s)", reason);
        s_finish (self, task, DROVER_TASK_CANCELLED, drover_taskresult_new (worker->id, text));
    }
    else
        s_requeue (self, task, worker->id, reason);
}

//  Say SETTLED: what the worker's UP listed is counted (the PLACED said
//  before) and the attempts it was told to kill have ended, so schedq may
//  give it work; nothing more is awaited from that UP
static void
s_settled (drover_assign_t *self, drover_taskworker_t *worker)
{
    worker->settling = false;
    worker->nkilled = 0;
    drover_action_t *action = drover_taskactions_add (self->actions, DROVER_ACTION_SETTLED, NULL);
    snprintf (action->worker, sizeof action->worker, "%s", worker->id);
}

//  ---------------------------------------------------------------------
//  Attempts: traffic from workers

//  Find a worker that is up (its UP heard since it was restored), or NULL
static drover_taskworker_t *
s_worker_up (drover_assign_t *self, const char *worker_id)
{
    drover_taskworker_t *worker = (drover_taskworker_t *) zhashx_lookup (self->workers, worker_id);
    return worker && worker->route_size? worker: NULL;
}

//  Find a task whose current attempt runs on worker, or say why not
static int
s_find_current (drover_assign_t *self, const char *worker, uint64_t id,
                uint32_t attempt, drover_taskrecord_t **task_p, const char **reason_p)
{
    drover_taskrecord_t *task = s_lookup (self, id);
    *task_p = task;
    if (!task) {
        *reason_p = "unknown task";
        return DROVER_CODE_NOT_FOUND;
    }
    if ((task->state != DROVER_TASK_ASSIGNED && task->state != DROVER_TASK_RUNNING)
    ||  task->attempt != attempt || !task->worker || strcmp (task->worker->id, worker)) {
        snprintf (self->reason, sizeof self->reason, "stale: attempt %u is not current", attempt);
        *reason_p = self->reason;
        return DROVER_CODE_STALE;
    }
    return DROVER_CODE_OK;
}

//  A report counts only from the connection the worker registered on: an
//  id and an attempt number are easy to name from anywhere
int
drover_assign_fence (drover_assign_t *self, const char *worker_id,
                        const byte *route, size_t route_size, const char **reason_p)
{
    assert (self && worker_id && route && reason_p);
    drover_taskworker_t *worker = (drover_taskworker_t *) zhashx_lookup (self->workers, worker_id);
    if (!worker) {
        *reason_p = "not registered: say HELLO";
        return DROVER_CODE_NOT_REGISTERED;
    }
    if (!drover_taskworker_routed (worker, route, route_size)) {
        *reason_p = "not registered on this connection";
        return DROVER_CODE_NOT_REGISTERED;
    }
    *reason_p = "";
    return DROVER_CODE_OK;
}

//  Return true if the worker is up
bool
drover_assign_has_worker (drover_assign_t *self, const char *worker)
{
    assert (self && worker);
    return s_worker_up (self, worker) != NULL;
}

//  TASK STARTED from worker: the offer was taken
int
drover_assign_started (drover_assign_t *self, const char *worker,
                          uint64_t id, uint32_t attempt, const char **reason_p)
{
    assert (self && worker && reason_p);
    s_begin (self);
    *reason_p = "";
    drover_taskrecord_t *task;
    int code = s_find_current (self, worker, id, attempt, &task, reason_p);
    if (code != DROVER_CODE_OK)
        return code;
    if (task->state == DROVER_TASK_ASSIGNED) {
        s_set_state (self, task, DROVER_TASK_RUNNING);
        task->started_at = s_now (self);
        drover_taskactions_event (self->actions, task, "task.running", NULL);
        drover_taskactions_tell (self->actions, DROVER_ACTION_SUCCESS, task, NULL, NULL);
    }
    return DROVER_CODE_OK;      //  a repeated ack changes nothing
}

//  TASK RESULT from a worker: end the task, or retry it on its own failure
int
drover_assign_result (drover_assign_t *self, drover_msg_t *msg, const char **reason_p)
{
    assert (self && msg && reason_p);
    s_begin (self);
    *reason_p = "";
    drover_taskworker_t *from = s_worker_up (self, msg->worker);
    if (from && from->nkilled && drover_taskworker_ended (from, msg->task, msg->attempt)
    &&  from->nkilled == 0 && from->settling)
        s_settled (self, from);         //  the last attempt it was told to kill ended
    drover_taskrecord_t *task;
    int code = s_find_current (self, msg->worker, msg->task, msg->attempt, &task, reason_p);
    if (code != DROVER_CODE_OK)
        return code;
    self->reporting = msg;
    s_take_result (self, task, msg);
    self->reporting = NULL;
    return DROVER_CODE_OK;
}

//  End the current attempt of a task with its RESULT
static void
s_take_result (drover_assign_t *self, drover_taskrecord_t *task, drover_msg_t *msg)
{
    if (msg->outcome == DROVER_OUTCOME_MACHINE_FAILED) {
        //  The worker could not start it for want of something of its own
        char text [DROVER_REASON_MAX + 1];
        snprintf (text, sizeof text, "machine failed: %s", msg->reason? msg->reason: "");
        s_host_failed (self, task, text);
        return;
    }
    if (!task->started_at)
        task->started_at = s_now (self);     //  its STARTED never came
    drover_taskworker_detach (task->worker, task);
    drover_taskactions_tell (self->actions, DROVER_ACTION_FREE, task, msg->worker, NULL);
    drover_taskactions_tell (self->actions, DROVER_ACTION_SUCCESS, task, msg->worker, NULL);
    char text [DROVER_REASON_MAX + 1];
    if (msg->outcome == DROVER_OUTCOME_EXITED && msg->exit_code == 0)
        //  Done, even if a cancel came too late to stop it
        s_finish (self, task, DROVER_TASK_SUCCEEDED, drover_taskresult_take (msg, msg->worker, NULL));
    else
    if (task->cancel)
        s_finish (self, task, DROVER_TASK_CANCELLED, drover_taskresult_take (msg, msg->worker, "cancelled"));
    else {
        drover_taskresult_describe (msg, text, sizeof text);
        if (task->retries_left > 0) {
            task->retries_left--;
            s_requeue (self, task, msg->worker, text);
        }
        else
            s_finish (self, task, DROVER_TASK_FAILED, drover_taskresult_take (msg, msg->worker, text));
    }
}


//  ---------------------------------------------------------------------
//  Attempts: decisions from schedq and health

//  ASSIGN pair: offer the task to the worker, or give the capacity back
void
drover_assign_assign (drover_assign_t *self, uint64_t id, const char *worker_id, int64_t now)
{
    assert (self && worker_id);
    s_begin (self);
    drover_taskrecord_t *task = s_lookup (self, id);
    drover_taskworker_t *worker = s_worker_up (self, worker_id);
    if (!task || task->state != DROVER_TASK_QUEUED || !worker) {
        drover_action_t *action = drover_taskactions_add (self->actions, DROVER_ACTION_FREE, NULL);
        action->task = id;
        snprintf (action->worker, sizeof action->worker, "%s", worker_id);
        if (task && task->state == DROVER_TASK_QUEUED)
            drover_taskactions_queue (self->actions, task);       //  worker gone: place it again
        return;
    }
    task->attempt++;
    task->restored = false;
    task->offered_at = s_now (self);
    task->started_at = 0;
    s_set_state (self, task, DROVER_TASK_ASSIGNED);
    drover_taskworker_attach (worker, task);
    drover_taskactions_offer (self->actions, task);
    drover_taskactions_event (self->actions, task, "task.assigned", NULL);
    s_ack_t ack = { task->id, task->attempt, now + self->ack_timeout };
    drover_ring_push (self->acks, &ack);
}

//  UP: remember the route; adopt the current attempts the worker runs,
//  kill the ones that are not current, and treat as lost what it should
//  run but does not list
void
drover_assign_worker_up (drover_assign_t *self, const char *worker_id,
                            const byte *route, size_t route_size,
                            const drover_taskref_t *running, size_t nrunning)
{
    assert (self && worker_id && route);
    assert (route_size >= 1 && route_size <= 255);
    s_begin (self);
    drover_taskworker_t *worker = (drover_taskworker_t *) zhashx_lookup (self->workers, worker_id);
    if (!worker) {
        worker = drover_taskworker_new (worker_id);
        zhashx_insert (self->workers, worker->id, worker);
    }
    drover_taskworker_set_route (worker, route, route_size);
    if (worker->settling)
        s_settled (self, worker);       //  this UP lists what still runs

    for (size_t index = 0; index < nrunning; index++) {
        drover_taskrecord_t *task = s_lookup (self, running [index].task);
        if (task && task->worker == worker && task->attempt == running [index].attempt) {
            task->adopted = true;
            if (task->restored) {
                //  schedq has not heard of it since the restart
                drover_action_t *placed = drover_taskactions_add (self->actions,
                                                                  DROVER_ACTION_PLACED, task);
                placed->procs = task->procs;
                placed->mem = task->mem;
                placed->labels = drover_taskrecord_labels (task);
                task->restored = false;
            }
            if (task->state == DROVER_TASK_ASSIGNED) {
                s_set_state (self, task, DROVER_TASK_RUNNING);
                if (!task->started_at)
                    task->started_at = s_now (self);
                drover_taskactions_event (self->actions, task, "task.running", "adopted");
            }
        }
        else {
            drover_taskactions_kill (self->actions, worker, running [index].task,
                                     running [index].attempt);
            drover_taskworker_await_end (worker, running [index].task, running [index].attempt);
        }
    }
    //  Downwards: a detach moves the last task, already seen, into the slot
    for (uint32_t slot = worker->ntasks; slot > 0; slot--) {
        drover_taskrecord_t *task = worker->tasks [slot - 1];
        if (task->adopted)
            task->adopted = false;
        else {
            drover_taskworker_detach (task->worker, task);
            drover_taskactions_tell (self->actions, DROVER_ACTION_FREE, task, worker->id, NULL);
            if (task->state == DROVER_TASK_ASSIGNED && !task->cancel)
                //  Offered, never taken: the offer went to a connection the
                //  worker had left (it lists every attempt it took). Nothing
                //  ran, so nothing is lost: its lost-retries stay
                s_requeue (self, task, worker->id,
                                          "offer not received before the worker registered again");
            else
                s_lose (self, task, worker->id, "not running after the worker registered again");
        }
    }
    //  What it runs holds its procs until counted: schedq waits for SETTLED
    if (nrunning) {
        worker->settling = true;
        if (worker->nkilled == 0)
            s_settled (self, worker);
    }
}

//  LOST: what the worker had runs again elsewhere (or ends); forget it
void
drover_assign_worker_lost (drover_assign_t *self, const char *worker_id, const char *reason)
{
    assert (self && worker_id);
    s_begin (self);
    drover_taskworker_t *worker = (drover_taskworker_t *) zhashx_lookup (self->workers, worker_id);
    if (!worker)
        return;                 //  never up, or already forgotten
    if (worker->settling)
        s_settled (self, worker);       //  schedq counts every UP's SETTLED
    char text [DROVER_REASON_MAX + 1];
    snprintf (text, sizeof text, "worker lost: %s", reason && *reason? reason: "no reason given");
    while (worker->ntasks) {
        drover_taskrecord_t *task = worker->tasks [worker->ntasks - 1];
        drover_taskworker_detach (task->worker, task);
        s_lose (self, task, worker->id, text);
    }
    zhashx_delete (self->workers, worker_id);
}

//  Handle ack deadlines due at now; return the next one or -1
int64_t
drover_assign_expire (drover_assign_t *self, int64_t now)
{
    assert (self);
    s_begin (self);
    s_ack_t *ack;
    while ((ack = (s_ack_t *) drover_ring_head (self->acks))) {
        drover_taskrecord_t *task = s_lookup (self, ack->task);
        if (!task || task->state != DROVER_TASK_ASSIGNED || task->attempt != ack->attempt) {
            drover_ring_pop (self->acks);
            continue;           //  taken, ended or offered again since
        }
        if (ack->deadline > now)
            return ack->deadline;
        drover_ring_pop (self->acks);
        drover_taskactions_kill (self->actions, task->worker, task->id, task->attempt);
        s_host_failed (self, task, "ack timeout");
    }
    return -1;
}


//  Move every pending ack deadline forward by gap (the order stays)
size_t
drover_assign_shift (drover_assign_t *self, int64_t gap)
{
    assert (self);
    assert (gap >= 0);
    size_t count = drover_ring_size (self->acks);
    for (size_t index = 0; index < count; index++)
        ((s_ack_t *) drover_ring_at (self->acks, index))->deadline += gap;
    return count;
}


//  ---------------------------------------------------------------------
//  Queries
//
//  TASK LIST (counts per state and the newest rows, or the queued ones in
//  the order they will run), whether a sender may act on tasks, TASK SHOW,
//  and one task's fields by id.

//  What TASK LIST asked for
typedef struct {
    int state;                  //  a state, or 255 for any
    int owner;                  //  an owner's index, or -1 for any
    char *const *labels;        //  labels a task must all have ("k=v")
    uint32_t nlabels;           //  how many
} s_listing_t;

//  Tell whether a task has a label: one of its "\n"-joined labels
static bool
s_has_label (const char *labels, const char *label)
{
    size_t length = strlen (label);
    for (const char *cursor = labels; *cursor; ) {
        const char *end = strchr (cursor, '\n');
        size_t size = end? (size_t) (end - cursor): strlen (cursor);
        if (size == length && memcmp (cursor, label, length) == 0)
            return true;
        cursor += size + (end? 1: 0);
    }
    return false;
}

//  Tell whether a task is one TASK LIST asked for
static bool
s_in_listing (const void *item, void *arg)
{
    const s_listing_t *listing = (const s_listing_t *) arg;
    const drover_taskrecord_t *task = (const drover_taskrecord_t *) item;
    if (!((listing->state == 255 || task->state == listing->state)
    &&    (listing->owner == -1 || task->owner == listing->owner)))
        return false;
    for (uint32_t index = 0; index < listing->nlabels; index++)
        if (!s_has_label (drover_taskrecord_labels (task), listing->labels [index]))
            return false;
    return true;
}

//  Order queued tasks as the scheduler places them: priority (lower
//  first), then procs (more first), then id (drover_schedq_ranks_before)
static int
s_run_order (const void *a, const void *b)
{
    const drover_taskrecord_t *one = (const drover_taskrecord_t *) a;
    const drover_taskrecord_t *two = (const drover_taskrecord_t *) b;
    if (one->priority != two->priority)
        return one->priority < two->priority? -1: 1;
    if (one->procs != two->procs)
        return one->procs > two->procs? -1: 1;
    return one->id < two->id? -1: one->id > two->id? 1: 0;
}

//  Tell whether the sender of a request may act on these tasks: an admin
//  on any, anyone else on its own (unknown ids are left to the request,
//  which answers them as it does)
int
drover_assign_check_owner (drover_assign_t *self, const drover_msg_t *request,
                              const uint64_t *tasks, size_t count, const char **reason_p)
{
    assert (self && request);
    if (request->roles & DROVER_ROLE_ADMIN)
        return DROVER_CODE_OK;
    for (size_t index = 0; index < count; index++) {
        drover_taskrecord_t *task = s_lookup (self, tasks [index]);
        if (task && !streq (drover_owners_name (self->owners, task->owner), request->principal)) {
            snprintf (self->reason, sizeof self->reason,
                      "task %" PRIu64 " belongs to another key", tasks [index]);
            *reason_p = self->reason;
            return DROVER_CODE_FORBIDDEN;
        }
    }
    return DROVER_CODE_OK;
}

//  TASK LIST: counts per state and the newest rows
void
drover_assign_list (drover_assign_t *self, uint8_t state, uint32_t limit,
                       const char *owner, char *const *labels, uint32_t nlabels,
                       drover_msg_t *table)
{
    assert (self && table);
    s_begin (self);
    for (int index = 0; index < DROVER_TASK_STATES; index++)
        table->counts [index] = self->counts [index];
    size_t wanted = limit < DROVER_ROWS_MAX? limit: DROVER_ROWS_MAX;
    if (wanted == 0 || drover_idhash_size (self->tasks) == 0)
        return;
    void **newest = (void **) malloc (wanted * sizeof (void *));
    assert (newest);
    s_listing_t listing = { state, owner? drover_owners_index (self->owners, owner): -1,
                            labels, nlabels };
    //  Queued tasks in the order they will run; any other listing newest first
    size_t count = state == DROVER_TASK_QUEUED?
        drover_idhash_first (self->tasks, newest, wanted, s_in_listing, &listing, s_run_order):
        drover_idhash_newest (self->tasks, newest, wanted, s_in_listing, &listing);
    if (count)
        table->task_rows = (drover_task_row_t *) zmalloc (count * sizeof (drover_task_row_t));
    table->nrows = (uint32_t) count;
    for (size_t index = 0; index < count; index++) {
        drover_taskrecord_t *task = (drover_taskrecord_t *) newest [index];
        drover_taskrecord_row (task, self->exec, &table->task_rows [index]);
        snprintf (table->task_rows [index].owner, sizeof table->task_rows [index].owner, "%s",
                  drover_owners_name (self->owners, task->owner));
    }
    free (newest);
}

//  Return a task's owner, "" if none or unknown
const char *
drover_assign_owner (drover_assign_t *self, uint64_t id)
{
    assert (self);
    drover_taskrecord_t *task = s_lookup (self, id);
    return task? drover_owners_name (self->owners, task->owner): "";
}

//  Return a task's state, or DROVER_TASK_UNKNOWN
int
drover_assign_state (drover_assign_t *self, uint64_t id)
{
    assert (self);
    drover_taskrecord_t *task = s_lookup (self, id);
    return task? task->state: DROVER_TASK_UNKNOWN;
}

//  Return a task's current attempt number
uint32_t
drover_assign_attempt (drover_assign_t *self, uint64_t id)
{
    assert (self);
    drover_taskrecord_t *task = s_lookup (self, id);
    return task? task->attempt: 0;
}

//  Return the worker of a task's current or last attempt, or ""
const char *
drover_assign_worker (drover_assign_t *self, uint64_t id)
{
    assert (self);
    drover_taskrecord_t *task = s_lookup (self, id);
    return task? drover_taskrecord_worker (task): "";
}

//  Get a task's wall-clock times: submitted, started, ended
int
drover_assign_times (drover_assign_t *self, uint64_t id, int64_t *queued_p,
                        int64_t *started_p, int64_t *ended_p)
{
    assert (self && queued_p && started_p && ended_p);
    drover_taskrecord_t *task = s_lookup (self, id);
    if (!task)
        return -1;
    *queued_p = task->queued_at;
    *started_p = task->started_at;
    *ended_p = drover_taskrecord_final (task)? task->result->ended_at: 0;
    return 0;
}

//  Encode a task's past attempts, or NULL if it has none
byte *
drover_assign_history (drover_assign_t *self, uint64_t id, size_t *size_p)
{
    assert (self && size_p);
    drover_taskrecord_t *task = s_lookup (self, id);
    if (!task || !task->has_history)
        return NULL;
    drover_taskhistory_t *history = (drover_taskhistory_t *)
        drover_idhash_lookup (self->histories, id);
    return history? drover_taskhistory_encode (history, size_p): NULL;
}

//  Return how many tasks the table holds in one state
uint64_t
drover_assign_count (drover_assign_t *self, int state)
{
    assert (self);
    return state >= 0 && state < DROVER_TASK_STATES? self->counts [state]: 0;
}

//  Return how many tasks the table holds in all
size_t
drover_assign_size (drover_assign_t *self)
{
    assert (self);
    return drover_idhash_size (self->tasks);
}

//  TASK SHOW: fill *info_p with what the table holds of the task
int
drover_assign_show (drover_assign_t *self, uint64_t id, drover_taskinfo_t **info_p,
                       const char **reason_p)
{
    assert (self && info_p && reason_p);
    s_begin (self);
    *info_p = NULL;
    *reason_p = "";
    drover_taskrecord_t *task = s_lookup (self, id);
    if (!task && id >= 1 && id < self->next_id) {
        //  Given out, and its result no longer kept: as TASK DONE says it
        drover_taskinfo_t *info = drover_taskinfo_new ();
        info->task = id;
        info->state = DROVER_TASK_UNKNOWN;
        info->end = DROVER_END_EXPIRED;
        *info_p = info;
        return DROVER_CODE_OK;
    }
    if (!task) {
        *reason_p = "unknown task";
        return DROVER_CODE_NOT_FOUND;
    }
    const drover_taskhistory_t *history = task->has_history?
        (const drover_taskhistory_t *) drover_idhash_lookup (self->histories, task->id): NULL;
    *info_p = drover_taskrecord_info (task, history,
                                      drover_owners_name (self->owners, task->owner), self->exec);
    return DROVER_CODE_OK;
}


//  ---------------------------------------------------------------------
//  The table after a restart
//
//  The tasks the store kept put back as they were, ids that go on, the
//  grace for workers to report their attempts, and submits the store could
//  not save.

//  RESTORE: put back a task the store kept, as it was. Returns 0, or -1 if
//  the change cannot be a task or the id is held already (ignored). After
//  LOADED only a final task is taken: one the store read back from its
//  history for a request (RECALL), kept until drover_assign_recalled.
int
drover_assign_restore (drover_assign_t *self, const drover_change_t *change)
{
    assert (self && change);
    s_begin (self);
    if (!change->submit || !change->task || change->state >= DROVER_TASK_UNKNOWN
    ||  s_lookup (self, change->task))
        return -1;
    bool final = change->state >= DROVER_TASK_SUCCEEDED;
    if (self->loaded && !final)
        return -1;              //  a live task is never read back: the table has it
    bool placed = change->state == DROVER_TASK_ASSIGNED || change->state == DROVER_TASK_RUNNING;
    if ((final && !change->done) || (placed && !drover_id_valid (change->worker)))
        return -1;
    drover_taskrecord_t *task = s_new_record (self, change->task, change->submit);
    task->attempt = change->attempt;
    task->retries_left = change->retries_left;
    task->lost = change->lost;
    task->state = change->state;
    task->queued_at = change->queued_at;
    task->started_at = change->started_at;
    task->offered_at = change->offered_at;
    if (change->history) {
        drover_taskhistory_t *history = drover_taskhistory_decode (task->id, change->history,
                                                                   change->history_size);
        if (history) {
            drover_idhash_insert (self->histories, history);
            task->has_history = true;
        }
    }
    s_insert (self, task);
    if (self->next_id <= task->id)
        self->next_id = task->id + 1;
    if (final) {
        const drover_msg_t *done = change->done;
        drover_taskresult_t *result = drover_taskresult_new (change->worker, done->reason);
        result->outcome = done->outcome;
        result->end = done->end;
        result->exit_code = done->exit_code;
        result->signal = done->signal;
        result->truncated = done->truncated;
        result->duration = done->duration;
        result->ended_at = change->ended_at;
        if (done->out_size) {
            result->out = (byte *) zmalloc (done->out_size);
            memcpy (result->out, done->out, done->out_size);
            result->out_size = done->out_size;
        }
        if (done->err_size) {
            result->err = (byte *) zmalloc (done->err_size);
            memcpy (result->err, done->err, done->err_size);
            result->err_size = done->err_size;
        }
        task->result = result;
        self->kept_bytes += drover_taskresult_bytes (result) + drover_taskrecord_bytes (task);
        drover_ring_push (self->finished, &task->id);
        if (self->loaded)
            self->recalled++;   //  read back for a request: kept until it is answered
        return 0;
    }
    self->queued_bytes += drover_taskrecord_bytes (task);
    if (placed) {
        //  Its worker has until the end of the grace to say it runs it
        drover_taskworker_t *worker = (drover_taskworker_t *)
            zhashx_lookup (self->workers, change->worker);
        if (!worker) {
            worker = drover_taskworker_new (change->worker);
            zhashx_insert (self->workers, worker->id, worker);
        }
        drover_taskworker_attach (worker, task);
        task->restored = true;
    }
    else
        drover_taskactions_queue (self->actions, task);
    return 0;
}

//  Tell one waiter that a task is UNKNOWN (it was never accepted), and let
//  it go
static void
s_tell_unknown (drover_assign_t *self, uint64_t id, drover_waiter_t waiter)
{
    size_t route_size;
    const byte *route = drover_waiters_route (self->waiters, waiter, &route_size);
    drover_taskactions_done (self->actions, NULL, id, false, route, route_size, waiter.seq);
    drover_waiters_release (self->waiters, waiter);
}

//  UNSAVED: a submit the store could not save was refused 507: forget the
//  task as if it never came (stop its attempt, give back its place; its
//  waiters hear UNKNOWN). Returns 0, or -1 if it is not held or final.
int
drover_assign_forget (drover_assign_t *self, uint64_t id)
{
    assert (self);
    s_begin (self);
    drover_taskrecord_t *task = s_lookup (self, id);
    if (!task || drover_taskrecord_final (task))
        return -1;
    if (task->state == DROVER_TASK_QUEUED)
        drover_taskactions_tell (self->actions, DROVER_ACTION_DEQUEUE, task, NULL, NULL);
    else {
        drover_taskworker_t *worker = task->worker;
        drover_taskactions_kill (self->actions, worker, task->id, task->attempt);
        drover_taskworker_detach (worker, task);
        drover_taskactions_tell (self->actions, DROVER_ACTION_FREE, task, worker->id, NULL);
    }
    if (task->waiter.route)
        s_tell_unknown (self, id, task->waiter);
    for (uint32_t index = 0; index < drover_waitlist_size (task->waiters); index++)
        s_tell_unknown (self, id, drover_waitlist_at (task->waiters, index));
    drover_waitlist_destroy (&task->waiters);
    task->waiter.route = 0;
    self->queued_bytes -= drover_taskrecord_bytes (task);
    s_remove (self, task);
    return 0;
}

//  LOADED: every kept task was restored; ids go on from next_id (at least)
void
drover_assign_loaded (drover_assign_t *self, uint64_t next_id)
{
    assert (self);
    if (self->next_id < next_id)
        self->next_id = next_id;
    self->loaded = true;
}

//  End of the restart grace: an attempt whose worker did not register
//  again runs again, without using up the task's retries or lost-retries
size_t
drover_assign_end_grace (drover_assign_t *self)
{
    assert (self);
    s_begin (self);
    size_t requeued = 0;
    drover_taskworker_t *worker = (drover_taskworker_t *) zhashx_first (self->workers);
    while (worker) {
        if (worker->route_size == 0) {
            while (worker->ntasks) {
                drover_taskrecord_t *task = worker->tasks [worker->ntasks - 1];
                drover_taskworker_detach (worker, task);
                task->restored = false;
                if (task->cancel)
                    s_finish (self, task, DROVER_TASK_CANCELLED, drover_taskresult_new (
                        worker->id, "cancelled (its worker did not come back after a restart)"));
                else
                    s_requeue (self, task, worker->id,
                               "its worker did not come back after a restart");
                requeued++;
            }
        }
        worker = (drover_taskworker_t *) zhashx_next (self->workers);
    }
    //  Forget the workers that did not come back (deleting while walking
    //  is not allowed)
    zlist_t *gone = zlist_new ();
    for (worker = (drover_taskworker_t *) zhashx_first (self->workers); worker;
         worker = (drover_taskworker_t *) zhashx_next (self->workers))
        if (worker->route_size == 0)
            zlist_append (gone, worker->id);
    for (char *id = (char *) zlist_first (gone); id; id = (char *) zlist_next (gone))
        zhashx_delete (self->workers, id);
    zlist_destroy (&gone);
    return requeued;
}


//  ---------------------------------------------------------------------
//  A service's replicas
//
//  A replica is an ordinary task (TASK LIST, SHOW and the logs see it)
//  that the reconciler places itself, on the worker rendezvous hashing
//  chose: it never waits in schedq's queue. Its submit is the broker's own
//  (it names the service and the slot, asks no retries, has no waiter).
//  It is created, offered to the worker at once (attempt 1), and said
//  PLACED so that schedq counts what it uses. Once placed it lives as any
//  task, but for one rule, kept by s_requeue: where a batch task would be
//  queued again (its worker lost, a machine failure, an offer not
//  acknowledged, the restart grace over), a replica ends FAILED (end LOST)
//  and the reconciler starts another.

//  START: create the replica's task and run it on worker now
int
drover_assign_start (drover_assign_t *self, drover_msg_t *msg, const char *worker,
                        int64_t now, uint64_t *task_p, const char **reason_p)
{
    assert (self && msg && worker && task_p && reason_p);
    s_begin (self);
    *task_p = 0;
    *reason_p = "";
    if (!msg->service [0]) {
        *reason_p = "not a replica: no service named";
        return DROVER_CODE_BAD_REQUEST;
    }
    int code = drover_taskrecord_check (msg, self->reason, sizeof self->reason, reason_p);
    if (code != DROVER_CODE_OK)
        return code;
    //  Not bounded by max-queued: the services' definitions bound replicas
    drover_taskrecord_t *task = s_new_record (self, self->next_id++, msg);
    task->retries_left = task->retries = 0;
    s_insert (self, task);
    self->queued_bytes += drover_taskrecord_bytes (task);
    drover_taskactions_event (self->actions, task, "task.queued", NULL);
    *task_p = task->id;
    if (!drover_assign_has_worker (self, worker)) {
        s_finish (self, task, DROVER_TASK_FAILED,
                                 drover_taskresult_new (worker, "worker not up"));
        return DROVER_CODE_OK;
    }
    drover_assign_assign (self, task->id, worker, now);
    drover_action_t *placed = drover_taskactions_add (self->actions, DROVER_ACTION_PLACED, task);
    placed->procs = task->procs;
    placed->mem = task->mem;
    placed->labels = drover_taskrecord_labels (task);
    return DROVER_CODE_OK;
}
