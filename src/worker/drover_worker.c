/*  =========================================================================
    drover_worker - the worker API: registers with a broker and runs what
    it offers

    One loop, one drover_poller wait per turn (one poll(2), as the broker
    and the client sleep): the ZMQ_FD of the DEALER to the broker and of
    the actor pipe if any, and the plain fds of the process runner (its
    children's pipes and pidfds). The wait's timeout is the nearest of:
    the next heartbeat, the moment the broker counts as silent, the next
    reconnect, and the runner's nearest task deadline. Every send is
    non-blocking: a worker cut off from its broker keeps reaping children
    and keeps their results.

    Each system call costs about a microsecond here, more than handling a
    message, so a turn spends as few as it can: one poll(2), then up to a
    batch of messages read with ZMQ_DONTWAIT until the DEALER is empty.
    The poller's rules for ZMQ_FDs are kept here: a read that says EAGAIN
    marks the DEALER drained, every send marks it sent, and the DEALER
    leaves its slot when it is dropped and takes it back when created
    again on a reconnect.

    Registration is a small state machine over the socket:
      connected, HELLO sent  --WELCOME-->  registered (heartbeats flow)
      registered             --ERROR 401-->  HELLO sent again
      a reply due and none for 3 heartbeats  -->  socket dropped, connect
                                                   again after the backoff,
                                                   and a WARNING
    A reply is due while HELLO is unanswered or a result is unacknowledged;
    heartbeats and TASK STARTED get no reply, so an idle worker on a dead
    TCP link learns of it from the kernel (its heartbeats go unacknowledged
    for 3 heartbeats: TCP_USER_TIMEOUT; libzmq reconnects) and then from
    the 401 its next heartbeat earns from the broker.

    Results are kept in sending order, each under its own seq, until the
    broker answers that seq; the answers mostly come in order, so finding
    one is a look at the head of the list.
    =========================================================================
*/

#include "drover_worker.h"
#include "drover_runner.h"
#include "drover_stats.h"
#include "drover_defaults.h"
#include "drover_poller.h"
#include <unistd.h>

#define S_HEARTBEAT         DROVER_DEFAULT_HEARTBEAT    //  msec, until WELCOME says otherwise
#define S_SILENT_BEATS      3       //  heartbeats without a due reply: reconnect
#define S_BACKOFF_MIN       250     //  msec before the first reconnect
#define S_BACKOFF_MAX       5000    //  msec between reconnects at most
#define S_WARN_EVERY        60000   //  msec between "no broker answers" warnings at most, once at S_BACKOFF_MAX
#define S_RECV_BATCH        256     //  messages read per turn at most
#define S_HWM               100000  //  messages queued on the DEALER
#define S_GOODBYE_LINGER    1000    //  msec to flush GOODBYE at the end
#define S_WAKE_MAX          1000    //  msec the loop sleeps at most
#define S_STARTED_RING      4096    //  recent TASK STARTED remembered, for 409/404
#define S_DEALER_AT         0       //  the DEALER's index in the poller
#define S_PIPE_AT           1       //  the actor pipe's

//  A TASK STARTED we sent, in case the broker refuses it
typedef struct {
    uint32_t seq;                   //  seq it went under, 0 = free slot
    uint64_t task;                  //  task id
    uint32_t attempt;               //  attempt number
} s_started_t;

