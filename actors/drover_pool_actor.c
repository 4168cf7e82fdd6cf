/*  =========================================================================
    drover_pool_actor - the pool actor: the elastic pool's decisions
    (src/broker/pool/drover_pool.c) carried out by its driver
    (src/broker/pool/drover_pooldriver.c)

    Owns one drover_pool_t and one drover_pooldriver_t, made from
    CONFIGURE. Polls its pipe and the driver's fds (its children's pipes
    and pidfds) in one drover_poller wait; after every input it runs
    drover_pool_plan and carries out the actions: driver calls (create,
    destroy, tag, list: each starts an operation and returns at once, so
    the broker never waits on a driver; probe, with pool/probe), RETIRE and
    POOLADMIN to schedq (a hold while an instance's boot probe has not passed)
    through the main. What the driver reports goes back to the pool; it
    sleeps until the pool's or the driver's next deadline. The pool's
    notes become events (pool.*) and log lines.

    What it hears and says, and how: actors/ACTORS.md, "pool" and "How
    actors talk".
    =========================================================================
*/

#include "drover_pool_actor.h"
#include "drover_pool.h"
#include "drover_pooldriver.h"
#include "drover_loadreport.h"
#include "drover_poolwire.h"
#include "drover_config.h"
#include "drover_actor.h"
#include "drover_metrics.h"
#include "drover_msg.h"

typedef struct {
    zsock_t *pipe;              //  commands from the broker main
    drover_outbox_t *outbox;    //  what this turn says, flushed as one BATCH
    drover_poller_t *poller;    //  the pipe (and, each wait, the driver's fds)
    drover_poolconfig_t *config;    //  the pool's settings, NULL until CONFIGURE
    drover_pool_t *pool;        //  the decisions, NULL until CONFIGURE
    drover_pooldriver_t *driver;    //  the operations, NULL until CONFIGURE
    char prefix [32];           //  "POOL-<start time, msec, base 36>-"
    int64_t wall_offset;        //  wall msec minus monotonic msec
    drover_actor_flags_t flags; //  EVENTS, VERBOSE, $TERM heard
} self_t;


//  Write a number in base 36 (lower case digits, then letters)
static void
s_base36 (uint64_t number, char *text, size_t size)
{
    char digits [16];
    size_t length = 0;
    do {
        digits [length++] = "0123456789abcdefghijklmnopqrstuvwxyz" [number % 36];
        number /= 36;
    } while (number && length < sizeof digits);
    size_t index = 0;
    while (length && index + 1 < size)
        text [index++] = digits [--length];
    text [index] = 0;
}

//  Create the actor's state
static self_t *
s_self_new (zsock_t *pipe)
{
    self_t *self = (self_t *) zmalloc (sizeof (self_t));
    self->pipe = pipe;
    self->outbox = drover_outbox_new ();
    self->poller = drover_poller_new ();
    drover_poller_add (self->poller, pipe);
    //  Names unique across the broker's restarts: its start time
    char stamp [16];
    s_base36 ((uint64_t) zclock_time (), stamp, sizeof stamp);
    snprintf (self->prefix, sizeof self->prefix, "POOL-%s-", stamp);
    self->wall_offset = zclock_time () - zclock_mono ();
    return self;
}

//  Destroy the actor's state (instances are left as they are: a restarted
//  broker adopts them)
static void
s_self_destroy (self_t **self_p)
{
    self_t *self = *self_p;
    if (!self)
        return;
    drover_pooldriver_destroy (&self->driver);
    drover_pool_destroy (&self->pool);
    drover_poolconfig_destroy (&self->config);
    drover_poller_destroy (&self->poller);
    drover_outbox_destroy (&self->outbox);
    free (self);
    *self_p = NULL;
}


//  ---------------------------------------------------------------------
//  Notes: events and log lines

//  Return true if a note is a flip between idle and running (one per task)
static bool
s_note_flip (const drover_poolnote_t *note)
{
    return (note->from == DROVER_INSTANCE_IDLE && note->to == DROVER_INSTANCE_RUNNING)
        || (note->from == DROVER_INSTANCE_RUNNING && note->to == DROVER_INSTANCE_IDLE);
}

