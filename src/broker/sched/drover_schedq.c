/*  =========================================================================
    drover_schedq - the scheduling queue: pending requests and the workers
    they are placed on, after bigslice's machine manager

    Requests, workers and the distinct procs demands live in pools of
    fixed-size records reached by uint32 handles (drover_slab): no
    allocation per request, 40 bytes each plus a few bytes of index and
    heap. What a request demands besides procs (memory and labels) is
    interned (drover_demands): requests that ask for the same share one
    drover_demand_t, and most ask for none. Queued requests that demand
    the same (the same procs, memory and labels) form a group: a heap of them in placement order
    (priority, then arrival: the task id, given in increasing order at
    submit, so that a requeued task keeps its place). The groups wait in a
    heap ordered by their heads (priority, then procs decreasing, then
    arrival), so the head of the head group is the head of the queue. Two
    more heaps keep the distinct procs demands of the groups fewest first
    (whose head says whether anything queued could still fit the free procs
    left) and the eligible workers most free procs first. Every element
    knows its index in its heap, so a change or a removal costs O(log n).

    A pass places the head request on the least-loaded worker that meets
    it. When none can hold it now, it reserves (shelves, as bigslice does)
    the least-loaded worker that could ever hold it: that worker leaves
    the eligible heap, takes nothing else, and gets the request as soon as
    enough of it is free; the reservation lasts across passes until the
    request is placed (there or elsewhere) or cancelled, the worker goes
    or stops being eligible, or a request ranked before it needs a worker
    and has no other. When every worker that could hold the head is
    reserved already for requests ranked before it, its whole group is
    blocked: set aside until one of those reservations ends, a worker
    comes, or a request joins it at its head (it may outrank a holder), so
    a thousand requests waiting for the same busy workers cost passes
    nothing; when no eligible worker could ever hold it (no holder
    of a label, or none big enough), its group is parked: set aside until
    a worker that could hold it comes up, is resumed or cleared, or
    changes. One pass costs O(log n) per placement, plus one step per
    reservation made, per group set aside and per reserved request passed
    over (at most one per worker); only a request whose memory or labels
    the least-loaded worker cannot meet makes it look further: at the
    workers that carry its rarest label (drover_demands indexes each
    label's holders, so a thousand idle workers of another pool cost
    nothing), or, for a memory demand alone, at every eligible worker.

    This file holds the queue of groups and the pass; the workers' side
    (add, remove, admin, probation, disk floor, views) is in
    drover_schedq_workers.c, the records both use in drover_schedq_internal.h.
    =========================================================================
*/

#include "drover_schedq_internal.h"

//  ---------------------------------------------------------------------
//  Orderings

//  Request order: placement order
static bool
s_request_less (const void *a, const void *b)
{
    const s_request_t *one = (const s_request_t *) a;
    const s_request_t *two = (const s_request_t *) b;
    return drover_schedq_ranks_before (one->priority, one->procs, one->task,
                                      two->priority, two->procs, two->task);
}

//  Group order: their heads' placement order
static bool
s_group_less (const void *a, const void *b)
{
    const s_group_t *one = (const s_group_t *) a;
    const s_group_t *two = (const s_group_t *) b;
    return drover_schedq_ranks_before (one->priority, one->procs, one->task,
                                      two->priority, two->procs, two->task);
}

//  Size order: procs increasing
static bool
s_size_less (const void *a, const void *b)
{
    return ((const s_size_t *) a)->procs < ((const s_size_t *) b)->procs;
}

//  Worker order: most free procs, then most free memory, then id
static bool
s_worker_less (const void *a, const void *b)
{
    const s_worker_t *one = (const s_worker_t *) a;
    const s_worker_t *two = (const s_worker_t *) b;
    if (s_free_procs (one) != s_free_procs (two))
        return s_free_procs (one) > s_free_procs (two);
    if (s_free_mem (one) != s_free_mem (two))
        return s_free_mem (one) > s_free_mem (two);
    return strcmp (one->id, two->id) < 0;
}


//  ---------------------------------------------------------------------
//  Fit