struct _drover_worker_t {
    //  Settings
    char *endpoint;                 //  broker endpoint
    char id [DROVER_ID_MAX + 1];    //  worker id
    uint64_t epoch;                 //  changes with each process start
    uint32_t procs;                 //  procs offered
    uint64_t mem;                   //  memory offered, bytes
    uint32_t nlabels;               //  labels in use
    char *labels [DROVER_LABELS_MAX];   //  "key=value", owned
    uint32_t heartbeat;             //  msec between heartbeats (broker's, once told)
    uint32_t grace;                 //  msec between SIGTERM and SIGKILL
    char *workdir;                  //  work directory (tasks, disk stats), or NULL, owned
    drover_worker_handler_fn *handler;  //  in-process executor, or NULL
    void *handler_arg;              //  its argument
    bool verbose;                   //  log each message
    //  Loop state
    zsock_t *dealer;                //  to the broker, NULL while waiting to reconnect
    drover_poller_t *poller;        //  the DEALER, the actor pipe (if any), the runner's fds
    drover_runner_t *runner;        //  process executor, NULL with a handler
    drover_msg_t *in;               //  last message received, reused
    drover_exec_t *exec;            //  last offer's body, reused
    drover_msg_t *started_msg;      //  TASK STARTED, reused for every offer
    zlistx_t *pending;              //  results not yet acknowledged, drover_msg_t *, owned
    zhashx_t *procs_of;             //  "task/attempt" -> procs, of attempts the runner runs
    uint32_t procs_used;            //  procs of attempts running
    uint32_t seq;                   //  last seq sent
    uint32_t hello_seq;             //  seq of the last HELLO
    bool registered;                //  WELCOME received since the last HELLO
    bool leaving;                   //  WORKER LEAVE received
    bool stopping;                  //  the loop ends at its next turn
    bool terminated;                //  $TERM received on the actor pipe
    char *refused;                  //  why the broker refused us for good, or NULL
    int64_t next_heartbeat;         //  msec (mono) of the next heartbeat
    int64_t expect_since;           //  msec since a reply is due and none came, 0 if none due
    int64_t hello_at;               //  msec when the last HELLO went
    int64_t reconnect_at;           //  msec of the next connect while dealer is NULL
    uint32_t backoff;               //  msec to wait before the next reconnect
    int64_t unanswered_since;       //  msec (mono) since a reply is due that never came, 0 while the broker answers
    uint32_t unanswered;            //  connections dropped unanswered since then
    uint32_t warned_retry;          //  msec to the next try our last "no broker answers" said, 0 if none since
    int64_t warned_at;              //  msec (mono) of that warning
    s_started_t started [S_STARTED_RING];  //  recent STARTEDs, by seq modulo the size
    //  Counters
    uint64_t tasks_run;             //  offers started
    uint64_t results_acked;         //  results answered OK
    uint64_t results_stale;         //  results answered 409 / 404
    uint64_t registrations;         //  WELCOMEs received
    uint64_t malformed;             //  undecodable messages dropped
};

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
    drover_worker_t *self = (drover_worker_t *) zmalloc (sizeof (drover_worker_t));
    self->endpoint = strdup (endpoint);
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
    self->backoff = S_BACKOFF_MIN;
    self->poller = drover_poller_new ();
    drover_poller_add (self->poller, NULL);     //  S_DEALER_AT, once connected
    drover_poller_add (self->poller, NULL);     //  S_PIPE_AT, while run as an actor
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
    drover_poller_destroy (&self->poller);
    zsock_destroy (&self->dealer);
    for (uint32_t index = 0; index < self->nlabels; index++)
        free (self->labels [index]);
    drover_msg_destroy (&self->in);
    zstr_free (&self->refused);
    drover_exec_destroy (&self->exec);
    drover_msg_destroy (&self->started_msg);
    zlistx_destroy (&self->pending);
    zhashx_destroy (&self->procs_of);
    free (self->workdir);
    free (self->endpoint);
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
//  Return why the broker refused the worker for good, or NULL

const char *
drover_worker_refused (drover_worker_t *self)
{
    assert (self);
    return self->refused;
}


//  Return the next request number: 1, 2, ... 2^32-1, then 1 again (0 is "none")
static uint32_t
s_next_seq (drover_worker_t *self)
{
    if (++self->seq == 0)
        self->seq = 1;
    return self->seq;
}

//  Return the msec of silence after which a due reply counts as lost
static int64_t
s_silence (drover_worker_t *self)
{
    return (int64_t) self->heartbeat * S_SILENT_BEATS;
}

