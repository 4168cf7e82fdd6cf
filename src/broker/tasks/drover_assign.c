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
#include "drover_queuequota.h"
#include "drover_devicelist.h"
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
#include "drover_flow.h"
#include "drover_flowview.h"

//  A task released or doomed by a parent's end, waiting its turn: a
//  cascade is worked through in a loop, never by recursion
typedef struct {
    uint64_t task;              //  the child
    int verdict;                //  DROVER_DEPS_RELEASED or DROVER_DEPS_DOOMED
    uint64_t blame;             //  the parent that decided it
    int blame_state;            //  the state that parent ended in
} s_verdict_t;

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
    drover_queuequota_t *quotas;    //  tasks QUEUED per owner, and the queued quotas
    drover_idhash_t *assigned;  //  s_assigned_t by task: the device indices its current
                                //  (or last) attempt was given, for tasks given some
    char reason [256];          //  text behind a reason_p, until the next call
    drover_assign_clock_fn *clock;   //  wall clock, msec since the epoch (tests fake it)
    void *clock_arg;            //  its argument
    uint32_t ack_timeout;       //  msec for a worker to take an offer
    uint32_t lost_retries;      //  worker losses a task survives
    uint32_t max_queued;        //  tasks not yet final, at most
    uint32_t keep_finished;     //  finished tasks kept
    size_t max_kept_bytes;      //  output bytes kept, at most
    size_t max_queued_bytes;    //  body and label bytes of tasks not yet final, at most
    drover_flow_t *flow;        //  what tasks wait for before the queue
    drover_ring_t *verdicts;    //  s_verdict_t: children decided, not yet acted on
    bool deciding;              //  verdicts are being worked through
    bool skipping;              //  the task ending is a clean-up step not needed
    zlistx_t *restored_deps;    //  ids of restored tasks with an after list, until LOADED
    zlistx_t *early;            //  s_early_t: waits for array elements not made yet
    bool loaded;                //  LOADED heard: a RESTORE now is a task read back
    bool restored_groups;       //  an array or workflow was restored: LOADED walks the table
    uint64_t recalled;          //  finished tasks read back from the history (RESTORE
                                //  after LOADED) for requests not yet answered: kept
                                //  past keep-finished and the output budget meanwhile
};

static void s_task_destroy (drover_assign_t *self, drover_taskrecord_t **task_p);
static void s_ended (drover_assign_t *self, uint64_t id, int state);
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

//  The device indices a task's attempt was given (TASK STARTED's assigned)
typedef struct {
    uint64_t id;                //  task id, the key
    char text [];               //  "gpu=0,2;fpga=4"
} s_assigned_t;

