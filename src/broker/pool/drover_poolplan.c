/*  =========================================================================
    drover_poolplan - drover_pool's plan: the timeouts, the driver's
    operations within their token bucket, and which instances to create

    Creating follows Arvados' worker pool and bigslice: capacity that is
    coming (booting and unknown instances, and registered ones the
    scheduler has not reported yet) takes waiting demand first, largest
    procs first; what is left gets the cheapest type that fits, and the
    shapes that follow are packed into the instances just planned before
    more are planned. Capacity is kept as "empty instances of type T" counts
    plus a short list of partly filled rooms, so fitting a shape costs
    O(types + rooms), never O(tasks) nor O(instances).
    =========================================================================
*/

#include "drover_pool_internal.h"

//  Does have ("k=v" lines) include every label of want
bool
drover_pool_labels_include (const char *have, const char *want)
{
    have = have ? have : "";
    want = want ? want : "";
    size_t have_length = strlen (have);
    while (*want) {
        const char *end = strchr (want, '\n');
        size_t length = end ? (size_t) (end - want) : strlen (want);
        bool found = length == 0;
        for (const char *line = have; !found && line < have + have_length; ) {
            const char *line_end = strchr (line, '\n');
            size_t line_length = line_end ? (size_t) (line_end - line) : strlen (line);
            found = line_length == length && memcmp (line, want, length) == 0;
            line += line_length + 1;
        }
        if (!found)
            return false;
        want += length + (end ? 1 : 0);
    }
    return true;
}

//  How many tasks of procs/mem fit in procs_free/mem_free (a task asking
//  nothing of a resource is not bounded by it)
uint32_t
drover_pool_fit (uint32_t procs_free, uint64_t mem_free, uint32_t procs, uint64_t mem)
{
    uint64_t fit = UINT32_MAX;
    if (procs && procs_free / procs < fit)
        fit = procs_free / procs;
    if (mem && mem_free / mem < fit)
        fit = mem_free / mem;
    return (uint32_t) fit;
}

//  Return the cheapest type that fits: price, then fewer procs, then less
//  memory, then name
const drover_pooltype_t *
drover_pooltype_cheapest (const drover_pooltype_t *types, size_t ntypes, uint32_t procs,
                          uint64_t mem, const char *labels)
{
    const drover_pooltype_t *best = NULL;
    for (size_t index = 0; index < ntypes; index++) {
        const drover_pooltype_t *type = &types [index];
        if (type->procs < procs || type->mem < mem || type->procs == 0
        ||  !drover_pool_labels_include (type->labels, labels))
            continue;
        if (best) {
            if (type->price != best->price) {
                if (type->price > best->price)
                    continue;
            }
            else
            if (type->procs != best->procs) {
                if (type->procs > best->procs)
                    continue;
            }
            else
            if (type->mem != best->mem) {
                if (type->mem > best->mem)
                    continue;
            }
            else
            if (strcmp (type->name, best->name) >= 0)
                continue;
        }
        best = type;
    }
    return best;
}

//  Fill the token bucket for now
static void
s_tokens_fill (drover_pool_t *self, uint64_t now)
{
    double burst = self->config.ops_per_second;
    if (now > self->tokens_at) {
        self->tokens += (double) (now - self->tokens_at) * burst / 1000.0;
        if (self->tokens > burst)
            self->tokens = burst;
    }
    self->tokens_at = now > self->tokens_at ? now : self->tokens_at;
}

//  Return when a driver operation may go: after a rate backoff, when the
//  bucket has a token (now if it has one)
static uint64_t
s_op_at (drover_pool_t *self, uint64_t now)
{
    uint64_t at = now;
    if (self->config.ops_per_second && self->tokens < 1) {
        double wait = (1 - self->tokens) * 1000.0 / self->config.ops_per_second;
        at = self->tokens_at + (uint64_t) ceil (wait);
    }
    return at > self->rate_until ? at : self->rate_until;
}