//  Note that we sent something that the broker answers
static void
s_expect_reply (drover_worker_t *self, int64_t now)
{
    if (!self->expect_since)
        self->expect_since = now;
}

//  Encode and send a message without blocking. Returns 0, or -1 if it
//  could not be encoded or queued (peer gone, queue full).
static int
s_send (drover_worker_t *self, drover_msg_t *msg)
{
    if (!self->dealer)
        return -1;
    if (self->verbose)
        zsys_debug ("worker: send %s seq=%u task=%" PRIu64 " attempt=%u",
                    drover_msg_name (msg->id), msg->seq, msg->task, msg->attempt);
    zframe_t *frame = drover_msg_encode (msg);
    if (!frame) {
        zsys_error ("worker: cannot encode %s task=%" PRIu64 ": a field is past its limit",
                    drover_msg_name (msg->id), msg->task);
        return -1;
    }
    int rc = zframe_send (&frame, self->dealer, ZFRAME_DONTWAIT);
    zframe_destroy (&frame);
    drover_poller_sent (self->poller, S_DEALER_AT);    //  it may have taken in the read signal
    if (rc == -1 && self->verbose)
        zsys_debug ("worker: send %s refused: %s", drover_msg_name (msg->id),
                    zmq_strerror (zmq_errno ()));
    return rc;
}

//  Say WORKER HELLO with what we offer and the attempts still running
static void
s_send_hello (drover_worker_t *self, int64_t now)
{
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_WORKER_HELLO);
    hello->seq = self->hello_seq = s_next_seq (self);
    strcpy (hello->worker, self->id);
    hello->epoch = self->epoch;
    hello->procs = self->procs;
    hello->mem = self->mem;
    for (uint32_t index = 0; index < self->nlabels; index++)
        drover_msg_add_label (hello, self->labels [index]);
    size_t running = self->runner? drover_runner_size (self->runner): 0;
    if (running > DROVER_RUNNING_MAX)
        running = DROVER_RUNNING_MAX;
    if (running) {
        hello->running = (drover_taskref_t *) zmalloc (running * sizeof (drover_taskref_t));
        hello->nrunning = (uint32_t) drover_runner_list (self->runner, hello->running, running);
    }
    self->registered = false;
    self->hello_at = now;
    s_send (self, hello);
    s_expect_reply (self, now);
    drover_msg_destroy (&hello);
}

//  Create the DEALER, connect it and say HELLO. Returns 0, or -1 if the
//  endpoint is not usable.
static int
s_connect (drover_worker_t *self, int64_t now)
{
    assert (!self->dealer);
    self->dealer = zsock_new (ZMQ_DEALER);
    assert (self->dealer);
    zsock_set_maxmsgsize (self->dealer, DROVER_MSG_MAX);
    zsock_set_sndhwm (self->dealer, S_HWM);
    zsock_set_rcvhwm (self->dealer, S_HWM);
    zsock_set_linger (self->dealer, 0);
    //  A vanished broker is noticed by the kernel, at no cost to the broker
    //  (a ZMTP PING every heartbeat would wake its I/O thread once a second
    //  for every worker): heartbeats left unacknowledged for silence close
    //  the connection (TCP_USER_TIMEOUT), keepalives probe an idle one, and
    //  libzmq reconnects
    int silence = (int) s_silence (self);
    zsock_set_tcp_maxrt (self->dealer, silence);
    zsock_set_tcp_keepalive (self->dealer, 1);
    zsock_set_tcp_keepalive_idle (self->dealer, silence / 1000 > 1? silence / 1000: 1);
    zsock_set_tcp_keepalive_intvl (self->dealer, 1);
    zsock_set_tcp_keepalive_cnt (self->dealer, S_SILENT_BEATS);
    zsock_set_reconnect_ivl (self->dealer, 100);
    zsock_set_reconnect_ivl_max (self->dealer, S_BACKOFF_MAX);
    if (zsock_connect (self->dealer, "%s", self->endpoint) == -1) {
        zsys_error ("worker: cannot connect broker=%s: %s", self->endpoint,
                    zmq_strerror (zmq_errno ()));
        zsock_destroy (&self->dealer);
        return -1;
    }
    drover_poller_set (self->poller, S_DEALER_AT, self->dealer);
    self->reconnect_at = 0;
    self->expect_since = 0;
    s_send_hello (self, now);
    return 0;
}

