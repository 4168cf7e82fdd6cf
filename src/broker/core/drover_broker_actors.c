/*  =========================================================================
    drover_broker_actors - the broker's actors started and halted

    The store first (it opens the state, held with the leader's fencing
    token when there are several brokers), then health, probation, schedq
    and assign (the four of the design), the reconciler, the pool when it
    has instance types, and the metrics actor; halted in reverse order.
    Their pipes go in the broker's poller at their index.
    =========================================================================
*/

#include "drover_broker_internal.h"
#include "drover_defaults.h"
#include "drover_health_actor.h"
#include "drover_probation_actor.h"
#include "drover_schedq_actor.h"
#include "drover_assign_actor.h"
#include "drover_store_actor.h"
#include "drover_store.h"
#include "drover_metrics_actor.h"
#include "drover_poolwire.h"
#include "drover_pool_actor.h"
#include "drover_reconciler_actor.h"

//  Start one actor at index (args as the actor takes them) with its
//  outbox, in which what the main tells it from now on goes, as to every
//  actor, in one BATCH a turn (actors/ACTORS.md, "How actors talk"); make
//  it verbose if asked
static void
s_actor_start (s_broker_t *self, int index, zactor_fn *actor_fn, void *args, bool verbose)
{
    self->actors [index] = zactor_new (actor_fn, args);
    assert (self->actors [index]);
    self->outboxes [index] = drover_outbox_new ();
    if (verbose)
        drover_outbox_say (self->outboxes [index], "s", "VERBOSE");
}

//  Send what the main said to the actor at index so far, at start-up, as
//  one BATCH (its pipe joins the poller only once every actor runs)
static void
s_actor_flush (s_broker_t *self, int index)
{
    if (drover_outbox_size (self->outboxes [index]))
        drover_outbox_flush (self->outboxes [index], zactor_sock (self->actors [index]));
}

//  Return an actor's pipe, or NULL if it does not run (the pool, without
//  instance types)
static zsock_t *
s_actor_sock (s_broker_t *self, int index)
{
    return self->actors [index]? zactor_sock (self->actors [index]): NULL;
}

//  Start the elastic pool's actor, and tell schedq the pool's types: a
//  CONFIGURE with a copy of the settings, answered STARTED at once.
//  Returns 0, or -1 if its driver cannot be made (logged: the broker must
//  not start).
static int
s_pool_start (s_broker_t *self, bool verbose)
{
    drover_config_t *config = self->config;
    s_actor_start (self, S_POOL, drover_pool_actor, NULL, verbose);
    drover_outbox_say (self->outboxes [S_POOL], "spss", "CONFIGURE",
                       drover_poolconfig_dup (&config->pool), config->endpoint,
                       self->durable? config->state_dir: "");
    s_actor_flush (self, S_POOL);
    char *word = NULL, *text = NULL;
    uint32_t started = 0;
    if (zsock_recv (self->actors [S_POOL], "s4s", &word, &started, &text) == -1
    ||  !word || !streq (word, "STARTED") || !started) {
        zsys_error ("broker: cannot start: %s", text? text: "the pool actor did not start");
        started = 0;
    }
    zstr_free (&word);
    zstr_free (&text);
    if (started) {
        //  Sent at once: the pointer is schedq's from then on
        drover_outbox_say (self->outboxes [S_SCHEDQ], "sp", "POOLTYPES",
                           drover_poolconfig_dup (&config->pool));
        s_actor_flush (self, S_SCHEDQ);
    }
    return started? 0: -1;
}

//  Start the store, first of the actors, and wait until it has opened the
//  state. Returns 0, or -1 if it could not (logged: the broker must not start).
static int
s_store_start (s_broker_t *self, bool verbose, uint64_t fence)
{
    drover_config_t *config = self->config;
    drover_store_actor_args_t args = {
        .state_dir = config->state_dir,
        .fence = fence,
        .durability = drover_durability_parse (config->durability),
        .commit_every = config->commit_every,
        .keep_finished = config->keep_finished,
        .history_count = config->history_count,
        .history_age = config->history_age,
        .history_events = config->history_events
    };
    assert (args.durability >= 0);      //  the settings table checks the word
    self->durable = args.durability != DROVER_DURABILITY_OFF;
    s_actor_start (self, S_STORE, drover_store_actor, &args, verbose);
    char *word = NULL, *text = NULL;
    uint32_t opened = 0;
    if (zsock_recv (self->actors [S_STORE], "s4s", &word, &opened, &text) == -1
    ||  !word || !streq (word, "OPENED") || !opened) {
        zsys_error ("broker: cannot start: %s", text? text: "the store did not open");
        opened = 0;
    }
    else {
        char *state = drover_store_printable (config->state_dir);    //  no password
        zsys_info ("broker: state backend=%s durability=%s dir=%s", text, config->durability,
                   args.durability == DROVER_DURABILITY_OFF? "(none)": state);
        zstr_free (&state);
    }
    zstr_free (&word);
    zstr_free (&text);
    return opened? 0: -1;
}

