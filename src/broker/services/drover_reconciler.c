/*  =========================================================================
    drover_reconciler - the reconciler's decisions (see the header)

    The file reads top-down in four sections: the view (definitions,
    replica reports, the fleet, the gather), the decisions (compute),
    commit, and the rows.

    Each service keeps its slots; each slot its replica tasks (records,
    also indexed by task id) and the starts committed whose task assign
    has not reported yet (pending). A deleted service stays, undefined,
    until its last replica is gone, so that its replicas are stopped.
    =========================================================================
*/

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
    uint32_t rank;              //  its worker's rank in its slot's order, as of ...
    uint64_t rank_sig;          //  ... this set of workers that could hold one (0: none)
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
    bool silent;                //  did not answer the (last) term's gather: no new
                                //  replicas go there this term
} s_place_t;

//  What a computation found of one slot of the service at hand
typedef struct {
    s_record_t *keeper;         //  the replica task that keeps the slot, NULL none
    bool held;                  //  kept (by keeper or by a start without a task yet)
    s_record_t *move_from;      //  not held: a replica on a draining worker to move
    const char *why;            //  not held: why it needs a replica
    long placed;                //  fleet index this computation started or moved its
                                //  replica to, -1 none
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
    zhashx_t *silent;           //  ids of the workers the last term's gather did not
                                //  hear: no new replicas there until the next term
    //  The last term's statistics
    drover_service_stats_t last;
    //  A computation's scratch (compute changes nothing else in self)
    s_place_t *place;           //  per fleet worker
    size_t place_size;          //  entries allocated
    uint32_t *touched;          //  fleet indexes whose count is set
    bool *holdable;             //  per fleet worker: could hold one of the service at
                                //  hand (ranks only)
    size_t ntouched;            //  entries used
    s_slotplan_t *slotplan;     //  per slot of the service at hand
    size_t slotplan_size;       //  entries allocated
};

//  How long a start waits for its task's report before it is forgotten
#define S_PENDING_EXPIRY(self)  ((uint64_t) (self)->config.term + (self)->config.gather_timeout)

//  Return a service's slot, NULL if past its slots
static s_slot_t *
    s_slot (s_service_t *service, uint32_t slot);

//  Return true if a slot has a replica that is not stopping, or a start
//  without a task
static bool
    s_slot_kept (const s_slot_t *slot);

//  The services by name (rebuilt if they changed), setting *count_p
static s_service_t **
    s_sorted (drover_reconciler_t *self, size_t *count_p);

//  Return the fleet index of a worker, -1 if not in the fleet
static long
    s_worker_index (drover_reconciler_t *self, const char *worker);

//  Return the fleet index of a record's worker, -1 if not in the fleet
//  (cached in the record until the fleet changes)
static inline long
s_record_worker (drover_reconciler_t *self, s_record_t *record)
{
    if (record->fleet_gen != self->fleet_gen) {
        record->fleet_index = s_worker_index (self, record->worker);
        record->fleet_gen = self->fleet_gen;
    }
    return record->fleet_index;
}

//  Return the replicas wanted of a service in a computation (a plan's
//  scale applied; deleted: 0)
static uint32_t
    s_wanted_of (const s_service_t *service, const drover_reconciler_what_t *what);

//  Return the restart delay of a slot's next restart: the service's (or
//  the setting's) delay doubled for each quick exit in a row, capped
static uint64_t
    s_backoff (drover_reconciler_t *self, const s_service_t *service, uint32_t streak);

//  Order task ids (qsort's and bsearch's comparator)
static int
    s_compare_tasks (const void *one, const void *two);

//  Put a replica count in its histogram bucket (0, 1, 2-3, ... 64+)
static int
    s_bucket (uint32_t restarts);

//  =========================================================================
//  The view: definitions, replica reports, the fleet, the gather
//  =========================================================================

//  Free a service and its slots (its records belong to self->tasks)
static void
s_service_destroy (s_service_t **service_p)
{
    s_service_t *service = *service_p;
    if (service) {
        for (uint32_t index = 0; index < service->def.nlabels; index++)
            free (service->def.labels [index]);
        for (uint32_t index = 0; index < service->nslots; index++) {
            free (service->slots [index].records);
            free (service->slots [index].pending);
        }
        free (service->slots);
        free (service->labels);
        free (service);
        *service_p = NULL;
    }
}

//  zhashx destructor of services
static void
s_service_free (void **item)
{
    s_service_destroy ((s_service_t **) item);
}

//  zhashx destructor of the gather's entries
static void
s_gathered_free (void **item)
{
    s_gathered_t *gathered = (s_gathered_t *) *item;
    if (gathered) {
        free (gathered->tasks);
        free (gathered);
        *item = NULL;
    }
}

//  zhashx destructor of records
static void
s_record_free (void **item)
{
    free (*item);
    *item = NULL;
}

//  Create an empty reconciler
drover_reconciler_t *
drover_reconciler_new (const drover_serviceconfig_t *config)
{
    assert (config);
    drover_reconciler_t *self = (drover_reconciler_t *) zmalloc (sizeof (drover_reconciler_t));
    self->config = *config;
    self->services = zhashx_new ();
    zhashx_set_destructor (self->services, s_service_free);
    self->tasks = zhashx_new ();
    zhashx_set_destructor (self->tasks, s_record_free);
    self->fleet_index = zhashx_new ();
    self->gather = zhashx_new ();
    zhashx_set_destructor (self->gather, s_gathered_free);
    self->silent = zhashx_new ();
    self->last.complete = 1;
    return self;
}

//  Free the fleet's copy
static void
s_fleet_clear (drover_reconciler_t *self)
{
    for (size_t index = 0; index < self->nfleet; index++) {
        free ((char *) self->fleet [index].id);
        free ((char *) self->fleet [index].labels);
    }
    free (self->fleet);
    free (self->fleet_ids);
    free (self->fleet_hashes);
    self->fleet = NULL;
    self->fleet_ids = NULL;
    self->fleet_hashes = NULL;
    self->nfleet = 0;
    zhashx_purge (self->fleet_index);
}

//  Destroy a reconciler
void
drover_reconciler_destroy (drover_reconciler_t **self_p)
{
    assert (self_p);
    drover_reconciler_t *self = *self_p;
    if (self) {
        s_fleet_clear (self);
        zhashx_destroy (&self->fleet_index);
        zhashx_destroy (&self->gather);
        zhashx_destroy (&self->silent);
        zhashx_destroy (&self->services);
        zhashx_destroy (&self->tasks);
        free (self->sorted);
        free (self->place);
        free (self->touched);
        free (self->holdable);
        free (self->slotplan);
        free (self);
        *self_p = NULL;
    }
}

//  Make room for one more entry of size bytes in an array
static void *
s_grow (void *array, size_t used, size_t *allocated_p, size_t size)
{
    if (used < *allocated_p)
        return array;
    *allocated_p = *allocated_p? *allocated_p * 2: 4;
    array = realloc (array, *allocated_p * size);
    assert (array);
    return array;
}

//  Give a service at least count slots (new ones empty)
static void
s_service_resize (s_service_t *service, uint32_t count)
{
    if (count <= service->nslots)
        return;
    service->slots = (s_slot_t *) realloc (service->slots, count * sizeof (s_slot_t));
    assert (service->slots);
    memset (service->slots + service->nslots, 0, (count - service->nslots) * sizeof (s_slot_t));
    service->nslots = count;
}

//  Return a service's slot, NULL if past its slots
static s_slot_t *
s_slot (s_service_t *service, uint32_t slot)
{
    return slot < service->nslots? &service->slots [slot]: NULL;
}

//  Return true if a slot holds nothing: no replica task, no start
static bool
s_slot_empty (const s_slot_t *slot)
{
    return slot->nrecords == 0 && slot->npending == 0;
}

//  Drop the empty slots past a service's replicas, and the service
//  itself once deleted and empty. Returns true if it was dropped.
static bool
s_service_prune (drover_reconciler_t *self, s_service_t *service)
{
    uint32_t wanted = service->defined? service->def.replicas: 0;
    while (service->nslots > wanted && s_slot_empty (&service->slots [service->nslots - 1])) {
        s_slot_t *slot = &service->slots [--service->nslots];
        free (slot->records);
        free (slot->pending);
    }
    if (service->defined || service->nslots)
        return false;
    zhashx_delete (self->services, service->def.name);
    self->sorted_dirty = true;
    return true;
}

//  Set a service's definition fields from def (labels copied)
static void
s_service_set (s_service_t *service, const drover_service_row_t *def)
{
    for (uint32_t index = 0; index < service->def.nlabels; index++)
        free (service->def.labels [index]);
    free (service->labels);
    uint64_t created = service->def.created;
    memset (&service->def, 0, sizeof service->def);
    snprintf (service->def.name, sizeof service->def.name, "%s", def->name);
    service->def.replicas = def->replicas;
    service->def.procs = def->procs? def->procs: 1;
    service->def.mem = def->mem;
    service->def.restart_delay = def->restart_delay;
    service->def.max_per_worker = def->max_per_worker;
    service->def.created = def->created? def->created: created;
    snprintf (service->def.summary, sizeof service->def.summary, "%s", def->summary);
    size_t joined_size = 1;
    uint32_t nlabels = def->nlabels < DROVER_LABELS_MAX? def->nlabels: DROVER_LABELS_MAX;
    for (uint32_t index = 0; index < nlabels; index++) {
        service->def.labels [index] = strdup (def->labels [index]? def->labels [index]: "");
        assert (service->def.labels [index]);
        joined_size += strlen (service->def.labels [index]) + 1;
    }
    service->def.nlabels = nlabels;
    service->labels = (char *) zmalloc (joined_size);
    for (uint32_t index = 0; index < nlabels; index++) {
        if (index)
            strcat (service->labels, "\n");
        strcat (service->labels, service->def.labels [index]);
    }
}

