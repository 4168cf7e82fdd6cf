/*  =========================================================================
    testutil - helpers shared by the tests: free ports, child processes,
    waiting on events with a deadline (never sleeping to let things settle)
    =========================================================================
*/

#ifndef TESTUTIL_H_INCLUDED
#define TESTUTIL_H_INCLUDED

#include <czmq.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <sys/types.h>
#include "drover_config.h"

//  Return a TCP port on 127.0.0.1 that was free a moment ago
int
    testutil_free_port (void);

//  A free port on loopback whose next one is free too (the events of a
//  broker whose ROUTER is on the first: `drover events` finds them there)
int
    testutil_free_port_pair (void);

//  Start argv (NULL-terminated) as a child process, its stdout and stderr
//  appended to log_path (or inherited if NULL). Returns the pid, or -1.
pid_t
    testutil_spawn (const char *const argv [], const char *log_path);

//  Wait up to timeout msec for pid to exit. Returns its wait status, or -1
//  on timeout (the child is left running).
int
    testutil_wait_exit (pid_t pid, int timeout);

//  Wait up to timeout msec until process pid (a child or not) has ended, on
//  its pidfd; true if it ended (a zombie counts as ended) or never was
bool
    testutil_await_gone (pid_t pid, int timeout);

//  Send SIGTERM, wait up to timeout msec, then SIGKILL; reaps the child
void
    testutil_stop (pid_t pid, int timeout);

//  Run argv (NULL-terminated) to its end, its stdout captured into output
//  (NUL-terminated, at most size - 1 bytes kept), its stderr inherited;
//  SIGTERM at the deadline (timeout msec). Returns its wait status, or -1
//  if it had to be stopped.
int
    testutil_run_output (const char *const argv [], char *output, size_t size, int timeout);

//  testutil_run_output with stdin from /dev/null (no terminal) and stderr
//  captured into errors (NUL-terminated, at most errors_size - 1 bytes)
int
    testutil_run_cli (const char *const argv [], char *output, size_t size, char *errors,
                      size_t errors_size, int timeout);

//  Fill argv (size slots, NULL-terminated) with prefix (NULL-terminated),
//  then first and the NULL-terminated rest of args (what does not fit is
//  left out)
void
    testutil_argv_va (const char **argv, size_t size, const char *const prefix [],
                      const char *first, va_list args);

//  testutil_run_cli of prefix, first and the NULL-terminated rest of args,
//  30 s at most; returns the exit status, failing the test (showing both
//  streams) if it did not exit
int
    testutil_run_cli_va (const char *const prefix [], const char *first, va_list args,
                         char *output, size_t size, char *errors, size_t errors_size);

//  What one run of the drover CLI did (testutil_cli)
typedef struct {
    int status;                 //  exit status, 128 + signal, or -1 if it had to be stopped
    char out [65536];           //  its stdout
    char err [8192];            //  its stderr
} testutil_cli_t;

//  Run `drover --broker endpoint --broker-timeout 10 ARGS...` (args
//  NULL-terminated) as a user would, into run
void
    testutil_cli (const char *endpoint, const char *const args [], testutil_cli_t *run);

//  Assert a run exited with status and its stream (run->out or run->err)
//  holds needle; if not, fail showing both streams
void
    testutil_cli_expect (const testutil_cli_t *run, int status, const char *stream,
                         const char *needle);

//  Assert text is exactly one JSON document (RFC 8259, as the CLI prints
//  it) and a newline; if not, fail showing it
void
    testutil_assert_json (const char *text);

//  Assert that a string handed to us (ours to free) is there and equals
//  expected, then free it: for what a class's method returns to its caller
void
    testutil_assert_and_free (char *string, const char *expected);

//  Read a whole file into a fresh string (caller frees); NULL if unreadable
char *
    testutil_slurp (const char *path);

//  Count the lines of a file that contain needle, case-insensitively (0 if
//  the file cannot be read)
int
    testutil_count_lines_with (const char *path, const char *needle);

//  Wait up to timeout msec until a line of the file at path contains needle
//  (case-insensitively); false on timeout
bool
    testutil_await_line (const char *path, const char *needle, int timeout);

