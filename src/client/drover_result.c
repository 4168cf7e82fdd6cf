/*  =========================================================================
    drover_result - a task's result (see drover_result.h)

    A result is its TASK DONE message (drover_client_wire.h): the client
    hands out the message it decoded, and the accessors read its fields.
    A duplicate is a new TASK DONE with the same fields.
    =========================================================================
*/

#include "drover_client_wire.h"

//  Return a copy of a result
drover_result_t *
drover_result_dup (const drover_result_t *self)
{
    assert (self);
    const drover_msg_t *done = drover_result_msg (self);
    drover_msg_t *copy = drover_msg_new (DROVER_MSG_TASK_DONE);
    copy->seq = done->seq;
    copy->task = done->task;
    copy->state = done->state;
    copy->end = done->end;
    copy->attempt = done->attempt;
    strcpy (copy->worker, done->worker);
    copy->exit_code = done->exit_code;
    copy->signal = done->signal;
    copy->truncated = done->truncated;
    copy->duration = done->duration;
    drover_msg_set_output (copy, done->out, done->out_size, done->err, done->err_size);
    if (done->reason)
        drover_msg_set_reason (copy, done->reason);
    return (drover_result_t *) drover_result_of (copy);
}

//  Destroy a result from drover_result_dup
void
drover_result_destroy (drover_result_t **self_p)
{
    assert (self_p);
    drover_msg_t *msg = (drover_msg_t *) *self_p;
    drover_msg_destroy (&msg);
    *self_p = NULL;
}

//  Return the task id
uint64_t
drover_result_task (const drover_result_t *self)
{
    assert (self);
    return drover_result_msg (self)->task;
}

//  Return the task's state
int
drover_result_state (const drover_result_t *self)
{
    assert (self);
    return drover_result_msg (self)->state;
}

//  Return how the task ended
int
drover_result_end (const drover_result_t *self)
{
    assert (self);
    return drover_result_msg (self)->end;
}

//  Return the last attempt's number
uint32_t
drover_result_attempt (const drover_result_t *self)
{
    assert (self);
    return drover_result_msg (self)->attempt;
}

//  Return the worker of the last attempt
const char *
drover_result_worker (const drover_result_t *self)
{
    assert (self);
    return drover_result_msg (self)->worker;
}

//  Return the last attempt's exit status
int
drover_result_exit_code (const drover_result_t *self)
{
    assert (self);
    return drover_result_msg (self)->exit_code;
}

//  Return the signal that ended the last attempt
int
drover_result_signal (const drover_result_t *self)
{
    assert (self);
    return drover_result_msg (self)->signal;
}

//  Return the last attempt's run time, msec
uint32_t
drover_result_duration (const drover_result_t *self)
{
    assert (self);
    return drover_result_msg (self)->duration;
}

//  Return the captured stdout
const uint8_t *
drover_result_out (const drover_result_t *self)
{
    assert (self);
    return drover_result_msg (self)->out;
}

//  Return the size of the captured stdout
size_t
drover_result_out_size (const drover_result_t *self)
{
    assert (self);
    return drover_result_msg (self)->out_size;
}

//  Return the captured stderr
const uint8_t *
drover_result_err (const drover_result_t *self)
{
    assert (self);
    return drover_result_msg (self)->err;
}

//  Return the size of the captured stderr
size_t
drover_result_err_size (const drover_result_t *self)
{
    assert (self);
    return drover_result_msg (self)->err_size;
}

//  Return which captures were cut
uint32_t
drover_result_truncated (const drover_result_t *self)
{
    assert (self);
    return drover_result_msg (self)->truncated;
}

//  Return the broker's words on how it ended
const char *
drover_result_reason (const drover_result_t *self)
{
    assert (self);
    const char *reason = drover_result_msg (self)->reason;
    return reason? reason: "";
}
