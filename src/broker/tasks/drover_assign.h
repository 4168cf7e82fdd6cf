/*  =========================================================================
    drover_assign - the task table: every task's state, attempt, worker,
    budgets, last result and waiters; fences results by (task, attempt)

    A plain class, called with `now` (msec, monotonic), so that every
    decision is tested without threads or sleeps. It does no I/O: each call
    appends what should be said to an internal list of actions (offer this
    attempt to that worker, queue this task, tell this waiter, publish this
    event...), which the caller drains with drover_assign_next_action
    and turns into messages. Requests return a status code (200, or the
    ERROR code to answer) and a reason text.

    Borrowed pointers in an action (body, labels, outputs) stay valid until
    the next call into the table made once every action has been drained:
    tasks are only ever freed at the start of such a call.
    =========================================================================
*/

#ifndef DROVER_ASSIGN_H_INCLUDED
#define DROVER_ASSIGN_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"
#include "drover_waiters.h"
#include "drover_change.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_assign_t drover_assign_t;

//  Limits that are not settings. A new table starts from the assign/
//  settings' defaults (drover_defaults.h); the broker's CONFIGURE sets them.
#define DROVER_ASSIGN_TASK_WAITERS   DROVER_WAITERS_PER_TASK   //  waiters on one task, at most
#define DROVER_ASSIGN_MAX_WAITERS    4000000     //  waiters on all tasks, at most
#define DROVER_ASSIGN_SUMMARY_MAX    80          //  bytes of argv in a TASK TABLE row

#define DROVER_FREE_RETURNED         1           //  FREE's flags: given back unstarted (level 9)

//  What the caller should do, in the order the table decided it
typedef enum {
    DROVER_ACTION_QUEUE = 1,        //  schedq: QUEUE task priority procs mem labels
    DROVER_ACTION_DEQUEUE = 2,      //  schedq: DEQUEUE task
    DROVER_ACTION_FREE = 3,         //  schedq: FREE task (flags DROVER_FREE_RETURNED: an
                                    //  offer held ahead, given back unstarted)
    DROVER_ACTION_SUCCESS = 4,      //  probation: SUCCESS worker
    DROVER_ACTION_FAILURE = 5,      //  the host failed: probation FAILURE and schedq PROBATION
    DROVER_ACTION_OFFER = 6,        //  SEND TASK OFFER to route (worker)
    DROVER_ACTION_KILL = 7,         //  SEND TASK KILL task attempt to route (worker)
    DROVER_ACTION_DONE = 8,         //  SEND TASK DONE to route (a waiter), echoing seq
    DROVER_ACTION_EVENT = 9,        //  EVENT topic: task, attempt, worker, reason, and the
                                    //  task's state after it for the store: state,
                                    //  retries_left, lost; once final, the DONE fields
    DROVER_ACTION_PLACED = 10,      //  schedq: PLACED task worker procs mem labels (adopted
                                    //  after a restart)
    DROVER_ACTION_SETTLED = 11      //  schedq: SETTLED worker: what an UP listed is counted
                                    //  (PLACED said) and its killed attempts have ended
} drover_action_type_t;

