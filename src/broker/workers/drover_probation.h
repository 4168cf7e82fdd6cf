/*  =========================================================================
    drover_probation - the probation set: workers on probation after a transport
    failure, each until its last failure plus the probation timeout

    A failure puts an OK worker on probation (or, if on probation already, restarts its
    timer); a success or the timeout releases it. A heap ordered by release
    deadline gives the next timer in O(1) and each change in O(log n). A
    plain class called with `now` (msec, zclock_mono): no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_PROBATION_H_INCLUDED
#define DROVER_PROBATION_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_probation_t drover_probation_t;

//  What a failure did
typedef enum {
    DROVER_PROBATION_ENTERED = 0,       //  the worker was OK and is on probation now
    DROVER_PROBATION_RESET   = 1        //  already on probation: its timer restarted
} drover_probation_change_t;

//  Create an empty set; a worker is on probation for timeout msec after a failure
drover_probation_t *
    drover_probation_new (uint32_t timeout);

//  Destroy the set; harmless on NULL
void
    drover_probation_destroy (drover_probation_t **self_p);

//  Change the probation timeout, msec (for failures from now on)
void
    drover_probation_set_timeout (drover_probation_t *self, uint32_t timeout);

//  Record a failure of worker id at now: put it on probation, or restart its timer
drover_probation_change_t
    drover_probation_failure (drover_probation_t *self, const char *id, const char *reason,
                          int64_t now);

//  Record a success: returns true if the worker was on probation and is released
bool
    drover_probation_success (drover_probation_t *self, const char *id);

//  Forget a worker (it was lost). Returns true if it was on probation.
bool
    drover_probation_forget (drover_probation_t *self, const char *id);

//  Return the earliest release deadline (msec, same clock as now), or -1
//  if nothing is on probation
int64_t
    drover_probation_next_deadline (drover_probation_t *self);

//  Release one worker whose deadline is at or before now; returns its id
//  (caller frees with zstr_free), or NULL if none is due. Call until NULL.
char *
    drover_probation_expire (drover_probation_t *self, int64_t now);

//  Return true if the worker is on probation
bool
    drover_probation_contains (drover_probation_t *self, const char *id);

//  Return the reason of the last failure of a worker on probation (borrowed), or NULL
const char *
    drover_probation_reason (drover_probation_t *self, const char *id);

//  Return how many workers are on probation
size_t
    drover_probation_size (drover_probation_t *self);

#ifdef __cplusplus
}
#endif

#endif
