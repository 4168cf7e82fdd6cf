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

    The file reads top-down in five sections: the object (its settings
    and counters); the link to the broker (connecting, registering,
    heartbeats, silence, reading); the offers it runs and their results,
    and acting on each message from the broker; the loop (the actor
    pipe, one wait per turn, shutting down); and the job, the attempt the
    in-process handler sees.
    =========================================================================
*/

#include "drover_msg.h"
#include "drover_worker.h"
#include "drover_runner.h"
#include "drover_memlimit.h"
#include "drover_devices.h"
#include "drover_devicelist.h"
#include "drover_poller.h"
#include "drover_handshake.h"
#include "drover_endpoints.h"
#include "drover_serverkeys.h"
#include "drover_defaults.h"
#include "drover_keys.h"
#include "drover_stats.h"
#include "drover_ring.h"
#include <unistd.h>

#define S_STARTED_RING      4096        //  recent TASK STARTED remembered, for 409/404
#define S_DEALER_AT         0           //  the DEALER's index in the poller
#define S_PIPE_AT           1           //  the actor pipe's
#define S_MONITOR_AT        2           //  the DEALER's handshake monitor's
#define S_HEARTBEAT         DROVER_DEFAULT_HEARTBEAT //  msec, until WELCOME says otherwise
#define S_BACKOFF_MIN       250         //  msec before the first reconnect
#define S_GOODBYE_LINGER    1000        //  msec to flush GOODBYE at the end
#define S_SILENT_BEATS      3           //  heartbeats without a due reply: reconnect
#define S_BACKOFF_MAX       5000        //  msec between reconnects at most
#define S_WARN_EVERY        60000       //  msec between "no broker answers" warnings at most, once at S_BACKOFF_MAX
#define S_RECV_BATCH        256         //  messages read per turn at most
#define S_HWM               100000      //  messages queued on the DEALER
#define S_WAKE_MAX          1000        //  msec the loop sleeps at most
#define S_STARTED_WAIT_MAX  5           //  msec a process's STARTED waits at most (PROTOCOL.md 7.7)

//  One attempt the in-process handler runs: lives on the loop's stack for
//  the handler's call (the job's accessors, at the end of this file)
struct _drover_job_t {
    uint64_t task;                  //  the offer's task
    uint32_t attempt;               //  the offer's attempt
    const drover_exec_t *exec;      //  the offer's decoded body, borrowed
    drover_msg_t *result;           //  the TASK RESULT being filled in, borrowed
};

//  A TASK STARTED we sent, in case the broker refuses it
typedef struct {
    uint32_t seq;                   //  seq it went under, 0 = free slot
    uint64_t task;                  //  task id
    uint32_t attempt;               //  attempt number
} s_started_t;

//  A TASK STARTED held back: sent when due if the attempt still runs
typedef struct {
    int64_t due;                    //  msec (mono)
    uint64_t task;                  //  task id
    uint32_t attempt;               //  attempt number
} s_held_start_t;

//  A TASK OFFER held ahead: it came past our free procs, and starts when
//  one frees (or goes back when held too long)
typedef struct {
    int64_t since;                  //  msec (mono) it was held from
    drover_msg_t *offer;            //  a copy of the offer, owned
} s_held_offer_t;

struct _drover_worker_t {
    //  Settings
    char *endpoint;                 //  the broker endpoint we talk to now, owned
    drover_endpoints_t *endpoints;  //  the brokers we may talk to, and which next, owned
    char id [DROVER_ID_MAX + 1];    //  worker id
    uint64_t epoch;                 //  changes with each process start
    uint32_t procs;                 //  procs offered
    uint64_t mem;                   //  memory offered, bytes
    uint32_t nlabels;               //  labels in use
    char *labels [DROVER_LABELS_MAX];   //  "key=value", owned
    uint32_t heartbeat;             //  msec between heartbeats (broker's, once told)
    uint32_t grace;                 //  msec between SIGTERM and SIGKILL
    char *memory_limit;             //  "hard", "soft", "off", or NULL: the runner's default
    char *workdir;                  //  work directory (tasks, disk stats), or NULL, owned
    drover_taskenv_t *taskenv;      //  what tasks see: their user, their environment, owned
    drover_devices_t *devices;      //  counted devices, and the attempt ("task/attempt")
                                    //  holding each; owned (empty: none)
    drover_worker_handler_fn *handler;  //  in-process executor, or NULL
    void *handler_arg;              //  its argument
    bool verbose;                   //  log each message
    zcert_t *pair;                  //  our CURVE key pair (set_keys), or NULL: plain
    drover_serverkeys_t *serverkeys;    //  the brokers' public keys, with pair, owned
    //  Loop state
    zsock_t *dealer;                //  to the broker, NULL while waiting to reconnect
    drover_handshake_t *handshake;  //  watches the DEALER's handshakes, with it
    uint64_t refusals;              //  handshakes the broker refused, ever
    char refused_said [256];        //  the refusal last logged, "" if none since a success
    int64_t refused_said_at;        //  msec (mono) it was logged
    drover_poller_t *poller;        //  the DEALER, the actor pipe (if any), the runner's fds
    drover_runner_t *runner;        //  process executor, NULL with a handler
    drover_msg_t *in;               //  last message received, reused
    drover_exec_t *exec;            //  last offer's body, reused
    drover_msg_t *started_msg;      //  TASK STARTED, reused for every offer
    drover_ring_t *held_starts;     //  STARTEDs held back, s_held_start_t, oldest first
    uint32_t started_wait;          //  msec a process's STARTED waits (from WELCOME), 0 none
    uint32_t ahead;                 //  offers we hold beyond our free procs, as HELLO says
    uint32_t ahead_granted;         //  how many of those the last WELCOME lets the broker
                                    //  send us (level 9), 0 none: we hold nothing
    uint32_t hold_max;              //  msec an offer is held ahead at most (a quarter of
                                    //  the broker's ack-timeout), then given back
    zlistx_t *held_offers;          //  offers held ahead, s_held_offer_t *, oldest first, owned
    zlistx_t *pending;              //  results not yet acknowledged, drover_msg_t *, owned
    zhashx_t *orphans;              //  "task/attempt" of attempts killed because the broker's
                                    //  state changed: their results are dropped, not sent
    char state_id [DROVER_STATE_ID_SIZE + 1];   //  the last WELCOME's broker state id, or ""
    int64_t resend_at;              //  msec (mono) to send kept results again (after a 3xx
                                    //  or 507), 0 if not due
    zhashx_t *procs_of;             //  "task/attempt" -> procs, of attempts the runner runs
    uint32_t procs_used;            //  procs of attempts running
    uint32_t seq;                   //  last seq sent
    uint32_t hello_seq;             //  seq of the last HELLO
    int level;                      //  the protocol level we speak on this connection:
                                    //  ours, or 1 once a broker of level 1 refused our
                                    //  HELLO (PROTOCOL.md §12.1)
    bool registered;                //  WELCOME received since the last HELLO
    bool leaving;                   //  WORKER LEAVE received
    bool stopping;                  //  the loop ends at its next turn
    bool terminated;                //  $TERM received on the actor pipe
    char *refused;                  //  why the broker refused us for good, or NULL
    uint32_t refused_code;          //  the code it refused us with (423, 403, 426), 0 if none
    char release [DROVER_RELEASE_MAX + 1];  //  the release HELLO says, "" drover's own
    int64_t next_heartbeat;         //  msec (mono) of the next heartbeat
    int64_t expect_since;           //  msec since a reply is due and none came, 0 if none due
    int64_t hello_at;               //  msec when the last HELLO went
    int64_t reconnect_at;           //  msec of the next connect while dealer is NULL
    int64_t hello_again_at;         //  msec (mono) to say HELLO again on this connection, after
                                    //  a REDIRECT that left us nowhere else to go; 0 none
    char stayed_for [DROVER_ENDPOINT_MAX + 1];  //  the leader that REDIRECT named ("" none)
    uint64_t stay_said_in;          //  registrations + 1 when we last said we stay, 0 never
    uint32_t backoff;               //  msec to wait before the next reconnect
    uint64_t random;                //  xorshift state for the reconnect jitter, never 0
    int64_t unanswered_since;       //  msec (mono) since a reply is due that never came, 0 while the broker answers
    uint32_t unanswered;            //  connections dropped unanswered since then
    uint32_t warned_retry;          //  msec to the next try our last "no broker answers" said, 0 if none since
    int64_t warned_at;              //  msec (mono) of that warning
    s_started_t started [S_STARTED_RING];   //  recent STARTEDs, by seq modulo the size
    //  Counters
    uint64_t tasks_run;             //  offers started
    uint64_t results_acked;         //  results answered OK
    uint64_t results_stale;         //  results answered 409 / 404
    uint64_t registrations;         //  WELCOMEs received
    uint64_t malformed;             //  undecodable messages dropped
};


