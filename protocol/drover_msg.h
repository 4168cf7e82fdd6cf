/*  =========================================================================
    drover_msg - the drover wire protocol codec (see PROTOCOL.md)

    A message is a plain value: one struct whose fields are the union of all
    messages' fields, as zproto codecs have it. A field not used by a message
    is left zero/NULL. The struct owns every pointer in it; drover_msg_reset
    frees them. Encoding packs with msgpack-c; decoding walks the bytes with
    a bounds-checked cursor and never allocates more than the message's own
    size, nor trusts a count or length the peer sent before checking it
    against the bytes that remain.

    This is the one header users include: it brings the other two codecs,
    the exec body (drover_exec.h) and events (drover_event.h), and the
    limits all three share (drover_limits.h).
    =========================================================================
*/

#ifndef DROVER_MSG_H_INCLUDED
#define DROVER_MSG_H_INCLUDED

#include "drover_limits.h"
#include "drover_exec.h"
#include "drover_event.h"
#include "drover_taskinfo.h"
#include "drover_codes.h"         //  the words the API and the wire share
#include "drover_release.h"       //  DROVER_RELEASE (generated, the build tree)
#include <czmq.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

//  Protocol signature and version carried in every message. The version
//  changes only for a change no receiver could follow (PROTOCOL.md §12);
//  the protocol grows by levels: each peer says its level (HELLO, CLIENT
//  HELLO) and the broker sends it only what that level knows.
#define DROVER_MSG_SIGNATURE    "DRV"
#define DROVER_MSG_VERSION      1
#define DROVER_MSG_LEVEL        9       //  the level this codec speaks
#define DROVER_MSG_LEVEL_MIN    1       //  the oldest level the broker still serves
#define DROVER_MSG_LEVEL_REPACE 8       //  from this level a registered worker may be told
                                        //  WELCOME again, unasked (seq 0): its new interval
//  DROVER_RELEASE, drover's release: drover_release.h, generated from
//  CMakeLists.txt's project VERSION
#define DROVER_RELEASE_MAX      64      //  bytes in a release string, at most

//  Message ids (the third element of every message)
typedef enum {
    DROVER_MSG_WORKER_HELLO     = 1,    //  worker -> broker: register
    DROVER_MSG_WORKER_HEARTBEAT = 2,    //  worker -> broker: alive, with stats
    DROVER_MSG_WORKER_GOODBYE   = 3,    //  worker -> broker: leaving
    DROVER_MSG_WORKER_WELCOME   = 4,    //  broker -> worker: registered
    DROVER_MSG_WORKER_LEAVE     = 5,    //  broker -> worker: drained, exit now
    DROVER_MSG_TASK_OFFER       = 6,    //  broker -> worker: run this attempt
    DROVER_MSG_TASK_STARTED     = 7,    //  worker -> broker: offer taken (the ack)
    DROVER_MSG_TASK_RESULT      = 8,    //  worker -> broker: attempt finished
    DROVER_MSG_TASK_KILL        = 9,    //  broker -> worker: stop this attempt
    DROVER_MSG_TASK_SUBMIT      = 10,   //  client -> broker: new task
    DROVER_MSG_TASK_ACCEPTED    = 11,   //  broker -> client: task id for a submit
    DROVER_MSG_TASK_WAIT        = 12,   //  client -> broker: tell me when these end
    DROVER_MSG_TASK_DONE        = 13,   //  broker -> client: a task's final outcome
    DROVER_MSG_TASK_CANCEL      = 14,   //  client -> broker: cancel a task
    DROVER_MSG_TASK_LIST        = 15,   //  client -> broker: list tasks
    DROVER_MSG_TASK_TABLE       = 16,   //  broker -> client: task counts and rows
    DROVER_MSG_WORKER_LIST      = 17,   //  client -> broker: list workers
    DROVER_MSG_WORKER_TABLE     = 18,   //  broker -> client: worker rows
    DROVER_MSG_WORKER_ADMIN     = 19,   //  client -> broker: hold/drain/resume
    DROVER_MSG_OK               = 20,   //  broker -> any: request done
    DROVER_MSG_ERROR            = 21,   //  broker -> any: request refused
    DROVER_MSG_EVENT_REPLAY     = 22,   //  client -> broker: events after a seq, please
    DROVER_MSG_EVENT_LIST       = 23,   //  broker -> client: a page of kept events
    DROVER_MSG_TASK_EXPLAIN     = 24,   //  client -> broker: why does this task wait?
    DROVER_MSG_TASK_EXPLANATION = 25,   //  broker -> client: why, and what would unblock it
    DROVER_MSG_TASK_SHOW        = 26,   //  client -> broker: everything about a task
    DROVER_MSG_TASK_INFO        = 27,   //  broker -> client: everything about a task
    DROVER_MSG_POOL_LIST        = 28,   //  client -> broker: list the elastic pool
    DROVER_MSG_POOL_TABLE       = 29,   //  broker -> client: the pool's summary and instances
    DROVER_MSG_POOL_ADMIN       = 30,   //  client -> broker: hold/drain/run/destroy an instance
    DROVER_MSG_WORKER_GATHER    = 31,   //  broker -> worker: what do you run? (seq = the term)
    DROVER_MSG_WORKER_RUNS      = 32,   //  worker -> broker: the attempts it runs now
    DROVER_MSG_SERVICE_ADMIN    = 33,   //  client -> broker: create, scale or delete a service
    DROVER_MSG_SERVICE_LIST     = 34,   //  client -> broker: list services (one, with replicas)
    DROVER_MSG_SERVICE_TABLE    = 35,   //  broker -> client: term statistics, services, replicas
    DROVER_MSG_PLAN             = 36,   //  client -> broker: what would this change do?
    DROVER_MSG_PLAN_RESULT      = 37,   //  broker -> client: the change set, stats before/after
    DROVER_MSG_REDIRECT         = 38,   //  broker -> any: I do not serve; the leader is there
    DROVER_MSG_QUEUES           = 39,   //  any -> broker: which named queues, served where?
    DROVER_MSG_QUEUE_TABLE      = 40,   //  broker -> any: the named queues and their owners
    DROVER_MSG_CLIENT_HELLO     = 41,   //  client -> broker: the level I speak
    DROVER_MSG_CLIENT_WELCOME   = 42,   //  broker -> client: the level I speak
    DROVER_MSG_WORKFLOW_SUBMIT  = 43,   //  client -> broker: a graph of named steps, whole
    DROVER_MSG_WORKFLOW_ACCEPTED = 44,  //  broker -> client: the workflow's id, its steps' ids
    DROVER_MSG_SHARE_ADMIN      = 45,   //  admin -> broker: set or drop an account's or an
                                        //  owner's weight, members and quotas (level 4)
    DROVER_MSG_SHARE_LIST       = 46,   //  client -> broker: the shares, please (level 4)
    DROVER_MSG_SHARE_TABLE      = 47,   //  broker -> client: accounts and owners, their
                                        //  shares, usage, waiting tasks and quotas (level 4)
    DROVER_MSG_STATE_BACKUP     = 48,   //  admin -> broker: copy the state to this file (level 5)
    DROVER_MSG_BACKUP_DONE      = 49,   //  broker -> client: the copy is whole: pages, bytes,
                                        //  msec (level 5)
    DROVER_MSG_ID_MAX           = 49
} drover_msg_id_t;