//  The event topic of a state change, or NULL if none is said: not the
//  flips between idle and running (too chatty), nor what changes no state
//  (a behaviour set is said when it is carried out, as ADMIN)
static const char *
s_note_topic (const drover_poolnote_t *note)
{
    if (note->warning)
        return "pool.warning";
    if (note->probe)
        return "pool.probe";    //  a probe failed
    if (note->from == note->to || s_note_flip (note))
        return NULL;
    if (note->to == -1)
        return "pool.gone";
    if (note->to == DROVER_INSTANCE_SHUTDOWN)
        return "pool.shutdown";
    if (note->to == DROVER_INSTANCE_BOOTING)
        return "pool.booting";
    if (note->to == DROVER_INSTANCE_UNKNOWN)
        return note->from == -1? "pool.adopted": "pool.lost";
    return "pool.up";           //  registered
}

//  Say an event about an instance: reason is its type and why
static void
s_event (self_t *self, const char *topic, const char *instance, const char *type,
         const char *why)
{
    if (self->flags.silent)
        return;
    char reason [DROVER_REASON_MAX + 1];
    snprintf (reason, sizeof reason, "%s%s%s", type && *type? type: "",
              type && *type && why && *why? ": ": "", why? why: "");
    drover_actor_event (self->outbox, topic, 0, 0, instance? instance: "", reason);
}

//  The pool told a change or a warning: log it, say its event
static void
s_on_note (const drover_poolnote_t *note, void *arg)
{
    self_t *self = (self_t *) arg;
    const char *why = note->why? note->why: "";
    if (note->warning || note->probe)
        zsys_warning ("pool: %s%s%s%s", note->instance? "instance=": "",
                      note->instance? note->instance: "", note->instance? " ": "", why);
    else
    if (!s_note_flip (note) || self->flags.verbose)
        zsys_info ("pool: instance=%s type=%s state=%s from=%s why=\"%s\"",
                   note->instance? note->instance: "-", note->type? note->type: "-",
                   note->to == -1? "gone": drover_instance_state_name (note->to),
                   note->from == -1? "new": drover_instance_state_name (note->from), why);
    const char *topic = s_note_topic (note);
    if (topic)
        s_event (self, topic, note->instance, note->type, why);
}


//  ---------------------------------------------------------------------
//  Actions and the driver's reports

//  The admin setting schedq keeps for a behaviour
static int
s_admin_of (drover_idle_behaviour_t behaviour)
{
    return behaviour == DROVER_IDLE_HOLD? DROVER_ADMIN_HOLD:
           behaviour == DROVER_IDLE_DRAIN? DROVER_ADMIN_DRAIN: DROVER_ADMIN_RUN;
}

//  Carry out one action the plan says is due
static void
s_on_action (const drover_poolaction_t *action, void *arg)
{
    self_t *self = (self_t *) arg;
    if (self->flags.verbose)
        zsys_debug ("pool: action=%d instance=%s", (int) action->kind,
                    action->instance? action->instance: "-");
    switch (action->kind) {
        case DROVER_POOL_CREATE:
            drover_pooldriver_create (self->driver, action->type, action->instance,
                                      action->behaviour);
            break;
        case DROVER_POOL_DESTROY:
            drover_pooldriver_destroy_instance (self->driver, action->instance);
            break;
        case DROVER_POOL_TAG:
            drover_pooldriver_tag (self->driver, action->instance, action->behaviour);
            break;
        case DROVER_POOL_LIST:
            drover_pooldriver_list (self->driver);
            break;
        case DROVER_POOL_PROBE:
            drover_pooldriver_probe (self->driver, action->instance);
            break;
        case DROVER_POOL_RETIRE:
            drover_outbox_say (self->outbox, "ss", "RETIRE", action->instance);
            break;
        case DROVER_POOL_ADMIN: {
            const char *name = drover_idle_behaviour_name (action->behaviour);
            char reason [64];
            if (action->probing) {
                //  No work before its boot probe passes, whatever its behaviour
                drover_outbox_say (self->outbox, "ss4s", "POOLADMIN", action->instance,
                                   (uint32_t) DROVER_ADMIN_HOLD, "pool: probing");
                break;
            }
            snprintf (reason, sizeof reason, "pool: %s", name);
            drover_outbox_say (self->outbox, "ss4s", "POOLADMIN", action->instance,
                               (uint32_t) s_admin_of (action->behaviour), reason);
            if (action->probed)
                break;          //  its behaviour again after the probe (pool.up said
                                //  it), or at adoption: no news
            char topic [32];
            snprintf (topic, sizeof topic, "pool.%s", name);
            zsys_info ("pool: instance=%s behaviour=%s", action->instance, name);
            s_event (self, topic, action->instance, action->type? action->type->name: "",
                     "behaviour set");
            break;
        }
    }
}

