/*  =========================================================================
    drover_reconciler_actor - the reconciler actor: services kept at their
    desired count, placed by rendezvous hashing, term by term, after an
    orchestrator's terms and Arvados' keep-balance

    Owns one drover_reconciler_t (src/broker/services/drover_reconciler.c: every
    decision), the services' definitions (each the SERVICE ADMIN create
    that made it: what a replica runs, what the store keeps), one
    drover_gather_t (src/broker/services/drover_gather.c: the routes of the
    registered workers, from UP and LOST, which fence a WORKER RUNS, and
    who answered the gather), one drover_planqueue_t
    (src/broker/services/drover_planqueue.c: the PLANs waiting for a fleet) and the
    term timer. This actor does the I/O:

    - each term (service/term, only while a service exists) it asks schedq
      for the fleet (FLEET), says WORKER GATHER (seq = the term, low 32
      bits) to every worker of it, waits for every WORKER RUNS or
      service/gather-timeout, then computes the term (drover_reconciler_
      compute), carries it out (START and STOP to assign), commits it and
      says service.term with the statistics;
    - between terms, after a definition changes or a replica ends, and
      when a restart's backoff is over, a pass (a fresh FLEET first);
    - a PLAN is computed on a fresh fleet and the last gather's view, and
      answered PLAN RESULT: never carried out.

    What it hears and says, and how: actors/ACTORS.md, "reconciler" and "How
    actors talk".
    =========================================================================
*/

#include "drover_reconciler_actor.h"
#include "drover_reconciler.h"
#include "drover_servicewire.h"
#include "drover_planqueue.h"
#include "drover_gather.h"
#include "drover_fleet.h"
#include "drover_actor.h"
#include "drover_metrics.h"
#include "drover_msg.h"

//  msec after which a FLEET not answered is asked again
#define S_FLEET_RETRY   1000

typedef struct {
    zsock_t *pipe;              //  commands from the broker main
    drover_outbox_t *outbox;    //  what this turn says, flushed as one BATCH
    drover_poller_t *poller;    //  the pipe
    drover_serviceconfig_t config;  //  service/...
    drover_reconciler_t *reconcile;  //  the decisions, NULL until CONFIGURE
    zhashx_t *defs;             //  service name -> drover_msg_t * (its create), owned
    drover_gather_t *gather;    //  the routes of registrations, who answered this term's gather
    drover_planqueue_t *plans;  //  PLANs waiting for the fleet
    drover_fleet_t *fleet;      //  the last FLEET, NULL none yet
    drover_changeset_t set;     //  the last computation's, reused
    bool loaded;                //  LOADED heard: terms may run
    bool fleet_asked;           //  FLEET said, not answered yet
    bool term_wanted;           //  a term waits for the fleet
    bool pass_wanted;           //  a pass waits for the fleet
    bool gathering;             //  a term's gather is under way
    uint64_t term;              //  the last term begun, from 1
    int64_t fleet_asked_at;     //  msec (mono) FLEET was said
    int64_t term_at;            //  msec (mono) the next term is due, 0 not scheduled
    int64_t term_started;       //  msec (mono) this term began
    int64_t gather_until;       //  msec (mono) this term's gather ends
    int64_t pass_at;            //  msec (mono) a restart's backoff ends, 0 none
    uint64_t started;           //  replicas started (moves included)
    uint64_t stopped;           //  replicas stopped
    uint64_t moved;             //  replicas moved
    uint64_t rebalanced;        //  of those, toward their best worker (rebalance-moves)
    uint64_t terms;             //  terms ended
    uint64_t incomplete;        //  terms that removed nothing (why in their stats)
    uint64_t term_msec;         //  how long the last term took
    drover_actor_flags_t flags; //  EVENTS, VERBOSE, $TERM heard
} self_t;


//  Destroy a kept definition (the defs hash calls this)
static void
s_def_destroy (void **item_p)
{
    drover_msg_destroy ((drover_msg_t **) item_p);
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
    self->defs = zhashx_new ();
    zhashx_set_destructor (self->defs, s_def_destroy);
    self->gather = drover_gather_new ();
    self->plans = drover_planqueue_new ();
    return self;
}

