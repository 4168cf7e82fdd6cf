/*  =========================================================================
    drover_taskinfo - the task info codec: everything the broker knows of
    one task, as TASK INFO carries it (PROTOCOL.md §7.27), and a task's
    attempts, as TASK INFO and the broker's state keep them

    The info is a msgpack map with string keys (PROTOCOL.md lists them), so
    that a client in another language reads it by name and a newer broker
    may add keys an older client skips. An attempt is a map too. Decoding
    walks the whole value first (structure, depth, trailing bytes), then
    reads the pairs: keys in any order, unknown keys skipped, every length
    and count bounded before anything is allocated.
    =========================================================================
*/

#ifndef DROVER_TASKINFO_H_INCLUDED
#define DROVER_TASKINFO_H_INCLUDED

#include "drover_limits.h"
#include <czmq.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DROVER_ATTEMPTS_MAX     8           //  past attempts kept per task, the latest
#define DROVER_ATTEMPT_NO_RESULT 255        //  an attempt's outcome when no RESULT came

//  One attempt of a task: where and when it ran, and how it ended
typedef struct {
    uint32_t attempt;               //  attempt number, from 1
    char worker [DROVER_ID_MAX + 1];    //  the worker it was offered to
    int64_t offered_at;             //  wall clock, msec since the epoch (0: unknown)
    int64_t started_at;             //  its STARTED, or its RESULT when no STARTED came (0: never)
    int64_t ended_at;               //  when it ended (0: still current)
    uint8_t outcome;                //  drover_outcome_t of its RESULT, or
                                    //  DROVER_ATTEMPT_NO_RESULT (lost, not acknowledged...)
    bool requeued;                  //  its end put the task back in the queue
    int32_t exit_code;              //  exit status (EXITED), else -1
    int32_t signal;                 //  signal that ended it (SIGNALLED), else 0
    char reason [DROVER_REASON_MAX + 1];    //  how it ended in words ("exit 1", "worker
                                    //  lost: heartbeats stopped"), "" while current
} drover_attempt_t;

//  One parent of a task, as TASK INFO says it
typedef struct {
    uint8_t kind;                   //  drover_after_kind_t
    uint64_t task;                  //  the parent's id
    uint8_t state;                  //  its drover_task_state_t now (UNKNOWN: no longer held)
} drover_parent_t;

#define DROVER_CHILDREN_LISTED  64          //  children a TASK INFO lists, at most

