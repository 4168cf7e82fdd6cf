/*  =========================================================================
    drover_reconciler_internal - what drover_reconciler.c (definitions,
    reports, fleet, gather, commit, rows) and drover_reconciler_compute.c
    (the decisions) share; not for anyone else
    =========================================================================
*/

#ifndef DROVER_RECONCILER_INTERNAL_H_INCLUDED
#define DROVER_RECONCILER_INTERNAL_H_INCLUDED

#include "drover_reconciler.h"
#include "drover_rendezvous.h"

//  A replica record's state
typedef enum {
    S_PENDING = 0,              //  assigned to its worker, not running yet
    S_RUNNING = 1,              //  running there
    S_STOPPING = 2              //  told to stop: waits for its end, holds nothing
} s_record_state_t;

//  One replica task the reconciler knows of (key of self->tasks: its id)
typedef struct {
    uint64_t task;              //  task id
    uint32_t attempt;           //  its attempt
    char service [DROVER_ID_MAX + 1];   //  its service
    char worker [DROVER_ID_MAX + 1];    //  the worker of its attempt
    uint32_t slot;              //  its slot
    s_record_state_t state;     //  its state
    bool leaving;               //  moved away: stopped once the slot's new replica runs
    uint64_t since;             //  msec it entered its state
    uint64_t running_since;     //  msec it started running, 0 never ran
    char why [DROVER_REASON_MAX + 1];   //  STOPPING: why it was stopped
    long fleet_index;           //  its worker's fleet index, -1 none, as of ...
    uint64_t fleet_gen;         //  ... this fleet generation (0: to look up)
    void *gathered;             //  its worker's s_gathered_t, NULL none, as of ...
    uint64_t gather_gen;        //  ... this gather (0: to look up)
} s_record_t;

//  A start committed whose task assign has not reported yet
typedef struct {
    char worker [DROVER_ID_MAX + 1];    //  the worker it was started on
    uint64_t since;             //  msec it was committed
} s_pending_t;

//  One replica slot of a service
typedef struct {
    s_record_t **records;       //  its replica tasks (owned by self->tasks)
    size_t nrecords;            //  entries used
    size_t records_size;        //  entries allocated
    s_pending_t *pending;       //  starts without a task yet
    size_t npending;            //  entries used
    size_t pending_size;        //  entries allocated
    uint64_t next_start;        //  msec its restart backoff ends, 0 none
    uint32_t streak;            //  quick exits in a row
    uint32_t restarts;          //  restarts since the broker started
    uint64_t since;             //  msec its last replica ended, 0 never
    char why [DROVER_REASON_MAX + 1];   //  how its last replica ended, "" none
} s_slot_t;

//  One service (key of self->services: its name)
typedef struct {
    drover_service_row_t def;   //  its definition (name, replicas, procs, mem, labels
                                //  owned, restart delay, created, summary)
    char *labels;               //  its labels joined by "\n", "" none
    bool defined;               //  false: deleted, kept until its replicas are stopped
    uint32_t restarts;          //  restarts of its replicas since the broker started
    s_slot_t *slots;            //  slots 0 .. nslots - 1 (nslots >= replicas if defined)
    uint32_t nslots;            //  entries allocated and in use
} s_service_t;

//  One worker asked in the current gather (key of self->gather: its id)
typedef struct {
    bool answered;              //  it answered
    uint64_t *tasks;            //  the tasks it runs, sorted
    size_t ntasks;              //  entries in tasks
} s_gathered_t;

//  A worker as one computation sees it
typedef struct {
    drover_fleet_state_t state; //  its state (a plan's drain or hold applied)
    int64_t free_procs;         //  procs free, less what this computation placed
    int64_t free_mem;           //  memory free, bytes, likewise
    uint32_t count;             //  replicas of the service at hand it holds
    bool touched;               //  count set for the service at hand
} s_place_t;

