/*  =========================================================================
    drover_confine - keeps every process a task starts together, and kills
    them all, even after the worker that started them died

    A task runs in a cgroup v2 of its own where the machine allows it (the
    way systemd and Slurm confine jobs): a directory under one made for
    this worker inside the worker's own cgroup, so no process the task
    starts can leave it, and `cgroup.kill` ends them all at once. Task
    cgroups are reused from a pool, each seen empty (cgroup.events) before
    the next task starts in it. Where
    cgroup v2 is not mounted, not writable or has no cgroup.kill (Linux
    before 5.14), each task is only its own process group (the runner's
    setpgid), killed with killpg; a process that calls setsid or setpgid
    leaves it.

    A supervisor process, forked when the first task is confined, outlives
    the worker: it holds the read end of a pipe whose write end only the
    worker has. When the worker dies, even by SIGKILL, the pipe closes and
    the supervisor kills the worker's whole cgroup (or, with process
    groups, every group the worker told it about over the pipe), removes
    the cgroup directories and exits. It ignores SIGINT, SIGTERM and
    SIGHUP, so a terminal's ^C reaches the worker and its tasks first.

    The mode comes from the argument of drover_confine_new: "auto" (cgroup
    if possible, else process groups), "cgroup" (the same, logged as a
    warning when it falls back) or "pgroup" (process groups only).
    =========================================================================
*/

#ifndef DROVER_CONFINE_H_INCLUDED
#define DROVER_CONFINE_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_confine_t drover_confine_t;

//  Create a confinement for tasks in mode "auto", "cgroup" or "pgroup"
//  (NULL = "auto"), and start its supervisor. Never fails: without
//  cgroups (or a supervisor) it confines by process group alone and logs
//  why.
drover_confine_t *
    drover_confine_new (const char *mode);

//  Destroy: end the supervisor, which kills what is left of every task and
//  removes the cgroup directories; waits for it at most a few seconds.
//  Harmless on NULL.
void
    drover_confine_destroy (drover_confine_t **self_p);

//  Return the cgroup directory tasks' cgroups live in, or NULL when tasks
//  are confined by process group only
const char *
    drover_confine_cgroup (drover_confine_t *self);

//  Return the pid of the supervisor, or 0 if none runs
pid_t
    drover_confine_supervisor (drover_confine_t *self);

//  Before starting a task: give it a cgroup, an empty one from the pool
//  (verified empty) or a new one. Returns an fd on its directory
//  (close-on-exec, the confinement's: do not close it) to start the child
//  in (clone3 CLONE_INTO_CGROUP) or for the child to move into (its
//  cgroup.procs) before exec, and the group's number in *group_p; -1
//  without cgroups (*group_p = 0); -2 if making it failed, errno saying
//  why (then the spawn fails: the machine cannot confine the task).
int
    drover_confine_prepare (drover_confine_t *self, uint32_t *group_p);

//  The task's settings changed its cgroup (a v2 memory limit, whose
//  memory.events counts would carry over): remove it when the task ends
//  instead of pooling it
void
    drover_confine_taint (drover_confine_t *self, uint32_t group);

//  Return the fd a task's first process announces its process group on
//  (drover_confine_announce), when the task has no cgroup (group 0) and a
//  supervisor guards process groups; else -1
int
    drover_confine_guard_fd (drover_confine_t *self, uint32_t group);

//  In a task's first process, between clone and exec: tell the supervisor
//  on guard_fd that this process's group dies with the worker, before
//  anything of the task runs (a worker killed right after the clone takes
//  it along). Async-signal-safe, no allocation. Returns 0, or -1 if the
//  supervisor did not get it.
int
    drover_confine_announce (int guard_fd);

//  The task's first process started as pid, leader of its process group;
//  announced: it told the supervisor itself (drover_confine_announce)
void
    drover_confine_started (drover_confine_t *self, uint32_t group, pid_t pid, bool announced);

//  Send signum to every process of the task (its cgroup, and its process
//  group if pid > 0); SIGKILL uses cgroup.kill
void
    drover_confine_signal (drover_confine_t *self, uint32_t group, pid_t pid, int signum);

//  The task ended: its leader pid was reaped after its process group got
//  SIGKILL (pid 0: it never started). Kill what is left in its cgroup
//  (cgroup.kill: its whole tree), forget its process group, and give its
//  cgroup back to the pool (or remove it) once it is empty: now, or, while
//  dying processes hold it, on a later drover_confine_tidy. The fd
//  drover_confine_prepare gave must not be used after.
void
    drover_confine_release (drover_confine_t *self, uint32_t group, pid_t pid);

//  Check again the cgroups of ended tasks that were not empty (killing
//  again what is left), pooling or removing those now empty. Returns
//  the msec (zclock_mono) of the next retry, or -1 if none is left.
int64_t
    drover_confine_tidy (drover_confine_t *self, int64_t now);

//  Return the msec (zclock_mono) of the next retry drover_confine_tidy
//  has to make, or -1 if none
int64_t
    drover_confine_next_tidy (drover_confine_t *self);

#ifdef __cplusplus
}
#endif

#endif
