/*  =========================================================================
    drover_health_actor - the health actor: worker registration and liveness

    Registers workers by id with their epoch and route (the ROUTER routing
    id of their latest HELLO), refreshes their liveness on any traffic from
    that route, and declares LOST those silent for lost-after, those that
    say GOODBYE, and old incarnations replaced by a new epoch. A LOST
    worker is forgotten entirely, so the state is bounded by max-workers.
    The liveness table (src/broker/workers/drover_health.c) decides who is silent; its
    next deadline is the poll timeout.

    The heartbeat interval WELCOME tells grows with the fleet, so the
    broker hears about heartbeat-rate heartbeats a second however many
    workers there are: max(heartbeat, workers x 1000 / rate), in whole
    heartbeats; a worker told N heartbeats is lost after N x lost-after.
    A worker of level 8 registered when the fleet was much smaller or
    larger is told the fleet's interval again (a WELCOME with seq 0) in
    answer to one of its heartbeats, so the rate holds as the fleet grows.
    For a grace after the actor starts (the broker started, or became
    leader) nobody is declared LOST: the fleet reconnects meanwhile.

    A HELLO from an agent whose level or release the broker does not take
    (src/broker/workers/drover_workerwindow.c: health/min-release) is
    refused with ERROR 426 and a reason the agent prints before it exits.

    What it hears and says, and how: actors/ACTORS.md, "health" and "How
    actors talk".
    =========================================================================
*/

#include "drover_health_actor.h"
#include "drover_devicelist.h"
#include "drover_msg.h"
#include "drover_health.h"
#include "drover_actor.h"
#include "drover_metrics.h"
#include "drover_defaults.h"
#include "drover_workerwindow.h"

//  Settings until CONFIGURE says otherwise: the broker's defaults
#define S_HEARTBEAT     DROVER_DEFAULT_HEARTBEAT
#define S_LOST_AFTER    DROVER_DEFAULT_LOST_AFTER
#define S_MAX_WORKERS   DROVER_DEFAULT_MAX_WORKERS
//  STATS are for WORKER LIST, not for decisions: held back and said in one
//  batch at most this often (msec; health/stats-period), so 1000 workers
//  heartbeating each second do not wake the main and schedq 1000 times a
//  second for them
#define S_STATS_PERIOD  DROVER_DEFAULT_STATS_PERIOD
//  Releases counted apart in METRICS (drover_workers_release), the most
//  common first; the others together as "other"
#define S_RELEASES      DROVER_METRICS_RELEASES
//  Worker id bindings kept per max-workers: past that, those of workers
//  not registered now are forgotten, so ids churned by one key stay bounded
#define S_BINDINGS_PER_WORKER   4

//  One registered worker
typedef struct {
    char id [DROVER_ID_MAX + 1];    //  worker id
    uint64_t epoch;             //  incarnation
    zframe_t *route;            //  routing id of its latest HELLO
    uint32_t procs;             //  procs it offers
    uint32_t interval;          //  msec between heartbeats its WELCOME told
    int level;                  //  the protocol level its HELLO spoke
    uint32_t ahead;             //  offers it may be sent beyond its free procs, told in
                                //  WELCOME (level 9; 0 none)
    drover_stats_t stats;       //  last heartbeat's stats
    char principal [DROVER_ID_MAX + 1]; //  the key it registered with, "" without CURVE
    char release [DROVER_RELEASE_MAX + 1];  //  the release its HELLO said, "" unknown
} s_worker_t;

typedef struct {
    zsock_t *pipe;              //  commands from the broker main
    drover_outbox_t *outbox;    //  what this turn says, flushed as one BATCH
    drover_outbox_t *stats;     //  STATS held back, flushed once per S_STATS_PERIOD
    int64_t stats_due;          //  when they go out, msec monotonic; -1 if none held
    drover_poller_t *poller;    //  the pipe
    zhashx_t *workers;          //  worker id -> s_worker_t (owned)
    zhashx_t *bindings;         //  worker id -> name of the key it belongs to (owned)
    drover_health_t *liveness;    //  last heard, for lost-after
    drover_turns_t turns;       //  when the loop last turned, to notice our own stalls
    int hold;                   //  msec the pipe is left unread after a read (news may wait)
    int64_t held_until;         //  msec (mono) until which it is left unread
    uint32_t heartbeat;         //  msec between worker heartbeats, told in WELCOME, at least
    uint32_t rate;              //  heartbeats a second aimed at (0: always heartbeat)
    int64_t grace_until;        //  msec (mono) before which nobody is LOST, 0 once over
    uint32_t grace;             //  msec the grace lasts
    uint64_t heartbeats;        //  heartbeats heard, ever (METRICS)
    uint32_t max_workers;       //  registered workers at most
    uint32_t ack_timeout;       //  msec assign waits for an offer's STARTED, told in WELCOME
    uint32_t offer_ahead;       //  offers a worker may hold ahead at most (assign/offer-ahead)
    char state_id [DROVER_STATE_ID_SIZE + 1];   //  the broker's state id, for WELCOME, or ""
    drover_actor_flags_t flags; //  EVENTS, VERBOSE, $TERM heard
    zhashx_t *lost;             //  ids lost and not registered since (values unused), max-workers at most
    uint64_t lost_total;        //  workers declared LOST, ever (METRICS)
    uint32_t stats_period;      //  msec STATS are held back at most (health/stats-period)
    drover_workerwindow_t *window;  //  the agents' levels and releases taken
    uint64_t refused_total;     //  HELLOs refused for their level or release, ever (METRICS)
    uint64_t repaced_total;     //  WELCOMEs said again with a new interval, ever (METRICS)
} self_t;


