/*  =========================================================================
    drover_client - the client API: submit tasks, wait for their results,
    cancel them, list workers and tasks, steer workers, list and steer the
    elastic pool

    One DEALER socket to the broker's ROUTER; every message is one frame
    (encoded as PROTOCOL.md says). Each request carries a sequence number the
    client increments and the broker echoes in its reply, so replies are
    matched by seq, and a late reply to an abandoned request is dropped.
    ZeroMQ connects lazily and queues what we send, so every request has a
    reply deadline (set_timeout): an unreachable broker is an error after
    that long, never a hang.

    TASK DONE may arrive at any time (for a task waited on, or submitted
    with drover_submit_set_notify). A NOTIFY one that no wait in progress asks
    for goes to the done handler (set_done_handler), if one is set: a
    caller can keep a window of tasks in flight with submit_async and poll
    alone, no TASK WAIT. Without a handler it is kept (up to a bound) and
    handed out by the next wait that asks for its task; wait delivers each
    of its tasks' results exactly once.

    Replies are read in bursts without blocking; the client sleeps (one
    poll(2) on the socket's ZMQ_FD) only once its socket is empty.

    Pipelined submission (submit_async) sends without waiting for each
    reply, up to a window of outstanding requests, and reports each
    TASK ACCEPTED or ERROR to a handler with the caller's tag: no round trip
    and no allocation per task beyond the encoded frame.

    Not thread-safe: one client per thread, as with any ZeroMQ socket.

    The API speaks its own small types, not the wire's messages: a task to
    submit (drover_submit_t), a task's result (drover_result_t), a listing
    of tasks (drover_tasks_t, rows drover_task_entry_t) and of workers
    (drover_workers_t, rows drover_worker_entry_t), and the codes of
    drover_codes.h. Install include/drover/ and include
    "drover/drover_client.h" (or put include/drover on the path).
    =========================================================================
*/

#ifndef DROVER_CLIENT_H_INCLUDED
#define DROVER_CLIENT_H_INCLUDED

#include <czmq.h>
#include "drover_codes.h"
#include "drover_submit.h"
#include "drover_workflow.h"
#include "drover_result.h"
#include "drover_tasks.h"
#include "drover_workers.h"
#include "drover_shares.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_client_t drover_client_t;

//  Defaults
#define DROVER_CLIENT_ENDPOINT      "tcp://127.0.0.1:5555"  //  unless DROVER_BROKER says
#define DROVER_CLIENT_EVENTS        "tcp://127.0.0.1:5556"  //  unless DROVER_EVENTS says
#define DROVER_CLIENT_TIMEOUT       5000        //  msec for a reply
#define DROVER_CLIENT_WINDOW        1000        //  async submits outstanding at most
#define DROVER_CLIENT_RESEND        3000        //  msec of silence before WAIT is sent again
#define DROVER_CLIENT_RESEND_MAX    30000       //  msec, the re-send interval's backoff cap
#define DROVER_CLIENT_FAILOVER      15000       //  msec a request may spend moving between
                                                //  brokers (of a list) before it gives up
#define DROVER_CLIENT_WINDOW_MAX    1000000     //  largest window accepted
#define DROVER_CLIENT_KEPT_MAX      1000000     //  early TASK DONEs kept at most
#define DROVER_CLIENT_KEPT_BYTES    (256u << 20)    //  their output, bytes at most

//  Error codes that do not come from the broker (the broker's are 300..599)
#define DROVER_CLIENT_ERR_TIMEOUT       1       //  no reply within the timeout
#define DROVER_CLIENT_ERR_INTERRUPTED   2       //  SIGINT / SIGTERM
#define DROVER_CLIENT_ERR_PROTOCOL      3       //  the broker said something unexpected
#define DROVER_CLIENT_ERR_INVALID       4       //  the request could not be encoded
#define DROVER_CLIENT_ERR_SEND          5       //  the socket refused the request
#define DROVER_CLIENT_ERR_KEY           6       //  a key file is missing, not a key, or open to others
#define DROVER_CLIENT_ERR_REFUSED       7       //  the broker refused our handshake (key, server key)

//  Called for each reply to an async submit: code 200 with the new task id,
//  or the ERROR code and reason (task 0). tag is the caller's, from submit_async.
typedef void (drover_client_ack_fn) (uint32_t seq, uintptr_t tag, uint64_t task,
                                     int code, const char *reason, void *arg);

