/*  =========================================================================
    drover_pool - the elastic pool's decisions: its instances and the
    inputs that change them (load reports, registrations, driver results,
    operator commands); the plan itself is in drover_poolplan.c

    Instances live in a hash by name and in a list, oldest first, linked
    through the instances themselves so that one is forgotten in O(1).
    Events that must be ordered against a list (a create or destroy that
    finished, a worker that left) take a sequence number, not a time: a
    fake clock may say the same msec for both.
    =========================================================================
*/

#include "drover_pool_internal.h"

//  Create a pool
drover_pool_t *
drover_pool_new (const drover_poolconfig_t *config, const char *prefix)
{
    assert (config);
    assert (prefix);
    drover_pool_t *self = (drover_pool_t *) zmalloc (sizeof (drover_pool_t));
    self->config = *config;
    self->config.name = strdup (config->name ? config->name : "");
    self->config.driver = NULL;         //  the actor's business, not ours
    self->config.command = NULL;
    self->config.worker = NULL;
    self->config.local_dir = NULL;
    self->config.broker = NULL;
    if (self->config.ntypes > DROVER_POOL_TYPES_MAX)
        self->config.ntypes = DROVER_POOL_TYPES_MAX;
    for (size_t index = 0; index < self->config.ntypes; index++)
        self->config.types [index].labels =
            strdup (config->types [index].labels ? config->types [index].labels : "");
    self->prefix = strdup (prefix);
    self->next_number = 1;
    self->byname = zhashx_new ();
    self->registered = zhashx_new ();
    self->unfit_warned = zhashx_new ();
    self->full = (uint32_t *) zmalloc ((self->config.ntypes + 1) * sizeof (uint32_t));
    self->tokens = self->config.ops_per_second;
    self->retry_at = UINT64_MAX;
    return self;
}

//  Free an instance
static void
s_instance_free (s_instance_t *inst)
{
    free (inst->name);
    free (inst->type_name);
    free (inst->why);
    free (inst);
}

//  Destroy a pool
void
drover_pool_destroy (drover_pool_t **self_p)
{
    assert (self_p);
    drover_pool_t *self = *self_p;
    if (self) {
        s_instance_t *inst = self->oldest;
        while (inst) {
            s_instance_t *next = inst->next;
            s_instance_free (inst);
            inst = next;
        }
        zhashx_destroy (&self->byname);
        zhashx_destroy (&self->registered);
        zhashx_destroy (&self->unfit_warned);
        for (size_t index = 0; index < self->config.ntypes; index++)
            free (self->config.types [index].labels);
        free (self->config.name);
        free (self->prefix);
        free (self->shapes);
        free (self->labels_buf);
        free (self->fits);
        free (self->rooms);
        free (self->full);
        free (self);
        *self_p = NULL;
    }
}

//  Tell state changes and warnings to fn
void
drover_pool_set_notify (drover_pool_t *self, drover_poolnote_fn *fn, void *arg)
{
    assert (self);
    self->notify = fn;
    self->notify_arg = arg;
}

//  Tell a state change or a warning
void
drover_pool_note (drover_pool_t *self, s_instance_t *inst, int from, int to, bool warning,
                  const char *why)
{
    if (!self->notify)
        return;
    drover_poolnote_t note = {
        .instance = inst ? inst->name : NULL,
        .type = inst && *inst->type_name ? inst->type_name : NULL,
        .from = from, .to = to, .warning = warning, .why = why
    };
    self->notify (&note, self->notify_arg);
}

//  Move an instance to a state, telling it
void
drover_pool_set_state (drover_pool_t *self, s_instance_t *inst,
                       drover_instance_state_t state, const char *why, uint64_t now)
{
    int from = inst->state;
    inst->state = state;
    inst->since = now;
    free (inst->why);
    inst->why = strdup (why);
    drover_pool_note (self, inst, from, state, false, why);
}