//  Return true if a request fits a worker now: procs, memory and labels
static bool
s_fits (const s_worker_t *worker, const s_request_t *request)
{
    return request->procs <= s_free_procs (worker)
        && request->demand->mem <= s_free_mem (worker)
        && drover_labels_match (worker->labels, worker->nlabels, request->demand);
}


//  ---------------------------------------------------------------------
//  Groups

//  Count a queued group's procs among those that could still be placed
static void
s_size_add (drover_schedq_t *self, uint32_t procs)
{
    uint32_t handle = drover_slab_find (self->sizes, procs);
    if (!handle) {
        handle = drover_slab_insert (self->sizes, procs);
        drover_idheap_push (self->fewest, handle);
    }
    ((s_size_t *) drover_slab_get (self->sizes, handle))->count++;
}

//  Stop counting a group's procs (emptied, shelved or parked)
static void
s_size_drop (drover_schedq_t *self, uint32_t procs)
{
    uint32_t handle = drover_slab_find (self->sizes, procs);
    assert (handle);
    s_size_t *size = (s_size_t *) drover_slab_get (self->sizes, handle);
    if (--size->count == 0) {
        drover_idheap_remove (self->fewest, handle);
        drover_slab_delete (self->sizes, handle);
    }
}

//  Take a group out of the queue (its procs no longer counted)
static void
s_group_unqueue (drover_schedq_t *self, uint32_t handle)
{
    s_group_t *group = s_group (self, handle);
    assert (group->where == S_GROUP_QUEUED);
    drover_idheap_remove (self->queue, handle);
    s_size_drop (self, group->procs);
    group->where = S_GROUP_EMPTY;
}

//  Take a parked or blocked group off its list
static void
s_group_unpark (drover_schedq_t *self, uint32_t handle)
{
    s_group_t *group = s_group (self, handle);
    assert (group->where == S_GROUP_PARKED || group->where == S_GROUP_BLOCKED);
    s_list_t *list = group->where == S_GROUP_PARKED? &self->parked: &self->blocked;
    uint32_t last = list->handles [--list->count];
    list->handles [group->parked_at] = last;
    s_group (self, last)->parked_at = group->parked_at;
    group->where = S_GROUP_EMPTY;
}

//  Put a group where its heap says, after its heap changed: out of the
//  queue when empty, in it or reordered when not, forgotten with its last
//  request; a parked or blocked group stays where it is
static void
s_group_settle (drover_schedq_t *self, uint32_t handle)
{
    s_group_t *group = s_group (self, handle);
    uint32_t head = drover_idheap_top (group->heap);
    if (head) {
        s_request_t *request = s_request (self, head);
        group->task = request->task;
        group->priority = request->priority;
    }
    if (group->where == S_GROUP_QUEUED && !head)
        s_group_unqueue (self, handle);
    else
    if (group->where == S_GROUP_QUEUED)
        drover_idheap_fix (self->queue, handle);
    else
    if (group->where == S_GROUP_EMPTY && head) {
        drover_idheap_push (self->queue, handle);
        s_size_add (self, group->procs);
        group->where = S_GROUP_QUEUED;
    }
    if (group->count == 0) {
        if (group->where == S_GROUP_PARKED || group->where == S_GROUP_BLOCKED)
            s_group_unpark (self, handle);
        drover_idheap_destroy (&group->heap);
        drover_slab_delete (self->groups, handle);
    }
}

//  Put a queued request in its group (made if new) and count it
static void
s_enqueue (drover_schedq_t *self, uint32_t handle)
{
    s_request_t *request = s_request (self, handle);
    uint64_t key = (uint64_t) request->demand->serial << 32 | request->procs;
    uint32_t group_handle = drover_slab_find (self->groups, key);
    if (!group_handle) {
        group_handle = drover_slab_insert (self->groups, key);
        s_group_t *group = s_group (self, group_handle);
        group->demand = request->demand;
        group->procs = request->procs;
        group->heap = drover_idheap_new (self->requests, s_request_less,
                                         offsetof (s_request_t, index));
        group->index = DROVER_IDHEAP_NOWHERE;
        group->where = S_GROUP_EMPTY;
    }
    s_group_t *group = s_group (self, group_handle);
    request->group = group_handle;
    drover_idheap_push (group->heap, handle);
    group->count++;
    self->queued++;
    s_group_settle (self, group_handle);
}