//  A process's resident set, bytes, from /proc/PID/status (VmRSS);
//  asserts it can be read
size_t
    testutil_rss (pid_t pid);

//  The value of one series (its whole name with labels, as written) that
//  the broker's metrics at 127.0.0.1:port show now, or -1 if absent;
//  asserts the metrics answer. Each call waits for a fresh round.
long long
    testutil_metric (int port, const char *series);

//  Wait up to timeout msec until that value is at least (or, if exactly,
//  just) value; false on timeout (saying what it was)
bool
    testutil_await_metric (int port, const char *series, long long value, bool exactly,
                           int timeout);

//  Receive one message on sock within timeout msec; NULL on timeout
zmsg_t *
    testutil_recv (zsock_t *sock, int timeout);

//  Write the CURVE key pair dir/name.key and dir/name.key_secret with the
//  real `drover keygen` (dir is made if missing); asserts it succeeds
void
    testutil_keygen (const char *dir, const char *name);

//  testutil_keygen for a worker's key that may register as worker_ids
//  ("a,b"; NULL: any)
void
    testutil_keygen_worker (const char *dir, const char *name, const char *worker_ids);

//  Pool settings with Arvados' defaults (timeouts, backoffs, rates, warn
//  every 3 failures), named drover, no types and no limits yet: a test
//  adds its own
void
    testutil_pool_defaults (drover_poolconfig_t *config);

//  A new CURVE key pair saved at path, its secret half (path_secret) made
//  mode 0600 as the broker demands; asserts both are written. The caller
//  destroys the pair
zcert_t *
    testutil_save_key_pair (const char *path);

//  Collect into pids (at most max) the processes running `drover worker`
//  with endpoint as one of their arguments: the workers a pool started for
//  a broker; returns how many
size_t
    testutil_worker_pids (const char *endpoint, pid_t *pids, size_t max);

//  ---------------------------------------------------------------------
//  Talking to a real broker over loopback with the codec (integration)

#include "drover_msg.h"
#include "drover_outbox.h"
#include "drover_assign.h"

//  A broker (and its workers) started as real processes for one test
typedef struct {
    int port;                   //  ROUTER port on 127.0.0.1
    int events_port;            //  PUB port on 127.0.0.1
    char endpoint [64];         //  tcp://127.0.0.1:port
    char events [64];           //  tcp://127.0.0.1:events_port
    char logdir [64];           //  where every process logs
    pid_t broker;               //  broker pid, or 0
    pid_t workers [8];          //  worker pids by slot, 0 if none
    char *worker_ids [8];       //  worker ids by slot
} testutil_cluster_t;

//  Start a broker with extra flags (NULL-terminated list, may be empty)
testutil_cluster_t *
    testutil_cluster_new (const char *extra_flags []);

//  Kill the broker with SIGKILL and start it again on the same ports and
//  state directory, with extra flags (NULL-terminated, may be NULL); its
//  earlier log is kept as broker-N.log
void
    testutil_cluster_kill_restart (testutil_cluster_t *self, const char *extra_flags []);

//  Start a worker in slot with id and procs, plus extra flags (NULL-terminated)
void
    testutil_cluster_add_worker (testutil_cluster_t *self, int slot, const char *id,
                                 int procs, const char *extra_flags []);

//  Stop every process (workers, then broker) and free; checks the broker
//  exits cleanly on SIGTERM
void
    testutil_cluster_destroy (testutil_cluster_t **self_p);

//  Remove a directory, its files and its sub-directories (a test's logs
//  and a broker's state directory)
void
    testutil_remove_tree (const char *path);

//  Path of a process's log file in the cluster's log directory (static buffer)
const char *
    testutil_cluster_log (testutil_cluster_t *self, const char *name);

//  Destroy an actor whose commands the tests read (testutil_expect...),
//  forgetting those still pending, so that a later actor made at the same
//  address is not served this one's leftovers
void
    testutil_actor_destroy (zactor_t **actor_p);

//  Open a DEALER to the cluster's broker that says no level (a peer of
//  level 1, answered with level 1's fields)
zsock_t *
    testutil_dealer_level_1 (testutil_cluster_t *self);