//  Free a worker; the hash map's destructor
static void
s_worker_destroy (void **item_p)
{
    s_worker_t *worker = (s_worker_t *) *item_p;
    if (worker) {
        zframe_destroy (&worker->route);
        free (worker);
        *item_p = NULL;
    }
}

//  Create the actor's state
static self_t *
s_self_new (zsock_t *pipe)
{
    self_t *self = (self_t *) zmalloc (sizeof (self_t));
    self->outbox = drover_outbox_new ();
    self->stats = drover_outbox_new ();
    self->stats_due = -1;
    self->pipe = pipe;
    self->poller = drover_poller_new ();
    drover_poller_add (self->poller, pipe);
    self->workers = zhashx_new ();
    zhashx_set_destructor (self->workers, s_worker_destroy);
    self->bindings = zhashx_new ();
    zhashx_set_destructor (self->bindings, (zhashx_destructor_fn *) zstr_free);
    self->liveness = drover_health_new (S_LOST_AFTER);
    self->heartbeat = S_HEARTBEAT;
    self->hold = DROVER_HOLD_MAX;
    self->max_workers = S_MAX_WORKERS;
    self->lost = zhashx_new ();
    self->stats_period = S_STATS_PERIOD;
    self->window = drover_workerwindow_new (DROVER_MSG_LEVEL_MIN, DROVER_MSG_LEVEL,
                                            DROVER_RELEASE, "");
    assert (self->window);
    return self;
}

//  Destroy the actor's state
static void
s_self_destroy (self_t **self_p)
{
    self_t *self = *self_p;
    if (!self)
        return;
    drover_health_destroy (&self->liveness);
    zhashx_destroy (&self->workers);
    zhashx_destroy (&self->bindings);
    zhashx_destroy (&self->lost);
    drover_workerwindow_destroy (&self->window);
    drover_poller_destroy (&self->poller);
    drover_outbox_destroy (&self->outbox);
    drover_outbox_destroy (&self->stats);
    free (self);
    *self_p = NULL;
}


//  ---------------------------------------------------------------------
//  Registration

//  Declare a worker LOST and forget everything about it
static void
s_worker_lost (self_t *self, const char *id, const char *reason)
{
    char worker [DROVER_ID_MAX + 1];
    snprintf (worker, sizeof worker, "%s", id);     //  id may live in the entry
    if (streq (reason, "silent"))
        zsys_warning ("health: worker=%s state=LOST reason=%s", worker, reason);
    else
        zsys_notice ("health: worker=%s state=LOST reason=%s", worker, reason);
    drover_outbox_say (self->outbox, "sss", "LOST", worker, reason);
    if (!self->flags.silent)
        drover_actor_event (self->outbox, "worker.lost", 0, 0, worker, reason);
    drover_health_forget (self->liveness, worker);
    zhashx_delete (self->workers, worker);
    //  Counted as lost unless it left or restarted (and says UP again at once)
    if (!streq (reason, "restarted") && !streq (reason, "left")) {
        self->lost_total++;
        if (zhashx_size (self->lost) < self->max_workers)
            zhashx_insert (self->lost, worker, self);
    }
}

//  Return the msec of silence after which a worker is LOST: lost-after
//  times the heartbeats of the broker's setting its interval spans
static uint64_t
s_lost_span (self_t *self, s_worker_t *worker)
{
    return (uint64_t) drover_health_lost_after (self->liveness)
         * drover_health_scale (self->liveness, worker->id);
}

