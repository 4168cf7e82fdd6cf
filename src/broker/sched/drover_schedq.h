/*  =========================================================================
    drover_schedq - the scheduling queue: pending requests and the workers
    they are placed on, after bigslice's machine manager

    Requests wait in order of priority (lower first), then fair share:
    among the owners waiting at that priority, the account with the lowest
    dominant share, then in it the owner with the lowest (Dominant Resource
    Fairness over procs, memory and counted devices, drover_fairshare; ties
    by name), then procs (larger first: first-fit decreasing), then arrival
    (the task id: ids increase at submit, so a requeued task keeps its
    place). A request whose owner or account would pass a running quota
    waits, costing passes nothing, until that owner or account frees
    something. A request fits a worker only where each device it asks has
    that many free. Eligible workers (admin
    RUN, not on probation, free disk above the floor) wait in a heap ordered
    by free procs, most free first. A pass places the head request on the
    least-loaded worker that meets it; a request that fits none now reserves
    the least-loaded worker that could hold it (bigslice's shelving of
    request and worker), which then takes nothing else until the request
    runs there or elsewhere, is cancelled, or the worker goes or stops being
    eligible. Requests that no eligible worker could ever hold are parked
    until one comes: they cost a pass nothing. A pass goes on until no free
    procs are left or nothing queued could use them. Then, if some worker
    was granted offers held ahead (drover_schedq_set_ahead), the head
    requests that ask one proc, no devices and memory such a worker has
    free go there held: placed, counted in the fair share, their procs not
    charged until a running task there frees (the worker starts them in
    the order it got them). A plain class: no threads, no I/O, no clock.
    =========================================================================
*/

#ifndef DROVER_SCHEDQ_H_INCLUDED
#define DROVER_SCHEDQ_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"
#include "drover_config.h"
#include "drover_fleet.h"
#include "drover_demands.h"
#include "drover_fairshare.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_schedq_t drover_schedq_t;

//  The owner of requests queued without one (a valid id no client sends
//  as a name of its own: "-")
#define DROVER_SCHEDQ_NOBODY    "-"

//  Whose a request is and what it asks besides procs, memory and labels
typedef struct {
    const char *owner;          //  its owner's name, NULL / "": nobody's (DROVER_SCHEDQ_NOBODY)
    const char *devices;        //  counted devices, "gpu=2,fpga=1" (drover_devicelist),
                                //  NULL / "" none
    uint32_t flags;             //  DROVER_SUBMIT_* flags (PREEMPTIBLE)
} drover_schedq_tenant_t;

//  A worker as WORKER TABLE shows it; pointers are borrowed and valid
//  until the worker next changes
typedef struct {
    const char *id;             //  worker id
    uint32_t procs;             //  procs it offers
    uint32_t procs_used;        //  procs taken by assigned tasks
    uint64_t mem;               //  memory it offers, bytes
    uint64_t mem_used;          //  memory taken by assigned tasks, bytes
    int admin;                  //  drover_admin_t
    bool probation;             //  on probation: takes nothing new
    uint64_t probation_until;   //  when its probation is due to end, msec since the epoch,
                                //  0 if not on probation or not known
    bool disk_low;              //  its free disk is under the floor: takes nothing new
    bool settling;              //  registered again with attempts running: takes nothing
                                //  new until assign has counted them
    size_t nlabels;             //  entries in labels
    char *const *labels;        //  "key=value" each
    drover_stats_t stats;       //  last stats stored with set_stats
    size_t tasks;               //  tasks assigned to it now
    uint64_t reserved;          //  task it is reserved for (kept empty for), 0 none
    uint64_t lease;             //  lease lending its free capacity to assign, 0 none
    const drover_device_t *devices;     //  its counted devices, by name
    const uint32_t *devices_used;       //  of each, how many its tasks hold
    size_t ndevices;            //  entries in devices and devices_used
    uint32_t ahead;             //  offers it may hold beyond its free procs, 0 none
    size_t held;                //  of its tasks, those held ahead (not started, not
                                //  counted in procs_used nor mem_used)
} drover_schedq_view_t;