//  Make an undefined service of a name, to hold replicas no longer wanted
static s_service_t *
s_service_shell (drover_reconciler_t *self, const char *name)
{
    s_service_t *service = (s_service_t *) zmalloc (sizeof (s_service_t));
    snprintf (service->def.name, sizeof service->def.name, "%s", name);
    service->labels = strdup ("");
    assert (service->labels);
    zhashx_insert (self->services, service->def.name, service);
    self->sorted_dirty = true;
    return service;
}

//  Count the replicas wanted over the defined services
static uint64_t
s_wanted_total (drover_reconciler_t *self)
{
    uint64_t total = 0;
    s_service_t *service = (s_service_t *) zhashx_first (self->services);
    for (; service; service = (s_service_t *) zhashx_next (self->services))
        if (service->defined)
            total += service->def.replicas;
    return total;
}

//  Define a service
int
drover_reconciler_define (drover_reconciler_t *self, const drover_service_row_t *def,
                         uint64_t now)
{
    assert (self && def);
    s_service_t *service = (s_service_t *) zhashx_lookup (self->services, def->name);
    bool replaces = service && service->defined;
    uint64_t others = s_wanted_total (self) - (replaces? service->def.replicas: 0);
    if (others + def->replicas > self->config.max_replicas)
        return -1;                      //  past service/max-replicas
    if (!replaces && drover_reconciler_services (self) >= self->config.max_services)
        return -1;                      //  past service/max-services
    if (!service)
        service = s_service_shell (self, def->name);
    if (!replaces)
        service->def.created = 0;
    s_service_set (service, def);
    if (!service->def.created)
        service->def.created = now;
    service->defined = true;
    s_service_resize (service, service->def.replicas);
    return replaces? 1: 0;
}

//  Set a service's replicas
int
drover_reconciler_scale (drover_reconciler_t *self, const char *name, uint32_t replicas,
                        uint64_t now)
{
    assert (self && name);
    s_service_t *service = (s_service_t *) zhashx_lookup (self->services, name);
    if (!service || !service->defined)
        return -1;                      //  unknown
    if (s_wanted_total (self) - service->def.replicas + replicas > self->config.max_replicas)
        return -1;                      //  past service/max-replicas
    service->def.replicas = replicas;
    s_service_resize (service, replicas);
    s_service_prune (self, service);
    return 0;
}

//  Delete a service
int
drover_reconciler_undefine (drover_reconciler_t *self, const char *name, uint64_t now)
{
    assert (self && name);
    s_service_t *service = (s_service_t *) zhashx_lookup (self->services, name);
    if (!service || !service->defined)
        return -1;                      //  unknown
    service->defined = false;
    self->sorted_dirty = true;
    s_service_prune (self, service);
    return 0;
}

//  Return true if the service is defined
bool
drover_reconciler_has (drover_reconciler_t *self, const char *name)
{
    assert (self);
    s_service_t *service = name? (s_service_t *) zhashx_lookup (self->services, name): NULL;
    return service && service->defined;
}

//  Count the services defined
size_t
drover_reconciler_services (drover_reconciler_t *self)
{
    assert (self);
    size_t count = 0;
    s_service_t *service = (s_service_t *) zhashx_first (self->services);
    for (; service; service = (s_service_t *) zhashx_next (self->services))
        count += service->defined;
    return count;
}

//  Order services by name (qsort's comparator)
static int
s_compare_names (const void *one, const void *two)
{
    return strcmp ((*(s_service_t *const *) one)->def.name,
                   (*(s_service_t *const *) two)->def.name);
}

//  The services by name, deleted ones too
static s_service_t **
s_sorted (drover_reconciler_t *self, size_t *count_p)
{
    if (self->sorted_dirty || self->nsorted != zhashx_size (self->services)) {
        self->nsorted = zhashx_size (self->services);
        self->sorted = (s_service_t **) realloc (self->sorted,
                                                 (self->nsorted + 1) * sizeof (s_service_t *));
        assert (self->sorted);
        size_t index = 0;
        s_service_t *service = (s_service_t *) zhashx_first (self->services);
        for (; service; service = (s_service_t *) zhashx_next (self->services))
            self->sorted [index++] = service;
        qsort (self->sorted, self->nsorted, sizeof (s_service_t *), s_compare_names);
        self->sorted_dirty = false;
    }
    *count_p = self->nsorted;
    return self->sorted;
}

//  Return the replicas wanted of a service in a computation
static uint32_t
s_wanted_of (const s_service_t *service, const drover_reconciler_what_t *what)
{
    if (!service->defined)
        return 0;
    if (what && what->kind == DROVER_RECONCILER_PLAN && what->action == DROVER_PLAN_SCALE
    &&  what->service && streq (what->service, service->def.name))
        return what->count;
    return service->def.replicas;
}

//  Return the delay of a slot's next restart
static uint64_t
s_backoff (drover_reconciler_t *self, const s_service_t *service, uint32_t streak)
{
    uint64_t delay = service->def.restart_delay? service->def.restart_delay
                                                : self->config.restart_delay;
    for (uint32_t doubling = 1; doubling < streak && delay < self->config.max_restart_delay;
         doubling++)
        delay *= 2;
    return delay < self->config.max_restart_delay? delay: self->config.max_restart_delay;
}

//  Put a count in its histogram bucket: 0, 1, 2-3, 4-7, ... 64 or more
static int
s_bucket (uint32_t restarts)
{
    int bucket = 0;
    while (restarts && bucket < DROVER_HISTOGRAM_BUCKETS - 1) {
        restarts >>= 1;
        bucket++;
    }
    return bucket;
}

//  Take a start without a task from a slot, the one on worker if any,
//  else the oldest. Returns true if there was one.
static bool
s_pending_take (drover_reconciler_t *self, s_slot_t *slot, const char *worker)
{
    if (slot->npending == 0)
        return false;
    size_t found = 0;
    for (size_t index = 0; index < slot->npending; index++)
        if (worker && streq (slot->pending [index].worker, worker)) {
            found = index;
            break;
        }
    memmove (slot->pending + found, slot->pending + found + 1,
             (slot->npending - found - 1) * sizeof (s_pending_t));
    slot->npending--;
    self->npending--;
    return true;
}

//  Forget a record: out of its slot and out of self->tasks
static void
s_record_forget (drover_reconciler_t *self, s_slot_t *slot, s_record_t *record)
{
    for (size_t index = 0; slot && index < slot->nrecords; index++)
        if (slot->records [index] == record) {
            memmove (slot->records + index, slot->records + index + 1,
                     (slot->nrecords - index - 1) * sizeof (s_record_t *));
            slot->nrecords--;
            break;
        }
    char key [24];
    snprintf (key, sizeof key, "%" PRIu64, record->task);
    zhashx_delete (self->tasks, key);
}

//  Return true if a slot still has a replica that is not stopping, or a
//  start without a task
static bool
s_slot_kept (const s_slot_t *slot)
{
    if (slot->npending)
        return true;
    for (size_t index = 0; index < slot->nrecords; index++)
        if (slot->records [index]->state != S_STOPPING)
            return true;
    return false;
}

//  A replica task began or changed, not final: record it
static void
s_replica_live (drover_reconciler_t *self, const drover_replica_report_t *report, uint64_t now)
{
    char key [24];
    snprintf (key, sizeof key, "%" PRIu64, report->task);
    s_record_t *record = (s_record_t *) zhashx_lookup (self->tasks, key);
    if (!record) {
        if (report->slot >= self->config.max_replicas) {
            zsys_warning ("reconcile: task=%" PRIu64 " of service=%s has slot %u, past "
                          "service/max-replicas: ignored", report->task, report->service,
                          report->slot);
            return;
        }
        s_service_t *service = (s_service_t *) zhashx_lookup (self->services, report->service);
        if (!service)
            service = s_service_shell (self, report->service);
        s_service_resize (service, report->slot + 1);
        s_slot_t *slot = &service->slots [report->slot];
        record = (s_record_t *) zmalloc (sizeof (s_record_t));
        record->task = report->task;
        record->slot = report->slot;
        snprintf (record->service, sizeof record->service, "%s", report->service);
        record->state = S_PENDING;
        record->since = now;
        zhashx_insert (self->tasks, key, record);
        slot->records = (s_record_t **) s_grow (slot->records, slot->nrecords,
                                                &slot->records_size, sizeof (s_record_t *));
        slot->records [slot->nrecords++] = record;
        s_pending_take (self, slot, report->worker);
    }
    if (report->worker && *report->worker && !streq (record->worker, report->worker)) {
        snprintf (record->worker, sizeof record->worker, "%s", report->worker);
        record->fleet_gen = record->gather_gen = record->rank_sig = 0;
    }
    record->attempt = report->attempt;
    if (report->state == DROVER_TASK_RUNNING && record->running_since == 0) {
        record->running_since = now;
        if (record->state == S_PENDING) {
            record->state = S_RUNNING;
            record->since = now;
        }
    }
}

