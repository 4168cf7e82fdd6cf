/*  =========================================================================
    drover_taskrestore - the task table after a restart: the tasks the
    store kept put back as they were, ids that go on, the grace for
    workers to report their attempts, and submits the store could not save

    Part of the task table (drover_assign.h declares these functions;
    drover_assign_internal.h is what the parts share). No threads, no I/O.
    =========================================================================
*/

#include "drover_assign_internal.h"
#include "drover_change.h"

//  ---------------------------------------------------------------------
//  Restart: what the store kept

//  RESTORE: put back a task the store kept, as it was. Returns 0, or -1 if
//  the change cannot be a task or the id is held already (ignored). After
//  LOADED only a final task is taken: one the store read back from its
//  history for a request (RECALL), kept until drover_assign_recalled.
int
drover_assign_restore (drover_assign_t *self, const drover_change_t *change)
{
    assert (self && change);
    drover_assign_begin (self);
    if (!change->submit || !change->task || change->state >= DROVER_TASK_UNKNOWN
    ||  drover_assign_lookup (self, change->task))
        return -1;
    bool final = change->state >= DROVER_TASK_SUCCEEDED;
    if (self->loaded && !final)
        return -1;              //  a live task is never read back: the table has it
    bool placed = change->state == DROVER_TASK_ASSIGNED || change->state == DROVER_TASK_RUNNING;
    if ((final && !change->done) || (placed && !drover_id_valid (change->worker)))
        return -1;
    drover_taskrecord_t *task = drover_assign_new_record (self, change->task, change->submit);
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
    drover_assign_insert (self, task);
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
    drover_assign_begin (self);
    drover_taskrecord_t *task = drover_assign_lookup (self, id);
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
    drover_assign_remove (self, task);
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
    drover_assign_begin (self);
    size_t requeued = 0;
    drover_taskworker_t *worker = (drover_taskworker_t *) zhashx_first (self->workers);
    while (worker) {
        if (worker->route_size == 0) {
            while (worker->ntasks) {
                drover_taskrecord_t *task = worker->tasks [worker->ntasks - 1];
                drover_taskworker_detach (worker, task);
                task->restored = false;
                if (task->cancel)
                    drover_assign_finish (self, task, DROVER_TASK_CANCELLED, drover_taskresult_new (
                        worker->id, "cancelled (its worker did not come back after a restart)"));
                else
                    drover_assign_requeue (self, task, worker->id,
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