//  What a key may do (the broker's security/workers, clients, admins)
#define DROVER_ROLE_WORKER          1       //  the worker dialogue
#define DROVER_ROLE_CLIENT          2       //  submit, wait, list, cancel its own tasks
#define DROVER_ROLE_ADMIN           4       //  also others' tasks, and hold, drain, resume
#define DROVER_ROLE_ALL             7       //  every role: a broker without CURVE

//  An instance's state in a POOL TABLE row (drover_instance_state_t)
#define DROVER_POOL_STATE_MAX       4       //  0 unknown, 1 booting, 2 idle, 3 running, 4 shutdown
#define DROVER_POOL_PROBE_MAX       3       //  (level 7) 0 none, 1 pending, 2 ok, 3 failed

//  What SERVICE ADMIN asks (the message's action)
typedef enum {
    DROVER_SERVICE_CREATE   = 0,        //  create service with its definition (exists: 410)
    DROVER_SERVICE_SCALE    = 1,        //  set its replicas to count
    DROVER_SERVICE_DELETE   = 2,        //  delete it and stop its replicas
    DROVER_SERVICE_ACTION_MAX = 2
} drover_service_action_t;

//  What PLAN asks (the message's action): the change it would make
typedef enum {
    DROVER_PLAN_DRAIN       = 0,        //  drain worker (WORKER ADMIN drain)
    DROVER_PLAN_HOLD        = 1,        //  hold worker (WORKER ADMIN hold)
    DROVER_PLAN_SCALE       = 2,        //  scale service to count (SERVICE ADMIN scale)
    DROVER_PLAN_TERM        = 3,        //  nothing: what the next term would do
    DROVER_PLAN_ACTION_MAX  = 3
} drover_plan_action_t;

//  A service's state in a SERVICE TABLE row
typedef enum {
    DROVER_SERVICE_OK       = 0,        //  just right: running = replicas
    DROVER_SERVICE_UNDER    = 1,        //  fewer running than replicas (some at least)
    DROVER_SERVICE_OVER     = 2,        //  more running than replicas
    DROVER_SERVICE_LOST     = 3,        //  none running, replicas > 0
    DROVER_SERVICE_CRASHING = 4,        //  a replica exited quickly crash-warn times in a row
    DROVER_SERVICE_STATE_MAX = 4
} drover_service_state_t;

//  A replica's state in a SERVICE TABLE replica row
typedef enum {
    DROVER_REPLICA_PENDING  = 0,        //  started: offered to its worker, not running yet
    DROVER_REPLICA_RUNNING  = 1,        //  running (its worker said so)
    DROVER_REPLICA_STOPPING = 2,        //  told to stop (scaled down, moved, extra)
    DROVER_REPLICA_WAITING  = 3,        //  not running: restarts after its backoff, or no
                                        //  worker has room (why says which)
    DROVER_REPLICA_STATE_MAX = 3
} drover_replica_state_t;

//  What a change of a PLAN RESULT (and of a term) does
typedef enum {
    DROVER_CHANGE_START     = 0,        //  start replica slot of service on to
    DROVER_CHANGE_STOP      = 1,        //  stop task (replica slot of service) on from
    DROVER_CHANGE_MOVE      = 2,        //  replica slot of service goes from -> to: started on
                                        //  to, then task on from stopped once it runs
    DROVER_CHANGE_FINISH    = 3,        //  batch task runs on from until it ends: not requeued
    DROVER_CHANGE_REQUEUE   = 4,        //  batch task leaves from and is queued again
    DROVER_CHANGE_KIND_MAX  = 4
} drover_change_kind_t;

//  Buckets of the replicas' restarts histogram: 0, 1, 2-3, 4-7, ... 64+
#define DROVER_HISTOGRAM_BUCKETS    8

//  keep-balance's statistics of one term (SERVICE TABLE, PLAN RESULT's
//  before and after)
typedef struct {
    uint64_t term;                  //  term number, from 1; 0 none yet
    uint64_t at;                    //  msec since the epoch the term ended, 0 none
    uint32_t duration;              //  msec the term took (gather, delta, placement)
    uint8_t complete;               //  1: every worker answered the gather and the
                                    //  view looked sane; 0: nothing was removed (why)
    char why [DROVER_REASON_MAX + 1];   //  why nothing was removed, "" if complete
    uint32_t workers;               //  workers asked in the gather
    uint32_t answered;              //  workers that answered in time
    uint32_t services;              //  services defined
    uint32_t lost;                  //  services with replicas > 0 and none running
    uint32_t under;                 //  services with some running, fewer than replicas
    uint32_t ok;                    //  services just right
    uint32_t over;                  //  services with more running than replicas
    uint32_t wanted;                //  replicas wanted, over all services
    uint32_t running;               //  replicas running
    uint32_t pending;               //  replicas started, not running yet
    uint32_t started;               //  replicas the term started
    uint32_t stopped;               //  replicas the term stopped
    uint32_t moved;                 //  replicas the term moved
    uint32_t restarts [DROVER_HISTOGRAM_BUCKETS];   //  replicas by restarts: 0, 1, 2-3,
                                    //  4-7, 8-15, 16-31, 32-63, 64 or more
    //  Level 7: keep-balance's placement figures (0 to older peers: not sent)
    uint32_t best;                  //  running replicas on the first eligible worker of
                                    //  their slot's rendezvous order
    uint32_t not_best;              //  running replicas further down it
    uint32_t ranks [DROVER_HISTOGRAM_BUCKETS];  //  running replicas by that rank: 0, 1,
                                    //  2-3, 4-7, ... 64 or more
    uint32_t capped;                //  replicas left unplaced by their service's
                                    //  max-per-worker (a worker with room had one)
    uint32_t rebalanced;            //  replicas the term moved toward their best worker
} drover_service_stats_t;