//  A replica task ended. Returns 1 if its service became CRASHING.
static int
s_replica_ended (drover_reconciler_t *self, const drover_replica_report_t *report, uint64_t now)
{
    char key [24];
    snprintf (key, sizeof key, "%" PRIu64, report->task);
    s_record_t *record = (s_record_t *) zhashx_lookup (self->tasks, key);
    s_service_t *service = (s_service_t *) zhashx_lookup (self->services,
                                                          record? record->service: report->service);
    uint32_t slot_number = record? record->slot: report->slot;
    s_slot_t *slot = service? s_slot (service, slot_number): NULL;
    bool stopped = false;
    uint64_t ran_since = 0;
    if (record) {
        stopped = record->state == S_STOPPING;
        ran_since = record->running_since;
        s_record_forget (self, slot, record);
    }
    else
    if (!slot || !s_pending_take (self, slot, report->worker))
        return 0;                       //  not one of ours: nothing to restart
    int crashing = 0;
    if (!stopped && service->defined && slot_number < service->def.replicas
    &&  !s_slot_kept (slot)) {
        slot->restarts++;
        service->restarts++;
        slot->since = now;
        if (report->why && *report->why)
            snprintf (slot->why, sizeof slot->why, "%s", report->why);
        else
            snprintf (slot->why, sizeof slot->why, "ended (%d)", (int) report->end);
        if (report->end == DROVER_END_LOST)
            slot->next_start = 0;       //  its worker is gone: no backoff
        else {
            bool quick = ran_since == 0 || now - ran_since < self->config.stable_after;
            slot->streak = quick? slot->streak + 1: 0;
            slot->next_start = now + s_backoff (self, service, slot->streak);
            crashing = quick && self->config.crash_warn
                    && slot->streak == self->config.crash_warn;
        }
    }
    s_service_prune (self, service);
    return crashing;
}

//  A replica task changed
int
drover_reconciler_replica (drover_reconciler_t *self, const drover_replica_report_t *report,
                          uint64_t now)
{
    assert (self && report && report->service);
    if (report->state == DROVER_TASK_QUEUED || report->state == DROVER_TASK_ASSIGNED
    ||  report->state == DROVER_TASK_RUNNING) {
        s_replica_live (self, report, now);
        return 0;
    }
    return s_replica_ended (self, report, now);
}

//  Replace the fleet
void
drover_reconciler_set_fleet (drover_reconciler_t *self, const drover_fleet_worker_t *workers,
                            size_t count)
{
    assert (self && (workers || count == 0));
    s_fleet_clear (self);
    self->fleet_gen++;
    self->fleet = (drover_fleet_worker_t *) zmalloc ((count + 1) * sizeof *self->fleet);
    self->fleet_ids = (const char **) zmalloc ((count + 1) * sizeof (char *));
    self->fleet_hashes = (uint64_t *) zmalloc ((count + 1) * sizeof (uint64_t));
    for (size_t index = 0; index < count; index++) {
        drover_fleet_worker_t *worker = &self->fleet [self->nfleet];
        *worker = workers [index];
        if (zhashx_lookup (self->fleet_index, workers [index].id))
            continue;                   //  listed twice: the first counts
        worker->id = strdup (workers [index].id);
        worker->labels = strdup (workers [index].labels? workers [index].labels: "");
        assert (worker->id && worker->labels);
        self->fleet_ids [self->nfleet] = worker->id;
        self->fleet_hashes [self->nfleet] = drover_rendezvous_hash (worker->id,
                                                                    strlen (worker->id));
        self->nfleet++;
        zhashx_insert (self->fleet_index, worker->id, (void *) (uintptr_t) self->nfleet);
    }
    if (self->place_size < self->nfleet + 1) {
        self->place_size = self->nfleet + 1;
        self->place = (s_place_t *) realloc (self->place, self->place_size * sizeof (s_place_t));
        self->touched = (uint32_t *) realloc (self->touched,
                                              self->place_size * sizeof (uint32_t));
        self->holdable = (bool *) realloc (self->holdable, self->place_size * sizeof (bool));
        assert (self->place && self->touched && self->holdable);
    }
}

//  Return the fleet index of a worker, -1 if not in the fleet
static long
s_worker_index (drover_reconciler_t *self, const char *worker)
{
    uintptr_t found = (uintptr_t) zhashx_lookup (self->fleet_index, worker);
    return (long) found - 1;
}

//  Start a term's gather
void
drover_reconciler_gather_begin (drover_reconciler_t *self, uint64_t term, uint64_t now)
{
    assert (self);
    zhashx_purge (self->gather);
    for (size_t index = 0; index < self->nfleet; index++) {
        s_gathered_t *gathered = (s_gathered_t *) zmalloc (sizeof (s_gathered_t));
        zhashx_insert (self->gather, self->fleet [index].id, gathered);
    }
    self->gather_term = term;
    self->gather_at = now;
    self->gather_gen++;
    self->asked = (uint32_t) self->nfleet;
    self->answered = 0;
}

//  Order task ids (qsort's and bsearch's comparator)
static int
s_compare_tasks (const void *one, const void *two)
{
    uint64_t a = *(const uint64_t *) one, b = *(const uint64_t *) two;
    return a < b? -1: a > b? 1: 0;
}

//  A worker answered the gather
int
drover_reconciler_gathered (drover_reconciler_t *self, const char *worker,
                           const drover_taskref_t *refs, size_t count)
{
    assert (self && worker && (refs || count == 0));
    s_gathered_t *gathered = (s_gathered_t *) zhashx_lookup (self->gather, worker);
    if (!gathered)
        return -1;                      //  not asked in this gather
    if (!gathered->answered)
        self->answered++;
    gathered->answered = true;
    free (gathered->tasks);
    gathered->tasks = (uint64_t *) malloc ((count + 1) * sizeof (uint64_t));
    assert (gathered->tasks);
    for (size_t index = 0; index < count; index++)
        gathered->tasks [index] = refs [index].task;
    gathered->ntasks = count;
    qsort (gathered->tasks, count, sizeof (uint64_t), s_compare_tasks);
    return 0;
}

//  =========================================================================
//  Decisions (see the rules in drover_reconciler.h): one pass over the
//  services in name order, each in three steps
//
//  1. Each slot: which replica keeps it (running first, then pending, then
//     a start not yet reported; a replica on a draining worker, on a
//     worker out of the fleet, one its worker no longer runs, or one that
//     was moved away keeps nothing while another can), and what to stop:
//     slots past the replicas wanted (always), and, when removals are
//     allowed, replicas their worker no longer runs, and the others of a
//     slot whose keeper runs (duplicates, and what moved away).
//  2. Each slot kept by nothing and past its backoff gets a replica: the
//     first worker in the slot's rendezvous order that could hold one,
//     has room and stays within the even spread (floor = wanted / workers
//     that could hold one; at most wanted % workers of them hold one
//     more); none within the spread: the first with room; none: it waits.
//  3. Spread (terms and plans): from the highest slot down, a running
//     replica moves to the first worker in its order that has room and
//     holds at least two fewer of the service's replicas than its own.
//
//  Sanity: a term or plan whose gather is incomplete runs with removals
//  off; one whose removals (not asked by a definition: replicas not run,
//  duplicates, spread; stopping what moved is not counted) would stop
//  more than max-stop-percent of the running replicas is run again with
//  them off. Cost: O(replicas) for a steady term, plus O(workers) for
//  each replica placed or moved.
//  =========================================================================

//  One computation
typedef struct {
    drover_reconciler_t *self;   //  the reconciler (only its scratch changes)
    const drover_reconciler_what_t *what;    //  what it is for
    uint64_t now;               //  msec since the epoch
    drover_changeset_t *set;    //  what it decides
    bool removals;              //  removals not asked by a definition allowed, the
                                //  gather trusted, spread on
    bool judged;                //  a term or a plan: placement figures (ranks) counted
    uint32_t unasked;           //  those removals made, for the sanity check
    uint32_t moves_left;        //  rebalancing moves this computation may still make
    uint64_t holdable_sig;      //  the workers that could hold one of the service at
                                //  hand (self->holdable), as a signature: ranks cached
                                //  under it stay true
    zhashx_t *shapes;           //  "procs/mem/labels" -> workers that could hold one + 1
    drover_service_stats_t before;  //  the view now
    drover_service_stats_t after;   //  the view once every change is done
    //  The service at hand
    const s_service_t *service; //  the service
    uint32_t wanted;            //  its replicas in this computation
    size_t eligible;            //  workers that could hold one of its replicas
    uint32_t floor;             //  its even spread: each holds floor ...
    uint32_t extra;             //  ... and this many hold one more
    uint32_t at_ceil;           //  workers that could hold one holding more than floor
    int64_t running_now;        //  its replicas running now
    int64_t pending_now;        //  its replicas pending now
    int64_t running;            //  its replicas running, after the changes so far
    int64_t pending;            //  its replicas pending, likewise
} s_compute_t;

//  What an accept callback of the rendezvous is asked (every mode but
//  UNCAPPED also keeps within the service's max-per-worker)
typedef enum {
    S_ACCEPT_SPREAD,            //  could hold one, room, within the even spread
    S_ACCEPT_ROOM,              //  could hold one, room
    S_ACCEPT_FEWER,             //  could hold one, room, holds fewer than threshold - 1
    S_ACCEPT_UNCAPPED,          //  could hold one, room, max-per-worker or not
    S_ACCEPT_HOLD,              //  could hold one (room or not): the slot's best
    S_ACCEPT_BETTER             //  the source itself (nothing better), or: could hold
                                //  one, room, holds fewer than threshold (rebalance)
} s_accept_mode_t;

