/*  =========================================================================
    drover_schedq_leases - drover_schedq lending idle workers' capacity to
    assign ahead of time

    While nothing waits in the queue, the free procs and memory of the
    least-loaded eligible workers (at most max-leases of them) are lent to
    assign, one lease per worker, so that a task submitted to an empty
    queue is offered at once, without the assign -> schedq -> assign round
    trip. A lent worker is out of the eligible heap: its capacity is
    counted as used until assign takes from the lease for a task (the task
    is then assigned there, like a placement) or returns what is left.
    As soon as anything waits, or a lent worker stops being usable (hold,
    drain, probation, full disk, a new HELLO), its lease is revoked; what
    it holds comes back with the RETURN. actors/ACTORS.md, "Leases".
    =========================================================================
*/

#include "drover_schedq_internal.h"

//  Find the worker holding a lease, or 0; sets *slot_p to its place in
//  self->leased (a short list: max-leases entries at most)
static uint32_t
s_lease_holder (drover_schedq_t *self, uint64_t lease, size_t *slot_p)
{
    for (size_t slot = 0; lease && slot < self->leased.count; slot++) {
        uint32_t handle = self->leased.handles [slot];
        if (s_worker (self, handle)->lease == lease) {
            if (slot_p)
                *slot_p = slot;
            return handle;
        }
    }
    return 0;
}

//  Forget a worker's lease without giving back what it holds
void
drover_schedq_drop_lease (drover_schedq_t *self, uint32_t worker_handle)
{
    size_t slot;
    s_worker_t *worker = s_worker (self, worker_handle);
    if (!s_lease_holder (self, worker->lease, &slot))
        return;                 //  lends nothing
    self->leased.handles [slot] = self->leased.handles [--self->leased.count];
    worker->lease = 0;
    worker->lease_procs = 0;
    worker->lease_mem = 0;
    worker->lease_revoked = false;
    worker->lease_void = false;
}

//  Tell fn about a lease
static void
s_tell (drover_schedq_t *self, s_worker_t *worker, drover_schedq_lease_fn *fn, void *arg)
{
    drover_schedq_lease_t lease = {
        worker->lease, worker->id, worker->lease_procs, worker->lease_mem
    };
    fn (&lease, arg);
}

//  Change how many leases may be out at once
void
drover_schedq_set_max_leases (drover_schedq_t *self, uint32_t max_leases)
{
    assert (self);
    self->max_leases = max_leases;
}

//  Return true if a request waits that a lent worker could ever hold; a
//  scan of the parked groups, which are few
static bool
s_parked_for_lent (drover_schedq_t *self)
{
    for (size_t index = 0; self->leased.count && index < self->parked.count; index++) {
        s_group_t *group = s_group (self, self->parked.handles [index]);
        for (size_t slot = 0; slot < self->leased.count; slot++) {
            s_worker_t *worker = s_worker (self, self->leased.handles [slot]);
            if (worker->procs >= group->procs && worker->mem >= group->demand->mem
            &&  drover_labels_match (worker->labels, worker->nlabels, group->demand))
                return true;
        }
    }
    return false;
}

//  Return true if a request waits for capacity (queued, blocked by a
//  reservation, or parked while a lent worker could hold it)
static bool
s_someone_waits (drover_schedq_t *self)
{
    return self->waiting_outside || drover_idheap_size (self->queue) || self->blocked.count
        || self->nreservations || s_parked_for_lent (self);
}

//  Say which leases to revoke now
int
drover_schedq_revoke (drover_schedq_t *self, drover_schedq_lease_fn *fn, void *arg)
{
    assert (self);
    assert (fn);
    if (!self->leased.count)
        return 0;
    int revoked = 0;
    bool waiting = s_someone_waits (self);
    for (size_t slot = 0; slot < self->leased.count; slot++) {
        s_worker_t *worker = s_worker (self, self->leased.handles [slot]);
        if (worker->lease_revoked
        ||  (!waiting && s_usable (worker) && !worker->lease_void))
            continue;
        worker->lease_revoked = true;
        s_tell (self, worker, fn, arg);
        revoked++;
    }
    return revoked;
}

//  Lend the free capacity of the least-loaded eligible workers
int
drover_schedq_lend (drover_schedq_t *self, drover_schedq_lease_fn *fn, void *arg)
{
    assert (self);
    assert (fn);
    if (s_someone_waits (self))
        return 0;               //  what is free goes to them
    int lent = 0;
    while (self->leased.count < self->max_leases) {
        uint32_t top = drover_idheap_top (self->eligible);
        s_worker_t *worker = top? s_worker (self, top): NULL;
        if (!worker || s_free_procs (worker) == 0)
            break;              //  every eligible worker is full
        worker->lease = ++self->lease_numbers;
        worker->lease_procs = s_free_procs (worker);
        worker->lease_mem = s_free_mem (worker);
        worker->used += worker->lease_procs;
        worker->mem_used += worker->lease_mem;
        drover_schedq_list_add (&self->leased, top);
        s_worker_refresh (self, top);   //  out of the eligible heap
        s_tell (self, worker, fn, arg);
        lent++;
    }
    return lent;
}

//  Assign a task to the worker of a lease, out of what the lease holds
int
drover_schedq_take (drover_schedq_t *self, uint64_t lease, uint64_t task, uint32_t procs,
                   uint64_t mem, const char *labels)
{
    assert (self);
    uint32_t target = s_lease_holder (self, lease, NULL);
    if (!target)
        return -1;              //  no such lease: its worker went
    s_worker_t *worker = s_worker (self, target);
    if (procs == 0 || procs > worker->lease_procs || mem > worker->lease_mem)
        return -1;              //  more than the lease holds
    if (!drover_schedq_attach_new (self, task, procs, mem, labels, target))
        return -1;              //  already queued or assigned
    //  The task's procs and memory were counted as used by the lease
    worker = s_worker (self, target);
    worker->lease_procs -= procs;
    worker->lease_mem -= mem;
    return 0;
}

//  End a lease, giving back what it still holds
const char *
drover_schedq_return (drover_schedq_t *self, uint64_t lease)
{
    assert (self);
    uint32_t handle = s_lease_holder (self, lease, NULL);
    if (!handle)
        return NULL;            //  returned already, or its worker went
    s_worker_t *worker = s_worker (self, handle);
    worker->used -= worker->lease_procs;
    worker->mem_used -= worker->lease_mem;
    drover_schedq_drop_lease (self, handle);
    s_worker_refresh (self, handle);
    drover_schedq_wake (self, handle);
    return worker->id;
}

//  Return how many leases are out
size_t
drover_schedq_leases (drover_schedq_t *self)
{
    assert (self);
    return self->leased.count;
}