//  One row of SERVICE TABLE: a service (also SERVICE ADMIN create's
//  definition: name, replicas, procs, mem, labels, restart_delay; the
//  command travels in the message's body)
typedef struct {
    char name [DROVER_ID_MAX + 1];  //  service name (an id: printable, no space)
    uint32_t replicas;              //  replicas wanted
    uint32_t procs;                 //  procs each replica asks, >= 1
    uint64_t mem;                   //  memory each asks, bytes, 0 any
    uint32_t nlabels;               //  labels in use
    char *labels [DROVER_LABELS_MAX];   //  "key=value" a worker must have, owned
    uint32_t restart_delay;         //  msec before an exited replica restarts (doubling
                                    //  while it keeps crashing), 0 the broker's setting
    //  Table only (0 / "" in a definition)
    uint32_t running;               //  replicas running
    uint32_t pending;               //  replicas started, not running yet
    uint32_t restarts;              //  restarts of its replicas since the broker started
    uint8_t state;                  //  drover_service_state_t
    uint64_t created;               //  msec since the epoch it was created
    char summary [DROVER_SUMMARY_MAX + 1];  //  its argv joined by spaces, cut at 80 bytes
    char why [DROVER_REASON_MAX + 1];   //  why it is in its state, "" nothing to say
    uint32_t max_per_worker;        //  most replicas on one worker, 0 unlimited (level 7;
                                    //  a definition's too)
} drover_service_row_t;

//  One replica row of SERVICE TABLE (asked with a service's name)
typedef struct {
    char service [DROVER_ID_MAX + 1];   //  its service
    uint32_t slot;                  //  replica slot, 0 .. replicas - 1
    uint64_t task;                  //  its task, 0 none (waiting)
    uint32_t attempt;               //  its attempt, 0 none
    char worker [DROVER_ID_MAX + 1];    //  where it runs or will, "" none
    uint8_t state;                  //  drover_replica_state_t
    uint64_t since;                 //  msec since the epoch it entered its state
    uint32_t restarts;              //  times this slot restarted since the broker started
    char why [DROVER_REASON_MAX + 1];   //  "exited 1", "backoff 4s", "no worker has room"...
} drover_replica_row_t;

//  One change of a PLAN RESULT
typedef struct {
    uint8_t kind;                   //  drover_change_kind_t
    char service [DROVER_ID_MAX + 1];   //  START, STOP, MOVE: the service; else ""
    uint32_t slot;                  //  START, STOP, MOVE: the replica slot
    uint64_t task;                  //  STOP, MOVE, FINISH, REQUEUE: the task, 0 none yet
    char from [DROVER_ID_MAX + 1];  //  the worker it leaves or stays on, "" none
    char to [DROVER_ID_MAX + 1];    //  the worker it goes to, "" none
    char why [DROVER_REASON_MAX + 1];   //  "scaled down", "worker draining", "spread"...
} drover_planchange_t;

//  A (task, attempt) pair, as listed in WORKER HELLO
typedef struct {
    uint64_t task;                  //  task id
    uint32_t attempt;               //  attempt number, 1-based
} drover_taskref_t;

//  A worker's resource stats (WORKER HEARTBEAT, WORKER TABLE)
typedef struct {
    double load [3];                //  1, 5, 15 minute load averages
    uint64_t mem_used;              //  bytes
    uint64_t mem_total;             //  bytes
    uint64_t disk_used;             //  bytes, of the work directory's filesystem
    uint64_t disk_total;            //  bytes
    uint32_t running;               //  tasks running now
} drover_stats_t;

//  One row of WORKER TABLE
typedef struct {
    char id [DROVER_ID_MAX + 1];    //  worker id
    uint8_t health;                 //  drover_worker_health_t
    uint8_t admin;                  //  drover_admin_t
    uint32_t procs;                 //  usable procs
    uint32_t procs_used;            //  procs taken by assigned tasks
    uint64_t mem;                   //  usable memory, bytes
    uint64_t mem_used;              //  memory reserved by assigned tasks, bytes
    uint32_t nlabels;               //  labels in use
    char *labels [DROVER_LABELS_MAX];   //  "key=value", owned
    drover_stats_t stats;           //  last heartbeat's stats
    uint64_t reserved;              //  queued task the worker is kept for (reserved), 0 none
    //  Optional trailing elements (PROTOCOL.md §7.18): 0 / NULL when absent
    uint8_t state;                  //  drover_worker_state_t: UP, or went (LOST, LEFT)
    uint64_t since;                 //  msec since the epoch: registered (UP) or went, 0 unknown
    char *why;                      //  why it went ("silent", "left"...), owned, or NULL
    char *admin_reason;             //  the operator's reason for its admin setting, owned, or NULL
    uint64_t admin_since;           //  msec since the epoch the admin setting was made, 0 unknown
    uint64_t probation_until;       //  msec since the epoch its probation ends, 0 none or unknown
    uint32_t tasks;                 //  tasks assigned to it now, as the broker counts them
    uint16_t level;                 //  the protocol level its HELLO said (§12), 0 unknown
    char release [DROVER_RELEASE_MAX + 1];  //  the release its HELLO said, "" unknown
    char *devices;                  //  its devices, "gpu=4,fpga=1" (level 4), owned, or NULL
    char *devices_used;             //  of them, held by its tasks now, "gpu=1", owned, or NULL
    uint32_t heartbeat;             //  msec between heartbeats its WELCOME told (level 6), 0 unknown
    uint64_t lost_after;            //  msec of silence before it is LOST (level 6), 0 unknown
    uint32_t ahead;                 //  offers it may be sent beyond its free procs (level 9), 0 none
    uint32_t held;                  //  offers held there unstarted now (level 9), 0..DROVER_AHEAD_MAX
} drover_worker_row_t;

