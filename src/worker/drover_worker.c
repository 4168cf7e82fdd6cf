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
    reading) is drover_worker_uplink.c; this file has the object, the
    offers it runs and their results, and the loop.

    Results are kept in sending order, each under its own seq, until the
    broker answers that seq; the answers mostly come in order, so finding
    one is a look at the head of the list.
    =========================================================================
*/

#include "drover_worker_internal.h"
#include "drover_keys.h"
#include "drover_defaults.h"
#include <unistd.h>

#define S_HEARTBEAT         DROVER_DEFAULT_HEARTBEAT    //  msec, until WELCOME says otherwise
#define S_BACKOFF_MIN       250     //  msec before the first reconnect
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
    self->heartbeat = S_HEARTBEAT;
    self->grace = DROVER_RUNNER_GRACE;
    self->in = drover_msg_new (0);
    self->exec = drover_exec_new ();
    self->started_msg = drover_msg_new (DROVER_MSG_TASK_STARTED);
    self->pending = zlistx_new ();
    zlistx_set_destructor (self->pending, s_msg_destroy);
    self->procs_of = zhashx_new ();
    self->orphans = zhashx_new ();
    self->backoff = S_BACKOFF_MIN;
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
    assert (key_path && server_key_path && error_p);
    zcert_t *pair = drover_keys_load_pair (key_path, error_p);
    zcert_t *server = pair? drover_keys_load_public (server_key_path, error_p): NULL;
    if (!server) {
        zcert_destroy (&pair);
        return -1;
    }
    zcert_destroy (&self->pair);
    self->pair = pair;
    snprintf (self->server_key, sizeof self->server_key, "%s", zcert_public_txt (server));
    zcert_destroy (&server);
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


//  Send a result we keep, if we may talk to the broker now
static void
s_send_result (drover_worker_t *self, drover_msg_t *result, int64_t now)
{
    if (!self->registered)
        return;                 //  sent again after WELCOME
    drover_worker_send (self, result);
    drover_worker_expect_reply (self, now);
}

//  Keep a finished attempt's result until acknowledged, and send it
static void
s_result_add (drover_worker_t *self, drover_msg_t *result, int64_t now)
{
    result->id = DROVER_MSG_TASK_RESULT;
    result->seq = drover_worker_next_seq (self);
    strcpy (result->worker, self->id);
    zlistx_add_end (self->pending, result);
    if (result->outcome == DROVER_OUTCOME_MACHINE_FAILED)
        zsys_warning ("worker: cannot start task=%" PRIu64 " attempt=%u: %s (the broker "
                      "puts this worker on probation)", result->task, result->attempt,
                      result->reason? result->reason: "");
    else
    if (self->verbose || result->outcome != DROVER_OUTCOME_EXITED)
        zsys_info ("worker: finished task=%" PRIu64 " attempt=%u outcome=%s exit=%d signal=%d duration=%u%s%s",
                   result->task, result->attempt, drover_outcome_name (result->outcome),
                   result->exit_code, result->signal, result->duration,
                   result->reason? " reason=": "", result->reason? result->reason: "");
    s_send_result (self, result, now);
}

//  Find the pending result sent under seq; NULL if none
static void *
s_pending_find (drover_worker_t *self, uint32_t seq)
{
    drover_msg_t *result = (drover_msg_t *) zlistx_first (self->pending);
    while (result) {
        if (result->seq == seq)
            return zlistx_cursor (self->pending);
        result = (drover_msg_t *) zlistx_next (self->pending);
    }
    return NULL;
}

//  Say TASK STARTED: the offer is taken
static void
s_send_started (drover_worker_t *self, uint64_t task, uint32_t attempt)
{
    drover_msg_t *started = self->started_msg;     //  owns nothing: no reset needed
    started->seq = drover_worker_next_seq (self);
    strcpy (started->worker, self->id);
    started->task = task;
    started->attempt = attempt;
    drover_worker_send (self, started);
    drover_worker_started_t *slot = &self->started [started->seq % DROVER_WORKER_STARTED_RING];
    slot->seq = started->seq;
    slot->task = task;
    slot->attempt = attempt;
}