//  Destroy the actor's state
static void
s_self_destroy (self_t **self_p)
{
    self_t *self = *self_p;
    if (!self)
        return;
    drover_changeset_reset (&self->set);
    drover_fleet_destroy (&self->fleet);
    drover_planqueue_destroy (&self->plans);
    drover_gather_destroy (&self->gather);
    zhashx_destroy (&self->defs);
    drover_reconciler_destroy (&self->reconcile);
    drover_poller_destroy (&self->poller);
    drover_outbox_destroy (&self->outbox);
    free (self);
    *self_p = NULL;
}

//  Now, as the class takes it: msec since the epoch
static uint64_t
s_now (void)
{
    return (uint64_t) zclock_time ();
}

//  Say an event (none while nobody listens)
static void
s_event (self_t *self, const char *topic, uint64_t task, const char *worker,
         const char *reason)
{
    if (!self->flags.silent)
        drover_actor_event (self->outbox, topic, task, 0, worker? worker: "", reason);
}


//  ---------------------------------------------------------------------
//  Carrying out a change set

//  Ask schedq for the fleet, unless asked already
static void
s_ask_fleet (self_t *self)
{
    if (self->fleet_asked)
        return;
    drover_outbox_say (self->outbox, "s", "FLEET");
    self->fleet_asked = true;
    self->fleet_asked_at = zclock_mono ();
}

//  A pass is wanted: on the next fleet
static void
s_want_pass (self_t *self)
{
    self->pass_wanted = true;
    s_ask_fleet (self);
}

//  Say START worker submit: a replica of slot on worker. Returns 0, or -1
//  if its definition is gone or does not encode (logged).
static int
s_start (self_t *self, const char *service, uint32_t slot, const char *worker)
{
    drover_msg_t *def = (drover_msg_t *) zhashx_lookup (self->defs, service);
    drover_msg_t *submit = def? drover_servicewire_submit (def, slot): NULL;
    zframe_t *frame = submit? drover_msg_encode (submit): NULL;
    drover_msg_destroy (&submit);
    if (!frame) {
        zsys_error ("reconciler: service=%s slot=%u not started: %s", service, slot,
                    def? "its submit does not encode": "no definition");
        return -1;
    }
    drover_outbox_say (self->outbox, "ssf", "START", worker, frame);
    zframe_destroy (&frame);
    return 0;
}

//  Carry out one change: START on to; MOVE, a START on to (the class stops
//  the task on from once the new one runs); STOP the task. FINISH and
//  REQUEUE are a plan's only.
static void
s_carry_out_change (self_t *self, const drover_planchange_t *change)
{
    char reason [2 * DROVER_REASON_MAX];       //  the event cuts it
    if (change->kind == DROVER_CHANGE_START || change->kind == DROVER_CHANGE_MOVE) {
        if (s_start (self, change->service, change->slot, change->to))
            return;
        self->started++;
        bool move = change->kind == DROVER_CHANGE_MOVE;
        self->moved += move? 1: 0;
        snprintf (reason, sizeof reason, "%s/%u%s%s: %s", change->service, change->slot,
                  move? " from ": "", move? change->from: "", change->why);
        zsys_info ("reconciler: %s service=%s slot=%u worker=%s%s%s why=\"%s\"",
                   move? "move": "start", change->service, change->slot, change->to,
                   move? " from=": "", move? change->from: "", change->why);
        s_event (self, move? "service.moved": "service.started", change->task, change->to,
                 reason);
    }
    else
    if (change->kind == DROVER_CHANGE_STOP) {
        drover_outbox_say (self->outbox, "s8s", "STOP", change->task, change->why);
        self->stopped++;
        snprintf (reason, sizeof reason, "%s/%u: %s", change->service, change->slot,
                  change->why);
        zsys_info ("reconciler: stop service=%s slot=%u task=%" PRIu64 " worker=%s why=\"%s\"",
                   change->service, change->slot, change->task, change->from, change->why);
        s_event (self, "service.stopped", change->task, change->from, reason);
    }
}

