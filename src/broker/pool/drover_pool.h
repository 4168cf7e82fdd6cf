/*  =========================================================================
    drover_pool - the elastic pool's decisions: which instances to create,
    which to retire and destroy, after Arvados' worker pool and bigslice's
    machine manager

    An instance is a machine (or process, or container) a driver created
    for the pool; its worker registers with the instance's name as worker
    id. Each instance goes through Arvados' states:

        unknown     listed by the driver (adopted after a restart) or lost,
                    not registered (yet); counts as capacity
        booting     created (or being created), not registered yet, or
                    registered and its boot probe not passed yet; counts
                    as capacity, so demand does not start a second one for
                    the same tasks
        idle        registered, no task assigned
        running     registered, tasks assigned
        shutdown    retired or destroyed, until the driver lists it no more

    and carries an idle behaviour, kept on the instance as a tag so that it
    survives the broker's restart: run (takes work; destroyed after the idle
    timeout, never below the minimum count), hold (takes no new work, never
    destroyed by the pool) or drain (takes no new work, destroyed once idle).

    Inputs change state: the scheduler's load report (what waits unplaced,
    grouped by shape; what each worker runs), a worker registered or lost,
    a driver operation done, an operator's command. Only drover_pool_plan
    decides: it says the actions due now (create, destroy, retire, admin,
    tag, list) through a callback, within every bound: at most max-creates
    creates a pass, max-instances live instances, max-price per hour, the
    driver's operations rate-limited (a token bucket of ops-per-second), no
    create during a quota backoff (unless an instance went away meanwhile),
    a back-off after consecutive create failures, and the boot, idle, probe
    and shutdown timeouts; a rate limit backs off only the operation it
    hit (create, list, tag, destroy each have their own backoff, as
    Arvados' throttles). The cheapest type that fits a demand is chosen
    (price, then fewer procs, then less memory, then name). A plan costs
    O(demand shapes x types + instances): it does not grow with the number
    of tasks waiting. State changes and warnings are told to a notify
    callback (the actor makes them events and log lines).

    Boot probes (Arvados'), when the config's probe says so: a registered
    instance stays booting, held off new work (ADMIN hold, "probing"),
    until a PROBE through the driver passes; then it is idle and its
    behaviour is said again. A failed probe is run again after
    probe-interval; at probe-timeout after its worker registered it is
    destroyed. Probes have their own token bucket (probes-per-second), not
    the driver operations' one. A booting instance beyond the demand left
    for its type (the tasks it was made for were cancelled or placed
    elsewhere) is destroyed at once, "surplus". An instance listed with a
    type the settings do not have is not adopted: it is left alone, and
    told once as a warning.

    A plain class: no threads, no I/O, no clock (now is the caller's
    monotonic msec).
    =========================================================================
*/

#ifndef DROVER_POOL_H_INCLUDED
#define DROVER_POOL_H_INCLUDED

#include <czmq.h>
#include "drover_config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_pool_t drover_pool_t;

//  An instance's state (Arvados' names)
typedef enum {
    DROVER_INSTANCE_UNKNOWN = 0,    //  listed or lost, not registered
    DROVER_INSTANCE_BOOTING,        //  created, not registered yet
    DROVER_INSTANCE_IDLE,           //  registered, no task
    DROVER_INSTANCE_RUNNING,        //  registered, running tasks
    DROVER_INSTANCE_SHUTDOWN        //  retired or destroyed, not yet gone
} drover_instance_state_t;

//  What an instance does when idle (Arvados' idle behaviours)
typedef enum {
    DROVER_IDLE_RUN = 0,            //  takes work; destroyed after idle-timeout
    DROVER_IDLE_HOLD,               //  takes no new work; never destroyed by the pool
    DROVER_IDLE_DRAIN               //  takes no new work; destroyed once idle
} drover_idle_behaviour_t;