//  One action. Which fields each type uses is listed above; the others are
//  zero. Strings and the route are copies; body, labels, out and err are
//  borrowed from the table (see the note at the top).
typedef struct {
    int type;                       //  drover_action_type_t
    uint64_t task;                  //  task id
    uint32_t attempt;               //  attempt number, 0 if never assigned
    char worker [DROVER_ID_MAX + 1];    //  worker id, or ""
    byte route [256];               //  OFFER, KILL: the worker's; DONE: the waiter's
    size_t route_size;              //  bytes in route, 1..255 (0 if unused)
    uint32_t seq;                   //  DONE: seq of the WAIT, 0 for a submit's notify
    const char *topic;              //  EVENT: "task.queued", ...; static
    char reason [DROVER_REASON_MAX + 1];    //  FAILURE, EVENT, DONE: text or ""
    uint32_t retries_left;          //  EVENT: the task's own failures still allowed
    uint16_t lost;                  //  EVENT: workers lost with the task so far
    int32_t priority;               //  QUEUE, OFFER: lower runs first
    uint32_t procs;                 //  QUEUE, OFFER, PLACED: procs demanded
    uint64_t mem;                   //  QUEUE, OFFER, PLACED: bytes demanded
    uint32_t timeout;               //  OFFER: task timeout, msec, 0 = none
    const char *labels;             //  QUEUE, PLACED: "k=v" joined by "\n", or ""; borrowed
    const char *devices;            //  QUEUE, OFFER, PLACED: the device demand, "gpu=2", or
                                    //  ""; borrowed
    uint32_t flags;                 //  QUEUE, PLACED: DROVER_SUBMIT_PREEMPTIBLE if so
    const byte *body;               //  OFFER: encoded exec body; borrowed
    size_t body_size;               //  OFFER: bytes
    uint8_t state;                  //  DONE, EVENT: drover_task_state_t
    uint8_t outcome;                //  DONE, final EVENT: drover_outcome_t of the last attempt
    uint8_t end;                    //  DONE: drover_end_t, how the task ended
    int32_t exit_code;              //  DONE: exit status
    int32_t signal;                 //  DONE: signal that ended it
    uint32_t truncated;             //  DONE: DROVER_TRUNC_* flags
    uint32_t duration;              //  DONE: run time, msec
    int64_t queued_at;              //  any about a task: when it was submitted, wall clock
                                    //  msec since the epoch (0: unknown)
    int64_t started_at;             //  ...its current (or last) attempt STARTED, or its
                                    //  RESULT when no STARTED came (0: not yet)
    int64_t ended_at;               //  ...it ended (0: not final)
    int64_t offered_at;             //  ...its current (or last) attempt was offered (0: none)
    const byte *out;                //  DONE: captured stdout; borrowed
    size_t out_size;                //  DONE: bytes
    const byte *err;                //  DONE: captured stderr; borrowed
    size_t err_size;                //  DONE: bytes
} drover_action_t;

//  A wall clock: msec since the epoch
typedef int64_t (drover_assign_clock_fn) (void *arg);

//  Create an empty task table with the default settings
drover_assign_t *
    drover_assign_new (void);

//  Destroy the table and every task in it; harmless on NULL
void
    drover_assign_destroy (drover_assign_t **self_p);

//  Apply the broker's settings (assign section); zero keeps nothing
//  finished, which is allowed
void
    drover_assign_configure (drover_assign_t *self, uint32_t ack_timeout,
                                uint32_t lost_retries, uint32_t max_queued,
                                uint32_t keep_finished);

//  Set the wall clock the table stamps its tasks' times with (default
//  zclock_time); tests give a fake one
void
    drover_assign_set_clock (drover_assign_t *self, drover_assign_clock_fn *clock,
                                void *arg);

//  Set the most waiters on all tasks together (default DROVER_ASSIGN_MAX_WAITERS)
void
    drover_assign_set_max_waiters (drover_assign_t *self, size_t max_waiters);

//  Set the most result output bytes kept for finished tasks (default
//  DROVER_DEFAULT_KEEP_FINISHED_BYTES)
void
    drover_assign_set_max_kept_bytes (drover_assign_t *self, size_t max_bytes);

//  Set the most bytes of bodies and labels held for tasks not yet final
//  (default DROVER_DEFAULT_MAX_QUEUED_BYTES); past it SUBMIT is refused 301
void
    drover_assign_set_max_queued_bytes (drover_assign_t *self, size_t max_bytes);

//  Take the next action to carry out, or NULL when all are done
const drover_action_t *
    drover_assign_next_action (drover_assign_t *self);

//  TASK SUBMIT from route: validate, store, queue. Returns 200 with the new
//  id in *task_p, or an ERROR code (400, 301, 302) with *reason_p set.
//  Only reads msg.
int
    drover_assign_submit (drover_assign_t *self, drover_msg_t *msg,
                             const byte *route, size_t route_size,
                             uint64_t *task_p, const char **reason_p);

