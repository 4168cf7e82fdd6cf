/*  =========================================================================
    drover_schedq - the scheduling queue: pending requests and the workers
    they are placed on, after bigslice's machine manager

    Requests, workers and the distinct procs demands live in pools of
    fixed-size records reached by uint32 handles (drover_slab): no
    allocation per request, 32 bytes each plus a few bytes of index and
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

    A worker granted offers ahead (its WELCOME) holds that many beyond its
    free procs and starts them in the order it got them as procs free:
    when a pass stops for want of free procs, head requests of one proc go
    there held, their procs charged at the FREE of a running task there
    (see "Offers held ahead").

    The file reads top-down: the records, the orderings, the groups, the
    queue's requests, the offers held ahead and the pass; then the workers
    (add, remove, admin, probation, disk floor, views), the leases of idle
    capacity to assign, the requests placed outside the queue (affinity),
    the fleet the reconciler reads, and the views drover_explain reads to
    say why a task waits.
    =========================================================================
*/

#include "drover_schedq.h"
#include "drover_slab.h"
#include "drover_idheap.h"
#include "drover_demands.h"
#include "drover_fleet.h"
#include "drover_fairshare.h"
#include "drover_devicelist.h"
#include "drover_victims.h"

//  The most procs a request records: more than any worker offers (an
//  agent offers at most 65536), so a demand past it, which no worker can
//  hold, is recorded as it and still fits none
#define S_PROCS_MAX     ((1u << 28) - 1)

//  The most running tasks a worker waits to see free, after give-backs in
//  a row, before it holds an offer ahead again
#define S_AHEAD_BACKOFF_MAX     256


//  ---------------------------------------------------------------------
//  Records

//  A request, queued or assigned (it becomes its own assignment record);
//  kept at 32 bytes: a million of them are queued at times. A queued one
//  has a group and maybe a reserved worker (found from the worker's side,
//  s_reserved: reservations are few), an assigned one a worker.
typedef struct {
    uint64_t task;              //  task id, the key in self->requests; ids are given in
                                //  increasing order at submit: it is the arrival order
    drover_demand_t *demand;    //  memory and labels demanded (a reference)
    int32_t priority;           //  lower runs first
    uint32_t procs : 28;        //  procs demanded, >= 1, at most S_PROCS_MAX
    uint32_t assigned : 1;      //  assigned to worker; else queued, in group
    uint32_t ahead : 1;         //  assigned: held ahead there, not started: its procs,
                                //  memory not charged (in the worker's ahead_tasks)
    uint32_t preempted : 1;     //  assigned: being stopped for another request
    uint32_t reserving : 1;     //  queued: a worker is reserved for it (s_reserved)
    uint32_t index;             //  queued: in its group's heap (DROVER_IDHEAP_NOWHERE while
                                //  shelved); assigned: in its worker's tasks
    union {
        uint32_t group;         //  queued: handle of its group
        uint32_t worker;        //  assigned: handle of the worker it is assigned to
    };
} s_request_t;

_Static_assert (sizeof (s_request_t) == 32, "a request no longer fits 32 bytes");

//  Where a group is
typedef enum {
    S_GROUP_EMPTY,              //  nothing in its heap (its requests are shelved)
    S_GROUP_QUEUED,             //  in its owner's heap
    S_GROUP_PARKED,             //  no eligible worker could ever hold it: in self->parked
    S_GROUP_BLOCKED,            //  each that could is reserved for others: in self->blocked
    S_GROUP_QUOTA               //  its owner or account is at a running quota: in self->held
} s_group_where_t;

//  The queued requests that demand the same procs, memory and labels
typedef struct {
    uint64_t key;               //  demand serial << 32 | procs, the key in self->groups
    drover_demand_t *demand;    //  memory and labels (its requests hold the references)
    drover_idheap_t *heap;      //  its requests not shelved, in placement order
    uint64_t task;              //  the head request's task, for the groups' order
    int32_t priority;           //  the head request's priority
    uint32_t procs;             //  procs each demands
    uint32_t count;             //  its requests, in the heap or shelved
    uint32_t index;             //  index in its owner's heap, or DROVER_IDHEAP_NOWHERE
    uint32_t parked_at;         //  index in self->parked, self->blocked or self->held
    uint32_t where;             //  s_group_where_t
    uint32_t owner;             //  handle of its owner in self->owner_pool
    int32_t counted;            //  queued: the priority it is counted at in the fair share
} s_group_t;

//  An owner with queued groups: those groups in placement order of their
//  heads; which owner goes next is the fair share's to say
typedef struct {
    uint64_t key;               //  the owner's fair-share handle, the key in self->owner_pool
    drover_idheap_t *heap;      //  its queued groups
} s_owner_t;

//  A distinct procs demand among the queued groups
typedef struct {
    uint64_t procs;             //  procs, the key in self->sizes
    uint32_t count;             //  groups in self->queue demanding it
    uint32_t index;             //  index in self->fewest
} s_size_t;

//  Handles in no order
typedef struct {
    uint32_t *handles;          //  the handles
    size_t count;               //  entries used
    size_t capacity;            //  entries allocated
} s_list_t;

//  A worker: what it offers, what it has taken, whether it may take more
typedef struct {
    uint64_t number;            //  arrival number, the key in self->worker_pool
    char *id;                   //  worker id, the key of self->workers
    uint32_t procs;             //  procs offered
    uint32_t used;              //  procs taken by assigned tasks
    uint64_t mem;               //  memory offered, bytes
    uint64_t mem_used;          //  memory taken by assigned tasks, bytes
    char *label_text;           //  its labels, "\n" turned to NUL, or NULL
    char **labels;              //  pointers into label_text
    size_t nlabels;             //  entries in labels
    int admin;                  //  drover_admin_t
    bool probation;             //  on probation: takes nothing new
    uint64_t probation_until;   //  when probation is due to end, msec since the epoch, 0 unknown
    bool disk_low;              //  free disk under min_disk_free: takes nothing new
    bool settling;              //  registered again with attempts running: takes nothing
                                //  new until assign has counted them (SETTLED)
    drover_stats_t stats;       //  last stats, for WORKER TABLE
    uint32_t *tasks;            //  handles of the requests assigned here, unordered
    uint32_t ntasks;            //  entries in tasks
    uint32_t tasks_capacity;    //  entries allocated in tasks
    uint32_t index;             //  index in self->eligible, or DROVER_IDHEAP_NOWHERE
    drover_device_t *devices;   //  its counted devices, by name, or NULL
    uint32_t *devices_used;     //  of each, how many its tasks hold
    uint32_t ndevices;          //  entries in devices and devices_used
    bool counted;               //  its capacity counts in the fair share (usable)
    uint32_t reserved;          //  handle of the request it is reserved for, or 0
    uint64_t lease;             //  id of the lease lending its capacity to assign, or 0
    uint32_t lease_procs;       //  procs the lease still holds (counted in used)
    uint64_t lease_mem;         //  memory the lease still holds (counted in mem_used)
    bool lease_revoked;         //  told to revoke it: waiting for its RETURN
    bool lease_void;            //  changed since the lease was made: revoke it
    uint32_t ahead;             //  offers it may hold beyond its free procs, 0 none
    uint32_t *ahead_tasks;      //  handles of its requests held ahead, oldest first
    size_t nahead;              //  entries in ahead_tasks
    size_t ahead_capacity;      //  entries allocated in ahead_tasks
    uint32_t ahead_blocked;     //  running tasks to free before it holds ahead again
    uint32_t ahead_backoff;     //  what the next give-back blocks it for, 1 doubling
    uint32_t open_at;           //  index in self->ahead_open, or DROVER_IDHEAP_NOWHERE
    uint32_t holding_at;        //  index in self->ahead_holding, or DROVER_IDHEAP_NOWHERE
    void *handle;               //  its node in self->order
} s_worker_t;

