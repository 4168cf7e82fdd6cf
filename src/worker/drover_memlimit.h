/*  =========================================================================
    drover_memlimit - bounds the memory of each task through whichever
    memory controller the host has, and tells whether the OOM killer
    killed in it

    cgroup v2 where the worker's cgroup has the memory controller (listed
    in its cgroup.controllers; enabled in its cgroup.subtree_control and in
    that of the tasks' directory of drover_confine): the task's own cgroup
    gets memory.max (hard) or memory.high (soft); memory.events says
    "oom_kill N". Else cgroup v1's memory controller (hybrid hosts: v1
    controllers mounted, the v2 hierarchy without them): a directory per
    task, "drover-PID-N/tK" under the worker's own memory cgroup (the
    "memory" line of /proc/self/cgroup), with memory.limit_in_bytes (hard)
    or memory.soft_limit_in_bytes (soft); the task's first process joins
    it before exec (its cgroup.procs), so every process it starts is
    inside; memory.oom_control says "oom_kill N" (Linux 4.13), older
    kernels only memory.failcnt. Else none: said once, tasks unbounded.
    =========================================================================
*/

#ifndef DROVER_MEMLIMIT_H_INCLUDED
#define DROVER_MEMLIMIT_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_memlimit_t drover_memlimit_t;

//  The memory controller a memlimit uses
typedef enum {
    DROVER_MEMLIMIT_NONE = 0,       //  none: tasks run unbounded
    DROVER_MEMLIMIT_V2   = 1,       //  cgroup v2, in drover_confine's task cgroups
    DROVER_MEMLIMIT_V1   = 2        //  cgroup v1, directories of its own
} drover_memlimit_controller_t;

//  Create a memlimit in mode "hard", "soft" or "off" (NULL: "hard"),
//  finding the host's memory controller. v2_dir is the directory the
//  tasks' v2 cgroups live in (drover_confine_cgroup), or NULL. Returns
//  NULL if mode is none of those. Logs once which controller it uses, or
//  that there is none.
drover_memlimit_t *
    drover_memlimit_new (const char *mode, const char *v2_dir);

//  Destroy: kill what is left in its v1 directories and remove them.
//  Harmless on NULL.
void
    drover_memlimit_destroy (drover_memlimit_t **self_p);

//  Return the controller it uses (DROVER_MEMLIMIT_NONE when off)
int
    drover_memlimit_controller (drover_memlimit_t *self);

//  Return the name of a controller: "cgroup v2", "cgroup v1", "none"
const char *
    drover_memlimit_controller_name (int controller);

//  Return true if mode is "hard", "soft" or "off"
bool
    drover_memlimit_mode_valid (const char *mode);

//  Before a task starts: bound it to bytes (0: unbounded). v2_fd is an fd
//  on the task's v2 cgroup directory (drover_confine_prepare), or -1.
//  Returns 0 with the limit's number in *limit_p (0: no limit: bytes 0,
//  mode off, no controller) and in *join_fd_p an fd (close-on-exec, the
//  caller's) of a cgroup.procs the task's first process must write "0" to
//  before exec, or -1; -1 if the limit could not be made, errno saying
//  why (nothing left open).
int
    drover_memlimit_prepare (drover_memlimit_t *self, uint64_t bytes, int v2_fd,
                             uint32_t *limit_p, int *join_fd_p);

//  After the task's first process was reaped, before its v2 cgroup is
//  released: return true if the OOM killer killed a process of it. killed:
//  that process died by SIGKILL (what older v1 kernels judge by).
bool
    drover_memlimit_oom (drover_memlimit_t *self, uint32_t limit, bool killed);

//  The task ended: SIGKILL what is left in its v1 directory and remove it,
//  now or, while dying processes hold it, on a later drover_memlimit_tidy
void
    drover_memlimit_release (drover_memlimit_t *self, uint32_t limit);

//  Retry removing the v1 directories of ended tasks. Returns the msec
//  (zclock_mono) of the next retry, or -1 if none is left.
int64_t
    drover_memlimit_tidy (drover_memlimit_t *self, int64_t now);

//  Return the msec (zclock_mono) of the next retry, or -1 if none
int64_t
    drover_memlimit_next_tidy (drover_memlimit_t *self);

#ifdef __cplusplus
}
#endif

#endif
