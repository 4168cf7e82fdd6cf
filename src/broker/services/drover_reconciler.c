/*  =========================================================================
    drover_reconciler - the reconciler's decisions (see the header)

    The file reads top-down in four sections: the view (definitions,
    replica reports, the fleet, the gather), the decisions (compute, with
    drover_rebalance for where replicas go), commit, and the rows.

    Each service keeps its slots; each slot its replica tasks (records,
    also indexed by task id) and the starts committed whose task assign
    has not reported yet (pending). A deleted service stays, undefined,
    until its last replica is gone, so that its replicas are stopped.
    =========================================================================
*/

#include "drover_reconciler.h"
#include "drover_rebalance.h"

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
    drover_rebalance_rank_t rank;   //  its worker's rank in its slot's order, cached
                                    //  by drover_rebalance (sig 0: to work out)
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
    drover_rebalance_t *balance;    //  the workers' room and counts, placement, moves
                                    //  and ranks (its fleet: ours, borrowed)
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
    self->balance = drover_rebalance_new ();
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
    self->fleet = NULL;
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
        drover_rebalance_destroy (&self->balance);
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
        record->fleet_gen = record->gather_gen = 0;
        record->rank.sig = 0;
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
    for (size_t index = 0; index < count; index++) {
        drover_fleet_worker_t *worker = &self->fleet [self->nfleet];
        *worker = workers [index];
        if (zhashx_lookup (self->fleet_index, workers [index].id))
            continue;                   //  listed twice: the first counts
        worker->id = strdup (workers [index].id);
        worker->labels = strdup (workers [index].labels? workers [index].labels: "");
        assert (worker->id && worker->labels);
        self->nfleet++;
        zhashx_insert (self->fleet_index, worker->id, (void *) (uintptr_t) self->nfleet);
    }
    drover_rebalance_set_fleet (self->balance, self->fleet, self->nfleet);
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
//  services in name order, each in four steps; where replicas go (the
//  workers' room and counts, rendezvous order, spread, keep-balance and
//  ranks) is drover_rebalance's, what keeps or needs a slot is ours
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
//     holds at least two fewer of the service's replicas than its own
//     (rebalancing on: the fewest moves that even the spread out).
//  4. Keep-balance (rebalancing on, once the service runs its count):
//     running replicas move toward their slot's best worker, at most
//     rebalance-moves over the computation.
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
    drover_service_stats_t before;  //  the view now
    drover_service_stats_t after;   //  the view once every change is done
    //  The service at hand
    const s_service_t *service; //  the service
    uint32_t wanted;            //  its replicas in this computation
    size_t eligible;            //  workers that could hold one of its replicas (placement
                                //  and spread worked out: drover_rebalance_even), else 0
    int64_t running_now;        //  its replicas running now
    int64_t pending_now;        //  its replicas pending now
    int64_t running;            //  its replicas running, after the changes so far
    int64_t pending;            //  its replicas pending, likewise
} s_compute_t;

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

//  Return true if a worker of the fleet is draining, as this computation
//  sees it (a plan's drain applied)
static bool
s_draining (s_compute_t *ctx, long index)
{
    return drover_rebalance_state (ctx->self->balance, (size_t) index) == DROVER_FLEET_DRAINING;
}

//  Rank of a record as its slot's keeper, higher better, -1 cannot keep
static int
s_rank (s_compute_t *ctx, s_record_t *record)
{
    long index = s_record_worker (ctx->self, record);
    if (index < 0 || s_draining (ctx, index))
        return -1;
    return (record->leaving? 0: 3) + (record->state == S_RUNNING);
}

//  Step 1 for one slot: tally it, choose its keeper, stop what it asks
static void
s_slot_classify (s_compute_t *ctx, s_slot_t *slot, uint32_t number, s_slotplan_t *plan)
{
    drover_reconciler_t *self = ctx->self;
    memset (plan, 0, sizeof *plan);
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
        if (!s_draining (ctx, worker) && !started) {
            started = true;
            started_on = worker;
        }
    }
    if (number >= ctx->wanted)
        return;
    //  A start not yet reported keeps the slot before a replica moved away
    if (started && keeper_rank < 3) {
        keeper = NULL;
        drover_rebalance_hold (self->balance, (size_t) started_on);
        plan->held = true;
    }
    else
    if (keeper) {
        drover_rebalance_keep (self->balance, number, (size_t) s_record_worker (self, keeper),
                               keeper->state == S_RUNNING, keeper->leaving, &keeper->rank);
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
    bool capped;
    long target = drover_rebalance_place (self->balance, number, &capped);
    if (target < 0) {
        ctx->after.capped += capped;
        return;                         //  no worker has room: it waits
    }
    const char *to = self->fleet [target].id;
    if (plan->move_from) {
        const s_record_t *source = plan->move_from;
        s_emit (ctx, DROVER_CHANGE_MOVE, number, source->task, source->worker, to, plan->why);
        *(source->state == S_RUNNING? &ctx->running: &ctx->pending) -= 1;
    }
    else
        s_emit (ctx, DROVER_CHANGE_START, number, 0, "", to, plan->why);
    ctx->running++;
}