//  Run an offer through the in-process handler; its result is ready at once
static void
s_run_handler (drover_worker_t *self, drover_msg_t *offer, int64_t now)
{
    drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
    result->task = offer->task;
    result->attempt = offer->attempt;
    int rc = self->handler (self->handler_arg, self->exec, result);
    if (rc != 0) {
        result->outcome = DROVER_OUTCOME_SPAWN_FAILED;
        if (!result->reason)
            drover_msg_set_reason (result, "handler failed");
    }
    result->task = offer->task;         //  whatever the handler did to them
    result->attempt = offer->attempt;
    int64_t duration = zclock_mono () - now;
    result->duration = duration > 0? (uint32_t) duration: 0;
    s_result_add (self, result, now);
}

//  Key of an attempt in procs_of
static void
s_attempt_key (char *key, size_t size, uint64_t task, uint32_t attempt)
{
    snprintf (key, size, "%" PRIu64 "/%u", task, attempt);
}

//  TASK OFFER: acknowledge at once, then start the attempt. An attempt
//  that ends here and now (a bad body, the in-process handler) is
//  acknowledged by its RESULT alone (PROTOCOL.md 7.7): one message less
//  for us and for the broker.
static void
s_handle_offer (drover_worker_t *self, drover_msg_t *offer, int64_t now)
{
    if (self->runner && drover_runner_running (self->runner, offer->task, offer->attempt)) {
        s_send_started (self, offer->task, offer->attempt);
        return;                 //  a repeated offer: it runs already
    }
    const char *error = NULL;
    int rc = drover_exec_decode (self->exec, offer->body, offer->body_size, &error);
    self->tasks_run++;
    if (rc != 0) {
        zsys_warning ("worker: bad offer body task=%" PRIu64 " attempt=%u: %s",
                      offer->task, offer->attempt, error? error: "malformed");
        drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
        result->task = offer->task;
        result->attempt = offer->attempt;
        result->outcome = DROVER_OUTCOME_SPAWN_FAILED;
        result->exit_code = -1;         //  no process: no status
        char reason [DROVER_REASON_MAX];
        snprintf (reason, sizeof reason, "bad body: %s", error? error: "malformed");
        drover_msg_set_reason (result, reason);
        s_result_add (self, result, now);
        return;
    }
    if (self->handler) {
        s_run_handler (self, offer, now);
        return;
    }
    s_send_started (self, offer->task, offer->attempt);
    uint32_t procs = offer->procs? offer->procs: 1;
    if (self->procs_used + procs > self->procs)
        zsys_warning ("worker: offer past free procs task=%" PRIu64 " procs=%u used=%u offered=%u",
                      offer->task, procs, self->procs_used, self->procs);
    if (self->verbose)
        zsys_info ("worker: starting task=%" PRIu64 " attempt=%u timeout=%u argv0=%s",
                   offer->task, offer->attempt, offer->timeout,
                   self->exec->argc? self->exec->argv [0]: "");
    if (drover_runner_start (self->runner, offer->task, offer->attempt, self->exec,
                             offer->timeout, now) == 0) {
        char key [48];
        s_attempt_key (key, sizeof key, offer->task, offer->attempt);
        zhashx_update (self->procs_of, key, (void *) (uintptr_t) procs);
        self->procs_used += procs;
    }
}

//  Collect what the runner finished: give back procs, keep and send results
//  (but drop those of attempts that belong to a broker state gone by)
static void
s_collect_results (drover_worker_t *self, int64_t now)
{
    if (!self->runner)
        return;
    drover_msg_t *result;
    while ((result = drover_runner_next_result (self->runner))) {
        char key [48];
        s_attempt_key (key, sizeof key, result->task, result->attempt);
        uintptr_t procs = (uintptr_t) zhashx_lookup (self->procs_of, key);
        if (procs) {
            self->procs_used -= (uint32_t) procs;
            zhashx_delete (self->procs_of, key);
        }
        if (zhashx_lookup (self->orphans, key)) {
            zhashx_delete (self->orphans, key);
            drover_msg_destroy (&result);
        }
        else
            s_result_add (self, result, now);
    }
}