//  What a TASK EXPLANATION item says (PROTOCOL.md §7.25): the task's place
//  in the queue, the first reason a group of workers cannot take it, or
//  the verdict: what would unblock it. a and b are numbers, by code.
typedef enum {
    DROVER_WHY_AHEAD        = 1,    //  count queued ahead of it: a of higher priority, b of
                                    //  the same priority asking more procs, the rest earlier
    DROVER_WHY_FITS         = 10,   //  could take it now; a = its free procs
    DROVER_WHY_LABEL        = 11,   //  lacks the label text
    DROVER_WHY_PROCS        = 12,   //  has a procs in all of b asked
    DROVER_WHY_MEM          = 13,   //  has a bytes of memory in all of b asked
    DROVER_WHY_HELD         = 14,   //  held (admin HOLD)
    DROVER_WHY_DRAINING     = 15,   //  draining (admin DRAIN)
    DROVER_WHY_PROBATION    = 16,   //  on probation; until a (msec since the epoch), 0 unknown
    DROVER_WHY_LOW_DISK     = 17,   //  its free disk is under the broker's floor
    DROVER_WHY_RESERVED     = 18,   //  kept for task a, ranked before this one
    DROVER_WHY_LENT         = 19,   //  its free capacity is lent to the broker's fast path
    DROVER_WHY_BUSY         = 20,   //  has a procs free of b asked: would fit when b - a free
    DROVER_WHY_BUSY_MEM     = 21,   //  has a bytes free of b asked
    DROVER_WHY_KEPT         = 22,   //  kept for this task: a procs free of b asked
    DROVER_WHY_DEVICES      = 23,   //  has a of device text in all, of b asked (level 4)
    DROVER_WHY_BUSY_DEVICES = 24,   //  has a of device text free, of b asked (level 4)
    DROVER_WHY_NEXT         = 40,   //  verdict: fits names [0] now, the next pass places it
    DROVER_WHY_FITS_WHEN    = 41,   //  verdict: fits names [0] when a more procs and b more
                                    //  bytes of memory free there
    DROVER_WHY_AFTER        = 42,   //  verdict: names [0] could hold it once task a, kept
                                    //  for there, is placed
    DROVER_WHY_WHEN_USABLE  = 43,   //  verdict: only names [0] (and the rest of count) could
                                    //  hold it, once no longer what code a says (held...);
                                    //  b: until when, for probation
    DROVER_WHY_NEVER_NONE   = 44,   //  verdict: no worker is connected
    DROVER_WHY_NEVER_LABEL  = 45,   //  verdict: no worker has the label text
    DROVER_WHY_NEVER_PROCS  = 46,   //  verdict: the most procs a worker has is a, of b asked
    DROVER_WHY_NEVER_MEM    = 47,   //  verdict: the most memory a worker has is a, of b asked
    DROVER_WHY_NEVER_ALL    = 48,   //  verdict: no one worker has all it asks
    DROVER_WHY_POOL_START   = 49,   //  verdict: no connected worker could; an instance of
                                    //  the elastic pool's type text will be started
    DROVER_WHY_POOL_NOFIT   = 50,   //  verdict: no connected worker could, and no instance
                                    //  type of the elastic pool fits it
    DROVER_WHY_AFFINITY     = 51,   //  verdict: submitted with an affinity key, it waits for
                                    //  names [0], the first in the key's order that could
                                    //  hold it ("" none), until a (msec since the epoch),
                                    //  then any in order with room; a 0: past the wait
    //  Level 3: a task that is not in the queue yet says why (each a verdict)
    DROVER_WHY_PARENT       = 60,   //  waits for task a (drover_task_state_t b now); the
                                    //  first such item's count: parents not ended in all
                                    //  (at most 8 items are listed)
    DROVER_WHY_BEGIN        = 61,   //  begins at a (msec since the epoch)
    DROVER_WHY_RETRY        = 62,   //  attempt b (of count in all) begins at a (msec since
                                    //  the epoch), after the last one failed
    DROVER_WHY_ARRAY_LIMIT  = 63,   //  an element of array a: b of its elements queued or
                                    //  running, its limit count, reached
    DROVER_WHY_GROUP        = 64,   //  an array's or workflow's own id: a of its b members
                                    //  ended, count of them running now
    //  Level 4: sharing
    DROVER_WHY_FAIR_SHARE   = 65,   //  after the verdict: its owner names [0] (of account
                                    //  names [1], if one is declared) is above its share:
                                    //  a = the account's dominant share, b = its fair share
                                    //  (permille), text = the dominant resource
    DROVER_WHY_QUOTA        = 66,   //  verdict: names [0] (an owner, or an account when
                                    //  count is 1) is at its running quota of resource
                                    //  text: a used now, b the quota
    DROVER_WHY_NEVER_DEVICES = 67,  //  verdict: the most of device text a worker has is a,
                                    //  of b asked
    DROVER_WHY_MAX          = 67
} drover_why_code_t;

//  One item of a TASK EXPLANATION
typedef struct {
    uint8_t code;                   //  drover_why_code_t
    uint32_t count;                 //  workers it says this of (AHEAD: requests ahead)
    uint64_t a;                     //  a number, by code
    uint64_t b;                     //  another, by code
    char text [DROVER_LABEL_MAX + 1];   //  LABEL, NEVER_LABEL: the label; else ""
    uint32_t nnames;                //  entries in names
    char names [DROVER_WHY_NAMES_MAX][DROVER_ID_MAX + 1];  //  a few of the workers
} drover_why_t;

//  One entry of a TASK SUBMIT's after list: a parent it waits for
typedef struct {
    uint8_t kind;                   //  drover_after_kind_t, | DROVER_AFTER_STEP in a
                                    //  WORKFLOW SUBMIT's step naming another step
    uint64_t task;                  //  the parent's id (an array's or workflow's id: all
                                    //  its members); with DROVER_AFTER_STEP, a step index
                                    //  from 1
} drover_after_t;

