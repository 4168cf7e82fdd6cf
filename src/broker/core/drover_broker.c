/*  =========================================================================
    drover_broker - the broker process

    The main owns the TCP sockets: a ROUTER where workers and clients talk,
    and a PUB for the event stream. It decodes what arrives, hands each
    message to the actor that owns its subject, and forwards what actors say
    to the actors that hear it, using one routing table (actors/ACTORS.md).
    It keeps no state about tasks or workers: that lives in the actors.

    Actor pipes are polled before the ROUTER, so internal traffic drains
    before more external work is read in.

    Beside it: the command line is read by drover_brokerflags, the ROUTER
    is read and answered by drover_broker_peers.c, and the connections are
    watched against the descriptor limit by drover_connwatch (the main
    polls its monitors and refuses what it says).
    =========================================================================
*/

#include "drover_broker_internal.h"
#include "drover_config.h"
#include "drover_defaults.h"
#include "drover_actor.h"
#include "drover_brokerflags.h"
#include "drover_log.h"
#include "drover_ha.h"
#include "drover_cpus.h"
#include "drover_event.h"


//  Connections the kernel may hold for a bound socket before libzmq
//  accepts them (listen's backlog; the kernel caps it at somaxconn).
//  libzmq's default, 100, is filled by one burst of connects (a flood, or
//  a thousand workers starting at once): connects past it lose their SYN
//  and try again a second later, so a worker waited over a second
#define S_BACKLOG       4096
//  Most BATCHes read from one actor in one turn of the loop
#define S_ACTOR_BATCHES 8

//  Bind one socket, saying why if it fails
static int
s_bind (zsock_t *sock, const char *endpoint)
{
    if (zsock_bind (sock, "%s", endpoint) == -1) {
        zsys_error ("broker: cannot bind endpoint=%s: %s", endpoint, zmq_strerror (zmq_errno ()));
        return -1;
    }
    return 0;
}

//  Messages libzmq may queue from one peer: it counts messages, not bytes,
//  and each may be as large as the ROUTER's max message size, so peer-bytes
//  bounds the count (at least one, at most hwm)
static int
s_peer_hwm (drover_config_t *config)
{
    uint64_t largest = (uint64_t) config->max_message * 2;
    uint64_t count = config->peer_bytes / largest;
    return count < 1? 1: count < config->hwm? (int) count: (int) config->hwm;
}

