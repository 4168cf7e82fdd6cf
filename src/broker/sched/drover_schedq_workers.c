/*  =========================================================================
    drover_schedq_workers - the workers of drover_schedq: adding, updating and
    removing them, their admin setting, probation and disk floor, and the
    views WORKER TABLE reads

    Each change puts the worker in or out of the eligible heap, ends a
    reservation it can no longer keep, and wakes the groups it could now
    hold; the queue and the pass are in drover_schedq.c.
    =========================================================================
*/

#include "drover_schedq_internal.h"

//  Add a worker, or update a known one in place
int
drover_schedq_add_worker (drover_schedq_t *self, const char *id, uint32_t procs,
                         uint64_t mem, const char *labels)
{
    assert (self);
    assert (id);
    uint32_t handle;
    s_worker_t *worker = s_worker_find (self, id, &handle);
    int rc = 1;
    if (worker) {
        drover_schedq_release (self, handle);    //  it may no longer suit; the next pass sees
        worker->lease_void = worker->lease != 0;    //  nor its lease
        drover_demands_unindex (self->demands, worker->labels, worker->nlabels, handle);
        free (worker->labels);
        free (worker->label_text);
    }
    else {
        handle = drover_slab_insert (self->worker_pool, ++self->worker_numbers);
        worker = s_worker (self, handle);
        worker->id = strdup (id);
        assert (worker->id);
        worker->admin = DROVER_ADMIN_RUN;
        worker->index = DROVER_IDHEAP_NOWHERE;
        zhashx_insert (self->workers, id, (void *) (uintptr_t) handle);
        worker->handle = zlistx_add_end (self->order, (void *) (uintptr_t) handle);
        rc = 0;
    }
    worker->procs = procs;
    worker->mem = mem;
    drover_labels_parse (labels, &worker->label_text, &worker->labels, &worker->nlabels);
    drover_demands_index (self->demands, worker->labels, worker->nlabels, handle);
    s_worker_refresh (self, handle);
    drover_schedq_wake (self, handle);
    return rc;
}

//  Remove a worker and forget its assignments, telling fn about each
int
drover_schedq_remove_worker (drover_schedq_t *self, const char *id,
                            drover_schedq_task_fn *fn, void *arg)
{
    assert (self);
    uint32_t handle;
    s_worker_t *worker = s_worker_find (self, id, &handle);
    if (!worker)
        return -1;              //  unknown worker
    drover_schedq_release (self, handle);
    drover_schedq_drop_lease (self, handle);
    if (worker->index != DROVER_IDHEAP_NOWHERE)
        drover_idheap_remove (self->eligible, handle);
    int count = (int) worker->ntasks;
    for (uint32_t slot = 0; slot < worker->ntasks; slot++) {
        uint32_t request = worker->tasks [slot];
        if (fn)
            fn (s_request (self, request)->task, arg);
        drover_schedq_forget (self, request);
    }
    drover_demands_unindex (self->demands, worker->labels, worker->nlabels, handle);
    zlistx_delete (self->order, worker->handle);
    zhashx_delete (self->workers, id);
    s_worker_clear (worker);
    drover_slab_delete (self->worker_pool, handle);
    return count;
}

//  Record a task as running on a worker already: an adopted attempt
int
drover_schedq_place (drover_schedq_t *self, const char *id, uint64_t task, uint32_t procs,
                    uint64_t mem, const char *labels)
{
    assert (self && procs >= 1);
    uint32_t target;
    if (!s_worker_find (self, id, &target))
        return -1;              //  unknown worker: its LOST is on the way
    if (!drover_schedq_attach_new (self, task, procs, mem, labels, target))
        return -1;              //  already queued or assigned
    s_worker_t *worker = s_worker (self, target);
    worker->used += procs;
    worker->mem_used += mem;
    s_worker_refresh (self, target);
    return 0;
}

//  Set a worker's admin setting
int
drover_schedq_set_admin (drover_schedq_t *self, const char *id, int admin)
{
    assert (self);
    uint32_t handle;
    s_worker_t *worker = s_worker_find (self, id, &handle);
    if (!worker || admin < 0 || admin > DROVER_ADMIN_MAX)
        return -1;              //  unknown worker or not a setting
    worker->admin = admin;
    if (!s_usable (worker))
        drover_schedq_release (self, handle);
    s_worker_refresh (self, handle);
    drover_schedq_wake (self, handle);
    return 0;
}