//  WORKFLOW SUBMIT: check every step (as a SUBMIT, and the
//  steps its after list names: no unknown step, no cycle), then accept
//  them all: the workflow's own id in *workflow_p, each step's id in ids
//  (msg->nsteps entries, in step order), parents numbered before their
//  children. Rewrites the steps' after lists to ids (the store keeps
//  them so). Returns 200, or an ERROR code (400, 404, 410, 301) with
//  *reason_p naming the step at fault; then nothing was accepted.
int
    drover_assign_submit_workflow (drover_assign_t *self, drover_msg_t *msg,
                                   uint64_t *workflow_p, uint64_t *ids, const char **reason_p);

//  START from the reconciler: a service's replica (msg names its service
//  and slot; the broker's own TASK SUBMIT, retries 0, no waiter) runs on
//  worker now, attempt 1, without the queue: the task is created, offered
//  to worker and said PLACED to schedq (its capacity counts), or, if the
//  worker is not up, ended FAILED at once ("worker not up"). Returns 200
//  with the new id in *task_p (either way), or an ERROR code (400, 413)
//  with *reason_p set. Only reads msg.
int
    drover_assign_start (drover_assign_t *self, drover_msg_t *msg, const char *worker,
                            int64_t now, uint64_t *task_p, const char **reason_p);

//  TASK CANCEL. Returns 200 (cancelled now, or a kill was sent and the
//  result will say CANCELLED), 404, or 410 "already <state>" (or "already
//  finished", for a task whose result expired).
int
    drover_assign_cancel (drover_assign_t *self, uint64_t task,
                             const char **reason_p);

//  TASK WAIT from route: a TASK DONE now for each finished or unknown id
//  (EXPIRED if the id was given out but its result is no longer kept),
//  later for the others. A repeated WAIT from the same route keeps one
//  waiter per task with the latest seq (a submit's notify, seq 0, is
//  separate). Returns 200, or 302 if some could not be waited on (too many
//  waiters), or 400 for no ids.
int
    drover_assign_wait (drover_assign_t *self, const uint64_t *tasks,
                           size_t count, uint32_t seq,
                           const byte *route, size_t route_size,
                           const char **reason_p);

//  Fence a report (TASK STARTED or RESULT) that names worker by the
//  connection it came from: returns 200 if route is the route of the
//  worker's current registration, else 401 (not registered: unknown or
//  lost, or registered from another connection) with *reason_p set.
int
    drover_assign_fence (drover_assign_t *self, const char *worker,
                            const byte *route, size_t route_size,
                            const char **reason_p);

//  TASK STARTED (the ack) from worker. Returns 200 (no reply needed),
//  404 unknown task, or 409 stale attempt.
int
    drover_assign_started (drover_assign_t *self, const char *worker,
                              uint64_t task, uint32_t attempt,
                              const char **reason_p);

//  TASK RESULT from a worker. Returns 200 (reply OK), 404 or 409 (reply
//  ERROR and drop it). When taken, the table takes out, err and reason
//  from msg (they are NULL after). A MACHINE_FAILED result is the machine's
//  failure, as an offer left unacknowledged: the worker is on probation and the
//  task queued again without using up its retries or lost-retries.
int
    drover_assign_result (drover_assign_t *self, drover_msg_t *msg,
                             const char **reason_p);

//  Return true if the worker is up (its UP heard, no LOST since)
bool
    drover_assign_has_worker (drover_assign_t *self, const char *worker);

//  ASSIGN pair from schedq: offer the task to the worker if both still can
void
    drover_assign_assign (drover_assign_t *self, uint64_t task,
                             const char *worker, int64_t now);

//  UP from health: remember the worker's route; adopt, kill or requeue
//  according to what it says it runs. If it listed any, SETTLED follows
//  (the PLACED of what it adopts first) once the attempts it was told to
//  kill have sent their RESULT, or at its LOST or next UP.
void
    drover_assign_worker_up (drover_assign_t *self, const char *worker,
                                const byte *route, size_t route_size,
                                const drover_taskref_t *running, size_t nrunning);

//  LOST from health: requeue, cancel or fail what the worker had; forget it
void
    drover_assign_worker_lost (drover_assign_t *self, const char *worker,
                                  const char *reason);

