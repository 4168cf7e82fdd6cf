/*  =========================================================================
    drover_waiting - the tasks held back from the queue, and why

    A QUEUED task is in the scheduling queue unless it is held here: for
    its parents (AFTER), its begin time (BEGIN), the backoff before its
    next attempt (RETRY) or, for an array's or workflow's own id, its
    members (GROUP). Timed holds (a due time, wall clock msec since the
    epoch) sit in a binary heap by due time as well; a hold removed early
    leaves a stale heap entry, skipped when it comes up. A plain class; no
    threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_WAITING_H_INCLUDED
#define DROVER_WAITING_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_waiting_t drover_waiting_t;

//  Create an empty set
drover_waiting_t *
    drover_waiting_new (void);

//  Destroy the set; harmless on NULL
void
    drover_waiting_destroy (drover_waiting_t **self_p);

//  Hold task back for cause (drover_waits_t, > 0) until due (wall msec
//  since the epoch; 0: until drover_waiting_remove). A task held already
//  takes the new cause and due.
void
    drover_waiting_add (drover_waiting_t *self, uint64_t task, int cause, int64_t due);

//  Return the cause task is held for (0: it is not) and its due in *due_p
//  (if not NULL)
int
    drover_waiting_cause (drover_waiting_t *self, uint64_t task, int64_t *due_p);

//  Stop holding task back; returns the cause it had (0: none)
int
    drover_waiting_remove (drover_waiting_t *self, uint64_t task);

//  Release the next task whose due is at or before now: returns its id
//  (held no longer) or 0 when none is due
uint64_t
    drover_waiting_take_due (drover_waiting_t *self, int64_t now);

//  Return the earliest due of a timed hold, or 0 if there is none
int64_t
    drover_waiting_next_due (drover_waiting_t *self);

//  Return how many tasks are held for cause
size_t
    drover_waiting_count (drover_waiting_t *self, int cause);

#ifdef __cplusplus
}
#endif

#endif