//  Where an instance's boot probe is (probes off: none)
typedef enum {
    DROVER_PROBE_NONE = 0,          //  no probe (pool/probe off: registered is enough)
    DROVER_PROBE_PENDING,           //  not registered yet, or its first probe not done
    DROVER_PROBE_OK,                //  passed: it takes work
    DROVER_PROBE_FAILED             //  the last probe failed: probed again, no work
} drover_probe_state_t;

//  What a driver operation came to
typedef enum {
    DROVER_POOLOP_OK = 0,           //  done
    DROVER_POOLOP_FAILED,           //  failed (any other exit, a timeout, a crash)
    DROVER_POOLOP_QUOTA,            //  refused: quota exceeded
    DROVER_POOLOP_RATE_LIMITED      //  refused: too many requests, try later
} drover_poolop_result_t;

//  An action the plan says is due now
typedef enum {
    DROVER_POOL_CREATE,             //  driver: create instance of type with behaviour
    DROVER_POOL_DESTROY,            //  driver: destroy instance
    DROVER_POOL_TAG,                //  driver: tag instance with behaviour
    DROVER_POOL_LIST,               //  driver: list the instances
    DROVER_POOL_RETIRE,             //  schedq: give the worker no new work, say when idle
    DROVER_POOL_ADMIN,              //  schedq: keep behaviour (hold, drain, run) for the worker id
    DROVER_POOL_PROBE               //  driver: probe instance (its boot probe)
} drover_poolaction_kind_t;

//  One action; pointers borrowed for the callback's duration
typedef struct {
    drover_poolaction_kind_t kind;  //  what to do
    const char *instance;           //  its name (the worker id); NULL for LIST
    const drover_pooltype_t *type;  //  CREATE: the type to create; else its type or NULL
    drover_idle_behaviour_t behaviour;  //  CREATE, TAG, ADMIN: the behaviour
    bool probing;                   //  ADMIN: hold it (no work) until its probe passes,
                                    //  whatever its behaviour
    bool probed;                    //  ADMIN: its probe passed, its behaviour holds again
} drover_poolaction_t;

typedef void (drover_poolaction_fn) (const drover_poolaction_t *action, void *arg);

//  A change worth telling: an instance changed state, or a warning
typedef struct {
    const char *instance;           //  the instance, NULL for a pool-wide warning
    const char *type;               //  its type name, NULL if none
    int from;                       //  drover_instance_state_t before, -1 if new
    int to;                         //  drover_instance_state_t after, -1 if forgotten (gone)
    bool warning;                   //  a warning (consecutive create failures, quota...)
    bool probe;                     //  a probe's outcome that changes no state (failed)
    const char *why;                //  what caused it ("created", "registered", "idle timeout",
                                    //  "boot timeout", "lost: silent", "quota exceeded",
                                    //  "3 creates failed in a row: ...", ...)
} drover_poolnote_t;

typedef void (drover_poolnote_fn) (const drover_poolnote_t *note, void *arg);

//  Waiting demand of one shape, from the scheduler's load report
typedef struct {
    uint32_t procs;                 //  procs each task asks
    uint64_t mem;                   //  memory each asks, bytes
    const char *labels;             //  labels each requires, "k=v" joined by "\n", "" none
    uint32_t count;                 //  tasks of this shape waiting unplaced
    const char *devices;            //  devices each asks, "gpu=1" (drover_devicelist), "" none
} drover_pooldemand_t;

//  What a worker has, from the scheduler's load report
typedef struct {
    const char *id;                 //  worker id
    uint32_t tasks;                 //  tasks assigned to it
    uint32_t procs_used;            //  procs they take
    uint64_t mem_used;              //  memory they take, bytes
    uint64_t last_task;             //  the last task assigned to it, 0 none
} drover_poolload_t;

//  An instance a driver listed
typedef struct {
    const char *name;               //  instance name
    const char *type;               //  type name ("" if not told)
    const char *pool;               //  its pool tag ("" if none: not ours)
    drover_idle_behaviour_t behaviour;  //  its idle-behaviour tag (run if none)
} drover_poolentry_t;

