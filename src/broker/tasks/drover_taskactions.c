/*  =========================================================================
    drover_taskactions - what the task table decided to say (see the
    header)

    The actions are one array, grown by doubling and reused from the start
    once all were taken: borrowed pointers in them (body, labels, outputs)
    stay valid because the table frees no task before that.
    =========================================================================
*/

#include "drover_taskactions.h"

struct _drover_taskactions_t {
    drover_action_t *actions;   //  decided, not all taken yet
    size_t size;                //  actions allocated
    size_t count;               //  actions decided
    size_t next;                //  next action to hand out
};


//  Create an empty list
drover_taskactions_t *
drover_taskactions_new (void)
{
    return (drover_taskactions_t *) zmalloc (sizeof (drover_taskactions_t));
}

//  Destroy the list
void
drover_taskactions_destroy (drover_taskactions_t **self_p)
{
    assert (self_p);
    drover_taskactions_t *self = *self_p;
    if (!self)
        return;
    free (self->actions);
    free (self);
    *self_p = NULL;
}

//  Start over if every action was taken
bool
drover_taskactions_reset (drover_taskactions_t *self)
{
    assert (self);
    if (self->next < self->count)
        return false;           //  the caller still holds actions
    self->next = self->count = 0;
    return true;
}

//  Hand out the next action
const drover_action_t *
drover_taskactions_next (drover_taskactions_t *self)
{
    assert (self);
    if (self->next == self->count)
        return NULL;
    return &self->actions [self->next++];
}

//  Start a new action of a type about a task; other fields zero
drover_action_t *
drover_taskactions_add (drover_taskactions_t *self, int type, const drover_taskrecord_t *task)
{
    assert (self);
    if (self->count == self->size) {
        self->size = self->size? self->size * 2: 64;
        self->actions = (drover_action_t *) realloc (self->actions,
                                                     self->size * sizeof (drover_action_t));
        assert (self->actions);
    }
    drover_action_t *action = &self->actions [self->count++];
    memset (action, 0, sizeof (drover_action_t));
    action->type = type;
    if (task) {
        action->task = task->id;
        action->attempt = drover_taskrecord_attempt (task);
        strcpy (action->worker, drover_taskrecord_worker (task));
        action->state = task->state;
        action->retries_left = drover_taskrecord_retries_left (task);
        action->lost = drover_taskrecord_lost (task);
        action->queued_at = task->queued_at;
        action->started_at = drover_taskrecord_started_at (task);
        action->offered_at = drover_taskrecord_offered_at (task);
        action->ended_at = drover_taskrecord_final (task)? task->result->ended_at: 0;
    }
    return action;
}

//  Fill an action's result fields from a final task's result
static void
s_result (drover_action_t *action, const drover_taskrecord_t *task)
{
    drover_taskresult_t *result = task->result;
    assert (result);
    action->outcome = result->outcome;
    action->end = result->end;
    action->exit_code = result->exit_code;
    action->signal = result->signal;
    action->truncated = result->truncated;
    action->duration = result->duration;
    action->out = result->out;
    action->out_size = result->out_size;
    action->err = result->err;
    action->err_size = result->err_size;
}

//  Set an action's route (a worker's or a waiter's)
static void
s_route (drover_action_t *action, const byte *route, size_t route_size)
{
    assert (route_size < sizeof (action->route));
    memcpy (action->route, route, route_size);
    action->route_size = route_size;
}

//  Say something about a task or a worker, naming the worker
drover_action_t *
drover_taskactions_tell (drover_taskactions_t *self, int type, const drover_taskrecord_t *task,
                         const char *worker, const char *reason)
{
    drover_action_t *action = drover_taskactions_add (self, type, task);
    if (worker)
        snprintf (action->worker, sizeof action->worker, "%s", worker);
    if (reason)
        snprintf (action->reason, sizeof action->reason, "%s", reason);
    return action;
}

//  Say an event about a task in its present state
void
drover_taskactions_event (drover_taskactions_t *self, const drover_taskrecord_t *task,
                          const char *topic, const char *reason)
{
    drover_action_t *action = drover_taskactions_add (self, DROVER_ACTION_EVENT, task);
    action->topic = topic;
    if (reason)
        snprintf (action->reason, sizeof action->reason, "%s", reason);
    if (drover_taskrecord_final (task))
        s_result (action, task);
}

//  Tell schedq to place a task
void
drover_taskactions_queue (drover_taskactions_t *self, const drover_taskrecord_t *task)
{
    assert (task);
    drover_action_t *action = drover_taskactions_add (self, DROVER_ACTION_QUEUE, task);
    action->priority = task->priority;
    action->procs = task->procs;
    action->mem = drover_taskrecord_mem (task);
    action->labels = drover_taskrecord_labels (task);
    action->devices = drover_taskrecord_devices (task);
    action->flags = task->preemptible? DROVER_SUBMIT_PREEMPTIBLE: 0;
}

//  Offer the current attempt to the task's worker
void
drover_taskactions_offer (drover_taskactions_t *self, const drover_taskrecord_t *task)
{
    assert (task && drover_taskrecord_on (task));
    drover_action_t *offer = drover_taskactions_add (self, DROVER_ACTION_OFFER, task);
    drover_taskworker_t *worker = task->run->worker;
    s_route (offer, worker->route, worker->route_size);
    offer->priority = task->priority;
    offer->procs = task->procs;
    offer->mem = drover_taskrecord_mem (task);
    offer->timeout = drover_taskrecord_timeout (task);
    offer->body = drover_taskrecord_body (task);
    offer->body_size = task->body_size;
    offer->devices = drover_taskrecord_devices (task);
}

//  Send TASK KILL for an attempt to a worker
void
drover_taskactions_kill (drover_taskactions_t *self, drover_taskworker_t *worker,
                         uint64_t task, uint32_t attempt)
{
    assert (worker);
    if (worker->route_size == 0)
        return;                 //  restored, not registered since: nowhere to send it
    drover_action_t *action = drover_taskactions_add (self, DROVER_ACTION_KILL, NULL);
    action->task = task;
    action->attempt = attempt;
    strcpy (action->worker, worker->id);
    s_route (action, worker->route, worker->route_size);
}

//  Send TASK DONE for a task (NULL: not held) to a waiter
drover_action_t *
drover_taskactions_done (drover_taskactions_t *self, const drover_taskrecord_t *task,
                         uint64_t id, bool expired, const byte *route, size_t route_size,
                         uint32_t seq)
{
    drover_action_t *action = drover_taskactions_add (self, DROVER_ACTION_DONE, task);
    action->task = id;
    action->seq = seq;
    s_route (action, route, route_size);
    if (!task) {
        action->state = DROVER_TASK_UNKNOWN;
        action->end = expired? DROVER_END_EXPIRED: DROVER_END_UNKNOWN;
        action->exit_code = -1;         //  no process status
        return action;
    }
    s_result (action, task);
    if (task->result->reason)
        snprintf (action->reason, sizeof action->reason, "%s", task->result->reason);
    return action;
}
