/*  =========================================================================
    drover_probationset - the probation set: workers on probation after a transport
    failure, each until its last failure plus the probation timeout

    A failure puts an OK worker on probation (or, if on probation already, restarts its
    timer); a success or the timeout releases it. A heap ordered by release
    deadline gives the next timer in O(1) and each change in O(log n). A
    plain class called with `now` (msec, zclock_mono): no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_PROBATIONSET_H_INCLUDED
#define DROVER_PROBATIONSET_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_probationset_t drover_probationset_t;

//  What a failure did
typedef enum {
    DROVER_PROBATIONSET_ENTERED = 0,       //  the worker was OK and is on probation now
    DROVER_PROBATIONSET_RESET   = 1        //  already on probation: its timer restarted
} drover_probationset_change_t;

//  Create an empty set; a worker is on probation for timeout msec after a failure
drover_probationset_t *
    drover_probationset_new (uint32_t timeout);

//  Destroy the set; harmless on NULL
void
    drover_probationset_destroy (drover_probationset_t **self_p);

//  Change the probation timeout, msec (for failures from now on)
void
    drover_probationset_set_timeout (drover_probationset_t *self, uint32_t timeout);

//  Record a failure of worker id at now: put it on probation, or restart its timer
drover_probationset_change_t
    drover_probationset_failure (drover_probationset_t *self, const char *id, const char *reason,
                          int64_t now);

//  Record a success: returns true if the worker was on probation and is released
bool
    drover_probationset_success (drover_probationset_t *self, const char *id);

//  Forget a worker (it was lost). Returns true if it was on probation.
bool
    drover_probationset_forget (drover_probationset_t *self, const char *id);

//  Return the earliest release deadline (msec, same clock as now), or -1
//  if nothing is on probation
int64_t
    drover_probationset_next_deadline (drover_probationset_t *self);

//  Release one worker whose deadline is at or before now; returns its id
//  (caller frees with zstr_free), or NULL if none is due. Call until NULL.
char *
    drover_probationset_expire (drover_probationset_t *self, int64_t now);

//  Return true if the worker is on probation
bool
    drover_probationset_contains (drover_probationset_t *self, const char *id);

//  Return the reason of the last failure of a worker on probation (borrowed), or NULL
const char *
    drover_probationset_reason (drover_probationset_t *self, const char *id);

//  Return how many workers are on probation
size_t
    drover_probationset_size (drover_probationset_t *self);

#ifdef __cplusplus
}
#endif

#endif
