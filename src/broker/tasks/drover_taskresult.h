/*  =========================================================================
    drover_taskresult - the last result of a finished task, as the task
    table keeps it: who ran it, how its last attempt went, how the task
    ended, and its captured outputs

    A plain value type: the task table reads the fields to say TASK DONE
    and TASK TABLE rows. It owns out, err and reason. No threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_TASKRESULT_H_INCLUDED
#define DROVER_TASKRESULT_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

//  The last result of a finished task
typedef struct {
    char worker [DROVER_ID_MAX + 1];    //  worker of the last attempt, or ""
    uint8_t outcome;            //  drover_outcome_t of the last attempt, or
                                //  DROVER_ATTEMPT_NO_RESULT if it had no RESULT
    uint8_t end;                //  drover_end_t, how the task ended
    int32_t exit_code;          //  exit status
    int32_t signal;             //  signal that ended it
    uint32_t truncated;         //  DROVER_TRUNC_* flags
    uint32_t duration;          //  run time, msec
    int64_t ended_at;           //  wall clock, msec since the epoch: when the task ended
    byte *out;                  //  captured stdout, owned, or NULL
    size_t out_size;            //  bytes
    byte *err;                  //  captured stderr, owned, or NULL
    size_t err_size;            //  bytes
    char *reason;               //  why it ended so, owned, or NULL
} drover_taskresult_t;

//  Create a result for a task that ends without a process status (worker
//  may be NULL or "", reason NULL or ""): exit_code -1, no outputs
drover_taskresult_t *
    drover_taskresult_new (const char *worker, const char *reason);

//  Create the result of an attempt from its TASK RESULT, taking the
//  outputs from msg (its out and err are NULL after)
drover_taskresult_t *
    drover_taskresult_take (drover_msg_t *msg, const char *worker, const char *reason);

//  Destroy a result and its outputs; harmless on NULL
void
    drover_taskresult_destroy (drover_taskresult_t **self_p);

//  Return the output bytes the result holds (stdout and stderr)
size_t
    drover_taskresult_bytes (const drover_taskresult_t *self);

//  Return how a task that ends in state with this result ended: the end
//  already set if it fits the state (LOST, POISON...), else the one the
//  state and the last attempt's outcome say (PROTOCOL.md §7.13)
uint8_t
    drover_taskresult_end_of (const drover_taskresult_t *self, int state);

//  Say in words how the attempt a TASK RESULT reports failed
void
    drover_taskresult_describe (const drover_msg_t *msg, char *text, size_t size);

#ifdef __cplusplus
}
#endif

#endif