//  Return the next request number: 1, 2, ... 2^32-1, then 1 again (0 is "none")
static uint32_t
    s_next_seq (drover_worker_t *self);

//  Note that we sent something that the broker answers
static void
    s_expect_reply (drover_worker_t *self, int64_t now);

//  Encode and send a message without blocking. Returns 0, or -1 if it
//  could not be encoded or queued (peer gone, queue full).
static int
    s_send (drover_worker_t *self, drover_msg_t *msg);

//  Say WORKER HELLO with what we offer, the attempts still running and
//  those whose result is not yet acknowledged
static void
    s_send_hello (drover_worker_t *self, int64_t now);

//  Answer a WORKER GATHER of seq with WORKER RUNS: the attempts listed as
//  in HELLO
static void
    s_send_runs (drover_worker_t *self, uint32_t seq);

//  Say GOODBYE
static void
    s_send_goodbye (drover_worker_t *self);

//  Create the DEALER, connect it and say HELLO. Returns 0, or -1 if the
//  endpoint is not usable.
static int
    s_connect (drover_worker_t *self, int64_t now);

//  Drop the DEALER and connect again after the backoff
static void
    s_disconnect (drover_worker_t *self, int64_t now);

//  Take what the DEALER's handshake monitor said: a refusal is logged and
//  the socket dropped, to connect again after the backoff
static void
    s_handle_handshake (drover_worker_t *self, int64_t now);

//  REDIRECT from a broker that does not serve: talk to the leader it
//  names, or to the next broker of the list (PROTOCOL.md §17)
static void
    s_handle_redirect (drover_worker_t *self, drover_msg_t *redirect, int64_t now);

//  Read what the broker sent, up to a batch, without blocking, and act on
//  each message (s_handle_message)
static void
    s_handle_dealer (drover_worker_t *self, int64_t now);

//  Timers: reconnect, silence, heartbeat, results to send again, offers
//  held ahead too long, and leaving once idle
static void
    s_tick (drover_worker_t *self, int64_t now);

//  Return the msec until the loop has something to do
static long
    s_wait_msec (drover_worker_t *self, int64_t now);

//  Act on one decoded message from the broker
static void
    s_handle_message (drover_worker_t *self, drover_msg_t *msg, int64_t now);

//  Send every result not yet acknowledged again, if registered
static void
    s_resend_results (drover_worker_t *self, int64_t now);

//  Collect what the runner finished: give back procs and devices, keep and send results
//  (but drop those of attempts that belong to a broker state gone by); then start the
//  offers held ahead that fit now
static void
    s_collect_results (drover_worker_t *self, int64_t now);

//  Forget every offer held ahead, saying no RESULT for them: the broker
//  takes them back on its own (a new HELLO that does not list them, a
//  GOODBYE, a state they do not belong to)
static void
    s_drop_held (drover_worker_t *self, const char *why);

//  Give back the offers held ahead for hold_max (every one once leaving):
//  RESULT RETURNED, kept and sent as any result
static void
    s_give_back_held (drover_worker_t *self, int64_t now);


//  =========================================================================
//  The object: its settings and counters
//  =========================================================================

//  The destructor the pending list uses
static void
s_msg_destroy (void **item_p)
{
    drover_msg_destroy ((drover_msg_t **) item_p);
}