//  Keep new work from a worker whose stats say its disk is fuller than the floor, or
//  take it back once they say it has room again. Stats without a disk
//  (disk_total 0: unreadable) never put it on probation.
static void
s_disk_check (drover_schedq_t *self, uint32_t handle)
{
    s_worker_t *worker = s_worker (self, handle);
    const drover_stats_t *stats = &worker->stats;
    uint64_t free_bytes = stats->disk_total > stats->disk_used
                        ? stats->disk_total - stats->disk_used: 0;
    bool low = self->min_disk_free && stats->disk_total && free_bytes < self->min_disk_free;
    if (low == worker->disk_low)
        return;
    worker->disk_low = low;
    if (!s_usable (worker))
        drover_schedq_release (self, handle);
    s_worker_refresh (self, handle);
    drover_schedq_wake (self, handle);
}

//  Put a worker on probation or take it off
int
drover_schedq_set_probation (drover_schedq_t *self, const char *id, bool probation)
{
    assert (self);
    uint32_t handle;
    s_worker_t *worker = s_worker_find (self, id, &handle);
    if (!worker)
        return -1;              //  unknown worker
    worker->probation = probation;
    if (!probation)
        worker->probation_until = 0;
    if (!s_usable (worker))
        drover_schedq_release (self, handle);
    s_worker_refresh (self, handle);
    drover_schedq_wake (self, handle);
    return 0;
}

//  Hold a worker from new work until what it runs is counted, or let it go
int
drover_schedq_set_settling (drover_schedq_t *self, const char *id, bool settling)
{
    assert (self);
    uint32_t handle;
    s_worker_t *worker = s_worker_find (self, id, &handle);
    if (!worker)
        return -1;              //  unknown worker
    if (worker->settling == settling)
        return 0;
    worker->settling = settling;
    if (!s_usable (worker))
        drover_schedq_release (self, handle);
    s_worker_refresh (self, handle);
    drover_schedq_wake (self, handle);
    return 0;
}

//  Record when a worker's probation is due to end
int
drover_schedq_set_probation_until (drover_schedq_t *self, const char *id, uint64_t until)
{
    assert (self);
    s_worker_t *worker = s_worker_find (self, id, NULL);
    if (!worker)
        return -1;              //  unknown worker
    worker->probation_until = until;
    return 0;
}

//  Keep a worker's last stats
int
drover_schedq_set_stats (drover_schedq_t *self, const char *id, const drover_stats_t *stats)
{
    assert (self);
    assert (stats);
    uint32_t handle;
    s_worker_t *worker = s_worker_find (self, id, &handle);
    if (!worker)
        return -1;              //  unknown worker
    worker->stats = *stats;
    s_disk_check (self, handle);
    return 0;
}


//  Change the free disk under which a worker takes nothing new
void
drover_schedq_set_min_disk_free (drover_schedq_t *self, uint64_t bytes)
{
    assert (self);
    self->min_disk_free = bytes;
    for (const char *id = drover_schedq_first (self); id; id = drover_schedq_next (self)) {
        uint32_t handle;
        s_worker_find (self, id, &handle);
        s_disk_check (self, handle);
    }
}

//  Return how many workers are known
size_t
drover_schedq_workers (drover_schedq_t *self)
{
    assert (self);
    return zhashx_size (self->workers);
}

//  Return true if the worker is known and has nothing assigned
bool
drover_schedq_idle (drover_schedq_t *self, const char *id)
{
    assert (self);
    s_worker_t *worker = s_worker_find (self, id, NULL);
    return worker && worker->ntasks == 0;
}

//  Fill view with a worker's state
int
drover_schedq_lookup (drover_schedq_t *self, const char *id, drover_schedq_view_t *view)
{
    assert (self);
    assert (view);
    s_worker_t *worker = s_worker_find (self, id, NULL);
    if (!worker)
        return -1;              //  unknown worker
    view->id = worker->id;
    view->procs = worker->procs;
    view->procs_used = worker->used - worker->lease_procs;     //  lent is not used
    view->mem = worker->mem;
    view->mem_used = worker->mem_used - worker->lease_mem;
    view->admin = worker->admin;
    view->probation = worker->probation;
    view->probation_until = worker->probation? worker->probation_until: 0;
    view->disk_low = worker->disk_low;
    view->nlabels = worker->nlabels;
    view->labels = worker->labels;
    view->stats = worker->stats;
    view->tasks = worker->ntasks;
    view->reserved = worker->reserved? s_request (self, worker->reserved)->task: 0;
    view->lease = worker->lease;
    return 0;
}

//  Return the first known worker's id
const char *
drover_schedq_first (drover_schedq_t *self)
{
    assert (self);
    void *item = zlistx_first (self->order);
    return item? s_worker (self, (uint32_t) (uintptr_t) item)->id: NULL;
}

//  Return the next worker's id
const char *
drover_schedq_next (drover_schedq_t *self)
{
    assert (self);
    void *item = zlistx_next (self->order);
    return item? s_worker (self, (uint32_t) (uintptr_t) item)->id: NULL;
}