//  Take a queued request out of its group and the counts
static void
s_dequeue (drover_schedq_t *self, uint32_t handle)
{
    s_request_t *request = s_request (self, handle);
    uint32_t group_handle = request->group;
    s_group_t *group = s_group (self, group_handle);
    if (request->index != DROVER_IDHEAP_NOWHERE)
        drover_idheap_remove (group->heap, handle);
    group->count--;
    self->queued--;
    request->group = 0;
    s_group_settle (self, group_handle);
}

//  Forget a request
void
drover_schedq_forget (drover_schedq_t *self, uint32_t handle)
{
    drover_demands_unref (self->demands, s_request (self, handle)->demand);
    drover_slab_delete (self->requests, handle);
}


//  Append a handle to a growing array
static void
s_append (uint32_t **array_p, size_t *count_p, size_t *capacity_p, uint32_t handle)
{
    if (*count_p == *capacity_p) {
        *capacity_p = *capacity_p? *capacity_p * 2: 16;
        *array_p = (uint32_t *) realloc (*array_p, *capacity_p * sizeof (uint32_t));
        assert (*array_p);
    }
    (*array_p) [(*count_p)++] = handle;
}

//  Append a handle to a list
void
drover_schedq_list_add (s_list_t *list, uint32_t handle)
{
    s_append (&list->handles, &list->count, &list->capacity, handle);
}

//  Set the head group aside until a worker wakes it: parked when no
//  eligible worker could ever hold its requests, blocked when each that
//  could is reserved for a request ranked before them
static void
s_park (drover_schedq_t *self, uint32_t handle, uint32_t where)
{
    s_group_unqueue (self, handle);
    s_list_t *list = where == S_GROUP_PARKED? &self->parked: &self->blocked;
    s_group_t *group = s_group (self, handle);
    group->where = where;
    group->parked_at = (uint32_t) list->count;
    s_append (&list->handles, &list->count, &list->capacity, handle);
}

//  Put the groups of a list that a worker could hold back in the queue (a
//  scan of the list: its groups are few next to the requests they stand for)
static void
s_wake_list (drover_schedq_t *self, s_list_t *list, uint32_t worker_handle)
{
    s_worker_t *worker = s_worker (self, worker_handle);
    if (!s_usable (worker) || worker->reserved)
        return;
    size_t index = list->count;
    while (index-- > 0) {
        uint32_t handle = list->handles [index];
        s_group_t *group = s_group (self, handle);
        if (s_could_hold (worker, group->procs, group->demand)) {
            s_group_unpark (self, handle);
            s_group_settle (self, handle);
        }
    }
}

//  A worker came up, changed, or became usable again: wake the groups
//  parked or blocked that it could hold
void
drover_schedq_wake (drover_schedq_t *self, uint32_t worker_handle)
{
    s_wake_list (self, &self->parked, worker_handle);
    s_wake_list (self, &self->blocked, worker_handle);
}

//  Reserve a worker for a queued request: it leaves the eligible heap. A
//  worker reserved for another request (ranked after it) changes hands.
static void
s_reserve (drover_schedq_t *self, uint32_t worker_handle, uint32_t request_handle)
{
    s_worker_t *worker = s_worker (self, worker_handle);
    if (worker->reserved)
        s_request (self, worker->reserved)->reserved = 0;
    else
        s_append (&self->reservations, &self->nreservations, &self->reservations_capacity,
                  worker_handle);
    worker->reserved = request_handle;
    s_request (self, request_handle)->reserved = worker_handle;
    s_worker_refresh (self, worker_handle);
}

//  End a worker's reservation, if it has one; it is eligible again if usable
void
drover_schedq_release (drover_schedq_t *self, uint32_t worker_handle)
{
    s_worker_t *worker = s_worker (self, worker_handle);
    if (!worker->reserved)
        return;
    s_request (self, worker->reserved)->reserved = 0;
    worker->reserved = 0;
    for (size_t index = 0; index < self->nreservations; index++)
        if (self->reservations [index] == worker_handle) {
            self->reservations [index] = self->reservations [--self->nreservations];
            break;
        }
    s_worker_refresh (self, worker_handle);
    s_wake_list (self, &self->blocked, worker_handle);
}