//  A queued request as drover_explain reads it
typedef struct {
    uint64_t task;              //  task id
    int32_t priority;           //  lower runs first
    uint32_t procs;             //  procs demanded
    const drover_demand_t *demand;  //  memory and labels demanded (borrowed)
    uint32_t group;             //  handle of its group: the queued requests that demand
                                //  the same procs, memory, labels and devices, of one owner
    uint32_t owner;             //  its owner's handle in drover_schedq_fairshare
} drover_schedq_request_t;

//  A lease: a worker's free capacity lent to assign
typedef struct {
    uint64_t id;                //  lease id, never 0
    const char *worker;         //  the worker lent (borrowed)
    uint32_t procs;             //  procs it holds
    uint64_t mem;               //  memory it holds, bytes
} drover_schedq_lease_t;

//  Called once for each lease made or to revoke; the lease is borrowed
typedef void (drover_schedq_lease_fn) (const drover_schedq_lease_t *lease, void *arg);

//  Called once for each placement a pass makes
typedef void (drover_schedq_assign_fn) (uint64_t task, const char *worker, void *arg);

//  Called once for each running task to stop (on worker) to make room for
//  a queued task (for_task)
typedef void (drover_schedq_preempt_fn) (uint64_t task, const char *worker, uint64_t for_task,
                                        void *arg);

//  Called once for each task a removed worker had assigned
typedef void (drover_schedq_task_fn) (uint64_t task, void *arg);

//  Placement order: priority, then procs decreasing, then arrival (the
//  task id: a requeued task keeps its original place). Inline: a pass
//  calls it per placement
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

//  Create an empty queue; a pass looks past at most max_shelve unfit requests
//  (each reservation it makes counts one; requests set aside until a
//  worker or a reservation frees, and those holding a reservation, none)
drover_schedq_t *
    drover_schedq_new (uint32_t max_shelve);

//  Destroy the queue and everything in it; harmless on NULL
void
    drover_schedq_destroy (drover_schedq_t **self_p);

//  Turn preemption on or off (max 0, or fn NULL): when a request cannot
//  be placed, a pass may stop preemptible tasks (DROVER_SUBMIT_PREEMPTIBLE)
//  of other accounts on one worker, when the request has a higher
//  priority or its account is below its fair share while theirs is above
//  (drover_victims: the fewest, the newest first), telling fn each, at
//  most max per pass, and reserve that worker for it. A task told stays
//  running (counted) until freed, and is never told twice.
void
    drover_schedq_set_preemption (drover_schedq_t *self, uint32_t max,
                                 drover_schedq_preempt_fn *fn, void *arg);

//  Change how many unfit requests one pass looks past
void
    drover_schedq_set_max_shelve (drover_schedq_t *self, uint32_t max_shelve);

//  Add a worker, or update the procs, memory and labels of a known one
//  (keeping its assignments, admin setting and probation). labels: "k=v"
//  joined by "\n", or "" / NULL. Returns 0 if added, 1 if updated.
int
    drover_schedq_add_worker (drover_schedq_t *self, const char *id, uint32_t procs,
                             uint64_t mem, const char *labels);

//  Remove a worker and forget what was assigned to it, calling fn (may be
//  NULL) for each such task. Returns how many it had, or -1 if unknown.
int
    drover_schedq_remove_worker (drover_schedq_t *self, const char *id,
                                drover_schedq_task_fn *fn, void *arg);

//  Set a worker's admin setting (drover_admin_t). Returns 0, or -1 if the
//  worker is unknown or the value is not an admin setting.
int
    drover_schedq_set_admin (drover_schedq_t *self, const char *id, int admin);

//  Set the free disk (bytes, of the work directory's filesystem, as the
//  worker's stats say) under which a worker takes nothing new; 0 = no
//  floor (the default). A worker whose stats have no disk is never held.
void
    drover_schedq_set_min_disk_free (drover_schedq_t *self, uint64_t bytes);

//  Put a worker on probation or take it off. Returns 0, or -1 if unknown.
int
    drover_schedq_set_probation (drover_schedq_t *self, const char *id, bool probation);

//  Hold a worker from new work while what it runs is not yet counted (it
//  registered again reporting running attempts: assign adopts them, and
//  their PLACED come after its UP), or let it take work again. Returns 0,
//  or -1 if unknown.
int
    drover_schedq_set_settling (drover_schedq_t *self, const char *id, bool settling);

