/*  =========================================================================
    drover_assign_actor - the assign actor: the I/O around the task table

    The task table (src/broker/tasks/drover_assign.c) decides; this actor
    reads its commands, calls the table with zclock_mono () as `now`,
    answers the peer that asked, then carries out the actions the table
    decided, in order. The reply to a request always goes out before what
    the request caused (a client sees OK to its CANCEL before the TASK DONE
    it brings). The only timers are the table's oldest ack deadline and the
    end of the restart grace.

    Every change of a task is said to the store (CHANGE: the event and the
    task's state after it; with durability off only while someone listens
    to events). With durability full, what acknowledges a change (TASK
    ACCEPTED, TASK DONE, the OK to a RESULT or a CANCEL) is said as REPLY:
    the store sends it on once the change is committed.

    In order: the state; saying what the table decided (s_carry_out); the
    reconciler's replica tasks; clients' requests and workers' reports
    (each MSG), with the requests parked while the store reads evicted
    tasks back; the commands; the loop. What it hears and says, and how:
    actors/ACTORS.md, "assign" and "How actors talk".
    =========================================================================
*/

#include "drover_assign_actor.h"
#include "drover_devicelist.h"
#include "drover_msg.h"
#include "drover_assign.h"
#include "drover_leases.h"
#include "drover_tasktags.h"
#include "drover_actor.h"
#include "drover_metrics.h"
#include "drover_store_actor.h"

//  Most warnings about stale or unknown reports logged per second
#define S_WARNINGS_PER_SEC  20

typedef struct {
    zsock_t *pipe;              //  commands from the broker main
    drover_outbox_t *outbox;    //  what this turn says, flushed as one BATCH
    zsock_t *link;              //  PAIR straight to schedq (ACTORS.md, "The link")
    drover_outbox_t *to_schedq; //  what this turn says on the link: QUEUE, TAKE, FREE, RETURN...
    drover_once_t succeeded;    //  workers told SUCCESS this turn
    drover_once_t heard;        //  workers health was told HEARD of this turn
    drover_poller_t *poller;    //  the pipe (and the link)
    drover_assign_t *table;  //  every task; decides everything
    drover_leases_t *leases;    //  idle capacity schedq lent us: tasks placed without it
    drover_tasktags_t *tags;    //  replicas' service and slot, affinity keys
    drover_turns_t turns;       //  when the loop last turned, to notice our own stalls
    uint64_t stale;             //  reports answered STALE, NOT FOUND or NOT REGISTERED
    uint64_t suppressed;        //  warnings held back by the rate limit
    int64_t warned_at;          //  start of the current warning second, msec
    int warnings;               //  warnings logged in that second
    drover_actor_flags_t flags; //  EVENTS, VERBOSE (also logs each task's end), $TERM
    int durability;             //  drover_durability_t
    drover_record_kind_t acks;  //  how acknowledgements go: REPLY with durability full, else SEND
    uint32_t restart_grace;     //  msec for workers to report after a restart
    int64_t grace_at;           //  msec (mono) when the restart grace ends, 0: none
    uint64_t restored;          //  RESTOREs handled this turn, not yet said RESTORED
    char state_id [DROVER_STATE_ID_SIZE + 1];   //  the broker's state id (STATE)
    uint64_t submitted;         //  tasks accepted, ever (METRICS)
    uint64_t ended [DROVER_END_MAX + 1];    //  tasks that reached a final state, by end
    uint64_t preempted;         //  attempts stopped to make room (task.preempted)
    uint64_t returned;          //  offers held ahead, given back unstarted (RETURNED)
    uint64_t requeued;          //  attempts put back in the queue
    uint64_t refused [3];       //  reports refused: 409 STALE, 404 NOT FOUND, 401 NOT REGISTERED
    drover_histogram_t histograms [DROVER_HISTOGRAMS];  //  queue wait, run time, end to end
    bool loaded;                //  LOADED heard: a RESTORE now is a task read back (RECALL)
    zlistx_t *parked;           //  s_parked_t: requests waiting for a RECALL,
                                //  in the order the RECALLs were said (owned)
    uint64_t recalls;           //  RECALLs said, ever: the last one's number
    uint64_t recall_restored;   //  tasks read back since the last RECALLED
} self_t;

//  A client's TASK WAIT or SHOW naming tasks evicted from the table (past
//  keep-finished): parked while the store reads them back from its
//  durable history (RECALL), then handled as if it came then (RECALLED)
typedef struct {
    uint64_t ref;               //  its RECALL's number
    byte route [256];           //  the client's routing id
    size_t route_size;          //  bytes in route
    drover_msg_t *msg;          //  the request, owned
} s_parked_t;

//  Requests parked at once, at most: past it, an evicted task is said
//  EXPIRED as without history
#define S_PARKED_MAX    1024

//  Destroy a parked request
static void
s_parked_destroy (void **item_p)
{
    s_parked_t *parked = (s_parked_t *) *item_p;
    if (!parked)
        return;
    drover_msg_destroy (&parked->msg);
    free (parked);
    *item_p = NULL;
}


//  Create the actor's state; link is the endpoint schedq binds
static self_t *
s_self_new (zsock_t *pipe, const char *link)
{
    assert (link);              //  the link is the only way to schedq
    self_t *self = (self_t *) zmalloc (sizeof (self_t));
    self->pipe = pipe;
    self->outbox = drover_outbox_new ();
    self->link = zsock_new (ZMQ_PAIR);
    assert (self->link);
    int rc = zsock_connect (self->link, "%s", link);
    assert (rc == 0);
    self->to_schedq = drover_outbox_new ();
    self->poller = drover_poller_new ();
    drover_poller_add (self->poller, pipe);
    drover_poller_add (self->poller, self->link);
    self->table = drover_assign_new ();
    self->leases = drover_leases_new ();
    self->tags = drover_tasktags_new ();
    self->durability = DROVER_DURABILITY_OFF;
    self->acks = DROVER_RECORD_SEND;
    self->parked = zlistx_new ();
    zlistx_set_destructor (self->parked, s_parked_destroy);
    return self;
}

//  Destroy the actor's state
static void
s_self_destroy (self_t **self_p)
{
    self_t *self = *self_p;
    if (!self)
        return;
    if (self->stale)
        zsys_info ("assign: stopping stale_reports=%" PRIu64, self->stale);
    zlistx_destroy (&self->parked);
    drover_assign_destroy (&self->table);
    drover_leases_destroy (&self->leases);
    drover_tasktags_destroy (&self->tags);
    drover_poller_destroy (&self->poller);
    drover_outbox_destroy (&self->to_schedq);
    drover_outbox_destroy (&self->outbox);
    zsock_destroy (&self->link);
    free (self);
    *self_p = NULL;
}


//  ---------------------------------------------------------------------
//  Saying things

