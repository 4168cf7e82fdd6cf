/*  =========================================================================
    drover_rebalance - where a service's replicas go over the fleet, for
    one computation of the reconciler: placement by rendezvous order within
    an even spread and max-per-worker, the spread's moves, keep-balance's
    moves toward each slot's best worker (at most rebalance-moves), and
    each replica's rank in its slot's order (the placement figures)

    The reconciler owns services, slots and replica tasks; this class owns
    the arithmetic of workers: how much room each has as one computation
    goes on, how many replicas of the service at hand it holds, which
    could hold one, and the rendezvous order of each slot ("SERVICE/SLOT")
    among them. A computation goes:

        drover_rebalance_begin          every worker as the fleet says
          set_state, set_silent,        a plan's drain or hold, who did
          reserve                       not answer the gather, the starts
                                        not reported yet
        for each service:
          drover_rebalance_service      the service at hand, its slots
            hold, keep                  what keeps each slot, and where
            even                        its even spread
            place                       a replica for a slot kept by
                                        nothing (counted where it goes)
            spread, improve, moves      the spread's and keep-balance's
                                        moves, for the caller to carry out
            figures                     the placement figures

    The rules (drover_reconciler.h says them in full): a slot's replica
    goes to the first worker of its order that could hold one (takes new
    work, answered the gather, big enough, labelled), has room and stays
    within the even spread (of the N workers that could hold one, each
    holds floor (wanted / N), wanted % N of them one more) and within
    max-per-worker; none: the first with room (and max-per-worker). The
    spread moves a running replica from a worker holding two more than
    another to the first such of its order (rebalancing off), or makes
    the fewest moves from workers over their share to workers under it
    (rebalancing on). Keep-balance then moves a running replica to a
    better-ranked worker of its order that has room and holds fewer, at
    most rebalance-moves per computation, so every move betters a rank
    and never worsens the spread: moves end.

    A replica's rank (0: no worker that could hold one comes before its
    own) is cached in a drover_rebalance_rank_t its caller keeps with the
    replica, true while the set of workers that could hold one stays the
    same: a steady term costs O(replicas), not O(replicas x workers).

    A plain class: no threads, no I/O, no clock.
    =========================================================================
*/

#ifndef DROVER_REBALANCE_H_INCLUDED
#define DROVER_REBALANCE_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"
#include "drover_fleet.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_rebalance_t drover_rebalance_t;

//  The service at hand, as placement sees it (strings borrowed for the
//  service's turn)
typedef struct {
    const char *name;           //  its name: a slot's key is "NAME/SLOT"
    uint32_t procs;             //  procs a replica takes, >= 1
    uint64_t mem;               //  memory a replica takes, bytes
    const char *labels;         //  labels a worker must have, joined by "\n", "" none
    uint32_t max_per_worker;    //  replicas one worker may hold, 0 no cap
    uint32_t wanted;            //  replicas wanted in this computation
} drover_rebalance_service_t;

//  A replica's rank in its slot's order, cached by its caller (zeroed:
//  nothing cached)
typedef struct {
    uint32_t rank;              //  the rank, as of ...
    uint64_t sig;               //  ... this set of workers that could hold one (0: none)
} drover_rebalance_rank_t;

//  A move the spread or keep-balance decided: the replica keeping slot
//  goes from one worker to another (fleet indexes)
typedef struct {
    uint32_t slot;              //  its slot
    long from;                  //  the worker it leaves
    long to;                    //  the worker it is started on
} drover_rebalance_move_t;

//  Create a rebalance with no fleet
drover_rebalance_t *
    drover_rebalance_new (void);

//  Destroy a rebalance; harmless on NULL
void
    drover_rebalance_destroy (drover_rebalance_t **self_p);

//  Replace the fleet: workers (and their strings) are borrowed, and must
//  stay until the next call or destroy; ids must be distinct. Fleet
//  indexes are positions in workers.
void
    drover_rebalance_set_fleet (drover_rebalance_t *self, const drover_fleet_worker_t *workers,
                                size_t count);

