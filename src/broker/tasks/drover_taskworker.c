/*  =========================================================================
    drover_taskworker - a worker as the task table knows it (see the header)
    =========================================================================
*/

#include "drover_taskworker.h"


//  Create a worker record
drover_taskworker_t *
drover_taskworker_new (const char *id)
{
    assert (id);
    drover_taskworker_t *self = (drover_taskworker_t *) zmalloc (sizeof (drover_taskworker_t));
    snprintf (self->id, sizeof self->id, "%s", id);
    return self;
}

//  Free a worker record
void
drover_taskworker_destroy (drover_taskworker_t **self_p)
{
    assert (self_p);
    drover_taskworker_t *self = *self_p;
    if (!self)
        return;
    free (self->tasks);
    free (self->killed);
    free (self);
    *self_p = NULL;
}

//  Remember the route
void
drover_taskworker_set_route (drover_taskworker_t *self, const byte *route, size_t route_size)
{
    assert (self && route);
    assert (route_size >= 1 && route_size <= sizeof self->route - 1);
    memcpy (self->route, route, route_size);
    self->route_size = route_size;
}

//  Compare a route with the worker's
bool
drover_taskworker_routed (drover_taskworker_t *self, const byte *route, size_t route_size)
{
    assert (self && route);
    return self->route_size == route_size && memcmp (self->route, route, route_size) == 0;
}

//  Put a task among the worker's live attempts
void
drover_taskworker_attach (drover_taskworker_t *self, drover_taskrecord_t *task)
{
    assert (self && task);
    if (self->ntasks == self->tasks_size) {
        self->tasks_size = self->tasks_size? self->tasks_size * 2: 16;
        self->tasks = (drover_taskrecord_t **)
            realloc (self->tasks, self->tasks_size * sizeof (drover_taskrecord_t *));
        assert (self->tasks);
    }
    drover_taskrun_t *run = drover_taskrecord_run (task);
    run->worker = self;
    run->worker_slot = self->ntasks;
    self->tasks [self->ntasks++] = task;
}

//  Take a task off the worker (the last one takes its slot)
void
drover_taskworker_detach (drover_taskworker_t *self, drover_taskrecord_t *task)
{
    assert (self && task);
    drover_taskrun_t *run = task->run;
    assert (run && run->worker == self && self->tasks [run->worker_slot] == task);
    drover_taskrecord_t *last = self->tasks [--self->ntasks];
    self->tasks [run->worker_slot] = last;
    last->run->worker_slot = run->worker_slot;
    run->worker = NULL;
}

//  Remember a killed attempt until its RESULT comes
void
drover_taskworker_await_end (drover_taskworker_t *self, uint64_t task, uint32_t attempt)
{
    assert (self);
    if (self->nkilled == self->killed_size) {
        self->killed_size = self->killed_size? self->killed_size * 2: 4;
        self->killed = (drover_taskref_t *)
            realloc (self->killed, self->killed_size * sizeof (drover_taskref_t));
        assert (self->killed);
    }
    self->killed [self->nkilled].task = task;
    self->killed [self->nkilled].attempt = attempt;
    self->nkilled++;
}

//  Forget a killed attempt whose RESULT came (the last one takes its place)
bool
drover_taskworker_ended (drover_taskworker_t *self, uint64_t task, uint32_t attempt)
{
    assert (self);
    for (uint32_t index = 0; index < self->nkilled; index++)
        if (self->killed [index].task == task && self->killed [index].attempt == attempt) {
            self->killed [index] = self->killed [--self->nkilled];
            return true;
        }
    return false;
}