//  Tell whether a warning may be logged now: at most S_WARNINGS_PER_SEC a
//  second, so that a flood of stale reports cannot flood the log
static bool
s_may_warn (self_t *self)
{
    int64_t now = zclock_mono ();
    if (now - self->warned_at >= 1000) {
        if (self->suppressed)
            zsys_warning ("assign: %" PRIu64 " more warnings not logged", self->suppressed);
        self->warned_at = now;
        self->warnings = 0;
        self->suppressed = 0;
    }
    if (self->warnings >= S_WARNINGS_PER_SEC) {
        self->suppressed++;
        return false;
    }
    self->warnings++;
    return true;
}

//  A final task's result, as the store keeps it
static drover_msg_t *
s_result_of (const drover_action_t *action)
{
    drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
    done->task = action->task;
    done->state = action->state;
    done->outcome = action->outcome;
    done->end = action->end;
    done->exit_code = action->exit_code;
    done->signal = action->signal;
    done->truncated = action->truncated;
    done->duration = action->duration;
    drover_msg_set_output (done, action->out, action->out_size, action->err, action->err_size);
    drover_msg_set_reason (done, action->reason);
    return done;
}

//  Tell the store of a task's change: to keep (durability full or batch),
//  and to publish as an event (when someone listens). submit_p, if not
//  NULL, holds the TASK SUBMIT being handled: the first change of its task
//  takes it, for the store to keep
static void
s_publish (self_t *self, const drover_action_t *action, drover_msg_t **submit_p)
{
    bool durable = self->durability != DROVER_DURABILITY_OFF;
    if (durable || !self->flags.silent) {
        drover_change_t *change = drover_change_new (action->topic, action->task);
        change->attempt = action->attempt;
        drover_actor_copy_text (change->worker, sizeof change->worker, action->worker);
        drover_actor_copy_text (change->reason, sizeof change->reason, action->reason);
        change->state = action->state;
        change->retries_left = action->retries_left;
        change->lost = action->lost;
        change->queued_at = action->queued_at;
        change->started_at = action->started_at;
        change->ended_at = action->ended_at;
        change->offered_at = action->offered_at;
        if (durable)
            change->history = drover_assign_history (self->table, action->task,
                                                         &change->history_size);
        drover_actor_copy_text (change->owner, sizeof change->owner,
                     drover_assign_owner (self->table, action->task));
        const char *assigned = drover_assign_assigned (self->table, action->task);
        if (*assigned) {
            change->assigned = strdup (assigned);
            assert (change->assigned);
        }
        drover_assign_flow_fields (self->table, action->task, &change->waits,
                                   &change->due_at, &change->group, &change->made);
        if (durable && submit_p && *submit_p && (*submit_p)->task == action->task) {
            change->submit = *submit_p;         //  the new task's fields, to keep
            *submit_p = NULL;
        }
        else
        if (durable && streq (action->topic, "task.queued"))
            //  A task made by the broker (an array's element, a workflow's
            //  step or own record): its submit, rebuilt
            change->submit = drover_assign_submit_of (self->table, action->task);
        if (durable && drover_change_final (change))
            change->done = s_result_of (action);
        drover_outbox_say_change (self->outbox, DROVER_RECORD_CHANGE, &change);
    }

    //  One line per final state would be too much at 100k tasks/s
    if (streq (action->topic, "task.failed"))
        zsys_info ("assign: task=%" PRIu64 " state=FAILED attempt=%u worker=%s reason=\"%s\"",
                   action->task, action->attempt, action->worker, action->reason);
    else
    if (self->flags.verbose)
        zsys_debug ("assign: %s task=%" PRIu64 " attempt=%u worker=%s reason=\"%s\"",
                    action->topic, action->task, action->attempt, action->worker, action->reason);
}

//  Send a TASK OFFER, TASK KILL or TASK DONE the table decided
static void
s_send_action (self_t *self, const drover_action_t *action)
{
    drover_msg_t msg;
    memset (&msg, 0, sizeof msg);
    msg.task = action->task;
    msg.attempt = action->attempt;
    strcpy (msg.worker, action->worker);
    if (action->type == DROVER_ACTION_OFFER) {
        msg.id = DROVER_MSG_TASK_OFFER;
        msg.priority = action->priority;
        msg.procs = action->procs;
        msg.mem = action->mem;
        msg.timeout = action->timeout;
        msg.body = (byte *) action->body;           //  borrowed, never freed here
        msg.body_size = action->body_size;
        const char *error;
        int ndevices = drover_devicelist_parse (action->devices, msg.devices, &error);
        assert (ndevices >= 0);     //  checked at submit
        msg.ndevices = (uint32_t) ndevices;
        drover_actor_send_to (self->outbox, "assign", action->route, action->route_size, &msg,
                             action->worker);
    }
    else
    if (action->type == DROVER_ACTION_KILL) {
        msg.id = DROVER_MSG_TASK_KILL;
        drover_actor_send_to (self->outbox, "assign", action->route, action->route_size, &msg,
                             action->worker);
    }
    else {
        msg.id = DROVER_MSG_TASK_DONE;
        msg.seq = action->seq;
        msg.state = action->state;
        msg.end = action->end;
        msg.exit_code = action->exit_code;
        msg.signal = action->signal;
        msg.truncated = action->truncated;
        msg.duration = action->duration;
        msg.out = (byte *) action->out;             //  borrowed
        msg.out_size = action->out_size;
        msg.err = (byte *) action->err;             //  borrowed
        msg.err_size = action->err_size;
        msg.reason = action->reason [0]? (char *) action->reason: NULL;
        drover_actor_say_to (self->outbox, self->acks, "assign", action->route,
                             action->route_size, &msg, "");
    }
}

//  Say RETURN for a lease we stop holding
static void
s_return_lease (uint64_t lease, void *arg)
{
    self_t *self = (self_t *) arg;
    drover_outbox_say (self->to_schedq, "s8", "RETURN", lease);
}

//  Fill whose a queued task is and what else it asks, from its action
static void
s_tenancy (self_t *self, const drover_action_t *action, drover_tenancy_t *tenancy)
{
    tenancy->owner = drover_assign_owner (self->table, action->task);
    tenancy->devices = action->devices;
    tenancy->flags = action->flags;
}

//  Place a task the table queues on a lease that holds it, if we hold
//  one whose worker the table knows: TAKE tells schedq, and the table
//  offers it at once. Returns false if no lease holds it: it goes to
//  schedq's queue.
static bool
s_place_on_lease (self_t *self, const drover_action_t *queue)
{
    if (*queue->devices)
        return false;           //  a lease lends procs and memory only
    const char *worker;
    uint64_t lease = drover_leases_find (self->leases, queue->procs, queue->mem, queue->labels,
                                         &worker);
    if (!lease || !drover_assign_has_worker (self->table, worker))
        return false;           //  none, or its UP is still on the way
    char worker_id [DROVER_ID_MAX + 1];
    snprintf (worker_id, sizeof worker_id, "%s", worker);
    uint64_t task = queue->task;
    drover_tenancy_t tenancy;
    s_tenancy (self, queue, &tenancy);
    drover_outbox_say_take (self->to_schedq, lease, task, queue->procs, queue->mem, queue->labels,
                            &tenancy);
    if (drover_leases_take (self->leases, lease, queue->procs, queue->mem) == 0) {
        drover_leases_end (self->leases, lease);        //  used up
        s_return_lease (lease, self);
    }
    //  queue is the table's: it may be gone once the table is called again
    drover_assign_assign (self->table, task, worker_id, zclock_mono ());
    return true;
}