//  Tell whether task id was given out and is no longer held (it ended and
//  its result was dropped past keep-finished): the durable history may
//  still have it (RECALL)
bool
    drover_assign_evicted (drover_assign_t *self, uint64_t id);

//  count tasks read back from the history (RESTOREs after LOADED) served
//  the request they were read for: from now on they are finished tasks
//  like any other, dropped past keep-finished
void
    drover_assign_recalled (drover_assign_t *self, uint64_t count);

//  RESTORE from the store: put back a task it kept, as it was (change: its
//  state, attempt, worker, budgets; the submit attached, or for a plain
//  QUEUED task its record, taken from the change; the done attached if
//  final). A QUEUED task is queued again; an ASSIGNED or RUNNING one
//  waits on its worker (not up until its UP) for the end of the grace; a
//  final one is kept among the finished. Says no event: the store has it.
//  Returns 0, or -1 if the change is not a task or its id is held (ignored).
int
    drover_assign_restore (drover_assign_t *self, drover_change_t *change);

//  Start loading what restoring or looking up this task will read first
//  (its slot in the table); changes nothing. For a batch, a few ahead.
void
    drover_assign_prefetch (drover_assign_t *self, uint64_t task);

//  UNSAVED from the store: the task's submit could not be saved and was
//  refused (507): forget it as if it never came (its attempt is stopped,
//  its place given back, its waiters told UNKNOWN). Returns 0, or -1 if the
//  task is not held or is final.
int
    drover_assign_forget (drover_assign_t *self, uint64_t id);

//  LOADED from the store: every kept task was restored; ids go on from
//  next_id at least (never reused)
void
    drover_assign_loaded (drover_assign_t *self, uint64_t next_id);

//  The restart grace is over: every restored attempt whose worker did not
//  register again is queued again (attempt+1 when placed), without using
//  up its retries or lost-retries. Returns how many.
size_t
    drover_assign_end_grace (drover_assign_t *self);

//  Handle ack deadlines due at now. Returns the next deadline (msec,
//  monotonic), or -1 if none is pending.
int64_t
    drover_assign_expire (drover_assign_t *self, int64_t now);

//  Move every pending ack deadline forward by gap msec: the caller itself
//  did not run for that long (drover_turns_stall), so acks that came
//  meanwhile are still unread, not missing. Returns how many it moved
//  (already acknowledged or ended offers may count).
size_t
    drover_assign_shift (drover_assign_t *self, int64_t gap);

//  TASK LIST: fill table (a TASK TABLE message) with counts per state (of
//  every task) and up to limit rows (newest first; QUEUED alone: in the
//  order they will run, as drover_schedq places them), of one state unless
//  state is 255, of owner's tasks unless owner is NULL, of the tasks that
//  have every one of the nlabels labels ("k=v")
void
    drover_assign_list (drover_assign_t *self, uint8_t state, uint32_t limit,
                           const char *owner, char *const *labels, uint32_t nlabels,
                           drover_msg_t *table);

//  Tell whether request's sender (its principal and roles) may act on the
//  tasks: an admin on any, anyone else on the tasks it submitted; ids not
//  held are let through. Returns 200, or 403 with *reason_p set.
int
    drover_assign_check_owner (drover_assign_t *self, const drover_msg_t *request,
                                  const uint64_t *tasks, size_t count, const char **reason_p);

//  TASK SHOW: set *info_p (the caller's to destroy) to everything the
//  table holds of the task: its fields, command (the environment's names,
//  not values), times, result, and attempts (the kept past ones, then the
//  current or last one). Returns 200; for an id given out whose result is
//  no longer kept, 200 with state UNKNOWN and end EXPIRED (as TASK DONE
//  says it); 404 for an id never given out. The owner is the caller's to
//  check (drover_assign_check_owner).
int
    drover_assign_show (drover_assign_t *self, uint64_t task, drover_taskinfo_t **info_p,
                           const char **reason_p);