//  Say this codec's protocol level on a client's dealer (CLIENT HELLO)
//  and take the broker's CLIENT WELCOME (asserted within timeout msec)
void
    testutil_say_level (zsock_t *dealer, int timeout);

//  Open a DEALER to the cluster's broker
zsock_t *
    testutil_dealer (testutil_cluster_t *self);

//  Encode and send msg (destroys it); asserts it encodes
void
    testutil_send (zsock_t *dealer, drover_msg_t **msg_p);

//  Receive and decode one message within timeout msec; NULL on timeout.
//  Asserts that what the broker sends always decodes.
drover_msg_t *
    testutil_recv_msg (zsock_t *dealer, int timeout);

//  Receive the next message on a peer the test plays and assert its id
//  (saying which came instead); the caller destroys it
drover_msg_t *
    testutil_expect_msg (zsock_t *peer, int id, int timeout);

//  Make a message of a worker the test plays: a HELLO's fields (epoch 1,
//  procs, 1 GiB) and a report's (task, attempt, outcome EXITED); set what
//  else it needs, then testutil_send it
drover_msg_t *
    testutil_played_msg (const char *worker, uint32_t procs, int id, uint64_t task,
                         uint32_t attempt);

//  Send a request and return the reply with the same seq, skipping and
//  destroying anything else; NULL on timeout
drover_msg_t *
    testutil_request (zsock_t *dealer, drover_msg_t **msg_p, int timeout);

//  Build a TASK SUBMIT running `sh -c script`
drover_msg_t *
    testutil_submit_msg (const char *script, int priority, int procs, uint32_t flags);

//  The actions of one call into a task table, copied out of it
#define TESTUTIL_MAX_ACTIONS    256
typedef struct {
    drover_action_t items [TESTUTIL_MAX_ACTIONS];   //  in the order decided
    int count;                  //  actions held
} testutil_actions_t;

//  Take every pending action of a task table (their borrowed pointers stay
//  valid until the next call into the table); a static buffer
testutil_actions_t *
    testutil_take_actions (drover_assign_t *table);

//  Find the nth action of a type about a task (task 0: any), or NULL
drover_action_t *
    testutil_find_action (testutil_actions_t *actions, int type, uint64_t task, int nth);

//  The messages an actor's class said into an outbox as SEND or REPLY
//  records, decoded, in order, with each record's worker ("" a client)
#define TESTUTIL_MAX_SENDS      16
typedef struct {
    drover_msg_t *msgs [TESTUTIL_MAX_SENDS];    //  decoded, owned
    char workers [TESTUTIL_MAX_SENDS][DROVER_ID_MAX + 1];   //  each record's worker
    size_t count;               //  messages held
} testutil_sends_t;

//  Read every record the outbox holds into sends (empty on entry):
//  asserts each is a SEND or REPLY whose payload decodes
void
    testutil_read_sends (drover_outbox_t *outbox, testutil_sends_t *sends);

//  Destroy the messages sends holds; it is empty after
void
    testutil_sends_reset (testutil_sends_t *sends);

//  Make a QUEUED task record (drover_taskrecord) with id, as a TASK SUBMIT
//  of `true` at priority, demanding procs and mem bytes, would make it
struct _drover_taskrecord_t *
    testutil_taskrecord (uint64_t id, int priority, int procs, uint64_t mem);

//  The routes testutil_fake_table gives its client and workers
#define TESTUTIL_CLIENT_ROUTE   (const byte *) "\x00\x01" "client", 8
#define TESTUTIL_ALPHA_ROUTE    (const byte *) "\x00\x03" "alpha", 7
#define TESTUTIL_BETA_ROUTE     (const byte *) "\x00\x04" "beta", 6

//  A task table on a fake wall clock reading *now (msec since the epoch),
//  with workers alpha and beta up and its actions so far taken
drover_assign_t *
    testutil_fake_table (int64_t *now);

//  Submit "true" (1 proc) with retries from the client; asserts it is
//  accepted, takes the actions and returns its id
uint64_t
    testutil_table_submit (drover_assign_t *table, uint32_t retries);

//  A worker's TASK RESULT of a task's attempt, nothing else set (ours to
//  destroy)
drover_msg_t *
    testutil_result_msg (const char *worker, uint64_t task, uint32_t attempt, int outcome,
                         int exit_code);