//  Count a task's change for METRICS: how it ended (and its times: end to
//  end, its last attempt's run), its first offer (the time it waited in
//  the queue), its requeue, or its preemption
static void
s_count (self_t *self, const drover_action_t *action)
{
    if (streq (action->topic, "task.preempted"))
        self->preempted++;      //  said while RUNNING: not its start
    else
    if (action->state >= DROVER_TASK_SUCCEEDED && action->state <= DROVER_TASK_CANCELLED
    &&  action->end <= DROVER_END_MAX) {
        self->ended [action->end]++;
        if (action->ended_at && action->queued_at)
            drover_histogram_observe (&self->histograms [DROVER_HISTOGRAM_END_TO_END],
                                      action->ended_at - action->queued_at);
        if (action->ended_at && action->started_at)
            drover_histogram_observe (&self->histograms [DROVER_HISTOGRAM_RUN],
                                      action->ended_at - action->started_at);
    }
    else
    if (action->state == DROVER_TASK_ASSIGNED && action->attempt == 1 && action->offered_at
    &&  action->queued_at)
        //  Its first offer: a short task's STARTED may never come (level 7)
        drover_histogram_observe (&self->histograms [DROVER_HISTOGRAM_QUEUE_WAIT],
                                  action->offered_at - action->queued_at);
    else
    if (streq (action->topic, "task.requeued"))
        self->requeued++;
}

//  METRICS round: the tasks by state, the counters and the histograms
static void
s_handle_metrics (self_t *self, uint64_t round)
{
    static const int states [] = {
        DROVER_TASK_QUEUED, DROVER_TASK_ASSIGNED, DROVER_TASK_RUNNING,
        DROVER_TASK_SUCCEEDED, DROVER_TASK_FAILED, DROVER_TASK_CANCELLED
    };
    static const int ends [] = {
        DROVER_END_SUCCEEDED, DROVER_END_FAILED, DROVER_END_TIMED_OUT, DROVER_END_CANCELLED,
        DROVER_END_SPAWN_FAILED, DROVER_END_LOST, DROVER_END_POISON
    };
    drover_metrics_t *counts = drover_metrics_new ();
    for (size_t index = 0; index < sizeof states / sizeof states [0]; index++)
        drover_metrics_set (counts, DROVER_METRIC_TASKS_QUEUED + index,
                              drover_assign_count (self->table, states [index]));
    drover_metrics_set (counts, DROVER_METRIC_SUBMITTED, self->submitted);
    for (size_t index = 0; index < sizeof ends / sizeof ends [0]; index++)
        drover_metrics_set (counts, DROVER_METRIC_ENDED_SUCCEEDED + index,
                              self->ended [ends [index]]);
    drover_metrics_set (counts, DROVER_METRIC_REQUEUED, self->requeued);
    for (int cause = DROVER_WAITS_AFTER; cause <= DROVER_WAITS_GROUP; cause++)
        drover_metrics_set (counts, DROVER_METRIC_WAITING_AFTER + cause - DROVER_WAITS_AFTER,
                            drover_assign_held (self->table, cause));
    drover_metrics_set (counts, DROVER_METRIC_ENDED_DEPENDENCY,
                        self->ended [DROVER_END_DEPENDENCY]);
    drover_metrics_set (counts, DROVER_METRIC_ENDED_OOM, self->ended [DROVER_END_OOM]);
    drover_metrics_set (counts, DROVER_METRIC_PREEMPTED, self->preempted);
    drover_metrics_set (counts, DROVER_METRIC_OFFERS_RETURNED, self->returned);
    drover_metrics_set (counts, DROVER_METRIC_REFUSED_STALE, self->refused [0]);
    drover_metrics_set (counts, DROVER_METRIC_REFUSED_NOT_FOUND, self->refused [1]);
    drover_metrics_set (counts, DROVER_METRIC_REFUSED_NOT_REGISTERED, self->refused [2]);
    for (int id = 0; id < DROVER_HISTOGRAMS; id++)
        drover_metrics_set_histogram (counts, (drover_histogram_id_t) id,
                                        &self->histograms [id]);
    drover_metrics_say (counts, self->outbox, round);
    drover_metrics_destroy (&counts);
}

static void
    s_tell_replica (self_t *self, const drover_action_t *action);

//  Carry out everything the table decided, in order. submit_p: the TASK
//  SUBMIT being handled, which its task's first change takes (s_publish),
//  or NULL
static void
s_carry_out (self_t *self, drover_msg_t **submit_p)
{
    const drover_action_t *action;
    const char *affinity;
    while ((action = drover_assign_next_action (self->table))) {
        switch (action->type) {
            case DROVER_ACTION_QUEUE:
                if ((affinity = drover_tasktags_affinity (self->tags, action->task)))
                    //  schedq places it by its key, never on a lease
                    drover_outbox_say (self->to_schedq, "s8i48ssss4", "AFFINITY", action->task,
                                       action->priority, action->procs, action->mem,
                                       action->labels, affinity,
                                       drover_assign_owner (self->table, action->task),
                                       action->devices, action->flags);
                else
                if (!s_place_on_lease (self, action)) {
                    drover_tenancy_t tenancy;
                    s_tenancy (self, action, &tenancy);
                    drover_outbox_say_queue (self->to_schedq, action->task, action->priority,
                                             action->procs, action->mem, action->labels,
                                             &tenancy);
                }
                break;
            case DROVER_ACTION_DEQUEUE:
                drover_outbox_say (self->to_schedq, "s8", "DEQUEUE", action->task);
                break;
            case DROVER_ACTION_FREE:
                if (action->flags & DROVER_FREE_RETURNED) {
                    drover_outbox_say_given_back (self->to_schedq, action->task);
                    self->returned++;
                }
                else
                    drover_outbox_say_free (self->to_schedq, action->task);
                break;
            case DROVER_ACTION_SUCCESS:
                //  Once per worker per turn: probation only needs one
                if (drover_once_first (&self->succeeded, action->worker))
                    drover_outbox_say (self->outbox, "ss", "SUCCESS", action->worker);
                break;
            case DROVER_ACTION_FAILURE:
                if (s_may_warn (self))
                    zsys_warning ("assign: worker=%s failure reason=\"%s\" task=%" PRIu64,
                                  action->worker, action->reason, action->task);
                drover_outbox_say (self->outbox, "sss", "FAILURE", action->worker, action->reason);
                //  schedq puts the worker on probation at once, on the path of the
                //  QUEUE that follows: it must not get the task back (the
                //  PROBATION probation says too comes through the main,
                //  later). Probation still owns the timer and the release.
                //  Nor may a lease on it place the task there again.
                drover_leases_end_worker (self->leases, action->worker, s_return_lease, self);
                drover_outbox_say (self->to_schedq, "sss", "PROBATION", action->worker,
                                   action->reason);
                drover_once_forget (&self->succeeded, action->worker);  //  a later success counts
                break;
            case DROVER_ACTION_EVENT:
                s_count (self, action);
                s_publish (self, action, submit_p);
                s_tell_replica (self, action);
                break;
            case DROVER_ACTION_PLACED:
                drover_outbox_say (self->to_schedq, "s8s48sss4", "PLACED", action->task,
                                   action->worker, action->procs, action->mem, action->labels,
                                   drover_assign_owner (self->table, action->task),
                                   action->devices, action->flags);
                break;
            case DROVER_ACTION_SETTLED:
                drover_outbox_say (self->to_schedq, "ss", "SETTLED", action->worker);
                break;
            default:
                s_send_action (self, action);
        }
    }
}