//  An accept callback's argument
typedef struct {
    s_compute_t *ctx;           //  the computation
    s_accept_mode_t mode;       //  what to check
    uint32_t threshold;         //  S_ACCEPT_FEWER, S_ACCEPT_BETTER: the source's count
    long source;                //  S_ACCEPT_BETTER: the source's fleet index
} s_accept_t;

//  Return true if a worker of the fleet could hold a replica of a service:
//  takes new work, answered the gather, big enough in all, has its labels
static bool
s_fits (drover_reconciler_t *self, size_t index, const s_service_t *service,
        drover_fleet_state_t state, bool silent)
{
    const drover_fleet_worker_t *worker = &self->fleet [index];
    return state == DROVER_FLEET_USABLE && !silent
        && worker->procs >= service->def.procs && worker->mem >= service->def.mem
        && drover_fleet_has_labels (worker, service->labels);
}

//  Return true if a worker could hold a replica of the service at hand
//  (as this computation sees it: a plan's drain or hold applied)
static bool
s_could_hold (s_compute_t *ctx, size_t index)
{
    const s_place_t *place = &ctx->self->place [index];
    return s_fits (ctx->self, index, ctx->service, place->state, place->silent);
}

//  Return true if a worker has room now for a replica of the service
static bool
s_has_room (s_compute_t *ctx, size_t index)
{
    const s_place_t *place = &ctx->self->place [index];
    return place->free_procs >= (int64_t) ctx->service->def.procs
        && place->free_mem >= 0 && (uint64_t) place->free_mem >= ctx->service->def.mem;
}

//  Replicas of the service at hand a worker holds
static uint32_t
s_count (s_compute_t *ctx, size_t index)
{
    const s_place_t *place = &ctx->self->place [index];
    return place->touched? place->count: 0;
}

//  Add to a worker's count of the service at hand, keeping at_ceil
static void
s_count_add (s_compute_t *ctx, size_t index, int delta)
{
    drover_reconciler_t *self = ctx->self;
    s_place_t *place = &self->place [index];
    if (!place->touched) {
        place->touched = true;
        place->count = 0;
        self->touched [self->ntouched++] = (uint32_t) index;
    }
    bool over_before = place->count > ctx->floor;
    place->count = (uint32_t) ((int64_t) place->count + delta);
    bool over_after = place->count > ctx->floor;
    if (over_before != over_after && s_could_hold (ctx, index))
        ctx->at_ceil = over_after? ctx->at_ceil + 1: ctx->at_ceil - 1;
}

//  Rendezvous accept callback: see s_accept_mode_t
static bool
s_accept (size_t index, void *arg)
{
    s_accept_t *accept = (s_accept_t *) arg;
    s_compute_t *ctx = accept->ctx;
    if (accept->mode == S_ACCEPT_BETTER && (long) index == accept->source)
        return true;                    //  reached the source: nothing better
    if (accept->mode == S_ACCEPT_HOLD)
        return s_could_hold (ctx, index);
    if (!s_could_hold (ctx, index) || !s_has_room (ctx, index))
        return false;
    uint32_t count = s_count (ctx, index);
    uint32_t cap = ctx->service->def.max_per_worker;
    if (cap && count >= cap && accept->mode != S_ACCEPT_UNCAPPED)
        return false;                   //  holds max-per-worker already
    if (accept->mode == S_ACCEPT_SPREAD)
        return count < ctx->floor || (count == ctx->floor && ctx->at_ceil < ctx->extra);
    if (accept->mode == S_ACCEPT_FEWER)
        return count + 1 < accept->threshold;
    if (accept->mode == S_ACCEPT_BETTER)
        return count < accept->threshold;
    return true;
}

//  Hash a slot's rendezvous key "SERVICE/SLOT"
static uint64_t
s_slot_hash (const s_service_t *service, uint32_t slot)
{
    char key [DROVER_ID_MAX + 16];
    int length = snprintf (key, sizeof key, "%s/%u", service->def.name, slot);
    return drover_rendezvous_hash (key, (size_t) length);
}

//  Find the first worker in a slot's rendezvous order that accept takes
//  (S_ACCEPT_BETTER: source is the replica's worker), -1 none
static long
s_find_from (s_compute_t *ctx, uint32_t slot, s_accept_mode_t mode, uint32_t threshold,
             long source)
{
    drover_reconciler_t *self = ctx->self;
    s_accept_t accept = { ctx, mode, threshold, source };
    return drover_rendezvous_best (s_slot_hash (ctx->service, slot),
                                   self->fleet_hashes, self->nfleet, self->fleet_ids,
                                   s_accept, &accept);
}

//  Find the first worker in a slot's rendezvous order that accept takes,
//  -1 none
static long
s_find (s_compute_t *ctx, uint32_t slot, s_accept_mode_t mode, uint32_t threshold)
{
    return s_find_from (ctx, slot, mode, threshold, -1);
}

//  Note which workers could hold a replica of the service at hand
//  (self->holdable) and sign that set (order-free: the fleet may list its
//  workers in another order next time)
static void
s_holdable_init (s_compute_t *ctx)
{
    drover_reconciler_t *self = ctx->self;
    uint64_t sig = 1;
    for (size_t index = 0; index < self->nfleet; index++) {
        self->holdable [index] = s_could_hold (ctx, index);
        if (self->holdable [index])
            sig += drover_rendezvous_score (0x9e3779b97f4a7c15ull, self->fleet_hashes [index]);
    }
    ctx->holdable_sig = sig? sig: 1;
}

//  Return the rank of a worker in a slot's rendezvous order among the
//  workers that could hold a replica of the service at hand (holdable,
//  set by s_holdable_init): 0 when none ranks before it (its best
//  position). O(workers), a score each.
static uint32_t
s_rank_of (s_compute_t *ctx, uint32_t slot, size_t worker)
{
    drover_reconciler_t *self = ctx->self;
    uint64_t key = s_slot_hash (ctx->service, slot);
    uint64_t own = drover_rendezvous_score (key, self->fleet_hashes [worker]);
    uint32_t rank = 0;
    for (size_t index = 0; index < self->nfleet; index++) {
        if (index == worker || !self->holdable [index])
            continue;
        uint64_t score = drover_rendezvous_score (key, self->fleet_hashes [index]);
        rank += score > own || (score == own && strcmp (self->fleet_ids [index],
                                                        self->fleet_ids [worker]) < 0);
    }
    return rank;
}

//  Return the rank of a replica's worker in its slot's order, cached in
//  the record while the workers that could hold one stay the same (a
//  steady term costs O(replicas), not O(replicas x workers))
static uint32_t
s_record_rank (s_compute_t *ctx, s_record_t *record, size_t worker)
{
    if (record->rank_sig != ctx->holdable_sig) {
        record->rank = s_rank_of (ctx, record->slot, worker);
        record->rank_sig = ctx->holdable_sig;
    }
    return record->rank;
}

//  Append a change to the set
static void
s_emit (s_compute_t *ctx, drover_change_kind_t kind, uint32_t slot, uint64_t task,
        const char *from, const char *to, const char *why)
{
    drover_planchange_t change = { 0 };
    change.kind = (uint8_t) kind;
    if (ctx->service)
        snprintf (change.service, sizeof change.service, "%s", ctx->service->def.name);
    change.slot = slot;
    change.task = task;
    snprintf (change.from, sizeof change.from, "%s", from? from: "");
    snprintf (change.to, sizeof change.to, "%s", to? to: "");
    snprintf (change.why, sizeof change.why, "%s", why);
    drover_changeset_add (ctx->set, &change);
    if (kind == DROVER_CHANGE_START)
        ctx->after.started++;
    else
    if (kind == DROVER_CHANGE_STOP)
        ctx->after.stopped++;
    else
    if (kind == DROVER_CHANGE_MOVE)
        ctx->after.moved++;
}

//  Stop a record; its tally leaves the service's
static void
s_stop (s_compute_t *ctx, s_record_t *record, bool counted, const char *why)
{
    s_emit (ctx, DROVER_CHANGE_STOP, record->slot, record->task, record->worker, "", why);
    if (s_record_worker (ctx->self, record) >= 0) {
        if (record->state == S_RUNNING)
            ctx->running--;
        else
            ctx->pending--;
    }
    ctx->unasked += counted;
}

//  Return true if a start without a task still counts (not expired)
static bool
s_pending_live (s_compute_t *ctx, const s_pending_t *pending)
{
    return ctx->now - pending->since <= S_PENDING_EXPIRY (ctx->self);
}

//  Return true if the gather says a running replica's worker no longer runs
//  it: the worker answered, and the replica ran before it was asked
static bool
s_not_run (s_compute_t *ctx, s_record_t *record)
{
    if (!ctx->removals || record->state != S_RUNNING
    ||  record->running_since >= ctx->self->gather_at)
        return false;
    if (record->gather_gen != ctx->self->gather_gen) {
        record->gathered = zhashx_lookup (ctx->self->gather, record->worker);
        record->gather_gen = ctx->self->gather_gen;
    }
    s_gathered_t *gathered = (s_gathered_t *) record->gathered;
    if (!gathered || !gathered->answered)
        return false;
    return !bsearch (&record->task, gathered->tasks, gathered->ntasks, sizeof (uint64_t),
                     s_compare_tasks);
}

