/*  =========================================================================
    drover_waiters - who waits for which task's TASK DONE: the clients'
    routes, held once per client, and the count of waiters on all tasks

    A task keeps its first waiter in itself (a drover_waiter_t, 8 bytes)
    and the others in a drover_waitlist_t it holds only if it has more
    than one; this class adds to them, bounded per task and in all, and
    gives each waiter's route back when its DONE is said. A plain class:
    no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_WAITERS_H_INCLUDED
#define DROVER_WAITERS_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DROVER_WAITERS_PER_TASK     16      //  waiters on one task, at most

typedef struct _drover_waiters_t drover_waiters_t;
typedef struct _drover_waitlist_t drover_waitlist_t;

//  A client waiting for a task to end
typedef struct {
    uint32_t route;             //  reference in the waiters' routes; 0 = none
    uint32_t seq;               //  seq to echo in TASK DONE
} drover_waiter_t;

//  Create an empty registry that holds at most max waiters in all
drover_waiters_t *
    drover_waiters_new (size_t max);

//  Destroy the registry and the routes it holds; harmless on NULL
void
    drover_waiters_destroy (drover_waiters_t **self_p);

//  Set the most waiters on all tasks together
void
    drover_waiters_set_max (drover_waiters_t *self, size_t max);

//  Tell whether no waiter can be added anywhere (the bound in all is met)
bool
    drover_waiters_full (drover_waiters_t *self);

//  Return how many waiters there are on all tasks
size_t
    drover_waiters_size (drover_waiters_t *self);

//  Add route as a waiter of one task, whose first waiter is *first and the
//  others *more_p (NULL: none; made when needed). A repeated WAIT from the
//  same route only updates the seq; a submit's notify (seq 0) and a WAIT
//  (seq > 0) are separate. Returns 0 for a new waiter, 1 for one updated,
//  or -1 past the per-task or global bound.
int
    drover_waiters_add (drover_waiters_t *self, drover_waiter_t *first,
                        drover_waitlist_t **more_p,
                        const byte *route, size_t route_size, uint32_t seq);

//  Return a waiter's route (borrowed, until it is released) and its size
const byte *
    drover_waiters_route (drover_waiters_t *self, drover_waiter_t waiter,
                          size_t *route_size_p);

//  Let a waiter go once its DONE is said: release its route
void
    drover_waiters_release (drover_waiters_t *self, drover_waiter_t waiter);

//  Return how many waiters a task's further list holds (0 for NULL)
uint32_t
    drover_waitlist_size (drover_waitlist_t *self);

//  Return one waiter of the list; index < drover_waitlist_size
drover_waiter_t
    drover_waitlist_at (drover_waitlist_t *self, uint32_t index);

//  Free a task's further list (its waiters not released); harmless on NULL
void
    drover_waitlist_destroy (drover_waitlist_t **self_p);

#ifdef __cplusplus
}
#endif

#endif