//  Wait for the metrics actor's STARTED: 0, or -1 if it cannot serve
//  what broker/metrics says (logged: the broker must not start)
static int
s_metrics_started (s_broker_t *self)
{
    char *word = NULL, *text = NULL;
    uint32_t started = 0;
    if (zsock_recv (self->actors [S_METRICS], "s4s", &word, &started, &text) == -1
    ||  !word || !streq (word, "STARTED") || !started) {
        zsys_error ("broker: cannot start: %s", text? text: "the metrics actor did not start");
        started = 0;
    }
    zstr_free (&word);
    zstr_free (&text);
    return started? 0: -1;
}

//  Start the actors, each configured, the state held with fence
int
drover_broker_start_actors (s_broker_t *self, uint64_t fence)
{
    drover_config_t *config = self->config;
    bool verbose = self->verbose;
    if (s_store_start (self, verbose, fence))
        return -1;
    s_actor_start (self, S_HEALTH, drover_health_actor, NULL, verbose);
    drover_outbox_say (self->outboxes [S_HEALTH], "s444", "CONFIGURE",
                       config->heartbeat, config->lost_after, config->max_workers);
    s_actor_start (self, S_PROBATION, drover_probation_actor, NULL, verbose);
    drover_outbox_say (self->outboxes [S_PROBATION], "s4", "CONFIGURE",
                       config->probation_timeout);
    //  schedq and assign trade QUEUE, FREE and ASSIGN for every task: they
    //  get a link of their own rather than two hops through the main
    char link [64];
    snprintf (link, sizeof link, "inproc://drover-link-%p", (void *) self);
    s_actor_start (self, S_SCHEDQ, drover_schedq_actor, link, verbose);
    drover_outbox_say (self->outboxes [S_SCHEDQ], "s4444444", "CONFIGURE", config->max_shelve,
                       config->min_disk_free, config->max_leases, config->keep_gone,
                       config->max_gone, (uint32_t) self->durable, config->affinity_wait);
    s_actor_start (self, S_ASSIGN, drover_assign_actor, link, verbose);
    drover_outbox_say (self->outboxes [S_ASSIGN], "s44444444", "CONFIGURE", config->ack_timeout,
                       config->lost_retries, config->max_queued, config->keep_finished,
                       config->max_queued_bytes, config->keep_finished_bytes,
                       drover_durability_parse (config->durability), config->restart_grace);
    //  The reconciler: always, since services may be created at any time
    const drover_serviceconfig_t *service = &config->service;
    s_actor_start (self, S_RECONCILER, drover_reconciler_actor, NULL, verbose);
    drover_outbox_say (self->outboxes [S_RECONCILER], "s444444444", "CONFIGURE", service->term,
                       service->gather_timeout, service->restart_delay,
                       service->max_restart_delay, service->stable_after, service->crash_warn,
                       service->max_stop_percent, service->max_services,
                       service->max_replicas);
    if (config->pool.ntypes && s_pool_start (self, verbose))
        return -1;
    drover_metrics_actor_args_t metrics = {
        .address = config->metrics,
        .status_interval = config->status_interval,
        .endpoint = config->endpoint,
        .counters = S_COUNTERS + (self->actors [S_POOL]? 1: 0)
    };
    s_actor_start (self, S_METRICS, drover_metrics_actor, &metrics, verbose);
    if (s_metrics_started (self))
        return -1;
    bool listened = drover_eventstream_on (self->events);
    for (int index = 0; index < S_ACTORS; index++) {
        drover_poller_set (self->poller, (size_t) index, s_actor_sock (self, index));
        if (!self->actors [index]) {
            self->outboxes [index] = drover_outbox_new ();     //  the pool's slot, empty
            continue;
        }
        self->started |= S_TO (index);
        //  Events only while someone subscribes (kept events are said all
        //  the same: only the store is told)
        if (index == S_STORE || !self->durable)
            drover_outbox_say (self->outboxes [index], "s4", "EVENTS", listened? 1: 0);
        s_actor_flush (self, index);
    }
    return 0;
}

//  Stop every actor, in reverse order of start; the sockets stay
void
drover_broker_halt (drover_broker_t *self)
{
    for (int index = S_ACTORS - 1; index >= 0; index--) {
        zactor_destroy (&self->actors [index]);
        drover_outbox_destroy (&self->outboxes [index]);
        if (self->poller)
            drover_poller_set (self->poller, (size_t) index, NULL);
    }
    self->started = 0;
    self->loaded = false;
    zstr_free (&self->fatal);
    if (self->connwatch)
        drover_connwatch_serve (self->connwatch, false);    //  nobody reads the peers now
}