//  ---------------------------------------------------------------------
//  The reconciler's replica tasks


//  Say REPLICA to the reconciler for a replica's task in a state
static void
s_say_replica (self_t *self, uint64_t task, const char *service, uint32_t slot,
               const char *worker, uint32_t attempt, int state, int end, const char *why)
{
    drover_outbox_say (self->outbox, "s8s4s444s", "REPLICA", task, service, slot, worker,
                       attempt, (uint32_t) state, (uint32_t) end, why);
}

//  A task changed: if it is a replica, tell the reconciler; once it is
//  final, forget its tag
static void
s_tell_replica (self_t *self, const drover_action_t *action)
{
    if (streq (action->topic, "task.queued") || streq (action->topic, "task.requeued"))
        return;                 //  not a state a replica rests in: ASSIGNED follows
    uint32_t slot;
    const char *service = drover_tasktags_service (self->tags, action->task, &slot);
    bool final = action->state >= DROVER_TASK_SUCCEEDED && action->state <= DROVER_TASK_CANCELLED;
    if (service) {
        const char *stop = drover_tasktags_stop (self->tags, action->task);
        s_say_replica (self, action->task, service, slot, action->worker, action->attempt,
                       action->state, final? action->end: DROVER_END_NONE,
                       final && stop? stop: action->reason);
    }
    if (final)
        drover_tasktags_remove (self->tags, action->task);
}

//  Say REPLICA for a replica restored: the reconciler learns what runs
static void
s_restored_replica (uint64_t task, const char *service, uint32_t slot, void *arg)
{
    self_t *self = (self_t *) arg;
    s_say_replica (self, task, service, slot, drover_assign_worker (self->table, task),
                   drover_assign_attempt (self->table, task),
                   drover_assign_state (self->table, task), DROVER_END_NONE, "restored");
}

//  START worker(s) submit(f): run the reconciler's replica there now
static void
s_handle_start (self_t *self, zmsg_t *msg)
{
    char worker [DROVER_ID_MAX + 1];
    drover_actor_pop_text (msg, worker, sizeof worker);
    zframe_t *frame = zmsg_pop (msg);
    assert (frame);             //  the reconciler said it wrong: our bug
    drover_msg_t *submit = drover_msg_new (0);
    uint64_t task = 0;
    const char *reason = "not a TASK SUBMIT";
    int code = DROVER_CODE_BAD_REQUEST;
    if (drover_msg_decode (submit, zframe_data (frame), zframe_size (frame)) == 0
    &&  submit->id == DROVER_MSG_TASK_SUBMIT) {
        submit->retries = 0;
        submit->flags &= ~DROVER_SUBMIT_NOTIFY;
        code = drover_assign_start (self->table, submit, worker, zclock_mono (), &task, &reason);
    }
    if (code == DROVER_CODE_OK) {
        submit->task = task;        //  so its first change carries it (s_publish)
        self->submitted++;
        drover_tasktags_add (self->tags, task, submit);
        s_carry_out (self, &submit);
    }
    else
        zsys_error ("assign: START worker=%s refused: %s", worker, reason);
    drover_msg_destroy (&submit);   //  unless its first change took it
    zframe_destroy (&frame);
}

//  STOP task(8) reason(s): cancel a replica; it ends CANCELLED, the
//  reason said in its REPLICA
static void
s_handle_stop (self_t *self, zmsg_t *msg)
{
    uint64_t task = drover_actor_pop_number (msg);
    char reason [DROVER_REASON_MAX + 1];
    drover_actor_pop_text (msg, reason, sizeof reason);
    drover_tasktags_set_stop (self->tags, task, reason);
    const char *refused;
    if (drover_assign_cancel (self->table, task, &refused) != DROVER_CODE_OK
    &&  self->flags.verbose)
        zsys_debug ("assign: STOP task=%" PRIu64 " ignored: %s", task, refused);
    s_carry_out (self, NULL);
}

//  Say REPLICA for each replica restored
static void
s_say_restored (self_t *self)
{
    drover_tasktags_each_replica (self->tags, s_restored_replica, self);
}


//  ---------------------------------------------------------------------
//  Requests from clients and reports from workers

//  TASK SUBMIT: the id, or why not; then what it caused. *submit_p is
//  ours: the new task's first change takes it (s_publish), for the store
//  to keep; else the caller destroys it
static void
s_handle_submit (self_t *self, const byte *route, size_t route_size, drover_msg_t **submit_p)
{
    drover_msg_t *msg = *submit_p;
    uint64_t task;
    const char *reason;
    int code = msg->service [0]? DROVER_CODE_BAD_REQUEST
             : drover_assign_submit (self->table, msg, route, route_size, &task, &reason);
    if (msg->service [0])
        reason = "service and slot are the broker's own: use SERVICE ADMIN";
    if (code != DROVER_CODE_OK) {
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq, code, reason, "");
        s_carry_out (self, NULL);
        return;
    }
    msg->task = task;           //  so its first change carries it (s_publish)
    self->submitted++;
    if (drover_assign_state (self->table, task) == DROVER_TASK_QUEUED)
        drover_tasktags_add (self->tags, task, msg);    //  its affinity key, if any
    drover_msg_t reply;
    memset (&reply, 0, sizeof reply);
    reply.id = DROVER_MSG_TASK_ACCEPTED;
    reply.seq = msg->seq;
    reply.task = task;
    strcpy (reply.state_id, self->state_id);
    drover_actor_say_to (self->outbox, self->acks, "assign", route, route_size, &reply, "");
    s_carry_out (self, submit_p);
}

