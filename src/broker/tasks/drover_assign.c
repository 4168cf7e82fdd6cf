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

    This file has the table itself, its tasks by id, its actions, the
    state changes every part uses, and the clients' requests (SUBMIT,
    CANCEL, WAIT). The other parts: drover_taskattempts.c (attempts on
    workers: offered, taken, ended, lost), drover_taskquery.c (TASK LIST
    and a task's fields), drover_taskshow.c (TASK SHOW),
    drover_taskrestore.c (after a restart), drover_taskreplica.c (a
    service's replicas).
    =========================================================================
*/

#include "drover_assign_internal.h"
#include "drover_defaults.h"

static void s_task_destroy (drover_assign_t *self, drover_taskrecord_t **task_p);
static void s_keep_attempt (drover_assign_t *self, drover_taskrecord_t *task,
                            const char *worker, const char *reason);

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
    self->acks = drover_ring_new (sizeof (drover_assign_ack_t));
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
int64_t
drover_assign_now (drover_assign_t *self)
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
drover_taskrecord_t *
drover_assign_new_record (drover_assign_t *self, uint64_t id, const drover_msg_t *msg)
{
    drover_taskrecord_t *task = drover_taskrecord_new (id, msg);
    task->owner = drover_owners_index (self->owners, msg->principal);
    task->queued_at = drover_assign_now (self);
    return task;
}

//  Find a task by id, or NULL
drover_taskrecord_t *
drover_assign_lookup (drover_assign_t *self, uint64_t id)
{
    return (drover_taskrecord_t *) drover_idhash_lookup (self->tasks, id);
}

//  Add a task, and its submit key
void
drover_assign_insert (drover_assign_t *self, drover_taskrecord_t *task)
{
    drover_idhash_insert (self->tasks, task);
    self->counts [task->state]++;
    if (task->has_key)
        zhashx_update (self->keys, drover_taskrecord_key (task), (void *) (uintptr_t) task->id);
}

//  Remove a finished task from the table and free it
void
drover_assign_remove (drover_assign_t *self, drover_taskrecord_t *task)
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
    drover_assign_begin (self);
    return s_expired (self, id) && !drover_assign_lookup (self, id);
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
void
drover_assign_begin (drover_assign_t *self)
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
        drover_taskrecord_t *task = drover_assign_lookup (self, id);
        if (task)
            drover_assign_remove (self, task);
    }
}


//  ---------------------------------------------------------------------
//  State changes

//  Move a task to a state, keeping the counts
void
drover_assign_set_state (drover_assign_t *self, drover_taskrecord_t *task, int state)
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
void
drover_assign_finish (drover_assign_t *self, drover_taskrecord_t *task, int state,
          drover_taskresult_t *result)
{
    assert (!task->worker && !drover_taskrecord_final (task));
    result->end = drover_taskresult_end_of (result, state);
    result->ended_at = drover_assign_now (self);
    drover_waitlist_t *more = task->waiters;    //  read before result takes its place
    drover_waiter_t first = task->waiter;
    task->waiter.route = 0;
    drover_assign_set_state (self, task, state);
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
    attempt.ended_at = drover_assign_now (self);
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
void
drover_assign_requeue (drover_assign_t *self, drover_taskrecord_t *task, const char *worker,
           const char *reason)
{
    if (task->replica) {
        drover_taskresult_t *result = drover_taskresult_new (worker, reason);
        result->end = DROVER_END_LOST;
        drover_assign_finish (self, task, DROVER_TASK_FAILED, result);
        return;
    }
    s_keep_attempt (self, task, worker, reason);
    drover_assign_set_state (self, task, DROVER_TASK_QUEUED);
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
    drover_assign_begin (self);
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

    drover_taskrecord_t *task = drover_assign_new_record (self, self->next_id++, msg);
    drover_assign_insert (self, task);
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
    drover_assign_begin (self);
    *reason_p = "";
    drover_taskrecord_t *task = drover_assign_lookup (self, id);
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
        drover_assign_finish (self, task, DROVER_TASK_CANCELLED, drover_taskresult_new (NULL, "cancelled while queued"));
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
    drover_assign_begin (self);
    *reason_p = "";
    if (count == 0 || !tasks) {
        *reason_p = "no task ids to wait for";
        return DROVER_CODE_BAD_REQUEST;
    }
    size_t refused = 0;
    size_t repeated = 0;        //  already waited on by this route: seq updated
    for (size_t index = 0; index < count; index++) {
        drover_taskrecord_t *task = drover_assign_lookup (self, tasks [index]);
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