//  The driver finished an operation: tell the pool
static void
s_on_done (const drover_pooldone_t *done, void *arg)
{
    self_t *self = (self_t *) arg;
    uint64_t now = (uint64_t) zclock_mono ();
    const char *detail = done->detail? done->detail: "";
    if (self->flags.verbose)
        zsys_debug ("pool: driver op=%d instance=%s result=%d detail=\"%s\"", (int) done->kind,
                    done->instance? done->instance: "-", (int) done->result, detail);
    switch (done->kind) {
        case DROVER_POOL_CREATE:
            drover_pool_created (self->pool, done->instance, done->result, detail, now);
            break;
        case DROVER_POOL_DESTROY:
            drover_pool_destroyed (self->pool, done->instance, done->result, detail, now);
            break;
        case DROVER_POOL_TAG:
            drover_pool_tagged (self->pool, done->instance, done->result, detail, now);
            break;
        case DROVER_POOL_LIST:
            drover_pool_listed (self->pool, done->result, done->entries, done->nentries, detail,
                                now);
            break;
        case DROVER_POOL_PROBE:
            drover_pool_probed (self->pool, done->instance, done->result, detail, now);
            break;
        default:
            break;              //  the driver reports nothing else
    }
}


//  ---------------------------------------------------------------------
//  Commands

//  CONFIGURE config(p) broker(s) state-dir(s): make the pool and its
//  driver; answer STARTED ok(4) text(s) on the pipe at once
static void
s_handle_configure (self_t *self, zmsg_t *msg)
{
    zframe_t *frame = zmsg_pop (msg);
    assert (frame && zframe_size (frame) == sizeof (void *));
    drover_poolconfig_t *config;
    memcpy (&config, zframe_data (frame), sizeof config);
    zframe_destroy (&frame);
    char *broker = drover_actor_pop_string (msg);
    char *state_dir = drover_actor_pop_string (msg);
    assert (config && !self->config);   //  once
    self->config = config;
    char *error = NULL;
    self->driver = drover_pooldriver_new (config, *config->broker? config->broker: broker,
                                          state_dir, &error);
    if (self->driver) {
        self->pool = drover_pool_new (config, self->prefix);
        drover_pool_set_notify (self->pool, s_on_note, self);
        zsys_info ("pool: name=%s driver=%s types=%zu max-instances=%u min-instances=%u "
                   "probe=%s prefix=%s", config->name, config->driver, config->ntypes,
                   config->max_instances, config->min_instances,
                   config->probe? config->probe: "off", self->prefix);
        zsock_send (self->pipe, "s4s", "STARTED", 1, "");
    }
    else {
        char *text = zsys_sprintf ("pool/driver: %s", error? error: "cannot make the driver");
        zsock_send (self->pipe, "s4s", "STARTED", 0, text);
        zstr_free (&text);
    }
    zstr_free (&error);
    zstr_free (&broker);
    zstr_free (&state_dir);
}

