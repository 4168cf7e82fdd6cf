/*  =========================================================================
    drover_reconciler_compute - the reconciler's decisions (see the rules in
    drover_reconciler.h): one pass over the services in name order, each in
    three steps

    1. Each slot: which replica keeps it (running first, then pending, then
       a start not yet reported; a replica on a draining worker, on a
       worker out of the fleet, one its worker no longer runs, or one that
       was moved away keeps nothing while another can), and what to stop:
       slots past the replicas wanted (always), and, when removals are
       allowed, replicas their worker no longer runs, and the others of a
       slot whose keeper runs (duplicates, and what moved away).
    2. Each slot kept by nothing and past its backoff gets a replica: the
       first worker in the slot's rendezvous order that could hold one,
       has room and stays within the even spread (floor = wanted / workers
       that could hold one; at most wanted % workers of them hold one
       more); none within the spread: the first with room; none: it waits.
    3. Spread (terms and plans): from the highest slot down, a running
       replica moves to the first worker in its order that has room and
       holds at least two fewer of the service's replicas than its own.

    Sanity: a term or plan whose gather is incomplete runs with removals
    off; one whose removals (not asked by a definition: replicas not run,
    duplicates, spread; stopping what moved is not counted) would stop
    more than max-stop-percent of the running replicas is run again with
    them off. Cost: O(replicas) for a steady term, plus O(workers) for
    each replica placed or moved.
    =========================================================================
*/

#include "drover_reconciler_internal.h"