//  Add a new instance, newest
s_instance_t *
drover_pool_add (drover_pool_t *self, const char *name, int type, const char *type_name,
                 drover_instance_state_t state, drover_idle_behaviour_t behaviour,
                 const char *why, uint64_t now)
{
    s_instance_t *inst = (s_instance_t *) zmalloc (sizeof (s_instance_t));
    inst->name = strdup (name);
    inst->type = type;
    inst->type_name = strdup (type_name ? type_name : "");
    inst->state = state;
    inst->behaviour = behaviour;
    inst->created = now;
    inst->since = now;
    inst->why = strdup (why);
    inst->prev = self->newest;
    if (self->newest)
        self->newest->next = inst;
    else
        self->oldest = inst;
    self->newest = inst;
    self->size++;
    int rc = zhashx_insert (self->byname, inst->name, inst);
    assert (rc == 0);
    drover_pool_note (self, inst, -1, state, false, why);
    return inst;
}

//  Forget an instance, telling it
void
drover_pool_forget (drover_pool_t *self, s_instance_t *inst, const char *why)
{
    drover_pool_note (self, inst, inst->state, -1, false, why);
    zhashx_delete (self->byname, inst->name);
    if (inst->prev)
        inst->prev->next = inst->next;
    else
        self->oldest = inst->next;
    if (inst->next)
        inst->next->prev = inst->prev;
    else
        self->newest = inst->prev;
    self->size--;
    s_instance_free (inst);
}

//  Shut an instance down and ask its destroy (said by the next plan)
void
drover_pool_shut (drover_pool_t *self, s_instance_t *inst, const char *why, uint64_t now)
{
    if (inst->state != DROVER_INSTANCE_SHUTDOWN)
        drover_pool_set_state (self, inst, DROVER_INSTANCE_SHUTDOWN, why, now);
    inst->retire_due = false;
    inst->retiring = false;
    inst->tag_due = false;
    if (!inst->destroy_inflight)
        inst->destroy_due = true;
}

//  Look an instance up by name
static s_instance_t *
s_lookup (drover_pool_t *self, const char *id)
{
    return id ? (s_instance_t *) zhashx_lookup (self->byname, id) : NULL;
}

//  Replace the load report: demand is kept sorted, largest procs first,
//  with the types each shape fits computed once here, not at every plan
static int
s_shape_compare (const void *a, const void *b)
{
    const s_shape_t *left = (const s_shape_t *) a;
    const s_shape_t *right = (const s_shape_t *) b;
    if (left->procs != right->procs)
        return left->procs > right->procs ? -1 : 1;
    if (left->mem != right->mem)
        return left->mem > right->mem ? -1 : 1;
    return 0;
}

//  Keep the demand of a load report
static void
s_keep_demand (drover_pool_t *self, const drover_pooldemand_t *demand, size_t ndemand)
{
    size_t bytes = 0;
    for (size_t index = 0; index < ndemand; index++)
        bytes += strlen (demand [index].labels ? demand [index].labels : "") + 1;
    free (self->shapes);
    free (self->labels_buf);
    free (self->fits);
    self->shapes = (s_shape_t *) zmalloc ((ndemand + 1) * sizeof (s_shape_t));
    self->labels_buf = (char *) zmalloc (bytes + 1);
    self->nshapes = 0;
    char *cursor = self->labels_buf;
    for (size_t index = 0; index < ndemand; index++) {
        if (demand [index].count == 0)
            continue;
        s_shape_t *shape = &self->shapes [self->nshapes++];
        const char *labels = demand [index].labels ? demand [index].labels : "";
        size_t length = strlen (labels);
        memcpy (cursor, labels, length + 1);
        shape->labels = cursor;
        cursor += length + 1;
        shape->procs = demand [index].procs;
        shape->mem = demand [index].mem;
        shape->count = demand [index].count;
    }
    qsort (self->shapes, self->nshapes, sizeof (s_shape_t), s_shape_compare);
    size_t ntypes = self->config.ntypes;
    self->fits = (uint32_t *) zmalloc ((self->nshapes * ntypes + 1) * sizeof (uint32_t));
    for (size_t index = 0; index < self->nshapes; index++) {
        s_shape_t *shape = &self->shapes [index];
        const drover_pooltype_t *cheapest = drover_pooltype_cheapest (
            self->config.types, ntypes, shape->procs, shape->mem, shape->labels);
        shape->cheapest = cheapest ? (int) (cheapest - self->config.types) : -1;
        for (size_t type = 0; type < ntypes; type++) {
            const drover_pooltype_t *offer = &self->config.types [type];
            if (drover_pool_labels_include (offer->labels, shape->labels))
                self->fits [index * ntypes + type] =
                    drover_pool_fit (offer->procs, offer->mem, shape->procs, shape->mem);
        }
    }
}