struct _drover_schedq_t {
    drover_slab_t *requests;  //  task id -> s_request_t, queued or assigned
    drover_slab_t *groups;    //  group key -> s_group_t
    drover_slab_t *sizes;     //  procs -> s_size_t, for the queued requests
    drover_slab_t *worker_pool;   //  arrival number -> s_worker_t
    zhashx_t *workers;          //  worker id -> worker handle (a number, not owned)
    drover_demands_t *demands;  //  what requests demand, and the label index
    zlistx_t *order;            //  worker handles in order of arrival, for iteration
    drover_slab_t *owner_pool;  //  fair-share owner handle -> s_owner_t
    s_list_t owners;            //  every owner record made, for walks
    size_t queued_groups;       //  groups queued (in their owners' heaps)
    drover_fairshare_t *fairshare;  //  usage, shares, quotas: which owner goes next
    uint32_t nobody;            //  fair-share handle of the owner of nobody's requests
    s_list_t held;              //  groups whose owner or account is at a running quota
    uint64_t capacity [2];      //  procs and memory of the usable workers
    drover_device_t capacity_devices [DROVER_DEVICES_MAX];   //  their devices, by name
    size_t ncapacity_devices;   //  entries in capacity_devices
    drover_idheap_t *fewest;    //  distinct procs demands of the groups queued, fewest first
    drover_idheap_t *eligible;  //  eligible unreserved workers, most free procs first
    uint32_t *shelf;            //  requests set aside during a pass
    size_t shelved;             //  entries in shelf
    size_t shelf_capacity;      //  entries allocated in shelf
    s_list_t parked;            //  groups no eligible worker could hold
    s_list_t blocked;           //  groups whose workers are all reserved for others
    uint32_t *reservations;     //  reserved workers, unordered
    size_t nreservations;       //  entries in reservations
    size_t reservations_capacity;   //  entries allocated in reservations
    s_list_t leased;            //  workers whose capacity is lent to assign
    s_list_t ahead_open;        //  workers with room to hold one more request ahead
    s_list_t ahead_holding;     //  workers holding requests ahead
    uint64_t lease_numbers;     //  leases made so far, the last lease id
    uint32_t max_leases;        //  leases out at once, at most; 0 lends nothing
    bool waiting_outside;       //  requests wait outside the queue (affinity): lend
                                //  nothing, call every lease back
    size_t queued;              //  requests queued
    uint32_t max_shelve;        //  most unfit requests one pass looks past
    uint32_t preempt_max;       //  tasks one pass may stop to make room; 0: preemption off
    uint32_t preempt_left;      //  of them, left in this pass
    drover_schedq_preempt_fn *preempt_fn;   //  told each task to stop
    void *preempt_arg;          //  its argument
    size_t preemptible;         //  assigned requests that are preemptible
    uint64_t min_disk_free;     //  bytes free under which a worker takes nothing new, 0 = none
    uint64_t worker_numbers;    //  workers added so far
    const drover_pooltype_t *pooltypes; //  the elastic pool's instance types, borrowed, or NULL
    size_t npooltypes;          //  entries in pooltypes
};


//  ---------------------------------------------------------------------
//  Helpers of the records (inline: the pass calls them per placement)

//  Procs a worker has free
static inline uint32_t
s_free_procs (const s_worker_t *worker)
{
    return worker->used < worker->procs? worker->procs - worker->used: 0;
}

//  Memory a worker has free, bytes
static inline uint64_t
s_free_mem (const s_worker_t *worker)
{
    return worker->mem_used < worker->mem? worker->mem - worker->mem_used: 0;
}

//  Return a request by handle; valid until the next push
static inline s_request_t *
s_request (drover_schedq_t *self, uint32_t handle)
{
    return (s_request_t *) drover_slab_get (self->requests, handle);
}

//  Return a worker by handle; valid until the next worker is added
static inline s_worker_t *
s_worker (drover_schedq_t *self, uint32_t handle)
{
    return (s_worker_t *) drover_slab_get (self->worker_pool, handle);
}

//  Find a worker by id, or NULL; sets *handle_p if given
static inline s_worker_t *
s_worker_find (drover_schedq_t *self, const char *id, uint32_t *handle_p)
{
    uint32_t handle = id? (uint32_t) (uintptr_t) zhashx_lookup (self->workers, id): 0;
    if (handle_p)
        *handle_p = handle;
    return handle? s_worker (self, handle): NULL;
}

//  Return a group by handle; valid until the next group is made
static inline s_group_t *
s_group (drover_schedq_t *self, uint32_t handle)
{
    return (s_group_t *) drover_slab_get (self->groups, handle);
}

//  Return an owner record by handle; valid until the next owner is made
static inline s_owner_t *
s_owner (drover_schedq_t *self, uint32_t handle)
{
    return (s_owner_t *) drover_slab_get (self->owner_pool, handle);
}

//  Return true if a worker has, of each device a demand asks, that many
//  free (or, if total, that many at all); inline: a pass calls it per
//  placement, and most demands ask for none
static inline bool
s_devices_fit (const s_worker_t *worker, const drover_demand_t *demand, bool total)
{
    for (size_t wanted = 0; wanted < demand->ndevices; wanted++) {
        uint32_t have = 0;
        for (uint32_t index = 0; index < worker->ndevices; index++)
            if (streq (worker->devices [index].name, demand->devices [wanted].name)) {
                have = worker->devices [index].count;
                if (!total)
                    have = have > worker->devices_used [index]?
                           have - worker->devices_used [index]: 0;
                break;
            }
        if (have < demand->devices [wanted].count)
            return false;
    }
    return true;
}

//  Count a demand's devices as held on a worker (sign 1) or no longer (-1)
static void
s_devices_take (s_worker_t *worker, const drover_demand_t *demand, int sign)
{
    for (size_t wanted = 0; wanted < demand->ndevices; wanted++)
        for (uint32_t index = 0; index < worker->ndevices; index++)
            if (streq (worker->devices [index].name, demand->devices [wanted].name)) {
                uint32_t count = demand->devices [wanted].count;
                if (sign > 0)
                    worker->devices_used [index] += count;
                else
                    worker->devices_used [index] -= count < worker->devices_used [index]?
                                                    count: worker->devices_used [index];
                break;
            }
}

//  Free what a worker owns (not its record)
static inline void
s_worker_clear (s_worker_t *worker)
{
    free (worker->devices);
    free (worker->devices_used);
    free (worker->tasks);
    free (worker->ahead_tasks);
    free (worker->labels);
    free (worker->label_text);
    free (worker->id);
}

//  Return true if a worker may take new work: admin RUN, not on
//  probation, enough free disk, what it runs counted
static inline bool
s_usable (const s_worker_t *worker)
{
    return worker->admin == DROVER_ADMIN_RUN && !worker->probation && !worker->disk_low
        && !worker->settling;
}

//  Return true if a worker could ever hold a group's requests: usable,
//  big enough in all, with every label they require
static inline bool
s_could_hold (const s_worker_t *worker, uint32_t procs, const drover_demand_t *demand)
{
    return s_usable (worker) && worker->procs >= procs && worker->mem >= demand->mem
        && drover_labels_match (worker->labels, worker->nlabels, demand)
        && s_devices_fit (worker, demand, true);
}

static void s_capacity_count (drover_schedq_t *self, s_worker_t *worker, bool counted);

//  Put a worker in the eligible heap (usable, not reserved, not lent), take it
//  out, or reorder it, after anything about it changed
static inline void
s_worker_refresh (drover_schedq_t *self, uint32_t handle)
{
    s_worker_t *worker = s_worker (self, handle);
    if (s_usable (worker) != worker->counted)
        s_capacity_count (self, worker, s_usable (worker));
    bool eligible = s_usable (worker) && !worker->reserved && !worker->lease;
    if (eligible && worker->index == DROVER_IDHEAP_NOWHERE)
        drover_idheap_push (self->eligible, handle);
    else
    if (!eligible && worker->index != DROVER_IDHEAP_NOWHERE)
        drover_idheap_remove (self->eligible, handle);
    else
    if (eligible)
        drover_idheap_fix (self->eligible, handle);
}

static void s_release (drover_schedq_t *self, uint32_t worker_handle);
static void s_drop_lease (drover_schedq_t *self, uint32_t worker_handle);
static void s_list_add (s_list_t *list, uint32_t handle);
static void s_ahead_drop (drover_schedq_t *self, s_worker_t *worker, uint32_t handle);
static void s_ahead_start (drover_schedq_t *self, s_worker_t *worker);
static void s_ahead_returned (s_worker_t *worker);
static void s_ahead_recount (drover_schedq_t *self, uint32_t worker_handle);

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
        && drover_labels_match (worker->labels, worker->nlabels, request->demand)
        && s_devices_fit (worker, request->demand, false);
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

//  Take a group out of the queue (its procs no longer counted, its owner
//  no longer waiting for it)
static void
s_group_unqueue (drover_schedq_t *self, uint32_t handle)
{
    s_group_t *group = s_group (self, handle);
    assert (group->where == S_GROUP_QUEUED);
    s_owner_t *owner = s_owner (self, group->owner);
    drover_idheap_remove (owner->heap, handle);
    drover_fairshare_wait (self->fairshare, (uint32_t) owner->key, group->counted, -1);
    self->queued_groups--;
    s_size_drop (self, group->procs);
    group->where = S_GROUP_EMPTY;
}

//  Put a group in the queue: in its owner's heap, its owner waiting at its
//  head's priority
static void
s_group_queue (drover_schedq_t *self, uint32_t handle)
{
    s_group_t *group = s_group (self, handle);
    s_owner_t *owner = s_owner (self, group->owner);
    drover_idheap_push (owner->heap, handle);
    group->counted = group->priority;
    drover_fairshare_wait (self->fairshare, (uint32_t) owner->key, group->counted, 1);
    self->queued_groups++;
    s_size_add (self, group->procs);
    group->where = S_GROUP_QUEUED;
}

//  Return the list a group set aside is on
static inline s_list_t *
s_aside_list (drover_schedq_t *self, uint32_t where)
{
    return where == S_GROUP_PARKED? &self->parked:
           where == S_GROUP_BLOCKED? &self->blocked: &self->held;
}