//  The destructor the held offers' list uses
static void
s_held_offer_destroy (void **item_p)
{
    s_held_offer_t *held = (s_held_offer_t *) *item_p;
    if (held) {
        drover_msg_destroy (&held->offer);
        free (held);
        *item_p = NULL;
    }
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
    self->held_starts = drover_ring_new (sizeof (s_held_start_t));
    zlistx_set_destructor (self->pending, s_msg_destroy);
    self->held_offers = zlistx_new ();
    zlistx_set_destructor (self->held_offers, s_held_offer_destroy);
    self->hold_max = DROVER_DEFAULT_ACK_TIMEOUT / 4;
    self->procs_of = zhashx_new ();
    self->orphans = zhashx_new ();
    self->backoff = S_BACKOFF_MIN;
    self->random = (self->epoch ^ ((uint64_t) id [0] << 56)
                 ^ ((uint64_t) clock.tv_nsec << 20)) | 1;
    self->taskenv = drover_taskenv_new ();
    self->devices = drover_devices_new ();
    self->poller = drover_poller_new ();
    drover_poller_add (self->poller, NULL);     //  S_DEALER_AT, once connected
    drover_poller_add (self->poller, NULL);     //  S_PIPE_AT, while run as an actor
    drover_poller_add (self->poller, NULL);     //  S_MONITOR_AT, with the DEALER
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
    drover_devices_destroy (&self->devices);
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
    zlistx_destroy (&self->held_offers);
    drover_ring_destroy (&self->held_starts);
    zhashx_destroy (&self->procs_of);
    zhashx_destroy (&self->orphans);
    free (self->workdir);
    free (self->memory_limit);
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
//  Set how an offer's memory bounds its task: "hard", "soft" or "off"

int
drover_worker_set_memory_limit (drover_worker_t *self, const char *mode)
{
    assert (self);
    if (!drover_memlimit_mode_valid (mode))
        return -1;
    free (self->memory_limit);
    self->memory_limit = strdup (mode);
    return 0;
}


//  --------------------------------------------------------------------------
//  Add counted devices as --device says: NAME=COUNT or NAME=I,J,... Returns
//  0, or -1 with why in *error_p.

int
drover_worker_add_device (drover_worker_t *self, const char *spec, char **error_p)
{
    assert (self);
    assert (spec && error_p);
    return drover_devices_parse (self->devices, spec, error_p);
}


//  --------------------------------------------------------------------------
//  Set the release HELLO says in place of drover's own (drover's tests say
//  an old one, to see a broker refuse it)

void
drover_worker_set_release (drover_worker_t *self, const char *release)
{
    assert (self);
    assert (release);
    snprintf (self->release, sizeof self->release, "%s", release);
}


//  --------------------------------------------------------------------------
//  Take an inventory of counted devices in place of ours

void
drover_worker_set_devices (drover_worker_t *self, drover_devices_t **devices_p)
{
    assert (self);
    assert (devices_p && *devices_p);
    drover_devices_destroy (&self->devices);
    self->devices = *devices_p;
    *devices_p = NULL;
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
//  Set how many offers the worker holds beyond its free procs, started in
//  order as procs free (0..DROVER_AHEAD_MAX; more is taken as the most)

void
drover_worker_set_ahead (drover_worker_t *self, uint32_t ahead)
{
    assert (self);
    self->ahead = ahead < DROVER_AHEAD_MAX? ahead: DROVER_AHEAD_MAX;
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
//  Return the number of offers held ahead now

size_t
drover_worker_held (drover_worker_t *self)
{
    assert (self);
    return zlistx_size (self->held_offers);
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


//  --------------------------------------------------------------------------
//  Return the status code the broker refused the worker with for good

uint32_t
drover_worker_refused_code (drover_worker_t *self)
{
    assert (self);
    return self->refused_code;
}


//  =========================================================================
//  The link to the broker
//
//  The DEALER to the broker and what keeps it honest: connecting and
//  saying HELLO, heartbeats, noticing a broker that stopped answering,
//  dropping the socket and connecting again after a backoff, and reading
//  what the broker sends (each message is then acted on by
//  s_handle_message, in the next section).
//
//  Registration is a small state machine over the socket:
//    connected, HELLO sent  --WELCOME-->  registered (heartbeats flow)
//    registered             --ERROR 401-->  HELLO sent again
//    a reply due and none for 3 heartbeats  -->  socket dropped, connect
//                                                 again after the backoff,
//                                                 and a WARNING
//    registered, its connection down  -->  not registered: nothing sent
//    ZeroMQ connected the socket again by itself  -->  socket dropped,
//                                connect again after the backoff: HELLO
//                                first, results after WELCOME
//  A broker registers a worker by its connection: on a new one it knows
//  nobody, and a RESULT there would be refused (401) and sent again after
//  the HELLO that follows. So nothing but HELLO goes on a connection the
//  worker has not registered on: before each send the monitor's news is
//  taken; while the connection is down nothing is sent, and a socket that
//  connected again is dropped with whatever it still queued. (A socket
//  whose connection is down is kept meanwhile: with several brokers, the
//  worker moves only once it is down for DEAD_AFTER.)
//  A reply is due while HELLO is unanswered or a result is unacknowledged;
//  heartbeats and TASK STARTED get no reply, so an idle worker on a dead
//  TCP link learns of it from the kernel (its heartbeats go unacknowledged
//  for 3 heartbeats: TCP_USER_TIMEOUT; libzmq reconnects) and then from
//  the 401 its next heartbeat earns from the broker.
//
//  With several brokers (PROTOCOL.md §17) the worker talks to one at a
//  time and moves, with drover_endpoints deciding where: to the leader a
//  REDIRECT names, or to the next of its list when its broker is gone
//  (the DEALER's connection down for DEAD_AFTER: the monitor sees a
//  killed broker's connection close at once) or silent (a reply due for
//  3 heartbeats). A move is a new DEALER and a HELLO, exactly as after a
//  broker restart: the running list, then the kept RESULTs after WELCOME.
//
//  Each system call costs about a microsecond here, more than handling a
//  message, so a turn spends as few as it can: one wait (epoll_wait), then up to a
//  batch of messages read with ZMQ_DONTWAIT until the DEALER is empty.
//  The poller's rules for ZMQ_FDs are kept here: a read that says EAGAIN
//  marks the DEALER drained, every send marks it sent, and the DEALER
//  leaves its slot when it is dropped and takes it back when created
//  again on a reconnect.
//  =========================================================================


//  --------------------------------------------------------------------------
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


//  Return a random delay for a re-HELLO, msec: 0 .. min(heartbeat,
//  DROVER_RECONNECT_JITTER_MAX), so that a fleet told by one event (its
//  broker restarted, or moved, or forgot them) does not come back at once
//  (PROTOCOL.md §9)
static uint32_t
s_jitter (drover_worker_t *self)
{
    uint32_t window = self->heartbeat < DROVER_RECONNECT_JITTER_MAX
                    ? self->heartbeat: DROVER_RECONNECT_JITTER_MAX;
    self->random ^= self->random << 13;
    self->random ^= self->random >> 7;
    self->random ^= self->random << 17;
    return (uint32_t) (self->random % ((uint64_t) window + 1));
}


//  --------------------------------------------------------------------------
//  Note that we sent something that the broker answers

static void
s_expect_reply (drover_worker_t *self, int64_t now)
{
    if (!self->expect_since)
        self->expect_since = now;
}


//  --------------------------------------------------------------------------
//  Encode and send a message without blocking. Returns 0, or -1 if it
//  could not be encoded or queued (peer gone, queue full).

static bool
    s_connection_replaced (drover_worker_t *self, int64_t now);

static int
s_send (drover_worker_t *self, drover_msg_t *msg)
{
    if (!self->dealer)
        return -1;
    //  (A GOODBYE goes as it can: the worker is leaving, its socket with it)
    if (msg->id != DROVER_MSG_WORKER_HELLO && msg->id != DROVER_MSG_WORKER_GOODBYE
    &&  s_connection_replaced (self, zclock_mono ()))
        return -1;              //  not registered there: a result is kept for after WELCOME
    if (self->verbose)
        zsys_debug ("worker: send %s seq=%u task=%" PRIu64 " attempt=%u",
                    drover_msg_name (msg->id), msg->seq, msg->task, msg->attempt);
    zframe_t *frame = drover_msg_encode_level (msg, self->level);
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


//  --------------------------------------------------------------------------
//  List in msg's running the attempts we have: those still running and
//  those whose result is not yet acknowledged (HELLO and RUNS list the same)

static void
s_list_attempts (drover_worker_t *self, drover_msg_t *msg)
{
    size_t running = self->runner? drover_runner_size (self->runner): 0;
    size_t listed = running + zlistx_size (self->pending);
    if (listed > DROVER_RUNNING_MAX)
        listed = DROVER_RUNNING_MAX;
    if (listed == 0)
        return;
    msg->running = (drover_taskref_t *) zmalloc (listed * sizeof (drover_taskref_t));
    size_t count = running? drover_runner_list (self->runner, msg->running, listed): 0;
    drover_msg_t *result = (drover_msg_t *) zlistx_first (self->pending);
    for (; result && count < listed; count++) {
        msg->running [count].task = result->task;
        msg->running [count].attempt = result->attempt;
        result = (drover_msg_t *) zlistx_next (self->pending);
    }
    msg->nrunning = (uint32_t) count;
}


//  --------------------------------------------------------------------------
//  Answer the reconciler's WORKER GATHER of seq with WORKER RUNS: the
//  attempts we have, listed as in HELLO. Nothing answers it, so nothing
//  is awaited (PROTOCOL.md §7.31).

static void
s_send_runs (drover_worker_t *self, uint32_t seq)
{
    drover_msg_t *runs = drover_msg_new (DROVER_MSG_WORKER_RUNS);
    runs->seq = seq;
    strcpy (runs->worker, self->id);
    s_list_attempts (self, runs);
    if (self->verbose)
        zsys_debug ("worker: gather seq=%u: %u attempts", seq, runs->nrunning);
    s_send (self, runs);
    drover_msg_destroy (&runs);
}


//  Return the offers ahead we hold, as HELLO says: none with the in-process
//  handler, which runs each offer in the call that takes it
static uint32_t
s_ahead_said (drover_worker_t *self)
{
    return self->handler? 0: self->ahead;
}

//  --------------------------------------------------------------------------
//  Say WORKER HELLO with what we offer, the attempts still running and
//  those whose result is not yet acknowledged: the broker must not count
//  an attempt whose result is on its way as lost (it would run the task
//  again), so both are "running" for it (PROTOCOL.md §9). Offers held
//  ahead are neither: a HELLO ends the registration they came in, and
//  they are dropped with it (the broker puts back what HELLO leaves out).

static void
s_send_hello (drover_worker_t *self, int64_t now)
{
    s_drop_held (self, "registering again");
    self->ahead_granted = 0;            //  until the WELCOME says again
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_WORKER_HELLO);
    hello->seq = self->hello_seq = s_next_seq (self);
    strcpy (hello->worker, self->id);
    hello->epoch = self->epoch;
    hello->procs = self->procs;
    hello->mem = self->mem;
    for (uint32_t index = 0; index < self->nlabels; index++)
        drover_msg_add_label (hello, self->labels [index]);
    //  What we have of each device, by name (level 4; left out for older
    //  brokers, which place no task with devices)
    size_t names = drover_devices_size (self->devices);
    for (size_t index = 0; index < names && hello->ndevices < DROVER_DEVICES_MAX; index++) {
        const char *name = drover_devices_name (self->devices, index);
        drover_device_t *device = &hello->devices [hello->ndevices++];
        snprintf (device->name, sizeof device->name, "%s", name);
        device->count = drover_devices_total (self->devices, name);
    }
    drover_devicelist_sort (hello->devices, hello->ndevices);
    s_list_attempts (self, hello);
    hello->ahead = s_ahead_said (self);
    strcpy (hello->state_id, self->state_id);
    strcpy (hello->release, self->release);     //  "": drover's own
    self->registered = false;
    self->hello_at = now;
    s_send (self, hello);
    s_expect_reply (self, now);
    drover_msg_destroy (&hello);
}


//  True if the worker may move between brokers: it has several, or was
//  sent by a REDIRECT to one not in its list. A worker with one broker
//  stays, and reconnects there, as it always did.
static bool
s_may_move (drover_worker_t *self)
{
    return drover_endpoints_size (self->endpoints) > 1
        || drover_endpoints_moves (self->endpoints) > 0;
}

//  --------------------------------------------------------------------------
//  Create the DEALER, connect it and say HELLO. Returns 0, or -1 if the
//  endpoint is not usable.

static int
s_connect (drover_worker_t *self, int64_t now)
{
    assert (!self->dealer);
    const char *server_key = self->pair
                           ? drover_serverkeys_for (self->serverkeys, self->endpoint): NULL;
    if (self->pair && !server_key) {
        //  A leader a REDIRECT named, of no key we hold (the list's have one)
        zsys_error ("worker: cannot connect broker=%s: no key of it is trusted (give it as "
                    "%s=KEY in the list of brokers, or name its key file after the broker)",
                    self->endpoint, self->endpoint);
        return -1;
    }
    self->level = DROVER_MSG_LEVEL;     //  a new connection: say ours first
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
    if (s_may_move (self)) {
        //  With several brokers a stopped leader (SIGSTOP, a paused VM)
        //  must be left too: its kernel still acknowledges our heartbeats,
        //  its process answers nothing, so ask the peer itself (ZMTP PING,
        //  answered by its I/O thread) and drop the connection after the
        //  silence: the move follows (PROTOCOL.md §17)
        zsock_set_heartbeat_ivl (self->dealer, (int) self->heartbeat);
        zsock_set_heartbeat_timeout (self->dealer, silence);
    }
    if (self->pair) {
        zcert_apply (self->pair, self->dealer);
        zsock_set_curve_serverkey (self->dealer, server_key);
    }
    self->handshake = drover_handshake_new (self->dealer, self->pair != NULL);
    if (zsock_connect (self->dealer, "%s", self->endpoint) == -1) {
        zsys_error ("worker: cannot connect broker=%s: %s", self->endpoint,
                    zmq_strerror (zmq_errno ()));
        drover_handshake_destroy (&self->handshake);
        zsock_destroy (&self->dealer);
        return -1;
    }
    drover_poller_set (self->poller, S_DEALER_AT, self->dealer);
    drover_poller_set (self->poller, S_MONITOR_AT,
                       drover_handshake_sock (self->handshake));
    self->reconnect_at = 0;
    self->expect_since = 0;
    s_send_hello (self, now);
    return 0;
}


//  --------------------------------------------------------------------------
//  Drop the DEALER and connect again after the backoff

static void
s_disconnect (drover_worker_t *self, int64_t now)
{
    s_drop_held (self, "connection dropped");
    drover_poller_set (self->poller, S_DEALER_AT, NULL);
    drover_poller_set (self->poller, S_MONITOR_AT, NULL);
    drover_handshake_destroy (&self->handshake);
    zsock_set_linger (self->dealer, 0);
    zsock_destroy (&self->dealer);
    self->registered = false;
    self->expect_since = 0;
    self->hello_again_at = 0;
    //  The first reconnect since a WELCOME waits a random delay too: the
    //  whole fleet lost its broker at the same moment. Later ones are
    //  spread by then, and the backoff alone keeps them apart
    self->reconnect_at = now + self->backoff
                       + (self->backoff == S_BACKOFF_MIN? s_jitter (self): 0);
    self->backoff = self->backoff * 2 > S_BACKOFF_MAX? S_BACKOFF_MAX: self->backoff * 2;
}

//  Talk to the endpoints' current broker from now on, after delay msec:
//  drop the DEALER (nothing queued for the old broker goes anywhere) and
//  connect anew, which says HELLO
static void
s_move (drover_worker_t *self, int delay, const char *why, int64_t now)
{
    uint32_t backoff = self->backoff;
    if (self->dealer)
        s_disconnect (self, now);
    self->backoff = backoff;        //  the move's delay replaces the reconnect backoff
    delay += (int) s_jitter (self); //  the whole fleet moves: not all at once
    self->reconnect_at = now + delay;
    const char *next = drover_endpoints_current (self->endpoints);
    zsys_notice ("worker: moving from broker=%s to broker=%s id=%s in %d ms: %s",
                 self->endpoint, next, self->id, delay, why);
    free (self->endpoint);
    self->endpoint = strdup (next);
    assert (self->endpoint);
}

//  REDIRECT from a broker that does not serve. When it leaves us nowhere
//  else to go (it names a leader found gone lately, or none, and no other
//  broker of the list is alive), we are not moving: the same connection
//  says HELLO again after the delay, and that is said once, not at each
//  REDIRECT until the election is over.
static void
s_handle_redirect (drover_worker_t *self, drover_msg_t *redirect, int64_t now)
{
    if (self->serverkeys)       //  the leader's key, by its name, if we trust one
        drover_serverkeys_learn (self->serverkeys, redirect->leader, redirect->leader_name);
    int delay = drover_endpoints_redirected (self->endpoints, redirect->leader, now);
    char why [DROVER_ENDPOINT_MAX + DROVER_ID_MAX + 64];
    if (*redirect->leader)
        snprintf (why, sizeof why, "redirected to leader %s at %s", redirect->leader_name,
                  redirect->leader);
    else
        snprintf (why, sizeof why, "redirected, no leader known");
    if (self->dealer && streq (drover_endpoints_current (self->endpoints), self->endpoint)) {
        if (self->stay_said_in != self->registrations + 1
        ||  strneq (self->stayed_for, redirect->leader)) {
            zsys_notice ("worker: broker=%s id=%s %s, no other broker to try; asking it "
                         "again until it names a leader that answers", self->endpoint, self->id,
                         why);
            snprintf (self->stayed_for, sizeof self->stayed_for, "%s", redirect->leader);
            self->stay_said_in = self->registrations + 1;
        }
        self->hello_again_at = now + (delay > 0? delay: 1);
        return;
    }
    s_move (self, delay, why, now);
}

//  Take what the DEALER's handshake monitor said
static void
s_handle_handshake (drover_worker_t *self, int64_t now)
{
    int outcome = drover_handshake_read (self->handshake);
    drover_poller_drained (self->poller, S_MONITOR_AT);
    if (outcome == 1 && *self->refused_said) {
        zsys_notice ("worker: broker=%s accepted this key id=%s (after %" PRIu64 " refusals)",
                     self->endpoint, self->id, self->refusals);
        self->refused_said [0] = 0;
    }
    if (outcome != -1) {
        s_connection_replaced (self, now);
        return;
    }
    self->refusals++;
    //  Said when it is news, else once a minute: ZeroMQ gives up a refused
    //  connection, and we connect again at the backoff's pace
    const char *reason = drover_handshake_reason (self->handshake);
    if (!streq (reason, self->refused_said) || now - self->refused_said_at >= S_WARN_EVERY) {
        zsys_error ("worker: broker=%s id=%s: %s; trying again every %u msec at most",
                    self->endpoint, self->id, reason, S_BACKOFF_MAX);
        snprintf (self->refused_said, sizeof self->refused_said, "%s", reason);
        self->refused_said_at = now;
    }
    s_disconnect (self, now);
}

//  Tell whether the connection this DEALER said HELLO on is gone, taking
//  the monitor's news. While it is down we are not registered: nothing but
//  HELLO may go out (the broker would know nobody on the next connection).
//  Once ZeroMQ has connected again by itself, what waited in the socket
//  would reach the broker before any HELLO: drop the socket with it and
//  connect again after the backoff; the new socket says HELLO first.
static bool
s_connection_replaced (drover_worker_t *self, int64_t now)
{
    drover_handshake_up (self->handshake);
    uint64_t connects = drover_handshake_connects (self->handshake);
    if (connects > 1) {
        zsys_notice ("worker: connected to broker=%s again id=%s unacked=%zu: registering "
                     "again in %u ms", self->endpoint, self->id, zlistx_size (self->pending),
                     self->backoff);
        s_disconnect (self, now);
        return true;
    }
    if (connects == 0 || !drover_handshake_down_since (self->handshake))
        return false;           //  not connected yet, or up on its first connection
    if (!s_may_move (self)) {
        //  One broker: drop the socket now and connect again after the
        //  backoff and a random delay, rather than let ZeroMQ connect at
        //  once (a fleet would all connect in the same 100 ms, only to drop
        //  those connections for new ones)
        zsys_notice ("worker: connection to broker=%s lost id=%s unacked=%zu: registering "
                     "again in %u ms at least", self->endpoint, self->id,
                     zlistx_size (self->pending), self->backoff);
        s_disconnect (self, now);
        return true;
    }
    if (self->registered)
        zsys_notice ("worker: connection to broker=%s lost id=%s unacked=%zu: registering "
                     "again once it is back", self->endpoint, self->id,
                     zlistx_size (self->pending));
    self->registered = false;
    return true;
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


//  --------------------------------------------------------------------------
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


//  --------------------------------------------------------------------------
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


//  --------------------------------------------------------------------------
//  Timers: reconnect, silence, heartbeat, results to send again, offers
//  held ahead too long, and leaving once idle

static void
s_tick (drover_worker_t *self, int64_t now)
{
    if (!self->dealer) {
        if (now >= self->reconnect_at && s_connect (self, now) == -1) {
            if (drover_endpoints_moves (self->endpoints) > 0)
                //  A leader a REDIRECT named that ZeroMQ cannot use: the list
                s_move (self, drover_endpoints_failed (self->endpoints, now),
                        "cannot connect there", now);
            else
                self->stopping = true;
        }
        return;
    }
    int64_t down = drover_handshake_down_since (self->handshake);
    if (down && now - down >= DROVER_ENDPOINTS_DEAD_AFTER && s_may_move (self)) {
        int delay = drover_endpoints_failed (self->endpoints, now);
        char why [64];
        snprintf (why, sizeof why, "its connection is down for %" PRId64 " ms", now - down);
        s_move (self, delay, why, now);
        return;
    }
    if (self->expect_since && now - self->expect_since >= s_silence (self)) {
        s_warn_unanswered (self, now);
        if (s_may_move (self))
            s_move (self, drover_endpoints_failed (self->endpoints, now), "no answer", now);
        else
            s_disconnect (self, now);
        return;
    }
    if (self->hello_again_at && now >= self->hello_again_at) {
        self->hello_again_at = 0;
        s_send_hello (self, now);
    }
    if (self->registered && now >= self->next_heartbeat) {
        s_send_heartbeat (self);
        self->next_heartbeat = now + self->heartbeat;
    }
    if (self->resend_at && now >= self->resend_at && self->registered)
        s_resend_results (self, now);
    s_give_back_held (self, now);
    if (self->leaving && self->registered
    &&  (!self->runner || drover_runner_size (self->runner) == 0)
    &&  zlistx_size (self->pending) == 0) {
        zsys_notice ("worker: leaving id=%s tasks=%" PRIu64 " acked=%" PRIu64,
                     self->id, self->tasks_run, self->results_acked);
        s_send_goodbye (self);
        self->stopping = true;
    }
}


//  --------------------------------------------------------------------------
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
    if (self->dealer && self->hello_again_at && self->hello_again_at < next)
        next = self->hello_again_at;
    int64_t down = self->dealer? drover_handshake_down_since (self->handshake): 0;
    if (down && s_may_move (self) && down + DROVER_ENDPOINTS_DEAD_AFTER < next)
        next = down + DROVER_ENDPOINTS_DEAD_AFTER;
    if (self->dealer && self->registered && self->resend_at && self->resend_at < next)
        next = self->resend_at;
    int64_t due = self->runner? drover_runner_next_deadline (self->runner): -1;
    if (due != -1 && due < next)
        next = due;
    s_held_start_t *held = (s_held_start_t *) drover_ring_head (self->held_starts);
    if (held && held->due < next)
        next = held->due;
    s_held_offer_t *oldest = (s_held_offer_t *) zlistx_first (self->held_offers);
    if (oldest && oldest->since + self->hold_max < next)
        next = oldest->since + self->hold_max;
    return next > now? (long) (next - now): 0;
}

//  =========================================================================
//  The offers the worker runs and their results: a TASK OFFER
//  acknowledged and started (in a child process, or through the
//  in-process handler), results kept in sending order until the broker
//  answers them and sent again after each WELCOME, the broker's replies
//  to them, and the attempts of a broker state gone by; and the dispatch
//  of each message from the broker (s_handle_message)
//
//  Results are kept in sending order, each under its own seq, until the
//  broker answers that seq; the answers mostly come in order, so finding
//  one is a look at the head of the list.
//
//  Offers held ahead (level 9, when the WELCOME grants them): an offer
//  that comes past our free procs waits in a FIFO, with no STARTED, and
//  each held offer is in exactly one of these states:
//    held  --a result frees its proc-->  started (the plain offer path)
//    held  --hold_max, or LEAVE-->       given back: RESULT RETURNED
//    held  --TASK KILL-->                ended: RESULT CANCELLED
//    held  --HELLO, disconnect, new broker state, stop-->  dropped, no
//                                        RESULT (the broker takes it back)
//  It never runs twice, and HELLO never lists it: only what runs or has
//  a RESULT on its way is the broker's to count as ours.
//  =========================================================================

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

//  Key of an attempt in procs_of, and its holder name in devices
static void
s_attempt_key (char *key, size_t size, uint64_t task, uint32_t attempt)
{
    snprintf (key, size, "%" PRIu64 "/%u", task, attempt);
}

//  Say TASK STARTED: the offer is taken, with the device indices it holds
static void
s_send_started (drover_worker_t *self, uint64_t task, uint32_t attempt)
{
    drover_msg_t *started = self->started_msg;     //  owns nothing between sends
    started->seq = s_next_seq (self);
    strcpy (started->worker, self->id);
    started->task = task;
    started->attempt = attempt;
    char key [48];
    s_attempt_key (key, sizeof key, task, attempt);
    char *assigned = drover_devices_assigned (self->devices, key);
    started->assigned = *assigned? assigned: NULL;     //  "" none: left out
    s_send (self, started);
    started->assigned = NULL;
    zstr_free (&assigned);
    s_started_t *slot = &self->started [started->seq % S_STARTED_RING];
    slot->seq = started->seq;
    slot->task = task;
    slot->attempt = attempt;
}

//  Say TASK STARTED for a process just started, or hold it back for
//  started_wait msec: an attempt that ends before then is acknowledged by
//  its RESULT alone, one message less each way (PROTOCOL.md 7.7). An
//  attempt holding devices says them now.
static void
s_say_started (drover_worker_t *self, uint64_t task, uint32_t attempt, bool devices, int64_t now)
{
    if (self->started_wait == 0 || devices) {
        s_send_started (self, task, attempt);
        return;
    }
    s_held_start_t held = { now + self->started_wait, task, attempt };
    drover_ring_push (self->held_starts, &held);
}

//  Send the held STARTEDs that are due, of attempts still running, and
//  forget at once those at the head whose attempt has ended: its RESULT
//  said it all, and a due of a held STARTED is a wake-up of the loop (the
//  most common one, for short tasks, when they were kept until due)
static void
s_send_held_starts (drover_worker_t *self, int64_t now)
{
    s_held_start_t *held = (s_held_start_t *) drover_ring_head (self->held_starts);
    while (held) {
        bool running = self->runner
                    && drover_runner_running (self->runner, held->task, held->attempt);
        if (running && held->due > now)
            break;              //  the head's due is the loop's next wake-up
        if (running)
            s_send_started (self, held->task, held->attempt);
        drover_ring_pop (self->held_starts);
        held = (s_held_start_t *) drover_ring_head (self->held_starts);
    }
}

//  Run an offer through the in-process handler; its result is ready at once
static void
s_run_handler (drover_worker_t *self, drover_msg_t *offer, int64_t now)
{
    drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
    result->task = offer->task;
    result->attempt = offer->attempt;
    drover_job_t job = { offer->task, offer->attempt, self->exec, result };
    int rc = self->handler (self->handler_arg, &job);
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

//  Give the offer's attempt (holder key) the devices it asks for, all or
//  nothing, and the entries its environment gets in *env_p (caller
//  destroys the list). An offer asking what we do not have free (a
//  broker's mistake, or a race with a task still ending) is never run: it
//  ends here, MACHINE_FAILED, its reason naming the device short.
//  Returns 0, or -1 with that result kept and sent.
static int
s_take_devices (drover_worker_t *self, drover_msg_t *offer, const char *key, zlistx_t **env_p,
                int64_t now)
{
    drover_devices_request_t requests [DROVER_DEVICES_MAX];
    size_t count = offer->ndevices < DROVER_DEVICES_MAX? offer->ndevices: DROVER_DEVICES_MAX;
    for (size_t index = 0; index < count; index++) {
        requests [index].name = offer->devices [index].name;
        requests [index].count = offer->devices [index].count;
    }
    char *error = NULL;
    if (drover_devices_assign (self->devices, key, requests, count, env_p, &error) == 0) {
        if (self->verbose && count) {
            char *assigned = drover_devices_assigned (self->devices, key);
            zsys_info ("worker: task=%" PRIu64 " attempt=%u devices %s", offer->task,
                       offer->attempt, assigned);
            zstr_free (&assigned);
        }
        return 0;
    }
    drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
    result->task = offer->task;
    result->attempt = offer->attempt;
    result->outcome = DROVER_OUTCOME_MACHINE_FAILED;
    result->exit_code = -1;             //  no process: no status
    char reason [DROVER_REASON_MAX];
    snprintf (reason, sizeof reason, "devices short: %s", error);
    drover_msg_set_reason (result, reason);
    zstr_free (&error);
    s_result_add (self, result, now);
    return -1;
}

//  Return the entries of env as a NULL-terminated array of borrowed
//  strings (free only the array), or NULL if there are none
static char **
s_env_array (zlistx_t *env)
{
    if (!env || zlistx_size (env) == 0)
        return NULL;
    char **array = (char **) zmalloc ((zlistx_size (env) + 1) * sizeof (char *));
    size_t index = 0;
    for (char *entry = (char *) zlistx_first (env); entry; entry = (char *) zlistx_next (env))
        array [index++] = entry;
    return array;
}

//  Return the procs an offer asks (0 says 1)
static uint32_t
s_offer_procs (drover_msg_t *offer)
{
    return offer->procs? offer->procs: 1;
}

//  Start an offer taken now: acknowledge it at once, then start the
//  attempt. An attempt that ends here and now (a bad body, the in-process
//  handler) is acknowledged by its RESULT alone (PROTOCOL.md 7.7): one
//  message less for us and for the broker.
static void
s_start_offer (drover_worker_t *self, drover_msg_t *offer, int64_t now)
{
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
    char key [48];
    s_attempt_key (key, sizeof key, offer->task, offer->attempt);
    char *held = drover_devices_assigned (self->devices, key);
    bool holds = *held != 0;
    zstr_free (&held);
    if (holds) {
        //  Ended, not yet collected: its devices and result are on their way
        s_send_started (self, offer->task, offer->attempt);
        return;
    }
    zlistx_t *env = NULL;
    if (s_take_devices (self, offer, key, &env, now))
        return;
    if (self->handler) {
        s_run_handler (self, offer, now);
        drover_devices_give_back (self->devices, key);     //  it ended with the call
        zlistx_destroy (&env);
        return;
    }
    s_say_started (self, offer->task, offer->attempt, offer->ndevices > 0, now);
    uint32_t procs = s_offer_procs (offer);
    if (self->procs_used + procs > self->procs)
        zsys_warning ("worker: offer past free procs task=%" PRIu64 " procs=%u used=%u offered=%u",
                      offer->task, procs, self->procs_used, self->procs);
    if (self->verbose)
        zsys_info ("worker: starting task=%" PRIu64 " attempt=%u timeout=%u argv0=%s",
                   offer->task, offer->attempt, offer->timeout,
                   self->exec->argc? self->exec->argv [0]: "");
    char **devices = s_env_array (env);
    if (drover_runner_start_assigned (self->runner, offer->task, offer->attempt, self->exec,
                                      offer->timeout, offer->mem, devices, now) == 0) {
        zhashx_update (self->procs_of, key, (void *) (uintptr_t) procs);
        self->procs_used += procs;
    }
    //  (Not started: its result is waiting, and gives the devices back)
    free (devices);
    zlistx_destroy (&env);
}

//  Return the handle of the offer held ahead for task, attempt; NULL if none
static void *
s_held_find (drover_worker_t *self, uint64_t task, uint32_t attempt)
{
    s_held_offer_t *held = (s_held_offer_t *) zlistx_first (self->held_offers);
    while (held) {
        if (held->offer->task == task && held->offer->attempt == attempt)
            return zlistx_cursor (self->held_offers);
        held = (s_held_offer_t *) zlistx_next (self->held_offers);
    }
    return NULL;
}

//  True if an attempt of procs fits our free procs now (anything fits
//  while nothing runs)
static bool
s_fits (drover_worker_t *self, uint32_t procs)
{
    return self->procs_used == 0 || self->procs_used + procs <= self->procs;
}

//  True if an offer waits in the held FIFO rather than start now: the last
//  WELCOME lets the broker send us offers ahead and one more has room; the
//  offer is of the kind it sends so (1 proc, no devices) and does not fit
//  now. Any other offer starts, past our procs if it must (with a warning),
//  as before level 9.
static bool
s_must_hold (drover_worker_t *self, drover_msg_t *offer)
{
    return self->runner && !self->leaving
        && zlistx_size (self->held_offers) < self->ahead_granted
        && s_offer_procs (offer) == 1 && offer->ndevices == 0
        && !s_fits (self, 1);
}

//  Hold an offer ahead, a copy of it, until a proc frees. No STARTED yet:
//  that is said when it starts.
static void
s_hold_offer (drover_worker_t *self, drover_msg_t *offer, int64_t now)
{
    //  Copied through the codec: the offer is the loop's reused message
    zframe_t *frame = drover_msg_encode (offer);
    assert (frame);             //  decoded just now: within every limit
    s_held_offer_t *held = (s_held_offer_t *) zmalloc (sizeof (s_held_offer_t));
    held->since = now;
    held->offer = drover_msg_new (0);
    int rc = drover_msg_decode (held->offer, zframe_data (frame), zframe_size (frame));
    assert (rc == 0);
    zframe_destroy (&frame);
    zlistx_add_end (self->held_offers, held);
    if (self->verbose)
        zsys_debug ("worker: holding task=%" PRIu64 " attempt=%u ahead held=%zu",
                    offer->task, offer->attempt, zlistx_size (self->held_offers));
}

//  Start the offers held ahead that fit now, oldest first, each as if it
//  came now (its STARTED from then). None while leaving: those go back.
static void
s_start_held (drover_worker_t *self, int64_t now)
{
    s_held_offer_t *held = (s_held_offer_t *) zlistx_first (self->held_offers);
    while (held && !self->leaving && s_fits (self, s_offer_procs (held->offer))) {
        drover_msg_t *offer = held->offer;
        held->offer = NULL;
        if (self->verbose)
            zsys_debug ("worker: starting task=%" PRIu64 " attempt=%u held ahead for %" PRId64
                        " ms", offer->task, offer->attempt, now - held->since);
        zlistx_delete (self->held_offers, zlistx_cursor (self->held_offers));
        s_start_offer (self, offer, now);
        drover_msg_destroy (&offer);
        held = (s_held_offer_t *) zlistx_first (self->held_offers);
    }
}

//  End the offer held ahead at handle without a process: its RESULT
//  (RETURNED or CANCELLED) is kept and sent as any result, until acknowledged
static void
s_end_held (drover_worker_t *self, void *handle, int outcome, const char *reason, int64_t now)
{
    s_held_offer_t *held = (s_held_offer_t *) zlistx_handle_item (handle);
    drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
    result->task = held->offer->task;
    result->attempt = held->offer->attempt;
    result->outcome = (uint8_t) outcome;
    result->exit_code = -1;             //  no process: no status
    drover_msg_set_reason (result, reason);
    zlistx_delete (self->held_offers, handle);
    s_result_add (self, result, now);
}

//  Give back the offers held ahead for hold_max: the tasks running before
//  them take longer than a quarter of the broker's ack-timeout, and another
//  worker may be free. Once leaving, every one goes back at once.
static void
s_give_back_held (drover_worker_t *self, int64_t now)
{
    s_held_offer_t *held = (s_held_offer_t *) zlistx_first (self->held_offers);
    while (held && (self->leaving || now - held->since >= self->hold_max)) {
        char reason [DROVER_REASON_MAX];
        if (self->leaving)
            snprintf (reason, sizeof reason, "held ahead for %" PRId64 " ms, the worker is "
                      "leaving: given back", now - held->since);
        else
            snprintf (reason, sizeof reason, "held ahead behind running tasks for %" PRId64
                      " ms: given back", now - held->since);
        s_end_held (self, zlistx_cursor (self->held_offers), DROVER_OUTCOME_RETURNED, reason,
                    now);
        held = (s_held_offer_t *) zlistx_first (self->held_offers);
    }
}

//  Forget every offer held ahead, saying no RESULT for them
static void
s_drop_held (drover_worker_t *self, const char *why)
{
    if (zlistx_size (self->held_offers) == 0)
        return;
    zsys_notice ("worker: dropping held=%zu offers held ahead, never started: %s",
                 zlistx_size (self->held_offers), why);
    zlistx_purge (self->held_offers);
}

//  TASK OFFER: start the attempt, or hold it ahead while our procs are
//  taken (when the broker may send us offers so) until one frees. A
//  repeated offer of an attempt we run says STARTED again; of one we hold,
//  nothing: it starts in its turn.
static void
s_handle_offer (drover_worker_t *self, drover_msg_t *offer, int64_t now)
{
    if (self->runner && drover_runner_running (self->runner, offer->task, offer->attempt)) {
        s_send_started (self, offer->task, offer->attempt);
        return;                 //  a repeated offer: it runs already
    }
    if (s_held_find (self, offer->task, offer->attempt))
        return;                 //  a repeated offer: held already
    if (s_must_hold (self, offer))
        s_hold_offer (self, offer, now);
    else
        s_start_offer (self, offer, now);
}

//  TASK KILL: an offer held ahead ends at once, CANCELLED, no process run;
//  a running attempt is stopped, and its RESULT follows once it is reaped
static void
s_handle_kill (drover_worker_t *self, drover_msg_t *kill, int64_t now)
{
    void *handle = s_held_find (self, kill->task, kill->attempt);
    if (handle)
        s_end_held (self, handle, DROVER_OUTCOME_CANCELLED,
                    "killed while held ahead, before it started", now);
    else
    if (self->runner && drover_runner_cancel (self->runner, kill->task, kill->attempt, now) == 0)
        zsys_info ("worker: killing task=%" PRIu64 " attempt=%u", kill->task, kill->attempt);
    else
    if (self->verbose)
        zsys_debug ("worker: kill of an attempt not running task=%" PRIu64 " attempt=%u",
                    kill->task, kill->attempt);
}

//  Collect what the runner finished: give back procs and devices (the
//  attempt's processes are gone: the runner killed what was left of its
//  group and cgroup when it reaped it), keep and send results (but drop
//  those of attempts that belong to a broker state gone by); then start
//  the offers held ahead that fit the procs freed, after those RESULTs
//  (the broker frees the procs, then counts the held offer as running)
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
        drover_devices_give_back (self->devices, key);
        if (zhashx_lookup (self->orphans, key)) {
            zhashx_delete (self->orphans, key);
            drover_msg_destroy (&result);
        }
        else
            s_result_add (self, result, now);
    }
    s_start_held (self, now);
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
    s_drop_held (self, "they belong to the old state");
}

//  A broker's interval (and ack-timeout), with the STARTED wait it allows
static void
s_take_pace (drover_worker_t *self, drover_msg_t *welcome)
{
    self->heartbeat = welcome->heartbeat? welcome->heartbeat: S_HEARTBEAT;
    //  A broker that says how long it waits lets a STARTED wait a little
    //  (a quarter of that at most); one that does not gets it at once
    self->started_wait = welcome->ack_timeout / 4 < S_STARTED_WAIT_MAX? welcome->ack_timeout / 4
                                                                       : S_STARTED_WAIT_MAX;
    //  An offer held ahead goes back long before the broker's ack timer
    //  would give up on it (the broker's default, if it does not say)
    self->hold_max = (welcome->ack_timeout? welcome->ack_timeout: DROVER_DEFAULT_ACK_TIMEOUT) / 4;
}

//  WELCOME unasked (seq 0, level 8) while registered: the broker's fleet
//  grew or shrank, here is its interval now; nothing else changes
static void
s_handle_repace (drover_worker_t *self, drover_msg_t *welcome, int64_t now)
{
    uint32_t was = self->heartbeat;
    s_take_pace (self, welcome);
    if (self->next_heartbeat > now + self->heartbeat)
        self->next_heartbeat = now + self->heartbeat;
    zsys_info ("worker: heartbeat every %u ms, not %u: the broker's fleet changed",
               self->heartbeat, was);
}

//  WORKER WELCOME: registered; send again every result not yet acknowledged
static void
s_handle_welcome (drover_worker_t *self, drover_msg_t *welcome, int64_t now)
{
    //  (Not registered, any WELCOME answers the HELLO: brokers before
    //  level 8 and test doubles may leave its seq 0)
    if (welcome->seq == 0 && self->registered) {
        s_handle_repace (self, welcome, now);
        return;
    }
    if (*welcome->state_id && *self->state_id && strcmp (welcome->state_id, self->state_id))
        s_drop_old_state (self, welcome->state_id, now);
    if (*welcome->state_id)
        strcpy (self->state_id, welcome->state_id);
    s_take_pace (self, welcome);
    //  Offers ahead only as this broker grants them (level 9; an older one
    //  says none), and never more than we said
    self->ahead_granted = welcome->ahead < s_ahead_said (self)? welcome->ahead
                                                              : s_ahead_said (self);
    self->registered = true;
    self->registrations++;
    self->backoff = S_BACKOFF_MIN;
    drover_endpoints_served (self->endpoints);
    self->next_heartbeat = now + self->heartbeat;
    char waited [48] = "";      //  after "no broker answers": for how long
    if (self->unanswered_since)
        snprintf (waited, sizeof waited, " waited=%" PRId64 "s",
                  (now - self->unanswered_since) / 1000);
    zsys_notice ("worker: registered broker=%s level=%d id=%s epoch=%" PRIu64 " heartbeat=%u "
                 "ahead=%u running=%zu unacked=%zu%s", self->endpoint,
                 self->level > 1 && welcome->level? welcome->level: 1, self->id, self->epoch,
                 self->heartbeat, self->ahead_granted,
                 self->runner? drover_runner_size (self->runner): 0,
                 zlistx_size (self->pending), waited);
    s_resend_results (self, now);
}


//  --------------------------------------------------------------------------
//  Send every result not yet acknowledged again, if registered

static void
s_resend_results (drover_worker_t *self, int64_t now)
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
        //  Unknown to the broker (it restarted, or lost us): HELLO once, not
        //  per 401, after a random delay (its other workers are likely told
        //  the same now); nothing but that HELLO goes meanwhile
        if (self->registered) {
            uint32_t delay = s_jitter (self);
            zsys_notice ("worker: broker does not know us, registering again in %u ms id=%s",
                         delay, self->id);
            self->registered = false;
            self->hello_at = now;
            self->hello_again_at = now + delay + 1;
        }
        else
        if (!self->hello_again_at && now - self->hello_at >= self->heartbeat) {
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
    &&  (reply->code == DROVER_CODE_ID_IN_USE || reply->code == DROVER_CODE_FORBIDDEN)) {
        //  Another agent runs with our id (423), or our key may not
        //  register this id (403: a client's key, ids pinned to others,
        //  the id another key's, the key revoked): trying again would only
        //  make two agents take turns, or be refused the same way; stop,
        //  and say why
        zstr_free (&self->refused);
        self->refused = zsys_sprintf ("broker refused id=%s: %s", self->id,
                                      reply->reason? reply->reason: "worker id in use");
        self->refused_code = reply->code;
        zsys_error ("worker: %s", self->refused);
        self->stopping = true;
    }
    else
    if (reply->id == DROVER_MSG_ERROR && reply->seq == self->hello_seq
    &&  reply->code == DROVER_CODE_BAD_VERSION) {
        //  The broker does not take our level or release (PROTOCOL.md
        //  §12.1): another try would be refused alike, and another broker
        //  of the cluster is of its release too. Stop, and say why: an
        //  operator upgrades this worker (or the broker)
        zstr_free (&self->refused);
        self->refused = zsys_sprintf ("broker=%s refused id=%s: %s", self->endpoint, self->id,
                                      reply->reason? reply->reason
                                                   : "this worker's release is not supported");
        self->refused_code = reply->code;
        zsys_error ("worker: %s", self->refused);
        self->stopping = true;
    }
    else
    if (reply->id == DROVER_MSG_ERROR && reply->seq == self->hello_seq
    &&  reply->code == DROVER_CODE_BAD_REQUEST && self->level > 1) {
        //  A broker of level 1 takes no HELLO of a later level: speak its
        //  level on this connection (no state id, level or release)
        zsys_notice ("worker: broker=%s refused our HELLO of level %d (\"%s\"): registering "
                     "as level 1, the protocol of drover 0.1", self->endpoint, self->level,
                     reply->reason? reply->reason: "");
        self->level = 1;
        s_send_hello (self, now);
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


//  --------------------------------------------------------------------------
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
            s_handle_kill (self, msg, now);
            break;
        case DROVER_MSG_WORKER_GATHER:
            s_send_runs (self, msg->seq);
            break;
        case DROVER_MSG_REDIRECT:
            s_handle_redirect (self, msg, now);
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

//  =========================================================================
//  The loop: the actor pipe, one wait per turn, shutting down
//  =========================================================================

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

//  Stop: kill what runs, drop what is held ahead, say GOODBYE (unless we
//  already did), close
static void
s_shutdown (drover_worker_t *self, bool said_goodbye)
{
    s_drop_held (self, "stopping");
    if (self->runner && drover_runner_size (self->runner)) {
        zsys_notice ("worker: stopping, killing running=%zu", drover_runner_size (self->runner));
        drover_runner_stop_all (self->runner);
        zhashx_purge (self->procs_of);
        zhashx_purge (self->orphans);
        self->procs_used = 0;
    }
    if (self->dealer) {
        if (!said_goodbye)
            s_send_goodbye (self);
        drover_poller_set (self->poller, S_DEALER_AT, NULL);
        drover_poller_set (self->poller, S_MONITOR_AT, NULL);
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
    self->refused_code = 0;
    if (!self->handler && !self->runner) {
        //  Tasks of another user must be able to start where they start
        if (drover_taskenv_check_dir (self->taskenv, self->workdir? self->workdir: ".",
                                      &self->refused))
            return -1;
        self->runner = drover_runner_new ();
        drover_runner_set_grace (self->runner, self->grace);
        if (self->memory_limit)
            drover_runner_set_memory_limit (self->runner, self->memory_limit);
        drover_runner_set_workdir (self->runner, self->workdir);
        drover_runner_set_taskenv (self->runner, self->taskenv);
        drover_runner_set_worker (self->runner, self->id);
    }
    self->stopping = self->leaving = self->terminated = false;
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
        if (self->dealer && drover_handshake_pending (self->handshake))
            drover_poller_sent (self->poller, S_MONITOR_AT);    //  a send took in a refusal
        drover_poller_wait (self->poller, (int) s_wait_msec (self, now));
        if (zsys_interrupted)
            break;
        now = zclock_mono ();
        if (self->runner)
            drover_runner_process (self->runner, items, nitems, now);
        s_collect_results (self, now);  //  before any HELLO: it lists them (pending)
        if (drover_poller_readable (self->poller, S_PIPE_AT))
            s_handle_pipe (self, pipe);
        if (!self->stopping && self->dealer
        &&  drover_poller_readable (self->poller, S_MONITOR_AT))
            s_handle_handshake (self, now);
        if (!self->stopping && drover_poller_readable (self->poller, S_DEALER_AT))
            s_handle_dealer (self, now);
        s_collect_results (self, now);
        s_send_held_starts (self, now);
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


//  =========================================================================
//  The job: one attempt as the in-process handler sees it (drover_worker.h):
//  what to run, read from the offer's exec body, and the TASK RESULT the
//  handler fills in through the setters
//  =========================================================================

//  Return the task id
uint64_t
drover_job_task (drover_job_t *self)
{
    assert (self);
    return self->task;
}

//  Return the attempt number
uint32_t
drover_job_attempt (drover_job_t *self)
{
    assert (self);
    return self->attempt;
}

//  Return the number of arguments of the command
int
drover_job_argc (drover_job_t *self)
{
    assert (self);
    return (int) self->exec->argc;
}

//  Return one argument of the command
const char *
drover_job_argv (drover_job_t *self, int index)
{
    assert (self);
    if (index < 0 || (size_t) index >= (size_t) self->exec->argc)
        return NULL;
    return self->exec->argv [index];
}

//  Set how the attempt ended
void
drover_job_set_outcome (drover_job_t *self, int outcome)
{
    assert (self);
    self->result->outcome = (uint8_t) outcome;
}

//  Set the attempt's exit status
void
drover_job_set_exit_code (drover_job_t *self, int exit_code)
{
    assert (self);
    self->result->exit_code = exit_code;
}

//  Set the signal that ended the attempt
void
drover_job_set_signal (drover_job_t *self, int signal)
{
    assert (self);
    self->result->signal = signal;
}

//  Set the reason text
void
drover_job_set_reason (drover_job_t *self, const char *reason)
{
    assert (self);
    drover_msg_set_reason (self->result, reason);
}

//  Set the captured stdout and stderr
void
drover_job_set_output (drover_job_t *self, const uint8_t *out, size_t out_size,
                       const uint8_t *err, size_t err_size)
{
    assert (self);
    drover_msg_set_output (self->result, out, out_size, err, err_size);
}
