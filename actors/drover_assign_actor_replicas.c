/*  =========================================================================
    drover_assign_actor_replicas - the assign actor's part for the reconciler's
    replica tasks

    START runs a service's replica on the worker the reconciler chose
    (drover_assign_start: created, offered at once, said PLACED), STOP
    cancels one, and every change of a replica's task is said REPLICA to
    the reconciler (and, after LOADED, each restored one). The service,
    slot and stop reason of each are kept in drover_tasktags until the
    task ends. Part of the actor: it runs in assign's thread, on its state.
    =========================================================================
*/

#include "drover_assign_actor_internal.h"

typedef drover_assign_actor_self_t self_t;

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
void
drover_assign_actor_tell_replica (self_t *self, const drover_action_t *action)
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
void
drover_assign_actor_start (self_t *self, zmsg_t *msg)
{
    char worker [DROVER_ID_MAX + 1];
    drover_actor_pop_text (msg, worker, sizeof worker);
    zframe_t *frame = zmsg_pop (msg);
    assert (frame);             //  the reconciler said it wrong: our bug
    self->submit = drover_msg_new (0);
    uint64_t task = 0;
    const char *reason = "not a TASK SUBMIT";
    int code = DROVER_CODE_BAD_REQUEST;
    if (drover_msg_decode (self->submit, zframe_data (frame), zframe_size (frame)) == 0
    &&  self->submit->id == DROVER_MSG_TASK_SUBMIT) {
        self->submit->retries = 0;
        self->submit->flags &= ~DROVER_SUBMIT_NOTIFY;
        code = drover_assign_start (self->table, self->submit, worker, zclock_mono (),
                                       &task, &reason);
    }
    if (code == DROVER_CODE_OK) {
        self->submit->task = task;  //  so its first change carries it (s_publish)
        self->submitted++;
        drover_tasktags_add (self->tags, task, self->submit);
        drover_assign_actor_carry_out (self);
    }
    else
        zsys_error ("assign: START worker=%s refused: %s", worker, reason);
    drover_msg_destroy (&self->submit);
    zframe_destroy (&frame);
}

//  STOP task(8) reason(s): cancel a replica; it ends CANCELLED, the
//  reason said in its REPLICA
void
drover_assign_actor_stop (self_t *self, zmsg_t *msg)
{
    uint64_t task = drover_actor_pop_number (msg);
    char reason [DROVER_REASON_MAX + 1];
    drover_actor_pop_text (msg, reason, sizeof reason);
    drover_tasktags_set_stop (self->tags, task, reason);
    const char *refused;
    if (drover_assign_cancel (self->table, task, &refused) != DROVER_CODE_OK
    &&  self->flags.verbose)
        zsys_debug ("assign: STOP task=%" PRIu64 " ignored: %s", task, refused);
    drover_assign_actor_carry_out (self);
}

//  Say REPLICA for each replica restored
void
drover_assign_actor_say_restored (self_t *self)
{
    drover_tasktags_each_replica (self->tags, s_restored_replica, self);
}