//  ---------------------------------------------------------------------
//  Construction

//  Create an empty queue
drover_schedq_t *
drover_schedq_new (uint32_t max_shelve)
{
    drover_schedq_t *self = (drover_schedq_t *) zmalloc (sizeof (drover_schedq_t));
    self->requests = drover_slab_new (sizeof (s_request_t));
    self->groups = drover_slab_new (sizeof (s_group_t));
    self->sizes = drover_slab_new (sizeof (s_size_t));
    self->worker_pool = drover_slab_new (sizeof (s_worker_t));
    self->workers = zhashx_new ();
    self->demands = drover_demands_new ();
    self->order = zlistx_new ();
    self->queue = drover_idheap_new (self->groups, s_group_less, offsetof (s_group_t, index));
    self->fewest = drover_idheap_new (self->sizes, s_size_less, offsetof (s_size_t, index));
    self->eligible = drover_idheap_new (self->worker_pool, s_worker_less,
                                       offsetof (s_worker_t, index));
    self->max_shelve = max_shelve;
    return self;
}

//  Destroy the queue and everything in it
void
drover_schedq_destroy (drover_schedq_t **self_p)
{
    assert (self_p);
    drover_schedq_t *self = *self_p;
    if (self) {
        for (void *item = zlistx_first (self->order); item; item = zlistx_next (self->order))
            s_worker_clear (s_worker (self, (uint32_t) (uintptr_t) item));
        zlistx_destroy (&self->order);
        //  Between passes every group is queued, parked or blocked
        for (size_t index = 0; index < drover_idheap_size (self->queue); index++)
            drover_idheap_destroy (&s_group (self, drover_idheap_at (self->queue, index))->heap);
        for (size_t index = 0; index < self->parked.count; index++)
            drover_idheap_destroy (&s_group (self, self->parked.handles [index])->heap);
        for (size_t index = 0; index < self->blocked.count; index++)
            drover_idheap_destroy (&s_group (self, self->blocked.handles [index])->heap);
        zhashx_destroy (&self->workers);
        drover_demands_destroy (&self->demands);   //  requests need not unref: all go
        drover_idheap_destroy (&self->queue);
        drover_idheap_destroy (&self->fewest);
        drover_idheap_destroy (&self->eligible);
        drover_slab_destroy (&self->requests);
        drover_slab_destroy (&self->groups);
        drover_slab_destroy (&self->sizes);
        drover_slab_destroy (&self->worker_pool);
        free (self->shelf);
        free (self->parked.handles);
        free (self->blocked.handles);
        free (self->leased.handles);
        free (self->reservations);
        free (self);
        *self_p = NULL;
    }
}

//  Change how many unfit requests one pass looks past
void
drover_schedq_set_max_shelve (drover_schedq_t *self, uint32_t max_shelve)
{
    assert (self);
    self->max_shelve = max_shelve;
}



//  Tell fn a group's demand, if it holds requests
static void
s_tell_demand (drover_schedq_t *self, uint32_t handle, drover_schedq_demand_fn *fn, void *arg)
{
    s_group_t *group = s_group (self, handle);
    if (group->count)
        fn (group->procs, group->demand->mem, group->demand->given, group->count, arg);
}

//  Call fn for each distinct demand waiting: between passes every group is
//  queued, parked or blocked
void
drover_schedq_each_demand (drover_schedq_t *self, drover_schedq_demand_fn *fn, void *arg)
{
    assert (self && fn);
    for (size_t index = 0; index < drover_idheap_size (self->queue); index++)
        s_tell_demand (self, drover_idheap_at (self->queue, index), fn, arg);
    for (size_t index = 0; index < self->parked.count; index++)
        s_tell_demand (self, self->parked.handles [index], fn, arg);
    for (size_t index = 0; index < self->blocked.count; index++)
        s_tell_demand (self, self->blocked.handles [index], fn, arg);
}