//  An instance as `drover pool` shows it; pointers borrowed until the
//  pool next changes
typedef struct {
    const char *id;                 //  instance name (= worker id)
    const char *type;               //  type name ("" if unknown)
    double price;                   //  per hour
    uint32_t procs;                 //  procs of its type
    uint64_t mem;                   //  memory of its type, bytes
    drover_instance_state_t state;  //  its state
    drover_idle_behaviour_t behaviour;  //  its idle behaviour
    uint64_t created;               //  when created or adopted (caller's msec)
    uint64_t since;                 //  when it entered its state
    uint64_t last_busy;             //  when last seen running a task, 0 never
    uint64_t last_task;             //  the last task it was given, 0 none
    uint32_t tasks;                 //  tasks it runs now
    uint32_t procs_used;            //  procs they take
    uint64_t mem_used;              //  memory they take, bytes
    const char *why;                //  why it is in its state ("" if nothing to say)
    drover_probe_state_t probe;     //  its boot probe
    uint32_t probes;                //  probes run on it
} drover_instance_view_t;

//  The pool's gauges (Arvados' names in the metrics)
typedef struct {
    uint32_t instances [DROVER_INSTANCE_SHUTDOWN + 1];  //  instances by state
    double price;                   //  total price per hour of live instances
    uint32_t tasks;                 //  tasks running on instances
    uint64_t procs;                 //  procs of registered instances
    uint64_t procs_used;            //  of which in use
    uint64_t mem;                   //  memory of registered instances, bytes
    uint64_t mem_used;              //  of which in use
    uint64_t creates;               //  creates asked, since start
    uint64_t create_failures;       //  creates that failed (quota and rate limit included)
    uint64_t destroys;              //  destroys asked, since start
    bool quota_backoff;             //  in a quota backoff now
    uint64_t quota_until;           //  when the quota backoff ends (caller's msec), 0 none
    uint32_t failures;              //  consecutive create failures now
    uint32_t probing;               //  registered instances whose probe has not passed
    uint64_t probes;                //  probes run, since start
    uint64_t probe_failures;        //  probes that failed
    uint64_t surplus;               //  booting instances destroyed as surplus
    uint64_t unknown_types;         //  listed instances ignored for an unknown type (each once)
} drover_poolcounts_t;

//  Create a pool with the settings and types of config (copied), naming
//  the instances it creates prefix followed by a number
drover_pool_t *
    drover_pool_new (const drover_poolconfig_t *config, const char *prefix);

//  Destroy a pool; harmless on NULL
void
    drover_pool_destroy (drover_pool_t **self_p);

//  Tell state changes and warnings to fn (NULL: tell nobody)
void
    drover_pool_set_notify (drover_pool_t *self, drover_poolnote_fn *fn, void *arg);

//  The scheduler's load report, replacing the last one: demand (waiting
//  unplaced, by shape) and workers (every worker it has; ids that are not
//  instances are ignored). A registered instance absent from the report is
//  not yet known to the scheduler: its capacity is still counted as
//  coming, like a booting one's.
void
    drover_pool_set_load (drover_pool_t *self, const drover_pooldemand_t *demand, size_t ndemand,
                          const drover_poolload_t *workers, size_t nworkers, uint64_t now);

//  A worker registered (UP). Returns true if it is an instance of the pool.
bool
    drover_pool_registered (drover_pool_t *self, const char *id, uint64_t now);

//  A worker was lost (LOST, with its reason; "left" for a GOODBYE)
void
    drover_pool_lost (drover_pool_t *self, const char *id, const char *reason, uint64_t now);

//  The scheduler says a retired instance's worker is idle and takes no
//  new work: it may be destroyed now
void
    drover_pool_retired (drover_pool_t *self, const char *id, uint64_t now);