//  Take a parked, blocked or held group off its list
static void
s_group_unpark (drover_schedq_t *self, uint32_t handle)
{
    s_group_t *group = s_group (self, handle);
    assert (group->where == S_GROUP_PARKED || group->where == S_GROUP_BLOCKED
         || group->where == S_GROUP_QUOTA);
    s_list_t *list = s_aside_list (self, group->where);
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
    if (group->where == S_GROUP_QUEUED) {
        s_owner_t *owner = s_owner (self, group->owner);
        drover_idheap_fix (owner->heap, handle);
        if (group->counted != group->priority) {
            uint32_t key = (uint32_t) owner->key;
            drover_fairshare_wait (self->fairshare, key, group->counted, -1);
            group->counted = group->priority;
            drover_fairshare_wait (self->fairshare, key, group->counted, 1);
        }
    }
    else
    if (group->where == S_GROUP_EMPTY && head)
        s_group_queue (self, handle);
    if (group->count == 0) {
        if (group->where != S_GROUP_EMPTY)
            s_group_unpark (self, handle);
        drover_idheap_destroy (&group->heap);
        drover_slab_delete (self->groups, handle);
    }
}

//  Return the record of an owner by its fair-share handle, made if new
static uint32_t
s_owner_record (drover_schedq_t *self, uint32_t key)
{
    uint32_t handle = drover_slab_find (self->owner_pool, key);
    if (!handle) {
        handle = drover_slab_insert (self->owner_pool, key);
        s_owner (self, handle)->heap = drover_idheap_new (self->groups, s_group_less,
                                                          offsetof (s_group_t, index));
        s_list_add (&self->owners, handle);
    }
    return handle;
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
        group->owner = s_owner_record (self, request->demand->owner);
    }
    s_group_t *group = s_group (self, group_handle);
    request->group = group_handle;
    drover_idheap_push (group->heap, handle);
    group->count++;
    self->queued++;
    if (request->demand->owner)     //  SHARE TABLE's queued: in the queue, however held
        drover_fairshare_add_queued (self->fairshare, request->demand->owner, 1);
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
    if (request->demand->owner)
        drover_fairshare_add_queued (self->fairshare, request->demand->owner, -1);
    request->group = 0;
    s_group_settle (self, group_handle);
}