//  Take a token for a driver operation. Returns true if it may go now.
static bool
s_op_take (drover_pool_t *self, uint64_t now)
{
    if (now < self->rate_until)
        return false;
    if (!self->config.ops_per_second)
        return true;                //  no limit
    s_tokens_fill (self, now);
    if (self->tokens < 1)
        return false;
    self->tokens -= 1;
    return true;
}

//  Say one action
static void
s_say (drover_poolaction_fn *fn, void *arg, drover_poolaction_kind_t kind, drover_pool_t *self,
       s_instance_t *inst)
{
    drover_poolaction_t action = {
        .kind = kind,
        .instance = inst ? inst->name : NULL,
        .type = inst && inst->type >= 0 ? &self->config.types [inst->type] : NULL,
        .behaviour = inst ? inst->behaviour : DROVER_IDLE_RUN
    };
    fn (&action, arg);
}

//  Apply the timeouts, drains and idle timeout to one instance; returns
//  true if it stopped being live
static bool
s_timeouts (drover_pool_t *self, s_instance_t *inst, size_t live, uint64_t now)
{
    const drover_poolconfig_t *config = &self->config;
    switch (inst->state) {
        case DROVER_INSTANCE_BOOTING:
            if (inst->behaviour == DROVER_IDLE_HOLD)
                break;              //  held: never destroyed by the pool (Arvados)
            if (now >= inst->created + config->boot_timeout) {
                drover_pool_shut (self, inst, "boot timeout", now);
                return true;
            }
            break;
        case DROVER_INSTANCE_UNKNOWN:
            if (inst->behaviour == DROVER_IDLE_HOLD)
                break;
            if (inst->lost ? now >= inst->since + config->probe_timeout
                           : now >= inst->created + config->boot_timeout) {
                drover_pool_shut (self, inst, inst->lost ? "probe timeout" : "boot timeout", now);
                return true;
            }
            break;
        case DROVER_INSTANCE_IDLE:
            if (inst->behaviour == DROVER_IDLE_DRAIN
            || (inst->behaviour == DROVER_IDLE_RUN && live > config->min_instances
                && now >= inst->since + config->idle_timeout)) {
                drover_pool_set_state (self, inst, DROVER_INSTANCE_SHUTDOWN,
                    inst->behaviour == DROVER_IDLE_DRAIN ? "drained" : "idle timeout", now);
                inst->retire_due = true;
                inst->tag_due = false;
                return true;
            }
            break;
        case DROVER_INSTANCE_SHUTDOWN:
            if (inst->destroy_at && !inst->destroy_inflight && !inst->destroy_due
            &&  (inst->destroy_failed || inst->still_listed)
            &&  now >= inst->destroy_at + config->shutdown_timeout) {
                inst->destroy_due = true;
                inst->still_listed = false;
                drover_pool_note (self, inst, inst->state, inst->state, false,
                                  "shutdown timeout");
            }
            break;
        default:
            break;
    }
    return false;
}

//  Say the actions an instance waits for: RETIRE and ADMIN (not rate
//  limited), DESTROY and TAG (rate limited, else left for later)
static void
s_say_pending (drover_pool_t *self, s_instance_t *inst, uint64_t now,
               drover_poolaction_fn *fn, void *arg)
{
    if (inst->admin_due) {
        inst->admin_due = false;
        s_say (fn, arg, DROVER_POOL_ADMIN, self, inst);
    }
    if (inst->retire_due) {
        inst->retire_due = false;
        inst->retiring = true;
        s_say (fn, arg, DROVER_POOL_RETIRE, self, inst);
    }
    if (inst->destroy_due && !inst->destroy_inflight && s_op_take (self, now)) {
        inst->destroy_due = false;
        inst->destroy_inflight = true;
        inst->destroy_at = now;
        inst->destroy_failed = false;
        self->destroys++;
        s_say (fn, arg, DROVER_POOL_DESTROY, self, inst);
    }
    if (inst->tag_due && !inst->tag_inflight && inst->state != DROVER_INSTANCE_SHUTDOWN
    &&  s_op_take (self, now)) {
        inst->tag_due = false;
        inst->tag_inflight = true;
        s_say (fn, arg, DROVER_POOL_TAG, self, inst);
    }
}

