/*  =========================================================================
    drover_worker - the worker API: registers with a broker and runs what
    it offers

    A worker holds one DEALER to the broker. It says WORKER HELLO (its id,
    an epoch that changes per process start, procs, memory, labels, its
    counted devices, and the attempts it still runs), expects WORKER
    WELCOME, then heartbeats with its stats every interval the broker
    asked for, from a loop that
    never runs task code and never waits on a task. Each TASK OFFER is
    acknowledged with TASK STARTED at once (or, when it ends at once, as
    with the in-process handler, by its RESULT alone) and ends with a TASK RESULT,
    which the worker keeps (and sends again after re-registering) until the
    broker answers it with OK, or ERROR 409 / 404. TASK KILL cancels an
    attempt; WORKER LEAVE makes it finish what runs, say GOODBYE and end.
    A worker set to hold offers ahead (drover_worker_set_ahead, protocol
    level 9) says so in HELLO; when the broker's WELCOME grants it, it
    keeps up to that many offers that came past its free procs, without a
    STARTED, and starts them in order as procs free (after the RESULT that
    freed them). One held for a quarter of the broker's ack-timeout goes
    back, RESULT RETURNED; a TASK KILL of one ends it CANCELLED at once. A
    new HELLO (a lost connection, a broker that forgot us) drops them: the
    broker puts back what HELLO does not list.
    ERROR 401 makes it say HELLO again; ERROR 423 to its HELLO (another
    live agent has its id) or 403 (its key may not register that id: a
    key of another role, ids pinned to others, the id another key's, a
    revoked key) ends it; silence from the broker while a
    reply is due makes it drop the socket and connect anew with backoff
    (250 ms doubling to 5 s), saying so at WARNING (when nothing ever
    answers: each time the backoff grows, then once a minute).

    Two kinds of executor plug in:
    - the process runner (drover_runner), the default: each attempt is a
      child process; what `drover worker` uses.
    - an in-process handler set with drover_worker_set_handler: called in
      the loop's thread for each offer, it must return at once with the
      result filled in. No fork, and no allocation beyond the decoded offer
      and the result kept until acknowledged: for embedders and benchmarks.

    Two ways to run the loop:
    - drover_worker_run (self) in the caller's thread, until WORKER LEAVE
      or SIGINT/SIGTERM (zsys_interrupted);
    - zactor_new (drover_worker_actor, self) in its own thread, until
      WORKER LEAVE or zactor_destroy ($TERM). The actor borrows self:
      destroy the actor before the worker.
    On a stop (not a LEAVE) the worker kills what runs (SIGTERM, then SIGKILL
    after the grace) and says GOODBYE; the broker requeues those tasks.

    The in-process handler sees an attempt as a drover_job_t (its task,
    attempt and argv; its result to fill in), not the wire's messages.
    =========================================================================
*/

#ifndef DROVER_WORKER_H_INCLUDED
#define DROVER_WORKER_H_INCLUDED

#include <czmq.h>
#include "drover_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_worker_t drover_worker_t;

typedef struct _drover_job_t drover_job_t;

//  A worker's counted devices (the agent's drover_devices inventory)
typedef struct _drover_devices_t drover_devices_t;

//  An in-process executor. Runs one attempt (job), in the worker loop's
//  thread, and returns at once. The job's result starts as exited with
//  code 0; the handler may set its outcome, exit code, signal, reason and
//  output (drover_job_set_*). Return 0, or -1 to report SPAWN_FAILED
//  (with the reason the handler set, or "handler failed").
typedef int (drover_worker_handler_fn) (void *arg, drover_job_t *job);

//  Create a worker for the broker at endpoint, with an id (printable, no
//  spaces, 1..64 bytes), the procs it offers and its memory in bytes.
//  endpoint may be a comma-separated list of brokers, of which one leads
//  (PROTOCOL.md §17): the worker follows REDIRECT and moves on when its
//  broker is gone; with CURVE, an item may name its broker's public key
//  after a '=', `tcp://hub1:5555=b1` (see drover_worker_set_server_keys).
//  Returns NULL if the id or procs (>= 1) is not valid, or the list holds
//  no endpoint.
drover_worker_t *
    drover_worker_new (const char *endpoint, const char *id, uint32_t procs, uint64_t mem);

//  Destroy a worker; kills attempts still running. Harmless on NULL.
void
    drover_worker_destroy (drover_worker_t **self_p);

//  Add a "key=value" label. Returns 0, or -1 if invalid or past DROVER_LABELS_MAX.
int
    drover_worker_set_label (drover_worker_t *self, const char *label);

//  Set the heartbeat interval in msec used until the broker's WELCOME
//  names its own (default 1000)
void
    drover_worker_set_heartbeat (drover_worker_t *self, uint32_t msec);

