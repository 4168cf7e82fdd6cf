/*  =========================================================================
    drover_reconciler - the reconciler's decisions (see the header): here
    the view (definitions, replica reports, the fleet, the gather), commit
    and the rows; drover_reconciler_compute.c decides

    Each service keeps its slots; each slot its replica tasks (records,
    also indexed by task id) and the starts committed whose task assign
    has not reported yet (pending). A deleted service stays, undefined,
    until its last replica is gone, so that its replicas are stopped.
    =========================================================================
*/

#include "drover_reconciler_internal.h"

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
        zhashx_destroy (&self->services);
        zhashx_destroy (&self->tasks);
        free (self->sorted);
        free (self->place);
        free (self->touched);
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
s_slot_t *
drover_reconciler_slot (s_service_t *service, uint32_t slot)
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
s_service_t **
drover_reconciler_sorted (drover_reconciler_t *self, size_t *count_p)
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
uint32_t
drover_reconciler_wanted_of (const s_service_t *service, const drover_reconciler_what_t *what)
{
    if (!service->defined)
        return 0;
    if (what && what->kind == DROVER_RECONCILER_PLAN && what->action == DROVER_PLAN_SCALE
    &&  what->service && streq (what->service, service->def.name))
        return what->count;
    return service->def.replicas;
}

//  Return the delay of a slot's next restart
uint64_t
drover_reconciler_backoff (drover_reconciler_t *self, const s_service_t *service,
                          uint32_t streak)
{
    uint64_t delay = service->def.restart_delay? service->def.restart_delay
                                                : self->config.restart_delay;
    for (uint32_t doubling = 1; doubling < streak && delay < self->config.max_restart_delay;
         doubling++)
        delay *= 2;
    return delay < self->config.max_restart_delay? delay: self->config.max_restart_delay;
}

//  Put a count in its histogram bucket: 0, 1, 2-3, 4-7, ... 64 or more
int
drover_reconciler_bucket (uint32_t restarts)
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
bool
drover_reconciler_slot_kept (const s_slot_t *slot)
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
    s_slot_t *slot = service? drover_reconciler_slot (service, slot_number): NULL;
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
    &&  !drover_reconciler_slot_kept (slot)) {
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
            slot->next_start = now + drover_reconciler_backoff (self, service, slot->streak);
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
        assert (self->place && self->touched);
    }
}

//  Return the fleet index of a worker, -1 if not in the fleet
long
drover_reconciler_worker_index (drover_reconciler_t *self, const char *worker)
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
int
drover_reconciler_compare_tasks (const void *one, const void *two)
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
    qsort (gathered->tasks, count, sizeof (uint64_t), drover_reconciler_compare_tasks);
    return 0;
}

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
    s_service_t **services = drover_reconciler_sorted (self, &count);
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
    if (set->kind == DROVER_RECONCILER_TERM)
        self->last = set->after;
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