//  Go over every instance once (after counting the live ones): timeouts,
//  pending actions, and what is left live (count, price) and coming
//  (empty instances per type: booting, unknown, or registered but not in
//  the load report, taking new work)
static void
s_instances_pass (drover_pool_t *self, uint64_t now, drover_poolaction_fn *fn, void *arg,
                  size_t *live_p, double *price_p)
{
    size_t live = 0;
    for (s_instance_t *inst = self->oldest; inst; inst = inst->next)
        live += inst->state != DROVER_INSTANCE_SHUTDOWN;
    memset (self->full, 0, (self->config.ntypes + 1) * sizeof (uint32_t));
    self->nrooms = 0;
    double price = 0;
    for (s_instance_t *inst = self->oldest; inst; inst = inst->next) {
        if (s_timeouts (self, inst, live, now))
            live--;
        s_say_pending (self, inst, now, fn, arg);
        if (inst->state == DROVER_INSTANCE_SHUTDOWN || inst->type < 0)
            continue;
        price += self->config.types [inst->type].price;
        if (inst->behaviour == DROVER_IDLE_RUN
        && (inst->state == DROVER_INSTANCE_BOOTING || inst->state == DROVER_INSTANCE_UNKNOWN
            || !inst->in_report))
            self->full [inst->type]++;
    }
    *live_p = live;
    *price_p = price;
}

//  Remember a partly filled instance
static void
s_room_add (drover_pool_t *self, int type, uint32_t procs, uint64_t mem)
{
    if (self->nrooms == self->rooms_max) {
        self->rooms_max = self->rooms_max ? self->rooms_max * 2 : 64;
        self->rooms = (s_room_t *) realloc (self->rooms, self->rooms_max * sizeof (s_room_t));
        assert (self->rooms);
    }
    self->rooms [self->nrooms++] = (s_room_t) { .type = type, .procs = procs, .mem = mem };
}

//  Fit need tasks of shape index into coming capacity; returns what is left
static uint32_t
s_fit_coming (drover_pool_t *self, size_t index, uint32_t need)
{
    const s_shape_t *shape = &self->shapes [index];
    size_t ntypes = self->config.ntypes;
    for (size_t room = 0; room < self->nrooms && need; ) {
        s_room_t *it = &self->rooms [room];
        uint32_t take = 0;
        if (self->fits [index * ntypes + it->type])
            take = drover_pool_fit (it->procs, it->mem, shape->procs, shape->mem);
        take = take < need ? take : need;
        need -= take;
        it->procs -= take * shape->procs;
        it->mem -= take * shape->mem;
        if (it->procs == 0)
            self->rooms [room] = self->rooms [--self->nrooms];     //  full: drop
        else
            room++;
    }
    for (size_t type = 0; type < ntypes && need; type++) {
        uint32_t per = self->fits [index * ntypes + type];
        if (!per || !self->full [type])
            continue;
        uint64_t wanted = (need + (uint64_t) per - 1) / per;
        uint32_t used = wanted < self->full [type] ? (uint32_t) wanted : self->full [type];
        self->full [type] -= used;
        uint64_t taken = (uint64_t) used * per;
        if (taken > need) {         //  the last one is partly filled
            uint32_t left = (uint32_t) (taken - need);
            const drover_pooltype_t *offer = &self->config.types [type];
            uint32_t in_last = per - left;
            s_room_add (self, (int) type, offer->procs - in_last * shape->procs,
                        offer->mem - in_last * shape->mem);
            need = 0;
        }
        else
            need -= (uint32_t) taken;
    }
    return need;
}

