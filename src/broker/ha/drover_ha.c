/*  =========================================================================
    drover_ha - one broker of several: a leader elected through etcd, the
    others standing by (see the header)
    =========================================================================
*/

#include "drover_ha.h"
#include "drover_broker.h"
#include "drover_standby.h"
#include "drover_elector_actor.h"
#include "drover_cell_actor.h"
#include "drover_queuespec.h"
#include "drover_queuetable.h"

typedef struct {
    drover_config_t *config;    //  settings (borrowed)
    drover_broker_t *broker;    //  sockets, and the actors while leading
    drover_standby_t *standby;  //  redirects while not leading
    zactor_t *elector;          //  the campaign in etcd
    uint64_t token;             //  the fencing token while leading, else 0
    int backoff;                //  msec before campaigning again after a failed start
    drover_queuespec_t *queues; //  the named queues this broker offers
    zactor_t **cells;           //  one per queue, in the spec's order
    drover_queuetable_t *table; //  every named queue's placement, as the elector said it
} s_ha_t;

//  The next backoff after a failed start: min the first time, then
//  doubling, to max at most
int
drover_ha_next_backoff (int backoff, uint32_t min, uint32_t max)
{
    int64_t next = backoff > 0? (int64_t) backoff * 2: (int64_t) min;
    return (int) (next > (int64_t) max? max: next);
}

//  Check the HA timers that go in pairs: each bound within its partner
int
drover_ha_check_timers (const drover_config_t *config, char **error_p)
{
    const drover_haconfig_t *ha = &config->ha;
    char *error = NULL;
    if (ha->retry_min > ha->retry_max)
        error = zsys_sprintf ("ha/retry-min (%u msec) must not be above ha/retry-max (%u msec)",
                              ha->retry_min, ha->retry_max);
    else
    if (ha->backoff_min > ha->backoff_max)
        error = zsys_sprintf ("ha/start-backoff-min (%u msec) must not be above "
                              "ha/start-backoff-max (%u msec)", ha->backoff_min, ha->backoff_max);
    else
    if (ha->safety_check < ha->check_max)
        error = zsys_sprintf ("ha/safety-check (%u msec) must not be below ha/check-max "
                              "(%u msec): the watch's safety net would poll faster than the poll",
                              ha->safety_check, ha->check_max);
    if (error_p)
        *error_p = error;
    else
        zstr_free (&error);
    return error? -1: 0;
}

//  The ROUTER while no actor runs: every request gets a REDIRECT
static void
s_standby_read (void *arg, zsock_t *router)
{
    (void) router;
    s_ha_t *self = (s_ha_t *) arg;
    drover_standby_handle (self->standby);
}

//  Stop serving (the actors halt; peers are redirected from now on)
static void
s_step_down (s_ha_t *self, const char *reason)
{
    if (!self->token)
        return;                 //  not leading
    drover_broker_halt (self->broker);
    self->token = 0;
    zsys_warning ("ha: stepped down name=%s: %s", self->config->ha.name, reason);
    drover_broker_publish (self->broker, "broker.standby", self->config->ha.name, reason);
}

//  Elected: start the actors on the shared state, held with token. If
//  they cannot start (the database is unreachable, refused, or holds a
//  newer token), give the election up so that another broker may try,
//  and campaign again only after a backoff: a broker that cannot reach
//  the database must not be elected again and again at once.
static void
s_lead (s_ha_t *self, uint64_t token)
{
    if (self->token)
        s_step_down (self, "elected again");
    zsys_notice ("ha: elected name=%s token=%" PRIu64 ": loading the state", self->config->ha.name,
                 token);
    if (drover_broker_start (self->broker, token)) {
        self->backoff = drover_ha_next_backoff (self->backoff, self->config->ha.backoff_min,
                                                self->config->ha.backoff_max);
        zsys_error ("ha: cannot serve as leader name=%s: resigning, campaigning again in %d ms",
                    self->config->ha.name, self->backoff);
        zstr_send (self->elector, "RESIGN");
        char delay [16];
        snprintf (delay, sizeof delay, "%d", self->backoff);
        zstr_sendx (self->elector, "CAMPAIGN", delay, NULL);
        return;
    }
    self->backoff = 0;
    self->token = token;
    drover_standby_set_leader (self->standby, self->config->ha.name, self->config->ha.advertise);
    char reason [64];
    snprintf (reason, sizeof reason, "token %" PRIu64, token);
    drover_broker_publish (self->broker, "broker.leader", self->config->ha.name, reason);
}

