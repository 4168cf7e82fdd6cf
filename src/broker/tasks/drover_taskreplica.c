/*  =========================================================================
    drover_taskreplica - the task table starting a service's replica

    A replica is an ordinary task (TASK LIST, SHOW and the logs see it)
    that the reconciler places itself, on the worker rendezvous hashing
    chose: it never waits in schedq's queue. Its submit is the broker's own
    (it names the service and the slot, asks no retries, has no waiter).
    It is created, offered to the worker at once (attempt 1), and said
    PLACED so that schedq counts what it uses. Once placed it lives as any
    task, but for one rule, kept by drover_assign_requeue: where a batch
    task would be queued again (its worker lost, a machine failure, an
    offer not acknowledged, the restart grace over), a replica ends FAILED
    (end LOST) and the reconciler starts another.
    =========================================================================
*/

#include "drover_assign_internal.h"

//  START: create the replica's task and run it on worker now
int
drover_assign_start (drover_assign_t *self, drover_msg_t *msg, const char *worker,
                        int64_t now, uint64_t *task_p, const char **reason_p)
{
    assert (self && msg && worker && task_p && reason_p);
    drover_assign_begin (self);
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
    drover_taskrecord_t *task = drover_assign_new_record (self, self->next_id++, msg);
    task->retries_left = task->retries = 0;
    drover_assign_insert (self, task);
    self->queued_bytes += drover_taskrecord_bytes (task);
    drover_taskactions_event (self->actions, task, "task.queued", NULL);
    *task_p = task->id;
    if (!drover_assign_has_worker (self, worker)) {
        drover_assign_finish (self, task, DROVER_TASK_FAILED,
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