//  Record when a worker's probation is due to end (msec since the epoch, as
//  the probation actor says it; 0 unknown), for WORKER TABLE and for
//  saying why a task waits. Taking the worker off probation forgets it.
//  Returns 0, or -1 if unknown.
int
    drover_schedq_set_probation_until (drover_schedq_t *self, const char *id, uint64_t until);

//  Keep a worker's last stats for WORKER TABLE, and hold it from new work
//  while they say its free disk is under the floor. Returns 0, or -1 if
//  unknown.
int
    drover_schedq_set_stats (drover_schedq_t *self, const char *id, const drover_stats_t *stats);

//  Queue a request: priority (lower first), procs (>= 1), mem (bytes, 0 =
//  no demand), labels it requires ("k=v" joined by "\n", or "" / NULL).
//  Returns 0, or -1 if procs is 0 or the task is already queued or assigned.
int
    drover_schedq_push (drover_schedq_t *self, uint64_t task, int32_t priority,
                       uint32_t procs, uint64_t mem, const char *labels);

//  Queue a request of a tenant (NULL: nobody's), as push does. Returns 0,
//  or -1 if procs is 0, the devices are not a device list, or the task is
//  already queued or assigned.
int
    drover_schedq_push_as (drover_schedq_t *self, uint64_t task, int32_t priority,
                          uint32_t procs, uint64_t mem, const char *labels,
                          const drover_schedq_tenant_t *tenant);

//  Set the counted devices a worker has ("gpu=4,fpga=1", "" / NULL none),
//  keeping what its tasks hold of each it still has. Returns 0, or -1 if
//  the worker is unknown or the text not a device list.
int
    drover_schedq_set_devices (drover_schedq_t *self, const char *id, const char *devices);

//  Return how many queued requests a running quota holds now (metrics)
size_t
    drover_schedq_quota_held (drover_schedq_t *self);

//  Return how many queued requests of one owner (its fair-share handle) a
//  running quota holds now: O(held groups)
size_t
    drover_schedq_quota_held_of (drover_schedq_t *self, uint32_t owner);

//  Return the fair-share table (borrowed): accounts, weights, quotas and
//  each owner's usage. The queue keeps its capacity and usage; the caller
//  sets accounts, weights and quotas, then calls shares_changed.
drover_fairshare_t *
    drover_schedq_fairshare (drover_schedq_t *self);

//  Say that accounts, weights or quotas changed: requests held at a
//  running quota are looked at again by the next pass
void
    drover_schedq_shares_changed (drover_schedq_t *self);

//  Drop a queued request. Returns 0, or -1 if the task is not queued.
int
    drover_schedq_remove (drover_schedq_t *self, uint64_t task);

//  Give back an assigned task's procs and memory (a task held ahead has
//  none charged). The procs a running task frees start the tasks held
//  ahead on its worker, oldest first, charged then, as the worker starts
//  them. Returns the id of the worker it held (borrowed), or NULL if it
//  held none.
const char *
    drover_schedq_free (drover_schedq_t *self, uint64_t task);

//  Let a worker hold up to ahead offers beyond its free procs (what its
//  WELCOME granted, at most DROVER_AHEAD_MAX; 0, the default: none). Fewer
//  than it holds now keeps those. Returns 0, or -1 if the worker is
//  unknown.
int
    drover_schedq_set_ahead (drover_schedq_t *self, const char *id, uint32_t ahead);

//  Free a task its worker gave back unstarted (an offer held ahead), as
//  drover_schedq_free does, and hold nothing more ahead on that worker
//  until a running task there frees (no offer goes back and forth
//  between busy workers). Returns the worker's id (borrowed), or NULL if
//  it held none.
const char *
    drover_schedq_give_back (drover_schedq_t *self, uint64_t task);

//  Return true if the task is held ahead on its worker: placed there, not
//  yet started, its procs not charged
bool
    drover_schedq_held_ahead (drover_schedq_t *self, uint64_t task);