//  Free every task's device indices
static void
s_assigned_destroy_all (drover_assign_t *self)
{
    for (size_t slot = 0; slot < drover_idhash_slots (self->assigned); slot++)
        free (drover_idhash_slot (self->assigned, slot));
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
    self->quotas = drover_queuequota_new ();
    self->assigned = drover_idhash_new ();
    self->flow = drover_flow_new ((uint64_t) zclock_time ());
    self->verdicts = drover_ring_new (sizeof (s_verdict_t));
    self->restored_deps = zlistx_new ();
    self->early = zlistx_new ();
    zlistx_set_destructor (self->early, (zlistx_destructor_fn *) zstr_free);
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
    drover_queuequota_destroy (&self->quotas);
    s_assigned_destroy_all (self);
    drover_idhash_destroy (&self->assigned);
    drover_flow_destroy (&self->flow);
    drover_ring_destroy (&self->verdicts);
    zlistx_destroy (&self->restored_deps);
    zlistx_destroy (&self->early);
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

//  Return whose a submit is: its key's name with CURVE (a name it gives
//  is ignored: the key wins), else the name its client gave, else ""
static const char *
s_owner_of (const drover_msg_t *msg)
{
    return msg->principal [0]? msg->principal: msg->owner;
}

//  Refuse a submit of count tasks past its owner's or account's queued
//  quota: QUEUE_FULL with the reason, else OK
static int
s_check_quota (drover_assign_t *self, const drover_msg_t *msg, uint64_t count,
               const char **reason_p)
{
    const char *owner = s_owner_of (msg);
    uint16_t index = drover_owners_index (self->owners, owner);
    if (drover_queuequota_check (self->quotas, index, owner, count, self->reason,
                                 sizeof self->reason) == 0)
        return DROVER_CODE_OK;
    *reason_p = self->reason;
    return DROVER_CODE_QUEUE_FULL;
}

//  Make a record from a submit, owned by whoever s_owner_of names
static drover_taskrecord_t *
s_new_record (drover_assign_t *self, uint64_t id, const drover_msg_t *msg)
{
    drover_taskrecord_t *task = drover_taskrecord_new (id, msg);
    task->owner = drover_owners_index (self->owners, s_owner_of (msg));
    task->queued_at = s_now (self);
    return task;
}

//  Find a task by id, or NULL
static drover_taskrecord_t *
s_lookup (drover_assign_t *self, uint64_t id)
{
    return (drover_taskrecord_t *) drover_idhash_lookup (self->tasks, id);
}

//  Count a task in or out of its owner's QUEUED tasks (delta 1 or -1) if
//  it is QUEUED, for the queued quotas
static void
s_count_queued (drover_assign_t *self, const drover_taskrecord_t *task, int64_t delta)
{
    if (task->state == DROVER_TASK_QUEUED)
        drover_queuequota_add (self->quotas, task->owner,
                               drover_owners_name (self->owners, task->owner), delta);
}

//  Add a task, and its submit key
static void
s_insert (drover_assign_t *self, drover_taskrecord_t *task)
{
    drover_idhash_insert (self->tasks, task);
    self->counts [task->state]++;
    s_count_queued (self, task, 1);
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
    s_count_queued (self, task, -1);
    drover_assign_set_assigned (self, task->id, NULL);
    drover_flow_forget (self->flow, task->id);
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

//  Tell whether id is an element of a live array not made yet
static bool
s_unmade (drover_assign_t *self, uint64_t id)
{
    drover_group_t *group = drover_groups_of (drover_flow_groups (self->flow), id);
    return group && group->array && !group->stopped && id > group->id + group->made;
}

//  Tell whether a task was given out and is no longer held: it ended and
//  its result was dropped past keep-finished (the durable history may
//  still have it)
bool
drover_assign_evicted (drover_assign_t *self, uint64_t id)
{
    assert (self);
    s_begin (self);
    return s_expired (self, id) && !s_lookup (self, id) && !s_unmade (self, id);
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
    s_count_queued (self, task, -1);
    task->state = (uint8_t) state;
    s_count_queued (self, task, 1);
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
    assert (!drover_taskrecord_on (task) && !drover_taskrecord_final (task));
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
    s_ended (self, task->id, state);
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
    attempt.attempt = drover_taskrecord_attempt (task);
    snprintf (attempt.worker, sizeof attempt.worker, "%s", worker? worker: "");
    attempt.offered_at = drover_taskrecord_offered_at (task);
    attempt.started_at = drover_taskrecord_started_at (task);
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
    if (task->run)              //  no current attempt until the next offer
        task->run->offered_at = task->run->started_at = 0;
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
//  Workflows: tasks held back before the queue (drover_flow decides)
//
//  A task may wait for its parents, its begin time or a retry's backoff
//  before it is queued; an array's or a workflow's own id waits for its
//  members. Held tasks are QUEUED in the table and unknown to schedq. A
//  task's end may release or doom its children: those verdicts go to a
//  ring and are worked through in a loop (s_decide), so a cascade down a
//  chain of 10,000 never recurses.

static void s_finish (drover_assign_t *self, drover_taskrecord_t *task, int state,
                      drover_taskresult_t *result);

//  The state of a task for the graph: UNKNOWN if the table does not hold it
static int
s_state_of (void *arg, uint64_t id)
{
    drover_assign_t *self = (drover_assign_t *) arg;
    drover_taskrecord_t *task = s_lookup (self, id);
    return task? task->state: DROVER_TASK_UNKNOWN;
}

//  Say why a held task waits, as an event (task.waiting)
static void
s_say_held (drover_assign_t *self, drover_taskrecord_t *task)
{
    char text [DROVER_REASON_MAX + 1];
    drover_flowview_held (self->flow, task->id, s_state_of, self, text, sizeof text);
    drover_taskactions_event (self->actions, task, "task.waiting", text);
}

//  Queue a task whose hold is over
static void
s_release (drover_assign_t *self, drover_taskrecord_t *task)
{
    drover_taskactions_event (self->actions, task, "task.released", NULL);
    drover_taskactions_queue (self->actions, task);
}

static void s_group_stop (drover_assign_t *self, drover_group_t *group);
static void s_group_halt (drover_assign_t *self, drover_group_t *group);
static int s_cancel (drover_assign_t *self, uint64_t id, const char **reason_p);

//  End a task whose dependency can never be met: CANCELLED, end
//  DEPENDENCY, naming the parent; an array or workflow stops its members
static void
s_doom (drover_assign_t *self, drover_taskrecord_t *task, uint64_t blame, int blame_state)
{
    char text [DROVER_REASON_MAX + 1];
    snprintf (text, sizeof text, "dependency: task %" PRIu64 " %s", blame,
              blame_state == DROVER_TASK_UNKNOWN? "is no longer known"
                                                : drover_task_state_name (blame_state));
    drover_group_t *group = drover_groups_lookup (drover_flow_groups (self->flow), task->id);
    if (group && group->live) {
        s_group_stop (self, group);   //  it ends once its live members have
        return;
    }
    if (group)
        s_group_halt (self, group);         //  its members are never made
    drover_waiting_remove (drover_flow_waiting (self->flow), task->id);
    drover_taskresult_t *result = drover_taskresult_new (NULL, text);
    result->end = DROVER_END_DEPENDENCY;
    //  A clean-up step whose parents succeeded was not needed: skipped
    self->skipping = blame_state == DROVER_TASK_SUCCEEDED;
    s_finish (self, task, DROVER_TASK_CANCELLED, result);
    self->skipping = false;
}

//  Put a task where the flow said: queue it, say why it is held, or doom it
static void
s_place (drover_assign_t *self, drover_taskrecord_t *task, int verdict, uint64_t blame,
         int blame_state)
{
    if (verdict == DROVER_FLOW_QUEUE)
        drover_taskactions_queue (self->actions, task);
    else
    if (verdict == DROVER_FLOW_HOLD)
        s_say_held (self, task);
    else
        s_doom (self, task, blame, blame_state);
}

//  A child decided by a parent's end (drover_deps_fn): to the ring
static void
s_verdict (void *arg, uint64_t child, int verdict, uint64_t blame, int blame_state)
{
    drover_assign_t *self = (drover_assign_t *) arg;
    s_verdict_t entry = { child, verdict, blame, blame_state };
    drover_ring_push (self->verdicts, &entry);
}

static void s_group_started (drover_assign_t *self, drover_taskrecord_t *task);

//  Work through the children decided so far, and those their ends decide
static void
s_decide (drover_assign_t *self)
{
    if (self->deciding)
        return;                 //  the loop below this call takes them
    self->deciding = true;
    while (drover_ring_size (self->verdicts)) {
        s_verdict_t entry = *(s_verdict_t *) drover_ring_head (self->verdicts);
        drover_ring_pop (self->verdicts);
        drover_taskrecord_t *task = s_lookup (self, entry.task);
        if (!task || drover_taskrecord_final (task))
            continue;           //  cancelled meanwhile
        if (entry.verdict == DROVER_DEPS_DOOMED)
            s_doom (self, task, entry.blame, entry.blame_state);
        else
        if (drover_groups_lookup (drover_flow_groups (self->flow), task->id)) {
            drover_waiting_remove (drover_flow_waiting (self->flow), task->id);
            s_group_started (self, task);
        }
        else
        if (drover_flow_released (self->flow, task->id, s_now (self)) == DROVER_FLOW_QUEUE)
            s_release (self, task);
        else
            s_say_held (self, task);
    }
    self->deciding = false;
}

//  The command of an array's element: the array's, with DROVER_ARRAY_ID and
//  DROVER_ARRAY_INDEX added to its environment; NULL if it breaks a limit
static byte *
s_element_body (const drover_taskrecord_t *array, uint32_t index, size_t *size_p)
{
    char id [48], position [48];
    snprintf (id, sizeof id, "DROVER_ARRAY_ID=%" PRIu64, array->id);
    snprintf (position, sizeof position, "DROVER_ARRAY_INDEX=%u", index);
    const char *entries [] = { id, position };
    return drover_exec_body_with_env (drover_taskrecord_body (array), array->body_size, entries, 2, size_p);
}

//  Build a TASK SUBMIT from a record's fields (no key, no affinity)
static drover_msg_t *
s_submit_like (const drover_taskrecord_t *task, const byte *body, size_t body_size)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->priority = task->priority;
    msg->procs = task->procs;
    msg->mem = drover_taskrecord_mem (task);
    msg->timeout = drover_taskrecord_timeout (task);
    msg->retries = drover_taskrecord_retries (task);
    drover_msg_set_body (msg, body, body_size);
    const char *labels = drover_taskrecord_labels (task);
    while (*labels) {
        size_t length = strcspn (labels, "\n");
        char label [DROVER_LABEL_MAX + 1];
        snprintf (label, sizeof label, "%.*s", (int) length, labels);
        drover_msg_add_label (msg, label);
        labels += length + (labels [length] == '\n');
    }
    int ndevices = drover_devicelist_parse (drover_taskrecord_devices (task), msg->devices, NULL);
    msg->ndevices = ndevices > 0? (uint32_t) ndevices: 0;
    msg->flags = task->preemptible? DROVER_SUBMIT_PREEMPTIBLE: 0;
    return msg;
}

//  A wait for an array element not made yet: its route, held until it is
typedef struct {
    uint64_t task;              //  the element's id
    uint32_t seq;               //  the WAIT's seq
    size_t route_size;          //  bytes in route
    byte route [256];           //  the waiter's route
} s_early_t;

//  Hold a wait for an element not made yet
static void
s_early_wait (drover_assign_t *self, uint64_t id, uint32_t seq, const byte *route,
              size_t route_size)
{
    s_early_t *early = (s_early_t *) zmalloc (sizeof (s_early_t));
    early->task = id;
    early->seq = seq;
    early->route_size = route_size < sizeof early->route? route_size: sizeof early->route;
    memcpy (early->route, route, early->route_size);
    zlistx_add_end (self->early, early);
}

//  An array stopped before it made elements some waited for: tell those
//  waiters each such element ended CANCELLED, never made
static void
s_tell_early_waiters (drover_assign_t *self, const drover_group_t *group)
{
    s_early_t *early = (s_early_t *) zlistx_first (self->early);
    while (early) {
        if (early->task > group->id && early->task - group->id <= group->members) {
            drover_action_t *done = drover_taskactions_done (self->actions, NULL, early->task,
                                                             false, early->route,
                                                             early->route_size, early->seq);
            done->state = DROVER_TASK_CANCELLED;
            done->end = DROVER_END_CANCELLED;
            snprintf (done->reason, sizeof done->reason, "never made: array %" PRIu64
                      " stopped first", group->id);
            zlistx_delete (self->early, zlistx_cursor (self->early));
            early = (s_early_t *) zlistx_first (self->early);   //  a few: start again
        }
        else
            early = (s_early_t *) zlistx_next (self->early);
    }
}

//  Hand waiters that asked for an element before it was made to it
static void
s_attach_early_waiters (drover_assign_t *self, drover_taskrecord_t *task)
{
    s_early_t *early = (s_early_t *) zlistx_first (self->early);
    while (early) {
        if (early->task == task->id) {
            s_waiter_add (self, task, early->route, early->route_size, early->seq);
            zlistx_delete (self->early, zlistx_cursor (self->early));
            early = (s_early_t *) zlistx_first (self->early);   //  a few: start again
        }
        else
            early = (s_early_t *) zlistx_next (self->early);
    }
}

//  Make an array's next elements, as many as its limit lets live now;
//  each is queued at once (the array's own wait is over)
static void
s_make_elements (drover_assign_t *self, drover_group_t *group)
{
    drover_taskrecord_t *array = s_lookup (self, group->id);
    uint32_t room = array? drover_groups_room (group): 0;
    for (uint32_t count = 0; count < room; count++) {
        uint64_t id = group->id + 1 + group->made;
        uint32_t index = drover_groups_index (group, id);
        size_t body_size = 0;
        byte *body = s_element_body (array, index, &body_size);
        if (!body) {
            s_group_stop (self, group);
            break;
        }
        drover_msg_t *submit = s_submit_like (array, body, body_size);
        free (body);
        drover_taskrecord_t *task = drover_taskrecord_new (id, submit);
        drover_msg_destroy (&submit);
        task->owner = array->owner;
        task->queued_at = s_now (self);
        s_insert (self, task);
        self->queued_bytes += drover_taskrecord_bytes (task);
        group->made++;
        group->live++;
        drover_taskactions_event (self->actions, task, "task.queued", NULL);
        drover_taskactions_queue (self->actions, task);
        s_attach_early_waiters (self, task);
    }
}

//  A group's own wait is over: it holds for its members from now on; an
//  array makes its first elements, a workflow's steps are already made
static void
s_group_started (drover_assign_t *self, drover_taskrecord_t *task)
{
    drover_group_t *group = drover_groups_lookup (drover_flow_groups (self->flow), task->id);
    assert (group);
    group->started = true;
    drover_waiting_add (drover_flow_waiting (self->flow), task->id, DROVER_WAITS_GROUP, 0);
    drover_taskactions_event (self->actions, task, "task.released", NULL);
    s_make_elements (self, group);
}

//  A group's members all ended: the group ends as they did
static void
s_group_end (drover_assign_t *self, drover_group_t *group)
{
    drover_taskrecord_t *task = s_lookup (self, group->id);
    if (!task || drover_taskrecord_final (task))
        return;
    char text [DROVER_REASON_MAX + 1];
    snprintf (text, sizeof text, "%" PRIu64 " of %u members succeeded, %" PRIu64 " failed, %"
              PRIu64 " cancelled", group->ended [DROVER_TASK_SUCCEEDED], group->members,
              group->ended [DROVER_TASK_FAILED], group->ended [DROVER_TASK_CANCELLED]);
    drover_waiting_remove (drover_flow_waiting (self->flow), task->id);
    int state = drover_groups_outcome (group);
    drover_taskresult_t *result = drover_taskresult_new (NULL, text);
    if (state == DROVER_TASK_FAILED)
        result->exit_code = 1;
    s_finish (self, task, state, result);
}

//  Make no more of a group's members: those never made count CANCELLED,
//  and waiters for such an element are told so; once
static void
s_group_halt (drover_assign_t *self, drover_group_t *group)
{
    if (group->stopped)
        return;
    group->stopped = true;
    group->ended [DROVER_TASK_CANCELLED] += group->members - group->made;
    group->made = group->members;
    if (group->array)
        s_tell_early_waiters (self, group);
}

//  Stop a group: no more members are made (those never made count
//  CANCELLED), its live members are cancelled; it ends once they have
static void
s_group_stop (drover_assign_t *self, drover_group_t *group)
{
    uint64_t last = drover_groups_last (group);     //  before the unmade count as made
    s_group_halt (self, group);
    for (uint64_t id = group->id + 1; id <= last; id++) {
        drover_taskrecord_t *task = s_lookup (self, id);
        if (task && !drover_taskrecord_final (task)) {
            const char *ignored;
            s_cancel (self, id, &ignored);
        }
    }
    if (drover_groups_ended (group) == group->members)
        s_group_end (self, group);
}

//  A task ended: count it for the tasks that wait for it and for its
//  group, then work through what that decided
static void
s_ended (drover_assign_t *self, uint64_t id, int state)
{
    bool skipped = self->skipping;      //  this task's, not those it ends in turn
    self->skipping = false;
    drover_deps_ended (drover_flow_deps (self->flow), id, state, s_verdict, self);
    drover_group_t *group = drover_groups_of (drover_flow_groups (self->flow), id);
    if (group) {
        if (group->live)
            group->live--;
        group->ended [state]++;
        if (skipped)
            group->skipped++;
        s_make_elements (self, group);
        if (drover_groups_ended (group) >= group->members)
            s_group_end (self, group);
    }
    s_decide (self);
}


//  Release the tasks whose begin or retry time has come (wall clock);
//  returns when the next one is due on the monotonic clock now runs on,
//  or -1 if none
static int64_t
s_expire_holds (drover_assign_t *self, int64_t now)
{
    drover_waiting_t *waiting = drover_flow_waiting (self->flow);
    int64_t wall = s_now (self);
    uint64_t id;
    while ((id = drover_waiting_take_due (waiting, wall))) {
        drover_taskrecord_t *task = s_lookup (self, id);
        if (!task || task->state != DROVER_TASK_QUEUED)
            continue;
        if (drover_groups_lookup (drover_flow_groups (self->flow), id))
            s_group_started (self, task);
        else
            s_release (self, task);
    }
    int64_t due = drover_waiting_next_due (waiting);
    return due? now + (due > wall? due - wall: 0): -1;
}

//  Put a task whose attempt failed back in the queue after its retry's
//  backoff (task.retrying says when), or at once if it has no retry delay
static void
s_retry (drover_assign_t *self, drover_taskrecord_t *task, const char *worker,
         const char *reason)
{
    int64_t due;
    uint32_t used = drover_taskrecord_retries (task) - drover_taskrecord_retries_left (task);
    if (drover_flow_retry (self->flow, task->id, used, s_now (self), &due) == DROVER_FLOW_QUEUE) {
        s_requeue (self, task, worker, reason);
        return;
    }
    s_keep_attempt (self, task, worker, reason);
    s_set_state (self, task, DROVER_TASK_QUEUED);
    if (task->run)
        task->run->offered_at = task->run->started_at = 0;
    drover_taskactions_tell (self->actions, DROVER_ACTION_EVENT, task, worker, reason)->topic
        = "task.requeued";
    char text [DROVER_REASON_MAX + 1];
    time_t seconds = (time_t) (due / 1000);
    struct tm tm;
    gmtime_r (&seconds, &tm);
    char when [32];
    strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf (text, sizeof text, "attempt %u of %u at %s",
              drover_taskrecord_attempt (task) + 1,
              drover_taskrecord_retries (task) + 1, when);
    drover_taskactions_event (self->actions, task, "task.retrying", text);
}

//  Check a submit's workflow fields against the table: every parent is a
//  task it holds (not a step: only a WORKFLOW SUBMIT names steps).
//  Returns 200, or 400, 404, 410 with *reason_p set.
static int
s_check_after (drover_assign_t *self, const drover_msg_t *msg, bool steps,
               const char **reason_p)
{
    for (uint32_t index = 0; index < msg->nafter; index++) {
        const drover_after_t *after = &msg->after [index];
        if (after->kind & DROVER_AFTER_STEP) {
            if (steps)
                continue;
            *reason_p = "after: a step is named outside a workflow";
            return DROVER_CODE_BAD_REQUEST;
        }
        if (s_lookup (self, after->task))
            continue;
        snprintf (self->reason, sizeof self->reason, s_expired (self, after->task)
                  ? "after: task %" PRIu64 " ended and is no longer held: its outcome is unknown"
                  : "after: no task %" PRIu64, after->task);
        *reason_p = self->reason;
        return s_expired (self, after->task)? DROVER_CODE_CONFLICT: DROVER_CODE_NOT_FOUND;
    }
    return DROVER_CODE_OK;
}

//  A new task (or group) accepted: where the flow puts it
static void
s_flow_new (drover_assign_t *self, drover_taskrecord_t *task, const drover_msg_t *msg)
{
    uint64_t blame = 0;
    int blame_state = 0;
    int verdict = drover_flow_submitted (self->flow, task->id, msg, s_now (self), s_state_of,
                                         self, &blame, &blame_state);
    if (verdict == DROVER_FLOW_QUEUE
    &&  drover_groups_lookup (drover_flow_groups (self->flow), task->id))
        s_group_started (self, task);
    else
        s_place (self, task, verdict, blame, blame_state);
    s_decide (self);
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
    code = s_check_quota (self, msg, 1 + (uint64_t) msg->array.count, reason_p);
    if (code != DROVER_CODE_OK)
        return code;
    code = s_check_after (self, msg, false, reason_p);
    if (code != DROVER_CODE_OK)
        return code;

    //  An array's own id, then its elements' ids, made as they may run
    drover_taskrecord_t *task = s_new_record (self, self->next_id++, msg);
    if (msg->array.count) {
        drover_groups_add (drover_flow_groups (self->flow), task->id, msg->array.count,
                           msg->array.count, &msg->array);
        self->next_id += msg->array.count;
    }
    s_insert (self, task);
    self->queued_bytes += drover_taskrecord_bytes (task);
    if (notify && s_waiter_add (self, task, route, route_size, 0) != 0)
        assert (false);         //  room was checked above, and the task is new
    drover_taskactions_event (self->actions, task, "task.queued", NULL);
    s_flow_new (self, task, msg);
    *task_p = task->id;
    return DROVER_CODE_OK;
}

//  Check every step of a WORKFLOW SUBMIT as a submit, and the steps it
//  names. Returns 200, or the code and why, naming the step.
static int
s_check_steps (drover_assign_t *self, const drover_msg_t *msg, const char **reason_p)
{
    char why [160];
    for (uint32_t step = 0; step < msg->nsteps; step++) {
        const drover_msg_t *submit = msg->steps [step];
        const char *reason = "";
        int code = drover_taskrecord_check (submit, why, sizeof why, &reason);
        if (code == DROVER_CODE_OK && submit->service [0]) {
            reason = "service and slot are the broker's own: use SERVICE ADMIN";
            code = DROVER_CODE_BAD_REQUEST;
        }
        if (code == DROVER_CODE_OK)
            code = s_check_after (self, submit, true, &reason);
        for (uint32_t index = 0; code == DROVER_CODE_OK && index < submit->nafter; index++) {
            const drover_after_t *after = &submit->after [index];
            if ((after->kind & DROVER_AFTER_STEP)
            &&  (after->task < 1 || after->task > msg->nsteps || after->task == step + 1)) {
                reason = after->task == step + 1? "after names the step itself"
                                                 : "after names no step of the workflow";
                code = DROVER_CODE_BAD_REQUEST;
            }
        }
        if (code != DROVER_CODE_OK) {
            snprintf (why, sizeof why, "%s", reason);
            snprintf (self->reason, sizeof self->reason, "step %u (%.64s): %.160s", step + 1,
                      msg->step_names [step], why);
            *reason_p = self->reason;
            return code;
        }
    }
    return DROVER_CODE_OK;
}

//  WORKFLOW SUBMIT: every step or none; the workflow's own id,
//  then its steps, numbered so that parents come first
int
drover_assign_submit_workflow (drover_assign_t *self, drover_msg_t *msg, uint64_t *workflow_p,
                               uint64_t *ids, const char **reason_p)
{
    assert (self && msg && workflow_p && ids && reason_p);
    s_begin (self);
    *workflow_p = 0;
    *reason_p = "";
    if (msg->nsteps == 0 || msg->nsteps > DROVER_STEPS_MAX) {
        *reason_p = "a workflow has 1 to 1000 steps";
        return DROVER_CODE_BAD_REQUEST;
    }
    int code = s_check_steps (self, msg, reason_p);
    if (code != DROVER_CODE_OK)
        return code;
    uint32_t *order = (uint32_t *) zmalloc (msg->nsteps * sizeof (uint32_t));
    if (drover_flow_order_steps (msg, order, self->reason, sizeof self->reason)) {
        free (order);
        *reason_p = self->reason;
        return DROVER_CODE_BAD_REQUEST;
    }
    uint64_t live = self->counts [DROVER_TASK_QUEUED] + self->counts [DROVER_TASK_ASSIGNED]
                  + self->counts [DROVER_TASK_RUNNING];
    if (live + msg->nsteps + 1 > self->max_queued) {
        free (order);
        *reason_p = "queue full";
        return DROVER_CODE_QUEUE_FULL;
    }
    uint64_t count = 1;
    for (uint32_t place = 0; place < msg->nsteps; place++)
        count += 1 + (uint64_t) msg->steps [place]->array.count;
    code = s_check_quota (self, msg, count, reason_p);
    if (code != DROVER_CODE_OK) {
        free (order);
        return code;
    }
    //  Ids: the workflow's, then each step's in order (an array step's
    //  elements right after it)
    uint64_t workflow = self->next_id++;
    uint64_t span = 0;
    for (uint32_t place = 0; place < msg->nsteps; place++) {
        const drover_msg_t *step = msg->steps [order [place]];
        ids [order [place]] = workflow + 1 + span;
        span += 1 + step->array.count;
    }
    //  The workflow's own record: its name as its command, never run
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "workflow", msg->reason && *msg->reason? msg->reason: "workflow" };
    drover_exec_set_argv (exec, 2, argv);
    size_t body_size = 0;
    byte *body = drover_exec_encode (exec, &body_size);
    drover_exec_destroy (&exec);
    drover_msg_t *own = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    own->procs = 1;
    drover_msg_set_body (own, body, body_size);
    free (body);
    snprintf (own->principal, sizeof own->principal, "%s", msg->principal);
    snprintf (own->owner, sizeof own->owner, "%s", msg->owner);
    drover_taskrecord_t *group_task = s_new_record (self, workflow, own);
    drover_msg_destroy (&own);
    drover_group_t *group = drover_groups_add (drover_flow_groups (self->flow), workflow,
                                               msg->nsteps, (uint32_t) span, NULL);
    group->made = group->members;
    group->live = group->members;
    group->started = true;
    s_insert (self, group_task);
    self->queued_bytes += drover_taskrecord_bytes (group_task);
    drover_taskactions_event (self->actions, group_task, "task.queued", NULL);
    drover_waiting_add (drover_flow_waiting (self->flow), workflow, DROVER_WAITS_GROUP, 0);
    //  The steps, parents first; names of steps become their ids
    for (uint32_t place = 0; place < msg->nsteps; place++) {
        drover_msg_t *step = msg->steps [order [place]];
        for (uint32_t index = 0; index < step->nafter; index++)
            if (step->after [index].kind & DROVER_AFTER_STEP) {
                step->after [index].kind &= (uint8_t) ~DROVER_AFTER_STEP;
                step->after [index].task = ids [step->after [index].task - 1];
            }
        snprintf (step->principal, sizeof step->principal, "%s", msg->principal);
        if (!step->owner [0])
            snprintf (step->owner, sizeof step->owner, "%s", msg->owner);
        drover_taskrecord_t *task = s_new_record (self, ids [order [place]], step);
        if (step->array.count)
            drover_groups_add (drover_flow_groups (self->flow), task->id, step->array.count,
                               step->array.count, &step->array);
        s_insert (self, task);
        self->queued_bytes += drover_taskrecord_bytes (task);
        drover_taskactions_event (self->actions, task, "task.queued", NULL);
        s_flow_new (self, task, step);
    }
    self->next_id = workflow + 1 + span;
    free (order);
    *workflow_p = workflow;
    return DROVER_CODE_OK;
}

//  Cancel a task: now if queued; by a kill if it runs; refused if final;
//  an array or workflow: every live member, and no more are made
static int
s_cancel (drover_assign_t *self, uint64_t id, const char **reason_p)
{
    *reason_p = "";
    drover_taskrecord_t *task = s_lookup (self, id);
    if (!task && s_unmade (self, id)) {
        *reason_p = "an array element not made yet: cancel its array";
        return DROVER_CODE_CONFLICT;
    }
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
    drover_group_t *group = drover_groups_lookup (drover_flow_groups (self->flow), task->id);
    if (group) {
        uint32_t live = group->live;
        s_group_stop (self, group);
        snprintf (self->reason, sizeof self->reason, "cancelled: %u members were live", live);
        *reason_p = self->reason;
        s_decide (self);
        return DROVER_CODE_OK;
    }
    if (task->state == DROVER_TASK_QUEUED) {
        if (!drover_waiting_remove (drover_flow_waiting (self->flow), task->id))
            drover_taskactions_tell (self->actions, DROVER_ACTION_DEQUEUE, task, NULL, NULL);
        s_finish (self, task, DROVER_TASK_CANCELLED, drover_taskresult_new (NULL, "cancelled while queued"));
        *reason_p = "cancelled";
        return DROVER_CODE_OK;
    }
    //  ASSIGNED or RUNNING: the result (or a loss) will say CANCELLED
    task->run->cancel = true;
    drover_taskactions_kill (self->actions, task->run->worker, task->id, task->run->attempt);
    *reason_p = "kill sent";
    return DROVER_CODE_OK;
}

//  TASK CANCEL: now if queued; by a kill if it runs; refused if final
int
drover_assign_cancel (drover_assign_t *self, uint64_t id, const char **reason_p)
{
    assert (self && reason_p);
    s_begin (self);
    return s_cancel (self, id, reason_p);
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
        drover_group_t *group = task? NULL
                              : drover_groups_of (drover_flow_groups (self->flow), tasks [index]);
        int added = -1;
        if (group && group->array && !group->stopped && tasks [index] > group->id + group->made)
            s_early_wait (self, tasks [index], seq, route, route_size);
        else
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
    drover_taskrun_t *run = drover_taskrecord_run (task);
    if (run->cancel) {
        snprintf (text, sizeof text, "cancelled (%s)", reason);
        s_finish (self, task, DROVER_TASK_CANCELLED, drover_taskresult_new (worker, text));
    }
    else
    if ((run->lost < UINT16_MAX? ++run->lost: run->lost) > self->lost_retries) {
        //  One loss ends it only when lost-retries is 0 (no rerun allowed):
        //  that is LOST; more than one, it keeps taking machines down
        drover_taskresult_t *result;
        if (run->lost == 1) {
            snprintf (text, sizeof text, "%s", reason);
            result = drover_taskresult_new (worker, text);
            result->end = DROVER_END_LOST;
        }
        else {
            snprintf (text, sizeof text, "poison: lost %u workers", run->lost);
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
    drover_taskworker_t *worker = drover_taskrecord_on (task);
    assert (worker);
    drover_taskactions_tell (self->actions, DROVER_ACTION_FAILURE, task, NULL, reason);
    drover_taskworker_detach (worker, task);
    drover_taskactions_tell (self->actions, DROVER_ACTION_FREE, task, worker->id, NULL);
    if (task->run->cancel) {
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
    ||  drover_taskrecord_attempt (task) != attempt || !drover_taskrecord_on (task)
    ||  strcmp (task->run->worker->id, worker)) {
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
        task->run->started_at = s_now (self);
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

//  RESULT RETURNED (level 9): an offer the worker held ahead of its free
//  procs went back unstarted, as the worker does when it held it a
//  quarter of the ack-timeout behind running tasks. Nothing ran: the task
//  goes back to its place in the queue, no retry used, the worker neither
//  blamed nor credited; a cancel said meanwhile ends it instead.
static void
s_given_back (drover_assign_t *self, drover_taskrecord_t *task, const char *worker)
{
    drover_taskrun_t *run = task->run;          //  current: it has one
    drover_taskworker_detach (run->worker, task);
    drover_taskactions_tell (self->actions, DROVER_ACTION_FREE, task, worker, NULL)->flags
        = DROVER_FREE_RETURNED;
    run->preempting = false;
    if (run->cancel) {
        s_finish (self, task, DROVER_TASK_CANCELLED,
                  drover_taskresult_new (worker, "cancelled before it started"));
        return;
    }
    char reason [DROVER_REASON_MAX + 1];
    snprintf (reason, sizeof reason, "returned: held ahead on %s behind its running tasks",
              worker);
    s_keep_attempt (self, task, worker, reason);
    s_set_state (self, task, DROVER_TASK_QUEUED);
    run->offered_at = run->started_at = 0;      //  no current attempt until the next offer
    drover_taskactions_tell (self->actions, DROVER_ACTION_EVENT, task, worker, reason)->topic
        = "task.requeued";
    drover_taskactions_queue (self->actions, task);
}

//  End the current attempt of a task with its RESULT
static void
s_take_result (drover_assign_t *self, drover_taskrecord_t *task, drover_msg_t *msg)
{
    if (msg->outcome == DROVER_OUTCOME_RETURNED) {
        s_given_back (self, task, msg->worker);
        return;
    }
    if (msg->outcome == DROVER_OUTCOME_MACHINE_FAILED) {
        //  The worker could not start it for want of something of its own
        char text [DROVER_REASON_MAX + 1];
        snprintf (text, sizeof text, "machine failed: %s", msg->reason? msg->reason: "");
        s_host_failed (self, task, text);
        return;
    }
    drover_taskrun_t *run = task->run;          //  current: it has one
    //  It started its run time ago, not before it was offered: sooner than
    //  its STARTED said if the worker held that back (level 7, a few msec)
    int64_t now = s_now (self);
    int64_t started = now - (int64_t) msg->duration;
    if (started < run->offered_at)
        started = run->offered_at? run->offered_at: now;
    //  Its STARTED may never have come (a worker of level 7 leaves it out
    //  for an attempt that ends within a few msec): no task.running is
    //  said for it, which would cost an event and a write for each such task
    if (!run->started_at || started < run->started_at)
        run->started_at = started;
    drover_taskworker_detach (run->worker, task);
    drover_taskactions_tell (self->actions, DROVER_ACTION_FREE, task, msg->worker, NULL);
    bool preempted = run->preempting && !run->cancel
                  && !(msg->outcome == DROVER_OUTCOME_EXITED && msg->exit_code == 0);
    run->preempting = false;
    if (preempted) {
        //  Stopped to make room: back at its place, no retry used, the
        //  worker not blamed nor credited
        s_requeue (self, task, msg->worker, "preempted");
        return;
    }
    drover_taskactions_tell (self->actions, DROVER_ACTION_SUCCESS, task, msg->worker, NULL);
    char text [DROVER_REASON_MAX + 1];
    if (msg->outcome == DROVER_OUTCOME_EXITED && msg->exit_code == 0)
        //  Done, even if a cancel came too late to stop it
        s_finish (self, task, DROVER_TASK_SUCCEEDED, drover_taskresult_take (msg, msg->worker, NULL));
    else
    if (run->cancel)
        s_finish (self, task, DROVER_TASK_CANCELLED, drover_taskresult_take (msg, msg->worker, "cancelled"));
    else {
        drover_taskresult_describe (msg, text, sizeof text);
        if (run->retries_left > 0) {
            run->retries_left--;
            s_retry (self, task, msg->worker, text);
        }
        else
            s_finish (self, task, DROVER_TASK_FAILED, drover_taskresult_take (msg, msg->worker, text));
    }
}


//  ---------------------------------------------------------------------
//  Attempts: decisions from schedq and health

//  PREEMPT: stop a preemptible task's attempt on worker to make room for
//  task preemptor; its RESULT queues it again (s_take_result)
int
drover_assign_preempt (drover_assign_t *self, uint64_t id, const char *worker_id,
                      uint64_t preemptor)
{
    assert (self && worker_id);
    s_begin (self);
    drover_taskrecord_t *task = s_lookup (self, id);
    if (!task || !task->preemptible || !drover_taskrecord_on (task)
    ||  task->run->cancel || task->run->preempting
    ||  (task->state != DROVER_TASK_ASSIGNED && task->state != DROVER_TASK_RUNNING)
    ||  !streq (task->run->worker->id, worker_id))
        return -1;              //  ended or moved meanwhile: nothing to stop
    task->run->preempting = true;
    char reason [DROVER_REASON_MAX + 1];
    snprintf (reason, sizeof reason, "preempted for task %" PRIu64, preemptor);
    drover_taskactions_event (self->actions, task, "task.preempted", reason);
    drover_taskactions_kill (self->actions, task->run->worker, task->id, task->run->attempt);
    return 0;
}

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
    drover_taskrun_t *run = drover_taskrecord_run (task);
    run->attempt++;
    run->restored = false;
    run->offered_at = s_now (self);
    run->started_at = 0;
    s_set_state (self, task, DROVER_TASK_ASSIGNED);
    drover_taskworker_attach (worker, task);
    drover_taskactions_offer (self->actions, task);
    drover_taskactions_event (self->actions, task, "task.assigned", NULL);
    s_ack_t ack = { task->id, run->attempt, now + self->ack_timeout };
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
        if (task && drover_taskrecord_on (task) == worker
        &&  task->run->attempt == running [index].attempt) {
            drover_taskrun_t *run = task->run;
            run->adopted = true;
            if (run->restored) {
                //  schedq has not heard of it since the restart
                drover_action_t *placed = drover_taskactions_add (self->actions,
                                                                  DROVER_ACTION_PLACED, task);
                placed->procs = task->procs;
                placed->mem = drover_taskrecord_mem (task);
                placed->labels = drover_taskrecord_labels (task);
                placed->devices = drover_taskrecord_devices (task);
                placed->flags = task->preemptible? DROVER_SUBMIT_PREEMPTIBLE: 0;
                run->restored = false;
            }
            if (task->state == DROVER_TASK_ASSIGNED) {
                s_set_state (self, task, DROVER_TASK_RUNNING);
                if (!run->started_at)
                    run->started_at = s_now (self);
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
        if (task->run->adopted)
            task->run->adopted = false;
        else {
            drover_taskworker_detach (worker, task);
            drover_taskactions_tell (self->actions, DROVER_ACTION_FREE, task, worker->id, NULL);
            if (task->state == DROVER_TASK_ASSIGNED && !task->run->cancel)
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
        drover_taskworker_detach (worker, task);
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
    int64_t next = s_expire_holds (self, now);
    s_ack_t *ack;
    while ((ack = (s_ack_t *) drover_ring_head (self->acks))) {
        drover_taskrecord_t *task = s_lookup (self, ack->task);
        if (!task || task->state != DROVER_TASK_ASSIGNED
        ||  drover_taskrecord_attempt (task) != ack->attempt) {
            drover_ring_pop (self->acks);
            continue;           //  taken, ended or offered again since
        }
        if (ack->deadline > now)
            return next == -1 || ack->deadline < next? ack->deadline: next;
        drover_ring_pop (self->acks);
        drover_taskactions_kill (self->actions, task->run->worker, task->id, task->run->attempt);
        s_host_failed (self, task, "ack timeout");
    }
    return next;
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
        drover_flowview_row (self->flow, &table->task_rows [index]);
        snprintf (table->task_rows [index].owner, sizeof table->task_rows [index].owner, "%s",
                  drover_owners_name (self->owners, task->owner));
    }
    free (newest);
}

//  Keep the device indices a task's attempt was given (NULL or "": none)
void
drover_assign_set_assigned (drover_assign_t *self, uint64_t id, const char *text)
{
    assert (self);
    s_assigned_t *entry = (s_assigned_t *) drover_idhash_lookup (self->assigned, id);
    if (entry) {
        drover_idhash_delete (self->assigned, entry);
        free (entry);
    }
    if (text && *text && s_lookup (self, id)) {
        size_t length = strlen (text);
        entry = (s_assigned_t *) malloc (sizeof (s_assigned_t) + length + 1);
        assert (entry);
        entry->id = id;
        memcpy (entry->text, text, length + 1);
        drover_idhash_insert (self->assigned, entry);
    }
}

//  Return the device indices a task's current or last attempt was given
const char *
drover_assign_assigned (drover_assign_t *self, uint64_t id)
{
    assert (self);
    s_assigned_t *entry = (s_assigned_t *) drover_idhash_lookup (self->assigned, id);
    return entry? entry->text: "";
}

//  Take the share settings that hold queued quotas
int
drover_assign_set_quotas (drover_assign_t *self, const char *accounts, const char *quotas,
                         char **error_p)
{
    assert (self);
    return drover_queuequota_set (self->quotas, accounts, quotas, error_p);
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
    return task? drover_taskrecord_attempt (task): 0;
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
    *started_p = drover_taskrecord_started_at (task);
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

//  Fill TASK INFO's keys of sharing: the devices asked, the indices the
//  current or last attempt was given, preemptible
static void
s_share_info (drover_assign_t *self, const drover_taskrecord_t *task, drover_taskinfo_t *info)
{
    const char *devices = drover_taskrecord_devices (task);
    const char *assigned = drover_assign_assigned (self, task->id);
    info->devices = *devices? strdup (devices): NULL;
    info->assigned = *assigned? strdup (assigned): NULL;
    info->preemptible = task->preemptible;
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
    if (!task && s_unmade (self, id)) {
        //  An array's element not made yet: it waits for room in its array
        drover_group_t *group = drover_groups_of (drover_flow_groups (self->flow), id);
        drover_taskinfo_t *info = drover_taskinfo_new ();
        info->task = id;
        info->state = DROVER_TASK_QUEUED;
        info->waits = DROVER_WAITS_ARRAY;
        info->group = group->id;
        info->index = drover_groups_index (group, id);
        info->array_first = group->first;
        info->array_step = group->step;
        *info_p = info;
        return DROVER_CODE_OK;
    }
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
    drover_flowview_info (self->flow, *info_p, s_state_of, self);
    s_share_info (self, task, *info_p);
    return DROVER_CODE_OK;
}


//  ---------------------------------------------------------------------
//  The table after a restart
//
//  The tasks the store kept put back as they were, ids that go on, the
//  grace for workers to report their attempts, and submits the store could
//  not save.

//  A restored task is an array or a workflow: its group, from its kept
//  submit (a workflow's array spec says step 0, its span and its steps)
static void
s_restore_group (drover_assign_t *self, drover_taskrecord_t *task, const drover_change_t *change)
{
    const drover_array_spec_t *spec = &change->submit->array;
    bool workflow = spec->step == 0;
    drover_group_t *group = drover_groups_add (drover_flow_groups (self->flow), task->id,
                                               workflow? spec->limit: spec->count, spec->count,
                                               workflow? NULL: spec);
    group->started = workflow || change->waits == DROVER_WAITS_GROUP;
    self->restored_groups = true;
    if (workflow)
        group->made = group->members;
    if (self->next_id <= task->id + spec->count)
        self->next_id = task->id + spec->count + 1;     //  its members' ids stay its
}

//  A restored task is a member of a group restored before it: count it
static void
s_restore_member (drover_assign_t *self, drover_taskrecord_t *task, bool final)
{
    drover_group_t *group = drover_groups_of (drover_flow_groups (self->flow), task->id);
    if (!group || self->loaded)
        return;
    if (group->array && task->id - group->id > group->made)
        group->made = (uint32_t) (task->id - group->id);    //  made in order
    if (final)
        group->ended [task->state]++;
    else
        group->live++;
}

//  Put a restored QUEUED task back where it waited: in the queue, held
//  for its begin or retry time, for its parents (judged again now: a
//  verdict is acted on at LOADED), or for its members
static void
s_restore_flow (drover_assign_t *self, drover_taskrecord_t *task, const drover_change_t *change)
{
    drover_flow_restored (self->flow, task->id, change->submit);
    if (change->submit->array.count) {
        s_restore_group (self, task, change);
        if (change->waits == DROVER_WAITS_GROUP || change->submit->array.step == 0) {
            drover_waiting_add (drover_flow_waiting (self->flow), task->id,
                                DROVER_WAITS_GROUP, 0);
            return;
        }
    }
    drover_waiting_t *waiting = drover_flow_waiting (self->flow);
    if (change->waits == DROVER_WAITS_AFTER && change->submit->nafter) {
        uint64_t blame;
        int blame_state;
        int verdict = drover_deps_add (drover_flow_deps (self->flow), task->id,
                                       change->submit->after, change->submit->nafter,
                                       s_state_of, self, &blame, &blame_state);
        if (verdict == DROVER_DEPS_WAITS)
            drover_waiting_add (waiting, task->id, DROVER_WAITS_AFTER, 0);
        else
            s_verdict (self, task->id, verdict, blame, blame_state);
    }
    else
    if ((change->waits == DROVER_WAITS_BEGIN || change->waits == DROVER_WAITS_RETRY)
    &&  change->due_at)
        drover_waiting_add (waiting, task->id, change->waits, change->due_at);
    else
    if (change->submit->array.count)
        s_verdict (self, task->id, DROVER_DEPS_RELEASED, 0, 0);    //  starts at LOADED
    else
        drover_taskactions_queue (self->actions, task);
}

//  At LOADED: what restored groups made and lost, and the verdicts
//  judged while restoring; arrays make more elements if they may
static void
s_loaded_flow (drover_assign_t *self)
{
    if (!self->restored_groups) {
        s_decide (self);        //  no group to walk the table for (a million tasks)
        return;
    }
    drover_groups_t *groups = drover_flow_groups (self->flow);
    for (size_t slot = 0; slot < drover_idhash_slots (self->tasks); slot++) {
        drover_taskrecord_t *task = (drover_taskrecord_t *) drover_idhash_slot (self->tasks, slot);
        drover_group_t *group = task? drover_groups_lookup (groups, task->id): NULL;
        if (!group || drover_taskrecord_final (task))
            continue;
        //  Members made, ended and no longer kept: their outcome is lost;
        //  counted as succeeded
        uint64_t known = group->live + drover_groups_ended (group);
        if (group->made > known)
            group->ended [DROVER_TASK_SUCCEEDED] += group->made - known;
    }
    s_decide (self);
    for (size_t slot = 0; slot < drover_idhash_slots (self->tasks); slot++) {
        drover_taskrecord_t *task = (drover_taskrecord_t *) drover_idhash_slot (self->tasks, slot);
        drover_group_t *group = task? drover_groups_lookup (groups, task->id): NULL;
        if (!group || drover_taskrecord_final (task))
            continue;
        s_make_elements (self, group);
        if (drover_groups_ended (group) >= group->members)
            s_group_end (self, group);
    }
}

//  Start loading a task's slot in the table
void
drover_assign_prefetch (drover_assign_t *self, uint64_t task)
{
    assert (self);
    drover_idhash_prefetch (self->tasks, task);
}

//  RESTORE: put back a task the store kept, as it was. Returns 0, or -1 if
//  the change cannot be a task or the id is held already (ignored). After
//  LOADED only a final task is taken: one the store read back from its
//  history for a request (RECALL), kept until drover_assign_recalled.
int
drover_assign_restore (drover_assign_t *self, drover_change_t *change)
{
    assert (self && change);
    s_begin (self);
    //  Every id held is below next_id: the store's load hands ids in
    //  order, each past the last, and a million of them need no lookup
    //  (a miss walks its probe run, a cache miss an entry)
    if (!(change->submit || (change->record && change->record->id == change->task
                              && change->state == DROVER_TASK_QUEUED))
    ||  !change->task || change->state >= DROVER_TASK_UNKNOWN
    || (change->task < self->next_id && s_lookup (self, change->task)))
        return -1;
    bool final = change->state >= DROVER_TASK_SUCCEEDED;
    if (self->loaded && !final)
        return -1;              //  a live task is never read back: the table has it
    bool placed = change->state == DROVER_TASK_ASSIGNED || change->state == DROVER_TASK_RUNNING;
    if ((final && !change->done) || (placed && !drover_id_valid (change->worker)))
        return -1;
    drover_taskrecord_t *task = NULL;
    if (change->record) {
        //  Made by the store: taken as it is (a plain QUEUED task)
        task = change->record;
        change->record = NULL;
        task->owner = drover_owners_index (self->owners, change->owner);
    }
    else
        task = s_new_record (self, change->task, change->submit);
    //  An attempt only for a task that had one (a plain QUEUED task has none)
    if (change->attempt || change->lost || change->started_at || change->offered_at
    ||  change->retries_left != drover_taskrecord_retries (task)) {
        drover_taskrun_t *run = drover_taskrecord_run (task);
        run->attempt = change->attempt;
        run->retries_left = change->retries_left;
        run->lost = change->lost;
        run->started_at = change->started_at;
        run->offered_at = change->offered_at;
    }
    task->state = change->state;
    task->queued_at = change->queued_at;
    if (change->history) {
        drover_taskhistory_t *history = drover_taskhistory_decode (task->id, change->history,
                                                                   change->history_size);
        if (history) {
            drover_idhash_insert (self->histories, history);
            task->has_history = true;
        }
    }
    s_insert (self, task);
    drover_assign_set_assigned (self, task->id, change->assigned);
    if (self->next_id <= task->id)
        self->next_id = task->id + 1;
    s_restore_member (self, task, final);
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
        task->run->restored = true;
    }
    else
    if (change->submit)
        s_restore_flow (self, task, change);
    else
    if ((change->waits == DROVER_WAITS_BEGIN || change->waits == DROVER_WAITS_RETRY)
    &&  change->due_at)
        drover_waiting_add (drover_flow_waiting (self->flow), task->id, change->waits,
                            change->due_at);
    else
        drover_taskactions_queue (self->actions, task);     //  as s_restore_flow would
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
        drover_taskworker_t *worker = task->run->worker;
        drover_taskactions_kill (self->actions, worker, task->id, task->run->attempt);
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
    s_loaded_flow (self);
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
                task->run->restored = false;
                if (task->run->cancel)
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
    drover_taskrecord_clear_retries (task);     //  its retries left follow: none
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
    placed->mem = drover_taskrecord_mem (task);
    placed->labels = drover_taskrecord_labels (task);
    placed->devices = drover_taskrecord_devices (task);
    placed->flags = task->preemptible? DROVER_SUBMIT_PREEMPTIBLE: 0;
    return DROVER_CODE_OK;
}


//  ---------------------------------------------------------------------
//  Workflows: what the actor asks

//  Fill a change's workflow fields with what the table holds of its task
//  now (drover_flowview_fields)
void
drover_assign_flow_fields (drover_assign_t *self, uint64_t id, uint8_t *waits_p,
                           int64_t *due_p, uint64_t *group_p, uint32_t *made_p)
{
    assert (self);
    drover_flowview_fields (self->flow, id, waits_p, due_p, group_p, made_p);
}

//  Return how many tasks are held back for cause (drover_waits_t)
size_t
drover_assign_held (drover_assign_t *self, int cause)
{
    assert (self);
    if (cause == DROVER_WAITS_ARRAY)
        return (size_t) drover_groups_unmade (drover_flow_groups (self->flow));
    return drover_waiting_count (drover_flow_waiting (self->flow), cause);
}

//  A task's TASK SUBMIT rebuilt from the table, for the store to keep:
//  its fields and command, its after list, begin and retry delays, and an
//  array's spec (a workflow's own record: step 0, count its span, limit
//  its steps); NULL if the table does not hold it
drover_msg_t *
drover_assign_submit_of (drover_assign_t *self, uint64_t id)
{
    assert (self);
    drover_taskrecord_t *task = s_lookup (self, id);
    if (!task)
        return NULL;
    drover_msg_t *msg = s_submit_like (task, drover_taskrecord_body (task), task->body_size);
    size_t count;
    const drover_after_t *after = drover_deps_parents (drover_flow_deps (self->flow), id, &count);
    if (count) {
        msg->after = (drover_after_t *) zmalloc (count * sizeof (drover_after_t));
        memcpy (msg->after, after, count * sizeof (drover_after_t));
        msg->nafter = (uint32_t) count;
    }
    msg->begin = (uint64_t) drover_flow_begin (self->flow, id, &msg->retry_delay,
                                               &msg->retry_max_delay);
    drover_group_t *group = drover_groups_lookup (drover_flow_groups (self->flow), id);
    if (group && group->array)
        msg->array = (drover_array_spec_t) { group->first, group->step, group->members,
                                             group->limit };
    else
    if (group)
        msg->array = (drover_array_spec_t) { 0, 0, group->span, group->members };
    snprintf (msg->principal, sizeof msg->principal, "%s",
              drover_owners_name (self->owners, task->owner));
    return msg;
}


//  TASK LIST of a group's members (an array's elements made so far, a
//  workflow's steps), in id order, up to limit rows; counts per state are
//  the members'. Returns 200, or 404 if group is not an array or workflow
//  the table holds.
int
drover_assign_list_members (drover_assign_t *self, uint64_t id, uint32_t limit,
                            drover_msg_t *table, const char **reason_p)
{
    assert (self && table && reason_p);
    s_begin (self);
    *reason_p = "";
    drover_group_t *group = drover_groups_lookup (drover_flow_groups (self->flow), id);
    if (!group) {
        *reason_p = "not an array or a workflow";
        return DROVER_CODE_NOT_FOUND;
    }
    size_t wanted = limit < DROVER_ROWS_MAX? limit: DROVER_ROWS_MAX;
    if (wanted)
        table->task_rows = (drover_task_row_t *) zmalloc (wanted * sizeof (drover_task_row_t));
    for (int state = 0; state < DROVER_TASK_STATES; state++)
        table->counts [state] = group->ended [state];
    table->counts [DROVER_TASK_QUEUED] += group->members - group->made;
    for (uint64_t member = id + 1; member <= drover_groups_last (group); member++) {
        drover_taskrecord_t *task = s_lookup (self, member);
        if (!task || drover_groups_of (drover_flow_groups (self->flow), member) != group)
            continue;
        if (!drover_taskrecord_final (task))
            table->counts [task->state]++;
        if (table->nrows < wanted) {
            drover_task_row_t *row = &table->task_rows [table->nrows++];
            drover_taskrecord_row (task, self->exec, row);
            drover_flowview_row (self->flow, row);
            snprintf (row->owner, sizeof row->owner, "%s",
                      drover_owners_name (self->owners, task->owner));
        }
    }
    return DROVER_CODE_OK;
}

//  TASK EXPLAIN of a task held back before the queue (or a group's own
//  id): fill reply's items and return true; false if it is not held here
bool
drover_assign_explain_held (drover_assign_t *self, uint64_t id, drover_msg_t *reply)
{
    assert (self && reply);
    s_begin (self);
    drover_taskrecord_t *task = s_lookup (self, id);
    return task && drover_flowview_explain (self->flow, id, drover_taskrecord_attempt (task) + 1,
                                            drover_taskrecord_retries (task) + 1, reply, s_state_of, self);
}