//  What a computation found of one slot of the service at hand
typedef struct {
    s_record_t *keeper;         //  the replica task that keeps the slot, NULL none
    bool held;                  //  kept (by keeper or by a start without a task yet)
    s_record_t *move_from;      //  not held: a replica on a draining worker to move
    const char *why;            //  not held: why it needs a replica
} s_slotplan_t;

struct _drover_reconciler_t {
    drover_serviceconfig_t config;  //  the service/... settings
    zhashx_t *services;         //  name -> s_service_t, owned
    s_service_t **sorted;       //  services by name, rebuilt when dirty
    size_t nsorted;             //  entries in sorted
    bool sorted_dirty;          //  a service came or went
    zhashx_t *tasks;            //  "task id" -> s_record_t, owned
    size_t npending;            //  starts without a task yet, over every slot
    //  The fleet
    drover_fleet_worker_t *fleet;   //  the last FLEET's workers, strings owned
    size_t nfleet;              //  entries in fleet
    const char **fleet_ids;     //  their ids, for the rendezvous functions
    uint64_t *fleet_hashes;     //  their ids' rendezvous hashes
    zhashx_t *fleet_index;      //  id -> index + 1
    uint64_t fleet_gen;         //  fleet generation, from 1: records cache their index
    //  The gather
    zhashx_t *gather;           //  id -> s_gathered_t of each worker asked, owned
    uint64_t gather_term;       //  its term, 0 none yet
    uint64_t gather_at;         //  msec it began
    uint64_t gather_gen;        //  gathers begun, from 1: records cache their entry
    uint32_t asked;             //  workers asked
    uint32_t answered;          //  workers that answered
    //  The last term's statistics
    drover_service_stats_t last;
    //  A computation's scratch (compute changes nothing else in self)
    s_place_t *place;           //  per fleet worker
    size_t place_size;          //  entries allocated
    uint32_t *touched;          //  fleet indexes whose count is set
    size_t ntouched;            //  entries used
    s_slotplan_t *slotplan;     //  per slot of the service at hand
    size_t slotplan_size;       //  entries allocated
};

//  How long a start waits for its task's report before it is forgotten
#define S_PENDING_EXPIRY(self)  ((uint64_t) (self)->config.term + (self)->config.gather_timeout)

//  Return a service's slot, NULL if past its slots
s_slot_t *
    drover_reconciler_slot (s_service_t *service, uint32_t slot);

//  Return true if a slot has a replica that is not stopping, or a start
//  without a task
bool
    drover_reconciler_slot_kept (const s_slot_t *slot);

//  The services by name (rebuilt if they changed), setting *count_p
s_service_t **
    drover_reconciler_sorted (drover_reconciler_t *self, size_t *count_p);

//  Return the fleet index of a worker, -1 if not in the fleet
long
    drover_reconciler_worker_index (drover_reconciler_t *self, const char *worker);

//  Return the fleet index of a record's worker, -1 if not in the fleet
//  (cached in the record until the fleet changes)
static inline long
drover_reconciler_record_worker (drover_reconciler_t *self, s_record_t *record)
{
    if (record->fleet_gen != self->fleet_gen) {
        record->fleet_index = drover_reconciler_worker_index (self, record->worker);
        record->fleet_gen = self->fleet_gen;
    }
    return record->fleet_index;
}

//  Return the replicas wanted of a service in a computation (a plan's
//  scale applied; deleted: 0)
uint32_t
    drover_reconciler_wanted_of (const s_service_t *service, const drover_reconciler_what_t *what);

//  Return the restart delay of a slot's next restart: the service's (or
//  the setting's) delay doubled for each quick exit in a row, capped
uint64_t
    drover_reconciler_backoff (drover_reconciler_t *self, const s_service_t *service,
                              uint32_t streak);

//  Order task ids (qsort's and bsearch's comparator)
int
    drover_reconciler_compare_tasks (const void *one, const void *two);

//  Put a replica count in its histogram bucket (0, 1, 2-3, ... 64+)
int
    drover_reconciler_bucket (uint32_t restarts);

#endif
