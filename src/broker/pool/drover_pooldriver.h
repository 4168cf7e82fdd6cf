/*  =========================================================================
    drover_pooldriver - creates, lists, tags and destroys the pool's
    instances: the `local` driver (drover worker processes on this machine)
    and the `command` driver (the operator's executable, so that any cloud
    CLI, container runtime or cluster manager plugs in without drover
    linking it)

    Every operation is asynchronous: a call starts it and returns at once;
    the pool actor watches the driver's fds in its poll (drover_poller
    items, as the worker does its runner's) and hands them back to
    drover_pooldriver_process, which reports each finished operation to a
    callback. A driver never blocks the actor: a command runs as a child
    process with its stdout and stderr read without blocking (bounded) and
    is killed (its process group) at op-timeout, a failure.

    The command driver runs, with the environment below:
        PROGRAM create TYPE NAME    create an instance of TYPE named NAME whose
                                    worker registers as NAME, tagged with the
                                    pool, type and idle behaviour
        PROGRAM list                print one line per instance:
                                    NAME TYPE [key=value ...], tags among them
                                    drover-pool=POOL and drover-idle=BEHAVIOUR
        PROGRAM tag NAME BEHAVIOUR  set the instance's drover-idle tag
        PROGRAM destroy NAME        destroy it (already gone is success)
        PROGRAM probe NAME          its boot probe (pool/probe on): exit 0 when
                                    its worker is fit to take work
    environment: DROVER_POOL (pool name), DROVER_BROKER (the endpoint workers
    connect to), and for create and tag DROVER_POOL_TYPE, DROVER_POOL_PROCS,
    DROVER_POOL_MEMORY (bytes), DROVER_POOL_LABELS ("k=v,k=v"),
    DROVER_POOL_IDLE (run, hold or drain), DROVER_WORKER_ID (NAME).
    Exit status: 0 done, 10 quota exceeded, 11 rate limited, anything else
    (or killed, or past op-timeout) failed; the last line of stderr is the
    detail.

    The local driver keeps one file per instance in its directory (NAME:
    pid, its start time, type, pool, idle behaviour) and starts `drover worker --id NAME
    --procs P --memory M --labels L` in a session of its own (so it
    outlives a broker that stops), its output to NAME.log; list reads the
    directory (an instance whose process is gone is not listed, its file
    removed); destroy sends SIGTERM (SIGKILL when asked again, past the
    shutdown timeout). Its operations finish at once, reported by the next
    drover_pooldriver_process.

    One owner thread; no clock of its own beyond the timeouts of commands.
    =========================================================================
*/

#ifndef DROVER_POOLDRIVER_H_INCLUDED
#define DROVER_POOLDRIVER_H_INCLUDED

#include <czmq.h>
#include "drover_pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_pooldriver_t drover_pooldriver_t;

//  Exit status of a command driver's operation
#define DROVER_POOLDRIVER_EXIT_QUOTA    10  //  quota exceeded
#define DROVER_POOLDRIVER_EXIT_RATE     11  //  rate limited

//  A finished operation; pointers borrowed for the callback's duration
typedef struct {
    drover_poolaction_kind_t kind;  //  CREATE, DESTROY, TAG or LIST
    const char *instance;           //  the instance, NULL for LIST
    drover_poolop_result_t result;  //  what it came to
    const char *detail;             //  what the driver said on failure, "" if nothing
    const drover_poolentry_t *entries;  //  LIST: the instances listed
    size_t nentries;                //  entries in entries
} drover_pooldone_t;

typedef void (drover_pooldone_fn) (const drover_pooldone_t *done, void *arg);

//  Create the driver config->driver names ("local" or "command"), for
//  workers connecting to broker (an endpoint); state_dir is where the
//  local driver keeps its directory when config->local_dir is "". Returns
//  NULL with a message in *error_p (caller frees with zstr_free) for an
//  unknown driver, a command that is not an executable file, or a local
//  directory that cannot be made.
drover_pooldriver_t *
    drover_pooldriver_new (const drover_poolconfig_t *config, const char *broker,
                           const char *state_dir, char **error_p);

//  Destroy a driver: operations still running are killed and not
//  reported; instances are left as they are. Harmless on NULL.
void
    drover_pooldriver_destroy (drover_pooldriver_t **self_p);

//  Start creating an instance of type named name with an idle behaviour
void
    drover_pooldriver_create (drover_pooldriver_t *self, const drover_pooltype_t *type,
                              const char *name, drover_idle_behaviour_t behaviour);

//  Start destroying an instance (again: harder, for the local driver)
void
    drover_pooldriver_destroy_instance (drover_pooldriver_t *self, const char *name);

//  Start setting an instance's idle-behaviour tag
void
    drover_pooldriver_tag (drover_pooldriver_t *self, const char *name,
                           drover_idle_behaviour_t behaviour);

//  Start probing an instance: the command driver runs PROGRAM probe NAME
//  (exit 0 passes), the local driver checks its worker's process itself
//  (alive, that instance's worker, neither stopped nor a zombie)
void
    drover_pooldriver_probe (drover_pooldriver_t *self, const char *name);

//  Start listing the instances
void
    drover_pooldriver_list (drover_pooldriver_t *self);

//  Return how many operations are running
size_t
    drover_pooldriver_running (drover_pooldriver_t *self);

//  Return how many poll items the driver needs now (its children's pipes)
size_t
    drover_pooldriver_items (drover_pooldriver_t *self);

//  Fill up to max items (from drover_poller_items) with the fds to watch;
//  returns how many it filled
size_t
    drover_pooldriver_fill (drover_pooldriver_t *self, zmq_pollitem_t *items, size_t max);

//  After a wait: read what the filled items say, reap children, kill those
//  past op-timeout (now: monotonic msec), and report each finished
//  operation to fn (the local driver's too)
void
    drover_pooldriver_process (drover_pooldriver_t *self, zmq_pollitem_t *items, size_t count,
                               uint64_t now, drover_pooldone_fn *fn, void *arg);

//  Return the next msec (monotonic) at which process must run without any
//  fd ready (a timeout to enforce, a local operation to report: now), or
//  UINT64_MAX if none
uint64_t
    drover_pooldriver_next_deadline (drover_pooldriver_t *self);

#ifdef __cplusplus
}
#endif

#endif
