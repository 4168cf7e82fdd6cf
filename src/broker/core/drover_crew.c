/*  =========================================================================
    drover_crew - the broker's actors, started and halted

    The store first (it opens the state, held with the leader's fencing
    token when there are several brokers), then health, probation, schedq
    and assign (the four of the design), the reconciler, the pool when it
    has instance types, and the metrics actor; halted in reverse order.
    The main puts their pipes in its poller at their index.
    =========================================================================
*/

#include "drover_crew.h"
#include "drover_health.h"
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

//  Who answers METRICS: the actors it goes to and the main (the pool and
//  the store, when they run, are one more each)
#define S_COUNTERS      6

struct _drover_crew_t {
    drover_config_t *config;    //  settings, borrowed
    bool verbose;               //  make each actor verbose
    bool durable;               //  durability is not off: every event is kept
    int started;                //  DROVER_ROUTING_TO () bits of the actors running
    zactor_t *actors [DROVER_ROUTING_ACTORS];           //  health, probation, schedq, assign,
                                                        //  store, metrics, pool, reconciler
    drover_outbox_t *outboxes [DROVER_ROUTING_ACTORS];  //  what this turn tells each actor
};

//  Create a crew: no actor runs yet
drover_crew_t *
drover_crew_new (drover_config_t *config, bool verbose)
{
    drover_crew_t *self = (drover_crew_t *) zmalloc (sizeof (drover_crew_t));
    self->config = config;
    self->verbose = verbose;
    return self;
}

//  Destroy the crew, its actors halted
void
drover_crew_destroy (drover_crew_t **self_p)
{
    assert (self_p);
    drover_crew_t *self = *self_p;
    if (!self)
        return;
    drover_crew_halt (self);
    free (self);
    *self_p = NULL;
}

//  Start one actor at index (args as the actor takes them) with its
//  outbox, in which what the main tells it from now on goes, as to every
//  actor, in one BATCH a turn (actors/ACTORS.md, "How actors talk"); make
//  it verbose if asked. Returns its outbox.
static drover_outbox_t *
s_actor_start (drover_crew_t *self, int index, zactor_fn *actor_fn, void *args, bool verbose)
{
    self->actors [index] = zactor_new (actor_fn, args);
    assert (self->actors [index]);
    self->outboxes [index] = drover_outbox_new ();
    if (verbose)
        drover_outbox_say (self->outboxes [index], "s", "VERBOSE");
    return self->outboxes [index];
}

//  Send what the main said to the actor at index so far, at start-up, as
//  one BATCH (its pipe joins the poller only once every actor runs)
static void
s_actor_flush (drover_crew_t *self, int index)
{
    if (drover_outbox_size (self->outboxes [index]))
        drover_outbox_flush (self->outboxes [index], zactor_sock (self->actors [index]));
}

//  Start the elastic pool's actor, and tell schedq the pool's types: a
//  CONFIGURE with a copy of the settings, answered STARTED at once.
//  Returns 0, or -1 if its driver cannot be made (logged: the broker must
//  not start).
static int
s_pool_start (drover_crew_t *self, bool verbose)
{
    drover_config_t *config = self->config;
    s_actor_start (self, DROVER_ROUTING_POOL, drover_pool_actor, NULL, verbose);
    drover_outbox_say (self->outboxes [DROVER_ROUTING_POOL], "spss", "CONFIGURE",
                       drover_poolconfig_dup (&config->pool), config->endpoint,
                       self->durable? config->state_dir: "");
    s_actor_flush (self, DROVER_ROUTING_POOL);
    char *word = NULL, *text = NULL;
    uint32_t started = 0;
    if (zsock_recv (self->actors [DROVER_ROUTING_POOL], "s4s", &word, &started, &text) == -1
    ||  !word || !streq (word, "STARTED") || !started) {
        zsys_error ("broker: cannot start: %s", text? text: "the pool actor did not start");
        started = 0;
    }
    zstr_free (&word);
    zstr_free (&text);
    if (started) {
        //  Sent at once: the pointer is schedq's from then on
        drover_outbox_say (self->outboxes [DROVER_ROUTING_SCHEDQ], "sp", "POOLTYPES",
                           drover_poolconfig_dup (&config->pool));
        s_actor_flush (self, DROVER_ROUTING_SCHEDQ);
    }
    return started? 0: -1;
}