//  Rank of a record as its slot's keeper, higher better, -1 cannot keep
static int
s_rank (s_compute_t *ctx, s_record_t *record)
{
    long index = s_record_worker (ctx->self, record);
    if (index < 0 || ctx->self->place [index].state == DROVER_FLEET_DRAINING)
        return -1;
    return (record->leaving? 0: 3) + (record->state == S_RUNNING);
}

//  Step 1 for one slot: tally it, choose its keeper, stop what it asks
static void
s_slot_classify (s_compute_t *ctx, s_slot_t *slot, uint32_t number, s_slotplan_t *plan)
{
    drover_reconciler_t *self = ctx->self;
    memset (plan, 0, sizeof *plan);
    plan->placed = -1;
    bool lost = false, not_run = false;
    s_record_t *keeper = NULL;
    int keeper_rank = -1;
    for (size_t index = 0; slot && index < slot->nrecords; index++) {
        s_record_t *record = slot->records [index];
        if (record->state == S_STOPPING)
            continue;
        long worker = s_record_worker (self, record);
        if (worker >= 0 && record->state == S_RUNNING) {
            ctx->running_now++;
            ctx->running++;
        }
        else
        if (worker >= 0) {
            ctx->pending_now++;
            ctx->pending++;
        }
        if (number >= ctx->wanted) {
            s_stop (ctx, record, false, ctx->service->defined? "scaled down": "service deleted");
            continue;
        }
        if (worker < 0)
            lost = true;
        else
        if (s_not_run (ctx, record)) {
            s_stop (ctx, record, true, "not running on its worker");
            not_run = true;
        }
        else {
            int rank = s_rank (ctx, record);
            if (rank < 0) {
                if (!plan->move_from || record->state == S_RUNNING)
                    plan->move_from = record;   //  on a draining worker
            }
            else
            if (rank > keeper_rank || (rank == keeper_rank && record->task < keeper->task)) {
                keeper = record;
                keeper_rank = rank;
            }
        }
    }
    bool started = false;
    long started_on = -1;
    for (size_t index = 0; slot && index < slot->npending; index++) {
        long worker = s_worker_index (self, slot->pending [index].worker);
        if (worker < 0 || !s_pending_live (ctx, &slot->pending [index]))
            continue;
        ctx->pending_now++;
        ctx->pending++;
        if (self->place [worker].state != DROVER_FLEET_DRAINING && !started) {
            started = true;
            started_on = worker;
        }
    }
    if (number >= ctx->wanted)
        return;
    //  A start not yet reported keeps the slot before a replica moved away
    if (started && keeper_rank < 3) {
        keeper = NULL;
        s_count_add (ctx, (size_t) started_on, 1);
        plan->held = true;
    }
    else
    if (keeper) {
        s_count_add (ctx, (size_t) s_record_worker (self, keeper), 1);
        plan->held = true;
        plan->keeper = keeper;
    }
    //  Once its keeper runs, the slot's other replicas stop
    for (size_t index = 0; keeper && keeper->state == S_RUNNING && ctx->removals
                           && index < slot->nrecords; index++) {
        s_record_t *record = slot->records [index];
        if (record == keeper || record->state == S_STOPPING
        ||  s_record_worker (self, record) < 0 || s_not_run (ctx, record))
            continue;
        if (record->leaving || s_rank (ctx, record) < 0)
            s_stop (ctx, record, false, record->leaving? "moved": "worker draining");
        else
            s_stop (ctx, record, true, "duplicate");
    }
    if (plan->held)
        plan->move_from = NULL;
    else
        plan->why = plan->move_from? "worker draining": lost? "worker lost"
                  : not_run? "not running on its worker"
                  : slot && slot->restarts? "restart": "new replica";
}

//  Return the workers that could hold a replica of the service at hand
//  (cached by its shape for this computation)
static size_t
s_eligible_count (s_compute_t *ctx)
{
    char *shape = zsys_sprintf ("%u/%" PRIu64 "/%s", ctx->service->def.procs,
                                ctx->service->def.mem, ctx->service->labels);
    uintptr_t cached = (uintptr_t) zhashx_lookup (ctx->shapes, shape);
    if (!cached) {
        size_t count = 0;
        for (size_t index = 0; index < ctx->self->nfleet; index++)
            count += s_could_hold (ctx, index);
        cached = count + 1;
        zhashx_insert (ctx->shapes, shape, (void *) cached);
    }
    zstr_free (&shape);
    return (size_t) cached - 1;
}

//  Step 2 for one slot kept by nothing: place a replica, or wait
static void
s_slot_place (s_compute_t *ctx, s_slot_t *slot, uint32_t number, s_slotplan_t *plan)
{
    drover_reconciler_t *self = ctx->self;
    if (slot && slot->next_start > ctx->now) {
        if (!ctx->set->next || slot->next_start < ctx->set->next)
            ctx->set->next = slot->next_start;
        return;                         //  in its restart backoff
    }
    long target = ctx->eligible? s_find (ctx, number, S_ACCEPT_SPREAD, 0): -1;
    if (target < 0 && ctx->eligible)
        target = s_find (ctx, number, S_ACCEPT_ROOM, 0);
    if (target < 0) {
        //  A worker with room that holds max-per-worker already: say so
        if (ctx->eligible && ctx->service->def.max_per_worker
        &&  s_find (ctx, number, S_ACCEPT_UNCAPPED, 0) >= 0)
            ctx->after.capped++;
        return;                         //  no worker has room: it waits
    }
    plan->placed = target;
    const char *to = self->fleet [target].id;
    if (plan->move_from) {
        const s_record_t *source = plan->move_from;
        s_emit (ctx, DROVER_CHANGE_MOVE, number, source->task, source->worker, to, plan->why);
        *(source->state == S_RUNNING? &ctx->running: &ctx->pending) -= 1;
    }
    else
        s_emit (ctx, DROVER_CHANGE_START, number, 0, "", to, plan->why);
    ctx->running++;
    s_count_add (ctx, (size_t) target, 1);
    self->place [target].free_procs -= ctx->service->def.procs;
    self->place [target].free_mem -= (int64_t) ctx->service->def.mem;
}

//  Carry out a spread move of a slot's keeper from source to target
static void
s_spread_move (s_compute_t *ctx, s_slotplan_t *plans, uint32_t number, long source,
               long target)
{
    drover_reconciler_t *self = ctx->self;
    s_record_t *keeper = plans [number].keeper;
    s_emit (ctx, DROVER_CHANGE_MOVE, number, keeper->task, keeper->worker,
            self->fleet [target].id, "spread");
    plans [number].placed = target;
    ctx->unasked++;
    s_count_add (ctx, (size_t) source, -1);
    s_count_add (ctx, (size_t) target, 1);
    self->place [target].free_procs -= ctx->service->def.procs;
    self->place [target].free_mem -= (int64_t) ctx->service->def.mem;
}

//  Return the worker of a slot's keeper if it is running settled on a
//  worker taking new work (a spread or rebalance source), else -1
static long
s_settled_source (s_compute_t *ctx, s_slotplan_t *plans, uint32_t number)
{
    s_record_t *keeper = plans [number].keeper;
    if (!keeper || keeper->state != S_RUNNING || keeper->leaving || plans [number].placed >= 0)
        return -1;
    long source = s_record_worker (ctx->self, keeper);
    return source >= 0 && ctx->self->place [source].state == DROVER_FLEET_USABLE? source: -1;
}

//  Step 3 (rebalancing off): move running replicas from workers holding
//  at least two more of the service's than another that has room, to the
//  first such in the slot's order, highest slots first
static void
s_spread (s_compute_t *ctx, s_slotplan_t *plans)
{
    uint32_t hopeless = 1;              //  no target for a source holding this many
    for (uint32_t number = ctx->wanted; number-- > 0; ) {
        long source = s_settled_source (ctx, plans, number);
        if (source < 0 || s_count (ctx, (size_t) source) <= hopeless)
            continue;
        uint32_t count = s_count (ctx, (size_t) source);
        long target = s_find (ctx, number, S_ACCEPT_FEWER, count);
        if (target < 0) {
            hopeless = count;
            continue;
        }
        s_spread_move (ctx, plans, number, source, target);
    }
}

//  Return true if a worker holding count of the service at hand holds
//  more than its even share (floor, or floor + 1 for extra of them)
static bool
s_over (s_compute_t *ctx, uint32_t count)
{
    return count > ctx->floor + 1 || (count == ctx->floor + 1 && ctx->at_ceil > ctx->extra);
}

