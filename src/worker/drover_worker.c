/*  =========================================================================
    drover_worker - the worker API: registers with a broker and runs what
    it offers

    One loop, one drover_poller wait per turn (epoll_wait, or poll(2)
    while children's fds are watched): the ZMQ_FD of the DEALER to the broker and of
    the actor pipe if any, and the plain fds of the process runner (its
    children's pipes and pidfds). The wait's timeout is the nearest of:
    the next heartbeat, the moment the broker counts as silent, the next
    reconnect, and the runner's nearest task deadline. Every send is
    non-blocking: a worker cut off from its broker keeps reaping children
    and keeps their results.

    The link to the broker (connecting, registering, heartbeats, silence,
    reading) is drover_worker_uplink.c; the offers it runs and their
    results are drover_worker_tasks.c; this file has the object, its
    settings and counters, the actor pipe, and the loop.
    =========================================================================
*/

#include "drover_worker_internal.h"
#include "drover_keys.h"
#include <unistd.h>

#define S_GOODBYE_LINGER    1000    //  msec to flush GOODBYE at the end

//  The destructor the pending list uses
static void
s_msg_destroy (void **item_p)
{
    drover_msg_destroy ((drover_msg_t **) item_p);
}


//  --------------------------------------------------------------------------
//  Create a worker; NULL if the id or procs is not valid

drover_worker_t *
drover_worker_new (const char *endpoint, const char *id, uint32_t procs, uint64_t mem)
{
    assert (endpoint);
    if (!id || !drover_id_valid (id) || procs < 1)
        return NULL;
    drover_endpoints_t *endpoints = drover_endpoints_new (endpoint);
    if (!endpoints)
        return NULL;
    drover_worker_t *self = (drover_worker_t *) zmalloc (sizeof (drover_worker_t));
    self->endpoints = endpoints;
    self->endpoint = strdup (drover_endpoints_current (endpoints));
    snprintf (self->id, sizeof self->id, "%s", id);
    struct timespec clock;
    clock_gettime (CLOCK_REALTIME, &clock);
    self->epoch = ((uint64_t) clock.tv_sec * 1000000 + (uint64_t) clock.tv_nsec / 1000)
                ^ (uint64_t) getpid ();
    self->procs = procs;
    self->mem = mem;
    self->heartbeat = DROVER_WORKER_HEARTBEAT;
    self->grace = DROVER_RUNNER_GRACE;
    self->in = drover_msg_new (0);
    self->exec = drover_exec_new ();
    self->started_msg = drover_msg_new (DROVER_MSG_TASK_STARTED);
    self->pending = zlistx_new ();
    zlistx_set_destructor (self->pending, s_msg_destroy);
    self->procs_of = zhashx_new ();
    self->orphans = zhashx_new ();
    self->backoff = DROVER_WORKER_BACKOFF_MIN;
    self->taskenv = drover_taskenv_new ();
    self->poller = drover_poller_new ();
    drover_poller_add (self->poller, NULL);     //  DROVER_WORKER_DEALER_AT, once connected
    drover_poller_add (self->poller, NULL);     //  DROVER_WORKER_PIPE_AT, while run as an actor
    drover_poller_add (self->poller, NULL);     //  DROVER_WORKER_MONITOR_AT, with the DEALER
    return self;
}


//  --------------------------------------------------------------------------
//  Destroy a worker; kills attempts still running