//  Tell schedq a registered worker's interval and lost span again (they
//  changed without an UP): a STATS with them, in this turn's outbox so it
//  keeps its order with UP and LOST
static void
s_say_pace (self_t *self, s_worker_t *worker)
{
    zframe_t *stats = zframe_new (&worker->stats, sizeof worker->stats);
    drover_outbox_say (self->outbox, "ssf48", "STATS", worker->id, stats, worker->interval,
                       s_lost_span (self, worker));
    zframe_destroy (&stats);
}

//  Say UP for a worker, from its HELLO
static void
s_worker_up (self_t *self, s_worker_t *worker, drover_msg_t *hello)
{
    char *labels = strdup ("");
    for (uint32_t index = 0; index < hello->nlabels; index++) {
        char *joined = zsys_sprintf ("%s%s%s", labels, index? "\n": "", hello->labels [index]);
        zstr_free (&labels);
        labels = joined;
    }
    zframe_t *running = zframe_new (hello->running, hello->nrunning * sizeof (drover_taskref_t));
    //  Its counted devices, canonical ("gpu=4,fpga=1"; "" none)
    char devices [DROVER_DEVICELIST_TEXT_MAX];
    drover_device_t sorted [DROVER_DEVICES_MAX];
    size_t ndevices = hello->ndevices < DROVER_DEVICES_MAX? hello->ndevices: DROVER_DEVICES_MAX;
    memcpy (sorted, hello->devices, ndevices * sizeof (drover_device_t));
    drover_devicelist_sort (sorted, ndevices);
    drover_devicelist_format (sorted, ndevices, devices);
    drover_outbox_say (self->outbox, "ssf848sf4ss484", "UP", worker->id, worker->route,
                worker->epoch, hello->procs, hello->mem, labels, running,
                (uint32_t) drover_msg_level (hello), hello->release, devices, worker->interval,
                s_lost_span (self, worker), worker->ahead);
    zframe_destroy (&running);
    zstr_free (&labels);
    zhashx_delete (self->lost, worker->id);
    zsys_notice ("health: worker=%s state=UP epoch=%" PRIu64 " procs=%u mem=%" PRIu64
                 " labels=%u running=%u level=%d release=%s ahead=%u", worker->id,
                 worker->epoch, hello->procs, hello->mem, hello->nlabels, hello->nrunning,
                 drover_msg_level (hello), *hello->release? hello->release: "unknown",
                 worker->ahead);
    if (!self->flags.silent)
        drover_actor_event (self->outbox, "worker.up", 0, 0, worker->id, "");
}

//  Return why a HELLO cannot be accepted, or NULL if it can
static const char *
s_hello_invalid (drover_msg_t *hello)
{
    if (!drover_id_valid (hello->worker))
        return "worker id must be 1..64 printable bytes without spaces";
    if (hello->procs < 1)
        return "a worker must offer at least one proc";
    if (hello->nlabels > DROVER_LABELS_MAX)
        return "too many labels";
    for (uint32_t index = 0; index < hello->nlabels; index++)
        if (!hello->labels [index] || !drover_label_valid (hello->labels [index]))
            return "labels must be key=value";
    if (hello->nrunning > DROVER_RUNNING_MAX || (hello->nrunning && !hello->running))
        return "too many running attempts";
    return NULL;
}

//  Bind a worker id to the key that registered it; past the bound, first
//  forget the bindings of ids not registered now
static void
s_bind_worker (self_t *self, const char *id, const char *principal)
{
    if (!*principal || zhashx_lookup (self->bindings, id))
        return;
    if (zhashx_size (self->bindings) >= (size_t) self->max_workers * S_BINDINGS_PER_WORKER) {
        zlistx_t *idle = zlistx_new ();
        for (void *item = zhashx_first (self->bindings); item; item = zhashx_next (self->bindings))
            if (!zhashx_lookup (self->workers, zhashx_cursor (self->bindings)))
                zlistx_add_end (idle, (void *) zhashx_cursor (self->bindings));
        for (void *key = zlistx_first (idle); key; key = zlistx_next (idle))
            zhashx_delete (self->bindings, key);
        zlistx_destroy (&idle);
    }
    zhashx_insert (self->bindings, id, strdup (principal));
}

//  Return how many offers a worker may be sent beyond its free procs: as
//  many as its HELLO says it holds, up to assign/offer-ahead; none to a
//  worker below level 9, which would run them at once
static uint32_t
s_ahead_granted (self_t *self, drover_msg_t *hello)
{
    if (drover_msg_level (hello) < 9)
        return 0;
    return hello->ahead < self->offer_ahead? hello->ahead: self->offer_ahead;
}

