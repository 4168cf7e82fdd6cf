/*  =========================================================================
    drover_spawner - starts a task's process without copying the worker

    The runner's way to start a child (drover_runner): in its own process
    group and, where drover_confine gives it one, its own cgroup, as the
    tasks' user if they have one (drover_taskenv); argv, the environment
    drover_taskenv builds (never the worker's own), a
    working directory, stdin from the input bytes (a memfd, so the loop
    never blocks writing it), stdout and stderr into pipes. The parent
    keeps the read ends, non-blocking, and a pidfd readable once the child
    exits. See drover_spawner.c for how (clone on a stack of its own).
    =========================================================================
*/

#ifndef DROVER_SPAWNER_H_INCLUDED
#define DROVER_SPAWNER_H_INCLUDED

#include "drover_msg.h"
#include "drover_confine.h"
#include "drover_memlimit.h"
#include "drover_taskenv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_spawner_t drover_spawner_t;

//  A child the spawner started: what its caller watches and ends it by
typedef struct {
    pid_t pid;                      //  child pid, also its process group id
    int pidfd;                      //  readable once the child exits, owned by the caller
    int out_fd;                     //  read end of its stdout pipe, non-blocking, caller's
    int err_fd;                     //  read end of its stderr pipe, non-blocking, caller's
    uint32_t group;                 //  its cgroup's number (drover_confine), 0 = none
    uint32_t limit;                 //  its memory limit's number (drover_memlimit), 0 = none
} drover_spawned_t;

//  Create a spawner; it maps the children's stack at the first start
drover_spawner_t *
    drover_spawner_new (void);

//  Destroy a spawner: unmap the children's stack; harmless on NULL
void
    drover_spawner_destroy (drover_spawner_t **self_p);

//  Set the directory every child starts in before its own cwd (NULL: the
//  worker's current directory, the default)
void
    drover_spawner_set_workdir (drover_spawner_t *self, const char *workdir);

//  Set what every child sees of the worker: the user it runs as and its
//  environment (borrowed: it must outlive the spawner). Default: a taskenv
//  of its own (the worker's user, the base environment only).
void
    drover_spawner_set_taskenv (drover_spawner_t *self, drover_taskenv_t *taskenv);

//  Return true if exec names a command to run (a task without one is at
//  fault, and no child is started for it)
bool
    drover_spawner_runnable (const drover_exec_t *exec);

//  Start a child running exec (which must be runnable), confined by
//  confine, its memory bounded to mem bytes by memlimit (NULL or 0:
//  unbounded; a limit that cannot be made is the machine's fault), its environment saying who it is (who: DROVER_TASK_ID,
//  DROVER_ATTEMPT, DROVER_WORKER; NULL: none of them). Returns 0 with spawned filled, or -1 with reason filled and
//  nothing left open; *machine_p then says whether the machine is at fault
//  (out of processes, file descriptors, memory or disk; the work directory
//  gone; no cgroup) or the task (no such command, its own cwd missing).
int
    drover_spawner_start (drover_spawner_t *self, const drover_exec_t *exec,
                          const drover_taskenv_who_t *who,
                          drover_confine_t *confine, drover_memlimit_t *memlimit,
                          uint64_t mem, drover_spawned_t *spawned,
                          char *reason, size_t reason_size, bool *machine_p);

#ifdef __cplusplus
}
#endif

#endif