//  Warn once of a shape no type fits (the set is bounded: when full it is
//  emptied, and a shape may be warned of again)
static void
s_warn_unfit (drover_pool_t *self, const s_shape_t *shape)
{
    char key [64 + DROVER_ID_MAX];
    snprintf (key, sizeof key, "%u/%" PRIu64 "/%.*s", shape->procs, shape->mem, DROVER_ID_MAX,
              shape->labels);
    if (zhashx_lookup (self->unfit_warned, key))
        return;
    if (zhashx_size (self->unfit_warned) >= DROVER_POOL_UNFIT_MAX)
        zhashx_purge (self->unfit_warned);
    zhashx_insert (self->unfit_warned, key, (void *) self);
    char why [128 + DROVER_ID_MAX];
    snprintf (why, sizeof why, "no instance type fits %u procs, %" PRIu64 " bytes, labels '%.*s'",
              shape->procs, shape->mem, DROVER_ID_MAX, shape->labels);
    drover_pool_note (self, NULL, -1, -1, true, why);
}

//  What a plan's creates are bounded by
typedef struct {
    size_t live;                //  live instances
    double price;               //  their price per hour
    uint32_t creates;           //  creates said this plan
    bool gate;                  //  creates allowed at all now (no backoff)
    bool blocked;               //  a create was wanted and not said
    bool stop;                  //  no more creates this plan
} s_budget_t;

//  Create one instance of type if every bound allows; returns it or NULL
static s_instance_t *
s_create (drover_pool_t *self, int type, s_budget_t *budget, uint64_t now,
          drover_poolaction_fn *fn, void *arg)
{
    const drover_poolconfig_t *config = &self->config;
    const drover_pooltype_t *offer = &config->types [type];
    if (budget->stop)
        return NULL;
    if (!budget->gate) {
        budget->blocked = true;     //  a backoff: when it ends
        return NULL;
    }
    if (budget->creates >= config->max_creates) {
        budget->blocked = true;     //  the next pass does more
        budget->stop = true;
        return NULL;
    }
    if (budget->live >= config->max_instances) {
        budget->stop = true;        //  until an instance goes
        return NULL;
    }
    if (config->max_price > 0 && budget->price + offer->price > config->max_price)
        return NULL;                //  a cheaper type may still fit
    if (!s_op_take (self, now)) {
        budget->blocked = true;
        budget->stop = true;
        return NULL;
    }
    char name [DROVER_ID_MAX + 1];
    snprintf (name, sizeof name, "%s%u", self->prefix, self->next_number++);
    s_instance_t *inst = drover_pool_add (self, name, type, offer->name, DROVER_INSTANCE_BOOTING,
                                          DROVER_IDLE_RUN, "created", now);
    inst->create_inflight = true;
    budget->creates++;
    budget->live++;
    budget->price += offer->price;
    self->creates++;
    s_say (fn, arg, DROVER_POOL_CREATE, self, inst);
    return inst;
}

//  Plan creates for the demand the coming capacity does not cover, then
//  for min-instances
static void
s_plan_creates (drover_pool_t *self, s_budget_t *budget, uint64_t now,
                drover_poolaction_fn *fn, void *arg)
{
    size_t ntypes = self->config.ntypes;
    for (size_t index = 0; index < self->nshapes; index++) {
        const s_shape_t *shape = &self->shapes [index];
        uint32_t need = s_fit_coming (self, index, shape->count);
        if (!need)
            continue;
        if (shape->cheapest < 0) {
            s_warn_unfit (self, shape);
            continue;               //  never a reason to create
        }
        int type = shape->cheapest;
        uint32_t per = self->fits [index * ntypes + type];
        const drover_pooltype_t *offer = &self->config.types [type];
        while (need) {
            if (!s_create (self, type, budget, now, fn, arg))
                break;
            uint32_t take = per < need ? per : need;
            need -= take;
            if (take < per)
                s_room_add (self, type, offer->procs - take * shape->procs,
                            offer->mem - take * shape->mem);
        }
    }
    if (budget->live < self->config.min_instances && ntypes) {
        const drover_pooltype_t *cheapest =
            drover_pooltype_cheapest (self->config.types, ntypes, 0, 0, "");
        while (cheapest && budget->live < self->config.min_instances)
            if (!s_create (self, (int) (cheapest - self->config.types), budget, now, fn, arg))
                break;
    }
}

