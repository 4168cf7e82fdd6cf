/*  =========================================================================
    drover_rebalance - where a service's replicas go over the fleet (see
    the header)

    Each rendezvous search walks the fleet once (drover_rendezvous_best)
    with an accept callback that says which workers qualify for what is
    asked (s_accept_mode_t). Counts are kept per worker for the service at
    hand, and reset through the list of workers touched, so that turning
    to the next service costs what the last one touched, not the fleet.
    =========================================================================
*/

#include "drover_rebalance.h"
#include "drover_rendezvous.h"

//  A worker as one computation sees it
typedef struct {
    drover_fleet_state_t state; //  its state (a plan's drain or hold applied)
    int64_t free_procs;         //  procs free, less what this computation placed
    int64_t free_mem;           //  memory free, bytes, likewise
    uint32_t count;             //  replicas of the service at hand it holds
    bool touched;               //  count set for the service at hand
    bool silent;                //  did not answer the (last) term's gather: no new
                                //  replicas go there
} s_worker_t;

//  One slot of the service at hand
typedef struct {
    long keeper;                //  fleet index of the worker of its keeping replica
                                //  task, -1 none
    bool running;               //  that replica runs
    bool leaving;               //  that replica moved away already
    drover_rebalance_rank_t *rank;  //  that replica's rank cache
    long placed;                //  fleet index this computation started or moved its
                                //  replica to, -1 none
} s_slot_t;

struct _drover_rebalance_t {
    //  The fleet
    const drover_fleet_worker_t *fleet; //  its workers, borrowed
    size_t nfleet;              //  entries in fleet
    const char **ids;           //  their ids, for the rendezvous functions
    uint64_t *hashes;           //  their ids' rendezvous hashes
    s_worker_t *workers;        //  per fleet worker, as this computation sees it
    uint32_t *touched;          //  fleet indexes whose count is set
    size_t ntouched;            //  entries used
    bool *holdable;             //  per fleet worker: could hold one of the service at hand
    //  The computation
    bool ranked;                //  rebalancing on: the fewest spread moves, keep-balance
    uint32_t moves_left;        //  keep-balance moves it may still make
    zhashx_t *shapes;           //  "procs/mem/labels" -> workers that could hold one + 1
    //  The service at hand
    drover_rebalance_service_t service; //  the service (strings borrowed)
    size_t eligible;            //  workers that could hold one of its replicas
    uint32_t floor;             //  its even spread: each holds floor ...
    uint32_t extra;             //  ... and this many hold one more
    uint32_t at_ceil;           //  workers that could hold one holding more than floor
    bool holdable_ready;        //  holdable set for it
    uint64_t holdable_sig;      //  holdable as a signature: ranks cached under it
                                //  stay true
    s_slot_t *slots;            //  its slots
    size_t nslots;              //  entries used
    size_t slots_size;          //  entries allocated
    drover_rebalance_move_t *moves; //  the last spread's or improve's moves
    size_t nmoves;              //  entries used
    size_t moves_size;          //  entries allocated
};

//  Create a rebalance with no fleet
drover_rebalance_t *
drover_rebalance_new (void)
{
    drover_rebalance_t *self = (drover_rebalance_t *) zmalloc (sizeof (drover_rebalance_t));
    self->shapes = zhashx_new ();
    return self;
}

//  Destroy a rebalance
void
drover_rebalance_destroy (drover_rebalance_t **self_p)
{
    assert (self_p);
    drover_rebalance_t *self = *self_p;
    if (self) {
        zhashx_destroy (&self->shapes);
        free (self->ids);
        free (self->hashes);
        free (self->workers);
        free (self->touched);
        free (self->holdable);
        free (self->slots);
        free (self->moves);
        free (self);
        *self_p = NULL;
    }
}