//  Say WELCOME to a worker: the answer to its HELLO (seq), or, seq 0, its
//  new interval (level 8)
static void
s_send_welcome (self_t *self, s_worker_t *worker, zframe_t *route, uint32_t seq)
{
    drover_msg_t *welcome = drover_msg_new (DROVER_MSG_WORKER_WELCOME);
    welcome->seq = seq;
    welcome->heartbeat = worker->interval;
    welcome->ack_timeout = self->ack_timeout;   //  level 7: STARTED may wait a little
    welcome->ahead = worker->ahead;             //  level 9: offers it may hold ahead
    strcpy (welcome->state_id, self->state_id);
    drover_actor_send (self->outbox, "health", route, welcome, worker->id);
    drover_msg_destroy (&welcome);
}

//  The fleet grew or shrank since a worker was told its interval: tell it
//  the fleet's now, if it speaks level 8 and the two are far apart. Said
//  in answer to its heartbeat, so a fleet is told as fast as it
//  heartbeats, never in one burst; its silence allowed changes at once
//  (it was just heard, and takes the new interval on receipt)
static void
s_repace (self_t *self, s_worker_t *worker, zframe_t *route, int64_t now)
{
    if (worker->level < DROVER_MSG_LEVEL_REPACE)
        return;
    uint32_t fleet = drover_health_interval (self->heartbeat, self->rate,
                                             zhashx_size (self->workers));
    if (!drover_health_repace_due (worker->interval, fleet))
        return;
    if (self->flags.verbose)
        zsys_debug ("health: worker=%s heartbeat %u -> %u ms", worker->id, worker->interval,
                    fleet);
    worker->interval = fleet;
    drover_health_observe_scaled (self->liveness, worker->id, now, fleet / self->heartbeat);
    s_send_welcome (self, worker, route, 0);
    s_say_pace (self, worker);
    self->repaced_total++;
}

//  WORKER HELLO: register (or re-register) and WELCOME
static void
s_handle_hello (self_t *self, zframe_t *route, drover_msg_t *hello)
{
    const char *invalid = s_hello_invalid (hello);
    if (invalid) {
        drover_actor_reply (self->outbox, "health", route, hello->seq, DROVER_CODE_BAD_REQUEST,
                           invalid);
        return;
    }
    char *refused = drover_workerwindow_refuse (self->window, hello->level, hello->release);
    if (refused) {
        //  Not a mistake it could fix by trying again: it is told why, and
        //  drover's agent prints it and exits (PROTOCOL.md §12.1)
        zsys_warning ("health: refused HELLO worker=%s: %s", hello->worker, refused);
        drover_actor_reply (self->outbox, "health", route, hello->seq,
                           DROVER_CODE_BAD_VERSION, refused);
        self->refused_total++;
        zstr_free (&refused);
        return;
    }
    const char *bound = (const char *) zhashx_lookup (self->bindings, hello->worker);
    if (bound && !streq (bound, hello->principal)) {
        zsys_warning ("health: refused HELLO worker=%s key=%s: the id belongs to key=%s",
                      hello->worker, hello->principal, bound);
        drover_actor_reply (self->outbox, "health", route, hello->seq, DROVER_CODE_FORBIDDEN,
                           "this worker id belongs to another key");
        return;
    }
    s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, hello->worker);
    if (worker && worker->epoch != hello->epoch && !zframe_eq (worker->route, route)) {
        //  Another process on another connection says it is this worker,
        //  while this one is registered and not yet lost: two agents with
        //  one id. Taking it as a restart would make them take turns
        //  forever; the newcomer is refused until the registered one is
        //  LOST (lost-after of silence) or says GOODBYE
        zsys_warning ("health: refused HELLO worker=%s epoch=%" PRIu64 ": worker id in use "
                      "by another agent (epoch=%" PRIu64 ", heard %" PRId64 " msec ago)",
                      hello->worker, hello->epoch, worker->epoch,
                      zclock_mono () - drover_health_last_heard (self->liveness, worker->id));
        drover_actor_reply (self->outbox, "health", route, hello->seq, DROVER_CODE_ID_IN_USE,
                           "worker id in use by another agent");
        return;
    }
    if (worker && worker->epoch != hello->epoch) {
        s_worker_lost (self, worker->id, "restarted");
        worker = NULL;
    }
    bool say_up = false;
    if (!worker) {
        if (zhashx_size (self->workers) >= self->max_workers) {
            zsys_warning ("health: refused worker=%s: max-workers=%u reached",
                          hello->worker, self->max_workers);
            drover_actor_reply (self->outbox, "health", route, hello->seq, DROVER_CODE_TOO_MANY,
                               "too many workers");
            return;
        }
        worker = (s_worker_t *) zmalloc (sizeof (s_worker_t));
        snprintf (worker->id, sizeof worker->id, "%s", hello->worker);
        worker->epoch = hello->epoch;
        snprintf (worker->principal, sizeof worker->principal, "%s", hello->principal);
        zhashx_insert (self->workers, worker->id, worker);
        s_bind_worker (self, worker->id, hello->principal);
        say_up = true;
    }
    if (!worker->route || !zframe_eq (worker->route, route)) {
        zframe_destroy (&worker->route);
        worker->route = zframe_dup (route);
        say_up = true;          //  new, or reconnected from a new route
    }
    worker->procs = hello->procs;
    worker->level = drover_msg_level (hello);
    worker->ahead = s_ahead_granted (self, hello);
    snprintf (worker->release, sizeof worker->release, "%s", hello->release);
    if (*hello->state_id && strcmp (hello->state_id, self->state_id) && hello->nrunning) {
        //  Its attempts were offered by a broker with other state: their
        //  task ids are not ours, adopting them would mix tasks
        zsys_notice ("health: worker=%s names state=%s, ours=%s: adopting none of its "
                     "running=%u", worker->id, hello->state_id,
                     *self->state_id? self->state_id: "none", hello->nrunning);
        hello->nrunning = 0;
    }
    //  Its interval for the fleet as it is now (itself counted), and a
    //  silence allowed as many times lost-after as heartbeats it spans
    uint32_t interval = worker->interval;
    uint32_t scale = drover_health_scale (self->liveness, worker->id);
    worker->interval = drover_health_interval (self->heartbeat, self->rate,
                                               zhashx_size (self->workers));
    drover_health_observe_scaled (self->liveness, worker->id, zclock_mono (),
                                  worker->interval / self->heartbeat);
    //  A HELLO again that changes them says so to WORKER LIST (an UP does)
    if (!say_up && (interval != worker->interval
                    || scale != drover_health_scale (self->liveness, worker->id)))
        s_say_pace (self, worker);
    //  WELCOME goes out before UP, so it reaches the worker before any offer
    s_send_welcome (self, worker, route, hello->seq);
    if (say_up)
        s_worker_up (self, worker, hello);
    else
    if (self->flags.verbose)
        zsys_debug ("health: worker=%s said HELLO again", worker->id);
}