void
drover_worker_destroy (drover_worker_t **self_p)
{
    assert (self_p);
    drover_worker_t *self = *self_p;
    if (!self)
        return;
    drover_runner_destroy (&self->runner);
    drover_taskenv_destroy (&self->taskenv);
    drover_poller_destroy (&self->poller);
    drover_handshake_destroy (&self->handshake);
    zsock_destroy (&self->dealer);
    zcert_destroy (&self->pair);
    drover_serverkeys_destroy (&self->serverkeys);
    for (uint32_t index = 0; index < self->nlabels; index++)
        free (self->labels [index]);
    drover_msg_destroy (&self->in);
    zstr_free (&self->refused);
    drover_exec_destroy (&self->exec);
    drover_msg_destroy (&self->started_msg);
    zlistx_destroy (&self->pending);
    zhashx_destroy (&self->procs_of);
    zhashx_destroy (&self->orphans);
    free (self->workdir);
    free (self->endpoint);
    drover_endpoints_destroy (&self->endpoints);
    free (self);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Add a "key=value" label. Returns 0, or -1 if invalid or full.

int
drover_worker_set_label (drover_worker_t *self, const char *label)
{
    assert (self);
    if (!label || !drover_label_valid (label) || self->nlabels >= DROVER_LABELS_MAX)
        return -1;
    self->labels [self->nlabels++] = strdup (label);
    return 0;
}


//  --------------------------------------------------------------------------
//  Set the heartbeat interval used until WELCOME names one

void
drover_worker_set_heartbeat (drover_worker_t *self, uint32_t msec)
{
    assert (self);
    if (msec > 0)
        self->heartbeat = msec;
}


//  --------------------------------------------------------------------------
//  Set the msec between SIGTERM and SIGKILL

void
drover_worker_set_grace (drover_worker_t *self, uint32_t msec)
{
    assert (self);
    self->grace = msec;
    if (self->runner)
        drover_runner_set_grace (self->runner, msec);
}


//  --------------------------------------------------------------------------
//  Set the work directory: tasks start there, the disk stats describe it

void
drover_worker_set_workdir (drover_worker_t *self, const char *workdir)
{
    assert (self);
    free (self->workdir);
    self->workdir = workdir? strdup (workdir): NULL;
}


//  --------------------------------------------------------------------------
//  Pass the variables of ours that list names to tasks. Returns 0, or -1
//  with why in *error_p.

int
drover_worker_pass_env (drover_worker_t *self, const char *list, char **error_p)
{
    assert (self);
    return drover_taskenv_pass (self->taskenv, list, error_p);
}


//  --------------------------------------------------------------------------
//  Run tasks as the user called name. Returns 0, or -1 with why in *error_p.

int
drover_worker_set_user (drover_worker_t *self, const char *name, char **error_p)
{
    assert (self);
    return drover_taskenv_set_user (self->taskenv, name, error_p);
}


//  --------------------------------------------------------------------------
//  Run attempts in-process with handler

void
drover_worker_set_handler (drover_worker_t *self, drover_worker_handler_fn *handler,
                           void *arg)
{
    assert (self);
    self->handler = handler;
    self->handler_arg = arg;
}


//  --------------------------------------------------------------------------
//  Log every message sent and received

void
drover_worker_set_verbose (drover_worker_t *self, bool verbose)
{
    assert (self);
    self->verbose = verbose;
}


//  --------------------------------------------------------------------------
//  Speak CURVE to the broker with a key pair and the broker's public key

int
drover_worker_set_keys (drover_worker_t *self, const char *key_path,
                        const char *server_key_path, char **error_p)
{
    assert (self);
    assert (server_key_path);
    return drover_worker_set_server_keys (self, key_path, &server_key_path, 1, error_p);
}


//  --------------------------------------------------------------------------
//  Speak CURVE to brokers with keys of their own: each broker's found by
//  drover_serverkeys among those given

int
drover_worker_set_server_keys (drover_worker_t *self, const char *key_path,
                               const char *const *server_keys, size_t count, char **error_p)
{
    assert (self);
    assert (key_path && error_p);
    assert (server_keys || count == 0);
    *error_p = NULL;
    zcert_t *pair = drover_keys_load_pair (key_path, error_p);
    drover_serverkeys_t *serverkeys = drover_serverkeys_new ();
    for (size_t index = 0; pair && !*error_p && index < count; index++)
        drover_serverkeys_add (serverkeys, server_keys [index], error_p);
    if (pair && !*error_p)
        drover_serverkeys_pair_list (serverkeys, self->endpoints, error_p);
    if (*error_p) {
        zcert_destroy (&pair);
        drover_serverkeys_destroy (&serverkeys);
        return -1;
    }
    zcert_destroy (&self->pair);
    drover_serverkeys_destroy (&self->serverkeys);
    self->pair = pair;
    self->serverkeys = serverkeys;
    return 0;
}


//  --------------------------------------------------------------------------
//  Return the worker id

const char *
drover_worker_id (drover_worker_t *self)
{
    assert (self);
    return self->id;
}


//  --------------------------------------------------------------------------
//  Return the epoch

uint64_t
drover_worker_epoch (drover_worker_t *self)
{
    assert (self);
    return self->epoch;
}


//  --------------------------------------------------------------------------
//  Return the number of offers started

uint64_t
drover_worker_tasks_run (drover_worker_t *self)
{
    assert (self);
    return self->tasks_run;
}


//  --------------------------------------------------------------------------
//  Return the number of results answered OK

uint64_t
drover_worker_results_acked (drover_worker_t *self)
{
    assert (self);
    return self->results_acked;
}


//  --------------------------------------------------------------------------
//  Return the number of results refused as stale or unknown

uint64_t
drover_worker_results_stale (drover_worker_t *self)
{
    assert (self);
    return self->results_stale;
}


//  --------------------------------------------------------------------------
//  Return the number of WELCOMEs received

uint64_t
drover_worker_registrations (drover_worker_t *self)
{
    assert (self);
    return self->registrations;
}


//  --------------------------------------------------------------------------
//  Return the number of handshakes the broker refused

uint64_t
drover_worker_refusals (drover_worker_t *self)
{
    assert (self);
    return self->refusals;
}


//  --------------------------------------------------------------------------
//  Return why the broker refused the worker for good, or NULL

const char *
drover_worker_refused (drover_worker_t *self)
{
    assert (self);
    return self->refused;
}


//  One command on the actor pipe
static void
s_handle_command (drover_worker_t *self, zsock_t *pipe)
{
    char *command = NULL;
    if (zsock_recv (pipe, "s", &command) == -1) {
        self->stopping = true;          //  interrupted
        return;
    }
    if (streq (command, "$TERM")) {
        self->stopping = true;
        self->terminated = true;
    }
    else
    if (streq (command, "COUNTERS"))
        zsock_send (pipe, "88", self->tasks_run, self->results_acked);
    else
        zsys_error ("worker: unknown pipe command %s", command);
    zstr_free (&command);
}

//  Every command waiting on the actor pipe. Ends on a ZMQ_EVENTS that finds
//  none, so the pipe's ZMQ_FD signals the next one: drained.
static void
s_handle_pipe (drover_worker_t *self, zsock_t *pipe)
{
    while (!self->terminated && (zsock_events (pipe) & ZMQ_POLLIN))
        s_handle_command (self, pipe);
    drover_poller_drained (self->poller, DROVER_WORKER_PIPE_AT);
}

//  Stop: kill what runs, say GOODBYE (unless we already did), close
static void
s_shutdown (drover_worker_t *self, bool said_goodbye)
{
    if (self->runner && drover_runner_size (self->runner)) {
        zsys_notice ("worker: stopping, killing running=%zu", drover_runner_size (self->runner));
        drover_runner_stop_all (self->runner);
        zhashx_purge (self->procs_of);
        zhashx_purge (self->orphans);
        self->procs_used = 0;
    }
    if (self->dealer) {
        if (!said_goodbye)
            drover_worker_send_goodbye (self);
        drover_poller_set (self->poller, DROVER_WORKER_DEALER_AT, NULL);
        drover_poller_set (self->poller, DROVER_WORKER_MONITOR_AT, NULL);
        drover_handshake_destroy (&self->handshake);
        zsock_set_linger (self->dealer, S_GOODBYE_LINGER);
        zsock_destroy (&self->dealer);
    }
    self->registered = false;
}

//  The loop, with an actor pipe or not. Returns 0 or -1.
static int
s_run (drover_worker_t *self, zsock_t *pipe)
{
    zstr_free (&self->refused);
    if (!self->handler && !self->runner) {
        //  Tasks of another user must be able to start where they start
        if (drover_taskenv_check_dir (self->taskenv, self->workdir? self->workdir: ".",
                                      &self->refused))
            return -1;
        self->runner = drover_runner_new ();
        drover_runner_set_grace (self->runner, self->grace);
        drover_runner_set_workdir (self->runner, self->workdir);
        drover_runner_set_taskenv (self->runner, self->taskenv);
    }
    self->stopping = self->leaving = self->terminated = false;
    self->backoff = DROVER_WORKER_BACKOFF_MIN;
    self->unanswered_since = self->warned_at = 0;
    self->unanswered = self->warned_retry = 0;
    drover_poller_set (self->poller, DROVER_WORKER_PIPE_AT, pipe);
    if (drover_worker_connect (self, zclock_mono ()) == -1)
        return -1;
    bool left = false;
    while (!self->stopping) {
        int64_t now = zclock_mono ();
        zmq_pollitem_t *items = NULL;   //  the runner's fds, for this turn's wait
        size_t nitems = 0;
        if (self->runner) {
            size_t room = drover_runner_items (self->runner);
            items = drover_poller_items (self->poller, room);
            nitems = drover_runner_fill (self->runner, items, room);
        }
        drover_poller_wait (self->poller, (int) drover_worker_wait_msec (self, now));
        if (zsys_interrupted)
            break;
        now = zclock_mono ();
        if (self->runner)
            drover_runner_process (self->runner, items, nitems, now);
        drover_worker_collect_results (self, now);  //  before any HELLO: it lists them (pending)
        if (drover_poller_readable (self->poller, DROVER_WORKER_PIPE_AT))
            s_handle_pipe (self, pipe);
        if (!self->stopping && self->dealer
        &&  drover_poller_readable (self->poller, DROVER_WORKER_MONITOR_AT))
            drover_worker_handle_handshake (self, now);
        if (!self->stopping && drover_poller_readable (self->poller, DROVER_WORKER_DEALER_AT))
            drover_worker_handle_dealer (self, now);
        drover_worker_collect_results (self, now);
        if (!self->stopping) {
            drover_worker_tick (self, now);
            left = self->stopping;
        }
    }
    s_shutdown (self, left);
    return self->refused? -1: 0;
}


//  --------------------------------------------------------------------------
//  Run the loop in this thread until WORKER LEAVE or an interrupt

int
drover_worker_run (drover_worker_t *self)
{
    assert (self);
    return s_run (self, NULL);
}


//  --------------------------------------------------------------------------
//  Run the loop as a zactor; args is the worker (borrowed)

void
drover_worker_actor (zsock_t *pipe, void *args)
{
    drover_worker_t *self = (drover_worker_t *) args;
    assert (self);
    zsock_signal (pipe, 0);
    s_run (self, pipe);
    if (self->terminated)
        return;
    //  Ended by itself (LEAVE, interrupt, bad endpoint): say so, wait for $TERM
    zstr_send (pipe, "DONE");
    drover_poller_sent (self->poller, DROVER_WORKER_PIPE_AT);
    while (!self->terminated) {
        if (zsys_interrupted || drover_poller_wait (self->poller, -1) == -1)
            break;              //  interrupted
        if (drover_poller_readable (self->poller, DROVER_WORKER_PIPE_AT))
            s_handle_pipe (self, pipe);
    }
}
