/*  =========================================================================
    drover_job - one attempt as the in-process handler sees it (see
    drover_worker.h): what to run, read from the offer's exec body, and
    the TASK RESULT the handler fills in through the setters
    =========================================================================
*/

#include "drover_worker_internal.h"

//  Return the task id
uint64_t
drover_job_task (drover_job_t *self)
{
    assert (self);
    return self->task;
}

//  Return the attempt number
uint32_t
drover_job_attempt (drover_job_t *self)
{
    assert (self);
    return self->attempt;
}

//  Return the number of arguments of the command
int
drover_job_argc (drover_job_t *self)
{
    assert (self);
    return (int) self->exec->argc;
}

//  Return one argument of the command
const char *
drover_job_argv (drover_job_t *self, int index)
{
    assert (self);
    if (index < 0 || (size_t) index >= (size_t) self->exec->argc)
        return NULL;
    return self->exec->argv [index];
}

//  Set how the attempt ended
void
drover_job_set_outcome (drover_job_t *self, int outcome)
{
    assert (self);
    self->result->outcome = (uint8_t) outcome;
}

//  Set the attempt's exit status
void
drover_job_set_exit_code (drover_job_t *self, int exit_code)
{
    assert (self);
    self->result->exit_code = exit_code;
}

//  Set the signal that ended the attempt
void
drover_job_set_signal (drover_job_t *self, int signal)
{
    assert (self);
    self->result->signal = signal;
}

//  Set the reason text
void
drover_job_set_reason (drover_job_t *self, const char *reason)
{
    assert (self);
    drover_msg_set_reason (self->result, reason);
}

//  Set the captured stdout and stderr
void
drover_job_set_output (drover_job_t *self, const uint8_t *out, size_t out_size,
                       const uint8_t *err, size_t err_size)
{
    assert (self);
    drover_msg_set_output (self->result, out, out_size, err, err_size);
}
