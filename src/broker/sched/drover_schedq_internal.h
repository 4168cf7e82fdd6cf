/*  =========================================================================
    drover_schedq_internal - what the files of drover_schedq share: its
    records, its state, and the helpers both the pass and the worker
    registry call

    Only drover_schedq.c (the queue and the pass) and drover_schedq_workers.c
    (the workers: add, remove, admin, probation, disk, views) include it.
    The helpers are inline: the pass calls them per placement.
    =========================================================================
*/

#ifndef DROVER_SCHEDQ_INTERNAL_H_INCLUDED
#define DROVER_SCHEDQ_INTERNAL_H_INCLUDED

#include "drover_schedq.h"
#include "drover_slab.h"
#include "drover_idheap.h"
#include "drover_demands.h"

//  A request, queued or assigned (it becomes its own assignment record);
//  kept at 40 bytes: a million of them are queued at times
typedef struct {
    uint64_t task;              //  task id, the key in self->requests; ids are given in
                                //  increasing order at submit: it is the arrival order
    drover_demand_t *demand;    //  memory and labels demanded (a reference)
    int32_t priority;           //  lower runs first
    uint32_t procs;             //  procs demanded, >= 1
    uint32_t worker;            //  handle of the worker it is assigned to; 0: queued
    uint32_t index;             //  queued: in its group's heap (DROVER_IDHEAP_NOWHERE while
                                //  shelved); assigned: in its worker's tasks
    uint32_t group;             //  queued: handle of its group
    uint32_t reserved;          //  queued: handle of the worker reserved for it, or 0
} s_request_t;

//  Where a group is
typedef enum {
    S_GROUP_EMPTY,              //  nothing in its heap (its requests are shelved)
    S_GROUP_QUEUED,             //  in self->queue
    S_GROUP_PARKED,             //  no eligible worker could ever hold it: in self->parked
    S_GROUP_BLOCKED             //  each that could is reserved for others: in self->blocked
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
    uint32_t index;             //  index in self->queue, or DROVER_IDHEAP_NOWHERE
    uint32_t parked_at;         //  index in self->parked or self->blocked while there
    uint32_t where;             //  s_group_where_t
} s_group_t;

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
    uint32_t reserved;          //  handle of the request it is reserved for, or 0
    uint64_t lease;             //  id of the lease lending its capacity to assign, or 0
    uint32_t lease_procs;       //  procs the lease still holds (counted in used)
    uint64_t lease_mem;         //  memory the lease still holds (counted in mem_used)
    bool lease_revoked;         //  told to revoke it: waiting for its RETURN
    bool lease_void;            //  changed since the lease was made: revoke it
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
    drover_idheap_t *queue;     //  groups in placement order of their heads
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
    uint64_t lease_numbers;     //  leases made so far, the last lease id
    uint32_t max_leases;        //  leases out at once, at most; 0 lends nothing
    bool waiting_outside;       //  requests wait outside the queue (affinity): lend
                                //  nothing, call every lease back
    size_t queued;              //  requests queued
    uint32_t max_shelve;        //  most unfit requests one pass looks past
    uint64_t min_disk_free;     //  bytes free under which a worker takes nothing new, 0 = none
    uint64_t worker_numbers;    //  workers added so far
    const drover_pooltype_t *pooltypes; //  the elastic pool's instance types, borrowed, or NULL
    size_t npooltypes;          //  entries in pooltypes
};

//  Placement order: priority, then procs decreasing, then arrival (the
//  task id: a requeued task keeps its original place)
static inline bool
drover_schedq_ranks_before (int32_t priority, uint32_t procs, uint64_t task,
                           int32_t other_priority, uint32_t other_procs, uint64_t other_task)
{
    if (priority != other_priority)
        return priority < other_priority;
    if (procs != other_procs)
        return procs > other_procs;
    return task < other_task;
}

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

//  Free what a worker owns (not its record)
static inline void
s_worker_clear (s_worker_t *worker)
{
    free (worker->tasks);
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
        && drover_labels_match (worker->labels, worker->nlabels, demand);
}

//  Put a worker in the eligible heap (usable, not reserved, not lent), take it
//  out, or reorder it, after anything about it changed
static inline void
s_worker_refresh (drover_schedq_t *self, uint32_t handle)
{
    s_worker_t *worker = s_worker (self, handle);
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

//  End a worker's reservation, if it has one; it is eligible again if usable
void
    drover_schedq_release (drover_schedq_t *self, uint32_t worker_handle);

//  A worker came up, changed, or became usable again: wake the groups
//  parked or blocked that it could hold
void
    drover_schedq_wake (drover_schedq_t *self, uint32_t worker_handle);

//  Forget a request (queued no more, or assigned to a worker that goes)
void
    drover_schedq_forget (drover_schedq_t *self, uint32_t handle);

//  Append a handle to a list
void
    drover_schedq_list_add (s_list_t *list, uint32_t handle);

//  Record a request as assigned to a worker (its tasks); the caller
//  counts its procs and memory
void
    drover_schedq_attach (drover_schedq_t *self, uint32_t handle, uint32_t target);

//  Record a task (not queued nor assigned yet) as assigned to a worker at
//  once, demanding procs, mem bytes and labels: no pass placed it (a lease
//  took it, or a restarted broker adopted it). Returns its handle, or 0 if
//  the task is queued or assigned already. The caller counts what it uses.
uint32_t
    drover_schedq_attach_new (drover_schedq_t *self, uint64_t task, uint32_t procs, uint64_t mem,
                             const char *labels, uint32_t target);

//  Forget a worker's lease, if it has one, without giving back what it
//  holds (the worker goes)
void
    drover_schedq_drop_lease (drover_schedq_t *self, uint32_t worker_handle);

#endif