//  Begin a computation: each worker in its fleet state, its room what the
//  fleet says is free, no replicas counted; moves > 0 turns rebalancing on
//  (the fewest spread moves, keep-balance) and allows that many
//  keep-balance moves over the computation
void
    drover_rebalance_begin (drover_rebalance_t *self, uint32_t moves);

//  Suppose a worker in another state (a plan's drain or hold)
void
    drover_rebalance_set_state (drover_rebalance_t *self, size_t worker,
                                drover_fleet_state_t state);

//  Return a worker's state as this computation sees it
drover_fleet_state_t
    drover_rebalance_state (drover_rebalance_t *self, size_t worker);

//  Say a worker did not answer the gather: no new replicas go there
void
    drover_rebalance_set_silent (drover_rebalance_t *self, size_t worker);

//  Take room on a worker (a start not reported yet)
void
    drover_rebalance_reserve (drover_rebalance_t *self, size_t worker, uint32_t procs,
                              uint64_t mem);

//  Turn to a service (copied, its strings borrowed until the next call)
//  with nslots slots (>= its wanted): no replica counted, no slot kept
void
    drover_rebalance_service (drover_rebalance_t *self, const drover_rebalance_service_t *service,
                              uint32_t nslots);

//  Count a replica of the service at hand on a worker that keeps a slot
//  but is no replica task yet (a start not reported)
void
    drover_rebalance_hold (drover_rebalance_t *self, size_t worker);

//  A slot is kept by a replica task on a worker: count it there; running
//  and not leaving (moved away), it may move; rank is its rank cache
void
    drover_rebalance_keep (drover_rebalance_t *self, uint32_t slot, size_t worker, bool running,
                           bool leaving, drover_rebalance_rank_t *rank);

//  Work out the even spread of the service at hand from what is counted:
//  returns the workers that could hold one of its replicas
size_t
    drover_rebalance_even (drover_rebalance_t *self);

//  Place a replica for a slot kept by nothing (after even): returns the
//  worker it goes to, counted there with its room taken, or -1 if no
//  worker has room; then *capped_p (if not NULL) says whether a worker
//  with room was left out for holding max-per-worker already
long
    drover_rebalance_place (drover_rebalance_t *self, uint32_t slot, bool *capped_p);

//  Decide the spread's moves of running replicas (after even and place),
//  highest slots first. Returns how many; drover_rebalance_moves has them.
size_t
    drover_rebalance_spread (drover_rebalance_t *self);

//  Decide keep-balance's moves (rebalancing on), within the moves left
//  over the computation. Returns how many; drover_rebalance_moves has them.
size_t
    drover_rebalance_improve (drover_rebalance_t *self);

//  The moves the last spread or improve decided, in the order to carry
//  out, borrowed until the next call
const drover_rebalance_move_t *
    drover_rebalance_moves (drover_rebalance_t *self, size_t *count_p);

//  Count the placement figures of the service at hand in before (each
//  running replica of the slots under wanted_before: where it is now) and
//  after (each slot's replica once the changes are done): best, not best,
//  the rank histogram
void
    drover_rebalance_figures (drover_rebalance_t *self, uint32_t wanted_before,
                              drover_service_stats_t *before, drover_service_stats_t *after);

//  Return true if a worker, in state and silent or not, could hold a
//  replica of a service: takes new work, answered the gather, big enough
//  in all, has its labels
bool
    drover_rebalance_fits (const drover_fleet_worker_t *worker, drover_fleet_state_t state,
                           bool silent, const drover_rebalance_service_t *service);

//  Return a count's histogram bucket: 0, 1, 2-3, 4-7, ... the last for
//  the rest (the statistics' restarts and ranks)
int
    drover_rebalance_bucket (uint32_t count);

#ifdef __cplusplus
}
#endif

#endif