//  Replace the fleet
void
drover_rebalance_set_fleet (drover_rebalance_t *self, const drover_fleet_worker_t *workers,
                            size_t count)
{
    assert (self && (workers || count == 0));
    self->fleet = workers;
    self->nfleet = count;
    size_t size = count + 1;
    self->ids = (const char **) realloc (self->ids, size * sizeof (char *));
    self->hashes = (uint64_t *) realloc (self->hashes, size * sizeof (uint64_t));
    self->workers = (s_worker_t *) realloc (self->workers, size * sizeof (s_worker_t));
    self->touched = (uint32_t *) realloc (self->touched, size * sizeof (uint32_t));
    self->holdable = (bool *) realloc (self->holdable, size * sizeof (bool));
    assert (self->ids && self->hashes && self->workers && self->touched && self->holdable);
    for (size_t index = 0; index < count; index++) {
        self->ids [index] = workers [index].id;
        self->hashes [index] = drover_rendezvous_hash (workers [index].id,
                                                       strlen (workers [index].id));
    }
    memset (self->workers, 0, size * sizeof (s_worker_t));
    self->ntouched = 0;
    self->holdable_ready = false;
}

//  Begin a computation
void
drover_rebalance_begin (drover_rebalance_t *self, uint32_t moves)
{
    assert (self);
    for (size_t index = 0; index < self->nfleet; index++) {
        const drover_fleet_worker_t *worker = &self->fleet [index];
        s_worker_t *place = &self->workers [index];
        place->state = worker->state;
        place->free_procs = (int64_t) worker->procs - worker->procs_used;
        place->free_mem = (int64_t) worker->mem - (int64_t) worker->mem_used;
        place->count = 0;
        place->touched = false;
        place->silent = false;
    }
    self->ntouched = 0;
    self->ranked = moves > 0;
    self->moves_left = moves;
    zhashx_purge (self->shapes);
    memset (&self->service, 0, sizeof self->service);
    self->nslots = self->nmoves = 0;
    self->holdable_ready = false;
}

//  Suppose a worker in another state
void
drover_rebalance_set_state (drover_rebalance_t *self, size_t worker, drover_fleet_state_t state)
{
    assert (self && worker < self->nfleet);
    self->workers [worker].state = state;
}

//  Return a worker's state as this computation sees it
drover_fleet_state_t
drover_rebalance_state (drover_rebalance_t *self, size_t worker)
{
    assert (self && worker < self->nfleet);
    return self->workers [worker].state;
}

//  Say a worker did not answer the gather
void
drover_rebalance_set_silent (drover_rebalance_t *self, size_t worker)
{
    assert (self && worker < self->nfleet);
    self->workers [worker].silent = true;
}

//  Take room on a worker
void
drover_rebalance_reserve (drover_rebalance_t *self, size_t worker, uint32_t procs, uint64_t mem)
{
    assert (self && worker < self->nfleet);
    self->workers [worker].free_procs -= procs;
    self->workers [worker].free_mem -= (int64_t) mem;
}

//  Turn to a service
void
drover_rebalance_service (drover_rebalance_t *self, const drover_rebalance_service_t *service,
                          uint32_t nslots)
{
    assert (self && service && service->name && service->labels);
    assert (nslots >= service->wanted);
    self->service = *service;
    self->eligible = 0;
    self->floor = self->extra = self->at_ceil = 0;
    self->holdable_ready = false;
    for (size_t index = 0; index < self->ntouched; index++)
        self->workers [self->touched [index]].touched = false;
    self->ntouched = 0;
    if (self->slots_size < nslots) {
        self->slots_size = nslots;
        self->slots = (s_slot_t *) realloc (self->slots, nslots * sizeof (s_slot_t));
        assert (self->slots);
    }
    self->nslots = nslots;
    for (uint32_t number = 0; number < nslots; number++) {
        memset (&self->slots [number], 0, sizeof (s_slot_t));
        self->slots [number].keeper = -1;
        self->slots [number].placed = -1;
    }
    self->nmoves = 0;
}

//  Return true if a worker could hold a replica of a service
bool
drover_rebalance_fits (const drover_fleet_worker_t *worker, drover_fleet_state_t state,
                       bool silent, const drover_rebalance_service_t *service)
{
    return state == DROVER_FLEET_USABLE && !silent
        && worker->procs >= service->procs && worker->mem >= service->mem
        && drover_fleet_has_labels (worker, service->labels);
}

//  Return true if a worker could hold a replica of the service at hand
//  (as this computation sees it: a plan's drain or hold applied)
static bool
s_could_hold (drover_rebalance_t *self, size_t index)
{
    const s_worker_t *place = &self->workers [index];
    return drover_rebalance_fits (&self->fleet [index], place->state, place->silent,
                                  &self->service);
}

