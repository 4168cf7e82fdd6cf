/*  =========================================================================
    drover_taskattempts - the task table's attempts on workers: offered
    (ASSIGN from schedq), taken (TASK STARTED) or not in time (the ack
    deadlines), ended (TASK RESULT), adopted or lost when the worker
    registers again, lost with their worker (LOST from health)

    A report counts only from the connection the worker registered on, and
    only for the task's current attempt (drover_assign.c says why). An
    attempt lost with its worker uses up lost-retries; one its host could
    not run puts the worker on probation and uses up nothing.

    Part of the task table (drover_assign.h declares these functions;
    drover_assign_internal.h is what the parts share). No threads, no I/O.
    =========================================================================
*/

#include "drover_assign_internal.h"

static void s_take_result (drover_assign_t *self, drover_taskrecord_t *task,
                           drover_msg_t *msg);

//  ---------------------------------------------------------------------
//  Attempts that end with their worker or its host

//  An attempt ended with its worker (lost, or registered again without
//  it): cancel it if asked, stop it as poison past lost-retries,
//  else queue it again. The task is already off its worker.
static void
s_lose (drover_assign_t *self, drover_taskrecord_t *task, const char *worker, const char *reason)
{
    char text [DROVER_REASON_MAX + 1];
    if (task->cancel) {
        snprintf (text, sizeof text, "cancelled (%s)", reason);
        drover_assign_finish (self, task, DROVER_TASK_CANCELLED, drover_taskresult_new (worker, text));
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
        drover_assign_finish (self, task, DROVER_TASK_FAILED, result);
    }
    else
        drover_assign_requeue (self, task, worker, reason);
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
        drover_assign_finish (self, task, DROVER_TASK_CANCELLED, drover_taskresult_new (worker->id, text));
    }
    else
        drover_assign_requeue (self, task, worker->id, reason);
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
//  Traffic from workers

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
    drover_taskrecord_t *task = drover_assign_lookup (self, id);
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
    drover_assign_begin (self);
    *reason_p = "";
    drover_taskrecord_t *task;
    int code = s_find_current (self, worker, id, attempt, &task, reason_p);
    if (code != DROVER_CODE_OK)
        return code;
    if (task->state == DROVER_TASK_ASSIGNED) {
        drover_assign_set_state (self, task, DROVER_TASK_RUNNING);
        task->started_at = drover_assign_now (self);
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
    drover_assign_begin (self);
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
        task->started_at = drover_assign_now (self);     //  its STARTED never came
    drover_taskworker_detach (task->worker, task);
    drover_taskactions_tell (self->actions, DROVER_ACTION_FREE, task, msg->worker, NULL);
    drover_taskactions_tell (self->actions, DROVER_ACTION_SUCCESS, task, msg->worker, NULL);
    char text [DROVER_REASON_MAX + 1];
    if (msg->outcome == DROVER_OUTCOME_EXITED && msg->exit_code == 0)
        //  Done, even if a cancel came too late to stop it
        drover_assign_finish (self, task, DROVER_TASK_SUCCEEDED, drover_taskresult_take (msg, msg->worker, NULL));
    else
    if (task->cancel)
        drover_assign_finish (self, task, DROVER_TASK_CANCELLED, drover_taskresult_take (msg, msg->worker, "cancelled"));
    else {
        drover_taskresult_describe (msg, text, sizeof text);
        if (task->retries_left > 0) {
            task->retries_left--;
            drover_assign_requeue (self, task, msg->worker, text);
        }
        else
            drover_assign_finish (self, task, DROVER_TASK_FAILED, drover_taskresult_take (msg, msg->worker, text));
    }
}


//  ---------------------------------------------------------------------
//  Decisions from schedq and health

//  ASSIGN pair: offer the task to the worker, or give the capacity back
void
drover_assign_assign (drover_assign_t *self, uint64_t id, const char *worker_id, int64_t now)
{
    assert (self && worker_id);
    drover_assign_begin (self);
    drover_taskrecord_t *task = drover_assign_lookup (self, id);
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
    task->offered_at = drover_assign_now (self);
    task->started_at = 0;
    drover_assign_set_state (self, task, DROVER_TASK_ASSIGNED);
    drover_taskworker_attach (worker, task);
    drover_taskactions_offer (self->actions, task);
    drover_taskactions_event (self->actions, task, "task.assigned", NULL);
    drover_assign_ack_t ack = { task->id, task->attempt, now + self->ack_timeout };
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
    drover_assign_begin (self);
    drover_taskworker_t *worker = (drover_taskworker_t *) zhashx_lookup (self->workers, worker_id);
    if (!worker) {
        worker = drover_taskworker_new (worker_id);
        zhashx_insert (self->workers, worker->id, worker);
    }
    drover_taskworker_set_route (worker, route, route_size);
    if (worker->settling)
        s_settled (self, worker);       //  this UP lists what still runs

    for (size_t index = 0; index < nrunning; index++) {
        drover_taskrecord_t *task = drover_assign_lookup (self, running [index].task);
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
                drover_assign_set_state (self, task, DROVER_TASK_RUNNING);
                if (!task->started_at)
                    task->started_at = drover_assign_now (self);
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
                drover_assign_requeue (self, task, worker->id,
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
    drover_assign_begin (self);
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
    drover_assign_begin (self);
    drover_assign_ack_t *ack;
    while ((ack = (drover_assign_ack_t *) drover_ring_head (self->acks))) {
        drover_taskrecord_t *task = drover_assign_lookup (self, ack->task);
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
        ((drover_assign_ack_t *) drover_ring_at (self->acks, index))->deadline += gap;
    return count;
}
