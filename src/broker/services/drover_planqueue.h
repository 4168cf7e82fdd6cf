/*  =========================================================================
    drover_planqueue - the PLANs the reconciler holds until a fresh fleet:
    each checked when it comes, then answered PLAN RESULT (or 404 for a
    worker not in the fleet) once the fleet is heard

    A plan is computed on that fleet and the last gather's view, and never
    carried out (PROTOCOL.md, PLAN). A plain class, no threads: the
    reconciler actor (actors/drover_reconciler_actor.c) asks schedq for the fleet
    and hands it here with its outbox; the answers are said into it.
    =========================================================================
*/

#ifndef DROVER_PLANQUEUE_H_INCLUDED
#define DROVER_PLANQUEUE_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"
#include "drover_reconciler.h"
#include "drover_fleet.h"
#include "drover_outbox.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_planqueue_t drover_planqueue_t;

//  Create an empty queue of plans
drover_planqueue_t *
    drover_planqueue_new (void);

//  Destroy the queue and the plans still in it
void
    drover_planqueue_destroy (drover_planqueue_t **self_p);

//  Check a PLAN before it waits: its action, its target (a drain or hold
//  names a worker), the service of a scale (known to reconcile). Returns
//  DROVER_CODE_OK, or the code to answer with and *reason_p (static text).
int
    drover_planqueue_check (const drover_msg_t *plan, drover_reconciler_t *reconcile,
                            const char **reason_p);

//  Keep a checked PLAN from the client at route until the next fleet: the
//  queue owns it now (*plan_p is NULL after)
void
    drover_planqueue_add (drover_planqueue_t *self, const byte *route, size_t route_size,
                          drover_msg_t **plan_p);

//  Return how many plans wait
size_t
    drover_planqueue_size (drover_planqueue_t *self);

//  Answer every waiting plan, oldest first, on fleet (the one reconcile was
//  just given): computed at now into set (scratch, reset before and after
//  each), said as SEND records into outbox. The queue is empty after.
void
    drover_planqueue_answer (drover_planqueue_t *self, drover_reconciler_t *reconcile,
                             drover_fleet_t *fleet, drover_changeset_t *set, uint64_t now,
                             drover_outbox_t *outbox);

#ifdef __cplusplus
}
#endif

#endif