//  Return true if a worker has room now for a replica of the service
static bool
s_has_room (drover_rebalance_t *self, size_t index)
{
    const s_worker_t *place = &self->workers [index];
    return place->free_procs >= (int64_t) self->service.procs
        && place->free_mem >= 0 && (uint64_t) place->free_mem >= self->service.mem;
}

//  Replicas of the service at hand a worker holds
static uint32_t
s_count (drover_rebalance_t *self, size_t index)
{
    const s_worker_t *place = &self->workers [index];
    return place->touched? place->count: 0;
}

//  Add to a worker's count of the service at hand, keeping at_ceil
static void
s_count_add (drover_rebalance_t *self, size_t index, int delta)
{
    s_worker_t *place = &self->workers [index];
    if (!place->touched) {
        place->touched = true;
        place->count = 0;
        self->touched [self->ntouched++] = (uint32_t) index;
    }
    bool over_before = place->count > self->floor;
    place->count = (uint32_t) ((int64_t) place->count + delta);
    bool over_after = place->count > self->floor;
    if (over_before != over_after && s_could_hold (self, index))
        self->at_ceil = over_after? self->at_ceil + 1: self->at_ceil - 1;
}

//  Count a replica of the service at hand on a worker, not a replica task yet
void
drover_rebalance_hold (drover_rebalance_t *self, size_t worker)
{
    assert (self && worker < self->nfleet);
    s_count_add (self, worker, 1);
}

//  A slot is kept by a replica task on a worker
void
drover_rebalance_keep (drover_rebalance_t *self, uint32_t slot, size_t worker, bool running,
                       bool leaving, drover_rebalance_rank_t *rank)
{
    assert (self && slot < self->nslots && worker < self->nfleet && rank);
    s_slot_t *kept = &self->slots [slot];
    kept->keeper = (long) worker;
    kept->running = running;
    kept->leaving = leaving;
    kept->rank = rank;
    s_count_add (self, worker, 1);
}

//  Return the workers that could hold a replica of the service at hand
//  (cached by its shape for this computation)
static size_t
s_eligible_count (drover_rebalance_t *self)
{
    char *shape = zsys_sprintf ("%u/%" PRIu64 "/%s", self->service.procs, self->service.mem,
                                self->service.labels);
    uintptr_t cached = (uintptr_t) zhashx_lookup (self->shapes, shape);
    if (!cached) {
        size_t count = 0;
        for (size_t index = 0; index < self->nfleet; index++)
            count += s_could_hold (self, index);
        cached = count + 1;
        zhashx_insert (self->shapes, shape, (void *) cached);
    }
    zstr_free (&shape);
    return (size_t) cached - 1;
}

//  Work out the even spread of the service at hand
size_t
drover_rebalance_even (drover_rebalance_t *self)
{
    assert (self);
    self->eligible = s_eligible_count (self);
    if (self->eligible) {
        self->floor = (uint32_t) (self->service.wanted / self->eligible);
        self->extra = (uint32_t) (self->service.wanted % self->eligible);
    }
    self->at_ceil = 0;
    for (size_t index = 0; index < self->ntouched; index++)
        self->at_ceil += self->workers [self->touched [index]].count > self->floor
                      && s_could_hold (self, self->touched [index]);
    return self->eligible;
}

//  What an accept callback of the rendezvous is asked (every mode but
//  UNCAPPED also keeps within the service's max-per-worker)
typedef enum {
    S_ACCEPT_SPREAD,            //  could hold one, room, within the even spread
    S_ACCEPT_ROOM,              //  could hold one, room
    S_ACCEPT_FEWER,             //  could hold one, room, holds fewer than threshold - 1
    S_ACCEPT_UNCAPPED,          //  could hold one, room, max-per-worker or not
    S_ACCEPT_HOLD,              //  could hold one (room or not): the slot's best
    S_ACCEPT_BETTER             //  the source itself (nothing better), or: could hold
                                //  one, room, holds fewer than threshold (keep-balance)
} s_accept_mode_t;

//  An accept callback's argument
typedef struct {
    drover_rebalance_t *self;   //  the rebalance
    s_accept_mode_t mode;       //  what to check
    uint32_t threshold;         //  S_ACCEPT_FEWER, S_ACCEPT_BETTER: the source's count
    long source;                //  S_ACCEPT_BETTER: the source's fleet index
} s_accept_t;

