/*  =========================================================================
    drover_waitset - the tasks one client wait waits for

    A set of distinct task ids, each pending until its TASK DONE is
    delivered, and the seq range of the TASK WAITs sent for them, so a
    reply can be told to belong to this wait (drover_client_wait).
    Open addressing with linear probing, at most half full: a wait for a
    million tasks looks each TASK DONE up in constant time.
    =========================================================================
*/

#ifndef DROVER_WAITSET_H_INCLUDED
#define DROVER_WAITSET_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_waitset_t drover_waitset_t;

//  Create a set of the count tasks, each pending; repeated ids count once
drover_waitset_t *
    drover_waitset_new (const uint64_t *tasks, size_t count);

//  Destroy a set; harmless on NULL
void
    drover_waitset_destroy (drover_waitset_t **self_p);

//  Return the number of distinct tasks in the set
size_t
    drover_waitset_total (drover_waitset_t *self);

//  Return the number of tasks delivered
size_t
    drover_waitset_delivered (drover_waitset_t *self);

//  Mark task delivered. Returns 1 if it was pending (delivered now), 0 if
//  it was delivered before (a duplicate), -1 if it is not in the set.
int
    drover_waitset_deliver (drover_waitset_t *self, uint64_t task);

//  Copy up to max pending tasks into tasks, going on from *cursor (0 to
//  start) and moving it past them; returns how many (0: no more)
size_t
    drover_waitset_pending (drover_waitset_t *self, size_t *cursor,
                            uint64_t *tasks, size_t max);

//  Note that a TASK WAIT for this set went under seq
void
    drover_waitset_sent (drover_waitset_t *self, uint32_t seq);

//  Return true if seq is one of the TASK WAITs sent for this set
bool
    drover_waitset_owns (drover_waitset_t *self, uint32_t seq);

#ifdef __cplusplus
}
#endif

#endif
