/*  =========================================================================
    drover_pool - the elastic pool's decisions: its instances and the
    inputs that change them (load reports, registrations, driver results,
    operator commands), and the plan

    The file reads top-down in two sections: the instances and their
    inputs and views, then the plan (its bounds and deadlines).

    Instances live in a hash by name and in a list, oldest first, linked
    through the instances themselves so that one is forgotten in O(1).
    Events that must be ordered against a list (a create or destroy that
    finished, a worker that left) take a sequence number, not a time: a
    fake clock may say the same msec for both.
    =========================================================================
*/

#include "drover_pool.h"
#include "drover_devicelist.h"

#define DROVER_POOL_UNFIT_MAX   1024    //  unfittable shapes remembered as warned
#define DROVER_POOL_RELEASE_GRACE   1000    //  msec an instance whose probe just passed
                                        //  counts as coming capacity, idle in a report:
                                        //  a LOAD said before schedq heard its release
                                        //  shows it idle beside the demand it will take
#define DROVER_POOL_OPS         4       //  operations with a backoff of their own: CREATE,
                                        //  DESTROY, TAG, LIST (drover_poolaction_kind_t)

typedef struct _s_instance_t s_instance_t;

//  One instance of the pool
struct _s_instance_t {
    char *name;                 //  instance name = worker id, key of self->byname
    int type;                   //  index in self->config.types, -1 unknown type
    char *type_name;            //  its type's name ("" if not told)
    drover_instance_state_t state;  //  its state
    drover_idle_behaviour_t behaviour;  //  its idle behaviour
    uint64_t created;           //  when created or adopted, msec
    uint64_t since;             //  when it entered its state, msec
    uint64_t last_busy;         //  when last seen running a task, 0 never
    uint64_t last_task;         //  the last task it was given, 0 none
    uint32_t tasks;             //  tasks it runs (last load report)
    uint32_t procs_used;        //  procs they take
    uint64_t mem_used;          //  memory they take, bytes
    char *why;                  //  why it is in its state
    bool lost;                  //  unknown because its worker was lost: probe timeout
    bool in_report;             //  in the last load report
    bool create_inflight;       //  CREATE said, not answered
    uint64_t known_seq;         //  seq when the driver was known to have it, 0 not yet
    bool retire_due;            //  RETIRE to say
    bool retiring;              //  RETIRE said, waiting for drover_pool_retired
    bool admin_due;             //  ADMIN (behaviour) to say
    bool tag_due;               //  TAG to say
    bool tag_inflight;          //  TAG said, not answered
    bool destroy_due;           //  DESTROY to say
    bool destroy_inflight;      //  DESTROY said, not answered
    bool destroy_failed;        //  the last DESTROY failed
    uint64_t destroy_at;        //  when the last DESTROY was said, 0 never
    uint64_t destroy_seq;       //  seq when a DESTROY finished well, 0 never
    uint64_t left_seq;          //  seq when its worker left after a DESTROY, 0 never
    bool still_listed;          //  listed by a list begun after its destroy finished
    uint64_t seen_gen;          //  the last list generation that had it
    drover_probe_state_t probe; //  its boot probe
    bool up;                    //  its worker registered (booting or unknown while probing)
    uint64_t up_at;             //  when it registered: the probe timeout counts from it
    bool probe_inflight;        //  PROBE said, not answered
    uint64_t probe_at;          //  no probe before, msec
    uint32_t probes;            //  probes run on it
    bool admin_probe;           //  the ADMIN due is about its probe (hold, or released)
    uint64_t released_at;       //  when its probe passed (it takes work since), 0 not yet
    s_instance_t *prev;         //  older instance, NULL first
    s_instance_t *next;         //  newer instance, NULL last
};

//  One demand shape of the last load report
typedef struct {
    uint32_t procs;             //  procs each task asks
    uint64_t mem;               //  memory each asks, bytes
    const char *labels;         //  into self->labels_buf
    const char *devices;        //  into self->labels_buf: "gpu=1", "" none
    uint32_t count;             //  tasks waiting
    int cheapest;               //  the cheapest type that fits, -1 none
} s_shape_t;

//  Capacity left on one instance, while a plan fits demand
typedef struct {
    int type;                   //  its type
    uint32_t procs;             //  procs free
    uint64_t mem;               //  memory free, bytes
} s_room_t;

//  A token bucket: at most rate a second, a second's worth at once
typedef struct {
    double tokens;                  //  tokens in it
    uint64_t at;                    //  when it was last filled, msec
} s_bucket_t;

