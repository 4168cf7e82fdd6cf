/*  =========================================================================
    drover_cell_actor - one named queue this broker offers: a broker of its own in
    a thread of its own (see the header)
    =========================================================================
*/

#include "drover_cell_actor.h"
#include "drover_broker.h"
#include "drover_standby.h"
#include "drover_queuespec.h"
#include "drover_actor.h"
#include "drover_ha.h"
#include <libpq-fe.h>

//  Seconds a connection to make the schema may take
#define S_CONNECT_TIMEOUT   "5"

typedef struct {
    zsock_t *pipe;              //  commands from the HA main
    drover_config_t *config;    //  the cell's own settings (owned)
    drover_broker_t *broker;    //  its sockets, and its actors while serving
    drover_standby_t *standby;  //  redirects while not serving
    char *queue;                //  the queue's name
    char *schema;               //  its schema, quoted
    uint64_t token;             //  the token served with, 0 while not serving
    uint64_t wanted;            //  SERVE's token, 0 after STANDBY
    int backoff;                //  msec before the next try after a failed start
    int64_t retry_at;           //  mono msec of that try, 0 none due
    drover_actor_flags_t flags; //  VERBOSE, $TERM heard
} s_cell_t;

//  Replace a string setting
static void
s_set (char **field, char *value)
{
    assert (value);
    zstr_free (field);
    *field = value;
}

//  The cell's settings: its host's, on its own ports and state, without
//  the host's metrics, pool and queues
static drover_config_t *
s_cell_config (drover_cell_args_t *args)
{
    drover_config_t *config = drover_config_dup (args->config);
    s_set (&config->endpoint, drover_queuespec_endpoint (args->config->endpoint, args->port));
    s_set (&config->events, drover_queuespec_endpoint (args->config->events, args->port + 1));
    s_set (&config->metrics, strdup (""));
    s_set (&config->state_dir, strdup (args->state));
    s_set (&config->ha.queues, strdup (""));
    for (size_t index = 0; index < config->pool.ntypes; index++)
        zstr_free (&config->pool.types [index].labels);
    config->pool.ntypes = 0;
    return config;
}

//  Make the queue's schema if it is missing: 0, or -1 (logged)
static int
s_ensure_schema (s_cell_t *self)
{
    const char *keys [] = { "dbname", "connect_timeout", NULL };
    const char *values [] = { self->config->state_dir, S_CONNECT_TIMEOUT, NULL };
    PGconn *conn = PQconnectdbParams (keys, values, 1);
    int rc = -1;
    if (PQstatus (conn) == CONNECTION_OK) {
        char *sql = zsys_sprintf ("CREATE SCHEMA IF NOT EXISTS %s", self->schema);
        PGresult *result = PQexec (conn, sql);
        const char *state = PQresultErrorField (result, PG_DIAG_SQLSTATE);
        //  Two brokers making it at once: one of them is told it exists
        if (PQresultStatus (result) == PGRES_COMMAND_OK
        ||  (state && (streq (state, "42P06") || streq (state, "23505"))))
            rc = 0;
        else
            zsys_error ("cell %s: cannot make schema %s: %s", self->queue, self->schema,
                        PQresultErrorMessage (result));
        PQclear (result);
        zstr_free (&sql);
    }
    else
        zsys_error ("cell %s: cannot reach the database: %s", self->queue,
                    PQerrorMessage (conn));
    PQfinish (conn);
    return rc;
}

//  Stop serving (if it did)
static void
s_halt (s_cell_t *self, const char *why)
{
    if (!self->token)
        return;
    drover_broker_halt (self->broker);
    self->token = 0;
    zsys_notice ("cell %s: stopped serving: %s", self->queue, why);
}

//  Serve with the wanted token; a failure tries again after the backoff
static void
s_serve (s_cell_t *self)
{
    self->retry_at = 0;
    if (!self->wanted || self->token == self->wanted)
        return;
    s_halt (self, "a newer token");
    zsys_notice ("cell %s: placed here token=%" PRIu64 ": loading the state", self->queue,
                 self->wanted);
    if (s_ensure_schema (self) == 0 && drover_broker_start (self->broker, self->wanted) == 0) {
        self->token = self->wanted;
        self->backoff = 0;
        zsys_notice ("cell %s: serving endpoint=%s token=%" PRIu64, self->queue,
                     self->config->endpoint, self->token);
        return;
    }
    //  From ha/start-backoff-min, doubling, to ha/start-backoff-max
    self->backoff = drover_ha_next_backoff (self->backoff, self->config->ha.backoff_min,
                                            self->config->ha.backoff_max);
    zsys_error ("cell %s: cannot serve: trying again in %d ms", self->queue, self->backoff);
    self->retry_at = zclock_mono () + self->backoff;
    drover_broker_wake (self->broker, self->retry_at);
}

//  The table a TABLE message hands over (ours), or NULL
static drover_queuetable_t *
s_table_of (zmsg_t *msg)
{
    zframe_t *frame = zmsg_pop (msg);
    drover_queuetable_t *table = NULL;
    if (frame && zframe_size (frame) == sizeof table)
        memcpy (&table, zframe_data (frame), sizeof table);
    zframe_destroy (&frame);
    return table;
}

