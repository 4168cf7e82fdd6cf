/*  =========================================================================
    drover_tasks - a listing of tasks: counts per state and some rows

    What drover_client_tasks returns: how many tasks the broker holds in
    each state, and up to the asked limit of rows (newest first; of QUEUED
    alone, in the order they will run). A row's strings are borrowed from
    the listing and live as long as it.
    =========================================================================
*/

#ifndef DROVER_TASKS_H_INCLUDED
#define DROVER_TASKS_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_tasks_t drover_tasks_t;

//  One task of a listing
typedef struct {
    uint64_t task;                  //  task id
    int state;                      //  drover_task_state_t
    int end;                        //  drover_end_t, DROVER_END_NONE while not final
    int32_t priority;               //  lower runs first
    uint32_t procs;                 //  procs it asks
    uint32_t attempt;               //  current attempt number, 0 if never assigned
    const char *worker;             //  worker of the current attempt, or ""
    const char *summary;            //  its argv joined by spaces, at most 80 bytes
    const char *owner;              //  name of the key that submitted it, or ""
    const char *reason;             //  QUEUED: why it waits, short; or ""
} drover_task_entry_t;

//  Destroy a listing; harmless on NULL
void
    drover_tasks_destroy (drover_tasks_t **self_p);

//  Return how many tasks the broker holds in state (a drover_task_state_t),
//  whatever the rows; 0 for a state that is not one
uint64_t
    drover_tasks_count (const drover_tasks_t *self, int state);

//  Return the number of rows
size_t
    drover_tasks_size (const drover_tasks_t *self);

//  Return row index (0 .. size - 1), borrowed; NULL past the end
const drover_task_entry_t *
    drover_tasks_row (const drover_tasks_t *self, size_t index);

#ifdef __cplusplus
}
#endif

#endif