//  Report a worker's TASK RESULT to a task table (reason NULL: none);
//  asserts it is accepted
void
    testutil_table_result (drover_assign_t *table, uint64_t task, const char *worker,
                           uint32_t attempt, int outcome, int exit_code, int signal,
                           const char *reason);

//  Wait until the broker lists `count` workers in health OK; false on timeout
bool
    testutil_wait_workers (zsock_t *dealer, int count, int timeout);

//  Wait until a task is RUNNING (per TASK LIST); fills worker; false on timeout
bool
    testutil_wait_running (zsock_t *dealer, uint64_t task, char *worker, int timeout);


//  What a worker's row must say (testutil_wait_worker_row)
typedef bool (testutil_row_match_fn) (const drover_worker_row_t *row, void *arg);

//  Wait until WORKER LIST has a row for worker that match (called with
//  arg) accepts; false on timeout
bool
    testutil_wait_worker_row (zsock_t *dealer, const char *worker, testutil_row_match_fn *match,
                              void *arg, int timeout);

//  Wait until WORKER LIST shows worker reserved for task (0: for none);
//  false on timeout
bool
    testutil_wait_reserved (zsock_t *dealer, const char *worker, uint64_t task, int timeout);

//  How many tasks the broker holds in any state (the counts of a TASK
//  LIST), asked on dealer within timeout msec; asserts it answers
uint64_t
    testutil_task_count (zsock_t *dealer, int timeout);

//  Submit one task and return its id; asserts the broker accepts it
uint64_t
    testutil_submit (zsock_t *dealer, drover_msg_t *submit);

//  A TASK WAIT for count tasks (copied), seq 0: the caller sets the seq if
//  it must, then sends it
drover_msg_t *
    testutil_wait_msg (const uint64_t *tasks, uint32_t count);

//  Collect the TASK DONE of each of count tasks into done [] (same order),
//  asserting none arrives twice and nothing else arrives; false on timeout
bool
    testutil_collect (zsock_t *dealer, const uint64_t *tasks, drover_msg_t **done,
                      int count, int timeout);

//  Collect the TASK DONE of each of count tasks within
//  timeout msec (testutil_collect) and assert every one SUCCEEDED
void
    testutil_expect_all_succeeded (zsock_t *dealer, const uint64_t *tasks, int count,
                                   int timeout);

//  Wait for the TASK DONE of one task; NULL on timeout
drover_msg_t *
    testutil_wait_done (zsock_t *dealer, uint64_t task, int timeout);

//  Wait for the TASK DONE of one task and assert it came, in state (saying
//  how the task ended if not); the caller checks the rest and destroys it
drover_msg_t *
    testutil_expect_done (zsock_t *dealer, uint64_t task, int state, int timeout);

//  Send a WORKER ADMIN (DROVER_ADMIN_*) and return the reply's code
int
    testutil_admin (zsock_t *dealer, const char *worker, int admin);

//  Send WORKER ADMIN with the operator's reason (NULL: none) and
//  DROVER_ADMIN_* flags; return the reply's code
int
    testutil_admin_with (zsock_t *dealer, const char *worker, int admin, const char *reason,
                         uint32_t flags);

//  Receive the next event on a SUB within timeout msec; false on timeout.
//  Asserts it is two frames, its body decodes and names the same topic.
bool
    testutil_next_event (zsock_t *sub, drover_event_t *event, int timeout);

//  Wait up to timeout msec for the event topic about worker, skipping
//  others; false on timeout
bool
    testutil_await_event (zsock_t *sub, const char *topic, const char *worker,
                          drover_event_t *event, int timeout);

//  Wait until a new SUB hears the broker: a subscription takes effect some
//  time after connecting, so hold and resume worker (an admin change that
//  publishes an event) until an event arrives, 10 s at most; false if none
bool
    testutil_await_subscription (zsock_t *sub, zsock_t *dealer, const char *worker);

//  Subscribe to the cluster's events under topic ("" for all) and wait
//  until the subscription holds (testutil_await_subscription, poking
//  worker); asserts it does. The caller destroys the SUB.
zsock_t *
    testutil_cluster_sub (testutil_cluster_t *self, zsock_t *dealer, const char *topic,
                          const char *worker);