struct _drover_pool_t {
    drover_poolconfig_t config;     //  settings and types (strings: only name and labels ours)
    char *prefix;                   //  names of created instances: prefix + number
    uint32_t next_number;           //  the next instance's number
    zhashx_t *byname;               //  name -> s_instance_t (not owned: s_forget frees)
    s_instance_t *oldest;           //  ordered list, oldest first
    s_instance_t *newest;           //  its last
    size_t size;                    //  instances
    zhashx_t *registered;           //  ids of registered workers that are no instance (yet)
    zhashx_t *unfit_warned;         //  shapes no type fits, already warned of
    drover_poolnote_fn *notify;     //  told state changes and warnings
    void *notify_arg;               //  its argument
    s_shape_t *shapes;              //  demand, largest procs first
    size_t nshapes;                 //  entries in shapes
    char *labels_buf;               //  the shapes' labels
    uint32_t *fits;                 //  [shape * ntypes + type]: tasks one instance takes, 0 none
    s_room_t *rooms;                //  a plan's scratch: partly filled instances coming
    size_t nrooms;                  //  entries used
    size_t rooms_max;               //  entries allocated
    uint32_t *full;                 //  a plan's scratch: [type] empty instances coming
    s_bucket_t op_bucket;           //  driver operations, pool/ops-per-second
    uint64_t rate_until [DROVER_POOL_OPS];  //  no such operation before (rate limited), msec
    bool probing;                   //  boot probes run (pool/probe, and the driver)
    s_bucket_t probe_bucket;        //  boot probes, pool/probes-per-second
    zhashx_t *unknown_warned;       //  names listed with an unknown type, already told
    uint64_t quota_until;           //  no create before (unless went_away), msec
    bool went_away;                 //  an instance went away since the quota error
    uint64_t fail_until;            //  no create before (consecutive failures), msec
    uint32_t failures;              //  consecutive create failures
    bool planned;                   //  a plan ran
    bool listed;                    //  a list finished (creates wait for the first)
    bool list_inflight;             //  LIST said, not answered
    uint64_t next_list;             //  when the next LIST is due, msec
    uint64_t list_seq;              //  seq when the LIST in flight was said
    uint64_t seq;                   //  orders events (a fake clock may not move)
    uint64_t gen;                   //  list generations
    uint64_t retry_at;              //  when creates blocked in the last plan may go
    uint64_t now;                   //  the latest now seen
    uint64_t creates;               //  creates asked
    uint64_t create_failures;       //  creates that failed
    uint64_t destroys;              //  destroys asked
    uint64_t probes;                //  probes asked
    uint64_t probe_failures;        //  probes that failed
    uint64_t surplus;               //  booting instances destroyed as surplus
    uint64_t unknown_types;         //  listed instances ignored for an unknown type
};

//  tell a state change or a warning
static void
    s_note (drover_pool_t *self, s_instance_t *inst, int from, int to, bool warning,
            const char *why);

//  move an instance to a state, telling it
static void
    s_set_state (drover_pool_t *self, s_instance_t *inst,
                 drover_instance_state_t state, const char *why, uint64_t now);

//  add a new instance (newest), telling it
static s_instance_t *
    s_add (drover_pool_t *self, const char *name, int type, const char *type_name,
           drover_instance_state_t state, drover_idle_behaviour_t behaviour,
           const char *why, uint64_t now);

//  forget an instance, telling it
static void
    s_forget (drover_pool_t *self, s_instance_t *inst, const char *why);

//  shut an instance down and ask its destroy
static void
    s_shut (drover_pool_t *self, s_instance_t *inst, const char *why, uint64_t now);

//  does have ("k=v" lines) include every label of want
static bool
    s_labels_include (const char *have, const char *want);

//  how many tasks of procs/mem fit in procs_free/mem_free
static uint32_t
    s_fit (uint32_t procs_free, uint64_t mem_free, uint32_t procs, uint64_t mem);

//  how many tasks asking devices want fit in the devices have
static uint32_t
    s_devices_fit (const char *have, const char *want);