//  Rendezvous accept callback: see s_accept_mode_t
static bool
s_accept (size_t index, void *arg)
{
    s_accept_t *accept = (s_accept_t *) arg;
    drover_rebalance_t *self = accept->self;
    if (accept->mode == S_ACCEPT_BETTER && (long) index == accept->source)
        return true;                    //  reached the source: nothing better
    if (accept->mode == S_ACCEPT_HOLD)
        return s_could_hold (self, index);
    if (!s_could_hold (self, index) || !s_has_room (self, index))
        return false;
    uint32_t count = s_count (self, index);
    uint32_t cap = self->service.max_per_worker;
    if (cap && count >= cap && accept->mode != S_ACCEPT_UNCAPPED)
        return false;                   //  holds max-per-worker already
    if (accept->mode == S_ACCEPT_SPREAD)
        return count < self->floor || (count == self->floor && self->at_ceil < self->extra);
    if (accept->mode == S_ACCEPT_FEWER)
        return count + 1 < accept->threshold;
    if (accept->mode == S_ACCEPT_BETTER)
        return count < accept->threshold;
    return true;
}

//  Hash a slot's rendezvous key "SERVICE/SLOT"
static uint64_t
s_slot_hash (drover_rebalance_t *self, uint32_t slot)
{
    char key [DROVER_ID_MAX + 16];
    int length = snprintf (key, sizeof key, "%s/%u", self->service.name, slot);
    return drover_rendezvous_hash (key, (size_t) length);
}

//  Find the first worker in a slot's rendezvous order that accept takes
//  (S_ACCEPT_BETTER: source is the replica's worker), -1 none
static long
s_find_from (drover_rebalance_t *self, uint32_t slot, s_accept_mode_t mode, uint32_t threshold,
             long source)
{
    s_accept_t accept = { self, mode, threshold, source };
    return drover_rendezvous_best (s_slot_hash (self, slot), self->hashes, self->nfleet,
                                   self->ids, s_accept, &accept);
}

//  Find the first worker in a slot's rendezvous order that accept takes,
//  -1 none
static long
s_find (drover_rebalance_t *self, uint32_t slot, s_accept_mode_t mode, uint32_t threshold)
{
    return s_find_from (self, slot, mode, threshold, -1);
}

//  A slot's replica goes to target: counted there, its room taken
static void
s_take (drover_rebalance_t *self, uint32_t slot, long target)
{
    self->slots [slot].placed = target;
    s_count_add (self, (size_t) target, 1);
    self->workers [target].free_procs -= self->service.procs;
    self->workers [target].free_mem -= (int64_t) self->service.mem;
}

//  Place a replica for a slot kept by nothing
long
drover_rebalance_place (drover_rebalance_t *self, uint32_t slot, bool *capped_p)
{
    assert (self && slot < self->nslots);
    if (capped_p)
        *capped_p = false;
    long target = self->eligible? s_find (self, slot, S_ACCEPT_SPREAD, 0): -1;
    if (target < 0 && self->eligible)
        target = s_find (self, slot, S_ACCEPT_ROOM, 0);
    if (target < 0) {
        //  A worker with room that holds max-per-worker already: say so
        if (capped_p && self->eligible && self->service.max_per_worker
        &&  s_find (self, slot, S_ACCEPT_UNCAPPED, 0) >= 0)
            *capped_p = true;
        return -1;                      //  no worker has room: it waits
    }
    s_take (self, slot, target);
    return target;
}

//  Decide a move of a slot's keeper from source to target
static void
s_move (drover_rebalance_t *self, uint32_t slot, long source, long target)
{
    if (self->nmoves == self->moves_size) {
        self->moves_size = self->moves_size? self->moves_size * 2: 8;
        self->moves = (drover_rebalance_move_t *) realloc (self->moves,
                          self->moves_size * sizeof (drover_rebalance_move_t));
        assert (self->moves);
    }
    self->moves [self->nmoves++] = (drover_rebalance_move_t) { slot, source, target };
    s_count_add (self, (size_t) source, -1);
    s_take (self, slot, target);
}

