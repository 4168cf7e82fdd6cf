/*  =========================================================================
    drover_planqueue - the PLANs the reconciler holds until a fresh fleet:
    each checked when it comes, then answered PLAN RESULT (or 404 for a
    worker not in the fleet) once the fleet is heard

    A drain or a hold is planned on a worker of the fleet, a scale on a
    known service, a term on everything; the change set comes from
    drover_reconciler_compute and goes on the wire as
    drover_servicewire_plan_result builds it. Nothing here is carried out.
    =========================================================================
*/

#include "drover_planqueue.h"
#include "drover_servicewire.h"
#include "drover_actor.h"

//  A plan waiting for a fresh fleet
typedef struct {
    zframe_t *route;            //  the client's route
    drover_msg_t *plan;         //  the PLAN, owned
} s_plan_t;

struct _drover_planqueue_t {
    zlistx_t *plans;            //  s_plan_t, oldest first
};

//  Destroy a waiting plan (the plans list calls this)
static void
s_plan_destroy (void **item_p)
{
    s_plan_t *plan = (s_plan_t *) *item_p;
    if (plan) {
        zframe_destroy (&plan->route);
        drover_msg_destroy (&plan->plan);
        free (plan);
        *item_p = NULL;
    }
}

//  Create an empty queue of plans
drover_planqueue_t *
drover_planqueue_new (void)
{
    drover_planqueue_t *self = (drover_planqueue_t *) zmalloc (sizeof (drover_planqueue_t));
    self->plans = zlistx_new ();
    zlistx_set_destructor (self->plans, s_plan_destroy);
    return self;
}

//  Destroy the queue and the plans still in it
void
drover_planqueue_destroy (drover_planqueue_t **self_p)
{
    assert (self_p);
    drover_planqueue_t *self = *self_p;
    if (!self)
        return;
    zlistx_destroy (&self->plans);
    free (self);
    *self_p = NULL;
}

//  Check a PLAN before it waits: action, target, the service of a scale
int
drover_planqueue_check (const drover_msg_t *plan, drover_reconciler_t *reconcile,
                        const char **reason_p)
{
    *reason_p = NULL;
    if (plan->action > DROVER_PLAN_ACTION_MAX) {
        *reason_p = "action: not drain, hold, scale or term";
        return DROVER_CODE_BAD_REQUEST;
    }
    if ((plan->action == DROVER_PLAN_DRAIN || plan->action == DROVER_PLAN_HOLD)
    &&  !drover_id_valid (plan->worker)) {
        *reason_p = "target: a drain or hold names a worker";
        return DROVER_CODE_BAD_REQUEST;
    }
    if (plan->action == DROVER_PLAN_SCALE && !drover_reconciler_has (reconcile, plan->service)) {
        *reason_p = "no such service";
        return DROVER_CODE_NOT_FOUND;
    }
    return DROVER_CODE_OK;
}

//  Keep a checked PLAN until the next fleet; we own it now
void
drover_planqueue_add (drover_planqueue_t *self, const byte *route, size_t route_size,
                      drover_msg_t **plan_p)
{
    assert (self);
    assert (plan_p && *plan_p);
    s_plan_t *plan = (s_plan_t *) zmalloc (sizeof (s_plan_t));
    plan->route = zframe_new (route, route_size);
    plan->plan = *plan_p;
    *plan_p = NULL;
    zlistx_add_end (self->plans, plan);
}

//  Return how many plans wait
size_t
drover_planqueue_size (drover_planqueue_t *self)
{
    assert (self);
    return zlistx_size (self->plans);
}

//  Answer one plan on the fleet just heard: 404 for a worker not in it
static void
s_answer_plan (s_plan_t *plan, drover_reconciler_t *reconcile, drover_fleet_t *fleet,
               drover_changeset_t *set, uint64_t now, drover_outbox_t *outbox)
{
    drover_msg_t *request = plan->plan;
    const byte *route = zframe_data (plan->route);
    size_t route_size = zframe_size (plan->route);
    bool on_worker = request->action == DROVER_PLAN_DRAIN || request->action == DROVER_PLAN_HOLD;
    if (on_worker) {
        size_t count = 0;
        const drover_fleet_worker_t *workers = drover_fleet_workers (fleet, &count);
        size_t index = 0;
        while (index < count && !streq (workers [index].id, request->worker))
            index++;
        if (index == count) {
            char *reason = zsys_sprintf ("no such worker: %s", request->worker);
            drover_actor_reply_to (outbox, "reconciler", route, route_size, request->seq,
                                   DROVER_CODE_NOT_FOUND, reason, "");
            zstr_free (&reason);
            return;
        }
    }
    drover_reconciler_what_t what = {
        .kind = DROVER_RECONCILER_PLAN, .action = (drover_plan_action_t) request->action,
        .worker = request->worker, .service = request->service, .count = request->count
    };
    drover_changeset_reset (set);
    drover_reconciler_compute (reconcile, &what, now, set);
    drover_msg_t *result = drover_servicewire_plan_result (request, set);
    drover_actor_send_to (outbox, "reconciler", route, route_size, result, "");
    drover_msg_destroy (&result);
    drover_changeset_reset (set);
}

//  Answer every waiting plan, oldest first, on fleet; the queue is empty after
void
drover_planqueue_answer (drover_planqueue_t *self, drover_reconciler_t *reconcile,
                         drover_fleet_t *fleet, drover_changeset_t *set, uint64_t now,
                         drover_outbox_t *outbox)
{
    assert (self);
    s_plan_t *plan;
    while ((plan = (s_plan_t *) zlistx_first (self->plans))) {
        s_answer_plan (plan, reconcile, fleet, set, now, outbox);
        zlistx_delete (self->plans, zlistx_cursor (self->plans));
    }
}