//  The scheduler's load report, replacing the last one
void
drover_pool_set_load (drover_pool_t *self, const drover_pooldemand_t *demand, size_t ndemand,
                      const drover_poolload_t *workers, size_t nworkers, uint64_t now)
{
    assert (self);
    self->now = now;
    s_keep_demand (self, demand, ndemand);
    for (s_instance_t *inst = self->oldest; inst; inst = inst->next)
        inst->in_report = false;
    for (size_t index = 0; index < nworkers; index++) {
        s_instance_t *inst = s_lookup (self, workers [index].id);
        if (!inst)
            continue;               //  not one of ours
        inst->in_report = true;
        inst->tasks = workers [index].tasks;
        inst->procs_used = workers [index].procs_used;
        inst->mem_used = workers [index].mem_used;
        if (workers [index].last_task)
            inst->last_task = workers [index].last_task;
        if (inst->tasks)
            inst->last_busy = now;
        if (inst->state == DROVER_INSTANCE_IDLE && inst->tasks)
            drover_pool_set_state (self, inst, DROVER_INSTANCE_RUNNING, "tasks assigned", now);
        else
        if (inst->state == DROVER_INSTANCE_RUNNING && !inst->tasks)
            drover_pool_set_state (self, inst, DROVER_INSTANCE_IDLE, "no task", now);
    }
}

//  A worker registered
bool
drover_pool_registered (drover_pool_t *self, const char *id, uint64_t now)
{
    assert (self);
    self->now = now;
    s_instance_t *inst = s_lookup (self, id);
    if (!inst) {
        //  Remembered in case a list adopts it later; health bounds how
        //  many workers there are, and LOST removes it
        if (id && !zhashx_lookup (self->registered, id))
            zhashx_insert (self->registered, id, (void *) self);
        return false;
    }
    if (inst->state == DROVER_INSTANCE_UNKNOWN || inst->state == DROVER_INSTANCE_BOOTING) {
        inst->lost = false;
        inst->in_report = false;
        inst->tasks = 0;
        drover_pool_set_state (self, inst, DROVER_INSTANCE_IDLE, "registered", now);
    }
    return true;
}

//  A worker was lost
void
drover_pool_lost (drover_pool_t *self, const char *id, const char *reason, uint64_t now)
{
    assert (self);
    self->now = now;
    if (id)
        zhashx_delete (self->registered, id);
    s_instance_t *inst = s_lookup (self, id);
    if (!inst)
        return;                     //  not one of ours
    reason = reason ? reason : "";
    inst->tasks = 0;
    inst->procs_used = 0;
    inst->mem_used = 0;
    inst->in_report = false;
    if (inst->state == DROVER_INSTANCE_SHUTDOWN) {
        if (inst->destroy_at && streq (reason, "left"))
            inst->left_seq = ++self->seq;
        if (inst->retiring || inst->retire_due)
            drover_pool_shut (self, inst, inst->why, now);  //  no worker to wait for
        return;
    }
    if (inst->state == DROVER_INSTANCE_IDLE || inst->state == DROVER_INSTANCE_RUNNING) {
        char why [128];
        snprintf (why, sizeof why, "lost: %s", reason);
        inst->lost = true;
        drover_pool_set_state (self, inst, DROVER_INSTANCE_UNKNOWN, why, now);
    }
}

//  A retired instance's worker is idle and takes no new work: destroy it
void
drover_pool_retired (drover_pool_t *self, const char *id, uint64_t now)
{
    assert (self);
    self->now = now;
    s_instance_t *inst = s_lookup (self, id);
    if (inst && inst->state == DROVER_INSTANCE_SHUTDOWN && inst->retiring)
        drover_pool_shut (self, inst, inst->why, now);
}

