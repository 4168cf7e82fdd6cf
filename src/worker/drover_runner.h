/*  =========================================================================
    drover_runner - runs task attempts as child processes

    The runner starts each attempt from a drover_exec_t as a child process
    in its own process group and, where the machine allows, its own cgroup
    v2 (drover_confine: a supervisor process kills every task's processes
    if the worker dies), as the tasks' user if they have one: argv, the
    environment drover_taskenv builds (a documented base, the worker's
    variables an allow-list names, the task's own entries, then who it is:
    DROVER_TASK_ID, DROVER_ATTEMPT, DROVER_WORKER; never the worker's
    whole environment), a working directory, stdin from the input bytes
    (a memfd, so the loop never blocks writing it). stdout and stderr are
    read through non-blocking pipes into buffers bounded at
    DROVER_OUTPUT_MAX each; past that the runner keeps reading and
    discarding, and flags the result truncated. A pidfd per child tells the
    loop at once when it exits; the child is reaped with waitpid WNOHANG,
    and whatever is left of its process group and cgroup is then killed.

    The runner owns no thread and no poll: the caller's loop polls the fds
    the runner lists (drover_runner_fill; the worker fills the plain-fd
    items of its drover_poller), then calls drover_runner_process
    with what the poll said and the time, and collects finished attempts
    with drover_runner_next_result. Timeouts and cancels send SIGTERM to
    every process of the task, then SIGKILL after the grace period.

    Needs Linux 5.11 or later (clone with CLONE_PIDFD, pidfds, close_range
    with CLOSE_RANGE_CLOEXEC).
    =========================================================================
*/

#ifndef DROVER_RUNNER_H_INCLUDED
#define DROVER_RUNNER_H_INCLUDED

#include "drover_msg.h"
#include "drover_taskenv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_runner_t drover_runner_t;

//  Default msec between SIGTERM and SIGKILL
#define DROVER_RUNNER_GRACE     5000

//  Create a runner with no attempts
drover_runner_t *
    drover_runner_new (void);

//  Destroy a runner: SIGKILL every process group still running and reap
//  the children; harmless on NULL
void
    drover_runner_destroy (drover_runner_t **self_p);

//  Set the msec between SIGTERM and SIGKILL on a timeout, cancel or stop
void
    drover_runner_set_grace (drover_runner_t *self, uint32_t grace);

//  Set how tasks are confined (drover_confine): "auto" (a cgroup v2 per
//  task where the machine allows it, else its process group), "cgroup"
//  (the same, warning when it falls back) or "pgroup" (process groups
//  only). Before the first start only. Default: $DROVER_CONFINE, or "auto".
void
    drover_runner_set_confine (drover_runner_t *self, const char *mode);

//  Set how a task's memory is bounded (drover_memlimit), through the
//  host's memory controller (cgroup v2, else v1): "hard" (memory.max /
//  memory.limit_in_bytes: past it the OOM killer kills in the task, which
//  ends with outcome OOM), "soft" (memory.high / soft_limit_in_bytes:
//  reclaimed and throttled past it) or "off". Before the first start
//  only. Default: $DROVER_MEMORY_LIMIT, or "hard".
void
    drover_runner_set_memory_limit (drover_runner_t *self, const char *mode);

//  Return the memory controller tasks' limits go through
//  (drover_memlimit_controller_t: DROVER_MEMLIMIT_V2, _V1 or _NONE, which
//  it is before the first start and when the mode is "off")
int
    drover_runner_memory_controller (drover_runner_t *self);

//  Set the directory every task starts in before its own cwd (NULL: the
//  worker's current directory, the default). A task that cannot get there
//  (the directory went away) ends MACHINE_FAILED: the machine's fault.
void
    drover_runner_set_workdir (drover_runner_t *self, const char *workdir);

//  Set what tasks see of the worker: the user they run as and their
//  environment (drover_taskenv; borrowed, it must outlive the runner).
//  Default: the worker's user and the base environment only.
void
    drover_runner_set_taskenv (drover_runner_t *self, drover_taskenv_t *taskenv);

//  Set the worker id every task sees as DROVER_WORKER (copied; NULL, the
//  default: tasks see no DROVER_WORKER). Each task also sees its id as
//  DROVER_TASK_ID and its attempt as DROVER_ATTEMPT.
void
    drover_runner_set_worker (drover_runner_t *self, const char *worker);