//  Step 3 (rebalancing on): the fewest moves that make the spread even,
//  each from a worker over its share to one under it, and first those
//  that take a replica to the first worker of its slot's order: a worker
//  that joins takes the replicas that rank it first, and only as many as
//  its share (about 1/(N+1) of them), the others stay where they are
static void
s_spread_ranked (s_compute_t *ctx, s_slotplan_t *plans)
{
    uint32_t fewest = UINT32_MAX;
    for (size_t index = 0; index < ctx->self->nfleet; index++)
        if (s_could_hold (ctx, index) && s_count (ctx, index) < fewest)
            fewest = s_count (ctx, index);
    if (fewest == UINT32_MAX || !(fewest < ctx->floor
                                  || (fewest == ctx->floor && ctx->at_ceil < ctx->extra)))
        return;                         //  nobody is under its share
    s_accept_t spread = { ctx, S_ACCEPT_SPREAD, 0, -1 };
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t number = ctx->wanted; number-- > 0; ) {
            long source = s_settled_source (ctx, plans, number);
            if (source < 0 || !s_over (ctx, s_count (ctx, (size_t) source)))
                continue;
            long target = s_find (ctx, number, pass? S_ACCEPT_SPREAD: S_ACCEPT_HOLD, 0);
            if (pass == 0 && (target < 0 || target == source
                          || !s_accept ((size_t) target, &spread)))
                continue;               //  at its best, or its best is full
            if (target < 0)
                return;                 //  no worker under its share has room
            s_spread_move (ctx, plans, number, source, target);
        }
}

//  Step 4, rebalancing (keep-balance): once a service runs its count, a
//  running replica moves to the first worker before its own in its slot's
//  rendezvous order that could hold one, has room and holds fewer of the
//  service's replicas than its own (so spread never worsens, and each move
//  betters the moved replica's rank: moves end). At most moves_left over a
//  computation; each is started there before it is stopped here.
static void
s_rebalance (s_compute_t *ctx, s_slotplan_t *plans)
{
    drover_reconciler_t *self = ctx->self;
    uint32_t fewest = UINT32_MAX;       //  the fewest a worker that could take one holds
    for (size_t index = 0; index < self->nfleet; index++)
        if (self->holdable [index] && s_has_room (ctx, index) && s_count (ctx, index) < fewest)
            fewest = s_count (ctx, index);
    for (uint32_t number = 0; number < ctx->wanted && ctx->moves_left; number++) {
        s_record_t *keeper = plans [number].keeper;
        if (!keeper || keeper->state != S_RUNNING || keeper->leaving
        ||  plans [number].placed >= 0)
            continue;                   //  not settled, or moved already
        long source = s_record_worker (self, keeper);
        if (source < 0 || !s_could_hold (ctx, (size_t) source))
            continue;                   //  held, on probation, silent: it stays
        if (s_count (ctx, (size_t) source) <= fewest
        ||  s_record_rank (ctx, keeper, (size_t) source) == 0)
            continue;                   //  nobody holds fewer, or at its best already
        long target = s_find_from (ctx, number, S_ACCEPT_BETTER,
                                   s_count (ctx, (size_t) source), source);
        if (target < 0 || target == source)
            continue;                   //  nothing better has room
        s_emit (ctx, DROVER_CHANGE_MOVE, number, keeper->task, keeper->worker,
                self->fleet [target].id, "rebalance");
        plans [number].placed = target;
        ctx->unasked++;
        ctx->moves_left--;
        ctx->after.rebalanced++;
        s_count_add (ctx, (size_t) source, -1);
        s_count_add (ctx, (size_t) target, 1);
        self->place [target].free_procs -= ctx->service->def.procs;
        self->place [target].free_mem -= (int64_t) ctx->service->def.mem;
    }
}

//  Count one replica's rank in a view's placement figures
static void
s_tally_rank (drover_service_stats_t *stats, uint32_t rank)
{
    if (rank == 0)
        stats->best++;
    else
        stats->not_best++;
    stats->ranks [s_bucket (rank)]++;
}

//  Placement figures of the service at hand: each slot's running replica
//  now (before), and each slot's replica once the changes are done (after)
static void
s_tally_ranks (s_compute_t *ctx, s_slotplan_t *plans, uint32_t wanted_before)
{
    drover_reconciler_t *self = ctx->self;
    for (uint32_t number = 0; number < ctx->wanted || number < wanted_before; number++) {
        bool planned = number < ctx->wanted;
        s_record_t *keeper = planned? plans [number].keeper: NULL;
        long now = keeper? s_record_worker (self, keeper): -1;
        uint32_t rank = 0;
        if (number < wanted_before && now >= 0 && keeper->state == S_RUNNING)
            s_tally_rank (&ctx->before, rank = s_record_rank (ctx, keeper, (size_t) now));
        long after = planned && plans [number].placed >= 0? plans [number].placed: now;
        if (planned && after >= 0 && after == now && keeper->state == S_RUNNING
        &&  number < wanted_before)
            s_tally_rank (&ctx->after, rank);       //  stays: the same rank
        else
        if (planned && after >= 0)
            s_tally_rank (&ctx->after, s_rank_of (ctx, number, (size_t) after));
    }
}

//  Count a service in a view's statistics
static void
s_tally (drover_service_stats_t *stats, uint32_t wanted, int64_t running, int64_t pending)
{
    stats->services++;
    stats->wanted += wanted;
    stats->running += (uint32_t) (running > 0? running: 0);
    stats->pending += (uint32_t) (pending > 0? pending: 0);
    if (wanted && running <= 0)
        stats->lost++;
    else
    if (running < wanted)
        stats->under++;
    else
    if (running > wanted)
        stats->over++;
    else
        stats->ok++;
}

//  Decide for one service, in its three steps
static void
s_service_compute (s_compute_t *ctx, s_service_t *service)
{
    drover_reconciler_t *self = ctx->self;
    ctx->service = service;
    ctx->wanted = s_wanted_of (service, ctx->what);
    ctx->running = ctx->pending = ctx->running_now = ctx->pending_now = 0;
    ctx->floor = ctx->extra = ctx->at_ceil = 0;
    ctx->eligible = 0;
    for (size_t index = 0; index < self->ntouched; index++)
        self->place [self->touched [index]].touched = false;
    self->ntouched = 0;
    uint32_t nslots = service->nslots > ctx->wanted? service->nslots: ctx->wanted;
    if (self->slotplan_size < nslots) {
        self->slotplan_size = nslots;
        self->slotplan = (s_slotplan_t *) realloc (self->slotplan,
                                                   nslots * sizeof (s_slotplan_t));
        assert (self->slotplan);
    }
    s_slotplan_t *plans = self->slotplan;
    bool placing = false;
    for (uint32_t number = 0; number < nslots; number++) {
        s_slot_t *slot = s_slot (service, number);
        s_slot_classify (ctx, slot, number, &plans [number]);
        placing |= number < ctx->wanted && !plans [number].held;
    }
    if (ctx->wanted && (placing || ctx->removals)) {
        ctx->eligible = s_eligible_count (ctx);
        if (ctx->eligible) {
            ctx->floor = (uint32_t) (ctx->wanted / ctx->eligible);
            ctx->extra = (uint32_t) (ctx->wanted % ctx->eligible);
        }
        ctx->at_ceil = 0;
        for (size_t index = 0; index < self->ntouched; index++)
            ctx->at_ceil += self->place [self->touched [index]].count > ctx->floor
                         && s_could_hold (ctx, self->touched [index]);
    }
    for (uint32_t number = 0; placing && number < ctx->wanted; number++)
        if (!plans [number].held)
            s_slot_place (ctx, s_slot (service, number), number, &plans [number]);
    if (ctx->removals && ctx->eligible) {
        if (self->config.rebalance_moves)
            s_spread_ranked (ctx, plans);
        else
            s_spread (ctx, plans);
    }
    //  Rebalance once the count is right: every slot held, what runs is
    //  what is wanted, nothing pending
    if (ctx->judged && service->defined)
        s_holdable_init (ctx);
    if (ctx->removals && ctx->eligible && ctx->moves_left && !placing
    &&  ctx->running_now == (int64_t) ctx->wanted && ctx->pending_now == 0)
        s_rebalance (ctx, plans);
    if (service->defined) {
        uint32_t wanted_before = service->def.replicas;
        if (ctx->judged)
            s_tally_ranks (ctx, plans, wanted_before);
        s_tally (&ctx->before, wanted_before, ctx->running_now, ctx->pending_now);
        s_tally (&ctx->after, ctx->wanted, ctx->running, ctx->pending);
        for (uint32_t number = 0; number < nslots; number++) {
            uint32_t restarts = number < service->nslots? service->slots [number].restarts: 0;
            if (number < wanted_before)
                ctx->before.restarts [s_bucket (restarts)]++;
            if (number < ctx->wanted)
                ctx->after.restarts [s_bucket (restarts)]++;
        }
    }
}