//  Return when creates may go again (backoffs), UINT64_MAX if they may now
static uint64_t
s_create_gate (drover_pool_t *self, uint64_t now)
{
    uint64_t at = 0;
    if (!self->listed)
        return UINT64_MAX;          //  until the first list: it may adopt enough
    if (!self->went_away && self->quota_until > at)
        at = self->quota_until;
    if (self->fail_until > at)
        at = self->fail_until;
    if (self->rate_until > at)
        at = self->rate_until;
    return at > now ? at : 0;
}

//  Decide: say every action due now
void
drover_pool_plan (drover_pool_t *self, uint64_t now, drover_poolaction_fn *fn, void *arg)
{
    assert (self);
    assert (fn);
    self->now = now;
    if (!self->planned) {
        self->planned = true;
        self->tokens_at = now;
        self->next_list = now;      //  a list at start adopts what a restart left
    }
    s_tokens_fill (self, now);
    size_t live;
    double price;
    s_instances_pass (self, now, fn, arg, &live, &price);
    if (!self->list_inflight && now >= self->next_list && s_op_take (self, now)) {
        self->list_inflight = true;
        self->list_seq = ++self->seq;
        self->next_list = now + self->config.list_interval;
        s_say (fn, arg, DROVER_POOL_LIST, self, NULL);
    }
    uint64_t gate = s_create_gate (self, now);
    s_budget_t budget = { .live = live, .price = price, .gate = gate == 0 };
    s_plan_creates (self, &budget, now, fn, arg);
    self->retry_at = UINT64_MAX;
    if (budget.blocked) {
        if (gate == UINT64_MAX)
            ;                       //  the first list's result brings a plan
        else
        if (gate)
            self->retry_at = gate;
        else
            self->retry_at = s_op_at (self, now);
    }
}

//  Return the earlier of two times
static inline uint64_t
s_min (uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

//  Return when the plan should run next without new input
uint64_t
drover_pool_next_deadline (drover_pool_t *self, uint64_t now)
{
    assert (self);
    if (!self->planned)
        return now;
    s_tokens_fill (self, now);
    const drover_poolconfig_t *config = &self->config;
    uint64_t op_at = s_op_at (self, now);
    uint64_t deadline = self->retry_at;
    if (!self->list_inflight)
        deadline = s_min (deadline, self->next_list > op_at ? self->next_list : op_at);
    size_t live = 0;
    for (s_instance_t *inst = self->oldest; inst; inst = inst->next)
        if (inst->state != DROVER_INSTANCE_SHUTDOWN)
            live++;
    for (s_instance_t *inst = self->oldest; inst; inst = inst->next) {
        if (inst->admin_due || inst->retire_due)
            deadline = s_min (deadline, now);
        if ((inst->destroy_due && !inst->destroy_inflight)
        ||  (inst->tag_due && !inst->tag_inflight && inst->state != DROVER_INSTANCE_SHUTDOWN))
            deadline = s_min (deadline, op_at);
        if (inst->behaviour == DROVER_IDLE_HOLD && inst->state != DROVER_INSTANCE_SHUTDOWN)
            continue;               //  no timeout of its own
        switch (inst->state) {
            case DROVER_INSTANCE_BOOTING:
                deadline = s_min (deadline, inst->created + config->boot_timeout);
                break;
            case DROVER_INSTANCE_UNKNOWN:
                deadline = s_min (deadline, inst->lost ? inst->since + config->probe_timeout
                                                       : inst->created + config->boot_timeout);
                break;
            case DROVER_INSTANCE_IDLE:
                if (inst->behaviour == DROVER_IDLE_DRAIN)
                    deadline = s_min (deadline, now);
                else
                if (inst->behaviour == DROVER_IDLE_RUN && live > config->min_instances)
                    deadline = s_min (deadline, inst->since + config->idle_timeout);
                break;
            case DROVER_INSTANCE_SHUTDOWN:
                if (inst->destroy_at && !inst->destroy_inflight && !inst->destroy_due
                &&  (inst->destroy_failed || inst->still_listed))
                    deadline = s_min (deadline, inst->destroy_at + config->shutdown_timeout);
                break;
            default:
                break;
        }
    }
    return deadline;
}