//  Called once per task by wait with its result, or by the done handler
//  with a NOTIFY one (borrowed: drover_result_dup what you keep)
typedef void (drover_client_done_fn) (const drover_result_t *result, void *arg);

//  Called by wait as results come in (at most ~10 times a second, and once
//  at the end), and about once a second while none come, with how many of
//  the total have been delivered
typedef void (drover_client_progress_fn) (size_t done, size_t total, void *arg);

//  Create a client for the broker at endpoint; NULL means DROVER_BROKER from
//  the environment, else DROVER_CLIENT_ENDPOINT. NULL if the endpoint is bad
//  (not tcp://HOST:PORT, ipc://PATH or inproc://NAME). It connects on its
//  first request, not here: keys set before then are used from the first
//  connection on (a broker with CURVE sees no connection without them).
//  endpoint may be a comma-separated list of brokers of which one leads
//  (PROTOCOL.md §17): the client talks to the first, follows REDIRECT to
//  the leader, and moves to the next when its broker is gone (connection
//  down for a second), silent for the timeout, or knows no leader; a
//  request then goes again, unchanged, to the next broker (but a SUBMIT
//  without a key whose broker went away before answering: it fails, as
//  that broker may have accepted it), for up to DROVER_CLIENT_FAILOVER.
//  With CURVE, an item may name its broker's public key after a '=',
//  `tcp://hub1:5555=b1` (see drover_client_set_server_keys).
drover_client_t *
    drover_client_new (const char *endpoint);

//  Destroy the client, dropping whatever is still outstanding; harmless on NULL
void
    drover_client_destroy (drover_client_t **self_p);

//  Speak CURVE to the broker: this client's key pair (key_path: NAME.key
//  or NAME.key_secret, `drover keygen` writes them; the secret file must be
//  readable by its owner only) and the broker's public key file (or a
//  directory of brokers' keys: see set_server_keys). Call it
//  before the first request: the client connects again with the keys.
//  Returns 0, or -1 with the error set (DROVER_CLIENT_ERR_KEY) if a file
//  cannot be used; nothing is changed then. A handshake the broker refuses
//  (a key it does not accept, a wrong server key, CURVE on one side only)
//  fails the request in progress at once with DROVER_CLIENT_ERR_REFUSED
//  and the text "the broker refused this key (why)", not after the
//  timeout; ZeroMQ goes on reconnecting, so a later request may succeed.
int
    drover_client_set_keys (drover_client_t *self, const char *key_path,
                            const char *server_key_path);

//  Speak CURVE to several brokers, each with a key pair of its own
//  (PROTOCOL.md §16, §17): this client's key pair, and the brokers' public
//  keys it trusts, count paths each a key file (NAME.key: the key named
//  NAME) or a directory of them (count may be 0 when the list of brokers
//  gives every key as a file). Each broker of the client's list gets the
//  key its item names (`tcp://hub1:5555=b1`, or `=/etc/drover/b1.key`),
//  else the only key when one alone is trusted; a leader a REDIRECT names
//  gets the key named as that broker (its --name), if one is trusted, and
//  is not talked to otherwise (the client tries the next of its list).
//  drover_client_set_keys is this with one path. Returns 0, or -1 with the
//  error set (DROVER_CLIENT_ERR_KEY): a file that cannot be used, a key
//  the list names that is not trusted, a broker of the list without a
//  key (several are trusted and its item names none); nothing is changed
//  then.
int
    drover_client_set_server_keys (drover_client_t *self, const char *key_path,
                                   const char *const *server_keys, size_t count);

//  Return the endpoint the client talks to (now: with a list, the one it
//  moved to last)
const char *
    drover_client_endpoint (drover_client_t *self);

//  Set the reply deadline, msec (> 0); default DROVER_CLIENT_TIMEOUT
void
    drover_client_set_timeout (drover_client_t *self, int msec);

//  Return the reply deadline, msec
int
    drover_client_timeout (drover_client_t *self);

//  Set how long wait stays silent before sending WAIT again, msec (> 0);
//  it doubles while nothing arrives, up to DROVER_CLIENT_RESEND_MAX. Keyed
//  submits not yet answered go again after each such silence too.
void
    drover_client_set_resend (drover_client_t *self, int msec);

//  Return the last error's code (0 if none): a broker status code, or a
//  DROVER_CLIENT_ERR_* value
int
    drover_client_error_code (drover_client_t *self);

//  Return the last error's text ("" if none): the broker's reason, or ours
const char *
    drover_client_error_text (drover_client_t *self);