//  Set up every worker's state and free room: the fleet's, a plan's drain
//  or hold applied, less the starts not reported yet
static void
s_place_init (s_compute_t *ctx)
{
    drover_reconciler_t *self = ctx->self;
    for (size_t index = 0; index < self->nfleet; index++) {
        const drover_fleet_worker_t *worker = &self->fleet [index];
        s_place_t *place = &self->place [index];
        place->state = worker->state;
        place->free_procs = (int64_t) worker->procs - worker->procs_used;
        place->free_mem = (int64_t) worker->mem - (int64_t) worker->mem_used;
        place->count = 0;
        place->touched = false;
        //  A term goes by its own gather; a pass or a plan by the last term's
        if (ctx->what->kind == DROVER_RECONCILER_TERM) {
            s_gathered_t *gathered = (s_gathered_t *) zhashx_lookup (self->gather, worker->id);
            place->silent = gathered && !gathered->answered;
        }
        else
            place->silent = zhashx_size (self->silent)
                         && zhashx_lookup (self->silent, worker->id) != NULL;
    }
    self->ntouched = 0;
    const drover_reconciler_what_t *what = ctx->what;
    if (what->kind == DROVER_RECONCILER_PLAN && what->worker
    &&  (what->action == DROVER_PLAN_DRAIN || what->action == DROVER_PLAN_HOLD)) {
        long index = s_worker_index (self, what->worker);
        if (index >= 0)
            self->place [index].state = what->action == DROVER_PLAN_DRAIN?
                                        DROVER_FLEET_DRAINING: DROVER_FLEET_HELD;
    }
    if (self->npending == 0)
        return;
    size_t count;
    s_service_t **services = s_sorted (self, &count);
    for (size_t index = 0; index < count; index++)
        for (uint32_t number = 0; number < services [index]->nslots; number++) {
            s_slot_t *slot = &services [index]->slots [number];
            for (size_t start = 0; start < slot->npending; start++) {
                long worker = s_worker_index (self, slot->pending [start].worker);
                if (worker >= 0 && s_pending_live (ctx, &slot->pending [start])) {
                    self->place [worker].free_procs -= services [index]->def.procs;
                    self->place [worker].free_mem -= (int64_t) services [index]->def.mem;
                }
            }
        }
}

//  One whole pass: every service, then a drain plan's batch tasks
static void
s_compute_all (s_compute_t *ctx)
{
    drover_reconciler_t *self = ctx->self;
    drover_changeset_reset (ctx->set);
    ctx->set->kind = ctx->what->kind;
    memset (&ctx->before, 0, sizeof ctx->before);
    memset (&ctx->after, 0, sizeof ctx->after);
    ctx->unasked = 0;
    ctx->moves_left = self->config.rebalance_moves;
    ctx->service = NULL;
    s_place_init (ctx);
    size_t count;
    s_service_t **services = s_sorted (self, &count);
    for (size_t index = 0; index < count; index++)
        s_service_compute (ctx, services [index]);
    ctx->service = NULL;
    const drover_reconciler_what_t *what = ctx->what;
    s_gathered_t *gathered = what->kind == DROVER_RECONCILER_PLAN
                          && what->action == DROVER_PLAN_DRAIN && what->worker?
                             (s_gathered_t *) zhashx_lookup (self->gather, what->worker): NULL;
    for (size_t index = 0; gathered && index < gathered->ntasks; index++) {
        char key [24];
        snprintf (key, sizeof key, "%" PRIu64, gathered->tasks [index]);
        if (!zhashx_lookup (self->tasks, key))
            s_emit (ctx, DROVER_CHANGE_FINISH, 0, gathered->tasks [index], what->worker, "",
                    "drain lets it finish");
    }
}

//  Order worker ids (zlistx's comparator)
static int
s_compare_ids (const void *one, const void *two)
{
    return strcmp ((const char *) one, (const char *) two);
}

//  Say which workers did not answer the gather, in why
static void
s_why_incomplete (drover_reconciler_t *self, char *why, size_t size)
{
    zlistx_t *silent = zlistx_new ();
    zlistx_set_comparator (silent, s_compare_ids);
    s_gathered_t *gathered = (s_gathered_t *) zhashx_first (self->gather);
    for (; gathered; gathered = (s_gathered_t *) zhashx_next (self->gather))
        if (!gathered->answered)
            zlistx_add_end (silent, (void *) zhashx_cursor (self->gather));
    zlistx_sort (silent);
    size_t total = zlistx_size (silent), named = 0;
    int used = snprintf (why, size, "incomplete: ");
    for (const char *id = (const char *) zlistx_first (silent); id && named < 3;
         id = (const char *) zlistx_next (silent), named++)
        used += snprintf (why + used, size - (size_t) used, "%s%s", named? ", ": "", id);
    if (total > named)
        snprintf (why + used, size - (size_t) used, " and %zu more", total - named);
    snprintf (why + strlen (why), size - strlen (why), " did not answer");
    zlistx_destroy (&silent);
}

//  Compute a change set
void
drover_reconciler_compute (drover_reconciler_t *self, const drover_reconciler_what_t *what,
                          uint64_t now, drover_changeset_t *set)
{
    assert (self && what && set);
    s_compute_t ctx = { .self = self, .what = what, .now = now, .set = set };
    ctx.shapes = zhashx_new ();
    bool judged = what->kind != DROVER_RECONCILER_PASS;
    bool incomplete = judged && self->answered < self->asked;
    ctx.removals = judged && !incomplete;
    ctx.judged = judged;
    s_compute_all (&ctx);
    char why [DROVER_REASON_MAX + 1] = "";
    if (incomplete)
        s_why_incomplete (self, why, sizeof why);
    else
    if (judged && (uint64_t) ctx.unasked * 100
                > (uint64_t) self->config.max_stop_percent * ctx.before.running) {
        snprintf (why, sizeof why, "implausible: would stop %u of %u running replicas "
                  "(over %u%%)", ctx.unasked, ctx.before.running,
                  self->config.max_stop_percent);
        ctx.removals = false;
        s_compute_all (&ctx);
    }
    zhashx_destroy (&ctx.shapes);
    //  The view now carries the last term's; the view after, this one's
    const drover_service_stats_t *last = &self->last;
    set->before = ctx.before;
    set->before.term = last->term;
    set->before.at = last->at;
    set->before.duration = last->duration;
    set->before.complete = last->complete;
    snprintf (set->before.why, sizeof set->before.why, "%s", last->why);
    set->before.workers = last->workers;
    set->before.answered = last->answered;
    set->before.started = last->started;
    set->before.stopped = last->stopped;
    set->before.moved = last->moved;
    set->before.capped = last->capped;
    set->before.rebalanced = last->rebalanced;
    set->after = ctx.after;
    bool term = what->kind == DROVER_RECONCILER_TERM;
    set->after.term = term? self->gather_term: last->term;
    set->after.at = term? now: last->at;
    set->after.duration = term && now > self->gather_at? (uint32_t) (now - self->gather_at): 0;
    set->after.complete = !*why;
    snprintf (set->after.why, sizeof set->after.why, "%s", why);
    set->after.workers = judged? self->asked: last->workers;
    set->after.answered = judged? self->answered: last->answered;
}

//  =========================================================================
//  Commit: a change set carried out, the term's statistics, change sets
//  =========================================================================

//  Record a change set as carried out
void
drover_reconciler_commit (drover_reconciler_t *self, const drover_changeset_t *set,
                         uint64_t now)
{
    assert (self && set);
    assert (set->kind != DROVER_RECONCILER_PLAN);
    for (size_t index = 0; index < set->count; index++) {
        const drover_planchange_t *change = &set->changes [index];
        char key [24];
        snprintf (key, sizeof key, "%" PRIu64, change->task);
        s_record_t *record = change->task?
            (s_record_t *) zhashx_lookup (self->tasks, key): NULL;
        if (change->kind == DROVER_CHANGE_START || change->kind == DROVER_CHANGE_MOVE) {
            s_service_t *service = (s_service_t *) zhashx_lookup (self->services,
                                                                  change->service);
            if (!service)
                continue;               //  gone since: nothing to start
            s_service_resize (service, change->slot + 1);
            s_slot_t *slot = &service->slots [change->slot];
            slot->pending = (s_pending_t *) s_grow (slot->pending, slot->npending,
                                                    &slot->pending_size, sizeof (s_pending_t));
            s_pending_t *pending = &slot->pending [slot->npending++];
            snprintf (pending->worker, sizeof pending->worker, "%s", change->to);
            pending->since = now;
            slot->next_start = 0;
            self->npending++;
            if (record && change->kind == DROVER_CHANGE_MOVE)
                record->leaving = true;
        }
        else
        if (change->kind == DROVER_CHANGE_STOP && record && record->state != S_STOPPING) {
            record->state = S_STOPPING;
            record->since = now;
            snprintf (record->why, sizeof record->why, "%s", change->why);
        }
    }
    //  Forget the starts never reported, end the crash streaks of replicas
    //  that now run long enough, drop what is empty
    size_t count;
    s_service_t **services = s_sorted (self, &count);
    s_service_t **copy = (s_service_t **) malloc ((count + 1) * sizeof (s_service_t *));
    assert (copy);
    memcpy (copy, services, count * sizeof (s_service_t *));
    for (size_t index = 0; index < count; index++) {
        s_service_t *service = copy [index];
        for (uint32_t number = 0; number < service->nslots; number++) {
            s_slot_t *slot = &service->slots [number];
            while (slot->npending && now - slot->pending [0].since > S_PENDING_EXPIRY (self))
                s_pending_take (self, slot, NULL);
            for (size_t record = 0; record < slot->nrecords; record++)
                if (slot->records [record]->state == S_RUNNING
                &&  now - slot->records [record]->running_since >= self->config.stable_after)
                    slot->streak = 0;
        }
        s_service_prune (self, service);
    }
    free (copy);
    if (set->kind == DROVER_RECONCILER_TERM) {
        self->last = set->after;
        //  Who the gather did not hear gets no new replicas until the next term
        zhashx_purge (self->silent);
        s_gathered_t *gathered = (s_gathered_t *) zhashx_first (self->gather);
        for (; gathered; gathered = (s_gathered_t *) zhashx_next (self->gather))
            if (!gathered->answered)
                zhashx_insert (self->silent, zhashx_cursor (self->gather), (void *) 1);
    }
}

//  The last term's statistics
const drover_service_stats_t *
drover_reconciler_stats (drover_reconciler_t *self)
{
    assert (self);
    return &self->last;
}