//  Note a queue's placement in the table, and give the table to whatever
//  answers QUEUES here: the broker, its standby, every cell
static void
s_table_put (s_ha_t *self, const char *name, const char *owner, const char *endpoint,
             uint64_t token, const char *endpoints)
{
    drover_queuetable_put (self->table, name, owner, endpoint, token, endpoints);
    drover_broker_set_queues (self->broker, self->table);
    drover_standby_set_queues (self->standby, self->table);
    for (size_t index = 0; self->cells [index]; index++)
        drover_cell_set_queues (self->cells [index], self->table);
}

//  QUEUE name owner owner_endpoint token endpoints: the placement of a
//  queue changed; its cell here (if this broker offers it) serves when
//  the owner is this broker, else redirects to the owner
static void
s_handle_queue (s_ha_t *self, zmsg_t *msg)
{
    char *name = zmsg_popstr (msg);
    char *owner = zmsg_popstr (msg);
    char *endpoint = zmsg_popstr (msg);
    char *token = zmsg_popstr (msg);
    char *endpoints = zmsg_popstr (msg);
    if (token && endpoints)
        s_table_put (self, name, owner, endpoint, strtoull (token, NULL, 10), endpoints);
    size_t index = 0;
    size_t size = drover_queuespec_size (self->queues);
    while (name && index < size && strneq (drover_queuespec_name (self->queues, index), name))
        index++;
    if (token && index < size) {
        uint64_t fence = strtoull (token, NULL, 10);
        zsys_info ("ha: queue %s placed on %s token=%" PRIu64, name, *owner? owner: "(none)",
                   fence);
        if (fence && streq (owner, self->config->ha.name))
            zstr_sendx (self->cells [index], "SERVE", token, NULL);
        else
            zstr_sendx (self->cells [index], "STANDBY", owner, endpoint, NULL);
    }
    zstr_free (&name);
    zstr_free (&owner);
    zstr_free (&endpoint);
    zstr_free (&token);
    zstr_free (&endpoints);
}

//  One message of the elector: LEADER token, FOLLOW name endpoint, DEPOSED
//  reason, QUEUE ... (anything else is logged and dropped)
static void
s_handle_elector (s_ha_t *self, zmsg_t *msg)
{
    char *word = zmsg_popstr (msg);
    if (word && streq (word, "QUEUE")) {
        s_handle_queue (self, msg);
        zstr_free (&word);
        return;
    }
    char *first = zmsg_popstr (msg);
    char *second = zmsg_popstr (msg);
    if (word && streq (word, "LEADER") && first)
        s_lead (self, strtoull (first, NULL, 10));
    else
    if (word && streq (word, "FOLLOW") && first && second) {
        drover_standby_set_leader (self->standby, first, second);
        if (self->token && *first && strneq (first, self->config->ha.name))
            s_step_down (self, "another broker leads");
        zsys_info ("ha: following name=%s endpoint=%s", *first? first: "(none yet)", second);
    }
    else
    if (word && streq (word, "DEPOSED"))
        s_step_down (self, first? first: "deposed");
    else
        zsys_warning ("ha: the elector said %s", word? word: "nothing");
    zstr_free (&word);
    zstr_free (&first);
    zstr_free (&second);
}

//  The elector's pipe may hold messages: handle every one there is
static void
s_elector_readable (void *arg, zsock_t *pipe)
{
    s_ha_t *self = (s_ha_t *) arg;
    while (zsock_events (pipe) & ZMQ_POLLIN) {
        zmsg_t *msg = zmsg_recv (pipe);
        if (!msg)
            break;
        s_handle_elector (self, msg);
        zmsg_destroy (&msg);
    }
}