//  WORKFLOW SUBMIT: every step or none; the ids, or why not (naming the
//  step); then what it caused. The store keeps each step's submit as the
//  table rebuilds it (drover_assign_submit_of).
static void
s_handle_workflow (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg)
{
    uint64_t workflow;
    const char *reason;
    uint64_t *ids = (uint64_t *) zmalloc ((msg->nsteps? msg->nsteps: 1) * sizeof (uint64_t));
    int code = drover_assign_submit_workflow (self->table, msg, &workflow, ids, &reason);
    if (code != DROVER_CODE_OK) {
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq, code, reason,
                               "");
        free (ids);
        s_carry_out (self, NULL);
        return;
    }
    self->submitted += msg->nsteps;
    for (uint32_t step = 0; step < msg->nsteps; step++)
        drover_tasktags_add (self->tags, ids [step], msg->steps [step]);   //  affinity keys
    drover_msg_t reply;
    memset (&reply, 0, sizeof reply);
    reply.id = DROVER_MSG_WORKFLOW_ACCEPTED;
    reply.seq = msg->seq;
    reply.task = workflow;
    reply.ntasks = msg->nsteps;
    reply.tasks = ids;
    strcpy (reply.state_id, self->state_id);
    drover_actor_say_to (self->outbox, self->acks, "assign", route, route_size, &reply, "");
    free (ids);
    s_carry_out (self, NULL);
}

//  TASK LIST: counts and rows; rows of queued tasks go by schedq, which
//  says why each waits and sends the table
static void
s_handle_list (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg)
{
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    reply->seq = msg->seq;
    //  Counts of every task for all; rows of its own tasks for a non-admin
    const char *owner = msg->roles & DROVER_ROLE_ADMIN? NULL: msg->principal;
    if (msg->group) {
        //  An array's or workflow's members (its owner checked)
        const char *reason = "";
        int code = drover_assign_check_owner (self->table, msg, &msg->group, 1, &reason);
        if (code == DROVER_CODE_OK)
            code = drover_assign_list_members (self->table, msg->group, msg->limit, reply,
                                               &reason);
        if (code != DROVER_CODE_OK) {
            drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq, code,
                                   reason, "");
            drover_msg_destroy (&reply);
            return;
        }
    }
    else
        drover_assign_list (self->table, msg->state, msg->limit, owner, msg->labels,
                            msg->nlabels, reply);
    bool queued = false;
    for (uint32_t index = 0; index < reply->nrows && !queued; index++)
        queued = reply->task_rows [index].state == DROVER_TASK_QUEUED;
    if (queued)
        drover_outbox_say_msg (self->to_schedq, route, route_size, &reply);
    else {
        drover_actor_send_to (self->outbox, "assign", route, route_size, reply, "");
        drover_msg_destroy (&reply);
    }
}

//  TASK EXPLAIN of a task the sender may see: a queued task's goes on to
//  schedq, which knows why it waits and answers; any other's state,
//  worker and attempt are answered here
static void
s_handle_explain (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg)
{
    int state = drover_assign_state (self->table, msg->task);
    if (state == DROVER_TASK_UNKNOWN) {
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq,
                               DROVER_CODE_NOT_FOUND, "unknown task", "");
        return;
    }
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_EXPLANATION);
    reply->seq = msg->seq;
    reply->task = msg->task;
    if (state == DROVER_TASK_QUEUED && drover_assign_explain_held (self->table, msg->task, reply)) {
        //  Held back before the queue: assign knows why
        reply->state = (uint8_t) state;
        drover_actor_send_to (self->outbox, "assign", route, route_size, reply, "");
        drover_msg_destroy (&reply);
        return;
    }
    if (state == DROVER_TASK_QUEUED)
        reply->id = DROVER_MSG_TASK_EXPLAIN;
    if (state == DROVER_TASK_QUEUED)
        //  After the task's QUEUE on the link: schedq holds it, or placed it
        drover_outbox_say_msg (self->to_schedq, route, route_size, &reply);
    else {
        reply->state = (uint8_t) state;
        reply->attempt = drover_assign_attempt (self->table, msg->task);
        snprintf (reply->worker, sizeof reply->worker, "%s",
                  drover_assign_worker (self->table, msg->task));
        drover_actor_send_to (self->outbox, "assign", route, route_size, reply, "");
        drover_msg_destroy (&reply);
    }
}

//  TASK SHOW (its owner checked): everything about the task, or 404
static void
s_handle_show (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg)
{
    const char *reason;
    drover_taskinfo_t *info;
    int code = drover_assign_show (self->table, msg->task, &info, &reason);
    if (code != DROVER_CODE_OK) {
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq, code, reason, "");
        return;
    }
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_INFO);
    reply->seq = msg->seq;
    reply->task = msg->task;
    reply->info = info;
    drover_actor_send_to (self->outbox, "assign", route, route_size, reply, "");
    drover_msg_destroy (&reply);
}

//  Warn about a report the table refused (stale attempt, unknown task, or
//  not from the worker's registration)
static void
s_warn_refused (self_t *self, drover_msg_t *msg, int code, const char *reason)
{
    self->stale++;
    self->refused [code == DROVER_CODE_STALE? 0: code == DROVER_CODE_NOT_FOUND? 1: 2]++;
    if (s_may_warn (self))
        zsys_warning ("assign: %s %s task=%" PRIu64 " attempt=%u worker=%s: %s",
                      code == DROVER_CODE_STALE? "stale":
                      code == DROVER_CODE_NOT_REGISTERED? "unregistered": "unknown",
                      drover_msg_name (msg->id), msg->task, msg->attempt, msg->worker, reason);
}

static void
    s_handle_report (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg);