//  Run one scheduling pass, calling fn for each placement. When it stops
//  because no free procs are left for its head request (after trying
//  preemption for it), it places ahead: while the head request asks one
//  proc, no devices and memory that a worker's free memory holds, is
//  within its quotas and reserves no worker, it goes held to the eligible
//  worker with no free procs, room ahead and its labels that holds the
//  fewest, not one that gave an offer back since its last running task
//  freed. Returns how many requests were placed, held ones included.
int
    drover_schedq_run (drover_schedq_t *self, drover_schedq_assign_fn *fn, void *arg);

//  Change how many leases may be out at once (0, the default, lends
//  nothing)
void
    drover_schedq_set_max_leases (drover_schedq_t *self, uint32_t max_leases);

//  While no request waits for capacity and no running quota is set, lend
//  the free procs and memory of
//  the least-loaded eligible workers, one lease each, until max_leases
//  are out; the workers take nothing from a pass meanwhile. Calls fn for
//  each lease made; returns how many.
int
    drover_schedq_lend (drover_schedq_t *self, drover_schedq_lease_fn *fn, void *arg);

//  Call fn for each lease to revoke now, once each: every lease while a
//  request waits (queued, blocked, or parked when a lent worker could
//  hold it), and any lease whose worker is no longer usable or changed.
//  A revoked lease holds its capacity until drover_schedq_return. Returns
//  how many.
int
    drover_schedq_revoke (drover_schedq_t *self, drover_schedq_lease_fn *fn, void *arg);

//  Assign a task to a lease's worker out of what the lease holds (procs
//  >= 1, mem bytes, labels as for push). Returns 0, or -1 if the lease is
//  unknown (returned, or its worker removed), holds less, or the task is
//  queued or assigned already.
int
    drover_schedq_take (drover_schedq_t *self, uint64_t lease, uint64_t task, uint32_t procs,
                       uint64_t mem, const char *labels);

//  Record a task as running on a worker already (procs >= 1, mem bytes,
//  labels as for push): an attempt a restarted broker adopted. Its procs
//  and memory count as used, even past what the worker has free (what a
//  pass placed there meanwhile stays). Returns 0, or -1 if the worker is
//  unknown or the task queued or assigned already.
int
    drover_schedq_place (drover_schedq_t *self, const char *worker, uint64_t task, uint32_t procs,
                        uint64_t mem, const char *labels);

//  take for a tenant's task (NULL: nobody's); its devices count as held on
//  the lease's worker (assign takes no task with devices from a lease)
int
    drover_schedq_take_as (drover_schedq_t *self, uint64_t lease, uint64_t task, uint32_t procs,
                          uint64_t mem, const char *labels, const drover_schedq_tenant_t *tenant);

//  place for a tenant's task (NULL: nobody's)
int
    drover_schedq_place_as (drover_schedq_t *self, const char *worker, uint64_t task,
                           uint32_t procs, uint64_t mem, const char *labels,
                           const drover_schedq_tenant_t *tenant);

//  End a lease and give back what it still holds. Returns the worker's id
//  (borrowed), or NULL if the lease is unknown.
const char *
    drover_schedq_return (drover_schedq_t *self, uint64_t lease);

//  Return how many leases are out (revoked ones until they come back)
size_t
    drover_schedq_leases (drover_schedq_t *self);

//  Return true if the task is queued (not yet placed)
bool
    drover_schedq_queued (drover_schedq_t *self, uint64_t task);

//  Start loading what queueing, freeing or finding this task will read
//  first (its slot in the index); changes nothing. For a batch, a few ahead.
void
    drover_schedq_prefetch (drover_schedq_t *self, uint64_t task);

//  Return the worker a task is assigned to (borrowed), or NULL
const char *
    drover_schedq_assigned (drover_schedq_t *self, uint64_t task);

//  Called once for each distinct demand of the queued requests: procs,
//  memory (bytes), labels ("k=v" joined by "\n", "" none), devices
//  ("gpu=1", "" none) and how many requests ask it
typedef void (drover_schedq_demand_fn) (uint32_t procs, uint64_t mem, const char *labels,
                                       const char *devices, uint32_t count, void *arg);

//  Call fn for each distinct demand waiting (the queue's groups, counted as
//  requests come and go): O(distinct demands), not O(requests); then the
//  requests held ahead on workers, by demand (one proc each): they wait
//  for procs too, O(held)
void
    drover_schedq_each_demand (drover_schedq_t *self, drover_schedq_demand_fn *fn, void *arg);