//  Carry out the change set just computed and commit it; a backoff that
//  ends later brings a pass then
static void
s_carry_out (self_t *self, uint64_t now)
{
    for (size_t index = 0; index < self->set.count; index++)
        s_carry_out_change (self, &self->set.changes [index]);
    drover_reconciler_commit (self->reconcile, &self->set, now);
    if (self->set.next) {
        int64_t at = zclock_mono () + (self->set.next > now? (int64_t) (self->set.next - now): 0);
        if (self->pass_at == 0 || at < self->pass_at)
            self->pass_at = at;
    }
}

//  Compute and carry out a pass (between terms)
static void
s_pass (self_t *self)
{
    self->pass_wanted = false;
    uint64_t now = s_now ();
    drover_reconciler_what_t what = { .kind = DROVER_RECONCILER_PASS };
    drover_changeset_reset (&self->set);
    drover_reconciler_compute (self->reconcile, &what, now, &self->set);
    s_carry_out (self, now);
}


//  ---------------------------------------------------------------------
//  Terms

//  Begin a term on the fleet just heard: say WORKER GATHER to every worker
//  of it, and wait for their answers until gather-timeout
static void
s_begin_term (self_t *self)
{
    self->term_wanted = false;
    self->term++;
    self->term_started = zclock_mono ();
    self->gather_until = self->term_started + self->config.gather_timeout;
    self->gathering = true;
    drover_reconciler_gather_begin (self->reconcile, self->term, s_now ());
    size_t count = 0;
    const drover_fleet_worker_t *workers = drover_fleet_workers (self->fleet, &count);
    drover_gather_begin (self->gather, (uint32_t) self->term, workers, count, self->outbox);
    if (self->flags.verbose)
        zsys_debug ("reconciler: term=%" PRIu64 " gather workers=%zu", self->term, count);
}

//  End the term: compute it on what the gather heard (incomplete if a
//  worker did not answer: the class then removes nothing), carry it out,
//  say its statistics
static void
s_end_term (self_t *self)
{
    self->gathering = false;
    uint64_t now = s_now ();
    drover_reconciler_what_t what = { .kind = DROVER_RECONCILER_TERM };
    drover_changeset_reset (&self->set);
    drover_reconciler_compute (self->reconcile, &what, now, &self->set);
    s_carry_out (self, now);
    int64_t ended = zclock_mono ();
    self->term_msec = (uint64_t) (ended - self->term_started);
    self->terms++;
    const drover_service_stats_t *stats = drover_reconciler_stats (self->reconcile);
    if (!stats->complete)
        self->incomplete++;
    self->rebalanced += stats->rebalanced;
    char words [DROVER_REASON_MAX + 1];
    drover_servicewire_words (stats, words, sizeof words);
    if (stats->complete)
        zsys_info ("reconciler: %s msec=%" PRIu64, words, self->term_msec);
    else
        zsys_notice ("reconciler: %s msec=%" PRIu64, words, self->term_msec);
    s_event (self, "service.term", 0, "", words);
    self->term_at = ended + self->config.term;
}

//  A worker answered the gather: fenced by the route of its registration
//  (a RUNS from any other route is dropped, counted, logged); a late one
//  (another term's seq) is ignored. The last answer ends the gather.
static void
s_handle_runs (self_t *self, const byte *route, size_t route_size, drover_msg_t *runs)
{
    if (!drover_gather_fenced (self->gather, runs->worker, route, route_size, zclock_mono ()))
        return;                 //  dropped, counted, logged
    if (!self->gathering || runs->seq != (uint32_t) self->term
    ||  drover_gather_answered (self->gather, runs->worker)) {
        if (self->flags.verbose)
            zsys_debug ("reconciler: late WORKER RUNS worker=%s seq=%u", runs->worker, runs->seq);
        return;                 //  another term's, or a second answer
    }
    if (drover_reconciler_gathered (self->reconcile, runs->worker, runs->running,
                                   runs->nrunning))
        return;                 //  not asked in this gather (it came up since)
    if (drover_gather_answer (self->gather, runs->worker))
        s_end_term (self);
}