//  Return the worker registered with this id, epoch and route, or NULL
static s_worker_t *
s_registered (self_t *self, const char *id, uint64_t epoch, zframe_t *route)
{
    s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, id);
    if (worker && worker->epoch == epoch && zframe_eq (worker->route, route))
        return worker;
    return NULL;
}

//  WORKER HEARTBEAT: alive, with stats; or not registered: 401
static void
s_handle_heartbeat (self_t *self, zframe_t *route, drover_msg_t *heartbeat)
{
    s_worker_t *worker = s_registered (self, heartbeat->worker, heartbeat->epoch, route);
    if (!worker) {
        if (self->flags.verbose)
            zsys_debug ("health: heartbeat from unregistered worker=%s", heartbeat->worker);
        drover_actor_reply (self->outbox, "health", route, heartbeat->seq,
                           DROVER_CODE_NOT_REGISTERED, "not registered: say HELLO");
        return;
    }
    int64_t now = zclock_mono ();
    drover_health_observe (self->liveness, worker->id, now);
    self->heartbeats++;
    s_repace (self, worker, route, now);
    worker->stats = heartbeat->stats;
    zframe_t *stats = zframe_new (&worker->stats, sizeof worker->stats);
    drover_outbox_say (self->stats, "ssf", "STATS", worker->id, stats);
    if (self->stats_due == -1)
        self->stats_due = zclock_mono () + self->stats_period;
    zframe_destroy (&stats);
}

//  WORKER GOODBYE: the worker leaves; one from a stale route is ignored
static void
s_handle_goodbye (self_t *self, zframe_t *route, drover_msg_t *goodbye)
{
    s_worker_t *worker = s_registered (self, goodbye->worker, goodbye->epoch, route);
    if (worker)
        s_worker_lost (self, worker->id, "left");
    else
    if (self->flags.verbose)
        zsys_debug ("health: goodbye from unregistered worker=%s", goodbye->worker);
}