//  The broker's state is not the one our attempts came from (a wiped
//  state directory): its task ids name other tasks. Kill every attempt we
//  run and forget every result not yet acknowledged, so that none of
//  them is taken for a task of the new state (PROTOCOL.md §6.5).
static void
s_drop_old_state (drover_worker_t *self, const char *state_id, int64_t now)
{
    size_t running = self->runner? drover_runner_size (self->runner): 0;
    zsys_warning ("worker: broker state changed from %s to %s: killing running=%zu, "
                  "dropping unacked=%zu (they belong to the old state)", self->state_id,
                  state_id, running, zlistx_size (self->pending));
    if (running) {
        drover_taskref_t *refs = (drover_taskref_t *) zmalloc (running * sizeof (drover_taskref_t));
        size_t count = drover_runner_list (self->runner, refs, running);
        for (size_t index = 0; index < count; index++) {
            char key [48];
            s_attempt_key (key, sizeof key, refs [index].task, refs [index].attempt);
            zhashx_update (self->orphans, key, (void *) 1);
            drover_runner_cancel (self->runner, refs [index].task, refs [index].attempt, now);
        }
        free (refs);
    }
    zlistx_purge (self->pending);
    self->resend_at = 0;
}

//  WORKER WELCOME: registered; send again every result not yet acknowledged
static void
s_handle_welcome (drover_worker_t *self, drover_msg_t *welcome, int64_t now)
{
    if (*welcome->state_id && *self->state_id && strcmp (welcome->state_id, self->state_id))
        s_drop_old_state (self, welcome->state_id, now);
    if (*welcome->state_id)
        strcpy (self->state_id, welcome->state_id);
    self->heartbeat = welcome->heartbeat? welcome->heartbeat: S_HEARTBEAT;
    self->registered = true;
    self->registrations++;
    self->backoff = S_BACKOFF_MIN;
    drover_endpoints_served (self->endpoints);
    self->next_heartbeat = now + self->heartbeat;
    char waited [48] = "";      //  after "no broker answers": for how long
    if (self->unanswered_since)
        snprintf (waited, sizeof waited, " waited=%" PRId64 "s",
                  (now - self->unanswered_since) / 1000);
    zsys_notice ("worker: registered broker=%s id=%s epoch=%" PRIu64 " heartbeat=%u running=%zu unacked=%zu%s",
                 self->endpoint, self->id, self->epoch, self->heartbeat,
                 self->runner? drover_runner_size (self->runner): 0,
                 zlistx_size (self->pending), waited);
    drover_worker_resend_results (self, now);
}


//  --------------------------------------------------------------------------
//  Send every result not yet acknowledged again, if registered

void
drover_worker_resend_results (drover_worker_t *self, int64_t now)
{
    self->resend_at = 0;
    drover_msg_t *result = (drover_msg_t *) zlistx_first (self->pending);
    while (result) {
        s_send_result (self, result, now);
        result = (drover_msg_t *) zlistx_next (self->pending);
    }
}

//  ERROR 409 / 404 to a TASK STARTED: that attempt is not current, stop it as
//  on TASK KILL. Returns true if the reply was about a STARTED.
static bool
s_started_refused (drover_worker_t *self, drover_msg_t *reply, int64_t now)
{
    drover_worker_started_t *slot = &self->started [reply->seq % DROVER_WORKER_STARTED_RING];
    if (reply->seq == 0 || slot->seq != reply->seq)
        return false;
    slot->seq = 0;
    if (reply->code != DROVER_CODE_STALE && reply->code != DROVER_CODE_NOT_FOUND)
        return false;
    if (self->runner && drover_runner_cancel (self->runner, slot->task, slot->attempt, now) == 0)
        zsys_info ("worker: stopping task=%" PRIu64 " attempt=%u: broker says code=%u",
                   slot->task, slot->attempt, reply->code);
    return true;
}