//  Create the broker: sockets bound, no actor running
drover_broker_t *
drover_broker_new (drover_config_t *config, bool verbose)
{
    s_broker_t *self = (s_broker_t *) zmalloc (sizeof (s_broker_t));
    self->config = config;
    self->verbose = verbose;
    self->connwatch = drover_connwatch_new ((int) config->silent_timeout, config->member_reserve,
                                            config->max_per_address);
    config->max_workers = drover_connwatch_fit_workers (self->connwatch, config->max_workers);
    self->speaker = -1;
    self->queues = drover_queuetable_new ("");
    self->levels = drover_peerlevels_new (DROVER_PEERLEVELS_KEPT);
    drover_broker_index_routes (self);
    char *error = NULL;
    self->guard = drover_guard_new (config, verbose, &error);
    if (!self->guard) {
        zsys_error ("broker: cannot start: %s", error);
        zstr_free (&error);
        drover_connwatch_destroy (&self->connwatch);
        drover_queuetable_destroy (&self->queues);
        drover_peerlevels_destroy (&self->levels);
        free (self);
        return NULL;
    }
    drover_connwatch_log_handshakes (self->connwatch, drover_guard_secure (self->guard));

    self->router = zsock_new (ZMQ_ROUTER);
    zsock_set_router_mandatory (self->router, 1);
    //  Past max-message the codec answers 413; past twice that, libzmq
    //  drops the connection before anything is allocated for it
    zsock_set_maxmsgsize (self->router, (int64_t) config->max_message * 2);
    zsock_set_backlog (self->router, S_BACKLOG);
    zsock_set_sndhwm (self->router, config->hwm);
    zsock_set_rcvhwm (self->router, s_peer_hwm (config));
    zsock_set_linger (self->router, 0);
    //  Liveness of a worker is judged by its application heartbeats (health
    //  actor); what remains is to drop the TCP connections of peers that
    //  vanished. The kernel does that at no cost to our threads, where ZMTP
    //  PINGs would wake the I/O thread for every peer every interval:
    //  keepalives probe an idle connection, and data left unacknowledged
    //  for twice lost-after closes a busy one (TCP_USER_TIMEOUT)
    zsock_set_tcp_maxrt (self->router, (int) config->lost_after * 2);
    int idle = (int) (config->lost_after * 2 / 1000);
    zsock_set_tcp_keepalive (self->router, 1);
    zsock_set_tcp_keepalive_idle (self->router, idle > 1? idle: 1);
    zsock_set_tcp_keepalive_intvl (self->router, idle / 4 > 1? idle / 4: 1);
    zsock_set_tcp_keepalive_cnt (self->router, 4);
    drover_guard_apply (self->guard, self->router, (int) config->handshake);
    self->events = drover_eventstream_new (self->guard, config->hwm, (int) config->handshake);
    zsock_t *publisher = drover_eventstream_sock (self->events);
    zsock_set_backlog (publisher, S_BACKLOG);
    //  Every connection is seen, from before the first can be accepted
    self->monitors [0] = drover_connwatch_watch (self->connwatch, self->router, false);
    self->monitors [1] = drover_connwatch_watch (self->connwatch, publisher, true);
    if (s_bind (self->router, config->endpoint)
    ||  s_bind (publisher, config->events)) {
        drover_connwatch_destroy (&self->connwatch);
        zsock_destroy (&self->router);
        drover_eventstream_destroy (&self->events);
        drover_guard_destroy (&self->guard);
        drover_queuetable_destroy (&self->queues);
        free (self);
        return NULL;
    }
    self->poller = drover_poller_new ();
    for (int index = 0; index < S_ACTORS; index++)
        drover_poller_add (self->poller, NULL);     //  none: never readable
    drover_poller_add (self->poller, self->router);
    drover_poller_add (self->poller, publisher);
    for (int index = 0; index < S_MONITORS; index++)
        drover_poller_add (self->poller, self->monitors [index]);
    drover_poller_add (self->poller, NULL);         //  the owner's socket, if any
    return self;
}

//  Destroy the broker: actors in reverse order of start, then sockets
void
drover_broker_destroy (drover_broker_t **self_p)
{
    s_broker_t *self = *self_p;
    if (!self)
        return;
    drover_broker_halt (self);
    drover_poller_destroy (&self->poller);
    drover_connwatch_destroy (&self->connwatch);
    zstr_free (&self->fenced);
    drover_eventstream_destroy (&self->events);
    zsock_destroy (&self->router);
    drover_guard_destroy (&self->guard);
    drover_queuetable_destroy (&self->queues);
    drover_peerlevels_destroy (&self->levels);
    free (self);
    *self_p = NULL;
}

//  Read the connection events of one monitored socket
static void
s_handle_monitor (s_broker_t *self, int index)
{
    drover_connwatch_read (self->connwatch, (size_t) index);
    drover_poller_drained (self->poller, S_MONITOR_AT + index);
}

//  Cut the excess connections whose time has come
static void
s_cut_connections (s_broker_t *self)
{
    if (drover_connwatch_deadline (self->connwatch) == -1)
        return;
    //  Hear of closes first, so a descriptor reused since is not cut
    for (int index = 0; index < S_MONITORS; index++)
        s_handle_monitor (self, index);
    drover_connwatch_cut (self->connwatch, zclock_mono ());
}

static void
    s_route_command (s_broker_t *self, const char *command, zmsg_t *msg);

