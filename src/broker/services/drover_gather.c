/*  =========================================================================
    drover_gather - the reconciler's gather: the routes workers registered
    with, WORKER GATHER said to every worker of a term's fleet, and who of
    them answered

    The route of a worker's UP fences its WORKER RUNS: a worker that came
    back on another connection, or a peer that names a worker it is not,
    does not answer for it.
    =========================================================================
*/

#include "drover_gather.h"
#include "drover_actor.h"

//  msec between two warnings about WORKER RUNS from a wrong route
#define S_WARN_EVERY    1000

struct _drover_gather_t {
    zhashx_t *routes;           //  worker id -> zframe_t * (the route of its UP), owned
    zhashx_t *answered;         //  worker ids that answered this gather
    size_t asked;               //  workers this gather waits for
    uint64_t runs_dropped;      //  WORKER RUNS not from the worker's registration
    int64_t warned_at;          //  msec (mono) of the last warning about a bad RUNS
};

//  Destroy a kept route (the routes hash calls this)
static void
s_route_destroy (void **item_p)
{
    zframe_destroy ((zframe_t **) item_p);
}

//  Create a gather with no worker registered
drover_gather_t *
drover_gather_new (void)
{
    drover_gather_t *self = (drover_gather_t *) zmalloc (sizeof (drover_gather_t));
    self->routes = zhashx_new ();
    zhashx_set_destructor (self->routes, s_route_destroy);
    self->answered = zhashx_new ();
    return self;
}

//  Destroy the gather and the routes it holds
void
drover_gather_destroy (drover_gather_t **self_p)
{
    assert (self_p);
    drover_gather_t *self = *self_p;
    if (!self)
        return;
    zhashx_destroy (&self->answered);
    zhashx_destroy (&self->routes);
    free (self);
    *self_p = NULL;
}

//  A worker registered (UP) from route: we own the route now
void
drover_gather_register (drover_gather_t *self, const char *worker, zframe_t **route_p)
{
    assert (self);
    assert (route_p && *route_p);
    zhashx_update (self->routes, worker, *route_p);
    *route_p = NULL;
}

//  A worker is lost: forget its route
void
drover_gather_forget (drover_gather_t *self, const char *worker)
{
    assert (self);
    zhashx_delete (self->routes, worker);
}

//  Begin a gather: WORKER GATHER with seq to every worker with a route
void
drover_gather_begin (drover_gather_t *self, uint32_t seq,
                     const drover_fleet_worker_t *workers, size_t count,
                     drover_outbox_t *outbox)
{
    assert (self);
    zhashx_purge (self->answered);
    self->asked = count;
    drover_msg_t *gather = drover_msg_new (DROVER_MSG_WORKER_GATHER);
    gather->seq = seq;
    for (size_t index = 0; index < count; index++) {
        zframe_t *route = (zframe_t *) zhashx_lookup (self->routes, workers [index].id);
        if (route)              //  none: it cannot answer, the term is incomplete
            drover_actor_send_to (outbox, "reconciler", zframe_data (route),
                                  zframe_size (route), gather, workers [index].id);
    }
    drover_msg_destroy (&gather);
}

//  Return how many workers the gather asked
size_t
drover_gather_asked (drover_gather_t *self)
{
    assert (self);
    return self->asked;
}

//  True if a WORKER RUNS from route may count; else dropped, counted, logged
bool
drover_gather_fenced (drover_gather_t *self, const char *worker, const byte *route,
                      size_t route_size, int64_t now)
{
    assert (self);
    zframe_t *registered = (zframe_t *) zhashx_lookup (self->routes, worker);
    if (registered && zframe_size (registered) == route_size
    &&  memcmp (zframe_data (registered), route, route_size) == 0)
        return true;
    self->runs_dropped++;
    if (now - self->warned_at >= S_WARN_EVERY) {
        zsys_warning ("reconciler: WORKER RUNS dropped worker=%s: %s dropped=%" PRIu64,
                      worker, registered? "not from its registration's route"
                                        : "not registered", self->runs_dropped);
        self->warned_at = now;
    }
    return false;
}

//  Return how many WORKER RUNS were dropped for their route
uint64_t
drover_gather_dropped (drover_gather_t *self)
{
    assert (self);
    return self->runs_dropped;
}

//  True if worker answered this gather already
bool
drover_gather_answered (drover_gather_t *self, const char *worker)
{
    assert (self);
    return zhashx_lookup (self->answered, worker) != NULL;
}

//  Worker answered this gather; true if every worker asked has now
bool
drover_gather_answer (drover_gather_t *self, const char *worker)
{
    assert (self);
    zhashx_insert (self->answered, worker, (void *) 1);
    return zhashx_size (self->answered) >= self->asked;
}