//  Start a cell for every named queue offered: 0, or -1 if one cannot bind
static int
s_start_cells (s_ha_t *self, bool verbose)
{
    char *error = NULL;
    self->queues = drover_queuespec_new (self->config->ha.queues, &error);
    assert (self->queues);      //  the flags were checked
    size_t size = drover_queuespec_size (self->queues);
    self->cells = (zactor_t **) zmalloc ((size + 1) * sizeof (zactor_t *));
    for (size_t index = 0; index < size; index++) {
        char *state = drover_queuespec_state (self->queues, index, self->config->state_dir);
        char *schema = drover_queuespec_schema (self->queues, index);
        drover_cell_args_t args = {
            .config = self->config,
            .queue = drover_queuespec_name (self->queues, index),
            .port = drover_queuespec_port (self->queues, index),
            .state = state,
            .schema = schema,
            .verbose = verbose
        };
        self->cells [index] = drover_cell_new (&args);
        zstr_free (&state);
        zstr_free (&schema);
        if (!self->cells [index])
            return -1;
    }
    return 0;
}

//  Stop every cell (each keeps its state first)
static void
s_stop_cells (s_ha_t *self)
{
    for (size_t index = 0; self->cells && self->cells [index]; index++)
        zactor_destroy (&self->cells [index]);
    free (self->cells);
    self->cells = NULL;
    drover_queuespec_destroy (&self->queues);
}

//  Run the broker as one of several until interrupted
int
drover_ha_main (drover_config_t *config, bool verbose, drover_reload_t *reload)
{
    s_ha_t self = { .config = config };
    self.broker = drover_broker_new (config, verbose);
    if (!self.broker)
        return 1;
    if (s_start_cells (&self, verbose)) {
        s_stop_cells (&self);
        drover_broker_destroy (&self.broker);
        return 1;
    }
    self.table = drover_queuetable_new (config->ha.strategy);
    drover_broker_set_queues (self.broker, self.table);
    char *offer = drover_queuespec_offer (self.queues, config->ha.advertise);
    self.standby = drover_standby_new (drover_broker_router (self.broker),
                                        drover_broker_levels (self.broker));
    drover_standby_set_name (self.standby, config->ha.name);
    drover_standby_set_queues (self.standby, self.table);
    drover_broker_set_standby (self.broker, s_standby_read, &self);
    drover_elector_actor_args_t args = {
        .etcd = config->ha.etcd,
        .prefix = config->ha.prefix,
        .name = config->ha.name,
        .advertise = config->ha.advertise,
        .ttl = config->ha.lease_ttl,
        .queues = offer,
        .strategy = config->ha.strategy,
        .verbose = verbose,
        .check_max = config->ha.check_max,
        .retry_min = config->ha.retry_min,
        .retry_max = config->ha.retry_max,
        .safety_check = config->ha.safety_check,
        .poll_only = streq (config->ha.watch, "off")
    };
    self.elector = zactor_new (drover_elector_actor, &args);
    zstr_free (&offer);
    drover_broker_watch (self.broker, zactor_sock (self.elector), s_elector_readable, &self);
    drover_broker_set_reload (self.broker, reload, true);
    zsys_notice ("ha: standing by name=%s endpoint=%s etcd=%s: campaigning", config->ha.name,
                 config->ha.advertise, config->ha.etcd);
    while (drover_broker_run (self.broker) && drover_broker_fenced (self.broker)) {
        //  The store was refused by fencing: a newer leader holds the state
        s_step_down (&self, drover_broker_fenced (self.broker));
        zstr_send (self.elector, "RESIGN");
        zstr_send (self.elector, "CAMPAIGN");
    }
    //  The state first, then the lease: a standby takes over only once
    //  everything this broker acknowledged is kept
    s_step_down (&self, "shutting down");
    s_stop_cells (&self);
    zactor_destroy (&self.elector);
    drover_standby_destroy (&self.standby);
    drover_broker_destroy (&self.broker);
    drover_queuetable_destroy (&self.table);
    zsys_notice ("ha: stopped name=%s", config->ha.name);
    return 0;
}