//  ---------------------------------------------------------------------
//  Plans

//  PLAN: checked now (action, target, the service), answered on a fresh
//  fleet; we own the message from here
static void
s_handle_plan (self_t *self, const byte *route, size_t route_size, drover_record_t *record)
{
    const char *reason = NULL;
    int code = drover_planqueue_check (record->msg, self->reconcile, &reason);
    if (code != DROVER_CODE_OK) {
        drover_actor_reply_to (self->outbox, "reconciler", route, route_size, record->msg->seq,
                               code, reason, "");
        return;
    }
    drover_planqueue_add (self->plans, route, route_size, &record->msg);    //  ours now
    s_ask_fleet (self);
}


//  ---------------------------------------------------------------------
//  Definitions

//  Say KEEPSERVICE for a service: its definition, or an empty one if it is
//  gone (the store forgets it)
static void
s_keep (self_t *self, const char *name)
{
    drover_msg_t *def = (drover_msg_t *) zhashx_lookup (self->defs, name);
    zframe_t *frame = def? drover_msg_encode (def): zframe_new_empty ();
    if (!frame) {
        zsys_error ("reconciler: service=%s definition does not encode: not kept", name);
        return;
    }
    drover_outbox_say (self->outbox, "ssf", "KEEPSERVICE", name, frame);
    zframe_destroy (&frame);
}

//  Say a definition's event: reason "NAME replicas N"
static void
s_def_event (self_t *self, const char *topic, const char *name, uint32_t replicas)
{
    char reason [DROVER_REASON_MAX + 1];
    snprintf (reason, sizeof reason, "%s replicas %u", name, replicas);
    zsys_notice ("reconciler: %s service=%s replicas=%u", topic, name, replicas);
    s_event (self, topic, 0, "", reason);
}

//  SERVICE ADMIN: applied (drover_servicewire_admin), kept, said and
//  answered OK, or answered ERROR naming what is wrong; a pass follows
static void
s_handle_admin (self_t *self, const byte *route, size_t route_size, drover_record_t *record)
{
    uint32_t seq = record->msg->seq;
    int action = record->msg->action;
    char name [DROVER_ID_MAX + 1];
    snprintf (name, sizeof name, "%s", record->msg->service);
    char buffer [DROVER_REASON_MAX + 1];
    const char *reason = NULL;
    uint32_t replicas = 0;
    int code = drover_servicewire_admin (self->reconcile, self->defs, &record->msg, s_now (),
                                         buffer, sizeof buffer, &reason, &replicas);
    if (code == DROVER_CODE_OK) {
        s_keep (self, name);
        s_def_event (self, action == DROVER_SERVICE_CREATE? "service.created":
                           action == DROVER_SERVICE_SCALE? "service.scaled": "service.deleted",
                     name, replicas);
    }
    //  The OK waits in the store for what KEEPSERVICE keeps (REPLY): a
    //  definition acknowledged survives a crash
    drover_actor_answer_to (self->outbox, code == DROVER_CODE_OK? DROVER_RECORD_REPLY
                                                                : DROVER_RECORD_SEND,
                            "reconciler", route, route_size, seq, code,
                            code == DROVER_CODE_OK? "ok": reason, "");
    if (code == DROVER_CODE_OK)
        s_want_pass (self);
}