//  A send to a worker was refused (peer gone): the main's own I/O outcome,
//  said as UNSENT worker route to whoever the routing table says hears it
static void
s_send_refused (s_broker_t *self, const char *worker, const byte *route, size_t route_size)
{
    self->refused++;
    if (*worker) {
        zsys_warning ("broker: send refused worker=%s: %s", worker, zmq_strerror (zmq_errno ()));
        zmsg_t *unsent = zmsg_new ();
        zmsg_addstr (unsent, worker);
        zmsg_addmem (unsent, route, route_size);    //  the connection it was refused on
        s_route_command (self, "UNSENT", unsent);
        zmsg_destroy (&unsent);
    }
}

//  SEND route payload worker: deliver to a peer
static void
s_send_record (s_broker_t *self, drover_record_t *record)
{
    if (drover_broker_send_to_peer (self, drover_record_route (record), record->route_size,
                        &record->payload) == -1)
        s_send_refused (self, record->worker, drover_record_route (record), record->route_size);
}

//  A record an actor said, routed by the table: SEND to a peer, CHANGE
//  and REPLY to the store, RESTORE to assign (moved, not copied: each has
//  one hearer); QUEUE, TAKE and FREE go on the link, MSG is the main's to say
static void
s_handle_actor_record (void *arg, drover_record_t *record)
{
    s_broker_t *self = (s_broker_t *) arg;
    if (self->verbose)
        zsys_debug ("broker: route command=%s", drover_record_word (record));
    int targets = self->record_targets [record->kind];
    if (targets == S_PEER)
        s_send_record (self, record);
    else
    if (targets && __builtin_popcount (targets) == 1 && (targets & (S_TO (S_ACTORS) - 1)))
        drover_outbox_move (self->outboxes [__builtin_ctz (targets)], record, record->kind);
    else {
        zsys_error ("broker: actor said record=%s on its pipe", drover_record_word (record));
        assert (false);         //  our own bug: the routing table says who hears it
    }
}

//  PUBLISH topic body owner: to the event stream
static void
s_forward_event (s_broker_t *self, zmsg_t *msg)
{
    char *topic = zmsg_popstr (msg);
    zframe_t *body = zmsg_pop (msg);
    char *owner = zmsg_popstr (msg);
    assert (topic && body && owner);    //  an actor that says less is our bug
    self->publisher_sent = true;
    drover_eventstream_publish (self->events, topic, &body, owner);
    zstr_free (&topic);
    zstr_free (&owner);
}

//  Subscriptions on the event stream: when the first comes, or the last
//  goes, tell every actor whether to say events at all (an event nobody
//  reads still costs its encoding); when events are kept (durability not
//  off), every actor says them and only the store is told, for whether to
//  publish them
static void
s_handle_subscriptions (s_broker_t *self)
{
    bool changed = drover_eventstream_read (self->events);
    drover_poller_drained (self->poller, S_PUBLISHER_AT);
    if (changed) {
        bool on = drover_eventstream_on (self->events);
        zsys_info ("broker: events %s", on? "on: someone subscribed": "off: no subscribers");
        for (int index = 0; index < S_ACTORS; index++)
            if (self->actors [index] && (index == S_STORE || !self->durable))
                drover_outbox_say (self->outboxes [index], "s4", "EVENTS", on? 1: 0);
    }
}

//  Tell each target actor the command (word, then msg's frames): copies
//  to all but the last, which gets the frames themselves
static void
s_forward_to_actors (s_broker_t *self, const char *command, zmsg_t *msg, int targets)
{
    targets &= self->started;   //  the pool may not run
    int last = -1;
    for (int index = 0; index < S_ACTORS; index++)
        if (targets & S_TO (index))
            last = index;
    for (int index = 0; index < last; index++)
        if (targets & S_TO (index)) {
            zmsg_t *copy = zmsg_dup (msg);
            zmsg_pushstr (copy, command);
            drover_outbox_add (self->outboxes [index], &copy);
        }
    if (last == -1)
        return;                 //  nobody runs to hear it
    zmsg_t *moved = zmsg_new ();
    zmsg_addstr (moved, command);
    zframe_t *frame;
    while ((frame = zmsg_pop (msg)))
        zmsg_append (moved, &frame);
    drover_outbox_add (self->outboxes [last], &moved);
}

