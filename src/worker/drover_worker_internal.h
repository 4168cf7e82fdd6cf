/*  =========================================================================
    drover_worker_internal - what the worker's source files share

    The worker (include/drover/drover_worker.h) is one object in three files,
    each one concern: drover_worker.c has the object, its settings, and
    the loop; drover_worker_tasks.c has the offers it runs and their
    results, and acting on each message from the broker;
    drover_worker_uplink.c has the link to the broker: the DEALER,
    registering, heartbeats, silence and reconnects, and reading what the
    broker sends. Not an API: only those three files include this.
    =========================================================================
*/

#ifndef DROVER_WORKER_INTERNAL_H_INCLUDED
#define DROVER_WORKER_INTERNAL_H_INCLUDED

#include "drover_msg.h"
#include "drover_worker.h"
#include "drover_runner.h"
#include "drover_poller.h"
#include "drover_handshake.h"
#include "drover_endpoints.h"
#include "drover_serverkeys.h"
#include "drover_defaults.h"

#define DROVER_WORKER_STARTED_RING  4096    //  recent TASK STARTED remembered, for 409/404
#define DROVER_WORKER_DEALER_AT     0       //  the DEALER's index in the poller
#define DROVER_WORKER_PIPE_AT       1       //  the actor pipe's
#define DROVER_WORKER_MONITOR_AT    2       //  the DEALER's handshake monitor's
#define DROVER_WORKER_HEARTBEAT     DROVER_DEFAULT_HEARTBEAT    //  msec, until WELCOME says otherwise
#define DROVER_WORKER_BACKOFF_MIN   250     //  msec before the first reconnect

//  A TASK STARTED we sent, in case the broker refuses it
//  One attempt the in-process handler runs (drover_job.c): lives on the
//  loop's stack for the handler's call
struct _drover_job_t {
    uint64_t task;                  //  the offer's task
    uint32_t attempt;               //  the offer's attempt
    const drover_exec_t *exec;      //  the offer's decoded body, borrowed
    drover_msg_t *result;           //  the TASK RESULT being filled in, borrowed
};

typedef struct {
    uint32_t seq;                   //  seq it went under, 0 = free slot
    uint64_t task;                  //  task id
    uint32_t attempt;               //  attempt number
} drover_worker_started_t;

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
    char *workdir;                  //  work directory (tasks, disk stats), or NULL, owned
    drover_taskenv_t *taskenv;      //  what tasks see: their user, their environment, owned
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
    int64_t next_heartbeat;         //  msec (mono) of the next heartbeat
    int64_t expect_since;           //  msec since a reply is due and none came, 0 if none due
    int64_t hello_at;               //  msec when the last HELLO went
    int64_t reconnect_at;           //  msec of the next connect while dealer is NULL
    int64_t hello_again_at;         //  msec (mono) to say HELLO again on this connection, after
                                    //  a REDIRECT that left us nowhere else to go; 0 none
    char stayed_for [DROVER_ENDPOINT_MAX + 1];  //  the leader that REDIRECT named ("" none)
    uint64_t stay_said_in;          //  registrations + 1 when we last said we stay, 0 never
    uint32_t backoff;               //  msec to wait before the next reconnect
    int64_t unanswered_since;       //  msec (mono) since a reply is due that never came, 0 while the broker answers
    uint32_t unanswered;            //  connections dropped unanswered since then
    uint32_t warned_retry;          //  msec to the next try our last "no broker answers" said, 0 if none since
    int64_t warned_at;              //  msec (mono) of that warning
    drover_worker_started_t started [DROVER_WORKER_STARTED_RING];   //  recent STARTEDs, by seq modulo the size
    //  Counters
    uint64_t tasks_run;             //  offers started
    uint64_t results_acked;         //  results answered OK
    uint64_t results_stale;         //  results answered 409 / 404
    uint64_t registrations;         //  WELCOMEs received
    uint64_t malformed;             //  undecodable messages dropped
};


//  In drover_worker_uplink.c

//  Return the next request number: 1, 2, ... 2^32-1, then 1 again (0 is "none")
uint32_t
    drover_worker_next_seq (drover_worker_t *self);

//  Note that we sent something that the broker answers
void
    drover_worker_expect_reply (drover_worker_t *self, int64_t now);

//  Encode and send a message without blocking. Returns 0, or -1 if it
//  could not be encoded or queued (peer gone, queue full).
int
    drover_worker_send (drover_worker_t *self, drover_msg_t *msg);

//  Say WORKER HELLO with what we offer, the attempts still running and
//  those whose result is not yet acknowledged
void
    drover_worker_send_hello (drover_worker_t *self, int64_t now);

//  Answer a WORKER GATHER of seq with WORKER RUNS: the attempts listed as
//  in HELLO
void
    drover_worker_send_runs (drover_worker_t *self, uint32_t seq);

//  Say GOODBYE
void
    drover_worker_send_goodbye (drover_worker_t *self);

//  Create the DEALER, connect it and say HELLO. Returns 0, or -1 if the
//  endpoint is not usable.
int
    drover_worker_connect (drover_worker_t *self, int64_t now);

//  Drop the DEALER and connect again after the backoff
void
    drover_worker_disconnect (drover_worker_t *self, int64_t now);

//  Take what the DEALER's handshake monitor said: a refusal is logged and
//  the socket dropped, to connect again after the backoff
void
    drover_worker_handle_handshake (drover_worker_t *self, int64_t now);

//  REDIRECT from a broker that does not serve: talk to the leader it
//  names, or to the next broker of the list (PROTOCOL.md §17)
void
    drover_worker_handle_redirect (drover_worker_t *self, drover_msg_t *redirect, int64_t now);

//  Read what the broker sent, up to a batch, without blocking, and act on
//  each message (drover_worker_handle_message)
void
    drover_worker_handle_dealer (drover_worker_t *self, int64_t now);

//  Timers: reconnect, silence, heartbeat, results to send again, and
//  leaving once idle
void
    drover_worker_tick (drover_worker_t *self, int64_t now);

//  Return the msec until the loop has something to do
long
    drover_worker_wait_msec (drover_worker_t *self, int64_t now);

//  In drover_worker_tasks.c

//  Act on one decoded message from the broker
void
    drover_worker_handle_message (drover_worker_t *self, drover_msg_t *msg, int64_t now);

//  Send every result not yet acknowledged again, if registered
void
    drover_worker_resend_results (drover_worker_t *self, int64_t now);

//  Collect what the runner finished: give back procs, keep and send results
//  (but drop those of attempts that belong to a broker state gone by)
void
    drover_worker_collect_results (drover_worker_t *self, int64_t now);

#endif