//  A TASK SUBMIT's array: one task per index first, first + step, ...
//  (count of them), at most limit running at once
typedef struct {
    uint32_t first;                 //  the first index
    uint32_t step;                  //  between indexes, >= 1
    uint32_t count;                 //  elements, 1..DROVER_ARRAY_MAX; 0: not an array
    uint32_t limit;                 //  most elements queued or running at once, 0 none
} drover_array_spec_t;

//  One row of TASK TABLE
typedef struct {
    uint64_t task;                  //  task id
    uint8_t state;                  //  drover_task_state_t
    uint8_t end;                    //  drover_end_t, NONE while not final
    int32_t priority;               //  lower runs first
    uint32_t procs;                 //  procs demanded
    uint32_t attempt;               //  current attempt number, 0 if never assigned
    char worker [DROVER_ID_MAX + 1];    //  worker of the current attempt, or ""
    char *summary;                  //  argv joined by spaces, at most 80 bytes, owned
    char owner [DROVER_ID_MAX + 1]; //  name of the key that submitted it, or "" (no CURVE)
    char reason [DROVER_ROW_REASON_MAX + 1];    //  QUEUED: why it waits, short; or ""
    //  Optional trailing elements (level 3): 0 when absent
    uint8_t waits;                  //  drover_waits_t: QUEUED, not in the queue yet, why
    uint64_t group;                 //  the array or workflow it is a member of, 0 none
    uint32_t parents;               //  tasks it waits for (or waited for) in its after list
} drover_task_row_t;

//  The summary of a POOL TABLE
typedef struct {
    uint8_t enabled;                //  1 if the broker has a pool; 0: none of the rest
    char driver [DROVER_ID_MAX + 1];    //  the pool's driver ("local", "command")
    uint32_t live;                  //  live instances (not shut down)
    uint32_t max_instances;         //  pool/max-instances
    double price;                   //  total price per hour of the live instances
    double max_price;               //  pool/max-price, 0 no limit
    uint64_t backoff_until;         //  msec since the epoch a quota backoff ends, 0 none
    uint32_t failures;              //  consecutive create failures now
    //  Optional trailing element (level 7): 0 when absent
    uint8_t probing;                //  1 if the pool runs boot probes (pool/probe)
} drover_pool_summary_t;

//  One row of POOL TABLE: an instance of the elastic pool
typedef struct {
    char id [DROVER_ID_MAX + 1];    //  instance name = its worker's id
    char type [DROVER_ID_MAX + 1];  //  instance type, "" unknown
    double price;                   //  price per hour of its type
    uint8_t state;                  //  drover_instance_state_t, 0..DROVER_POOL_STATE_MAX
    uint8_t behaviour;              //  idle behaviour: DROVER_POOLADMIN_RUN, HOLD or DRAIN
    uint64_t created;               //  msec since the epoch it was created or adopted
    uint64_t since;                 //  msec since the epoch it entered its state
    uint64_t last_busy;             //  msec since the epoch last seen running a task, 0 never
    uint64_t last_task;             //  the last task it was given, 0 none
    uint32_t tasks;                 //  tasks it runs now
    uint32_t procs;                 //  procs of its type
    uint32_t procs_used;            //  procs its tasks take
    uint64_t mem;                   //  memory of its type, bytes
    uint64_t mem_used;              //  memory its tasks take, bytes
    char why [DROVER_REASON_MAX + 1];   //  why it is in its state, "" nothing to say
    //  Optional trailing elements (level 7): 0 when absent
    uint8_t probe;                  //  its boot probe, 0..DROVER_POOL_PROBE_MAX
    uint32_t probes;                //  boot probes run on it
} drover_pool_row_t;

//  One row of QUEUE TABLE: a named queue, who serves it and where
typedef struct {
    char name [DROVER_QUEUE_NAME_MAX + 1];  //  1..64 bytes of [A-Za-z0-9._-]
    char owner [DROVER_ID_MAX + 1];         //  the broker that serves it, "" none now
    char owner_endpoint [DROVER_ENDPOINT_MAX + 1];  //  where the owner serves it, "" none
    uint64_t token;                 //  its fencing token, 0 while it has no owner
    char *endpoints;                //  every offering broker's endpoint for it, comma-
                                    //  separated ("" none; NULL sends none), owned
} drover_queue_row_t;

//  Counted devices (level 4)
#define DROVER_DEVICE_NAME_MAX      32      //  a device name: 1..32 of a-z 0-9 _
#define DROVER_DEVICES_MAX          16      //  device names in one message

//  A count of one named device: a worker's (HELLO), a task's demand
//  (TASK SUBMIT, TASK OFFER), a quota's (SHARE ADMIN)
typedef struct {
    char name [DROVER_DEVICE_NAME_MAX + 1]; //  "gpu"
    uint32_t count;                 //  how many, >= 1
} drover_device_t;

//  What SHARE ADMIN asks (the message's action)
typedef enum {
    DROVER_SHARE_SET        = 0,        //  set name's weight, members (an account) and quotas
    DROVER_SHARE_DROP       = 1,        //  forget what SHARE ADMIN set for name
    DROVER_SHARE_ACTION_MAX = 1
} drover_share_action_t;

//  One row of SHARE TABLE: an account, or an owner (after its account's row)
typedef struct {
    char name [DROVER_ID_MAX + 1];  //  the account's or owner's name
    char account [DROVER_ID_MAX + 1];   //  an owner's account ("" for an account's row; the
                                    //  owner's own name when it is in no declared account)
    uint8_t kind;                   //  0 an account, 1 an owner
    uint32_t weight;                //  its weight (1..1000000)
    uint32_t share;                 //  its dominant share now, permille of the cluster
    char resource [DROVER_DEVICE_NAME_MAX + 1]; //  the dominant resource: "procs", "mem" or
                                    //  a device name; "" when it runs nothing
    uint32_t fair;                  //  an account's fair share, permille: its weight over the
                                    //  weights of the accounts with work; an owner's 0
    uint32_t procs;                 //  procs its tasks run on now
    uint64_t mem;                   //  memory its running tasks reserve, bytes
    char *devices;                  //  devices its running tasks hold, "gpu=2,fpga=1", "" none,
                                    //  owned
    uint64_t waiting;               //  its tasks waiting in the scheduling queue
    uint64_t queued;                //  its tasks queued (QUEUED, in the queue or not)
    char *quota;                    //  its quotas, "procs=8,mem=16G,gpu=2,queued=1000", ""
                                    //  none, owned
} drover_share_row_t;