//  MSG: a wire message the main handed us
static void
s_handle_wire (self_t *self, zframe_t *route, drover_msg_t *wire)
{
    if (wire->id == DROVER_MSG_WORKER_HELLO)
        s_handle_hello (self, route, wire);
    else
    if (wire->id == DROVER_MSG_WORKER_HEARTBEAT)
        s_handle_heartbeat (self, route, wire);
    else
    if (wire->id == DROVER_MSG_WORKER_GOODBYE)
        s_handle_goodbye (self, route, wire);
    else {
        //  The main routes by id: anything else reaching us is its bug
        zsys_error ("health: %s is not ours", drover_msg_name (wire->id));
        drover_actor_reply (self->outbox, "health", route, wire->seq, DROVER_CODE_UNEXPECTED,
                           "not a worker health message");
    }
}

//  HEARD: traffic from a worker counts as life, if from its own route
static void
s_handle_heard (self_t *self, const char *id, zframe_t *route)
{
    s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, id);
    if (worker && zframe_eq (worker->route, route))
        drover_health_observe (self->liveness, worker->id, zclock_mono ());
}


//  ---------------------------------------------------------------------
//  The loop

//  REVOKED: the key NAME went away; its workers are LOST now rather than
//  after lost-after, so no more work is offered to them
static void
s_handle_revoked (self_t *self, const char *name)
{
    zlistx_t *lost = zlistx_new ();
    for (s_worker_t *worker = (s_worker_t *) zhashx_first (self->workers); worker;
         worker = (s_worker_t *) zhashx_next (self->workers))
        if (streq (worker->principal, name))
            zlistx_add_end (lost, worker->id);
    for (char *id = (char *) zlistx_first (lost); id; id = (char *) zlistx_next (lost))
        s_worker_lost (self, id, "key revoked");
    zlistx_destroy (&lost);
}

//  The grace after start or leadership begins, grace msec (0: none): a
//  fleet that comes back in a storm is not LOST for heartbeats that wait
//  behind its own HELLOs (PROTOCOL.md §9). Said in the log now (an event
//  at start would be the broker's first write) and as an event at its end.
static void
s_grace_begin (self_t *self, uint32_t grace)
{
    self->grace = grace;
    self->grace_until = grace? zclock_mono () + grace: 0;
    zsys_notice ("health: grace=%u msec: no worker is declared LOST before it ends; "
                 "heartbeat=%u msec rate=%u/s", grace, self->heartbeat, self->rate);
}

//  The grace is over: workers are judged from now on
static void
s_grace_end (self_t *self)
{
    self->grace_until = 0;
    zsys_notice ("health: grace over: workers=%zu judged by their silence from now on",
                 zhashx_size (self->workers));
    if (!self->flags.silent) {
        char reason [64];
        snprintf (reason, sizeof reason, "over after %u msec", self->grace);
        drover_actor_event (self->outbox, "worker.grace", 0, 0, "", reason);
    }
}

//  CONFIGURE's trailing fields, stats-period(4) min-release(s): how often
//  STATS go out, and the oldest agent release registered ("" any; the
//  main checked it)
static void
s_configure_agents (self_t *self, zmsg_t *msg)
{
    self->stats_period = (uint32_t) drover_actor_pop_number (msg);
    char *min_release = drover_actor_pop_string (msg);
    drover_workerwindow_t *window = drover_workerwindow_new (DROVER_MSG_LEVEL_MIN,
                                                             DROVER_MSG_LEVEL, DROVER_RELEASE,
                                                             min_release);
    if (window) {
        drover_workerwindow_destroy (&self->window);
        self->window = window;
    }
    else
        zsys_error ("health: min-release='%s' is not a release: kept %s", min_release,
                    drover_workerwindow_describe (self->window));
    zsys_notice ("health: workers taken: %s; stats-period=%u msec",
                 drover_workerwindow_describe (self->window), self->stats_period);
    zstr_free (&min_release);
}

//  One release and how many registered workers said it
typedef struct {
    const char *release;        //  borrowed from a worker, "" unknown
    uint64_t count;             //  registered workers of it
} s_release_count_t;

//  Order release counts: the most workers first, then by release
static int
s_release_order (const void *left, const void *right)
{
    const s_release_count_t *a = (const s_release_count_t *) left;
    const s_release_count_t *b = (const s_release_count_t *) right;
    if (a->count != b->count)
        return a->count > b->count? -1: 1;
    return strcmp (a->release, b->release);
}