//  Return the directory holding the tasks' cgroups, or NULL when tasks are
//  confined by process group only (or none started yet)
const char *
    drover_runner_cgroup (drover_runner_t *self);

//  Start an attempt of task at now (msec, zclock_mono). timeout is in msec,
//  0 for none. Returns 0 if the process runs, or -1 if it could not start:
//  then a result saying why is already waiting in drover_runner_next_result,
//  outcome SPAWN_FAILED if the task is at fault (no such command, its own
//  cwd missing), MACHINE_FAILED if the machine is (out of processes, file
//  descriptors, memory or disk; the work directory gone; no cgroup).
int
    drover_runner_start (drover_runner_t *self, uint64_t task, uint32_t attempt,
                         const drover_exec_t *exec, uint32_t timeout, int64_t now);

//  Start an attempt as drover_runner_start does, its memory bounded to mem
//  bytes (0: unbounded) as drover_runner_set_memory_limit says. An attempt
//  the OOM killer killed in ends with outcome OOM (unless it exited 0, or
//  was timed out or cancelled first); a limit that cannot be made ends it
//  MACHINE_FAILED.
int
    drover_runner_start_bounded (drover_runner_t *self, uint64_t task, uint32_t attempt,
                                 const drover_exec_t *exec, uint32_t timeout,
                                 uint64_t mem, int64_t now);

//  Start an attempt as drover_runner_start_bounded does, telling it the
//  devices the worker gave it: devices is a NULL-terminated array of
//  "NAME=VALUE" entries (drover_devices_env; borrowed for the call, NULL
//  none) that go into its environment over its own entries of those names
int
    drover_runner_start_assigned (drover_runner_t *self, uint64_t task, uint32_t attempt,
                                  const drover_exec_t *exec, uint32_t timeout, uint64_t mem,
                                  char *const *devices, int64_t now);

//  Cancel a running attempt: SIGTERM now, SIGKILL after the grace; it ends
//  with outcome CANCELLED. Returns 0, or -1 if no such attempt runs.
int
    drover_runner_cancel (drover_runner_t *self, uint64_t task, uint32_t attempt,
                          int64_t now);

//  Return true if this attempt is running (started and not yet reaped)
bool
    drover_runner_running (drover_runner_t *self, uint64_t task, uint32_t attempt);

//  Return the number of attempts running
size_t
    drover_runner_size (drover_runner_t *self);

//  Copy up to max running (task, attempt) pairs into refs; returns how many
size_t
    drover_runner_list (drover_runner_t *self, drover_taskref_t *refs, size_t max);

//  Return how many poll items drover_runner_fill needs at most now
size_t
    drover_runner_items (drover_runner_t *self);

//  Fill items (room for at least drover_runner_items) with the fds to poll
//  for reading; returns how many. Pass the same items, after the poll, to
//  drover_runner_process, before any other runner call.
size_t
    drover_runner_fill (drover_runner_t *self, zmq_pollitem_t *items, size_t max);

//  Read what the poll said is ready, reap children that exited, and act on
//  deadlines that passed by now (timeout: SIGTERM; grace over: SIGKILL).
//  items may be NULL (count 0) to check deadlines only.
void
    drover_runner_process (drover_runner_t *self, zmq_pollitem_t *items,
                           size_t count, int64_t now);

//  Return the earliest msec (zclock_mono) at which drover_runner_process
//  has a deadline to act on, or -1 if none
int64_t
    drover_runner_next_deadline (drover_runner_t *self);

//  Take the next finished attempt, as a TASK RESULT message (task, attempt,
//  outcome, exit_code, signal, truncated, duration, out, err, reason; the
//  worker id and seq are left for the caller). NULL if none. Caller owns it.
drover_msg_t *
    drover_runner_next_result (drover_runner_t *self);

//  Stop every attempt: SIGTERM each process group, wait up to the grace for
//  the children to exit, then SIGKILL the rest. Blocks for at most the
//  grace. Their results are discarded.
void
    drover_runner_stop_all (drover_runner_t *self);

#ifdef __cplusplus
}
#endif

#endif
