/*  =========================================================================
    drover_affinity - requests placed by an affinity key: the same key goes
    to the same worker while it is healthy and has room

    A task submitted with an affinity key (a cache, a dataset, a tenant)
    does not wait in drover_schedq's queue: schedq keeps it here and, before
    each pass, places it on the first worker in rendezvous order of its key
    (drover_rendezvous) that takes new work, has its labels and could hold
    it in all. For its first `wait` msec it goes only there, waiting while
    that worker is full; after that, on the first in order with room now.
    When workers come and go, only the keys their coming or going changes
    the first of move. A placement is made with drover_schedq_place (so the
    queue counts what it uses) and told to fn, as a pass's are.

    Kept cheap: each request remembers its first worker until the workers
    change (UP, LOST, an admin or probation change: workers_changed), and a
    request past its wait that found no room remembers that until room may
    have grown (a FREE, a RETURN: room_changed). A run when nothing changed
    and no wait ended costs nothing. A plain class, called with `now` (msec,
    monotonic): no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_AFFINITY_H_INCLUDED
#define DROVER_AFFINITY_H_INCLUDED

#include <czmq.h>
#include "drover_schedq.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_affinity_t drover_affinity_t;

//  Create an empty set of requests; wait: msec a request waits for its
//  first worker before it takes the next in order with room
drover_affinity_t *
    drover_affinity_new (uint32_t wait);

//  Destroy the requests; harmless on NULL
void
    drover_affinity_destroy (drover_affinity_t **self_p);

//  Change how long a request waits for its first worker (requests already
//  waiting keep the time they started)
void
    drover_affinity_set_wait (drover_affinity_t *self, uint32_t wait);

//  Add a request (replacing one for the same task): priority (lower first),
//  procs (>= 1), mem (bytes, 0 any), labels ("k=v" joined by "\n", "" or
//  NULL none), key (1.. bytes); its wait starts at now. Returns 0, or -1 if
//  procs is 0 or the key empty.
int
    drover_affinity_add (drover_affinity_t *self, uint64_t task, int32_t priority,
                         uint32_t procs, uint64_t mem, const char *labels, const char *key,
                         int64_t now);

//  Add a request of a tenant (NULL: nobody's), as add does: it is placed
//  only where its devices are free, and counted as its owner's
int
    drover_affinity_add_as (drover_affinity_t *self, uint64_t task, int32_t priority,
                           uint32_t procs, uint64_t mem, const char *labels, const char *key,
                           const drover_schedq_tenant_t *tenant, int64_t now);

//  Drop a request (cancelled). Returns 0, or -1 if not held.
int
    drover_affinity_remove (drover_affinity_t *self, uint64_t task);

//  Return true if the task waits here
bool
    drover_affinity_holds (drover_affinity_t *self, uint64_t task);

//  Return how many requests wait
size_t
    drover_affinity_size (drover_affinity_t *self);

//  The workers changed: one came or went, or whether it takes new work
void
    drover_affinity_workers_changed (drover_affinity_t *self);

//  Room may have grown on some worker (a task ended, a lease came back)
void
    drover_affinity_room_changed (drover_affinity_t *self);

//  Place what can be placed now on the workers of sched, in order of
//  priority (lower first), then task id; calls fn for each placement.
//  Returns how many were placed.
int
    drover_affinity_run (drover_affinity_t *self, drover_schedq_t *sched, int64_t now,
                         drover_schedq_assign_fn *fn, void *arg);

//  Call fn for each distinct demand of the requests waiting (procs,
//  memory, labels, how many ask it), at most max_shapes of them (the
//  first met in placement order): what the elastic pool must see waiting
//  besides the queue's. O(requests), said at most every 100 ms.
void
    drover_affinity_each_demand (drover_affinity_t *self, size_t max_shapes,
                                 drover_schedq_demand_fn *fn, void *arg);

//  Return when a request's wait for its first worker ends and a run may
//  place it elsewhere (msec, monotonic), or -1 if none is due
int64_t
    drover_affinity_deadline (drover_affinity_t *self);

//  Say why a request waits: the worker it waits for (its first, or ""
//  when none could hold it), copied into worker, and *left_p the msec left
//  of its wait (0: past it, it takes the first in order with room). Returns
//  0, or -1 if the task is not held.
int
    drover_affinity_explain (drover_affinity_t *self, drover_schedq_t *sched, uint64_t task,
                             int64_t now, char *worker, size_t size, int64_t *left_p);

#ifdef __cplusplus
}
#endif

#endif