//  Return the worker of a slot's keeper if it is running settled on a
//  worker taking new work (a spread source), else -1
static long
s_settled_source (drover_rebalance_t *self, uint32_t slot)
{
    const s_slot_t *kept = &self->slots [slot];
    if (kept->keeper < 0 || !kept->running || kept->leaving || kept->placed >= 0)
        return -1;
    return self->workers [kept->keeper].state == DROVER_FLEET_USABLE? kept->keeper: -1;
}

//  The spread, rebalancing off: move running replicas from workers
//  holding at least two more of the service's than another that has room,
//  to the first such in the slot's order, highest slots first
static void
s_spread (drover_rebalance_t *self)
{
    uint32_t hopeless = 1;              //  no target for a source holding this many
    for (uint32_t number = self->service.wanted; number-- > 0; ) {
        long source = s_settled_source (self, number);
        if (source < 0 || s_count (self, (size_t) source) <= hopeless)
            continue;
        uint32_t count = s_count (self, (size_t) source);
        long target = s_find (self, number, S_ACCEPT_FEWER, count);
        if (target < 0) {
            hopeless = count;
            continue;
        }
        s_move (self, number, source, target);
    }
}

//  Return true if a worker holding count of the service at hand holds
//  more than its even share (floor, or floor + 1 for extra of them)
static bool
s_over (drover_rebalance_t *self, uint32_t count)
{
    return count > self->floor + 1 || (count == self->floor + 1 && self->at_ceil > self->extra);
}

//  The spread, rebalancing on: the fewest moves that make the spread
//  even, each from a worker over its share to one under it, and first
//  those that take a replica to the first worker of its slot's order: a
//  worker that joins takes the replicas that rank it first, and only as
//  many as its share (about 1/(N+1) of them), the others stay where they are
static void
s_spread_ranked (drover_rebalance_t *self)
{
    uint32_t fewest = UINT32_MAX;
    for (size_t index = 0; index < self->nfleet; index++)
        if (s_could_hold (self, index) && s_count (self, index) < fewest)
            fewest = s_count (self, index);
    if (fewest == UINT32_MAX || !(fewest < self->floor
                                  || (fewest == self->floor && self->at_ceil < self->extra)))
        return;                         //  nobody is under its share
    s_accept_t spread = { self, S_ACCEPT_SPREAD, 0, -1 };
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t number = self->service.wanted; number-- > 0; ) {
            long source = s_settled_source (self, number);
            if (source < 0 || !s_over (self, s_count (self, (size_t) source)))
                continue;
            long target = s_find (self, number, pass? S_ACCEPT_SPREAD: S_ACCEPT_HOLD, 0);
            if (pass == 0 && (target < 0 || target == source
                          || !s_accept ((size_t) target, &spread)))
                continue;               //  at its best, or its best is full
            if (target < 0)
                return;                 //  no worker under its share has room
            s_move (self, number, source, target);
        }
}

//  Decide the spread's moves
size_t
drover_rebalance_spread (drover_rebalance_t *self)
{
    assert (self);
    self->nmoves = 0;
    if (self->ranked)
        s_spread_ranked (self);
    else
        s_spread (self);
    return self->nmoves;
}

//  Note which workers could hold a replica of the service at hand
//  (self->holdable) and sign that set (order-free: the fleet may list its
//  workers in another order next time)
static void
s_holdable_init (drover_rebalance_t *self)
{
    if (self->holdable_ready)
        return;
    uint64_t sig = 1;
    for (size_t index = 0; index < self->nfleet; index++) {
        self->holdable [index] = s_could_hold (self, index);
        if (self->holdable [index])
            sig += drover_rendezvous_score (0x9e3779b97f4a7c15ull, self->hashes [index]);
    }
    self->holdable_sig = sig? sig: 1;
    self->holdable_ready = true;
}

//  Return the rank of a worker in a slot's rendezvous order among the
//  workers that could hold a replica of the service at hand: 0 when none
//  ranks before it (its best position). O(workers), a score each.
static uint32_t
s_rank_of (drover_rebalance_t *self, uint32_t slot, size_t worker)
{
    s_holdable_init (self);
    uint64_t key = s_slot_hash (self, slot);
    uint64_t own = drover_rendezvous_score (key, self->hashes [worker]);
    uint32_t rank = 0;
    for (size_t index = 0; index < self->nfleet; index++) {
        if (index == worker || !self->holdable [index])
            continue;
        uint64_t score = drover_rendezvous_score (key, self->hashes [index]);
        rank += score > own || (score == own && strcmp (self->ids [index],
                                                        self->ids [worker]) < 0);
    }
    return rank;
}