//  One computation
typedef struct {
    drover_reconciler_t *self;   //  the reconciler (only its scratch changes)
    const drover_reconciler_what_t *what;    //  what it is for
    uint64_t now;               //  msec since the epoch
    drover_changeset_t *set;    //  what it decides
    bool removals;              //  removals not asked by a definition allowed, the
                                //  gather trusted, spread on
    uint32_t unasked;           //  those removals made, for the sanity check
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

//  What an accept callback of the rendezvous is asked
typedef enum {
    S_ACCEPT_SPREAD,            //  could hold one, room, within the even spread
    S_ACCEPT_ROOM,              //  could hold one, room
    S_ACCEPT_FEWER              //  could hold one, room, holds fewer than threshold - 1
} s_accept_mode_t;

//  An accept callback's argument
typedef struct {
    s_compute_t *ctx;           //  the computation
    s_accept_mode_t mode;       //  what to check
    uint32_t threshold;         //  S_ACCEPT_FEWER: the source's count
} s_accept_t;

//  Return true if a worker could hold a replica of the service at hand:
//  takes new work, big enough in all, has its labels
static bool
s_could_hold (s_compute_t *ctx, size_t index)
{
    const drover_fleet_worker_t *worker = &ctx->self->fleet [index];
    return ctx->self->place [index].state == DROVER_FLEET_USABLE
        && worker->procs >= ctx->service->def.procs && worker->mem >= ctx->service->def.mem
        && drover_fleet_has_labels (worker, ctx->service->labels);
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
    if (!s_could_hold (ctx, index) || !s_has_room (ctx, index))
        return false;
    uint32_t count = s_count (ctx, index);
    if (accept->mode == S_ACCEPT_SPREAD)
        return count < ctx->floor || (count == ctx->floor && ctx->at_ceil < ctx->extra);
    if (accept->mode == S_ACCEPT_FEWER)
        return count + 1 < accept->threshold;
    return true;
}

//  Find the first worker in a slot's rendezvous order that accept takes,
//  -1 none
static long
s_find (s_compute_t *ctx, uint32_t slot, s_accept_mode_t mode, uint32_t threshold)
{
    drover_reconciler_t *self = ctx->self;
    char key [DROVER_ID_MAX + 16];
    int length = snprintf (key, sizeof key, "%s/%u", ctx->service->def.name, slot);
    s_accept_t accept = { ctx, mode, threshold };
    return drover_rendezvous_best (drover_rendezvous_hash (key, (size_t) length),
                                   self->fleet_hashes, self->nfleet, self->fleet_ids,
                                   s_accept, &accept);
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
    if (drover_reconciler_record_worker (ctx->self, record) >= 0) {
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
                     drover_reconciler_compare_tasks);
}

//  Rank of a record as its slot's keeper, higher better, -1 cannot keep
static int
s_rank (s_compute_t *ctx, s_record_t *record)
{
    long index = drover_reconciler_record_worker (ctx->self, record);
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
    bool lost = false, not_run = false;
    s_record_t *keeper = NULL;
    int keeper_rank = -1;
    for (size_t index = 0; slot && index < slot->nrecords; index++) {
        s_record_t *record = slot->records [index];
        if (record->state == S_STOPPING)
            continue;
        long worker = drover_reconciler_record_worker (self, record);
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
        long worker = drover_reconciler_worker_index (self, slot->pending [index].worker);
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
        s_count_add (ctx, (size_t) drover_reconciler_record_worker (self, keeper), 1);
        plan->held = true;
        plan->keeper = keeper;
    }
    //  Once its keeper runs, the slot's other replicas stop
    for (size_t index = 0; keeper && keeper->state == S_RUNNING && ctx->removals
                           && index < slot->nrecords; index++) {
        s_record_t *record = slot->records [index];
        if (record == keeper || record->state == S_STOPPING
        ||  drover_reconciler_record_worker (self, record) < 0 || s_not_run (ctx, record))
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
    if (target < 0)
        return;                         //  no worker has room: it waits
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

//  Step 3: move running replicas from workers holding at least two more
//  of the service's than another that has room, highest slots first
static void
s_spread (s_compute_t *ctx, s_slotplan_t *plans)
{
    drover_reconciler_t *self = ctx->self;
    uint32_t hopeless = 1;              //  no target for a source holding this many
    for (uint32_t number = ctx->wanted; number-- > 0; ) {
        s_record_t *keeper = plans [number].keeper;
        if (!keeper || keeper->state != S_RUNNING || keeper->leaving)
            continue;
        long source = drover_reconciler_record_worker (self, keeper);
        if (source < 0 || self->place [source].state != DROVER_FLEET_USABLE
        ||  s_count (ctx, (size_t) source) <= hopeless)
            continue;
        uint32_t count = s_count (ctx, (size_t) source);
        long target = s_find (ctx, number, S_ACCEPT_FEWER, count);
        if (target < 0) {
            hopeless = count;
            continue;
        }
        s_emit (ctx, DROVER_CHANGE_MOVE, number, keeper->task, keeper->worker,
                self->fleet [target].id, "spread");
        ctx->unasked++;
        s_count_add (ctx, (size_t) source, -1);
        s_count_add (ctx, (size_t) target, 1);
        self->place [target].free_procs -= ctx->service->def.procs;
        self->place [target].free_mem -= (int64_t) ctx->service->def.mem;
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
    ctx->wanted = drover_reconciler_wanted_of (service, ctx->what);
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
        s_slot_t *slot = drover_reconciler_slot (service, number);
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
            s_slot_place (ctx, drover_reconciler_slot (service, number), number, &plans [number]);
    if (ctx->removals && ctx->eligible)
        s_spread (ctx, plans);
    if (service->defined) {
        uint32_t wanted_before = service->def.replicas;
        s_tally (&ctx->before, wanted_before, ctx->running_now, ctx->pending_now);
        s_tally (&ctx->after, ctx->wanted, ctx->running, ctx->pending);
        for (uint32_t number = 0; number < nslots; number++) {
            uint32_t restarts = number < service->nslots? service->slots [number].restarts: 0;
            if (number < wanted_before)
                ctx->before.restarts [drover_reconciler_bucket (restarts)]++;
            if (number < ctx->wanted)
                ctx->after.restarts [drover_reconciler_bucket (restarts)]++;
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
    }
    self->ntouched = 0;
    const drover_reconciler_what_t *what = ctx->what;
    if (what->kind == DROVER_RECONCILER_PLAN && what->worker
    &&  (what->action == DROVER_PLAN_DRAIN || what->action == DROVER_PLAN_HOLD)) {
        long index = drover_reconciler_worker_index (self, what->worker);
        if (index >= 0)
            self->place [index].state = what->action == DROVER_PLAN_DRAIN?
                                        DROVER_FLEET_DRAINING: DROVER_FLEET_HELD;
    }
    if (self->npending == 0)
        return;
    size_t count;
    s_service_t **services = drover_reconciler_sorted (self, &count);
    for (size_t index = 0; index < count; index++)
        for (uint32_t number = 0; number < services [index]->nslots; number++) {
            s_slot_t *slot = &services [index]->slots [number];
            for (size_t start = 0; start < slot->npending; start++) {
                long worker = drover_reconciler_worker_index (self, slot->pending [start].worker);
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
    ctx->service = NULL;
    s_place_init (ctx);
    size_t count;
    s_service_t **services = drover_reconciler_sorted (self, &count);
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