//  SERVICE def: a definition the store kept, at start (one that does not
//  decode or check is skipped, logged)
static void
s_handle_service (self_t *self, zmsg_t *command)
{
    zframe_t *frame = zmsg_pop (command);
    assert (frame);             //  the store says it
    drover_msg_t *msg = drover_msg_new (0);
    char buffer [DROVER_REASON_MAX + 1];
    const char *reason = "does not decode";
    uint32_t replicas = 0;
    char name [DROVER_ID_MAX + 1] = "";
    int code = DROVER_CODE_BAD_REQUEST;
    if (drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)) == 0) {
        snprintf (name, sizeof name, "%s", msg->service);
        code = msg->action == DROVER_SERVICE_CREATE?
               drover_servicewire_admin (self->reconcile, self->defs, &msg, s_now (), buffer,
                                         sizeof buffer, &reason, &replicas): DROVER_CODE_BAD_REQUEST;
    }
    else
        reason = msg->error? msg->error: reason;
    if (code == DROVER_CODE_OK)
        zsys_info ("reconciler: service=%s replicas=%u restored", name, replicas);
    else
        zsys_error ("reconciler: a kept service skipped: %s", reason? reason: "refused");
    drover_msg_destroy (&msg);
    zframe_destroy (&frame);
}


//  ---------------------------------------------------------------------
//  Replicas, the fleet, metrics

//  REPLICA from assign: a replica task changed; one that ended brings a pass
static void
s_handle_replica (self_t *self, zmsg_t *msg)
{
    uint64_t task = drover_actor_pop_number (msg);
    char *service = drover_actor_pop_string (msg);
    uint32_t slot = (uint32_t) drover_actor_pop_number (msg);
    char *worker = drover_actor_pop_string (msg);
    uint32_t attempt = (uint32_t) drover_actor_pop_number (msg);
    int state = (int) drover_actor_pop_number (msg);
    int end = (int) drover_actor_pop_number (msg);
    char *why = drover_actor_pop_string (msg);
    uint64_t now = s_now ();
    drover_replica_report_t report = {
        .task = task, .service = service, .slot = slot, .worker = worker, .attempt = attempt,
        .state = (drover_task_state_t) state, .end = (drover_end_t) end, .why = why
    };
    if (self->flags.verbose)
        zsys_debug ("reconciler: replica task=%" PRIu64 " service=%s slot=%u worker=%s state=%s",
                    task, service, slot, worker, drover_task_state_name (state));
    if (drover_reconciler_replica (self->reconcile, &report, now) == 1) {
        char reason [DROVER_REASON_MAX + 1];
        snprintf (reason, sizeof reason, "%s: slot %u exited quickly %u times in a row, last: %s",
                  service, slot, self->config.crash_warn, why);
        zsys_warning ("reconciler: service=%s CRASHING slot=%u why=\"%s\"", service, slot, why);
        s_event (self, "service.crashing", task, worker, reason);
    }
    if (state >= DROVER_TASK_SUCCEEDED)
        s_want_pass (self);
    zstr_free (&why);
    zstr_free (&worker);
    zstr_free (&service);
}

//  FLEET from schedq: what waited for it goes on (a term's gather, a pass,
//  the plans)
static void
s_handle_fleet (self_t *self, zmsg_t *msg)
{
    zframe_t *frame = zmsg_pop (msg);
    drover_fleet_t *fleet = frame? drover_fleet_decode (frame): NULL;
    zframe_destroy (&frame);
    self->fleet_asked = false;
    if (!fleet) {
        zsys_error ("reconciler: FLEET does not decode");
        return;                 //  asked again when something wants it
    }
    drover_fleet_destroy (&self->fleet);
    self->fleet = fleet;
    size_t count = 0;
    const drover_fleet_worker_t *workers = drover_fleet_workers (fleet, &count);
    drover_reconciler_set_fleet (self->reconcile, workers, count);
    if (self->term_wanted && !self->gathering)
        s_begin_term (self);
    if (self->pass_wanted)
        s_pass (self);
    drover_planqueue_answer (self->plans, self->reconcile, fleet, &self->set, s_now (),
                             self->outbox);
    if (self->gathering && drover_gather_asked (self->gather) == 0)
        s_end_term (self);      //  nobody to ask
}