//  MSG: a request from a client or a report from a worker, but a TASK
//  SUBMIT (s_handle_submit, which takes it)
static void
s_handle_request (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg)
{
    const char *reason = NULL;
    int code;
    if (msg->id == DROVER_MSG_TASK_LIST)
        s_handle_list (self, route, route_size, msg);
    else
    if (msg->id == DROVER_MSG_WORKFLOW_SUBMIT)
        s_handle_workflow (self, route, route_size, msg);
    else
    if (((msg->id == DROVER_MSG_TASK_CANCEL || msg->id == DROVER_MSG_TASK_SHOW
          || msg->id == DROVER_MSG_TASK_EXPLAIN)
         && drover_assign_check_owner (self->table, msg, &msg->task, 1, &reason) != 200)
    ||  (msg->id == DROVER_MSG_TASK_WAIT
         && drover_assign_check_owner (self->table, msg, msg->tasks, msg->ntasks, &reason) != 200))
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq,
                               DROVER_CODE_FORBIDDEN, reason, "");
    else
    if (msg->id == DROVER_MSG_TASK_SHOW)
        s_handle_show (self, route, route_size, msg);
    else
    if (msg->id == DROVER_MSG_TASK_EXPLAIN)
        s_handle_explain (self, route, route_size, msg);
    else
    if (msg->id == DROVER_MSG_TASK_CANCEL) {
        code = drover_assign_cancel (self->table, msg->task, &reason);
        drover_actor_answer_to (self->outbox, code == DROVER_CODE_OK? self->acks: DROVER_RECORD_SEND,
                                "assign", route, route_size, msg->seq, code, reason, "");
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT && msg->state_id [0]
    &&  strcmp (msg->state_id, self->state_id)) {
        char text [DROVER_REASON_MAX + 1];
        snprintf (text, sizeof text, "broker state changed (was %s, now %s): tasks submitted "
                  "before are unknown to it", msg->state_id, self->state_id);
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq,
                               DROVER_CODE_STATE_CHANGED, text, "");
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT) {
        code = drover_assign_wait (self->table, msg->tasks, msg->ntasks, msg->seq,
                                      route, route_size, &reason);
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq, code, reason, "");
    }
    else
    if ((msg->id == DROVER_MSG_TASK_STARTED || msg->id == DROVER_MSG_TASK_RESULT)
    &&  drover_assign_fence (self->table, msg->worker, route, route_size, &reason)
        != DROVER_CODE_OK) {
        //  Not from the worker's registration: "" so that a refused send
        //  of this answer does not put the worker the report named on probation
        s_warn_refused (self, msg, DROVER_CODE_NOT_REGISTERED, reason);
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq,
                              DROVER_CODE_NOT_REGISTERED, reason, "");
    }
    else
    if (msg->id == DROVER_MSG_TASK_STARTED || msg->id == DROVER_MSG_TASK_RESULT) {
        //  From the worker's registration: health counts it as life (told
        //  once per worker a turn, however many reports)
        if (drover_once_first (&self->heard, msg->worker))
            drover_outbox_say (self->outbox, "ssb", "HEARD", msg->worker, route, route_size);
        s_handle_report (self, route, route_size, msg);
    }
    else
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq,
                              DROVER_CODE_UNEXPECTED, "not a message the task table handles", "");
    s_carry_out (self, NULL);
}


//  ---------------------------------------------------------------------
//  Tasks evicted from the table, read back from the durable history

//  A TASK WAIT or SHOW that names tasks evicted from the table (their
//  result dropped past keep-finished): with durable history, ask the store
//  to read them back (RECALL) and park the request until it has
static bool
s_recall (self_t *self, const byte *route, size_t route_size, drover_msg_t **msg_p)
{
    drover_msg_t *msg = *msg_p;
    if ((msg->id != DROVER_MSG_TASK_WAIT && msg->id != DROVER_MSG_TASK_SHOW)
    ||  self->durability == DROVER_DURABILITY_OFF || zlistx_size (self->parked) >= S_PARKED_MAX)
        return false;
    bool show = msg->id == DROVER_MSG_TASK_SHOW;
    const uint64_t *ids = show? &msg->task: msg->tasks;
    size_t count = show? 1: msg->ntasks;
    uint64_t *evicted = NULL;
    size_t nevicted = 0;
    for (size_t index = 0; ids && index < count; index++)
        if (drover_assign_evicted (self->table, ids [index])) {
            if (!evicted)
                evicted = (uint64_t *) malloc ((count - index) * sizeof (uint64_t));
            assert (evicted);
            evicted [nevicted++] = ids [index];
        }
    if (nevicted == 0)
        return false;
    s_parked_t *parked = (s_parked_t *) zmalloc (sizeof (s_parked_t));
    parked->ref = ++self->recalls;
    memcpy (parked->route, route, route_size);
    parked->route_size = route_size;
    parked->msg = msg;
    *msg_p = NULL;
    zlistx_add_end (self->parked, parked);
    drover_outbox_say (self->outbox, "s8b", "RECALL", parked->ref, evicted,
                       nevicted * sizeof (uint64_t));
    free (evicted);
    return true;
}

//  RECALLED ref: what the history keeps of the tasks is back in the table
//  (RESTOREs said before); handle the parked request as if it came now (an
//  owner's check sees the tasks' owners; a task the history no longer keeps
//  is EXPIRED, as before), then those tasks are finished tasks like any
//  other. The store answers RECALLs in the order they were said.
static void
s_recalled (self_t *self, uint64_t ref)
{
    s_parked_t *parked = (s_parked_t *) zlistx_first (self->parked);
    if (!parked || parked->ref != ref) {
        zsys_error ("assign: RECALLED ref=%" PRIu64 " out of order", ref);
        assert (false);         //  the store answers in order: our bug
        return;
    }
    s_handle_request (self, parked->route, parked->route_size, parked->msg);
    drover_assign_recalled (self->table, self->recall_restored);
    self->recall_restored = 0;
    zlistx_delete (self->parked, zlistx_cursor (self->parked));
}

//  TASK STARTED or RESULT from the worker's registration
static void
s_handle_report (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg)
{
    const char *reason = NULL;
    int code;
    if (msg->id == DROVER_MSG_TASK_STARTED) {
        code = drover_assign_started (self->table, msg->worker, msg->task, msg->attempt, &reason);
        if (code == DROVER_CODE_OK && msg->assigned)
            drover_assign_set_assigned (self->table, msg->task, msg->assigned);
        if (code != DROVER_CODE_OK) {
            s_warn_refused (self, msg, code, reason);
            drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq, code, reason,
                                  msg->worker);
        }
    }
    else
    if (msg->id == DROVER_MSG_TASK_RESULT) {
        code = drover_assign_result (self->table, msg, &reason);
        if (code != DROVER_CODE_OK)
            s_warn_refused (self, msg, code, reason);
        drover_actor_answer_to (self->outbox, code == DROVER_CODE_OK? self->acks: DROVER_RECORD_SEND,
                                "assign", route, route_size, msg->seq, code, reason, msg->worker);
    }
}


//  ---------------------------------------------------------------------
//  Handling commands

//  Tell whether a frame can be a ROUTER routing id
static bool
s_route_valid (zframe_t *route)
{
    return route && zframe_size (route) >= 1 && zframe_size (route) <= 255;
}

//  ASSIGN task worker: offer the placed task, or give back what can no
//  longer run
static void
s_handle_assign (self_t *self, const drover_record_t *record)
{
    drover_assign_assign (self->table, record->task, record->worker, zclock_mono ());
    s_carry_out (self, NULL);
}

