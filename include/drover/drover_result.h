/*  =========================================================================
    drover_result - a task's result: how it ended, its exit, its output

    What drover_client_wait and the client's done handler hand out, once
    per task, borrowed for the handler's call: drover_result_dup keeps one.
    A task that ended has a final state (SUCCEEDED, FAILED, CANCELLED) and
    an end saying how (drover_codes.h); a task the broker no longer knows
    has state UNKNOWN and end EXPIRED (result no longer kept) or UNKNOWN.
    =========================================================================
*/

#ifndef DROVER_RESULT_H_INCLUDED
#define DROVER_RESULT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_result_t drover_result_t;

//  Return a copy of a result, which the caller destroys
drover_result_t *
    drover_result_dup (const drover_result_t *self);

//  Destroy a result from drover_result_dup; harmless on NULL
void
    drover_result_destroy (drover_result_t **self_p);

//  Return the task id
uint64_t
    drover_result_task (const drover_result_t *self);

//  Return the task's state, a drover_task_state_t (DROVER_TASK_SUCCEEDED...)
int
    drover_result_state (const drover_result_t *self);

//  Return how the task ended, a drover_end_t (DROVER_END_TIMED_OUT...)
int
    drover_result_end (const drover_result_t *self);

//  Return the last attempt's number, 1-based; 0 if it never ran
uint32_t
    drover_result_attempt (const drover_result_t *self);

//  Return the worker of the last attempt, "" if none or not said
const char *
    drover_result_worker (const drover_result_t *self);

//  Return the last attempt's exit status (when it exited)
int
    drover_result_exit_code (const drover_result_t *self);

//  Return the signal that ended the last attempt, 0 none
int
    drover_result_signal (const drover_result_t *self);

//  Return the last attempt's run time, msec
uint32_t
    drover_result_duration (const drover_result_t *self);

//  Return the captured stdout (not terminated), borrowed, NULL when empty
const uint8_t *
    drover_result_out (const drover_result_t *self);

//  Return the size of the captured stdout, bytes
size_t
    drover_result_out_size (const drover_result_t *self);

//  Return the captured stderr (not terminated), borrowed, NULL when empty
const uint8_t *
    drover_result_err (const drover_result_t *self);

//  Return the size of the captured stderr, bytes
size_t
    drover_result_err_size (const drover_result_t *self);

//  Return which captures were cut at the broker's limit: DROVER_TRUNC_* bits
uint32_t
    drover_result_truncated (const drover_result_t *self);

//  Return the broker's words on how it ended ("" none), borrowed
const char *
    drover_result_reason (const drover_result_t *self);

#ifdef __cplusplus
}
#endif

#endif
