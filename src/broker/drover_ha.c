/*  =========================================================================
    drover_ha - one broker of several: a leader elected through etcd, the
    others standing by (see the header)
    =========================================================================
*/

#include "drover_ha.h"
#include "drover_broker.h"
#include "drover_standby.h"
#include "drover_elector.h"

typedef struct {
    drover_config_t *config;    //  settings (borrowed)
    drover_broker_t *broker;    //  sockets, and the actors while leading
    drover_standby_t *standby;  //  redirects while not leading
    zactor_t *elector;          //  the campaign in etcd
    uint64_t token;             //  the fencing token while leading, else 0
    int backoff;                //  msec before campaigning again after a failed start
} s_ha_t;

//  Backoff after a failed start: from 1 s, doubling, to 30 s at most
#define S_BACKOFF_MIN   1000
#define S_BACKOFF_MAX   30000

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
        self->backoff = self->backoff? self->backoff * 2: S_BACKOFF_MIN;
        if (self->backoff > S_BACKOFF_MAX)
            self->backoff = S_BACKOFF_MAX;
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

//  One message of the elector: LEADER token, FOLLOW name endpoint, DEPOSED
//  reason (anything else is logged and dropped)
static void
s_handle_elector (s_ha_t *self, zmsg_t *msg)
{
    char *word = zmsg_popstr (msg);
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

//  Run the broker as one of several until interrupted
int
drover_ha_main (drover_config_t *config, bool verbose)
{
    s_ha_t self = { .config = config };
    self.broker = drover_broker_new (config, verbose);
    if (!self.broker)
        return 1;
    self.standby = drover_standby_new (drover_broker_router (self.broker));
    drover_broker_set_standby (self.broker, s_standby_read, &self);
    drover_elector_args_t args = {
        .etcd = config->ha.etcd,
        .prefix = config->ha.prefix,
        .name = config->ha.name,
        .advertise = config->ha.advertise,
        .ttl = config->ha.lease_ttl,
        .verbose = verbose
    };
    self.elector = zactor_new (drover_elector_actor, &args);
    drover_broker_watch (self.broker, zactor_sock (self.elector), s_elector_readable, &self);
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
    zactor_destroy (&self.elector);
    drover_standby_destroy (&self.standby);
    drover_broker_destroy (&self.broker);
    zsys_notice ("ha: stopped name=%s", config->ha.name);
    return 0;
}