//  Set how the memory an offer asks (--mem) bounds its task, through the
//  host's memory controller (cgroup v2 memory.max / memory.high, else v1
//  memory.limit_in_bytes / memory.soft_limit_in_bytes): "hard" (the OOM
//  killer kills in a task past it, which ends with outcome OOM), "soft"
//  (reclaimed and throttled past it) or "off". Before the loop runs.
//  Default: $DROVER_MEMORY_LIMIT, else "hard". Returns 0, or -1 if mode
//  is none of those.
int
    drover_worker_set_memory_limit (drover_worker_t *self, const char *mode);

//  Add counted devices, as `drover worker --device` says: NAME=COUNT (the
//  indices 0..COUNT-1) or NAME=I,J,... (those indices, I-J a range), one
//  call per name. HELLO tells the broker the count of each name (protocol
//  level 4); each offer's attempt is given the lowest free indices of
//  what it asks, never one another running attempt holds, told them in
//  its environment (DROVER_DEVICES_<NAME> for every name, and for gpu
//  CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER=PCI_BUS_ID) and in TASK
//  STARTED ("gpu=0,2;fpga=4"), and gives them back once its processes are
//  gone. An offer asking more than is free ends at once, MACHINE_FAILED,
//  its reason naming the device short. Before the loop runs. Returns 0,
//  or -1 with why in *error_p (caller frees with zstr_free).
int
    drover_worker_add_device (drover_worker_t *self, const char *spec, char **error_p);

//  Take an inventory of counted devices (drover_devices: parsed --device
//  values and detected GPUs) in place of the worker's own; the worker owns
//  it now and *devices_p is NULL. Before the loop runs.
void
    drover_worker_set_devices (drover_worker_t *self, drover_devices_t **devices_p);

//  Set the msec between SIGTERM and SIGKILL when killing an attempt (default 5000)
void
    drover_worker_set_grace (drover_worker_t *self, uint32_t msec);

//  Set the work directory: tasks start there (a task's own cwd is taken
//  from there), and the heartbeat's disk stats describe its filesystem
//  (default: the current directory). A task that cannot start there, for
//  it went away, is the machine's failure (MACHINE_FAILED). Before the
//  loop runs.
void
    drover_worker_set_workdir (drover_worker_t *self, const char *workdir);

//  Pass the variables of this process that list names ("NAME[,NAME...]",
//  a NAME ending in * for every name it starts) to tasks run as child
//  processes, which otherwise see a base environment only (PATH=/usr/local/
//  bin:/usr/bin:/bin, HOME, USER and LOGNAME of their user, LANG=C.UTF-8)
//  and their own entries. Returns 0, or -1 with why in *error_p (caller
//  frees): not a name, or one that could name a DROVER_* variable (the
//  agent's own keys and settings are never passed). Before the loop runs.
int
    drover_worker_pass_env (drover_worker_t *self, const char *list, char **error_p);

//  Run tasks as the unprivileged user called name (initgroups, setgid,
//  setuid in the child before exec). Returns 0, or -1 with why in *error_p
//  (caller frees): this process is not root, no such user, or it is root.
//  The loop then refuses to start (drover_worker_refused) if that user
//  cannot enter the work directory. Before the loop runs.
int
    drover_worker_set_user (drover_worker_t *self, const char *name, char **error_p);

//  Set how many offers the worker holds beyond its free procs (HELLO's
//  ahead, protocol level 9): 0 (the default) none, at most DROVER_AHEAD_MAX
//  (64; more is taken as 64). It holds only what the broker's WELCOME
//  grants, and nothing with an in-process handler. Before the loop runs.
void
    drover_worker_set_ahead (drover_worker_t *self, uint32_t ahead);

//  Return the number of offers held ahead now, not yet started (for tests
//  and logs; from the loop's thread, or once it has ended)
size_t
    drover_worker_held (drover_worker_t *self);

//  Run attempts in-process with handler instead of as child processes
void
    drover_worker_set_handler (drover_worker_t *self, drover_worker_handler_fn *handler,
                               void *arg);

//  Speak CURVE to the broker: the worker's key pair (key_path: NAME.key
//  or NAME.key_secret, `drover keygen` writes them; the secret file must
//  be readable by its owner only) and the broker's public key file (or a
//  directory of brokers' keys: see set_server_keys). Before the loop runs. Returns 0, or -1 with a message in *error_p (caller
//  frees) if a file cannot be used. A handshake the broker refuses (a key
//  it does not accept for workers, a wrong server key, CURVE on one side
//  only) is logged at ERROR, "the broker refused this key (why)" (again
//  when the reason changes, else once a minute), and the worker goes on
//  trying at its reconnect pace (250 ms doubling to 5 s): the broker's
//  operator may yet add the key.
int
    drover_worker_set_keys (drover_worker_t *self, const char *key_path,
                            const char *server_key_path, char **error_p);