//  METRICS round: the services and replicas as the class counts them, our
//  counters
static void
s_handle_metrics (self_t *self, uint64_t round)
{
    drover_metrics_t *metrics = drover_metrics_new ();
    if (self->reconcile)
        drover_servicewire_counts (self->reconcile, s_now (), metrics);
    drover_metrics_set (metrics, DROVER_METRIC_SERVICE_STARTED, self->started);
    drover_metrics_set (metrics, DROVER_METRIC_SERVICE_STOPPED, self->stopped);
    drover_metrics_set (metrics, DROVER_METRIC_SERVICE_MOVED, self->moved);
    drover_metrics_set (metrics, DROVER_METRIC_SERVICE_REBALANCED, self->rebalanced);
    drover_metrics_set (metrics, DROVER_METRIC_SERVICE_TERMS, self->terms);
    drover_metrics_set (metrics, DROVER_METRIC_SERVICE_TERMS_INCOMPLETE, self->incomplete);
    drover_metrics_set (metrics, DROVER_METRIC_SERVICE_TERM_SECONDS, self->term_msec);
    drover_metrics_say (metrics, self->outbox, round);
    drover_metrics_destroy (&metrics);
}


//  ---------------------------------------------------------------------
//  Commands and records

//  CONFIGURE: the service/... settings, values only; makes the class
static void
s_handle_configure (self_t *self, zmsg_t *msg)
{
    drover_serviceconfig_t *config = &self->config;
    uint32_t *fields [] = {
        &config->term, &config->gather_timeout, &config->restart_delay,
        &config->max_restart_delay, &config->stable_after, &config->crash_warn,
        &config->max_stop_percent, &config->max_services, &config->max_replicas,
        &config->rebalance_moves
    };
    for (size_t index = 0; index < sizeof fields / sizeof fields [0]; index++)
        *fields [index] = (uint32_t) drover_actor_pop_number (msg);
    assert (!self->reconcile);  //  once
    self->reconcile = drover_reconciler_new (config);
    assert (self->reconcile);
}

//  UP: remember the route of the worker's registration
static void
s_handle_up (self_t *self, zmsg_t *msg)
{
    char *worker = drover_actor_pop_string (msg);
    zframe_t *route = zmsg_pop (msg);
    assert (route);             //  health says it
    drover_gather_register (self->gather, worker, &route);
    zstr_free (&worker);
}

//  Handle one control command from the pipe (drover_outbox_receive calls this)
static void
s_handle_command (void *arg, zmsg_t *msg)
{
    self_t *self = (self_t *) arg;
    char command [16];
    drover_actor_pop_text (msg, command, sizeof command);
    if (self->flags.verbose)
        zsys_debug ("reconciler: command=%s", command);
    if (streq (command, "CONFIGURE"))
        s_handle_configure (self, msg);
    else
    if (streq (command, "METRICS"))
        s_handle_metrics (self, drover_actor_pop_number (msg));
    else
    if (drover_actor_handle_common (&self->flags, command, msg))
        ;
    else
    if (!self->reconcile) {
        zsys_error ("reconciler: command=%s before CONFIGURE", command);
        assert (false);         //  the main configures first
    }
    else
    if (streq (command, "UP"))
        s_handle_up (self, msg);
    else
    if (streq (command, "LOST")) {
        char *worker = drover_actor_pop_string (msg);
        drover_gather_forget (self->gather, worker);
        zstr_free (&worker);
    }
    else
    if (streq (command, "FLEET"))
        s_handle_fleet (self, msg);
    else
    if (streq (command, "REPLICA"))
        s_handle_replica (self, msg);
    else
    if (streq (command, "SERVICE"))
        s_handle_service (self, msg);
    else
    if (streq (command, "LOADED")) {
        self->loaded = true;
        self->term_at = zclock_mono () + self->config.term;
        zsys_info ("reconciler: loaded services=%zu term=%u gather-timeout=%u",
                   drover_reconciler_services (self->reconcile), self->config.term,
                   self->config.gather_timeout);
    }
    else {
        zsys_error ("reconciler: invalid command=%s", command);
        assert (false);         //  the vocabulary is in ACTORS.md
    }
}