//  Warn of consecutive create failures every warn-failures, and back
//  creates off: none for 1 s after the second failure in a row, doubling
//  with each further one, at most 60 s (bigslice warns; Arvados backs off)
static void
s_create_failed (drover_pool_t *self, const char *detail, uint64_t now)
{
    self->failures++;
    uint32_t warn = self->config.warn_failures;
    if (warn && self->failures % warn == 0) {
        char why [256];
        snprintf (why, sizeof why, "%u creates failed in a row: %s", self->failures, detail);
        drover_pool_note (self, NULL, -1, -1, true, why);
    }
    if (self->failures >= 2) {
        uint32_t shift = self->failures - 2 < 6 ? self->failures - 2 : 6;
        uint64_t backoff = (uint64_t) 1000 << shift;
        if (backoff > 60000)
            backoff = 60000;
        self->fail_until = now + backoff;
    }
}

//  A CREATE finished
void
drover_pool_created (drover_pool_t *self, const char *instance, drover_poolop_result_t result,
                     const char *detail, uint64_t now)
{
    assert (self);
    self->now = now;
    detail = detail ? detail : "";
    s_instance_t *inst = s_lookup (self, instance);
    if (inst)
        inst->create_inflight = false;
    char why [256];
    if (result == DROVER_POOLOP_OK) {
        self->failures = 0;
        self->fail_until = 0;
        if (inst)
            inst->known_seq = ++self->seq;
        return;
    }
    self->create_failures++;
    if (result == DROVER_POOLOP_QUOTA) {
        snprintf (why, sizeof why, "quota exceeded: %s", detail);
        self->quota_until = now + self->config.quota_backoff;
        self->went_away = false;
        drover_pool_note (self, NULL, -1, -1, true, why);
    }
    else
    if (result == DROVER_POOLOP_RATE_LIMITED) {
        snprintf (why, sizeof why, "rate limited: %s", detail);
        self->rate_until = now + self->config.rate_backoff;
        drover_pool_note (self, NULL, -1, -1, true, why);
    }
    else {
        snprintf (why, sizeof why, "create failed: %s", detail);
        s_create_failed (self, detail, now);
    }
    //  The next plan tries again when the backoffs allow
    uint64_t again = now;
    if (self->fail_until > again)
        again = self->fail_until;
    if (result == DROVER_POOLOP_QUOTA && self->quota_until > again)
        again = self->quota_until;
    if (self->rate_until > again)
        again = self->rate_until;
    if (again < self->retry_at)
        self->retry_at = again;
    //  The instance never came to be (unless its worker says otherwise)
    if (inst && (inst->state == DROVER_INSTANCE_BOOTING
              || (inst->state == DROVER_INSTANCE_SHUTDOWN && !inst->known_seq)))
        drover_pool_forget (self, inst, why);
}

//  A DESTROY finished
void
drover_pool_destroyed (drover_pool_t *self, const char *instance,
                       drover_poolop_result_t result, const char *detail, uint64_t now)
{
    assert (self);
    self->now = now;
    s_instance_t *inst = s_lookup (self, instance);
    if (!inst)
        return;
    inst->destroy_inflight = false;
    if (result == DROVER_POOLOP_OK) {
        inst->destroy_seq = ++self->seq;
        inst->destroy_failed = false;
        inst->still_listed = false;
        self->went_away = true;     //  ends a quota backoff, as Arvados
        if (self->next_list > now)
            self->next_list = now;  //  a list soon tells when it is gone
    }
    else
    if (result == DROVER_POOLOP_RATE_LIMITED) {
        self->rate_until = now + self->config.rate_backoff;
        inst->destroy_due = true;
    }
    else {
        inst->destroy_failed = true;    //  again after shutdown-timeout
        char why [256];
        snprintf (why, sizeof why, "destroy failed: %s", detail ? detail : "");
        drover_pool_note (self, inst, inst->state, inst->state, true, why);
    }
}

//  A TAG finished
void
drover_pool_tagged (drover_pool_t *self, const char *instance, drover_poolop_result_t result,
                    const char *detail, uint64_t now)
{
    assert (self);
    self->now = now;
    s_instance_t *inst = s_lookup (self, instance);
    if (!inst)
        return;
    inst->tag_inflight = false;
    if (result == DROVER_POOLOP_RATE_LIMITED) {
        self->rate_until = now + self->config.rate_backoff;
        if (inst->state != DROVER_INSTANCE_SHUTDOWN)
            inst->tag_due = true;
    }
    else
    if (result != DROVER_POOLOP_OK) {
        char why [256];
        snprintf (why, sizeof why, "tag failed: %s", detail ? detail : "");
        drover_pool_note (self, inst, inst->state, inst->state, true, why);
    }
}