//  Count registered workers by release into counts: the S_RELEASES most
//  common each on its own ("" as unknown), the rest as other, so the
//  series stay few whatever agents say
static void
s_count_releases (self_t *self, drover_metrics_t *counts)
{
    s_release_count_t releases [4 * S_RELEASES];
    size_t distinct = 0;
    uint64_t other = 0;         //  workers of releases past those counted apart
    for (s_worker_t *worker = (s_worker_t *) zhashx_first (self->workers); worker;
         worker = (s_worker_t *) zhashx_next (self->workers)) {
        size_t index = 0;
        while (index < distinct && !streq (releases [index].release, worker->release))
            index++;
        if (index == distinct && distinct == sizeof releases / sizeof releases [0])
            other++;            //  a fleet of many odd releases: "other" anyway
        else {
            if (index == distinct)
                releases [distinct++] = (s_release_count_t) { worker->release, 0 };
            releases [index].count++;
        }
    }
    qsort (releases, distinct, sizeof releases [0], s_release_order);
    for (size_t index = 0; index < distinct; index++)
        if (index < S_RELEASES)
            drover_metrics_set_release (counts, index, *releases [index].release
                                        ? releases [index].release: "unknown",
                                        releases [index].count);
        else
            other += releases [index].count;
    drover_metrics_set (counts, DROVER_METRIC_WORKERS_RELEASE_OTHER, other);
}

//  Handle one control command from the pipe (drover_outbox_receive calls this)
static void
s_handle_command (void *arg, zmsg_t *msg)
{
    self_t *self = (self_t *) arg;
    char *command = zmsg_popstr (msg);
    assert (command);
    if (self->flags.verbose)
        zsys_debug ("health: command=%s", command);
    if (streq (command, "HEARD")) {
        char *worker = zmsg_popstr (msg);
        zframe_t *route = zmsg_pop (msg);
        assert (worker && route);
        s_handle_heard (self, worker, route);
        zframe_destroy (&route);
        zstr_free (&worker);
    }
    else
    if (streq (command, "REVOKED")) {
        char *name = zmsg_popstr (msg);
        assert (name);
        s_handle_revoked (self, name);
        zstr_free (&name);
    }
    else
    if (streq (command, "CONFIGURE")) {
        self->heartbeat = (uint32_t) drover_actor_pop_number (msg);
        if (self->heartbeat == 0)
            self->heartbeat = S_HEARTBEAT;
        //  Heartbeats and HEARD only say "alive": they may wait a quarter
        //  of the heartbeat interval (DROVER_HOLD_MAX at most)
        self->hold = self->heartbeat / 4 < DROVER_HOLD_MAX? (int) self->heartbeat / 4
                                                          : DROVER_HOLD_MAX;
        uint32_t lost_after = drover_health_lost_after (self->liveness);
        drover_health_set_lost_after (self->liveness, (uint32_t) drover_actor_pop_number (msg));
        //  Every worker's lost span changed with it: WORKER LIST says it
        if (lost_after != drover_health_lost_after (self->liveness))
            for (s_worker_t *worker = (s_worker_t *) zhashx_first (self->workers); worker;
                 worker = (s_worker_t *) zhashx_next (self->workers))
                s_say_pace (self, worker);
        self->max_workers = (uint32_t) drover_actor_pop_number (msg);
        self->rate = (uint32_t) drover_actor_pop_number (msg);
        s_grace_begin (self, (uint32_t) drover_actor_pop_number (msg));
        if (zmsg_size (msg) >= 2)
            s_configure_agents (self, msg);
        //  ack-timeout may be left out (0: not told), and offer-ahead (0: none)
        self->ack_timeout = zmsg_size (msg)? (uint32_t) drover_actor_pop_number (msg): 0;
        self->offer_ahead = zmsg_size (msg)? (uint32_t) drover_actor_pop_number (msg): 0;
    }
    else
    if (streq (command, "METRICS")) {
        drover_metrics_t *counts = drover_metrics_new ();
        drover_metrics_set (counts, DROVER_METRIC_WORKERS_LOST, zhashx_size (self->lost));
        drover_metrics_set (counts, DROVER_METRIC_WORKERS_LOST_TOTAL, self->lost_total);
        drover_metrics_set (counts, DROVER_METRIC_HEARTBEAT_INTERVAL,
                            drover_health_interval (self->heartbeat, self->rate,
                                                    zhashx_size (self->workers) + 1));
        drover_metrics_set (counts, DROVER_METRIC_HEARTBEAT_RATE, self->rate);
        drover_metrics_set (counts, DROVER_METRIC_HEARTBEATS, self->heartbeats);
        int64_t left = self->grace_until? self->grace_until - zclock_mono (): 0;
        drover_metrics_set (counts, DROVER_METRIC_HEALTH_GRACE, left > 0? (uint64_t) left: 0);
        drover_metrics_set (counts, DROVER_METRIC_WORKERS_REFUSED_TOTAL, self->refused_total);
        drover_metrics_set (counts, DROVER_METRIC_WORKERS_REPACED_TOTAL, self->repaced_total);
        s_count_releases (self, counts);
        drover_metrics_say (counts, self->outbox, drover_actor_pop_number (msg));
        drover_metrics_destroy (&counts);
    }
    else
    if (streq (command, "STATE")) {
        char *state_id = zmsg_popstr (msg);
        assert (state_id && strlen (state_id) <= DROVER_STATE_ID_SIZE);
        strcpy (self->state_id, state_id);
        zstr_free (&state_id);
    }
    else
    if (!drover_actor_handle_common (&self->flags, command, msg)) {
        zsys_error ("health: invalid command=%s", command);
        assert (false);
    }
    zstr_free (&command);
}