//  Give the elastic pool's instance types (borrowed; NULL, 0: no pool), so
//  that explaining a task no connected worker could ever run says whether
//  an instance of some type will be started for it or no type fits
void
    drover_schedq_set_pooltypes (drover_schedq_t *self, const drover_pooltype_t *types,
                                size_t ntypes);

//  Return true if the worker takes new work, has the labels ("k=v" joined
//  by "\n", "" or NULL none) and enough procs and memory in all (mem 0:
//  any) for a request (drover_affinity)
bool
    drover_schedq_could_hold (drover_schedq_t *self, const char *id, uint32_t procs, uint64_t mem,
                             const char *labels);

//  Return true if the worker could hold a request and has room for it now:
//  free procs and memory, nothing lent, not kept for another request
bool
    drover_schedq_has_room (drover_schedq_t *self, const char *id, uint32_t procs, uint64_t mem,
                           const char *labels);

//  Return true if the worker has each device of devices ("gpu=1", "" or
//  NULL none) in all, or free if free_now (drover_affinity)
bool
    drover_schedq_has_devices (drover_schedq_t *self, const char *id, const char *devices,
                              bool free_now);

//  Return true if the worker has each device of devices ("gpu=1", "" or
//  NULL none) in all, or free if free_now (drover_affinity)
bool
    drover_schedq_has_devices (drover_schedq_t *self, const char *id, const char *devices,
                              bool free_now);

//  Say whether requests wait outside the queue (drover_affinity): while
//  they do, nothing is lent and every lease is revoked
void
    drover_schedq_set_waiting (drover_schedq_t *self, bool waiting);

//  Build the fleet of every worker known, in order of arrival: procs,
//  memory, what its tasks use (lent capacity counts as free), labels,
//  tasks, and whether it takes new work (drover_reconciler). Caller
//  destroys it.
drover_fleet_t *
    drover_schedq_fleet (drover_schedq_t *self);

//  Fill view with a queued request (drover_explain). Returns 0, or -1 if
//  the task is not queued.
int
    drover_schedq_request (drover_schedq_t *self, uint64_t task, drover_schedq_request_t *view);

//  Called once for each group of queued requests: its handle, the procs
//  each demands and what else they demand (borrowed)
typedef void (drover_schedq_group_fn) (uint32_t group, uint32_t procs,
                                      const drover_demand_t *demand, void *arg);

//  Called once for each queued request of a group; the view is borrowed
typedef void (drover_schedq_request_fn) (const drover_schedq_request_t *request, void *arg);

//  Call fn for each group of queued requests: those in the queue, then
//  those parked (no worker could hold them), then those blocked (their
//  workers are reserved for others). Between passes.
void
    drover_schedq_each_group (drover_schedq_t *self, drover_schedq_group_fn *fn, void *arg);

//  Call fn for each queued request of a group (from drover_schedq_each_group
//  or drover_schedq_request). Between passes.
void
    drover_schedq_each_request (drover_schedq_t *self, uint32_t group,
                               drover_schedq_request_fn *fn, void *arg);

//  Return the elastic pool's instance types (borrowed; NULL if no pool),
//  setting *count_p
const drover_pooltype_t *
    drover_schedq_pooltypes (drover_schedq_t *self, size_t *count_p);

//  Return how many requests are queued
size_t
    drover_schedq_size (drover_schedq_t *self);

//  Return how many workers are known
size_t
    drover_schedq_workers (drover_schedq_t *self);

//  Return true if the worker is known and has nothing assigned
bool
    drover_schedq_idle (drover_schedq_t *self, const char *id);

//  Fill view with a worker's state. Returns 0, or -1 if unknown.
int
    drover_schedq_lookup (drover_schedq_t *self, const char *id, drover_schedq_view_t *view);

//  Return the first known worker's id (borrowed) in order of arrival, or
//  NULL; then iterate with drover_schedq_next. Adding or removing workers
//  ends the iteration.
const char *
    drover_schedq_first (drover_schedq_t *self);

//  Return the next worker's id (borrowed), or NULL at the end
const char *
    drover_schedq_next (drover_schedq_t *self);

#ifdef __cplusplus
}
#endif

#endif