//  LOADED, FATAL or FENCED from the store: serving may start, the broker
//  stops, or a newer leader holds the state (logged: the HA code acts on it);
//  then to the actors that hear it too
static void
s_handle_start_up (s_broker_t *self, const char *command, zmsg_t *msg, int targets)
{
    if (streq (command, "LOADED"))
        self->loaded = true;
    else
    if (streq (command, "FENCED")) {
        zstr_free (&self->fenced);
        self->fenced = zmsg_popstr (msg);
        self->stop = true;
        zsys_error ("broker: stops serving: %s", self->fenced? self->fenced: "fenced");
    }
    else {
        zstr_free (&self->fatal);
        self->fatal = zmsg_popstr (msg);
    }
    if (targets)
        s_forward_to_actors (self, command, msg, targets);
}

//  METRICS round: the main's own counts, answered to the metrics actor as
//  an actor would; then to the actors that answer too
static void
s_answer_metrics (s_broker_t *self, const char *command, zmsg_t *msg, int targets)
{
    zframe_t *round = zmsg_first (msg);
    assert (round);             //  the metrics actor says it
    drover_metrics_t *counts = drover_metrics_new ();
    for (int id = DROVER_METRIC_BAD_400; id <= DROVER_METRIC_BAD_302; id++)
        drover_metrics_set (counts, (drover_metric_t) id, self->answered [id]);
    drover_metrics_set (counts, DROVER_METRIC_LEVEL_FITTED,
                          drover_peerlevels_fitted (self->levels));
    drover_metrics_set (counts, DROVER_METRIC_LEVEL_UNSENT,
                          drover_peerlevels_unsent (self->levels));
    drover_connwatch_metrics (self->connwatch, counts);
    drover_metrics_say (counts, self->outboxes [S_METRICS],
                          drover_actor_number (zframe_data (round), zframe_size (round)));
    drover_metrics_destroy (&counts);
    s_forward_to_actors (self, command, msg, targets);
}

//  Route a command (its word, then msg's frames) by the routing table: to
//  the event stream, or to the actors that hear it
static void
s_route_command (s_broker_t *self, const char *command, zmsg_t *msg)
{
    int targets = drover_broker_command_targets (command);
    if (targets & S_OTHERS)
        targets &= ~(S_OTHERS | (self->speaker >= 0? S_TO (self->speaker): 0));
    if (self->verbose)
        zsys_debug ("broker: route command=%s", command);
    if (targets == S_PUBLISH)
        s_forward_event (self, msg);
    else
    if (targets & S_SELF)
        s_handle_start_up (self, command, msg, targets & ~S_SELF);
    else
    if (targets & S_COUNTS)
        s_answer_metrics (self, command, msg, targets & ~S_COUNTS);
    else
    if (targets && (targets & (S_PEER | S_LINK)) == 0)
        s_forward_to_actors (self, command, msg, targets);
    else {
        zsys_error ("broker: command=%s is not for the main to route", command);
        assert (false);         //  our own bug: the routing table says who hears it
    }
}

//  Handle one control command an actor said (drover_outbox_receive calls this)
static void
s_handle_actor_command (void *arg, zmsg_t *msg)
{
    s_broker_t *self = (s_broker_t *) arg;
    char command [16];
    drover_actor_pop_text (msg, command, sizeof command);
    s_route_command (self, command, msg);
}

//  Send what this turn held for each actor, and note the sends: a send may
//  take in a socket's pending commands, so the poller reads it again
static void
s_flush_turn (s_broker_t *self)
{
    for (int index = 0; index < S_ACTORS; index++)
        if (self->actors [index])
            drover_actor_flush (self->poller, (size_t) index, self->outboxes [index],
                               zactor_sock (self->actors [index]));
    if (self->router_sent)
        drover_poller_sent (self->poller, S_ROUTER_AT);
    if (self->publisher_sent)
        drover_poller_sent (self->poller, S_PUBLISHER_AT);
    self->router_sent = self->publisher_sent = false;
}