//  The message. Which fields each id uses is listed in PROTOCOL.md.
typedef struct drover_msg_s {
    int id;                         //  drover_msg_id_t
    uint32_t seq;                   //  request number, echoed by the reply
    //  Worker identity
    char worker [DROVER_ID_MAX + 1];    //  worker id, printable ASCII, 1..64 bytes
    uint64_t epoch;                 //  worker incarnation, changes on restart
    char state_id [DROVER_STATE_ID_SIZE + 1];   //  broker state id (WELCOME, ACCEPTED; HELLO,
                                    //  WAIT: the one the peer knew), "" if none
    //  Task identity
    uint64_t task;                  //  task id
    uint32_t attempt;               //  attempt number
    //  Resources and policy
    int32_t priority;               //  lower runs first
    uint32_t procs;                 //  procs offered (HELLO) or demanded (SUBMIT)
    uint64_t mem;                   //  bytes offered or demanded
    uint32_t nlabels;               //  labels used
    char *labels [DROVER_LABELS_MAX];   //  "key=value" each, owned
    uint32_t timeout;               //  task timeout, msec, 0 = none
    uint32_t retries;               //  retries allowed after task failures
    uint32_t flags;                 //  DROVER_SUBMIT_* flags
    char *key;                      //  SUBMIT: idempotency key, 1..128 bytes of printable
                                    //  ASCII, owned, or NULL for none
    //  Execution body: an encoded drover_exec_t, opaque to the broker
    byte *body;                     //  owned
    size_t body_size;               //  bytes
    //  Worker stats and running tasks
    drover_stats_t stats;           //  HEARTBEAT stats
    uint32_t nrunning;              //  entries in running
    drover_taskref_t *running;      //  HELLO: attempts the worker still runs, owned
    uint32_t heartbeat;             //  WELCOME: heartbeat interval, msec
    uint32_t ahead;                 //  HELLO: offers the worker holds beyond its free
                                    //  procs; WELCOME: how many the broker may send it so
                                    //  (level 9; 0 none)
    uint32_t ack_timeout;           //  WELCOME: msec the broker waits for an offer's
                                    //  STARTED or RESULT (level 7), 0 not said
    //  Results
    uint8_t outcome;                //  drover_outcome_t
    uint8_t state;                  //  drover_task_state_t (TASK DONE)
    uint8_t end;                    //  drover_end_t (TASK DONE; "outcome" on the wire)
    uint8_t admin;                  //  drover_admin_t (WORKER ADMIN; its reason and
                                    //  DROVER_ADMIN_* flags go in reason and flags);
                                    //  drover_pooladmin_t (POOL ADMIN; the instance in worker)
    int32_t exit_code;              //  process exit status
    int32_t signal;                 //  signal that ended the process
    uint32_t truncated;             //  DROVER_TRUNC_* flags
    uint32_t duration;              //  run time, msec
    byte *out;                      //  captured stdout, owned
    size_t out_size;                //  bytes
    byte *err;                      //  captured stderr, owned
    size_t err_size;                //  bytes
    //  Status
    uint16_t code;                  //  OK / ERROR status code
    char *reason;                   //  OK / ERROR / TASK DONE reason text, owned
    //  Queries
    uint32_t limit;                 //  TASK LIST: most rows wanted
    uint32_t ntasks;                //  TASK WAIT: ids in tasks
    uint64_t *tasks;                //  TASK WAIT: task ids, owned
    uint64_t counts [DROVER_TASK_STATES];   //  TASK TABLE: tasks per state
    uint32_t nrows;                 //  rows in worker_rows, task_rows or pool_rows
    drover_worker_row_t *worker_rows;   //  WORKER TABLE rows, owned
    drover_task_row_t *task_rows;   //  TASK TABLE rows, owned
    //  Event replay
    uint64_t since;                 //  EVENT REPLAY: events with a seq above this one
    uint64_t last;                  //  EVENT LIST: the newest seq the broker has given
    uint8_t more;                   //  EVENT LIST: 1 if events after these are kept
    uint32_t nevents;               //  EVENT LIST: entries in events
    drover_event_t *events;         //  EVENT LIST: events in seq order, owned
    //  Task info
    drover_taskinfo_t *info;        //  TASK INFO: everything about the task, owned
    //  Explanation
    uint32_t nwhys;                 //  TASK EXPLANATION: entries in whys
    drover_why_t *whys;             //  TASK EXPLANATION: place, reasons, verdict; owned
    //  Elastic pool
    drover_pool_summary_t pool;     //  POOL TABLE: the pool's summary
    drover_pool_row_t *pool_rows;   //  POOL TABLE: nrows instances, owned
    //  Services and plans (also: procs, mem, labels, body of a SERVICE ADMIN
    //  create; worker of a PLAN drain or hold; running of WORKER RUNS)
    uint8_t action;                 //  SERVICE ADMIN: drover_service_action_t;
                                    //  PLAN: drover_plan_action_t
    char service [DROVER_ID_MAX + 1];   //  SERVICE ADMIN, PLAN scale: the service;
                                    //  SERVICE LIST: one service (with its replicas) or ""
                                    //  all; TASK SUBMIT: the broker's own replica tasks only
    uint32_t slot;                  //  TASK SUBMIT of a replica: its slot
    uint32_t count;                 //  SERVICE ADMIN create: replicas; scale, PLAN scale: N
    uint32_t delay;                 //  SERVICE ADMIN create: restart delay, msec, 0 default
    uint32_t max_per_worker;        //  SERVICE ADMIN create: most replicas on one worker,
                                    //  0 unlimited (level 7, optional)
    char *affinity;                 //  TASK SUBMIT: affinity key, 1..128 printable bytes,
                                    //  owned, or NULL for none
    //  Workflows (level 3)
    uint32_t nafter;                //  TASK SUBMIT: entries in after, 0..DROVER_AFTER_MAX
    drover_after_t *after;          //  TASK SUBMIT: the tasks it waits for, owned
    uint64_t begin;                 //  TASK SUBMIT: msec since the epoch it may start, 0 now
    uint32_t retry_delay;           //  TASK SUBMIT: msec before the first retry (doubling
                                    //  each retry, jittered), 0 retry at once
    uint32_t retry_max_delay;       //  TASK SUBMIT: the most a retry waits, msec, 0 the
                                    //  broker's default (DROVER_RETRY_MAX_DELAY)
    drover_array_spec_t array;      //  TASK SUBMIT: an array (count > 0) of this command
    uint64_t group;                 //  TASK LIST: only the members of this array or
                                    //  workflow, 0 any
    uint32_t nsteps;                //  WORKFLOW SUBMIT: entries in step_names and steps
    char **step_names;              //  WORKFLOW SUBMIT: each step's name (an id), owned
    struct drover_msg_s **steps;    //  WORKFLOW SUBMIT: each step's TASK SUBMIT (after
                                    //  entries may name steps, DROVER_AFTER_STEP), owned
    drover_service_stats_t stats_now;   //  SERVICE TABLE: the last term's statistics;
                                    //  PLAN RESULT: before the change
    drover_service_stats_t stats_after; //  PLAN RESULT: after the change
    drover_service_row_t *service_rows; //  SERVICE TABLE: nservices services, owned
    uint32_t nservices;             //  entries in service_rows
    drover_replica_row_t *replica_rows; //  SERVICE TABLE: nreplicas replicas, owned
    uint32_t nreplicas;             //  entries in replica_rows
    drover_planchange_t *changes;   //  PLAN RESULT: nchanges changes, owned
    uint32_t nchanges;              //  entries in changes
    //  Several brokers
    char leader [DROVER_ENDPOINT_MAX + 1];  //  REDIRECT: the leader's endpoint, "" unknown
    char leader_name [DROVER_ID_MAX + 1];   //  REDIRECT: the leader's name, "" unknown;
                                    //  CLIENT WELCOME: the answering broker's, "" none
    //  Protocol levels (PROTOCOL.md §12)
    uint16_t level;                 //  HELLO, WELCOME, CLIENT HELLO, CLIENT WELCOME: the
                                    //  sender's level; 0 packs DROVER_MSG_LEVEL, and a
                                    //  decoded message without one says 1
    char release [DROVER_RELEASE_MAX + 1];  //  HELLO, CLIENT HELLO, CLIENT WELCOME: the
                                    //  sender's release; "" packs DROVER_RELEASE
    uint16_t implied;               //  set by decode: the lowest level whose peers could
                                    //  have sent this message (its id, its fields)
    char strategy [DROVER_STRATEGY_MAX + 1];    //  QUEUE TABLE: the placement strategy
                                    //  ("leader", "spread"), "" no named queues
    drover_queue_row_t *queue_rows; //  QUEUE TABLE: nqueues queues in name order, owned
    uint32_t nqueues;               //  entries in queue_rows
    //  Sharing a cluster (level 4)
    char owner [DROVER_ID_MAX + 1]; //  TASK SUBMIT, WORKFLOW SUBMIT: the owner the client
                                    //  names (without CURVE; with CURVE the key's name
                                    //  wins), "" none; SHARE ADMIN: the account or owner
    uint32_t ndevices;              //  entries in devices
    drover_device_t devices [DROVER_DEVICES_MAX];   //  WORKER HELLO: the worker's devices;
                                    //  TASK SUBMIT, TASK OFFER: the task's demand;
                                    //  SHARE ADMIN: device quotas
    char *assigned;                 //  TASK STARTED: the device indices the worker gave the
                                    //  attempt, "gpu=0,2;fpga=4" ("" none), owned, or NULL
    uint32_t weight;                //  SHARE ADMIN: the weight, 0 keeps it (1 if new)
    char *members;                  //  SHARE ADMIN: an account's members, comma-separated,
                                    //  owned, or NULL (keeps them; an owner: none)
    uint32_t quota_procs;           //  SHARE ADMIN: most procs running at once, 0 no limit
    uint64_t quota_mem;             //  SHARE ADMIN: most memory running at once, 0 no limit
    uint32_t quota_queued;          //  SHARE ADMIN: most tasks queued, 0 no limit
    drover_share_row_t *share_rows; //  SHARE TABLE: nshares rows, owned
    uint32_t nshares;               //  entries in share_rows
    //  Backups (level 5; also duration: BACKUP DONE's msec)
    char *path;                     //  STATE BACKUP, BACKUP DONE: the backup file, an
                                    //  absolute path on the broker's host, owned, or NULL
    uint64_t pages;                 //  BACKUP DONE: database pages copied
    uint64_t bytes;                 //  BACKUP DONE: bytes of the backup file
    //  Set by the broker from the sender's authenticated key, never on the wire
    char principal [DROVER_ID_MAX + 1]; //  the key's name (its file name less .key), "" without CURVE
    uint8_t roles;                  //  DROVER_ROLE_* bits the key holds; all without CURVE
    //  Set by a failed decode
    const char *error;              //  static text saying what was malformed
    bool bad_version;               //  the failure was an unknown version (ERROR 426)
    bool too_large;                 //  the failure was a str, bin or array longer than
                                    //  its type allows (ERROR 413)
} drover_msg_t;

