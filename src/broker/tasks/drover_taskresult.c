/*  =========================================================================
    drover_taskresult - the last result of a finished task, as the task
    table keeps it

    A result is made when a task ends: from the worker's TASK RESULT (its
    outputs taken, not copied), or with no process status when the broker
    ends the task itself (cancelled while queued, lost, poison).
    =========================================================================
*/

#include "drover_taskresult.h"
#include "drover_taskinfo.h"

//  Create a result for a task that ends now (worker may be "")
drover_taskresult_t *
drover_taskresult_new (const char *worker, const char *reason)
{
    drover_taskresult_t *self = (drover_taskresult_t *) zmalloc (sizeof (drover_taskresult_t));
    snprintf (self->worker, sizeof self->worker, "%s", worker? worker: "");
    self->exit_code = -1;               //  no process status until a RESULT gives one
    self->outcome = DROVER_ATTEMPT_NO_RESULT;
    if (reason && *reason)
        self->reason = strdup (reason);
    return self;
}

//  Make the final result of an attempt, taking the outputs from msg
drover_taskresult_t *
drover_taskresult_take (drover_msg_t *msg, const char *worker, const char *reason)
{
    assert (msg);
    drover_taskresult_t *self = drover_taskresult_new (worker, reason);
    self->outcome = msg->outcome;
    self->exit_code = msg->exit_code;
    self->signal = msg->signal;
    self->truncated = msg->truncated;
    self->duration = msg->duration;
    self->out = msg->out;
    self->out_size = msg->out? msg->out_size: 0;
    self->err = msg->err;
    self->err_size = msg->err? msg->err_size: 0;
    msg->out = msg->err = NULL;
    msg->out_size = msg->err_size = 0;
    return self;
}

//  Destroy a result and its outputs; harmless on NULL
void
drover_taskresult_destroy (drover_taskresult_t **self_p)
{
    assert (self_p);
    drover_taskresult_t *self = *self_p;
    if (!self)
        return;
    free (self->out);
    free (self->err);
    free (self->reason);
    free (self);
    *self_p = NULL;
}

//  Return the output bytes the result holds
size_t
drover_taskresult_bytes (const drover_taskresult_t *self)
{
    assert (self);
    return self->out_size + self->err_size;
}

//  How a task that ends in state with this result ended, unless the caller
//  said (LOST, POISON): the last attempt's outcome tells a timeout and a
//  spawn failure from the task's other failures (PROTOCOL.md §7.13)
uint8_t
drover_taskresult_end_of (const drover_taskresult_t *self, int state)
{
    assert (self);
    if (drover_end_fits (state, self->end))
        return self->end;
    if (state == DROVER_TASK_SUCCEEDED)
        return DROVER_END_SUCCEEDED;
    if (state == DROVER_TASK_CANCELLED)
        return DROVER_END_CANCELLED;
    assert (state == DROVER_TASK_FAILED);
    return self->outcome == DROVER_OUTCOME_TIMEDOUT? DROVER_END_TIMED_OUT
         : self->outcome == DROVER_OUTCOME_SPAWN_FAILED? DROVER_END_SPAWN_FAILED
         : self->outcome == DROVER_OUTCOME_OOM? DROVER_END_OOM
         : DROVER_END_FAILED;
}

//  Say in words how an attempt failed
void
drover_taskresult_describe (const drover_msg_t *msg, char *text, size_t size)
{
    assert (msg && text);
    if (msg->reason && *msg->reason)
        snprintf (text, size, "%s", msg->reason);
    else
    if (msg->outcome == DROVER_OUTCOME_EXITED)
        snprintf (text, size, "exit %d", msg->exit_code);
    else
    if (msg->outcome == DROVER_OUTCOME_SIGNALLED)
        snprintf (text, size, "signal %d", msg->signal);
    else
    if (msg->outcome == DROVER_OUTCOME_TIMEDOUT)
        snprintf (text, size, "timed out");
    else
    if (msg->outcome == DROVER_OUTCOME_CANCELLED)
        snprintf (text, size, "killed");
    else
    if (msg->outcome == DROVER_OUTCOME_OOM)
        snprintf (text, size, "killed by the OOM killer");
    else
        snprintf (text, size, "could not start");
}