//  Return the broker state id of the last TASK ACCEPTED that had one
//  ("" if none): what this client's WAITs name
const char *
    drover_client_state_id (drover_client_t *self);

//  Return a status code in plain words, e.g. "queue full" for 301
const char *
    drover_client_code_name (int code);

//  Submit a task and wait for its id (submit is the caller's, who may send
//  it again). Returns 0 with *task_p set, or -1.
int
    drover_client_submit (drover_client_t *self, drover_submit_t *submit, uint64_t *task_p);

//  Submit a whole workflow and wait for its ids (the workflow is the
//  caller's): *workflow_p gets the workflow's own id, ids [i] the task id
//  of step i + 1 (ids holds drover_workflow_size entries). The broker
//  accepts every step or none. Returns 0, or -1 (the error text names the
//  step at fault; a broker below level 3: refused here, nothing sent).
int
    drover_client_submit_workflow (drover_client_t *self, drover_workflow_t *workflow,
                                   uint64_t *workflow_p, uint64_t *ids);

//  Set the handler for async submit replies (and its argument). Handlers
//  run inside the client's calls and must not call the client.
void
    drover_client_set_ack_handler (drover_client_t *self, drover_client_ack_fn *handler,
                                   void *arg);

//  Set the handler (NULL: none) for the results of tasks submitted with
//  drover_submit_set_notify: it gets each such result exactly once, as it
//  arrives during submit_async, poll, flush or any request, and during a
//  wait unless that wait asks for the task (the wait's on_done gets it
//  then). Without a handler they are kept for a later wait, as before.
//  The handler must not call the client.
void
    drover_client_set_done_handler (drover_client_t *self, drover_client_done_fn *handler,
                                    void *arg);

//  Set the most async submits outstanding at once (1..DROVER_CLIENT_WINDOW_MAX).
//  Returns 0, or -1 while async submits are outstanding (nothing changed).
int
    drover_client_set_window (drover_client_t *self, uint32_t window);

//  Send a submit without waiting for its reply; tag comes back to the
//  ack handler. Blocks only while the window is full, handling replies.
//  Returns the request's seq (> 0), or 0 on error (timeout: acks stopped
//  coming for the timeout; the request was not sent).
uint32_t
    drover_client_submit_async (drover_client_t *self, drover_submit_t *submit, uintptr_t tag);

//  Handle async replies that have arrived, waiting up to msec (0: don't
//  wait). Returns the number of async submits still outstanding, or -1
//  if interrupted or the broker refused our handshake (error set).
int
    drover_client_poll (drover_client_t *self, int msec);

//  Wait until every async submit has its reply. Returns 0, or -1 if
//  replies stopped coming for the timeout (or on interrupt).
int
    drover_client_flush (drover_client_t *self);

//  Return how many async submits are outstanding
size_t
    drover_client_outstanding (drover_client_t *self);

//  Wait until each of count tasks has its result, calling on_done once
//  per task (duplicates are dropped) and on_progress as they come (either
//  may be NULL). Sends WAIT for the tasks (in chunks) and again for those
//  still pending after DROVER_CLIENT_RESEND of silence. Each WAIT names
//  the broker state id of the last TASK ACCEPTED this client had: a broker
//  with another state (its state directory was wiped) refuses it with
//  DROVER_CODE_STATE_CHANGED (412): the ids are not its tasks. Returns 0
//  when all are done, or -1 if the broker refused the WAIT (4xx/5xx),
//  stopped answering for the timeout, or on interrupt.
int
    drover_client_wait (drover_client_t *self, const uint64_t *tasks, size_t count,
                        drover_client_done_fn *on_done, drover_client_progress_fn *on_progress,
                        void *arg);

//  Cancel a task. Returns 0, or -1 (e.g. 404 unknown, 410 already final).
int
    drover_client_cancel (drover_client_t *self, uint64_t task);

//  Set a worker's admin setting (DROVER_ADMIN_RUN, HOLD or DRAIN). Returns 0 or -1.
int
    drover_client_admin (drover_client_t *self, const char *worker, int admin);

//  Set a worker's admin setting with the operator's reason (NULL or "":
//  none, at most 256 bytes) and DROVER_ADMIN_* flags (DROVER_ADMIN_EXIT
//  with DRAIN: the worker leaves once idle). The broker keeps it by worker
//  id, also for a worker not connected now. Returns the broker's answer,
//  e.g. "HOLD" or "HOLD (not connected: kept for when it joins)", a string
//  the caller frees (zstr_free), or NULL on error.
char *
    drover_client_admin_reason (drover_client_t *self, const char *worker, int admin,
                                const char *reason, uint32_t flags);

