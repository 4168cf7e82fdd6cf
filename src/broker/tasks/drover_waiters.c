/*  =========================================================================
    drover_waiters - who waits for which task's TASK DONE

    Waiters are held as references into a registry of the clients' routes
    (drover_clientids): one entry per client however many tasks it waits on.
    =========================================================================
*/

#include "drover_waiters.h"
#include "drover_clientids.h"

struct _drover_waiters_t {
    drover_clientids_t *routes;    //  clients' routing ids, one per client
    size_t count;               //  waiters on all tasks
    size_t max;                 //  waiters on all tasks, at most
};

//  Further waiters of one task, past the one held in the task itself
struct _drover_waitlist_t {
    uint32_t count;             //  entries in use
    drover_waiter_t items [DROVER_WAITERS_PER_TASK - 1];    //  the waiters
};

//  Create an empty registry
drover_waiters_t *
drover_waiters_new (size_t max)
{
    drover_waiters_t *self = (drover_waiters_t *) zmalloc (sizeof (drover_waiters_t));
    self->routes = drover_clientids_new ();
    self->max = max;
    return self;
}

//  Destroy the registry and its routes; harmless on NULL
void
drover_waiters_destroy (drover_waiters_t **self_p)
{
    assert (self_p);
    drover_waiters_t *self = *self_p;
    if (!self)
        return;
    drover_clientids_destroy (&self->routes);
    free (self);
    *self_p = NULL;
}

//  Set the most waiters on all tasks together
void
drover_waiters_set_max (drover_waiters_t *self, size_t max)
{
    assert (self);
    self->max = max;
}

//  Tell whether the bound in all is met
bool
drover_waiters_full (drover_waiters_t *self)
{
    assert (self);
    return self->count >= self->max;
}

//  Return how many waiters there are on all tasks
size_t
drover_waiters_size (drover_waiters_t *self)
{
    assert (self);
    return self->count;
}

//  Tell whether a waiter stands for the same request kind from a route:
//  a submit's notify (seq 0) and a WAIT (seq > 0) each get their own DONE
static bool
s_waiter_same (drover_waiter_t *waiter, uint32_t ref, uint32_t seq)
{
    return waiter->route == ref && (waiter->seq == 0) == (seq == 0);
}

//  Add route as a waiter of a task; a repeated WAIT from the same route
//  only updates the seq. Returns 0 new, 1 updated, -1 past a bound.
int
drover_waiters_add (drover_waiters_t *self, drover_waiter_t *first,
                    drover_waitlist_t **more_p,
                    const byte *route, size_t route_size, uint32_t seq)
{
    assert (self && first && more_p && route);
    assert (route_size >= 1 && route_size <= 255);
    drover_waitlist_t *more = *more_p;
    uint32_t ref = drover_clientids_find (self->routes, route, route_size);
    if (ref && s_waiter_same (first, ref, seq)) {
        first->seq = seq;
        return 1;               //  one TASK DONE per client, task and kind
    }
    for (uint32_t index = 0; ref && more && index < more->count; index++)
        if (s_waiter_same (&more->items [index], ref, seq)) {
            more->items [index].seq = seq;
            return 1;
        }
    size_t count = (first->route? 1: 0) + (more? more->count: 0);
    if (count >= DROVER_WAITERS_PER_TASK || self->count >= self->max)
        return -1;
    drover_waiter_t waiter = { drover_clientids_ref (self->routes, route, route_size), seq };
    if (!first->route)
        *first = waiter;
    else {
        if (!more)
            more = *more_p = (drover_waitlist_t *) zmalloc (sizeof (drover_waitlist_t));
        more->items [more->count++] = waiter;
    }
    self->count++;
    return 0;
}

//  Return a waiter's route and its size
const byte *
drover_waiters_route (drover_waiters_t *self, drover_waiter_t waiter, size_t *route_size_p)
{
    assert (self && route_size_p);
    return drover_clientids_route (self->routes, waiter.route, route_size_p);
}

//  Let a waiter go: release its route
void
drover_waiters_release (drover_waiters_t *self, drover_waiter_t waiter)
{
    assert (self && self->count);
    drover_clientids_unref (self->routes, waiter.route);
    self->count--;
}

//  Return how many waiters the list holds
uint32_t
drover_waitlist_size (drover_waitlist_t *self)
{
    return self? self->count: 0;
}

//  Return one waiter of the list
drover_waiter_t
drover_waitlist_at (drover_waitlist_t *self, uint32_t index)
{
    assert (self && index < self->count);
    return self->items [index];
}

//  Free a task's further list; harmless on NULL
void
drover_waitlist_destroy (drover_waitlist_t **self_p)
{
    assert (self_p);
    free (*self_p);
    *self_p = NULL;
}