//  Drop the DEALER and connect again after the backoff
static void
s_disconnect (drover_worker_t *self, int64_t now)
{
    drover_poller_set (self->poller, S_DEALER_AT, NULL);
    zsock_set_linger (self->dealer, 0);
    zsock_destroy (&self->dealer);
    self->registered = false;
    self->expect_since = 0;
    self->reconnect_at = now + self->backoff;
    self->backoff = self->backoff * 2 > S_BACKOFF_MAX? S_BACKOFF_MAX: self->backoff * 2;
}

//  A due reply did not come: say so at WARNING before we drop the
//  connection, about a broker we had that stopped answering, or none
//  answering at all (not started, or a wrong --broker); the latter each
//  time the backoff grows, then once a minute, so the log is not flooded
static void
s_warn_unanswered (drover_worker_t *self, int64_t now)
{
    uint32_t backoff = self->backoff;
    if (!self->unanswered_since)
        self->unanswered_since = self->expect_since? self->expect_since: now;
    self->unanswered++;
    if (self->registered) {
        zsys_warning ("worker: broker at %s stopped answering id=%s unacked=%zu, next try in %u ms",
                      self->endpoint, self->id, zlistx_size (self->pending), backoff);
        self->warned_retry = backoff;
        self->warned_at = now;
    }
    else
    if (backoff > self->warned_retry || now - self->warned_at >= S_WARN_EVERY) {
        zsys_warning ("worker: no broker answers at %s id=%s tries=%u, trying for %.1f s,"
                      " next try in %u ms", self->endpoint, self->id, self->unanswered,
                      (now - self->unanswered_since) / 1000.0, backoff);
        self->warned_retry = backoff;
        self->warned_at = now;
    }
}

//  Send a result we keep, if we may talk to the broker now
static void
s_send_result (drover_worker_t *self, drover_msg_t *result, int64_t now)
{
    if (!self->registered)
        return;                 //  sent again after WELCOME
    s_send (self, result);
    s_expect_reply (self, now);
}

//  Keep a finished attempt's result until acknowledged, and send it
static void
s_result_add (drover_worker_t *self, drover_msg_t *result, int64_t now)
{
    result->id = DROVER_MSG_TASK_RESULT;
    result->seq = s_next_seq (self);
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
    started->seq = s_next_seq (self);
    strcpy (started->worker, self->id);
    started->task = task;
    started->attempt = attempt;
    s_send (self, started);
    s_started_t *slot = &self->started [started->seq % S_STARTED_RING];
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
        s_result_add (self, result, now);
    }
}

//  WORKER WELCOME: registered; send again every result not yet acknowledged
static void
s_handle_welcome (drover_worker_t *self, drover_msg_t *welcome, int64_t now)
{
    self->heartbeat = welcome->heartbeat? welcome->heartbeat: S_HEARTBEAT;
    self->registered = true;
    self->registrations++;
    self->backoff = S_BACKOFF_MIN;
    self->next_heartbeat = now + self->heartbeat;
    char waited [48] = "";      //  after "no broker answers": for how long
    if (self->unanswered_since)
        snprintf (waited, sizeof waited, " waited=%" PRId64 "s",
                  (now - self->unanswered_since) / 1000);
    zsys_notice ("worker: registered broker=%s id=%s epoch=%" PRIu64 " heartbeat=%u running=%zu unacked=%zu%s",
                 self->endpoint, self->id, self->epoch, self->heartbeat,
                 self->runner? drover_runner_size (self->runner): 0,
                 zlistx_size (self->pending), waited);
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
    s_started_t *slot = &self->started [reply->seq % S_STARTED_RING];
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
            s_send_hello (self, now);
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
        if (reply->code >= 300 && reply->code < 400)
            return;             //  retry later: kept, sent again after registering
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
        s_disconnect (self, now);
    }
    else
    if (reply->id == DROVER_MSG_ERROR)
        zsys_warning ("worker: broker error code=%u seq=%u reason=\"%s\"",
                      reply->code, reply->seq, reply->reason? reply->reason: "");
}