//  LOAD report: the scheduler's demand and workers
static void
s_handle_load (self_t *self, zmsg_t *msg)
{
    zframe_t *frame = zmsg_pop (msg);
    assert (frame);
    drover_loadreport_t *report = drover_loadreport_decode (frame);
    zframe_destroy (&frame);
    if (!report)
        return;
    size_t ndemand, nworkers;
    const drover_pooldemand_t *demand = drover_loadreport_demand (report, &ndemand);
    const drover_poolload_t *workers = drover_loadreport_workers (report, &nworkers);
    if (self->flags.verbose)
        zsys_debug ("pool: load shapes=%zu workers=%zu", ndemand, nworkers);
    drover_pool_set_load (self->pool, demand, ndemand, workers, nworkers,
                          (uint64_t) zclock_mono ());
    drover_loadreport_destroy (&report);
}

//  METRICS round: the pool's gauges
static void
s_handle_metrics (self_t *self, uint64_t round)
{
    drover_poolcounts_t counts;
    memset (&counts, 0, sizeof counts);
    if (self->pool)
        drover_pool_counts (self->pool, &counts);
    drover_metrics_t *metrics = drover_metrics_new ();
    for (int state = 0; state <= DROVER_INSTANCE_SHUTDOWN; state++)
        drover_metrics_set (metrics, (drover_metric_t) (DROVER_METRIC_POOL_UNKNOWN + state),
                              counts.instances [state]);
    //  Prices are written in thousandths (the series says so in its name)
    drover_metrics_set (metrics, DROVER_METRIC_POOL_PRICE,
                          (uint64_t) (counts.price * 1000 + 0.5));
    drover_metrics_set (metrics, DROVER_METRIC_POOL_TASKS, counts.tasks);
    drover_metrics_set (metrics, DROVER_METRIC_POOL_PROCS, counts.procs);
    drover_metrics_set (metrics, DROVER_METRIC_POOL_PROCS_USED, counts.procs_used);
    drover_metrics_set (metrics, DROVER_METRIC_POOL_MEMORY, counts.mem);
    drover_metrics_set (metrics, DROVER_METRIC_POOL_MEMORY_USED, counts.mem_used);
    drover_metrics_set (metrics, DROVER_METRIC_POOL_CREATES, counts.creates);
    drover_metrics_set (metrics, DROVER_METRIC_POOL_CREATE_FAILURES, counts.create_failures);
    drover_metrics_set (metrics, DROVER_METRIC_POOL_DESTROYS, counts.destroys);
    drover_metrics_set (metrics, DROVER_METRIC_POOL_QUOTA_BACKOFF, counts.quota_backoff);
    drover_metrics_set (metrics, DROVER_METRIC_POOL_PROBING, counts.probing);
    drover_metrics_set (metrics, DROVER_METRIC_POOL_PROBES, counts.probes);
    drover_metrics_set (metrics, DROVER_METRIC_POOL_PROBE_FAILURES, counts.probe_failures);
    drover_metrics_set (metrics, DROVER_METRIC_POOL_SURPLUS, counts.surplus);
    drover_metrics_set (metrics, DROVER_METRIC_POOL_UNKNOWN_TYPES, counts.unknown_types);
    drover_metrics_say (metrics, self->outbox, round);
    drover_metrics_destroy (&metrics);
}

//  Handle one control command from the pipe (drover_outbox_receive calls this)
static void
s_handle_command (void *arg, zmsg_t *msg)
{
    self_t *self = (self_t *) arg;
    char *command = zmsg_popstr (msg);
    assert (command);
    if (self->flags.verbose)
        zsys_debug ("pool: command=%s", command);
    uint64_t now = (uint64_t) zclock_mono ();
    if (streq (command, "CONFIGURE"))
        s_handle_configure (self, msg);
    else
    if (streq (command, "METRICS"))
        s_handle_metrics (self, drover_actor_pop_number (msg));
    else
    if (drover_actor_handle_common (&self->flags, command, msg))
        ;
    else
    if (!self->pool)
        ;                       //  no pool (its driver could not be made): nothing to do
    else
    if (streq (command, "UP")) {
        char *worker = drover_actor_pop_string (msg);
        if (drover_pool_registered (self->pool, worker, now) && self->flags.verbose)
            zsys_debug ("pool: instance=%s registered", worker);
        zstr_free (&worker);
    }
    else
    if (streq (command, "LOST")) {
        char *worker = drover_actor_pop_string (msg);
        char *reason = drover_actor_pop_string (msg);
        drover_pool_lost (self->pool, worker, reason, now);
        zstr_free (&reason);
        zstr_free (&worker);
    }
    else
    if (streq (command, "LOAD"))
        s_handle_load (self, msg);
    else
    if (streq (command, "RETIRED")) {
        char *worker = drover_actor_pop_string (msg);
        drover_pool_retired (self->pool, worker, now);
        zstr_free (&worker);
    }
    else {
        zsys_error ("pool: invalid command=%s", command);
        assert (false);
    }
    zstr_free (&command);
}