//  Find a type by name; -1 if none
static int
s_type_index (drover_pool_t *self, const char *name)
{
    for (size_t index = 0; index < self->config.ntypes; index++)
        if (streq (self->config.types [index].name, name))
            return (int) index;
    return -1;
}

//  Adopt an instance a list found tagged with our pool's name
static void
s_adopt (drover_pool_t *self, const drover_poolentry_t *entry, uint64_t now)
{
    const char *type_name = entry->type ? entry->type : "";
    int type = s_type_index (self, type_name);
    char why [128];
    if (type < 0)
        snprintf (why, sizeof why, "adopted; unknown type '%s'", type_name);
    else
        snprintf (why, sizeof why, "adopted");
    bool up = zhashx_lookup (self->registered, entry->name) != NULL;
    s_instance_t *inst = drover_pool_add (self, entry->name, type, type_name,
        up ? DROVER_INSTANCE_IDLE : DROVER_INSTANCE_UNKNOWN, entry->behaviour, why, now);
    if (up)
        zhashx_delete (self->registered, entry->name);
    inst->known_seq = ++self->seq;
    inst->seen_gen = self->gen;
    if (entry->behaviour != DROVER_IDLE_RUN)
        inst->admin_due = true;     //  schedq keeps it off new work
}

//  A LIST finished: adopt ours we do not know, forget what vanished
void
drover_pool_listed (drover_pool_t *self, drover_poolop_result_t result,
                    const drover_poolentry_t *entries, size_t nentries, const char *detail,
                    uint64_t now)
{
    assert (self);
    self->now = now;
    self->list_inflight = false;
    self->listed = true;
    if (result == DROVER_POOLOP_RATE_LIMITED) {
        self->rate_until = now + self->config.rate_backoff;
        self->next_list = now;      //  again when the backoff ends
        return;
    }
    if (result != DROVER_POOLOP_OK)
        return;                     //  nothing concluded
    self->gen++;
    for (size_t index = 0; index < nentries; index++) {
        const drover_poolentry_t *entry = &entries [index];
        if (!entry->name || !entry->pool || !streq (entry->pool, self->config.name))
            continue;               //  not ours
        s_instance_t *inst = s_lookup (self, entry->name);
        if (!inst)
            s_adopt (self, entry, now);
        else {
            inst->seen_gen = self->gen;
            if (inst->destroy_seq && inst->destroy_seq < self->list_seq)
                inst->still_listed = true;
        }
    }
    s_instance_t *inst = self->oldest;
    while (inst) {
        s_instance_t *next = inst->next;
        bool missing = inst->seen_gen != self->gen;
        if (missing && inst->state == DROVER_INSTANCE_SHUTDOWN && inst->destroy_at) {
            if ((inst->destroy_seq && inst->destroy_seq < self->list_seq)
            ||  (inst->left_seq && inst->left_seq < self->list_seq)
            ||  (inst->destroy_failed && !inst->destroy_inflight
                 && inst->known_seq && inst->known_seq < self->list_seq))
                drover_pool_forget (self, inst, "gone");
        }
        else
        if (missing && inst->known_seq && inst->known_seq < self->list_seq) {
            self->went_away = true;
            drover_pool_forget (self, inst, "vanished");
        }
        inst = next;
    }
}

//  The operator sets an instance's idle behaviour
int
drover_pool_set_behaviour (drover_pool_t *self, const char *id,
                           drover_idle_behaviour_t behaviour, uint64_t now)
{
    assert (self);
    self->now = now;
    s_instance_t *inst = s_lookup (self, id);
    if (!inst || inst->state == DROVER_INSTANCE_SHUTDOWN)
        return -1;
    inst->behaviour = behaviour;
    inst->tag_due = true;
    inst->admin_due = true;
    char why [64];
    snprintf (why, sizeof why, "behaviour %s", drover_idle_behaviour_name (behaviour));
    drover_pool_note (self, inst, inst->state, inst->state, false, why);
    return 0;
}

//  The operator destroys an instance at once
int
drover_pool_kill (drover_pool_t *self, const char *id, uint64_t now)
{
    assert (self);
    self->now = now;
    s_instance_t *inst = s_lookup (self, id);
    if (!inst)
        return -1;
    drover_pool_shut (self, inst, "destroyed by operator", now);
    return 0;
}