//  ---------------------------------------------------------------------
//  Playing the broker main to one actor, through its pipe (ACTORS.md)

//  Receive the actor's next command within timeout msec, one at a time
//  out of the BATCHes it says (drover_outbox); NULL on timeout
zmsg_t *
    testutil_actor_recv (zactor_t *actor, int timeout);

//  Receive the actor's next command within timeout msec and check its
//  command word; returns the rest of the message (caller destroys)
zmsg_t *
    testutil_expect (zactor_t *actor, const char *command, int timeout);

//  Pop a string frame and check it
void
    testutil_pop_check (zmsg_t *msg, const char *expected);

//  Assert that msg's frames, read as text, are exactly the strings in args
//  (NULL-terminated), then destroy it
void
    testutil_assert_frames (zmsg_t **msg_p, va_list args);

//  Expect SEND to route for worker ("" for a client) within 2 s; return
//  its decoded payload (caller destroys)
drover_msg_t *
    testutil_expect_send (zactor_t *actor, const char *route, const char *worker);

//  Expect EVENT topic within 2 s, its body about worker with reason
//  (reason NULL: not checked)
void
    testutil_expect_event (zactor_t *actor, const char *topic, const char *worker,
                           const char *reason);

//  Hand the actor a wire message from route, as the record MSG in a
//  BATCH, as the main does; the actor owns msg now
void
    testutil_hand (zactor_t *actor, const char *route, drover_msg_t *msg);

//  testutil_hand with a route of route_size bytes
void
    testutil_hand_bytes (zactor_t *actor, const byte *route, size_t route_size,
                         drover_msg_t *msg);

//  Say the record QUEUE on a link to schedq in a BATCH, as assign does
void
    testutil_say_queue (zsock_t *link, uint64_t task, int32_t priority, uint32_t procs,
                        uint64_t mem, const char *labels);

//  Send what an outbox holds to an actor (or a link) as one BATCH, as the
//  main and the actors do at the end of a turn, and destroy the outbox:
//  commands said in one turn are read in one turn
void
    testutil_say_batch (void *to, drover_outbox_t **outbox_p);

//  Say the record FREE on a link to schedq in a BATCH, as assign does
void
    testutil_say_free (zsock_t *link, uint64_t task);

//  Say the record ASSIGN on a link to assign in a BATCH, as schedq does
void
    testutil_say_assign (zsock_t *link, uint64_t task, const char *worker);

//  Receive the next command said on a link (assign and schedq trade
//  QUEUE, FREE, ASSIGN... on it: ACTORS.md) within timeout msec and check
//  its command word; returns the rest of it (caller destroys)
zmsg_t *
    testutil_expect_link (zsock_t *link, const char *command, int timeout);

//  Receive the next command said on a link within timeout msec (0: only
//  what is there already); NULL if none (caller destroys)
zmsg_t *
    testutil_link_recv (zsock_t *link, int timeout);

//  Bind a PAIR on a fresh inproc endpoint, written to endpoint, for an
//  actor to connect its link to (the test plays the other actor)
zsock_t *
    testutil_link_bind (char *endpoint, size_t size);

//  ---------------------------------------------------------------------
//  A real etcd started by the test (tests/etcd_server.sh), on 127.0.0.1
//  with ports from testutil_free_port and its data in a fresh /tmp
//  directory

typedef struct {
    char dir [64];              //  its data and log (removed at stop, unless kept)
    char url [64];              //  http://127.0.0.1:client_port
    int client_port;            //  where clients reach it
    int peer_port;              //  its raft port (nobody joins it)
} testutil_etcd_t;

//  Start etcd and wait until it is healthy; fails the test (with the
//  script's message: install etcd-server) if it cannot
testutil_etcd_t *
    testutil_etcd_start (void);

//  Run tests/etcd_server.sh command (pause, resume) on it; asserts it succeeds
void
    testutil_etcd_signal (testutil_etcd_t *self, const char *command);

//  Stop it and free; its directory is kept (and named on stderr) if keep,
//  for a failed test, else removed. Harmless on NULL.
void
    testutil_etcd_stop (testutil_etcd_t **self_p, bool keep);

#endif