//  One command of the HA main (drover_outbox_receive calls this)
static void
s_handle_command (void *arg, zmsg_t *msg)
{
    s_cell_t *self = (s_cell_t *) arg;
    char command [16];
    drover_actor_pop_text (msg, command, sizeof command);
    if (self->flags.verbose)
        zsys_debug ("cell %s: command=%s", self->queue, command);
    if (streq (command, "TABLE")) {
        drover_queuetable_t *table = s_table_of (msg);
        if (table) {
            drover_broker_set_queues (self->broker, table);
            drover_standby_set_queues (self->standby, table);
        }
        drover_queuetable_destroy (&table);
        return;
    }
    char *first = zmsg_popstr (msg);
    char *second = zmsg_popstr (msg);
    if (streq (command, "SERVE") && first) {
        self->wanted = strtoull (first, NULL, 10);
        self->backoff = 0;
        s_serve (self);
    }
    else
    if (streq (command, "STANDBY") && first && second) {
        self->wanted = 0;
        self->retry_at = 0;
        drover_broker_wake (self->broker, 0);
        s_halt (self, *first? "placed on another broker": "this broker's session is unsure");
        drover_standby_set_leader (self->standby, first, second);
    }
    else
    if (drover_actor_handle_common (&self->flags, command, msg)) {
        if (self->flags.stopping)
            drover_broker_stop (self->broker);      //  $TERM
    }
    else
        zsys_warning ("cell %s: unknown command %s", self->queue, command);
    zstr_free (&first);
    zstr_free (&second);
}

//  The pipe may hold commands (or the retry is due): handle them. The
//  cell is a broker, so its loop is the broker's (drover_broker_run),
//  which watches the pipe; commands are read as an actor reads them
static void
s_pipe_readable (void *arg, zsock_t *pipe)
{
    s_cell_t *self = (s_cell_t *) arg;
    while (!self->flags.stopping && (zsock_events (pipe) & ZMQ_POLLIN))
        if (drover_outbox_receive (pipe, ZMQ_DONTWAIT, s_handle_command, NULL, self) == -1)
            break;
    if (!self->flags.stopping && self->retry_at && zclock_mono () >= self->retry_at)
        s_serve (self);         //  woken for the retry
}

//  The ROUTER while not serving: every request gets a REDIRECT
static void
s_standby_read (void *arg, zsock_t *router)
{
    (void) router;
    drover_standby_handle (((s_cell_t *) arg)->standby);
}

//  The actor
void
drover_cell_actor (zsock_t *pipe, void *args_)
{
    drover_cell_args_t *args = (drover_cell_args_t *) args_;
    s_cell_t self = { .pipe = pipe, .config = s_cell_config (args) };
    self.queue = strdup (args->queue);
    self.schema = strdup (args->schema);
    self.broker = drover_broker_new (self.config, args->verbose);
    zsock_signal (pipe, 0);     //  args are copied: zactor_new may return
    zstr_send (pipe, self.broker? "READY": "FAILED");
    if (self.broker) {
        self.standby = drover_standby_new (drover_broker_router (self.broker),
                                            drover_broker_levels (self.broker));
        drover_broker_set_standby (self.broker, s_standby_read, &self);
        drover_broker_watch (self.broker, pipe, s_pipe_readable, &self);
        zsys_info ("cell %s: standing by endpoint=%s events=%s", self.queue,
                   self.config->endpoint, self.config->events);
        while (!self.flags.stopping && drover_broker_run (self.broker)) {
            const char *fenced = drover_broker_fenced (self.broker);
            if (fenced) {
                //  A newer owner holds the queue's state: the next placement names it
                s_halt (&self, fenced);
                self.wanted = 0;
            }
        }
        s_halt (&self, "shutting down");
        //  Tables handed over but not read (a SIGTERM ended the loop first)
        zmsg_t *msg;
        while ((zsock_events (pipe) & ZMQ_POLLIN) && (msg = zmsg_recv (pipe))) {
            char *command = zmsg_popstr (msg);
            if (command && streq (command, "TABLE")) {
                drover_queuetable_t *table = s_table_of (msg);
                drover_queuetable_destroy (&table);
            }
            zstr_free (&command);
            zmsg_destroy (&msg);
        }
    }
    drover_standby_destroy (&self.standby);
    drover_broker_destroy (&self.broker);
    drover_config_destroy (&self.config);
    zstr_free (&self.queue);
    zstr_free (&self.schema);
}

//  Start a cell, or NULL if it could not bind
zactor_t *
drover_cell_new (drover_cell_args_t *args)
{
    zactor_t *cell = zactor_new (drover_cell_actor, args);
    char *word = zstr_recv (cell);
    bool ready = word && streq (word, "READY");
    zstr_free (&word);
    if (!ready)
        zactor_destroy (&cell);
    return cell;
}

//  Hand cell a copy of table
void
drover_cell_set_queues (zactor_t *cell, drover_queuetable_t *table)
{
    drover_queuetable_t *copy = drover_queuetable_dup (table);
    zmsg_t *msg = zmsg_new ();
    zmsg_addstr (msg, "TABLE");
    zmsg_addmem (msg, &copy, sizeof copy);
    zmsg_send (&msg, cell);
}