//  Create an empty message with the given id; never returns NULL
drover_msg_t *
    drover_msg_new (int id);

//  Destroy a message and everything it owns; harmless on NULL
void
    drover_msg_destroy (drover_msg_t **self_p);

//  Free what the message owns and zero it, keeping nothing; ready for decode
void
    drover_msg_reset (drover_msg_t *self);

//  Encode a message into a new frame; NULL if a field breaks a limit
zframe_t *
    drover_msg_encode (drover_msg_t *self);

//  Encode a message as a peer of level (1..DROVER_MSG_LEVEL) knows it: only
//  the fields and values of that level (PROTOCOL.md §12). NULL if the
//  message id is newer than level, or a field breaks a limit.
zframe_t *
    drover_msg_encode_level (drover_msg_t *self, int level);

//  Return the level that brought a message id (1 for ids 1..21), or 0 for
//  an id that is not one
int
    drover_msg_id_level (int id);

//  Return the level a decoded message shows its sender speaks: the level
//  it declares (HELLO, CLIENT HELLO, WELCOME, CLIENT WELCOME) or, failing
//  that, the lowest level that has its id and its fields
int
    drover_msg_level (const drover_msg_t *self);

//  Fit an encoded message to a peer of level: leave *payload_p as it is
//  when that peer knows all of it, else replace it with the encoding of
//  that level's fields and values. Returns 0, or -1 when no peer of that
//  level knows the message (its id is newer) or it does not decode; then
//  *payload_p is unchanged and the caller does not send it.
int
    drover_msg_fit (zframe_t **payload_p, int level);