//  A task as TASK INFO says it. Strings and arrays are owned.
typedef struct {
    uint64_t task;                  //  task id
    uint8_t state;                  //  drover_task_state_t (UNKNOWN with end EXPIRED: its
                                    //  result is no longer kept, the rest is zero)
    uint8_t end;                    //  drover_end_t, NONE while not final
    char *reason;                   //  why it ended so (final), or NULL
    uint8_t outcome;                //  final: its last attempt's RESULT outcome, or
                                    //  DROVER_ATTEMPT_NO_RESULT
    int32_t exit_code;              //  final: exit status, -1 if none
    int32_t signal;                 //  final: signal that ended it, 0 if none
    uint32_t duration;              //  final: run time the worker measured, msec
    uint32_t truncated;             //  final: DROVER_TRUNC_* flags
    uint64_t out_size;              //  final: bytes of stdout kept
    uint64_t err_size;              //  final: bytes of stderr kept
    char owner [DROVER_ID_MAX + 1]; //  the key that submitted it, or ""
    int32_t priority;               //  lower runs first
    uint32_t procs;                 //  procs demanded
    uint64_t mem;                   //  bytes demanded
    uint32_t timeout;               //  msec, 0 = none
    uint32_t retries;               //  retries asked at submit
    uint32_t retries_left;          //  of them, still allowed
    uint32_t lost;                  //  workers lost with it so far
    uint32_t nlabels;               //  entries in labels
    char **labels;                  //  "key=value" each
    uint32_t argc;                  //  entries in argv
    char **argv;                    //  the command
    char *cwd;                      //  working directory, or NULL
    uint32_t nenv;                  //  entries in env
    char **env;                     //  environment variable NAMES only (no values)
    uint64_t input_size;            //  bytes of stdin it was given
    char *key;                      //  its submit key, or NULL
    int64_t queued_at;              //  wall clock, msec since the epoch: submitted
    int64_t started_at;             //  its current (or last) attempt started, 0 if not yet
    int64_t ended_at;               //  it ended, 0 if not final
    uint32_t attempt;               //  current (or last) attempt number, 0 if never offered
    char worker [DROVER_ID_MAX + 1];    //  its worker, or ""
    uint32_t nattempts;             //  entries in attempts
    drover_attempt_t *attempts;     //  oldest first: the kept past ones, then the current
                                    //  or last one
    uint32_t dropped;               //  earlier attempts no longer kept
    //  Workflows (keys of level 3; 0 / NULL when absent)
    uint8_t waits;                  //  drover_waits_t: QUEUED, not in the queue yet, why
    uint64_t begin;                 //  msec since the epoch it may start, 0 none asked
    uint64_t due;                   //  msec since the epoch its begin or retry wait ends, 0
    uint32_t retry_delay;           //  msec before the first retry, 0 at once
    uint32_t retry_max_delay;       //  the most a retry waits, msec
    uint64_t group;                 //  the array or workflow it is a member of, 0 none
    uint32_t index;                 //  an array element: its index
    uint32_t nparents;              //  entries in parents
    drover_parent_t *parents;       //  what it waits (or waited) for, in its after order
    uint32_t nchildren;             //  entries in children, at most DROVER_CHILDREN_LISTED
    uint64_t *children;             //  tasks that wait (or waited) for it, lowest ids first
    uint32_t children_total;        //  of them in all
    uint32_t members;               //  an array's or workflow's own id: its members in all
                                    //  (0: not one)
    uint32_t limit;                 //  an array: most elements queued or running at once, 0
    uint32_t array_first;           //  an array: its first index
    uint32_t array_step;            //  an array: between indexes
    uint64_t member_counts [7];     //  an array's or workflow's own id: its members by
                                    //  drover_task_state_t (elements not made yet count
                                    //  QUEUED)
    //  Sharing a cluster (keys of level 4; NULL / 0 when absent)
    char *devices;                  //  the devices it asks, "gpu=2,fpga=1", owned, or NULL
    char *assigned;                 //  the indices its current (or last) attempt was given,
                                    //  "gpu=0,2;fpga=4", owned, or NULL
    uint8_t preemptible;            //  1: submitted PREEMPTIBLE (the broker may stop it to
                                    //  make room, and queues it again)
} drover_taskinfo_t;

//  Create an empty info; never NULL
drover_taskinfo_t *
    drover_taskinfo_new (void);

//  Destroy an info and what it owns; harmless on NULL
void
    drover_taskinfo_destroy (drover_taskinfo_t **self_p);

//  Encode into a new buffer the caller frees; NULL if a limit is broken
byte *
    drover_taskinfo_encode (const drover_taskinfo_t *self, size_t *size_p);

//  Decode an info; NULL (with *error_p set, static text) if malformed
drover_taskinfo_t *
    drover_taskinfo_decode (const byte *data, size_t size, const char **error_p);

//  Encode count attempts and how many were dropped before them (an array
//  [dropped, attempt...]) into a new buffer the caller frees
byte *
    drover_taskinfo_encode_attempts (const drover_attempt_t *attempts, uint32_t count,
                                     uint32_t dropped, size_t *size_p);

//  Decode what encode_attempts made: returns the count (at most
//  DROVER_ATTEMPTS_MAX), or -1 if malformed; attempts holds
//  DROVER_ATTEMPTS_MAX entries
int
    drover_taskinfo_decode_attempts (const byte *data, size_t size, drover_attempt_t *attempts,
                                     uint32_t *dropped_p);

#ifdef __cplusplus
}
#endif

#endif