//  Steps 3 and 4: carry out the moves the spread or keep-balance decided
//  (why "spread" or "rebalance"): each slot's keeper started on its new
//  worker (stopped on its old one once that runs)
static void
s_moves (s_compute_t *ctx, s_slotplan_t *plans, const char *why)
{
    drover_reconciler_t *self = ctx->self;
    size_t count;
    const drover_rebalance_move_t *moves = drover_rebalance_moves (self->balance, &count);
    for (size_t index = 0; index < count; index++) {
        const s_record_t *keeper = plans [moves [index].slot].keeper;
        assert (keeper);
        s_emit (ctx, DROVER_CHANGE_MOVE, moves [index].slot, keeper->task, keeper->worker,
                self->fleet [moves [index].to].id, why);
        ctx->unasked++;
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

//  Describe a service as placement sees it, wanting wanted replicas
static void
s_shape (const s_service_t *service, uint32_t wanted, drover_rebalance_service_t *shape)
{
    shape->name = service->def.name;
    shape->procs = service->def.procs;
    shape->mem = service->def.mem;
    shape->labels = service->labels;
    shape->max_per_worker = service->def.max_per_worker;
    shape->wanted = wanted;
}

//  Decide for one service, in its steps
static void
s_service_compute (s_compute_t *ctx, s_service_t *service)
{
    drover_reconciler_t *self = ctx->self;
    ctx->service = service;
    ctx->wanted = s_wanted_of (service, ctx->what);
    ctx->running = ctx->pending = ctx->running_now = ctx->pending_now = 0;
    ctx->eligible = 0;
    uint32_t nslots = service->nslots > ctx->wanted? service->nslots: ctx->wanted;
    drover_rebalance_service_t shape;
    s_shape (service, ctx->wanted, &shape);
    drover_rebalance_service (self->balance, &shape, nslots);
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
    if (ctx->wanted && (placing || ctx->removals))
        ctx->eligible = drover_rebalance_even (self->balance);
    for (uint32_t number = 0; placing && number < ctx->wanted; number++)
        if (!plans [number].held)
            s_slot_place (ctx, s_slot (service, number), number, &plans [number]);
    if (ctx->removals && ctx->eligible && drover_rebalance_spread (self->balance))
        s_moves (ctx, plans, "spread");
    //  Rebalance once the count is right: every slot held, what runs is
    //  what is wanted, nothing pending
    if (ctx->removals && ctx->eligible && !placing
    &&  ctx->running_now == (int64_t) ctx->wanted && ctx->pending_now == 0) {
        ctx->after.rebalanced += (uint32_t) drover_rebalance_improve (self->balance);
        s_moves (ctx, plans, "rebalance");
    }
    if (service->defined) {
        uint32_t wanted_before = service->def.replicas;
        if (ctx->judged)
            drover_rebalance_figures (self->balance, wanted_before, &ctx->before, &ctx->after);
        s_tally (&ctx->before, wanted_before, ctx->running_now, ctx->pending_now);
        s_tally (&ctx->after, ctx->wanted, ctx->running, ctx->pending);
        for (uint32_t number = 0; number < nslots; number++) {
            uint32_t restarts = number < service->nslots? service->slots [number].restarts: 0;
            if (number < wanted_before)
                ctx->before.restarts [drover_rebalance_bucket (restarts)]++;
            if (number < ctx->wanted)
                ctx->after.restarts [drover_rebalance_bucket (restarts)]++;
        }
    }
}

//  Set up every worker's state and free room: the fleet's, a plan's drain
//  or hold applied, less the starts not reported yet
static void
s_place_init (s_compute_t *ctx)
{
    drover_reconciler_t *self = ctx->self;
    drover_rebalance_begin (self->balance, self->config.rebalance_moves);
    for (size_t index = 0; index < self->nfleet; index++) {
        const drover_fleet_worker_t *worker = &self->fleet [index];
        bool silent;
        //  A term goes by its own gather; a pass or a plan by the last term's
        if (ctx->what->kind == DROVER_RECONCILER_TERM) {
            s_gathered_t *gathered = (s_gathered_t *) zhashx_lookup (self->gather, worker->id);
            silent = gathered && !gathered->answered;
        }
        else
            silent = zhashx_size (self->silent)
                  && zhashx_lookup (self->silent, worker->id) != NULL;
        if (silent)
            drover_rebalance_set_silent (self->balance, index);
    }
    const drover_reconciler_what_t *what = ctx->what;
    if (what->kind == DROVER_RECONCILER_PLAN && what->worker
    &&  (what->action == DROVER_PLAN_DRAIN || what->action == DROVER_PLAN_HOLD)) {
        long index = s_worker_index (self, what->worker);
        if (index >= 0)
            drover_rebalance_set_state (self->balance, (size_t) index,
                                        what->action == DROVER_PLAN_DRAIN?
                                        DROVER_FLEET_DRAINING: DROVER_FLEET_HELD);
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
                if (worker >= 0 && s_pending_live (ctx, &slot->pending [start]))
                    drover_rebalance_reserve (self->balance, (size_t) worker,
                                              services [index]->def.procs,
                                              services [index]->def.mem);
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
    if (count)                          //  none yet: services is still NULL
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
    drover_rebalance_service_t shape;
    s_shape (service, service->def.replicas, &shape);
    size_t eligible = 0;
    for (size_t index = 0; cap && index < self->nfleet; index++) {
        bool silent = zhashx_size (self->silent)
                   && zhashx_lookup (self->silent, self->fleet [index].id) != NULL;
        eligible += drover_rebalance_fits (&self->fleet [index], self->fleet [index].state,
                                           silent, &shape);
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