//  Start-up: route what the store says (every kept task, RESTORE, to
//  assign) and what assign says (RESTORED, to the store, which waits for it
//  to go on) until the store says LOADED; meanwhile the ROUTER is not read,
//  so no peer is served from a half-loaded state. Returns 0, or -1 if the
//  state cannot be read (FATAL: logged) or the broker was interrupted.
static int
s_broker_load (s_broker_t *self)
{
    zsock_t *actors [] = { zactor_sock (self->actors [S_STORE]),
                           zactor_sock (self->actors [S_ASSIGN]) };
    zmq_pollitem_t items [] = { { zsock_resolve (actors [0]), 0, ZMQ_POLLIN, 0 },
                                { zsock_resolve (actors [1]), 0, ZMQ_POLLIN, 0 } };
    while (!self->loaded && !self->fatal && !zsys_interrupted) {
        if (zmq_poll (items, 2, -1) == -1)
            return -1;          //  interrupted
        for (int index = 0; index < 2; index++) {
            self->speaker = index? S_ASSIGN: S_STORE;
            while (!self->loaded
               &&  drover_outbox_receive (actors [index], ZMQ_DONTWAIT, s_handle_actor_command,
                                          s_handle_actor_record, self) != -1)
                ;
        }
        self->speaker = -1;
        s_flush_turn (self);
    }
    if (self->fatal)
        zsys_error ("broker: cannot start: %s", self->fatal);
    return self->loaded? 0: -1;
}

//  Keys gone from the keys directory: their messages are refused from now
//  on (drover_guard_admit); their workers are told to health, to be LOST
static void
s_end_revoked (s_broker_t *self)
{
    size_t revoked = drover_guard_refresh (self->guard, zclock_mono ());
    for (size_t index = 0; index < revoked; index++) {
        zmsg_t *msg = zmsg_new ();
        zmsg_addstr (msg, drover_guard_revoked (self->guard, index));
        s_route_command (self, "REVOKED", msg);
        zmsg_destroy (&msg);
    }
}

//  What the ROUTER holds while no actor runs goes to the standby function
//  (or is left unread, alone: nothing serves it)
static void
s_handle_router_idle (s_broker_t *self)
{
    if (self->standby_fn)
        self->standby_fn (self->standby_arg, self->router);
    if (!(zsock_events (self->router) & ZMQ_POLLIN))
        drover_poller_drained (self->poller, S_ROUTER_AT);
}

//  Serve until interrupted or told to stop. Each turn handles everything
//  ready: what the actors said, then up to a batch from the ROUTER (or a
//  few msec of it, whichever comes first); what that tells each actor goes
//  out as one BATCH per actor at the end of the turn.
int
drover_broker_run (drover_broker_t *self)
{
    self->stop = false;
    while (!zsys_interrupted && !self->stop) {
        int timeout = drover_actor_poll_timeout (drover_connwatch_deadline (self->connwatch),
                                                zclock_mono ());
        if (drover_guard_secure (self->guard)
        &&  (timeout == -1 || timeout > DROVER_GUARD_REFRESH))
            timeout = DROVER_GUARD_REFRESH;
        if (self->wake_at) {
            int64_t left = self->wake_at - zclock_mono ();
            left = left < 0? 0: left;
            if (timeout == -1 || timeout > left)
                timeout = (int) left;
        }
        if (drover_poller_wait (self->poller, timeout) == -1)
            break;              //  SIGINT or SIGTERM
        s_end_revoked (self);
        for (int index = 0; index < S_MONITORS; index++)
            if (drover_poller_readable (self->poller, S_MONITOR_AT + index))
                s_handle_monitor (self, index);
        if (drover_poller_readable (self->poller, S_PUBLISHER_AT))
            s_handle_subscriptions (self);
        for (int index = 0; index < S_ACTORS; index++) {
            self->speaker = index;
            if (self->actors [index]
            &&  drover_actor_drain (self->poller, (size_t) index,
                                   zactor_sock (self->actors [index]), S_ACTOR_BATCHES,
                                   s_handle_actor_command, s_handle_actor_record, self) == -1)
                return 0;       //  the context is ending
        }
        self->speaker = -1;
        if (drover_poller_readable (self->poller, S_ROUTER_AT)) {
            if (self->loaded)
                drover_broker_read_peers (self);
            else
                s_handle_router_idle (self);
        }
        s_flush_turn (self);
        s_cut_connections (self);
        bool woken = self->wake_at && zclock_mono () >= self->wake_at;
        if (woken)
            self->wake_at = 0;
        if (self->watched && (woken || drover_poller_readable (self->poller, S_WATCH_AT))) {
            self->watch_fn (self->watch_arg, self->watched);
            if (!(zsock_events (self->watched) & ZMQ_POLLIN))
                drover_poller_drained (self->poller, S_WATCH_AT);
        }
    }
    return self->stop? 1: 0;
}