//  =========================================================================
//  The instances, the inputs that change them, and views of them
//  =========================================================================

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
    const char *probe = config->probe? config->probe: "off";
    self->probing = streq (probe, "on")
                 || (streq (probe, "auto") && config->driver && streq (config->driver, "local"));
    self->config.probe = NULL;
    if (self->config.ntypes > DROVER_POOL_TYPES_MAX)
        self->config.ntypes = DROVER_POOL_TYPES_MAX;
    for (size_t index = 0; index < self->config.ntypes; index++) {
        self->config.types [index].labels =
            strdup (config->types [index].labels ? config->types [index].labels : "");
        self->config.types [index].devices =
            strdup (config->types [index].devices ? config->types [index].devices : "");
    }
    self->prefix = strdup (prefix);
    self->next_number = 1;
    self->byname = zhashx_new ();
    self->registered = zhashx_new ();
    self->unfit_warned = zhashx_new ();
    self->unknown_warned = zhashx_new ();
    self->probe_bucket.tokens = self->config.probes_per_second;
    self->full = (uint32_t *) zmalloc ((self->config.ntypes + 1) * sizeof (uint32_t));
    self->op_bucket.tokens = self->config.ops_per_second;
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
        zhashx_destroy (&self->unknown_warned);
        for (size_t index = 0; index < self->config.ntypes; index++) {
            free (self->config.types [index].labels);
            free (self->config.types [index].devices);
        }
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
static void
s_note (drover_pool_t *self, s_instance_t *inst, int from, int to, bool warning,
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
static void
s_set_state (drover_pool_t *self, s_instance_t *inst,
             drover_instance_state_t state, const char *why, uint64_t now)
{
    int from = inst->state;
    inst->state = state;
    inst->since = now;
    free (inst->why);
    inst->why = strdup (why);
    s_note (self, inst, from, state, false, why);
}

//  Add a new instance, newest
static s_instance_t *
s_add (drover_pool_t *self, const char *name, int type, const char *type_name,
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
    s_note (self, inst, -1, state, false, why);
    return inst;
}

//  Forget an instance, telling it
static void
s_forget (drover_pool_t *self, s_instance_t *inst, const char *why)
{
    s_note (self, inst, inst->state, -1, false, why);
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
static void
s_shut (drover_pool_t *self, s_instance_t *inst, const char *why, uint64_t now)
{
    if (inst->state != DROVER_INSTANCE_SHUTDOWN)
        s_set_state (self, inst, DROVER_INSTANCE_SHUTDOWN, why, now);
    inst->retire_due = false;
    inst->retiring = false;
    inst->tag_due = false;
    inst->admin_due = false;
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
        bytes += strlen (demand [index].labels ? demand [index].labels : "") + 1
               + strlen (demand [index].devices ? demand [index].devices : "") + 1;
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
        const char *devices = demand [index].devices ? demand [index].devices : "";
        length = strlen (devices);
        memcpy (cursor, devices, length + 1);
        shape->devices = cursor;
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
            self->config.types, ntypes, shape->procs, shape->mem, shape->labels, shape->devices);
        shape->cheapest = cheapest ? (int) (cheapest - self->config.types) : -1;
        for (size_t type = 0; type < ntypes; type++) {
            const drover_pooltype_t *offer = &self->config.types [type];
            if (s_labels_include (offer->labels, shape->labels)) {
                uint32_t fit = s_fit (offer->procs, offer->mem, shape->procs, shape->mem);
                uint32_t devices = s_devices_fit (offer->devices, shape->devices);
                self->fits [index * ntypes + type] = fit < devices? fit: devices;
            }
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
        if (inst->tasks) {
            inst->last_busy = now;
            inst->released_at = 0;  //  it took work: the report says what it has
        }
        if (inst->state == DROVER_INSTANCE_IDLE && inst->tasks)
            s_set_state (self, inst, DROVER_INSTANCE_RUNNING, "tasks assigned", now);
        else
        if (inst->state == DROVER_INSTANCE_RUNNING && !inst->tasks)
            s_set_state (self, inst, DROVER_INSTANCE_IDLE, "no task", now);
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
        if (self->probing && inst->probe != DROVER_PROBE_OK) {
            //  Registered, not probed: stays as it is, held, probed now
            if (!inst->up) {
                inst->up = true;
                inst->up_at = now;
                inst->probe_at = now;
                s_note (self, inst, inst->state, inst->state, false, "registered; probing");
            }
        }
        else
            s_set_state (self, inst, DROVER_INSTANCE_IDLE, "registered", now);
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
    inst->up = false;               //  probing: waits for it again (the timeouts go on)
    if (inst->state == DROVER_INSTANCE_SHUTDOWN) {
        if (inst->destroy_at && streq (reason, "left"))
            inst->left_seq = ++self->seq;
        if (inst->retiring || inst->retire_due)
            s_shut (self, inst, inst->why, now);  //  no worker to wait for
        return;
    }
    if (inst->state == DROVER_INSTANCE_IDLE || inst->state == DROVER_INSTANCE_RUNNING) {
        char why [128];
        snprintf (why, sizeof why, "lost: %s", reason);
        inst->lost = true;
        s_set_state (self, inst, DROVER_INSTANCE_UNKNOWN, why, now);
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
        s_shut (self, inst, inst->why, now);
}

//  Warn of consecutive create failures every warn-failures, and back
//  creates off: none for create-backoff (1 s) after the second failure in
//  a row, doubling with each further one, at most create-backoff-max (60 s;
//  never less than create-backoff) (bigslice warns; Arvados backs off)
static void
s_create_failed (drover_pool_t *self, const char *detail, uint64_t now)
{
    self->failures++;
    uint32_t warn = self->config.warn_failures;
    if (warn && self->failures % warn == 0) {
        char why [256];
        snprintf (why, sizeof why, "%u creates failed in a row: %s", self->failures, detail);
        s_note (self, NULL, -1, -1, true, why);
    }
    if (self->failures >= 2 && self->config.create_backoff) {
        uint32_t shift = self->failures - 2 < 24 ? self->failures - 2 : 24;
        uint64_t backoff = (uint64_t) self->config.create_backoff << shift;
        uint64_t most = self->config.create_backoff_max > self->config.create_backoff
                      ? self->config.create_backoff_max : self->config.create_backoff;
        if (backoff > most)
            backoff = most;
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
        s_note (self, NULL, -1, -1, true, why);
    }
    else
    if (result == DROVER_POOLOP_RATE_LIMITED) {
        snprintf (why, sizeof why, "rate limited: %s", detail);
        self->rate_until [DROVER_POOL_CREATE] = now + self->config.rate_backoff;
        s_note (self, NULL, -1, -1, true, why);
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
    if (self->rate_until [DROVER_POOL_CREATE] > again)
        again = self->rate_until [DROVER_POOL_CREATE];
    if (again < self->retry_at)
        self->retry_at = again;
    //  The instance never came to be (unless its worker says otherwise)
    if (inst && (inst->state == DROVER_INSTANCE_BOOTING
              || (inst->state == DROVER_INSTANCE_SHUTDOWN && !inst->known_seq)))
        s_forget (self, inst, why);
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
        self->rate_until [DROVER_POOL_DESTROY] = now + self->config.rate_backoff;
        inst->destroy_due = true;
    }
    else {
        inst->destroy_failed = true;    //  again after shutdown-timeout
        char why [256];
        snprintf (why, sizeof why, "destroy failed: %s", detail ? detail : "");
        s_note (self, inst, inst->state, inst->state, true, why);
    }
}

//  A PROBE finished: passed, the instance takes work; failed, it is
//  probed again after probe-interval (and destroyed at probe-timeout)
void
drover_pool_probed (drover_pool_t *self, const char *instance, drover_poolop_result_t result,
                    const char *detail, uint64_t now)
{
    assert (self);
    self->now = now;
    s_instance_t *inst = s_lookup (self, instance);
    if (!inst)
        return;
    inst->probe_inflight = false;
    if (inst->state == DROVER_INSTANCE_SHUTDOWN || inst->probe == DROVER_PROBE_OK)
        return;
    if (result == DROVER_POOLOP_OK && inst->up) {
        inst->probe = DROVER_PROBE_OK;
        inst->in_report = false;
        inst->tasks = 0;
        inst->admin_due = true;     //  its behaviour again: it takes work
        inst->admin_probe = true;
        inst->released_at = now;
        s_set_state (self, inst, DROVER_INSTANCE_IDLE, "registered; probe passed", now);
        return;
    }
    char why [256];
    if (result == DROVER_POOLOP_OK)
        snprintf (why, sizeof why, "probe passed, but its worker was lost meanwhile");
    else
        snprintf (why, sizeof why, "probe failed: %s", detail && *detail? detail: "no detail");
    self->probe_failures++;
    inst->probe = DROVER_PROBE_FAILED;
    inst->probe_at = now + self->config.probe_interval;
    free (inst->why);
    inst->why = strdup (why);
    drover_poolnote_t note = {
        .instance = inst->name, .type = *inst->type_name? inst->type_name: NULL,
        .from = inst->state, .to = inst->state, .probe = true, .why = why
    };
    if (self->notify)
        self->notify (&note, self->notify_arg);
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
        self->rate_until [DROVER_POOL_TAG] = now + self->config.rate_backoff;
        if (inst->state != DROVER_INSTANCE_SHUTDOWN)
            inst->tag_due = true;
    }
    else
    if (result != DROVER_POOLOP_OK) {
        char why [256];
        snprintf (why, sizeof why, "tag failed: %s", detail ? detail : "");
        s_note (self, inst, inst->state, inst->state, true, why);
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
    if (type < 0) {
        //  Not adopted, as Arvados: left alone, told once (the set is
        //  bounded: when full it is emptied, and a name may be told again)
        if (zhashx_lookup (self->unknown_warned, entry->name))
            return;
        if (zhashx_size (self->unknown_warned) >= DROVER_POOL_UNFIT_MAX)
            zhashx_purge (self->unknown_warned);
        zhashx_insert (self->unknown_warned, entry->name, (void *) self);
        self->unknown_types++;
        char why [128 + DROVER_ID_MAX];
        snprintf (why, sizeof why, "listed with type '%.*s', which the settings do not have: "
                  "ignored", DROVER_ID_MAX, type_name);
        drover_poolnote_t note = { .instance = entry->name, .from = -1, .to = -1,
                                   .warning = true, .why = why };
        if (self->notify)
            self->notify (&note, self->notify_arg);
        return;
    }
    bool up = zhashx_lookup (self->registered, entry->name) != NULL;
    bool probing = self->probing;
    s_instance_t *inst = s_add (self, entry->name, type, type_name,
        up && !probing ? DROVER_INSTANCE_IDLE : DROVER_INSTANCE_UNKNOWN, entry->behaviour,
        "adopted", now);
    if (up)
        zhashx_delete (self->registered, entry->name);
    inst->known_seq = ++self->seq;
    inst->seen_gen = self->gen;
    if (probing) {
        //  Probed before it takes work, as a new one
        inst->probe = DROVER_PROBE_PENDING;
        inst->admin_due = true;
        inst->admin_probe = true;
        if (up) {
            inst->up = true;
            inst->up_at = now;
            inst->probe_at = now;
        }
    }
    else {
        //  Its behaviour (hold, drain: schedq keeps it off new work; run:
        //  clears a probe's hold kept from before a restart)
        inst->admin_due = true;
        inst->admin_probe = entry->behaviour == DROVER_IDLE_RUN;
    }
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
        self->rate_until [DROVER_POOL_LIST] = now + self->config.rate_backoff;
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
                s_forget (self, inst, "gone");
        }
        else
        if (missing && inst->known_seq && inst->known_seq < self->list_seq) {
            self->went_away = true;
            s_forget (self, inst, "vanished");
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
    s_note (self, inst, inst->state, inst->state, false, why);
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
    s_shut (self, inst, "destroyed by operator", now);
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
    view->probe = inst->probe;
    view->probes = inst->probes;
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

//  Return true if the pool runs boot probes
bool
drover_pool_probing (drover_pool_t *self)
{
    assert (self);
    return self->probing;
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
        if (inst->up && inst->probe != DROVER_PROBE_OK && inst->probe != DROVER_PROBE_NONE
        &&  inst->state != DROVER_INSTANCE_SHUTDOWN)
            counts->probing++;
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
    counts->probes = self->probes;
    counts->probe_failures = self->probe_failures;
    counts->surplus = self->surplus;
    counts->unknown_types = self->unknown_types;
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

//  Return the name of a probe state
const char *
drover_probe_state_name (int probe)
{
    switch (probe) {
        case DROVER_PROBE_NONE:     return "none";
        case DROVER_PROBE_PENDING:  return "pending";
        case DROVER_PROBE_OK:       return "ok";
        case DROVER_PROBE_FAILED:   return "failed";
        default:                    return "?";
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

//  =========================================================================
//  The plan: the timeouts, the driver's operations within their token
//  bucket, and which instances to create
//
//  Creating follows Arvados' worker pool and bigslice: capacity that is
//  coming (booting and unknown instances, and registered ones the
//  scheduler has not reported yet) takes waiting demand first, largest
//  procs first; what is left gets the cheapest type that fits, and the
//  shapes that follow are packed into the instances just planned before
//  more are planned. Capacity is kept as "empty instances of type T" counts
//  plus a short list of partly filled rooms, so fitting a shape costs
//  O(types + rooms), never O(tasks) nor O(instances).
//  =========================================================================

//  Does have ("k=v" lines) include every label of want
static bool
s_labels_include (const char *have, const char *want)
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

//  How many tasks asking want ("gpu=1", "" none) fit in the devices have:
//  the fewest over the names asked, UINT32_MAX if it asks none
static uint32_t
s_devices_fit (const char *have, const char *want)
{
    drover_device_t asked [DROVER_DEVICES_MAX], held [DROVER_DEVICES_MAX];
    int nasked = drover_devicelist_parse (want, asked, NULL);
    int nheld = drover_devicelist_parse (have, held, NULL);
    uint32_t fit = UINT32_MAX;
    for (int index = 0; index < nasked; index++) {
        uint32_t count = drover_devicelist_count (held, nheld > 0? (size_t) nheld: 0,
                                                  asked [index].name);
        uint32_t per = count / asked [index].count;
        fit = per < fit? per: fit;
    }
    return fit;
}

//  How many tasks of procs/mem fit in procs_free/mem_free (a task asking
//  nothing of a resource is not bounded by it)
static uint32_t
s_fit (uint32_t procs_free, uint64_t mem_free, uint32_t procs, uint64_t mem)
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
                          uint64_t mem, const char *labels, const char *devices)
{
    const drover_pooltype_t *best = NULL;
    for (size_t index = 0; index < ntypes; index++) {
        const drover_pooltype_t *type = &types [index];
        if (type->procs < procs || type->mem < mem || type->procs == 0
        ||  !s_labels_include (type->labels, labels)
        ||  s_devices_fit (type->devices, devices) == 0)
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

//  Fill a bucket of rate tokens a second for now
static void
s_bucket_fill (s_bucket_t *bucket, uint32_t rate, uint64_t now)
{
    if (now > bucket->at) {
        bucket->tokens += (double) (now - bucket->at) * rate / 1000.0;
        if (bucket->tokens > rate)
            bucket->tokens = rate;
        bucket->at = now;
    }
}

//  Return when a bucket of rate tokens a second (0: no limit) has a token:
//  now if it has one
static uint64_t
s_bucket_at (const s_bucket_t *bucket, uint32_t rate, uint64_t now)
{
    if (!rate || bucket->tokens >= 1)
        return now;
    uint64_t at = bucket->at + (uint64_t) ceil ((1 - bucket->tokens) * 1000.0 / rate);
    return at > now ? at : now;
}

//  Take a token from a bucket of rate tokens a second (0: no limit).
//  Returns true if it had one.
static bool
s_bucket_take (s_bucket_t *bucket, uint32_t rate, uint64_t now)
{
    if (!rate)
        return true;
    s_bucket_fill (bucket, rate, now);
    if (bucket->tokens < 1)
        return false;
    bucket->tokens -= 1;
    return true;
}

//  Return when a driver operation of kind (CREATE, DESTROY, TAG, LIST)
//  may go: after its own rate backoff, when the bucket has a token (now if
//  it has one)
static uint64_t
s_op_at (drover_pool_t *self, uint64_t now, drover_poolaction_kind_t kind)
{
    assert ((int) kind < DROVER_POOL_OPS);
    uint64_t at = s_bucket_at (&self->op_bucket, self->config.ops_per_second, now);
    return at > self->rate_until [kind] ? at : self->rate_until [kind];
}

//  Take a token for a driver operation of kind. Returns true if it may go
//  now: a rate limit backs off only the operation it hit (Arvados throttles
//  create and list apart), the bucket is shared.
static bool
s_op_take (drover_pool_t *self, uint64_t now, drover_poolaction_kind_t kind)
{
    assert ((int) kind < DROVER_POOL_OPS);
    if (now < self->rate_until [kind])
        return false;
    return s_bucket_take (&self->op_bucket, self->config.ops_per_second, now);
}

//  Does an instance wait for a probe to be said (registered, not passed,
//  none in flight)
static bool
s_probe_wanted (const drover_pool_t *self, const s_instance_t *inst)
{
    return self->probing && inst->up && !inst->probe_inflight
        && inst->state != DROVER_INSTANCE_SHUTDOWN
        && (inst->probe == DROVER_PROBE_PENDING || inst->probe == DROVER_PROBE_FAILED);
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
    if (kind == DROVER_POOL_ADMIN) {
        //  Whatever its behaviour, no work before its probe passes; its
        //  behaviour said again after it (or to clear a probe's hold a
        //  broker that probed left before its restart) is no news
        action.probing = self->probing && (inst->probe == DROVER_PROBE_PENDING
                                           || inst->probe == DROVER_PROBE_FAILED);
        action.probed = inst->admin_probe && !action.probing;
    }
    fn (&action, arg);
}

//  Apply the timeouts, drains and idle timeout to one instance; returns
//  true if it stopped being live
static bool
s_timeouts (drover_pool_t *self, s_instance_t *inst, size_t live, uint64_t now)
{
    const drover_poolconfig_t *config = &self->config;
    if (inst->up && inst->state != DROVER_INSTANCE_SHUTDOWN
    &&  (inst->probe == DROVER_PROBE_PENDING || inst->probe == DROVER_PROBE_FAILED)) {
        //  Registered, its probe not passed: the probe timeout, not the
        //  boot's (held: never destroyed by the pool)
        if (inst->behaviour != DROVER_IDLE_HOLD && now >= inst->up_at + config->probe_timeout) {
            char why [DROVER_REASON_MAX + 1];
            snprintf (why, sizeof why, "probe timeout: not passed in %u probes%s%s",
                      inst->probes, inst->probe == DROVER_PROBE_FAILED ? "; " : "",
                      inst->probe == DROVER_PROBE_FAILED && inst->why ? inst->why : "");
            s_shut (self, inst, why, now);
            return true;
        }
        return false;
    }
    switch (inst->state) {
        case DROVER_INSTANCE_BOOTING:
            if (inst->behaviour == DROVER_IDLE_HOLD)
                break;              //  held: never destroyed by the pool (Arvados)
            if (now >= inst->created + config->boot_timeout) {
                s_shut (self, inst, "boot timeout", now);
                return true;
            }
            break;
        case DROVER_INSTANCE_UNKNOWN:
            if (inst->behaviour == DROVER_IDLE_HOLD)
                break;
            if (inst->lost ? now >= inst->since + config->probe_timeout
                           : now >= inst->created + config->boot_timeout) {
                s_shut (self, inst, inst->lost ? "probe timeout" : "boot timeout", now);
                return true;
            }
            break;
        case DROVER_INSTANCE_IDLE:
            if (inst->behaviour == DROVER_IDLE_DRAIN
            || (inst->behaviour == DROVER_IDLE_RUN && live > config->min_instances
                && now >= inst->since + config->idle_timeout)) {
                s_set_state (self, inst, DROVER_INSTANCE_SHUTDOWN,
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
                s_note (self, inst, inst->state, inst->state, false,
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
        inst->admin_probe = false;
    }
    if (s_probe_wanted (self, inst) && now >= inst->probe_at
    &&  s_bucket_take (&self->probe_bucket, self->config.probes_per_second, now)) {
        inst->probe_inflight = true;
        inst->probes++;
        self->probes++;
        s_say (fn, arg, DROVER_POOL_PROBE, self, inst);
    }
    if (inst->retire_due) {
        inst->retire_due = false;
        inst->retiring = true;
        s_say (fn, arg, DROVER_POOL_RETIRE, self, inst);
    }
    if (inst->destroy_due && !inst->destroy_inflight && s_op_take (self, now, DROVER_POOL_DESTROY)) {
        inst->destroy_due = false;
        inst->destroy_inflight = true;
        inst->destroy_at = now;
        inst->destroy_failed = false;
        self->destroys++;
        s_say (fn, arg, DROVER_POOL_DESTROY, self, inst);
    }
    if (inst->tag_due && !inst->tag_inflight && inst->state != DROVER_INSTANCE_SHUTDOWN
    &&  s_op_take (self, now, DROVER_POOL_TAG)) {
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
            || !inst->in_report
            || (inst->released_at && now < inst->released_at + DROVER_POOL_RELEASE_GRACE)))
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
    //  Rooms keep procs and memory, not devices: a shape asking devices
    //  takes fresh instances only
    for (size_t room = 0; room < self->nrooms && need && !*shape->devices; ) {
        s_room_t *it = &self->rooms [room];
        uint32_t take = 0;
        if (self->fits [index * ntypes + it->type])
            take = s_fit (it->procs, it->mem, shape->procs, shape->mem);
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
    s_note (self, NULL, -1, -1, true, why);
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
    if (!s_op_take (self, now, DROVER_POOL_CREATE)) {
        budget->blocked = true;
        budget->stop = true;
        return NULL;
    }
    char name [DROVER_ID_MAX + 1];
    snprintf (name, sizeof name, "%s%u", self->prefix, self->next_number++);
    s_instance_t *inst = s_add (self, name, type, offer->name, DROVER_INSTANCE_BOOTING,
                                DROVER_IDLE_RUN, "created", now);
    inst->create_inflight = true;
    if (self->probing) {
        //  Held before its worker can register: no work until its probe passes
        inst->probe = DROVER_PROBE_PENDING;
        inst->admin_probe = true;
        s_say (fn, arg, DROVER_POOL_ADMIN, self, inst);
        inst->admin_probe = false;
    }
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
            drover_pooltype_cheapest (self->config.types, ntypes, 0, 0, "", "");
        while (cheapest && budget->live < self->config.min_instances)
            if (!s_create (self, (int) (cheapest - self->config.types), budget, now, fn, arg))
                break;
    }
}

//  Destroy the booting instances beyond the demand left for their type
//  (Arvados shuts down booting and idle instances of a type whose demand
//  is gone; idle ones go at the idle timeout): the coming capacity no
//  shape took (self->full, after s_plan_creates), newest first, never
//  below min-instances, nor one held, nor one whose create is in flight
//  (the next plan after it finishes)
static void
s_plan_surplus (drover_pool_t *self, s_budget_t *budget, uint64_t now,
                drover_poolaction_fn *fn, void *arg)
{
    for (s_instance_t *inst = self->newest; inst; inst = inst->prev) {
        if (budget->live <= self->config.min_instances)
            break;
        if (inst->state != DROVER_INSTANCE_BOOTING || inst->type < 0
        ||  inst->behaviour != DROVER_IDLE_RUN || inst->create_inflight
        ||  !self->full [inst->type])
            continue;
        self->full [inst->type]--;
        budget->live--;
        self->surplus++;
        s_shut (self, inst, "surplus: the tasks it was created for are gone (cancelled or "
                "placed elsewhere)", now);
        s_say_pending (self, inst, now, fn, arg);
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
    if (self->rate_until [DROVER_POOL_CREATE] > at)
        at = self->rate_until [DROVER_POOL_CREATE];
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
        self->op_bucket.at = now;
        self->next_list = now;      //  a list at start adopts what a restart left
    }
    s_bucket_fill (&self->op_bucket, self->config.ops_per_second, now);
    size_t live;
    double price;
    s_instances_pass (self, now, fn, arg, &live, &price);
    if (!self->list_inflight && now >= self->next_list && s_op_take (self, now, DROVER_POOL_LIST)) {
        self->list_inflight = true;
        self->list_seq = ++self->seq;
        self->next_list = now + self->config.list_interval;
        s_say (fn, arg, DROVER_POOL_LIST, self, NULL);
    }
    uint64_t gate = s_create_gate (self, now);
    s_budget_t budget = { .live = live, .price = price, .gate = gate == 0 };
    s_plan_creates (self, &budget, now, fn, arg);
    s_plan_surplus (self, &budget, now, fn, arg);
    self->retry_at = UINT64_MAX;
    if (budget.blocked) {
        if (gate == UINT64_MAX)
            ;                       //  the first list's result brings a plan
        else
        if (gate)
            self->retry_at = gate;
        else
            self->retry_at = s_op_at (self, now, DROVER_POOL_CREATE);
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
    s_bucket_fill (&self->op_bucket, self->config.ops_per_second, now);
    s_bucket_fill (&self->probe_bucket, self->config.probes_per_second, now);
    const drover_poolconfig_t *config = &self->config;
    uint64_t list_at = s_op_at (self, now, DROVER_POOL_LIST);
    uint64_t destroy_at = s_op_at (self, now, DROVER_POOL_DESTROY);
    uint64_t tag_at = s_op_at (self, now, DROVER_POOL_TAG);
    uint64_t probe_at = s_bucket_at (&self->probe_bucket, self->config.probes_per_second, now);
    uint64_t deadline = self->retry_at;
    if (!self->list_inflight)
        deadline = s_min (deadline, self->next_list > list_at ? self->next_list : list_at);
    size_t live = 0;
    for (s_instance_t *inst = self->oldest; inst; inst = inst->next)
        if (inst->state != DROVER_INSTANCE_SHUTDOWN)
            live++;
    for (s_instance_t *inst = self->oldest; inst; inst = inst->next) {
        if (inst->admin_due || inst->retire_due)
            deadline = s_min (deadline, now);
        if (inst->destroy_due && !inst->destroy_inflight)
            deadline = s_min (deadline, destroy_at);
        if (inst->tag_due && !inst->tag_inflight && inst->state != DROVER_INSTANCE_SHUTDOWN)
            deadline = s_min (deadline, tag_at);
        if (s_probe_wanted (self, inst))
            deadline = s_min (deadline, inst->probe_at > probe_at ? inst->probe_at : probe_at);
        if (inst->released_at && now < inst->released_at + DROVER_POOL_RELEASE_GRACE)
            deadline = s_min (deadline, inst->released_at + DROVER_POOL_RELEASE_GRACE);
        if (inst->up && inst->state != DROVER_INSTANCE_SHUTDOWN
        &&  (inst->probe == DROVER_PROBE_PENDING || inst->probe == DROVER_PROBE_FAILED)) {
            if (inst->behaviour != DROVER_IDLE_HOLD)
                deadline = s_min (deadline, inst->up_at + config->probe_timeout);
            continue;               //  the probe timeout, not the boot's
        }
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