//  Fill a view of an instance
static void
s_view (drover_pool_t *self, s_instance_t *inst, drover_instance_view_t *view)
{
    const drover_pooltype_t *type = inst->type >= 0 ? &self->config.types [inst->type] : NULL;
    view->id = inst->name;
    view->type = inst->type_name;
    view->price = type ? type->price : 0;
    view->procs = type ? type->procs : 0;
    view->mem = type ? type->mem : 0;
    view->state = inst->state;
    view->behaviour = inst->behaviour;
    view->created = inst->created;
    view->since = inst->since;
    view->last_busy = inst->last_busy;
    view->last_task = inst->last_task;
    view->tasks = inst->tasks;
    view->procs_used = inst->procs_used;
    view->mem_used = inst->mem_used;
    view->why = inst->why ? inst->why : "";
}

//  Look up an instance
bool
drover_pool_lookup (drover_pool_t *self, const char *id, drover_instance_view_t *view)
{
    assert (self);
    assert (view);
    s_instance_t *inst = s_lookup (self, id);
    if (!inst)
        return false;
    s_view (self, inst, view);
    return true;
}

//  Call fn for each instance, oldest first
void
drover_pool_each (drover_pool_t *self, drover_instance_fn *fn, void *arg)
{
    assert (self);
    drover_instance_view_t view;
    for (s_instance_t *inst = self->oldest; inst; inst = inst->next) {
        s_view (self, inst, &view);
        fn (&view, arg);
    }
}

//  Return how many instances the pool has
size_t
drover_pool_size (drover_pool_t *self)
{
    assert (self);
    return self->size;
}

//  Fill counts with the pool's gauges
void
drover_pool_counts (drover_pool_t *self, drover_poolcounts_t *counts)
{
    assert (self);
    assert (counts);
    memset (counts, 0, sizeof *counts);
    for (s_instance_t *inst = self->oldest; inst; inst = inst->next) {
        const drover_pooltype_t *type =
            inst->type >= 0 ? &self->config.types [inst->type] : NULL;
        counts->instances [inst->state]++;
        if (inst->state != DROVER_INSTANCE_SHUTDOWN && type)
            counts->price += type->price;
        counts->tasks += inst->tasks;
        if ((inst->state == DROVER_INSTANCE_IDLE || inst->state == DROVER_INSTANCE_RUNNING)
        &&  type) {
            counts->procs += type->procs;
            counts->mem += type->mem;
        }
        counts->procs_used += inst->procs_used;
        counts->mem_used += inst->mem_used;
    }
    counts->creates = self->creates;
    counts->create_failures = self->create_failures;
    counts->destroys = self->destroys;
    counts->quota_backoff = self->now < self->quota_until && !self->went_away;
    counts->quota_until = counts->quota_backoff? self->quota_until: 0;
    counts->failures = self->failures;
}

//  Return the name of a state
const char *
drover_instance_state_name (int state)
{
    switch (state) {
        case DROVER_INSTANCE_UNKNOWN:   return "unknown";
        case DROVER_INSTANCE_BOOTING:   return "booting";
        case DROVER_INSTANCE_IDLE:      return "idle";
        case DROVER_INSTANCE_RUNNING:   return "running";
        case DROVER_INSTANCE_SHUTDOWN:  return "shutdown";
        default:                        return "?";
    }
}

//  Return the name of a behaviour
const char *
drover_idle_behaviour_name (int behaviour)
{
    switch (behaviour) {
        case DROVER_IDLE_RUN:   return "run";
        case DROVER_IDLE_HOLD:  return "hold";
        case DROVER_IDLE_DRAIN: return "drain";
        default:                return "?";
    }
}

//  Parse a behaviour's name
int
drover_idle_behaviour_parse (const char *name, drover_idle_behaviour_t *behaviour_p)
{
    assert (behaviour_p);
    if (!name)
        return -1;
    if (streq (name, "run"))
        *behaviour_p = DROVER_IDLE_RUN;
    else
    if (streq (name, "hold"))
        *behaviour_p = DROVER_IDLE_HOLD;
    else
    if (streq (name, "drain"))
        *behaviour_p = DROVER_IDLE_DRAIN;
    else
        return -1;
    return 0;
}