//  UP: the worker's route and the attempts it says it runs
static void
s_handle_up (self_t *self, zmsg_t *msg)
{
    char worker [DROVER_ID_MAX + 1];
    drover_actor_pop_text (msg, worker, sizeof worker);
    zframe_t *route = zmsg_pop (msg);
    for (int skip = 0; skip < 4; skip++) {          //  epoch, procs, mem, labels
        zframe_t *frame = zmsg_pop (msg);
        zframe_destroy (&frame);
    }
    zframe_t *running = zmsg_pop (msg);
    if (!running || !s_route_valid (route)) {
        zsys_error ("assign: UP worker=%s said wrong", worker);
        assert (false);         //  health said it wrong: our bug
        zframe_destroy (&running);
        zframe_destroy (&route);
        return;
    }
    //  Copied so the refs are aligned, whatever the frame's storage
    size_t count = zframe_size (running) / sizeof (drover_taskref_t);
    drover_taskref_t *refs = NULL;
    if (count) {
        refs = (drover_taskref_t *) malloc (count * sizeof (drover_taskref_t));
        assert (refs);
        memcpy (refs, zframe_data (running), count * sizeof (drover_taskref_t));
    }
    drover_assign_worker_up (self->table, worker, zframe_data (route), zframe_size (route),
                                refs, count);
    s_carry_out (self, NULL);
    free (refs);
    zframe_destroy (&running);
    zframe_destroy (&route);
}

//  LOST worker(s) reason(s): requeue or fail what the worker had
static void
s_handle_lost (self_t *self, zmsg_t *msg)
{
    char worker [DROVER_ID_MAX + 1], reason [DROVER_REASON_MAX + 1];
    drover_actor_pop_text (msg, worker, sizeof worker);
    drover_actor_pop_text (msg, reason, sizeof reason);
    //  Before the requeues: none may go back to the worker on its lease
    drover_leases_end_worker (self->leases, worker, s_return_lease, self);
    drover_assign_worker_lost (self->table, worker, reason);
    s_carry_out (self, NULL);
}

//  LEASE lease(8) worker(s) procs(4) mem(8) labels(s): hold schedq's lease
static void
s_handle_lease (self_t *self, zmsg_t *msg)
{
    uint64_t lease = drover_actor_pop_number (msg);
    char worker [DROVER_ID_MAX + 1];
    drover_actor_pop_text (msg, worker, sizeof worker);
    uint32_t procs = (uint32_t) drover_actor_pop_number (msg);
    uint64_t mem = drover_actor_pop_number (msg);
    char *labels = drover_actor_pop_string (msg);
    if (drover_leases_add (self->leases, lease, worker, procs, mem, labels)) {
        zsys_error ("assign: LEASE lease=%" PRIu64 " said twice", lease);
        assert (false);         //  schedq said it wrong: our bug
    }
    zstr_free (&labels);
}

//  REVOKE lease(8): give it back, unless we did already
static void
s_handle_revoke (self_t *self, zmsg_t *msg)
{
    uint64_t lease = drover_actor_pop_number (msg);
    if (drover_leases_end (self->leases, lease) == 0)
        s_return_lease (lease, self);
}

//  CONFIGURE ack-timeout(4) lost-retries(4) max-queued(4) keep-finished(4)
//  max-queued-bytes(4) keep-finished-bytes(4)
static void
s_handle_configure (self_t *self, zmsg_t *msg)
{
    uint32_t ack_timeout = (uint32_t) drover_actor_pop_number (msg);
    uint32_t lost_retries = (uint32_t) drover_actor_pop_number (msg);
    uint32_t max_queued = (uint32_t) drover_actor_pop_number (msg);
    uint32_t keep_finished = (uint32_t) drover_actor_pop_number (msg);
    drover_assign_configure (self->table, ack_timeout, lost_retries, max_queued, keep_finished);
    drover_assign_set_max_queued_bytes (self->table, (size_t) drover_actor_pop_number (msg));
    drover_assign_set_max_kept_bytes (self->table, (size_t) drover_actor_pop_number (msg));
    self->durability = (int) drover_actor_pop_number (msg);
    self->acks = self->durability == DROVER_DURABILITY_FULL? DROVER_RECORD_REPLY: DROVER_RECORD_SEND;
    self->restart_grace = (uint32_t) drover_actor_pop_number (msg);
}

//  LOADED next-task(8) restored(8): ids go on from next-task; the attempts
//  restored wait for their workers until the end of the grace
static void
s_handle_loaded (self_t *self, zmsg_t *msg)
{
    uint64_t next_task = drover_actor_pop_number (msg);
    uint64_t restored = drover_actor_pop_number (msg);
    drover_assign_loaded (self->table, next_task);
    self->loaded = true;
    uint64_t placed = drover_assign_count (self->table, DROVER_TASK_ASSIGNED)
                    + drover_assign_count (self->table, DROVER_TASK_RUNNING);
    if (restored)
        zsys_notice ("assign: restored tasks=%" PRIu64 " queued=%" PRIu64 " running=%" PRIu64
                     " finished=%" PRIu64 ", waiting up to %u msec for workers to report",
                     restored, drover_assign_count (self->table, DROVER_TASK_QUEUED), placed,
                     restored - placed - drover_assign_count (self->table, DROVER_TASK_QUEUED),
                     self->restart_grace);
    if (placed)
        self->grace_at = zclock_mono () + self->restart_grace;
    s_say_restored (self);
    //  Restoring passed every task through the store's and the main's
    //  threads, each change and message freed here: give what they held
    //  back to the system (the allocator keeps freed memory in the arena of
    //  the thread that made it, the store's idle one among them)
    if (restored)
        drover_actor_give_back_memory ();
}

//  QUOTAS accounts quotas: schedq's share settings, for the queued quotas
static void
s_handle_quotas (self_t *self, zmsg_t *msg)
{
    char *accounts = zmsg_popstr (msg);
    char *quotas = zmsg_popstr (msg);
    char *error = NULL;
    if (drover_assign_set_quotas (self->table, accounts, quotas, &error)) {
        //  schedq checked them: ours could only disagree by a bug
        zsys_error ("assign: QUOTAS refused: %s", error);
        zstr_free (&error);
    }
    zstr_free (&accounts);
    zstr_free (&quotas);
}

//  PREEMPT task worker for: stop a preemptible task to make room for
//  another; it runs again at its place, its retries untouched
static void
s_handle_preempt (self_t *self, zmsg_t *msg)
{
    uint64_t task = drover_actor_pop_number (msg);
    char worker [DROVER_ID_MAX + 1];
    drover_actor_pop_text (msg, worker, sizeof worker);
    uint64_t preemptor = drover_actor_pop_number (msg);
    if (drover_assign_preempt (self->table, task, worker, preemptor) == 0)
        zsys_info ("assign: task=%" PRIu64 " preempted on worker=%s for task=%" PRIu64,
                   task, worker, preemptor);
    s_carry_out (self, NULL);
}

//  The restart grace is over: what no worker reported runs again
static void
s_end_grace (self_t *self)
{
    self->grace_at = 0;
    size_t requeued = drover_assign_end_grace (self->table);
    if (requeued)
        zsys_warning ("assign: restart grace over, attempts=%zu nobody reported run again",
                      requeued);
    s_carry_out (self, NULL);
}