//  Act on one decoded message from the broker
static void
s_handle_message (drover_worker_t *self, drover_msg_t *msg, int64_t now)
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

//  Read what the broker sent, up to a batch, without blocking; an EAGAIN
//  marks the DEALER drained (its ZMQ_FD will signal what comes next)
static void
s_handle_dealer (drover_worker_t *self, int64_t now)
{
    void *handle = zsock_resolve (self->dealer);
    for (int count = 0; count < S_RECV_BATCH && self->dealer; count++) {
        zmq_msg_t frame;
        zmq_msg_init (&frame);
        if (zmq_msg_recv (&frame, handle, ZMQ_DONTWAIT) == -1) {
            zmq_msg_close (&frame);
            if (zmq_errno () == EAGAIN)
                drover_poller_drained (self->poller, S_DEALER_AT);
            else
            if (zmq_errno () == ETERM)
                self->stopping = true;      //  the context is going away
            break;
        }
        bool more = zmq_msg_more (&frame);
        int rc = drover_msg_decode (self->in, (const byte *) zmq_msg_data (&frame),
                                    zmq_msg_size (&frame));
        zmq_msg_close (&frame);
        while (more) {          //  every message is one frame: drop the rest
            zmq_msg_init (&frame);
            if (zmq_msg_recv (&frame, handle, ZMQ_DONTWAIT) == -1)
                more = false;
            else
                more = zmq_msg_more (&frame);
            zmq_msg_close (&frame);
            rc = -2;
        }
        //  Anything from the broker, even garbage, shows it is there
        self->expect_since = 0;
        if (rc != 0) {
            if (self->malformed++ % 100 == 0)
                zsys_warning ("worker: malformed message from broker (%" PRIu64 " so far): %s",
                              self->malformed, self->in->error? self->in->error: "multipart");
        }
        else
            s_handle_message (self, self->in, now);
        self->unanswered_since = 0;
        self->unanswered = 0;
        self->warned_retry = 0;
        if (self->dealer && (!self->registered || zlistx_size (self->pending)))
            s_expect_reply (self, now);
    }
}

//  Send a heartbeat with fresh stats
static void
s_send_heartbeat (drover_worker_t *self)
{
    drover_msg_t *heartbeat = drover_msg_new (DROVER_MSG_WORKER_HEARTBEAT);
    heartbeat->seq = s_next_seq (self);
    strcpy (heartbeat->worker, self->id);
    heartbeat->epoch = self->epoch;
    drover_stats_read (&heartbeat->stats, self->workdir);
    heartbeat->stats.running = self->runner? (uint32_t) drover_runner_size (self->runner): 0;
    s_send (self, heartbeat);
    drover_msg_destroy (&heartbeat);
}

//  Say GOODBYE
static void
s_send_goodbye (drover_worker_t *self)
{
    drover_msg_t *goodbye = drover_msg_new (DROVER_MSG_WORKER_GOODBYE);
    goodbye->seq = s_next_seq (self);
    strcpy (goodbye->worker, self->id);
    goodbye->epoch = self->epoch;
    s_send (self, goodbye);
    drover_msg_destroy (&goodbye);
}