//  Handle one record (drover_actor_read calls this): MSG from the main, a
//  thousand heartbeats a second with a thousand workers
static void
s_handle_record (void *arg, drover_record_t *record)
{
    self_t *self = (self_t *) arg;
    if (self->flags.verbose)
        zsys_debug ("health: command=%s", drover_record_word (record));
    if (record->kind == DROVER_RECORD_MSG) {
        zframe_t *route = zframe_new (drover_record_route (record), record->route_size);
        s_handle_wire (self, route, record->msg);
        zframe_destroy (&route);
    }
    else {
        zsys_error ("health: unexpected record=%s", drover_record_word (record));
        assert (false);         //  the vocabulary is in ACTORS.md
    }
}

//  Declare LOST every worker silent for its lost-after, once the grace is over
static void
s_expire_silent (self_t *self, int64_t now)
{
    if (self->grace_until && now < self->grace_until)
        return;                 //  nobody is LOST in the grace
    if (self->grace_until)
        s_grace_end (self);
    char *id;
    while ((id = drover_health_expire (self->liveness, now))) {
        s_worker_lost (self, id, "silent");
        zstr_free (&id);
    }
}

//  A pause of the broker is not silence of the workers: if this loop did
//  not run for a while (the process was stopped or starved), what workers
//  said meanwhile still waits in buffers. Their silence is extended by the
//  pause before anyone is judged, and the main reads what waits meanwhile.
static void
s_forgive_stall (self_t *self)
{
    int64_t stall = drover_turns_stall (&self->turns, zclock_mono ());
    if (stall && drover_health_size (self->liveness)) {
        drover_health_shift (self->liveness, stall);
        zsys_warning ("health: broker stalled for %" PRId64 " msec: silence of workers=%zu "
                      "counted from before it", stall, drover_health_size (self->liveness));
    }
}

//  The actor
void
drover_health_actor (zsock_t *pipe, void *args)
{
    drover_actor_name_thread ("health");
    self_t *self = s_self_new (pipe);
    zsock_signal (pipe, 0);
    while (!self->flags.stopping) {
        int64_t deadline = drover_health_next_deadline (self->liveness);
        //  While workers are known, wake often enough to tell a stall of
        //  our own from sleep
        bool watching = deadline != -1;
        if (self->grace_until && (deadline == -1 || deadline < self->grace_until))
            deadline = self->grace_until;
        if (self->stats_due != -1 && (deadline == -1 || self->stats_due < deadline))
            deadline = self->stats_due;
        int wait = drover_actor_poll_timeout (deadline, zclock_mono ());
        if (watching)
            wait = drover_turns_wait (wait);
        if (drover_actor_wait (self->poller, wait, self->held_until) == -1)
            break;              //  interrupted
        s_forgive_stall (self);
        int read = drover_actor_read (self->poller, self->pipe, NULL, s_handle_command,
                                     s_handle_record, self);
        if (read == -1)
            break;              //  the context is ending
        int64_t now = zclock_mono ();
        //  What comes next may wait in the pipe a moment, read in one turn
        //  (DROVER_HOLD_MAX), unless the pipe still holds more than a turn reads
        if (read > 0 && !drover_poller_readable (self->poller, DROVER_PIPE_AT))
            self->held_until = now + self->hold;
        if (!self->flags.stopping)
            s_expire_silent (self, now);
        drover_actor_flush (self->poller, DROVER_PIPE_AT, self->outbox, self->pipe);
        if (self->stats_due != -1 && now >= self->stats_due) {
            drover_actor_flush (self->poller, DROVER_PIPE_AT, self->stats, self->pipe);
            self->stats_due = -1;
        }
    }
    s_self_destroy (&self);
}