//  Speak CURVE to several brokers, each with a key pair of its own
//  (PROTOCOL.md §16, §17): the worker's key pair, and the brokers' public
//  keys it trusts, count paths each a key file (NAME.key: the key named
//  NAME) or a directory of them (count may be 0 when the list of brokers
//  gives every key as a file). Each broker of the worker's list gets the
//  key its item names (`tcp://hub1:5555=b1`, or `=/etc/drover/b1.key`),
//  else the only key when one alone is trusted; a leader a REDIRECT names
//  gets the key named as that broker (its --name), if one is trusted, and
//  is not talked to otherwise (the worker moves to the next of its list).
//  drover_worker_set_keys is this with one path. Before the loop runs.
//  Returns 0, or -1 with a message in *error_p (caller frees): a file
//  that cannot be used, a key the list names that is not trusted, a
//  broker of the list without a key (several are trusted and its item
//  names none).
int
    drover_worker_set_server_keys (drover_worker_t *self, const char *key_path,
                                   const char *const *server_keys, size_t count,
                                   char **error_p);

//  Log every message sent and received
void
    drover_worker_set_verbose (drover_worker_t *self, bool verbose);

//  Return the worker id
const char *
    drover_worker_id (drover_worker_t *self);

//  Return the epoch this worker registers with
uint64_t
    drover_worker_epoch (drover_worker_t *self);

//  Run the loop in this thread until WORKER LEAVE or an interrupt.
//  Returns 0, or -1 if the endpoint could not be used, the tasks' user
//  cannot enter the work directory, or the broker refused the worker for
//  good (drover_worker_refused says why of those last two).
int
    drover_worker_run (drover_worker_t *self);

//  Run the loop as a zactor: args is the drover_worker_t (borrowed).
//  Pipe commands: $TERM (stop), COUNTERS (replies tasks(8) acked(8)).
//  When the loop ends by itself (LEAVE) it says DONE on the pipe and
//  waits for $TERM.
void
    drover_worker_actor (zsock_t *pipe, void *args);

//  Return the number of offers started (attempts run or running)
uint64_t
    drover_worker_tasks_run (drover_worker_t *self);

//  Return the number of results the broker acknowledged with OK
uint64_t
    drover_worker_results_acked (drover_worker_t *self);

//  Return the number of results the broker refused as stale or unknown
//  (ERROR 409 or 404): dropped, not sent again
uint64_t
    drover_worker_results_stale (drover_worker_t *self);

//  Return the number of times the worker registered (WELCOME received)
uint64_t
    drover_worker_registrations (drover_worker_t *self);

//  Return the number of handshakes the broker refused
uint64_t
    drover_worker_refusals (drover_worker_t *self);

//  Return why the broker refused the worker for good (ERROR 423 to its
//  HELLO: another live agent has its id; 403: its key may not register
//  it), or why it could not start (the
//  tasks' user cannot enter the work directory), or NULL (borrowed)
const char *
    drover_worker_refused (drover_worker_t *self);

//  Return the status code the broker refused the worker with for good:
//  423 or 403 (above), 426 (its release or protocol level is not one the
//  broker takes: PROTOCOL.md §12.1), or 0
uint32_t
    drover_worker_refused_code (drover_worker_t *self);

//  Set the release the worker says in HELLO in place of drover's own
//  (PROTOCOL.md §7.1): for tests of a broker's health/min-release. Before
//  the loop runs.
void
    drover_worker_set_release (drover_worker_t *self, const char *release);

//  Return the task id of the job the handler runs
uint64_t
    drover_job_task (drover_job_t *self);

//  Return its attempt number, 1-based
uint32_t
    drover_job_attempt (drover_job_t *self);

//  Return the number of arguments of its command (>= 1)
int
    drover_job_argc (drover_job_t *self);

//  Return argument index of its command (borrowed), NULL past the end
const char *
    drover_job_argv (drover_job_t *self, int index);

//  Set how the attempt ended: a drover_outcome_t (DROVER_OUTCOME_EXITED...)
void
    drover_job_set_outcome (drover_job_t *self, int outcome);

//  Set the attempt's exit status
void
    drover_job_set_exit_code (drover_job_t *self, int exit_code);

//  Set the signal that ended the attempt
void
    drover_job_set_signal (drover_job_t *self, int signal);

//  Set the reason text (copied)
void
    drover_job_set_reason (drover_job_t *self, const char *reason);

//  Set the attempt's captured stdout and stderr (copied; NULL, 0 for none)
void
    drover_job_set_output (drover_job_t *self, const uint8_t *out, size_t out_size,
                           const uint8_t *err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
