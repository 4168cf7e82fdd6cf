/*  =========================================================================
    drover_bench - the probation set: workers benched after a transport
    failure, each until its last failure plus the probation timeout

    A failure benches an OK worker (or, if benched already, restarts its
    timer); a success or the timeout releases it. A heap ordered by release
    deadline gives the next timer in O(1) and each change in O(log n). A
    plain class called with `now` (msec, zclock_mono): no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_BENCH_H_INCLUDED
#define DROVER_BENCH_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_bench_t drover_bench_t;

//  What a failure did
typedef enum {
    DROVER_BENCH_ENTERED = 0,       //  the worker was OK and is benched now
    DROVER_BENCH_RESET   = 1        //  already benched: its timer restarted
} drover_bench_change_t;

//  Create an empty set; a worker is benched for timeout msec after a failure
drover_bench_t *
    drover_bench_new (uint32_t timeout);

//  Destroy the set; harmless on NULL
void
    drover_bench_destroy (drover_bench_t **self_p);

//  Change the probation timeout, msec (for failures from now on)
void
    drover_bench_set_timeout (drover_bench_t *self, uint32_t timeout);

//  Record a failure of worker id at now: bench it, or restart its timer
drover_bench_change_t
    drover_bench_failure (drover_bench_t *self, const char *id, const char *reason,
                          int64_t now);

//  Record a success: returns true if the worker was benched and is released
bool
    drover_bench_success (drover_bench_t *self, const char *id);

//  Forget a worker (it was lost). Returns true if it was benched.
bool
    drover_bench_forget (drover_bench_t *self, const char *id);

//  Return the earliest release deadline (msec, same clock as now), or -1
//  if nothing is benched
int64_t
    drover_bench_next_deadline (drover_bench_t *self);

//  Release one worker whose deadline is at or before now; returns its id
//  (caller frees with zstr_free), or NULL if none is due. Call until NULL.
char *
    drover_bench_expire (drover_bench_t *self, int64_t now);

//  Return true if the worker is benched
bool
    drover_bench_contains (drover_bench_t *self, const char *id);

//  Return the reason of a benched worker's last failure (borrowed), or NULL
const char *
    drover_bench_reason (drover_bench_t *self, const char *id);

//  Return how many workers are benched
size_t
    drover_bench_size (drover_bench_t *self);

#ifdef __cplusplus
}
#endif

#endif
