/*  =========================================================================
    drover_gather - the reconciler's gather: the routes workers registered
    with, WORKER GATHER said to every worker of a term's fleet, and who of
    them answered

    A WORKER RUNS counts only from the route of its worker's registration
    (UP): one from any other route is dropped, counted and logged (at most
    one warning a second). Which term the gather is for, and when it ends,
    is the reconciler's (actors/drover_reconciler_actor.c); what the answers say
    goes to drover_reconciler_gathered. A plain class, no threads: the
    messages are said into the actor's outbox.
    =========================================================================
*/

#ifndef DROVER_GATHER_H_INCLUDED
#define DROVER_GATHER_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"
#include "drover_fleet.h"
#include "drover_outbox.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_gather_t drover_gather_t;

//  Create a gather with no worker registered
drover_gather_t *
    drover_gather_new (void);

//  Destroy the gather and the routes it holds
void
    drover_gather_destroy (drover_gather_t **self_p);

//  A worker registered (UP) from route: the gather owns the route now
//  (*route_p is NULL after), in place of any before
void
    drover_gather_register (drover_gather_t *self, const char *worker, zframe_t **route_p);

//  A worker is lost: forget its route
void
    drover_gather_forget (drover_gather_t *self, const char *worker);

//  Begin a gather: say WORKER GATHER with seq to every worker of the fleet
//  (count of them) that has a route (one without cannot answer: the term
//  is incomplete); no one has answered yet
void
    drover_gather_begin (drover_gather_t *self, uint32_t seq,
                         const drover_fleet_worker_t *workers, size_t count,
                         drover_outbox_t *outbox);

//  Return how many workers the gather asked (the fleet's, routed or not)
size_t
    drover_gather_asked (drover_gather_t *self);

//  True if a WORKER RUNS from route may count: it is the route worker
//  registered with. Else it is dropped, counted, and logged at most once
//  a second (now: msec monotonic).
bool
    drover_gather_fenced (drover_gather_t *self, const char *worker, const byte *route,
                          size_t route_size, int64_t now);

//  Return how many WORKER RUNS were dropped for their route
uint64_t
    drover_gather_dropped (drover_gather_t *self);

//  True if worker answered this gather already
bool
    drover_gather_answered (drover_gather_t *self, const char *worker);

//  Worker answered this gather; true if every worker asked has now
bool
    drover_gather_answer (drover_gather_t *self, const char *worker);

#ifdef __cplusplus
}
#endif

#endif