//  Start the actors and load the state, held with fence
int
drover_broker_start (drover_broker_t *self, uint64_t fence)
{
    zstr_free (&self->fenced);
    if (drover_broker_start_actors (self, fence) || s_broker_load (self)) {
        drover_broker_halt (self);
        return -1;
    }
    drover_connwatch_start (self->connwatch, false);    //  sized past what the actors opened
    drover_connwatch_serve (self->connwatch, true);     //  silent connections are cut now
    drover_config_t *config = self->config;
    zsys_notice ("broker: ready endpoint=%s events=%s%s", config->endpoint, config->events,
                 fence? " (leader)": "");
    zsys_info ("broker: bounds peer_messages=%d peer_bytes=%u max_queued=%u max_queued_bytes=%u",
               s_peer_hwm (config), config->peer_bytes, config->max_queued,
               config->max_queued_bytes);
    return 0;
}

//  Keep the broker's threads on the CPUs of broker/cpus, before any starts,
//  and log where it runs. Returns 0, or -1 after saying why.
static int
s_keep_to_cpus (const char *cpus)
{
    char *error = NULL;
    if (drover_cpus_apply (cpus, &error)) {
        fprintf (stderr, "drover broker: broker/cpus: %s\n", error);
        zstr_free (&error);
        return -1;
    }
    char text [256];
    drover_cpus_describe_own (text, sizeof text);
    zsys_info ("broker: cpus %s%s", text, *cpus? " (broker/cpus)": "");
    return 0;
}

//  Run `drover broker`: alone, or one of several (drover_ha)
int
drover_broker_main (int argc, char **argv)
{
    drover_config_t *config = drover_config_new ();
    bool verbose = false;
    int status = 2;
    if (drover_brokerflags_parse (config, argc, argv, &verbose, &status)) {
        drover_config_destroy (&config);
        return status;          //  0 after --help or --print-config
    }
    zsys_set_logident ("drover-broker");
    drover_log_init (STDOUT_FILENO);    //  dates in ISO 8601 UTC
    char *idle = drover_config_idle (config);
    if (idle)
        zsys_warning ("broker: settings that do nothing: %s", idle);
    zstr_free (&idle);
    if (s_keep_to_cpus (config->cpus)) {
        drover_config_destroy (&config);
        return 2;
    }
    //  Actor pipes are unbounded: a full pipe would block the main while
    //  the actor blocks on the main. External input is bounded instead.
    zsys_set_pipehwm (0);
    if (*config->ha.etcd) {
        status = drover_ha_main (config, verbose);
        drover_config_destroy (&config);
        return status;
    }
    drover_broker_t *broker = drover_broker_new (config, verbose);
    if (!broker || drover_broker_start (broker, 0)) {
        drover_broker_destroy (&broker);
        drover_config_destroy (&config);
        return 1;
    }
    drover_broker_run (broker);
    zsys_notice ("broker: stopping malformed=%" PRIu64 " refused=%" PRIu64 " forbidden=%" PRIu64,
                 broker->malformed, broker->refused, drover_guard_refused (broker->guard));
    drover_broker_destroy (&broker);
    drover_config_destroy (&config);
    return 0;
}