//  Give the elastic pool's instance types, for explaining
void
drover_schedq_set_pooltypes (drover_schedq_t *self, const drover_pooltype_t *types, size_t ntypes)
{
    assert (self);
    self->pooltypes = ntypes? types: NULL;
    self->npooltypes = types? ntypes: 0;
}


//  ---------------------------------------------------------------------
//  Requests

//  Queue a request
int
drover_schedq_push (drover_schedq_t *self, uint64_t task, int32_t priority,
                   uint32_t procs, uint64_t mem, const char *labels)
{
    assert (self);
    if (procs == 0)
        return -1;              //  nothing to place
    uint32_t handle = drover_slab_insert (self->requests, task);
    if (!handle)
        return -1;              //  already queued or assigned
    s_request_t *request = s_request (self, handle);
    request->priority = priority;
    request->procs = procs;
    request->demand = drover_demands_ref (self->demands, mem, labels);
    s_enqueue (self, handle);
    //  Ranked before the rest of a kind set aside for reserved workers, it
    //  may outrank a reservation's holder: the next pass looks at it
    s_group_t *group = s_group (self, request->group);
    if (group->where == S_GROUP_BLOCKED && drover_idheap_top (group->heap) == handle) {
        s_group_unpark (self, request->group);
        s_group_settle (self, request->group);
    }
    return 0;
}

//  Drop a queued request
int
drover_schedq_remove (drover_schedq_t *self, uint64_t task)
{
    assert (self);
    uint32_t handle = drover_slab_find (self->requests, task);
    if (!handle || s_request (self, handle)->worker)
        return -1;              //  not queued
    if (s_request (self, handle)->reserved)
        drover_schedq_release (self, s_request (self, handle)->reserved);
    s_dequeue (self, handle);
    drover_schedq_forget (self, handle);
    return 0;
}

//  Give back an assigned task's procs and memory
const char *
drover_schedq_free (drover_schedq_t *self, uint64_t task)
{
    assert (self);
    uint32_t handle = drover_slab_find (self->requests, task);
    s_request_t *request = handle? s_request (self, handle): NULL;
    if (!request || !request->worker)
        return NULL;            //  holds nothing
    s_worker_t *worker = s_worker (self, request->worker);
    worker->used -= request->procs;
    worker->mem_used -= request->demand->mem;
    //  The last task takes its slot
    uint32_t last = worker->tasks [--worker->ntasks];
    worker->tasks [request->index] = last;
    s_request (self, last)->index = request->index;
    s_worker_refresh (self, request->worker);
    drover_schedq_forget (self, handle);
    return worker->id;
}


//  ---------------------------------------------------------------------
//  The pass

//  Pick between a worker and the best so far: the one with the most free
//  procs that meets every constraint of the request
static uint32_t
s_better (drover_schedq_t *self, s_request_t *request, uint32_t handle, uint32_t best)
{
    s_worker_t *worker = s_worker (self, handle);
    if (worker->index == DROVER_IDHEAP_NOWHERE || !s_fits (worker, request))
        return best;            //  not eligible, or does not fit
    return !best || s_worker_less (worker, s_worker (self, best))? handle: best;
}

//  Return the eligible worker with the most free procs that meets every
//  constraint of the request, or 0: among the holders of its rarest label
//  if it asks for labels, else (memory alone) among every eligible worker
static uint32_t
s_best_fit (drover_schedq_t *self, s_request_t *request)
{
    uint32_t best = 0;
    if (request->demand->nlabels) {
        size_t count;
        const uint32_t *holders = drover_demands_rarest (self->demands, request->demand, &count);
        for (size_t index = 0; index < count; index++)
            best = s_better (self, request, holders [index], best);
    }
    else
        for (size_t index = 0; index < drover_idheap_size (self->eligible); index++)
            best = s_better (self, request, drover_idheap_at (self->eligible, index), best);
    return best;
}

//  Take a queued request out of its group for the rest of this pass
static void
s_shelve (drover_schedq_t *self, uint32_t handle)
{
    s_request_t *request = s_request (self, handle);
    drover_idheap_remove (s_group (self, request->group)->heap, handle);
    s_group_settle (self, request->group);
    s_append (&self->shelf, &self->shelved, &self->shelf_capacity, handle);
}