//  Read and drop the frames that follow one whose more flag is set (more:
//  zmq_msg_more of it), on a libzmq socket handle: a message of this
//  protocol is one frame. Returns more (true: there were frames to drop).
bool
    drover_msg_drop_more (void *handle, bool more);

//  Say this codec's level on a client's DEALER: a CLIENT HELLO with seq 0,
//  whose answer (CLIENT WELCOME, seq 0) the caller does not wait for. What
//  a client sends first on each connection (PROTOCOL.md §12.1). Returns 0,
//  or -1 if the socket refused it (never blocks).
int
    drover_msg_say_level (zsock_t *dealer);

//  Decode bytes into self (reset first). Returns 0, or -2 if malformed,
//  with self->error saying why, self->too_large if that is a size past its
//  limit, and the seq and id drover_msg_peek reads. Allocates nothing until
//  the whole structure has been checked; then at most the bound in
//  PROTOCOL.md, "Limits".
int
    drover_msg_decode (drover_msg_t *self, const byte *data, size_t size);

//  Decode bytes into a new message (the caller owns it; never NULL). Its
//  error is NULL if it decoded; else it holds what a failed
//  drover_msg_decode leaves. Cheaper than drover_msg_new and
//  drover_msg_decode: the new message is not reset again.
drover_msg_t *
    drover_msg_decode_new (const byte *data, size_t size);

//  Read only the seq and id of an encoded message, as PROTOCOL.md §5 says:
//  an array of at least 4 elements, elements 0..2 any well-formed values,
//  element 3 a uint32. Returns the message id (element 2 if it names one,
//  else 0) and sets *seq_p; or returns -1 with *seq_p 0 if the seq is not
//  readable. For answering a message that is not decoded with its seq.
int
    drover_msg_peek (const byte *data, size_t size, uint32_t *seq_p);

//  Receive one frame from a DEALER or SUB-less socket and decode it.
//  Returns 0, -1 if interrupted, -2 if malformed.
int
    drover_msg_recv (drover_msg_t *self, zsock_t *input);

//  Encode and send a message on a DEALER socket. Returns 0 or -1.
int
    drover_msg_send (drover_msg_t *self, zsock_t *output);

//  Add a "key=value" label, copying it. Returns 0, or -1 if full or invalid.
int
    drover_msg_add_label (drover_msg_t *self, const char *label);

//  Set the reason text (copied, truncated to DROVER_REASON_MAX)
void
    drover_msg_set_reason (drover_msg_t *self, const char *reason);

//  Set the body bytes (copied)
void
    drover_msg_set_body (drover_msg_t *self, const byte *body, size_t size);

//  Set the captured stdout / stderr bytes (copied)
void
    drover_msg_set_output (drover_msg_t *self,
                           const byte *out, size_t out_size,
                           const byte *err, size_t err_size);

//  Return the printable name of a message id, e.g. "TASK SUBMIT"
const char *
    drover_msg_name (int id);

//  Return the name of a POOL ADMIN action ("run", "hold", "drain",
//  "destroy"), of a pool instance's state ("unknown", "booting", "idle",
//  "running", "shutdown"), "invalid" for any other value
const char *
    drover_pooladmin_name (int action);
const char *
    drover_pool_state_name (int state);

//  Parse a POOL ADMIN action's name. Returns 0 and sets *action_p, or -1.
int
    drover_pooladmin_parse (const char *name, int *action_p);

//  Return the name of a SERVICE ADMIN action ("create", "scale", "delete"),
//  of a PLAN action ("drain", "hold", "scale", "term"), of a service's
//  state ("ok", "under", "over", "lost", "crashing"), of a replica's state
//  ("pending", "running", "stopping", "waiting"), of a change's kind
//  ("start", "stop", "move", "finish", "requeue"); "invalid" for any other
//  value
const char *
    drover_service_action_name (int action);
const char *
    drover_plan_action_name (int action);
const char *
    drover_service_state_name (int state);
const char *
    drover_replica_state_name (int state);
const char *
    drover_change_kind_name (int kind);

//  Tell whether an end goes with a task state (PROTOCOL.md §7.13): NONE with
//  QUEUED, ASSIGNED, RUNNING; SUCCEEDED and CANCELLED with their own state
//  (and DEPENDENCY with CANCELLED);
//  FAILED, TIMED_OUT, SPAWN_FAILED, LOST, POISON with FAILED; EXPIRED and
//  UNKNOWN with UNKNOWN
bool
    drover_end_fits (int state, int end);

//  Check that a worker id is printable ASCII without spaces, 1..64 bytes
bool
    drover_id_valid (const char *id);

//  Check that a label is "key=value": key [A-Za-z0-9_.-]{1,63}, value printable
bool
    drover_label_valid (const char *label);

//  Check that a queue name is 1..64 bytes of [A-Za-z0-9._-]
bool
    drover_queue_name_valid (const char *name);

//  Check that an endpoint can be one of a QUEUE TABLE row's: 1..256 bytes
//  of printable ASCII without spaces or commas (a list item, PROTOCOL.md §17)
bool
    drover_queue_endpoint_valid (const char *endpoint);

#ifdef __cplusplus
}
#endif

#endif