//  Encode a reply and say SEND to a client
static void
s_send (self_t *self, const byte *route, size_t route_size, drover_msg_t *reply)
{
    drover_actor_send_to (self->outbox, "pool", route, route_size, reply, "");
}

//  Handle one record: MSG from the main (POOL LIST, POOL ADMIN)
static void
s_handle_record (void *arg, drover_record_t *record)
{
    self_t *self = (self_t *) arg;
    if (record->kind != DROVER_RECORD_MSG) {
        zsys_error ("pool: unexpected record=%s", drover_record_word (record));
        assert (false);         //  the vocabulary is in ACTORS.md
        return;
    }
    const byte *route = drover_record_route (record);
    size_t route_size = record->route_size;
    drover_msg_t *request = record->msg;
    drover_msg_t *reply = NULL;
    if (!self->pool)
        reply = drover_poolwire_none (request);
    else
    if (request->id == DROVER_MSG_POOL_LIST)
        reply = drover_poolwire_table (self->pool, self->config, request, self->wall_offset);
    else
    if (request->id == DROVER_MSG_POOL_ADMIN) {
        char *reason = NULL;
        int code = drover_poolwire_admin (self->pool, request, (uint64_t) zclock_mono (),
                                          &reason);
        reply = drover_poolwire_reply (request, code, reason);
        zstr_free (&reason);
    }
    else
        reply = drover_poolwire_none (request);     //  ERROR 415: not ours
    s_send (self, route, route_size, reply);
    drover_msg_destroy (&reply);
}


//  ---------------------------------------------------------------------
//  The loop

//  Return the next deadline of the pool and the driver, msec monotonic,
//  or -1 if none
static int64_t
s_next_deadline (self_t *self, uint64_t now)
{
    if (!self->pool)
        return -1;
    uint64_t deadline = drover_pool_next_deadline (self->pool, now);
    uint64_t driver = drover_pooldriver_next_deadline (self->driver);
    if (driver < deadline)
        deadline = driver;
    return deadline == UINT64_MAX? -1: (int64_t) deadline;
}

//  The actor
void
drover_pool_actor (zsock_t *pipe, void *args)
{
    drover_actor_name_thread ("pool");
    self_t *self = s_self_new (pipe);
    zsock_signal (pipe, 0);
    while (!self->flags.stopping) {
        uint64_t now = (uint64_t) zclock_mono ();
        int wait = drover_actor_poll_timeout (s_next_deadline (self, now), (int64_t) now);
        size_t count = self->driver? drover_pooldriver_items (self->driver): 0;
        zmq_pollitem_t *items = count? drover_poller_items (self->poller, count): NULL;
        size_t filled = count? drover_pooldriver_fill (self->driver, items, count): 0;
        if (drover_actor_wait (self->poller, wait, 0) == -1)
            break;              //  interrupted
        int read = drover_actor_read (self->poller, self->pipe, NULL, s_handle_command,
                                     s_handle_record, self);
        if (read == -1)
            break;              //  the context is ending
        if (self->pool && !self->flags.stopping) {
            now = (uint64_t) zclock_mono ();
            drover_pooldriver_process (self->driver, items, filled, now, s_on_done, self);
            drover_pool_plan (self->pool, now, s_on_action, self);
        }
        drover_actor_flush (self->poller, DROVER_PIPE_AT, self->outbox, self->pipe);
    }
    s_self_destroy (&self);
}