//  Put every shelved request back in its group
static void
s_unshelve (drover_schedq_t *self)
{
    for (size_t index = 0; index < self->shelved; index++) {
        uint32_t handle = self->shelf [index];
        uint32_t group = s_request (self, handle)->group;
        drover_idheap_push (s_group (self, group)->heap, handle);
        s_group_settle (self, group);
    }
    self->shelved = 0;
}

//  Pick between a worker and the best so far to reserve for a request: the
//  least loaded that could ever hold it and is not reserved for a request
//  ranked before it. Sets *possible if the worker could hold it at all.
static uint32_t
s_spare (drover_schedq_t *self, s_request_t *request, uint32_t handle, uint32_t best,
         bool *possible)
{
    s_worker_t *worker = s_worker (self, handle);
    if (!s_could_hold (worker, request->procs, request->demand))
        return best;
    *possible = true;
    if (worker->reserved && !s_request_less (request, s_request (self, worker->reserved)))
        return best;            //  kept for a request ranked before this one
    return !best || s_worker_less (worker, s_worker (self, best))? handle: best;
}

//  Return the worker to reserve for a request that fits nowhere now, or 0;
//  sets *possible if some usable worker could ever hold it (else no
//  eligible worker, reserved or not, could)
static uint32_t
s_reservable (drover_schedq_t *self, s_request_t *request, bool *possible)
{
    uint32_t best = 0;
    *possible = false;
    if (request->demand->nlabels) {
        //  Every worker that could hold it carries its rarest label
        size_t count;
        const uint32_t *holders = drover_demands_rarest (self->demands, request->demand, &count);
        for (size_t index = 0; index < count; index++)
            best = s_spare (self, request, holders [index], best, possible);
        return best;
    }
    uint32_t top = drover_idheap_top (self->eligible);
    if (top && request->demand->mem == 0 && s_worker (self, top)->procs >= request->procs) {
        best = top;             //  the least loaded unreserved worker is big enough
        *possible = true;
    }
    else
        for (size_t index = 0; index < drover_idheap_size (self->eligible); index++)
            best = s_spare (self, request, drover_idheap_at (self->eligible, index), best, possible);
    for (size_t index = 0; index < self->nreservations; index++)
        best = s_spare (self, request, self->reservations [index], best, possible);
    return best;
}

//  Return true if a queued request without a reservation ranks before a
//  request that holds one
static bool
s_outranks (drover_schedq_t *self, s_request_t *request)
{
    if (request->reserved)
        return false;
    for (size_t index = 0; index < self->nreservations; index++) {
        s_worker_t *worker = s_worker (self, self->reservations [index]);
        if (s_request_less (request, s_request (self, worker->reserved)))
            return true;
    }
    return false;
}

//  Record a request as assigned to a worker
void
drover_schedq_attach (drover_schedq_t *self, uint32_t handle, uint32_t target)
{
    s_request_t *request = s_request (self, handle);
    s_worker_t *worker = s_worker (self, target);
    if (worker->ntasks == worker->tasks_capacity) {
        worker->tasks_capacity = worker->tasks_capacity? worker->tasks_capacity * 2: 16;
        worker->tasks = (uint32_t *) realloc (worker->tasks,
                                              worker->tasks_capacity * sizeof (uint32_t));
        assert (worker->tasks);
    }
    request->worker = target;
    request->index = worker->ntasks;
    worker->tasks [worker->ntasks++] = handle;
}

//  Record a task as assigned to a worker at once, without a pass
uint32_t
drover_schedq_attach_new (drover_schedq_t *self, uint64_t task, uint32_t procs, uint64_t mem,
                         const char *labels, uint32_t target)
{
    uint32_t handle = drover_slab_insert (self->requests, task);
    if (!handle)
        return 0;               //  already queued or assigned
    s_request_t *request = s_request (self, handle);
    request->procs = procs;
    request->demand = drover_demands_ref (self->demands, mem, labels);
    drover_schedq_attach (self, handle, target);
    return handle;
}