//  Keep the device indices a task's current attempt was given, as its
//  TASK STARTED says them ("gpu=0,2;fpga=4"; NULL or "" forgets them)
void
    drover_assign_set_assigned (drover_assign_t *self, uint64_t task, const char *text);

//  Return the device indices a task's current or last attempt was given,
//  "" if none (borrowed)
const char *
    drover_assign_assigned (drover_assign_t *self, uint64_t task);

//  PREEMPT: stop the attempt of a preemptible task on worker to make room
//  for task preemptor (TASK KILL, event task.preempted); when its RESULT
//  comes it is queued again at its place, its retries untouched, the
//  attempt's reason "preempted". Returns 0, or -1 if the task is not
//  running there preemptible (ended, moved, cancelled): nothing is done.
int
    drover_assign_preempt (drover_assign_t *self, uint64_t task, const char *worker,
                          uint64_t preemptor);

//  Take the share settings that hold queued quotas (share/accounts and
//  share/quotas syntax, as schedq says them in QUOTAS): a submit past its
//  owner's or account's queued quota is refused QUEUE_FULL from then on.
//  Returns 0, or -1 and sets *error_p (ours to free): the quotas stay.
int
    drover_assign_set_quotas (drover_assign_t *self, const char *accounts, const char *quotas,
                             char **error_p);

//  Return a task's owner (its submitter's key name, or without CURVE the
//  name its client gave), "" if none or unknown
const char *
    drover_assign_owner (drover_assign_t *self, uint64_t task);

//  Return a task's state, or DROVER_TASK_UNKNOWN if it is not in the table
int
    drover_assign_state (drover_assign_t *self, uint64_t task);

//  Return a task's current attempt number (0 if never assigned or unknown)
uint32_t
    drover_assign_attempt (drover_assign_t *self, uint64_t task);

//  Return the worker of a task's current or last attempt, or "" (borrowed)
const char *
    drover_assign_worker (drover_assign_t *self, uint64_t task);

//  Get a task's wall-clock times, msec since the epoch: submitted, its
//  current (or last) attempt STARTED (or its RESULT when no STARTED came;
//  0 if not yet), ended (0 if not final). Returns 0, or -1 if the task is
//  not in the table (the times are left alone).
int
    drover_assign_times (drover_assign_t *self, uint64_t task, int64_t *queued_p,
                            int64_t *started_p, int64_t *ended_p);

//  Encode a task's past attempts (what a RESTORE change's history gives
//  back) into a new buffer the caller frees; NULL if it has none
byte *
    drover_assign_history (drover_assign_t *self, uint64_t task, size_t *size_p);

//  Return how many tasks the table holds in one state
uint64_t
    drover_assign_count (drover_assign_t *self, int state);

//  Return how many tasks the table holds in all
size_t
    drover_assign_size (drover_assign_t *self);

//  TASK LIST of an array's or workflow's members made so far, in id
//  order, up to limit rows; counts per state are its members' (those not
//  made yet count QUEUED). Returns 200, or 404 if id is no group.
int
    drover_assign_list_members (drover_assign_t *self, uint64_t group, uint32_t limit,
                                drover_msg_t *table, const char **reason_p);

//  Fill a change's workflow fields with what the table holds of task now:
//  why it is held (drover_waits_t) and until when, its group, and (a
//  group's own id) the members it made
void
    drover_assign_flow_fields (drover_assign_t *self, uint64_t task, uint8_t *waits_p,
                               int64_t *due_p, uint64_t *group_p, uint32_t *made_p);

//  Return how many tasks are held back for cause (drover_waits_t)
size_t
    drover_assign_held (drover_assign_t *self, int cause);

//  A task's TASK SUBMIT rebuilt from the table (an array's element, a
//  workflow's own record), for the store to keep; NULL if not held. The
//  caller destroys it.
drover_msg_t *
    drover_assign_submit_of (drover_assign_t *self, uint64_t task);

//  TASK EXPLAIN of a task held back before the queue (or a group's own
//  id): fill reply's items and return true; false if it is not held here
bool
    drover_assign_explain_held (drover_assign_t *self, uint64_t task, drover_msg_t *reply);

#ifdef __cplusplus
}
#endif

#endif