//  Empty a change set for reuse
void
drover_changeset_reset (drover_changeset_t *set)
{
    assert (set);
    free (set->changes);
    memset (set, 0, sizeof *set);
}

//  Append a change to a change set
void
drover_changeset_add (drover_changeset_t *set, const drover_planchange_t *change)
{
    assert (set && change);
    set->changes = (drover_planchange_t *) s_grow (set->changes, set->count, &set->capacity,
                                                   sizeof (drover_planchange_t));
    set->changes [set->count++] = *change;
}

//  =========================================================================
//  Rows: the reconciler's view as SERVICE TABLE rows:
//  each service with its counts, state and why; each replica of one
//  =========================================================================

#define S_ROWS_MAX  10000       //  rows of each kind one table carries at most

//  Return true if a slot's replica has run long enough to end its streak
static bool
s_slot_stable (drover_reconciler_t *self, const s_slot_t *slot, uint64_t now)
{
    for (size_t index = 0; index < slot->nrecords; index++) {
        const s_record_t *record = slot->records [index];
        if (record->state == S_RUNNING && now - record->running_since >= self->config.stable_after)
            return true;
    }
    return false;
}

//  Say why a slot of a service waits with no backoff: the workers that
//  could hold one hold max-per-worker each already, or none has room
static void
s_waits_why (drover_reconciler_t *self, const s_service_t *service, char *why, size_t size)
{
    uint32_t cap = service->def.max_per_worker;
    size_t eligible = 0;
    for (size_t index = 0; cap && index < self->nfleet; index++) {
        bool silent = zhashx_size (self->silent)
                   && zhashx_lookup (self->silent, self->fleet [index].id) != NULL;
        eligible += s_fits (self, index, service, self->fleet [index].state, silent);
    }
    if (cap && (uint64_t) eligible * cap < service->def.replicas)
        snprintf (why, size, "max-per-worker %u: %zu eligible worker%s hold%s at most %"
                  PRIu64 " of %u replicas", cap, eligible, eligible == 1? "": "s",
                  eligible == 1? "s": "", (uint64_t) eligible * cap, service->def.replicas);
    else
        snprintf (why, size, "no worker has room");
}

//  Fill a service's row: its definition, counts, state and why
static void
s_service_row (drover_reconciler_t *self, const s_service_t *service, uint64_t now,
               drover_service_row_t *row)
{
    *row = service->def;
    for (uint32_t index = 0; index < row->nlabels; index++) {
        row->labels [index] = strdup (service->def.labels [index]);
        assert (row->labels [index]);
    }
    row->restarts = service->restarts;
    int crashing = -1, waiting = -1;
    for (uint32_t number = 0; number < service->nslots; number++) {
        const s_slot_t *slot = &service->slots [number];
        row->pending += (uint32_t) slot->npending;
        for (size_t index = 0; index < slot->nrecords; index++) {
            s_record_state_t state = slot->records [index]->state;
            row->running += state == S_RUNNING;
            row->pending += state == S_PENDING;
        }
        if (number >= service->def.replicas)
            continue;
        if (crashing < 0 && self->config.crash_warn && slot->streak >= self->config.crash_warn
        &&  !s_slot_stable (self, slot, now))
            crashing = (int) number;
        if (waiting < 0 && !s_slot_kept (slot))
            waiting = (int) number;
    }
    uint32_t wanted = service->def.replicas;
    row->state = crashing >= 0? DROVER_SERVICE_CRASHING
               : wanted && row->running == 0? DROVER_SERVICE_LOST
               : row->running < wanted? DROVER_SERVICE_UNDER
               : row->running > wanted? DROVER_SERVICE_OVER: DROVER_SERVICE_OK;
    if (crashing >= 0) {
        const s_slot_t *slot = &service->slots [crashing];
        snprintf (row->why, sizeof row->why, "slot %d exited quickly %u times in a row: %.160s",
                  crashing, slot->streak, slot->why);
    }
    else
    if (waiting >= 0) {
        const s_slot_t *slot = &service->slots [waiting];
        if (slot->next_start > now)
            snprintf (row->why, sizeof row->why, "slot %d restarts in %" PRIu64 "s: %.160s",
                      waiting, (slot->next_start - now + 999) / 1000, slot->why);
        else {
            char why [DROVER_REASON_MAX + 1];
            s_waits_why (self, service, why, sizeof why);
            snprintf (row->why, sizeof row->why, "slot %d waits: %.200s", waiting, why);
        }
    }
}

//  Append a replica row, if there is room
static drover_replica_row_t *
s_replica_row (drover_replica_row_t *rows, size_t *count_p, const s_service_t *service,
               uint32_t number, drover_replica_state_t state)
{
    if (*count_p >= S_ROWS_MAX)
        return NULL;
    drover_replica_row_t *row = &rows [(*count_p)++];
    memset (row, 0, sizeof *row);
    snprintf (row->service, sizeof row->service, "%s", service->def.name);
    row->slot = number;
    row->state = (uint8_t) state;
    row->restarts = number < service->nslots? service->slots [number].restarts: 0;
    return row;
}

//  Fill the replica rows of one service, by slot
static size_t
s_replica_rows (drover_reconciler_t *self, const s_service_t *service, uint64_t now,
                drover_replica_row_t *rows)
{
    size_t count = 0;
    for (uint32_t number = 0; number < service->nslots; number++) {
        const s_slot_t *slot = &service->slots [number];
        for (size_t index = 0; index < slot->nrecords; index++) {
            const s_record_t *record = slot->records [index];
            drover_replica_row_t *row = s_replica_row (rows, &count, service, number,
                record->state == S_RUNNING? DROVER_REPLICA_RUNNING
              : record->state == S_PENDING? DROVER_REPLICA_PENDING: DROVER_REPLICA_STOPPING);
            if (!row)
                return count;
            row->task = record->task;
            row->attempt = record->attempt;
            snprintf (row->worker, sizeof row->worker, "%s", record->worker);
            row->since = record->since;
            snprintf (row->why, sizeof row->why, "%s", record->state == S_STOPPING? record->why
                      : record->leaving? "moving away": "");
        }
        for (size_t index = 0; index < slot->npending; index++) {
            drover_replica_row_t *row = s_replica_row (rows, &count, service, number,
                                                       DROVER_REPLICA_PENDING);
            if (!row)
                return count;
            snprintf (row->worker, sizeof row->worker, "%s", slot->pending [index].worker);
            row->since = slot->pending [index].since;
            snprintf (row->why, sizeof row->why, "starting");
        }
        if (number < service->def.replicas && !s_slot_kept (slot)) {
            drover_replica_row_t *row = s_replica_row (rows, &count, service, number,
                                                       DROVER_REPLICA_WAITING);
            if (!row)
                return count;
            row->since = slot->since? slot->since: service->def.created;
            if (slot->next_start > now)
                snprintf (row->why, sizeof row->why, "backoff %" PRIu64 "s after: %.160s",
                          (slot->next_start - now + 999) / 1000, slot->why);
            else
                s_waits_why (self, service, row->why, sizeof row->why);
        }
    }
    return count;
}

//  Fill rows for SERVICE TABLE
int
drover_reconciler_rows (drover_reconciler_t *self, const char *name, uint64_t now,
                       drover_service_row_t **services_p, size_t *nservices_p,
                       drover_replica_row_t **replicas_p, size_t *nreplicas_p)
{
    assert (self && services_p && nservices_p && replicas_p && nreplicas_p);
    *services_p = NULL;
    *replicas_p = NULL;
    *nservices_p = *nreplicas_p = 0;
    bool one = name && *name;
    if (one && !drover_reconciler_has (self, name))
        return -1;                      //  unknown service
    size_t count;
    s_service_t **services = s_sorted (self, &count);
    drover_service_row_t *rows = (drover_service_row_t *) zmalloc ((count + 1) * sizeof *rows);
    size_t made = 0;
    for (size_t index = 0; index < count && made < S_ROWS_MAX; index++) {
        const s_service_t *service = services [index];
        if (service->defined && (!one || streq (service->def.name, name)))
            s_service_row (self, service, now, &rows [made++]);
    }
    *services_p = rows;
    *nservices_p = made;
    if (one) {
        const s_service_t *service = (s_service_t *) zhashx_lookup (self->services, name);
        size_t slots = service->nslots;
        size_t size = 1;
        for (size_t number = 0; number < slots; number++)
            size += service->slots [number].nrecords + service->slots [number].npending + 1;
        size = size < S_ROWS_MAX? size: S_ROWS_MAX;
        *replicas_p = (drover_replica_row_t *) zmalloc (size * sizeof (drover_replica_row_t));
        *nreplicas_p = s_replica_rows (self, service, now, *replicas_p);
    }
    return (int) made;
}

//  Free rows drover_reconciler_rows made
void
drover_reconciler_rows_free (drover_service_row_t **services_p, size_t nservices,
                            drover_replica_row_t **replicas_p)
{
    if (services_p && *services_p) {
        for (size_t index = 0; index < nservices; index++)
            for (uint32_t label = 0; label < (*services_p) [index].nlabels; label++)
                free ((*services_p) [index].labels [label]);
        free (*services_p);
        *services_p = NULL;
    }
    if (replicas_p && *replicas_p) {
        free (*replicas_p);
        *replicas_p = NULL;
    }
}