//  OK or ERROR: an answer to a result, to our HELLO, or a demand to register
static void
s_handle_reply (drover_worker_t *self, drover_msg_t *reply, int64_t now)
{
    if (reply->id == DROVER_MSG_ERROR && reply->code == DROVER_CODE_NOT_REGISTERED) {
        //  Unknown to the broker (it restarted, or lost us): HELLO once, not per 401
        if (self->registered || now - self->hello_at >= self->heartbeat) {
            zsys_notice ("worker: broker does not know us, registering again id=%s", self->id);
            drover_worker_send_hello (self, now);
        }
        return;
    }
    void *handle = s_pending_find (self, reply->seq);
    if (handle) {
        drover_msg_t *result = (drover_msg_t *) zlistx_handle_item (handle);
        if (reply->id == DROVER_MSG_OK)
            self->results_acked++;
        else
        if (reply->code == DROVER_CODE_STALE || reply->code == DROVER_CODE_NOT_FOUND) {
            self->results_stale++;
            zsys_info ("worker: result refused task=%" PRIu64 " attempt=%u code=%u (no longer current)",
                       result->task, result->attempt, reply->code);
        }
        else
        if ((reply->code >= 300 && reply->code < 400) || reply->code == DROVER_CODE_NOT_SAVED) {
            //  Retry later: kept, sent again after a heartbeat interval (or
            //  after registering again, whichever comes first)
            if (!self->resend_at)
                self->resend_at = now + self->heartbeat;
            return;
        }
        else
            zsys_warning ("worker: result dropped task=%" PRIu64 " attempt=%u code=%u reason=\"%s\"",
                          result->task, result->attempt, reply->code,
                          reply->reason? reply->reason: "");
        zlistx_delete (self->pending, handle);
    }
    else
    if (reply->id == DROVER_MSG_ERROR && s_started_refused (self, reply, now))
        ;                       //  the attempt is not ours to run: stopped
    else
    if (reply->id == DROVER_MSG_ERROR && reply->seq == self->hello_seq
    &&  reply->code == DROVER_CODE_ID_IN_USE) {
        //  Another agent runs with our id: trying again would only make
        //  the two take turns; stop, and say why
        zstr_free (&self->refused);
        self->refused = zsys_sprintf ("broker refused id=%s: %s", self->id,
                                      reply->reason? reply->reason: "worker id in use");
        zsys_error ("worker: %s", self->refused);
        self->stopping = true;
    }
    else
    if (reply->id == DROVER_MSG_ERROR && reply->seq == self->hello_seq) {
        zsys_warning ("worker: broker refused HELLO code=%u reason=\"%s\", next try in %u ms",
                      reply->code, reply->reason? reply->reason: "", self->backoff);
        drover_worker_disconnect (self, now);
    }
    else
    if (reply->id == DROVER_MSG_ERROR)
        zsys_warning ("worker: broker error code=%u seq=%u reason=\"%s\"",
                      reply->code, reply->seq, reply->reason? reply->reason: "");
}


//  --------------------------------------------------------------------------
//  Act on one decoded message from the broker

void
drover_worker_handle_message (drover_worker_t *self, drover_msg_t *msg, int64_t now)
{
    if (self->verbose)
        zsys_debug ("worker: recv %s seq=%u task=%" PRIu64 " attempt=%u code=%u",
                    drover_msg_name (msg->id), msg->seq, msg->task, msg->attempt, msg->code);
    switch (msg->id) {
        case DROVER_MSG_WORKER_WELCOME:
            s_handle_welcome (self, msg, now);
            break;
        case DROVER_MSG_OK:
        case DROVER_MSG_ERROR:
            s_handle_reply (self, msg, now);
            break;
        case DROVER_MSG_TASK_OFFER:
            s_handle_offer (self, msg, now);
            break;
        case DROVER_MSG_TASK_KILL:
            if (self->runner
            &&  drover_runner_cancel (self->runner, msg->task, msg->attempt, now) == 0)
                zsys_info ("worker: killing task=%" PRIu64 " attempt=%u", msg->task, msg->attempt);
            else
            if (self->verbose)
                zsys_debug ("worker: kill of an attempt not running task=%" PRIu64 " attempt=%u",
                            msg->task, msg->attempt);
            break;
        case DROVER_MSG_WORKER_GATHER:
            drover_worker_send_runs (self, msg->seq);
            break;
        case DROVER_MSG_REDIRECT:
            drover_worker_handle_redirect (self, msg, now);
            break;
        case DROVER_MSG_WORKER_LEAVE:
            if (!self->leaving)
                zsys_notice ("worker: asked to leave id=%s running=%zu", self->id,
                             self->runner? drover_runner_size (self->runner): 0);
            self->leaving = true;
            break;
        default:
            zsys_warning ("worker: unexpected %s from broker, dropped", drover_msg_name (msg->id));
    }
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
    self->backoff = S_BACKOFF_MIN;
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
        s_collect_results (self, now);  //  before any HELLO: it lists them (pending)
        if (drover_poller_readable (self->poller, DROVER_WORKER_PIPE_AT))
            s_handle_pipe (self, pipe);
        if (!self->stopping && self->dealer
        &&  drover_poller_readable (self->poller, DROVER_WORKER_MONITOR_AT))
            drover_worker_handle_handshake (self, now);
        if (!self->stopping && drover_poller_readable (self->poller, DROVER_WORKER_DEALER_AT))
            drover_worker_handle_dealer (self, now);
        s_collect_results (self, now);
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