//  Forget a request
static void
s_forget (drover_schedq_t *self, uint32_t handle)
{
    s_request_t *request = s_request (self, handle);
    if (request->assigned && (request->demand->flags & DROVER_SUBMIT_PREEMPTIBLE))
        self->preemptible--;
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
static void
s_list_add (s_list_t *list, uint32_t handle)
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
    s_list_t *list = s_aside_list (self, where);
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

//  An owner's task ended (owner 0: quotas changed): wake the groups held
//  at a running quota of that owner's account (0: all of them); the next
//  pass checks them again
static void
s_wake_held (drover_schedq_t *self, uint32_t owner)
{
    if (!self->held.count)
        return;
    uint32_t account = owner? drover_fairshare_account_of (self->fairshare, owner): 0;
    size_t index = self->held.count;
    while (index-- > 0) {
        uint32_t handle = self->held.handles [index];
        s_group_t *group = s_group (self, handle);
        if (!account || drover_fairshare_account_of (self->fairshare,
                                                     group->demand->owner) == account) {
            s_group_unpark (self, handle);
            s_group_settle (self, handle);
        }
    }
}

//  A worker came up, changed, or became usable again: wake the groups
//  parked or blocked that it could hold
static void
s_wake (drover_schedq_t *self, uint32_t worker_handle)
{
    s_wake_list (self, &self->parked, worker_handle);
    s_wake_list (self, &self->blocked, worker_handle);
}

//  Return the worker reserved for a queued request, or 0: the request
//  only says whether it has one, the few reserved workers say for whom
static uint32_t
s_reserved (drover_schedq_t *self, uint32_t request_handle)
{
    if (!s_request (self, request_handle)->reserving)
        return 0;
    for (size_t index = 0; index < self->nreservations; index++)
        if (s_worker (self, self->reservations [index])->reserved == request_handle)
            return self->reservations [index];
    assert (false);             //  a reserving request's worker is among them
    return 0;
}

//  Reserve a worker for a queued request: it leaves the eligible heap. A
//  worker reserved for another request (ranked after it) changes hands.
static void
s_reserve (drover_schedq_t *self, uint32_t worker_handle, uint32_t request_handle)
{
    s_worker_t *worker = s_worker (self, worker_handle);
    if (worker->reserved)
        s_request (self, worker->reserved)->reserving = 0;
    else
        s_append (&self->reservations, &self->nreservations, &self->reservations_capacity,
                  worker_handle);
    worker->reserved = request_handle;
    s_request (self, request_handle)->reserving = 1;
    s_worker_refresh (self, worker_handle);
}

//  End a worker's reservation, if it has one; it is eligible again if usable
static void
s_release (drover_schedq_t *self, uint32_t worker_handle)
{
    s_worker_t *worker = s_worker (self, worker_handle);
    if (!worker->reserved)
        return;
    s_request (self, worker->reserved)->reserving = 0;
    worker->reserved = 0;
    for (size_t index = 0; index < self->nreservations; index++)
        if (self->reservations [index] == worker_handle) {
            self->reservations [index] = self->reservations [--self->nreservations];
            break;
        }
    s_worker_refresh (self, worker_handle);
    s_wake_list (self, &self->blocked, worker_handle);
}

//  After a change to whether a worker may take new work: end its
//  reservation if it may not, rank it again and wake what it could hold
static void
s_worker_changed (drover_schedq_t *self, uint32_t handle)
{
    if (!s_usable (s_worker (self, handle)))
        s_release (self, handle);
    s_worker_refresh (self, handle);
    s_wake (self, handle);
}

//  What s_each_waiting calls for a group: its handle and the walk's arg
typedef void (s_visit_fn) (drover_schedq_t *self, uint32_t handle, void *arg);

//  Call visit for each group waiting: between passes every group is
//  queued, parked or blocked
static void
s_each_waiting (drover_schedq_t *self, s_visit_fn *visit, void *arg)
{
    for (size_t owner = 0; owner < self->owners.count; owner++) {
        drover_idheap_t *heap = s_owner (self, self->owners.handles [owner])->heap;
        for (size_t index = 0; index < drover_idheap_size (heap); index++)
            visit (self, drover_idheap_at (heap, index), arg);
    }
    for (size_t index = 0; index < self->parked.count; index++)
        visit (self, self->parked.handles [index], arg);
    for (size_t index = 0; index < self->blocked.count; index++)
        visit (self, self->blocked.handles [index], arg);
    for (size_t index = 0; index < self->held.count; index++)
        visit (self, self->held.handles [index], arg);
}

//  ---------------------------------------------------------------------
//  Construction

//  Destroy a group's heap of requests (on destroying the queue)
static void
s_group_heap_destroy (drover_schedq_t *self, uint32_t handle, void *arg)
{
    (void) arg;
    drover_idheap_destroy (&s_group (self, handle)->heap);
}

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
    self->owner_pool = drover_slab_new (sizeof (s_owner_t));
    self->fairshare = drover_fairshare_new ();
    self->nobody = drover_fairshare_owner (self->fairshare, DROVER_SCHEDQ_NOBODY);
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
        s_each_waiting (self, s_group_heap_destroy, NULL);
        zhashx_destroy (&self->workers);
        drover_demands_destroy (&self->demands);   //  requests need not unref: all go
        for (size_t index = 0; index < self->owners.count; index++)
            drover_idheap_destroy (&s_owner (self, self->owners.handles [index])->heap);
        drover_slab_destroy (&self->owner_pool);
        drover_fairshare_destroy (&self->fairshare);
        free (self->owners.handles);
        free (self->held.handles);
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
        free (self->ahead_open.handles);
        free (self->ahead_holding.handles);
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



//  A caller's function and its argument, carried through s_each_waiting
typedef struct {
    drover_schedq_demand_fn *demand;    //  the caller's function, for each_demand
    drover_schedq_group_fn *group;      //  the caller's function, for each_group
    void *arg;                  //  its argument
} s_teller_t;

//  Tell the caller's fn a group's demand, if it holds requests
static void
s_tell_demand (drover_schedq_t *self, uint32_t handle, void *arg)
{
    s_teller_t *teller = (s_teller_t *) arg;
    s_group_t *group = s_group (self, handle);
    if (group->count)
        teller->demand (group->procs, group->demand->mem, group->demand->given,
                        group->demand->device_text, group->count, teller->arg);
}

//  Tell fn each demand shape counted so far, one proc each
static void
s_tell_shapes (const drover_demand_t **demands, const uint32_t *counts, size_t shapes,
               drover_schedq_demand_fn *fn, void *arg)
{
    for (size_t shape = 0; shape < shapes; shape++)
        fn (1, demands [shape]->mem, demands [shape]->given, demands [shape]->device_text,
            counts [shape], arg);
}

//  Tell the caller's fn the requests held ahead on workers, which wait for
//  procs too, counted by demand (the held are few: DROVER_AHEAD_MAX a
//  worker; their distinct demands fewer). Past S_SHAPES distinct ones the
//  shapes so far are told and counting starts again: a shape may then be
//  told twice, as a held one's may be after the queue's own, and the
//  pool adds them up.
static void
s_tell_held_demand (drover_schedq_t *self, drover_schedq_demand_fn *fn, void *arg)
{
    enum { S_SHAPES = 64 };
    const drover_demand_t *demands [S_SHAPES];
    uint32_t counts [S_SHAPES];
    size_t shapes = 0;
    for (size_t index = 0; index < self->ahead_holding.count; index++) {
        s_worker_t *worker = s_worker (self, self->ahead_holding.handles [index]);
        for (size_t held = 0; held < worker->nahead; held++) {
            const drover_demand_t *demand = s_request (self, worker->ahead_tasks [held])->demand;
            size_t shape = 0;
            while (shape < shapes && demands [shape] != demand)
                shape++;
            if (shape == S_SHAPES) {
                s_tell_shapes (demands, counts, shapes, fn, arg);
                shape = shapes = 0;
            }
            if (shape == shapes) {
                demands [shapes] = demand;
                counts [shapes++] = 0;
            }
            counts [shape]++;
        }
    }
    s_tell_shapes (demands, counts, shapes, fn, arg);
}

//  Call fn for each distinct demand waiting, the requests held ahead among
//  them
void
drover_schedq_each_demand (drover_schedq_t *self, drover_schedq_demand_fn *fn, void *arg)
{
    assert (self && fn);
    s_teller_t teller = { .demand = fn, .arg = arg };
    s_each_waiting (self, s_tell_demand, &teller);
    s_tell_held_demand (self, fn, arg);
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

//  Return the demand of a tenant's request (a reference), or NULL if its
//  devices are not a device list
static drover_demand_t *
s_demand_ref (drover_schedq_t *self, uint64_t mem, const char *labels,
              const drover_schedq_tenant_t *tenant)
{
    drover_demand_tenant_t entry = { self->nobody, NULL, 0 };
    if (tenant) {
        if (tenant->owner && *tenant->owner) {
            uint32_t owner = drover_fairshare_owner (self->fairshare, tenant->owner);
            entry.owner = owner? owner: self->nobody;
        }
        entry.devices = tenant->devices;
        entry.flags = tenant->flags;
    }
    return drover_demands_ref_as (self->demands, mem, labels, &entry);
}

//  Describe what a request uses while it runs, for the fair share; devices
//  is room for DROVER_DEVICES_MAX entries
static void
s_use (const s_request_t *request, drover_fairshare_device_t *devices,
       drover_fairshare_use_t *use)
{
    const drover_demand_t *demand = request->demand;
    for (size_t index = 0; index < demand->ndevices; index++)
        devices [index] = (drover_fairshare_device_t) {
            demand->devices [index].name, demand->devices [index].count };
    *use = (drover_fairshare_use_t) { request->procs, demand->mem, devices, demand->ndevices };
}

//  Count a request's use in its owner's and account's (sign 1: it runs
//  now; -1: it ended)
static void
s_account (drover_schedq_t *self, const s_request_t *request, int sign)
{
    drover_fairshare_device_t devices [DROVER_DEVICES_MAX];
    drover_fairshare_use_t use;
    s_use (request, devices, &use);
    if (sign > 0)
        drover_fairshare_place (self->fairshare, request->demand->owner, &use);
    else
        drover_fairshare_free (self->fairshare, request->demand->owner, &use);
}

//  Queue a request of nobody in particular
int
drover_schedq_push (drover_schedq_t *self, uint64_t task, int32_t priority,
                   uint32_t procs, uint64_t mem, const char *labels)
{
    return drover_schedq_push_as (self, task, priority, procs, mem, labels, NULL);
}

//  Queue a request of a tenant
int
drover_schedq_push_as (drover_schedq_t *self, uint64_t task, int32_t priority,
                      uint32_t procs, uint64_t mem, const char *labels,
                      const drover_schedq_tenant_t *tenant)
{
    assert (self);
    if (procs == 0)
        return -1;              //  nothing to place
    drover_demand_t *demand = s_demand_ref (self, mem, labels, tenant);
    if (!demand)
        return -1;              //  not a device list
    uint32_t handle = drover_slab_insert (self->requests, task);
    if (!handle) {
        drover_demands_unref (self->demands, demand);
        return -1;              //  already queued or assigned
    }
    s_request_t *request = s_request (self, handle);
    request->priority = priority;
    request->procs = procs < S_PROCS_MAX? procs: S_PROCS_MAX;
    request->demand = demand;
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
    if (!handle || s_request (self, handle)->assigned)
        return -1;              //  not queued
    if (s_request (self, handle)->reserving)
        s_release (self, s_reserved (self, handle));
    s_dequeue (self, handle);
    s_forget (self, handle);
    return 0;
}

//  End an assigned task's attempt: give back what it holds (one held
//  ahead holds no procs), count it out of the fair share, take it off its
//  worker. The procs a running one frees start the worker's held ones;
//  one given back unstarted (returned) keeps the worker from holding more.
//  Returns the worker's id, or NULL if the task held none.
static const char *
s_end (drover_schedq_t *self, uint64_t task, bool returned)
{
    uint32_t handle = drover_slab_find (self->requests, task);
    s_request_t *request = handle? s_request (self, handle): NULL;
    if (!request || !request->assigned)
        return NULL;            //  holds nothing
    uint32_t worker_handle = request->worker;
    s_worker_t *worker = s_worker (self, worker_handle);
    bool held = request->ahead;
    if (held)
        s_ahead_drop (self, worker, handle);
    else {
        worker->used -= request->procs;
        worker->mem_used -= request->demand->mem;
        s_devices_take (worker, request->demand, -1);
    }
    s_account (self, request, -1);
    s_wake_held (self, request->demand->owner);
    //  The last task takes its slot
    uint32_t last = worker->tasks [--worker->ntasks];
    worker->tasks [request->index] = last;
    s_request (self, last)->index = request->index;
    s_forget (self, handle);
    if (!held)
        s_ahead_start (self, worker);
    if (returned)
        s_ahead_returned (worker);
    s_ahead_recount (self, worker_handle);
    s_worker_refresh (self, worker_handle);
    return worker->id;
}

//  Give back an assigned task's procs and memory
const char *
drover_schedq_free (drover_schedq_t *self, uint64_t task)
{
    assert (self);
    return s_end (self, task, false);
}

//  Free a task its worker gave back unstarted, and hold nothing more ahead
//  there until a running task frees
const char *
drover_schedq_give_back (drover_schedq_t *self, uint64_t task)
{
    assert (self);
    return s_end (self, task, true);
}

//  Return true if the task is held ahead on its worker
bool
drover_schedq_held_ahead (drover_schedq_t *self, uint64_t task)
{
    assert (self);
    uint32_t handle = drover_slab_find (self->requests, task);
    return handle && s_request (self, handle)->ahead;
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
    if (top && request->demand->mem == 0 && request->demand->ndevices == 0
    &&  s_worker (self, top)->procs >= request->procs) {
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
    if (request->reserving)
        return false;
    for (size_t index = 0; index < self->nreservations; index++) {
        s_worker_t *worker = s_worker (self, self->reservations [index]);
        if (s_request_less (request, s_request (self, worker->reserved)))
            return true;
    }
    return false;
}

//  Record a request as assigned to a worker
static void
s_attach (drover_schedq_t *self, uint32_t handle, uint32_t target)
{
    s_request_t *request = s_request (self, handle);
    s_worker_t *worker = s_worker (self, target);
    if (worker->ntasks == worker->tasks_capacity) {
        worker->tasks_capacity = worker->tasks_capacity? worker->tasks_capacity * 2: 16;
        worker->tasks = (uint32_t *) realloc (worker->tasks,
                                              worker->tasks_capacity * sizeof (uint32_t));
        assert (worker->tasks);
    }
    request->assigned = 1;
    request->worker = target;
    request->index = worker->ntasks;
    worker->tasks [worker->ntasks++] = handle;
    if (request->demand->flags & DROVER_SUBMIT_PREEMPTIBLE)
        self->preemptible++;
}

//  Record a task as assigned to a worker at once, without a pass: its
//  devices held there and its use counted in the fair share
static uint32_t
s_attach_new (drover_schedq_t *self, uint64_t task, uint32_t procs, uint64_t mem,
              const char *labels, const drover_schedq_tenant_t *tenant, uint32_t target)
{
    if (drover_slab_find (self->requests, task))
        return 0;               //  already queued or assigned
    drover_demand_t *demand = s_demand_ref (self, mem, labels, tenant);
    if (!demand)
        return 0;               //  not a device list
    uint32_t handle = drover_slab_insert (self->requests, task);
    s_request_t *request = s_request (self, handle);
    request->procs = procs < S_PROCS_MAX? procs: S_PROCS_MAX;
    request->demand = demand;
    s_attach (self, handle, target);
    s_devices_take (s_worker (self, target), demand, 1);
    s_account (self, request, 1);
    return handle;
}

//  Place a queued request on a worker, ending its reservation if it had one
static void
s_assign (drover_schedq_t *self, uint32_t handle, uint32_t target)
{
    if (s_request (self, handle)->reserving)
        s_release (self, s_reserved (self, handle));
    s_dequeue (self, handle);
    s_attach (self, handle, target);
    s_request_t *request = s_request (self, handle);
    s_worker_t *worker = s_worker (self, target);
    worker->used += request->procs;
    worker->mem_used += request->demand->mem;
    s_devices_take (worker, request->demand, 1);
    s_account (self, request, 1);
    s_worker_refresh (self, target);
}

//  Return true if a request may start within the running quotas of its
//  owner and its account
static inline bool
s_within_quota (drover_schedq_t *self, const s_request_t *request)
{
    drover_fairshare_device_t devices [DROVER_DEVICES_MAX];
    drover_fairshare_use_t use;
    s_use (request, devices, &use);
    return drover_fairshare_check (self->fairshare, request->demand->owner, &use, NULL) == 0;
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

//  Describe a worker's free devices into free [DROVER_DEVICES_MAX]
static size_t
s_free_devices (const s_worker_t *worker, drover_device_t *free_devices)
{
    size_t count = 0;
    for (uint32_t index = 0; index < worker->ndevices && count < DROVER_DEVICES_MAX; index++) {
        free_devices [count] = worker->devices [index];
        uint32_t used = worker->devices_used [index];
        free_devices [count++].count = worker->devices [index].count > used?
                                       worker->devices [index].count - used: 0;
    }
    return count;
}

//  Return true if an owner's account is above its fair share; sets
//  *account_p to its account
static bool
s_above (drover_schedq_t *self, uint32_t owner, uint32_t *account_p, bool *below_p)
{
    drover_fairshare_standing_t standing;
    *account_p = drover_fairshare_account_of (self->fairshare, owner);
    if (drover_fairshare_standing (self->fairshare, owner, &standing)) {
        *below_p = false;
        return false;
    }
    *below_p = standing.account_permille < standing.fair_permille;
    return standing.above;
}

//  Choose on one worker the tasks to stop for a request (drover_victims);
//  returns how many, their handles in chosen (room for preempt_left)
static size_t
s_victims_on (drover_schedq_t *self, s_worker_t *worker, drover_victims_need_t *need,
              uint32_t *chosen)
{
    drover_device_t free_devices [DROVER_DEVICES_MAX];
    need->free_procs = s_free_procs (worker);
    need->free_mem = s_free_mem (worker);
    need->free_devices.devices = free_devices;
    need->free_devices.ndevices = s_free_devices (worker, free_devices);
    drover_victims_task_t *tasks = (drover_victims_task_t *)
        malloc ((worker->ntasks? worker->ntasks: 1) * sizeof (drover_victims_task_t));
    uint32_t *handles = (uint32_t *) malloc ((worker->ntasks? worker->ntasks: 1) * sizeof (uint32_t));
    size_t *picked = (size_t *) malloc (self->preempt_left * sizeof (size_t));
    assert (tasks && handles && picked);
    size_t count = 0;
    for (uint32_t slot = 0; slot < worker->ntasks; slot++) {
        s_request_t *task = s_request (self, worker->tasks [slot]);
        if (!(task->demand->flags & DROVER_SUBMIT_PREEMPTIBLE) || task->preempted
        ||  task->ahead)
            continue;           //  never stopped, being stopped already, or not started
        bool below;
        drover_victims_task_t *entry = &tasks [count];
        *entry = (drover_victims_task_t) {
            .task = task->task, .priority = task->priority, .preemptible = true,
            .procs = task->procs, .mem = task->demand->mem,
            .devices = { task->demand->devices, task->demand->ndevices } };
        entry->above_share = s_above (self, task->demand->owner, &entry->account, &below);
        handles [count++] = worker->tasks [slot];
    }
    size_t nchosen = drover_victims_choose (need, tasks, count, self->preempt_left, picked);
    for (size_t index = 0; index < nchosen; index++)
        chosen [index] = handles [picked [index]];
    free (picked);
    free (handles);
    free (tasks);
    return nchosen;
}

//  Stop preemptible tasks of others on one worker to make room for a
//  request that cannot be placed, if that is justified (drover_victims):
//  the worker with the fewest to stop, reserved for the request. Returns
//  true if it did. Only while preemptible tasks run: a look at every
//  worker and its tasks.
static bool
s_preempt (drover_schedq_t *self, uint32_t handle)
{
    if (!self->preempt_left || !self->preemptible || !self->preempt_fn)
        return false;
    s_request_t *request = s_request (self, handle);
    drover_victims_need_t need = {
        .priority = request->priority, .procs = request->procs, .mem = request->demand->mem,
        .devices = { request->demand->devices, request->demand->ndevices } };
    s_above (self, request->demand->owner, &need.account, &need.below_share);
    uint32_t *chosen = (uint32_t *) malloc (self->preempt_left * sizeof (uint32_t));
    uint32_t *best = (uint32_t *) malloc (self->preempt_left * sizeof (uint32_t));
    assert (chosen && best);
    uint32_t target = 0;
    size_t nbest = 0;
    for (void *item = zlistx_first (self->order); item; item = zlistx_next (self->order)) {
        uint32_t worker_handle = (uint32_t) (uintptr_t) item;
        s_worker_t *worker = s_worker (self, worker_handle);
        if (worker->reserved || worker->lease
        ||  !s_could_hold (worker, request->procs, request->demand))
            continue;
        size_t count = s_victims_on (self, worker, &need, chosen);
        if (count && (!target || count < nbest)) {
            target = worker_handle;
            nbest = count;
            memcpy (best, chosen, count * sizeof (uint32_t));
        }
    }
    for (size_t index = 0; index < nbest; index++) {
        s_request_t *victim = s_request (self, best [index]);
        victim->preempted = 1;
        self->preempt_left--;
        self->preempt_fn (victim->task, s_worker (self, target)->id, request->task,
                          self->preempt_arg);
    }
    free (chosen);
    free (best);
    if (!target)
        return false;
    s_reserve (self, target, handle);
    return true;
}

//  Turn preemption on (max tasks stopped per pass, at most) or off (0),
//  telling fn each task to stop
void
drover_schedq_set_preemption (drover_schedq_t *self, uint32_t max, drover_schedq_preempt_fn *fn,
                              void *arg)
{
    assert (self);
    self->preempt_max = fn? max: 0;
    self->preempt_fn = fn;
    self->preempt_arg = arg;
}


//  ---------------------------------------------------------------------
//  Offers held ahead
//
//  A worker granted ahead holds up to that many offers beyond its free
//  procs, in a FIFO, and starts them in the order it got them as soon as
//  each fits its free procs (after it collected a result): offers and
//  results travel on one connection, so the queue can follow it. A held
//  request is assigned there (in its tasks, counted in the fair share as
//  any placed one) but its procs and memory are charged only when a
//  running task there frees and it starts. One given back unstarted
//  (RESULT RETURNED) keeps the worker from holding more until one, then
//  two, four... up to S_AHEAD_BACKOFF_MAX running tasks there free, so
//  that an offer does not go back and forth between busy workers and
//  long tasks seldom give one back; one that starts ends the backoff.
//  Offers are held only while all the waiting work is one owner's at one
//  priority: a held offer is the worker's next start, chosen before its
//  proc frees, and with two owners that early choice would tilt the fair
//  share (a held task counts from when it is sent), with two priorities
//  the order. The workers with room ahead are listed (ahead_open): a pass
//  that finds none pays nothing for it.

//  Keep a worker on a list of workers while member is true, and off it
//  (the last one taking its place) while not; its index there is the
//  uint32_t at offset in its record
static void
s_list_keep (drover_schedq_t *self, s_list_t *list, uint32_t worker_handle, size_t offset,
             bool member)
{
    uint32_t *index = (uint32_t *) ((byte *) s_worker (self, worker_handle) + offset);
    if (member && *index == DROVER_IDHEAP_NOWHERE) {
        *index = (uint32_t) list->count;
        s_list_add (list, worker_handle);
    }
    else
    if (!member && *index != DROVER_IDHEAP_NOWHERE) {
        uint32_t last = list->handles [--list->count];
        list->handles [*index] = last;
        *(uint32_t *) ((byte *) s_worker (self, last) + offset) = *index;
        *index = DROVER_IDHEAP_NOWHERE;
    }
}

//  Keep a worker on self->ahead_open while it may hold one more request
//  ahead (held fewer than granted, not blocked), and on ahead_holding
//  while it holds some, after any of that changed
static void
s_ahead_recount (drover_schedq_t *self, uint32_t worker_handle)
{
    s_worker_t *worker = s_worker (self, worker_handle);
    bool open = worker->nahead < worker->ahead && !worker->ahead_blocked;
    bool holding = worker->nahead > 0;
    s_list_keep (self, &self->ahead_open, worker_handle, offsetof (s_worker_t, open_at), open);
    s_list_keep (self, &self->ahead_holding, worker_handle, offsetof (s_worker_t, holding_at),
                 holding);
}

//  Take a request held ahead off its worker's FIFO, keeping the others'
//  order (a FIFO holds DROVER_AHEAD_MAX at most)
static void
s_ahead_drop (drover_schedq_t *self, s_worker_t *worker, uint32_t handle)
{
    for (size_t index = 0; index < worker->nahead; index++)
        if (worker->ahead_tasks [index] == handle) {
            memmove (worker->ahead_tasks + index, worker->ahead_tasks + index + 1,
                     (worker->nahead - index - 1) * sizeof (uint32_t));
            worker->nahead--;
            break;
        }
    s_request (self, handle)->ahead = 0;
}

//  A running task on a worker ended: its requests held ahead start, oldest
//  first, while its free procs hold them, as the worker starts them, and
//  are charged now; it may hold ahead again
static void
s_ahead_start (drover_schedq_t *self, s_worker_t *worker)
{
    size_t started = 0;
    while (started < worker->nahead) {
        s_request_t *request = s_request (self, worker->ahead_tasks [started]);
        if (request->procs > s_free_procs (worker))
            break;              //  the rest wait for the next to end
        request->ahead = 0;
        worker->used += request->procs;
        worker->mem_used += request->demand->mem;
        started++;
    }
    if (started) {              //  (none held: ahead_tasks may be NULL)
        worker->nahead -= started;
        memmove (worker->ahead_tasks, worker->ahead_tasks + started,
                 worker->nahead * sizeof (uint32_t));
        worker->ahead_backoff = 1;  //  its tasks are short enough to hold for
    }
    if (worker->ahead_blocked)
        worker->ahead_blocked--;
}

//  A worker gave a held offer back unstarted (its running tasks outlasted
//  the hold): it holds nothing ahead until that many of its running tasks
//  have freed, twice as many after each give-back in a row, so that long
//  tasks cost a give-back now and then, not one per task
static void
s_ahead_returned (s_worker_t *worker)
{
    if (worker->ahead_backoff == 0)
        worker->ahead_backoff = 1;
    worker->ahead_blocked = worker->ahead_backoff;
    if (worker->ahead_backoff < S_AHEAD_BACKOFF_MAX)
        worker->ahead_backoff *= 2;
}

//  Let a worker hold offers ahead
int
drover_schedq_set_ahead (drover_schedq_t *self, const char *id, uint32_t ahead)
{
    assert (self);
    uint32_t handle;
    s_worker_t *worker = s_worker_find (self, id, &handle);
    if (!worker)
        return -1;              //  unknown worker
    worker->ahead = ahead < DROVER_AHEAD_MAX? ahead: DROVER_AHEAD_MAX;
    s_ahead_recount (self, handle);
    return 0;
}

//  Return the worker to hold a request ahead, or 0: an eligible one that
//  could hold it, with no free procs (else the pass placed it there), room
//  ahead and the memory it asks free; the one holding the fewest, then as
//  the eligible heap orders them. A scan of the workers with room ahead.
static uint32_t
s_ahead_target (drover_schedq_t *self, const s_request_t *request)
{
    uint32_t best = 0;
    for (size_t index = 0; index < self->ahead_open.count; index++) {
        uint32_t handle = self->ahead_open.handles [index];
        s_worker_t *worker = s_worker (self, handle);
        if (worker->index == DROVER_IDHEAP_NOWHERE || s_free_procs (worker)
        ||  request->demand->mem > s_free_mem (worker)
        ||  !s_could_hold (worker, request->procs, request->demand))
            continue;
        s_worker_t *other = best? s_worker (self, best): NULL;
        if (!other || worker->nahead < other->nahead
        ||  (worker->nahead == other->nahead && s_worker_less (worker, other)))
            best = handle;
    }
    return best;
}

//  Return the head request of the queue (something is queued): the head
//  of the head group of the owner the fair share serves next; sets
//  *group_p to its group
static uint32_t
s_head (drover_schedq_t *self, uint32_t *group_p)
{
    uint32_t owner = drover_slab_find (self->owner_pool,
                                       drover_fairshare_next (self->fairshare, NULL));
    *group_p = drover_idheap_top (s_owner (self, owner)->heap);
    return drover_idheap_top (s_group (self, *group_p)->heap);
}

//  Park the head request's group if its owner or account is at a running
//  quota: it waits, costing passes nothing, until they free. True if so.
static bool
s_parked_at_quota (drover_schedq_t *self, uint32_t handle, uint32_t group)
{
    s_request_t *request = s_request (self, handle);
    if (s_within_quota (self, request))
        return false;
    if (request->reserving)
        s_release (self, s_reserved (self, handle));
    s_park (self, group, S_GROUP_QUOTA);
    return true;
}

//  After a pass stopped for want of free procs: place head requests held
//  ahead, in the pass's order, and stop at the first that cannot go (more
//  than one proc, devices, a reservation, or no worker). Returns how many.
static int
s_ahead_pass (drover_schedq_t *self, drover_schedq_assign_fn *fn, void *arg)
{
    int placed = 0;
    while (self->ahead_open.count && self->queued_groups
    &&     drover_fairshare_one_waiting (self->fairshare)) {
        uint32_t group;
        uint32_t handle = s_head (self, &group);
        if (s_parked_at_quota (self, handle, group))
            continue;
        s_request_t *request = s_request (self, handle);
        if (request->procs != 1 || request->demand->ndevices || request->reserving)
            break;              //  it waits for procs to free
        uint32_t target = s_ahead_target (self, request);
        if (!target)
            break;              //  no worker may hold it ahead
        s_dequeue (self, handle);
        s_attach (self, handle, target);
        request = s_request (self, handle);
        request->ahead = 1;
        s_worker_t *worker = s_worker (self, target);
        s_append (&worker->ahead_tasks, &worker->nahead, &worker->ahead_capacity, handle);
        s_account (self, request, 1);
        s_ahead_recount (self, target);
        if (fn)
            fn (request->task, worker->id, arg);
        placed++;
    }
    return placed;
}


//  ---------------------------------------------------------------------
//  The pass, continued

//  Run one scheduling pass; fn must not change the queue
int
drover_schedq_run (drover_schedq_t *self, drover_schedq_assign_fn *fn, void *arg)
{
    assert (self);
    int placed = 0;
    self->preempt_left = self->preempt_max;
    //  Requests whose reserved worker has room for them now take it
    for (size_t index = 0; index < self->nreservations; ) {
        uint32_t target = self->reservations [index];
        uint32_t handle = s_worker (self, target)->reserved;
        if (!s_within_quota (self, s_request (self, handle)))
            s_release (self, target);       //  its group is held in the loop below
        else
        if (s_fits (s_worker (self, target), s_request (self, handle))) {
            s_place (self, handle, target, fn, arg);    //  ends the reservation: index
            placed++;                                   //  now holds another one
        }
        else
            index++;
    }
    uint32_t looked = 0;        //  requests looked past: reservations made
    bool full = false;          //  stopped for want of free procs
    while (self->queued_groups) {
        uint32_t top = drover_idheap_top (self->eligible);
        uint32_t room = top? s_free_procs (s_worker (self, top)): 0;
        s_size_t *fewest = (s_size_t *) drover_slab_get (self->sizes, drover_idheap_top (self->fewest));
        //  The owner the fair share serves next, and its head group
        uint32_t group;
        uint32_t handle = s_head (self, &group);
        if (s_parked_at_quota (self, handle, group))
            continue;
        s_request_t *request = s_request (self, handle);
        //  When the least loaded worker is full (all are), or nothing still
        //  queued fits it, nothing can be placed: go on only while the head
        //  could take over a reservation made for a request ranked after it
        if ((room == 0 || fewest->procs > room) && !s_outranks (self, request)) {
            if (!request->reserving && s_preempt (self, handle)) {
                s_shelve (self, handle);    //  it waits for what it stopped to end
                continue;
            }
            full = true;
            break;
        }
        uint32_t target = 0;
        if (request->procs <= room)
            target = s_fits (s_worker (self, top), request)? top: s_best_fit (self, request);
        if (target) {
            s_place (self, handle, target, fn, arg);
            placed++;
            continue;
        }
        if (request->reserving) {
            s_shelve (self, handle);    //  it waits for its worker to empty
            continue;
        }
        if (s_preempt (self, handle)) {
            s_shelve (self, handle);
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
    //  What is shelved (reserving) stays aside: the rest may go ahead
    if (full)
        placed += s_ahead_pass (self, fn, arg);
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
    return handle && !s_request (self, handle)->assigned;
}

//  Start loading a task's slot in the requests' index
void
drover_schedq_prefetch (drover_schedq_t *self, uint64_t task)
{
    assert (self);
    drover_slab_prefetch (self->requests, task);
}

//  Return the worker a task is assigned to, or NULL
const char *
drover_schedq_assigned (drover_schedq_t *self, uint64_t task)
{
    assert (self);
    uint32_t handle = drover_slab_find (self->requests, task);
    s_request_t *request = handle? s_request (self, handle): NULL;
    return request && request->assigned? s_worker (self, request->worker)->id: NULL;
}

//  Return how many requests are queued
size_t
drover_schedq_size (drover_schedq_t *self)
{
    assert (self);
    return self->queued;
}


//  ---------------------------------------------------------------------
//  Workers
//
//  Each change puts the worker in or out of the eligible heap, ends a
//  reservation it can no longer keep, and wakes the groups it could now
//  hold.

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
        if (worker->counted)
            s_capacity_count (self, worker, false);     //  counted again as it is now
        s_release (self, handle);    //  it may no longer suit; the next pass sees
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
        worker->open_at = DROVER_IDHEAP_NOWHERE;
        worker->holding_at = DROVER_IDHEAP_NOWHERE;
        zhashx_insert (self->workers, id, (void *) (uintptr_t) handle);
        worker->handle = zlistx_add_end (self->order, (void *) (uintptr_t) handle);
        rc = 0;
    }
    worker->procs = procs;
    worker->mem = mem;
    drover_labels_parse (labels, &worker->label_text, &worker->labels, &worker->nlabels);
    drover_demands_index (self->demands, worker->labels, worker->nlabels, handle);
    s_worker_refresh (self, handle);
    s_wake (self, handle);
    return rc;
}

//  Count a worker's capacity in the cluster's, for the fair share, or no
//  longer (it stopped taking work, changed, or went)
static void
s_capacity_count (drover_schedq_t *self, s_worker_t *worker, bool counted)
{
    worker->counted = counted;
    if (counted) {
        self->capacity [0] += worker->procs;
        self->capacity [1] += worker->mem;
    }
    else {
        self->capacity [0] -= worker->procs;
        self->capacity [1] -= worker->mem;
    }
    drover_fairshare_set_capacity (self->fairshare, self->capacity [0], self->capacity [1]);
    for (uint32_t index = 0; index < worker->ndevices; index++) {
        const drover_device_t *device = &worker->devices [index];
        size_t slot;
        for (slot = 0; slot < self->ncapacity_devices; slot++)
            if (streq (self->capacity_devices [slot].name, device->name))
                break;
        if (slot == self->ncapacity_devices) {
            if (slot == DROVER_DEVICES_MAX)
                continue;       //  no room to count another name
            self->capacity_devices [slot] = (drover_device_t) { .count = 0 };
            strcpy (self->capacity_devices [slot].name, device->name);
            self->ncapacity_devices++;
        }
        drover_device_t *total = &self->capacity_devices [slot];
        total->count = counted? total->count + device->count:
                       total->count > device->count? total->count - device->count: 0;
        drover_fairshare_set_device_capacity (self->fairshare, total->name, total->count);
    }
}

//  Set the devices a worker has ("gpu=4,fpga=1", "" / NULL none), keeping
//  what its tasks hold of those it still has
int
drover_schedq_set_devices (drover_schedq_t *self, const char *id, const char *devices)
{
    assert (self);
    uint32_t handle;
    s_worker_t *worker = s_worker_find (self, id, &handle);
    drover_device_t parsed [DROVER_DEVICES_MAX];
    int count = drover_devicelist_parse (devices, parsed, NULL);
    if (!worker || count < 0)
        return -1;              //  unknown worker, or not a device list
    if (worker->counted)
        s_capacity_count (self, worker, false);
    uint32_t *used = count? (uint32_t *) calloc ((size_t) count, sizeof (uint32_t)): NULL;
    for (int index = 0; index < count; index++)
        for (uint32_t old = 0; old < worker->ndevices; old++)
            if (streq (worker->devices [old].name, parsed [index].name))
                used [index] = worker->devices_used [old];
    free (worker->devices);
    free (worker->devices_used);
    worker->devices = NULL;
    if (count) {
        worker->devices = (drover_device_t *) malloc ((size_t) count * sizeof (drover_device_t));
        assert (worker->devices);
        memcpy (worker->devices, parsed, (size_t) count * sizeof (drover_device_t));
    }
    worker->devices_used = used;
    worker->ndevices = (uint32_t) count;
    s_worker_refresh (self, handle);
    s_wake (self, handle);
    return 0;
}

//  Return how many queued requests a running quota holds now
size_t
drover_schedq_quota_held (drover_schedq_t *self)
{
    assert (self);
    size_t count = 0;
    for (size_t index = 0; index < self->held.count; index++)
        count += s_group (self, self->held.handles [index])->count;
    return count;
}

//  Return how many queued requests of one owner a running quota holds
size_t
drover_schedq_quota_held_of (drover_schedq_t *self, uint32_t owner)
{
    assert (self);
    size_t count = 0;
    for (size_t index = 0; index < self->held.count; index++) {
        s_group_t *group = s_group (self, self->held.handles [index]);
        if (group->demand->owner == owner)
            count += group->count;
    }
    return count;
}

//  Return the fair-share table: the caller sets accounts, weights and quotas
drover_fairshare_t *
drover_schedq_fairshare (drover_schedq_t *self)
{
    assert (self);
    return self->fairshare;
}

//  Say that accounts, weights or quotas changed: what waits at a quota is
//  looked at again
void
drover_schedq_shares_changed (drover_schedq_t *self)
{
    assert (self);
    s_wake_held (self, 0);
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
    s_release (self, handle);
    s_drop_lease (self, handle);
    if (worker->index != DROVER_IDHEAP_NOWHERE)
        drover_idheap_remove (self->eligible, handle);
    if (worker->counted)
        s_capacity_count (self, worker, false);
    int count = (int) worker->ntasks;
    for (uint32_t slot = 0; slot < worker->ntasks; slot++) {
        uint32_t request = worker->tasks [slot];
        if (fn)
            fn (s_request (self, request)->task, arg);
        s_account (self, s_request (self, request), -1);
        s_wake_held (self, s_request (self, request)->demand->owner);
        s_forget (self, request);
    }
    worker->nahead = 0;         //  those held ahead went with the rest
    worker->ahead = 0;
    s_ahead_recount (self, handle);
    drover_demands_unindex (self->demands, worker->labels, worker->nlabels, handle);
    zlistx_delete (self->order, worker->handle);
    zhashx_delete (self->workers, id);
    s_worker_clear (worker);
    drover_slab_delete (self->worker_pool, handle);
    return count;
}

//  Record a task of nobody in particular as running on a worker already
int
drover_schedq_place (drover_schedq_t *self, const char *id, uint64_t task, uint32_t procs,
                    uint64_t mem, const char *labels)
{
    return drover_schedq_place_as (self, id, task, procs, mem, labels, NULL);
}

//  Record a task as running on a worker already: an adopted attempt
int
drover_schedq_place_as (drover_schedq_t *self, const char *id, uint64_t task, uint32_t procs,
                       uint64_t mem, const char *labels, const drover_schedq_tenant_t *tenant)
{
    assert (self && procs >= 1);
    uint32_t target;
    if (!s_worker_find (self, id, &target))
        return -1;              //  unknown worker: its LOST is on the way
    if (!s_attach_new (self, task, procs, mem, labels, tenant, target))
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
    s_worker_changed (self, handle);
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
    s_worker_changed (self, handle);
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
    s_worker_changed (self, handle);
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
    s_worker_changed (self, handle);
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
    view->settling = worker->settling;
    view->nlabels = worker->nlabels;
    view->labels = worker->labels;
    view->stats = worker->stats;
    view->tasks = worker->ntasks;
    view->reserved = worker->reserved? s_request (self, worker->reserved)->task: 0;
    view->devices = worker->devices;
    view->devices_used = worker->devices_used;
    view->ndevices = worker->ndevices;
    view->lease = worker->lease;
    view->ahead = worker->ahead;
    view->held = worker->nahead;
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


//  ---------------------------------------------------------------------
//  Leases
//
//  While nothing waits in the queue, the free procs and memory of the
//  least-loaded eligible workers (at most max-leases of them) are lent to
//  assign, one lease per worker, so that a task submitted to an empty
//  queue is offered at once, without the assign -> schedq -> assign round
//  trip. A lent worker is out of the eligible heap: its capacity is
//  counted as used until assign takes from the lease for a task (the task
//  is then assigned there, like a placement) or returns what is left.
//  As soon as anything waits, or a lent worker stops being usable (hold,
//  drain, probation, full disk, a new HELLO), its lease is revoked; what
//  it holds comes back with the RETURN. actors/ACTORS.md, "Leases".

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
static void
s_drop_lease (drover_schedq_t *self, uint32_t worker_handle)
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
            &&  drover_labels_match (worker->labels, worker->nlabels, group->demand)
            &&  s_devices_fit (worker, group->demand, true))
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
    return self->waiting_outside || self->queued_groups || self->blocked.count
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
    bool waiting = s_someone_waits (self) || drover_fairshare_has_quotas (self->fairshare);
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
    if (s_someone_waits (self) || drover_fairshare_has_quotas (self->fairshare))
        return 0;               //  what is free goes to them; a lease would pass quotas
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
        s_list_add (&self->leased, top);
        s_worker_refresh (self, top);   //  out of the eligible heap
        s_tell (self, worker, fn, arg);
        lent++;
    }
    return lent;
}

//  Assign a task of nobody in particular to the worker of a lease
int
drover_schedq_take (drover_schedq_t *self, uint64_t lease, uint64_t task, uint32_t procs,
                   uint64_t mem, const char *labels)
{
    return drover_schedq_take_as (self, lease, task, procs, mem, labels, NULL);
}

//  Assign a task to the worker of a lease, out of what the lease holds
int
drover_schedq_take_as (drover_schedq_t *self, uint64_t lease, uint64_t task, uint32_t procs,
                      uint64_t mem, const char *labels, const drover_schedq_tenant_t *tenant)
{
    assert (self);
    uint32_t target = s_lease_holder (self, lease, NULL);
    if (!target)
        return -1;              //  no such lease: its worker went
    s_worker_t *worker = s_worker (self, target);
    if (procs == 0 || procs > worker->lease_procs || mem > worker->lease_mem)
        return -1;              //  more than the lease holds
    if (!s_attach_new (self, task, procs, mem, labels, tenant, target))
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
    s_drop_lease (self, handle);
    s_worker_refresh (self, handle);
    s_wake (self, handle);
    return worker->id;
}

//  Return how many leases are out
size_t
drover_schedq_leases (drover_schedq_t *self)
{
    assert (self);
    return self->leased.count;
}


//  ---------------------------------------------------------------------
//  Requests placed outside the queue (affinity)
//
//  drover_affinity picks a worker by rendezvous order and asks here whether
//  it could ever hold a request (it takes new work, has the labels and
//  enough procs and memory in all) and whether it has room now (free
//  procs and memory, its capacity not lent nor kept for another request);
//  it places with drover_schedq_place. While such a request waits, the
//  queue lends nothing and calls back what it lent: the capacity goes to
//  the request first (ACTORS.md, "Leases").

//  Tell whether a worker has every label of labels ("k=v" joined by
//  "\n", "" or NULL none)
static bool
s_has_labels (const s_worker_t *worker, const char *labels)
{
    for (const char *cursor = labels? labels: ""; *cursor; ) {
        const char *end = strchr (cursor, '\n');
        size_t size = end? (size_t) (end - cursor): strlen (cursor);
        bool found = size == 0;
        for (size_t index = 0; index < worker->nlabels && !found; index++)
            found = strlen (worker->labels [index]) == size
                 && memcmp (worker->labels [index], cursor, size) == 0;
        if (!found)
            return false;
        cursor += size + (end? 1: 0);
    }
    return true;
}

//  Return true if the worker takes new work, has the labels and enough
//  procs and memory in all (mem 0: any) for the request
bool
drover_schedq_could_hold (drover_schedq_t *self, const char *id, uint32_t procs, uint64_t mem,
                         const char *labels)
{
    assert (self);
    s_worker_t *worker = s_worker_find (self, id, NULL);
    return worker && s_usable (worker) && worker->procs >= procs && worker->mem >= mem
        && s_has_labels (worker, labels);
}

//  Return true if the worker could hold the request and has room for it
//  now: free procs and memory, nothing lent, not kept for another request
bool
drover_schedq_has_room (drover_schedq_t *self, const char *id, uint32_t procs, uint64_t mem,
                       const char *labels)
{
    assert (self);
    s_worker_t *worker = s_worker_find (self, id, NULL);
    return worker && s_usable (worker) && !worker->lease && !worker->reserved
        && s_free_procs (worker) >= procs && s_free_mem (worker) >= mem
        && s_has_labels (worker, labels);
}

//  Return true if a worker has each device of devices ("gpu=1", "" or
//  NULL none) in all, or free if free
bool
drover_schedq_has_devices (drover_schedq_t *self, const char *id, const char *devices,
                           bool free_now)
{
    assert (self);
    if (!devices || !*devices)
        return true;
    s_worker_t *worker = s_worker_find (self, id, NULL);
    drover_device_t wanted [DROVER_DEVICES_MAX];
    int count = drover_devicelist_parse (devices, wanted, NULL);
    if (!worker || count < 0)
        return false;
    drover_demand_t demand = { .devices = wanted, .ndevices = (size_t) count };
    return s_devices_fit (worker, &demand, !free_now);
}

//  Say whether requests wait outside the queue: while they do, nothing is
//  lent and every lease is called back
void
drover_schedq_set_waiting (drover_schedq_t *self, bool waiting)
{
    assert (self);
    self->waiting_outside = waiting;
}


//  ---------------------------------------------------------------------
//  The fleet: the workers as the reconciler sees them
//
//  One look at each worker, paid once per FLEET (a term, a pass, a plan).
//  Capacity lent to assign counts as free: a lease is called back as soon
//  as anything waits.

//  Why a worker takes no new work, in order of precedence: what runs on a
//  draining worker should move away, whatever else holds it
static drover_fleet_state_t
s_fleet_state (const s_worker_t *worker)
{
    return worker->admin == DROVER_ADMIN_DRAIN? DROVER_FLEET_DRAINING:
           worker->admin == DROVER_ADMIN_HOLD? DROVER_FLEET_HELD:
           worker->probation? DROVER_FLEET_PROBATION:
           worker->disk_low? DROVER_FLEET_LOW_DISK: DROVER_FLEET_USABLE;
}

//  Build the fleet of every worker known, in order of arrival
drover_fleet_t *
drover_schedq_fleet (drover_schedq_t *self)
{
    assert (self);
    drover_fleet_t *fleet = drover_fleet_new ();
    char labels [DROVER_LABELS_MAX * (DROVER_LABEL_MAX + 1) + 1];
    for (void *item = zlistx_first (self->order); item; item = zlistx_next (self->order)) {
        s_worker_t *worker = s_worker (self, (uint32_t) (uintptr_t) item);
        size_t size = 0;
        labels [0] = 0;
        for (size_t index = 0; index < worker->nlabels && size < sizeof labels; index++)
            size += (size_t) snprintf (labels + size, sizeof labels - size, "%s%s",
                                       index? "\n": "", worker->labels [index]);
        drover_fleet_worker_t entry = {
            worker->id, worker->procs, worker->mem,
            worker->used - worker->lease_procs, worker->mem_used - worker->lease_mem,
            labels, s_fleet_state (worker), worker->ntasks
        };
        drover_fleet_add (fleet, &entry);
    }
    return fleet;
}


//  ---------------------------------------------------------------------
//  Views of the queued requests, for drover_explain
//
//  Asked, never per pass: drover_explain reads the groups and their
//  requests through these, and the workers through drover_schedq_lookup.

//  Fill a request's view
static void
s_view_request (const s_request_t *request, drover_schedq_request_t *view)
{
    view->task = request->task;
    view->priority = request->priority;
    view->procs = request->procs;
    view->demand = request->demand;
    view->group = request->assigned? 0: request->group;
    view->owner = request->demand->owner;
}

//  Fill view with a queued request. Returns 0, or -1 if not queued.
int
drover_schedq_request (drover_schedq_t *self, uint64_t task, drover_schedq_request_t *view)
{
    assert (self && view);
    uint32_t handle = drover_slab_find (self->requests, task);
    if (!handle || s_request (self, handle)->assigned)
        return -1;              //  not queued
    s_view_request (s_request (self, handle), view);
    return 0;
}

//  Tell the caller's fn about one group
static void
s_tell_group (drover_schedq_t *self, uint32_t handle, void *arg)
{
    s_teller_t *teller = (s_teller_t *) arg;
    s_group_t *group = s_group (self, handle);
    teller->group (handle, group->procs, group->demand, teller->arg);
}

//  Call fn for each group of queued requests: queued, parked, blocked
void
drover_schedq_each_group (drover_schedq_t *self, drover_schedq_group_fn *fn, void *arg)
{
    assert (self && fn);
    s_teller_t teller = { .group = fn, .arg = arg };
    s_each_waiting (self, s_tell_group, &teller);
}

//  Call fn for each queued request of a group (between passes nothing is
//  shelved)
void
drover_schedq_each_request (drover_schedq_t *self, uint32_t group,
                           drover_schedq_request_fn *fn, void *arg)
{
    assert (self && fn);
    drover_idheap_t *heap = s_group (self, group)->heap;
    for (size_t index = 0; index < drover_idheap_size (heap); index++) {
        drover_schedq_request_t view;
        s_view_request (s_request (self, drover_idheap_at (heap, index)), &view);
        fn (&view, arg);
    }
}

//  Return the elastic pool's instance types, or NULL
const drover_pooltype_t *
drover_schedq_pooltypes (drover_schedq_t *self, size_t *count_p)
{
    assert (self && count_p);
    *count_p = self->npooltypes;
    return self->pooltypes;
}
