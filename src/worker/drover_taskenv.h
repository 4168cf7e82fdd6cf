/*  =========================================================================
    drover_taskenv - what a task can see of its worker: the user it runs
    as and its environment

    A task never inherits the agent's environment. It gets a documented
    base (PATH=/usr/local/bin:/usr/bin:/bin, HOME, USER and LOGNAME of the
    user it runs as, LANG=C.UTF-8), then the agent's variables that an
    allow-list names (each replacing the base's of the same name), then
    its own (the exec body's env, which win over those), then the devices
    the worker gave it (DROVER_DEVICES_<NAME>, CUDA_VISIBLE_DEVICES,
    CUDA_DEVICE_ORDER: over its own entries of those names), then who the
    task is: DROVER_TASK_ID, DROVER_ATTEMPT and DROVER_WORKER, which win
    over all. The agent's own settings and keys, every DROVER_* variable of its
    environment, are never passed, and an allow-list entry that could name
    one is refused; a task's own DROVER_* entries (DROVER_ARRAY_ID and
    DROVER_ARRAY_INDEX, which the broker adds to an array element's body)
    pass like any other of its entries. Optionally tasks run as another,
    unprivileged user (the agent must be root): the spawner's child drops
    to it (drover_taskenv_become) before exec.
    =========================================================================
*/

#ifndef DROVER_TASKENV_H_INCLUDED
#define DROVER_TASKENV_H_INCLUDED

#include "drover_msg.h"
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_taskenv_t drover_taskenv_t;

//  The base PATH of every task, unless PATH is allowed through
#define DROVER_TASKENV_PATH     "/usr/local/bin:/usr/bin:/bin"
//  The base LANG of every task, unless LANG is allowed through
#define DROVER_TASKENV_LANG     "C.UTF-8"

//  The variables that say who a task is, set by the agent in every task
#define DROVER_TASKENV_TASK_ID  "DROVER_TASK_ID"
#define DROVER_TASKENV_ATTEMPT  "DROVER_ATTEMPT"
#define DROVER_TASKENV_WORKER   "DROVER_WORKER"

//  Who an attempt is: the values of those variables
typedef struct {
    uint64_t task;                  //  DROVER_TASK_ID, the task's id
    uint32_t attempt;               //  DROVER_ATTEMPT, from 1
    const char *worker;             //  DROVER_WORKER, the agent's worker id; NULL: left out
    char *const *devices;           //  the devices it was given, "NAME=VALUE" entries
                                    //  (drover_devices_env), NULL-terminated, borrowed;
                                    //  NULL: none
} drover_taskenv_who_t;

//  Create a task environment: tasks run as the agent's user, with the
//  base environment only
drover_taskenv_t *
    drover_taskenv_new (void);

//  Destroy a task environment; harmless on NULL
void
    drover_taskenv_destroy (drover_taskenv_t **self_p);

//  Allow the agent's variables named in list through to tasks: NAME or
//  NAME,NAME,..., a NAME ending in * naming every variable it prefixes
//  (LC_*). Returns 0, or -1 with why in *error_p (caller frees with
//  zstr_free): a name that is not [A-Za-z_][A-Za-z0-9_]*, or one that
//  could name a DROVER_* variable (the agent's own, never passed).
int
    drover_taskenv_pass (drover_taskenv_t *self, const char *list, char **error_p);

//  Run tasks as the user called name (HOME, USER and LOGNAME follow).
//  Returns 0, or -1 with why in *error_p (caller frees): the agent is not
//  root, no such user, or the user is root (or its group is).
int
    drover_taskenv_set_user (drover_taskenv_t *self, const char *name, char **error_p);

//  Return the user's name tasks run as by set_user, or NULL if they run
//  as the agent's user
const char *
    drover_taskenv_user (drover_taskenv_t *self);

//  Check that the tasks' user can enter directory dir, from a child that
//  drops to that user. Returns 0, or -1 with why in *error_p (caller
//  frees). Always 0 when tasks run as the agent's user.
int
    drover_taskenv_check_dir (drover_taskenv_t *self, const char *dir, char **error_p);

//  Build a task's environment from the agent's (agent_env, NULL-terminated),
//  exec's own entries and who the attempt is (NULL: none of its variables):
//  the base, then allowed variables of agent_env, then exec's env, then
//  who's devices entries, then DROVER_TASK_ID, DROVER_ATTEMPT and
//  DROVER_WORKER, a later entry
//  replacing an earlier one of the same name. Returns a NULL-terminated
//  array of strings borrowed from self, agent_env and exec, or held in the
//  array's own block: free only the array.
char **
    drover_taskenv_build (drover_taskenv_t *self, char **agent_env, const drover_exec_t *exec,
                          const drover_taskenv_who_t *who);

//  What a child needs to become the tasks' user, read before it starts
typedef struct {
    bool change;                    //  false: stay the agent's user
    uid_t uid;                      //  user id
    gid_t gid;                      //  primary group id
    const gid_t *groups;            //  supplementary groups, borrowed from the taskenv
    size_t ngroups;                 //  entries in groups
} drover_taskenv_id_t;

//  Fill id with the user tasks run as
void
    drover_taskenv_identity (drover_taskenv_t *self, drover_taskenv_id_t *id);

//  Become the user id says, in a child before exec: setgroups, setgid,
//  setuid (real, effective and saved), each checked, by system calls of
//  this thread only (a CLONE_VM child must not use the C library's
//  process-wide versions). Async-signal-safe. Returns 0 or an errno.
int
    drover_taskenv_become (const drover_taskenv_id_t *id);

#ifdef __cplusplus
}
#endif

#endif