//  Handle one control command from the pipe or the link (drover_outbox_receive
//  calls this)
static void
s_handle_command (void *arg, zmsg_t *msg)
{
    self_t *self = (self_t *) arg;
    char command [16];
    drover_actor_pop_text (msg, command, sizeof command);
    if (self->flags.verbose)
        zsys_debug ("assign: command=%s", command);
    if (streq (command, "LEASE"))
        s_handle_lease (self, msg);
    else
    if (streq (command, "REVOKE"))
        s_handle_revoke (self, msg);
    else
    if (streq (command, "QUOTAS"))
        s_handle_quotas (self, msg);
    else
    if (streq (command, "PREEMPT"))
        s_handle_preempt (self, msg);
    else
    if (streq (command, "UP"))
        s_handle_up (self, msg);
    else
    if (streq (command, "LOST"))
        s_handle_lost (self, msg);
    else
    if (streq (command, "CONFIGURE"))
        s_handle_configure (self, msg);
    else
    if (streq (command, "STATE"))
        drover_actor_pop_text (msg, self->state_id, sizeof self->state_id);
    else
    if (streq (command, "LOADED"))
        s_handle_loaded (self, msg);
    else
    if (streq (command, "RECALLED"))
        s_recalled (self, drover_actor_pop_number (msg));
    else
    if (streq (command, "METRICS"))
        s_handle_metrics (self, drover_actor_pop_number (msg));
    else
    if (streq (command, "START"))
        s_handle_start (self, msg);
    else
    if (streq (command, "STOP"))
        s_handle_stop (self, msg);
    else
    if (streq (command, "UNSAVED")) {
        uint64_t task = drover_actor_pop_number (msg);
        drover_tasktags_remove (self->tags, task);
        if (drover_assign_forget (self->table, task) == 0)
            zsys_warning ("assign: task=%" PRIu64 " forgotten: its submit could not be saved",
                          task);
        s_carry_out (self, NULL);
    }
    else
    if (!drover_actor_handle_common (&self->flags, command, msg)) {
        zsys_error ("assign: unknown pipe command=%s", command);
        assert (false);         //  the vocabulary is in ACTORS.md
    }
}

//  Handle one record (drover_actor_read calls this): MSG from the main,
//  for every request and report, and ASSIGN from schedq on the link
static void
s_handle_record (void *arg, drover_record_t *record)
{
    self_t *self = (self_t *) arg;
    if (self->flags.verbose)
        zsys_debug ("assign: command=%s", drover_record_word (record));
    if (record->kind == DROVER_RECORD_MSG && record->msg->id == DROVER_MSG_TASK_SUBMIT) {
        //  Taken: its first change hands it to the store (s_publish)
        drover_msg_t *submit = record->msg;
        record->msg = NULL;
        s_handle_submit (self, drover_record_route (record), record->route_size, &submit);
        drover_msg_destroy (&submit);
    }
    else
    if (record->kind == DROVER_RECORD_MSG) {
        if (!s_recall (self, drover_record_route (record), record->route_size, &record->msg))
            s_handle_request (self, drover_record_route (record), record->route_size,
                              record->msg);
    }
    else
    if (record->kind == DROVER_RECORD_ASSIGN)
        s_handle_assign (self, record);
    else
    if (record->kind == DROVER_RECORD_RESTORE) {
        if (drover_assign_restore (self->table, record->change)) {
            if (!self->loaded)      //  after LOADED: read back twice, by two requests
                zsys_warning ("assign: restored task=%" PRIu64 " ignored: not a task, or held"
                              " already", record->change->task);
        }
        else
        if (self->loaded)
            self->recall_restored++;
        else
        if (record->change->submit && !drover_change_final (record->change))
            drover_tasktags_add (self->tags, record->change->task, record->change->submit);
        if (!self->loaded)
            self->restored++;       //  the store's pace while loading (RESTORED)
        s_carry_out (self, NULL);
    }
    else {
        zsys_error ("assign: unexpected record=%s", drover_record_word (record));
        assert (false);         //  the vocabulary is in ACTORS.md
    }
}

//  Start loading what handling a record a few ahead will read (the
//  outbox calls this): a restored task's change and its slot in the
//  table, each a cache miss when a million tasks come back at start
static void
s_handle_ahead (void *arg, const drover_record_t *record)
{
    self_t *self = (self_t *) arg;
    if (record->kind == DROVER_RECORD_RESTORE) {
        __builtin_prefetch (record->change);
        drover_assign_prefetch (self->table, record->task);
    }
}

//  A pause of the broker is not a worker's silence: if this loop did not
//  run for a while, acks sent meanwhile are still unread; offers get that
//  much longer before they count as unacknowledged
static void
s_forgive_stall (self_t *self)
{
    int64_t stall = drover_turns_stall (&self->turns, zclock_mono ());
    size_t moved = stall? drover_assign_shift (self->table, stall): 0;
    if (moved)
        zsys_warning ("assign: broker stalled for %" PRId64 " msec: ack deadlines=%zu moved on "
                      "by as much", stall, moved);
}

//  Run the assign actor; args is the inproc endpoint (a string) schedq
//  binds for the link between them (actors/ACTORS.md, "The link")
void
drover_assign_actor (zsock_t *pipe, void *args)
{
    drover_actor_name_thread ("assign");
    self_t *self = s_self_new (pipe, (const char *) args);
    zsock_signal (pipe, 0);                     //  zactor_new returns only after this
    while (!self->flags.stopping) {
        int64_t now = zclock_mono ();
        if (self->grace_at && now >= self->grace_at)
            s_end_grace (self);
        int64_t deadline = drover_assign_expire (self->table, now);
        s_carry_out (self, NULL);
        if (self->grace_at && (deadline == -1 || self->grace_at < deadline))
            deadline = self->grace_at;
        //  schedq first: a QUEUE is on the way to an offer, while what goes
        //  to the main (ACCEPTED, say) can wait for a core a moment
        drover_actor_flush (self->poller, DROVER_LINK_AT, self->to_schedq, self->link);
        if (self->restored) {
            drover_outbox_say (self->outbox, "s8", "RESTORED", self->restored);
            self->restored = 0;
        }
        drover_actor_flush (self->poller, DROVER_PIPE_AT, self->outbox, self->pipe);
        drover_once_reset (&self->succeeded);
        drover_once_reset (&self->heard);
        //  While offers wait for acks, wake often enough to tell a stall
        //  of our own from sleep
        int wait = drover_actor_poll_timeout (deadline, now);
        if (deadline != -1)
            wait = drover_turns_wait (wait);
        if (drover_actor_wait (self->poller, wait, 0) == -1)
            break;              //  interrupted
        s_forgive_stall (self);
        if (drover_actor_read_ahead (self->poller, self->pipe, self->link, s_handle_command,
                                    s_handle_record, s_handle_ahead, self) == -1)
            break;              //  the context is ending
    }
    s_self_destroy (&self);
}