//  Ask for the workers. Returns a listing the caller destroys, or NULL.
drover_workers_t *
    drover_client_workers (drover_client_t *self);

//  Ask for the fair shares: accounts and owners (SHARE LIST; needs a broker
//  of level 4). Returns a listing the caller destroys, or NULL.
drover_shares_t *
    drover_client_shares (drover_client_t *self);

//  Set an account's or an owner's weight, members and quotas (SHARE ADMIN
//  set; an admin's request, needs a broker of level 4); the broker keeps
//  them across restarts. Returns 0, or -1 with the error set (an invalid
//  name, members or device list is refused here).
int
    drover_client_share_set (drover_client_t *self, const char *name,
                             const drover_share_set_t *set);

//  Forget what drover_client_share_set set for name (SHARE ADMIN drop): it
//  falls back to the broker's settings. Returns 0, or -1 with the error set.
int
    drover_client_share_drop (drover_client_t *self, const char *name);

//  What a backup made (drover_client_backup)
typedef struct {
    uint64_t pages;                 //  database pages copied
    uint64_t bytes;                 //  the backup file's size
    uint32_t msec;                  //  how long the copy took, msec
} drover_backup_result_t;

//  Ask the broker to copy its state, while it serves, into path: a new
//  file that a broker can be started on (docs/operating.md, "Backups and
//  restore"). path is absolute and names a file on the broker's host,
//  which the broker writes (a relative one is refused here). An admin's
//  request; needs a broker of level 5 (refused here, saying so, for an
//  older one). Waits for the copy up to msec (0: an hour) instead of the
//  client's timeout. Returns 0 with *result set (result may be NULL), or
//  -1 with the error set: the broker's reason (the file exists, its
//  directory cannot be written, a backup runs already, the state is in
//  PostgreSQL or not kept, the disk filled up).
int
    drover_client_backup (drover_client_t *self, const char *path, int msec,
                          drover_backup_result_t *result);

//  Ask for task counts and up to limit rows (newest first; of QUEUED alone,
//  in the order they will run) in one state, or in every state if state is
//  255. Returns a listing the caller destroys, or NULL.
drover_tasks_t *
    drover_client_tasks (drover_client_t *self, int state, uint32_t limit);

//  drover_client_tasks, the rows only of tasks that have every one of the
//  nlabels labels ("k=v"; at most 16). A broker before this filter (TASK
//  LIST with labels, PROTOCOL.md §7.15) refuses the request as malformed
//  (ERROR 400); without labels the request is the one it knows.
drover_tasks_t *
    drover_client_tasks_labeled (drover_client_t *self, int state, uint32_t limit,
                                 const char *const *labels, uint32_t nlabels);

//  Ask the pool to hold, drain, run or destroy an instance (action:
//  DROVER_POOLADMIN_*). Returns the broker's answer (e.g. "hold",
//  "destroying"), a string the caller frees (zstr_free), or NULL with the
//  error set: 404 no such instance, 410 it is shutting down, 503 the
//  broker has no pool, 403 (CURVE) not an admin key.
char *
    drover_client_pool_admin (drover_client_t *self, const char *instance, int action);

//  Scale a service to replicas (SERVICE ADMIN scale). Returns 0, or -1
//  with the error set: 404 no such service, 302, 403.
int
    drover_client_service_scale (drover_client_t *self, const char *name, uint32_t replicas);

//  Delete a service and stop its replicas (SERVICE ADMIN delete). Returns
//  0, or -1 with the error set: 404 no such service, 403.
int
    drover_client_service_delete (drover_client_t *self, const char *name);

//  Where a worker or client of named queue talks (PROTOCOL.md §17): asks
//  QUEUES of this client's brokers and returns the queue's endpoints, its
//  owner's first, as one comma-separated list (the caller frees it:
//  zstr_free), to give drover_client_new or drover_worker_new. NULL with
//  the error set: 404 no such queue (the text names those there are), 503
//  no broker offers it now, DROVER_CLIENT_ERR_INVALID not a queue name,
//  or the request's own failure.
char *
    drover_client_queue_endpoints (drover_client_t *self, const char *queue);

#ifdef __cplusplus
}
#endif

#endif