//  Handle one record: MSG from the main (WORKER RUNS, SERVICE ADMIN,
//  SERVICE LIST, PLAN); what the main routes here and nothing else
static void
s_handle_record (void *arg, drover_record_t *record)
{
    self_t *self = (self_t *) arg;
    if (record->kind != DROVER_RECORD_MSG || !self->reconcile) {
        zsys_error ("reconciler: unexpected record=%s", drover_record_word (record));
        assert (false);         //  the vocabulary is in ACTORS.md
        return;
    }
    const byte *route = drover_record_route (record);
    size_t route_size = record->route_size;
    drover_msg_t *request = record->msg;
    if (request->id == DROVER_MSG_WORKER_RUNS)
        s_handle_runs (self, route, route_size, request);
    else
    if (request->id == DROVER_MSG_SERVICE_ADMIN)
        s_handle_admin (self, route, route_size, record);
    else
    if (request->id == DROVER_MSG_PLAN)
        s_handle_plan (self, route, route_size, record);
    else
    if (request->id == DROVER_MSG_SERVICE_LIST) {
        drover_msg_t *table = drover_servicewire_table (self->reconcile, request, s_now ());
        if (table)
            drover_actor_send_to (self->outbox, "reconciler", route, route_size, table, "");
        else
            drover_actor_reply_to (self->outbox, "reconciler", route, route_size, request->seq,
                                   DROVER_CODE_NOT_FOUND, "no such service", "");
        drover_msg_destroy (&table);
    }
    else
        drover_actor_reply_to (self->outbox, "reconciler", route, route_size, request->seq,
                               DROVER_CODE_UNEXPECTED, "not a message the reconciler takes", "");
}


//  ---------------------------------------------------------------------
//  The loop

//  What is due now: the gather's end, a backoff's end (a pass), the next
//  term (a FLEET first, only while a service exists), a FLEET asked again
static void
s_on_time (self_t *self, int64_t now)
{
    if (!self->reconcile || !self->loaded)
        return;
    if (self->gathering && now >= self->gather_until)
        s_end_term (self);
    if (self->pass_at && now >= self->pass_at) {
        self->pass_at = 0;
        s_want_pass (self);
    }
    if (!self->gathering && !self->term_wanted && self->term_at && now >= self->term_at) {
        if (drover_reconciler_services (self->reconcile)) {
            self->term_wanted = true;
            self->term_at = 0;
            s_ask_fleet (self);
        }
        else
            self->term_at = now + self->config.term;
    }
    if (self->fleet_asked && now - self->fleet_asked_at >= S_FLEET_RETRY) {
        self->fleet_asked = false;
        s_ask_fleet (self);
    }
}

//  Return the next deadline, msec monotonic, or -1 if none
static int64_t
s_next_deadline (self_t *self)
{
    if (!self->reconcile || !self->loaded)
        return -1;
    int64_t deadlines [] = {
        self->gathering? self->gather_until: 0, self->pass_at,
        self->gathering || self->term_wanted? 0: self->term_at,
        self->fleet_asked? self->fleet_asked_at + S_FLEET_RETRY: 0
    };
    int64_t next = -1;
    for (size_t index = 0; index < sizeof deadlines / sizeof deadlines [0]; index++)
        if (deadlines [index] && (next == -1 || deadlines [index] < next))
            next = deadlines [index];
    return next;
}

//  The actor
void
drover_reconciler_actor (zsock_t *pipe, void *args)
{
    drover_actor_name_thread ("reconciler");
    self_t *self = s_self_new (pipe);
    zsock_signal (pipe, 0);
    while (!self->flags.stopping) {
        int wait = drover_actor_poll_timeout (s_next_deadline (self), zclock_mono ());
        if (drover_actor_wait (self->poller, wait, 0) == -1)
            break;              //  interrupted
        if (drover_actor_read (self->poller, self->pipe, NULL, s_handle_command,
                               s_handle_record, self) == -1)
            break;              //  the context is ending
        if (!self->flags.stopping)
            s_on_time (self, zclock_mono ());
        drover_actor_flush (self->poller, DROVER_PIPE_AT, self->outbox, self->pipe);
    }
    s_self_destroy (&self);
}