//  A CREATE the plan asked for finished (detail: what the driver said, "" if nothing)
void
    drover_pool_created (drover_pool_t *self, const char *instance, drover_poolop_result_t result,
                         const char *detail, uint64_t now);

//  A PROBE finished: OK passes it (the instance takes work), anything else
//  fails it (probed again after probe-interval)
void
    drover_pool_probed (drover_pool_t *self, const char *instance, drover_poolop_result_t result,
                        const char *detail, uint64_t now);

//  A DESTROY finished
void
    drover_pool_destroyed (drover_pool_t *self, const char *instance,
                           drover_poolop_result_t result, const char *detail, uint64_t now);

//  A TAG finished
void
    drover_pool_tagged (drover_pool_t *self, const char *instance, drover_poolop_result_t result,
                        const char *detail, uint64_t now);

//  A LIST finished: entries are every instance the driver has (those not
//  tagged with this pool's name are ignored); on a failure entries is
//  empty and nothing is concluded from it
void
    drover_pool_listed (drover_pool_t *self, drover_poolop_result_t result,
                        const drover_poolentry_t *entries, size_t nentries, const char *detail,
                        uint64_t now);

//  The operator sets an instance's idle behaviour. Returns 0, or -1 if no
//  such instance (or it is shutting down).
int
    drover_pool_set_behaviour (drover_pool_t *self, const char *id,
                               drover_idle_behaviour_t behaviour, uint64_t now);

//  The operator destroys an instance at once (its tasks are lost and run
//  again elsewhere). Returns 0, or -1 if no such instance.
int
    drover_pool_kill (drover_pool_t *self, const char *id, uint64_t now);

//  Decide: say every action due now to fn, in order, within the bounds
void
    drover_pool_plan (drover_pool_t *self, uint64_t now, drover_poolaction_fn *fn, void *arg);

//  Return when the plan should run next without new input (a timeout, the
//  next list, the end of a backoff, a token for a pending operation), in
//  the caller's msec; UINT64_MAX if never
uint64_t
    drover_pool_next_deadline (drover_pool_t *self, uint64_t now);

//  Look up an instance. Returns true and fills view, or false.
bool
    drover_pool_lookup (drover_pool_t *self, const char *id, drover_instance_view_t *view);

//  Call fn for each instance, oldest first
typedef void (drover_instance_fn) (const drover_instance_view_t *view, void *arg);
void
    drover_pool_each (drover_pool_t *self, drover_instance_fn *fn, void *arg);

//  Return true if the pool runs boot probes (pool/probe on, or auto with
//  the local driver)
bool
    drover_pool_probing (drover_pool_t *self);

//  Return how many instances the pool has (shutdown ones included)
size_t
    drover_pool_size (drover_pool_t *self);

//  Fill counts with the pool's gauges
void
    drover_pool_counts (drover_pool_t *self, drover_poolcounts_t *counts);

//  Return the cheapest of types that fits a task asking procs, mem and
//  labels ("k=v" joined by "\n", "" or NULL none) and devices ("gpu=1", ""
//  or NULL none), or NULL if none fits. Used by the pool and by the
//  scheduler's explain.
const drover_pooltype_t *
    drover_pooltype_cheapest (const drover_pooltype_t *types, size_t ntypes, uint32_t procs,
                              uint64_t mem, const char *labels, const char *devices);

//  Return the name of a state ("unknown", "booting", "idle", "running",
//  "shutdown"), of a behaviour ("run", "hold", "drain") or of a probe
//  state ("none", "pending", "ok", "failed")
const char *
    drover_instance_state_name (int state);
const char *
    drover_probe_state_name (int probe);
const char *
    drover_idle_behaviour_name (int behaviour);

//  Parse a behaviour's name. Returns 0 and sets *behaviour_p, or -1.
int
    drover_idle_behaviour_parse (const char *name, drover_idle_behaviour_t *behaviour_p);

#ifdef __cplusplus
}
#endif

#endif
