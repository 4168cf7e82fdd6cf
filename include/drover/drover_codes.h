/*  =========================================================================
    drover_codes - the words the API and the wire share

    Status codes, task states and how tasks end, how an attempt ended,
    workers' admin settings, health and presence, and the flags of a
    submit and an admin request: what drover_client and drover_worker
    return and take, with the same values the protocol carries
    (PROTOCOL.md), and their printable names. Plain C, nothing else: an
    embedder includes drover_client.h or drover_worker.h, which bring it.
    =========================================================================
*/

#ifndef DROVER_CODES_H_INCLUDED
#define DROVER_CODES_H_INCLUDED

#ifdef __cplusplus
extern "C" {
#endif

//  Status codes carried by OK and ERROR (PROTOCOL.md, "Status codes")
#define DROVER_CODE_OK              200
#define DROVER_CODE_RETRY           300     //  try again later
#define DROVER_CODE_QUEUE_FULL      301     //  too many queued tasks
#define DROVER_CODE_TOO_MANY        302     //  too many workers / waiters
#define DROVER_CODE_BAD_REQUEST     400     //  malformed message
#define DROVER_CODE_NOT_REGISTERED  401     //  worker must say HELLO first
#define DROVER_CODE_FORBIDDEN       403     //  the sender's key may not do this
#define DROVER_CODE_NOT_FOUND       404     //  unknown task or worker
#define DROVER_CODE_STALE           409     //  result of an attempt that is no longer current
#define DROVER_CODE_CONFLICT        410     //  not possible in the current state
#define DROVER_CODE_STATE_CHANGED   412     //  WAIT names a state id that is not the broker's
#define DROVER_CODE_TOO_LARGE       413     //  a field or message past its limit
#define DROVER_CODE_ID_IN_USE       423     //  HELLO: another live agent has this worker id
#define DROVER_CODE_UNEXPECTED      415     //  well-formed but not expected from this peer
#define DROVER_CODE_BAD_VERSION     426     //  unknown protocol version
#define DROVER_CODE_INTERNAL        500     //  broker fault
#define DROVER_CODE_UNAVAILABLE     503     //  the broker has no such service (no pool configured)
#define DROVER_CODE_NOT_SAVED       507     //  the broker could not save it (disk full, I/O)

//  Task states (TASK DONE, TASK TABLE)
typedef enum {
    DROVER_TASK_QUEUED     = 0,
    DROVER_TASK_ASSIGNED   = 1,
    DROVER_TASK_RUNNING    = 2,
    DROVER_TASK_SUCCEEDED  = 3,
    DROVER_TASK_FAILED     = 4,
    DROVER_TASK_CANCELLED  = 5,
    DROVER_TASK_UNKNOWN    = 6,             //  TASK DONE for an id the broker does not know
    DROVER_TASK_STATES     = 7
} drover_task_state_t;

//  How a task ended, as TASK DONE and TASK TABLE rows say it (PROTOCOL.md
//  §7.13): its own list, not a TASK RESULT's outcome. Each goes with one
//  task state (drover_end_fits).
typedef enum {
    DROVER_END_NONE         = 0,        //  not ended: QUEUED, ASSIGNED or RUNNING
    DROVER_END_SUCCEEDED    = 1,        //  SUCCEEDED: the last attempt exited 0
    DROVER_END_FAILED       = 2,        //  FAILED: exited non-zero or died by a signal
    DROVER_END_TIMED_OUT    = 3,        //  FAILED: killed at the task's timeout
    DROVER_END_CANCELLED    = 4,        //  CANCELLED: stopped by TASK CANCEL
    DROVER_END_SPAWN_FAILED = 5,        //  FAILED: the last attempt could not start
    DROVER_END_LOST         = 6,        //  FAILED: its worker was lost, no rerun allowed
    DROVER_END_POISON       = 7,        //  FAILED: lost more workers than lost-retries
    DROVER_END_EXPIRED      = 8,        //  UNKNOWN: ended, result no longer kept
    DROVER_END_UNKNOWN      = 9,        //  UNKNOWN: no such task was ever accepted
    DROVER_END_DEPENDENCY   = 10,       //  CANCELLED: a task it waited for ended so that it
                                        //  can never run (level 3; a level-2 peer is told
                                        //  CANCELLED)
    DROVER_END_OOM          = 11,       //  FAILED: the OOM killer killed in its last attempt,
                                        //  past its memory limit (level 4; a level-3 peer is
                                        //  told FAILED)
    DROVER_END_MAX          = 11
} drover_end_t;

//  How a task attempt ended on the worker (TASK RESULT)
typedef enum {
    DROVER_OUTCOME_EXITED       = 0,        //  exit_code holds the status
    DROVER_OUTCOME_SIGNALLED    = 1,        //  signal holds the signal number
    DROVER_OUTCOME_TIMEDOUT     = 2,        //  killed after the task's timeout
    DROVER_OUTCOME_CANCELLED    = 3,        //  killed on TASK KILL
    DROVER_OUTCOME_SPAWN_FAILED = 4,        //  could not start, the task's fault (reason says why)
    DROVER_OUTCOME_MACHINE_FAILED = 5,      //  could not start, the machine's fault (reason says why)
    DROVER_OUTCOME_OOM          = 6,        //  the OOM killer killed in it, past its memory limit
                                            //  (level 4; a level-3 peer is told SIGNALLED,
                                            //  signal 9)
    DROVER_OUTCOME_RETURNED     = 7,        //  an offer held ahead, given back unstarted
                                            //  (level 9; never sent to a lower level)
    DROVER_OUTCOME_MAX          = 7
} drover_outcome_t;

//  Worker admin settings (WORKER ADMIN, WORKER TABLE)
typedef enum {
    DROVER_ADMIN_RUN    = 0,
    DROVER_ADMIN_HOLD   = 1,
    DROVER_ADMIN_DRAIN  = 2,
    DROVER_ADMIN_MAX    = 2
} drover_admin_t;

//  Worker health (WORKER TABLE)
typedef enum {
    DROVER_HEALTH_OK        = 0,
    DROVER_HEALTH_PROBATION = 1,
    DROVER_HEALTH_LOST      = 2,
    DROVER_HEALTH_LOW_DISK  = 3,        //  its free disk is under the broker's floor: no new work
    DROVER_HEALTH_MAX       = 3
} drover_worker_health_t;

//  Whether a WORKER TABLE row's worker is here or went (kept listed a while)
typedef enum {
    DROVER_WORKER_UP    = 0,            //  registered now
    DROVER_WORKER_LOST  = 1,            //  went without a word: silent, restarted, key revoked
    DROVER_WORKER_LEFT  = 2,            //  said GOODBYE
    DROVER_WORKER_STATE_MAX = 2
} drover_worker_state_t;

//  What a task waits for before it is queued (TASK SUBMIT's after list)
typedef enum {
    DROVER_AFTER_OK     = 0,            //  every parent SUCCEEDED (else it is cancelled)
    DROVER_AFTER_ANY    = 1,            //  every parent ended, however
    DROVER_AFTER_FAIL   = 2,            //  every parent ended, not SUCCEEDED (else cancelled)
    DROVER_AFTER_KIND_MAX = 2
} drover_after_kind_t;

//  An after entry's kind with this bit names a step of the same WORKFLOW
//  SUBMIT (task is the step's index, from 1), not a task id
#define DROVER_AFTER_STEP       0x10

//  Why a QUEUED task is not in the scheduling queue yet (TASK TABLE row,
//  TASK INFO): 0 it is
typedef enum {
    DROVER_WAITS_NONE   = 0,            //  in the queue (or not QUEUED)
    DROVER_WAITS_AFTER  = 1,            //  for its parents to end
    DROVER_WAITS_BEGIN  = 2,            //  for its begin time
    DROVER_WAITS_RETRY  = 3,            //  for its next attempt's time (retry backoff)
    DROVER_WAITS_ARRAY  = 4,            //  an array element: for room under the array's limit
    DROVER_WAITS_GROUP  = 5,            //  an array's or a workflow's own id: for its members
    DROVER_WAITS_MAX    = 5
} drover_waits_t;

//  WORKER ADMIN flags
#define DROVER_ADMIN_EXIT       1           //  DRAIN: tell the worker to leave once idle

//  TASK SUBMIT flags
#define DROVER_SUBMIT_NOTIFY    1           //  send TASK DONE to the submitter
#define DROVER_SUBMIT_PREEMPTIBLE 2         //  level 4: the broker may stop it to make room
                                            //  for a task justified by priority or fair
                                            //  share, and queue it again at its place
                                            //  (older brokers ignore the bit)

//  TASK RESULT truncation flags
#define DROVER_TRUNC_STDOUT     1
#define DROVER_TRUNC_STDERR     2

//  What POOL ADMIN asks of an instance (RUN, HOLD and DRAIN are its idle
//  behaviour, numbered as drover_admin_t)
typedef enum {
    DROVER_POOLADMIN_RUN        = 0,        //  takes work; destroyed after the idle timeout
    DROVER_POOLADMIN_HOLD       = 1,        //  takes no new work; never destroyed by the pool
    DROVER_POOLADMIN_DRAIN      = 2,        //  takes no new work; destroyed once idle
    DROVER_POOLADMIN_DESTROY    = 3,        //  destroyed now (its tasks run again elsewhere)
    DROVER_POOLADMIN_MAX        = 3
} drover_pooladmin_t;

//  Return the printable name of a task state, e.g. "SUCCEEDED"
const char *
    drover_task_state_name (int state);

//  Return the printable name of a worker health, admin, or outcome value
const char *
    drover_worker_health_name (int health);
const char *
    drover_admin_name (int admin);
const char *
    drover_worker_state_name (int state);
const char *
    drover_outcome_name (int outcome);

//  Return the printable name of how a task ended, e.g. "TIMED_OUT"
const char *
    drover_end_name (int end);

//  Return the printable name of an after kind ("after", "after-any",
//  "after-fail") and of a wait ("", "after", "begin", "retry", "array",
//  "group"); "?" past the known values
const char *
    drover_after_kind_name (int kind);
const char *
    drover_waits_name (int waits);

#ifdef __cplusplus
}
#endif

#endif