//  Return the rank of a slot's keeper in the slot's order, cached in its
//  rank cache while the workers that could hold one stay the same
static uint32_t
s_keeper_rank (drover_rebalance_t *self, uint32_t slot)
{
    s_holdable_init (self);
    s_slot_t *kept = &self->slots [slot];
    if (kept->rank->sig != self->holdable_sig) {
        kept->rank->rank = s_rank_of (self, slot, (size_t) kept->keeper);
        kept->rank->sig = self->holdable_sig;
    }
    return kept->rank->rank;
}

//  Keep-balance: once a service runs its count, a running replica moves
//  to the first worker before its own in its slot's rendezvous order that
//  could hold one, has room and holds fewer of the service's replicas
//  than its own (so spread never worsens, and each move betters the moved
//  replica's rank: moves end). At most moves_left over a computation.
size_t
drover_rebalance_improve (drover_rebalance_t *self)
{
    assert (self);
    self->nmoves = 0;
    if (!self->moves_left)
        return 0;                       //  rebalancing off, or done for this computation
    s_holdable_init (self);
    uint32_t fewest = UINT32_MAX;       //  the fewest a worker that could take one holds
    for (size_t index = 0; index < self->nfleet; index++)
        if (self->holdable [index] && s_has_room (self, index) && s_count (self, index) < fewest)
            fewest = s_count (self, index);
    for (uint32_t number = 0; number < self->service.wanted && self->moves_left; number++) {
        const s_slot_t *kept = &self->slots [number];
        if (kept->keeper < 0 || !kept->running || kept->leaving || kept->placed >= 0)
            continue;                   //  not settled, or moved already
        long source = kept->keeper;
        if (!s_could_hold (self, (size_t) source))
            continue;                   //  held, on probation, silent: it stays
        if (s_count (self, (size_t) source) <= fewest || s_keeper_rank (self, number) == 0)
            continue;                   //  nobody holds fewer, or at its best already
        long target = s_find_from (self, number, S_ACCEPT_BETTER,
                                   s_count (self, (size_t) source), source);
        if (target < 0 || target == source)
            continue;                   //  nothing better has room
        s_move (self, number, source, target);
        self->moves_left--;
    }
    return self->nmoves;
}

//  The moves the last spread or improve decided
const drover_rebalance_move_t *
drover_rebalance_moves (drover_rebalance_t *self, size_t *count_p)
{
    assert (self && count_p);
    *count_p = self->nmoves;
    return self->moves;
}

//  Return a count's histogram bucket
int
drover_rebalance_bucket (uint32_t count)
{
    int bucket = 0;
    while (count && bucket < DROVER_HISTOGRAM_BUCKETS - 1) {
        count >>= 1;
        bucket++;
    }
    return bucket;
}

//  Count one replica's rank in a view's placement figures
static void
s_tally_rank (drover_service_stats_t *stats, uint32_t rank)
{
    if (rank == 0)
        stats->best++;
    else
        stats->not_best++;
    stats->ranks [drover_rebalance_bucket (rank)]++;
}

//  Count the placement figures of the service at hand
void
drover_rebalance_figures (drover_rebalance_t *self, uint32_t wanted_before,
                          drover_service_stats_t *before, drover_service_stats_t *after)
{
    assert (self && before && after);
    uint32_t wanted = self->service.wanted;
    assert (wanted_before <= self->nslots);
    for (uint32_t number = 0; number < wanted || number < wanted_before; number++) {
        bool planned = number < wanted;
        const s_slot_t *kept = &self->slots [number];
        long now = planned? kept->keeper: -1;
        uint32_t rank = 0;
        if (number < wanted_before && now >= 0 && kept->running)
            s_tally_rank (before, rank = s_keeper_rank (self, number));
        long then = planned && kept->placed >= 0? kept->placed: now;
        if (planned && then >= 0 && then == now && kept->running && number < wanted_before)
            s_tally_rank (after, rank);     //  stays: the same rank
        else
        if (planned && then >= 0)
            s_tally_rank (after, s_rank_of (self, number, (size_t) then));
    }
}