//  Place a queued request on a worker, ending its reservation if it had one
static void
s_assign (drover_schedq_t *self, uint32_t handle, uint32_t target)
{
    if (s_request (self, handle)->reserved)
        drover_schedq_release (self, s_request (self, handle)->reserved);
    s_dequeue (self, handle);
    drover_schedq_attach (self, handle, target);
    s_request_t *request = s_request (self, handle);
    s_worker_t *worker = s_worker (self, target);
    worker->used += request->procs;
    worker->mem_used += request->demand->mem;
    s_worker_refresh (self, target);
}

//  Place a request and tell fn
static void
s_place (drover_schedq_t *self, uint32_t handle, uint32_t target,
         drover_schedq_assign_fn *fn, void *arg)
{
    s_assign (self, handle, target);
    if (fn)
        fn (s_request (self, handle)->task, s_worker (self, target)->id, arg);
}

//  Run one scheduling pass; fn must not change the queue
int
drover_schedq_run (drover_schedq_t *self, drover_schedq_assign_fn *fn, void *arg)
{
    assert (self);
    int placed = 0;
    //  Requests whose reserved worker has room for them now take it
    for (size_t index = 0; index < self->nreservations; ) {
        uint32_t target = self->reservations [index];
        uint32_t handle = s_worker (self, target)->reserved;
        if (s_fits (s_worker (self, target), s_request (self, handle))) {
            s_place (self, handle, target, fn, arg);    //  ends the reservation: index
            placed++;                                   //  now holds another one
        }
        else
            index++;
    }
    uint32_t looked = 0;        //  requests looked past: reservations made
    while (drover_idheap_size (self->queue)) {
        uint32_t top = drover_idheap_top (self->eligible);
        uint32_t room = top? s_free_procs (s_worker (self, top)): 0;
        s_size_t *fewest = (s_size_t *) drover_slab_get (self->sizes, drover_idheap_top (self->fewest));
        uint32_t group = drover_idheap_top (self->queue);
        uint32_t handle = drover_idheap_top (s_group (self, group)->heap);
        s_request_t *request = s_request (self, handle);
        //  When the least loaded worker is full (all are), or nothing still
        //  queued fits it, nothing can be placed: go on only while the head
        //  could take over a reservation made for a request ranked after it
        if ((room == 0 || fewest->procs > room) && !s_outranks (self, request))
            break;
        uint32_t target = 0;
        if (request->procs <= room)
            target = s_fits (s_worker (self, top), request)? top: s_best_fit (self, request);
        if (target) {
            s_place (self, handle, target, fn, arg);
            placed++;
            continue;
        }
        if (request->reserved) {
            s_shelve (self, handle);    //  it waits for its worker to empty
            continue;
        }
        bool possible;
        uint32_t spare = s_reservable (self, request, &possible);
        if (spare) {
            s_reserve (self, spare, handle);
            s_shelve (self, handle);
        }
        else {
            //  Its workers are all kept for others, or there are none: it
            //  costs nothing more until a reservation ends or a worker comes
            s_park (self, group, possible? S_GROUP_BLOCKED: S_GROUP_PARKED);
            continue;
        }
        if (++looked >= self->max_shelve)
            break;              //  looked past enough for one pass
    }
    s_unshelve (self);
    return placed;
}


//  ---------------------------------------------------------------------
//  Queries

//  Return true if the task is queued
bool
drover_schedq_queued (drover_schedq_t *self, uint64_t task)
{
    assert (self);
    uint32_t handle = drover_slab_find (self->requests, task);
    return handle && !s_request (self, handle)->worker;
}

//  Return the worker a task is assigned to, or NULL
const char *
drover_schedq_assigned (drover_schedq_t *self, uint64_t task)
{
    assert (self);
    uint32_t handle = drover_slab_find (self->requests, task);
    uint32_t worker = handle? s_request (self, handle)->worker: 0;
    return worker? s_worker (self, worker)->id: NULL;
}

//  Return how many requests are queued
size_t
drover_schedq_size (drover_schedq_t *self)
{
    assert (self);
    return self->queued;
}