//  Start the store, first of the actors, and wait until it has opened the
//  state. Returns 0, or -1 if it could not (logged: the broker must not start).
static int
s_store_start (drover_crew_t *self, bool verbose, uint64_t fence)
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
    s_actor_start (self, DROVER_ROUTING_STORE, drover_store_actor, &args, verbose);
    char *word = NULL, *text = NULL;
    uint32_t opened = 0;
    if (zsock_recv (self->actors [DROVER_ROUTING_STORE], "s4s", &word, &opened, &text) == -1
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
s_metrics_started (drover_crew_t *self)
{
    char *word = NULL, *text = NULL;
    uint32_t started = 0;
    if (zsock_recv (self->actors [DROVER_ROUTING_METRICS], "s4s", &word, &started, &text) == -1
    ||  !word || !streq (word, "STARTED") || !started) {
        zsys_error ("broker: cannot start: %s", text? text: "the metrics actor did not start");
        started = 0;
    }
    zstr_free (&word);
    zstr_free (&text);
    return started? 0: -1;
}

//  Say CONFIGURE to probation: at start, and again on a reload
static void
s_configure_probation (drover_crew_t *self, drover_outbox_t *outbox)
{
    drover_outbox_say (outbox, "s4", "CONFIGURE", self->config->probation_timeout);
}

//  Say CONFIGURE to schedq, every setting it takes: at start, and again
//  on a reload (it applies each at once, the shares as SHARE SETTINGS do)
static void
s_configure_schedq (drover_crew_t *self, drover_outbox_t *outbox)
{
    drover_config_t *config = self->config;
    drover_outbox_say (outbox, "s4444444sss44", "CONFIGURE", config->max_shelve,
                       config->min_disk_free, config->max_leases, config->keep_gone,
                       config->max_gone, (uint32_t) self->durable, config->affinity_wait,
                       config->share_accounts, config->share_weights, config->share_quotas,
                       (uint32_t) streq (config->preemption, "on"), config->preempt_max);
}

//  Start the actors, each configured, the state held with fence
int
drover_crew_start (drover_crew_t *self, uint64_t fence, bool listened)
{
    drover_config_t *config = self->config;
    bool verbose = self->verbose;
    if (s_store_start (self, verbose, fence))
        return -1;
    drover_outbox_t *outbox =
        s_actor_start (self, DROVER_ROUTING_HEALTH, drover_health_actor, NULL, verbose);
    drover_outbox_say (outbox, "s444444s44", "CONFIGURE", config->heartbeat, config->lost_after,
                       config->max_workers, config->heartbeat_rate,
                       drover_health_grace (config->grace, config->heartbeat, config->lost_after),
                       config->stats_period, config->min_release, config->ack_timeout,
                       config->offer_ahead);
    outbox = s_actor_start (self, DROVER_ROUTING_PROBATION, drover_probation_actor, NULL, verbose);
    s_configure_probation (self, outbox);
    //  schedq and assign trade QUEUE, FREE and ASSIGN for every task: they
    //  get a link of their own rather than two hops through the main
    char link [64];
    snprintf (link, sizeof link, "inproc://drover-link-%p", (void *) self);
    outbox = s_actor_start (self, DROVER_ROUTING_SCHEDQ, drover_schedq_actor, link, verbose);
    s_configure_schedq (self, outbox);
    outbox = s_actor_start (self, DROVER_ROUTING_ASSIGN, drover_assign_actor, link, verbose);
    drover_outbox_say (outbox, "s44444444", "CONFIGURE", config->ack_timeout,
                       config->lost_retries, config->max_queued, config->keep_finished,
                       config->max_queued_bytes, config->keep_finished_bytes,
                       drover_durability_parse (config->durability), config->restart_grace);
    //  The reconciler: always, since services may be created at any time
    const drover_serviceconfig_t *service = &config->service;
    outbox = s_actor_start (self, DROVER_ROUTING_RECONCILER, drover_reconciler_actor, NULL,
                            verbose);
    drover_outbox_say (outbox, "s4444444444", "CONFIGURE", service->term,
                       service->gather_timeout, service->restart_delay,
                       service->max_restart_delay, service->stable_after, service->crash_warn,
                       service->max_stop_percent, service->max_services,
                       service->max_replicas, service->rebalance_moves);
    if (config->pool.ntypes && s_pool_start (self, verbose))
        return -1;
    drover_metrics_actor_args_t metrics = {
        .address = config->metrics,
        .status_interval = config->status_interval,
        .endpoint = config->endpoint,
        .counters = S_COUNTERS + (self->actors [DROVER_ROUTING_POOL]? 1: 0)
                               + (self->actors [DROVER_ROUTING_STORE]? 1: 0)
    };
    s_actor_start (self, DROVER_ROUTING_METRICS, drover_metrics_actor, &metrics, verbose);
    if (s_metrics_started (self))
        return -1;
    //  Events only while someone subscribes (kept events are said all the
    //  same: only the store is told)
    drover_crew_say_events (self, listened);
    for (int index = 0; index < DROVER_ROUTING_ACTORS; index++) {
        if (!self->actors [index]) {
            self->outboxes [index] = drover_outbox_new ();     //  the pool's slot, empty
            continue;
        }
        self->started |= DROVER_ROUTING_TO (index);
        s_actor_flush (self, index);
    }
    return 0;
}

//  Stop every actor, in reverse order of start
void
drover_crew_halt (drover_crew_t *self)
{
    for (int index = DROVER_ROUTING_ACTORS - 1; index >= 0; index--) {
        zactor_destroy (&self->actors [index]);
        drover_outbox_destroy (&self->outboxes [index]);
    }
    self->started = 0;
}

//  Return an actor's pipe, or NULL if it does not run
zsock_t *
drover_crew_sock (drover_crew_t *self, int index)
{
    return self->actors [index]? zactor_sock (self->actors [index]): NULL;
}

//  Return an actor's outbox (NULL while halted)
drover_outbox_t *
drover_crew_outbox (drover_crew_t *self, int index)
{
    return self->outboxes [index];
}

//  Return the bits of the actors running
int
drover_crew_started (drover_crew_t *self)
{
    return self->started;
}

//  Tell the actors whether to say events: the store alone when they are
//  kept (it publishes them or not), else every actor that runs
void
drover_crew_say_events (drover_crew_t *self, bool on)
{
    for (int index = 0; index < DROVER_ROUTING_ACTORS; index++)
        if (self->actors [index] && (index == DROVER_ROUTING_STORE || !self->durable))
            drover_outbox_say (self->outboxes [index], "s4", "EVENTS", on? 1: 0);
}


//  Say the settings a reload may change to the actors that hold them:
//  CONFIGURE again to schedq and probation, from the settings as they are
//  now; nothing if the actors do not run (they read them when they start)
void
drover_crew_reconfigure (drover_crew_t *self)
{
    if (self->actors [DROVER_ROUTING_METRICS])
        drover_outbox_say (self->outboxes [DROVER_ROUTING_METRICS], "s4", "CONFIGURE",
                           self->config->status_interval);
    if (self->actors [DROVER_ROUTING_PROBATION])
        s_configure_probation (self, self->outboxes [DROVER_ROUTING_PROBATION]);
    if (self->actors [DROVER_ROUTING_SCHEDQ])
        s_configure_schedq (self, self->outboxes [DROVER_ROUTING_SCHEDQ]);
}
