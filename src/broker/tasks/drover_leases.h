/*  =========================================================================
    drover_leases - the leases assign holds: workers' free capacity that
    schedq lent it ahead of time

    With a lease that holds a task's procs, memory and labels, assign
    places the task on the lease's worker itself, without the round trip
    through schedq (actors/ACTORS.md, "Leases"). Among the leases that
    hold a task it picks the one with the most procs left (the least-loaded
    worker, as schedq would). A plain class: no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_LEASES_H_INCLUDED
#define DROVER_LEASES_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_leases_t drover_leases_t;

//  Called for each lease ended by drover_leases_end_worker
typedef void (drover_leases_fn) (uint64_t lease, void *arg);

//  Create an empty set
drover_leases_t *
    drover_leases_new (void);

//  Destroy the set; harmless on NULL
void
    drover_leases_destroy (drover_leases_t **self_p);

//  Hold a lease: procs and mem (bytes) of a worker that carries labels
//  ("k=v" joined by "\n", or "" / NULL). Returns 0, or -1 if the id is held
//  already or is 0.
int
    drover_leases_add (drover_leases_t *self, uint64_t lease, const char *worker,
                       uint32_t procs, uint64_t mem, const char *labels);

//  Return the lease with the most procs left that holds a task demanding
//  procs, mem and labels ("k=v" joined by "\n", or "" / NULL), or 0; sets
//  *worker_p to its worker (borrowed, valid while the lease is held)
uint64_t
    drover_leases_find (drover_leases_t *self, uint32_t procs, uint64_t mem,
                        const char *labels, const char **worker_p);

//  Take procs and mem from a lease. Returns the procs it has left, or -1
//  if it is unknown or holds less.
int64_t
    drover_leases_take (drover_leases_t *self, uint64_t lease, uint32_t procs, uint64_t mem);

//  Stop holding a lease. Returns 0, or -1 if it was not held.
int
    drover_leases_end (drover_leases_t *self, uint64_t lease);

//  Stop holding every lease on a worker, calling fn (may be NULL) for
//  each. Returns how many.
size_t
    drover_leases_end_worker (drover_leases_t *self, const char *worker,
                              drover_leases_fn *fn, void *arg);

//  Return how many leases are held
size_t
    drover_leases_size (drover_leases_t *self);

#ifdef __cplusplus
}
#endif

#endif