//  Timers: reconnect, silence, heartbeat, and leaving once idle
static void
s_tick (drover_worker_t *self, int64_t now)
{
    if (!self->dealer) {
        if (now >= self->reconnect_at && s_connect (self, now) == -1)
            self->stopping = true;
        return;
    }
    if (self->expect_since && now - self->expect_since >= s_silence (self)) {
        s_warn_unanswered (self, now);
        s_disconnect (self, now);
        return;
    }
    if (self->registered && now >= self->next_heartbeat) {
        s_send_heartbeat (self);
        self->next_heartbeat = now + self->heartbeat;
    }
    if (self->leaving && self->registered
    &&  (!self->runner || drover_runner_size (self->runner) == 0)
    &&  zlistx_size (self->pending) == 0) {
        zsys_notice ("worker: leaving id=%s tasks=%" PRIu64 " acked=%" PRIu64,
                     self->id, self->tasks_run, self->results_acked);
        s_send_goodbye (self);
        self->stopping = true;
    }
}

//  Return the msec until the loop has something to do
static long
s_wait_msec (drover_worker_t *self, int64_t now)
{
    int64_t next = now + S_WAKE_MAX;
    if (!self->dealer && self->reconnect_at < next)
        next = self->reconnect_at;
    if (self->dealer && self->registered && self->next_heartbeat < next)
        next = self->next_heartbeat;
    if (self->dealer && self->expect_since && self->expect_since + s_silence (self) < next)
        next = self->expect_since + s_silence (self);
    int64_t due = self->runner? drover_runner_next_deadline (self->runner): -1;
    if (due != -1 && due < next)
        next = due;
    return next > now? (long) (next - now): 0;
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
    drover_poller_drained (self->poller, S_PIPE_AT);
}

//  Stop: kill what runs, say GOODBYE (unless we already did), close
static void
s_shutdown (drover_worker_t *self, bool said_goodbye)
{
    if (self->runner && drover_runner_size (self->runner)) {
        zsys_notice ("worker: stopping, killing running=%zu", drover_runner_size (self->runner));
        drover_runner_stop_all (self->runner);
        zhashx_purge (self->procs_of);
        self->procs_used = 0;
    }
    if (self->dealer) {
        if (!said_goodbye)
            s_send_goodbye (self);
        drover_poller_set (self->poller, S_DEALER_AT, NULL);
        zsock_set_linger (self->dealer, S_GOODBYE_LINGER);
        zsock_destroy (&self->dealer);
    }
    self->registered = false;
}

//  The loop, with an actor pipe or not. Returns 0 or -1.
static int
s_run (drover_worker_t *self, zsock_t *pipe)
{
    if (!self->handler && !self->runner) {
        self->runner = drover_runner_new ();
        drover_runner_set_grace (self->runner, self->grace);
        drover_runner_set_workdir (self->runner, self->workdir);
    }
    self->stopping = self->leaving = self->terminated = false;
    zstr_free (&self->refused);
    self->backoff = S_BACKOFF_MIN;
    self->unanswered_since = self->warned_at = 0;
    self->unanswered = self->warned_retry = 0;
    drover_poller_set (self->poller, S_PIPE_AT, pipe);
    if (s_connect (self, zclock_mono ()) == -1)
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
        drover_poller_wait (self->poller, (int) s_wait_msec (self, now));
        if (zsys_interrupted)
            break;
        now = zclock_mono ();
        if (self->runner)
            drover_runner_process (self->runner, items, nitems, now);
        if (drover_poller_readable (self->poller, S_PIPE_AT))
            s_handle_pipe (self, pipe);
        if (!self->stopping && drover_poller_readable (self->poller, S_DEALER_AT))
            s_handle_dealer (self, now);
        s_collect_results (self, now);
        if (!self->stopping) {
            s_tick (self, now);
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
    drover_poller_sent (self->poller, S_PIPE_AT);
    while (!self->terminated) {
        if (zsys_interrupted || drover_poller_wait (self->poller, -1) == -1)
            break;              //  interrupted
        if (drover_poller_readable (self->poller, S_PIPE_AT))
            s_handle_pipe (self, pipe);
    }
}
